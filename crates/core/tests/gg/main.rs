//! gg's tools: reads, writes and edits, listings and trees, search, paths and errors, images,
//! configuration.
//!
//! One test binary, one module per area (the modules keep the names the tests had as files).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

#[path = "../gg_support/mod.rs"]
mod gg_support;

mod code_arm;
mod gg_config;
mod gg_images;
mod gg_list_tree;
mod gg_paths_errors;
mod gg_read;
mod gg_read_count;
mod gg_search;
mod gg_write_edit;
mod image_attachments;
mod image_limits;
