//! Issue 17 item 9: a file that starts with a UTF-16 or UTF-32 byte-order mark is text in the
//! coder and picoclaw profiles too — read, searched and edited as its decoded text, written
//! back with its BOM and line endings, never called binary. Every encoding is checked by bytes.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

mod picoclaw_support;

use fsgate_core::{CoderConfig, Options, Workspace};
use picoclaw_support::Pico;
use serde_json::{Value, json};

/// The encodings with a byte-order mark that are full of NUL bytes.
#[derive(Clone, Copy, Debug)]
enum Wide {
    Utf16Le,
    Utf16Be,
    Utf32Le,
    Utf32Be,
}

const ALL: [Wide; 4] = [Wide::Utf16Le, Wide::Utf16Be, Wide::Utf32Le, Wide::Utf32Be];

impl Wide {
    /// `text` in this encoding, after its BOM; line endings as written in `text`.
    fn encode(self, text: &str) -> Vec<u8> {
        let mut out = Vec::new();
        let mut put = |units: Vec<u32>| {
            for u in units {
                match self {
                    Wide::Utf16Le => out.extend_from_slice(&(u as u16).to_le_bytes()),
                    Wide::Utf16Be => out.extend_from_slice(&(u as u16).to_be_bytes()),
                    Wide::Utf32Le => out.extend_from_slice(&u.to_le_bytes()),
                    Wide::Utf32Be => out.extend_from_slice(&u.to_be_bytes()),
                }
            }
        };
        let bom = '\u{FEFF}';
        let all = format!("{bom}{text}");
        match self {
            Wide::Utf16Le | Wide::Utf16Be => put(all.encode_utf16().map(u32::from).collect()),
            Wide::Utf32Le | Wide::Utf32Be => put(all.chars().map(u32::from).collect()),
        }
        out
    }

    fn name(self) -> &'static str {
        match self {
            Wide::Utf16Le => "UTF-16LE",
            Wide::Utf16Be => "UTF-16BE",
            Wide::Utf32Le => "UTF-32LE",
            Wide::Utf32Be => "UTF-32BE",
        }
    }
}

const CONFIG: &str = "[server]\r\nname = \"api\"\r\nretry = 2\r\n# café ✓\r\n";

// ---------------------------------------------------------------------------------------------
// coder

struct Coder {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
    ws: Workspace,
}

impl Coder {
    fn new() -> Coder {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let ws = Workspace::open(Options {
            roots: vec![root.clone()],
            profile: CoderConfig::default().into(),
            ..Options::new(&root)
        })
        .unwrap();
        Coder {
            _dir: dir,
            root,
            ws,
        }
    }

    fn ok(&self, tool: &str, args: Value) -> Value {
        let out = self.ws.call(tool, args.clone()).unwrap();
        let value = out.structured.clone().unwrap();
        assert!(!out.is_error, "{tool} {args} failed: {value}");
        value
    }
}

#[test]
fn coder_read_file_returns_the_decoded_text_and_names_the_encoding() {
    for wide in ALL {
        let fx = Coder::new();
        std::fs::write(fx.root.join("app.ini"), wide.encode(CONFIG)).unwrap();
        let v = fx.ok("read-file", json!({"path": "app.ini"}));
        assert_eq!(
            v["content"], "[server]\nname = \"api\"\nretry = 2\n# café ✓\n",
            "{wide:?}"
        );
        assert_eq!(v["encoding"], format!("{} with BOM, CRLF", wide.name()));
        assert_eq!(v["is_utf8"], false);
        assert_eq!(v["total_lines"], 4);
        let v = fx.ok(
            "read-file",
            json!({"path": "app.ini", "line_from": 3, "line_to": 3, "numbered": true}),
        );
        assert_eq!(v["content"], "3\u{2192}retry = 2\n", "{wide:?}");
        assert_eq!(
            (v["lines_returned"].clone(), v["more_lines"].clone()),
            (json!(1), json!(true))
        );
        let v = fx.ok("read-file", json!({"path": "app.ini", "stat": true}));
        assert_eq!(
            (v["total_lines"].clone(), v["is_utf8"].clone()),
            (json!(4), json!(false))
        );
        let v = fx.ok("read-file", json!({"paths": ["app.ini"]}));
        assert_eq!(
            v["results"][0]["content"],
            "[server]\nname = \"api\"\nretry = 2\n# café ✓\n"
        );
        assert_eq!(
            v["results"][0]["encoding"],
            format!("{} with BOM, CRLF", wide.name())
        );
    }
}

#[test]
fn coder_read_file_of_a_utf8_file_has_no_encoding_field() {
    let fx = Coder::new();
    std::fs::write(fx.root.join("a.txt"), "a\n").unwrap();
    let v = fx.ok("read-file", json!({"path": "a.txt"}));
    assert!(v.get("encoding").is_none(), "{v}");
}

#[test]
fn coder_search_finds_the_decoded_text_on_its_line() {
    for wide in ALL {
        let fx = Coder::new();
        std::fs::write(fx.root.join("app.ini"), wide.encode(CONFIG)).unwrap();
        let v = fx.ok(
            "search",
            json!({"query": "retry = 2", "search_paths": false, "context_lines_before": 1}),
        );
        let m = &v["content_matches"][0];
        assert_eq!(m["line"], 3, "{wide:?}: {v}");
        assert_eq!(m["column"], 1);
        assert_eq!(m["text"], "retry = 2");
        assert_eq!(m["before"], json!(["name = \"api\""]));
        let v = fx.ok("search", json!({"query": "café", "search_paths": false}));
        assert_eq!(v["content_matches"][0]["line"], 4, "{wide:?}");
    }
}

#[test]
fn coder_update_file_edits_the_decoded_text_and_keeps_encoding_bom_and_endings() {
    for wide in ALL {
        let fx = Coder::new();
        let path = fx.root.join("app.ini");
        std::fs::write(&path, wide.encode(CONFIG)).unwrap();
        let v = fx.ok(
            "update-file",
            json!({"files": [{"path": "app.ini", "ops": [
                {"op": "update_lines", "from_line": 3, "to_line": 3, "content": "retry = 5\n"},
                {"op": "insert", "at_line": 5, "content": "timeout = 30\n"},
                {"op": "replace", "pattern": "api", "replacement": "web"}
            ]}]}),
        );
        assert_eq!(v["results"][0]["success"], true, "{wide:?}: {v}");
        assert_eq!(
            std::fs::read(&path).unwrap(),
            wide.encode("[server]\r\nname = \"web\"\r\nretry = 5\r\n# café ✓\r\ntimeout = 30\r\n"),
            "{wide:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// picoclaw

#[test]
fn picoclaw_line_mode_shows_the_decoded_lines_and_counts_the_file_bytes() {
    for wide in ALL {
        let fx = Pico::lines();
        let bytes = wide.encode(CONFIG);
        fx.write("app.ini", &bytes);
        let out = fx.ok("read_file", json!({"path": "app.ini"}));
        assert!(!out.contains("binary"), "{out}");
        assert_eq!(
            out,
            format!(
                "[file: app.ini | read: lines 1-4 (1-indexed) | file_bytes: {} | output_bytes: \
                 52]\n[END OF FILE - no further content.]\n\n1|[server]\n2|name = \"api\"\n3|retry \
                 = 2\n4|# café ✓\n",
                bytes.len()
            ),
            "{wide:?}"
        );
        let out = fx.ok(
            "read_file",
            json!({"path": "app.ini", "start_line": 3, "max_lines": 1}),
        );
        assert!(out.contains("\n\n3|retry = 2\n"), "{wide:?}: {out}");
    }
}

#[test]
fn picoclaw_line_mode_still_refuses_nul_bytes_without_a_byte_order_mark() {
    let fx = Pico::lines();
    fx.write("blob.bin", b"r\0e\0t\0r\0y\0");
    let err = fx.err("read_file", json!({"path": "blob.bin"}));
    assert!(err.contains("appears to be binary"), "{err}");
}

#[test]
fn picoclaw_byte_mode_keeps_the_bytes_and_names_the_encoding() {
    let fx = Pico::new();
    fx.write("app.ini", Wide::Utf16Le.encode("retry = 2\n"));
    let out = fx.ok("read_file", json!({"path": "app.ini"}));
    assert!(
        out.contains("[NOTE - this file is UTF-16LE text (it starts with a byte-order mark)"),
        "{out}"
    );
    assert!(out.contains("r\0e\0t\0r\0y\0"), "{out:?}");
    assert!(!out.contains("binary"), "{out}");
}

#[test]
fn picoclaw_search_finds_the_decoded_text() {
    for wide in ALL {
        let fx = Pico::new();
        fx.write("app.ini", wide.encode(CONFIG));
        fx.write("blob.bin", b"retry = 2\0\0");
        let out = fx.ok("search_files", json!({"pattern": "retry = \\d"}));
        assert!(out.contains("app.ini:3:retry = 2"), "{wide:?}: {out}");
        assert!(out.contains("1 binary"), "{wide:?}: {out}");
    }
}

#[test]
fn picoclaw_edit_file_edits_the_decoded_text_and_keeps_encoding_bom_and_endings() {
    for wide in ALL {
        let fx = Pico::new();
        fx.write("app.ini", wide.encode(CONFIG));
        let out = fx.ok(
            "edit_file",
            json!({"path": "app.ini", "old_text": "retry = 2", "new_text": "retry = 3"}),
        );
        assert!(out.contains("-retry = 2\n+retry = 3\n"), "{wide:?}: {out}");
        assert_eq!(
            fx.read("app.ini"),
            wide.encode("[server]\r\nname = \"api\"\r\nretry = 3\r\n# café ✓\r\n"),
            "{wide:?}"
        );
        let patch = "*** Begin Patch\n*** Update File: app.ini\n@@\n name = \"api\"\n-retry = 3\n+retry = 4\n+timeout = 30\n*** End Patch";
        fx.ok("edit_file", json!({"path": "app.ini", "patch": patch}));
        assert_eq!(
            fx.read("app.ini"),
            wide.encode("[server]\r\nname = \"api\"\r\nretry = 4\r\ntimeout = 30\r\n# café ✓\r\n"),
            "{wide:?}"
        );
    }
}

#[test]
fn picoclaw_append_file_writes_the_content_in_the_files_encoding_and_line_ending() {
    for wide in ALL {
        let fx = Pico::new();
        fx.write("app.ini", wide.encode(CONFIG));
        let out = fx.ok(
            "append_file",
            json!({"path": "app.ini", "content": "timeout = 30\nnote = \"é\"\n"}),
        );
        assert!(out.contains(wide.name()), "{wide:?}: {out}");
        assert_eq!(
            fx.read("app.ini"),
            wide.encode(&format!("{CONFIG}timeout = 30\r\nnote = \"é\"\r\n")),
            "{wide:?}"
        );
    }
    // A new file, and a UTF-8 one, take the content's bytes as they are.
    let fx = Pico::new();
    fx.ok(
        "append_file",
        json!({"path": "new.txt", "content": "a\nb\n"}),
    );
    fx.write("u.txt", "x\r\n");
    fx.ok("append_file", json!({"path": "u.txt", "content": "y\n"}));
    assert_eq!(fx.read("new.txt"), b"a\nb\n");
    assert_eq!(fx.read("u.txt"), b"x\r\ny\n");
}
