//! The gg profile: read_file, write_file, edit_file, list_dir, tree and search, their
//! exact texts, and the switches of its configuration (capabilities, read mode and lineCap,
//! agent allowlists, vision).

mod code;
mod list;
mod prompt;
mod read;
mod search;
mod tools;
mod tree;
mod words;
mod writes;

use serde_json::Value;

use super::args::Args;
use super::{CallContext, Surface, ToolDef, ToolOutput};
use crate::access::{Access, Resolved};
use crate::config::gg::{Arm, Capability, CodeLimits, GgConfig, ReadMode, all_tools};
use crate::error::{ErrorKind, Result, ToolError};
use crate::ops;
use crate::vision::VisionSwitch;

/// The deepest tree a call is answered with.
pub const MAX_TREE_DEPTH: u64 = 10;
/// The tree depth of a call that names none.
pub const DEFAULT_TREE_DEPTH: u64 = 2;
/// The matches of a search that names no limit.
pub const DEFAULT_SEARCH_LIMIT: u64 = 50;
/// The most matches a search returns.
pub const MAX_SEARCH_LIMIT: u64 = 200;

/// The gg surface under one configuration.
#[derive(Clone, Debug)]
pub struct Gg {
    read_mode: ReadMode,
    line_cap: u64,
    count_budget: ops::read::CountBudget,
    vision: bool,
    /// Whether a harness has found the model unable to take images, server-wide.
    switch: VisionSwitch,
    /// The bounds an attached image is brought within.
    images: ops::image::ImageLimits,
    /// Tool calling, or one run_code tool.
    arm: Arm,
    /// The bounds of run_code's programs and views.
    code: CodeLimits,
    /// The tools offered, in the profile's order.
    active: Vec<&'static str>,
    /// The agent the tools are restricted to, and its allowlist.
    agent: Option<(String, Vec<String>)>,
}

/// Why a gg surface could not be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SurfaceError(pub String);

impl Gg {
    /// The surface for `config`, restricted to `agent`'s allowlist when given; `vision_off`
    /// overrides the configuration's vision setting.
    pub fn new(
        config: &GgConfig,
        agent: Option<&str>,
        vision_off: bool,
    ) -> Result<Gg, SurfaceError> {
        let allow = match agent {
            None => None,
            Some(name) => match config.agents.get(name) {
                Some(allow) => Some(allow),
                None => {
                    let known: Vec<&str> = config.agents.keys().map(String::as_str).collect();
                    return Err(SurfaceError(format!(
                        "agent {name:?} is not in the configuration; {}",
                        if known.is_empty() {
                            "it defines no agents (add [agents.NAME] with allow = [...])"
                                .to_string()
                        } else {
                            format!("its agents are {}", known.join(", "))
                        }
                    )));
                }
            },
        };
        let active = Capability::ALL
            .into_iter()
            .filter(|c| config.enabled.contains(c))
            .flat_map(|c| c.tools().iter().copied())
            .filter(|t| allow.is_none_or(|a| a.iter().any(|x| x == t)))
            .collect();
        Ok(Gg {
            read_mode: config.read_mode,
            line_cap: config.line_cap,
            count_budget: config.count_budget,
            vision: config.vision && !vision_off,
            switch: VisionSwitch::new(),
            images: ops::image::ImageLimits::default(),
            arm: config.arm,
            code: config.code,
            active,
            agent: agent
                .zip(allow)
                .map(|(name, allow)| (name.to_string(), allow.clone())),
        })
    }

    /// Whether `tool` is offered.
    pub fn offers(&self, tool: &str) -> bool {
        self.active.contains(&tool)
    }

    /// Whether images are attached: the configuration allows it and the model has not been
    /// found unable to take them since (see [`crate::vision`]).
    pub fn sees_images(&self) -> bool {
        self.vision && self.switch.is_on()
    }

    /// The arm this surface serves.
    pub fn arm(&self) -> Arm {
        self.arm
    }

    /// The surface serving `arm` instead of the configuration's.
    pub fn with_arm(mut self, arm: Arm) -> Self {
        self.arm = arm;
        self
    }

    /// The surface reading whether the model can see images from `switch` too.
    pub fn with_vision_switch(mut self, switch: VisionSwitch) -> Self {
        self.switch = switch;
        self
    }

    /// The surface bringing attached images within `limits` instead of the defaults.
    pub fn with_image_limits(mut self, limits: ops::image::ImageLimits) -> Self {
        self.images = limits;
        self
    }

    /// `outcome` with its image, if it is one to attach, brought within the image limits
    /// (what read_file and a view attach; gg.files.readFile describes and needs no pixels).
    fn attachable(&self, outcome: ops::read::ReadOutcome) -> ops::read::ReadOutcome {
        match outcome {
            ops::read::ReadOutcome::Image(image) => {
                ops::read::ReadOutcome::Image(image.fit(&self.images))
            }
            other => other,
        }
    }

    /// The refusal of a call to `tool`, which this configuration does not offer.
    fn denied(&self, tool: &str) -> ToolError {
        let offered = if self.active.is_empty() {
            "none".to_string()
        } else {
            self.active.join(", ")
        };
        self.denial(tool, tool, &format!("the tools offered are {offered}"))
    }

    /// The refusal of `subject` (a tool, or the code arm's function standing for `tool`),
    /// ending with `offered`.
    fn denial(&self, tool: &str, subject: &str, offered: &str) -> ToolError {
        // An agent's allowlist that leaves the tool out is named, with the agent; else the
        // tool's capability is off.
        let message = match &self.agent {
            Some((agent, allow)) if !allow.iter().any(|a| a == tool) => format!(
                "{subject} is not on the allowlist of agent {agent:?} ([agents.{agent}] allow = \
                 [{}]), so this agent cannot call it; {offered}",
                allow
                    .iter()
                    .map(|a| format!("{a:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            _ => format!("{subject} is not enabled in this configuration; {offered}"),
        };
        ToolError::new(ErrorKind::Denied, message)
    }

    /// read_file's window: the resolved target, what the read found, and the options it ran
    /// with (the footer needs them).
    fn read(
        &self,
        access: &Access,
        args: &Args,
        ctx: &CallContext,
    ) -> Result<(Resolved, ops::read::ReadOutcome, ops::read::ReadOptions)> {
        let target = access.resolve(args.str("path")?)?;
        let options = ops::read::ReadOptions {
            offset: args.opt_uint("offset")?.unwrap_or(1),
            limit: match (args.opt_uint("limit")?, self.read_mode) {
                (Some(limit), _) => Some(limit),
                (None, ReadMode::DefaultCap) => Some(self.line_cap),
                (None, ReadMode::Unlimited) => None,
            },
            attach_images: self.sees_images(),
            count_budget: self.count_budget,
            ..Default::default()
        };
        let outcome = crate::session::reading_witnessed(ctx, access, &target, |witness| {
            ops::read::read_witnessed(access, &target, &options, ctx, witness).map_err(words::read)
        })?;
        Ok((target, outcome, options))
    }

    /// write_file: the summary of the write.
    fn write(&self, access: &Access, args: &Args, ctx: &CallContext) -> Result<String> {
        let target = access.resolve(args.str("path")?)?;
        let content = args.str("content")?;
        let report =
            ops::write::write(access, &target, content, ctx.session()).map_err(words::write)?;
        Ok(writes::write_summary(
            &access.written_name(&target),
            &report,
        ))
    }

    /// edit_file: the summary of the edit.
    fn edit(&self, access: &Access, args: &Args, ctx: &CallContext) -> Result<String> {
        let target = access.resolve(args.str("path")?)?;
        let report = ops::edit::edit(
            access,
            &target,
            args.str("old_string")?,
            args.str("new_string")?,
        )
        .map_err(words::edit)?;
        if let Some(session) = ctx.session() {
            let file = crate::session::FileRef::new(access, &target);
            session.wrote(&file, crate::session::Base::Unknown, None);
        }
        Ok(writes::edit_summary(&access.written_name(&target), &report))
    }

    /// list_dir: the entries of the folder.
    fn list(&self, access: &Access, args: &Args) -> Result<Vec<ops::list::Entry>> {
        let target = access.resolve_or_root(args.opt_str("path")?)?;
        ops::list::list(access, &target).map_err(|e| words::folder(e, "list_dir"))
    }

    /// tree: its text, and the nodes the text shows.
    fn tree(
        &self,
        access: &Access,
        args: &Args,
        ctx: &CallContext,
    ) -> Result<(String, Vec<ops::tree::Node>)> {
        let depth = match args.opt_uint("depth")? {
            None => DEFAULT_TREE_DEPTH,
            Some(0) => {
                return Err(ToolError::invalid(
                    "depth 0 shows nothing; depth counts levels below the root, so pass 1 for \
                     the root's own entries, or leave it out for 2",
                ));
            }
            Some(d) => d.min(MAX_TREE_DEPTH),
        };
        let target = access.resolve_or_root(args.opt_str("path")?)?;
        let outcome = ops::tree::tree(access, &target, depth as usize, ctx)
            .map_err(|e| words::folder(e, "tree"))?;
        let shown = tree::render_nodes(&target.shown, outcome);
        if ctx.is_cancelled() {
            return Err(ToolError::new(
                ErrorKind::Cancelled,
                format!(
                    "the tree of {} was cancelled by the caller before it was complete; \
                     nothing is returned",
                    target.shown
                ),
            ));
        }
        Ok(shown)
    }

    /// search: the matches, and the limit they were cut at.
    fn search(
        &self,
        access: &Access,
        args: &Args,
        ctx: &CallContext,
    ) -> Result<(ops::scan::sinks::lines::SearchOutcome, usize)> {
        let query = args.str("query")?;
        let limit = match args.opt_uint("limit")? {
            None => DEFAULT_SEARCH_LIMIT,
            Some(0) => {
                return Err(ToolError::invalid(format!(
                    "limit 0 asks for no matches; pass 1 to {MAX_SEARCH_LIMIT}, or leave it out \
                     for {DEFAULT_SEARCH_LIMIT}"
                )));
            }
            Some(n) => n.min(MAX_SEARCH_LIMIT),
        };
        let target = access.resolve_or_root(args.opt_str("path")?)?;
        let options = ops::scan::sinks::lines::SearchOptions {
            limit: limit as usize,
            ..Default::default()
        };
        let outcome = ops::scan::sinks::lines::search(access, &target, query, &options, ctx)?;
        Ok((outcome, limit as usize))
    }

    fn dispatch(
        &self,
        access: &Access,
        tool: &'static str,
        args: Value,
        ctx: &CallContext,
    ) -> Result<ToolOutput> {
        match tool {
            "read_file" => {
                let args = Args::parse(tool, args, &["path", "offset", "limit"])?;
                let (target, outcome, options) = self.read(access, &args, ctx)?;
                let outcome = self.attachable(outcome);
                Ok(read::render(
                    &target.shown,
                    outcome,
                    &options,
                    self.code.image_rule,
                ))
            }
            "write_file" => {
                let args = Args::parse(tool, args, &["path", "content"])?;
                Ok(ToolOutput::text(self.write(access, &args, ctx)?))
            }
            "edit_file" => {
                let args = Args::parse(tool, args, &["path", "old_string", "new_string"])?;
                Ok(ToolOutput::text(self.edit(access, &args, ctx)?))
            }
            "list_dir" => {
                let args = Args::parse(tool, args, &["path"])?;
                Ok(ToolOutput::text(list::render(&self.list(access, &args)?)))
            }
            "tree" => {
                let args = Args::parse(tool, args, &["path", "depth"])?;
                Ok(ToolOutput::text(self.tree(access, &args, ctx)?.0))
            }
            "search" => {
                let args = Args::parse(tool, args, &["query", "path", "limit"])?;
                let (outcome, _) = self.search(access, &args, ctx)?;
                Ok(ToolOutput::text(search::render(
                    args.str("query")?,
                    args.opt_str("path")?,
                    outcome,
                )))
            }
            _ => Err(ToolError::invalid(format!("{tool} is not a gg tool"))),
        }
    }
}

impl Surface for Gg {
    fn tools(&self) -> Vec<ToolDef> {
        if self.arm == Arm::Code {
            return code::tools(self);
        }
        self.active
            .iter()
            .map(|&name| ToolDef {
                name,
                description: tools::description(self, name),
                input_schema: tools::schema(self, name),
                output_schema: None,
                read_only: !matches!(name, "write_file" | "edit_file"),
                destructive: matches!(name, "write_file" | "edit_file"),
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
        if self.arm == Arm::Code {
            // The one tool of the code arm; the six are its functions, not tools.
            return (name == code::TOOL && !self.active.is_empty())
                .then(|| code::call(self, access, args, ctx));
        }
        let tool = all_tools().find(|t| *t == name)?;
        if !self.offers(tool) {
            return Some(ToolOutput::error(&self.denied(tool)));
        }
        Some(match self.dispatch(access, tool, args, ctx) {
            Ok(output) => output,
            Err(err) => ToolOutput::error(&err.worded(&words::NEXT)),
        })
    }

    fn file_argument(&self, name: &str) -> Option<&'static str> {
        if self.arm == Arm::Code {
            return None;
        }
        matches!(name, "read_file" | "write_file" | "edit_file").then_some("path")
    }

    fn prompt(&self) -> String {
        match self.arm {
            Arm::Tools => prompt::render(self),
            Arm::Code => code::prompt(self),
        }
    }

    fn opening(&self, access: &Access) -> Option<String> {
        (self.arm == Arm::Code).then(|| code::opening(self, access))
    }
}
