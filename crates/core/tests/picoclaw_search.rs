#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

//! picoclaw's search_files: pages without duplicates or gaps, merged and split context blocks,
//! output modes, the three filename pattern forms, the ignore rule and explicit paths, binary
//! detection, the 240-byte window, the 1 MiB line cap, the scan budget, order by modification,
//! and credential redaction of matched and context lines.

mod picoclaw_support;

use picoclaw_support::Pico;
use serde_json::{Value, json};

/// The result lines of a search (after the header and the blank line).
fn body(out: &str) -> Vec<String> {
    match out.split_once("\n\n") {
        Some((_, rest)) => rest.lines().map(str::to_string).collect(),
        None => Vec::new(),
    }
}

/// Pages through a search with `limit`, returning every page's result lines in order.
fn all_pages(p: &Pico, mut args: Value, limit: u64) -> Vec<Vec<String>> {
    let mut pages = Vec::new();
    let mut offset = 0;
    loop {
        args["limit"] = json!(limit);
        args["offset"] = json!(offset);
        let out = p.ok("search_files", args.clone());
        pages.push(body(&out));
        let Some(at) = out.find("call search_files again with offset=") else {
            break;
        };
        let next: u64 = out[at + 36..]
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(next, offset + limit, "{out}");
        offset = next;
        assert!(pages.len() < 100);
    }
    pages
}

fn corpus(p: &Pico) {
    for f in 0..6 {
        let text: String = (1..=40)
            .map(|i| {
                if i % 4 == 0 || i % 9 == 0 {
                    format!("hit {f}-{i}\n")
                } else {
                    format!("filler {f}-{i}\n")
                }
            })
            .collect();
        p.write(&format!("dir{}/file{f}.txt", f % 2), text);
    }
}

#[test]
fn pages_of_matching_lines_have_no_duplicates_or_gaps() {
    let p = Pico::new();
    corpus(&p);
    let whole = p.ok("search_files", json!({"pattern": "^hit", "limit": 200}));
    assert!(
        whole.starts_with("Results 1-78 of 78 (matching lines)."),
        "{whole}"
    );
    let whole = body(&whole);
    let pages = all_pages(&p, json!({"pattern": "^hit"}), 7);
    assert_eq!(pages.len(), 12);
    assert!(pages[..11].iter().all(|page| page.len() == 7));
    assert_eq!(pages[11].len(), 1);
    assert_eq!(pages.concat(), whole);
    let mut seen = whole.clone();
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), whole.len());
}

#[test]
fn pages_of_merged_context_blocks_have_no_duplicates_or_gaps() {
    let p = Pico::new();
    corpus(&p);
    let whole = body(&p.ok(
        "search_files",
        json!({"pattern": "^hit", "context": 2, "limit": 200}),
    ));
    let pages = all_pages(&p, json!({"pattern": "^hit", "context": 2}), 3);
    let joined: Vec<String> = pages.join(&"--".to_string());
    assert_eq!(joined, whole);
    // Every line of every file appears at most once.
    let lines: Vec<&String> = whole.iter().filter(|l| *l != "--").collect();
    let mut keys: Vec<String> = lines
        .iter()
        .map(|l| {
            let (path, rest) = l.split_once(['-', ':']).unwrap();
            let n = rest.split([':', '-']).next().unwrap();
            format!("{path}/{n}")
        })
        .collect();
    let total = keys.len();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), total);
}

#[test]
fn overlapping_or_touching_context_merges_into_one_block() {
    let p = Pico::new();
    p.write("a.txt", "1\n2\nX3\n4\nX5\n6\n7\n8\n9\nX10\n11\n");
    let out = p.ok("search_files", json!({"pattern": "^X", "context": 1}));
    assert_eq!(
        out,
        "Results 1-2 of 2 (context blocks).\nFiles scanned: 1, skipped: 0\n\na.txt-2-2\na.txt:3:X3\na.txt-4-4\na.txt:5:X5\na.txt-6-6\n--\na.txt-9-9\na.txt:10:X10\na.txt-11-11"
    );
    // Touching ranges (6 and 8 with context 1: 5-7 and 7-9... or 6 and 9: 5-7, 8-10) merge too.
    p.write("b.txt", "1\n2\n3\n4\n5\nX6\n7\n8\nX9\n10\n");
    let out = p.ok(
        "search_files",
        json!({"pattern": "^X", "context": 1, "path": "b.txt"}),
    );
    assert!(
        out.starts_with("Results 1-1 of 1 (context blocks)."),
        "{out}"
    );
}

#[test]
fn merged_blocks_are_split_at_fifty_lines() {
    let p = Pico::new();
    let text: String = (1..=300)
        .map(|i| {
            if i % 3 == 0 {
                format!("M{i}\n")
            } else {
                format!("n{i}\n")
            }
        })
        .collect();
    p.write("m.txt", text);
    let out = p.ok(
        "search_files",
        json!({"pattern": "^M", "context": 2, "limit": 200}),
    );
    let lines = body(&out);
    let blocks: Vec<&[String]> = lines.split(|l| l == "--").collect();
    assert!(blocks.len() >= 6, "{}", blocks.len());
    for block in &blocks {
        assert!(block.len() <= 50, "{}", block.len());
        assert!(
            block.iter().any(|l| l.contains(":M")),
            "each block holds a match"
        );
    }
    assert_eq!(lines.iter().filter(|l| *l != "--").count(), 300);
}

#[test]
fn files_only_and_count_modes() {
    let p = Pico::new();
    corpus(&p);
    let out = p.ok(
        "search_files",
        json!({"pattern": "hit 1-", "output_mode": "files_only"}),
    );
    assert_eq!(body(&out), ["dir1/file1.txt"]);
    let out = p.ok(
        "search_files",
        json!({"pattern": "^hit", "output_mode": "count", "limit": 2}),
    );
    assert_eq!(body(&out), ["dir0/file0.txt: 13", "dir0/file2.txt: 13"]);
    assert!(out.contains("offset=2"), "{out}");
}

#[test]
fn filename_patterns_take_three_forms() {
    let p = Pico::new();
    for f in [
        "docker-compose.yml",
        "deploy/docker-compose.prod.yml",
        "src/main.ts",
        "src/lib/util.ts",
        "src/lib/util.js",
        "README.md",
        "test/main.ts",
    ] {
        p.write(f, "x\n");
    }
    let files = |pattern: &str| {
        body(&p.ok(
            "search_files",
            json!({"pattern": pattern, "target": "files"}),
        ))
    };
    assert_eq!(files("").len(), 7);
    assert_eq!(
        files("docker-compose"),
        ["deploy/docker-compose.prod.yml", "docker-compose.yml"]
    );
    assert_eq!(files("src/**/*.ts"), ["src/lib/util.ts", "src/main.ts"]);
    assert_eq!(files("*.{js,ts}").len(), 4);
    assert_eq!(files("src/*.ts"), ["src/main.ts"], "* does not cross /");
    assert_eq!(
        files("main.?s"),
        ["src/main.ts", "test/main.ts"],
        "no / matches the base name"
    );
    assert_eq!(
        p.ok("search_files", json!({"pattern": "zzz", "target": "files"})),
        "No files matched."
    );
    // file_glob restricts a content search with the same syntax.
    let out = p.ok("search_files", json!({"pattern": "x", "file_glob": "*.ts"}));
    assert_eq!(body(&out).len(), 3, "{out}");
    let out = p.ok("search_files", json!({"pattern": "x", "file_glob": "lib"}));
    assert_eq!(body(&out).len(), 2, "{out}");
}

#[test]
fn the_ignore_rule_applies_and_explicit_paths_are_searched_anyway() {
    let p = Pico::new();
    p.write(".gitignore", "build/\n*.log\n");
    p.write("src/.ignore", "!keep.log\ngen/\n");
    p.write("build/out.txt", "needle\n");
    p.write("app.log", "needle\n");
    p.write("src/keep.log", "needle\n");
    p.write("src/gen/x.txt", "needle\n");
    p.write("src/main.txt", "needle\n");
    p.write(".git/config", "needle\n");
    let out = p.ok("search_files", json!({"pattern": "needle"}));
    assert_eq!(
        body(&out),
        ["src/keep.log:1:needle", "src/main.txt:1:needle"]
    );
    let out = p.ok(
        "search_files",
        json!({"pattern": "needle", "path": "build"}),
    );
    assert_eq!(body(&out), ["build/out.txt:1:needle"]);
    let out = p.ok(
        "search_files",
        json!({"pattern": "needle", "path": "app.log"}),
    );
    assert_eq!(body(&out), ["app.log:1:needle"]);
    let out = p.ok(
        "search_files",
        json!({"pattern": "needle", "path": "src/gen"}),
    );
    assert_eq!(body(&out), ["src/gen/x.txt:1:needle"]);
}

#[test]
fn binary_detection_looks_only_at_the_first_8_kib() {
    let p = Pico::new();
    p.write("bin.dat", b"needle\0\n");
    let mut late = "needle\n".repeat(1200).into_bytes();
    late.extend_from_slice(b"\0tail\n");
    p.write("late.txt", &late);
    p.write("latin1.txt", b"caf\xe9 needle\n");
    let out = p.ok(
        "search_files",
        json!({"pattern": "needle", "output_mode": "count"}),
    );
    assert_eq!(body(&out), ["late.txt: 1200", "latin1.txt: 1"], "{out}");
    assert!(out.contains("skipped: 1 (1 binary)"), "{out}");
    let out = p.ok("search_files", json!({"pattern": "café"}));
    assert!(
        out.starts_with("No matches found."),
        "a Latin-1 byte is not é: {out}"
    );
}

#[test]
fn long_lines_show_a_window_that_keeps_the_match_visible() {
    let p = Pico::new();
    p.write(
        "min.js",
        format!("{}NEEDLE{}\n", "a".repeat(1000), "b".repeat(1000)),
    );
    let out = p.ok("search_files", json!({"pattern": "NEEDLE"}));
    let line = &body(&out)[0];
    let text = line.strip_prefix("min.js:1:").unwrap();
    assert!(text.len() <= 240, "{}", text.len());
    assert!(text.starts_with('…') && text.ends_with('…'), "{text}");
    assert!(text.contains("NEEDLE"));
    p.write("head.js", format!("NEEDLE{}\n", "c".repeat(1000)));
    let out = p.ok(
        "search_files",
        json!({"pattern": "NEEDLE", "path": "head.js"}),
    );
    let text = body(&out)[0]
        .strip_prefix("head.js:1:")
        .unwrap()
        .to_string();
    assert!(text.starts_with("NEEDLE") && text.ends_with('…') && text.len() <= 240);
}

#[test]
fn a_line_is_kept_up_to_1_mib_before_matching() {
    let p = Pico::new();
    p.write(
        "huge.txt",
        format!("{}LATE\nEARLY{}\n", "x".repeat(1_100_000), "y".repeat(10)),
    );
    let out = p.ok("search_files", json!({"pattern": "LATE|EARLY"}));
    assert_eq!(body(&out), ["huge.txt:2:EARLYyyyyyyyyyy"]);
}

#[test]
fn a_file_that_no_longer_fits_the_byte_budget_is_skipped_and_the_walk_goes_on() {
    let p = Pico::new();
    for name in ["a.txt", "b.txt"] {
        // Text for the first 8 KiB, so the zeros after it do not make the file binary.
        p.write(name, format!("needle\n{}", "filler\n".repeat(1500)));
        let f = std::fs::OpenOptions::new()
            .append(true)
            .open(p.path(name))
            .unwrap();
        f.set_len(40 * 1024 * 1024).unwrap();
    }
    p.write("c.txt", "needle\n");
    let out = p.ok("search_files", json!({"pattern": "^needle"}));
    assert_eq!(body(&out), ["a.txt:1:needle", "c.txt:1:needle"], "{out}");
    assert!(out.contains("1 over the scan budget"), "{out}");
}

#[test]
fn the_file_budget_stops_the_walk_at_5000_files() {
    let p = Pico::new();
    for i in 0..5_003 {
        p.write(&format!("d{}/f{i:05}.txt", i / 1000), "x\n");
    }
    let out = p.ok("search_files", json!({"pattern": "nothing-matches"}));
    assert!(out.contains("Files scanned: 5000"), "{out}");
    assert!(out.contains("Scan budget reached (5000 files)"), "{out}");
}

#[test]
fn modified_order_puts_the_newest_file_first() {
    let p = Pico::new();
    for (name, age) in [("old.txt", 300), ("new.txt", 10), ("mid.txt", 100)] {
        p.write(name, "hit\n");
        let f = std::fs::File::options()
            .write(true)
            .open(p.path(name))
            .unwrap();
        f.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(age))
            .unwrap();
    }
    let out = p.ok(
        "search_files",
        json!({"pattern": "hit", "order": "modified"}),
    );
    assert_eq!(
        body(&out),
        ["new.txt:1:hit", "mid.txt:1:hit", "old.txt:1:hit"]
    );
    let out = p.ok(
        "search_files",
        json!({"pattern": "", "target": "files", "order": "modified"}),
    );
    assert_eq!(body(&out), ["new.txt", "mid.txt", "old.txt"]);
}

#[test]
fn matched_and_context_lines_are_scrubbed() {
    let p = Pico::new();
    p.write(
        "cfg.py",
        "AWS_KEY = 'AKIAIOSFODNN7EXAMPLE'\nregion = 'us-east-1'\nheaders = {'Authorization': 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'}\n",
    );
    let out = p.ok("search_files", json!({"pattern": "region", "context": 1}));
    assert_eq!(
        body(&out),
        [
            "cfg.py-1-AWS_KEY = '[FILTERED]'",
            "cfg.py:2:region = 'us-east-1'",
            "cfg.py-3-headers = {'Authorization': 'Bearer [FILTERED]'}"
        ]
    );
}

#[test]
fn protected_paths_and_spilled_artifacts_are_not_searched() {
    let p = Pico::new();
    p.write(".ssh/id_rsa", "needle\n");
    p.write(".picoclaw/tool-results/old.txt", "needle\n");
    p.write("ok.txt", "needle\n");
    let out = p.ok("search_files", json!({"pattern": "needle"}));
    assert_eq!(body(&out), ["ok.txt:1:needle"]);
    assert!(
        p.err("search_files", json!({"pattern": "x", "path": ".ssh"}))
            .starts_with("denied:")
    );
}

#[test]
fn bad_arguments_are_explained() {
    let p = Pico::new();
    assert!(
        p.err("search_files", json!({"pattern": "("}))
            .contains("invalid regex pattern")
    );
    assert!(
        p.err("search_files", json!({"pattern": "x", "target": "dirs"}))
            .contains("\"content\", \"files\"")
    );
    assert!(
        p.err("search_files", json!({"pattern": "x", "path": "nope"}))
            .starts_with("not-found:")
    );
    let p2 = Pico::new();
    p2.write("a.txt", "x\n");
    let out = p2.ok("search_files", json!({"pattern": "x", "offset": 5}));
    assert!(
        out.starts_with("No results at offset 5: the search has 1 result."),
        "{out}"
    );
    let out = p2.ok("search_files", json!({"pattern": "x", "limit": 1000}));
    assert!(out.starts_with("Results 1-1 of 1"), "{out}");
}
