use std::path::Path;
use std::time::Instant;

use super::*;

/// A valid file of each language, an edit that breaks it (the quote and its replacement), the
/// line the new error is on and what its message says.
struct Case {
    path: &'static str,
    valid: &'static str,
    old: &'static str,
    new: &'static str,
    line: usize,
    says: &'static str,
    /// Lines that are valid at the top of the file (inserted above to shift everything).
    prelude: &'static str,
}

const CASES: &[Case] = &[
    Case {
        path: "src/lib.rs",
        valid: "use std::fmt;\n\npub fn add(a: u32, b: u32) -> u32 {\n    let sum = a + b;\n    sum\n}\n\nfn show(x: &dyn fmt::Debug) -> String {\n    format!(\"{x:?}\")\n}\n",
        old: "let sum = a + b;",
        new: "let sum = add(a, b;",
        line: 4,
        says: "missing \")\"",
        prelude: "// a comment\nconst A: u8 = 1;\n\n",
    },
    Case {
        path: "app/main.py",
        valid: "import os\n\n\ndef total(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\n\n\nprint(total([1, 2]))\n",
        old: "    return s\n",
        new: "    return s +\n",
        line: 8,
        says: "",
        prelude: "# a comment\nA = 1\n\n",
    },
    Case {
        path: "web/app.js",
        valid: "const items = [1, 2, 3];\n\nfunction sum(xs) {\n  let s = 0;\n  for (const x of xs) {\n    s += x;\n  }\n  return s;\n}\n\nconsole.log(sum(items));\n",
        old: "const items = [1, 2, 3];",
        new: "const items = [1, 2, 3;",
        line: 1,
        says: "missing \"]\"",
        prelude: "// a comment\nconst a = 1;\n\n",
    },
    Case {
        path: "web/app.ts",
        valid: "interface P {\n  x: number;\n  y: number;\n}\n\nexport function norm(p: P): number {\n  return Math.sqrt(p.x * p.x + p.y * p.y);\n}\n",
        old: "export function norm(p: P): number {",
        new: "export function norm(p: P: number {",
        line: 6,
        says: "",
        prelude: "// a comment\nconst a: number = 1;\n\n",
    },
    Case {
        path: "web/View.tsx",
        valid: "import React from \"react\";\n\nexport function View(props: { name: string }) {\n  return (\n    <div className=\"v\">\n      <b>{props.name}</b>\n    </div>\n  );\n}\n",
        old: "<b>{props.name}</b>",
        new: "<b>{props.name</b>",
        line: 6,
        says: "",
        prelude: "// a comment\nconst a: number = 1;\n\n",
    },
    Case {
        path: "cmd/main.go",
        valid: "package main\n\nimport \"fmt\"\n\nfunc sum(xs []int) int {\n\ts := 0\n\tfor _, x := range xs {\n\t\ts += x\n\t}\n\treturn s\n}\n\nfunc main() {\n\tfmt.Println(sum([]int{1, 2}))\n}\n",
        old: "\treturn s\n",
        new: "\treturn s +\n",
        line: 10,
        says: "",
        prelude: "",
    },
    Case {
        path: "src/sum.c",
        valid: "#include <stdio.h>\n\nstatic int sum(const int *xs, int n) {\n    int s = 0;\n    for (int i = 0; i < n; i++) {\n        s += xs[i];\n    }\n    return s;\n}\n\nint main(void) {\n    int xs[] = {1, 2};\n    printf(\"%d\\n\", sum(xs, 2));\n    return 0;\n}\n",
        old: "    return s;\n",
        new: "    return s\n",
        line: 8,
        says: "missing \";\"",
        prelude: "/* a comment */\nstatic int a = 1;\n\n",
    },
    Case {
        path: "src/shape.cpp",
        valid: "#include <vector>\n\nclass Shape {\npublic:\n    virtual ~Shape() = default;\n    virtual double area() const = 0;\n};\n\ndouble total(const std::vector<Shape*>& v) {\n    double t = 0;\n    for (auto* s : v) t += s->area();\n    return t;\n}\n",
        old: "    double t = 0;\n",
        new: "    double t = 0\n",
        line: 10,
        says: "missing \";\"",
        prelude: "// a comment\nstatic int a = 1;\n\n",
    },
    Case {
        path: "src/A.java",
        valid: "package a;\n\npublic class A {\n    private int n;\n\n    public int twice() {\n        int t = n * 2;\n        return t;\n    }\n}\n",
        old: "int t = n * 2;",
        new: "int t = n * ;",
        line: 7,
        says: "",
        prelude: "// a comment\n\n",
    },
    Case {
        path: "conf/app.json",
        valid: "{\n  \"name\": \"app\",\n  \"ports\": [80, 443],\n  \"debug\": false\n}\n",
        old: "\"ports\": [80, 443],",
        new: "\"ports\": [80, 443,",
        line: 3,
        says: "",
        prelude: "",
    },
    Case {
        path: "Cargo.toml",
        valid: "[package]\nname = \"app\"\nversion = \"0.1.0\"\n\n[dependencies]\nserde = \"1\"\n",
        old: "version = \"0.1.0\"",
        new: "version = \"0.1.0",
        line: 3,
        says: "",
        prelude: "# a comment\n\n",
    },
    Case {
        path: "ci/build.yml",
        valid: "name: build\non: [push]\njobs:\n  test:\n    runs-on: linux\n    steps:\n      - run: make test\n",
        old: "on: [push]",
        new: "on: [push",
        line: 2,
        says: "",
        prelude: "# a comment\n\n",
    },
];

fn edited(case: &Case, text: &str) -> String {
    assert!(text.contains(case.old), "{}: quote not found", case.path);
    text.replacen(case.old, case.new, 1)
}

#[test]
fn every_language_has_a_grammar_that_loads() {
    for lang in Lang::ALL {
        assert_eq!(Lang::ALL[lang.index()], lang);
        assert!(
            parse::errors(lang, b"").is_some(),
            "{} does not load",
            lang.name()
        );
    }
}

#[test]
fn a_valid_file_then_a_breaking_edit_reports_the_error_at_its_line() {
    for case in CASES {
        let path = Path::new(case.path);
        let valid = case.valid.as_bytes();
        let clean = check(path, Some(valid), valid).expect("checked");
        assert_eq!(clean.errors_after, 0, "{}: {:?}", case.path, clean.new);
        assert!(clean.is_clean());

        let broken = edited(case, case.valid);
        let report = check(path, Some(valid), broken.as_bytes()).expect("checked");
        assert!(!report.new.is_empty(), "{}: no error found", case.path);
        assert_eq!(
            report.new[0].line,
            case.line,
            "{}: {}",
            case.path,
            describe(&report)
        );
        assert!(
            report.new[0].message.contains(case.says),
            "{}: {}",
            case.path,
            describe(&report)
        );
        assert_eq!(report.errors_before, Some(0));
        // A new file: the same errors are new.
        let created = check(path, None, broken.as_bytes()).expect("checked");
        assert_eq!(created.new, report.new, "{}", case.path);
    }
}

#[test]
fn old_errors_are_not_reported_again_after_an_edit_that_shifts_lines() {
    for case in CASES {
        let path = Path::new(case.path);
        let broken = edited(case, case.valid);
        // Lines added above (or, for a file that must start with its header, at the end).
        let shifted = if case.prelude.is_empty() {
            format!("{broken}\n\n\n")
        } else {
            format!("{}{broken}", case.prelude)
        };
        let report = check(path, Some(broken.as_bytes()), shifted.as_bytes()).expect("checked");
        assert!(report.errors_after > 0, "{}", case.path);
        assert!(
            report.is_clean(),
            "{}: old error reported again: {}",
            case.path,
            describe(&report)
        );
        // Lines removed above the error: still nothing new.
        let back = check(path, Some(shifted.as_bytes()), broken.as_bytes()).expect("checked");
        assert!(back.is_clean(), "{}: {}", case.path, describe(&back));
    }
}

#[test]
fn a_second_error_is_reported_alone_while_the_first_is_known() {
    // Rust: one old error, lines inserted above it, and a new error below it.
    let path = Path::new("a.rs");
    let before = "fn a() {\n    let x = foo(1, 2;\n}\n\nfn b() {\n    let y = 2;\n}\n";
    let after = "// added\n// added\nfn a() {\n    let x = foo(1, 2;\n}\n\nfn b() {\n    let y = 2\n    y\n}\n";
    let report = check(path, Some(before.as_bytes()), after.as_bytes()).expect("checked");
    assert_eq!(report.errors_before, Some(1));
    assert_eq!(report.errors_after, 2);
    assert_eq!(report.new.len(), 1, "{}", describe(&report));
    assert_eq!(report.new[0].line, 8);
    assert_eq!(report.new[0].message, "missing \";\"");
}

#[test]
fn an_edit_at_the_broken_line_that_keeps_it_broken_reports_nothing() {
    let path = Path::new("a.py");
    let before = "def f(:\n    return 1\n";
    let after = "def f(x:\n    return x\n";
    let report = check(path, Some(before.as_bytes()), after.as_bytes()).expect("checked");
    assert!(report.errors_after > 0);
    assert!(report.is_clean(), "{}", describe(&report));
    // Fixing it is clean too.
    let fixed = check(path, Some(after.as_bytes()), b"def f(x):\n    return x\n").unwrap();
    assert!(fixed.is_clean());
    assert_eq!(fixed.errors_after, 0);
    // A clean result needs no parse of the old content.
    assert_eq!(fixed.errors_before, None);
}

#[test]
fn a_missing_closer_names_the_line_that_opened_it() {
    let report = check(
        Path::new("a.js"),
        None,
        b"function f() {\n  return g(1,\n    2;\n}\n",
    )
    .unwrap();
    assert_eq!(describe(&report).matches("line ").count(), 2, "{report:?}");
    let e = &report.new[0];
    assert!(e.message.starts_with("missing \")\""), "{e:?}");
    assert!(e.message.ends_with("of line 2)"), "{e:?}");
}

#[test]
fn an_unclosed_block_is_said_at_its_opening_line() {
    let report = check(
        Path::new("a.rs"),
        None,
        b"fn f() {}\n\nfn main() {\n    let x = 1;\n",
    )
    .unwrap();
    assert_eq!(report.new.len(), 1, "{}", describe(&report));
    assert_eq!(report.new[0].line, 3);
    assert_eq!(report.new[0].message, "unclosed \"{\"");
}

#[test]
fn unchecked_files_say_nothing() {
    let ok = b"fn main() {}\n";
    // Unknown extension, no extension, JSON with comments by convention.
    assert_eq!(check(Path::new("notes.txt"), None, ok), None);
    assert_eq!(check(Path::new("Makefile"), None, ok), None);
    assert_eq!(check(Path::new("tsconfig.json"), None, b"{,}"), None);
    assert_eq!(
        check(Path::new(".vscode/settings.json"), None, b"{,}"),
        None
    );
    assert_eq!(language_of(Path::new("x.RS")), Some(Lang::Rust));
    assert_eq!(language_of(Path::new("x.h")), Some(Lang::Cpp));
    assert_eq!(language_of(Path::new("x.d.ts")), Some(Lang::TypeScript));
    // Not UTF-8.
    assert_eq!(
        check(Path::new("a.rs"), None, b"fn main() { \xff }\n"),
        None
    );
    // Too large.
    let big = b"fn main() {}\n".repeat(MAX_BYTES / 13 + 1);
    assert!(big.len() > MAX_BYTES);
    assert_eq!(check(Path::new("a.rs"), None, &big), None);
}

#[test]
fn an_unreadable_before_counts_as_a_new_file() {
    let report = check(Path::new("a.rs"), Some(b"\xff\xfe"), b"fn main( {}\n").unwrap();
    assert_eq!(report.new.len(), 1);
    assert_eq!(report.errors_before, Some(0));
}

#[test]
fn a_byte_order_mark_is_not_an_error() {
    let report = check(Path::new("a.json"), None, b"\xEF\xBB\xBF{\"a\": 1}\n").unwrap();
    assert_eq!(report.errors_after, 0);
}

#[test]
fn describe_lists_five_and_counts_the_rest() {
    let text: String = (1..=8).map(|i| format!("fn f{i}() {{ g(; }}\n")).collect();
    let report = check(Path::new("a.rs"), None, text.as_bytes()).unwrap();
    assert_eq!(report.new.len(), 8, "{report:?}");
    let line = describe(&report);
    assert!(
        line.starts_with("syntax: 8 new errors — line 1: "),
        "{line}"
    );
    assert!(line.ends_with("; +3 more"), "{line}");
    assert_eq!(line.matches("line ").count(), 5, "{line}");
    assert!(!line.contains('\n'));
    let one = check(Path::new("a.rs"), None, b"fn f() { g(; }\n").unwrap();
    assert!(
        describe(&one).starts_with("syntax: 1 new error — line 1: "),
        "{}",
        describe(&one)
    );
}

#[test]
fn parsers_are_reused_and_primed_per_thread() {
    prime(Path::new("x.cpp"));
    prime(Path::new("x.unknown"));
    let text = b"int main() { return 0; }\n";
    let first = check(Path::new("a.cpp"), None, text).unwrap();
    // Another thread has its own parser and gets the same answer.
    let other = std::thread::spawn(move || check(Path::new("a.cpp"), None, text))
        .join()
        .unwrap()
        .unwrap();
    assert_eq!(first, other);
    assert!(first.is_clean());
}

#[test]
fn the_edit_between_two_texts_is_their_differing_middle() {
    let e = cache::edit_between(b"ab\ncd\nef", b"ab\ncXYd\nef");
    assert_eq!((e.start_byte, e.old_end_byte, e.new_end_byte), (4, 4, 6));
    assert_eq!((e.start_position.row, e.start_position.column), (1, 1));
    assert_eq!((e.new_end_position.row, e.new_end_position.column), (1, 3));
    // Repeated bytes: the common end never overlaps the common start.
    let e = cache::edit_between(b"aaa", b"aaaa");
    assert_eq!((e.start_byte, e.old_end_byte, e.new_end_byte), (3, 3, 4));
    let e = cache::edit_between(b"x\ny\n", b"");
    assert_eq!((e.start_byte, e.old_end_byte, e.new_end_byte), (0, 4, 0));
    assert_eq!(e.old_end_position.row, 2);
}

#[test]
fn an_incremental_parse_finds_what_a_fresh_parse_finds() {
    // A series of edits, each checked against the one before (so parsed from its tree), and
    // each compared with a parse from nothing.
    for case in CASES {
        let path = Path::new(case.path);
        let lang = language_of(path).unwrap();
        let mut text = case.valid.to_string();
        let cuts = [")", "{", ";", "\"", "]", "\n\n", "x = ", "}"];
        for (i, cut) in cuts.iter().enumerate() {
            let at = (text.len() * (i + 1) / (cuts.len() + 1)..text.len())
                .find(|&at| text.is_char_boundary(at))
                .unwrap();
            let mut next = text.clone();
            next.insert_str(at, cut);
            // Make sure the old text's tree is the one kept.
            check(path, None, text.as_bytes()).unwrap();
            let report = check(path, Some(text.as_bytes()), next.as_bytes()).unwrap();
            let fresh = parse::errors(lang, next.as_bytes()).unwrap();
            assert_eq!(
                report.errors_after,
                fresh.len().min(MAX_ERRORS),
                "{}: {next:?}",
                case.path
            );
            // The old text not seen before (blank lines no other test adds): when the new one
            // has errors, the old one is parsed from the new one's tree, edited back.
            let blank = "\n".repeat(50 + i);
            let (old, new) = (format!("{text}{blank}"), format!("{next}{blank}"));
            let report = check(path, Some(old.as_bytes()), new.as_bytes()).unwrap();
            if report.errors_after > 0 {
                let fresh_old = parse::errors(lang, old.as_bytes()).unwrap();
                assert_eq!(
                    report.errors_before,
                    Some(fresh_old.len()),
                    "{}: {old:?}",
                    case.path
                );
            }
            // The new text's kept tree was not changed by parsing the old one from a copy.
            let more = format!("{new}\n");
            let report = check(path, Some(new.as_bytes()), more.as_bytes()).unwrap();
            let fresh_more = parse::errors(lang, more.as_bytes()).unwrap();
            assert_eq!(
                report.errors_after,
                fresh_more.len(),
                "{}: {more:?}",
                case.path
            );
            text = next;
        }
    }
}

#[test]
fn a_remembered_text_is_the_tree_the_next_check_starts_from() {
    // Lines no other test writes.
    let text = "fn remembered() {\n    let a = [1, 2, 3];\n}\n".repeat(7);
    let path = Path::new("r.rs");
    assert!(cache::get(Lang::Rust, text.as_bytes()).is_none());
    // Other tests running at the same time may push it out of the cache between the two
    // calls: try again then.
    let known = (0..10)
        .find_map(|_| {
            remember(path, text.as_bytes());
            cache::get(Lang::Rust, text.as_bytes())
        })
        .expect("kept");
    assert!(known.errors.is_empty());
    // Unchecked files are not kept.
    remember(Path::new("r.txt"), b"fn x() {}\n");
    assert!(cache::get(Lang::Rust, b"fn x() {}\n").is_none());
    let broken = text.replacen("[1, 2, 3]", "[1, 2, 3", 1);
    let report = check(path, Some(text.as_bytes()), broken.as_bytes()).unwrap();
    assert_eq!(report.errors_before, Some(0));
    assert_eq!(report.new.len(), 1, "{}", describe(&report));
    assert_eq!(report.new[0].line, 2);
}

/// The least and the median of `times`: the least is what the work costs on an idle core,
/// the median what it cost here.
fn spread(mut times: Vec<std::time::Duration>) -> String {
    times.sort();
    format!("min {:?}, median {:?}", times[0], times[times.len() / 2])
}

/// Prints what a check costs next to what writing the same bytes costs (run with
/// `--nocapture`; optimised builds give the numbers worth quoting). Asserts only that the
/// samples are checked as expected.
#[test]
fn timings_of_a_20_kb_rust_file() {
    let unit = "/// Adds.\npub fn add_N(a: u64, b: u64) -> u64 {\n    let s = a.wrapping_add(b);\n    if s > 10 {\n        s - 1\n    } else {\n        s + 1\n    }\n}\n\n";
    let text: String = (0..140)
        .map(|i| unit.replace('N', &i.to_string()))
        .collect();
    assert!((18_000..24_000).contains(&text.len()), "{}", text.len());
    let path = Path::new("big.rs");
    let t = Instant::now();
    prime(path);
    let prime_time = t.elapsed();
    let runs = 30;
    let timed = |f: &mut dyn FnMut()| {
        let t = Instant::now();
        f();
        t.elapsed()
    };
    // Texts never checked before (a different first line each time): a full parse.
    let fresh: Vec<String> = (0..runs).map(|i| format!("// {i}\n{text}")).collect();
    let full: Vec<_> = fresh
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let edited = text.replacen("s - 1", &format!("s - {i}"), 1);
            timed(&mut || {
                assert!(
                    check(path, Some(text.as_bytes()), edited.as_bytes())
                        .unwrap()
                        .is_clean()
                );
            })
        })
        .collect();
    // A series of edits, each to what the last one left: incremental parses.
    let mut now = fresh[0].clone();
    check(path, None, now.as_bytes());
    let series: Vec<_> = (0..runs)
        .map(|i| {
            let next = now.replacen(&format!("add_{i}("), &format!("plus_{i}("), 1);
            let took = timed(&mut || {
                assert!(
                    check(path, Some(now.as_bytes()), next.as_bytes())
                        .unwrap()
                        .is_clean()
                );
            });
            now = next;
            took
        })
        .collect();
    // A breaking edit of content not checked before: a full parse of the new content, an
    // incremental one of the old, and a diff.
    let broken: Vec<_> = fresh
        .iter()
        .map(|text| {
            let broken = text.replacen("if s > 10 {", "if s > 10 {{", 1);
            timed(&mut || {
                assert!(
                    !check(path, Some(text.as_bytes()), broken.as_bytes())
                        .unwrap()
                        .is_clean()
                );
            })
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let write: Vec<_> = (0..runs)
        .map(|i| {
            timed(&mut || {
                let mut file = tempfile::NamedTempFile::new_in(dir.path()).unwrap();
                std::io::Write::write_all(&mut file, text.as_bytes()).unwrap();
                file.as_file().sync_all().unwrap();
                file.persist(dir.path().join(format!("f{i}.rs"))).unwrap();
            })
        })
        .collect();
    eprintln!(
        "syntax_check timings, {} bytes of Rust, {runs} runs each:\n  prime {prime_time:?}\n  \
         clean edit of content not seen before (one full parse): {}\n  clean edit in a series \
         (incremental parse): {}\n  breaking edit of content not seen before (full + \
         incremental parse, diff): {}\n  temp file + write + fsync + rename: {}",
        text.len(),
        spread(full),
        spread(series),
        spread(broken),
        spread(write),
    );
}
