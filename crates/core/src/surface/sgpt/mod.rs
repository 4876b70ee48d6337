//! The sgpt profile: `read_files`, `diff`, `replace`, `exec_shell`, `search_lores`
//! and `agent`, over the jail.
//!
//! Results are JSON, given as structured content and as the same JSON in a text block. A call
//! that fails as a whole is an error result whose text is `kind: message`; `read_files` reports
//! a failed path inside its entry; a shell command or sub-agent that ran but failed is an error
//! result that still carries its JSON (output, exit code, error). sgpt's auto tools
//! (`read_files`, `search_lores`) are marked read-only, its review tools destructive, so MCP
//! clients ask their users before running them.

mod agent;
mod diff;
mod input;
mod lore;
mod output;
mod read;
mod replace;
mod shell;
mod tools;

use serde_json::Value;

use super::{CallContext, Surface, ToolDef, ToolOutput};
use crate::access::Access;
use crate::config::sgpt::SgptConfig;
use crate::error::{ErrorKind, NextWords, Result, ToolError};

/// sgpt's words for the next step an engine error recommends (it lists folders through its
/// shell).
const NEXT: NextWords = NextWords {
    check_path: "check the path (exec_shell: ls)",
    see_entries: "list it with exec_shell (ls) and read its files",
};

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

/// What a handler sees.
pub(crate) struct Ctx<'a> {
    pub access: &'a Access,
    pub config: &'a SgptConfig,
    pub call: &'a CallContext,
}

/// A handler's answer: its JSON, and whether the call failed (a command that ran and failed).
pub(crate) struct Answer {
    pub value: Value,
    pub failed: bool,
}

impl Answer {
    fn ok(value: Value) -> Result<Answer> {
        Ok(Answer {
            value,
            failed: false,
        })
    }
}

impl Surface for Sgpt {
    fn tools(&self) -> Vec<ToolDef> {
        tools::TOOLS
            .iter()
            // A tool that cannot work is not offered: search_lores needs a lore library,
            // agent a sub-agent command.
            .filter(|t| match t.name {
                "agent" => self.config.agent.is_some(),
                "search_lores" => !self.config.lore_libraries.is_empty(),
                _ => true,
            })
            .map(|t| ToolDef {
                name: t.name,
                description: (t.description)(&self.config),
                input_schema: (t.input)(),
                output_schema: Some((t.output)()),
                read_only: t.read_only,
                destructive: !t.read_only,
            })
            .collect()
    }

    fn call(
        &self,
        access: &Access,
        name: &str,
        args: Value,
        ctx: &CallContext,
    ) -> Option<ToolOutput> {
        tools::TOOLS.iter().find(|t| t.name == name)?;
        let ctx = Ctx {
            access,
            config: &self.config,
            call: ctx,
        };
        let result = match name {
            "read_files" => read::call(&ctx, args),
            "diff" => diff::call(&ctx, args),
            "replace" => replace::call(&ctx, args),
            "exec_shell" => shell::call(&ctx, args),
            "search_lores" => lore::call(&ctx, args),
            "agent" => agent::call(&ctx, args),
            _ => Err(ToolError::new(
                ErrorKind::InvalidArgument,
                format!("{name} is not an sgpt tool"),
            )),
        };
        Some(match result {
            Ok(answer) => ToolOutput::json(answer.value, answer.failed),
            Err(err) => ToolOutput::error(&err.worded(&NEXT)),
        })
    }

    fn file_argument(&self, name: &str) -> Option<&'static str> {
        matches!(name, "replace" | "diff").then_some("path")
    }

    fn prompt(&self) -> String {
        let mut text = String::from(
            "# Tools (sgpt)\n\nPaths are relative to the workspace root (or absolute inside it); \
             results are JSON.\n\
             - read_files {paths}: read several files at once; each entry has content or its \
             own error.\n\
             - diff {path, diff}: edit a file with a unified diff. @@ line numbers are ignored; \
             each hunk is placed by its context and removed lines, which must match the file \
             exactly and occur once (add context lines when they do not). Hunks apply in order.\n\
             - replace {path, patches}: exact search/replace patches applied in order; search \
             must occur once unless replace_all.\n\
             - exec_shell {command, working_directory?}: run a command with sh -c; ",
        );
        text.push_str(&format!(
            "it is killed after {} and output over {} characters is saved to a file whose path \
             comes back with the head and tail.\n",
            output::duration_text(self.config.shell_timeout),
            self.config.output_cap_chars
        ));
        if !self.config.lore_libraries.is_empty() {
            text.push_str(
                "- search_lores {query, top_n?}: search the lore libraries (team knowledge in \
                 Markdown) with a case-insensitive regex; read a hit's path for the full text.\n",
            );
        }
        if self.config.agent.is_some() {
            text.push_str(
                "- agent {query, title?, files?, tools?, model?}: hand a self-contained task to \
                 a sub-agent, which shares nothing with you: put all context in query and \
                 files.\n",
            );
        }
        text.push_str(
            "Edits (diff, replace) either apply whole or write nothing; on an error, fix the \
             named hunk or patch and send the call again.\n",
        );
        text
    }
}
