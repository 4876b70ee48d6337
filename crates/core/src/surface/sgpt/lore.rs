//! search_lores: a case-insensitive regex over the configured lore libraries, ranked by
//! [`crate::ops::scan::sinks::lore::search`].

use serde_json::{Value, json};

use super::input::Input;
use super::{Answer, Ctx};
use crate::error::{ErrorKind, Result, ToolError};
use crate::ops::scan::sinks::lore::{self, Lore};

/// top_n when the call gives none.
const DEFAULT_TOP_N: u64 = 10;
/// The largest top_n.
const MAX_TOP_N: u64 = 100;

pub(super) fn call(ctx: &Ctx<'_>, args: Value) -> Result<Answer> {
    let input = Input::parse("search_lores", args, &["query", "top_n"])?;
    let query = input.text("query")?;
    let top_n = match input.args.opt_uint("top_n")? {
        None => DEFAULT_TOP_N,
        Some(0) => {
            return Err(ToolError::invalid(
                "top_n 0 would return nothing; pass 1 or more (default 10), or leave it out",
            ));
        }
        Some(n) => n.min(MAX_TOP_N),
    };
    let re = regex::RegexBuilder::new(&query)
        .case_insensitive(true)
        .multi_line(true)
        .size_limit(1 << 22)
        .build()
        .map_err(|e| {
            ToolError::invalid(format!(
                "query is not a valid regular expression: {e}. Escape regex characters with \\ \
                 (e.g. \\( or \\.) to search for them literally, then search again"
            ))
        })?;
    if ctx.config.lore_libraries.is_empty() {
        return Err(ToolError::new(
            ErrorKind::Denied,
            "no lore library is configured, so there is nothing to search; the user lists \
             lore folders in the configuration ([lore] libraries = [\"docs/lore\"])",
        ));
    }
    let mut lores: Vec<Lore> = Vec::new();
    let mut warnings: Vec<String> = Vec::new();
    for library in &ctx.config.lore_libraries {
        match lore::load(ctx.access, library) {
            Ok((found, problems)) => {
                lores.extend(found);
                warnings.extend(problems);
            }
            Err(e) => warnings.push(format!(
                "the lore library {} was not searched: {}",
                library.display(),
                e.worded(&super::NEXT)
            )),
        }
    }
    let found = lore::search(&lores, &re);
    let total = found.len();
    let results: Vec<Value> = found
        .iter()
        .take(usize::try_from(top_n).unwrap_or(usize::MAX))
        .map(|f| {
            json!({
                "title": f.lore.title,
                "description": f.lore.description,
                "labels": f.lore.labels,
                "path": f.lore.path,
                "matched_in": f.fields(),
                "hits": f.hits(),
                "snippets": f
                    .snippets
                    .iter()
                    .map(|(line, text)| json!({"line": line, "text": text}))
                    .collect::<Vec<_>>(),
            })
        })
        .collect();
    let mut value = json!({
        "lores": results,
        "total_matches": total,
    });
    if !warnings.is_empty() {
        value["warnings"] = json!(warnings);
    }
    Answer::ok(value)
}
