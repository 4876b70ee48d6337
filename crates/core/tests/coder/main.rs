//! coder's functions: reads, search, files, listings, trees and the jail.
//!
//! One test binary, one module per area (the modules keep the names the tests had as files).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

#[path = "../coder_support/mod.rs"]
mod coder_support;

mod coder_files;
mod coder_jail;
mod coder_list;
mod coder_read;
mod coder_search;
mod coder_tree;
