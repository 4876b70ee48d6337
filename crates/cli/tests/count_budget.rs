//! gg's budget for counting a large file's lines, set the two ways a launch sets it: read-file's
//! `countBudgetBytes` / `countBudgetMs` params (validated by `check-config` as by `serve`) and
//! the `FSGATE_COUNT_BUDGET_BYTES` / `FSGATE_COUNT_BUDGET_MS` environment variables, which
//! override the file and refuse the launch when they are not whole numbers.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

use std::path::Path;
use std::process::{Command, Output, Stdio};

fn fsgate(cwd: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fsgate"));
    cmd.args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .env_remove("FSGATE_COUNT_BUDGET_BYTES")
        .env_remove("FSGATE_COUNT_BUDGET_MS");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

/// A 2 MiB file of numbered lines (16 bytes each), aged past the line index's settle time.
fn big_file(dir: &Path) {
    let lines: String = (1..=131_072u32)
        .map(|n| format!("line {n:010}\n"))
        .collect();
    std::fs::write(dir.join("big.txt"), lines).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(250));
}

#[test]
fn check_config_names_budget_params_that_are_not_whole_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(
        &bad,
        "[capabilities.read-file]\nparams = { lineCap = 100, countBudgetBytes = \"4GiB\", \
         countBudgetMs = -1 }\n",
    )
    .unwrap();
    let out = fsgate(dir.path(), &[], &["check-config", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains(
            "capabilities.read-file.params.countBudgetBytes: \"4GiB\" is not a byte count"
        ),
        "{err}"
    );
    assert!(
        err.contains(
            "capabilities.read-file.params.countBudgetMs: -1 is not a time in milliseconds"
        ),
        "{err}"
    );
    let good = dir.path().join("good.toml");
    std::fs::write(
        &good,
        "[capabilities.read-file]\nparams = { lineCap = 100, countBudgetBytes = 0, countBudgetMs \
         = 1000 }\n",
    )
    .unwrap();
    let out = fsgate(dir.path(), &[], &["check-config", good.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn a_bad_budget_variable_refuses_the_launch_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let env = [("FSGATE_COUNT_BUDGET_MS", "1s")];
    let out = fsgate(dir.path(), &env, &["serve"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("FSGATE_COUNT_BUDGET_MS: \"1s\" is not a whole number 0 or more"),
        "{err}"
    );
    let good = dir.path().join("good.toml");
    std::fs::write(
        &good,
        "[capabilities.read-file]\nparams = { lineCap = 100 }\n",
    )
    .unwrap();
    let out = fsgate(dir.path(), &env, &["check-config", good.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "check-config checks it as serve does"
    );
}

#[test]
fn the_budget_variables_override_the_file() {
    let dir = tempfile::tempdir().unwrap();
    big_file(dir.path());
    let cfg = dir.path().join("gg.toml");
    std::fs::write(
        &cfg,
        "[capabilities.read-file]\nparams = { lineCap = 5, countBudgetBytes = 0 }\n",
    )
    .unwrap();
    let read = [
        "call",
        "--config",
        "gg.toml",
        "read_file",
        r#"{"path": "big.txt"}"#,
    ];
    let out = fsgate(dir.path(), &[], &read);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).ends_with("[showing lines 1-5 of at least 6; continue with offset: 6]"),
        "{}",
        text(&out.stdout)
    );
    let env = [("FSGATE_COUNT_BUDGET_BYTES", "4294967296")];
    let out = fsgate(dir.path(), &env, &read);
    assert!(
        text(&out.stdout).ends_with("[showing lines 1-5 of 131072; continue with offset: 6]"),
        "{}",
        text(&out.stdout)
    );
}
