//! The post-edit syntax check: a file's content is parsed with tree-sitter before and after a
//! change, and the syntax errors the change introduces are named with their lines.
//!
//! Languages, by extension ([`language_of`]): Rust, Python, JavaScript (and JSX), TypeScript,
//! TSX, Go, C, C++, Java, JSON, TOML, YAML. Any other file, a file that is not UTF-8, and one
//! over [`MAX_BYTES`] are not checked ([`check`] says `None`).
//!
//! A syntax error is an `ERROR` node (text the grammar could not fit) or a `MISSING` node (a
//! token the parser had to assume, such as a closing `)`). Errors the content already had are
//! not reported again even when the edit moved them to other lines: they are carried over
//! through a line diff and matched by place and by message (`compare.rs`).
//!
//! Each thread keeps one parser per language ([`prime`] loads one ahead of time), and the trees
//! of the last texts checked (or passed to [`remember`]) are kept (`cache.rs`): a change made
//! to content checked before, as each edit of an agent's series is to what the previous one
//! wrote, is parsed incrementally, re-reading only around the change. A clean result needs no
//! parse of the old content at all; new content with errors whose old content was not checked
//! recently costs a full parse of the new content and an incremental one of the old.

mod cache;
mod compare;
mod lang;
mod parse;

#[cfg(test)]
mod tests;

use std::path::Path;

pub use lang::{Lang, language_of};

/// The largest content checked, in bytes; a larger file is not parsed.
pub const MAX_BYTES: usize = 2 << 20;

/// The most errors of one text that are looked at; beyond them a text is too broken for
/// comparing error by error to mean much, and the comparison stays cheap.
const MAX_ERRORS: usize = 1000;

/// The most errors [`describe`] lists before it says how many more there are.
const LISTED: usize = 5;

/// One syntax error a change introduced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    /// 1-based line where it starts.
    pub line: usize,
    /// 1-based column (in bytes) where it starts.
    pub column: usize,
    /// What it is: `missing ")"`, `unexpected "}"`, `cannot parse "let = ;"`; a missing closer
    /// also says which line opened what it closes.
    pub message: String,
}

/// What the check of one change found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The language the content was parsed as.
    pub lang: Lang,
    /// The errors of the new content that the old content did not have, in source order.
    pub new: Vec<SyntaxError>,
    /// How many errors the old content had (counted up to 1,000): 0 for a new file, `None`
    /// when it was not parsed (the new content has no error, so there was nothing to compare).
    pub errors_before: Option<usize>,
    /// How many errors the new content has (counted up to 1,000).
    pub errors_after: usize,
}

impl Report {
    /// Whether the change introduced no syntax error.
    pub fn is_clean(&self) -> bool {
        self.new.is_empty()
    }
}

/// The UTF-8 text of `bytes` to parse (a byte order mark removed), if it is checked at all.
fn text(bytes: &[u8]) -> Option<&[u8]> {
    if bytes.len() > MAX_BYTES {
        return None;
    }
    std::str::from_utf8(bytes).ok()?;
    Some(bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes))
}

/// Checks the change of the file at `path` from `before` (`None`: the file is new) to `after`.
///
/// `None` when nothing is said: the language is unknown, `after` is not UTF-8 text or is over
/// [`MAX_BYTES`], or a parse could not finish. A `before` that is not checked itself (binary,
/// too large) counts as a new file: every error of `after` is new.
pub fn check(path: &Path, before: Option<&[u8]>, after: &[u8]) -> Option<Report> {
    let lang = language_of(path)?;
    let new = text(after)?;
    let old = before.and_then(text);
    // The old content's tree, when it was checked recently: the new one is parsed from it.
    // Otherwise the first check of a file costs one full parse.
    let known = old.and_then(|old| Some((old, cache::get(lang, old)?)));
    let tree = match &known {
        Some((old, known)) => {
            let mut edited = known.tree.clone();
            edited.edit(&cache::edit_between(old, new));
            parse::parse(lang, new, Some(&edited))?
        }
        None => parse::parse(lang, new, None)?,
    };
    let mut after_errors = parse::errors_in(&tree, new);
    after_errors.truncate(MAX_ERRORS);
    cache::put(lang, new, tree.clone(), &after_errors);
    let errors_after = after_errors.len();
    if after_errors.is_empty() {
        // Nothing can be new: the old content need not be parsed.
        return Some(Report {
            lang,
            new: Vec::new(),
            errors_before: None,
            errors_after,
        });
    }
    let (old, before_errors) = match (old, known) {
        (Some(old), Some((_, known))) => (old, known.errors.to_vec()),
        (Some(old), None) => {
            // Parsed from the new tree, edited back: only the changed part is parsed again.
            let mut edited = tree;
            edited.edit(&cache::edit_between(new, old));
            let mut errors = parse::errors_in(&parse::parse(lang, old, Some(&edited))?, old);
            errors.truncate(MAX_ERRORS);
            (old, errors)
        }
        (None, _) => (&b""[..], Vec::new()),
    };
    let errors_before = Some(before_errors.len());
    let new_errors = compare::new_errors(old, &before_errors, new, after_errors)
        .into_iter()
        .map(|f| SyntaxError {
            line: f.start_row + 1,
            column: f.column + 1,
            message: f.message,
        })
        .collect();
    Some(Report {
        lang,
        new: new_errors,
        errors_before,
        errors_after,
    })
}

/// The report in one compact line for a tool's answer:
/// `syntax: 2 new errors — line 12: missing ")"; line 40: unexpected "}"`, at most five listed
/// and then `; +N more`. A clean report says `syntax: no new errors`.
pub fn describe(report: &Report) -> String {
    let n = report.new.len();
    if n == 0 {
        return "syntax: no new errors".to_string();
    }
    let mut out = format!(
        "syntax: {n} new {} — {}",
        if n == 1 { "error" } else { "errors" },
        list(report, LISTED)
    );
    if n > LISTED {
        out.push_str(&format!("; +{} more", n - LISTED));
    }
    out
}

/// The first `max` new errors, `line N: message` joined with `; `.
pub fn list(report: &Report, max: usize) -> String {
    report
        .new
        .iter()
        .take(max)
        .map(|e| format!("line {}: {}", e.line, e.message))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Parses `content`, the content of the file at `path`, and keeps its tree, so that the check
/// of a change made to it is incremental: what a read can do for the edit that usually follows
/// it, best on a background thread so that the read does not wait. Does nothing for a file that
/// is not checked.
pub fn remember(path: &Path, content: &[u8]) {
    let Some(lang) = language_of(path) else {
        return;
    };
    let Some(text) = text(content) else {
        return;
    };
    if cache::get(lang, text).is_some() {
        return;
    }
    if let Some(tree) = parse::parse(lang, text, None) {
        let mut errors = parse::errors_in(&tree, text);
        errors.truncate(MAX_ERRORS);
        cache::put(lang, text, tree, &errors);
    }
}

/// Loads the grammar of the file at `path` into this thread's parser cache and runs it once,
/// so that the first check of such a file does not pay for it. Does nothing for a file that is
/// not checked.
pub fn prime(path: &Path) {
    if let Some(lang) = language_of(path) {
        parse::prime(lang);
    }
}
