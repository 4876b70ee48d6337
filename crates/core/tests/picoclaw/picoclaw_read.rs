#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

//! picoclaw's read_file: byte mode and line mode, their headers, cuts and budgets, each
//! mode's refusal of the other's arguments, and redaction that leaves offsets and line numbers
//! counting the raw file.

use crate::picoclaw_support;

use picoclaw_support::Pico;
use serde_json::json;

#[test]
fn byte_mode_reads_a_window_and_says_where_to_continue() {
    let p = Pico::with(|c| c.read_file.max_read_file_size = 10);
    p.write("a.txt", "0123456789abcdefghij-tail");
    let out = p.ok("read_file", json!({"path": "a.txt"}));
    assert_eq!(
        out,
        "[file: a.txt | total: 25 bytes | read: bytes 0-9]\n[TRUNCATED - file has more content. Call read_file again with offset=10 to continue.]\n\n0123456789"
    );
    let out = p.ok(
        "read_file",
        json!({"path": "a.txt", "offset": 20, "length": 100}),
    );
    assert_eq!(
        out,
        "[file: a.txt | total: 25 bytes | read: bytes 20-24]\n[END OF FILE - no further content.]\n\n-tail"
    );
    let out = p.ok("read_file", json!({"path": "a.txt", "offset": 25}));
    assert!(
        out.starts_with("[END OF FILE - no content at this offset]"),
        "{out}"
    );
    let text = p.err("read_file", json!({"path": "a.txt", "length": 0}));
    assert!(text.contains("length must be > 0"), "{text}");
}

#[test]
fn byte_mode_shortens_the_default_window_to_fit_inline_and_names_the_next_unseen_byte() {
    let p = Pico::new();
    p.write("big.txt", "x".repeat(70_000));
    let out = p.ok("read_file", json!({"path": "big.txt", "offset": 0}));
    assert!(out.chars().count() <= 16_384, "{}", out.chars().count());
    assert!(!out.contains("Result too large"), "{}", &out[..400]);
    let (head, body) = out.split_once("\n\n").unwrap();
    let n = body.len();
    assert!(n > 16_000, "the window fills the inline limit: {n}");
    assert_eq!(
        head,
        format!(
            "[file: big.txt | total: 70000 bytes | read: bytes 0-{}]\n[TRUNCATED - file has more content. Call read_file again with offset={n} to continue.]",
            n - 1
        )
    );
    // With room inline, the default window is max_read_file_size.
    let p = Pico::with(|c| c.max_inline_result_chars = 100_000);
    p.write("big.txt", "x".repeat(70_000));
    let out = p.ok("read_file", json!({"path": "big.txt"}));
    assert!(out.contains("read: bytes 0-65535]"), "{}", &out[..200]);
    assert!(out.contains("offset=65536"));
}

#[test]
fn each_mode_rejects_the_other_modes_arguments() {
    let bytes = Pico::new();
    bytes.write("a.txt", "a\n");
    for (arg, hint) in [
        ("start_line", "offset"),
        ("max_lines", "length"),
        ("limit", "length"),
    ] {
        let text = bytes.err("read_file", json!({"path": "a.txt", arg: 1}));
        assert!(
            text.contains(&format!("{arg} is not supported in bytes mode")),
            "{text}"
        );
        assert!(text.contains(&format!("use {hint}")), "{text}");
    }
    let lines = Pico::lines();
    lines.write("a.txt", "a\n");
    for (arg, hint) in [
        ("offset", "start_line"),
        ("length", "max_lines"),
        ("limit", "max_lines"),
    ] {
        let text = lines.err("read_file", json!({"path": "a.txt", arg: 1}));
        assert!(
            text.contains(&format!("{arg} is not supported in line mode; use {hint}")),
            "{text}"
        );
    }
}

#[test]
fn line_mode_numbers_lines_and_pages_with_start_line_and_max_lines() {
    let p = Pico::lines();
    p.write("f.txt", "alpha\nbeta\ngamma\ndelta\n");
    assert_eq!(
        p.ok("read_file", json!({"path": "f.txt"})),
        "[file: f.txt | read: lines 1-4 (1-indexed) | file_bytes: 23 | output_bytes: 31]\n[END OF FILE - no further content.]\n\n1|alpha\n2|beta\n3|gamma\n4|delta\n"
    );
    assert_eq!(
        p.ok(
            "read_file",
            json!({"path": "f.txt", "start_line": 2, "max_lines": 2})
        ),
        "[file: f.txt | read: lines 2-3 (1-indexed) | file_bytes: 11 | output_bytes: 15]\n[PARTIAL - more content remains. Call read_file again with start_line=4 and max_lines=2 to continue.]\n\n2|beta\n3|gamma\n"
    );
    let out = p.ok("read_file", json!({"path": "f.txt", "start_line": 9}));
    assert!(
        out.starts_with("[END OF FILE - no content at or after start_line=9]"),
        "{out}"
    );
    assert!(
        p.err("read_file", json!({"path": "f.txt", "start_line": 0}))
            .contains("start_line must be >= 1")
    );
    assert!(
        p.err("read_file", json!({"path": "f.txt", "max_lines": 0}))
            .contains("max_lines")
    );
}

#[test]
fn line_mode_clamps_max_lines_to_the_configured_bound() {
    let p = Pico::with(|c| {
        c.read_file.mode = fsgate_core::config::picoclaw::ReadFileMode::Lines;
        c.read_file.max_lines = 3;
    });
    p.write("f.txt", "1\n2\n3\n4\n5\n");
    let out = p.ok("read_file", json!({"path": "f.txt", "max_lines": 100}));
    assert!(
        out.starts_with("[file: f.txt | read: lines 1-3 (1-indexed)"),
        "{out}"
    );
    assert!(out.contains("start_line=4 and max_lines=3"), "{out}");
    let out = p.ok("read_file", json!({"path": "f.txt"}));
    assert!(out.contains("read: lines 1-3"), "{out}");
}

#[test]
fn long_lines_are_cut_with_a_marker_and_the_read_goes_on() {
    let p = Pico::with(|c| {
        c.read_file.mode = fsgate_core::config::picoclaw::ReadFileMode::Lines;
        c.read_file.max_line_length = 10;
    });
    p.write("f.txt", format!("{}\nshort\n", "é".repeat(50)));
    let out = p.ok("read_file", json!({"path": "f.txt"}));
    assert!(
        out.contains(&format!("\n1|{} … [truncated]\n2|short\n", "é".repeat(10))),
        "{out}"
    );
    assert!(out.contains("[END OF FILE - no further content.]"), "{out}");
}

#[test]
fn a_line_that_does_not_fit_waits_for_the_next_call_and_only_a_first_line_is_cut_mid_line() {
    let p = Pico::with(|c| {
        c.read_file.mode = fsgate_core::config::picoclaw::ReadFileMode::Lines;
        c.read_file.max_read_file_size = 20;
    });
    p.write("f.txt", "aaaa\nbbbbbbbbbbbbbbbbbbbb\ncc\n");
    let out = p.ok("read_file", json!({"path": "f.txt"}));
    assert_eq!(
        out,
        "[file: f.txt | read: lines 1-1 (1-indexed) | file_bytes: 5 | output_bytes: 7]\n[TRUNCATED - byte budget reached. Call read_file again with start_line=2 to continue at the next line.]\n\n1|aaaa\n"
    );
    let out = p.ok("read_file", json!({"path": "f.txt", "start_line": 2}));
    assert!(
        out.starts_with("[file: f.txt | read: lines 2-2 (1-indexed) | file_bytes: 21 | output_bytes: 20]\n[TRUNCATED - line 2 exceeded the 20 byte read budget and was cut mid-line; line mode shows no more of it. Call read_file again with start_line=3 to continue after it.]"),
        "{out}"
    );
    let body = out.split("\n\n").nth(1).unwrap();
    assert_eq!(body, "2|bbbbbbbbbbbbbbbbbb");
    let out = p.ok("read_file", json!({"path": "f.txt", "start_line": 3}));
    assert!(out.ends_with("\n\n3|cc\n"), "{out}");
    assert!(out.contains("[END OF FILE - no further content.]"), "{out}");
}

#[test]
fn a_budget_reached_at_a_line_boundary_says_where_to_continue() {
    let p = Pico::with(|c| {
        c.read_file.mode = fsgate_core::config::picoclaw::ReadFileMode::Lines;
        c.read_file.max_read_file_size = 14;
    });
    p.write("f.txt", "aaaa\nbbbb\ncc\n");
    let out = p.ok("read_file", json!({"path": "f.txt"}));
    assert!(
        out.contains("[TRUNCATED - byte budget reached. Call read_file again with start_line=3 to continue at the next line.]"),
        "{out}"
    );
}

#[test]
fn line_mode_refuses_binary_files_and_byte_mode_reads_them() {
    let p = Pico::lines();
    p.write("b.bin", b"\x89PNG\0\0\x01");
    let text = p.err("read_file", json!({"path": "b.bin"}));
    assert!(text.contains("binary"), "{text}");
    let p = Pico::new();
    p.write("b.bin", b"ab\0cd");
    assert!(
        p.ok("read_file", json!({"path": "b.bin"}))
            .contains("total: 5 bytes")
    );
}

#[test]
fn secrets_are_filtered_while_offsets_and_line_numbers_count_the_raw_file() {
    let secret = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789";
    let p = Pico::new();
    p.write(
        "env.sh",
        format!("export GITHUB_TOKEN={secret}\nexport NAME=value\n"),
    );
    let out = p.ok("read_file", json!({"path": "env.sh"}));
    assert!(!out.contains(secret), "{out}");
    assert!(
        out.contains("export GITHUB_TOKEN=[FILTERED]\nexport NAME=value\n"),
        "{out}"
    );
    assert!(out.contains("total: 79 bytes | read: bytes 0-78"), "{out}");
    let p = Pico::lines();
    p.write(
        "env.sh",
        format!("export GITHUB_TOKEN={secret}\nexport NAME=value\n"),
    );
    let out = p.ok("read_file", json!({"path": "env.sh", "start_line": 2}));
    assert!(out.contains("\n2|export NAME=value\n"), "{out}");
    let out = p.ok("read_file", json!({"path": "env.sh"}));
    assert!(
        out.contains("1|export GITHUB_TOKEN=[FILTERED]\n2|"),
        "{out}"
    );
    assert!(out.contains("file_bytes: 79"), "{out}");
}

#[test]
fn long_base64_stays_visible_in_read_file_but_invisible_characters_go() {
    let p = Pico::new();
    let blob = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0NTY3".repeat(40);
    p.write("data.txt", format!("blob={blob}\nzero\u{200B}width\n"));
    let out = p.ok("read_file", json!({"path": "data.txt", "length": 4000}));
    assert!(out.contains(&blob), "a long base64 run must stay visible");
    assert!(out.contains("zerowidth"), "{out}");
}

#[test]
fn directories_and_missing_files_are_explained() {
    let p = Pico::new();
    p.write("d/x", "");
    assert!(
        p.err("read_file", json!({"path": "d"}))
            .contains("is a directory")
    );
    assert!(
        p.err("read_file", json!({"path": "nope.txt"}))
            .starts_with("not-found:")
    );
}
