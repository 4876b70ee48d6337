//! read_file: paging (offset, limit), the two read modes, window notes, line counting, and the
//! 256 KiB byte ceiling.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

mod gg_support;

use gg_support::{Fx, numbered};
use serde_json::json;

const CAP5_DEFAULT: &str =
    "[capabilities.read-file]\nimplementation = \"default-cap\"\nparams = { lineCap = 5 }\n";
const CAP5_UNLIMITED: &str =
    "[capabilities.read-file]\nimplementation = \"unlimited\"\nparams = { lineCap = 5 }\n";

fn lines(from: usize, to: usize) -> String {
    (from..=to).map(|i| format!("line{i}\n")).collect()
}

// ---------------------------------------------------------------------------------------------
// Whole-file reads and line counting

#[test]
fn whole_small_file_reads_byte_for_byte_without_note() {
    let fx = Fx::new();
    fx.write("a.txt", "one\ntwo\nthree\n");
    assert_eq!(
        fx.ok("read_file", json!({"path": "a.txt"})),
        "one\ntwo\nthree\n"
    );
}

#[test]
fn file_without_final_newline_reads_byte_for_byte() {
    let fx = Fx::new();
    fx.write("a.txt", "one\ntwo");
    assert_eq!(fx.ok("read_file", json!({"path": "a.txt"})), "one\ntwo");
}

#[test]
fn empty_file_reads_as_empty_text() {
    let fx = Fx::new();
    fx.write("e.txt", "");
    let out = fx.call("read_file", json!({"path": "e.txt"}));
    assert!(!out.is_error);
    assert_eq!(out.content, vec![fsgate_core::Content::Text(String::new())]);
}

#[test]
fn crlf_file_reads_with_its_crlf_bytes() {
    let fx = Fx::new();
    fx.write("w.txt", "a\r\nb\r\nc\r\n");
    assert_eq!(
        fx.ok("read_file", json!({"path": "w.txt"})),
        "a\r\nb\r\nc\r\n"
    );
    assert_eq!(
        fx.ok(
            "read_file",
            json!({"path": "w.txt", "offset": 2, "limit": 1})
        ),
        "b\r\n[showing lines 2-2 of 3; continue with offset: 3]"
    );
}

#[test]
fn trailing_newline_makes_no_phantom_line() {
    let fx = Fx::new();
    fx.write("t.txt", "a\nb\n");
    fx.write("u.txt", "a\nb");
    for name in ["t.txt", "u.txt"] {
        let msg = fx.err("read_file", json!({"path": name, "offset": 3}));
        assert_eq!(
            msg,
            format!(
                "invalid-argument: offset 3 is past the end of {name}, which has 2 lines; pass an \
                 offset from 1 to 2"
            )
        );
    }
    assert_eq!(
        fx.ok("read_file", json!({"path": "t.txt", "offset": 2})),
        "b\n[showing lines 2-2 of 2]"
    );
    // The unterminated last line is shown as stored; the note goes on a line of its own.
    assert_eq!(
        fx.ok("read_file", json!({"path": "u.txt", "offset": 2})),
        "b\n[showing lines 2-2 of 2]"
    );
}

#[test]
fn blank_lines_are_lines() {
    let fx = Fx::new();
    fx.write("b.txt", "\n\n");
    assert_eq!(
        fx.ok("read_file", json!({"path": "b.txt", "offset": 2})),
        "\n[showing lines 2-2 of 2]"
    );
    assert!(
        fx.err("read_file", json!({"path": "b.txt", "offset": 3}))
            .contains("which has 2 lines")
    );
}

#[test]
fn only_0x0a_ends_a_line() {
    let fx = Fx::new();
    // A lone CR is not a line ending.
    fx.write("cr.txt", "a\rb\rc\nd\n");
    assert_eq!(
        fx.ok("read_file", json!({"path": "cr.txt", "limit": 1})),
        "a\rb\rc\n[showing lines 1-1 of 2; continue with offset: 2]"
    );
}

// ---------------------------------------------------------------------------------------------
// offset and limit

#[test]
fn windowed_read_ends_with_showing_line_and_continuation() {
    let fx = Fx::new();
    fx.write("ten.txt", numbered(10));
    assert_eq!(
        fx.ok(
            "read_file",
            json!({"path": "ten.txt", "offset": 3, "limit": 4})
        ),
        format!(
            "{}[showing lines 3-6 of 10; continue with offset: 7]",
            lines(3, 6)
        )
    );
}

#[test]
fn limit_from_line_one_is_honoured_verbatim() {
    let fx = Fx::new();
    fx.write("ten.txt", numbered(10));
    assert_eq!(
        fx.ok("read_file", json!({"path": "ten.txt", "limit": 3})),
        "line1\nline2\nline3\n[showing lines 1-3 of 10; continue with offset: 4]"
    );
}

#[test]
fn read_from_an_offset_to_the_end_states_lines_without_continuation() {
    let fx = Fx::new();
    fx.write("ten.txt", numbered(10));
    assert_eq!(
        fx.ok("read_file", json!({"path": "ten.txt", "offset": 8})),
        "line8\nline9\nline10\n[showing lines 8-10 of 10]"
    );
    // A limit reaching exactly the end, or past it, is the same read.
    for limit in [3, 4, 1000] {
        assert_eq!(
            fx.ok(
                "read_file",
                json!({"path": "ten.txt", "offset": 8, "limit": limit})
            ),
            "line8\nline9\nline10\n[showing lines 8-10 of 10]"
        );
    }
}

#[test]
fn read_to_the_end_of_a_file_without_final_newline_puts_the_note_on_its_own_line() {
    let fx = Fx::new();
    fx.write("u.txt", "line1\nline2\nline3");
    assert_eq!(
        fx.ok("read_file", json!({"path": "u.txt", "offset": 2})),
        "line2\nline3\n[showing lines 2-3 of 3]"
    );
}

#[test]
fn limit_covering_the_file_reads_it_whole_without_note() {
    let fx = Fx::new();
    fx.write("ten.txt", numbered(10));
    for limit in [10, 11, 5000] {
        assert_eq!(
            fx.ok(
                "read_file",
                json!({"path": "ten.txt", "offset": 1, "limit": limit})
            ),
            numbered(10)
        );
    }
}

#[test]
fn offset_past_the_end_is_an_error_naming_the_files_length() {
    let fx = Fx::new();
    fx.write("ten.txt", numbered(10));
    fx.write("one.txt", "only\n");
    fx.write("empty.txt", "");
    assert_eq!(
        fx.err("read_file", json!({"path": "ten.txt", "offset": 11})),
        "invalid-argument: offset 11 is past the end of ten.txt, which has 10 lines; pass an \
         offset from 1 to 10"
    );
    assert_eq!(
        fx.err("read_file", json!({"path": "one.txt", "offset": 2})),
        "invalid-argument: offset 2 is past the end of one.txt, which has 1 line; pass an offset \
         from 1 to 1"
    );
    assert_eq!(
        fx.err("read_file", json!({"path": "empty.txt", "offset": 2})),
        "invalid-argument: offset 2 is past the end of empty.txt, which is empty (0 lines); there \
         is nothing to read"
    );
}

#[test]
fn offset_zero_and_limit_zero_are_invalid_arguments() {
    let fx = Fx::new();
    fx.write("ten.txt", numbered(10));
    assert_eq!(
        fx.err("read_file", json!({"path": "ten.txt", "offset": 0})),
        "invalid-argument: offset 0 is not a line: offset is 1-based; pass offset: 1 to start at \
         the first line of ten.txt"
    );
    assert_eq!(
        fx.err("read_file", json!({"path": "ten.txt", "limit": 0})),
        "invalid-argument: limit 0 asks for no lines of ten.txt; pass a limit of 1 or more, or \
         leave it out"
    );
}

#[test]
fn missing_file_is_not_found_and_directory_is_invalid_argument() {
    let fx = Fx::new();
    fx.mkdir("src");
    assert_eq!(
        fx.err("read_file", json!({"path": "nope.txt"})),
        "not-found: nope.txt does not exist; check the path with list_dir, or create it with \
         write_file"
    );
    assert_eq!(
        fx.err("read_file", json!({"path": "src"})),
        "invalid-argument: src is a directory, not a file; list it with list_dir or tree"
    );
}

// ---------------------------------------------------------------------------------------------
// Read modes

#[test]
fn default_configuration_caps_a_read_without_limit_at_2000_lines() {
    let fx = Fx::new();
    fx.write("big.txt", numbered(2500));
    assert_eq!(
        fx.ok("read_file", json!({"path": "big.txt"})),
        format!(
            "{}[showing lines 1-2000 of 2500; continue with offset: 2001]",
            lines(1, 2000)
        )
    );
    assert_eq!(
        fx.ok("read_file", json!({"path": "big.txt", "offset": 2001})),
        format!("{}[showing lines 2001-2500 of 2500]", lines(2001, 2500))
    );
}

#[test]
fn default_configuration_reads_a_2000_line_file_whole() {
    let fx = Fx::new();
    fx.write("cap.txt", numbered(2000));
    assert_eq!(
        fx.ok("read_file", json!({"path": "cap.txt"})),
        numbered(2000)
    );
}

#[test]
fn default_cap_windows_a_call_without_limit_at_line_cap_from_offset() {
    let fx = Fx::config(CAP5_DEFAULT);
    fx.write("f.txt", numbered(12));
    assert_eq!(
        fx.ok("read_file", json!({"path": "f.txt"})),
        format!(
            "{}[showing lines 1-5 of 12; continue with offset: 6]",
            lines(1, 5)
        )
    );
    assert_eq!(
        fx.ok("read_file", json!({"path": "f.txt", "offset": 6})),
        format!(
            "{}[showing lines 6-10 of 12; continue with offset: 11]",
            lines(6, 10)
        )
    );
    assert_eq!(
        fx.ok("read_file", json!({"path": "f.txt", "offset": 11})),
        "line11\nline12\n[showing lines 11-12 of 12]"
    );
}

#[test]
fn default_cap_honours_a_limit_larger_than_the_cap() {
    let fx = Fx::config(CAP5_DEFAULT);
    fx.write("f.txt", numbered(12));
    assert_eq!(
        fx.ok("read_file", json!({"path": "f.txt", "limit": 12})),
        numbered(12)
    );
    assert_eq!(
        fx.ok("read_file", json!({"path": "f.txt", "limit": 8})),
        format!(
            "{}[showing lines 1-8 of 12; continue with offset: 9]",
            lines(1, 8)
        )
    );
    assert_eq!(
        fx.ok(
            "read_file",
            json!({"path": "f.txt", "offset": 2, "limit": 2})
        ),
        "line2\nline3\n[showing lines 2-3 of 12; continue with offset: 4]"
    );
}

#[test]
fn unlimited_reads_from_offset_to_the_end_without_limit() {
    let fx = Fx::config(CAP5_UNLIMITED);
    fx.write("f.txt", numbered(12));
    assert_eq!(fx.ok("read_file", json!({"path": "f.txt"})), numbered(12));
    assert_eq!(
        fx.ok("read_file", json!({"path": "f.txt", "offset": 4})),
        format!("{}[showing lines 4-12 of 12]", lines(4, 12))
    );
}

#[test]
fn unlimited_honours_a_given_limit() {
    let fx = Fx::config(CAP5_UNLIMITED);
    fx.write("f.txt", numbered(12));
    assert_eq!(
        fx.ok("read_file", json!({"path": "f.txt", "limit": 2})),
        "line1\nline2\n[showing lines 1-2 of 12; continue with offset: 3]"
    );
    assert_eq!(
        fx.ok(
            "read_file",
            json!({"path": "f.txt", "offset": 3, "limit": 7})
        ),
        format!(
            "{}[showing lines 3-9 of 12; continue with offset: 10]",
            lines(3, 9)
        )
    );
}

#[test]
fn files_no_longer_than_the_cap_read_identically_under_both_modes() {
    let capped = Fx::config(CAP5_DEFAULT);
    let unlimited = Fx::config(CAP5_UNLIMITED);
    for content in ["", "x", "a\nb\nc\nd\ne\n", "a\r\nb\r\nc", "a\nb\nc\nd\ne"] {
        capped.write("f.txt", content);
        unlimited.write("f.txt", content);
        let a = capped.ok("read_file", json!({"path": "f.txt"}));
        let b = unlimited.ok("read_file", json!({"path": "f.txt"}));
        assert_eq!(a, content, "default-cap changed {content:?}");
        assert_eq!(b, content, "unlimited changed {content:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// The 256 KiB byte ceiling

/// 8,000 lines of 100 bytes each: 2,621 of them fit in 256 KiB (262,100 bytes).
fn hundred_byte_lines() -> String {
    (1..=8000)
        .map(|i| format!("{i:05}{}\n", "x".repeat(94)))
        .collect()
}

#[test]
fn byte_ceiling_cuts_many_lines_at_a_line_boundary_and_says_where_to_continue() {
    let content = hundred_byte_lines();
    let kept = &content[..2621 * 100];
    let expected = format!(
        "{kept}[showing lines 1-2621 of 8000, cut at the 256 KiB read limit; continue with \
         offset: 2622]"
    );
    // Unlimited without a limit, and default-cap with a limit covering the file.
    let unlimited = Fx::config(CAP5_UNLIMITED);
    unlimited.write("big.txt", &content);
    assert_eq!(
        unlimited.ok("read_file", json!({"path": "big.txt"})),
        expected
    );
    let capped = Fx::new();
    capped.write("big.txt", &content);
    assert_eq!(
        capped.ok("read_file", json!({"path": "big.txt", "limit": 8000})),
        expected
    );
    // The continuation picks up where the cut left off.
    let next = unlimited.ok("read_file", json!({"path": "big.txt", "offset": 2622}));
    assert!(next.starts_with("02622xxx"), "{}", &next[..20]);
    assert!(
        next.ends_with(
            "[showing lines 2622-5242 of 8000, cut at the 256 KiB read limit; continue with \
             offset: 5243]"
        ),
        "{}",
        &next[next.len() - 120..]
    );
}

#[test]
fn byte_ceiling_is_not_applied_to_a_window_that_fits() {
    let fx = Fx::new();
    fx.write("big.txt", hundred_byte_lines());
    // 2,000 lines of 100 bytes: under the ceiling, so only the line cap applies.
    let out = fx.ok("read_file", json!({"path": "big.txt"}));
    assert!(out.ends_with("\n[showing lines 1-2000 of 8000; continue with offset: 2001]"));
    assert_eq!(
        out.len(),
        200_000 + "[showing lines 1-2000 of 8000; continue with offset: 2001]".len()
    );
}

#[test]
fn byte_ceiling_lets_a_file_of_exactly_256_kib_through_whole() {
    let fx = Fx::config(CAP5_UNLIMITED);
    let mut content: String = hundred_byte_lines()[..2621 * 100].to_string();
    content.push_str(&format!("{}\n", "e".repeat(43)));
    assert_eq!(content.len(), 256 * 1024);
    fx.write("exact.txt", &content);
    assert_eq!(fx.ok("read_file", json!({"path": "exact.txt"})), content);
    // One byte more and the last line no longer fits.
    content.insert(content.len() - 1, 'e');
    fx.write("over.txt", &content);
    assert_eq!(
        fx.ok("read_file", json!({"path": "over.txt"})),
        format!(
            "{}[showing lines 1-2621 of 2622, cut at the 256 KiB read limit; continue with \
             offset: 2622]",
            &content[..2621 * 100]
        )
    );
}

#[test]
fn byte_ceiling_cuts_one_huge_line_mid_line_and_says_where_to_continue() {
    let fx = Fx::config(CAP5_UNLIMITED);
    let huge = "y".repeat(300_000);
    fx.write("huge.txt", format!("short\n{huge}\ntail\n"));
    // From line 1 the huge line is dropped whole: line 1 is shown, then the note.
    assert_eq!(
        fx.ok("read_file", json!({"path": "huge.txt"})),
        "short\n[showing lines 1-1 of 3, cut at the 256 KiB read limit; continue with offset: 2]"
    );
    // Starting at the huge line shows its first 256 KiB.
    assert_eq!(
        fx.ok("read_file", json!({"path": "huge.txt", "offset": 2})),
        format!(
            "{}\n[showing lines 2-2 of 3, line 2 cut after 262144 of its 300000 bytes by the \
             256 KiB read limit; continue with offset: 3]",
            "y".repeat(262_144)
        )
    );
    assert_eq!(
        fx.ok("read_file", json!({"path": "huge.txt", "offset": 3})),
        "tail\n[showing lines 3-3 of 3]"
    );
}

#[test]
fn byte_ceiling_cut_of_a_huge_last_line_says_it_is_the_last() {
    let fx = Fx::new();
    fx.write("one.txt", "z".repeat(300_000));
    assert_eq!(
        fx.ok("read_file", json!({"path": "one.txt"})),
        format!(
            "{}\n[showing lines 1-1 of 1, line 1 cut after 262144 of its 300000 bytes by the 256 \
             KiB read limit; it is the last line, and no read shows the rest of it]",
            "z".repeat(262_144)
        )
    );
}

#[test]
fn byte_ceiling_mid_line_cut_does_not_split_a_multibyte_character() {
    let fx = Fx::new();
    // 1 + 2 * 200,000 bytes: the 262,144th byte is the first half of an "é".
    let line = format!("a{}", "é".repeat(200_000));
    fx.write("u.txt", format!("{line}\nnext\n"));
    let out = fx.ok("read_file", json!({"path": "u.txt"}));
    assert!(!out.contains('\u{FFFD}'), "the cut split a character");
    assert_eq!(
        out,
        format!(
            "a{}\n[showing lines 1-1 of 2, line 1 cut after 262143 of its 400001 bytes by the \
             256 KiB read limit; continue with offset: 2]",
            "é".repeat(131_071)
        )
    );
}
