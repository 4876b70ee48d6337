//! The native profile: read_file, edit, apply_patch, write_file, search, glob, tree, list_dir,
//! move, delete, undo and info, driven as a model drives them (following the texts' own next
//! calls: versions, cursors, continuation lines).
//!
//! One test binary, one module per area.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

mod support;

mod native_edit;
mod native_files;
mod native_patch;
mod native_read;
mod native_scenarios;
mod native_syntax;
mod native_undo;
