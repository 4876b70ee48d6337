//! picoclaw's tools: configuration, reads, writes, edits, grants, redaction, secrets and search.
//!
//! One test binary, one module per area (the modules keep the names the tests had as files).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

#[path = "../picoclaw_support/mod.rs"]
mod picoclaw_support;

mod picoclaw_config;
mod picoclaw_edit;
mod picoclaw_grants;
mod picoclaw_read;
mod picoclaw_redact;
mod picoclaw_search;
mod picoclaw_secrets;
mod picoclaw_write;
