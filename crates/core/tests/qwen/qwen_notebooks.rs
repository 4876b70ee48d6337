//! Issue 4 items 2 and 6: read_file shows notebooks as structured cells; notebook_edit replaces,
//! inserts and deletes cells after a read in the same session, changing only the edited cell's
//! bytes of notebooks written by Jupyter (indent 1, nbformat 4.5 and 4.4) and by other tools
//! (CRLF with a UTF-8 BOM and indent 2; one line, ASCII-escaped). Replace results equal what
//! Jupyter's own writer produces for the same change (fixtures/qwen/generate.py), and every
//! result passes a structural check of nbformat's rules written here.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use crate::qwen_support;

use std::collections::HashSet;

use qwen_support::{Qx, fixture};
use serde_json::{Value, json};

const NEW_SOURCE: &str = "result = 40 + 2\nprint(result)";

/// nbformat 4's structural rules (its JSON schema's required keys, types and allowed cell keys,
/// and unique, well-formed cell IDs from 4.5), checked independently of the engine.
fn assert_valid_nbformat(bytes: &[u8]) {
    let text = std::str::from_utf8(bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)).unwrap();
    let nb: Value = serde_json::from_str(text).expect("the notebook is JSON");
    assert_eq!(nb["nbformat"], 4);
    let minor = nb["nbformat_minor"].as_u64().expect("nbformat_minor");
    assert!(nb["metadata"].is_object());
    let mut ids = HashSet::new();
    for (i, cell) in nb["cells"].as_array().expect("cells").iter().enumerate() {
        let cell = cell.as_object().expect("a cell is an object");
        let kind = cell["cell_type"].as_str().unwrap();
        let allowed: &[&str] = match kind {
            "code" => &[
                "id",
                "cell_type",
                "metadata",
                "source",
                "outputs",
                "execution_count",
            ],
            "markdown" | "raw" => &["id", "cell_type", "metadata", "source", "attachments"],
            other => panic!("cell {i}: cell_type {other}"),
        };
        for key in cell.keys() {
            assert!(
                allowed.contains(&key.as_str()),
                "cell {i}: key {key} not allowed in a {kind} cell"
            );
        }
        assert!(cell["metadata"].is_object(), "cell {i}: metadata");
        match &cell["source"] {
            Value::String(_) => {}
            Value::Array(parts) => assert!(parts.iter().all(Value::is_string), "cell {i}: source"),
            other => panic!("cell {i}: source {other}"),
        }
        if kind == "code" {
            assert!(cell["outputs"].is_array(), "cell {i}: outputs");
            let count = &cell["execution_count"];
            assert!(
                count.is_null() || count.is_u64(),
                "cell {i}: execution_count"
            );
        }
        match cell.get("id") {
            Some(Value::String(id)) => {
                assert!((1..=64).contains(&id.len()));
                assert!(
                    id.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
                );
                assert!(ids.insert(id.clone()), "cell {i}: duplicate id {id}");
            }
            Some(other) => panic!("cell {i}: id {other}"),
            None => assert!(minor < 5, "cell {i}: nbformat 4.{minor} needs ids"),
        }
    }
}

/// The bytes before the first difference and after the last one are unchanged; returns the
/// changed range of the original.
fn changed_range(before: &[u8], after: &[u8]) -> std::ops::Range<usize> {
    let prefix = before.iter().zip(after).take_while(|(a, b)| a == b).count();
    let suffix = before
        .iter()
        .rev()
        .zip(after.iter().rev())
        .take_while(|(a, b)| a == b)
        .count()
        .min(before.len().min(after.len()) - prefix);
    prefix..before.len() - suffix
}

/// Byte ranges of the cells of a Jupyter-formatted (indent 1) notebook: each cell opens with a
/// line `  {` and closes with a line `  }`.
fn jupyter_cell_spans(bytes: &[u8]) -> Vec<std::ops::Range<usize>> {
    let text = std::str::from_utf8(bytes).unwrap();
    let opens: Vec<usize> = text.match_indices("\n  {\n").map(|(i, _)| i + 1).collect();
    let closes: Vec<usize> = text.match_indices("\n  }").map(|(i, _)| i + 4).collect();
    opens.into_iter().zip(closes).map(|(a, b)| a..b).collect()
}

fn setup(name: &str) -> (Qx, String, Vec<u8>) {
    let fx = Qx::new();
    let bytes = fixture(&format!("notebook/{name}"));
    fx.write(name, &bytes);
    let path = fx.abs(name);
    (fx, path, bytes)
}

#[test]
fn replacing_a_cell_gives_exactly_what_jupyters_writer_gives() {
    for (name, id) in [
        ("jupyter.ipynb", "answer"),
        ("jupyter_v44.ipynb", "cell-2"),
        ("windows_crlf_bom.ipynb", "answer"),
        ("compact_ascii.ipynb", "answer"),
    ] {
        let (fx, path, _) = setup(name);
        fx.ok("read_file", json!({"path": path}));
        let out = fx.ok(
            "notebook_edit",
            json!({"notebook_path": path, "cell_id": id, "new_source": NEW_SOURCE}),
        );
        assert!(
            out.starts_with(&format!(
                "Updated code cell {id} in {path}. Its outputs and execution_count were cleared."
            )),
            "{out}"
        );
        let after = fx.read(name);
        assert_eq!(
            after,
            fixture(&format!("notebook/{name}.expected")),
            "{name}"
        );
        assert_valid_nbformat(&after);
    }
}

#[test]
fn a_one_cell_edit_changes_only_that_cells_bytes() {
    let (fx, path, before) = setup("jupyter.ipynb");
    let spans = jupyter_cell_spans(&before);
    assert_eq!(spans.len(), 5);
    fx.ok("read_file", json!({"path": path}));
    fx.ok(
        "notebook_edit",
        json!({"notebook_path": path, "cell_id": "findings", "new_source": "## Findings\n\nRevised.", "cell_type": "markdown"}),
    );
    let after = fx.read("jupyter.ipynb");
    let changed = changed_range(&before, &after);
    assert!(
        spans[3].start <= changed.start && changed.end <= spans[3].end,
        "{changed:?} outside {:?}",
        spans[3]
    );
    assert_valid_nbformat(&after);

    // Insert after a cell, at the start, and delete: each changes one cell's place.
    let before = after;
    fx.ok(
        "notebook_edit",
        json!({"notebook_path": path, "edit_mode": "insert", "cell_id": "intro", "cell_type": "markdown", "new_source": "Inserted."}),
    );
    let after = fx.read("jupyter.ipynb");
    let at = jupyter_cell_spans(&before)[0].end;
    assert!(after.starts_with(&before[..at]) && after.ends_with(&before[at..]));
    let inserted = std::str::from_utf8(&after[at..after.len() - (before.len() - at)]).unwrap();
    assert!(
        inserted.starts_with(",\n  {\n   \"cell_type\": \"markdown\",")
            && inserted.ends_with("\n  }"),
        "{inserted}"
    );
    assert_valid_nbformat(&after);
    let nb: Value = serde_json::from_slice(&after).unwrap();
    assert_eq!(nb["cells"][1]["source"], json!(["Inserted."]));
    assert_eq!(nb["cells"].as_array().unwrap().len(), 6);

    fx.ok(
        "notebook_edit",
        json!({"notebook_path": path, "edit_mode": "insert", "new_source": "import os"}),
    );
    let nb: Value = serde_json::from_slice(&fx.read("jupyter.ipynb")).unwrap();
    assert_eq!(nb["cells"][0]["cell_type"], "code");
    assert_eq!(nb["cells"][0]["outputs"], json!([]));
    assert_valid_nbformat(&fx.read("jupyter.ipynb"));

    let before = fx.read("jupyter.ipynb");
    let out = fx.ok(
        "notebook_edit",
        json!({"notebook_path": path, "edit_mode": "delete", "cell_id": "boom"}),
    );
    assert_eq!(out, format!("Deleted code cell boom from {path}."));
    let after = fx.read("jupyter.ipynb");
    let spans = jupyter_cell_spans(&before);
    let last = spans.last().unwrap();
    assert_eq!(
        &after[..],
        &[&before[..spans[spans.len() - 2].end], &before[last.end..]].concat()[..]
    );
    assert_valid_nbformat(&after);
}

#[test]
fn the_view_names_language_cells_ids_types_sources_and_outputs() {
    let (fx, path, _) = setup("jupyter.ipynb");
    let view = fx.ok("read_file", json!({"path": path}));
    assert_eq!(
        view,
        "Jupyter Notebook (python, 5 cells)\n\n\
         --- Markdown Cell intro ---\n# Analysis\n\nLoading the data. Café ☕\n\n\
         --- Code Cell load-data [1] ---\n```python\nimport math\nprint(math.pi)\n```\nOutput:\n3.141592653589793\n\n\
         --- Code Cell answer [2] ---\n```python\nresult = 41 + 1\nresult\n```\nOutput:\n42\n\n\
         --- Markdown Cell findings ---\n## Findings\n\nThe answer is 42.\n\n\
         --- Code Cell boom [3] ---\n```python\n1 / 0\n```\nOutput:\nZeroDivisionError: division by zero\nZeroDivisionError\ndivision by zero"
    );
    let (fx, path, _) = setup("jupyter_v44.ipynb");
    let view = fx.ok("read_file", json!({"path": path}));
    assert!(
        view.contains("--- Markdown Cell cell-0 ---")
            && view.contains("--- Code Cell cell-4 [3] ---"),
        "{view}"
    );
}

#[test]
fn offset_and_limit_are_refused_for_notebooks() {
    let (fx, path, _) = setup("jupyter.ipynb");
    let err = fx.err("read_file", json!({"path": path, "offset": 0, "limit": 10}));
    assert!(
        err.starts_with("offset and limit are not supported for Jupyter notebooks (.ipynb)"),
        "{err}"
    );
}

#[test]
fn an_edit_needs_a_read_in_this_session_of_the_current_bytes() {
    let (fx, path, before) = setup("jupyter.ipynb");
    let edit = json!({"notebook_path": path, "cell_id": "answer", "new_source": "x"});
    let err = fx.err("notebook_edit", edit.clone());
    assert_eq!(
        err,
        format!(
            "The notebook {path} has not been read in this session. Read it with read_file first, then edit its cells by the IDs read_file shows."
        )
    );
    // A read in another session does not count.
    let other = fx.reopen();
    assert!(
        !other
            .call("read_file", json!({"path": path}))
            .unwrap()
            .is_error
    );
    fx.err("notebook_edit", edit.clone());

    fx.ok("read_file", json!({"path": path}));
    fx.write("jupyter.ipynb", [&before[..], b" "].concat());
    let err = fx.err("notebook_edit", edit.clone());
    assert!(err.contains("has changed since it was last read"), "{err}");
    fx.ok("read_file", json!({"path": path}));
    fx.ok("notebook_edit", edit.clone());
    // The session's own edit keeps the read valid (real IDs do not shift).
    fx.ok(
        "notebook_edit",
        json!({"notebook_path": path, "cell_id": "answer", "new_source": "y"}),
    );
    fx.ok(
        "notebook_edit",
        json!({"notebook_path": path, "edit_mode": "insert", "new_source": "z"}),
    );
    fx.ok(
        "notebook_edit",
        json!({"notebook_path": path, "cell_id": "intro", "new_source": "w"}),
    );
}

#[test]
fn structural_edits_that_shift_fallback_ids_need_a_fresh_read() {
    let (fx, path, _) = setup("jupyter_v44.ipynb");
    fx.ok("read_file", json!({"path": path}));
    let out = fx.ok(
        "notebook_edit",
        json!({"notebook_path": path, "edit_mode": "insert", "cell_id": "cell-0", "cell_type": "markdown", "new_source": "New."}),
    );
    assert!(out.starts_with(&format!("Inserted new markdown cell cell-1 after cell cell-0 in {path}. The displayed cell-N IDs of the cells after it have changed, so read the notebook again with read_file before the next notebook_edit.")), "{out}");
    let err = fx.err(
        "notebook_edit",
        json!({"notebook_path": path, "cell_id": "cell-2", "new_source": "x"}),
    );
    assert!(err.contains("has not been read in this session"), "{err}");
    let view = fx.ok("read_file", json!({"path": path}));
    assert!(
        view.contains("--- Markdown Cell cell-1 ---\nNew."),
        "{view}"
    );
    // Replacing never shifts IDs.
    fx.ok(
        "notebook_edit",
        json!({"notebook_path": path, "cell_id": "cell-3", "new_source": "a"}),
    );
    fx.ok(
        "notebook_edit",
        json!({"notebook_path": path, "cell_id": "cell-3", "new_source": "b"}),
    );
    // Deleting the last cell shifts nothing either.
    fx.ok(
        "notebook_edit",
        json!({"notebook_path": path, "edit_mode": "delete", "cell_id": "cell-5"}),
    );
    fx.ok(
        "notebook_edit",
        json!({"notebook_path": path, "edit_mode": "delete", "cell_id": "cell-0"}),
    );
    fx.err(
        "notebook_edit",
        json!({"notebook_path": path, "cell_id": "cell-0", "new_source": "c"}),
    );
    assert_valid_nbformat(&fx.read("jupyter_v44.ipynb"));
}

#[test]
fn ambiguous_displayed_ids_are_refused() {
    let fx = Qx::new();
    let mut nb: Value = serde_json::from_slice(&fixture("notebook/jupyter.ipynb")).unwrap();
    nb["cells"][3]["id"] = json!("answer");
    fx.write("dup.ipynb", serde_json::to_vec_pretty(&nb).unwrap());
    let path = fx.abs("dup.ipynb");
    fx.ok("read_file", json!({"path": path}));
    let before = fx.read("dup.ipynb");
    let err = fx.err(
        "notebook_edit",
        json!({"notebook_path": path, "cell_id": "answer", "new_source": "x"}),
    );
    assert_eq!(
        err,
        "Error applying notebook edit: Cell ID \"answer\" is ambiguous: 2 cells (at positions 2, 3) are displayed with it, so the edit was not applied; address one of them by its position instead: cell-2 or cell-3."
    );
    assert_eq!(fx.read("dup.ipynb"), before);
    let err = fx.err(
        "notebook_edit",
        json!({"notebook_path": path, "cell_id": "nope", "new_source": "x"}),
    );
    assert!(err.contains("Cell \"nope\" not found in notebook. Its cell IDs are: intro, load-data, answer, answer, boom."), "{err}");
}

#[test]
fn a_truncated_view_refuses_cell_edits() {
    let fx = Qx::new();
    let mut nb: Value = serde_json::from_slice(&fixture("notebook/jupyter.ipynb")).unwrap();
    for i in 0..4 {
        nb["cells"].as_array_mut().unwrap().push(json!({
            "cell_type": "markdown", "id": format!("big-{i}"), "metadata": {},
            "source": "x".repeat(40_000)
        }));
    }
    fx.write("big.ipynb", serde_json::to_vec_pretty(&nb).unwrap());
    let path = fx.abs("big.ipynb");
    let view = fx.ok("read_file", json!({"path": path}));
    assert!(
        view.contains("cells not shown: the notebook is too large to show whole"),
        "{}",
        &view[view.len() - 400..]
    );
    let err = fx.err(
        "notebook_edit",
        json!({"notebook_path": path, "cell_id": "intro", "new_source": "x"}),
    );
    assert!(
        err.starts_with(&format!(
            "Cell edits of {path} are refused: the notebook is too large to show whole"
        )),
        "{err}"
    );
}

#[test]
fn write_file_and_edit_refuse_notebooks_and_point_to_notebook_edit() {
    let (fx, path, before) = setup("jupyter.ipynb");
    let err = fx.err("write_file", json!({"file_path": path, "content": "{}"}));
    assert!(
        err.starts_with(&format!(
            "write_file does not write Jupyter notebooks: {path} is a notebook (.ipynb)"
        )) && err.contains("Use notebook_edit"),
        "{err}"
    );
    let err = fx.err(
        "edit",
        json!({"file_path": path, "old_string": "intro", "new_string": "x"}),
    );
    assert!(
        err.starts_with(&format!("edit does not edit Jupyter notebooks: {path}"))
            && err.contains("Use notebook_edit"),
        "{err}"
    );
    assert_eq!(fx.read("jupyter.ipynb"), before);
}

#[test]
fn argument_errors_use_qwen_codes_words() {
    let (fx, path, _) = setup("jupyter.ipynb");
    fx.ok("read_file", json!({"path": path}));
    assert_eq!(
        fx.err(
            "notebook_edit",
            json!({"notebook_path": path, "new_source": "x"})
        ),
        "cell_id is required for replace and delete operations."
    );
    assert_eq!(
        fx.err(
            "notebook_edit",
            json!({"notebook_path": path, "cell_id": "intro"})
        ),
        "new_source is required for replace and insert operations."
    );
    assert_eq!(
        fx.err("notebook_edit", json!({"notebook_path": path, "cell_id": "intro", "new_source": "x", "edit_mode": "move"})),
        "edit_mode must be 'replace', 'insert', or 'delete'."
    );
    assert_eq!(
        fx.err(
            "notebook_edit",
            json!({"notebook_path": fx.abs("a.py"), "cell_id": "intro", "new_source": "x"})
        ),
        "File must be a Jupyter notebook (.ipynb). Use the edit tool for other file types."
    );
    assert_eq!(
        fx.err(
            "notebook_edit",
            json!({"notebook_path": fx.abs("none.ipynb"), "cell_id": "a", "new_source": "x"})
        ),
        format!("Notebook file not found: {}", fx.abs("none.ipynb"))
    );
    let out = fx.ok("notebook_edit", json!({"notebook_path": path, "cell_id": "intro", "new_source": "# Analysis\n\nLoading the data. Café ☕"}));
    assert_eq!(
        out,
        format!("Cell intro in {path} already has this source and type; nothing was changed.")
    );
}

#[test]
fn a_replace_reports_the_updated_source() {
    let (fx, path, _) = setup("jupyter.ipynb");
    fx.ok("read_file", json!({"path": path}));
    let out = fx.ok(
        "notebook_edit",
        json!({"notebook_path": path, "cell_id": "answer", "new_source": NEW_SOURCE}),
    );
    assert_eq!(
        out,
        format!(
            "Updated code cell answer in {path}. Its outputs and execution_count were cleared.\n\nUpdated source:\n```python\n{NEW_SOURCE}\n```"
        )
    );
}
