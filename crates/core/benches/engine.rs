//! In-process figures of the engine through the public `Workspace::call` API (no transport):
//! a read window, content search, the exact-text edit matcher, and a V4A patch applied.
//!
//! `cargo bench -p fsgate-core` (whole-process and MCP figures: `bench/compare`).

// Benchmarks build their fixtures directly on disk.
#![allow(clippy::disallowed_methods)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use fsgate_core::{Options, Profile, Workspace};
use serde_json::json;

const LINES: usize = 200_000;

fn text_lines(n: usize, unique_at: Option<usize>) -> String {
    let mut s = String::with_capacity(n * 64);
    for i in 0..n {
        if Some(i) == unique_at {
            s.push_str("THE-ONE-UNIQUE-LINE-TO-EDIT alpha\n");
        } else {
            let _ = writeln!(s, "line {i:07} lorem ipsum dolor sit amet consectetur elit");
        }
    }
    s
}

/// A small source tree: 40 folders of 25 files, a `.gitignore` and ignored files.
fn tree(root: &Path) {
    std::fs::write(root.join(".gitignore"), "*.o\n").unwrap();
    for d in 0..40 {
        let dir = root.join(format!("drivers/d{d:02}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..25 {
            let mut body = String::new();
            for k in 0..200 {
                if k % 50 == 7 {
                    let _ = writeln!(body, "\tif (state == PM_SUSPEND_{k}) return -EBUSY;");
                } else {
                    let _ = writeln!(body, "\tint value_{f}_{k} = compute({k}, {d});");
                }
            }
            std::fs::write(dir.join(format!("f{f:02}.c")), &body).unwrap();
            std::fs::write(dir.join(format!("f{f:02}.o")), &body).unwrap();
        }
    }
}

fn open(root: &Path, profile: Profile) -> Workspace {
    let mut options = Options::new(root);
    options.profile = profile.into();
    Workspace::open(options).unwrap()
}

fn call(ws: &Workspace, tool: &str, args: serde_json::Value) {
    let out = ws.call(tool, args).unwrap();
    assert!(!out.is_error, "{tool} failed: {}", out.text_content());
    black_box(out);
}

fn benches(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("big.txt"), text_lines(LINES, None)).unwrap();
    std::fs::write(root.join("edit.txt"), text_lines(LINES, Some(LINES / 2))).unwrap();
    std::fs::write(root.join("small.txt"), text_lines(80, Some(40))).unwrap();
    tree(root);
    let gg = open(root, Profile::Gg);
    let coder = open(root, Profile::Coder);
    let pico = open(root, Profile::Picoclaw);

    let mut g = c.benchmark_group("read");
    g.bench_function("gg window at the end of 200k lines", |b| {
        b.iter(|| {
            call(
                &gg,
                "read_file",
                json!({"path": "big.txt", "offset": LINES - 99, "limit": 100}),
            )
        })
    });
    g.bench_function("coder window at line 100k (no total)", |b| {
        b.iter(|| {
            call(
                &coder,
                "read-file",
                json!({"path": "big.txt", "line_from": 100_000, "line_to": 100_100}),
            )
        })
    });
    g.finish();

    let mut g = c.benchmark_group("search");
    g.sample_size(20);
    g.bench_function("gg limit 50", |b| {
        b.iter(|| {
            call(
                &gg,
                "search",
                json!({"query": "PM_[A-Z]+_1[0-9]+", "limit": 50}),
            )
        })
    });
    g.bench_function("coder every match", |b| {
        b.iter(|| {
            call(
                &coder,
                "search",
                json!({"query": "PM_[A-Z]+_1[0-9]+", "regex": true, "search_paths": false,
                       "max_matches": 100_000}),
            )
        })
    });
    g.finish();

    let mut g = c.benchmark_group("edit");
    g.sample_size(20);
    let mut flip = false;
    g.bench_function("gg unique edit in 200k lines", |b| {
        b.iter(|| {
            let (from, to) = if flip {
                ("beta", "alpha")
            } else {
                ("alpha", "beta")
            };
            flip = !flip;
            call(
                &gg,
                "edit_file",
                json!({"path": "edit.txt",
                       "old_string": format!("THE-ONE-UNIQUE-LINE-TO-EDIT {from}"),
                       "new_string": format!("THE-ONE-UNIQUE-LINE-TO-EDIT {to}")}),
            )
        })
    });
    let mut flip = false;
    g.bench_function("picoclaw V4A patch of a 5 KB file", |b| {
        b.iter(|| {
            let (from, to) = if flip {
                ("beta", "alpha")
            } else {
                ("alpha", "beta")
            };
            flip = !flip;
            let patch = format!(
                "@@\n line 0000039 lorem ipsum dolor sit amet consectetur elit\n\
                 -THE-ONE-UNIQUE-LINE-TO-EDIT {from}\n+THE-ONE-UNIQUE-LINE-TO-EDIT {to}\n \
                 line 0000041 lorem ipsum dolor sit amet consectetur elit\n"
            );
            call(
                &pico,
                "edit_file",
                json!({"path": "small.txt", "patch": patch}),
            )
        })
    });
    g.finish();
}

criterion_group!(engine, benches);
criterion_main!(engine);
