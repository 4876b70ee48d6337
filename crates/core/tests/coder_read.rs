//! coder read-file (spec 001): stat probes, streamed windows, numbered reads, full reads under
//! max_output_bytes, batch reads under batch_read_budget_bytes, UTF-8 sanitisation, and the
//! errors with their C-codes. Every successful response is checked against the spec's schema.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

mod coder_support;

use std::os::unix::fs::{MetadataExt, PermissionsExt};

use coder_support::{Fx, problems};
use serde_json::{Value, json};

fn mtime(fx: &Fx, rel: &str) -> i64 {
    std::fs::metadata(fx.path(rel)).unwrap().mtime()
}

fn lines(from: usize, to: usize) -> String {
    (from..=to).map(|i| format!("line{i}\n")).collect()
}

/// The single-path fields of a read, with the batch field null.
fn single(fx: &Fx, rel: &str, fields: Value) -> Value {
    let meta = std::fs::metadata(fx.path(rel)).unwrap();
    let mut out = json!({
        "path": fx.abs(rel),
        "size": meta.len(),
        "mode": meta.permissions().mode() & 0o777,
        "mtime": meta.mtime(),
        "results": null,
    });
    for (k, v) in fields.as_object().unwrap() {
        out[k] = v.clone();
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Full reads

#[test]
fn a_full_read_returns_every_field_and_no_batch_results() {
    let fx = Fx::new();
    fx.write("a.txt", "one\ntwo\nthree\n");
    std::fs::set_permissions(fx.path("a.txt"), std::fs::Permissions::from_mode(0o640)).unwrap();
    let got = fx.ok("read-file", json!({"path": "a.txt"}));
    assert_eq!(
        got,
        json!({
            "content": "one\ntwo\nthree\n",
            "is_utf8": true,
            "lines_returned": 3,
            "mode": 0o640,
            "more_lines": false,
            "mtime": mtime(&fx, "a.txt"),
            "path": fx.abs("a.txt"),
            "results": null,
            "size": 14,
            "total_lines": 3,
        })
    );
}

#[test]
fn a_final_newline_makes_no_phantom_line_and_an_empty_file_has_none() {
    let fx = Fx::new();
    fx.write("open.txt", "one\ntwo");
    fx.write("empty.txt", "");
    fx.write("blank.txt", "\n\n");
    let open = fx.ok("read-file", json!({"path": "open.txt"}));
    assert_eq!(
        (open["lines_returned"].clone(), open["total_lines"].clone()),
        (json!(2), json!(2))
    );
    let empty = fx.ok("read-file", json!({"path": "empty.txt"}));
    assert_eq!(
        empty,
        single(
            &fx,
            "empty.txt",
            json!({"content": "", "is_utf8": true, "lines_returned": 0, "total_lines": 0, "more_lines": false})
        )
    );
    let blank = fx.ok("read-file", json!({"path": "blank.txt"}));
    assert_eq!(blank["total_lines"], 2);
}

#[test]
fn a_numbered_full_read_prefixes_absolute_numbers_with_an_arrow() {
    let fx = Fx::new();
    fx.write("a.txt", "one\ntwo\nthree");
    let got = fx.ok("read-file", json!({"path": "a.txt", "numbered": true}));
    assert_eq!(got["content"], "1→one\n2→two\n3→three");
    assert_eq!(got["lines_returned"], 3);
    assert_eq!(got["more_lines"], false);
}

#[test]
fn a_relative_path_resolves_against_base_dir_and_the_response_path_is_canonical() {
    let fx = Fx::new();
    fx.write("sub/dir/a.txt", "x\n");
    let got = fx.ok("read-file", json!({"path": "a.txt", "base_dir": "sub/dir"}));
    assert_eq!(got["path"], fx.abs("sub/dir/a.txt"));
    let got = fx.ok("read-file", json!({"path": "sub/./dir/../dir/a.txt"}));
    assert_eq!(got["path"], fx.abs("sub/dir/a.txt"));
}

#[test]
fn a_full_read_over_max_output_bytes_is_c213_with_size_lines_and_recovery_calls() {
    let fx = Fx::limits(|l| l.max_output_bytes = 20);
    fx.write("a.txt", lines(1, 5)); // 30 bytes
    let (code, message) = fx.err("read-file", json!({"path": "a.txt"}));
    assert_eq!(code, "C213");
    for needle in [
        "30 bytes",
        "5 lines",
        "max_output_bytes budget (20)",
        "\"line_from\": 1",
        "\"line_to\": 3",
        "\"stat\": true",
        "max_output_bytes: 30",
    ] {
        assert!(
            message.contains(needle),
            "{needle:?} missing from: {message}"
        );
    }
    // Raising the budget per call reads it.
    let got = fx.ok(
        "read-file",
        json!({"path": "a.txt", "max_output_bytes": 30}),
    );
    assert_eq!(got["content"], lines(1, 5));
}

#[test]
fn numbered_prefixes_count_toward_max_output_bytes() {
    let fx = Fx::limits(|l| l.max_output_bytes = 30);
    fx.write("a.txt", lines(1, 5)); // 30 bytes, 50 numbered
    fx.ok("read-file", json!({"path": "a.txt"}));
    let (code, message) = fx.err("read-file", json!({"path": "a.txt", "numbered": true}));
    assert_eq!(code, "C213");
    assert!(message.contains("would return 50 bytes"), "{message}");
}

#[test]
fn the_per_call_max_output_bytes_is_clamped_to_max_read_bytes() {
    let fx = Fx::limits(|l| l.max_read_bytes = 40);
    fx.write("a.txt", lines(1, 5)); // 30 bytes, 50 numbered
    let (code, message) = fx.err(
        "read-file",
        json!({"path": "a.txt", "numbered": true, "max_output_bytes": 1000}),
    );
    assert_eq!(code, "C213");
    assert!(message.contains("budget (40)"), "{message}");
    let got = fx.ok(
        "read-file",
        json!({"path": "a.txt", "max_output_bytes": 1000}),
    );
    assert_eq!(got["lines_returned"], 5);
}

#[test]
fn a_full_read_of_a_file_over_max_read_bytes_is_c213_pointing_at_windows() {
    let fx = Fx::limits(|l| l.max_read_bytes = 100);
    fx.write("big.txt", lines(1, 50));
    let (code, message) = fx.err("read-file", json!({"path": "big.txt"}));
    assert_eq!(code, "C213");
    assert!(message.contains("max_read_bytes (100)"), "{message}");
    assert!(message.contains("line_from"), "{message}");
    assert!(message.contains("stat"), "{message}");
}

#[test]
fn invalid_utf8_becomes_replacement_characters_and_is_utf8_is_false() {
    let fx = Fx::new();
    fx.write("bin.dat", [b'a', 0xFF, b'\n', 0xE2, 0x82]);
    let got = fx.ok("read-file", json!({"path": "bin.dat"}));
    assert_eq!(got["content"], "a\u{FFFD}\n\u{FFFD}");
    assert_eq!(got["is_utf8"], false);
    assert_eq!(got["total_lines"], 2);
}

#[test]
fn sanitised_bytes_count_toward_the_budget() {
    let fx = Fx::limits(|l| l.max_output_bytes = 10);
    fx.write("bin.dat", [0xFF; 4]); // 4 bytes on disk, 12 returned
    let (code, message) = fx.err("read-file", json!({"path": "bin.dat"}));
    assert_eq!(code, "C213");
    assert!(message.contains("would return 12 bytes"), "{message}");
}

// ---------------------------------------------------------------------------------------------
// Windows

#[test]
fn a_window_returns_its_lines_with_their_endings_and_the_total_when_the_end_is_near() {
    let fx = Fx::new();
    fx.write("a.txt", lines(1, 5));
    let got = fx.ok(
        "read-file",
        json!({"path": "a.txt", "line_from": 2, "line_to": 3}),
    );
    assert_eq!(
        got,
        single(
            &fx,
            "a.txt",
            json!({
                "content": "line2\nline3\n",
                "is_utf8": true,
                "lines_returned": 2,
                "total_lines": 5,
                "more_lines": true,
            })
        )
    );
    let last = fx.ok("read-file", json!({"path": "a.txt", "line_from": 4}));
    assert_eq!(last["content"], "line4\nline5\n");
    assert_eq!(last["more_lines"], false);
    assert_eq!(last["total_lines"], 5);
    let to_only = fx.ok("read-file", json!({"path": "a.txt", "line_to": 1}));
    assert_eq!(to_only["content"], "line1\n");
}

#[test]
fn a_numbered_window_is_numbered_from_its_absolute_first_line() {
    let fx = Fx::new();
    fx.write("a.txt", lines(1, 50));
    let got = fx.ok(
        "read-file",
        json!({"path": "a.txt", "line_from": 40, "line_to": 41, "numbered": true}),
    );
    assert_eq!(got["content"], "40→line40\n41→line41\n");
    assert_eq!(got["lines_returned"], 2);
}

#[test]
fn a_window_starting_past_the_end_succeeds_empty_with_the_total() {
    let fx = Fx::new();
    fx.write("a.txt", "a\nb\nc");
    let got = fx.ok(
        "read-file",
        json!({"path": "a.txt", "line_from": 10, "line_to": 12}),
    );
    assert_eq!(
        got,
        single(
            &fx,
            "a.txt",
            json!({
                "content": "",
                "is_utf8": true,
                "lines_returned": 0,
                "total_lines": 3,
                "more_lines": false,
            })
        )
    );
    let just_past = fx.ok("read-file", json!({"path": "a.txt", "line_from": 4}));
    assert_eq!(just_past["total_lines"], 3);
    assert_eq!(just_past["content"], "");
}

#[test]
fn a_window_far_from_the_end_stops_reading_and_leaves_the_total_unknown() {
    let fx = Fx::new();
    // Well over the 256 KiB a window may read past its end.
    fx.write("big.log", lines(1, 100_000));
    let got = fx.ok(
        "read-file",
        json!({"path": "big.log", "line_from": 2, "line_to": 3}),
    );
    assert_eq!(got["content"], "line2\nline3\n");
    assert_eq!(got["total_lines"], Value::Null);
    assert_eq!(got["more_lines"], true);
    let tail = fx.ok(
        "read-file",
        json!({"path": "big.log", "line_from": 99_999, "line_to": 100_000}),
    );
    assert_eq!(tail["total_lines"], 100_000);
    assert_eq!(tail["more_lines"], false);
}

#[test]
fn windows_read_files_larger_than_max_read_bytes_and_the_cap_bounds_the_window() {
    let fx = Fx::limits(|l| l.max_read_bytes = 20);
    fx.write("a.txt", lines(1, 20)); // far over 20 bytes
    let got = fx.ok(
        "read-file",
        json!({"path": "a.txt", "line_from": 3, "line_to": 4}),
    );
    assert_eq!(got["content"], "line3\nline4\n");
    // Open-ended: whole lines up to 20 bytes, then more_lines and no total.
    let got = fx.ok("read-file", json!({"path": "a.txt", "line_from": 1}));
    assert_eq!(got["content"], "line1\nline2\nline3\n");
    assert_eq!(got["lines_returned"], 3);
    assert_eq!(got["more_lines"], true);
    assert_eq!(got["total_lines"], Value::Null);
    // Prefix bytes count toward the cap: "1→line1\n" is 10 bytes.
    let got = fx.ok(
        "read-file",
        json!({"path": "a.txt", "line_from": 1, "numbered": true}),
    );
    assert_eq!(got["content"], "1→line1\n2→line2\n");
    assert_eq!(got["more_lines"], true);
}

#[test]
fn a_window_whose_first_line_alone_passes_the_cap_is_c213_naming_the_window_after_it() {
    let fx = Fx::limits(|l| l.max_read_bytes = 8);
    fx.write("a.txt", "0123456789abcdef\nx\n");
    let (code, message) = fx.err(
        "read-file",
        json!({"path": "a.txt", "line_from": 1, "line_to": 2}),
    );
    assert_eq!(code, "C213");
    assert!(
        message.contains("line 1 of a.txt is longer than max_read_bytes (8)"),
        "{message}"
    );
    assert!(message.contains(r#""line_from": 2"#), "{message}");
    // The named call goes on.
    let got = fx.ok("read-file", json!({"path": "a.txt", "line_from": 2}));
    assert_eq!(got["content"], "x\n");
    assert_eq!(got["more_lines"], false);
}

#[test]
fn is_utf8_describes_the_returned_window_only() {
    let fx = Fx::new();
    let mut bytes = b"clean\n".to_vec();
    bytes.extend_from_slice(&[0xFF, 0xFE, b'\n']);
    fx.write("mixed.dat", &bytes);
    let clean = fx.ok(
        "read-file",
        json!({"path": "mixed.dat", "line_from": 1, "line_to": 1}),
    );
    assert_eq!(clean["is_utf8"], true);
    let dirty = fx.ok("read-file", json!({"path": "mixed.dat", "line_from": 2}));
    assert_eq!(dirty["is_utf8"], false);
    assert_eq!(dirty["content"], "\u{FFFD}\u{FFFD}\n");
}

#[test]
fn a_windows_sanitised_bytes_count_toward_the_cap() {
    let fx = Fx::limits(|l| l.max_read_bytes = 8);
    fx.write("bin.dat", [b'a', b'\n', 0xFF, 0xFF, 0xFF, b'\n']);
    // The second line is 4 bytes on disk but 7 returned: 2 + 7 > 8.
    let got = fx.ok("read-file", json!({"path": "bin.dat", "line_from": 1}));
    assert_eq!(got["content"], "a\n");
    assert_eq!(got["more_lines"], true);
}

// ---------------------------------------------------------------------------------------------
// stat

#[test]
fn stat_returns_metadata_and_line_count_without_content() {
    let fx = Fx::new();
    fx.write("a.txt", lines(1, 7));
    let got = fx.ok("read-file", json!({"path": "a.txt", "stat": true}));
    assert_eq!(
        got,
        single(
            &fx,
            "a.txt",
            json!({
                "content": null,
                "is_utf8": true,
                "lines_returned": 0,
                "total_lines": 7,
                "more_lines": false,
            })
        )
    );
    fx.write("bin.dat", [0xFF, b'\n']);
    let got = fx.ok("read-file", json!({"path": "bin.dat", "stat": true}));
    assert_eq!(got["is_utf8"], false);
    assert_eq!(got["total_lines"], 1);
}

#[test]
fn stat_of_a_file_over_max_read_bytes_succeeds_without_counts() {
    let fx = Fx::limits(|l| l.max_read_bytes = 10);
    fx.write("big.txt", lines(1, 10));
    let got = fx.ok("read-file", json!({"path": "big.txt", "stat": true}));
    assert_eq!(
        got,
        single(
            &fx,
            "big.txt",
            json!({
                "content": null,
                "is_utf8": null,
                "lines_returned": 0,
                "total_lines": null,
                "more_lines": false,
            })
        )
    );
    assert_eq!(got["size"], 61);
}

// ---------------------------------------------------------------------------------------------
// Bad input (C210) and path errors

#[test]
fn conflicting_or_illegal_arguments_are_c210() {
    let fx = Fx::new();
    fx.write("a.txt", "a\n");
    let cases = [
        (
            json!({"path": "a.txt", "stat": true, "line_from": 1}),
            "line_from",
        ),
        (
            json!({"path": "a.txt", "stat": true, "line_to": 2}),
            "line_to",
        ),
        (
            json!({"path": "a.txt", "stat": true, "numbered": true}),
            "numbered",
        ),
        (
            json!({"path": "a.txt", "stat": true, "max_output_bytes": 5}),
            "max_output_bytes",
        ),
        (json!({"path": "a.txt", "line_from": 0}), "line_from 0"),
        (
            json!({"path": "a.txt", "line_from": 5, "line_to": 4}),
            "line_to (4)",
        ),
        (
            json!({"path": "a.txt", "line_from": 1, "max_output_bytes": 5}),
            "max_output_bytes (5)",
        ),
        (
            json!({"path": "a.txt", "paths": ["a.txt"]}),
            "both path and paths",
        ),
        (json!({}), "neither path nor paths"),
        (json!({"path": "a.txt", "bogus": 1}), "bogus"),
    ];
    for (args, needle) in cases {
        let (code, message) = fx.err("read-file", args.clone());
        assert_eq!(code, "C210", "{args}: {message}");
        assert!(
            message.contains(needle),
            "{args}: {needle:?} missing from {message}"
        );
    }
}

#[test]
fn directories_and_fifos_are_refused_clearly() {
    let fx = Fx::new();
    fx.mkdir("d");
    let (code, message) = fx.err("read-file", json!({"path": "d"}));
    assert_eq!(code, "C210");
    assert!(
        message.contains("is a directory") && message.contains("list-folder"),
        "{message}"
    );
    let fifo = fx.path("pipe");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    let (code, message) = fx.err("read-file", json!({"path": "pipe", "stat": true}));
    assert_eq!(code, "C210");
    assert!(message.contains("not a regular file"), "{message}");
}

#[test]
fn missing_secret_outside_and_out_of_session_paths_have_their_codes() {
    let fx = Fx::new();
    fx.write(".env", "TOKEN=1\n");
    fx.write("s/a.txt", "a\n");
    fx.write("other/b.txt", "b\n");
    let (code, message) = fx.err("read-file", json!({"path": "nope.txt"}));
    assert_eq!(code, "C211");
    assert!(
        message.contains("nope.txt") && message.contains("list-folder"),
        "{message}"
    );
    assert_eq!(fx.err("read-file", json!({"path": ".env"})).0, "C211");
    assert_eq!(
        fx.err("read-file", json!({"path": ".env", "stat": true})).0,
        "C211"
    );
    assert_eq!(
        fx.err("read-file", json!({"path": "/etc/hostname"})).0,
        "C215"
    );
    assert_eq!(fx.err("read-file", json!({"path": "../x.txt"})).0, "C215");
    assert_eq!(
        fx.err(
            "read-file",
            json!({"path": "../other/b.txt", "base_dir": "s"})
        )
        .0,
        "C218"
    );
}

// ---------------------------------------------------------------------------------------------
// Batch

#[test]
fn a_batch_reads_in_request_order_with_per_entry_errors_and_null_top_level_fields() {
    let fx = Fx::new();
    fx.write("a.txt", "a1\na2\n");
    fx.write("b.txt", lines(1, 5));
    fx.write(".env", "SECRET\n");
    let got = fx.ok(
        "read-file",
        json!({"paths": [
            "a.txt",
            {"path": "b.txt", "line_from": 2, "line_to": 3, "numbered": true},
            "missing.txt",
            ".env",
            {"path": "b.txt", "line_from": 0},
            {"path": "b.txt", "stat": true, "numbered": true},
            {"path": "b.txt", "stat": true},
        ]}),
    );
    for key in [
        "content",
        "is_utf8",
        "lines_returned",
        "mode",
        "more_lines",
        "mtime",
        "path",
        "size",
        "total_lines",
    ] {
        assert_eq!(got[key], Value::Null, "{key} in batch mode");
    }
    let results = got["results"].as_array().unwrap();
    assert_eq!(results.len(), 7);
    let a_meta = std::fs::metadata(fx.path("a.txt")).unwrap();
    assert_eq!(
        results[0],
        json!({
            "content": "a1\na2\n",
            "is_utf8": true,
            "lines_returned": 2,
            "mode": a_meta.permissions().mode() & 0o777,
            "more_lines": false,
            "mtime": a_meta.mtime(),
            "path": fx.abs("a.txt"),
            "size": 6,
            "success": true,
            "total_lines": 2,
        })
    );
    assert_eq!(results[1]["content"], "2→line2\n3→line3\n");
    assert_eq!(results[1]["more_lines"], true);
    assert_eq!(results[1]["total_lines"], 5);
    let failure = |i: usize, code: &str, path: &str| {
        let r = &results[i];
        assert_eq!(r["success"], false, "{r}");
        assert_eq!(r["error"]["code"], code, "{r}");
        assert_eq!(r["path"], path, "{r}");
        for key in [
            "content",
            "is_utf8",
            "lines_returned",
            "size",
            "mode",
            "mtime",
        ] {
            assert_eq!(r[key], Value::Null, "{key} of a failed entry: {r}");
        }
    };
    failure(2, "C211", "missing.txt");
    failure(3, "C211", ".env");
    failure(4, "C210", "b.txt");
    failure(5, "C210", "b.txt");
    assert!(
        results[4]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("paths[4]")
    );
    assert_eq!(results[6]["success"], true);
    assert_eq!(results[6]["content"], Value::Null);
    assert_eq!(results[6]["total_lines"], 5);
    assert_eq!(results[6]["lines_returned"], 0);
}

#[test]
fn a_batch_is_budgeted_in_order_and_an_entry_reached_with_nothing_left_is_c213() {
    let fx = Fx::limits(|l| l.batch_read_budget_bytes = 11);
    fx.write("a.txt", "12345\n"); // 6
    fx.write("b.txt", "abcd\n"); // 5: the budget is now spent
    fx.write("c.txt", "c\n");
    let got = fx.ok(
        "read-file",
        json!({"paths": ["a.txt", "b.txt", "c.txt", {"path": "c.txt", "stat": true}, "nope.txt"]}),
    );
    let results = got["results"].as_array().unwrap();
    assert_eq!(results[0]["content"], "12345\n");
    assert_eq!(results[1]["content"], "abcd\n");
    assert_eq!(results[2]["success"], false);
    assert_eq!(results[2]["error"]["code"], "C213");
    let message = results[2]["error"]["message"].as_str().unwrap();
    for needle in [
        "batch_read_budget_bytes is 11",
        "returned 11 bytes",
        "c.txt",
        "line_from",
    ] {
        assert!(
            message.contains(needle),
            "{needle:?} missing from {message}"
        );
    }
    // stat stays free of budget; errors are classified the same after exhaustion.
    assert_eq!(results[3]["success"], true);
    assert_eq!(results[3]["total_lines"], 1);
    assert_eq!(results[4]["error"]["code"], "C211");
}

#[test]
fn a_batch_entry_cut_by_the_remaining_budget_succeeds_with_more_lines() {
    let fx = Fx::limits(|l| l.batch_read_budget_bytes = 10);
    fx.write("a.txt", "12345\n1234\n"); // 11 bytes
    fx.write("b.txt", "abcdef\n");
    let got = fx.ok("read-file", json!({"paths": ["a.txt", "b.txt"]}));
    let results = got["results"].as_array().unwrap();
    assert_eq!(results[0]["content"], "12345\n");
    assert_eq!(results[0]["lines_returned"], 1);
    assert_eq!(results[0]["more_lines"], true);
    assert_eq!(results[0]["total_lines"], Value::Null);
    // 4 bytes left: b's first line does not fit, so nothing of it is returned, and the entry
    // says where to read it instead of offering an empty window to repeat.
    assert_eq!(results[1]["success"], false);
    assert_eq!(results[1]["error"]["code"], "C213");
    let message = results[1]["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("line 1 of b.txt does not fit the 4 bytes left"),
        "{message}"
    );
    assert!(message.contains("in a call of its own"), "{message}");
    let alone = fx.ok("read-file", json!({"paths": ["b.txt"]}));
    assert_eq!(alone["results"][0]["content"], "abcdef\n");
}

#[test]
fn each_batch_entry_is_capped_by_max_read_bytes_too() {
    let fx = Fx::limits(|l| l.max_read_bytes = 8);
    fx.write("a.txt", "1234\n5678\n");
    let got = fx.ok("read-file", json!({"paths": ["a.txt", "a.txt"]}));
    let results = got["results"].as_array().unwrap();
    for r in results {
        assert_eq!(r["content"], "1234\n");
        assert_eq!(r["more_lines"], true);
    }
}

#[test]
fn batch_prefixes_and_sanitised_bytes_are_charged_to_the_budget() {
    let fx = Fx::limits(|l| l.batch_read_budget_bytes = 12);
    fx.write("a.txt", "ab\n"); // "1→ab\n" is 7 bytes
    fx.write("bin.dat", [0xFF, 0xFF, b'\n']); // 7 bytes returned
    let got = fx.ok(
        "read-file",
        json!({"paths": [{"path": "a.txt", "numbered": true}, "bin.dat"]}),
    );
    let results = got["results"].as_array().unwrap();
    assert_eq!(results[0]["content"], "1→ab\n");
    // 5 bytes left: the 3-byte line would return 7.
    assert_eq!(results[1]["error"]["code"], "C213");
    let message = results[1]["error"]["message"].as_str().unwrap();
    assert!(message.contains("5 bytes left"), "{message}");
}

#[test]
fn top_level_window_flags_are_ignored_in_batch_mode() {
    let fx = Fx::new();
    fx.write("a.txt", "x\ny\n");
    let got = fx.ok(
        "read-file",
        json!({"paths": ["a.txt"], "numbered": true, "line_from": 2, "stat": true}),
    );
    assert_eq!(got["results"][0]["content"], "x\ny\n");
}

#[test]
fn batch_paths_resolve_against_base_dir() {
    let fx = Fx::new();
    fx.write("s/a.txt", "a\n");
    fx.write("t.txt", "t\n");
    let got = fx.ok(
        "read-file",
        json!({"base_dir": "s", "paths": ["a.txt", "../t.txt"]}),
    );
    let results = got["results"].as_array().unwrap();
    assert_eq!(results[0]["path"], fx.abs("s/a.txt"));
    assert_eq!(results[1]["error"]["code"], "C218");
    assert_eq!(results[1]["path"], "../t.txt");
}

// ---------------------------------------------------------------------------------------------
// The schema check itself

#[test]
fn the_schema_check_rejects_what_the_spec_does_not_allow() {
    assert!(problems("read-file", &json!({"results": null})).is_empty());
    assert!(!problems("read-file", &json!({"lines_returned": "3"})).is_empty());
    assert!(!problems("read-file", &json!({"size": -1})).is_empty());
    assert!(!problems("read-file", &json!({"results": [{"path": "a"}]})).is_empty());
    assert!(
        !problems(
            "read-file",
            &json!({"results": [{"path": "a", "success": false, "error": {"code": "C211"}}]})
        )
        .is_empty()
    );
    assert!(!problems("read-file", &json!({"extra": 1})).is_empty());
}
