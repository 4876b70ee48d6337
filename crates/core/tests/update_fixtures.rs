//! Fixture-driven tests of the update-file engine: each folder under `fixtures/update/` holds
//! `input.txt` (the file's bytes), `ops.json` (the ops, in the wire shape), and either
//! `expected.txt` (the exact bytes written) or `expected_error.txt` (the exact error, as
//! `kind: message`, in coder's words: [`fsgate_core::surface::coder::update_refusal`]), plus optionally `echoes.json` (`applied`, `new_line_count`,
//! `echoes_truncated` and `echoes`, compared whole).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use std::fs;
use std::path::{Path, PathBuf};

use fsgate_core::ops::update::{self, Op};
use fsgate_core::surface::coder::update_refusal;
use serde_json::{Value, json};

fn fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/update");
    let mut dirs: Vec<PathBuf> = fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

fn read_opt(dir: &Path, name: &str) -> Option<Vec<u8>> {
    let path = dir.join(name);
    path.exists().then(|| fs::read(&path).unwrap())
}

/// Runs one fixture; `Err` describes every difference.
fn check(dir: &Path) -> Result<(), String> {
    let input = fs::read(dir.join("input.txt")).map_err(|e| format!("input.txt: {e}"))?;
    let ops: Vec<Op> = serde_json::from_slice(&fs::read(dir.join("ops.json")).unwrap())
        .map_err(|e| format!("ops.json does not parse: {e}"))?;
    let expected = read_opt(dir, "expected.txt");
    let expected_error = read_opt(dir, "expected_error.txt");
    let echoes = read_opt(dir, "echoes.json");
    let result = update::apply(&input, &ops).map_err(update_refusal);
    match (expected, expected_error, result) {
        (Some(_), Some(_), _) | (None, None, _) => {
            Err("needs exactly one of expected.txt and expected_error.txt".into())
        }
        (None, Some(want), Ok(got)) => Err(format!(
            "expected the error\n  {}\nbut the ops applied, giving\n  {:?}",
            String::from_utf8_lossy(&want).trim_end_matches('\n'),
            String::from_utf8_lossy(&got.bytes)
        )),
        (None, Some(want), Err(err)) => {
            let want = String::from_utf8(want).unwrap();
            let want = want.strip_suffix('\n').unwrap_or(&want);
            let got = err.to_string();
            if echoes.is_some() {
                return Err("echoes.json makes no sense next to expected_error.txt".into());
            }
            if got == want {
                Ok(())
            } else {
                Err(format!("error differs:\n  want: {want}\n  got:  {got}"))
            }
        }
        (Some(_), None, Err(err)) => Err(format!("unexpected error: {err}")),
        (Some(want), None, Ok(got)) => {
            let mut problems = Vec::new();
            if got.bytes != want {
                problems.push(format!(
                    "bytes differ:\n  want: {:?}\n  got:  {:?}",
                    String::from_utf8_lossy(&want),
                    String::from_utf8_lossy(&got.bytes)
                ));
            }
            if let Some(echoes) = echoes {
                let want: Value = serde_json::from_slice(&echoes)
                    .map_err(|e| format!("echoes.json does not parse: {e}"))?;
                let got = json!({
                    "applied": got.applied,
                    "new_line_count": got.new_line_count,
                    "echoes_truncated": got.echoes_truncated,
                    "echoes": got.echoes,
                });
                if got != want {
                    problems.push(format!("echoes differ:\n  want: {want}\n  got:  {got}"));
                }
            }
            if problems.is_empty() {
                Ok(())
            } else {
                Err(problems.join("\n"))
            }
        }
    }
}

#[test]
fn every_fixture_gives_its_expected_output() {
    let dirs = fixtures();
    assert!(dirs.len() >= 15, "only {} fixtures found", dirs.len());
    let failures: Vec<String> = dirs
        .iter()
        .filter_map(|dir| {
            check(dir)
                .err()
                .map(|why| format!("{}:\n{why}", dir.file_name().unwrap().to_string_lossy()))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} fixtures failed:\n\n{}",
        failures.len(),
        dirs.len(),
        failures.join("\n\n")
    );
}

#[test]
fn fixture_bytes_are_exact() {
    // Guards against a checkout that converted line endings: the CRLF fixture must keep them.
    let dir = fixtures()
        .into_iter()
        .find(|d| d.ends_with("014_crlf_file_stays_crlf"))
        .unwrap();
    assert_eq!(
        fs::read(dir.join("input.txt")).unwrap(),
        b"one\r\ntwo\r\nthree\r\n"
    );
}
