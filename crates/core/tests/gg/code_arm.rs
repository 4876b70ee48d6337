//! gg's code arm: run_code runs a JavaScript program against gg.files and gg.views. Programs are
//! compared call for call with the same operations made through the tool arm; every bound of
//! the sandbox ends its run with an error naming the bound and leaves the server serving.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use fsgate_core::config::gg::Arm;
use fsgate_core::{CallContext, Content, Options, ToolOutput, Workspace};
use serde_json::{Value, json};

use crate::gg_support::{Fx, parse, png};

/// A code-arm workspace over `fx`'s folder, with `toml` as its configuration.
fn code_arm(fx: &Fx, toml: &str) -> Workspace {
    code_arm_with(fx, toml, |_| {})
}

fn code_arm_with(fx: &Fx, toml: &str, f: impl FnOnce(&mut Options)) -> Workspace {
    let mut options = Options::new(fx.dir.path());
    options.profile = parse(toml).into();
    options.arm = Some(Arm::Code);
    f(&mut options);
    Workspace::open(options).unwrap()
}

fn run(ws: &Workspace, code: &str) -> ToolOutput {
    ws.call("run_code", json!({ "code": code })).unwrap()
}

/// Runs `code`, asserts it succeeded, and returns its returned value (parsed as JSON when it
/// is JSON).
fn returned(ws: &Workspace, code: &str) -> Value {
    let out = run(ws, code);
    assert!(!out.is_error, "run failed: {}", out.text_content());
    let first = match &out.content[0] {
        Content::Text(t) => t.clone(),
        other => panic!("first block is not text: {other:?}"),
    };
    let value = first
        .split_once("[returned]\n")
        .map(|(_, v)| v.to_string())
        .unwrap_or_else(|| panic!("no returned value in {first}"));
    serde_json::from_str(&value).unwrap_or(Value::String(value))
}

fn texts(out: &ToolOutput) -> Vec<String> {
    out.content
        .iter()
        .filter_map(|c| match c {
            Content::Text(t) => Some(t.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn the_code_arm_offers_only_run_code_and_the_tool_arm_does_not_know_it() {
    let fx = Fx::new();
    let ws = code_arm(&fx, "");
    let names: Vec<&str> = ws.tools().iter().map(|t| t.name).collect();
    assert_eq!(names, ["run_code"]);
    assert!(ws.call("read_file", json!({"path": "x"})).is_err());
    assert!(fx.ws.call("run_code", json!({"code": "1"})).is_err());
    // The configuration file chooses the arm too.
    let mut options = Options::new(fx.dir.path());
    options.profile = parse("arm = \"code\"").into();
    let from_file = Workspace::open(options).unwrap();
    assert_eq!(from_file.tools()[0].name, "run_code");
}

#[test]
fn a_program_reads_forty_files_and_opens_views_of_the_three_that_matter() {
    let fx = Fx::new();
    for i in 0..40 {
        let body = if i % 13 == 0 {
            format!("// file {i}\nlet needle = {i};\n")
        } else {
            format!("// file {i}\nlet hay = {i};\n")
        };
        fx.write(&format!("src/f{i:02}.js"), body);
    }
    let ws = code_arm(&fx, "");
    let out = run(
        &ws,
        r#"
        const files = (await gg.files.listDir("src")).map(e => e.path);
        const hits = [];
        for (const path of files) {
          if (gg.files.readFile(path).includes("needle")) hits.push(path);
        }
        for (const path of hits) gg.views.openFile(path);
        return hits;
        "#,
    );
    assert!(!out.is_error, "{}", out.text_content());
    let blocks = texts(&out);
    assert_eq!(
        blocks[0],
        "[returned]\n[\n  \"src/f00.js\",\n  \"src/f13.js\",\n  \"src/f26.js\",\n  \"src/f39.js\"\n]"
    );
    // One block per view, headed by its path and window, holding what read_file returns.
    for (i, path) in ["src/f00.js", "src/f13.js", "src/f26.js", "src/f39.js"]
        .iter()
        .enumerate()
    {
        let tool = fx.ok("read_file", json!({"path": path}));
        let view = &blocks[i + 1];
        let (header, body) = view.split_once('\n').unwrap();
        assert!(
            header.starts_with(&format!("[view {}: {path}, lines 1-2 of 2; about ", i + 1)),
            "{header}"
        );
        assert_eq!(body, tool);
    }
    let total = blocks.last().unwrap();
    assert!(
        total.starts_with("[this run put about ") && total.contains("4 views"),
        "{total}"
    );
    assert_eq!(blocks.len(), 6);
}

#[test]
fn every_files_function_answers_as_its_tool_does() {
    let fx = Fx::new();
    fx.write("a.txt", "one\ntwo\nthree\nfour\n");
    fx.write("src/lib.rs", "fn parse_one() {}\nfn parse_two() {}\n");
    fx.write("src/deep/x/y.rs", "fn parse_deep() {}\n");
    fx.write(".gitignore", "target/\n");
    fx.write("target/out.rs", "fn parse_ignored() {}\n");
    let ws = code_arm(&fx, "");
    let got = returned(
        &ws,
        r#"
        const tree = gg.files.tree();
        const deep = gg.files.tree("src", {depth: 1});
        const found = gg.files.search("parse_\\w+", {limit: 2});
        const listed = gg.files.listDir("src");
        return {
          read: gg.files.readFile("a.txt", {offset: 2, limit: 2}),
          tree: tree.text, treePaths: tree.map(e => e.path), deep: deep.text,
          deepNote: deep.note === undefined ? null : deep.note,
          search: found.text, matches: found, searchNote: found.note,
          list: listed.text, listed,
        };
        "#,
    );
    assert_eq!(
        got["read"],
        fx.ok(
            "read_file",
            json!({"path": "a.txt", "offset": 2, "limit": 2})
        )
    );
    assert_eq!(got["tree"], fx.ok("tree", json!({})));
    assert_eq!(
        got["treePaths"],
        json!([".gitignore", "a.txt", "src", "src/deep", "src/lib.rs"])
    );
    assert_eq!(
        got["deep"],
        fx.ok("tree", json!({"path": "src", "depth": 1}))
    );
    assert_eq!(
        got["search"],
        fx.ok("search", json!({"query": "parse_\\w+", "limit": 2}))
    );
    assert_eq!(
        got["matches"],
        json!([
            {"path": "src/deep/x/y.rs", "line": 1, "text": "fn parse_deep() {}"},
            {"path": "src/lib.rs", "line": 1, "text": "fn parse_one() {}"},
        ])
    );
    // A list as long as its limit says it may have been cut.
    assert!(
        got["searchNote"]
            .as_str()
            .unwrap()
            .starts_with("[2 matches, the limit: there may be more"),
        "{}",
        got["searchNote"]
    );
    assert_eq!(got["list"], fx.ok("list_dir", json!({"path": "src"})));
    assert_eq!(
        got["listed"],
        json!([
            {"name": "deep", "path": "src/deep", "kind": "dir"},
            {"name": "lib.rs", "path": "src/lib.rs", "kind": "file"},
        ])
    );
    // Writes and edits: the same summaries, the same bytes on disk.
    let code = returned(
        &ws,
        r#"return [gg.files.writeFile("w/new.txt", "a\nb\n"),
                   gg.files.editFile("w/new.txt", "b\n", "c\n")];"#,
    );
    assert_eq!(
        code,
        json!([
            "Created w/new.txt: 2 lines (4 bytes).",
            "Edited w/new.txt: replaced line 2 with 1 line."
        ])
    );
    assert_eq!(fx.bytes("w/new.txt"), b"a\nc\n");
    assert_eq!(
        fx.ok(
            "write_file",
            json!({"path": "w/tool.txt", "content": "a\nb\n"})
        ),
        "Created w/tool.txt: 2 lines (4 bytes)."
    );
}

#[test]
fn failed_calls_throw_the_tools_kind_and_message_in_the_code_arms_words() {
    let fx = Fx::new();
    fx.write("dup.txt", "x\nx\n");
    let ws = code_arm(&fx, "");
    let got = returned(
        &ws,
        r#"
        const caught = [];
        for (const f of [
          () => gg.files.readFile("missing.txt"),
          () => gg.files.editFile("dup.txt", "x", "y"),
          () => gg.files.search("("),
          () => gg.files.tree(".", {depth: 0}),
          () => gg.files.readFile("dup.txt", {offest: 2}),
        ]) {
          try { f(); caught.push(null); } catch (e) { caught.push({kind: e.kind, name: e.name, message: e.message}); }
        }
        return caught;
        "#,
    );
    let kinds: Vec<&str> = got
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "not-found",
            "not-unique",
            "invalid-argument",
            "invalid-argument",
            "invalid-argument"
        ]
    );
    let missing = got[0]["message"].as_str().unwrap();
    assert_eq!(got[0]["name"], "GgError");
    // The tool's message, with the code arm's names for the next step.
    let tool = fx.err("read_file", json!({"path": "missing.txt"}));
    assert_eq!(
        missing,
        tool.replace("list_dir", "gg.files.listDir")
            .replace("write_file", "gg.files.writeFile")
    );
    assert!(missing.contains("gg.files.listDir"), "{missing}");
    assert!(
        got[4]["message"]
            .as_str()
            .unwrap()
            .contains("gg.files.readFile has no option offest"),
        "{}",
        got[4]["message"]
    );
    // Uncaught, the call's own text fails the run.
    let out = run(&ws, "gg.files.readFile('missing.txt')");
    assert!(out.is_error);
    assert!(
        texts(&out)[0].starts_with(&format!("{missing} (uncaught at line 1)")),
        "{}",
        texts(&out)[0]
    );
}

/// The bounds tests: each ends the run with an error naming its bound; the workspace serves the
/// next program as before.
fn assert_stopped(ws: &Workspace, code: &str, starts: &str, names: &str) {
    let out = run(ws, code);
    assert!(
        out.is_error,
        "{code} was not stopped: {}",
        out.text_content()
    );
    let first = &texts(&out)[0];
    assert!(first.starts_with(starts), "{code}: {first}");
    assert!(
        first.contains(names),
        "{code}: {first} does not name {names}"
    );
    assert_eq!(returned(ws, "return 6 * 7"), json!(42), "after {code}");
}

#[test]
fn a_busy_loop_is_stopped_at_the_cpu_limit() {
    let fx = Fx::new();
    let ws = code_arm(&fx, "[code]\ncpu_limit_ms = 200\n");
    assert_stopped(&ws, "while (true) {}", "limit: ", "cpu_limit_ms");
    // Catching does not keep a stopped program going.
    assert_stopped(
        &ws,
        "for (;;) { try { while (true) {} } catch (e) {} }",
        "limit: ",
        "cpu_limit_ms",
    );
    // A regular expression that backtracks for ever is stopped too.
    assert_stopped(
        &ws,
        "/(a+)+$/.test('a'.repeat(40) + 'b')",
        "limit: ",
        "cpu_limit_ms",
    );
}

#[test]
fn the_run_is_stopped_at_its_clock_limit_even_between_gg_calls() {
    let fx = Fx::new();
    fx.write("a.txt", "a\n");
    let ws = code_arm(&fx, "[code]\ntime_limit_ms = 300\n");
    assert_stopped(
        &ws,
        "for (;;) { try { gg.files.readFile('a.txt') } catch (e) {} }",
        "limit: ",
        "time_limit_ms",
    );
}

#[test]
fn a_huge_allocation_is_refused_at_the_memory_limit() {
    let fx = Fx::new();
    let ws = code_arm(&fx, "[code]\nmemory_limit_mib = 16\n");
    assert_stopped(&ws, "'x'.repeat(1 << 28)", "limit: ", "memory_limit_mib");
    assert_stopped(
        &ws,
        "const a = []; for (;;) a.push(new Array(1e5).fill(1));",
        "limit: ",
        "memory_limit_mib",
    );
}

#[test]
fn deep_recursion_is_stopped_at_the_stack_limit() {
    let fx = Fx::new();
    let ws = code_arm(&fx, "");
    assert_stopped(
        &ws,
        "function f(n) { return f(n + 1) + 1 } f(0)",
        "limit: ",
        "stack_limit_kib",
    );
}

#[test]
fn an_output_flood_is_stopped_at_the_output_limit_with_what_fit() {
    let fx = Fx::new();
    let ws = code_arm(&fx, "[code]\noutput_limit_kib = 4\n");
    let out = run(&ws, "for (let i = 0; ; i++) console.log('line ' + i)");
    assert!(out.is_error);
    let blocks = texts(&out);
    assert!(blocks[0].starts_with("limit: "), "{}", blocks[0]);
    assert!(blocks[0].contains("output_limit_kib"));
    assert!(blocks[1].starts_with("[console]\nline 0\nline 1\n"));
    assert!(blocks[1].len() <= 4096 + 100);
    // A returned value over the limit is cut and said to be.
    let out = run(&ws, "return 'y'.repeat(10000)");
    assert!(out.is_error);
    assert!(texts(&out)[0].starts_with("too-large: the returned value is 10,000 bytes"));
    assert_eq!(returned(&ws, "return 1"), json!(1));
}

#[test]
fn a_program_has_no_clock_timers_modules_or_host_access() {
    let fx = Fx::new();
    let ws = code_arm(&fx, "");
    let got = returned(
        &ws,
        r#"
        const kinds = {};
        for (const name of ["Date", "setTimeout", "setInterval", "fetch", "require", "process",
                            "std", "os", "XMLHttpRequest", "WebSocket", "Deno", "Bun"]) {
          kinds[name] = typeof globalThis[name];
        }
        let imported;
        try { await import("os"); imported = "yes"; } catch (e) { imported = "refused"; }
        const t0 = performance.now();
        return {kinds, imported, monotonic: performance.now() >= t0};
        "#,
    );
    for (name, kind) in got["kinds"].as_object().unwrap() {
        assert_eq!(kind, "undefined", "{name} is reachable");
    }
    assert_eq!(got["imported"], "refused");
    assert_eq!(got["monotonic"], true);
}

#[test]
fn syntax_errors_and_uncaught_throws_fail_the_run_with_their_line() {
    let fx = Fx::new();
    let ws = code_arm(&fx, "");
    let out = run(&ws, "const a = 1;\nconst b = ;\n");
    assert!(out.is_error);
    let first = &texts(&out)[0];
    assert!(
        first.starts_with("invalid-argument: the program is not valid JavaScript: SyntaxError"),
        "{first}"
    );
    assert!(first.contains("line 2"), "{first}");
    let out = run(&ws, "console.log('before');\nnull.x;\n");
    let blocks = texts(&out);
    assert!(
        blocks[0].contains("TypeError") && blocks[0].contains("line 2"),
        "{}",
        blocks[0]
    );
    // What it printed before it failed is kept.
    assert_eq!(blocks[1], "[console]\nbefore");
    let out = run(&ws, "await new Promise(() => {})");
    assert!(texts(&out)[0].contains("nothing will settle"));
    let err = ws.call("run_code", json!({"code": "  "})).unwrap();
    assert!(
        err.is_error
            && err
                .text_content()
                .starts_with("invalid-argument: code is empty")
    );
}

#[test]
fn a_picture_read_by_the_program_is_a_descriptor_and_shown_only_through_a_view() {
    let fx = Fx::new();
    fx.write("mock.bin", png(6, 4));
    let ws = code_arm(&fx, "");
    let got = returned(&ws, "return gg.files.readFile('mock.bin')");
    assert_eq!(got["format"], "PNG");
    assert_eq!(got["width"], 6);
    assert_eq!(got["height"], 4);
    assert_eq!(got["shown"], false);
    assert_eq!(got["size"], png(6, 4).len());
    assert!(
        got["label"]
            .as_str()
            .unwrap()
            .starts_with("Image mock.bin: PNG, 6x4 pixels")
    );
    assert!(
        got["reason"]
            .as_str()
            .unwrap()
            .contains("gg.views.openFile")
    );
    // The descriptor puts no picture into the window; a view does.
    let out = run(&ws, "gg.files.readFile('mock.bin')");
    assert!(
        !out.content
            .iter()
            .any(|c| matches!(c, Content::Image { .. }))
    );
    let out = run(&ws, "return gg.views.openFile('mock.bin')");
    let images: Vec<&Content> = out
        .content
        .iter()
        .filter(|c| matches!(c, Content::Image { .. }))
        .collect();
    assert_eq!(images.len(), 1);
    assert!(matches!(images[0], Content::Image { mime: "image/png", data } if *data == png(6, 4)));
    let text = out.text_content();
    assert!(text.contains("\"kind\": \"image\""), "{text}");
    assert!(text.contains("of it images"), "{text}");
    // Without vision the view describes the picture.
    let blind = code_arm_with(&fx, "", |o| o.no_vision = true);
    let out = run(&blind, "gg.views.openFile('mock.bin')");
    assert!(
        !out.content
            .iter()
            .any(|c| matches!(c, Content::Image { .. }))
    );
    assert!(out.text_content().contains("this model cannot see images"));
}

#[test]
fn view_caps_refuse_an_over_cap_window_and_name_the_window_that_fits() {
    let fx = Fx::new();
    let body: String = (1..=50).map(|i| format!("line {i}\n")).collect();
    fx.write("long.txt", &body);
    fx.write("wide.txt", format!("{}\nshort\n", "w".repeat(3000)));
    let ws = code_arm(&fx, "[code]\nview_max_lines = 10\nview_max_kib = 2\n");
    let out = run(&ws, "gg.views.openFile('long.txt')");
    assert!(out.is_error);
    let refusal = &texts(&out)[0];
    assert!(
        refusal.starts_with("too-large: a view of long.txt lines 1-50 would carry 50 lines"),
        "{refusal}"
    );
    assert!(refusal.contains("view_max_lines") && refusal.contains("nothing was opened"));
    assert!(
        refusal.contains("gg.views.openFile(\"long.txt\", {offset: 1, limit: 10})"),
        "{refusal}"
    );
    // Following the refusal's text opens every line, once, in views that fit.
    let out = run(
        &ws,
        "for (let offset = 1; offset <= 50; offset += 10) gg.views.openFile('long.txt', {offset, limit: 10})",
    );
    assert!(!out.is_error, "{}", out.text_content());
    let shown: String = texts(&out)[..5]
        .iter()
        .map(|b| {
            let body = b.split_once('\n').unwrap().1;
            body.lines()
                .filter(|l| !l.starts_with("[showing"))
                .map(|l| format!("{l}\n"))
                .collect::<String>()
        })
        .collect();
    assert_eq!(shown, body);
    // A line alone over the byte cap cannot be viewed: the refusal says how to read it.
    let out = run(&ws, "gg.views.openFile('wide.txt', {limit: 1})");
    let refusal = &texts(&out)[0];
    assert!(refusal.contains("line 1 alone is over 2 KiB"), "{refusal}");
    assert!(refusal.contains("gg.files.readFile(\"wide.txt\", {offset: 1, limit: 1})"));
}

#[test]
fn opening_a_path_again_opens_a_second_view() {
    let fx = Fx::new();
    fx.write("a.txt", "alpha\n");
    let ws = code_arm(&fx, "");
    let out = run(
        &ws,
        "gg.views.openFile('a.txt'); gg.files.writeFile('a.txt', 'beta\\n'); gg.views.openFile('a.txt')",
    );
    let blocks = texts(&out);
    assert!(blocks[0].starts_with("[view 1: a.txt,"), "{}", blocks[0]);
    assert!(blocks[0].ends_with("\nalpha\n"));
    assert!(blocks[1].starts_with("[view 2: a.txt,"), "{}", blocks[1]);
    assert!(blocks[1].ends_with("\nbeta\n"));
}

#[test]
fn capabilities_and_allowlists_decide_which_functions_exist() {
    let fx = Fx::new();
    fx.write("a.txt", "a\n");
    let toml = "[capabilities.write-file]\nenabled = false\n[agents.reader]\nallow = [\"read_file\", \"search\", \"write_file\"]\n";
    let ws = code_arm(&fx, toml);
    let got = returned(
        &ws,
        r#"
        let thrown;
        try { gg.files.writeFile("b.txt", "x"); } catch (e) { thrown = [e.kind, e.message]; }
        return {files: Object.keys(gg.files), views: Object.keys(gg.views),
                has: "writeFile" in gg.files, thrown};
        "#,
    );
    assert_eq!(
        got["files"],
        json!(["readFile", "tree", "search", "editFile", "listDir"])
    );
    assert_eq!(got["views"], json!(["openFile"]));
    assert_eq!(got["has"], false);
    assert_eq!(got["thrown"][0], "denied");
    let tool_refusal = fx.call("write_file", json!({"path": "b.txt", "content": "x"}));
    assert!(
        !tool_refusal.is_error,
        "the tool arm here has every capability"
    );
    let message = got["thrown"][1].as_str().unwrap();
    assert!(
        message.starts_with(
            "denied: gg.files.writeFile is not enabled in this configuration; the functions \
             offered are gg.files.readFile, gg.files.tree, gg.files.search, gg.files.editFile, \
             gg.files.listDir, gg.views.openFile"
        ),
        "{message}"
    );
    assert!(!fx.path("b.txt").exists() || fx.bytes("b.txt") == b"x");
    // An agent's allowlist: only what it allows exists.
    let agent = code_arm_with(&fx, toml, |o| o.agent = Some("reader".into()));
    let got = returned(
        &agent,
        "let m; try { gg.files.tree() } catch (e) { m = e.message } return [Object.keys(gg.files), m]",
    );
    assert_eq!(got[0], json!(["readFile", "search"]));
    assert!(
        got[1]
            .as_str()
            .unwrap()
            .contains("not on the allowlist of agent \"reader\""),
        "{}",
        got[1]
    );
    // With no capability at all there is no run_code.
    let none = code_arm(
        &fx,
        "[capabilities.read-file]\nenabled = false\n[capabilities.write-file]\nenabled = false\n[capabilities.edit-file]\nenabled = false\n[capabilities.list-dir]\nenabled = false\n[capabilities.search]\nenabled = false\n",
    );
    assert!(none.tools().is_empty());
}

#[test]
fn a_cancelled_run_stops_its_program() {
    let fx = Fx::new();
    let ws = code_arm(&fx, "[code]\ncpu_limit_ms = 60000\ntime_limit_ms = 60000\n");
    let flag = Arc::new(AtomicBool::new(false));
    let ctx = CallContext::with_flag(Arc::clone(&flag));
    let setter = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        flag.store(true, Ordering::Relaxed);
    });
    let started = std::time::Instant::now();
    let out = ws
        .call_with(
            "run_code",
            json!({"code": "console.log('started'); while (true) {}"}),
            &ctx,
        )
        .unwrap();
    setter.join().unwrap();
    assert!(started.elapsed() < Duration::from_secs(20));
    assert!(out.is_error);
    let blocks = texts(&out);
    assert!(blocks[0].starts_with("cancelled: "), "{}", blocks[0]);
    assert_eq!(blocks[1], "[console]\nstarted");
}

#[test]
fn a_program_following_the_paging_footer_reads_every_line_once() {
    let fx = Fx::new();
    let body: String = (1..=1234).map(|i| format!("row {i}\n")).collect();
    fx.write("big.txt", &body);
    let ws = code_arm(
        &fx,
        "[capabilities.read-file]\nparams = { lineCap = 100 }\n",
    );
    let got = returned(
        &ws,
        r#"
        let offset = 1, text = "", calls = 0;
        for (;;) {
          const page = gg.files.readFile("big.txt", {offset});
          calls++;
          const at = page.lastIndexOf("[showing");
          text += at >= 0 ? page.slice(0, at) : page;
          const next = at >= 0 && page.slice(at).match(/continue with offset: (\d+)/);
          if (!next) break;
          offset = Number(next[1]);
        }
        return {text, calls};
        "#,
    );
    assert_eq!(got["text"].as_str().unwrap(), body);
    assert_eq!(got["calls"], 13);
}

#[test]
fn the_code_prompt_opens_with_the_tree_and_search_and_never_states_the_line_cap() {
    let fx = Fx::new();
    fx.write("engine/game.js", "x\n");
    fx.write("README.md", "r\n");
    let ws = code_arm(
        &fx,
        "[capabilities.read-file]\nparams = { lineCap = 437 }\n",
    );
    let prompt = ws.prompt();
    assert!(
        prompt.starts_with("# Filesystem: responses as code\n"),
        "{prompt}"
    );
    let tree_at = prompt.find("README.md\nengine/\n  game.js").unwrap();
    let search_at = prompt.find("## gg.files.search").unwrap();
    let views_at = prompt.find("## Views").unwrap();
    assert!(tree_at < search_at && search_at < views_at);
    assert!(
        !prompt.contains("437"),
        "the prompt states the line cap: {prompt}"
    );
    assert!(!ws.tools()[0].description.contains("437"));
    assert!(!prompt.contains("Reading images is unsupported"));
    let blind = code_arm_with(&fx, "", |o| o.no_vision = true);
    let prompt = blind.prompt();
    let views = &prompt[prompt.find("## Views").unwrap()..];
    assert!(
        views.contains("\nReading images is unsupported.\n"),
        "{views}"
    );
}

#[test]
fn vision_learned_at_run_time_reaches_every_workspace_of_the_server() {
    let fx = Fx::new();
    fx.write("m.png", png(3, 3));
    let switch = fsgate_core::vision::VisionSwitch::new();
    let tools_arm = {
        let mut options = Options::new(fx.dir.path());
        options.vision = switch.clone();
        Workspace::open(options).unwrap()
    };
    let code = code_arm_with(&fx, "", |o| o.vision = switch.clone());
    let image = |out: &ToolOutput| {
        out.content
            .iter()
            .any(|c| matches!(c, Content::Image { .. }))
    };
    assert!(image(
        &tools_arm
            .call("read_file", json!({"path": "m.png"}))
            .unwrap()
    ));
    assert!(image(&run(&code, "gg.views.openFile('m.png')")));
    assert!(code.learn_no_vision());
    assert!(!tools_arm.learn_no_vision(), "already learned");
    let out = tools_arm
        .call("read_file", json!({"path": "m.png"}))
        .unwrap();
    assert!(!image(&out));
    assert!(out.text_content().contains("this model cannot see images"));
    assert!(!image(&run(&code, "gg.views.openFile('m.png')")));
    assert!(tools_arm.prompt().contains("Reading images is unsupported"));
    assert!(code.prompt().contains("Reading images is unsupported."));
    let read_file = tools_arm
        .tools()
        .into_iter()
        .find(|t| t.name == "read_file")
        .unwrap();
    assert!(read_file.description.contains("cannot see images"));
}

#[test]
fn an_ignored_root_and_a_picture_without_vision_say_why_in_the_value() {
    let fx = Fx::new();
    fx.write(".gitignore", "build/\n");
    fx.write("build/out.txt", "x\n");
    fx.write("m.png", png(2, 2));
    let ws = code_arm_with(&fx, "", |o| o.no_vision = true);
    let got = returned(
        &ws,
        "const t = gg.files.tree('build'); return {n: t.length, note: t.note, image: gg.files.readFile('m.png').reason}",
    );
    assert_eq!(got["n"], 0);
    let note = got["note"].as_str().unwrap();
    assert!(
        note.contains("is excluded by the workspace's ignore files"),
        "{note}"
    );
    assert!(note.contains("gg.files.listDir"), "{note}");
    assert!(
        got["image"]
            .as_str()
            .unwrap()
            .contains("this model cannot see images"),
        "{}",
        got["image"]
    );
}
