//! Unified diffs whose hunk line numbers are ignored: parsing and applying.
