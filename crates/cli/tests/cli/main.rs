//! The real `fsgate` binary: its commands, MCP over stdio, configuration and reloads, the
//! console, message limits, line-count budgets, sessions, and the searches compared with a
//! baseline build.
//!
//! One test binary, one module per area (the modules keep the names the tests had as files).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

mod check_config;
mod cli;
mod code_arm;
mod coder_reload;
mod console;
mod count_budget;
mod mcp_stdio;
mod message_limits;
mod scan_differential;
mod stale_sessions;
