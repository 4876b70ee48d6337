//! sgpt's tools: read_files, diff, replace, exec_shell, search_lores and agent.
//!
//! One test binary, one module per area (the modules keep the names the tests had as files).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

#[path = "../sgpt_support/mod.rs"]
mod sgpt_support;

mod sgpt_agent;
mod sgpt_diff;
mod sgpt_lore;
mod sgpt_read;
mod sgpt_replace;
mod sgpt_shell;
mod sgpt_tools;
