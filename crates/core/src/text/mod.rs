//! Text helpers shared by the operations: line arithmetic over raw bytes, the edit matcher, and
//! credential redaction with the mapping of redacted text back to the raw bytes, and the escaped
//! form names and paths are shown in.

pub mod encoding;
pub mod lines;
pub mod matcher;
pub mod names;
pub mod redact;
pub mod restore;
