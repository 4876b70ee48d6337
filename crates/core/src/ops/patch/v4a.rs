//! V4A patches — the `apply_patch` format Codex-trained models emit: parsing a whole envelope
//! (several files: add, delete, update, move) and applying an update's hunks to a file's bytes.
//!
//! A pure engine: [`parse`] turns patch text into a [`Patch`]; [`apply`] turns one file's bytes
//! and an update's hunks into the edited bytes. Reading and writing files, and deciding which
//! sections a tool accepts (picoclaw's edit_file takes one update of the file it names), is the
//! caller's.
//!
//! # Grammar
//!
//! The text is split into lines at `\n`; a `\r` before it is dropped. Blank lines before the
//! first and after the last line are ignored, and so is a shell heredoc wrapper (`<<'EOF'` …
//! `EOF`) around the whole patch.
//!
//! ```text
//! patch       = [begin] section* body? [end]      begin and end come together or not at all
//! begin       = "*** Begin Patch"
//! end         = "*** End Patch"                   nothing but blank lines may follow it
//! section     = add | delete | update
//! add         = "*** Add File: " path  ("+" text)*
//! delete      = "*** Delete File: " path
//! update      = "*** Update File: " path  ["*** Move to: " path]  hunk+
//! body        = hunk+                             a bare body: an update of the file the
//!                                                 caller names (no section header)
//! hunk        = ["@@" [text]]  hunk-line+  ["*** End of File"]
//! hunk-line   = " " text                          context: must be in the file, kept
//!             | "-" text                          removed: must be in the file, dropped
//!             | "+" text                          added
//!             | ""                                a blank line (see below)
//! ```
//!
//! - Directive lines (`*** …`) may carry surrounding whitespace. A line that starts with
//!   `***` but is no directive is an error.
//! - `@@` starts a hunk; the text after it is informational and never used to place the hunk.
//!   Only the first hunk of an update may leave its `@@` line out.
//! - A line holding a single space is an empty context line. A blank line inside a hunk is an
//!   empty context line too, unless only blank lines follow it up to a closing directive (`@@`,
//!   `*** End of File`, the next section, `*** End Patch`, the end of the text): such blank lines
//!   are formatting and dropped. Blank lines in an add section follow the same rule.
//! - `*** End of File` closes its hunk and anchors it to the end of the file.
//! - An update needs at least one hunk, a hunk at least one line.
//!
//! # Applying ([`apply`])
//!
//! Each hunk's old side (context and removed lines, in order) is looked for as consecutive
//! whole lines of the file, through [`matcher::find_lines`]: first comparing line contents
//! exactly (line endings never matter: V4A lines carry none), then ignoring trailing
//! whitespace. The first comparison that finds the lines decides, and they must occur exactly
//! once. [`apply_in`] with [`Cascade::Full`] (native's patches) goes on, when both fail, to
//! ignoring leading whitespace too (the hunk's added lines are then re-indented from its old
//! lines' indentation to the file's, as [`matcher::reindent_lines`] does) and then to
//! normalising Unicode punctuation; each placement says its level. The search starts after the
//! previous hunk's old side; when the lines occur nowhere
//! there (hunks out of file order), the whole file is searched instead, and the single
//! occurrence must not overlap another hunk. A hunk ending in `*** End of File` must match the
//! last lines of the file. A hunk with no context or removed lines has no place in the file:
//! with `*** End of File` its lines are appended at the end, without it the patch is refused
//! (the insertion point is ambiguous).
//!
//! - Matched lines keep the file's bytes, line endings included (so trailing whitespace the
//!   patch lacks is kept).
//! - Added lines take the ending of the line they replace (the removed line at the same place
//!   in their run of `-`/`+` lines), else of the adjacent line, so a file with mixed LF/CRLF
//!   endings keeps them.
//! - A line that ends up followed by another gets an ending (the file's dominant one). When a
//!   hunk reaches the end of the file, the file ends with a line ending afterwards (as Codex's
//!   applier leaves it); elsewhere a missing final newline stays missing.
//! - Every hunk applies or none does; errors name the hunk, show the lines it looked for and,
//!   when it was not found, the closest region of the file.

use std::borrow::Cow;
use std::ops::Range;

use super::{
    Edit, MAX_SHOWN_CHARS, MAX_SHOWN_LINES, numbered, old_side_count, quote, span, splice,
};
pub use super::{HunkLine, LineKind};
use crate::error::{ErrorKind, ToolError};
use crate::text::lines::{self, Line};
use crate::text::matcher::{self, Cascade, Level};

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File:";
const DELETE: &str = "*** Delete File:";
const UPDATE: &str = "*** Update File:";
const MOVE: &str = "*** Move to:";
const END_OF_FILE: &str = "*** End of File";

/// A parsed patch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Patch {
    /// Whether the text was wrapped in `*** Begin Patch` / `*** End Patch`.
    pub enveloped: bool,
    /// The sections, in patch order.
    pub sections: Vec<Section>,
}

/// One file operation of a patch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Section {
    /// `*** Add File:` — create a file with these contents.
    Add {
        /// The path as written.
        path: String,
        /// The file's contents: each `+` line followed by `\n`.
        contents: String,
        /// The 1-based patch line of the header.
        line: usize,
    },
    /// `*** Delete File:` — remove a file.
    Delete {
        /// The path as written.
        path: String,
        /// The 1-based patch line of the header.
        line: usize,
    },
    /// `*** Update File:` (or a bare body of hunks) — edit a file, and maybe move it.
    Update {
        /// The path as written; `None` for a bare body, which edits the file the caller names.
        path: Option<String>,
        /// `*** Move to:`, the new path.
        move_to: Option<String>,
        /// The hunks, in patch order.
        hunks: Vec<Hunk>,
        /// The 1-based patch line of the header (of the first hunk line for a bare body).
        line: usize,
    },
}

/// One hunk of an update.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hunk {
    /// The text after `@@`, trimmed (empty for `@@` alone or a hunk without `@@`).
    pub header: String,
    /// The 1-based patch line of the `@@` line (of the first hunk line without one).
    pub line: usize,
    /// The hunk's lines, in order.
    pub lines: Vec<HunkLine>,
    /// Whether `*** End of File` closes the hunk.
    pub end_of_file: bool,
}

impl Hunk {
    /// The old side: context and removed lines, in order.
    pub fn old_lines(&self) -> impl Iterator<Item = &HunkLine> {
        self.lines.iter().filter(|l| l.kind != LineKind::Added)
    }

    /// The new side: context and added lines, in order.
    pub fn new_lines(&self) -> impl Iterator<Item = &HunkLine> {
        self.lines.iter().filter(|l| l.kind != LineKind::Removed)
    }
}

/// How a hunk's old side was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatchLevel {
    /// Every line equal (line endings aside).
    Exact,
    /// Equal once trailing whitespace is ignored.
    TrailingWhitespace,
    /// Equal once leading and trailing whitespace is ignored; the added lines were re-indented
    /// to the file's indentation ([`Cascade::Full`] only).
    Indentation,
    /// Equal once Unicode punctuation is normalised ([`Cascade::Full`] only).
    Punctuation,
    /// A hunk without old lines, appended at the end of the file.
    Appended,
}

impl MatchLevel {
    /// The matcher level this is (an appended hunk matched nothing, so it counts as exact).
    pub fn level(self) -> Level {
        match self {
            MatchLevel::Exact | MatchLevel::Appended => Level::Exact,
            MatchLevel::TrailingWhitespace => Level::TrailingWhitespace,
            MatchLevel::Indentation => Level::Indentation,
            MatchLevel::Punctuation => Level::Punctuation,
        }
    }
}

/// Where one hunk applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// The 1-based line of the original file where the hunk's old side starts (the line after
    /// the last for an appended hunk).
    pub line: usize,
    /// How it was found.
    pub level: MatchLevel,
}

/// The result of applying an update's hunks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Applied {
    /// The edited file.
    pub bytes: Vec<u8>,
    /// Where each hunk applied, in hunk order.
    pub placements: Vec<Placement>,
}

/// Parses `text` as a V4A patch (see the module documentation for the grammar). Errors are
/// [`ErrorKind::InvalidArgument`] naming the patch line at fault.
pub fn parse(text: &str) -> Result<Patch, ToolError> {
    let all: Vec<&str> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    // (1-based line number, text) of the lines that carry the patch.
    let mut lines: Vec<(usize, &str)> = all.iter().enumerate().map(|(i, l)| (i + 1, *l)).collect();
    trim_blank(&mut lines);
    if lines.len() >= 2 {
        let first = lines[0].1.trim();
        let last = lines[lines.len() - 1].1.trim();
        if matches!(first, "<<EOF" | "<<'EOF'" | "<<\"EOF\"") && last.ends_with("EOF") {
            lines.remove(0);
            lines.pop();
            trim_blank(&mut lines);
        }
    }
    if lines.is_empty() {
        return Err(ToolError::invalid(
            "the patch is empty; send hunks that start with @@, with lines prefixed by ' ' \
             (context), '-' (removed) or '+' (added), optionally wrapped in *** Begin Patch / \
             *** End Patch",
        ));
    }
    let mut enveloped = false;
    if lines[0].1.trim() == BEGIN {
        let last = lines[lines.len() - 1];
        if lines.len() < 2 || last.1.trim() != END {
            return Err(ToolError::invalid(format!(
                "the patch starts with {BEGIN} but does not end with {END} (its last line is \
                 line {}: {}); the patch may have been cut off. Send the whole patch, ending with \
                 {END}. Nothing was written.",
                last.0,
                quote(last.1)
            )));
        }
        enveloped = true;
        lines.remove(0);
        lines.pop();
    } else if lines[lines.len() - 1].1.trim() == END {
        return Err(ToolError::invalid(format!(
            "the patch ends with {END} but does not start with {BEGIN}; wrap it in both \
             markers, or in neither. Nothing was written."
        )));
    }
    if let Some((n, _)) = lines.iter().find(|(_, l)| matches!(l.trim(), BEGIN | END)) {
        return Err(ToolError::invalid(format!(
            "patch line {n} repeats a patch marker ({BEGIN} / {END}) inside the patch; send one \
             patch with the markers only around it. Nothing was written."
        )));
    }
    let sections = Parser {
        lines: &lines,
        at: 0,
    }
    .sections()?;
    if sections.is_empty() {
        return Err(ToolError::invalid(
            "the patch holds no file operations or hunks; add *** Update File: PATH followed \
             by @@ hunks (or *** Add File: / *** Delete File:). Nothing was written.",
        ));
    }
    Ok(Patch {
        enveloped,
        sections,
    })
}

/// Drops blank lines at both ends.
fn trim_blank(lines: &mut Vec<(usize, &str)>) {
    while lines.last().is_some_and(|(_, l)| l.trim().is_empty()) {
        lines.pop();
    }
    let lead = lines
        .iter()
        .take_while(|(_, l)| l.trim().is_empty())
        .count();
    lines.drain(..lead);
}

/// What a patch line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind<'a> {
    Add(&'a str),
    Delete(&'a str),
    Update(&'a str),
    Move(&'a str),
    EndOfFile,
    /// A `***` line that is no directive.
    UnknownDirective,
    At(&'a str),
    Blank,
    Line(LineKind, &'a str),
    Other,
}

fn classify(line: &str) -> Kind<'_> {
    let trimmed = line.trim();
    if let Some(path) = trimmed.strip_prefix(ADD) {
        return Kind::Add(path.trim());
    }
    if let Some(path) = trimmed.strip_prefix(DELETE) {
        return Kind::Delete(path.trim());
    }
    if let Some(path) = trimmed.strip_prefix(UPDATE) {
        return Kind::Update(path.trim());
    }
    if let Some(path) = trimmed.strip_prefix(MOVE) {
        return Kind::Move(path.trim());
    }
    if trimmed == END_OF_FILE {
        return Kind::EndOfFile;
    }
    if line.starts_with("***") {
        return Kind::UnknownDirective;
    }
    if let Some(rest) = line.strip_prefix("@@") {
        return Kind::At(rest.trim());
    }
    if line.is_empty() {
        return Kind::Blank;
    }
    match line.as_bytes()[0] {
        b' ' => Kind::Line(LineKind::Context, &line[1..]),
        b'-' => Kind::Line(LineKind::Removed, &line[1..]),
        b'+' => Kind::Line(LineKind::Added, &line[1..]),
        _ if line.trim().is_empty() => Kind::Blank,
        _ => Kind::Other,
    }
}

struct Parser<'a, 'l> {
    lines: &'l [(usize, &'a str)],
    at: usize,
}

impl Parser<'_, '_> {
    fn sections(mut self) -> Result<Vec<Section>, ToolError> {
        let mut sections = Vec::new();
        while self.at < self.lines.len() {
            let (n, line) = self.lines[self.at];
            match classify(line) {
                Kind::Blank => self.at += 1,
                Kind::Add(path) => {
                    self.at += 1;
                    let path = need_path(path, n, ADD)?;
                    let contents = self.add_lines()?;
                    sections.push(Section::Add {
                        path,
                        contents,
                        line: n,
                    });
                }
                Kind::Delete(path) => {
                    self.at += 1;
                    sections.push(Section::Delete {
                        path: need_path(path, n, DELETE)?,
                        line: n,
                    });
                }
                Kind::Update(path) => {
                    self.at += 1;
                    let path = need_path(path, n, UPDATE)?;
                    let mut move_to = None;
                    self.skip_blank();
                    if let Some(&(m, next)) = self.lines.get(self.at)
                        && let Kind::Move(to) = classify(next)
                    {
                        move_to = Some(need_path(to, m, MOVE)?);
                        self.at += 1;
                    }
                    let hunks = self.hunks()?;
                    if hunks.is_empty() {
                        return Err(ToolError::invalid(format!(
                            "patch line {n}: {UPDATE} {path} has no hunks; follow it with @@ \
                             and the lines to change. Nothing was written."
                        )));
                    }
                    sections.push(Section::Update {
                        path: Some(path),
                        move_to,
                        hunks,
                        line: n,
                    });
                }
                Kind::At(_) | Kind::Line(..) if sections.is_empty() => {
                    let hunks = self.hunks()?;
                    sections.push(Section::Update {
                        path: None,
                        move_to: None,
                        hunks,
                        line: n,
                    });
                }
                Kind::Move(_) => {
                    return Err(ToolError::invalid(format!(
                        "patch line {n}: {MOVE} must directly follow an {UPDATE} line. Nothing \
                         was written."
                    )));
                }
                _ => return Err(unexpected(n, line, "between file sections")),
            }
        }
        Ok(sections)
    }

    fn skip_blank(&mut self) {
        while self
            .lines
            .get(self.at)
            .is_some_and(|(_, l)| classify(l) == Kind::Blank)
        {
            self.at += 1;
        }
    }

    /// The `+` lines of an add section.
    fn add_lines(&mut self) -> Result<String, ToolError> {
        let mut contents = String::new();
        let mut blanks = 0;
        while let Some(&(n, line)) = self.lines.get(self.at) {
            match classify(line) {
                Kind::Line(LineKind::Added, text) => {
                    for _ in 0..blanks {
                        contents.push('\n');
                    }
                    blanks = 0;
                    contents.push_str(text);
                    contents.push('\n');
                }
                Kind::Blank => blanks += 1,
                Kind::Add(_) | Kind::Delete(_) | Kind::Update(_) => break,
                _ => {
                    return Err(unexpected(
                        n,
                        line,
                        "in an add section (its lines start with +)",
                    ));
                }
            }
            self.at += 1;
        }
        Ok(contents)
    }

    /// The hunks of an update, up to the next section.
    fn hunks(&mut self) -> Result<Vec<Hunk>, ToolError> {
        let mut hunks: Vec<Hunk> = Vec::new();
        let mut current: Option<Hunk> = None;
        // Blank lines seen since the last hunk line: context if a hunk line follows.
        let mut blanks = 0;
        let mut after_eof = false;
        while let Some(&(n, line)) = self.lines.get(self.at) {
            match classify(line) {
                Kind::Add(_) | Kind::Delete(_) | Kind::Update(_) | Kind::Move(_) => break,
                Kind::At(header) => {
                    finish(&mut hunks, current.take())?;
                    current = Some(Hunk {
                        header: header.trim_end_matches("@@").trim().to_string(),
                        line: n,
                        lines: Vec::new(),
                        end_of_file: false,
                    });
                    blanks = 0;
                    after_eof = false;
                }
                Kind::EndOfFile => {
                    let Some(mut hunk) = current.take() else {
                        return Err(unexpected(n, line, "outside a hunk"));
                    };
                    hunk.end_of_file = true;
                    finish(&mut hunks, Some(hunk))?;
                    blanks = 0;
                    after_eof = true;
                }
                Kind::Blank => {
                    if current.is_some() {
                        blanks += 1;
                    }
                }
                Kind::Line(kind, text) => {
                    if current.is_none() {
                        if after_eof || !hunks.is_empty() {
                            return Err(ToolError::invalid(format!(
                                "patch line {n} ({}) follows a closed hunk; start each further \
                                 hunk with an @@ line. Nothing was written.",
                                quote(line)
                            )));
                        }
                        current = Some(Hunk {
                            header: String::new(),
                            line: n,
                            lines: Vec::new(),
                            end_of_file: false,
                        });
                    }
                    if let Some(hunk) = current.as_mut() {
                        for _ in 0..blanks {
                            hunk.lines.push(HunkLine {
                                kind: LineKind::Context,
                                text: String::new(),
                            });
                        }
                        hunk.lines.push(HunkLine {
                            kind,
                            text: text.to_string(),
                        });
                    }
                    blanks = 0;
                }
                Kind::UnknownDirective | Kind::Other => {
                    return Err(unexpected(
                        n,
                        line,
                        "in a hunk: each hunk line starts with ' ' (context), '-' (removed) or \
                         '+' (added), and a line of the file that stays needs its leading space",
                    ));
                }
            }
            self.at += 1;
        }
        finish(&mut hunks, current)?;
        Ok(hunks)
    }
}

fn finish(hunks: &mut Vec<Hunk>, hunk: Option<Hunk>) -> Result<(), ToolError> {
    let Some(hunk) = hunk else { return Ok(()) };
    if hunk.lines.is_empty() {
        return Err(ToolError::invalid(format!(
            "patch line {}: hunk {} ({}) has no lines; put the context (' '), removed ('-') \
             and added ('+') lines after its @@ line. Nothing was written.",
            hunk.line,
            hunks.len() + 1,
            quote(format!("@@ {}", hunk.header).trim_end())
        )));
    }
    hunks.push(hunk);
    Ok(())
}

fn need_path(path: &str, n: usize, directive: &str) -> Result<String, ToolError> {
    if path.is_empty() {
        return Err(ToolError::invalid(format!(
            "patch line {n}: {directive} names no path; write the path after it. Nothing was \
             written."
        )));
    }
    Ok(path.to_string())
}

fn unexpected(n: usize, line: &str, context: &str) -> ToolError {
    ToolError::invalid(format!(
        "patch line {n} ({}) is unexpected {context}. Fix the line, then send the patch again. \
         Nothing was written.",
        quote(line)
    ))
}

/// Applies an update's `hunks` to the file `original`: every hunk or none. See the module
/// documentation. A hunk found nowhere is [`ErrorKind::NoMatch`], one found more than once
/// [`ErrorKind::NotUnique`], one without a place (only added lines, no `*** End of File`) or
/// overlapping another [`ErrorKind::InvalidArgument`].
pub fn apply(original: &[u8], hunks: &[Hunk]) -> Result<Applied, ToolError> {
    apply_in(original, hunks, Cascade::Strict)
}

/// [`apply`], placing hunks through the levels of `cascade`: with [`Cascade::Full`], a hunk
/// whose old lines are absent even ignoring trailing whitespace is looked for ignoring
/// indentation (its added lines are then re-indented to the file's), then with Unicode
/// punctuation normalised. The first level that finds it decides, and it must be unique there.
pub fn apply_in(original: &[u8], hunks: &[Hunk], cascade: Cascade) -> Result<Applied, ToolError> {
    if hunks.is_empty() {
        return Err(ToolError::invalid(
            "the update has no hunks, so it changes nothing; send at least one @@ hunk. Nothing \
             was written.",
        ));
    }
    let file = matcher::split_lines(original);
    let exact: Vec<&[u8]> = file.iter().map(|l| lines::strip_ending(l)).collect();
    let trimmed: Vec<&[u8]> = exact.iter().map(|l| trim_end(l)).collect();
    let eol = dominant_ending(&file);
    let total = hunks.len();
    let mut from = 0;
    let mut taken: Vec<Range<usize>> = Vec::with_capacity(total);
    let mut placements = Vec::with_capacity(total);
    let mut touches_end = false;
    // Every hunk is placed first; a hunk found ignoring indentation is then re-indented, and
    // the edits are built from the hunks as they will be written.
    let mut written: Vec<Cow<'_, Hunk>> = Vec::with_capacity(total);
    for (index, hunk) in hunks.iter().enumerate() {
        let at = At {
            hunk,
            number: index + 1,
            total,
            from,
            cascade,
        };
        let old: Vec<&[u8]> = hunk.old_lines().map(|l| l.text.as_bytes()).collect();
        let old_trimmed: Vec<&[u8]> = old.iter().map(|l| trim_end(l)).collect();
        let (start, level) = if old.is_empty() {
            if !hunk.end_of_file {
                return Err(at.unplaced());
            }
            (file.len(), MatchLevel::Appended)
        } else if hunk.end_of_file {
            at.at_end(&file, &exact, &trimmed, &old, &old_trimmed)?
        } else {
            at.anchor(&file, &exact, &trimmed, &old, &old_trimmed, &taken)?
        };
        let end = start + old.len();
        if let Some(other) = taken.iter().position(|e| start < e.end && e.start < end) {
            return Err(at.overlap(start, other + 1));
        }
        if end == file.len() {
            touches_end = true;
        }
        written.push(if level == MatchLevel::Indentation {
            Cow::Owned(at.reindented(&file, start)?)
        } else {
            Cow::Borrowed(hunk)
        });
        taken.push(start..end);
        placements.push(Placement {
            line: start + 1,
            level,
        });
        from = from.max(end);
    }
    let mut edits: Vec<Edit<'_>> = written
        .iter()
        .zip(&placements)
        .map(|(hunk, p)| build_edit(hunk, &file, p.line - 1, eol))
        .collect();
    edits.sort_by_key(|e| (e.start, e.end));
    let mut bytes = splice(&file, &edits, eol);
    if touches_end && !bytes.is_empty() && !bytes.ends_with(b"\n") {
        bytes.extend_from_slice(eol);
    }
    Ok(Applied { bytes, placements })
}

/// The ending most lines of the file have (`\n` when none has one, and on a tie).
fn dominant_ending(file: &[&[u8]]) -> &'static [u8] {
    let crlf = file.iter().filter(|l| l.ends_with(b"\r\n")).count();
    let lf = file
        .iter()
        .filter(|l| l.ends_with(b"\n") && !l.ends_with(b"\r\n"))
        .count();
    if crlf > lf { b"\r\n" } else { b"\n" }
}

fn trim_end(line: &[u8]) -> &[u8] {
    let keep = line
        .iter()
        .rposition(|b| !matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c))
        .map_or(0, |p| p + 1);
    &line[..keep]
}

/// The lines a hunk anchored at `start` produces: context from the file, added lines from the
/// patch with the ending of the line they replace or sit next to.
fn build_edit<'a>(hunk: &'a Hunk, file: &[&'a [u8]], start: usize, eol: &'static [u8]) -> Edit<'a> {
    let ending_of = |i: usize| -> &'a [u8] { Line::of(file[i]).ending };
    let old_count = hunk.old_lines().count();
    let mut at = start;
    let mut pieces = Vec::new();
    // The endings of the removed lines of the current run of -/+ lines, and how many added
    // lines of the run came so far.
    let mut run_removed: Vec<&'a [u8]> = Vec::new();
    let mut run_added = 0;
    for line in &hunk.lines {
        match line.kind {
            LineKind::Context => {
                pieces.push(Line::of(file[at]));
                at += 1;
                run_removed.clear();
                run_added = 0;
            }
            LineKind::Removed => {
                run_removed.push(ending_of(at));
                at += 1;
            }
            LineKind::Added => {
                let ending =
                    if let Some(e) = run_removed.get(run_added).or(run_removed.last()).copied() {
                        e
                    } else if at > start {
                        ending_of(at - 1)
                    } else if at < start + old_count {
                        ending_of(at)
                    } else if let Some(last) = file.last() {
                        Line::of(last).ending
                    } else {
                        eol
                    };
                let ending = if ending.is_empty() { eol } else { ending };
                pieces.push(Line {
                    body: line.text.as_bytes(),
                    ending,
                });
                run_added += 1;
            }
        }
    }
    // An added line at the very end of a file without a final newline keeps it that way
    // unless the hunk reaches the end (then `apply` adds the ending).
    Edit {
        start,
        end: at,
        pieces,
    }
}

/// A hunk being placed, for finding it and for the error messages.
struct At<'a> {
    hunk: &'a Hunk,
    number: usize,
    total: usize,
    /// The 0-based line the search starts at: after the previous hunk's old side.
    from: usize,
    /// The levels the search goes through.
    cascade: Cascade,
}

/// The levels [`Cascade::Full`] adds after the two comparisons every cascade makes.
const CORRECTIONS: [(Level, MatchLevel); 2] = [
    (Level::Indentation, MatchLevel::Indentation),
    (Level::Punctuation, MatchLevel::Punctuation),
];

/// The occurrences of `needle` at the first comparison that finds any.
fn occurrences(
    exact: &[&[u8]],
    trimmed: &[&[u8]],
    old: &[&[u8]],
    old_trimmed: &[&[u8]],
    from: usize,
    cascade: Cascade,
) -> Option<(MatchLevel, Vec<usize>)> {
    if let Some(found) = matcher::find_lines(exact, old, from)
        && matches!(found.level, Level::Exact | Level::LineEndings)
    {
        return Some((MatchLevel::Exact, found.starts));
    }
    if let Some(found) = matcher::find_lines(trimmed, old_trimmed, from)
        && matches!(found.level, Level::Exact | Level::LineEndings)
    {
        return Some((MatchLevel::TrailingWhitespace, found.starts));
    }
    if cascade == Cascade::Full && old.len() <= exact.len() {
        let last = exact.len() - old.len();
        for (level, as_level) in CORRECTIONS {
            let starts: Vec<usize> = (from..=last)
                .filter(|&s| matcher::lines_equal(level, &exact[s..s + old.len()], old))
                .collect();
            if !starts.is_empty() {
                return Some((as_level, starts));
            }
        }
    }
    None
}

impl At<'_> {
    fn anchor(
        &self,
        file: &[&[u8]],
        exact: &[&[u8]],
        trimmed: &[&[u8]],
        old: &[&[u8]],
        old_trimmed: &[&[u8]],
        taken: &[Range<usize>],
    ) -> Result<(usize, MatchLevel), ToolError> {
        if let Some((level, starts)) =
            occurrences(exact, trimmed, old, old_trimmed, self.from, self.cascade)
        {
            return match starts.as_slice() {
                [one] => Ok((*one, level)),
                many => Err(self.not_unique(many, level, true)),
            };
        }
        // Not after the previous hunk: the hunks may be out of file order.
        let Some((level, starts)) = occurrences(exact, trimmed, old, old_trimmed, 0, self.cascade)
        else {
            return Err(self.no_match(file, old));
        };
        let free: Vec<usize> = starts
            .iter()
            .copied()
            .filter(|&s| !taken.iter().any(|e| s < e.end && e.start < s + old.len()))
            .collect();
        match free.as_slice() {
            [one] => Ok((*one, level)),
            [] => Err(self.overlap(starts[0], 0)),
            _ => Err(self.not_unique(&starts, level, false)),
        }
    }

    fn at_end(
        &self,
        file: &[&[u8]],
        exact: &[&[u8]],
        trimmed: &[&[u8]],
        old: &[&[u8]],
        old_trimmed: &[&[u8]],
    ) -> Result<(usize, MatchLevel), ToolError> {
        if old.len() <= file.len() {
            let start = file.len() - old.len();
            if exact[start..] == *old {
                return Ok((start, MatchLevel::Exact));
            }
            if trimmed[start..] == *old_trimmed {
                return Ok((start, MatchLevel::TrailingWhitespace));
            }
            if self.cascade == Cascade::Full {
                for (level, as_level) in CORRECTIONS {
                    if matcher::lines_equal(level, &exact[start..], old) {
                        return Ok((start, as_level));
                    }
                }
            }
        }
        let shown = old.len().clamp(1, MAX_SHOWN_LINES).min(file.len());
        let tail = if file.is_empty() {
            "The file is empty.".to_string()
        } else {
            format!(
                "The file ends with:\n{}",
                numbered(file, file.len() - shown, file.len(), &[])
            )
        };
        Err(ToolError::new(
            ErrorKind::NoMatch,
            format!(
                "{} ends with {END_OF_FILE}, so its old lines must be the last lines of the \
                 file, but they are not. It looks for {}:\n{}\n{tail}\nCopy the file's last \
                 lines exactly (or drop {END_OF_FILE} if the change is not at the end), then \
                 send the patch again. Nothing was written.",
                self.name(),
                old_side_count(old.len()),
                self.looked_for()
            ),
        ))
    }

    /// The hunk with its added lines re-indented to the file's lines it matched at `start`.
    fn reindented(&self, file: &[&[u8]], start: usize) -> Result<Hunk, ToolError> {
        Ok(Hunk {
            lines: super::reindented(&self.hunk.lines, file, start, &self.name(), "patch")?,
            ..self.hunk.clone()
        })
    }

    /// "hunk 2 of 3 (`@@ def f`, patch line 14)".
    fn name(&self) -> String {
        let header = if self.hunk.header.is_empty() {
            "@@".to_string()
        } else {
            format!("@@ {}", self.hunk.header)
        };
        format!(
            "hunk {} of {} ({}, patch line {})",
            self.number,
            self.total,
            quote(&header),
            self.hunk.line
        )
    }

    fn looked_for(&self) -> String {
        let old: Vec<&HunkLine> = self.hunk.old_lines().collect();
        let mut shown: Vec<String> = old
            .iter()
            .take(MAX_SHOWN_LINES)
            .map(|l| {
                let prefix = if l.kind == LineKind::Removed {
                    '-'
                } else {
                    ' '
                };
                format!("  {prefix}{}", lines::cut_chars(&l.text, MAX_SHOWN_CHARS).0)
            })
            .collect();
        if old.len() > MAX_SHOWN_LINES {
            shown.push(format!(
                "  … and {} more lines",
                old.len() - MAX_SHOWN_LINES
            ));
        }
        shown.join("\n")
    }

    fn no_match(&self, file: &[&[u8]], old: &[&[u8]]) -> ToolError {
        let closest = match matcher::closest_lines(file, old, self.from) {
            Some(c) => format!(
                "The closest region of the file is {}, where {} of the {} lines match (ignoring \
                 leading and trailing whitespace); lines marked * differ:\n{}\n",
                span(c.start, c.end),
                c.matching,
                old.len(),
                numbered(file, c.start, c.end, &c.differing)
            ),
            None if file.is_empty() => "The file is empty.\n".to_string(),
            None => "No line of the file equals any of these lines, even ignoring leading and \
                     trailing whitespace.\n"
                .to_string(),
        };
        ToolError::new(
            ErrorKind::NoMatch,
            format!(
                "{} was not found in the file. It looks for {}:\n{}\n{closest}Context (' ') and \
                 removed ('-') lines must equal lines of the file (trailing whitespace may \
                 differ); the text after @@ does not place the hunk. Re-read the file, copy \
                 these lines from it exactly, then send the patch again. Nothing was written.",
                self.name(),
                old_side_count(old.len()),
                self.looked_for()
            ),
        )
    }

    fn not_unique(&self, starts: &[usize], level: MatchLevel, after_previous: bool) -> ToolError {
        let listed: Vec<String> = starts
            .iter()
            .take(MAX_SHOWN_LINES)
            .map(|s| (s + 1).to_string())
            .collect();
        let more = starts.len().saturating_sub(MAX_SHOWN_LINES);
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        let region = if after_previous && self.number > 1 {
            format!(
                " after hunk {} (from line {} on)",
                self.number - 1,
                self.from + 1
            )
        } else {
            String::new()
        };
        ToolError::new(
            ErrorKind::NotUnique,
            format!(
                "{} matches {} places in the file{region}{}, starting at lines {}{more}; a \
                 hunk must match exactly one. It looks for {}:\n{}\nAdd unchanged lines before \
                 or after the change as context lines until they occur only once, then send the \
                 patch again. Nothing was written.",
                self.name(),
                starts.len(),
                super::loosely(level.level()),
                listed.join(", "),
                old_side_count(self.hunk.old_lines().count()),
                self.looked_for()
            ),
        )
    }

    fn overlap(&self, start: usize, other: usize) -> ToolError {
        let with = if other > 0 {
            format!("hunk {other}")
        } else {
            "an earlier hunk".to_string()
        };
        ToolError::invalid(format!(
            "{} matches at line {}, which overlaps the lines {with} changes; hunks must not \
             overlap. Merge the two hunks into one, then send the patch again. Nothing was \
             written.",
            self.name(),
            start + 1
        ))
    }

    fn unplaced(&self) -> ToolError {
        ToolError::invalid(format!(
            "{} has only added lines and no {END_OF_FILE}, so its insertion point is ambiguous \
             (the text after @@ does not place a hunk). Add the unchanged lines just before or \
             after the insertion as context lines (prefixed with a space), or end the hunk with \
             {END_OF_FILE} to append the lines at the end of the file. Nothing was written.",
            self.name()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn applied(original: &str, patch: &str) -> String {
        let parsed = parse(patch).unwrap();
        let Section::Update { hunks, .. } = &parsed.sections[0] else {
            panic!("not an update")
        };
        String::from_utf8(apply(original.as_bytes(), hunks).unwrap().bytes).unwrap()
    }

    #[test]
    fn parses_a_whole_codex_envelope() {
        let patch = parse(
            "*** Begin Patch\n*** Add File: a.txt\n+one\n+two\n*** Delete File: b.txt\n\
             *** Update File: c.py\n*** Move to: d.py\n@@ def f():\n-    pass\n+    return 1\n\
             *** End Patch\n",
        )
        .unwrap();
        assert!(patch.enveloped);
        assert_eq!(patch.sections.len(), 3);
        assert_eq!(
            patch.sections[0],
            Section::Add {
                path: "a.txt".into(),
                contents: "one\ntwo\n".into(),
                line: 2
            }
        );
        let Section::Update {
            path,
            move_to,
            hunks,
            ..
        } = &patch.sections[2]
        else {
            panic!()
        };
        assert_eq!(path.as_deref(), Some("c.py"));
        assert_eq!(move_to.as_deref(), Some("d.py"));
        assert_eq!(hunks[0].header, "def f():");
    }

    #[test]
    fn a_bare_body_is_an_update_without_a_path() {
        let patch = parse("@@\n a\n-b\n+c\n").unwrap();
        assert!(matches!(
            &patch.sections[0],
            Section::Update { path: None, .. }
        ));
        assert_eq!(applied("a\nb\n", "@@\n a\n-b\n+c\n"), "a\nc\n");
    }

    #[test]
    fn crlf_lines_keep_their_endings_and_added_lines_follow_them() {
        assert_eq!(
            applied("a\r\nb\nc\r\n", "@@\n a\n-b\n+B\n+B2\n c\n"),
            "a\r\nB\nB2\nc\r\n"
        );
        assert_eq!(applied("a\r\nb\r\n", "@@\n a\n+x\n b\n"), "a\r\nx\r\nb\r\n");
    }

    #[test]
    fn trailing_whitespace_is_tolerated_and_kept() {
        assert_eq!(applied("a  \nb\n", "@@\n a\n-b\n+c\n"), "a  \nc\n");
    }

    #[test]
    fn blank_lines_before_a_directive_are_formatting() {
        assert_eq!(
            applied(
                "a\n\nb\n",
                "*** Begin Patch\n@@\n a\n\n-b\n+c\n\n\n*** End Patch"
            ),
            "a\n\nc\n"
        );
    }

    #[test]
    fn pure_additions_need_end_of_file() {
        assert_eq!(applied("a\n", "@@\n+b\n*** End of File\n"), "a\nb\n");
        let patch = parse("@@\n+b\n").unwrap();
        let Section::Update { hunks, .. } = &patch.sections[0] else {
            panic!()
        };
        let err = apply(b"a\n", hunks).unwrap_err();
        assert!(err.message.contains("ambiguous"), "{}", err.message);
    }
}
