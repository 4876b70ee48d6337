//! agent: a sub-agent launched through the configured command line (see
//! [`crate::config::sgpt::AgentConfig`]), its final answer being its standard output.
//!
//! The prompt is the query followed by each injected file as `<file path="...">` … `</file>`.
//! It goes where the command's `{prompt}` placeholder is, or to standard input when no argument
//! holds one. The sub-agent also finds the call in its environment: `FSGATE_AGENT_TITLE`,
//! `FSGATE_AGENT_MODEL`, `FSGATE_AGENT_TOOLS` (comma-separated) and `FSGATE_AGENT_FILES` (one
//! path a line). It runs in the workspace root, in a process group of its own that a timeout or
//! a cancellation kills.

use std::cell::Cell;

use serde_json::{Map, Value, json};

use super::input::Input;
use super::output::{self, duration_text};
use super::{Answer, Ctx};
use crate::config::sgpt::{AgentConfig, expand};
use crate::error::{ErrorKind, Result, ToolError};
use crate::ops::shell::{self, End, Job, Program};

/// The most characters of the sub-agent's standard error shown with a failure.
const STDERR_SHOWN: usize = 2_000;

pub(super) fn call(ctx: &Ctx<'_>, args: Value) -> Result<Answer> {
    let Some(agent) = &ctx.config.agent else {
        return Err(ToolError::new(
            ErrorKind::Denied,
            "the agent tool is off: no sub-agent command is configured ([agent] command = \
             [...] in the configuration); do the task yourself",
        ));
    };
    let input = Input::parse(
        "agent",
        args,
        &["query", "title", "files", "tools", "model"],
    )?;
    let query = input.text("query")?;
    let title = input
        .args
        .opt_str("title")?
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(String::from);
    let model = input
        .args
        .opt_str("model")?
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .map(String::from);
    let files = input.strings("files")?.unwrap_or_default();
    let tools = input.strings("tools")?.unwrap_or_default();
    if let Some(bad) = tools
        .iter()
        .find(|t| t.trim().is_empty() || t.contains(','))
    {
        return Err(ToolError::invalid(format!(
            "tools holds {bad:?}, which is not a tool name; pass each tool's name as its own \
             string, e.g. [\"read_files\", \"exec_shell\"]"
        )));
    }
    let prompt = prompt(ctx, &query, &files)?;
    let values = Values {
        prompt: &prompt,
        query: &query,
        title: title.as_deref().unwrap_or(""),
        model: model.as_deref().unwrap_or(""),
        tools: &tools.join(","),
    };
    let (argv, prompt_in_args) = command_line(agent, &values, model.is_some(), !tools.is_empty())
        .map_err(|e| {
        ToolError::invalid(format!(
            "the configured sub-agent command cannot be built: {e}"
        ))
    })?;
    let Some((program, rest)) = argv.split_first() else {
        return Err(ToolError::invalid(
            "the configured sub-agent command is empty",
        ));
    };
    let command = Program::new(program)
        .args(rest)
        .current_dir(ctx.access.root())
        .env("FSGATE_AGENT_TITLE", values.title)
        .env("FSGATE_AGENT_MODEL", values.model)
        .env("FSGATE_AGENT_TOOLS", values.tools)
        .env("FSGATE_AGENT_FILES", files.join("\n"));
    let job = Job {
        command,
        stdin: (!prompt_in_args).then(|| prompt.clone().into_bytes()),
        combine: false,
        timeout: agent.timeout,
        keep: ctx.config.output_cap_chars.saturating_mul(4),
        spool_limit: ctx.config.max_artifact_bytes,
    };
    let mut outcome = match shell::run(job, &|| ctx.call.is_cancelled()) {
        Ok(outcome) => outcome,
        Err(e) => {
            return Err(ToolError::new(
                ErrorKind::Io,
                format!(
                    "the sub-agent could not be started ({program}: {e}); the user should check \
                     [agent] command in the configuration"
                ),
            ));
        }
    };
    let shown = output::show(ctx, &mut outcome.stdout, "agent");
    let answer = shown.text.trim_end().to_string();
    let mut value = Map::new();
    value.insert("answer".into(), Value::String(answer));
    if let Some(title) = &title {
        value.insert("title".into(), Value::String(title.clone()));
    }
    if let Some(path) = shown.output_file {
        value.insert("output_file".into(), Value::String(path));
    }
    let error = match outcome.end {
        End::Exited(0) => None,
        End::Exited(code) => {
            value.insert("exit_code".into(), json!(code));
            Some(format!("the sub-agent ({program}) exited with code {code}"))
        }
        End::Signalled(signal) => Some(format!(
            "the sub-agent ({program}) was killed by signal {signal}"
        )),
        End::TimedOut => Some(format!(
            "the sub-agent ({program}) did not finish within {} (agent.timeout_secs) and was \
             stopped; give it a smaller task",
            duration_text(agent.timeout)
        )),
        End::Cancelled => Some("the call was cancelled; the sub-agent was stopped".to_string()),
    };
    let failed = error.is_some();
    if let Some(error) = error {
        value.insert("error".into(), Value::String(error));
        let stderr = stderr_tail(&outcome.stderr);
        if !stderr.is_empty() {
            value.insert("stderr".into(), Value::String(stderr));
        }
    }
    Ok(Answer {
        value: Value::Object(value),
        failed,
    })
}

/// The query followed by the injected files, read through the jail within the read budget.
fn prompt(ctx: &Ctx<'_>, query: &str, files: &[String]) -> Result<String> {
    let mut text = query.to_string();
    let budget = ctx.config.read_budget_bytes;
    let mut used: u64 = 0;
    for raw in files {
        let target = ctx.access.resolve(raw)?;
        let (bytes, _) = ctx.access.read_all(&target).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                ToolError::not_found(format!(
                    "files names {raw}, which does not exist; fix the path or leave it out. \
                     The sub-agent was not started."
                ))
            } else {
                ToolError::from_io(&e, "read", raw)
            }
        })?;
        if memchr::memchr(0, &bytes).is_some() {
            return Err(ToolError::invalid(format!(
                "files names {raw}, a binary file, which cannot be injected as text; leave it \
                 out. The sub-agent was not started."
            )));
        }
        used += bytes.len() as u64;
        if used > budget {
            return Err(ToolError::new(
                ErrorKind::TooLarge,
                format!(
                    "the files to inject hold more than {budget} bytes (the read budget) by \
                     {raw}; inject fewer or smaller files, and name the others in query for the \
                     sub-agent to read. The sub-agent was not started."
                ),
            ));
        }
        let content = String::from_utf8_lossy(&bytes);
        text.push_str(&format!("\n\n<file path=\"{raw}\">\n{content}"));
        if !content.ends_with('\n') {
            text.push('\n');
        }
        text.push_str("</file>");
    }
    text.push('\n');
    Ok(text)
}

struct Values<'a> {
    prompt: &'a str,
    query: &'a str,
    title: &'a str,
    model: &'a str,
    tools: &'a str,
}

/// The argument vector, and whether one argument took the prompt.
fn command_line(
    agent: &AgentConfig,
    values: &Values<'_>,
    with_model: bool,
    with_tools: bool,
) -> std::result::Result<(Vec<String>, bool), String> {
    let used = Cell::new(false);
    let value = |name: &str| -> Option<String> {
        Some(match name {
            "prompt" => {
                used.set(true);
                values.prompt.to_string()
            }
            "query" => values.query.to_string(),
            "title" => values.title.to_string(),
            "model" => values.model.to_string(),
            "tools" => values.tools.to_string(),
            _ => return None,
        })
    };
    let mut argv = Vec::new();
    let empty = Vec::new();
    let groups = [
        &agent.command,
        if with_model {
            &agent.model_args
        } else {
            &empty
        },
        if with_tools {
            &agent.tools_args
        } else {
            &empty
        },
    ];
    for group in groups {
        for template in group {
            argv.push(expand(template, &value)?);
        }
    }
    Ok((argv, used.get()))
}

/// The end of standard error, for a failure.
fn stderr_tail(captured: &shell::Captured) -> String {
    let text = String::from_utf8_lossy(captured.tail());
    let text = text.trim_end();
    let count = text.chars().count();
    if count <= STDERR_SHOWN {
        return text.to_string();
    }
    let start = text
        .char_indices()
        .nth(count - STDERR_SHOWN)
        .map_or(0, |(i, _)| i);
    format!("…{}", &text[start..])
}
