//! The picoclaw profile — PicoClaw (spec 003): its JSON configuration and the PICOCLAW_TOOLS_<TOOL>_ENABLED environment switches.

use serde_json::Value;

use super::{CallContext, Surface, ToolDef, ToolOutput};
use crate::access::Access;
use crate::config::picoclaw::PicoclawConfig;

/// The picoclaw surface.
#[derive(Debug)]
pub struct Picoclaw {
    config: PicoclawConfig,
}

impl Picoclaw {
    /// The surface for `config`.
    pub fn new(config: PicoclawConfig) -> Self {
        Picoclaw { config }
    }
}

impl Surface for Picoclaw {
    fn tools(&self) -> Vec<ToolDef> {
        let _ = &self.config;
        Vec::new()
    }

    fn call(
        &self,
        _access: &Access,
        _name: &str,
        _args: Value,
        _ctx: &CallContext,
    ) -> Option<ToolOutput> {
        None
    }

    fn prompt(&self) -> String {
        String::new()
    }
}
