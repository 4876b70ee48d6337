//! qwen's tools: edit, encodings, notebooks and the seven tools' texts.
//!
//! One test binary, one module per area (the modules keep the names the tests had as files).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

#[path = "../qwen_support/mod.rs"]
mod qwen_support;

mod qwen_edit;
mod qwen_encodings;
mod qwen_notebooks;
mod qwen_tools;
