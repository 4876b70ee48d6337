//! The adversarial suite (issue 9): escapes, secrets, atomicity, resources, bad input and
//! strict paths (issue 16),
//! driven through the public `Workspace` API for every profile. See each module.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

mod support;

mod escapes;

mod resources;

mod atomicity;

mod bad_input;

mod secrets;

mod paths;

// The suites of concurrent writers, stale writes, secret globs, odd names, walks that skip, quick
// calls, artifact folders and following fsgate's own texts.
mod artifact_folders;
mod coder_concurrent_updates;
#[path = "../coder_support/mod.rs"]
mod coder_support;
mod concurrent_edits;
mod follow_the_text;
mod listed_walk;
mod missing_then_dotdot;
mod names_and_paths;
mod next_steps;
#[path = "../picoclaw_support/mod.rs"]
mod picoclaw_support;
mod portable_paths;
mod quick_calls;
// Found by the jail fuzzer (tests/jailfuzz).
mod racing_deletes;
mod racing_fifos;
mod racing_final_links;
mod racing_walk_names;
mod secret_globs;
#[path = "../sgpt_support/mod.rs"]
mod sgpt_support;
mod stale_writes;
mod walk_skips;
