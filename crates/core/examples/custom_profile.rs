//! A custom profile: a tool surface of your own over fsgate's engine and access layer.
//!
//! `Scout` offers two read-only tools under its own names and texts — `ls` (one folder's
//! entries) and `peek` (the first lines of a file) — built on the engine's typed operations
//! (`ops::list`, `ops::read`), with paths resolved and files opened by the access layer, so the
//! ignore rules, jail and streaming limits of the built-in profiles apply unchanged. A surface
//! never touches the disk itself. The engine's refusals come back typed (`FolderError`,
//! `ReadError`) and the surface words them in its own terms, naming its own tools.
//!
//! `Workspace::with_surface` wraps the surface in a workspace, which is called (and listed)
//! like a built-in profile; `fsgate_mcp::serve_stdio(Arc::new(workspace))` would serve it over
//! MCP unchanged.
//!
//! ```sh
//! cargo run -p fsgate-core --example custom_profile
//! ```

use fsgate_core::access::Access;
use fsgate_core::error::Result;
use fsgate_core::ops::list::{self, FolderError, Kind};
use fsgate_core::ops::read::{self, ReadError, ReadOptions, ReadOutcome};
use fsgate_core::surface::args::Args;
use fsgate_core::{CallContext, Options, Surface, ToolDef, ToolError, ToolOutput, Workspace};
use serde_json::{Value, json};

/// How many lines `peek` shows when the call does not say.
const PEEK_LINES: u64 = 5;

/// A read-only scouting profile: `ls` and `peek`.
struct Scout;

impl Surface for Scout {
    fn tools(&self) -> Vec<ToolDef> {
        vec![
            ToolDef {
                name: "ls",
                description: "List one folder: one entry a line, folders ending in /.".into(),
                input_schema: json!({
                    "type": "object",
                    "properties": {
                        "path": {"type": "string", "description": "The folder; by default the workspace."}
                    },
                    "additionalProperties": false
                }),
                output_schema: None,
                read_only: true,
                destructive: false,
            },
            ToolDef {
                name: "peek",
                description: format!(
                    "Show the first lines of a text file ({PEEK_LINES} unless lines says)."
                ),
                input_schema: json!({
                    "type": "object",
                    "properties": {
                        "path": {"type": "string", "description": "The file."},
                        "lines": {"type": "integer", "minimum": 1, "description": "How many lines."}
                    },
                    "required": ["path"],
                    "additionalProperties": false
                }),
                output_schema: None,
                read_only: true,
                destructive: false,
            },
        ]
    }

    fn call(
        &self,
        access: &Access,
        name: &str,
        args: Value,
        ctx: &CallContext,
    ) -> Option<ToolOutput> {
        let result = match name {
            "ls" => ls(access, args),
            "peek" => peek(access, args, ctx),
            // Not a tool of this profile at all: the caller reports it as unknown.
            _ => return None,
        };
        Some(result.unwrap_or_else(|err| ToolOutput::error(&err)))
    }

    fn prompt(&self) -> String {
        "Use ls to see a folder and peek to glance at a file; nothing here can change files.".into()
    }
}

fn ls(access: &Access, args: Value) -> Result<ToolOutput> {
    let args = Args::parse("ls", args, &["path"])?;
    let folder = access.resolve_or_root(args.opt_str("path")?)?;
    let entries = list::list(access, &folder).map_err(folder_error)?;
    if entries.is_empty() {
        return Ok(ToolOutput::text(format!("{} is empty", folder.shown)));
    }
    let lines: Vec<String> = entries
        .into_iter()
        .map(|entry| match entry.kind {
            Kind::Dir => format!("{}/", entry.name),
            Kind::Symlink(target) => format!("{} -> {target}", entry.name),
            Kind::File | Kind::Other => entry.name,
        })
        .collect();
    Ok(ToolOutput::text(lines.join("\n")))
}

fn peek(access: &Access, args: Value, ctx: &CallContext) -> Result<ToolOutput> {
    let args = Args::parse("peek", args, &["path", "lines"])?;
    let file = access.resolve(args.str("path")?)?;
    let lines = args.opt_uint("lines")?.unwrap_or(PEEK_LINES);
    if lines == 0 {
        return Err(ToolError::invalid("lines must be 1 or more"));
    }
    let options = ReadOptions {
        limit: Some(lines),
        attach_images: false,
        ..ReadOptions::default()
    };
    match read::read(access, &file, &options, ctx).map_err(read_error)? {
        ReadOutcome::Text(window) => {
            let mut text = String::from_utf8_lossy(&window.bytes).into_owned();
            if window.is_partial() {
                text.push_str(&format!(
                    "[first {} of {} lines]",
                    window.last, window.total
                ));
            }
            Ok(ToolOutput::text(text))
        }
        ReadOutcome::Image(image) => Ok(ToolOutput::text(format!(
            "{} is an image ({} bytes); peek shows text only",
            file.shown, image.size
        ))),
        ReadOutcome::Binary { size } => Ok(ToolOutput::text(format!(
            "{} is a binary file ({size} bytes); peek shows text only",
            file.shown
        ))),
    }
}

/// A folder `ls` could not list, in Scout's words.
fn folder_error(err: FolderError) -> ToolError {
    match err {
        FolderError::NotAFolder { path } => {
            ToolError::invalid(format!("{path} is a file; peek at it instead"))
        }
        FolderError::Missing { path } => {
            ToolError::not_found(format!("{path} does not exist; ls its parent folder"))
        }
        FolderError::Other(e) => e,
        other => ToolError::invalid(format!("ls failed: {other:?}")),
    }
}

/// A file `peek` could not read, in Scout's words.
fn read_error(err: ReadError) -> ToolError {
    match err {
        ReadError::Missing { path } => ToolError::not_found(format!(
            "{path} does not exist; ls its folder to see what is"
        )),
        ReadError::Directory { path } => {
            ToolError::invalid(format!("{path} is a folder; ls it instead"))
        }
        ReadError::Other(e) => e,
        other => ToolError::invalid(format!("peek failed: {other:?}")),
    }
}

fn show(name: &str, args: &Value, output: Option<ToolOutput>) {
    println!("> {name} {args}");
    match output {
        Some(output) => {
            let status = if output.is_error { "error" } else { "ok" };
            println!("{status}:\n{}\n", output.text_content());
        }
        None => println!("unknown tool: the profile has no {name}\n"),
    }
}

fn main() -> std::result::Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;

    // Some files to scout, written through the built-in profile (atomic writes, parents made).
    let setup = Workspace::open(Options::new(dir.path()))?;
    let numbered: String = (1..=12).map(|n| format!("line {n}\n")).collect();
    for (path, content) in [
        ("notes/long.txt", numbered.as_str()),
        ("notes/short.txt", "just one line\n"),
        ("README.md", "# scouted\n"),
    ] {
        let written = setup.call("write_file", json!({"path": path, "content": content}))?;
        if written.is_error {
            return Err(written.text_content().into());
        }
    }

    // The custom profile, over the same folder.
    let access = Access::new(dir.path())?;
    let scout = Workspace::with_surface(access, Box::new(Scout));
    println!(
        "profile tools: {:?}",
        scout.tools().iter().map(|t| t.name).collect::<Vec<_>>()
    );
    println!("prompt: {}\n", scout.prompt());

    let ctx = CallContext::default();
    for (name, args) in [
        ("ls", json!({})),
        ("ls", json!({"path": "notes"})),
        ("peek", json!({"path": "notes/long.txt"})),
        ("peek", json!({"path": "notes/short.txt", "lines": 3})),
        ("peek", json!({"path": "notes/missing.txt"})),
        ("peek", json!({"path": "README.md", "line": 1})),
        ("write_file", json!({"path": "x", "content": "y"})),
    ] {
        let output = scout.call_with(name, args.clone(), &ctx).ok();
        show(name, &args, output);
    }

    // The profile's definitions are plain data: hand them to any model API.
    let defs: Vec<Value> = scout
        .tools()
        .into_iter()
        .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.input_schema}))
        .collect();
    println!(
        "definitions for a model API:\n{}",
        serde_json::to_string_pretty(&defs)?
    );
    Ok(())
}
