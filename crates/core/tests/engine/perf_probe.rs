//! Timing probes for the engine's headline workloads, run by hand against a real corpus:
//! `FSGATE_PROBE_FILE=big.txt cargo test --release -p fsgate-core --test engine perf_probe -- --ignored
//! --nocapture`. They print figures and assert nothing beyond the calls succeeding; the
//! benchmark suite is where targets are checked.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use std::path::Path;
use std::time::Instant;

use fsgate_core::{Options, Workspace};
use serde_json::json;

fn peak_rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

#[test]
#[ignore = "a probe: needs FSGATE_PROBE_FILE"]
fn probe_windowed_reads_of_a_large_file() {
    let Ok(file) = std::env::var("FSGATE_PROBE_FILE") else {
        return;
    };
    let file = Path::new(&file);
    let ws = Workspace::open(Options::new(file.parent().unwrap())).unwrap();
    let name = file.file_name().unwrap().to_str().unwrap();
    let t0 = Instant::now();
    let out = ws
        .call("read_file", json!({"path": name, "offset": 1, "limit": 1}))
        .unwrap();
    let first = t0.elapsed();
    let footer = out.text_content().lines().last().unwrap_or("").to_string();
    println!(
        "first read: {first:?} ({footer}); peak RSS {} kB",
        peak_rss_kb()
    );
    let total: u64 = footer
        .split(" of ")
        .nth(1)
        .and_then(|t| t.split(';').next())
        .and_then(|t| t.trim_end_matches(']').parse().ok())
        .unwrap_or(1);
    let end = total.saturating_sub(99).max(1);
    for offset in [end, total / 2, total / 3 + 7, 1, end, total - 5000, end] {
        let t0 = Instant::now();
        let out = ws
            .call(
                "read_file",
                json!({"path": name, "offset": offset, "limit": 100}),
            )
            .unwrap();
        assert!(!out.is_error, "{}", out.text_content());
        println!("later window at {offset}: {:?}", t0.elapsed());
    }
    println!("peak RSS {} kB", peak_rss_kb());
}

#[test]
#[ignore = "a probe: needs FSGATE_PROBE_TREE and FSGATE_PROBE_QUERY"]
fn probe_search_and_walk_of_a_tree() {
    let (Ok(tree), Ok(query)) = (
        std::env::var("FSGATE_PROBE_TREE"),
        std::env::var("FSGATE_PROBE_QUERY"),
    ) else {
        return;
    };
    let access = fsgate_core::access::Access::new(Path::new(&tree)).unwrap();
    let target = access.resolve(".").unwrap();
    let ctx = fsgate_core::CallContext::default();
    for limit in [50usize, usize::MAX] {
        let options = fsgate_core::ops::scan::sinks::lines::SearchOptions {
            limit,
            ..Default::default()
        };
        for _ in 0..3 {
            let t0 = Instant::now();
            let out = fsgate_core::ops::scan::sinks::lines::search(
                &access, &target, &query, &options, &ctx,
            )
            .unwrap();
            let n = match out {
                fsgate_core::ops::scan::sinks::lines::SearchOutcome::Matches(m, _) => m.len(),
                _ => 0,
            };
            println!("search limit {limit}: {n} matches in {:?}", t0.elapsed());
        }
    }
    let t0 = Instant::now();
    let files = access
        .sorted_walk(&target.path, None)
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .count();
    println!("sorted walk alone: {files} files in {:?}", t0.elapsed());
    println!("peak RSS {} kB", peak_rss_kb());
}
