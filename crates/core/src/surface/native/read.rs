//! read_file: a header line (path, lines shown, total, version), the numbered lines, and when
//! the window is cut the exact call that continues it. A whole-file read of a large file starts
//! with the file's outline; `outline: true` returns the outline alone.

use std::io::BufReader;

use serde_json::Value;

use super::{Native, resolve};
use crate::access::Access;
use crate::error::{ErrorKind, Result, ToolError};
use crate::ops::image::Change;
use crate::ops::image::tokens::ImageRule;
use crate::ops::outline;
use crate::ops::read::{self, Attachment, ReadError, ReadOptions, ReadOutcome, Total};
use crate::surface::args::Args;
use crate::surface::{CallContext, Content, ToolOutput};

/// Files up to this size get a version token on every read (hashing costs about 1 ms a MiB).
pub(super) const VERSIONED_MAX: u64 = 8 << 20;
/// The most outline entries shown.
const OUTLINE_MAX: usize = 400;

pub(super) fn read_file(
    native: &Native,
    access: &Access,
    args: Value,
    ctx: &CallContext,
) -> Result<ToolOutput> {
    let args = Args::parse(
        "read_file",
        args,
        &["path", "offset", "limit", "line_numbers", "outline"],
    )?;
    let target = resolve(access, &args, "path")?;
    let shown = target.shown.clone();
    let offset = args.opt_uint("offset")?;
    let limit = args.opt_uint("limit")?;
    if offset == Some(0) || limit == Some(0) {
        return Err(ToolError::invalid(format!(
            "offset and limit count lines from 1; call read_file {{\"path\": \"{shown}\"}} for the \
             start of the file"
        )));
    }
    let numbered = args.opt_bool("line_numbers")?.unwrap_or(true);
    if args.opt_bool("outline")?.unwrap_or(false) {
        let meta = access
            .metadata(&target)
            .map_err(|e| ToolError::from_io(&e, "read", &shown))?;
        return Ok(ToolOutput::text(outline_text(access, &target, meta.len)?));
    }
    let options = ReadOptions {
        offset: offset.unwrap_or(1),
        limit: Some(limit.unwrap_or(native.config.line_cap)),
        ..Default::default()
    };
    // The version must be the one of the lines shown: the content is held before the window
    // is read, and kept only when the file is still the same one, unchanged (its stamp, the
    // change time included, which every rename and write moves), after it; else read again.
    let mut tries = 0;
    let (outcome, held, raced) = loop {
        tries += 1;
        let held = match access.metadata(&target) {
            Ok(m) if m.is_file && m.len <= VERSIONED_MAX => access.read_all(&target).ok(),
            _ => None,
        };
        let outcome = crate::session::reading(ctx, access, &target, || {
            read::read(access, &target, &options, ctx).map_err(|e| read_error(e, &shown))
        })?;
        let same = held.as_ref().is_none_or(|(_, before)| {
            access
                .metadata(&target)
                .is_ok_and(|after| after.stamp == before.stamp)
        });
        if same || tries == 3 {
            break (outcome, held.filter(|_| same).map(|(b, _)| b), !same);
        }
    };
    match outcome {
        ReadOutcome::Text(window) => {
            let meta = access.metadata(&target).ok();
            let size = meta.as_ref().map_or(0, |m| m.len);
            let version = held.map(|bytes| {
                // The edit that usually follows a read is checked incrementally against this
                // content: parse it now, off the call's thread.
                if native.config.syntax_errors != crate::config::native::SyntaxErrors::Off
                    && crate::ops::syntax_check::language_of(&target.path).is_some()
                {
                    let (path, content) = (target.path.clone(), bytes.clone());
                    std::thread::spawn(move || crate::ops::syntax_check::remember(&path, &content));
                }
                native.version(&bytes)
            });
            let total = match window.total {
                Total::Exact(n) => n.to_string(),
                Total::AtLeast(n) => format!("at least {n}"),
            };
            let mut out = String::new();
            let whole_read = offset.is_none() && limit.is_none();
            if whole_read && window.is_partial() && size > native.config.outline_over_bytes {
                out.push_str(&outline_text(access, &target, size)?);
                out.push('\n');
            }
            let range = if window.first > window.last {
                "empty".to_string()
            } else {
                format!("lines {}-{} of {total}", window.first, window.last)
            };
            let version = match version {
                Some(v) => format!(" {v}"),
                None if raced => " (changing while read: no version; read again for one)".into(),
                None => " (over 8 MiB: no version)".to_string(),
            };
            // A part of a file, shown as stored and whole, gets a token of its own: an edit
            // naming it needs only these lines unchanged (the way to guard an edit of a file
            // too large for a version).
            let window_token = if window.is_partial()
                && window.first <= window.last
                && window.cut.is_none()
                && matches!(window.source, read::Source::Stored)
            {
                let count = usize::try_from(window.last - window.first + 1).unwrap_or(usize::MAX);
                let first = usize::try_from(window.first).unwrap_or(usize::MAX);
                format!(" window {}", native.window(first, count, &window.bytes))
            } else {
                String::new()
            };
            out.push_str(&format!("{shown}{version} {range}{window_token}"));
            if let read::Source::Decoded { format, .. } = &window.source {
                out.push_str(&format!(
                    " [decoded from {format}; edits write it back in {}]",
                    format.encoding
                ));
            }
            out.push('\n');
            let text = String::from_utf8_lossy(&window.bytes);
            for (line, l) in (window.first..).zip(text.split_inclusive('\n')) {
                if numbered {
                    out.push_str(&format!("{line}\t"));
                }
                out.push_str(l);
            }
            if !out.ends_with('\n') {
                out.push('\n');
            }
            let more = match window.total {
                Total::Exact(n) => window.last < n,
                Total::AtLeast(_) => true,
            };
            if more || window.cut.is_some() {
                let next = window.last + 1;
                out.push_str(&format!(
                    "more: read_file {{\"path\": \"{shown}\", \"offset\": {next}}}\n"
                ));
            }
            Ok(ToolOutput::text(out))
        }
        ReadOutcome::Image(image) => {
            let image = image.fit(&native.images);
            let dims = image
                .dimensions
                .map_or_else(|| "size unknown".to_string(), |(w, h)| format!("{w}x{h}"));
            let (name, size) = (image.format.name(), image.size);
            let label = format!("{shown}: {name} image, {dims}, {size} bytes");
            Ok(match image.attachment {
                Attachment::Attached(fitted) => {
                    let (w, h, sent) = (fitted.width, fitted.height, fitted.data.len());
                    let tokens = format!("~{}", ImageRule::default().tokens_text(w, h));
                    let as_format = if fitted.format == image.format {
                        String::new()
                    } else {
                        format!(", as {}", fitted.format.name())
                    };
                    let label = match fitted.change {
                        Change::None => format!("{label}, {tokens}"),
                        Change::Downscaled { .. } => format!(
                            "{shown}: {name} image, {dims} → {w}x{h} (downscaled{as_format}), \
                             {tokens}, {size} → {sent} bytes"
                        ),
                        Change::Reencoded => format!(
                            "{shown}: {name} image, {dims} (encoded again{as_format}: over the \
                             {}-byte image limit), {tokens}, {size} → {sent} bytes",
                            native.images.max_bytes
                        ),
                    };
                    ToolOutput {
                        content: vec![
                            Content::Text(label),
                            Content::Image {
                                mime: fitted.format.mime(),
                                data: fitted.data,
                            },
                        ],
                        is_error: false,
                        structured: None,
                    }
                }
                Attachment::Unfit(why) => ToolOutput::text(format!("{label}; not attached: {why}")),
                Attachment::TooLarge(max) => {
                    ToolOutput::text(format!("{label}; not attached: over the {max}-byte limit"))
                }
                Attachment::NoVision => {
                    ToolOutput::text(format!("{label}; not attached: images are off"))
                }
                Attachment::Damaged(why) => {
                    ToolOutput::text(format!("{label}; not attached: damaged ({why})"))
                }
            })
        }
        ReadOutcome::Binary { size } => Ok(ToolOutput::text(format!(
            "{shown}: binary, {size} bytes (a NUL byte in its first 8 KiB); not shown"
        ))),
    }
}

/// The outline of the file at `target` (`size` bytes), headed by its own line.
fn outline_text(access: &Access, target: &crate::access::Resolved, size: u64) -> Result<String> {
    let (file, _) = access
        .open_regular(target)
        .map_err(|e| ToolError::from_io(&e, "read", &target.shown))?;
    let (entries, more) = outline::outline(&target.path, BufReader::new(file), OUTLINE_MAX);
    let shown = &target.shown;
    let mut out = format!(
        "outline of {shown} ({size} bytes, {} entries",
        entries.len()
    );
    out.push_str(if more { ", cut)\n" } else { ")\n" });
    for e in &entries {
        out.push_str(&format!(
            "{}\t{}{}\n",
            e.line,
            " ".repeat(e.indent.min(16)),
            e.text
        ));
    }
    if entries.is_empty() {
        out.push_str("(no definitions or headings recognised)\n");
    }
    out.push_str(&format!(
        "read a part: read_file {{\"path\": \"{shown}\", \"offset\": LINE, \"limit\": N}}"
    ));
    Ok(out)
}

/// A read's refusal in native's words.
fn read_error(e: ReadError, shown: &str) -> ToolError {
    match e {
        ReadError::OffsetZero { .. } | ReadError::LimitZero { .. } => {
            ToolError::invalid("offset and limit count lines from 1")
        }
        ReadError::PastEnd { offset, total, .. } => ToolError::invalid(format!(
            "offset {offset} is past the end of {shown}, which has {total} lines; read from \
             offset {}",
            total.saturating_sub(49).max(1)
        )),
        ReadError::Missing { .. } => ToolError::not_found(format!(
            "{shown} does not exist; find it with glob {{\"pattern\": \"**/NAME\"}}"
        )),
        ReadError::Directory { .. } => ToolError::invalid(format!(
            "{shown} is a folder; list it with list_dir {{\"path\": \"{shown}\"}}"
        )),
        ReadError::TooLargeToDecode {
            encoding,
            size,
            max,
            ..
        } => ToolError::new(
            ErrorKind::TooLarge,
            format!(
                "{shown} is {encoding} text of {size} bytes; texts in that encoding are decoded \
                 up to {max} bytes; search it instead"
            ),
        ),
        ReadError::Other(e) => e,
    }
}
