//! Issue 4 items 1 and 6: through the qwen tools, files in UTF-8, UTF-8 with BOM, UTF-16LE with
//! BOM, GBK (also behind a UTF-8 BOM), Shift_JIS, Latin-1, CRLF, mixed endings and without a
//! final newline are read as text and edited or overwritten so that the result equals, byte for
//! byte, what Python's codecs produce for the same change (fixtures/qwen/generate.py): encoding,
//! BOM and line endings kept, untouched bytes identical. New files follow defaultFileEncoding
//! and, on Windows, the platform's rules.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use crate::qwen_support;

use fsgate_core::QwenConfig;
use fsgate_core::access::Access;
use fsgate_core::surface::qwen::Qwen;
use fsgate_core::surface::{CallContext, Surface};
use fsgate_core::text::encoding::{DefaultEncoding, Platform};
use qwen_support::{Qx, fixture};
use serde_json::{Value, json};

fn cases() -> Vec<Value> {
    serde_json::from_slice(&fixture("encoding/cases.json")).unwrap()
}

fn s<'a>(case: &'a Value, key: &str) -> &'a str {
    case[key].as_str().unwrap()
}

#[test]
fn every_fixture_reads_as_its_text() {
    for case in cases() {
        let fx = Qx::new();
        let name = s(&case, "file");
        fx.write(name, fixture(&format!("encoding/{name}")));
        let text = fx.ok("read_file", json!({"path": fx.abs(name)}));
        // Text decoded from another encoding than UTF-8 starts with a note naming it.
        let body = match text.split_once('\n') {
            Some((note, body)) if note.starts_with("[File decoded from ") => {
                assert!(!name.starts_with("utf8"), "{name}: {note}");
                body
            }
            _ => {
                assert!(
                    !["gbk", "shift_jis", "latin1", "utf16le"]
                        .iter()
                        .any(|e| name.starts_with(e)),
                    "{name} has no note: {text}"
                );
                &text
            }
        };
        assert_eq!(body, s(&case, "text"), "{name}");
    }
}

#[test]
fn edits_and_overwrites_keep_encoding_bom_endings_and_untouched_bytes() {
    let all = cases();
    assert!(all.len() >= 10);
    for case in all {
        let fx = Qx::new();
        let name = s(&case, "file");
        fx.write(name, fixture(&format!("encoding/{name}")));
        let path = fx.abs(name);
        let message = match s(&case, "tool") {
            "edit" => fx.ok(
                "edit",
                json!({"file_path": path, "old_string": s(&case, "old"), "new_string": s(&case, "new")}),
            ),
            _ => fx.ok(
                "write_file",
                json!({"file_path": path, "content": s(&case, "content")}),
            ),
        };
        let expected = fixture(&format!("encoding/{}", s(&case, "expected")));
        assert_eq!(
            fx.read(name),
            expected,
            "{name}: bytes differ after {message:?}"
        );
    }
}

#[test]
fn an_edit_touching_nothing_else_keeps_every_other_line_of_a_crlf_file() {
    let fx = Qx::new();
    let lines: Vec<String> = (1..=200).map(|i| format!("line {i}\r\n")).collect();
    let original = lines.concat();
    fx.write("big.txt", &original);
    fx.ok(
        "edit",
        json!({"file_path": fx.abs("big.txt"), "old_string": "line 100\nline 101\n", "new_string": "x\ny\nz\n"}),
    );
    let expected = original.replace("line 100\r\nline 101\r\n", "x\r\ny\r\nz\r\n");
    assert_eq!(fx.read("big.txt"), expected.as_bytes());
}

#[test]
fn characters_the_encoding_cannot_hold_are_refused_and_nothing_is_written() {
    let fx = Qx::new();
    let original = fixture("encoding/gbk.txt");
    fx.write("gbk.txt", &original);
    let err = fx.err(
        "edit",
        json!({"file_path": fx.abs("gbk.txt"), "old_string": "最后一行", "new_string": "最后一行 😀"}),
    );
    assert!(err.contains("GBK"), "{err}");
    assert_eq!(fx.read("gbk.txt"), original);
}

#[test]
fn new_files_are_utf8_without_bom_by_default() {
    let fx = Qx::new();
    let out = fx.ok(
        "write_file",
        json!({"file_path": fx.abs("new/dir/a.txt"), "content": "héllo\nworld\n"}),
    );
    assert_eq!(
        out,
        format!(
            "Successfully created and wrote to new file: {}.",
            fx.abs("new/dir/a.txt")
        )
    );
    assert_eq!(fx.read("new/dir/a.txt"), "héllo\nworld\n".as_bytes());
    // CRLF written explicitly into a new file is kept.
    fx.ok(
        "write_file",
        json!({"file_path": fx.abs("w.txt"), "content": "a\r\nb\r\n"}),
    );
    assert_eq!(fx.read("w.txt"), b"a\r\nb\r\n");
}

#[test]
fn default_file_encoding_utf8_bom_gives_new_files_a_bom_but_not_existing_ones() {
    let fx = Qx::with(QwenConfig {
        default_file_encoding: DefaultEncoding::Utf8Bom,
        ..QwenConfig::default()
    });
    fx.ok(
        "write_file",
        json!({"file_path": fx.abs("a.txt"), "content": "x\n"}),
    );
    assert_eq!(fx.read("a.txt"), b"\xEF\xBB\xBFx\n");
    fx.ok(
        "edit",
        json!({"file_path": fx.abs("b.txt"), "old_string": "", "new_string": "y\n"}),
    );
    assert_eq!(fx.read("b.txt"), b"\xEF\xBB\xBFy\n");
    fx.write("plain.txt", "old\n");
    fx.ok(
        "write_file",
        json!({"file_path": fx.abs("plain.txt"), "content": "new\n"}),
    );
    assert_eq!(fx.read("plain.txt"), b"new\n");
}

/// A qwen surface on `platform`, called directly (the platform is injected).
fn on_platform(default: DefaultEncoding, platform: Platform) -> (tempfile::TempDir, Access, Qwen) {
    let dir = tempfile::tempdir().unwrap();
    let access = Access::new(dir.path()).unwrap();
    let config = QwenConfig {
        default_file_encoding: default,
        ..QwenConfig::default()
    };
    (dir, access, Qwen::with_host(config, None, platform))
}

fn create(access: &Access, qwen: &Qwen, name: &str, content: &str) -> Vec<u8> {
    let path = access.root().join(name);
    let out = qwen
        .call(
            access,
            "write_file",
            json!({"file_path": path, "content": content}),
            &CallContext::default(),
        )
        .unwrap();
    assert!(!out.is_error, "{}", out.text_content());
    std::fs::read(path).unwrap()
}

#[test]
fn windows_rules_apply_to_new_files_on_windows_only() {
    let gbk_windows = Platform::Windows {
        ansi_code_page: 936,
    };
    let (_d, access, qwen) = on_platform(DefaultEncoding::Unset, gbk_windows);
    assert_eq!(
        create(&access, &qwen, "run.bat", "@echo off\necho hi\n"),
        b"@echo off\r\necho hi\r\n"
    );
    assert_eq!(create(&access, &qwen, "run.cmd", "a\n"), b"a\r\n");
    assert_eq!(
        create(&access, &qwen, "s.ps1", "Write-Host 'é'\n"),
        "\u{feff}Write-Host 'é'\n".as_bytes()
    );
    assert_eq!(create(&access, &qwen, "n.txt", "a\n"), b"a\n");

    // utf-8 switches the automatic BOM off; the batch files keep CRLF.
    let (_d, access, qwen) = on_platform(DefaultEncoding::Utf8, gbk_windows);
    assert_eq!(create(&access, &qwen, "s.ps1", "x\n"), b"x\n");
    assert_eq!(create(&access, &qwen, "run.bat", "x\n"), b"x\r\n");

    // A UTF-8 code page needs no BOM.
    let (_d, access, qwen) = on_platform(
        DefaultEncoding::Unset,
        Platform::Windows {
            ansi_code_page: 65001,
        },
    );
    assert_eq!(create(&access, &qwen, "s.ps1", "x\n"), b"x\n");

    // Elsewhere none of it applies.
    let (_d, access, qwen) = on_platform(DefaultEncoding::Unset, Platform::Unix);
    assert_eq!(create(&access, &qwen, "run.bat", "x\n"), b"x\n");
    assert_eq!(create(&access, &qwen, "s.ps1", "x\n"), b"x\n");
}

#[test]
fn overwriting_a_utf16_file_keeps_it_utf16() {
    let fx = Qx::new();
    fx.write("u.txt", fixture("encoding/utf16le_bom.txt"));
    fx.ok(
        "write_file",
        json!({"file_path": fx.abs("u.txt"), "content": "one\ntwo\n"}),
    );
    let mut expected = vec![0xFF, 0xFE];
    for unit in "one\r\ntwo\r\n".encode_utf16() {
        expected.extend_from_slice(&unit.to_le_bytes());
    }
    assert_eq!(fx.read("u.txt"), expected);
}
