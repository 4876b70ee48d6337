//! The stale-write rule (issue 17, items 1 and 2): a person (or another session) changes a file
//! between the model's read and its write, and the write that would discard the change is
//! refused in every profile, naming what changed and the next call; a file the session never
//! read is written as each profile's document says; the session's own consecutive edits are
//! never refused. Coder's line ops are checked the same way and take `expect_text`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use fsgate_core::config::coder::CoderConfig;
use fsgate_core::{Options, Profile, ToolOutput, Workspace};
use serde_json::{Value, json};
use tempfile::TempDir;

/// A workspace of `profile` over a fresh folder: one MCP session.
struct Ws {
    dir: TempDir,
    ws: Workspace,
}

fn options(profile: Profile, dir: &std::path::Path) -> Options {
    let mut options = Options::new(dir);
    options.profile = profile.into();
    if profile == Profile::Coder {
        options.profile = CoderConfig {
            base_paths: vec![dir.to_path_buf()],
            ..CoderConfig::default()
        }
        .into();
    }
    options
}

fn open(profile: Profile) -> Ws {
    let dir = tempfile::tempdir().unwrap();
    let ws = Workspace::open(options(profile, dir.path())).unwrap();
    Ws { dir, ws }
}

impl Ws {
    /// Another session on the same folder (as a second MCP session would have).
    fn other_session(&self, profile: Profile) -> Workspace {
        Workspace::open(options(profile, self.dir.path())).unwrap()
    }

    fn path(&self, rel: &str) -> std::path::PathBuf {
        self.dir.path().join(rel)
    }

    /// A person writes the file in place, as an editor does.
    fn person_writes(&self, rel: &str, text: &str) {
        std::fs::write(self.path(rel), text).unwrap();
    }

    fn get(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap()
    }

    fn call(&self, tool: &str, args: Value) -> ToolOutput {
        self.ws.call(tool, args).unwrap()
    }

    fn ok(&self, tool: &str, args: Value) -> String {
        let out = self.call(tool, args.clone());
        assert!(
            !out.is_error,
            "{tool} {args} failed: {}",
            out.text_content()
        );
        out.text_content()
    }

    fn err(&self, tool: &str, args: Value) -> String {
        let out = self.call(tool, args.clone());
        assert!(
            out.is_error,
            "{tool} {args} succeeded: {}",
            out.text_content()
        );
        out.text_content()
    }
}

/// Twenty lines of code; line 13 is the `if` the example replaced.
fn program() -> String {
    let mut lines: Vec<String> = (1..=20).map(|i| format!("  step({i});")).collect();
    lines[12] = "  if (ready) {".to_string();
    lines.join("\n") + "\n"
}

fn with_header(text: &str) -> String {
    format!("// header\n{text}")
}

// ---------------------------------------------------------------------------------------------
// gg

#[test]
fn gg_write_file_over_a_change_made_since_the_read_is_refused_with_a_diff() {
    let ws = open(Profile::Gg);
    ws.person_writes("app.js", &program());
    ws.ok("read_file", json!({"path": "app.js"}));
    let changed = program().replace("  step(5);", "  step(5); // the person's fix");
    ws.person_writes("app.js", &changed);
    let text = ws.err(
        "write_file",
        json!({"path": "app.js", "content": program().replace("step(1)", "start()")}),
    );
    assert!(
        text.starts_with(
            "conflict: app.js changed on disk since this session last read or wrote it"
        ),
        "{text}"
    );
    assert!(text.contains("nothing was written"), "{text}");
    assert!(
        text.contains("-  step(5);\n+  step(5); // the person's fix"),
        "{text}"
    );
    assert!(text.contains("Read it again with read_file"), "{text}");
    assert_eq!(ws.get("app.js"), changed, "the person's change was kept");
    // Following the text: read again, then the write goes through.
    ws.ok("read_file", json!({"path": "app.js"}));
    ws.ok("write_file", json!({"path": "app.js", "content": "new\n"}));
    assert_eq!(ws.get("app.js"), "new\n");
}

#[test]
fn gg_write_file_of_a_file_this_session_never_read_replaces_it() {
    let ws = open(Profile::Gg);
    ws.person_writes("app.js", &program());
    ws.ok("write_file", json!({"path": "app.js", "content": "mine\n"}));
    assert_eq!(ws.get("app.js"), "mine\n");
}

#[test]
fn the_sessions_own_consecutive_edits_and_writes_are_never_refused() {
    own_edits_and_writes_pass(open(Profile::Gg));
}

#[test]
fn the_sessions_own_consecutive_edits_and_writes_are_never_refused_in_a_jail() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = options(Profile::Gg, dir.path());
    options.jail = true;
    let ws = Workspace::open(options).unwrap();
    own_edits_and_writes_pass(Ws { dir, ws });
}

fn own_edits_and_writes_pass(ws: Ws) {
    ws.person_writes("app.js", &program());
    ws.ok("read_file", json!({"path": "app.js"}));
    ws.ok(
        "edit_file",
        json!({"path": "app.js", "old_string": "step(1)", "new_string": "one()"}),
    );
    ws.ok(
        "edit_file",
        json!({"path": "app.js", "old_string": "step(2)", "new_string": "two()"}),
    );
    ws.ok("write_file", json!({"path": "app.js", "content": "a\nb\n"}));
    ws.ok(
        "edit_file",
        json!({"path": "app.js", "old_string": "a\n", "new_string": "A\n"}),
    );
    ws.ok("write_file", json!({"path": "app.js", "content": "c\n"}));
    ws.ok("write_file", json!({"path": "app.js", "content": "d\n"}));
    assert_eq!(ws.get("app.js"), "d\n");
}

#[test]
fn an_edit_that_merged_a_change_the_session_never_saw_still_refuses_the_next_whole_write() {
    let ws = open(Profile::Gg);
    ws.person_writes("app.js", &program());
    ws.ok("read_file", json!({"path": "app.js"}));
    ws.person_writes("app.js", &program().replace("step(9)", "nine()"));
    // The edit finds its text wherever it is now, so it merges the person's change...
    ws.ok(
        "edit_file",
        json!({"path": "app.js", "old_string": "step(1)", "new_string": "one()"}),
    );
    // ...which the model has not seen: its whole-file write would discard it.
    let text = ws.err(
        "write_file",
        json!({"path": "app.js", "content": program()}),
    );
    assert!(text.contains("+  nine();"), "{text}");
    assert!(ws.get("app.js").contains("nine()"));
}

#[test]
fn a_file_deleted_since_the_read_is_not_written_again_until_asked_twice() {
    let ws = open(Profile::Gg);
    ws.person_writes("notes.txt", "keep\n");
    ws.ok("read_file", json!({"path": "notes.txt"}));
    std::fs::remove_file(ws.path("notes.txt")).unwrap();
    let text = ws.err(
        "write_file",
        json!({"path": "notes.txt", "content": "again\n"}),
    );
    assert!(
        text.starts_with("conflict: notes.txt was deleted"),
        "{text}"
    );
    assert!(text.contains("call write_file once more"), "{text}");
    assert!(!ws.path("notes.txt").exists());
    ws.ok(
        "write_file",
        json!({"path": "notes.txt", "content": "again\n"}),
    );
    assert_eq!(ws.get("notes.txt"), "again\n");
}

#[test]
fn line_endings_changed_by_a_person_are_a_change_and_are_named_as_such() {
    let ws = open(Profile::Gg);
    ws.person_writes("a.txt", "one\ntwo\n");
    ws.ok("read_file", json!({"path": "a.txt"}));
    ws.person_writes("a.txt", "one\r\ntwo\r\n");
    let text = ws.err("write_file", json!({"path": "a.txt", "content": "three\n"}));
    assert!(text.contains("Only its line endings changed"), "{text}");
    assert!(text.contains("LF then, CRLF now"), "{text}");
    assert_eq!(ws.get("a.txt"), "one\r\ntwo\r\n");
}

#[test]
fn a_file_rewritten_with_the_same_content_is_unchanged() {
    let ws = open(Profile::Gg);
    ws.person_writes("a.txt", "same\n");
    ws.ok("read_file", json!({"path": "a.txt"}));
    std::thread::sleep(std::time::Duration::from_millis(20));
    ws.person_writes("a.txt", "same\n");
    ws.ok("write_file", json!({"path": "a.txt", "content": "mine\n"}));
    assert_eq!(ws.get("a.txt"), "mine\n");
}

#[test]
fn a_change_of_the_same_length_is_found_by_content() {
    let ws = open(Profile::Gg);
    ws.person_writes("a.txt", "value = 1\n");
    ws.ok("read_file", json!({"path": "a.txt"}));
    ws.person_writes("a.txt", "value = 2\n");
    let text = ws.err("write_file", json!({"path": "a.txt", "content": "x\n"}));
    assert!(text.contains("(10 bytes then, 10 bytes now)"), "{text}");
    assert!(text.contains("-value = 1\n+value = 2"), "{text}");
}

#[test]
fn a_name_turned_into_a_link_since_the_read_is_refused_and_the_link_target_kept() {
    let ws = open(Profile::Gg);
    ws.person_writes("a.txt", "mine\n");
    ws.person_writes("b.txt", "theirs\n");
    ws.ok("read_file", json!({"path": "a.txt"}));
    std::fs::remove_file(ws.path("a.txt")).unwrap();
    std::os::unix::fs::symlink("b.txt", ws.path("a.txt")).unwrap();
    let text = ws.err("write_file", json!({"path": "a.txt", "content": "new\n"}));
    assert!(text.starts_with("conflict: a.txt now leads to"), "{text}");
    assert!(text.contains("b.txt"), "{text}");
    assert_eq!(ws.get("b.txt"), "theirs\n");
    // A fresh read through the link shows b.txt's content; the write then goes through it.
    ws.ok("read_file", json!({"path": "a.txt"}));
    ws.ok("write_file", json!({"path": "a.txt", "content": "new\n"}));
    assert_eq!(ws.get("b.txt"), "new\n");
    assert!(ws.path("a.txt").is_symlink());
}

#[test]
fn reads_through_a_link_and_writes_to_its_target_are_one_file() {
    let ws = open(Profile::Gg);
    ws.person_writes("real.txt", "one\n");
    std::os::unix::fs::symlink("real.txt", ws.path("link.txt")).unwrap();
    ws.ok("read_file", json!({"path": "link.txt"}));
    ws.person_writes("real.txt", "two\n");
    ws.err(
        "write_file",
        json!({"path": "real.txt", "content": "three\n"}),
    );
    assert_eq!(ws.get("real.txt"), "two\n");
}

#[test]
fn sessions_are_isolated_what_one_read_does_not_count_for_another() {
    let ws = open(Profile::Gg);
    ws.person_writes("a.txt", "first\n");
    ws.ok("read_file", json!({"path": "a.txt"}));
    // Another session never read it: its write goes as gg's document says.
    let other = ws.other_session(Profile::Gg);
    let out = other
        .call(
            "write_file",
            json!({"path": "a.txt", "content": "second\n"}),
        )
        .unwrap();
    assert!(!out.is_error, "{}", out.text_content());
    // The first session read "first\n": its write would discard the other's.
    let text = ws.err("write_file", json!({"path": "a.txt", "content": "third\n"}));
    assert!(text.contains("+second"), "{text}");
    assert_eq!(ws.get("a.txt"), "second\n");
}

#[test]
fn a_windowed_read_counts_as_a_read_of_the_whole_file() {
    let ws = open(Profile::Gg);
    ws.person_writes("app.js", &program());
    ws.ok(
        "read_file",
        json!({"path": "app.js", "offset": 1, "limit": 2}),
    );
    ws.person_writes("app.js", &program().replace("step(20)", "done()"));
    let text = ws.err("write_file", json!({"path": "app.js", "content": "x\n"}));
    assert!(text.contains("+  done();"), "{text}");
}

// ---------------------------------------------------------------------------------------------
// qwen

#[test]
fn qwen_write_file_over_a_change_made_since_the_read_is_refused_in_qwens_words() {
    let ws = open(Profile::Qwen);
    ws.person_writes("app.js", &program());
    ws.ok("read_file", json!({"path": "app.js"}));
    ws.person_writes("app.js", &with_header(&program()));
    let text = ws.err(
        "write_file",
        json!({"file_path": "app.js", "content": "x\n"}),
    );
    assert!(
        text.starts_with("Failed to write file: app.js changed on disk"),
        "{text}"
    );
    assert!(text.contains("+// header"), "{text}");
    assert!(
        text.contains("Use read_file to see what it holds now"),
        "{text}"
    );
    assert_eq!(ws.get("app.js"), with_header(&program()));
    // Its own edit and write after a fresh read go through.
    ws.ok("read_file", json!({"path": "app.js"}));
    ws.ok(
        "edit",
        json!({"file_path": "app.js", "old_string": "// header", "new_string": "// top"}),
    );
    ws.ok(
        "write_file",
        json!({"file_path": "app.js", "content": "y\n"}),
    );
    assert_eq!(ws.get("app.js"), "y\n");
}

#[test]
fn qwen_write_file_of_a_file_never_read_overwrites_it() {
    let ws = open(Profile::Qwen);
    ws.person_writes("a.txt", "theirs\n");
    ws.ok(
        "write_file",
        json!({"file_path": "a.txt", "content": "mine\n"}),
    );
    assert_eq!(ws.get("a.txt"), "mine\n");
}

// ---------------------------------------------------------------------------------------------
// picoclaw

#[test]
fn picoclaw_overwrite_of_a_changed_file_is_refused_with_a_structured_payload() {
    let ws = open(Profile::Picoclaw);
    ws.person_writes("app.py", "a = 1\nb = 2\n");
    ws.ok("read_file", json!({"path": "app.py"}));
    ws.person_writes("app.py", "a = 1\nb = 3\n");
    let out = ws.call(
        "write_file",
        json!({"path": "app.py", "content": "c = 4\n", "overwrite": true}),
    );
    assert!(out.is_error);
    let payload = out.structured.clone().unwrap();
    assert_eq!(payload["error"], "file_changed");
    assert_eq!(payload["recommended_action"], "read_file");
    assert_eq!(payload["read_bytes"], 12);
    assert_eq!(payload["existing_bytes"], 12);
    assert!(
        payload["changes"]
            .as_str()
            .unwrap()
            .contains("-b = 2\n+b = 3"),
        "{payload}"
    );
    let text = out.text_content();
    assert!(text.contains("write_file did not overwrite it"), "{text}");
    assert!(text.contains("\nstructured: {"), "{text}");
    assert_eq!(ws.get("app.py"), "a = 1\nb = 3\n");
    // Without overwrite the document's file_exists refusal is unchanged.
    let out = ws.call(
        "write_file",
        json!({"path": "app.py", "content": "c = 4\n"}),
    );
    assert_eq!(out.structured.unwrap()["error"], "file_exists");
    // Following the recommended action: read it, then the overwrite goes through.
    ws.ok("read_file", json!({"path": "app.py"}));
    ws.ok(
        "write_file",
        json!({"path": "app.py", "content": "c = 4\n", "overwrite": true}),
    );
    assert_eq!(ws.get("app.py"), "c = 4\n");
}

#[test]
fn picoclaw_own_edits_and_appends_then_an_overwrite_go_through() {
    let ws = open(Profile::Picoclaw);
    ws.person_writes("notes.md", "one\n");
    ws.ok("read_file", json!({"path": "notes.md"}));
    ws.ok(
        "edit_file",
        json!({"path": "notes.md", "old_text": "one", "new_text": "uno"}),
    );
    ws.ok(
        "append_file",
        json!({"path": "notes.md", "content": "dos\n"}),
    );
    ws.ok(
        "write_file",
        json!({"path": "notes.md", "content": "tres\n", "overwrite": true}),
    );
    assert_eq!(ws.get("notes.md"), "tres\n");
}

#[test]
fn picoclaw_overwrite_of_a_file_never_read_replaces_it() {
    let ws = open(Profile::Picoclaw);
    ws.person_writes("a.txt", "theirs\n");
    ws.ok(
        "write_file",
        json!({"path": "a.txt", "content": "mine\n", "overwrite": true}),
    );
    assert_eq!(ws.get("a.txt"), "mine\n");
}

// ---------------------------------------------------------------------------------------------
// coder

fn update(path: &str, ops: Value) -> Value {
    json!({"files": [{"path": path, "ops": ops}]})
}

/// The one entry of a batch call's results.
fn entry(out: &ToolOutput) -> Value {
    out.structured.as_ref().unwrap()["results"][0].clone()
}

#[test]
fn coder_line_ops_with_numbers_from_an_old_read_are_refused_naming_the_lines_now() {
    let ws = open(Profile::Coder);
    ws.person_writes("app.js", &program());
    ws.ok("read-file", json!({"path": "app.js", "numbered": true}));
    // A person inserts one line at the top: line 13 now holds what was line 12.
    ws.person_writes("app.js", &with_header(&program()));
    let out = ws.call(
        "update-file",
        update("app.js", json!([{"op": "update_lines", "from_line": 13, "to_line": 13, "content": "  if (done) {"}])),
    );
    assert!(!out.is_error);
    let result = entry(&out);
    assert_eq!(result["success"], false, "{result}");
    assert_eq!(result["error"]["code"], "C210");
    let message = result["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("changed on disk since this session last read or wrote it"),
        "{message}"
    );
    assert!(message.contains("13→  step(12);"), "{message}");
    assert!(message.contains("+// header"), "{message}");
    assert!(message.contains("read-file (numbered: true)"), "{message}");
    assert_eq!(
        ws.get("app.js"),
        with_header(&program()),
        "nothing was written"
    );
    // After a fresh read the same op, with the new number, lands where it was meant to.
    ws.ok("read-file", json!({"path": "app.js", "numbered": true}));
    let out = ws.call(
        "update-file",
        update("app.js", json!([{"op": "update_lines", "from_line": 14, "to_line": 14, "content": "  if (done) {"}])),
    );
    assert_eq!(entry(&out)["success"], true, "{}", out.text_content());
    assert!(ws.get("app.js").contains("  step(12);\n  if (done) {\n"));
}

#[test]
fn coder_line_op_on_a_line_the_person_changed_is_refused_and_keeps_their_text() {
    let ws = open(Profile::Coder);
    ws.person_writes("app.js", &program());
    ws.ok("read-file", json!({"path": "app.js"}));
    let theirs = program().replace("  if (ready) {", "  if (ready && ok) {");
    ws.person_writes("app.js", &theirs);
    let out = ws.call(
        "update-file",
        update("app.js", json!([{"op": "update_lines", "from_line": 13, "to_line": 13, "content": "  if (done) {"}])),
    );
    let message = entry(&out)["error"]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(message.contains("13→  if (ready && ok) {"), "{message}");
    assert_eq!(ws.get("app.js"), theirs);
}

#[test]
fn coder_line_ops_of_a_file_this_session_never_read_take_the_numbers_as_they_are() {
    let ws = open(Profile::Coder);
    ws.person_writes("app.js", &with_header(&program()));
    let out = ws.call(
        "update-file",
        update(
            "app.js",
            json!([{"op": "remove", "from_line": 1, "to_line": 1}]),
        ),
    );
    assert_eq!(entry(&out)["success"], true, "{}", out.text_content());
    assert_eq!(ws.get("app.js"), program());
}

#[test]
fn coder_expect_text_guards_the_lines_of_each_line_op() {
    let ws = open(Profile::Coder);
    ws.person_writes("app.js", &with_header(&program()));
    // Never read in this session, so only expect_text can tell the numbers are off.
    let out = ws.call(
        "update-file",
        update(
            "app.js",
            json!([{"op": "update_lines", "from_line": 13, "to_line": 13,
                                  "content": "  if (done) {", "expect_text": "  if (ready) {"}]),
        ),
    );
    let result = entry(&out);
    assert_eq!(result["error"]["code"], "C210", "{result}");
    let message = result["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("expect_text does not match line 13, which holds now:\n13→  step(12);"),
        "{message}"
    );
    assert_eq!(ws.get("app.js"), with_header(&program()));
    // The right line, quoted as a numbered read shows it, passes.
    let out = ws.call(
        "update-file",
        update(
            "app.js",
            json!([{"op": "update_lines", "from_line": 14, "to_line": 14,
                                  "content": "  if (done) {", "expect_text": "14→  if (ready) {"}]),
        ),
    );
    assert_eq!(entry(&out)["success"], true, "{}", out.text_content());
    // An insert's expect_text is the line it goes before; appending expects nothing.
    let out = ws.call(
        "update-file",
        update(
            "app.js",
            json!([{"op": "insert", "at_line": 2, "content": "// two",
                                  "expect_text": "  step(1);"},
                                 {"op": "insert", "at_line": 22, "content": "// end",
                                  "expect_text": ""}]),
        ),
    );
    assert_eq!(entry(&out)["success"], true, "{}", out.text_content());
    assert!(
        ws.get("app.js")
            .starts_with("// header\n// two\n  step(1);\n")
    );
    assert!(ws.get("app.js").ends_with("  step(20);\n// end\n"));
    let out = ws.call(
        "update-file",
        update(
            "app.js",
            json!([{"op": "remove", "from_line": 1, "to_line": 2,
                                  "expect_text": "// header\n// three"}]),
        ),
    );
    let message = entry(&out)["error"]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        message.contains("lines 1-2, which hold now:\n1→// header\n2→// two"),
        "{message}"
    );
}

#[test]
fn coder_consecutive_update_files_of_the_session_are_never_refused() {
    let ws = open(Profile::Coder);
    ws.person_writes("app.js", &program());
    ws.ok("read-file", json!({"path": "app.js", "numbered": true}));
    for (line, text) in [(1, "one()"), (2, "two()"), (3, "three()")] {
        let out = ws.call(
            "update-file",
            update("app.js", json!([{"op": "update_lines", "from_line": line, "to_line": line, "content": text},
                                     {"op": "replace", "pattern": format!("step\\({}\\)", line + 10), "replacement": "x"}])),
        );
        assert_eq!(entry(&out)["success"], true, "{}", out.text_content());
    }
    let out = ws.call(
        "create-file",
        json!({"files": [{"path": "app.js", "content": "whole\n", "overwrite": true}]}),
    );
    assert_eq!(entry(&out)["success"], true, "{}", out.text_content());
}

#[test]
fn coder_create_file_overwrite_of_a_changed_file_is_refused_and_of_an_unread_one_goes() {
    let ws = open(Profile::Coder);
    ws.person_writes("a.txt", "one\n");
    ws.ok("read-file", json!({"path": "a.txt"}));
    ws.person_writes("a.txt", "two\n");
    let out = ws.call(
        "create-file",
        json!({"files": [{"path": "a.txt", "content": "three\n", "overwrite": true}]}),
    );
    let result = entry(&out);
    assert_eq!(result["error"]["code"], "C210", "{result}");
    let message = result["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("create-file did not replace it"),
        "{message}"
    );
    assert!(message.contains("-one\n+two"), "{message}");
    assert_eq!(ws.get("a.txt"), "two\n");
    let other = ws.other_session(Profile::Coder);
    let out = other
        .call(
            "create-file",
            json!({"files": [{"path": "a.txt", "content": "three\n", "overwrite": true}]}),
        )
        .unwrap();
    assert_eq!(entry(&out)["success"], true, "{}", out.text_content());
    assert_eq!(ws.get("a.txt"), "three\n");
}

#[test]
fn coder_a_move_carries_what_the_session_saw_to_the_new_name() {
    let ws = open(Profile::Coder);
    ws.person_writes("a.txt", "one\n");
    ws.ok("read-file", json!({"path": "a.txt"}));
    ws.ok("move", json!({"files": [{"from": "a.txt", "to": "b.txt"}]}));
    ws.person_writes("b.txt", "two\n");
    let out = ws.call(
        "update-file",
        update(
            "b.txt",
            json!([{"op": "update_lines", "from_line": 1, "to_line": 1, "content": "x"}]),
        ),
    );
    assert_eq!(
        entry(&out)["error"]["code"],
        "C210",
        "{}",
        out.text_content()
    );
    assert_eq!(ws.get("b.txt"), "two\n");
}

#[test]
fn a_file_over_the_hash_limit_is_checked_by_its_stamp_and_its_size() {
    let ws = open(Profile::Gg);
    let big: String = (0..600_000).map(|i| format!("log line {i:08}\n")).collect();
    assert!(big.len() as u64 > fsgate_core::session::HASH_LIMIT);
    ws.person_writes("big.log", &big);
    ws.ok(
        "read_file",
        json!({"path": "big.log", "offset": 10, "limit": 5}),
    );
    ws.person_writes("big.log", &format!("{big}one more\n"));
    let text = ws.err("write_file", json!({"path": "big.log", "content": "x\n"}));
    assert!(text.contains("Which lines changed is not known"), "{text}");
    assert!(ws.get("big.log").ends_with("one more\n"));
    // The session's own large writes are remembered by content and checked again by it.
    ws.ok("write_file", json!({"path": "new.log", "content": big}));
    ws.ok("write_file", json!({"path": "new.log", "content": big}));
    ws.person_writes(
        "new.log",
        &big.replace("log line 00000007", "LOG LINE 00000007"),
    );
    ws.err("write_file", json!({"path": "new.log", "content": "y\n"}));
}

#[test]
fn coder_line_ops_through_a_name_turned_into_a_link_are_refused() {
    let ws = open(Profile::Coder);
    ws.person_writes("a.txt", "mine\n");
    ws.person_writes("b.txt", "theirs\n");
    ws.ok("read-file", json!({"path": "a.txt"}));
    std::fs::remove_file(ws.path("a.txt")).unwrap();
    std::os::unix::fs::symlink("b.txt", ws.path("a.txt")).unwrap();
    let out = ws.call(
        "update-file",
        update(
            "a.txt",
            json!([{"op": "update_lines", "from_line": 1, "to_line": 1, "content": "new"}]),
        ),
    );
    let result = entry(&out);
    assert_eq!(result["error"]["code"], "C210", "{result}");
    assert!(
        result["error"]["message"]
            .as_str()
            .unwrap()
            .contains("now leads to"),
        "{result}"
    );
    assert_eq!(ws.get("b.txt"), "theirs\n");
}
