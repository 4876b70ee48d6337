//! Cell edits: replace, insert or delete one cell by splicing the notebook's text, new text
//! written in the notebook's own style, and the result checked against nbformat's rules.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::ops::Range;

use serde_json::{Map, Value};

use super::spans::NodeKind;
use super::spans::line_indent;
use super::{CellType, Notebook, cell_type, displayed_id, has_real_id, joined};
use crate::error::{ErrorKind, Result, ToolError};
use crate::text::encoding;

/// What to do to the notebook.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EditMode {
    /// Replace a cell's source (and type, when one is given).
    Replace,
    /// Insert a cell after the given one, or at the start.
    Insert,
    /// Delete a cell.
    Delete,
}

impl EditMode {
    /// The mode named `name`: `replace`, `insert` or `delete`.
    pub fn parse(name: &str) -> Option<EditMode> {
        match name {
            "replace" => Some(EditMode::Replace),
            "insert" => Some(EditMode::Insert),
            "delete" => Some(EditMode::Delete),
            _ => None,
        }
    }
}

/// One cell edit.
#[derive(Clone, Copy, Debug)]
pub struct CellEdit<'a> {
    /// The operation.
    pub mode: EditMode,
    /// The target cell's displayed ID (required for replace and delete; for insert, the cell to
    /// insert after, the start when absent).
    pub cell_id: Option<&'a str>,
    /// The new source (required for replace and insert).
    pub new_source: Option<&'a str>,
    /// The inserted cell's type (by default code), or the replaced cell's new type.
    pub cell_type: Option<CellType>,
}

/// What an edit did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edited {
    /// The file's new bytes (equal to the old ones when nothing changed).
    pub bytes: Vec<u8>,
    /// Whether anything changed.
    pub changed: bool,
    /// The displayed ID of the replaced or inserted cell after the edit, or of the deleted cell.
    pub cell_id: String,
    /// The cell's type after the edit (the deleted cell's type for a delete).
    pub cell_type: CellType,
    /// Whether a code cell's outputs and execution count were cleared.
    pub cleared_outputs: bool,
    /// Whether the displayed `cell-N` IDs of other cells changed, so a view read before the
    /// edit no longer names them right.
    pub ids_shifted: bool,
}

/// Applies `edit` to `notebook`, parsed from `original`, and returns the bytes to write.
pub fn edit(original: &[u8], notebook: &Notebook, edit: &CellEdit<'_>) -> Result<Edited> {
    let (major, _) = notebook.version();
    if major != 4 {
        return Err(ToolError::invalid(format!(
            "notebook_edit edits nbformat 4 notebooks, and this one declares nbformat {major}; \
             convert it with `jupyter nbconvert --to notebook` first"
        )));
    }
    let text = notebook.text();
    let splice = match edit.mode {
        EditMode::Replace => replace(notebook, edit)?,
        EditMode::Insert => insert(notebook, edit)?,
        EditMode::Delete => delete(notebook, edit)?,
    };
    let Some(mut splice) = splice else {
        // The cell already holds this source and type.
        let index = find_cell(notebook, edit.cell_id.unwrap_or_default())?;
        let cell = &notebook.cells()[index];
        return Ok(Edited {
            bytes: original.to_vec(),
            changed: false,
            cell_id: displayed_id(cell, index),
            cell_type: cell_type(cell).unwrap_or(CellType::Code),
            cleared_outputs: false,
            ids_shifted: false,
        });
    };
    splice
        .pieces
        .sort_by_key(|(range, _)| std::cmp::Reverse(range.start));
    let mut new_text = text.to_string();
    for (range, replacement) in &splice.pieces {
        new_text.replace_range(range.clone(), replacement);
    }
    check(&notebook.value, &new_text)?;
    let bytes = encoding::rewrite(original, &notebook.decoded, &new_text)?;
    Ok(Edited {
        bytes,
        changed: true,
        cell_id: splice.cell_id,
        cell_type: splice.cell_type,
        cleared_outputs: splice.cleared_outputs,
        ids_shifted: splice.ids_shifted,
    })
}

/// Text replacements and what they amount to.
pub(super) struct Splice {
    pub(super) pieces: Vec<(Range<usize>, String)>,
    pub(super) cell_id: String,
    pub(super) cell_type: CellType,
    pub(super) cleared_outputs: bool,
    pub(super) ids_shifted: bool,
}

/// The index of the cell displayed as `id`; or, when no cell is displayed so, the cell at
/// position N of an ID `cell-N` (as Qwen Code accepts). Several cells displayed as `id` are
/// refused, never guessed between.
pub(super) fn find_cell(notebook: &Notebook, id: &str) -> Result<usize> {
    let ids = notebook.displayed_ids();
    let matching: Vec<usize> = (0..ids.len()).filter(|&i| ids[i] == id).collect();
    match matching.as_slice() {
        [one] => return Ok(*one),
        [] => {}
        several => {
            let positional: Vec<String> = several
                .iter()
                .map(|i| format!("cell-{i}"))
                .filter(|p| !ids.contains(p))
                .collect();
            let hint = if positional.len() == several.len() {
                format!(
                    "; address one of them by its position instead: {}",
                    positional.join(" or ")
                )
            } else {
                "; give the cells distinct IDs first".to_string()
            };
            return Err(ToolError::new(
                ErrorKind::NotUnique,
                format!(
                    "Cell ID \"{id}\" is ambiguous: {} cells (at positions {}) are displayed with \
                     it, so the edit was not applied{hint}.",
                    several.len(),
                    several
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
    }
    if let Some(n) = id
        .strip_prefix("cell-")
        .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|n| n.parse::<usize>().ok())
        && n < ids.len()
    {
        return Ok(n);
    }
    const LISTED: usize = 30;
    let mut listed = ids
        .iter()
        .take(LISTED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if ids.len() > LISTED {
        let _ = write!(listed, " and {} more", ids.len() - LISTED);
    }
    Err(ToolError::not_found(if ids.is_empty() {
        format!("Cell \"{id}\" not found in notebook: the notebook has no cells.")
    } else {
        format!(
            "Cell \"{id}\" not found in notebook. Its cell IDs are: {listed}. Use an ID shown by \
             read_file."
        )
    }))
}

pub(super) fn require_source<'a>(edit: &CellEdit<'a>) -> Result<&'a str> {
    edit.new_source.ok_or_else(|| {
        ToolError::invalid("new_source is required for replace and insert operations.")
    })
}

pub(super) fn replace(notebook: &Notebook, edit: &CellEdit<'_>) -> Result<Option<Splice>> {
    let id = edit.cell_id.ok_or_else(|| {
        ToolError::invalid("cell_id is required for replace and delete operations.")
    })?;
    let new_source = require_source(edit)?;
    let index = find_cell(notebook, id)?;
    let cell = &notebook.cells()[index];
    let node = &notebook.cell_nodes()[index];
    let current = cell_type(cell).ok_or_else(|| {
        ToolError::invalid(format!(
            "Cell \"{id}\" has no valid cell_type, so notebook_edit cannot tell how to edit it."
        ))
    })?;
    let wanted = edit.cell_type.unwrap_or(current);
    let source_changed = joined(cell.get("source")) != new_source;
    if wanted == current && !source_changed {
        return Ok(None);
    }
    let text = notebook.text();
    let style = &notebook.style;
    let source_value = source_like(cell.get("source"), new_source);
    let clears = wanted == CellType::Code && (current != CellType::Code || source_changed);
    let mut pieces = Vec::new();
    let mut cleared_outputs = false;
    if wanted == current {
        // Only the member values change; everything else in the cell keeps its bytes.
        let NodeKind::Object(members) = &node.kind else {
            return Err(layout_error());
        };
        for member in members {
            let new_value = match member.key.as_str() {
                "source" => Some(source_value.clone()),
                "outputs" if clears && cell.get("outputs") != Some(&Value::Array(Vec::new())) => {
                    cleared_outputs = true;
                    Some(Value::Array(Vec::new()))
                }
                "execution_count"
                    if clears && cell.get("execution_count") != Some(&Value::Null) =>
                {
                    cleared_outputs = true;
                    Some(Value::Null)
                }
                _ => None,
            };
            if let Some(value) = new_value {
                let indent = line_indent(text, member.key_start);
                let mut out = String::new();
                style.write(&value, indent, &mut out);
                pieces.push((member.value.start..member.value.end, out));
            }
        }
    } else {
        // A new type means other keys (outputs, execution_count, attachments): the cell is
        // written anew, its keys in their order.
        let Value::Object(map) = cell else {
            return Err(layout_error());
        };
        let mut map = map.clone();
        map.insert("cell_type".into(), Value::String(wanted.name().into()));
        map.insert("source".into(), source_value);
        match wanted {
            CellType::Code => {
                map.remove("attachments");
                map.insert("execution_count".into(), Value::Null);
                map.insert("outputs".into(), Value::Array(Vec::new()));
                cleared_outputs = true;
            }
            CellType::Markdown | CellType::Raw => {
                map.remove("outputs");
                map.remove("execution_count");
            }
        }
        if keys_sorted(cell) {
            map.sort_keys();
        }
        let mut out = String::new();
        style.write(&Value::Object(map), line_indent(text, node.start), &mut out);
        pieces.push((node.start..node.end, out));
    }
    Ok(Some(Splice {
        pieces,
        cell_id: displayed_id(cell, index),
        cell_type: wanted,
        cleared_outputs,
        ids_shifted: false,
    }))
}

pub(super) fn insert(notebook: &Notebook, edit: &CellEdit<'_>) -> Result<Option<Splice>> {
    let new_source = require_source(edit)?;
    let kind = edit.cell_type.unwrap_or(CellType::Code);
    let cells = notebook.cells();
    let at = match edit.cell_id {
        Some(id) => find_cell(notebook, id)? + 1,
        None => 0,
    };
    let (major, minor) = notebook.version();
    let with_id = major > 4 || (major == 4 && minor >= 5);
    let mut cell = Map::new();
    cell.insert("cell_type".into(), Value::String(kind.name().into()));
    if kind == CellType::Code {
        cell.insert("execution_count".into(), Value::Null);
    }
    if with_id {
        cell.insert("id".into(), Value::String(new_cell_id(cells)));
    }
    cell.insert("metadata".into(), Value::Object(Map::new()));
    if kind == CellType::Code {
        cell.insert("outputs".into(), Value::Array(Vec::new()));
    }
    // Sources are written as the notebook writes them: lists of lines unless its cells hold
    // strings.
    let template = cells.first().and_then(|c| c.get("source"));
    cell.insert("source".into(), source_like(template, new_source));
    let cell = Value::Object(cell);

    let text = notebook.text();
    let style = &notebook.style;
    let nodes = notebook.cell_nodes();
    let cells_member = notebook.root.member("cells").ok_or_else(layout_error)?;
    let piece = if nodes.is_empty() {
        let mut out = String::new();
        style.write(
            &Value::Array(vec![cell.clone()]),
            line_indent(text, cells_member.key_start),
            &mut out,
        );
        (cells_member.value.start..cells_member.value.end, out)
    } else {
        let indent = line_indent(text, nodes[0].start);
        let separator = match nodes.get(1) {
            Some(second) => text[nodes[0].end..second.start].to_string(),
            None => style.item_separator(indent),
        };
        let mut out = String::new();
        style.write(&cell, indent, &mut out);
        if at == 0 {
            out.push_str(&separator);
            (nodes[0].start..nodes[0].start, out)
        } else {
            let after = nodes[at - 1].end;
            (after..after, format!("{separator}{out}"))
        }
    };
    Ok(Some(Splice {
        pieces: vec![piece],
        cell_id: displayed_id(&cell, at),
        cell_type: kind,
        cleared_outputs: false,
        ids_shifted: cells[at..].iter().any(|c| !has_real_id(c)),
    }))
}

pub(super) fn delete(notebook: &Notebook, edit: &CellEdit<'_>) -> Result<Option<Splice>> {
    let id = edit.cell_id.ok_or_else(|| {
        ToolError::invalid("cell_id is required for replace and delete operations.")
    })?;
    let index = find_cell(notebook, id)?;
    let cells = notebook.cells();
    let nodes = notebook.cell_nodes();
    let range = if nodes.len() == 1 {
        let member = notebook.root.member("cells").ok_or_else(layout_error)?;
        return Ok(Some(Splice {
            pieces: vec![(member.value.start..member.value.end, "[]".to_string())],
            cell_id: displayed_id(&cells[index], index),
            cell_type: cell_type(&cells[index]).unwrap_or(CellType::Code),
            cleared_outputs: false,
            ids_shifted: false,
        }));
    } else if index + 1 < nodes.len() {
        nodes[index].start..nodes[index + 1].start
    } else {
        nodes[index - 1].end..nodes[index].end
    };
    Ok(Some(Splice {
        pieces: vec![(range, String::new())],
        cell_id: displayed_id(&cells[index], index),
        cell_type: cell_type(&cells[index]).unwrap_or(CellType::Code),
        cleared_outputs: false,
        ids_shifted: cells[index + 1..].iter().any(|c| !has_real_id(c)),
    }))
}

pub(super) fn layout_error() -> ToolError {
    ToolError::invalid(
        "internal error: the notebook's JSON could not be laid out for editing; nothing was \
         written",
    )
}

/// `source` in the shape of `template`: a string when the template is a string, else a list of
/// lines as nbformat splits them (Python's `str.splitlines(keepends=True)`).
pub(super) fn source_like(template: Option<&Value>, source: &str) -> Value {
    match template {
        Some(Value::String(_)) => Value::String(source.to_string()),
        _ => Value::Array(
            split_lines_keepends(source)
                .into_iter()
                .map(|l| Value::String(l.to_string()))
                .collect(),
        ),
    }
}

/// Python's `str.splitlines(keepends=True)`.
pub(super) fn split_lines_keepends(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let end = match c {
            '\r' => match chars.peek() {
                Some(&(next, '\n')) => {
                    chars.next();
                    next + 1
                }
                _ => at + 1,
            },
            '\n' | '\x0b' | '\x0c' | '\x1c' | '\x1d' | '\x1e' | '\u{85}' | '\u{2028}'
            | '\u{2029}' => at + c.len_utf8(),
            _ => continue,
        };
        out.push(&text[start..end]);
        start = end;
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

pub(super) fn keys_sorted(cell: &Value) -> bool {
    cell.as_object()
        .is_some_and(|m| m.keys().zip(m.keys().skip(1)).all(|(a, b)| a <= b))
}

/// A fresh cell ID, as nbformat makes them (8 hexadecimal digits), unique in the notebook.
pub(super) fn new_cell_id(cells: &[Value]) -> String {
    use std::hash::{BuildHasher, Hasher};
    let taken: HashSet<&str> = cells
        .iter()
        .filter_map(|c| c.get("id").and_then(Value::as_str))
        .collect();
    let state = std::collections::hash_map::RandomState::new();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    (0u64..)
        .map(|attempt| {
            let mut hasher = state.build_hasher();
            hasher.write_u128(nanos);
            hasher.write_u64(attempt);
            format!("{:08x}", hasher.finish() as u32)
        })
        .find(|id| !taken.contains(id.as_str()))
        .unwrap_or_default()
}

/// Refuses an edited text that is not JSON or breaks more of nbformat's rules than the original.
pub(super) fn check(original: &Value, new_text: &str) -> Result<()> {
    let value: Value = serde_json::from_str(new_text).map_err(|e| {
        ToolError::invalid(format!(
            "internal error: the edited notebook would not be valid JSON ({e}); nothing was \
             written"
        ))
    })?;
    let before = nbformat_problems(original);
    let after = nbformat_problems(&value);
    if after.len() > before.len() {
        return Err(ToolError::invalid(format!(
            "internal error: the edited notebook would break nbformat's rules ({}); nothing was \
             written",
            after.join("; ")
        )));
    }
    Ok(())
}

/// Where `value` breaks the structural rules of nbformat 4 (the JSON schema's required keys,
/// types and allowed keys of cells, unique well-formed cell IDs from 4.5 on). Empty for a valid
/// notebook.
pub fn nbformat_problems(value: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(root) = value.as_object() else {
        return vec!["the notebook is not a JSON object".into()];
    };
    let major = root.get("nbformat").and_then(Value::as_u64);
    let minor = root.get("nbformat_minor").and_then(Value::as_u64);
    if major != Some(4) {
        problems.push("nbformat is not 4".into());
    }
    if minor.is_none() {
        problems.push("nbformat_minor is not a whole number".into());
    }
    if !root.get("metadata").is_some_and(Value::is_object) {
        problems.push("metadata is not an object".into());
    }
    let Some(cells) = root.get("cells").and_then(Value::as_array) else {
        problems.push("cells is not a list".into());
        return problems;
    };
    let needs_id = minor.is_some_and(|m| m >= 5);
    let mut seen = HashSet::new();
    for (i, cell) in cells.iter().enumerate() {
        let Some(map) = cell.as_object() else {
            problems.push(format!("cell {i} is not an object"));
            continue;
        };
        let kind = cell_type(cell);
        let allowed: &[&str] = match kind {
            Some(CellType::Code) => &[
                "id",
                "cell_type",
                "metadata",
                "source",
                "outputs",
                "execution_count",
            ],
            Some(_) => &["id", "cell_type", "metadata", "source", "attachments"],
            None => {
                problems.push(format!("cell {i} has no valid cell_type"));
                continue;
            }
        };
        for key in map.keys().filter(|k| !allowed.contains(&k.as_str())) {
            problems.push(format!(
                "cell {i} has the key {key:?}, which its type does not allow"
            ));
        }
        if !map.get("metadata").is_some_and(Value::is_object) {
            problems.push(format!("cell {i} has no metadata object"));
        }
        let source_ok = match map.get("source") {
            Some(Value::String(_)) => true,
            Some(Value::Array(parts)) => parts.iter().all(Value::is_string),
            _ => false,
        };
        if !source_ok {
            problems.push(format!("cell {i} has no source string or list of strings"));
        }
        if kind == Some(CellType::Code) {
            if !map.get("outputs").is_some_and(Value::is_array) {
                problems.push(format!("code cell {i} has no outputs list"));
            }
            if !map
                .get("execution_count")
                .is_some_and(|v| v.is_null() || v.is_u64())
            {
                problems.push(format!("code cell {i} has no execution_count"));
            }
        }
        match map.get("id") {
            Some(Value::String(id)) => {
                let well_formed = (1..=64).contains(&id.len())
                    && id
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
                if !well_formed {
                    problems.push(format!("cell {i} has a malformed id {id:?}"));
                }
                if !seen.insert(id.clone()) {
                    problems.push(format!("cell {i} repeats the id {id:?}"));
                }
            }
            Some(_) => problems.push(format!("cell {i} has an id that is not a string")),
            None if needs_id => problems.push(format!("cell {i} has no id (nbformat 4.5+)")),
            None => {}
        }
    }
    problems
}
