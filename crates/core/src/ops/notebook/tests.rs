//! The notebook engine's unit tests: the view, cell edits, and the JSON writer.

use super::editing::split_lines_keepends;
use super::viewing::summarize_outputs;
use super::*;
use crate::error::ErrorKind;
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
