//! The command line: `fsgate serve | call | schema | prompt | check-config`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// fsgate: the filesystem tools of a coding agent (read, write, edit, list, tree, search),
/// served over the Model Context Protocol.
#[derive(Debug, Parser)]
#[command(name = "fsgate", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve a workspace over MCP on standard input and output.
    Serve(WorkspaceArgs),
    /// Make one tool call and print what the model would see (exit 0 ok, 1 tool error,
    /// 2 usage or configuration error).
    Call {
        /// The tool to call, e.g. read_file.
        tool: String,
        /// The call's arguments as a JSON object, e.g. '{"path": "README.md"}'.
        #[arg(default_value = "{}")]
        args: String,
        #[command(flatten)]
        workspace: WorkspaceArgs,
    },
    /// Print the tool definitions (name, description, inputSchema) as JSON.
    Schema(WorkspaceArgs),
    /// Print the system-prompt fragment for this configuration.
    Prompt(WorkspaceArgs),
    /// Validate a configuration file: exit 0, or exit 2 listing every problem.
    CheckConfig {
        /// The TOML configuration file.
        file: PathBuf,
    },
}

/// The tool surface to offer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Profile {
    /// gg: read_file, write_file, edit_file, list_dir, tree, search.
    #[default]
    Gg,
}

/// Options shared by every command that opens a workspace.
#[derive(Debug, Args)]
pub struct WorkspaceArgs {
    /// The working directory relative paths resolve against [default: the current directory].
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// A TOML configuration file (capabilities, read mode, agents, model).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Offer only the tools this agent's allowlist names.
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
    /// Never attach images: describe them instead (for models without vision).
    #[arg(long)]
    pub no_vision: bool,
    /// The tool surface to offer.
    #[arg(long, value_enum, default_value_t = Profile::Gg)]
    pub profile: Profile,
}
