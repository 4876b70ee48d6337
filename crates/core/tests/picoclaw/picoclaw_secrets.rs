#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

//! picoclaw's redaction never destroys a secret and never leaks one: text copied from a
//! redacted read ([FILTERED] included) written back through write_file, edit_file (old_text and
//! new_text, V4A context, removed and added lines) and append_file keeps the file's real values,
//! a placeholder that cannot be mapped is refused before anything is written, and no result,
//! error, diff, structured value or spilled preview of any call shows a raw value.

use crate::picoclaw_support;

use fsgate_core::ToolOutput;
use picoclaw_support::Pico;
use serde_json::{Value, json};

const OPENAI: &str = "sk-proj-4fG7hJ2kL9mN3bV6cX8zQ1wE5rT0yU";
const GITHUB: &str = "ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R";
const OTHER: &str = "sk-ant-api03-Zx81kLpQ2vB7nM4cR9tY0wE3uI6oP5aS";
const SECRETS: [&str; 3] = [OPENAI, GITHUB, OTHER];

fn env_file() -> String {
    format!("# service\nAPI_KEY={OPENAI}\nGITHUB_TOKEN={GITHUB}\nDEBUG=false\nPORT=8080\n")
}

/// Every text and structured value of `out`, as one string.
fn everything(out: &ToolOutput) -> String {
    let mut all = out.text_content();
    if let Some(v) = &out.structured {
        all.push('\n');
        all.push_str(&v.to_string());
    }
    all
}

fn assert_no_secret(what: &str, out: &ToolOutput) {
    let all = everything(out);
    for secret in SECRETS {
        assert!(!all.contains(secret), "{what} shows {secret}:\n{all}");
    }
}

/// A call whose every output is checked for raw values.
fn call(p: &Pico, tool: &str, args: Value) -> ToolOutput {
    let out = p.call(tool, args.clone());
    assert_no_secret(&format!("{tool} {args}"), &out);
    out
}

fn ok(p: &Pico, tool: &str, args: Value) -> String {
    let out = call(p, tool, args.clone());
    assert!(
        !out.is_error,
        "{tool} {args} failed: {}",
        out.text_content()
    );
    out.text_content()
}

fn err(p: &Pico, tool: &str, args: Value) -> String {
    let out = call(p, tool, args.clone());
    assert!(
        out.is_error,
        "{tool} {args} succeeded: {}",
        out.text_content()
    );
    out.text_content()
}

/// The file as read_file (byte mode) shows it: the content after the header.
fn redacted_read(p: &Pico, path: &str) -> String {
    let out = ok(p, "read_file", json!({"path": path}));
    let (_, body) = out.split_once("\n\n").unwrap();
    assert!(body.contains("[FILTERED]"), "{body}");
    body.to_string()
}

fn setup() -> Pico {
    let p = Pico::new();
    p.write(".env", env_file());
    p
}

/// The refusal of an unmappable placeholder: names it, and nothing was written.
fn assert_refused_placeholder(p: &Pico, message: &str, before: &str) {
    assert!(
        message.contains("[FILTERED]") && message.contains("cannot know"),
        "{message}"
    );
    assert!(message.contains("Nothing was written"), "{message}");
    assert_eq!(p.read_str(".env"), before, "the file changed");
}

#[test]
fn write_back_of_a_redacted_read_is_unchanged() {
    let p = setup();
    let view = redacted_read(&p, ".env");
    let v: Value = serde_json::from_str(&ok(
        &p,
        "write_file",
        json!({"path": ".env", "content": view}),
    ))
    .unwrap();
    assert_eq!(v["action"], "unchanged");
    assert_eq!(p.read_str(".env"), env_file());
}

#[test]
fn write_back_with_one_line_changed_keeps_the_secrets() {
    let p = setup();
    let view = redacted_read(&p, ".env").replace("DEBUG=false", "DEBUG=true");
    let v: Value = serde_json::from_str(&ok(
        &p,
        "write_file",
        json!({"path": ".env", "content": view, "overwrite": true}),
    ))
    .unwrap();
    assert_eq!(v["action"], "overwritten");
    assert_eq!(
        p.read_str(".env"),
        env_file().replace("DEBUG=false", "DEBUG=true")
    );
}

#[test]
fn write_back_with_lines_added_at_the_end_is_an_append_of_them_only() {
    let p = setup();
    let view = redacted_read(&p, ".env") + "LOG=info\n";
    let v: Value = serde_json::from_str(&ok(
        &p,
        "write_file",
        json!({"path": ".env", "content": view}),
    ))
    .unwrap();
    assert_eq!(v["action"], "appended");
    assert_eq!(v["bytes_written"], 9);
    assert_eq!(p.read_str(".env"), env_file() + "LOG=info\n");
}

#[test]
fn write_back_of_a_line_mode_read_keeps_the_secrets() {
    let p = Pico::lines();
    p.write(".env", env_file());
    let out = ok(&p, "read_file", json!({"path": ".env"}));
    let view: String = out
        .split_once("\n\n")
        .unwrap()
        .1
        .lines()
        .map(|l| format!("{}\n", l.split_once('|').unwrap().1))
        .collect();
    let changed = view.replace("PORT=8080", "PORT=9090");
    ok(
        &p,
        "write_file",
        json!({"path": ".env", "content": changed, "overwrite": true}),
    );
    assert_eq!(
        p.read_str(".env"),
        env_file().replace("PORT=8080", "PORT=9090")
    );
}

#[test]
fn equal_looking_lines_keep_their_own_values_in_a_write_back() {
    let p = Pico::new();
    let file = format!("[dev]\nKEY={OPENAI}\n[prod]\nKEY={OTHER}\n");
    p.write(".env", &file);
    let view = redacted_read(&p, ".env");
    assert_eq!(view, "[dev]\nKEY=[FILTERED]\n[prod]\nKEY=[FILTERED]\n");
    ok(
        &p,
        "write_file",
        json!({"path": ".env", "content": view.replace("[prod]", "[production]"), "overwrite": true}),
    );
    assert_eq!(p.read_str(".env"), file.replace("[prod]", "[production]"));
}

#[test]
fn following_the_file_exists_refusal_keeps_the_secrets() {
    let p = setup();
    let view = redacted_read(&p, ".env").replace("PORT=8080", "PORT=9090");
    let refused = call(&p, "write_file", json!({"path": ".env", "content": view}));
    assert!(refused.is_error);
    let text = refused.text_content();
    assert!(text.contains("overwrite=true"), "{text}");
    let structured = refused.structured.unwrap();
    assert!(
        structured["available_actions"]
            .as_array()
            .unwrap()
            .contains(&json!("overwrite")),
        "{structured}"
    );
    assert_eq!(p.read_str(".env"), env_file());
    // Do what the refusal says: the same content with overwrite=true.
    ok(
        &p,
        "write_file",
        json!({"path": ".env", "content": view, "overwrite": true}),
    );
    assert_eq!(
        p.read_str(".env"),
        env_file().replace("PORT=8080", "PORT=9090")
    );
}

#[test]
fn a_new_file_with_a_secret_is_written_as_given_and_never_echoed() {
    let p = Pico::new();
    let content = format!("{{\"token\": \"{GITHUB}\",\n");
    let v: Value = serde_json::from_str(&ok(
        &p,
        "write_file",
        json!({"path": "config.json", "content": content}),
    ))
    .unwrap();
    assert_eq!(v["action"], "created");
    assert_eq!(v["syntax"], "error");
    assert_eq!(p.read_str("config.json"), content);
    // Written again unchanged, then extended.
    ok(
        &p,
        "write_file",
        json!({"path": "config.json", "content": content}),
    );
    let more = format!("{content}\"other\": \"{OTHER}\"}}\n");
    ok(
        &p,
        "write_file",
        json!({"path": "config.json", "content": more}),
    );
    assert_eq!(p.read_str("config.json"), more);
}

#[test]
fn write_file_refuses_a_placeholder_that_would_replace_a_hidden_value() {
    let p = setup();
    let view = redacted_read(&p, ".env").replace("API_KEY=[FILTERED]", "API_KEY=[FILTERED] # prod");
    let message = err(
        &p,
        "write_file",
        json!({"path": ".env", "content": view, "overwrite": true}),
    );
    assert!(message.contains("line 2 of the content"), "{message}");
    assert_refused_placeholder(&p, &message, &env_file());
}

#[test]
fn edit_file_old_text_quoting_a_redacted_line_matches_the_real_line() {
    let p = setup();
    ok(
        &p,
        "edit_file",
        json!({"path": ".env",
               "old_text": "API_KEY=[FILTERED]\nGITHUB_TOKEN=[FILTERED]\nDEBUG=false",
               "new_text": "API_KEY=[FILTERED]\nGITHUB_TOKEN=[FILTERED]\nDEBUG=true"}),
    );
    let expected = env_file().replace("DEBUG=false", "DEBUG=true");
    assert_eq!(p.read_str(".env"), expected);
    let out = ok(
        &p,
        "edit_file",
        json!({"path": ".env", "old_text": "API_KEY=[FILTERED]",
               "new_text": "API_KEY=[FILTERED]\nAPI_BASE=https://api.example.com"}),
    );
    assert!(out.contains("+API_BASE=https://api.example.com\n"), "{out}");
    let expected = expected.replace(
        &format!("API_KEY={OPENAI}\n"),
        &format!("API_KEY={OPENAI}\nAPI_BASE=https://api.example.com\n"),
    );
    assert_eq!(p.read_str(".env"), expected);
    // Deleting the line a placeholder quotes removes the real line.
    ok(
        &p,
        "edit_file",
        json!({"path": ".env", "old_text": "GITHUB_TOKEN=[FILTERED]\n", "new_text": ""}),
    );
    assert_eq!(
        p.read_str(".env"),
        expected.replace(&format!("GITHUB_TOKEN={GITHUB}\n"), "")
    );
}

#[test]
fn edit_file_refuses_new_text_whose_placeholder_cannot_be_mapped() {
    let p = setup();
    let message = err(
        &p,
        "edit_file",
        json!({"path": ".env", "old_text": "API_KEY=[FILTERED]", "new_text": "API_KEY=\"[FILTERED]\""}),
    );
    assert!(message.contains("line 2 of the edited file"), "{message}");
    assert_refused_placeholder(&p, &message, &env_file());
    // A placeholder written over a plain line that hides nothing is taken literally.
    ok(
        &p,
        "edit_file",
        json!({"path": ".env", "old_text": "PORT=8080", "new_text": "PORT=[FILTERED]"}),
    );
    assert_eq!(
        p.read_str(".env"),
        env_file().replace("PORT=8080", "PORT=[FILTERED]")
    );
}

#[test]
fn edit_file_old_text_with_a_placeholder_that_quotes_nothing_says_so() {
    let p = setup();
    let message = err(
        &p,
        "edit_file",
        json!({"path": ".env", "old_text": "API_KEY=[FILTERED] ", "new_text": "x"}),
    );
    assert!(message.starts_with("no-match:"), "{message}");
    assert!(message.contains("[FILTERED], the placeholder"), "{message}");
    let message = err(
        &p,
        "edit_file",
        json!({"path": ".env", "old_text": "TERED]\nGITHUB_TOKEN=[FILTERED]", "new_text": "x"}),
    );
    assert!(
        message.contains("inside a [FILTERED] placeholder"),
        "{message}"
    );
    assert_eq!(p.read_str(".env"), env_file());
}

#[test]
fn v4a_context_and_removed_lines_quoting_redacted_lines_match_and_added_copies_keep_values() {
    let p = setup();
    ok(
        &p,
        "edit_file",
        json!({"path": ".env", "patch":
            "@@\n API_KEY=[FILTERED]\n GITHUB_TOKEN=[FILTERED]\n-DEBUG=false\n+DEBUG=true\n"}),
    );
    let expected = env_file().replace("DEBUG=false", "DEBUG=true");
    assert_eq!(p.read_str(".env"), expected);
    let out = ok(
        &p,
        "edit_file",
        json!({"path": ".env", "patch":
            "*** Begin Patch\n*** Update File: .env\n@@\n # service\n-API_KEY=[FILTERED]\n-GITHUB_TOKEN=[FILTERED]\n+GITHUB_TOKEN=[FILTERED]\n+API_KEY=[FILTERED]\n DEBUG=true\n*** End Patch"}),
    );
    assert!(out.contains("+GITHUB_TOKEN=[FILTERED]"), "{out}");
    assert_eq!(
        p.read_str(".env"),
        format!("# service\nGITHUB_TOKEN={GITHUB}\nAPI_KEY={OPENAI}\nDEBUG=true\nPORT=8080\n")
    );
}

#[test]
fn v4a_added_line_whose_placeholder_cannot_be_mapped_is_refused() {
    let p = setup();
    let message = err(
        &p,
        "edit_file",
        json!({"path": ".env", "patch": "@@\n-API_KEY=[FILTERED]\n+API_KEY=[FILTERED]-v2\n"}),
    );
    assert_refused_placeholder(&p, &message, &env_file());
    // Ambiguous: two lines look the same and hide different values; the hunk's place decides
    // for a copy inside it, but a lone pure insertion at the end has no such place.
    let file = format!("[dev]\nKEY={OPENAI}\n[prod]\nKEY={OTHER}\nend\n");
    p.write(".env", &file);
    ok(
        &p,
        "edit_file",
        json!({"path": ".env", "patch": "@@\n [prod]\n-KEY=[FILTERED]\n+KEY=[FILTERED]\n+LEVEL=2\n"}),
    );
    let file = file.replace(
        &format!("KEY={OTHER}\n"),
        &format!("KEY={OTHER}\nLEVEL=2\n"),
    );
    assert_eq!(p.read_str(".env"), file);
    let message = err(
        &p,
        "edit_file",
        json!({"path": ".env", "patch": "@@\n end\n+KEY=[FILTERED]\n*** End of File\n"}),
    );
    assert!(message.contains("lines 2, 4"), "{message}");
    assert_refused_placeholder(&p, &message, &file);
}

#[test]
fn v4a_no_match_shows_the_closest_region_redacted() {
    let p = setup();
    let message = err(
        &p,
        "edit_file",
        json!({"path": ".env", "patch": "@@\n API_KEY=[FILTERED]\n GITHUB_TOKEN=[FILTERED]\n-DEBUG=maybe\n+DEBUG=true\n"}),
    );
    assert!(message.starts_with("no-match:"), "{message}");
    assert!(message.contains("closest region"), "{message}");
    assert!(message.contains("API_KEY=[FILTERED]"), "{message}");
    assert_eq!(p.read_str(".env"), env_file());
}

#[test]
fn v4a_quoting_a_wrong_value_where_the_file_hides_one_is_refused() {
    let p = setup();
    let message = err(
        &p,
        "edit_file",
        json!({"path": ".env", "patch": format!("@@\n-API_KEY={OTHER}\n+API_KEY=none\n")}),
    );
    assert!(message.contains("is not the file's"), "{message}");
    assert_eq!(p.read_str(".env"), env_file());
}

#[test]
fn append_file_of_a_copied_line_appends_the_real_value() {
    let p = setup();
    let out = ok(
        &p,
        "append_file",
        json!({"path": ".env", "content": "API_KEY=[FILTERED]\n"}),
    );
    assert!(out.starts_with("Appended 47 bytes"), "{out}");
    assert_eq!(
        p.read_str(".env"),
        env_file() + &format!("API_KEY={OPENAI}\n")
    );
    // A placeholder that copies nothing replaces nothing either: appended as written.
    ok(
        &p,
        "append_file",
        json!({"path": ".env", "content": "NOTE=[FILTERED] marks hidden values\n"}),
    );
    assert!(
        p.read_str(".env")
            .ends_with("\nNOTE=[FILTERED] marks hidden values\n")
    );
    // A raw secret appended is written, and not echoed.
    ok(
        &p,
        "append_file",
        json!({"path": ".env", "content": format!("OTHER={OTHER}\n")}),
    );
    assert!(p.read_str(".env").ends_with(&format!("OTHER={OTHER}\n")));
}

#[test]
fn a_literal_placeholder_in_the_file_is_kept_and_editable() {
    let p = Pico::new();
    let file = format!("note = \"[FILTERED]\"\nAPI_KEY={OPENAI}\n");
    p.write("c.toml", &file);
    let view = redacted_read(&p, "c.toml");
    assert_eq!(view, "note = \"[FILTERED]\"\nAPI_KEY=[FILTERED]\n");
    // Written back whole: both the literal and the hidden value survive.
    ok(
        &p,
        "write_file",
        json!({"path": "c.toml", "content": format!("# top\n{view}"), "overwrite": true}),
    );
    assert_eq!(p.read_str("c.toml"), format!("# top\n{file}"));
    // The literal line is quoted and edited like any other.
    ok(
        &p,
        "edit_file",
        json!({"path": "c.toml", "old_text": "note = \"[FILTERED]\"",
               "new_text": "note = \"[FILTERED] values are hidden\""}),
    );
    ok(
        &p,
        "edit_file",
        json!({"path": "c.toml", "patch": "@@\n-note = \"[FILTERED] values are hidden\"\n+note = \"[FILTERED]\"\n API_KEY=[FILTERED]\n"}),
    );
    assert_eq!(p.read_str("c.toml"), format!("# top\n{file}"));
}

#[test]
fn a_crlf_file_round_trips_through_a_redacted_edit() {
    let p = Pico::new();
    let file = format!("A=1\r\nAPI_KEY={OPENAI}\r\nB=2\r\n");
    p.write("w.env", &file);
    ok(
        &p,
        "edit_file",
        json!({"path": "w.env", "old_text": "API_KEY=[FILTERED]\nB=2", "new_text": "API_KEY=[FILTERED]\nB=3"}),
    );
    assert_eq!(p.read_str("w.env"), file.replace("B=2", "B=3"));
}

/// Every error path of picoclaw with secrets in the files: no text or structured value shows a
/// raw value, and no file changes.
#[test]
fn no_error_path_shows_a_secret() {
    let p = Pico::with(|c| c.max_inline_result_chars = 2_000);
    let dup = format!("TOKEN={GITHUB}\nx=1\nTOKEN={GITHUB}\nx=1\n");
    p.write(".env", env_file());
    p.write("dup.env", &dup);
    p.write("tail.env", format!("a=1\nLAST={OTHER}"));
    let many: String = (0..200).map(|i| format!("K{i}={OPENAI}\n")).collect();
    p.write("many.env", &many);
    let patch = |body: &str| json!({"path": ".env", "patch": body});
    let cases: Vec<(&str, Value)> = vec![
        // edit_file, old_text / new_text.
        (
            "edit_file",
            json!({"path": ".env", "old_text": "nope", "new_text": "x"}),
        ),
        (
            "edit_file",
            json!({"path": ".env", "old_text": format!("API_KEY={OTHER}"), "new_text": "x"}),
        ),
        (
            "edit_file",
            json!({"path": "dup.env", "old_text": format!("TOKEN={GITHUB}"), "new_text": "x"}),
        ),
        (
            "edit_file",
            json!({"path": "dup.env", "old_text": "TOKEN=[FILTERED]", "new_text": "x"}),
        ),
        (
            "edit_file",
            json!({"path": ".env", "old_text": format!("{OPENAI}")}),
        ),
        (
            "edit_file",
            json!({"path": ".env", "new_text": format!("{OPENAI}")}),
        ),
        (
            "edit_file",
            json!({"path": ".env", "old_text": "", "new_text": format!("{OPENAI}")}),
        ),
        (
            "edit_file",
            json!({"path": ".env", "old_text": "a", "new_text": "b", "patch": format!("+{OPENAI}")}),
        ),
        (
            "edit_file",
            json!({"path": format!("missing-{GITHUB}.env"), "old_text": "a", "new_text": "b"}),
        ),
        // edit_file, V4A.
        (
            "edit_file",
            patch(&format!(
                "@@\n API_KEY={OTHER}\n-DEBUG=false\n+DEBUG=true\n"
            )),
        ),
        (
            "edit_file",
            patch("@@\n PORT=9\n-DEBUG=false\n+DEBUG=true\n"),
        ),
        (
            "edit_file",
            json!({"path": "dup.env", "patch": "@@\n-TOKEN=[FILTERED]\n+TOKEN=x\n"}),
        ),
        (
            "edit_file",
            json!({"path": "dup.env", "patch": format!("@@\n-TOKEN={GITHUB}\n+TOKEN=x\n")}),
        ),
        ("edit_file", patch(&format!("@@\n+KEY={OPENAI}\n"))),
        ("edit_file", patch(&format!("@@\nAPI_KEY={OPENAI}\n"))),
        (
            "edit_file",
            patch(&format!("*** Begin Patch\n@@\n+{OPENAI}\n")),
        ),
        (
            "edit_file",
            patch(&format!(
                "*** Update File: other.env\n@@\n-DEBUG=false\n+{OPENAI}\n"
            )),
        ),
        (
            "edit_file",
            patch(&format!("*** Add File: new.env\n+{OPENAI}\n")),
        ),
        (
            "edit_file",
            json!({"path": "tail.env", "patch": "@@\n-a=1\n+a=2\n*** End of File\n"}),
        ),
        (
            "edit_file",
            json!({"path": "tail.env", "patch": "@@\n a=0\n+b=2\n"}),
        ),
        (
            "edit_file",
            patch("@@\n-DEBUG=false\n+DEBUG=1\n@@\n-DEBUG=false\n+DEBUG=2\n"),
        ),
        // write_file.
        (
            "write_file",
            json!({"path": ".env", "content": format!("API_KEY={OTHER}\n")}),
        ),
        (
            "write_file",
            json!({"path": ".env", "content": "API_KEY=[FILTERED]x\n", "overwrite": true}),
        ),
        (
            "write_file",
            json!({"path": ".env", "content": "x", "overwrite": OPENAI}),
        ),
        (
            "write_file",
            json!({"path": ".", "content": format!("{OPENAI}")}),
        ),
        ("write_file", json!({"path": ".env"})),
        (
            "write_file",
            json!({"path": ".env", "content": "x", OPENAI: 1}),
        ),
        // append_file.
        (
            "append_file",
            json!({"path": ".", "content": format!("{OPENAI}")}),
        ),
        (
            "append_file",
            json!({"path": ".env", "content": 7, "extra": OPENAI}),
        ),
        // read_file and search_files with bad arguments that quote a secret.
        ("read_file", json!({"path": ".env", "start_line": OPENAI})),
        ("read_file", json!({"path": format!("{GITHUB}.txt")})),
        ("search_files", json!({"pattern": format!("({OPENAI}")})),
        (
            "search_files",
            json!({"pattern": "x", "path": format!("no-{OTHER}")}),
        ),
        ("list_dir", json!({"path": format!("no-{OTHER}")})),
    ];
    let files = |p: &Pico| [".env", "dup.env", "tail.env", "many.env"].map(|f| p.read_str(f));
    let before = files(&p);
    for (tool, args) in cases {
        err(&p, tool, args);
    }
    assert_eq!(files(&p), before, "an error path changed a file");
    // Successful calls whose output quotes the files: reads, searches, diffs, and a listing
    // too large to show inline (read_file and search_files pages fit inline; list_dir spills).
    ok(&p, "read_file", json!({"path": "many.env"}));
    ok(
        &p,
        "search_files",
        json!({"pattern": "K", "limit": 200, "context": 1}),
    );
    for i in 0..100 {
        p.write(&format!("names/f{i}-{GITHUB}.txt"), "x");
    }
    let found = ok(&p, "list_dir", json!({"path": "names"}));
    assert!(
        found.contains(".picoclaw/tool-results/"),
        "not spilled: {found}"
    );
    let artifact = found
        .split(".picoclaw/tool-results/")
        .nth(1)
        .unwrap()
        .split(';')
        .next()
        .unwrap();
    let saved = p.read_str(&format!(".picoclaw/tool-results/{artifact}"));
    assert!(!saved.contains(OPENAI), "the artifact holds a secret");
    ok(
        &p,
        "edit_file",
        json!({"path": ".env", "patch": format!("@@\n-API_KEY=[FILTERED]\n+API_KEY={OTHER}\n")}),
    );
    assert!(p.read_str(".env").contains(&format!("API_KEY={OTHER}\n")));
}

/// The scrubbing of results does not eat the frame around content the handlers scrubbed: a
/// search context line keeps its `path-N-`, a diff line its `+`, next to a random-looking run
/// too short to be masked on its own.
#[test]
fn scrubbing_results_keeps_search_prefixes_and_diff_signs() {
    // 31 characters: not masked alone, masked with a `+` or `a.env-2-` in front.
    let run = "x9K2mQ7vB3nL8cR1tY6wE3uI0oP5aZ1";
    let p = Pico::new();
    p.write("a.env", format!("hit\n{run}\n"));
    let found = ok(&p, "search_files", json!({"pattern": "hit", "context": 1}));
    assert!(found.contains(&format!("\na.env-2-{run}")), "{found}");
    p.write("b.txt", "one\ntwo\n");
    let out = ok(
        &p,
        "edit_file",
        json!({"path": "b.txt", "old_text": "two", "new_text": run}),
    );
    assert!(out.contains(&format!("\n+{run}\n")), "{out}");
    // A secret there is still masked, its frame kept.
    p.write("c.env", format!("hit\nT={GITHUB}\n"));
    let found = ok(
        &p,
        "search_files",
        json!({"pattern": "hit", "path": "c.env", "context": 1}),
    );
    assert!(found.contains("\nc.env-2-T=[FILTERED]"), "{found}");
}

/// A byte window that starts or ends inside a credential (an offset or length the model chose)
/// shows the part it holds as `[FILTERED]`: following the footers with any window length never
/// shows a piece of a secret.
#[test]
fn byte_windows_that_cut_a_secret_never_show_a_piece_of_it() {
    let p = setup();
    let pieces: Vec<String> = SECRETS
        .iter()
        .flat_map(|s| {
            let body: Vec<char> = s.chars().skip(8).collect();
            body.windows(6)
                .map(|w| w.iter().collect::<String>())
                .collect::<Vec<_>>()
        })
        .collect();
    for length in [3, 7, 10, 13, 20, 30, 41, 55] {
        let mut offset = 0;
        loop {
            let out = ok(
                &p,
                "read_file",
                json!({"path": ".env", "offset": offset, "length": length}),
            );
            for piece in &pieces {
                assert!(
                    !out.contains(piece.as_str()),
                    "length {length} at offset {offset} shows {piece}:\n{out}"
                );
            }
            let Some(next) = out.split("offset=").nth(1) else {
                break;
            };
            offset = next
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .unwrap()
                .parse()
                .unwrap();
        }
    }
}
