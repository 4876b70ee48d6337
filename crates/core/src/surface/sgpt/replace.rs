//! replace: sequential exact search/replace patches ([`crate::ops::replace`]), every patch or
//! nothing written. Text in another encoding than UTF-8 is patched in its decoded text (what
//! read_files shows) and written back in its encoding ([`encoding::change_text`]).

use std::io;

use serde_json::{Value, json};

use super::input::{Input, kind_of, opt_bool, opt_string};
use super::{Answer, Ctx};
use crate::access::WriteOptions;
use crate::error::{ErrorKind, Result, ToolError};
use crate::ops::patch::unified;
use crate::ops::replace::{self, Patch, PatchAt, ReplaceError};
use crate::text::encoding;

const PATCH_KEYS: [&str; 3] = ["search", "replace", "replace_all"];
/// The most occurrence lines a refusal lists.
const MAX_LINES_LISTED: usize = 20;

pub(super) fn call(ctx: &Ctx<'_>, args: Value) -> Result<Answer> {
    let input = Input::parse("replace", args, &["path", "patches"])?;
    let raw = input.text("path")?;
    let Some(objects) = input.objects("patches")? else {
        return Err(ToolError::invalid(
            "replace needs patches, an array of {search, replace, replace_all?} objects: \
             {\"path\": \"f.txt\", \"patches\": [{\"search\": \"old\", \"replace\": \"new\"}]}",
        ));
    };
    let mut patches = Vec::with_capacity(objects.len());
    for (i, object) in objects.iter().enumerate() {
        let at = format!("patches[{i}]");
        let unknown: Vec<&str> = object
            .keys()
            .map(String::as_str)
            .filter(|k| !PATCH_KEYS.contains(k))
            .collect();
        if !unknown.is_empty() {
            return Err(ToolError::invalid(format!(
                "{at} has no field {}; a patch's fields are search, replace, replace_all",
                unknown.join(", ")
            )));
        }
        let field = |key: &str| -> Result<String> {
            opt_string(object, key, &at)?.ok_or_else(|| {
                ToolError::invalid(format!(
                    "{at} needs {key}, a string{}",
                    match object.get(key) {
                        Some(v) => format!(" (it is {})", kind_of(v)),
                        None => String::new(),
                    }
                ))
            })
        };
        patches.push(Patch {
            search: field("search")?,
            replace: field("replace")?,
            replace_all: opt_bool(object, "replace_all", &at)?.unwrap_or(false),
        });
    }
    let target = ctx.access.resolve(&raw)?;
    let (original, _) = ctx.access.read_all(&target).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => ToolError::not_found(format!(
            "{raw} does not exist, so there is nothing to replace in; check the path \
             (exec_shell: ls), or create the file with a diff of added lines. Nothing was written."
        )),
        io::ErrorKind::IsADirectory => ToolError::invalid(format!(
            "{raw} is a directory, not a file; replace edits one file"
        )),
        _ => ToolError::from_io(&e, "read", &raw),
    })?;
    let change = encoding::change_text(&original, None, |text| {
        let replaced = replace::apply(text, &patches).map_err(|e| refusal(e, &raw))?;
        Ok((
            replaced.bytes,
            (replaced.patches_applied, replaced.replacements),
        ))
    })?;
    let (patches_applied, replacements) = change.value;
    ctx.access
        .write_atomic(
            &target,
            &change.bytes,
            WriteOptions {
                create_parents: false,
                expect: Some(&original),
                ..WriteOptions::default()
            },
        )
        .map_err(|e| ToolError::from_io(&e, "write", &raw))?;
    let diff = match &change.decoded {
        Some((_, before, after)) => unified::render(&raw, before.as_bytes(), after.as_bytes()),
        None => unified::render(&raw, &original, &change.bytes),
    };
    let mut value = json!({
        "path": raw,
        "patches_applied": patches_applied,
        "replacements": replacements,
        "diff": diff,
    });
    if let Some((format, _, _)) = &change.decoded {
        value["encoding"] = Value::String(format.encoding.name().to_string());
    }
    if ctx.access.through_link(&target).is_some() {
        value["written"] = Value::String(ctx.access.written_name(&target));
    }
    Answer::ok(value)
}

/// The refusal of the patches of a replace on `shown`, in sgpt's words: the patch by its index
/// in `patches`, the next step in terms of `search`, `replace_all` and read_files.
fn refusal(err: ReplaceError, shown: &str) -> ToolError {
    let name = |at: PatchAt| {
        format!(
            "patches[{}] (patch {} of {})",
            at.index,
            at.index + 1,
            at.total
        )
    };
    let after = |at: PatchAt| {
        let index = at.index;
        if index > 0 {
            format!(
                " (as it is after patches[0..{index}] applied; the patches apply in order, each \
                 to the result of the previous)"
            )
        } else {
            String::new()
        }
    };
    match err {
        ReplaceError::NoPatches => ToolError::invalid(format!(
            "patches is empty, so nothing would change in {shown}; pass at least one {{search, \
             replace}} patch"
        )),
        ReplaceError::EmptySearch(at) => ToolError::invalid(format!(
            "{}: search is empty, so it names no place in {shown}; quote the exact text to \
             replace. Nothing was written.",
            name(at)
        )),
        ReplaceError::Unchanged(at) => ToolError::invalid(format!(
            "{}: search and replace are identical, so it would change nothing in {shown}; pass \
             the new text as replace, or drop the patch. Nothing was written.",
            name(at)
        )),
        ReplaceError::NotUnique { at, count, lines } => ToolError::new(
            ErrorKind::NotUnique,
            format!(
                "{}: search occurs {count} times in {shown}{}, at {}; it must occur once. Add \
                 surrounding text to search until it matches one place, or set replace_all: \
                 true to replace every occurrence. Nothing was written.",
                name(at),
                after(at),
                listed_lines(&lines)
            ),
        ),
        ReplaceError::Absent {
            at,
            lines,
            near,
            first_line_only,
        } => {
            let hint = match (near.is_empty(), first_line_only) {
                (true, _) => String::new(),
                (false, true) => format!(
                    " Its first line does occur (at {}), so a later line of search differs.",
                    listed_lines(&near)
                ),
                (false, false) => format!(
                    " The text occurs (at {}) with different surrounding whitespace.",
                    listed_lines(&near)
                ),
            };
            ToolError::new(
                ErrorKind::NoMatch,
                format!(
                    "{}: search was not found in {shown}{} ({lines} lines).{hint} The file may \
                     have changed since you read it, or the quote differs in whitespace or \
                     indentation; re-read the file with read_files and copy the text exactly. \
                     Nothing was written.",
                    name(at),
                    after(at)
                ),
            )
        }
    }
}

/// "line 4" or "lines 1, 3 and 2 more".
fn listed_lines(at: &[usize]) -> String {
    let shown: Vec<String> = at
        .iter()
        .take(MAX_LINES_LISTED)
        .map(ToString::to_string)
        .collect();
    let more = at.len().saturating_sub(MAX_LINES_LISTED);
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    let word = if at.len() == 1 { "line" } else { "lines" };
    format!("{word} {}{more}", shown.join(", "))
}
