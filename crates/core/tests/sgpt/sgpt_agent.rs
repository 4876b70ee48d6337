#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

//! The sgpt `agent` tool, driven through a stand-in sub-agent script: the prompt (query and
//! injected files) on standard input or in an argument, the model and tools as arguments and
//! in the environment, the final answer from standard output, failures, the timeout, and the
//! tool being off without a configured command.

use crate::sgpt_support;

use std::path::Path;
use std::time::{Duration, Instant};

use fsgate_core::config::sgpt::AgentConfig;
use serde_json::json;
use sgpt_support::Sx;

/// A stand-in sub-agent: prints what it was given, then its standard input.
const STAND_IN: &str = r#"#!/bin/sh
touch started.marker
echo "title=$FSGATE_AGENT_TITLE"
echo "model=$FSGATE_AGENT_MODEL"
echo "tools=$FSGATE_AGENT_TOOLS"
echo "files=$FSGATE_AGENT_FILES"
for a in "$@"; do echo "arg=$a"; done
echo "--- stdin"
cat
"#;

fn script(dir: &Path, name: &str, body: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    path.display().to_string()
}

fn with_agent(f: impl FnOnce(&Path) -> AgentConfig) -> (Sx, tempfile::TempDir) {
    let bin = tempfile::tempdir().unwrap();
    let agent = f(bin.path());
    (Sx::with(|c| c.agent = Some(agent)), bin)
}

#[test]
fn the_prompt_goes_to_stdin_with_files_injected_and_the_answer_is_stdout() {
    let (sx, _bin) = with_agent(|bin| {
        let mut agent = AgentConfig::new(vec!["sh".into(), script(bin, "agent.sh", STAND_IN)]);
        agent.model_args = vec!["--model".into(), "{model}".into()];
        agent.tools_args = vec!["--tools={tools}".into()];
        agent
    });
    sx.write("src/lib.rs", "pub fn f() {}\n");
    sx.write("notes.md", "no final newline");
    let result = sx.ok(
        "agent",
        json!({
            "query": "Review f.",
            "title": "Review",
            "files": ["src/lib.rs", "notes.md"],
            "tools": ["read_files", "exec_shell"],
            "model": "small-1",
        }),
    );
    assert_eq!(result["title"], "Review");
    assert_eq!(
        result["answer"],
        "title=Review\nmodel=small-1\ntools=read_files,exec_shell\nfiles=src/lib.rs\nnotes.md\n\
         arg=--model\narg=small-1\narg=--tools=read_files,exec_shell\n--- stdin\n\
         Review f.\n\n<file path=\"src/lib.rs\">\npub fn f() {}\n</file>\n\n\
         <file path=\"notes.md\">\nno final newline\n</file>"
    );
    // Without model and tools, their arguments are left out.
    let result = sx.ok("agent", json!({"query": "Plain."}));
    assert_eq!(
        result["answer"],
        "title=\nmodel=\ntools=\nfiles=\n--- stdin\nPlain."
    );
    assert!(result.get("title").is_none());
}

#[test]
fn a_prompt_placeholder_puts_the_prompt_in_an_argument_instead() {
    let (sx, _bin) = with_agent(|bin| {
        AgentConfig::new(vec![
            "sh".into(),
            script(bin, "agent.sh", STAND_IN),
            "--print".into(),
            "{prompt}".into(),
            "{{literal}}".into(),
        ])
    });
    let result = sx.ok("agent", json!({"query": "Say hi."}));
    assert_eq!(
        result["answer"],
        "title=\nmodel=\ntools=\nfiles=\narg=--print\narg=Say hi.\n\narg={literal}\n--- stdin"
    );
}

#[test]
fn a_failing_sub_agent_is_an_error_with_its_stderr() {
    let (sx, _bin) = with_agent(|bin| {
        AgentConfig::new(vec![
            "sh".into(),
            script(
                bin,
                "fail.sh",
                "echo partial; echo 'model not found' >&2; exit 2\n",
            ),
        ])
    });
    let result = sx.failed("agent", json!({"query": "x"}));
    assert_eq!(result["answer"], "partial");
    assert_eq!(result["exit_code"], 2);
    assert!(
        result["error"]
            .as_str()
            .unwrap()
            .contains("exited with code 2"),
        "{result}"
    );
    assert_eq!(result["stderr"], "model not found");
}

#[test]
fn a_sub_agent_past_its_timeout_is_stopped() {
    let (sx, _bin) = with_agent(|bin| {
        let mut agent = AgentConfig::new(vec![
            "sh".into(),
            script(bin, "slow.sh", "echo thinking; sleep 30\n"),
        ]);
        agent.timeout = Duration::from_millis(500);
        agent
    });
    let start = Instant::now();
    let result = sx.failed("agent", json!({"query": "x"}));
    assert!(start.elapsed() < Duration::from_secs(5));
    assert_eq!(result["answer"], "thinking");
    assert!(
        result["error"]
            .as_str()
            .unwrap()
            .contains("did not finish within 0.5 s"),
        "{result}"
    );
}

#[test]
fn a_long_answer_is_capped_and_saved() {
    let bin = tempfile::tempdir().unwrap();
    let long = script(bin.path(), "long.sh", "seq 1 20000\n");
    let sx = Sx::with(|c| {
        c.output_cap_chars = 1000;
        c.agent = Some(AgentConfig::new(vec!["sh".into(), long]));
    });
    let result = sx.ok("agent", json!({"query": "count"}));
    let answer = result["answer"].as_str().unwrap();
    assert!(answer.chars().count() <= 1000);
    assert!(answer.starts_with("1\n2\n"));
    assert!(answer.ends_with("20000"));
    let path = result["output_file"].as_str().unwrap();
    assert!(path.starts_with(".fsgate/artifacts/agent-"), "{path}");
    assert!(sx.text(path).ends_with("19999\n20000\n"));
}

#[test]
fn bad_files_refuse_the_call_before_starting_the_sub_agent() {
    let (sx, _bin) =
        with_agent(|bin| AgentConfig::new(vec!["sh".into(), script(bin, "agent.sh", STAND_IN)]));
    let text = sx.err("agent", json!({"query": "x", "files": ["missing.rs"]}));
    assert!(
        text.starts_with("not-found: files names missing.rs"),
        "{text}"
    );
    let text = sx.err("agent", json!({"query": "x", "files": ["/etc/passwd"]}));
    assert!(text.starts_with("outside-root: "), "{text}");
    let text = sx.err("agent", json!({"query": "x", "tools": ["a,b"]}));
    assert!(text.contains("not a tool name"), "{text}");
    let text = sx.err("agent", json!({"query": ""}));
    assert!(text.contains("query of agent is empty"), "{text}");
    assert!(!sx.path("started.marker").exists());
}

#[test]
fn without_a_command_the_tool_is_off() {
    let sx = Sx::new();
    assert!(!sx.ws.tools().iter().any(|t| t.name == "agent"));
    let text = sx.err("agent", json!({"query": "x"}));
    assert!(text.starts_with("denied: the agent tool is off"), "{text}");
    assert!(!sx.ws.prompt().contains("agent {"));

    let (sx, _bin) = with_agent(|_| AgentConfig::new(vec!["true".into()]));
    let agent = sx
        .ws
        .tools()
        .into_iter()
        .find(|t| t.name == "agent")
        .unwrap();
    assert!(!agent.read_only);
    assert!(agent.destructive);
    assert!(sx.ws.prompt().contains("agent {"));
}

#[test]
fn a_program_that_cannot_start_is_an_io_error() {
    let (sx, _bin) = with_agent(|_| AgentConfig::new(vec!["/nonexistent/agent-cli".into()]));
    let text = sx.err("agent", json!({"query": "x"}));
    assert!(
        text.starts_with("io: the sub-agent could not be started (/nonexistent/agent-cli"),
        "{text}"
    );
}
