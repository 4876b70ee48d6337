//! The `fsgate` binary: parse the command line, run it, map the outcome to an exit code
//! (0 ok, 1 tool error, 2 usage or configuration error).

mod cli;
mod console;
mod run;
mod watch;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    // Logs go to stderr: stdout carries the MCP protocol.
    let filter = tracing_subscriber::EnvFilter::try_from_env("FSGATE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,rmcp=error"));
    let logs = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter);
    match cli.log_format {
        cli::LogFormat::Text => logs.init(),
        cli::LogFormat::Json => logs.json().init(),
    }
    match run::run(cli) {
        Ok(outcome) => outcome.exit_code(),
        Err(e) => {
            eprintln!("fsgate: {e:#}");
            ExitCode::from(2)
        }
    }
}
