//! Jupyter notebooks: a structured view of an `.ipynb` file and cell edits that change only the
//! edited cell's bytes.
//!
//! **The view** ([`view`]) names the notebook's language and lists its cells in order, each with
//! its displayed ID (its real `id`, or `cell-N` — its 0-based position — when it has none), its
//! type, its source and a summary of its outputs (text kept, rich outputs named by MIME type,
//! tracebacks without terminal colours, each cell's outputs cut after
//! [`MAX_OUTPUT_CHARS`]). A view longer than [`MAX_VIEW_CHARS`] stops at a cell boundary and says
//! so; such a view is not [`View::complete`], and the caller must not let cells be edited from
//! it.
//!
//! **Edits** ([`edit`]) replace, insert or delete one cell by splicing the notebook's text: a
//! replace rewrites only the values of the cell's `source` (and, for a code cell whose source
//! changes, `outputs` and `execution_count`), an insert adds one cell's text between two others,
//! a delete removes one cell's text and one separator. Everything else — the other cells, the
//! indentation and key order, the trailing newline — is left as it was, and new text is written
//! the way the notebook is written (its indent unit, its separators, sources as lists of lines or
//! as strings, non-ASCII characters raw or `\u`-escaped), which for a notebook saved by Jupyter
//! is exactly what Jupyter writes (`json.dumps(nb, indent=1, sort_keys=True,
//! ensure_ascii=False)`). The text is decoded and written back through [`crate::text::encoding`],
//! so the file's encoding, BOM and line endings are kept byte for byte. The result is checked
//! against nbformat's structural rules before anything is written.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::ops::Range;
use std::sync::LazyLock;

use serde_json::{Map, Value};

use crate::error::{ErrorKind, Result, ToolError};
use crate::text::encoding::{self, Decoded};

/// The characters of one cell's outputs the view shows; the rest is counted.
pub const MAX_OUTPUT_CHARS: usize = 10_000;

/// The characters of a whole view; a longer notebook is shown up to the cell that crosses it.
pub const MAX_VIEW_CHARS: usize = 100_000;

/// A cell's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellType {
    /// Code, with outputs and an execution count.
    Code,
    /// Markdown text.
    Markdown,
    /// Raw text, passed through by converters.
    Raw,
}

impl CellType {
    /// The type's name in a notebook: `code`, `markdown` or `raw`.
    pub fn name(self) -> &'static str {
        match self {
            CellType::Code => "code",
            CellType::Markdown => "markdown",
            CellType::Raw => "raw",
        }
    }

    /// The type named `name`.
    pub fn parse(name: &str) -> Option<CellType> {
        match name {
            "code" => Some(CellType::Code),
            "markdown" => Some(CellType::Markdown),
            "raw" => Some(CellType::Raw),
            _ => None,
        }
    }

    fn title(self) -> &'static str {
        match self {
            CellType::Code => "Code",
            CellType::Markdown => "Markdown",
            CellType::Raw => "Raw",
        }
    }
}

/// A parsed notebook: its decoded text, its JSON, and where each value lies in the text.
#[derive(Debug)]
pub struct Notebook {
    decoded: Decoded,
    value: Value,
    root: Node,
    style: Style,
}

impl Notebook {
    /// Parses a notebook file's bytes. Fails (with the reason) when they are not a JSON object
    /// holding a `cells` list, as every nbformat 4 notebook does.
    pub fn parse(bytes: &[u8]) -> std::result::Result<Notebook, String> {
        let decoded = encoding::decode(bytes, None);
        let value: Value = serde_json::from_str(&decoded.text)
            .map_err(|e| format!("it is not valid JSON ({e})"))?;
        if !value.get("cells").is_some_and(Value::is_array) {
            return Err(
                "it has no \"cells\" list (only nbformat 4 notebooks are supported)".to_string(),
            );
        }
        let root = Spans::parse(&decoded.text)
            .ok_or_else(|| "its JSON could not be laid out".to_string())?;
        let style = Style::detect(&decoded.text, &root);
        Ok(Notebook {
            decoded,
            value,
            root,
            style,
        })
    }

    /// The cells, in order.
    pub fn cells(&self) -> &[Value] {
        self.value
            .get("cells")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }

    /// The ID the view shows for each cell, in order.
    pub fn displayed_ids(&self) -> Vec<String> {
        self.cells()
            .iter()
            .enumerate()
            .map(|(i, c)| displayed_id(c, i))
            .collect()
    }

    /// The language of the notebook's code: `metadata.language_info.name`, else
    /// `metadata.kernelspec.language`, else `python`.
    pub fn language(&self) -> String {
        let metadata = self.value.get("metadata");
        metadata
            .and_then(|m| m.get("language_info"))
            .and_then(|l| l.get("name"))
            .or_else(|| {
                metadata
                    .and_then(|m| m.get("kernelspec"))
                    .and_then(|k| k.get("language"))
            })
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .unwrap_or("python")
            .to_string()
    }

    fn text(&self) -> &str {
        &self.decoded.text
    }

    fn cell_nodes(&self) -> &[Node] {
        match self.root.member("cells").map(|m| &m.value.kind) {
            Some(NodeKind::Array(items)) => items,
            _ => &[],
        }
    }

    /// `nbformat.nbformat_minor` as a pair (0 when absent).
    fn version(&self) -> (u64, u64) {
        let get = |k: &str| self.value.get(k).and_then(Value::as_u64).unwrap_or(0);
        (get("nbformat"), get("nbformat_minor"))
    }
}

/// The displayed ID of cell `index`: its `id` when it is a non-empty string, else `cell-N`.
fn displayed_id(cell: &Value, index: usize) -> String {
    match cell.get("id").and_then(Value::as_str) {
        Some(id) if !id.is_empty() => id.to_string(),
        _ => format!("cell-{index}"),
    }
}

fn has_real_id(cell: &Value) -> bool {
    cell.get("id")
        .and_then(Value::as_str)
        .is_some_and(|id| !id.is_empty())
}

fn cell_type(cell: &Value) -> Option<CellType> {
    cell.get("cell_type")
        .and_then(Value::as_str)
        .and_then(CellType::parse)
}

/// A `source` (or output `text`) as one string: a list of strings joined, or the string.
fn joined(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    }
}

// ---------------------------------------------------------------------------------------------
// The view

/// A notebook rendered for the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// The rendering.
    pub text: String,
    /// Whether every cell is shown (the view was not cut at [`MAX_VIEW_CHARS`]).
    pub complete: bool,
}

/// Renders `notebook` (see the module documentation for the shape).
pub fn view(notebook: &Notebook) -> View {
    let language = notebook.language();
    let cells = notebook.cells();
    let mut text = format!(
        "Jupyter Notebook ({language}, {} cell{})",
        cells.len(),
        if cells.len() == 1 { "" } else { "s" }
    );
    if cells.is_empty() {
        text.push_str("\n\n(empty notebook)");
        return View {
            text,
            complete: true,
        };
    }
    for (index, cell) in cells.iter().enumerate() {
        let rendered = render_cell(cell, index, &language);
        if text.len() + rendered.len() + 2 > MAX_VIEW_CHARS {
            let _ = write!(
                text,
                "\n\n... [{} of {} cells not shown: the notebook is too large to show whole. \
                 notebook_edit cannot edit its cells until it can be read whole; reduce its \
                 outputs or split it into smaller notebooks, then read it again.]",
                cells.len() - index,
                cells.len()
            );
            return View {
                text,
                complete: false,
            };
        }
        text.push_str("\n\n");
        text.push_str(&rendered);
    }
    View {
        text,
        complete: true,
    }
}

fn render_cell(cell: &Value, index: usize, language: &str) -> String {
    let id = displayed_id(cell, index);
    let source = joined(cell.get("source"));
    let kind = cell_type(cell);
    let title = kind.map_or("Unknown", CellType::title);
    let mut out = match (kind, cell.get("execution_count").and_then(Value::as_u64)) {
        (Some(CellType::Code), Some(n)) => format!("--- {title} Cell {id} [{n}] ---\n"),
        _ => format!("--- {title} Cell {id} ---\n"),
    };
    if kind == Some(CellType::Code) {
        out.push_str(&fenced(&source, language));
        let outputs = summarize_outputs(cell.get("outputs"));
        if !outputs.is_empty() {
            out.push_str("\nOutput:\n");
            out.push_str(&outputs);
        }
    } else {
        out.push_str(&source);
    }
    out
}

/// `source` in a Markdown code fence long enough not to be closed by backticks inside it.
pub fn fenced(source: &str, language: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in source.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest.max(2) + 1);
    let body = source.strip_suffix('\n').unwrap_or(source);
    format!("{fence}{language}\n{body}\n{fence}")
}

static ANSI: LazyLock<Option<regex::Regex>> =
    LazyLock::new(|| regex::Regex::new("\x1b\\[[0-9;?]*[ -/]*[@-~]").ok());

fn strip_ansi(text: &str) -> String {
    match ANSI.as_ref() {
        Some(re) => re.replace_all(text, "").into_owned(),
        None => text.to_string(),
    }
}

/// A code cell's outputs as text: streams and `text/plain` data as they are, other data by
/// MIME type, errors as `name: value` and their traceback; cut after [`MAX_OUTPUT_CHARS`].
fn summarize_outputs(outputs: Option<&Value>) -> String {
    let Some(Value::Array(outputs)) = outputs else {
        return String::new();
    };
    let mut parts = Vec::new();
    for output in outputs {
        let kind = output
            .get("output_type")
            .and_then(Value::as_str)
            .unwrap_or("unknown");
        let part = match kind {
            "stream" => joined(output.get("text")),
            "execute_result" | "display_data" => {
                let data = output.get("data").and_then(Value::as_object);
                match data.and_then(|d| d.get("text/plain")) {
                    Some(text) => joined(Some(text)),
                    None => {
                        let mimes: Vec<&str> = data
                            .map(|d| d.keys().map(String::as_str).collect())
                            .unwrap_or_default();
                        format!("[{kind}: {}]", mimes.join(", "))
                    }
                }
            }
            "error" => {
                let name = output
                    .get("ename")
                    .and_then(Value::as_str)
                    .unwrap_or("Error");
                let value = output.get("evalue").and_then(Value::as_str).unwrap_or("");
                let mut text = format!("{name}: {value}");
                if let Some(Value::Array(lines)) = output.get("traceback") {
                    for line in lines.iter().filter_map(Value::as_str) {
                        text.push('\n');
                        text.push_str(line);
                    }
                }
                strip_ansi(&text)
            }
            other => format!("[{other} output]"),
        };
        let part = part.strip_suffix('\n').unwrap_or(&part).to_string();
        if !part.is_empty() {
            parts.push(part);
        }
    }
    let all = parts.join("\n");
    let total = all.chars().count();
    match all.char_indices().nth(MAX_OUTPUT_CHARS) {
        Some((cut, _)) => format!(
            "{}\n... [output truncated, showing {MAX_OUTPUT_CHARS} of {total} characters]",
            &all[..cut]
        ),
        None => all,
    }
}

// ---------------------------------------------------------------------------------------------
// Edits

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
struct Splice {
    pieces: Vec<(Range<usize>, String)>,
    cell_id: String,
    cell_type: CellType,
    cleared_outputs: bool,
    ids_shifted: bool,
}

/// The index of the cell displayed as `id`; or, when no cell is displayed so, the cell at
/// position N of an ID `cell-N` (as Qwen Code accepts). Several cells displayed as `id` are
/// refused, never guessed between.
fn find_cell(notebook: &Notebook, id: &str) -> Result<usize> {
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

fn require_source<'a>(edit: &CellEdit<'a>) -> Result<&'a str> {
    edit.new_source.ok_or_else(|| {
        ToolError::invalid("new_source is required for replace and insert operations.")
    })
}

fn replace(notebook: &Notebook, edit: &CellEdit<'_>) -> Result<Option<Splice>> {
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

fn insert(notebook: &Notebook, edit: &CellEdit<'_>) -> Result<Option<Splice>> {
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

fn delete(notebook: &Notebook, edit: &CellEdit<'_>) -> Result<Option<Splice>> {
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

fn layout_error() -> ToolError {
    ToolError::invalid(
        "internal error: the notebook's JSON could not be laid out for editing; nothing was \
         written",
    )
}

/// `source` in the shape of `template`: a string when the template is a string, else a list of
/// lines as nbformat splits them (Python's `str.splitlines(keepends=True)`).
fn source_like(template: Option<&Value>, source: &str) -> Value {
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
fn split_lines_keepends(text: &str) -> Vec<&str> {
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

fn keys_sorted(cell: &Value) -> bool {
    cell.as_object()
        .is_some_and(|m| m.keys().zip(m.keys().skip(1)).all(|(a, b)| a <= b))
}

/// A fresh cell ID, as nbformat makes them (8 hexadecimal digits), unique in the notebook.
fn new_cell_id(cells: &[Value]) -> String {
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
fn check(original: &Value, new_text: &str) -> Result<()> {
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

// ---------------------------------------------------------------------------------------------
// Where values lie in the text

#[derive(Debug)]
struct Node {
    start: usize,
    end: usize,
    kind: NodeKind,
}

#[derive(Debug)]
enum NodeKind {
    Object(Vec<Member>),
    Array(Vec<Node>),
    Scalar,
}

#[derive(Debug)]
struct Member {
    key: String,
    key_start: usize,
    key_end: usize,
    value: Node,
}

impl Node {
    fn member(&self, key: &str) -> Option<&Member> {
        match &self.kind {
            NodeKind::Object(members) => members.iter().find(|m| m.key == key),
            _ => None,
        }
    }
}

/// A parser of JSON text (already known to be valid) that records where each value lies.
struct Spans<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Spans<'a> {
    fn parse(text: &'a str) -> Option<Node> {
        let mut parser = Spans {
            text,
            bytes: text.as_bytes(),
            pos: 0,
        };
        parser.value()
    }

    fn skip_ws(&mut self) {
        while matches!(self.bytes.get(self.pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        self.skip_ws();
        (self.bytes.get(self.pos) == Some(&byte)).then(|| self.pos += 1)
    }

    fn string(&mut self) -> Option<()> {
        self.pos += 1;
        loop {
            match self.bytes.get(self.pos)? {
                b'\\' => self.pos += 2,
                b'"' => {
                    self.pos += 1;
                    return Some(());
                }
                _ => self.pos += 1,
            }
        }
    }

    fn value(&mut self) -> Option<Node> {
        self.skip_ws();
        let start = self.pos;
        let kind = match *self.bytes.get(self.pos)? {
            b'{' => {
                self.pos += 1;
                let mut members = Vec::new();
                if self.eat(b'}').is_none() {
                    loop {
                        self.skip_ws();
                        let key_start = self.pos;
                        self.string()?;
                        let key_end = self.pos;
                        let key = serde_json::from_str(&self.text[key_start..key_end]).ok()?;
                        self.eat(b':')?;
                        let value = self.value()?;
                        members.push(Member {
                            key,
                            key_start,
                            key_end,
                            value,
                        });
                        if self.eat(b',').is_none() {
                            self.eat(b'}')?;
                            break;
                        }
                    }
                }
                NodeKind::Object(members)
            }
            b'[' => {
                self.pos += 1;
                let mut items = Vec::new();
                if self.eat(b']').is_none() {
                    loop {
                        items.push(self.value()?);
                        if self.eat(b',').is_none() {
                            self.eat(b']')?;
                            break;
                        }
                    }
                }
                NodeKind::Array(items)
            }
            b'"' => {
                self.string()?;
                NodeKind::Scalar
            }
            _ => {
                while !matches!(
                    self.bytes.get(self.pos),
                    None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
                ) {
                    self.pos += 1;
                }
                NodeKind::Scalar
            }
        };
        Some(Node {
            start,
            end: self.pos,
            kind,
        })
    }
}

/// The whitespace that starts the line holding byte `at` of `text`.
fn line_indent(text: &str, at: usize) -> &str {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let rest = &text[line_start..];
    let n = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    &rest[..n]
}

// ---------------------------------------------------------------------------------------------
// Writing JSON the way the notebook is written

/// How a notebook's JSON is laid out.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Style {
    /// The indent unit of a pretty-printed notebook (one space for Jupyter's); `None` for one
    /// written on one line.
    unit: Option<String>,
    /// Between a key and its value (`": "` for Jupyter's).
    key_separator: String,
    /// Between the items of a one-line notebook (`", "` or `","`).
    compact_separator: String,
    /// Non-ASCII characters are written as `\u` escapes.
    ascii: bool,
}

impl Style {
    fn detect(text: &str, root: &Node) -> Style {
        let mut style = Style {
            unit: Some(" ".to_string()),
            key_separator: ": ".to_string(),
            compact_separator: ", ".to_string(),
            ascii: text.is_ascii() && has_non_ascii_escape(text),
        };
        let NodeKind::Object(members) = &root.kind else {
            return style;
        };
        let Some(first) = members.first() else {
            return style;
        };
        let before = &text[root.start + 1..first.key_start];
        style.unit = before.rfind('\n').map(|i| before[i + 1..].to_string());
        style.key_separator = text[first.key_end..first.value.start].to_string();
        if let Some(second) = members.get(1) {
            style.compact_separator = text[first.value.end..second.key_start].to_string();
        }
        style
    }

    /// What goes between two items at `indent`.
    fn item_separator(&self, indent: &str) -> String {
        match &self.unit {
            Some(_) => format!(",\n{indent}"),
            None => self.compact_separator.clone(),
        }
    }

    /// Writes `value` whose first line is indented by `indent`, as Python's `json.dumps` with
    /// this style's indent and separators would.
    fn write(&self, value: &Value, indent: &str, out: &mut String) {
        match value {
            Value::Array(items) if !items.is_empty() => {
                let inner = self.inner(indent);
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    self.open_item(i, &inner, out);
                    self.write(item, &inner, out);
                }
                self.close(indent, out);
                out.push(']');
            }
            Value::Object(map) if !map.is_empty() => {
                let inner = self.inner(indent);
                out.push('{');
                for (i, (key, item)) in map.iter().enumerate() {
                    self.open_item(i, &inner, out);
                    write_string(key, self.ascii, out);
                    out.push_str(&self.key_separator);
                    self.write(item, &inner, out);
                }
                self.close(indent, out);
                out.push('}');
            }
            Value::Array(_) => out.push_str("[]"),
            Value::Object(_) => out.push_str("{}"),
            Value::String(s) => write_string(s, self.ascii, out),
            other => out.push_str(&other.to_string()),
        }
    }

    fn inner(&self, indent: &str) -> String {
        match &self.unit {
            Some(unit) => format!("{indent}{unit}"),
            None => String::new(),
        }
    }

    fn open_item(&self, i: usize, inner: &str, out: &mut String) {
        match &self.unit {
            Some(_) => {
                if i > 0 {
                    out.push(',');
                }
                out.push('\n');
                out.push_str(inner);
            }
            None if i > 0 => out.push_str(&self.compact_separator),
            None => {}
        }
    }

    fn close(&self, indent: &str, out: &mut String) {
        if self.unit.is_some() {
            out.push('\n');
            out.push_str(indent);
        }
    }
}

/// Whether `text` holds a `\u` escape of a non-ASCII character (a notebook written with
/// `ensure_ascii=True`).
fn has_non_ascii_escape(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i + 6 <= bytes.len() {
        if bytes[i] == b'\\' {
            if bytes[i + 1] == b'u'
                && let Ok(code) = u32::from_str_radix(&text[i + 2..i + 6], 16)
                && code >= 0x80
            {
                return true;
            }
            i += 2;
        } else {
            i += 1;
        }
    }
    false
}

/// A JSON string as Python's `json.dumps` writes it.
fn write_string(s: &str, ascii: bool, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if ascii && !(' '..='~').contains(&c) => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Jupyter's own serialisation: `json.dumps(nb, sort_keys=True, indent=1,
    /// ensure_ascii=False) + "\n"`, reproduced by this module's writer.
    fn jupyter(value: &Value) -> String {
        let style = Style {
            unit: Some(" ".into()),
            key_separator: ": ".into(),
            compact_separator: ", ".into(),
            ascii: false,
        };
        let mut out = String::new();
        style.write(value, "", &mut out);
        out.push('\n');
        out
    }

    fn sample() -> Value {
        json!({
            "cells": [
                {"cell_type": "markdown", "id": "intro", "metadata": {}, "source": ["# Title\n", "Some text"]},
                {"cell_type": "code", "execution_count": 3, "id": "load", "metadata": {"tags": []},
                 "outputs": [{"name": "stdout", "output_type": "stream", "text": ["hello\n"]}],
                 "source": ["x = 1\n", "print('héllo')"]},
                {"cell_type": "code", "execution_count": null, "id": "tail", "metadata": {}, "outputs": [], "source": []}
            ],
            "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                         "language_info": {"name": "python"}},
            "nbformat": 4,
            "nbformat_minor": 5
        })
    }

    fn apply(text: &str, edit_: CellEdit<'_>) -> (String, Edited) {
        let nb = Notebook::parse(text.as_bytes()).unwrap();
        let edited = edit(text.as_bytes(), &nb, &edit_).unwrap();
        (String::from_utf8(edited.bytes.clone()).unwrap(), edited)
    }

    fn replace_in(id: &str, source: &str) -> CellEdit<'static> {
        CellEdit {
            mode: EditMode::Replace,
            cell_id: Some(Box::leak(id.to_string().into_boxed_str())),
            new_source: Some(Box::leak(source.to_string().into_boxed_str())),
            cell_type: None,
        }
    }

    #[test]
    fn the_writer_matches_jupyter_indent_one() {
        let text = jupyter(&json!({"a": [1, {"b": "x\ny\u{1}"}], "c": {}, "d": []}));
        assert_eq!(
            text,
            "{\n \"a\": [\n  1,\n  {\n   \"b\": \"x\\ny\\u0001\"\n  }\n ],\n \"c\": {},\n \"d\": []\n}\n"
        );
    }

    #[test]
    fn replace_rewrites_only_the_cells_values_as_jupyter_would() {
        let original = jupyter(&sample());
        let (new, edited) = apply(&original, replace_in("load", "y = 2\nprint(y)\n"));
        let mut expected = sample();
        expected["cells"][1]["source"] = json!(["y = 2\n", "print(y)\n"]);
        expected["cells"][1]["outputs"] = json!([]);
        expected["cells"][1]["execution_count"] = Value::Null;
        assert_eq!(new, jupyter(&expected));
        assert!(edited.cleared_outputs && !edited.ids_shifted);
        assert_eq!(edited.cell_id, "load");
    }

    #[test]
    fn an_unchanged_source_changes_nothing() {
        let original = jupyter(&sample());
        let (new, edited) = apply(&original, replace_in("load", "x = 1\nprint('héllo')"));
        assert_eq!(new, original);
        assert!(!edited.changed);
    }

    #[test]
    fn insert_and_delete_splice_one_cell() {
        let original = jupyter(&sample());
        let (new, edited) = apply(
            &original,
            CellEdit {
                mode: EditMode::Insert,
                cell_id: Some("intro"),
                new_source: Some("## Findings\n\nDone."),
                cell_type: Some(CellType::Markdown),
            },
        );
        let value: Value = serde_json::from_str(&new).unwrap();
        let mut expected = sample();
        let new_cell = json!({"cell_type": "markdown", "id": edited.cell_id, "metadata": {},
                              "source": ["## Findings\n", "\n", "Done."]});
        expected["cells"]
            .as_array_mut()
            .unwrap()
            .insert(1, new_cell);
        assert_eq!(new, jupyter(&expected));
        assert!(nbformat_problems(&value).is_empty());

        let (back, _) = apply(
            &new,
            CellEdit {
                mode: EditMode::Delete,
                cell_id: Some(&edited.cell_id),
                new_source: None,
                cell_type: None,
            },
        );
        assert_eq!(back, original);
    }

    #[test]
    fn deleting_first_last_and_only_cells() {
        let original = jupyter(&sample());
        for (id, index) in [("intro", 0), ("tail", 2)] {
            let (new, _) = apply(
                &original,
                CellEdit {
                    mode: EditMode::Delete,
                    cell_id: Some(id),
                    new_source: None,
                    cell_type: None,
                },
            );
            let mut expected = sample();
            expected["cells"].as_array_mut().unwrap().remove(index);
            assert_eq!(new, jupyter(&expected));
        }
        let mut one = sample();
        one["cells"].as_array_mut().unwrap().truncate(1);
        let (new, _) = apply(
            &jupyter(&one),
            CellEdit {
                mode: EditMode::Delete,
                cell_id: Some("intro"),
                new_source: None,
                cell_type: None,
            },
        );
        one["cells"] = json!([]);
        assert_eq!(new, jupyter(&one));
        // And inserting into the empty notebook.
        let (new, edited) = apply(
            &new,
            CellEdit {
                mode: EditMode::Insert,
                cell_id: None,
                new_source: Some("1"),
                cell_type: None,
            },
        );
        one["cells"] = json!([{"cell_type": "code", "execution_count": null, "id": edited.cell_id,
                               "metadata": {}, "outputs": [], "source": ["1"]}]);
        assert_eq!(new, jupyter(&one));
    }

    #[test]
    fn changing_the_type_rewrites_the_cell_with_the_right_keys() {
        let original = jupyter(&sample());
        let (new, edited) = apply(
            &original,
            CellEdit {
                mode: EditMode::Replace,
                cell_id: Some("load"),
                new_source: Some("Now prose."),
                cell_type: Some(CellType::Markdown),
            },
        );
        let mut expected = sample();
        expected["cells"][1] = json!({"cell_type": "markdown", "id": "load", "metadata": {"tags": []}, "source": ["Now prose."]});
        assert_eq!(new, jupyter(&expected));
        assert_eq!(edited.cell_type, CellType::Markdown);
    }

    #[test]
    fn fallback_ids_shift_only_when_a_later_cell_lacks_an_id() {
        let mut v4 = sample();
        v4["nbformat_minor"] = json!(4);
        for cell in v4["cells"].as_array_mut().unwrap() {
            cell.as_object_mut().unwrap().remove("id");
        }
        let text = jupyter(&v4);
        let nb = Notebook::parse(text.as_bytes()).unwrap();
        assert_eq!(nb.displayed_ids(), ["cell-0", "cell-1", "cell-2"]);
        let (new, edited) = apply(
            &text,
            CellEdit {
                mode: EditMode::Insert,
                cell_id: Some("cell-0"),
                new_source: Some("z"),
                cell_type: None,
            },
        );
        assert!(edited.ids_shifted);
        assert_eq!(edited.cell_id, "cell-1");
        // No id is added below nbformat 4.5.
        assert!(!new.contains("\"id\""));
        let (_, edited) = apply(&text, replace_in("cell-2", "w"));
        assert!(!edited.ids_shifted);
        let (_, edited) = apply(
            &jupyter(&sample()),
            CellEdit {
                mode: EditMode::Delete,
                cell_id: Some("intro"),
                new_source: None,
                cell_type: None,
            },
        );
        assert!(!edited.ids_shifted);
    }

    #[test]
    fn ambiguous_ids_are_refused_and_positions_offered() {
        let mut dup = sample();
        dup["cells"][2]["id"] = json!("load");
        let text = jupyter(&dup);
        let nb = Notebook::parse(text.as_bytes()).unwrap();
        let err = edit(text.as_bytes(), &nb, &replace_in("load", "q")).unwrap_err();
        assert_eq!(err.kind, ErrorKind::NotUnique);
        assert!(err.message.contains("cell-1 or cell-2"), "{}", err.message);
        let (new, _) = apply(&text, replace_in("cell-2", "q"));
        assert!(new.contains("\"q\""));
        let err = edit(text.as_bytes(), &nb, &replace_in("nope", "q")).unwrap_err();
        assert_eq!(
            err.message,
            "Cell \"nope\" not found in notebook. Its cell IDs are: intro, load, load. Use an ID \
             shown by read_file."
        );
    }

    #[test]
    fn string_sources_compact_layout_and_ascii_escapes_are_kept() {
        let text = "{\"cells\": [{\"cell_type\": \"code\", \"execution_count\": 1, \"metadata\": {}, \"outputs\": [], \"source\": \"a = '\\u00e9'\"}], \"metadata\": {}, \"nbformat\": 4, \"nbformat_minor\": 2}";
        let (new, _) = apply(text, replace_in("cell-0", "b = 'ü'\nc"));
        assert_eq!(
            new,
            "{\"cells\": [{\"cell_type\": \"code\", \"execution_count\": null, \"metadata\": {}, \"outputs\": [], \"source\": \"b = '\\u00fc'\\nc\"}], \"metadata\": {}, \"nbformat\": 4, \"nbformat_minor\": 2}"
        );
    }

    #[test]
    fn crlf_and_bom_are_kept() {
        let lf = jupyter(&sample());
        let mut bytes = b"\xEF\xBB\xBF".to_vec();
        bytes.extend_from_slice(lf.replace('\n', "\r\n").as_bytes());
        let nb = Notebook::parse(&bytes).unwrap();
        let edited = edit(&bytes, &nb, &replace_in("tail", "t")).unwrap();
        let mut expected = sample();
        expected["cells"][2]["source"] = json!(["t"]);
        let mut want = b"\xEF\xBB\xBF".to_vec();
        want.extend_from_slice(jupyter(&expected).replace('\n', "\r\n").as_bytes());
        assert_eq!(edited.bytes, want);
    }

    #[test]
    fn the_view_shows_language_ids_types_sources_and_outputs() {
        let nb = Notebook::parse(jupyter(&sample()).as_bytes()).unwrap();
        let view = view(&nb);
        assert!(view.complete);
        assert_eq!(
            view.text,
            "Jupyter Notebook (python, 3 cells)\n\n--- Markdown Cell intro ---\n# Title\nSome \
             text\n\n--- Code Cell load [3] ---\n```python\nx = 1\nprint('héllo')\n```\nOutput:\
             \nhello\n\n--- Code Cell tail ---\n```python\n\n```"
        );
    }

    #[test]
    fn outputs_are_summarised() {
        let outputs = json!([
            {"output_type": "display_data", "data": {"image/png": "iVBOR", "text/html": "<b>"}, "metadata": {}},
            {"output_type": "execute_result", "data": {"text/plain": ["42"]}, "execution_count": 1, "metadata": {}},
            {"output_type": "error", "ename": "ValueError", "evalue": "bad", "traceback": ["\u{1b}[0;31mTraceback\u{1b}[0m", "line 1"]}
        ]);
        assert_eq!(
            summarize_outputs(Some(&outputs)),
            "[display_data: image/png, text/html]\n42\nValueError: bad\nTraceback\nline 1"
        );
        let long = json!([{"output_type": "stream", "name": "stdout", "text": "x".repeat(MAX_OUTPUT_CHARS + 5)}]);
        assert!(summarize_outputs(Some(&long)).ends_with(&format!(
            "... [output truncated, showing {MAX_OUTPUT_CHARS} of {} characters]",
            MAX_OUTPUT_CHARS + 5
        )));
    }

    #[test]
    fn a_view_too_large_is_cut_and_incomplete() {
        let mut big = sample();
        let source = "x".repeat(MAX_VIEW_CHARS / 2);
        for _ in 0..3 {
            big["cells"]
                .as_array_mut()
                .unwrap()
                .push(json!({"cell_type": "markdown", "metadata": {}, "source": source}));
        }
        let nb = Notebook::parse(jupyter(&big).as_bytes()).unwrap();
        let view = view(&nb);
        assert!(!view.complete);
        assert!(view.text.len() <= MAX_VIEW_CHARS + 300);
        assert!(
            view.text.contains("... [2 of 6 cells not shown"),
            "{}",
            &view.text[view.text.len() - 300..]
        );
    }

    #[test]
    fn splitlines_follows_python() {
        assert_eq!(
            split_lines_keepends("a\nb\r\nc\rd\u{2028}e"),
            ["a\n", "b\r\n", "c\r", "d\u{2028}", "e"]
        );
        assert!(split_lines_keepends("").is_empty());
        assert_eq!(split_lines_keepends("x\n"), ["x\n"]);
    }

    #[test]
    fn fences_outgrow_backticks_inside() {
        assert_eq!(fenced("a ``` b", "py"), "````py\na ``` b\n````");
    }

    #[test]
    fn nbformat_problems_catch_structural_breaks() {
        assert!(nbformat_problems(&sample()).is_empty());
        let mut bad = sample();
        bad["cells"][0]["outputs"] = json!([]);
        bad["cells"][1]
            .as_object_mut()
            .unwrap()
            .remove("execution_count");
        bad["cells"][2]["id"] = json!("intro");
        assert_eq!(nbformat_problems(&bad).len(), 3);
    }
}
