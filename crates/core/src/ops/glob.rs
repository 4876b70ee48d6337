//! Finding files by glob pattern under a directory.
