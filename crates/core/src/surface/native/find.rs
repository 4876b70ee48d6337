//! search and glob: ripgrep-style answers, grouped by file without repeating its path, context
//! blocks merged, and every cut answer ended by the cursor that continues it.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::access::Access;
use crate::access::ignore::IgnoreFiles;
use crate::error::{Result, ToolError};
use crate::ops::scan::sinks::by_name::{self, GlobOptions};
use crate::ops::scan::sinks::matches::{FindOptions, Finder, LineMatch};
use crate::surface::CallContext;
use crate::surface::args::Args;

/// Matches (or files) per page when the call names no limit.
const SEARCH_PAGE: u64 = 100;
/// The most a page may hold.
const SEARCH_MAX: u64 = 1000;
/// The most matches a files or count answer looks at.
const COUNT_MAX: usize = 200_000;
/// Paths per glob page when the call names no limit.
const GLOB_PAGE: u64 = 500;
const GLOB_MAX: u64 = 5000;

/// `1 file`, `2 files`.
pub(super) fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// The items a cursor skips: `c<N>`.
fn cursor(args: &Args) -> Result<usize> {
    match args.opt_str("cursor")? {
        None => Ok(0),
        Some(c) => c
            .strip_prefix('c')
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| {
                ToolError::invalid(format!(
                    "cursor {c:?} is not one this tool gave; pass the cursor from the end of the \
                     previous answer, or leave it out to start over"
                ))
            }),
    }
}

fn limit(args: &Args, default: u64, max: u64) -> Result<usize> {
    match args.opt_uint("limit")? {
        None => Ok(default as usize),
        Some(0) => Err(ToolError::invalid(format!(
            "limit 0 asks for nothing; pass 1 to {max}"
        ))),
        Some(n) => Ok(n.min(max) as usize),
    }
}

/// The call that continues an answer cut after `next` items: the same arguments with `cursor`.
fn more(tool: &str, args: &Value, next: usize) -> String {
    let mut args = args.clone();
    if let Value::Object(map) = &mut args {
        map.insert("cursor".to_string(), Value::String(format!("c{next}")));
    }
    format!("more: {tool} {args}")
}

pub(super) fn search(access: &Access, raw: Value, ctx: &CallContext) -> Result<String> {
    let args = Args::parse(
        "search",
        raw.clone(),
        &[
            "pattern",
            "path",
            "literal",
            "case_insensitive",
            "glob",
            "context",
            "mode",
            "limit",
            "cursor",
        ],
    )?;
    let pattern = args.str("pattern")?;
    if pattern.is_empty() {
        return Err(ToolError::invalid(
            "pattern is empty; give the text or regex to find",
        ));
    }
    let mode = args.opt_str("mode")?.unwrap_or("lines");
    if !["lines", "files", "count"].contains(&mode) {
        return Err(ToolError::invalid(format!(
            "mode {mode:?} is not one of lines, files, count"
        )));
    }
    let context = args.opt_uint("context")?.unwrap_or(0).min(20) as usize;
    let (mut include, mut exclude) = (Vec::new(), Vec::new());
    match args.opt_value("glob") {
        None => {}
        Some(Value::String(g)) => include.push(g.clone()),
        Some(Value::Array(items)) => {
            for item in items {
                let Some(g) = item.as_str() else {
                    return Err(ToolError::invalid("glob must be a list of strings"));
                };
                match g.strip_prefix('!') {
                    Some(g) => exclude.push(g.to_string()),
                    None => include.push(g.to_string()),
                }
            }
        }
        Some(_) => return Err(ToolError::invalid("glob must be a list of strings")),
    }
    let skip = cursor(&args)?;
    let page = limit(&args, SEARCH_PAGE, SEARCH_MAX)?;
    let target = access.resolve_or_root(args.opt_str("path")?)?;
    let max_matches = if mode == "lines" {
        skip + page + 1
    } else {
        COUNT_MAX
    };
    let finder = Finder::new(FindOptions {
        query: pattern.to_string(),
        regex: !args.opt_bool("literal")?.unwrap_or(false),
        ignore_case: args.opt_bool("case_insensitive")?.unwrap_or(false),
        content: true,
        paths: false,
        include_globs: include,
        exclude_globs: exclude,
        use_default_excludes: false,
        max_matches,
        max_line_bytes: 300,
        context_before: if mode == "lines" { context } else { 0 },
        context_after: if mode == "lines" { context } else { 0 },
        budget_bytes: 8 << 20,
        max_read_bytes: 64 << 20,
        ignore: Some(IgnoreFiles::standard()),
    })?;
    let mut found = finder.run(access, &target, ctx)?;
    // Paths as the model names them: relative to the root.
    for m in &mut found.lines {
        m.path = access.display(std::path::Path::new(&m.path));
    }
    let mut out = String::new();
    let skipped = found.skipped.describe();
    match mode {
        "lines" => {
            let lines = &found.lines;
            let shown: Vec<&LineMatch> = lines.iter().skip(skip).take(page).collect();
            if shown.is_empty() {
                out.push_str(&format!("no matches for {pattern:?}"));
                if skip > 0 {
                    out.push_str(&format!(" past the first {skip}"));
                }
                out.push('\n');
            } else {
                out.push_str(&format!(
                    "{}{}\n",
                    plural(shown.len(), "match", "matches"),
                    if skip > 0 {
                        format!(" (after {skip})")
                    } else {
                        String::new()
                    }
                ));
                render_lines(&mut out, &shown);
            }
            if lines.len() > skip + page || (found.truncated && lines.len() >= skip + page) {
                out.push_str(&more("search", &raw, skip + page));
                out.push('\n');
            } else if found.truncated {
                out.push_str(
                    "cut: the answer reached its size budget; narrow the search with path or glob\n",
                );
            }
        }
        _ => {
            let mut per_file: Vec<(String, usize)> = Vec::new();
            for m in &found.lines {
                match per_file.last_mut() {
                    Some((p, n)) if *p == m.path => *n += 1,
                    _ => per_file.push((m.path.clone(), 1)),
                }
            }
            let total: usize = per_file.iter().map(|f| f.1).sum();
            let at_least = if found.truncated { "at least " } else { "" };
            out.push_str(&format!(
                "{at_least}{} in {}\n",
                plural(total, "match", "matches"),
                plural(per_file.len(), "file", "files")
            ));
            for (path, n) in per_file.iter().skip(skip).take(page) {
                if mode == "count" {
                    out.push_str(&format!("{path}: {n}\n"));
                } else {
                    out.push_str(path);
                    out.push('\n');
                }
            }
            if per_file.len() > skip + page {
                out.push_str(&more("search", &raw, skip + page));
                out.push('\n');
            }
        }
    }
    if let Some(s) = skipped {
        out.push_str(&format!("skipped: {s}\n"));
    }
    Ok(out)
}

/// Matches grouped by file (the path once), each file's lines in order with context merged:
/// `12:text` for a match, `13-text` for context, `--` between blocks that do not touch.
fn render_lines(out: &mut String, matches: &[&LineMatch]) {
    // Per file, its lines by number: whether each is a match, and its text.
    type Lines<'a> = BTreeMap<u64, (bool, &'a str)>;
    let mut files: Vec<(&str, Lines<'_>)> = Vec::new();
    for m in matches {
        if files.last().is_none_or(|f| f.0 != m.path) {
            files.push((&m.path, BTreeMap::new()));
        }
        let Some((_, lines)) = files.last_mut() else {
            continue;
        };
        let before = m.before.len() as u64;
        for (i, text) in m.before.iter().enumerate() {
            let n = m.line - before + i as u64;
            lines.entry(n).or_insert((false, text));
        }
        lines.insert(m.line, (true, &m.text));
        for (i, text) in m.after.iter().enumerate() {
            lines.entry(m.line + 1 + i as u64).or_insert((false, text));
        }
    }
    for (path, lines) in files {
        out.push_str(path);
        out.push('\n');
        let mut last = None;
        for (n, (hit, text)) in lines {
            if last.is_some_and(|l: u64| n > l + 1) {
                out.push_str("--\n");
            }
            out.push_str(&format!("{n}{}{text}\n", if hit { ':' } else { '-' }));
            last = Some(n);
        }
    }
}

pub(super) fn glob(access: &Access, raw: Value, ctx: &CallContext) -> Result<String> {
    let args = Args::parse("glob", raw.clone(), &["pattern", "path", "limit", "cursor"])?;
    let pattern = args.str("pattern")?;
    let skip = cursor(&args)?;
    let page = limit(&args, GLOB_PAGE, GLOB_MAX)?;
    let dir = access.resolve_or_root(args.opt_str("path")?)?;
    let outcome = by_name::glob(
        access,
        &dir,
        pattern,
        &IgnoreFiles::standard(),
        GlobOptions {
            case_insensitive: false,
        },
        ctx,
    )?;
    let mut paths: Vec<String> = outcome
        .hits
        .iter()
        .map(|h| access.display(&h.path))
        .collect();
    paths.sort();
    let mut out = if paths.is_empty() {
        format!("no files match {pattern:?}\n")
    } else {
        format!("{}\n", plural(paths.len(), "file", "files"))
    };
    for p in paths.iter().skip(skip).take(page) {
        out.push_str(p);
        out.push('\n');
    }
    if paths.len() > skip + page {
        out.push_str(&more("glob", &raw, skip + page));
        out.push('\n');
    }
    if let Some(s) = outcome.skipped.describe() {
        out.push_str(&format!("skipped: {s}\n"));
    }
    Ok(out)
}
