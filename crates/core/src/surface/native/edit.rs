//! edit: several replacements in one file, in order, all or none, through the one matcher
//! (`text/matcher.rs`): the first level that finds the quote decides, a quote found more than
//! once at that level is an error listing every candidate's line unless `line_hint` picks one,
//! and the level and lines of each edit are reported. A quote found nowhere whose replacement is
//! already there is an edit already applied, said as such.
//!
//! With `expected_version`: a file at another version is refused with what changed, unless
//! every edit's quote is found once, at the same level and with the same bytes, both in the
//! version the caller read and now — its region unchanged — and then the edits apply to the
//! current content (a rebase) and the answer says so.
//!
//! The edited content is parsed before it is written (`[edit] syntax_errors`): syntax errors
//! it introduces are reported after the edit lines, or refuse the edit.

use serde_json::Value;

use super::txn;
use super::write::{
    Before, RETRIES, current, kept_losing, new_syntax_errors, refuses_syntax_errors,
    syntax_errors_of, syntax_refusal,
};
use super::{Native, resolve, stale};
use crate::access::Access;
use crate::error::{ErrorKind, Result, ToolError};
use crate::ops::syntax_check;
use crate::ops::version;
use crate::surface::CallContext;
use crate::surface::args::Args;
use crate::text::matcher::{self, Level};

/// One requested replacement.
struct Spec {
    old: String,
    new: String,
    line_hint: Option<u64>,
    replace_all: bool,
}

/// What one edit did.
struct Done {
    /// The level it matched at; `None` for an edit already applied.
    level: Option<Level>,
    /// The first line it touched, and how many lines it replaced and wrote.
    line: usize,
    old_lines: usize,
    new_lines: usize,
    /// Occurrences replaced.
    count: usize,
}

/// The words for a matcher level in native's answers.
pub(super) fn level_name(level: Level) -> &'static str {
    match level {
        Level::Exact => "exact",
        Level::LineEndings => "line endings",
        Level::TrailingWhitespace => "trailing whitespace ignored",
        Level::Indentation => "indentation (re-indented)",
        Level::Punctuation => "punctuation normalised",
    }
}

fn specs(args: &Args) -> Result<Vec<Spec>> {
    let Some(Value::Array(items)) = args.opt_value("edits") else {
        return Err(ToolError::invalid(
            "edit needs edits, an array of {old_text, new_text} objects; e.g. \
             {\"path\": \"src/a.rs\", \"edits\": [{\"old_text\": \"x\", \"new_text\": \"y\"}]}",
        ));
    };
    if items.is_empty() {
        return Err(ToolError::invalid(
            "edits is empty; give at least one {old_text, new_text}",
        ));
    }
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let n = i + 1;
        let item = Args::parse(
            "edit",
            item.clone(),
            &["old_text", "new_text", "line_hint", "replace_all"],
        )
        .map_err(|e| ToolError::invalid(format!("edits[{n}]: {}", e.message)))?;
        let old = item
            .str("old_text")
            .map_err(|e| ToolError::invalid(format!("edits[{n}]: {}", e.message)))?;
        let new = item
            .str("new_text")
            .map_err(|e| ToolError::invalid(format!("edits[{n}]: {}", e.message)))?;
        if old.is_empty() {
            return Err(ToolError::invalid(format!(
                "edits[{n}]: old_text is empty; quote the text to replace, or create the file \
                 with write_file"
            )));
        }
        if old == new {
            return Err(ToolError::invalid(format!(
                "edits[{n}]: old_text and new_text are the same, so it changes nothing"
            )));
        }
        out.push(Spec {
            old: old.to_string(),
            new: new.to_string(),
            line_hint: item.opt_uint("line_hint")?,
            replace_all: item.opt_bool("replace_all")?.unwrap_or(false),
        });
    }
    Ok(out)
}

/// The 1-based line of byte `at` of `bytes`.
fn line_of(bytes: &[u8], at: usize) -> usize {
    bytes[..at.min(bytes.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The most lines [`nearest`] shows.
const NEAREST_LINES: usize = 12;

/// The lines of `bytes` nearest a quote that matched nowhere, numbered as read_file numbers
/// them: the region whose lines most often equal the quote's (ignoring surrounding
/// whitespace), else the one line sharing the most words with the quote's lines. `None` when
/// nothing is near.
fn nearest(bytes: &[u8], quote: &str) -> Option<String> {
    let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    let quoted: Vec<&[u8]> = quote
        .trim_end_matches('\n')
        .split('\n')
        .map(str::as_bytes)
        .collect();
    let (start, end) = match matcher::closest_lines(&lines, &quoted, 0) {
        Some(c) if c.matching > 0 => (c.start, c.end.max(c.start + 1)),
        _ => {
            let words = |l: &[u8]| -> std::collections::HashSet<Vec<u8>> {
                l.split(|b| !b.is_ascii_alphanumeric() && *b != b'_')
                    .filter(|w| w.len() >= 2)
                    .map(<[u8]>::to_vec)
                    .collect()
            };
            let wanted: std::collections::HashSet<Vec<u8>> =
                quoted.iter().flat_map(|l| words(l)).collect();
            let (best, score) = lines
                .iter()
                .enumerate()
                .map(|(i, l)| (i, words(l).intersection(&wanted).count()))
                .max_by_key(|&(i, score)| (score, std::cmp::Reverse(i)))?;
            if score == 0 {
                return None;
            }
            let around = quoted.len().saturating_sub(1);
            (best, (best + 1 + around).min(lines.len()))
        }
    };
    let end = end.min(start + NEAREST_LINES).min(lines.len());
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate().take(end).skip(start) {
        out.push_str(&format!("{}\t{}\n", i + 1, String::from_utf8_lossy(line)));
    }
    (!out.is_empty()).then_some(out)
}

fn lines_in(bytes: &[u8]) -> usize {
    if bytes.is_empty() {
        return 0;
    }
    bytes.iter().filter(|&&b| b == b'\n').count() + usize::from(!bytes.ends_with(b"\n"))
}

/// Where an edit applies: the level it matched at, the ranges it replaces, their replacement.
type Placed = (Level, Vec<std::ops::Range<usize>>, Vec<u8>);

/// Where edit `n` (`spec`) applies in `bytes`: the level, the ranges to replace and their
/// replacement; `Ok(None)` when it is already applied.
fn place(n: usize, bytes: &[u8], spec: &Spec) -> Result<Option<Placed>> {
    let found = matcher::find_corrected(bytes, &spec.old, &spec.new).map_err(|u| {
        ToolError::invalid(format!(
            "edits[{n}]: the quote matches once indentation is ignored, but line {} of {} \
             cannot be re-indented to the file's indentation ({}); quote the text exactly",
            u.line,
            if u.in_quote { "old_text" } else { "new_text" },
            u.reason
        ))
    })?;
    let Some(found) = found else {
        if !spec.new.is_empty() && memchr::memmem::find(bytes, spec.new.as_bytes()).is_some() {
            return Ok(None);
        }
        return Err(ToolError::new(
            ErrorKind::NoMatch,
            format!(
                "edits[{n}]: old_text was not found (not even ignoring line endings, trailing \
                 whitespace, indentation or punctuation); nothing was written. {}",
                match nearest(bytes, &spec.old) {
                    Some(shown) => format!(
                        "The nearest lines of the file as it is now; quote old_text from \
                         them:\n{shown}"
                    ),
                    None => "Read the file again and quote it exactly.".to_string(),
                }
            ),
        ));
    };
    let lines: Vec<usize> = found
        .ranges
        .iter()
        .map(|r| line_of(bytes, r.start))
        .collect();
    if found.ranges.len() == 1 {
        return Ok(Some((found.level, found.ranges, found.replacement)));
    }
    if spec.replace_all {
        if found.level != Level::Exact && found.level != Level::LineEndings {
            return Err(ToolError::invalid(format!(
                "edits[{n}]: replace_all needs old_text quoted exactly; it matched only at the \
                 {} level, at lines {}",
                level_name(found.level),
                join(&lines)
            )));
        }
        // Overlapping occurrences cannot all be replaced.
        let mut ranges: Vec<std::ops::Range<usize>> = Vec::new();
        for r in found.ranges {
            if ranges.last().is_none_or(|last| last.end <= r.start) {
                ranges.push(r);
            }
        }
        return Ok(Some((found.level, ranges, found.replacement)));
    }
    let Some(hint) = spec.line_hint else {
        return Err(ToolError::new(
            ErrorKind::NotUnique,
            format!(
                "edits[{n}]: old_text occurs {} times ({} level), at lines {}; nothing was \
                 written. Pass line_hint with the line you mean, quote more context, or pass \
                 replace_all: true",
                lines.len(),
                level_name(found.level),
                join(&lines)
            ),
        ));
    };
    let distance = |l: usize| (l as i64 - hint as i64).unsigned_abs();
    let best = lines.iter().map(|&l| distance(l)).min().unwrap_or(0);
    let nearest: Vec<usize> = (0..lines.len())
        .filter(|&i| distance(lines[i]) == best)
        .collect();
    if nearest.len() != 1 {
        return Err(ToolError::new(
            ErrorKind::NotUnique,
            format!(
                "edits[{n}]: line_hint {hint} is as near to line {} as to line {}; pass the line \
                 the occurrence starts on (one of {})",
                lines[nearest[0]],
                lines[nearest[1]],
                join(&lines)
            ),
        ));
    }
    let chosen = nearest[0];
    let range = found.ranges[chosen].clone();
    let replacement = if found.level == Level::Indentation && chosen != 0 {
        // The replacement was re-indented to the first occurrence; find it again from the
        // chosen one's line so it takes that one's indentation.
        let start = bytes[..range.start]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        match matcher::find_corrected(&bytes[start..], &spec.old, &spec.new) {
            Ok(Some(f)) => f.replacement,
            _ => found.replacement,
        }
    } else {
        found.replacement
    };
    Ok(Some((found.level, vec![range], replacement)))
}

fn join(lines: &[usize]) -> String {
    lines
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Applies `specs` to `bytes` in order: the new content and what each edit did.
fn apply(bytes: &[u8], specs: &[Spec]) -> Result<(Vec<u8>, Vec<Done>)> {
    let mut content = bytes.to_vec();
    let mut done = Vec::with_capacity(specs.len());
    for (i, spec) in specs.iter().enumerate() {
        let Some((level, ranges, replacement)) = place(i + 1, &content, spec)? else {
            let at = memchr::memmem::find(&content, spec.new.as_bytes()).unwrap_or(0);
            done.push(Done {
                level: None,
                line: line_of(&content, at),
                old_lines: 0,
                new_lines: lines_in(spec.new.as_bytes()),
                count: 0,
            });
            continue;
        };
        let line = line_of(&content, ranges[0].start);
        let old_lines = lines_in(&content[ranges[0].clone()]);
        let mut next = Vec::with_capacity(content.len() + replacement.len());
        let mut at = 0;
        for r in &ranges {
            next.extend_from_slice(&content[at..r.start]);
            next.extend_from_slice(&replacement);
            at = r.end;
        }
        next.extend_from_slice(&content[at..]);
        content = next;
        done.push(Done {
            level: Some(level),
            line,
            old_lines,
            new_lines: lines_in(&replacement),
            count: ranges.len(),
        });
    }
    Ok((content, done))
}

/// Whether every edit's quote has the same unique place in `then` as in `now`, up to where it
/// lies: its region is unchanged, so the edits can apply to `now`.
fn rebases(then: &[u8], now: &[u8], specs: &[Spec]) -> bool {
    specs
        .iter()
        .all(|spec| version::quote_rebases(then, now, &spec.old))
}

pub(super) fn edit(
    native: &Native,
    access: &Access,
    args: Value,
    ctx: &CallContext,
) -> Result<String> {
    let args = Args::parse(
        "edit",
        args,
        &["path", "edits", "expected_version", "dry_run"],
    )?;
    let target = resolve(access, &args, "path")?;
    let shown = target.shown.clone();
    let specs = specs(&args)?;
    let expected = args.opt_str("expected_version")?;
    let dry_run = args.opt_bool("dry_run")?.unwrap_or(false);
    for _ in 0..RETRIES {
        let before = current(access, &target)?;
        let Before::Bytes(bytes) = &before else {
            return Err(ToolError::not_found(format!(
                "{shown} does not exist; create it with write_file {{\"path\": \"{shown}\", \
                     \"content\": …}}"
            )));
        };
        if std::str::from_utf8(bytes).is_err() {
            return Err(ToolError::invalid(format!(
                "{shown} is not UTF-8 text; edit works on UTF-8 files. Use apply_patch or \
                 write_file with the whole new text"
            )));
        }
        let old_version = native.version(bytes);
        let mut rebased = None;
        if let Some(then) = native.check_version(&shown, expected, bytes)? {
            if !rebases(&then, bytes, &specs) {
                return Err(stale(
                    &shown,
                    expected.unwrap_or_default(),
                    &then,
                    bytes,
                    &old_version,
                ));
            }
            rebased = expected;
        }
        let (after, done) = apply(bytes, &specs)?;
        let mut report = Vec::with_capacity(done.len() + 2);
        for (i, d) in done.iter().enumerate() {
            let n = i + 1;
            report.push(match d.level {
                None => format!(
                    "{n}: already applied (new_text is at line {}, old_text is absent)",
                    d.line
                ),
                Some(level) => {
                    let end = |from: usize, count: usize| {
                        if count <= 1 {
                            from.to_string()
                        } else {
                            format!("{from}-{}", from + count - 1)
                        }
                    };
                    let times = if d.count > 1 {
                        format!(", {} occurrences", d.count)
                    } else {
                        String::new()
                    };
                    format!(
                        "{n}: {}, lines {} → {}{times}",
                        level_name(level),
                        end(d.line, d.old_lines),
                        end(d.line, d.new_lines)
                    )
                }
            });
        }
        if let Some(from) = rebased {
            report.push(format!(
                "rebased: {shown} changed since {from}, outside the edited regions; the edits \
                 apply to {old_version}"
            ));
        }
        if after == *bytes {
            return Ok(format!(
                "{shown} {old_version} unchanged: every edit was already applied\n{}",
                report.join("\n")
            ));
        }
        let syntax = new_syntax_errors(native, &target, Some(bytes), &after);
        if let Some(found) = &syntax {
            let mut line = syntax_check::describe(found);
            if refuses_syntax_errors(native) {
                if !dry_run {
                    return Err(syntax_refusal(
                        "the edit",
                        &[syntax_errors_of(&shown, found)],
                        "Fix the edits (new_text, or more of old_text so the replaced region \
                         is whole) and call edit again",
                    ));
                }
                line.push_str(" (the edit would be refused: syntax_errors = \"refuse\")");
            }
            report.push(line);
        }
        if dry_run {
            return Ok(format!(
                "dry run: {shown} {old_version} would change\n{}\n{}",
                report.join("\n"),
                crate::ops::patch::unified::render(&shown, bytes, &after)
            ));
        }
        let label = format!("edit {shown}");
        if let Some(w) = txn::write_one(native, access, &target, &before, &after, ctx, label)? {
            return Ok(format!(
                "edited {} {old_version}→{}\n{}{}",
                access.written_name(&target),
                w.version,
                report.join("\n"),
                w.note_line()
            ));
        }
    }
    Err(kept_losing(&shown))
}
