//! The qwen profile — Qwen Code (spec 002): settings.json keys such as defaultFileEncoding and custom ignore files.

use serde_json::Value;

use super::{CallContext, Surface, ToolDef, ToolOutput};
use crate::access::Access;
use crate::config::qwen::QwenConfig;

/// The qwen surface.
#[derive(Debug)]
pub struct Qwen {
    config: QwenConfig,
}

impl Qwen {
    /// The surface for `config`.
    pub fn new(config: QwenConfig) -> Self {
        Qwen { config }
    }
}

impl Surface for Qwen {
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
