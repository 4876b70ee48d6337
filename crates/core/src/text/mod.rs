//! Text helpers shared by the operations: line arithmetic over raw bytes and the edit matcher.

pub mod encoding;
pub mod lines;
pub mod matcher;
pub mod redact;
