//! search: Rust regular expressions per line, path order then line order, `path:line:text`,
//! limits, long lines, binary files, and ignore files.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use crate::gg_support;

use gg_support::{Fx, settle, settled_gen_layout};
use serde_json::json;

fn search(fx: &Fx, args: serde_json::Value) -> String {
    fx.ok("search", args)
}

// ---------------------------------------------------------------------------------------------
// Query and result format

#[test]
fn search_returns_path_line_text_in_path_order_then_line_order() {
    let fx = Fx::new();
    fx.write("b.txt", "hit one\nmiss\nhit two\n");
    fx.write("B.txt", "hit upper\n");
    fx.write("a-b.txt", "hit dash\n");
    fx.write("a/x.txt", "miss\nhit nested\n");
    fx.write("a/deeper/y.txt", "hit deeper\n");
    insta::assert_snapshot!(search(&fx, json!({"query": "hit"})), @r"
    B.txt:1:hit upper
    a/deeper/y.txt:1:hit deeper
    a/x.txt:2:hit nested
    a-b.txt:1:hit dash
    b.txt:1:hit one
    b.txt:3:hit two
    ");
}

#[test]
fn search_query_is_a_rust_regular_expression() {
    let fx = Fx::new();
    fx.write(
        "src/game.rs",
        "fn   update(dt: f32) {}\nfn render() {}\n// TODO: later\n// todo lower\nlet foo = bar;\n",
    );
    assert_eq!(
        search(&fx, json!({"query": r"fn\s+update"})),
        "src/game.rs:1:fn   update(dt: f32) {}"
    );
    assert_eq!(
        search(&fx, json!({"query": "(?i)todo"})),
        "src/game.rs:3:// TODO: later\nsrc/game.rs:4:// todo lower"
    );
    assert_eq!(
        search(&fx, json!({"query": "render|foo"})),
        "src/game.rs:2:fn render() {}\nsrc/game.rs:5:let foo = bar;"
    );
}

#[test]
fn search_caret_anchors_at_the_start_of_each_line() {
    let fx = Fx::new();
    fx.write("f.txt", "start middle end\nend\nstart\n");
    assert_eq!(search(&fx, json!({"query": "^end"})), "f.txt:2:end");
    assert_eq!(
        search(&fx, json!({"query": "^start"})),
        "f.txt:1:start middle end\nf.txt:3:start"
    );
}

#[test]
fn search_dollar_anchors_at_the_end_of_each_lf_terminated_line() {
    let fx = Fx::new();
    fx.write("f.txt", "start middle end\nend\nstart\n\nlast");
    assert_eq!(search(&fx, json!({"query": "^end$"})), "f.txt:2:end");
    assert_eq!(search(&fx, json!({"query": "^start$"})), "f.txt:3:start");
    assert_eq!(
        search(&fx, json!({"query": "end$"})),
        "f.txt:1:start middle end\nf.txt:2:end"
    );
    assert_eq!(search(&fx, json!({"query": "^$"})), "f.txt:4:");
    assert_eq!(
        search(&fx, json!({"query": "t$"})),
        "f.txt:3:start\nf.txt:5:last"
    );
}

#[test]
fn search_returns_crlf_lines_without_their_ending_and_anchors_before_it() {
    let fx = Fx::new();
    fx.write("w.txt", "one\r\ntwo\r\nthree");
    assert_eq!(search(&fx, json!({"query": "o$"})), "w.txt:2:two");
    assert_eq!(
        search(&fx, json!({"query": "e$"})),
        "w.txt:1:one\nw.txt:3:three"
    );
}

#[test]
fn search_without_matches_says_so() {
    let fx = Fx::new();
    fx.write("src/a.txt", "nothing here\n");
    assert_eq!(
        search(&fx, json!({"query": "zzz"})),
        "No matches for zzz in the workspace."
    );
    assert_eq!(
        search(&fx, json!({"query": "zzz", "path": "src"})),
        "No matches for zzz in src."
    );
}

#[test]
fn search_blank_query_is_invalid_argument() {
    let fx = Fx::new();
    for q in ["", "   ", "\t"] {
        assert_eq!(
            fx.err("search", json!({"query": q})),
            r"invalid-argument: query is blank; pass a regular expression to look for, e.g. fn\s+main or (?i)todo",
            "{q:?}"
        );
    }
}

#[test]
fn search_invalid_pattern_is_invalid_argument() {
    let fx = Fx::new();
    fx.write("f.txt", "call(x)\n");
    let msg = fx.err("search", json!({"query": "call("}));
    assert!(
        msg.starts_with(
            "invalid-argument: query \"call(\" is not a valid regular expression (Rust regex \
             syntax): "
        ),
        "{msg}"
    );
    assert!(
        msg.ends_with(
            "Escape special characters such as ( [ { . * + ? with a backslash to match them \
             literally."
        ),
        "{msg}"
    );
    // The escaped pattern works.
    assert_eq!(search(&fx, json!({"query": r"call\("})), "f.txt:1:call(x)");
}

#[test]
fn search_pattern_spanning_lines_is_invalid_argument() {
    let fx = Fx::new();
    fx.write("f.txt", "a\nb\n");
    let msg = fx.err("search", json!({"query": "a\nb"}));
    assert!(
        msg.starts_with("invalid-argument: query \"a\\nb\" can only match across a line break"),
        "{msg}"
    );
    assert!(msg.ends_with("search for text within one line"), "{msg}");
}

// ---------------------------------------------------------------------------------------------
// path

#[test]
fn search_path_roots_the_search_at_a_directory_or_a_file() {
    let fx = Fx::new();
    fx.write("src/a.rs", "needle\n");
    fx.write("src/sub/b.rs", "needle\n");
    fx.write("docs/c.md", "needle\n");
    assert_eq!(
        search(&fx, json!({"query": "needle", "path": "src"})),
        "src/a.rs:1:needle\nsrc/sub/b.rs:1:needle"
    );
    assert_eq!(
        search(&fx, json!({"query": "needle", "path": "./src/"})),
        "src/a.rs:1:needle\nsrc/sub/b.rs:1:needle"
    );
    assert_eq!(
        search(&fx, json!({"query": "needle", "path": "."})),
        "docs/c.md:1:needle\nsrc/a.rs:1:needle\nsrc/sub/b.rs:1:needle"
    );
    assert_eq!(
        search(&fx, json!({"query": "needle", "path": "src/sub/b.rs"})),
        "src/sub/b.rs:1:needle"
    );
    // An absolute path under the working directory still shows relative paths.
    let abs = fx.root().join("docs").to_string_lossy().into_owned();
    assert_eq!(
        search(&fx, json!({"query": "needle", "path": abs})),
        "docs/c.md:1:needle"
    );
}

#[test]
fn search_outside_the_working_directory_shows_absolute_paths() {
    let fx = Fx::new();
    let other = tempfile::tempdir().unwrap();
    gg_support::write(&other.path().join("o.txt"), b"needle\n");
    let abs = other.path().to_string_lossy().into_owned();
    assert_eq!(
        search(&fx, json!({"query": "needle", "path": abs})),
        format!("{abs}/o.txt:1:needle")
    );
}

#[test]
fn search_missing_path_is_not_found() {
    let fx = Fx::new();
    assert_eq!(
        fx.err("search", json!({"query": "x", "path": "nope"})),
        "not-found: nope does not exist; pass an existing directory or file as path, or leave \
         path out to search the whole workspace"
    );
}

// ---------------------------------------------------------------------------------------------
// limit

fn many(fx: &Fx, n: usize) {
    let content: String = (1..=n).map(|i| format!("match {i}\n")).collect();
    fx.write("m.txt", content);
}

#[test]
fn search_limit_defaults_to_50() {
    let fx = Fx::new();
    many(&fx, 300);
    let out = search(&fx, json!({"query": "match"}));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 50);
    assert_eq!(lines[0], "m.txt:1:match 1");
    assert_eq!(lines[49], "m.txt:50:match 50");
}

#[test]
fn search_limit_above_200_is_answered_with_the_first_200() {
    let fx = Fx::new();
    many(&fx, 300);
    let out = search(&fx, json!({"query": "match", "limit": 1000}));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 200);
    assert_eq!(lines[199], "m.txt:200:match 200");
    assert_eq!(search(&fx, json!({"query": "match", "limit": 201})), out);
}

#[test]
fn search_limit_is_honoured_across_files_in_path_order() {
    let fx = Fx::new();
    fx.write("a.txt", "x1\nx2\n");
    fx.write("b.txt", "x3\nx4\n");
    assert_eq!(
        search(&fx, json!({"query": "x", "limit": 3})),
        "a.txt:1:x1\na.txt:2:x2\nb.txt:1:x3"
    );
    assert_eq!(search(&fx, json!({"query": "x", "limit": 1})), "a.txt:1:x1");
}

#[test]
fn search_limit_zero_is_invalid_argument() {
    let fx = Fx::new();
    assert_eq!(
        fx.err("search", json!({"query": "x", "limit": 0})),
        "invalid-argument: limit 0 asks for no matches; pass 1 to 200, or leave it out for 50"
    );
}

// ---------------------------------------------------------------------------------------------
// Long lines

#[test]
fn search_cuts_a_line_over_200_characters_and_counts_the_rest() {
    let fx = Fx::new();
    fx.write(
        "long.txt",
        format!("{}\n{}\n", "a".repeat(250), "b".repeat(200)),
    );
    assert_eq!(
        search(&fx, json!({"query": "a"})),
        format!("long.txt:1:{} (50 more chars...)", "a".repeat(200))
    );
    // Exactly 200 characters is not cut.
    assert_eq!(
        search(&fx, json!({"query": "b"})),
        format!("long.txt:2:{}", "b".repeat(200))
    );
}

#[test]
fn search_counts_cut_characters_not_bytes() {
    let fx = Fx::new();
    // 250 characters, 2 or 3 bytes each.
    let line = format!("{}{}", "é".repeat(150), "€".repeat(100));
    fx.write("u.txt", format!("{line}\n"));
    assert_eq!(
        search(&fx, json!({"query": "é"})),
        format!(
            "u.txt:1:{}{} (50 more chars...)",
            "é".repeat(150),
            "€".repeat(50)
        )
    );
}

// ---------------------------------------------------------------------------------------------
// Files that are not text

#[test]
fn search_skips_a_file_holding_a_nul_byte() {
    let fx = Fx::new();
    fx.write("bin.dat", b"needle\0needle\n");
    fx.write("text.txt", "needle\n");
    assert_eq!(search(&fx, json!({"query": "needle"})), "text.txt:1:needle");
}

#[test]
fn search_skips_a_file_whose_nul_comes_far_after_the_first_matches() {
    let fx = Fx::new();
    // Matches at the start, then 2 MiB of text, then a NUL.
    let mut bytes = b"needle early\n".to_vec();
    bytes.extend("filler line without the word\n".repeat(75_000).as_bytes());
    bytes.extend_from_slice(b"\0tail\n");
    fx.write("late.bin", &bytes);
    fx.write("z.txt", "needle z\n");
    assert_eq!(search(&fx, json!({"query": "needle"})), "z.txt:1:needle z");
}

#[test]
fn search_skips_a_file_whose_nul_comes_after_enough_matches_to_fill_the_limit() {
    let fx = Fx::new();
    let mut bytes = "needle\n".repeat(10).into_bytes();
    bytes.extend("filler\n".repeat(300_000).as_bytes());
    bytes.push(0);
    fx.write("a.bin", &bytes);
    fx.write("b.txt", "needle b\n");
    assert_eq!(
        search(&fx, json!({"query": "needle", "limit": 5})),
        "b.txt:1:needle b"
    );
    assert_eq!(search(&fx, json!({"query": "needle"})), "b.txt:1:needle b");
}

// ---------------------------------------------------------------------------------------------
// Ignore files

fn ignoring_layout(fx: &Fx) {
    fx.write(".gitignore", "node_modules/\n*.log\n!keep.log\n");
    fx.write(".ignore", "tmp\n");
    fx.write("src/.gitignore", "gen/\n");
    fx.write("src/main.rs", "needle main\n");
    fx.write("src/gen/out.rs", "needle generated\n");
    fx.write("src/debug.log", "needle debug log\n");
    fx.write("node_modules/lib/index.js", "needle dependency\n");
    fx.write("tmp/scratch.txt", "needle scratch\n");
    fx.write("a.log", "needle a.log\n");
    fx.write("keep.log", "needle keep.log\n");
    fx.write("secret.txt", "needle secret\n");
    fx.write(".git/info/exclude", "secret.txt\n");
    fx.write(".git/config", "needle in git config\n");
    fx.write(".git/HEAD", "needle\n");
    fx.write(".env", "needle=dotfile\n");
    fx.write(".config/tool.toml", "needle = \"hidden dir\"\n");
}

#[test]
fn search_honours_ignore_files_in_a_repository_and_never_searches_git() {
    let fx = Fx::new();
    ignoring_layout(&fx);
    insta::assert_snapshot!(search(&fx, json!({"query": "needle"})), @r#"
    .config/tool.toml:1:needle = "hidden dir"
    .env:1:needle=dotfile
    keep.log:1:needle keep.log
    src/main.rs:1:needle main
    "#);
}

#[test]
fn search_honours_ignore_files_in_a_directory_that_is_not_a_repository_yet() {
    let fx = Fx::new();
    ignoring_layout(&fx);
    // No .git directory: .gitignore and .ignore still apply (there is no info/exclude).
    std::fs::remove_dir_all(fx.path(".git")).unwrap();
    insta::assert_snapshot!(search(&fx, json!({"query": "needle"})), @r#"
    .config/tool.toml:1:needle = "hidden dir"
    .env:1:needle=dotfile
    keep.log:1:needle keep.log
    secret.txt:1:needle secret
    src/main.rs:1:needle main
    "#);
}

#[test]
fn search_honours_exclude_of_a_git_directory_without_a_gitignore() {
    let fx = Fx::new();
    fx.write(".git/info/exclude", "*.secret\n");
    fx.write("a.secret", "needle\n");
    fx.write("b.txt", "needle\n");
    assert_eq!(search(&fx, json!({"query": "needle"})), "b.txt:1:needle");
}

#[test]
fn search_honours_a_negation_in_a_nested_ignore_file() {
    let fx = Fx::new();
    fx.write(".gitignore", "*.gen\n");
    fx.write("sub/.gitignore", "!keep.gen\n");
    fx.write("top.gen", "needle\n");
    fx.write("sub/drop.gen", "needle\n");
    fx.write("sub/keep.gen", "needle\n");
    assert_eq!(
        search(&fx, json!({"query": "needle"})),
        "sub/keep.gen:1:needle"
    );
}

#[test]
fn search_rooted_below_the_working_directory_keeps_its_ignore_files_in_and_out_of_a_repository() {
    for repo in [false, true] {
        let fx = Fx::new();
        if repo {
            fx.mkdir(".git");
        }
        fx.write(".gitignore", "*.gen\n");
        fx.write("sub/deeper/.gitignore", "!keep.gen\n");
        fx.write("sub/deeper/drop.gen", "needle\n");
        fx.write("sub/deeper/keep.gen", "needle\n");
        fx.write("sub/deeper/plain.txt", "needle\n");
        assert_eq!(
            search(&fx, json!({"query": "needle", "path": "sub"})),
            "sub/deeper/keep.gen:1:needle\nsub/deeper/plain.txt:1:needle",
            "repository: {repo}"
        );
        assert_eq!(
            fx.ok("tree", json!({"path": "sub", "depth": 3})),
            "deeper/\n  .gitignore\n  keep.gen\n  plain.txt",
            "repository: {repo}"
        );
    }
}

#[test]
fn search_searches_dotfiles() {
    let fx = Fx::new();
    fx.write(".env", "TOKEN=abc\n");
    fx.write(".github/workflows/ci.yml", "TOKEN: x\n");
    assert_eq!(
        search(&fx, json!({"query": "TOKEN"})),
        ".env:1:TOKEN=abc\n.github/workflows/ci.yml:1:TOKEN: x"
    );
}

#[test]
fn search_rooted_at_an_ignored_path_scans_nothing() {
    let fx = Fx::new();
    ignoring_layout(&fx);
    assert_eq!(
        search(&fx, json!({"query": "needle", "path": "node_modules"})),
        "No matches: node_modules is excluded by the workspace's ignore files (.gitignore, \
         .ignore or .git/info/exclude), so search does not scan it; read files under it by path \
         with read_file."
    );
    let out = search(&fx, json!({"query": "needle", "path": "a.log"}));
    assert!(out.starts_with("No matches: a.log is excluded"), "{out}");
    let out = search(&fx, json!({"query": "needle", "path": ".git"}));
    assert!(out.starts_with("No matches: .git is excluded"), "{out}");
}

#[test]
fn search_rooted_at_a_directory_a_nested_ignore_file_excludes_scans_nothing() {
    let fx = Fx::new();
    ignoring_layout(&fx);
    let out = search(&fx, json!({"query": "needle", "path": "src/gen"}));
    assert!(out.starts_with("No matches: src/gen is excluded"), "{out}");
    let out = search(&fx, json!({"query": "needle", "path": "src/debug.log"}));
    assert!(
        out.starts_with("No matches: src/debug.log is excluded"),
        "{out}"
    );
}

/// Once the listings of the folders above are kept (settled past the two seconds in which a
/// stamp is not trusted), they answer whether a searched folder is excluded; the answer stays
/// the rule's own as the ignore files change.
#[test]
fn search_of_a_subfolder_is_refused_exactly_while_the_ignore_files_exclude_it() {
    let fx = Fx::new();
    settled_gen_layout(&fx, "needle\n");
    for _ in 0..2 {
        search(&fx, json!({"query": "needle"}));
        assert_eq!(
            search(&fx, json!({"query": "needle", "path": "src/gen"})),
            "src/gen/x.rs:1:needle"
        );
    }
    fx.write("src/.gitignore", "gen/\n");
    settle();
    for _ in 0..2 {
        search(&fx, json!({"query": "needle"}));
        let out = search(&fx, json!({"query": "needle", "path": "src/gen"}));
        assert!(out.starts_with("No matches: src/gen is excluded"), "{out}");
    }
    std::fs::remove_file(fx.root().join("src/.gitignore")).unwrap();
    settle();
    search(&fx, json!({"query": "needle"}));
    assert_eq!(
        search(&fx, json!({"query": "needle", "path": "src/gen"})),
        "src/gen/x.rs:1:needle"
    );
}

#[test]
fn a_file_under_an_ignored_path_is_still_reachable_by_path() {
    let fx = Fx::new();
    ignoring_layout(&fx);
    assert_eq!(
        fx.ok("read_file", json!({"path": "node_modules/lib/index.js"})),
        "needle dependency\n"
    );
    assert_eq!(
        fx.ok("read_file", json!({"path": ".git/config"})),
        "needle in git config\n"
    );
    assert_eq!(fx.ok("list_dir", json!({"path": "src/gen"})), "out.rs");
    fx.ok(
        "edit_file",
        json!({"path": "a.log", "old_string": "needle", "new_string": "pin"}),
    );
    assert_eq!(fx.bytes("a.log"), b"pin a.log\n");
    fx.ok(
        "write_file",
        json!({"path": "tmp/new.txt", "content": "written\n"}),
    );
    assert_eq!(
        fx.ok("read_file", json!({"path": "tmp/new.txt"})),
        "written\n"
    );
}

/// A workspace `ws` inside `outer`, whose `.gitignore` (outside the workspace) ignores `*.txt`.
fn nested_workspace(outer_is_repository: bool) -> (tempfile::TempDir, fsgate_core::Workspace) {
    let outer = tempfile::tempdir().unwrap();
    gg_support::write(&outer.path().join(".gitignore"), b"*.txt\n");
    if outer_is_repository {
        std::fs::create_dir(outer.path().join(".git")).unwrap();
    }
    gg_support::write(&outer.path().join("ws/a.txt"), b"needle\n");
    gg_support::write(&outer.path().join("ws/b.rs"), b"needle\n");
    let ws =
        fsgate_core::Workspace::open(fsgate_core::Options::new(outer.path().join("ws"))).unwrap();
    (outer, ws)
}

#[test]
fn a_repositorys_ignore_file_above_the_working_directory_applies() {
    let (_outer, ws) = nested_workspace(true);
    let out = ws.call("search", json!({"query": "needle"})).unwrap();
    assert_eq!(out.text_content(), "b.rs:1:needle");
}

#[test]
fn an_ignore_file_above_a_working_directory_that_is_no_repository_does_not_apply() {
    let (_outer, ws) = nested_workspace(false);
    let out = ws.call("search", json!({"query": "needle"})).unwrap();
    assert_eq!(out.text_content(), "a.txt:1:needle\nb.rs:1:needle");
    let out = ws.call("tree", json!({})).unwrap();
    assert_eq!(out.text_content(), "a.txt\nb.rs");
}
