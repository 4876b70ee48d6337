#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

//! The sgpt `exec_shell` tool: combined output and exit code, failures, the timeout that kills
//! the whole process group, the output cap with its artifact, cancellation, and the working
//! directory inside the jail.

mod sgpt_support;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use fsgate_core::CallContext;
use serde_json::json;
use sgpt_support::Sx;

/// Whether process `pid` is still running (a zombie waiting to be reaped is not).
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit_once(')').map(|(_, rest)| rest.trim_start());
            !state.is_some_and(|s| s.starts_with('Z') || s.starts_with('X'))
        }
        Err(_) => false,
    }
}

/// Waits up to two seconds for `pid` to be gone.
fn gone(pid: u32) -> bool {
    let until = Instant::now() + Duration::from_secs(2);
    while Instant::now() < until {
        if !alive(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

fn pid_in(sx: &Sx, rel: &str) -> u32 {
    sx.text(rel).trim().parse().unwrap()
}

#[test]
fn success_returns_combined_output_and_exit_code_zero() {
    let sx = Sx::new();
    let result = sx.ok(
        "exec_shell",
        json!({"command": "echo out; echo err >&2; printf tail"}),
    );
    assert_eq!(result, json!({"exit_code": 0, "output": "out\nerr\ntail"}));
    // Standard input is empty: cat ends at once.
    let result = sx.ok("exec_shell", json!({"command": "cat; echo done"}));
    assert_eq!(result["output"], "done\n");
}

#[test]
fn a_non_zero_exit_is_an_error_with_output_and_code() {
    let sx = Sx::new();
    let result = sx.failed(
        "exec_shell",
        json!({"command": "echo before; ls /definitely-missing-path; exit 3"}),
    );
    assert_eq!(result["exit_code"], 3);
    assert!(result["output"].as_str().unwrap().starts_with("before\n"));
    assert!(
        result["output"]
            .as_str()
            .unwrap()
            .contains("definitely-missing-path"),
        "{result}"
    );
    assert_eq!(result["error"], "the command exited with code 3.");
    let result = sx.failed("exec_shell", json!({"command": "kill -TERM $$"}));
    assert_eq!(result["exit_code"], json!(null));
    assert!(
        result["error"]
            .as_str()
            .unwrap()
            .contains("signal 15 (SIGTERM)"),
        "{result}"
    );
}

#[test]
fn a_timeout_kills_the_whole_process_group_grandchildren_included() {
    let sx = Sx::with(|c| c.shell_timeout = Duration::from_millis(700));
    let start = Instant::now();
    let result = sx.failed(
        "exec_shell",
        json!({"command": "echo started; sleep 30 & echo $! > child.pid; \
                           sh -c 'sleep 31 & echo $! > grandchild.pid; wait' & \
                           sleep 32"}),
    );
    let elapsed = start.elapsed();
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
    assert!(elapsed >= Duration::from_millis(700), "took {elapsed:?}");
    assert_eq!(result["exit_code"], json!(null));
    assert_eq!(result["output"], "started\n");
    let error = result["error"].as_str().unwrap();
    assert!(
        error.starts_with(
            "the command timed out after 0.7 s (exec_shell.timeout_secs) and was killed"
        ),
        "{error}"
    );
    for file in ["child.pid", "grandchild.pid"] {
        let pid = pid_in(&sx, file);
        assert!(gone(pid), "{file} {pid} survived the timeout");
    }
}

#[test]
fn output_over_the_cap_gives_head_tail_and_the_saved_file() {
    let sx = Sx::with(|c| c.output_cap_chars = 2000);
    let result = sx.ok("exec_shell", json!({"command": "seq 1 100000"}));
    assert_eq!(result["exit_code"], 0);
    let output = result["output"].as_str().unwrap();
    assert!(
        output.chars().count() <= 2000,
        "{} chars",
        output.chars().count()
    );
    assert!(output.starts_with("1\n2\n3\n"), "{output}");
    assert!(output.ends_with("99999\n100000\n"), "{output}");
    let path = result["output_file"].as_str().unwrap();
    assert!(path.starts_with(".fsgate/artifacts/exec-"), "{path}");
    assert!(path.ends_with(".log"), "{path}");
    assert!(
        output.contains(&format!("It is saved whole in {path}")),
        "{output}"
    );
    let expected: String = (1..=100_000).map(|i| format!("{i}\n")).collect();
    assert!(output.contains(&format!("the output has {} characters", expected.len())));
    assert_eq!(sx.text(path), expected);
    assert_eq!(sx.text(".fsgate/artifacts/.gitignore"), "*\n");
    // The saved file is readable with read_files.
    let read = sx.ok("read_files", json!({"paths": [path]}));
    assert!(
        read["files"][0]["content"]
            .as_str()
            .unwrap()
            .starts_with("1\n2\n")
    );
    // The omitted count adds up.
    let omitted: usize = output
        .split("[… ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let notice_line = output.lines().find(|l| l.starts_with("[… ")).unwrap();
    let shown = output.chars().count() - notice_line.chars().count() - 1;
    assert_eq!(omitted + shown, expected.len());
}

#[test]
fn output_within_the_cap_is_whole_and_saves_nothing() {
    let sx = Sx::with(|c| c.output_cap_chars = 2000);
    let result = sx.ok("exec_shell", json!({"command": "seq 1 300"}));
    assert!(result.get("output_file").is_none());
    assert_eq!(
        result["output"].as_str().unwrap(),
        (1..=300).map(|i| format!("{i}\n")).collect::<String>()
    );
    assert!(!sx.path(".fsgate").exists());
}

#[test]
fn the_artifact_limit_and_an_unusable_artifact_folder_are_reported() {
    let sx = Sx::with(|c| {
        c.output_cap_chars = 500;
        c.max_artifact_bytes = 1000;
        c.artifact_dir = PathBuf::from("out/logs");
    });
    let result = sx.ok("exec_shell", json!({"command": "seq 1 5000"}));
    let path = result["output_file"].as_str().unwrap();
    assert!(path.starts_with("out/logs/exec-"), "{path}");
    let saved = sx.text(path);
    assert!(saved.starts_with("1\n2\n"));
    assert!(
        saved.contains("bytes of the output are not in this file: over the limit of 1000 bytes"),
        "{saved}"
    );

    let sx = Sx::with(|c| {
        c.output_cap_chars = 500;
        c.artifact_dir = PathBuf::from("/proc/outside-the-jail");
    });
    let result = sx.ok("exec_shell", json!({"command": "seq 1 5000"}));
    assert!(result.get("output_file").is_none());
    let output = result["output"].as_str().unwrap();
    assert!(output.contains("could not be saved whole"), "{output}");
    assert!(output.ends_with("5000\n"), "{output}");
}

#[test]
fn cancellation_kills_the_process_group() {
    let sx = Sx::new();
    let flag = Arc::new(AtomicBool::new(false));
    let ctx = CallContext::with_flag(Arc::clone(&flag));
    let setter = {
        let flag = Arc::clone(&flag);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(400));
            flag.store(true, Ordering::Relaxed);
        })
    };
    let start = Instant::now();
    let out = sx.call_with(
        "exec_shell",
        json!({"command": "sleep 30 & echo $! > child.pid; echo waiting; wait"}),
        &ctx,
    );
    setter.join().unwrap();
    assert!(start.elapsed() < Duration::from_secs(5));
    assert!(out.is_error);
    let result = out.structured.unwrap();
    assert_eq!(result["output"], "waiting\n");
    assert!(
        result["error"]
            .as_str()
            .unwrap()
            .starts_with("the call was cancelled"),
        "{result}"
    );
    assert!(gone(pid_in(&sx, "child.pid")));
}

#[test]
fn a_background_job_does_not_hold_the_call() {
    let sx = Sx::new();
    let start = Instant::now();
    let result = sx.ok(
        "exec_shell",
        json!({"command": "(sleep 3; echo late) & echo $! > bg.pid; echo now"}),
    );
    assert!(start.elapsed() < Duration::from_secs(2));
    assert_eq!(result["output"], "now\n");
    assert!(
        result["note"]
            .as_str()
            .unwrap()
            .contains("background process"),
        "{result}"
    );
    let _ = std::process::Command::new("kill")
        .arg(sx.text("bg.pid").trim())
        .status();
}

#[test]
fn the_working_directory_must_be_a_directory_inside_the_workspace() {
    let sx = Sx::new();
    sx.write("sub/inner/f.txt", "x");
    let result = sx.ok(
        "exec_shell",
        json!({"command": "pwd; ls", "working_directory": "sub"}),
    );
    let output = result["output"].as_str().unwrap();
    assert!(output.lines().next().unwrap().ends_with("/sub"), "{output}");
    assert!(output.ends_with("inner\n"), "{output}");
    let result = sx.ok("exec_shell", json!({"command": "pwd"}));
    let root = sx.dir.path().canonicalize().unwrap();
    assert_eq!(result["output"], format!("{}\n", root.display()));

    let text = sx.err(
        "exec_shell",
        json!({"command": "pwd", "working_directory": "/"}),
    );
    assert!(text.starts_with("outside-root: "), "{text}");
    let text = sx.err(
        "exec_shell",
        json!({"command": "pwd", "working_directory": "nope"}),
    );
    assert!(
        text.starts_with("not-found: working_directory nope does not exist"),
        "{text}"
    );
    let text = sx.err(
        "exec_shell",
        json!({"command": "pwd", "working_directory": "sub/inner/f.txt"}),
    );
    assert!(
        text.starts_with("invalid-argument: working_directory sub/inner/f.txt is a file"),
        "{text}"
    );
    let text = sx.err("exec_shell", json!({"command": "  "}));
    assert!(
        text.starts_with("invalid-argument: command of exec_shell is empty"),
        "{text}"
    );
}

#[test]
fn an_endless_flood_is_stopped_by_the_timeout_and_by_cancellation() {
    let sx = Sx::with(|c| {
        c.shell_timeout = Duration::from_millis(500);
        c.output_cap_chars = 1000;
        c.max_artifact_bytes = 100_000;
    });
    let start = Instant::now();
    let result = sx.failed("exec_shell", json!({"command": "yes flood"}));
    assert!(start.elapsed() < Duration::from_secs(5));
    assert!(result["error"].as_str().unwrap().contains("timed out"));
    let output = result["output"].as_str().unwrap();
    assert!(output.starts_with("flood\nflood\n"), "{output}");
    assert!(output.chars().count() <= 1000);
    let saved = sx.bytes(result["output_file"].as_str().unwrap());
    assert!(
        saved.len() > 100_000 && saved.len() < 101_000,
        "{}",
        saved.len()
    );

    let sx = Sx::with(|c| c.max_artifact_bytes = 100_000);
    let flag = Arc::new(AtomicBool::new(false));
    let ctx = CallContext::with_flag(Arc::clone(&flag));
    let setter = {
        let flag = Arc::clone(&flag);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            flag.store(true, Ordering::Relaxed);
        })
    };
    let start = Instant::now();
    let out = sx.call_with("exec_shell", json!({"command": "yes flood"}), &ctx);
    setter.join().unwrap();
    assert!(start.elapsed() < Duration::from_secs(5));
    assert!(out.is_error);
    assert!(out.text_content().contains("cancelled"));
}
