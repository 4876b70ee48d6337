//! exec_shell: a command under `sh -c` in the workspace, with the timeout, the process-group
//! kill, cancellation and the output cap of [`crate::ops::shell`].

use serde_json::{Map, Value, json};

use super::input::Input;
use super::output::{self, duration_text};
use super::{Answer, Ctx};
use crate::error::{Result, ToolError};
use crate::ops::shell::{self, End, Job, Outcome, Program};

pub(super) fn call(ctx: &Ctx<'_>, args: Value) -> Result<Answer> {
    let input = Input::parse("exec_shell", args, &["command", "working_directory"])?;
    let command = input.text("command")?;
    let cwd = match input.args.opt_str("working_directory")? {
        Some(raw) if !raw.trim().is_empty() => directory(ctx, raw)?,
        _ => ctx.access.root().to_path_buf(),
    };
    let job = Job {
        command: Program::shell(&command).current_dir(&cwd),
        stdin: None,
        combine: true,
        timeout: ctx.config.shell_timeout,
        keep: ctx.config.output_cap_chars.saturating_mul(4),
        spool_limit: ctx.config.max_artifact_bytes,
    };
    let started = std::time::Instant::now();
    let limit = ctx.config.shell_timeout.as_secs();
    // Asked often while the command runs: a progress report each second, and the cancel flag.
    let poll = || {
        let secs = started.elapsed().as_secs();
        if secs > 0 {
            ctx.call.progress(secs, Some(limit), || {
                format!("the command has run {secs} s (timeout {limit} s)")
            });
        }
        ctx.call.is_cancelled()
    };
    let outcome = match shell::run(job, &poll) {
        Ok(outcome) => outcome,
        Err(e) => {
            return Ok(Answer {
                value: json!({
                    "exit_code": null,
                    "output": "",
                    "error": format!(
                        "the command could not be started: sh -c in {}: {e}; check that sh is \
                         installed and the working directory exists",
                        cwd.display()
                    ),
                }),
                failed: true,
            });
        }
    };
    Ok(answer(ctx, outcome))
}

fn answer(ctx: &Ctx<'_>, mut outcome: Outcome) -> Answer {
    let shown = output::show(ctx, &mut outcome.stdout, "exec");
    let mut value = Map::new();
    let exit_code = match outcome.end {
        End::Exited(code) => json!(code),
        _ => Value::Null,
    };
    value.insert("exit_code".into(), exit_code);
    value.insert("output".into(), Value::String(shown.text));
    let linger = if outcome.lingering {
        " A background process it started still holds the output open; its further output is \
         not shown (redirect a background job's output to a file: cmd > log 2>&1 &)."
    } else {
        ""
    };
    let error = match outcome.end {
        End::Exited(0) => None,
        End::Exited(code) => Some(format!("the command exited with code {code}")),
        End::Signalled(signal) => Some(format!(
            "the command was killed by signal {signal} ({})",
            signal_name(signal)
        )),
        End::TimedOut => Some(format!(
            "the command timed out after {} (exec_shell.timeout_secs) and was killed with \
             every process it started; the output up to then is shown. Run long jobs in the \
             background with their output in a file (cmd > log 2>&1 &), or make the command \
             faster",
            duration_text(ctx.config.shell_timeout)
        )),
        End::Cancelled => Some(
            "the call was cancelled; the command was killed with every process it started"
                .to_string(),
        ),
    };
    let failed = error.is_some();
    if let Some(error) = error {
        value.insert("error".into(), Value::String(format!("{error}.{linger}")));
    } else if !linger.is_empty() {
        value.insert("note".into(), Value::String(linger.trim().to_string()));
    }
    if let Some(path) = shown.output_file {
        value.insert("output_file".into(), Value::String(path));
    }
    Answer {
        value: Value::Object(value),
        failed,
    }
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        6 => "SIGABRT",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        _ => "a signal",
    }
}

/// The working directory `raw`: an existing directory inside the jail.
fn directory(ctx: &Ctx<'_>, raw: &str) -> Result<std::path::PathBuf> {
    let target = ctx.access.resolve(raw)?;
    match ctx.access.metadata(&target) {
        Ok(meta) if meta.is_dir => Ok(target.path),
        Ok(_) => Err(ToolError::invalid(format!(
            "working_directory {raw} is a file, not a directory; pass a directory inside the \
             workspace, or leave working_directory out to run in the workspace root"
        ))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(ToolError::not_found(format!(
            "working_directory {raw} does not exist; pass an existing directory inside the \
             workspace (create it first with exec_shell: mkdir -p {raw}), or leave \
             working_directory out to run in the workspace root"
        ))),
        Err(e) => Err(ToolError::from_io(&e, "run a command in", raw)),
    }
}
