//! The `fsgate` binary: parse the command line, run it, map the outcome to an exit code
//! (0 ok, 1 tool error, 2 usage or configuration error).

mod cli;
mod console;
mod run;
mod watch;

use std::process::ExitCode;

use clap::Parser;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

/// What is logged when FSGATE_LOG is unset: warnings, and only errors from the MCP library.
const DEFAULT_LOG: &str = "warn,rmcp=error";

/// The log filter FSGATE_LOG gives (a level, or `target=level` pairs joined by commas, e.g.
/// `info` or `fsgate_mcp=debug,warn`), and the problem with it when it is not one: then the
/// default applies. A plain target filter is parsed without compiling any pattern, which keeps
/// the server's start small.
fn log_filter(given: Option<&str>) -> (Targets, Option<String>) {
    let default = || DEFAULT_LOG.parse::<Targets>().unwrap_or_default();
    match given.map(str::trim).filter(|g| !g.is_empty()) {
        None => (default(), None),
        Some(given) => match given.parse::<Targets>() {
            Ok(filter) => (filter, None),
            Err(e) => (
                default(),
                Some(format!(
                    "FSGATE_LOG={given:?} is not a log filter ({e}); give a level such as \
                     FSGATE_LOG=info, or target=level pairs such as FSGATE_LOG=fsgate_mcp=debug,warn; \
                     logging at the default ({DEFAULT_LOG})"
                )),
            ),
        },
    }
}

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    // Logs go to stderr: stdout carries the MCP protocol.
    let (filter, bad_filter) = log_filter(std::env::var("FSGATE_LOG").ok().as_deref());
    let logs = tracing_subscriber::fmt().with_writer(std::io::stderr);
    match cli.log_format {
        cli::LogFormat::Text => logs.finish().with(filter).init(),
        cli::LogFormat::Json => logs.json().finish().with(filter).init(),
    }
    if let Some(problem) = bad_filter {
        tracing::warn!("{problem}");
    }
    let ran = run::run(cli);
    // A clean exit: no temp file of this process can be left, so its journal goes.
    fsgate_core::access::pending::finish();
    match ran {
        Ok(outcome) => outcome.exit_code(),
        Err(e) => {
            eprintln!("fsgate: {e:#}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::log_filter;
    use tracing::Level;
    use tracing_subscriber::filter::LevelFilter;

    #[test]
    fn the_log_filter_takes_levels_and_target_pairs_and_names_a_bad_one() {
        let (filter, problem) = log_filter(None);
        assert!(problem.is_none());
        assert!(filter.would_enable("fsgate_mcp", &Level::WARN));
        assert!(!filter.would_enable("fsgate_mcp", &Level::INFO));
        assert!(!filter.would_enable("rmcp::service", &Level::WARN));

        let (filter, problem) = log_filter(Some("info"));
        assert!(problem.is_none());
        assert!(filter.would_enable("fsgate_mcp", &Level::INFO));

        let (filter, _) = log_filter(Some("fsgate_mcp=debug,warn"));
        assert!(filter.would_enable("fsgate_mcp", &Level::DEBUG));
        assert!(!filter.would_enable("fsgate_core", &Level::INFO));

        let (filter, problem) = log_filter(Some("fsgate=loud"));
        let problem = problem.expect("a bad filter is named");
        assert!(problem.contains("fsgate=loud") && problem.contains("FSGATE_LOG=info"));
        assert_eq!(filter.default_level(), Some(LevelFilter::WARN));
    }
}
