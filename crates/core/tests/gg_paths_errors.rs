//! Paths (relative to the working directory, absolute as themselves, `..` left to the kernel,
//! the empty path refused) and the shape of every error: `kind: problem...`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

mod gg_support;

use gg_support::Fx;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// Paths

#[test]
fn relative_paths_resolve_against_the_working_directory() {
    let fx = Fx::new();
    fx.ok(
        "write_file",
        json!({"path": "sub/a.txt", "content": "hello\n"}),
    );
    assert_eq!(fx.bytes("sub/a.txt"), b"hello\n");
    assert_eq!(fx.ok("read_file", json!({"path": "sub/a.txt"})), "hello\n");
    assert_eq!(
        fx.ok("read_file", json!({"path": "./sub/./a.txt"})),
        "hello\n"
    );
    assert_eq!(fx.ok("list_dir", json!({"path": "sub"})), "a.txt");
    assert_eq!(fx.root(), fx.dir.path().canonicalize().unwrap());
}

#[test]
fn absolute_paths_are_taken_as_themselves_even_outside_the_workspace() {
    let fx = Fx::new();
    let other = tempfile::tempdir().unwrap();
    let file = other.path().join("deep/out.txt");
    let shown = file.to_string_lossy().into_owned();
    assert_eq!(
        fx.ok("write_file", json!({"path": shown, "content": "outside\n"})),
        format!("Created {shown}: 1 line (8 bytes).")
    );
    assert_eq!(std::fs::read(&file).unwrap(), b"outside\n");
    assert_eq!(fx.ok("read_file", json!({"path": shown})), "outside\n");
    fx.ok(
        "edit_file",
        json!({"path": shown, "old_string": "outside", "new_string": "edited"}),
    );
    assert_eq!(std::fs::read(&file).unwrap(), b"edited\n");
    let dir = other.path().to_string_lossy().into_owned();
    assert_eq!(fx.ok("list_dir", json!({"path": dir})), "deep/");
    assert_eq!(fx.ok("tree", json!({"path": dir})), "deep/\n  out.txt");
    assert!(
        fx.names(".").is_empty(),
        "nothing was written in the workspace"
    );
}

#[test]
fn dotdot_leaves_the_working_directory() {
    let parent = tempfile::tempdir().unwrap();
    gg_support::write(&parent.path().join("sibling.txt"), b"next door\n");
    std::fs::create_dir(parent.path().join("ws")).unwrap();
    let ws =
        fsgate_core::Workspace::open(fsgate_core::Options::new(parent.path().join("ws"))).unwrap();
    let out = ws
        .call("read_file", json!({"path": "../sibling.txt"}))
        .unwrap();
    assert!(!out.is_error, "{}", out.text_content());
    assert_eq!(out.text_content(), "next door\n");
}

#[test]
fn dotdot_is_resolved_by_the_kernel_after_a_symbolic_link() {
    // ws/link -> other/inner, so ws/link/../target.txt is other/target.txt for the kernel,
    // while lexical cleaning would wrongly give ws/target.txt.
    let fx = Fx::new();
    let other = tempfile::tempdir().unwrap();
    std::fs::create_dir(other.path().join("inner")).unwrap();
    gg_support::write(&other.path().join("target.txt"), b"through the link\n");
    fx.write("target.txt", "lexical decoy\n");
    std::os::unix::fs::symlink(other.path().join("inner"), fx.path("link")).unwrap();
    assert_eq!(
        fx.ok("read_file", json!({"path": "link/../target.txt"})),
        "through the link\n"
    );
    fx.ok(
        "write_file",
        json!({"path": "link/../written.txt", "content": "w"}),
    );
    assert!(other.path().join("written.txt").exists());
    assert!(!fx.path("written.txt").exists());
}

#[test]
fn the_empty_path_is_invalid_argument_for_every_tool() {
    let fx = Fx::new();
    fx.write("a.txt", "x\n");
    let expected = format!(
        "invalid-argument: path is empty; pass a path relative to the working directory {} or \
         an absolute path (\".\" names the working directory itself)",
        fx.root().display()
    );
    let calls: [(&str, Value); 6] = [
        ("read_file", json!({"path": ""})),
        ("write_file", json!({"path": "", "content": "x"})),
        (
            "edit_file",
            json!({"path": "", "old_string": "x", "new_string": "y"}),
        ),
        ("list_dir", json!({"path": ""})),
        ("tree", json!({"path": ""})),
        ("search", json!({"query": "x", "path": ""})),
    ];
    for (tool, args) in calls {
        assert_eq!(fx.err(tool, args), expected, "{tool}");
    }
    assert_eq!(fx.names("."), ["a.txt"]);
}

// ---------------------------------------------------------------------------------------------
// Arguments

#[test]
fn unknown_argument_names_are_invalid_argument() {
    let fx = Fx::new();
    fx.write("a.txt", "x\n");
    let cases: [(&str, Value, &str); 6] = [
        (
            "read_file",
            json!({"path": "a.txt", "offest": 3}),
            "invalid-argument: read_file has no argument offest; its arguments are path, offset, \
             limit",
        ),
        (
            "write_file",
            json!({"path": "b.txt", "content": "x", "mode": 1, "append": true}),
            "invalid-argument: write_file has no arguments mode, append; its arguments are path, \
             content",
        ),
        (
            "edit_file",
            json!({"path": "a.txt", "old_string": "x", "new_string": "y", "replace_all": true}),
            "invalid-argument: edit_file has no argument replace_all; its arguments are path, \
             old_string, new_string",
        ),
        (
            "list_dir",
            json!({"dir": "."}),
            "invalid-argument: list_dir has no argument dir; its arguments are path",
        ),
        (
            "tree",
            json!({"max_depth": 3}),
            "invalid-argument: tree has no argument max_depth; its arguments are path, depth",
        ),
        (
            "search",
            json!({"pattern": "x"}),
            "invalid-argument: search has no argument pattern; its arguments are query, path, \
             limit",
        ),
    ];
    for (tool, args, expected) in cases {
        assert_eq!(fx.err(tool, args), expected, "{tool}");
    }
    assert!(!fx.path("b.txt").exists());
    assert_eq!(fx.bytes("a.txt"), b"x\n");
}

#[test]
fn wrong_argument_types_are_invalid_argument() {
    let fx = Fx::new();
    fx.write("a.txt", "x\n");
    // (tool, arguments, start of the message, its end)
    let cases: [(&str, Value, &str, &str); 8] = [
        (
            "read_file",
            json!({"path": 5}),
            "invalid-argument: path of read_file must be a string",
            ", not a number",
        ),
        (
            "read_file",
            json!({"path": "a.txt", "offset": true}),
            "invalid-argument: offset of read_file must be a whole number",
            ", not a boolean",
        ),
        (
            "read_file",
            json!({"path": "a.txt", "limit": 2.5}),
            "invalid-argument: limit of read_file must be a whole number",
            ", not 2.5",
        ),
        (
            "write_file",
            json!({"path": "b.txt", "content": ["x"]}),
            "invalid-argument: content of write_file must be a string",
            ", not an array",
        ),
        (
            "edit_file",
            json!({"path": "a.txt", "old_string": {"x": 1}, "new_string": "y"}),
            "invalid-argument: old_string of edit_file must be a string",
            ", not an object",
        ),
        (
            "tree",
            json!({"depth": "deep"}),
            "invalid-argument: depth of tree must be a whole number",
            ", not \"deep\"",
        ),
        (
            "search",
            json!({"query": "x", "limit": -1}),
            "invalid-argument: limit of search must be a whole number",
            ", not -1",
        ),
        (
            "read_file",
            json!(["a.txt"]),
            "invalid-argument: read_file takes an object of arguments",
            ", not an array",
        ),
    ];
    for (tool, args, start, end) in cases {
        let msg = fx.err(tool, args.clone());
        assert!(msg.starts_with(start), "{tool} {args}: {msg}");
        assert!(msg.ends_with(end), "{tool} {args}: {msg}");
    }
    assert!(!fx.path("b.txt").exists());
    assert_eq!(fx.bytes("a.txt"), b"x\n");
}

#[test]
fn missing_required_arguments_are_invalid_argument() {
    let fx = Fx::new();
    let cases: [(&str, Value, &str); 4] = [
        (
            "read_file",
            json!({}),
            "invalid-argument: read_file needs path, a string; call it again with path set",
        ),
        (
            "write_file",
            json!({"content": "x"}),
            "invalid-argument: write_file needs path, a string; call it again with path set",
        ),
        (
            "edit_file",
            json!({"path": "a.txt", "new_string": "y"}),
            "invalid-argument: edit_file needs old_string, a string; call it again with \
             old_string set",
        ),
        (
            "search",
            json!({"path": "."}),
            "invalid-argument: search needs query, a string; call it again with query set",
        ),
    ];
    for (tool, args, expected) in cases {
        assert_eq!(fx.err(tool, args), expected, "{tool}");
    }
}

#[test]
fn a_negative_count_error_names_the_range_that_is_accepted() {
    let fx = Fx::new();
    fx.write("a.txt", "x\n");
    for (tool, args, key) in [
        (
            "read_file",
            json!({"path": "a.txt", "offset": -1}),
            "offset",
        ),
        ("read_file", json!({"path": "a.txt", "limit": -1}), "limit"),
        ("tree", json!({"depth": -1}), "depth"),
        ("search", json!({"query": "x", "limit": -1}), "limit"),
    ] {
        let msg = fx.err(tool, args);
        assert!(msg.starts_with("invalid-argument: "), "{msg}");
        assert!(
            !msg.contains("0 or more"),
            "{tool} {key}: 0 is refused, so the message must not offer it: {msg}"
        );
        assert!(msg.contains("1 or more"), "{tool} {key}: {msg}");
    }
}

// ---------------------------------------------------------------------------------------------
// The shape of every error

#[test]
fn every_failed_call_is_an_error_whose_text_starts_with_its_kind_and_a_colon() {
    let fx = Fx::new();
    fx.write("a.txt", "dup\ndup\n");
    fx.mkdir("d");
    let cases: [(&str, Value, &str); 14] = [
        ("read_file", json!({"path": "missing"}), "not-found: "),
        ("read_file", json!({"path": "d"}), "invalid-argument: "),
        (
            "read_file",
            json!({"path": "a.txt", "offset": 9}),
            "invalid-argument: ",
        ),
        (
            "write_file",
            json!({"path": "d", "content": ""}),
            "invalid-argument: ",
        ),
        (
            "edit_file",
            json!({"path": "a.txt", "old_string": "zzz", "new_string": "y"}),
            "no-match: ",
        ),
        (
            "edit_file",
            json!({"path": "a.txt", "old_string": "dup", "new_string": "y"}),
            "not-unique: ",
        ),
        (
            "edit_file",
            json!({"path": "missing", "old_string": "a", "new_string": "b"}),
            "not-found: ",
        ),
        ("list_dir", json!({"path": "missing"}), "not-found: "),
        ("list_dir", json!({"path": "a.txt"}), "invalid-argument: "),
        ("tree", json!({"path": "missing"}), "not-found: "),
        ("tree", json!({"depth": 0}), "invalid-argument: "),
        ("search", json!({"query": "("}), "invalid-argument: "),
        ("search", json!({"query": " "}), "invalid-argument: "),
        (
            "search",
            json!({"query": "x", "path": "missing"}),
            "not-found: ",
        ),
    ];
    for (tool, args, prefix) in cases {
        let msg = fx.err(tool, args.clone());
        assert!(msg.starts_with(prefix), "{tool} {args}: {msg}");
        assert!(
            msg.len() > prefix.len() + 20,
            "{tool} {args}: the message explains the problem: {msg}"
        );
    }
    assert_eq!(fx.bytes("a.txt"), b"dup\ndup\n");
}

#[test]
fn a_permission_problem_is_denied_and_names_the_path() {
    // Root ignores file modes; the test only means something for an ordinary user.
    let fx = Fx::new();
    fx.write("locked.txt", "secret\n");
    std::fs::set_permissions(
        fx.path("locked.txt"),
        std::os::unix::fs::PermissionsExt::from_mode(0o000),
    )
    .unwrap();
    if std::fs::File::open(fx.path("locked.txt")).is_ok() {
        return; // running as root
    }
    let msg = fx.err("read_file", json!({"path": "locked.txt"}));
    assert!(msg.starts_with("denied: "), "{msg}");
    assert!(msg.contains("locked.txt"), "{msg}");
}
