//! What every picoclaw result passes through before the model sees it: the generic guard
//! (invisible Unicode and data URLs stripped, long base64 runs omitted except in read_file
//! output), and the large-result spill (over `tools.max_inline_result_chars`, the result is
//! written to a workspace artifact and the model gets a head+tail preview with its path).
//!
//! read_file and search_files shorten their pages to fit inline, so following their footers
//! never skips what a preview leaves out; what still spills (a huge list_dir) is read back whole
//! with read_file from the artifact's start, page by page, without spilling again.

use std::borrow::Cow;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::super::{Content, ToolOutput};
use crate::access::{Access, WriteOptions};
use crate::ops::artifacts;

/// Where spilled results go, relative to the workspace. Searches skip it.
pub(super) const ARTIFACT_DIR: &str = artifacts::PICOCLAW_DIR;

/// The shortest base64 run (mixing upper case, lower case and digits) the guard omits.
const BASE64_RUN: usize = 1024;

static DATA_URL: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"data:([A-Za-z0-9.+-]+/[A-Za-z0-9.+-]+)(?:;[A-Za-z0-9.+=-]+)*;base64,[A-Za-z0-9+/=]+",
    )
    .ok()
});

static BASE64: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(&format!("[A-Za-z0-9+/]{{{BASE64_RUN},}}={{0,2}}")).ok());

/// Zero-width and bidirectional-control characters, which hide text from a reader.
fn invisible(c: char) -> bool {
    matches!(c,
        '\u{200B}'..='\u{200F}'
        | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{2069}'
        | '\u{FEFF}'
        | '\u{180E}'
        | '\u{00AD}')
}

/// `text` through the generic guard; `keep_base64` exempts long base64 runs (read_file).
pub(super) fn guard(text: &str, keep_base64: bool) -> Cow<'_, str> {
    let mut out: Cow<'_, str> = Cow::Borrowed(text);
    if out.chars().any(invisible) {
        out = Cow::Owned(out.chars().filter(|c| !invisible(*c)).collect());
    }
    if let Some(re) = DATA_URL.as_ref()
        && re.is_match(&out)
    {
        let replaced = re
            .replace_all(&out, |caps: &regex::Captures<'_>| {
                format!(
                    "[data URL omitted: {}, {} characters]",
                    &caps[1],
                    caps[0].len()
                )
            })
            .into_owned();
        out = Cow::Owned(replaced);
    }
    if !keep_base64
        && let Some(re) = BASE64.as_ref()
        && re.is_match(&out)
    {
        let replaced = re
            .replace_all(&out, |caps: &regex::Captures<'_>| {
                let run = &caps[0];
                let mixed = run.bytes().any(|b| b.is_ascii_uppercase())
                    && run.bytes().any(|b| b.is_ascii_lowercase())
                    && run.bytes().any(|b| b.is_ascii_digit());
                if mixed {
                    format!("[base64 data omitted: {} characters]", run.len())
                } else {
                    run.to_string()
                }
            })
            .into_owned();
        out = Cow::Owned(replaced);
    }
    out
}

/// Spills `output` to an artifact when its text is longer than `limit` characters.
pub(super) fn bound(ws: &Access, tool: &str, output: ToolOutput, limit: usize) -> ToolOutput {
    if output.is_error || output.structured.is_some() {
        return output;
    }
    let [Content::Text(text)] = output.content.as_slice() else {
        return output;
    };
    let total = text.chars().count();
    if total <= limit {
        return output;
    }
    let name = format!("{ARTIFACT_DIR}/{}", artifacts::file_name(tool, "txt"));
    let saved = ws.resolve(&name).and_then(|target| {
        ws.write_atomic(&target, text.as_bytes(), WriteOptions::default())
            .map_err(|e| crate::error::ToolError::from_io(&e, "write", &name))
    });
    if saved.is_ok() {
        artifacts::keep_out_of_git(ws, Path::new(ARTIFACT_DIR));
    }
    let budget = limit.saturating_sub(600).max(200);
    let head = head(text, budget / 2);
    let tail = tail(text, budget / 2);
    let omitted = total - head.chars().count() - tail.chars().count();
    let notice = match saved {
        Ok(_) => format!(
            "[Result too large to show inline: {total} characters (the limit is {limit}). The \
             full result was saved to {name}; its first and last characters follow. To see all \
             of it, call read_file with path={name} from its start (no offset or start_line) \
             and follow each page's continuation line; those pages are not spilled.]"
        ),
        Err(e) => format!(
            "[Result too large to show inline: {total} characters (the limit is {limit}), and it \
             could not be saved to an artifact ({e}); its first and last characters follow. \
             Narrow the request to see the rest.]"
        ),
    };
    ToolOutput::text(format!(
        "{notice}\n{head}\n[... {omitted} characters omitted ...]\n{tail}"
    ))
}

/// The first `n` characters of `text`, cut back to a line end when one is in the second half.
fn head(text: &str, n: usize) -> &str {
    let end = text.char_indices().nth(n).map_or(text.len(), |(i, _)| i);
    let cut = &text[..end];
    match cut.rfind('\n') {
        Some(at) if at >= end / 2 => &text[..at + 1],
        _ => cut,
    }
}

/// The last `n` characters of `text`, starting at a line start when one is in the first half.
fn tail(text: &str, n: usize) -> &str {
    let count = text.chars().count();
    let start = text
        .char_indices()
        .nth(count.saturating_sub(n))
        .map_or(text.len(), |(i, _)| i);
    let cut = &text[start..];
    match cut.find('\n') {
        Some(at) if at <= cut.len() / 2 => &cut[at + 1..],
        _ => cut,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guard_strips_invisible_characters_and_data_urls() {
        assert_eq!(guard("a\u{200B}b", true), "ab");
        let url = format!("src=\"data:image/png;base64,{}\"", "QUJD".repeat(40));
        assert_eq!(
            guard(&url, true),
            "src=\"[data URL omitted: image/png, 182 characters]\""
        );
        let run = "aGVsbG8gd29ybGQx".repeat(75);
        assert_eq!(guard(&run, true), run);
        assert_eq!(guard(&run, false), "[base64 data omitted: 1200 characters]");
        let letters = "a".repeat(2000);
        assert_eq!(
            guard(&letters, false),
            letters,
            "plain letters are not base64 data"
        );
    }
}
