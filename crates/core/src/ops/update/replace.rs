//! Replace ops: a regex and a replacement template, run on the body after the line ops, each on
//! the result of the one before, with an optional `expect_matches` guard.

use regex::bytes::{Regex, RegexBuilder};

use super::echoes::{Pending, PendingKind};
use super::{
    CRLF, MAX_LINES_LISTED, MAX_PATTERN_SHOWN, MAX_REPLACE_SITES, Result, UpdateError, invalid,
};
use crate::error::ToolError;
use crate::text::lines;

/// A piece of a parsed replacement template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Piece {
    Literal(Vec<u8>),
    Group(usize),
}

/// A validated replace op.
#[derive(Debug)]
pub(super) struct Replacer {
    pub(super) index: u32,
    pub(super) regex: Regex,
    pub(super) template: Vec<Piece>,
    pub(super) expect: Option<u64>,
    pub(super) pattern: String,
}

impl Replacer {
    pub(super) fn new(
        index: u32,
        pattern: &str,
        replacement: &str,
        ignore_case: bool,
        dot_matches_newline: bool,
        expect: Option<u64>,
    ) -> Result<Replacer> {
        if pattern.is_empty() {
            return Err(invalid(format!(
                "ops[{index}] (replace): pattern is empty, which matches between every two \
                 characters; pass the text to find (a regex; anchor whole lines with ^ and $)"
            )));
        }
        let regex = RegexBuilder::new(pattern)
            .case_insensitive(ignore_case)
            .dot_matches_new_line(dot_matches_newline)
            .multi_line(true)
            .crlf(true)
            .build()
            .map_err(|e| {
                ToolError::invalid(format!(
                    "ops[{index}] (replace): pattern is not a valid regex: {e}\nFix the pattern \
                     (escape literal metacharacters such as ( ) [ ] {{ }} . * + ? | \\ with a \
                     backslash) and call again"
                ))
            })?;
        let template = parse_template(index, replacement, &regex)?;
        Ok(Replacer {
            index,
            regex,
            template,
            expect,
            pattern: pattern.to_string(),
        })
    }

    /// Replaces every match in `body`, maps the `pending` regions onto the result and adds
    /// this op's site echoes.
    pub(super) fn run(
        &self,
        body: &[u8],
        ending: &'static [u8],
        pending: &mut Vec<Pending>,
    ) -> Result<Vec<u8>> {
        // Every region boundary, sorted: (position, is_end, pending index).
        let mut points: Vec<(usize, bool, usize)> = Vec::with_capacity(pending.len() * 2);
        for (i, p) in pending.iter().enumerate() {
            if p.kind != PendingKind::NoMatch {
                points.push((p.start, false, i));
                points.push((p.end, true, i));
            }
        }
        points.sort_unstable();
        let mut mapped: Vec<(usize, usize)> = pending.iter().map(|p| (p.start, p.end)).collect();
        let mut set = |(_, is_end, i): (usize, bool, usize), to: usize| {
            if is_end {
                mapped[i].1 = to;
            } else {
                mapped[i].0 = to;
            }
        };

        let crlf = ending == CRLF;
        let mut out = Vec::with_capacity(body.len());
        let mut sites: Vec<(usize, usize)> = Vec::new();
        let mut starts: Vec<usize> = Vec::new();
        let mut count: u64 = 0;
        let mut copied = 0usize; // end of the previous match in `body`
        let mut next_point = 0usize;
        for caps in self.regex.captures_iter(body) {
            let Some(m) = caps.get(0) else { continue };
            let (a, b) = (m.start(), m.end());
            out.extend_from_slice(&body[copied..a]);
            let na = out.len();
            for piece in &self.template {
                match piece {
                    Piece::Literal(text) => push_literal(&mut out, text, crlf),
                    Piece::Group(g) => {
                        if let Some(c) = caps.get(*g) {
                            out.extend_from_slice(c.as_bytes());
                        }
                    }
                }
            }
            let nb = out.len();
            while let Some(&pt) = points.get(next_point) {
                let (p, is_end, _) = pt;
                if p < a || (p == a && a < b) {
                    set(pt, na - (a - p));
                } else if p > a && p < b {
                    set(pt, if is_end { nb } else { na });
                } else {
                    break;
                }
                next_point += 1;
            }
            if sites.len() < MAX_REPLACE_SITES {
                sites.push((na, nb));
            }
            if starts.len() < MAX_LINES_LISTED {
                starts.push(a);
            }
            count += 1;
            copied = b;
        }
        out.extend_from_slice(&body[copied..]);
        for &pt in &points[next_point..] {
            // After the last match, bytes are copied verbatim.
            let to = out.len() - (body.len() - pt.0.min(body.len()));
            set(pt, to);
        }

        if let Some(expect) = self.expect
            && expect != count
        {
            return Err(self.mismatch(body, expect, count, &starts));
        }
        for (p, (s, e)) in pending.iter_mut().zip(mapped) {
            p.start = s;
            p.end = e;
        }
        if count == 0 {
            pending.push(Pending {
                op_index: self.index,
                start: 0,
                end: 0,
                kind: PendingKind::NoMatch,
            });
        }
        pending.extend(sites.into_iter().map(|(start, end)| Pending {
            op_index: self.index,
            start,
            end,
            kind: PendingKind::Site(count),
        }));
        Ok(out)
    }

    fn mismatch(&self, body: &[u8], expect: u64, count: u64, starts: &[usize]) -> UpdateError {
        let pattern = match lines::cut_chars(&self.pattern, MAX_PATTERN_SHOWN) {
            (all, 0) => format!("{all:?}"),
            (kept, cut) => format!("{kept:?}… ({cut} more characters)"),
        };
        let mut lines = lines::lines_at(body, starts.iter().copied());
        lines.dedup();
        UpdateError::Mismatch {
            index: self.index,
            pattern,
            count,
            expect,
            lines,
            more: count > starts.len() as u64,
        }
    }
}

/// Appends template text, writing a bare `\n` as `\r\n` in a CRLF file.
pub(super) fn push_literal(out: &mut Vec<u8>, text: &[u8], crlf: bool) {
    if !crlf {
        out.extend_from_slice(text);
        return;
    }
    let mut prev = out.last().copied();
    for &b in text {
        if b == b'\n' && prev != Some(b'\r') {
            out.push(b'\r');
        }
        out.push(b);
        prev = Some(b);
    }
}

pub(super) fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Parses `template` against the groups `regex` defines.
pub(super) fn parse_template(index: u32, template: &str, regex: &Regex) -> Result<Vec<Piece>> {
    let bytes = template.as_bytes();
    let mut pieces = Vec::new();
    let mut literal = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'$' {
            literal.push(bytes[i]);
            i += 1;
            continue;
        }
        let (name, next) = match bytes.get(i + 1) {
            Some(b'$') => {
                literal.push(b'$');
                i += 2;
                continue;
            }
            Some(b'{') => {
                let Some(close) = template[i + 2..].find('}') else {
                    return Err(invalid(format!(
                        "ops[{index}] (replace): replacement has `${{` at byte {i} with no \
                         closing `}}`; close the reference (`${{name}}`), or write `$$` for a \
                         literal `$` (`$${{` outputs `${{`)"
                    )));
                };
                let name = &template[i + 2..i + 2 + close];
                if name.is_empty() {
                    return Err(invalid(format!(
                        "ops[{index}] (replace): replacement has an empty reference `${{}}` at \
                         byte {i}; name a group (`${{1}}`, `${{name}}`), or write `$$` for a \
                         literal `$`"
                    )));
                }
                (name, i + 3 + close)
            }
            Some(&c) if is_word(c) => {
                let len = bytes[i + 1..].iter().take_while(|&&b| is_word(b)).count();
                (&template[i + 1..i + 1 + len], i + 1 + len)
            }
            other => {
                let what = match other {
                    None => "at the end".to_string(),
                    Some(_) => {
                        let c = template[i + 1..].chars().next().unwrap_or('?');
                        format!("followed by {c:?}")
                    }
                };
                return Err(invalid(format!(
                    "ops[{index}] (replace): replacement has a `$` {what} (byte {i}), which is \
                     not a capture reference; write `$$` for a literal `$`, or `$1` / \
                     `${{name}}` for a group"
                )));
            }
        };
        let Some(group) = resolve_group(regex, name) else {
            return Err(undefined_group(index, name, &template[i..next], regex).into());
        };
        if !literal.is_empty() {
            pieces.push(Piece::Literal(std::mem::take(&mut literal)));
        }
        pieces.push(Piece::Group(group));
        i = next;
    }
    if !literal.is_empty() {
        pieces.push(Piece::Literal(literal));
    }
    Ok(pieces)
}

pub(super) fn resolve_group(regex: &Regex, name: &str) -> Option<usize> {
    if name.bytes().all(|b| b.is_ascii_digit()) {
        return name
            .parse::<usize>()
            .ok()
            .filter(|&g| g < regex.captures_len());
    }
    regex.capture_names().position(|n| n == Some(name))
}

pub(super) fn undefined_group(index: u32, name: &str, written: &str, regex: &Regex) -> ToolError {
    let last = regex.captures_len().saturating_sub(1);
    let numbered = if last == 0 {
        "only $0 (the whole match)".to_string()
    } else {
        format!("$0 to ${last}")
    };
    let names: Vec<String> = regex
        .capture_names()
        .flatten()
        .map(|n| format!("${{{n}}}"))
        .collect();
    let named = if names.is_empty() {
        "no named groups".to_string()
    } else {
        format!("the named groups {}", names.join(", "))
    };
    let mut hint = String::new();
    let digits = name.bytes().take_while(u8::is_ascii_digit).count();
    if !written.starts_with("${") && digits > 0 && digits < name.len() {
        hint = format!(
            " An unbraced reference takes the longest run of letters, digits and _, so \
             `{written}` names the group \"{name}\"; write `${{{}}}{}` for group {} followed by \
             \"{}\".",
            &name[..digits],
            &name[digits..],
            &name[..digits],
            &name[digits..]
        );
    }
    ToolError::invalid(format!(
        "ops[{index}] (replace): replacement references `{written}`, but the pattern defines no \
         group {name:?}; it defines {numbered} and {named}.{hint} Use a defined group, or write \
         `$$` for a literal `$` (`$${name}` outputs `${name}`, `$${{{name}}}` outputs \
         `${{{name}}}`); nothing was written"
    ))
}
