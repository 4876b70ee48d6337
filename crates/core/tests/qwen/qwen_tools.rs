//! The qwen profile's seven tools with Qwen Code's parameters, defaults and output texts
//! (list_directory, read_file, glob, grep_search), its ignore files, media handling, and the
//! MCP annotations that make clients ask for confirmation exactly where Qwen Code's tools do
//! (write_file, edit and notebook_edit).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

use crate::qwen_support;

use std::time::{Duration, SystemTime};

use fsgate_core::QwenConfig;
use fsgate_core::config::qwen::Modalities;
use qwen_support::{Qx, images, resources};
use serde_json::json;

const PNG_1X1: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0B, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x60, 0x00, 0x02, 0x00,
    0x00, 0x05, 0x00, 0x01, 0x7A, 0x5E, 0xAB, 0x3F, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44,
    0xAE, 0x42, 0x60, 0x82,
];

fn set_mtime(fx: &Qx, rel: &str, secs_ago: u64) {
    let file = std::fs::File::options()
        .write(true)
        .open(fx.root().join(rel))
        .unwrap();
    file.set_modified(SystemTime::now() - Duration::from_secs(secs_ago))
        .unwrap();
}

#[test]
fn the_seven_tools_in_order_with_confirmation_where_qwen_code_asks() {
    let fx = Qx::new();
    let tools = fx.ws.tools();
    let names: Vec<&str> = tools.iter().map(|t| t.name).collect();
    assert_eq!(
        names,
        [
            "list_directory",
            "read_file",
            "notebook_edit",
            "write_file",
            "glob",
            "grep_search",
            "edit"
        ]
    );
    for tool in &tools {
        let confirm = matches!(tool.name, "notebook_edit" | "write_file" | "edit");
        assert_eq!(tool.read_only, !confirm, "{}", tool.name);
        assert_eq!(tool.destructive, confirm, "{}", tool.name);
        assert!(!tool.description.is_empty());
    }
    let required = |name: &str| {
        tools.iter().find(|t| t.name == name).unwrap().input_schema["required"].clone()
    };
    assert_eq!(required("list_directory"), json!(["path"]));
    assert_eq!(required("read_file"), json!(["path"]));
    assert_eq!(required("notebook_edit"), json!(["notebook_path"]));
    assert_eq!(required("write_file"), json!(["file_path", "content"]));
    assert_eq!(required("glob"), json!(["pattern"]));
    assert_eq!(required("grep_search"), json!(["pattern"]));
    assert_eq!(
        required("edit"),
        json!(["file_path", "old_string", "new_string"])
    );
    let props = |name: &str| -> Vec<String> {
        let tool = tools.iter().find(|t| t.name == name).unwrap();
        tool.input_schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect()
    };
    assert_eq!(
        props("list_directory"),
        ["path", "ignore", "respect_git_ignore"]
    );
    assert_eq!(props("read_file"), ["path", "offset", "limit"]);
    assert_eq!(
        props("notebook_edit"),
        [
            "notebook_path",
            "cell_id",
            "new_source",
            "cell_type",
            "edit_mode"
        ]
    );
    assert_eq!(props("grep_search"), ["pattern", "path", "glob", "limit"]);
    assert_eq!(
        props("edit"),
        ["file_path", "old_string", "new_string", "replace_all"]
    );
    assert!(fx.ws.call("read_many_files", json!({})).is_err());
    assert!(fx.ws.prompt().contains("notebook_edit"));
}

#[test]
fn list_directory_puts_directories_first_then_alphabetical() {
    let fx = Qx::new();
    for f in ["b.txt", "A.md", "zeta/x", "Alpha/y", "c.png"] {
        fx.write(f, "x");
    }
    assert_eq!(
        fx.ok("list_directory", json!({"path": fx.abs("")})),
        format!(
            "Directory listing for {}:\n[DIR] Alpha\n[DIR] zeta\nA.md\nb.txt\nc.png",
            fx.abs("")
        )
    );
    assert_eq!(
        fx.ok(
            "list_directory",
            json!({"path": fx.abs(""), "ignore": ["*.png", "zeta"]})
        ),
        format!(
            "Directory listing for {}:\n[DIR] Alpha\nA.md\nb.txt",
            fx.abs("")
        )
    );
}

#[test]
fn list_directory_honours_and_counts_ignore_files() {
    let fx = Qx::new();
    fx.write(".gitignore", "*.log\nbuild/\n");
    fx.write(".qwenignore", "secret.txt\n");
    fx.write(".aiignore", "notes.md\n");
    for f in [
        "a.log",
        "build/o",
        "secret.txt",
        "notes.md",
        "keep.rs",
        ".git/HEAD",
    ] {
        fx.write(f, "x");
    }
    let root = fx.abs("");
    assert_eq!(
        fx.ok("list_directory", json!({"path": root})),
        format!(
            "Directory listing for {root}:\n.aiignore\n.gitignore\n.qwenignore\nkeep.rs\n\n(3 git-ignored, 2 qwen-ignored)"
        )
    );
    assert_eq!(
        fx.ok(
            "list_directory",
            json!({"path": root, "respect_git_ignore": false})
        ),
        format!(
            "Directory listing for {root}:\n[DIR] .git\n[DIR] build\n.aiignore\n.gitignore\n.qwenignore\na.log\nkeep.rs\n\n(2 qwen-ignored)"
        )
    );
}

#[test]
fn list_directory_of_a_subfolder_applies_the_ignore_files_above_and_in_it() {
    let fx = Qx::new();
    // Anchored, folder-only and negated rules of the root, a rule of the subfolder's own file,
    // and a .qwenignore path rule: each is asked of the subfolder's entries as a walk asks it.
    fx.write(
        ".gitignore",
        "/src/gen.rs
out/
*.tmp
!keep.tmp
",
    );
    fx.write(
        "src/.gitignore",
        "local.txt
",
    );
    fx.write(
        ".qwenignore",
        "src/private.rs
",
    );
    for f in [
        "src/gen.rs",
        "src/out/o",
        "src/x.tmp",
        "src/keep.tmp",
        "src/local.txt",
        "src/private.rs",
        "src/lib.rs",
        "src/sub/gen.rs",
        ".git/HEAD",
    ] {
        fx.write(f, "x");
    }
    let dir = fx.abs("src");
    assert_eq!(
        fx.ok("list_directory", json!({"path": dir})),
        format!(
            "Directory listing for {dir}:\n[DIR] sub\n.gitignore\nkeep.tmp\nlib.rs\n\n(4 git-ignored, 1 qwen-ignored)"
        )
    );
    assert_eq!(
        fx.ok("list_directory", json!({"path": fx.abs("src/sub")})),
        format!("Directory listing for {}:\ngen.rs", fx.abs("src/sub"))
    );
}

#[test]
fn list_directory_failures() {
    let fx = Qx::new();
    fx.write("f.txt", "x");
    fx.write("empty/.keep", "");
    std::fs::remove_file(fx.root().join("empty/.keep")).unwrap();
    assert_eq!(
        fx.ok("list_directory", json!({"path": fx.abs("empty")})),
        format!("Directory {} is empty.", fx.abs("empty"))
    );
    assert_eq!(
        fx.err("list_directory", json!({"path": fx.abs("f.txt")})),
        format!("Path is not a directory: {}", fx.abs("f.txt"))
    );
    assert_eq!(
        fx.err("list_directory", json!({"path": fx.abs("nope")})),
        format!("Directory not found or inaccessible: {}", fx.abs("nope"))
    );
    assert_eq!(
        fx.err("list_directory", json!({})),
        "params must have required property 'path'"
    );
}

#[test]
fn read_file_shows_2000_lines_by_default_with_the_truncation_prefix() {
    let fx = Qx::new();
    let text: String = (1..=2500).map(|i| format!("line {i}\n")).collect();
    fx.write("big.txt", &text);
    let out = fx.ok("read_file", json!({"path": fx.abs("big.txt")}));
    let expected: String = (1..=2000).map(|i| format!("line {i}\n")).collect();
    assert_eq!(
        out,
        format!(
            "[File content truncated: showing lines 1-2000 of 2500 total lines. Use offset/limit parameters to view more.]\n{expected}"
        )
    );
    let out = fx.ok(
        "read_file",
        json!({"path": fx.abs("big.txt"), "offset": 2498, "limit": 10}),
    );
    assert_eq!(
        out,
        "[File content truncated: showing lines 2499-2500 of 2500 total lines. Use offset/limit parameters to view more.]\nline 2499\nline 2500\n"
    );
    let err = fx.err(
        "read_file",
        json!({"path": fx.abs("big.txt"), "offset": 2500}),
    );
    assert!(err.starts_with("Offset 2500 is beyond the end of"), "{err}");
    assert_eq!(
        fx.err(
            "read_file",
            json!({"path": fx.abs("big.txt"), "offset": -1})
        ),
        "Offset must be a non-negative number"
    );
    assert_eq!(
        fx.err("read_file", json!({"path": fx.abs("big.txt"), "limit": 0})),
        "Limit must be a positive number"
    );
}

#[test]
fn read_file_of_a_small_file_is_its_text_and_long_lines_are_cut() {
    let fx = Qx::new();
    fx.write("a.txt", "one\r\ntwo\r\n");
    assert_eq!(
        fx.ok("read_file", json!({"path": fx.abs("a.txt")})),
        "one\ntwo\n"
    );
    fx.write("long.txt", format!("{}\nshort\n", "x".repeat(2500)));
    assert_eq!(
        fx.ok("read_file", json!({"path": fx.abs("long.txt")})),
        format!(
            "[File content partially truncated: some lines exceeded maximum length of 2000 characters.]\n{}... [truncated]\nshort\n",
            "x".repeat(2000)
        )
    );
    fx.write("empty.txt", "");
    assert_eq!(fx.ok("read_file", json!({"path": fx.abs("empty.txt")})), "");
}

#[test]
fn read_file_failures_and_binaries() {
    let fx = Qx::new();
    fx.write("data.bin", b"\x00\x01\x02binary");
    fx.write("dir/x", "");
    assert_eq!(
        fx.ok("read_file", json!({"path": fx.abs("data.bin")})),
        format!(
            "Cannot display content of binary file: {}",
            fx.abs("data.bin")
        )
    );
    assert_eq!(
        fx.err("read_file", json!({"path": fx.abs("nope.txt")})),
        format!("File not found: {}", fx.abs("nope.txt"))
    );
    assert_eq!(
        fx.err("read_file", json!({"path": fx.abs("dir")})),
        format!("Path is a directory, not a file: {}", fx.abs("dir"))
    );
    fx.write(".qwenignore", "private/\n");
    fx.write("private/p.txt", "p");
    assert_eq!(
        fx.err("read_file", json!({"path": fx.abs("private/p.txt")})),
        format!(
            "File path '{}' is ignored by .qwenignore pattern(s).",
            fx.abs("private/p.txt")
        )
    );
}

#[test]
fn images_are_attached_when_vision_is_on_and_media_refused_otherwise() {
    let fx = Qx::new();
    fx.write("pic.png", PNG_1X1);
    fx.write("doc.pdf", b"%PDF-1.4\n%...\n");
    fx.write("song.mp3", b"ID3\x03\x00");
    fx.write("icon.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n");
    let out = fx.call("read_file", json!({"path": fx.abs("pic.png")}));
    assert!(!out.is_error);
    assert_eq!(images(&out), [("image/png", PNG_1X1.to_vec())]);
    assert_eq!(out.content.len(), 1);
    let guidance = |kind: &str, name: &str| {
        format!(
            "[Unsupported {kind} file: \"{name}\". This model does not support {kind} input. The read_file tool cannot process this type of file either. To handle this file, try using skills if applicable, or any tools installed at system wide, or let the user know you cannot process this type of file.]"
        )
    };
    assert_eq!(
        fx.err("read_file", json!({"path": fx.abs("doc.pdf")})),
        guidance("pdf", "doc.pdf")
    );
    assert_eq!(
        fx.err("read_file", json!({"path": fx.abs("song.mp3")})),
        guidance("audio", "song.mp3")
    );
    assert_eq!(
        fx.ok("read_file", json!({"path": fx.abs("icon.svg")})),
        "<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n"
    );

    let blind = Qx::with(QwenConfig {
        modalities: Modalities {
            image: false,
            pdf: true,
        },
        ..QwenConfig::default()
    });
    blind.write("pic.png", PNG_1X1);
    blind.write("doc.pdf", b"%PDF-1.4\n");
    assert_eq!(
        blind.err("read_file", json!({"path": blind.abs("pic.png")})),
        guidance("image", "pic.png")
    );
    let out = blind.call("read_file", json!({"path": blind.abs("doc.pdf")}));
    assert!(!out.is_error);
    let embedded = resources(&out);
    assert_eq!(
        embedded.len(),
        1,
        "a PDF is one embedded resource: {:?}",
        out.content
    );
    assert!(embedded[0].0.starts_with("file:///") && embedded[0].0.ends_with("/doc.pdf"));
    assert_eq!(embedded[0].1, "application/pdf");
    assert_eq!(embedded[0].2, b"%PDF-1.4\n");
}

#[test]
fn glob_lists_absolute_paths_newest_first() {
    let fx = Qx::new();
    for (f, age) in [
        ("src/old.ts", 300),
        ("src/new.ts", 10),
        ("src/deep/mid.TS", 100),
        ("top.ts", 200),
        ("src/x.js", 0),
    ] {
        fx.write(f, "x");
        set_mtime(&fx, f, age);
    }
    let root = fx.root().to_string_lossy().into_owned();
    assert_eq!(
        fx.ok("glob", json!({"pattern": "src/**/*.ts"})),
        format!(
            "Found 3 file(s) matching \"src/**/*.ts\" within {root}, sorted by modification time (newest first):\n---\n{}\n{}\n{}",
            fx.abs("src/new.ts"),
            fx.abs("src/deep/mid.TS"),
            fx.abs("src/old.ts")
        )
    );
    // * stays within one directory; the path argument is the directory searched.
    assert_eq!(
        fx.ok("glob", json!({"pattern": "*.ts"})),
        format!(
            "Found 1 file(s) matching \"*.ts\" within {root}, sorted by modification time (newest first):\n---\n{}",
            fx.abs("top.ts")
        )
    );
    let src = fx.abs("src");
    assert!(
        fx.ok("glob", json!({"pattern": "*.ts", "path": src}))
            .starts_with(&format!("Found 2 file(s) matching \"*.ts\" within {src},"))
    );
    assert_eq!(
        fx.ok("glob", json!({"pattern": "*.rs"})),
        format!("No files found matching pattern \"*.rs\" within {root}")
    );
}

#[test]
fn glob_shows_100_files_and_counts_the_rest() {
    let fx = Qx::new();
    for i in 0..105 {
        fx.write(&format!("f{i:03}.txt"), "x");
    }
    let out = fx.ok("glob", json!({"pattern": "*.txt"}));
    assert!(out.starts_with(&format!(
        "Found 105 file(s) matching \"*.txt\" within {},",
        fx.root().display()
    )));
    assert!(
        out.ends_with("\n---\n[5 files truncated] ..."),
        "{}",
        &out[out.len() - 80..]
    );
    assert_eq!(out.lines().filter(|l| l.starts_with('/')).count(), 100);
}

#[test]
fn glob_and_grep_respect_gitignore_qwenignore_and_configured_files() {
    let fx = Qx::with(QwenConfig {
        custom_ignore_files: vec!["config/agent.ignore".into()],
        ..QwenConfig::default()
    });
    fx.write(".git/HEAD", "ref: refs/heads/main\n");
    fx.write(".gitignore", "dist/\n");
    fx.write(".qwenignore", "*.secret.py\n");
    fx.write("config/agent.ignore", "vendor/\n");
    fx.write(".aiignore", "kept.py\n"); // not configured any more
    for f in [
        "dist/a.py",
        "b.secret.py",
        "vendor/c.py",
        "kept.py",
        "src/d.py",
    ] {
        fx.write(f, "needle\n");
    }
    let out = fx.ok("glob", json!({"pattern": "**/*.py"}));
    assert!(out.starts_with("Found 2 file(s)"), "{out}");
    assert!(out.contains(&fx.abs("kept.py")) && out.contains(&fx.abs("src/d.py")));
    let out = fx.ok("grep_search", json!({"pattern": "needle"}));
    assert_eq!(
        out,
        "Found 2 matches for pattern \"needle\" in path \".\":\n---\nkept.py:1:needle\nsrc/d.py:1:needle\n---\n\n[0 lines truncated] ..."
    );
    let open = Qx::with(QwenConfig {
        respect_git_ignore: false,
        respect_qwen_ignore: false,
        ..QwenConfig::default()
    });
    open.write(".gitignore", "dist/\n");
    open.write(".qwenignore", "b.py\n");
    open.write("dist/a.py", "x");
    open.write("b.py", "x");
    assert!(
        open.ok("glob", json!({"pattern": "**/*.py"}))
            .starts_with("Found 2 file(s)")
    );
}

#[test]
fn grep_search_applies_gitignore_only_inside_a_git_repository_as_ripgrep_does() {
    // Two projects side by side in a folder that is no repository: one a git repository, one
    // a plain copy. ripgrep (which Qwen Code searches with) reads the repository's .gitignore
    // and not the copy's, so the copy's ignored file is searched and counted.
    let fx = Qx::new();
    fx.write(".gitignore", "top.txt\n");
    fx.write("repo/.git/HEAD", "ref: refs/heads/main\n");
    fx.write("repo/.gitignore", "Cargo.lock\n");
    fx.write("copy/.gitignore", "Cargo.lock\n");
    for f in [
        "top.txt",
        "repo/Cargo.lock",
        "repo/src.rs",
        "copy/Cargo.lock",
        "copy/src.rs",
    ] {
        fx.write(f, "needle\n");
    }
    assert_eq!(
        fx.ok("grep_search", json!({"pattern": "NEEDLE"})),
        "Found 4 matches for pattern \"NEEDLE\" in path \".\":\n---\ncopy/Cargo.lock:1:needle\ncopy/src.rs:1:needle\nrepo/src.rs:1:needle\ntop.txt:1:needle\n---\n\n[0 lines truncated] ..."
    );
    // Inside a repository every .gitignore from its top down counts.
    fx.write(".git/HEAD", "ref: refs/heads/main\n");
    assert_eq!(
        fx.ok("grep_search", json!({"pattern": "needle"})),
        "Found 2 matches for pattern \"needle\" in path \".\":\n---\ncopy/src.rs:1:needle\nrepo/src.rs:1:needle\n---\n\n[0 lines truncated] ..."
    );
    // glob and list_directory keep Qwen Code's own file discovery: .gitignore counts there
    // (unchanged by this rule).
    let plain = Qx::new();
    plain.write(".gitignore", "x.log\n");
    plain.write("x.log", "needle\n");
    assert!(
        plain
            .ok("glob", json!({"pattern": "*.log"}))
            .starts_with("No files found")
    );
    assert!(
        plain
            .ok("grep_search", json!({"pattern": "needle"}))
            .starts_with("Found 1 match")
    );
}

#[test]
fn grep_search_is_case_insensitive_with_its_header_and_footer() {
    let fx = Qx::new();
    fx.write(
        "src/utils.ts",
        "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\nexport function myFunction() {\n",
    );
    fx.write("src/index.ts", "import { MYFUNCTION } from './utils';\n");
    fx.write("src/readme.md", "myFunction docs\n");
    let out = fx.ok(
        "grep_search",
        json!({"pattern": "myfunction", "glob": "*.ts"}),
    );
    assert_eq!(
        out,
        "Found 2 matches for pattern \"myfunction\" in path \".\" (filter: \"*.ts\"):\n---\nsrc/index.ts:1:import { MYFUNCTION } from './utils';\nsrc/utils.ts:15:export function myFunction() {\n---\n\n[0 lines truncated] ..."
    );
    let out = fx.ok(
        "grep_search",
        json!({"pattern": "myFunction", "path": "src", "limit": 1}),
    );
    assert_eq!(
        out,
        "Found 3 matches for pattern \"myFunction\" in path \"src\":\n---\nsrc/index.ts:1:import { MYFUNCTION } from './utils';\n---\n\n[2 lines truncated] ..."
    );
    assert_eq!(
        fx.ok(
            "grep_search",
            json!({"pattern": "absent", "path": "src", "glob": "*.md"})
        ),
        "No matches found for pattern \"absent\" in path \"src\" (filter: \"*.md\")."
    );
    let err = fx.err("grep_search", json!({"pattern": "fn("}));
    assert!(
        err.starts_with("Invalid regular expression pattern: fn(. Error: "),
        "{err}"
    );
    assert_eq!(
        fx.err("grep_search", json!({"pattern": "a", "limit": 0})),
        "limit must be a positive integer"
    );
}

#[test]
fn grep_search_skips_binaries_and_searches_one_file() {
    let fx = Qx::new();
    fx.write("a.bin", b"needle\x00\n");
    fx.write("b.txt", "needle one\nnone\nNEEDLE two\n");
    let out = fx.ok(
        "grep_search",
        json!({"pattern": "needle", "path": fx.abs("b.txt")}),
    );
    assert_eq!(
        out,
        format!(
            "Found 2 matches for pattern \"needle\" in path \"{}\":\n---\nb.txt:1:needle one\nb.txt:3:NEEDLE two\n---\n\n[0 lines truncated] ...",
            fx.abs("b.txt")
        )
    );
    assert!(
        fx.ok("grep_search", json!({"pattern": "needle"}))
            .starts_with("Found 2 matches")
    );
}

#[test]
fn the_settings_file_configures_the_profile() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    std::fs::write(
        &path,
        r#"{ "general": { "defaultFileEncoding": "utf-8-bom" }, // new files get a BOM
             "model": { "modalities": { "image": false } } }"#,
    )
    .unwrap();
    let config = QwenConfig::load(&path).unwrap();
    let fx = Qx::with(config);
    fx.ok(
        "write_file",
        json!({"file_path": fx.abs("n.txt"), "content": "x"}),
    );
    assert_eq!(fx.read("n.txt"), b"\xEF\xBB\xBFx");
    std::fs::write(&path, r#"{"general": {"defaultFileEncoding": "latin1"}}"#).unwrap();
    let err = QwenConfig::load(&path).unwrap_err();
    assert_eq!(err.problems[0].key, "general.defaultFileEncoding");
}

/// Issue 17 item 5: a minified bundle with a hit at byte 499,000 of its one line no longer
/// spends the whole 25,000-character budget and pushes the real hits out.
#[test]
fn a_minified_bundle_line_is_cut_and_the_other_hits_are_still_shown() {
    let fx = Qx::new();
    fx.write("a/first.js", "const retryCount = 1;\n");
    let bundle = format!("{}retryCount=2;{}", "x".repeat(499_000), "y".repeat(60_000));
    fx.write("b/app.min.js", format!("{bundle}\n"));
    fx.write("c/last.js", "export { retryCount };\n");
    let out = fx.ok("grep_search", json!({"pattern": "retrycount"}));
    assert!(out.starts_with("Found 3 matches"), "{}", &out[..200]);
    assert!(
        out.contains("a/first.js:1:const retryCount = 1;"),
        "{out:.300}"
    );
    assert!(
        out.contains("c/last.js:1:export { retryCount };"),
        "{out:.300}"
    );
    assert!(
        out.ends_with("[0 lines truncated] ..."),
        "{}",
        &out[out.len() - 100..]
    );
    // The bundle's line is shown from a little before its match, cut like read_file's lines.
    let shown = out
        .lines()
        .find(|l| l.starts_with("b/app.min.js:1:"))
        .unwrap();
    assert!(
        shown.starts_with("b/app.min.js:1:[... 498900 characters] xxx"),
        "{:.80}",
        shown
    );
    assert!(shown.contains("retryCount=2;yyy"));
    assert!(shown.ends_with("... [truncated]"));
    assert!(out.chars().count() < 3_000, "{}", out.chars().count());
}
