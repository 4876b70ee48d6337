//! The view: a notebook rendered for the model, cell by cell, its outputs summarised and cut.

use std::fmt::Write as _;
use std::sync::LazyLock;

use serde_json::Value;

use super::{
    CellType, MAX_OUTPUT_CHARS, MAX_VIEW_CHARS, Notebook, cell_type, displayed_id, joined,
};

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

pub(super) fn render_cell(cell: &Value, index: usize, language: &str) -> String {
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

pub(super) fn strip_ansi(text: &str) -> String {
    match ANSI.as_ref() {
        Some(re) => re.replace_all(text, "").into_owned(),
        None => text.to_string(),
    }
}

/// A code cell's outputs as text: streams and `text/plain` data as they are, other data by
/// MIME type, errors as `name: value` and their traceback; cut after [`MAX_OUTPUT_CHARS`].
pub(super) fn summarize_outputs(outputs: Option<&Value>) -> String {
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
