//! The qwen profile's configuration — Qwen Code (spec 002): settings.json keys such as defaultFileEncoding and custom ignore files.

use std::path::Path;

use super::ConfigError;

/// The qwen configuration.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QwenConfig {}

impl QwenConfig {
    /// Reads and validates the configuration file at `path`.
    pub fn load(path: &Path) -> Result<QwenConfig, ConfigError> {
        let _ = path;
        Ok(QwenConfig::default())
    }
}
