//! The sgpt profile — sgpt (spec 004): lore libraries, the shell's timeout and output cap, the sub-agent command.

use serde_json::Value;

use super::{CallContext, Surface, ToolDef, ToolOutput};
use crate::access::Access;
use crate::config::sgpt::SgptConfig;

/// The sgpt surface.
#[derive(Debug)]
pub struct Sgpt {
    config: SgptConfig,
}

impl Sgpt {
    /// The surface for `config`.
    pub fn new(config: SgptConfig) -> Self {
        Sgpt { config }
    }
}

impl Surface for Sgpt {
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
