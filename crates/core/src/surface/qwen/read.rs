//! read_file: text decoded from its encoding (named in a note when it is not UTF-8) and shown
//! by 0-based line windows, Jupyter notebooks as structured cells, images and PDFs as
//! attachments when the model takes them (an image only when it is a whole PNG, JPEG, GIF or
//! WebP; else it is described), other media refused with guidance, other binaries named and
//! skipped.

use serde_json::Value;

use super::args::Args;
use super::{Outcome, Qwen, is_notebook, resolve};
use crate::access::Access;
use crate::ops::image::tokens::ImageRule;
use crate::ops::image::{self, Change, Checked, Fitted, ImageFormat};
use crate::ops::notebook::{self, Notebook};
use crate::surface::{Content, ToolOutput};
use crate::text::encoding::{self, Enc};

/// Lines shown when no limit is given.
pub(super) const DEFAULT_LINES: usize = 2000;
/// Characters of one line shown; the rest is cut.
pub(super) const MAX_LINE_CHARS: usize = 2000;
/// The largest text file read.
const MAX_TEXT_BYTES: u64 = 20 * 1024 * 1024;
/// The largest media file attached.
const MAX_MEDIA_BYTES: u64 = 10 * 1024 * 1024;
/// The largest SVG shown as text.
const MAX_SVG_BYTES: u64 = 1024 * 1024;
/// The head of a file the binary test looks at.
const SNIFF_BYTES: usize = 4096;

pub(super) fn read_file(qwen: &Qwen, access: &Access, args: Value) -> Outcome {
    let args = Args::parse("read_file", args, &["path", "offset", "limit"])?;
    let raw = args.str("path")?;
    if raw.trim().is_empty() {
        return Err("The 'path' parameter must be non-empty.".to_string());
    }
    let offset = args.opt_int("offset")?;
    let limit = args.opt_int("limit")?;
    if offset.is_some_and(|o| o < 0) {
        return Err("Offset must be a non-negative number".to_string());
    }
    if limit.is_some_and(|l| l <= 0) {
        return Err("Limit must be a positive number".to_string());
    }
    let target = resolve(access, raw, "File path")?;
    let meta = match access.metadata(&target) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!("File not found: {raw}"));
        }
        Err(e) => return Err(format!("Error reading file {raw}: {e}")),
    };
    if meta.is_dir {
        return Err(format!("Path is a directory, not a file: {raw}"));
    }
    if !meta.is_file {
        return Err(format!(
            "Cannot read file: {raw} is not a regular file (e.g. device, socket, or pipe)."
        ));
    }
    if qwen.qwen_ignored(access, &target.path, false) {
        return Err(format!(
            "File path '{raw}' is ignored by .qwenignore pattern(s)."
        ));
    }
    let size_mb = meta.len as f64 / (1024.0 * 1024.0);
    let read_all = || {
        access
            .read_all(&target)
            .map(|(bytes, _)| bytes)
            .map_err(|e| format!("Error reading file {raw}: {e}"))
    };

    if is_notebook(raw) {
        if offset.is_some() || limit.is_some() {
            return Err(format!(
                "offset and limit are not supported for Jupyter notebooks (.ipynb): read_file \
                 shows {raw} whole, as structured cells. Call read_file again without offset \
                 and limit."
            ));
        }
        if meta.len > MAX_TEXT_BYTES {
            return Err(too_large(raw, size_mb, 20));
        }
        let bytes = read_all()?;
        match Notebook::parse(&bytes) {
            Ok(nb) => {
                let view = notebook::view(&nb);
                super::notebook::remember(qwen, &target.path, &bytes, view.complete);
                return Ok(ToolOutput::text(view.text));
            }
            Err(why) => {
                // Not a notebook the engine can lay out (a merge conflict, say): show its text
                // so it can be repaired.
                let text = render_text(qwen, &bytes, 0, DEFAULT_LINES, raw)?;
                return Ok(ToolOutput::text(format!(
                    "[{raw} is not a valid Jupyter notebook: {why}. Showing its text.]\n{text}"
                )));
            }
        }
    }

    let head = {
        let (mut file, _) = access
            .open_regular(&target)
            .map_err(|e| format!("Error reading file {raw}: {e}"))?;
        let mut head = vec![0u8; SNIFF_BYTES];
        let n = read_up_to(&mut file, &mut head);
        head.truncate(n);
        head
    };
    let name = target
        .path
        .file_name()
        .map_or_else(|| raw.to_string(), |n| n.to_string_lossy().into_owned());
    match media_of(raw, &head) {
        Some(Media::Svg) if meta.len > MAX_SVG_BYTES => {
            return Ok(ToolOutput::text(format!(
                "Cannot display content of SVG file larger than 1MB: {raw}"
            )));
        }
        Some(Media::Image(mime)) => {
            if !qwen.config.modalities.image {
                return Err(unsupported("image", &name));
            }
            if meta.len > MAX_MEDIA_BYTES {
                return Err(too_large(raw, size_mb, 10));
            }
            let data = read_all()?;
            // Only a whole image of a format that is checked is attached (see ops::image),
            // brought within the image limits.
            match image::check(&data) {
                Some(Ok(checked)) => {
                    let size = data.len();
                    return Ok(match image::fit(data, checked, &qwen.images) {
                        Ok(fitted) => attach_fitted(raw, checked, size, fitted),
                        Err(why) => {
                            ToolOutput::text(format!("Image file {raw} is not attached: {why}."))
                        }
                    });
                }
                Some(Err(damaged)) => {
                    return Ok(ToolOutput::text(format!(
                        "Image file {raw} is not attached: it claims to be {} ({} bytes) but is \
                         damaged or not an image a model can be sent: {}.",
                        damaged.format.name(),
                        data.len(),
                        damaged.reason
                    )));
                }
                None if is_binary(&head) => {
                    return Ok(ToolOutput::text(format!(
                        "Image file {raw} is not attached: its bytes are not a PNG, JPEG, GIF or \
                         WebP image ({mime} by its name), and only those formats are checked \
                         and sent to the model."
                    )));
                }
                // Text under an image's name: read as the text it is.
                None => {}
            }
        }
        Some(Media::Pdf) => {
            if !qwen.config.modalities.pdf {
                return Err(unsupported("pdf", &name));
            }
            if meta.len > MAX_MEDIA_BYTES {
                return Err(too_large(raw, size_mb, 10));
            }
            return Ok(ToolOutput {
                content: vec![Content::Resource {
                    uri: format!("file://{}", target.path.display()),
                    mime: "application/pdf",
                    data: read_all()?,
                }],
                is_error: false,
                structured: None,
            });
        }
        Some(Media::Audio) => return Err(unsupported("audio", &name)),
        Some(Media::Video) => return Err(unsupported("video", &name)),
        Some(Media::Svg) | None => {}
    }
    if is_binary(&head) {
        return Ok(ToolOutput::text(format!(
            "Cannot display content of binary file: {raw}"
        )));
    }
    if meta.len > MAX_TEXT_BYTES {
        return Err(too_large(raw, size_mb, 20));
    }
    let bytes = read_all()?;
    let start = offset.unwrap_or(0) as usize;
    let limit = limit.map_or(DEFAULT_LINES, |l| l as usize);
    Ok(ToolOutput::text(render_text(
        qwen, &bytes, start, limit, raw,
    )?))
}

/// The text of `bytes` from 0-based line `start`, at most `limit` lines, prefixed with Qwen
/// Code's truncation notice when it shows only part of the file or cuts long lines, and then
/// with one line naming the encoding when the text was decoded from another than UTF-8.
fn render_text(
    qwen: &Qwen,
    bytes: &[u8],
    start: usize,
    limit: usize,
    raw: &str,
) -> Result<String, String> {
    let decoded = encoding::decode(bytes, qwen.fallback);
    let lines: Vec<&str> = decoded.text.split_inclusive('\n').collect();
    let total = lines.len();
    if start > 0 && start >= total {
        return Err(format!(
            "Offset {start} is beyond the end of {raw}, which has {total} line{}; pass an offset \
             from 0 to {}.",
            if total == 1 { "" } else { "s" },
            total.saturating_sub(1)
        ));
    }
    let end = start.saturating_add(limit).min(total);
    let mut body = String::new();
    let mut cut_lines = false;
    for line in &lines[start..end] {
        let (content, ending) = match line.strip_suffix('\n') {
            Some(content) => (content, "\n"),
            None => (*line, ""),
        };
        match content.char_indices().nth(MAX_LINE_CHARS) {
            Some((cut, _)) => {
                cut_lines = true;
                body.push_str(&content[..cut]);
                body.push_str("... [truncated]");
            }
            None => body.push_str(content),
        }
        body.push_str(ending);
    }
    let notice = if start > 0 || end < total {
        format!(
            "[File content truncated: showing lines {}-{end} of {total} total lines. Use \
             offset/limit parameters to view more.]\n",
            start + 1
        )
    } else if cut_lines {
        format!(
            "[File content partially truncated: some lines exceeded maximum length of \
             {MAX_LINE_CHARS} characters.]\n"
        )
    } else {
        String::new()
    };
    let decoded_note = if decoded.format.encoding == Enc::Utf8 {
        String::new()
    } else {
        format!(
            "[File decoded from {}; write_file and edit write it back in {}.]\n",
            decoded.format, decoded.format.encoding
        )
    };
    Ok(notice + &decoded_note + &body)
}

fn too_large(raw: &str, size_mb: f64, limit_mb: u32) -> String {
    format!("File size exceeds the {limit_mb}MB limit: {raw} ({size_mb:.2}MB)")
}

/// Qwen Code's refusal of a medium the model cannot take.
fn unsupported(modality: &str, name: &str) -> String {
    format!(
        "[Unsupported {modality} file: \"{name}\". This model does not support {modality} input. \
         The read_file tool cannot process this type of file either. To handle this file, try \
         using skills if applicable, or any tools installed at system wide, or let the user know \
         you cannot process this type of file.]"
    )
}

/// An image as its attachment block: alone when it is the file's own bytes, as Qwen Code
/// sends it; after a bracketed note saying what was sent when it was scaled down or encoded
/// again: `[Image downscaled: /w/photo.jpg is 4032x3024 pixels (3480123 bytes); sent at
/// 1237x928 as JPEG (201544 bytes), about 1,531 tokens.]`.
fn attach_fitted(raw: &str, checked: Checked, size: usize, fitted: Fitted) -> ToolOutput {
    let about = format!(
        "about {}",
        ImageRule::default().tokens_text(fitted.width, fitted.height)
    );
    let (w, h, format, len) = (
        fitted.width,
        fitted.height,
        fitted.format.name(),
        fitted.data.len(),
    );
    let (fw, fh) = (checked.width, checked.height);
    let note = match fitted.change {
        Change::None => None,
        Change::Downscaled { .. } => Some(format!(
            "[Image downscaled: {raw} is {fw}x{fh} pixels ({size} bytes); sent at {w}x{h} as \
             {format} ({len} bytes), {about}.]"
        )),
        Change::Reencoded => Some(format!(
            "[Image re-encoded: {raw} is {size} bytes, over the image byte limit; sent as \
             {format} ({len} bytes, {w}x{h} pixels), {about}.]"
        )),
    };
    let image = Content::Image {
        mime: fitted.format.mime(),
        data: fitted.data,
    };
    ToolOutput {
        content: note.map(Content::Text).into_iter().chain([image]).collect(),
        is_error: false,
        structured: None,
    }
}

enum Media {
    Image(&'static str),
    Svg,
    Pdf,
    Audio,
    Video,
}

/// The medium of a file, by its extension, else by its first bytes (images, PDFs).
fn media_of(raw: &str, head: &[u8]) -> Option<Media> {
    let extension = std::path::Path::new(raw)
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let by_name = match extension.as_str() {
        "png" => Some(Media::Image("image/png")),
        "jpg" | "jpeg" => Some(Media::Image("image/jpeg")),
        "gif" => Some(Media::Image("image/gif")),
        "webp" => Some(Media::Image("image/webp")),
        "bmp" => Some(Media::Image("image/bmp")),
        "tif" | "tiff" => Some(Media::Image("image/tiff")),
        "ico" => Some(Media::Image("image/x-icon")),
        "heic" => Some(Media::Image("image/heic")),
        "heif" => Some(Media::Image("image/heif")),
        "avif" => Some(Media::Image("image/avif")),
        "svg" => Some(Media::Svg),
        "pdf" => Some(Media::Pdf),
        "mp3" | "wav" | "aiff" | "aif" | "aac" | "ogg" | "oga" | "flac" | "m4a" | "opus"
        | "wma" => Some(Media::Audio),
        "mp4" | "mov" | "avi" | "mkv" | "webm" | "m4v" | "wmv" | "flv" | "mpeg" | "mpg" | "3gp" => {
            Some(Media::Video)
        }
        _ => None,
    };
    by_name.or_else(|| {
        if let Some(format) = ImageFormat::sniff(head) {
            Some(Media::Image(format.mime()))
        } else if head.starts_with(b"%PDF-") {
            Some(Media::Pdf)
        } else {
            None
        }
    })
}

/// Qwen Code's binary test of a file's head: a BOM (UTF-8, UTF-16 or UTF-32) means text; a NUL
/// byte ([`encoding::looks_binary`], the test every profile shares), or more than 30% control
/// characters, means binary.
pub(super) fn is_binary(head: &[u8]) -> bool {
    if head.is_empty() || head.starts_with(b"\xEF\xBB\xBF") || encoding::wide_bom(head).is_some() {
        return false;
    }
    if encoding::looks_binary(head) {
        return true;
    }
    let control = head
        .iter()
        .filter(|&&b| b < 9 || (b > 13 && b < 32))
        .count();
    control * 10 > head.len() * 3
}

/// Reads into `buf` until it is full or the file ends; the number of bytes read.
fn read_up_to(file: &mut impl std::io::Read, buf: &mut [u8]) -> usize {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_heads_follow_qwen_code() {
        assert!(!is_binary(b""));
        assert!(!is_binary(b"plain text\n"));
        assert!(!is_binary(b"\xFF\xFEa\0b\0"));
        assert!(!is_binary(b"\x00\x00\xFE\xFF\x00\x00\x00a"));
        assert!(is_binary(b"ab\0cd"));
        assert!(is_binary(b"\x01\x02\x03abcd"));
        assert!(!is_binary(
            b"\x1b[31mred\x1b[0m and more ordinary text here"
        ));
    }
}
