//! The sgpt profile's configuration — sgpt (spec 004): lore libraries, the shell's timeout and output cap, the sub-agent command.

use std::path::Path;

use super::ConfigError;

/// The sgpt configuration.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SgptConfig {}

impl SgptConfig {
    /// Reads and validates the configuration file at `path`.
    pub fn load(path: &Path) -> Result<SgptConfig, ConfigError> {
        let _ = path;
        Ok(SgptConfig::default())
    }
}
