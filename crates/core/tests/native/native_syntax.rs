//! The post-edit syntax check of edit, apply_patch and write_file under `[edit] syntax_errors`:
//! "report" (the default) writes and names the new errors, "refuse" writes nothing and says how
//! to proceed, "off" does not parse.

use fsgate_core::NativeConfig;
use serde_json::json;

use crate::support::Nx;

/// A workspace under the configuration TOML `toml`.
fn nx_with(toml: &str) -> Nx {
    let config = NativeConfig::parse(toml, "native.toml").unwrap();
    Nx::with(|c| *c = config)
}

fn refusing() -> Nx {
    nx_with("[edit]\nsyntax_errors = \"refuse\"\n")
}

fn bytes(nx: &Nx, rel: &str) -> Vec<u8> {
    std::fs::read(nx.path(rel)).unwrap()
}

const RUST: &str = "fn main() {\n    let x = add(1, 2);\n    println!(\"{x}\");\n}\n\nfn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n";

#[test]
fn report_writes_the_edit_and_names_the_new_error_and_its_line() {
    let nx = Nx::new();
    nx.write("src/main.rs", RUST);
    let out = nx.ok(
        "edit",
        json!({"path": "src/main.rs", "edits": [{"old_text": "add(1, 2);", "new_text": "add(1, 2;"}]}),
    );
    assert!(out.starts_with("edited src/main.rs v"), "{out}");
    assert!(
        out.ends_with("\nsyntax: 1 new error — line 2: missing \")\""),
        "{out}"
    );
    assert!(nx.text("src/main.rs").contains("add(1, 2;"));
    // The next edit, elsewhere, does not repeat it although it moves it down a line.
    let out = nx.ok(
        "edit",
        json!({"path": "src/main.rs", "edits": [{"old_text": "fn main() {\n", "new_text": "// entry\nfn main() {\n"}]}),
    );
    assert!(!out.contains("syntax"), "{out}");
    // Fixing it says nothing either.
    let out = nx.ok(
        "edit",
        json!({"path": "src/main.rs", "edits": [{"old_text": "add(1, 2;", "new_text": "add(1, 2);"}]}),
    );
    assert!(!out.contains("syntax"), "{out}");
}

#[test]
fn a_clean_edit_and_an_unchecked_file_say_nothing() {
    let nx = Nx::new();
    nx.write("a.py", "def f():\n    return 1\n");
    nx.write("notes.txt", "(unbalanced\n");
    let out = nx.ok(
        "edit",
        json!({"path": "a.py", "edits": [{"old_text": "return 1", "new_text": "return 2"}]}),
    );
    assert!(!out.contains("syntax"), "{out}");
    let out = nx.ok(
        "edit",
        json!({"path": "notes.txt", "edits": [{"old_text": "(unbalanced", "new_text": "((("}]}),
    );
    assert!(!out.contains("syntax"), "{out}");
}

#[test]
fn report_covers_write_file_create_overwrite_and_append() {
    let nx = Nx::new();
    let out = nx.ok(
        "write_file",
        json!({"path": "cfg/app.json", "content": "{\n  \"a\": 1,\n  \"b\": [1, 2\n}\n"}),
    );
    assert!(out.starts_with("created cfg/app.json v"), "{out}");
    assert!(out.contains("\nsyntax: 1 new error — line "), "{out}");
    let out = nx.ok(
        "write_file",
        json!({"path": "cfg/app.json", "mode": "overwrite", "content": "{\"a\": 1}\n"}),
    );
    assert!(!out.contains("syntax"), "{out}");
    nx.write("m.py", "import os\n");
    let out = nx.ok(
        "write_file",
        json!({"path": "m.py", "mode": "append", "content": "\ndef f(:\n    pass\n"}),
    );
    assert!(out.starts_with("appended "), "{out}");
    assert!(
        out.ends_with("\nsyntax: 1 new error — line 3: missing \")\""),
        "{out}"
    );
}

#[test]
fn report_puts_each_files_errors_under_its_line_in_a_patch() {
    let nx = Nx::new();
    nx.write("a.go", "package a\n\nfunc F() int {\n\treturn 1\n}\n");
    nx.write("b.go", "package a\n\nfunc G() int {\n\treturn 2\n}\n");
    let out = nx.ok(
        "apply_patch",
        json!({"patch": "*** Begin Patch\n*** Update File: a.go\n@@\n func F() int {\n-\treturn 1\n+\treturn (1\n }\n*** Update File: b.go\n@@\n func G() int {\n-\treturn 2\n+\treturn 3\n }\n*** Add File: c.ts\n+export const c = [1, 2;\n*** End Patch\n"}),
    );
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("applied: 3 files"), "{out}");
    assert!(lines[1].starts_with("M a.go v"), "{out}");
    assert!(
        lines[2].starts_with("  syntax: 1 new error — line 4"),
        "{out}"
    );
    assert!(lines[3].starts_with("M b.go v"), "{out}");
    assert!(lines[4].starts_with("A c.ts v"), "{out}");
    assert!(
        lines[5].starts_with("  syntax: 1 new error — line 1"),
        "{out}"
    );
    assert_eq!(lines.len(), 6, "{out}");
    assert!(nx.text("a.go").contains("return (1"));
}

#[test]
fn refuse_writes_nothing_and_says_how_to_proceed() {
    let nx = refusing();
    nx.write("src/main.rs", RUST);
    let before = bytes(&nx, "src/main.rs");
    let err = nx.err(
        "edit",
        json!({"path": "src/main.rs", "edits": [{"old_text": "add(1, 2);", "new_text": "add(1, 2;"}]}),
    );
    assert!(
        err.starts_with("invalid-argument: the edit would introduce syntax errors"),
        "{err}"
    );
    assert!(
        err.contains("src/main.rs (Rust): line 2: missing \")\""),
        "{err}"
    );
    assert!(err.contains("nothing was written"), "{err}");
    assert!(err.contains("call edit again"), "{err}");
    assert!(err.contains("syntax_errors = \"report\""), "{err}");
    assert!(err.contains("\"off\""), "{err}");
    assert_eq!(bytes(&nx, "src/main.rs"), before);
    // A dry run shows the error and that it would be refused, and writes nothing either.
    let out = nx.ok(
        "edit",
        json!({"path": "src/main.rs", "dry_run": true, "edits": [{"old_text": "add(1, 2);", "new_text": "add(1, 2;"}]}),
    );
    assert!(out.starts_with("dry run:"), "{out}");
    assert!(
        out.contains("syntax: 1 new error — line 2: missing \")\" (the edit would be refused"),
        "{out}"
    );
    assert_eq!(bytes(&nx, "src/main.rs"), before);
    // A clean edit goes through.
    nx.ok(
        "edit",
        json!({"path": "src/main.rs", "edits": [{"old_text": "add(1, 2);", "new_text": "add(2, 3);"}]}),
    );
    assert!(nx.text("src/main.rs").contains("add(2, 3);"));
}

#[test]
fn refuse_lets_an_already_broken_file_be_edited_when_nothing_new_breaks() {
    let nx = refusing();
    let broken = "class A {\n    void f() {\n        int x = ;\n    }\n}\n";
    nx.write("A.java", broken);
    let out = nx.ok(
        "edit",
        json!({"path": "A.java", "edits": [{"old_text": "class A {\n", "new_text": "/** Doc. */\nclass A {\n    int n;\n"}]}),
    );
    assert!(!out.contains("syntax"), "{out}");
    // A second error is refused, naming only it.
    let before = bytes(&nx, "A.java");
    let err = nx.err(
        "edit",
        json!({"path": "A.java", "edits": [{"old_text": "int n;", "new_text": "int n"}]}),
    );
    assert!(
        err.contains("A.java (Java): line 3: missing \";\""),
        "{err}"
    );
    assert!(!err.contains("line 5"), "{err}");
    assert_eq!(bytes(&nx, "A.java"), before);
}

#[test]
fn refuse_refuses_a_whole_patch_for_one_broken_file() {
    let nx = refusing();
    nx.write("a.py", "def f():\n    return 1\n");
    nx.write("b.toml", "[a]\nb = 1\n");
    let (a, b) = (bytes(&nx, "a.py"), bytes(&nx, "b.toml"));
    let err = nx.err(
        "apply_patch",
        json!({"patch": "*** Begin Patch\n*** Update File: a.py\n@@\n def f():\n-    return 1\n+    return 2\n*** Update File: b.toml\n@@\n [a]\n-b = 1\n+b = \n*** Add File: c.yaml\n+a: 1\n+b: [2\n*** End Patch\n"}),
    );
    assert!(
        err.starts_with("invalid-argument: the patch would introduce syntax errors"),
        "{err}"
    );
    // A line per broken file.
    assert!(err.contains(":\nb.toml (TOML): line 2: "), "{err}");
    assert!(err.contains("\nc.yaml (YAML): line "), "{err}");
    assert!(!err.contains("a.py"), "{err}");
    assert!(err.contains("call apply_patch again"), "{err}");
    assert_eq!(bytes(&nx, "a.py"), a);
    assert_eq!(bytes(&nx, "b.toml"), b);
    assert!(!nx.exists("c.yaml"));
    // Its dry run says it would be refused and shows the error under the file.
    let out = nx.ok(
        "apply_patch",
        json!({"dry_run": true, "patch": "*** Begin Patch\n*** Update File: b.toml\n@@\n [a]\n-b = 1\n+b = \n*** End Patch\n"}),
    );
    assert!(out.contains("\nthe patch would be refused"), "{out}");
    assert!(
        out.contains("\nM b.toml (1 hunk at 1)\n  syntax: 1 new error — line 2"),
        "{out}"
    );
    assert_eq!(bytes(&nx, "b.toml"), b);
}

#[test]
fn refuse_covers_write_file() {
    let nx = refusing();
    let err = nx.err(
        "write_file",
        json!({"path": "x.c", "content": "int f(void) {\n    return 1\n}\n"}),
    );
    assert!(
        err.starts_with("invalid-argument: this create would introduce"),
        "{err}"
    );
    assert!(err.contains("x.c (C): line 2: missing \";\""), "{err}");
    assert!(err.contains("call write_file again"), "{err}");
    assert!(!nx.exists("x.c"));
    nx.write("y.cpp", "int g() { return 0; }\n");
    let before = bytes(&nx, "y.cpp");
    let err = nx.err(
        "write_file",
        json!({"path": "y.cpp", "mode": "append", "content": "int h() { return 1; \n"}),
    );
    assert!(err.contains("y.cpp (C++): line 2: "), "{err}");
    assert_eq!(bytes(&nx, "y.cpp"), before);
}

#[test]
fn a_move_in_a_patch_is_compared_with_the_file_it_comes_from() {
    let nx = refusing();
    // Already broken: moving it (and editing it) is allowed while nothing new breaks.
    nx.write(
        "old.js",
        "function f() {\n  return [1, 2;\n}\nconst a = 1;\n",
    );
    let out = nx.ok(
        "apply_patch",
        json!({"patch": "*** Begin Patch\n*** Update File: old.js\n*** Move to: new.js\n@@\n-const a = 1;\n+const a = 2;\n*** End Patch\n"}),
    );
    assert!(out.contains("R old.js → new.js"), "{out}");
    assert!(!out.contains("syntax"), "{out}");
}

#[test]
fn off_does_not_check() {
    let nx = nx_with("[edit]\nsyntax_errors = \"off\"\n");
    nx.write("src/main.rs", RUST);
    let out = nx.ok(
        "edit",
        json!({"path": "src/main.rs", "edits": [{"old_text": "add(1, 2);", "new_text": "add(1, 2;"}]}),
    );
    assert!(!out.contains("syntax"), "{out}");
    assert!(nx.text("src/main.rs").contains("add(1, 2;"));
    let out = nx.ok(
        "write_file",
        json!({"path": "b.py", "content": "def f(:\n"}),
    );
    assert!(!out.contains("syntax"), "{out}");
    let out = nx.ok(
        "apply_patch",
        json!({"patch": "*** Begin Patch\n*** Add File: c.json\n+{\"a\": \n*** End Patch\n"}),
    );
    assert!(!out.contains("syntax"), "{out}");
}
