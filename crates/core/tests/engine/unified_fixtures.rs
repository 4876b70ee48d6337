#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

//! Whole-output fixtures for the unified diff engine. Each folder under
//! `tests/fixtures/unified/` holds `input.txt` (the file), `patch.diff` (the diff) and either
//! `expected.txt` (the file after applying, byte for byte) or `expected_error.txt` (the error,
//! `kind: message`). Folders whose names start with `0NN_real_` were made with `diff -u` or
//! `git diff` and checked with `patch`.
//!
//! `UPDATE_FIXTURES=1 cargo test --test engine unified_fixtures` rewrites the expected file each
//! folder already has from the current output (review the change before keeping it).

use std::fs;
use std::path::{Path, PathBuf};

use fsgate_core::ops::patch::unified;

fn fixture_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/unified");
    let mut dirs: Vec<PathBuf> = fs::read_dir(&root)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// The engine's whole output for one fixture: the new bytes, or the error text.
fn run(dir: &Path) -> Result<Vec<u8>, String> {
    let input = fs::read(dir.join("input.txt")).unwrap();
    let diff = fs::read_to_string(dir.join("patch.diff")).unwrap();
    unified::parse(&diff)
        .and_then(|parsed| unified::apply(&input, &parsed))
        .map(|applied| applied.bytes)
        .map_err(|err| err.to_string())
}

#[test]
fn every_fixture_gives_its_expected_output() {
    let update = std::env::var_os("UPDATE_FIXTURES").is_some();
    let dirs = fixture_dirs();
    assert!(dirs.len() >= 15, "only {} fixtures", dirs.len());
    let mut failures = Vec::new();
    for dir in &dirs {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let expected_ok = dir.join("expected.txt");
        let expected_err = dir.join("expected_error.txt");
        let actual = run(dir);
        if update {
            match &actual {
                Ok(bytes) if expected_ok.exists() => fs::write(&expected_ok, bytes).unwrap(),
                Err(text) if expected_err.exists() => {
                    fs::write(&expected_err, format!("{text}\n")).unwrap();
                }
                _ => {}
            }
        }
        match (expected_ok.exists(), expected_err.exists(), actual) {
            (true, false, Ok(bytes)) => {
                let want = fs::read(&expected_ok).unwrap();
                if bytes != want {
                    failures.push(format!(
                        "{name}: output differs\n--- expected\n{}\n--- actual\n{}",
                        String::from_utf8_lossy(&want).escape_debug(),
                        String::from_utf8_lossy(&bytes).escape_debug()
                    ));
                }
            }
            (false, true, Err(text)) => {
                let want = fs::read_to_string(&expected_err).unwrap();
                if text != want.strip_suffix('\n').unwrap_or(&want) {
                    failures.push(format!(
                        "{name}: error differs\n--- expected\n{want}\n--- actual\n{text}"
                    ));
                }
            }
            (true, false, Err(text)) => failures.push(format!("{name}: expected success\n{text}")),
            (false, true, Ok(bytes)) => failures.push(format!(
                "{name}: expected an error, got\n{}",
                String::from_utf8_lossy(&bytes)
            )),
            _ => failures.push(format!(
                "{name}: needs exactly one of expected.txt and expected_error.txt"
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// For every successful fixture, the diff the engine renders from input to expected output
/// applies back to the same output.
#[test]
fn rendered_diffs_of_the_successful_fixtures_apply_back() {
    for dir in fixture_dirs() {
        let Ok(expected) = fs::read(dir.join("expected.txt")) else {
            continue;
        };
        let input = fs::read(dir.join("input.txt")).unwrap();
        let rendered = unified::render("file", &input, &expected);
        let parsed = unified::parse(&rendered).unwrap();
        let applied = unified::apply(&input, &parsed).unwrap();
        assert_eq!(applied.bytes, expected, "{}", dir.display());
    }
}
