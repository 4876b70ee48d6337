//! Patch formats agents emit, parsed and applied by one engine: unified diffs (whose line
//! numbers are ignored) today.

pub mod unified;
