//! gg read_file of large files: what counting the file's lines for the footer costs follows the
//! window and the count budget, not the file. Holes of sparse files are skipped, a count past its
//! budget answers with the window and `of at least N`, later reads go on counting until the total
//! is exact, a window past the lines counted is still found, and progress and cancellation work
//! during a long count.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

mod gg_support;

use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use fsgate_core::access::holes::{self, Holes};
use fsgate_core::{CallContext, Progress};
use gg_support::Fx;
use serde_json::json;

/// Lines of 16 bytes: `line 0000000001\n`, and so on.
const LINE: u64 = 16;
/// The dense test file: 8 MiB, 524288 lines.
const LINES: u64 = (8 << 20) / LINE;

fn line(n: u64) -> String {
    format!("line {n:010}\n")
}

fn lines(from: u64, to: u64) -> String {
    (from..=to).map(line).collect()
}

/// A workspace whose gg configuration has `params` for read-file, holding `big.txt` (8 MiB of
/// numbered lines) aged past the time the line index waits for a file to settle.
fn dense(params: &str) -> Fx {
    let fx = Fx::config(&format!(
        "[capabilities.read-file]\nparams = {{ {params} }}\n"
    ));
    fx.write("big.txt", lines(1, LINES));
    std::thread::sleep(Duration::from_millis(250));
    fx
}

/// The footer of a read's text: its last line.
fn footer(text: &str) -> &str {
    text.trim_end_matches('\n')
        .rsplit('\n')
        .next()
        .unwrap_or_default()
}

/// The `N` of a footer's `of at least N`, or `None` when the footer states an exact length.
fn at_least(footer: &str) -> Option<u64> {
    let rest = footer.split(" of at least ").nth(1)?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some(digits.parse().unwrap())
}

fn read(fx: &Fx, args: serde_json::Value) -> String {
    fx.ok("read_file", args)
}

#[test]
fn a_count_past_its_byte_budget_answers_with_the_window_and_at_least_the_lines_counted() {
    let fx = dense("lineCap = 100, countBudgetBytes = 1048576");
    let text = read(&fx, json!({"path": "big.txt"}));
    assert!(text.starts_with(&lines(1, 100)), "{}", &text[..200]);
    let footer = footer(&text);
    let n = at_least(footer).unwrap_or_else(|| panic!("an exact length: {footer}"));
    assert_eq!(
        footer,
        format!("[showing lines 1-100 of at least {n}; continue with offset: 101]")
    );
    // No more than the budget was read to count: 1 MiB holds 65536 lines.
    assert!((101..=65_537).contains(&n), "{footer}");
}

#[test]
fn later_reads_go_on_counting_until_the_total_is_exact() {
    let fx = dense("lineCap = 100, countBudgetBytes = 1048576");
    let mut known = 0;
    let mut reads = 0;
    loop {
        let offset = 1 + reads * 1000;
        let text = read(
            &fx,
            json!({"path": "big.txt", "offset": offset, "limit": 2}),
        );
        assert!(text.starts_with(&lines(offset, offset + 1)));
        reads += 1;
        let footer = footer(&text).to_string();
        match at_least(&footer) {
            Some(n) => {
                assert!(n > known, "read {reads} counted nothing more: {footer}");
                known = n;
            }
            None => {
                assert_eq!(
                    footer,
                    format!(
                        "[showing lines {offset}-{} of {LINES}; continue with offset: {}]",
                        offset + 1,
                        offset + 2
                    )
                );
                break;
            }
        }
        assert!(reads < 40, "the count does not converge: {footer}");
    }
    // 8 MiB at 1 MiB a read.
    assert!(reads >= 8, "{reads} reads counted 8 MiB on a 1 MiB budget");
}

#[test]
fn a_time_budget_of_zero_counts_nothing_past_the_window() {
    let fx = dense("lineCap = 100, countBudgetMs = 0");
    let text = read(&fx, json!({"path": "big.txt"}));
    assert_eq!(
        footer(&text),
        "[showing lines 1-100 of at least 101; continue with offset: 101]"
    );
    // Reaching a window further on counts up to it (and past it when a counting thread runs
    // ahead of the one holding the window's line).
    let text = read(&fx, json!({"path": "big.txt", "offset": 51}));
    let footer = footer(&text);
    match at_least(footer) {
        Some(n) => assert!((151..LINES).contains(&n), "{footer}"),
        None => assert!(footer.contains(&format!(" of {LINES};")), "{footer}"),
    }
}

#[test]
fn footers_of_windows_cut_by_the_read_limit_say_at_least_too() {
    let fx = dense("lineCap = 30000, countBudgetBytes = 0");
    let text = read(&fx, json!({"path": "big.txt"}));
    assert_eq!(
        footer(&text),
        "[showing lines 1-16384 of at least 16385, cut at the 256 KiB read limit; continue with \
         offset: 16385]"
    );
    // One line of 2 MiB, then more lines: the long line is measured, the rest not counted.
    let long = format!("{}\n{}", "x".repeat(2 << 20), lines(2, 100_000));
    fx.write("long.txt", long);
    std::thread::sleep(Duration::from_millis(250));
    let text = read(&fx, json!({"path": "long.txt"}));
    assert_eq!(
        footer(&text),
        "[showing lines 1-1 of at least 2, line 1 cut after 262144 of its 2097152 bytes by the \
         256 KiB read limit; continue with offset: 2]"
    );
}

#[test]
fn a_window_past_the_lines_counted_is_found_by_counting_on_to_it() {
    let fx = dense("lineCap = 100, countBudgetBytes = 0");
    let first = read(&fx, json!({"path": "big.txt", "limit": 5}));
    assert_eq!(
        footer(&first),
        "[showing lines 1-5 of at least 6; continue with offset: 6]"
    );
    let text = read(
        &fx,
        json!({"path": "big.txt", "offset": 400_000, "limit": 3}),
    );
    let shown = lines(400_000, 400_002);
    assert!(text.starts_with(&shown), "{text}");
    let footer = footer(&text);
    // Counted up to the window, or (when a counting thread ran ahead) to the end.
    if let Some(n) = at_least(footer) {
        assert!((400_003..=LINES).contains(&n), "{footer}");
    } else {
        assert!(footer.contains(&format!(" of {LINES};")), "{footer}");
    }
    assert!(
        footer.ends_with("; continue with offset: 400003]"),
        "{footer}"
    );
}

#[test]
fn an_offset_past_the_end_is_an_error_naming_the_length_whatever_the_budget() {
    let fx = dense("lineCap = 100, countBudgetBytes = 0, countBudgetMs = 0");
    let err = fx.err(
        "read_file",
        json!({"path": "big.txt", "offset": LINES + 10}),
    );
    assert_eq!(
        err,
        format!(
            "invalid-argument: offset {} is past the end of big.txt, which has {LINES} lines; \
             pass an offset from 1 to {LINES}",
            LINES + 10
        )
    );
}

#[test]
fn the_last_window_states_the_exact_length_on_no_budget() {
    let fx = dense("lineCap = 100, countBudgetBytes = 0");
    let text = read(&fx, json!({"path": "big.txt", "offset": LINES - 9}));
    assert_eq!(
        text,
        format!(
            "{}[showing lines {}-{LINES} of {LINES}]",
            lines(LINES - 9, LINES),
            LINES - 9
        )
    );
    // The length learned from that window holds for the next read.
    let next = read(&fx, json!({"path": "big.txt", "limit": 1}));
    assert_eq!(
        footer(&next),
        format!("[showing lines 1-1 of {LINES}; continue with offset: 2]")
    );
}

#[test]
fn following_the_footers_on_a_small_budget_shows_every_line_once() {
    let fx = dense("lineCap = 30000, countBudgetBytes = 262144");
    let mut seen = String::new();
    let mut offset = 1;
    let mut calls = 0;
    loop {
        let text = read(&fx, json!({"path": "big.txt", "offset": offset}));
        calls += 1;
        assert!(calls < 100, "the footers never end");
        let footer = footer(&text).to_string();
        assert!(footer.starts_with("[showing lines "), "{footer}");
        seen.push_str(&text[..text.len() - footer.len()]);
        match footer.split("continue with offset: ").nth(1) {
            Some(next) => offset = next.trim_end_matches(']').parse().unwrap(),
            None => {
                assert_eq!(
                    at_least(&footer),
                    None,
                    "the last footer is exact: {footer}"
                );
                break;
            }
        }
    }
    assert!(seen == lines(1, LINES), "every line once, in order");
}

#[test]
fn progress_is_reported_during_a_count_and_a_cancelled_count_resumes_on_the_next_read() {
    let fx = dense("lineCap = 10");
    let flag = Arc::new(AtomicBool::new(false));
    let reports: Arc<Mutex<Vec<Progress>>> = Arc::default();
    let (cancel, sink) = (Arc::clone(&flag), Arc::clone(&reports));
    let ctx = CallContext::with_flag(Arc::clone(&flag)).with_progress(Arc::new(move |p| {
        sink.lock().unwrap().push(p);
        // The caller gives up once it has heard how the count goes.
        cancel.store(true, Ordering::Relaxed);
    }));
    let out = fx
        .ws
        .call_with("read_file", json!({"path": "big.txt"}), &ctx)
        .unwrap();
    let text = out.text_content();
    assert!(out.is_error, "{text}");
    assert!(
        text.starts_with(
            "cancelled: the read of big.txt was cancelled by the caller after counting "
        ),
        "{text}"
    );
    assert!(
        text.ends_with(&format!(" of its {} bytes; nothing is returned", 8 << 20)),
        "{text}"
    );
    let reports = reports.lock().unwrap().clone();
    assert!(!reports.is_empty());
    assert!(
        reports
            .iter()
            .all(|p| p.total == Some(8 << 20) && p.done <= 8 << 20)
    );
    assert!(
        reports[0].message.ends_with(" bytes counted"),
        "{reports:?}"
    );
    let text = read(&fx, json!({"path": "big.txt"}));
    assert_eq!(
        footer(&text),
        format!("[showing lines 1-10 of {LINES}; continue with offset: 11]")
    );
}

/// A sparse file of 10 GiB: numbered lines at its start, then a line every 4 MiB (2560
/// stretches of data in all), then its last line.
fn sparse(fx: &Fx) -> u64 {
    let size = 10u64 << 30;
    fx.write("sparse.txt", lines(1, 1000));
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(fx.path("sparse.txt"))
        .unwrap();
    let mut at = 4 << 20;
    let mut extra = 0;
    while at < size - (4 << 20) {
        f.write_all_at(b"\na line far out\n", at).unwrap();
        extra += 2;
        at += 4 << 20;
    }
    f.write_all_at(b"\nthe last line\n", size - 15).unwrap();
    f.set_len(size).unwrap();
    1000 + extra + 2
}

#[test]
fn a_sparse_file_is_counted_by_its_data_and_its_later_windows_are_fast() {
    let fx = Fx::new();
    let total = sparse(&fx);
    let f = std::fs::File::open(fx.path("sparse.txt")).unwrap();
    if holes::next_data(&f, 1 << 20, 4 << 20, Holes::Seek).is_some() {
        eprintln!("this filesystem does not report holes; the sparse case is not checked");
        return;
    }
    std::thread::sleep(Duration::from_millis(250));
    let t0 = Instant::now();
    let text = read(&fx, json!({"path": "sparse.txt", "limit": 10}));
    let first = t0.elapsed();
    assert_eq!(
        text,
        format!(
            "{}[showing lines 1-10 of {total}; continue with offset: 11]",
            lines(1, 10)
        )
    );
    let t0 = Instant::now();
    let text = read(
        &fx,
        json!({"path": "sparse.txt", "offset": 995, "limit": 3}),
    );
    let later = t0.elapsed();
    assert_eq!(
        text,
        format!(
            "{}[showing lines 995-997 of {total}; continue with offset: 998]",
            lines(995, 997)
        )
    );
    // Reading 10 GiB of zeros takes seconds; its data is 2560 blocks.
    assert!(first < Duration::from_secs(5), "first window: {first:?}");
    assert!(
        later < Duration::from_millis(500),
        "later window: {later:?}"
    );
}

#[test]
fn a_count_on_a_time_budget_stops_in_time() {
    // 64 MiB: more than any machine counts in a millisecond.
    let fx = Fx::config("[capabilities.read-file]\nparams = { lineCap = 10, countBudgetMs = 1 }\n");
    let total = 8 * LINES;
    fx.write("big.txt", lines(1, total));
    std::thread::sleep(Duration::from_millis(250));
    let text = read(&fx, json!({"path": "big.txt"}));
    let n = at_least(footer(&text)).unwrap_or_else(|| panic!("{}", footer(&text)));
    assert!(n >= 11 && n < total, "{}", footer(&text));
}
