//! An advisory, best-effort syntax check of written files.
