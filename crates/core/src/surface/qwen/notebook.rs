//! notebook_edit, and the session's memory of notebook reads it depends on: an edit needs a
//! read of that notebook in this session, of the bytes still on disk, that showed every cell.
//! An edit that shifts displayed `cell-N` IDs forgets the read, so the next edit needs a fresh
//! one; any other edit moves the read on to the new bytes (the model knows what it changed).

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::Path;

use serde_json::Value;

use super::args::Args;
use super::{Outcome, Qwen, engine_error, is_notebook, resolve};
use crate::access::{Access, WriteOptions};
use crate::ops::notebook::{self, CellEdit, CellType, EditMode, Notebook};
use crate::surface::ToolOutput;

/// What the session remembers of a notebook read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ReadState {
    /// A hash of the bytes read.
    hash: u64,
    /// Whether the view showed every cell.
    complete: bool,
}

fn hash(bytes: &[u8]) -> u64 {
    let mut hasher = DefaultHasher::new();
    bytes.hash(&mut hasher);
    hasher.finish()
}

/// Records that the notebook at canonical `path`, holding `bytes`, was read.
pub(super) fn remember(qwen: &Qwen, path: &Path, bytes: &[u8], complete: bool) {
    if let Ok(mut reads) = qwen.reads.lock() {
        reads.insert(
            path.to_path_buf(),
            ReadState {
                hash: hash(bytes),
                complete,
            },
        );
    }
}

fn forget(qwen: &Qwen, path: &Path) {
    if let Ok(mut reads) = qwen.reads.lock() {
        reads.remove(path);
    }
}

fn recalled(qwen: &Qwen, path: &Path) -> Option<ReadState> {
    qwen.reads.lock().ok()?.get(path).copied()
}

pub(super) fn notebook_edit(qwen: &Qwen, access: &Access, args: Value) -> Outcome {
    let args = Args::parse(
        "notebook_edit",
        args,
        &[
            "notebook_path",
            "cell_id",
            "new_source",
            "cell_type",
            "edit_mode",
        ],
    )?;
    let raw = args.str("notebook_path")?;
    if raw.trim().is_empty() {
        return Err("The 'notebook_path' parameter must be non-empty.".to_string());
    }
    if !is_notebook(raw) {
        return Err(
            "File must be a Jupyter notebook (.ipynb). Use the edit tool for other file types."
                .to_string(),
        );
    }
    let mode = match args.opt_str("edit_mode")? {
        None => EditMode::Replace,
        Some(m) => EditMode::parse(m)
            .ok_or_else(|| "edit_mode must be 'replace', 'insert', or 'delete'.".to_string())?,
    };
    let cell_type = match args.opt_str("cell_type")? {
        None => None,
        Some(t @ ("code" | "markdown")) => CellType::parse(t),
        Some(_) => return Err("cell_type must be 'code' or 'markdown'.".to_string()),
    };
    let cell_id = args.opt_str("cell_id")?.filter(|id| !id.is_empty());
    let new_source = args.opt_str("new_source")?;
    if mode != EditMode::Insert && cell_id.is_none() {
        return Err("cell_id is required for replace and delete operations.".to_string());
    }
    if mode != EditMode::Delete && new_source.is_none() {
        return Err("new_source is required for replace and insert operations.".to_string());
    }

    let target = resolve(access, raw, "File path")?;
    if qwen.qwen_ignored(access, &target.path, false) {
        return Err(format!(
            "File path '{raw}' is ignored by .qwenignore pattern(s)."
        ));
    }
    let original = match access.read_all(&target) {
        Ok((bytes, _)) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!("Notebook file not found: {raw}"));
        }
        Err(e) => return Err(format!("Error reading notebook: {e}")),
    };
    match recalled(qwen, &target.path) {
        None => {
            return Err(format!(
                "The notebook {raw} has not been read in this session. Read it with read_file \
                 first, then edit its cells by the IDs read_file shows."
            ));
        }
        Some(state) if state.hash != hash(&original) => {
            return Err(format!(
                "The notebook {raw} has changed since it was last read. Read it again with \
                 read_file before editing its cells."
            ));
        }
        Some(state) if !state.complete => {
            return Err(format!(
                "Cell edits of {raw} are refused: the notebook is too large to show whole, so \
                 its last read_file view was truncated and not every cell was seen. Reduce its \
                 outputs or split it into smaller notebooks, then read it again with read_file."
            ));
        }
        Some(_) => {}
    }
    let nb = Notebook::parse(&original).map_err(|why| format!("Cannot edit {raw}: {why}."))?;
    let language = nb.language();
    let request = CellEdit {
        mode,
        cell_id,
        new_source,
        cell_type,
    };
    let edited = notebook::edit(&original, &nb, &request).map_err(|e| {
        format!(
            "Error applying notebook edit: {}",
            engine_error(access, &e, "File path")
        )
    })?;
    let id = &edited.cell_id;
    if !edited.changed {
        return Ok(ToolOutput::text(format!(
            "Cell {id} in {raw} already has this source and type; nothing was changed."
        )));
    }
    access
        .write_atomic(
            &target,
            &edited.bytes,
            WriteOptions {
                create_parents: false,
                expect: Some(&original),
                ..WriteOptions::default()
            },
        )
        .map_err(|e| format!("Error writing notebook: {e}"))?;
    if edited.ids_shifted {
        forget(qwen, &target.path);
    } else {
        remember(qwen, &target.path, &edited.bytes, true);
    }
    let shifted = if edited.ids_shifted {
        " The displayed cell-N IDs of the cells after it have changed, so read the notebook \
         again with read_file before the next notebook_edit."
    } else {
        ""
    };
    let kind = edited.cell_type.name();
    let source = new_source.unwrap_or_default();
    let fence_language = match edited.cell_type {
        CellType::Code => language.as_str(),
        CellType::Markdown => "markdown",
        CellType::Raw => "",
    };
    let shown = notebook::fenced(source, fence_language);
    let text = match mode {
        EditMode::Replace => {
            let cleared = if edited.cleared_outputs {
                " Its outputs and execution_count were cleared."
            } else {
                ""
            };
            format!("Updated {kind} cell {id} in {raw}.{cleared}\n\nUpdated source:\n{shown}")
        }
        EditMode::Insert => {
            let place = match cell_id {
                Some(after) => format!("after cell {after} in {raw}"),
                None => format!("at the start of {raw}"),
            };
            format!("Inserted new {kind} cell {id} {place}.{shifted}\n\nSource:\n{shown}")
        }
        EditMode::Delete => format!("Deleted {kind} cell {id} from {raw}.{shifted}"),
    };
    Ok(ToolOutput::text(text))
}
