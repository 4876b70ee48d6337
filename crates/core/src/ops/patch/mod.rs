//! Patch formats agents emit, parsed and applied by one engine: unified diffs (whose line
//! numbers are ignored) and V4A patches.

pub mod unified;
pub mod v4a;
