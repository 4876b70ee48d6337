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
//!
//! One concept a file: the parsed notebook here, the view in `viewing`, the edits in `editing`,
//! where values lie in the text in `spans`, and the format-preserving JSON writer in `writer`.

use serde_json::Value;

use crate::text::encoding::{self, Decoded};

mod editing;
mod spans;
#[cfg(test)]
mod tests;
mod viewing;
mod writer;

pub use editing::{CellEdit, EditMode, Edited, edit, nbformat_problems};
use spans::{Node, NodeKind, Spans};
pub use viewing::{View, fenced, view};
use writer::Style;

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
