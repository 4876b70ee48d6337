//! The real `fsgate` binary under hostile conditions: killed mid-write, other users' files,
//! unreadable folders.
//!
//! One test binary, one module per area (the modules keep the names the tests had as files).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

mod as_user;
mod crash;
mod other_users_files;
mod unreadable_folders;
