#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

//! Following the footers never skips content: a client that reads and searches only through
//! the continuation texts fsgate shows (picoclaw's read_file footers and search_files headers,
//! sgpt's saved-output notice and read_files notes, coder's read-file fields and C213 messages)
//! sees every byte, line and result exactly once, never a spilled page with its middle left
//! out, and never a credential.

use crate::coder_support;
use crate::picoclaw_support;
use crate::sgpt_support;

use coder_support::Fx;
use fsgate_core::config::picoclaw::ReadFileMode;
use fsgate_core::text::redact;
use picoclaw_support::Pico;
use serde_json::{Value, json};
use sgpt_support::Sx;

const GITHUB: &str = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789";
const AWS: &str = "AKIAIOSFODNN7EXAMPLE";
const BEARER: &str = "a1b2c3d4";

/// A file with what trips a pager: credentials (whose mask is shorter than them, and a Bearer
/// token whose mask is longer), invisible characters the guard drops, multi-byte characters,
/// lines of every length and one longer than a page.
fn tricky_file() -> String {
    let mut s = String::new();
    for i in 0..1_200 {
        match i % 8 {
            0 => s.push_str(&format!("export TOKEN_{i}={GITHUB}\n")),
            1 => s.push_str(&format!(
                "línea {i}: café crème brûlée, 日本語のテキスト, 🦀🦀\n"
            )),
            2 => s.push_str(&format!("curl -H 'Authorization: Bearer {BEARER}' /v{i}\n")),
            3 => s.push_str(&format!("zero\u{200B}width {i} and key {AWS} here\n")),
            4 => {
                s.push_str(&"é".repeat(100 + i % 77));
                s.push('\n');
            }
            5 if i == 605 => {
                // One line longer than any page, of words and multi-byte characters.
                for w in 0..4_000 {
                    s.push_str(&format!("wörd{w} "));
                }
                s.push('\n');
            }
            _ => s.push_str(&format!(
                "plain line {i} {}\n",
                "lorem ipsum ".repeat(i % 9)
            )),
        }
    }
    s
}

/// What the model may see of `text`: credentials masked, invisible characters dropped.
fn for_model(text: &str) -> String {
    redact::redact(text).replace('\u{200B}', "")
}

fn assert_no_secret(page: &str) {
    for secret in [GITHUB, AWS, BEARER] {
        assert!(!page.contains(secret), "{secret} shown in {page}");
    }
    // Not even a piece of one: windows never part a credential.
    assert!(!page.contains("ghp_aBcDe"), "{page}");
    assert!(!page.contains("AKIAIOSF"), "{page}");
}

/// A page the model sees whole: not spilled, within the inline limit.
fn assert_inline(page: &str, limit: usize) {
    assert!(
        !page.starts_with("[Result too large"),
        "a page was spilled: {}",
        &page[..page.len().min(300)]
    );
    assert!(
        page.chars().count() <= limit,
        "{} characters",
        page.chars().count()
    );
}

/// The number after `key` in `text`.
fn number_after(text: &str, key: &str) -> Option<u64> {
    let at = text.find(key)? + key.len();
    let digits: String = text[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// Reads `path` in byte mode by following the footers from the start (`length` passed on every
/// call when given); returns the text shown, after checking that the windows' byte ranges tile
/// the file.
fn follow_bytes(p: &Pico, path: &str, length: Option<u64>, limit: usize) -> String {
    let mut shown = String::new();
    let mut args = json!({"path": path});
    if let Some(length) = length {
        args["length"] = json!(length);
    }
    let mut expect_from = 0;
    for _ in 0..10_000 {
        let page = p.ok("read_file", args.clone());
        assert_inline(&page, limit);
        assert_no_secret(&page);
        let (head, body) = page.split_once("\n\n").unwrap();
        let from = number_after(head, "read: bytes ").unwrap();
        let to = number_after(head, &format!("read: bytes {from}-")).unwrap();
        assert_eq!(from, expect_from, "{head}");
        assert!(!body.contains('\u{FFFD}'), "a character cut in two: {head}");
        shown.push_str(body);
        if head.ends_with("[END OF FILE - no further content.]") {
            let total = number_after(head, "total: ").unwrap();
            assert_eq!(to + 1, total, "{head}");
            return shown;
        }
        let next = number_after(head, "Call read_file again with offset=").unwrap();
        assert_eq!(
            next,
            to + 1,
            "the footer names the first unseen byte: {head}"
        );
        expect_from = next;
        args["offset"] = json!(next);
    }
    panic!("the footers never reached the end of {path}");
}

#[test]
fn byte_mode_footers_lead_through_every_byte_once_with_default_and_explicit_lengths() {
    let text = tricky_file();
    assert!(text.len() > 100_000, "{}", text.len());
    for (limit, length) in [
        (16_384, None),
        (16_384, Some(1_000)),
        (16_384, Some(4_097)),
        (16_384, Some(40_000)),
        (3_000, None),
        (3_000, Some(2_999)),
    ] {
        let p = Pico::with(|c| c.max_inline_result_chars = limit as u64);
        p.write("tricky.txt", &text);
        let shown = follow_bytes(&p, "tricky.txt", length, limit);
        assert_eq!(shown, for_model(&text), "limit {limit}, length {length:?}");
    }
}

#[test]
fn multi_byte_characters_at_window_edges_are_never_cut_in_two() {
    // No line end and no blank: only the character boundaries decide where a window ends.
    let text = "日本語🦀ü".repeat(6_000);
    for length in [None, Some(1_000), Some(1_001), Some(4_097)] {
        let p = Pico::new();
        p.write("cjk.txt", &text);
        assert_eq!(
            follow_bytes(&p, "cjk.txt", length, 16_384),
            text,
            "length {length:?}"
        );
    }
}

#[test]
fn byte_mode_windows_cut_a_long_token_run_only_where_no_credential_is() {
    // No line end and no blank: the window ends inside the run (a run over 512 characters is
    // data, not a credential), and the next one starts where it ended.
    let run = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0NTY3".repeat(1_000);
    let p = Pico::new();
    p.write("blob.txt", &run);
    assert_eq!(follow_bytes(&p, "blob.txt", None, 16_384), run);
}

#[test]
fn a_window_that_would_need_more_than_the_inline_limit_after_scrubbing_is_shortened_again() {
    // Every Bearer token grows from 8 to 10 characters when masked: a window sized on the raw
    // text would not fit.
    let line = format!("Authorization: Bearer {BEARER}\n");
    let text = line.repeat(3_000);
    let p = Pico::with(|c| c.max_inline_result_chars = 4_000);
    p.write("auth.log", &text);
    let shown = follow_bytes(&p, "auth.log", None, 4_000);
    assert_eq!(shown, for_model(&text));
}

#[test]
fn invalid_utf8_is_read_once_byte_range_by_byte_range() {
    let mut bytes = Vec::new();
    for i in 0..5_000u32 {
        bytes.extend_from_slice(format!("caf{i}").as_bytes());
        bytes.push(0xE9); // Latin-1 é
        bytes.push(if i % 10 == 0 { b'\n' } else { b' ' });
    }
    let p = Pico::with(|c| c.max_inline_result_chars = 2_000);
    p.write("latin.txt", &bytes);
    let mut offset = 0u64;
    let mut seen = 0u64;
    loop {
        let page = p.ok("read_file", json!({"path": "latin.txt", "offset": offset}));
        assert_inline(&page, 2_000);
        let (head, body) = page.split_once("\n\n").unwrap();
        assert_eq!(number_after(head, "read: bytes ").unwrap(), offset);
        let to = number_after(head, &format!("read: bytes {offset}-")).unwrap();
        let raw = &bytes[offset as usize..=to as usize];
        assert_eq!(body, String::from_utf8_lossy(raw));
        seen += to + 1 - offset;
        match number_after(head, "offset=") {
            Some(next) => {
                assert_eq!(next, to + 1);
                offset = next;
            }
            None => break,
        }
    }
    assert_eq!(seen, bytes.len() as u64);
}

/// Reads `path` in line mode by following the continuation lines; returns each line number
/// with its text as shown.
fn follow_lines(p: &Pico, path: &str, max_lines: Option<u64>, limit: usize) -> Vec<(u64, String)> {
    let mut lines = Vec::new();
    let mut args = json!({"path": path});
    if let Some(max) = max_lines {
        args["max_lines"] = json!(max);
    }
    let mut start = 1;
    for _ in 0..10_000 {
        let page = p.ok("read_file", args.clone());
        assert_inline(&page, limit);
        assert_no_secret(&page);
        let (head, body) = page.split_once("\n\n").unwrap();
        assert_eq!(number_after(head, "read: lines ").unwrap(), start, "{head}");
        let last = number_after(head, &format!("read: lines {start}-")).unwrap();
        assert_eq!(
            number_after(head, "output_bytes: ").unwrap(),
            body.len() as u64
        );
        let mut n = start;
        for line in body.split_inclusive('\n') {
            let (number, text) = line.split_once('|').unwrap();
            assert_eq!(number.parse::<u64>().unwrap(), n, "{head}");
            lines.push((n, text.trim_end_matches('\n').to_string()));
            n += 1;
        }
        assert_eq!(n - 1, last, "{head}");
        if head.ends_with("[END OF FILE - no further content.]") {
            return lines;
        }
        let next = number_after(head, "Call read_file again with start_line=").unwrap();
        assert_eq!(
            next,
            last + 1,
            "the footer names the first unseen line: {head}"
        );
        start = next;
        args["start_line"] = json!(next);
    }
    panic!("the footers never reached the end of {path}");
}

#[test]
fn line_mode_footers_lead_through_every_line_once() {
    let text = tricky_file();
    let expected: Vec<String> = text
        .lines()
        .map(|l| {
            let shown = for_model(l);
            match shown.char_indices().nth(2_000) {
                Some((at, _)) => format!("{} … [truncated]", &shown[..at]),
                None => shown,
            }
        })
        .collect();
    for (limit, max_lines, budget) in [
        (16_384, None, 65_536),
        (16_384, Some(37), 65_536),
        (50_000, None, 20_000),
        (3_000, Some(500), 65_536),
    ] {
        let p = Pico::with(|c| {
            c.read_file.mode = ReadFileMode::Lines;
            c.max_inline_result_chars = limit as u64;
            c.read_file.max_read_file_size = budget;
        });
        p.write("tricky.txt", &text);
        let lines = follow_lines(&p, "tricky.txt", max_lines, limit);
        let numbers: Vec<u64> = lines.iter().map(|(n, _)| *n).collect();
        assert_eq!(numbers, (1..=expected.len() as u64).collect::<Vec<_>>());
        for ((n, shown), want) in lines.iter().zip(&expected) {
            assert_eq!(
                shown, want,
                "line {n} (limit {limit}, max_lines {max_lines:?})"
            );
        }
    }
}

#[test]
fn a_first_line_over_the_page_is_cut_once_and_the_footer_moves_past_it() {
    let p = Pico::with(|c| {
        c.read_file.mode = ReadFileMode::Lines;
        c.max_inline_result_chars = 1_000;
        c.read_file.max_line_length = 5_000;
    });
    p.write("f.txt", format!("short\n{}\nafter\n", "ü".repeat(3_000)));
    let lines = follow_lines(&p, "f.txt", None, 1_000);
    let numbers: Vec<u64> = lines.iter().map(|(n, _)| *n).collect();
    assert_eq!(numbers, [1, 2, 3]);
    assert_eq!(lines[0].1, "short");
    assert!(lines[1].1.starts_with("üüü") && lines[1].1.chars().count() < 1_000);
    assert_eq!(lines[2].1, "after");
}

/// `got` equals `want`, reported by the first difference rather than in full.
fn assert_same(got: &[String], want: &[String], what: &str) {
    if let Some(i) = (0..got.len().min(want.len())).find(|&i| got[i] != want[i]) {
        panic!("{what}: row {i} is {:?}, expected {:?}", got[i], want[i]);
    }
    assert_eq!(got.len(), want.len(), "{what}: row count");
}

/// Pages through a search by following the headers; returns every result row.
fn follow_search(p: &Pico, args: Value, limit: usize) -> Vec<String> {
    let mut rows = Vec::new();
    let mut args = args;
    let mut offset = 0;
    for _ in 0..10_000 {
        let page = p.ok("search_files", args.clone());
        assert_inline(&page, limit);
        assert_no_secret(&page);
        let first = number_after(&page, "Results ").unwrap();
        assert_eq!(first, offset + 1, "{}", &page[..200]);
        let last = number_after(&page, &format!("Results {first}-")).unwrap();
        let (_, body) = page.split_once("\n\n").unwrap();
        rows.extend(body.split("\n--\n").map(str::to_string));
        match number_after(&page, "call search_files again with offset=") {
            Some(next) => {
                assert_eq!(next, last, "the header names the first unshown result");
                offset = next;
                args["offset"] = json!(next);
            }
            None => return rows,
        }
    }
    panic!("the search never ended");
}

#[test]
fn search_pages_lead_through_every_result_once_within_the_inline_limit() {
    let p = Pico::new();
    let mut want = Vec::new();
    for f in 0..6 {
        let mut text = String::new();
        for i in 1..=120 {
            if i % 2 == 0 {
                let line = format!("needle {f}/{i} {}", "wörd ".repeat(i % 30));
                want.push(format!("src/f{f}.txt:{i}:{line}"));
                text.push_str(&line);
            } else {
                text.push_str(&format!("hay {i} token={GITHUB}"));
            }
            text.push('\n');
        }
        p.write(&format!("src/f{f}.txt"), text);
    }
    // A spilled copy of a file must not answer the search.
    p.write(".picoclaw/tool-results/old.txt", "needle stale\n");
    p.write(".fsgate/artifacts/exec-1.log", "needle stale\n");
    for limit in [None, Some(200), Some(7)] {
        let mut args = json!({"pattern": "needle"});
        if let Some(limit) = limit {
            args["limit"] = json!(limit);
        }
        let rows: Vec<String> = follow_search(&p, args, 16_384)
            .iter()
            .flat_map(|r| r.lines().map(str::to_string).collect::<Vec<_>>())
            .collect();
        assert_same(&rows, &want, &format!("limit {limit:?}"));
    }
    // Context blocks: every block once, and together every line of the files once.
    let blocks = follow_search(
        &p,
        json!({"pattern": "needle", "context": 1, "limit": 200}),
        16_384,
    );
    let lines: Vec<&str> = blocks.iter().flat_map(|b| b.lines()).collect();
    assert_eq!(lines.len(), 6 * 120, "every line is in exactly one block");
    let mut sorted = lines.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), lines.len(), "no line twice");
}

#[test]
fn a_spilled_result_is_read_whole_from_its_artifact_by_following_the_footers() {
    let p = Pico::with(|c| c.max_inline_result_chars = 3_000);
    let mut listing = String::new();
    for i in 0..600 {
        let name = format!("entry-{i:04}-ünïcode.txt");
        p.write(&format!("many/{name}"), "");
        listing.push_str(&format!("FILE: {name}\n"));
    }
    let preview = p.ok("list_dir", json!({"path": "many"}));
    assert!(preview.starts_with("[Result too large to show inline:"));
    assert!(preview.chars().count() <= 3_000);
    let at = preview.find(".picoclaw/tool-results/").unwrap();
    let artifact: String = preview[at..].chars().take_while(|c| *c != ';').collect();
    assert!(
        preview.contains(&format!(
            "call read_file with path={artifact} from its start"
        )),
        "{preview}"
    );
    assert_eq!(follow_bytes(&p, &artifact, None, 3_000), listing);
    // The folder is kept out of version control, and out of searches.
    assert_eq!(p.read_str(".picoclaw/tool-results/.gitignore"), "*\n");
    let out = p.ok("search_files", json!({"pattern": "entry-0001"}));
    assert!(out.starts_with("No matches found."), "{out}");
}

#[test]
fn a_large_shell_output_is_read_whole_from_its_artifact_by_following_the_notes() {
    let sx =
        Sx::config("[read_files]\nbudget_bytes = 10000\n[exec_shell]\noutput_cap_chars = 2000\n");
    // Multi-byte lines, and one line longer than the read budget.
    let script = "i=1; while [ $i -le 3000 ]; do echo \"ligne $i: déjà vu, 日本\"; i=$((i+1)); done; \
                  i=0; while [ $i -lt 3000 ]; do printf 'ñandú'; i=$((i+1)); done; echo; echo end";
    let result = sx.ok("exec_shell", json!({"command": script}));
    let path = result["output_file"].as_str().unwrap().to_string();
    let output = result["output"].as_str().unwrap();
    assert!(
        output.contains(&format!(
            "read it with read_files {{\"paths\": [\"{path}\"]}}"
        )),
        "{output}"
    );
    let whole = sx.text(&path);
    assert!(whole.ends_with("end\n") && whole.len() > 100_000);
    let mut args = json!({"paths": [path]});
    let mut shown = String::new();
    for _ in 0..1_000 {
        let read = sx.ok("read_files", args.clone());
        let entry = &read["files"][0];
        let content = entry["content"].as_str().unwrap();
        assert!(content.len() <= 10_000);
        assert!(!content.contains('\u{FFFD}'));
        shown.push_str(content);
        if entry.get("truncated").is_none() {
            assert_eq!(shown, whole, "every byte once");
            return;
        }
        let note = entry["note"].as_str().unwrap();
        let at = note.find("call read_files ").unwrap() + "call read_files ".len();
        args = serde_json::from_str(&note[at..]).unwrap();
        assert_eq!(
            args["offset"].as_u64().unwrap(),
            shown.len() as u64,
            "the note names the first unread byte: {note}"
        );
    }
    panic!("the notes never reached the end of {path}");
}

#[test]
fn a_read_files_offset_past_the_end_says_so() {
    let sx = Sx::new();
    sx.write("a.txt", "abc\n");
    let read = sx.ok("read_files", json!({"paths": ["a.txt"], "offset": 2}));
    assert_eq!(read["files"][0]["content"], "c\n");
    let read = sx.ok("read_files", json!({"paths": ["a.txt"], "offset": 4}));
    assert_eq!(read["files"][0]["content"], "");
    assert!(
        read["files"][0]["note"]
            .as_str()
            .unwrap()
            .starts_with("nothing at offset 4: a.txt has 4 bytes")
    );
}

#[test]
fn coder_windows_followed_by_their_fields_return_every_line_once() {
    let fx = Fx::limits(|l| {
        l.max_read_bytes = 300;
        l.max_output_bytes = 200;
    });
    let mut text = String::new();
    for i in 1..=400 {
        text.push_str(&format!("{i}: {}\n", "ß".repeat(i % 60)));
    }
    let over = 250; // one line longer than max_read_bytes
    let lines: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i + 1 == over {
                "x".repeat(400)
            } else {
                l.to_string()
            }
        })
        .collect();
    let text = lines.iter().map(|l| format!("{l}\n")).collect::<String>();
    fx.write("f.txt", &text);
    // A full read is over max_read_bytes: the error names a window to start with.
    let (code, message) = fx.err("read-file", json!({"path": "f.txt"}));
    assert_eq!(code, "C213");
    assert!(message.contains("\"line_from\": 1"), "{message}");
    let mut seen: Vec<String> = Vec::new();
    let mut skipped = Vec::new();
    let mut from = 1;
    loop {
        let (result, is_error) = fx.call("read-file", json!({"path": "f.txt", "line_from": from}));
        if is_error {
            let message = result["message"].as_str().unwrap();
            assert_eq!(result["code"], "C213", "{message}");
            let next = number_after(message, "\"line_from\": ").unwrap();
            assert_eq!(next, from + 1, "{message}");
            skipped.push(from);
            from = next;
            continue;
        }
        let content = result["content"].as_str().unwrap();
        let returned = result["lines_returned"].as_u64().unwrap();
        assert_eq!(content.lines().count() as u64, returned);
        assert!(returned > 0, "a window always makes progress");
        seen.extend(content.lines().map(str::to_string));
        if !result["more_lines"].as_bool().unwrap() {
            break;
        }
        from += returned;
    }
    assert_eq!(
        skipped,
        [over as u64],
        "only the line no window can hold is left out"
    );
    let mut want = lines.clone();
    want.remove(over - 1);
    assert_eq!(seen, want);
}

#[test]
fn coder_batch_entries_cut_by_the_budget_continue_from_their_fields() {
    let fx = Fx::limits(|l| l.batch_read_budget_bytes = 500);
    let text: String = (1..=300).map(|i| format!("line {i}\n")).collect();
    fx.write("a.txt", &text);
    fx.write("b.txt", &text);
    let mut from = [1u64, 1];
    let mut seen = [String::new(), String::new()];
    let mut done = [false, false];
    for _ in 0..100 {
        if done == [true, true] {
            break;
        }
        let paths: Vec<Value> = [("a.txt", 0), ("b.txt", 1)]
            .iter()
            .filter(|(_, i)| !done[*i])
            .map(|(p, i)| json!({"path": p, "line_from": from[*i]}))
            .collect();
        let which: Vec<usize> = (0..2).filter(|i| !done[*i]).collect();
        let got = fx.ok("read-file", json!({"paths": paths}));
        for (entry, &i) in got["results"].as_array().unwrap().iter().zip(&which) {
            if entry["success"] == false {
                // The budget ran out before this entry: the same window goes in the next call.
                assert_eq!(entry["error"]["code"], "C213");
                continue;
            }
            let content = entry["content"].as_str().unwrap();
            seen[i].push_str(content);
            from[i] += entry["lines_returned"].as_u64().unwrap();
            done[i] = !entry["more_lines"].as_bool().unwrap();
        }
    }
    assert_eq!(seen, [text.clone(), text]);
}
