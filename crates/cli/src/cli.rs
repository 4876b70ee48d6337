//! The command line: `fsgate serve | call | schema | prompt | check-config | console`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
// The profiles, their names and help texts come from the library's one registry.
pub use fsgate_core::Profile;
pub use fsgate_core::config::gg::Arm;
use fsgate_core::ops::image::ImageLimits;

/// fsgate: the filesystem tools of a coding agent (read, write, edit, list, tree, search),
/// served over the Model Context Protocol.
#[derive(Debug, Parser)]
#[command(name = "fsgate", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// How logs (on stderr) are written; FSGATE_LOG sets the level, e.g. FSGATE_LOG=info for
    /// one event per call.
    #[arg(long, global = true, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
}

/// The shape of log lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per event.
    Json,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve a workspace over MCP: on standard input and output, or over streamable HTTP with
    /// --http.
    Serve(ServeArgs),
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
    /// Print the tool definitions (name, description, inputSchema …) as JSON, in the format of
    /// a model API.
    Schema {
        #[command(flatten)]
        workspace: WorkspaceArgs,
        /// The tool-definition format.
        #[arg(long, value_enum, default_value_t = SchemaFormat::Mcp)]
        format: SchemaFormat,
    },
    /// Print the system-prompt fragment for this configuration.
    Prompt(WorkspaceArgs),
    /// Validate a configuration file exactly as `serve --config FILE` does before it starts:
    /// exit 0, or exit 2 listing every problem.
    CheckConfig {
        /// The configuration file: TOML for gg and sgpt, YAML for coder, JSON for qwen and
        /// picoclaw.
        file: PathBuf,
        /// Whose configuration it is [default: coder for .yaml/.yml files, gg for others; a
        /// .json file needs --profile qwen or --profile picoclaw].
        #[arg(long, value_enum)]
        profile: Option<Profile>,
        /// The roots `serve` would be given (repeatable) [default: as serve: the current
        /// directory, or coder's base_paths].
        #[arg(long = "root", value_name = "DIR")]
        roots: Vec<PathBuf>,
    },
    /// Serve the console on loopback: a web page with the configuration editor (validated as
    /// you type, saved as the file) and the live call log of a server run with --call-log.
    Console(ConsoleArgs),
}

/// Options of `fsgate console`.
#[derive(Debug, Args)]
pub struct ConsoleArgs {
    /// The configuration file to edit (created when first saved).
    #[arg(long, value_name = "FILE")]
    pub config: PathBuf,
    /// The loopback address and port the page is served on (port 0 picks a free one; the URL is
    /// printed to stderr).
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:7420")]
    pub listen: String,
    /// The call log to show: the file a server writes with `fsgate serve --call-log FILE`.
    #[arg(long, value_name = "FILE")]
    pub call_log: Option<PathBuf>,
    /// Whose configuration the file is [default: coder for .yaml/.yml files, else gg].
    #[arg(long, value_enum)]
    pub profile: Option<Profile>,
}

/// Options of `fsgate serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub workspace: WorkspaceArgs,
    /// Serve MCP over streamable HTTP on ADDR:PORT (the endpoint is /mcp) instead of stdio. A
    /// non-loopback address requires a bearer token.
    #[arg(long, value_name = "ADDR:PORT")]
    pub http: Option<String>,
    /// A file holding the bearer token HTTP clients must send (else $FSGATE_TOKEN).
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// A browser origin allowed to call the HTTP endpoint besides the loopback ones
    /// (repeatable), e.g. https://app.example.com:443.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    pub allowed_origins: Vec<String>,
    /// A Host header the HTTP endpoint accepts (repeatable) [default: loopback names on a
    /// loopback address, any host otherwise].
    #[arg(long = "allow-host", value_name = "HOST")]
    pub allowed_hosts: Vec<String>,
    /// Append one JSON line per call (tool, arguments, duration, outcome, bytes, estimated
    /// tokens) to FILE, for `fsgate console --call-log FILE` to show (stdio and HTTP).
    #[arg(long, value_name = "FILE")]
    pub call_log: Option<PathBuf>,
}

/// A model API's tool-definition format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum SchemaFormat {
    /// MCP tools/list entries (name, description, inputSchema, outputSchema, annotations).
    #[default]
    Mcp,
    /// OpenAI function tools.
    Openai,
    /// Anthropic tools.
    Anthropic,
    /// Gemini function declarations (schemas rewritten to its dialect).
    Gemini,
}

/// Whether paths are confined.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum JailMode {
    /// gg's default: paths reach anything the process can.
    #[default]
    None,
    /// Confine every path to the roots (coder always does).
    Roots,
}

/// Options shared by every command that opens a workspace.
#[derive(Clone, Debug, Args)]
pub struct WorkspaceArgs {
    /// The working directory relative paths resolve against [default: the current directory].
    /// Repeat it for several allowed roots (coder, or --jail roots); the first is primary.
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<PathBuf>,
    /// The configuration file, in the profile's own format: TOML for gg (capabilities, read
    /// mode, agents, model), the coder worker's YAML for coder (watched: its numeric limits
    /// reload while serving), Qwen Code's settings.json for qwen (else the workspace's and the
    /// user's .qwen/settings.json), PicoClaw's JSON for picoclaw, TOML for sgpt.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Confine paths to the roots (gg; coder is always confined).
    #[arg(long, value_enum, default_value_t = JailMode::None)]
    pub jail: JailMode,
    /// Offer only the tools this agent's allowlist names.
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
    /// Never attach images: describe them instead (for models without vision).
    #[arg(long)]
    pub no_vision: bool,
    /// gg: how the model calls the tools: `tools` (one call per step) or `code` (one tool,
    /// run_code, runs a JavaScript program against gg.files and gg.views) [default: the
    /// configuration's `arm`, else tools].
    #[arg(long, value_enum)]
    pub arm: Option<Arm>,
    /// The tool surface to offer.
    #[arg(long, value_enum, default_value_t = Profile::Gg)]
    pub profile: Profile,
    #[command(flatten)]
    pub images: ImageArgs,
    /// gg, coder, qwen, picoclaw, sgpt: end every read and write with the file's version
    /// (`version: PATH vXXXXXXXXXXXX`) and accept `expected_version` on every write and edit
    /// (native always does).
    #[arg(long)]
    pub versions: bool,
}

/// The bounds an attached image is brought within (gg, qwen and native attach images): one
/// over any of them is scaled down (aspect kept, never up) and encoded again, and its line says
/// so with its estimated tokens; one that cannot be is described instead.
#[derive(Clone, Debug, Args)]
pub struct ImageArgs {
    /// The longest side of an attached image, in pixels (Anthropic's models take 1568 without
    /// scaling down).
    #[arg(
        long = "image-max-edge",
        value_name = "PX",
        default_value_t = ImageLimits::DEFAULT_MAX_EDGE,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub max_edge: u64,
    /// The most pixels of an attached image (Anthropic recommends at most 1.15 megapixels).
    #[arg(
        long = "image-max-pixels",
        value_name = "PIXELS",
        default_value_t = ImageLimits::DEFAULT_MAX_PIXELS,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub max_pixels: u64,
    /// The most bytes of an attached image (3.75 MiB: Anthropic refuses an image over 5 MiB
    /// once base64-encoded).
    #[arg(
        long = "image-max-bytes",
        value_name = "BYTES",
        default_value_t = ImageLimits::DEFAULT_MAX_BYTES,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub max_bytes: u64,
}

impl ImageArgs {
    /// The limits the flags give.
    pub fn limits(&self) -> ImageLimits {
        ImageLimits {
            max_edge: self.max_edge,
            max_pixels: self.max_pixels,
            max_bytes: self.max_bytes,
        }
    }
}

impl Default for ImageArgs {
    fn default() -> Self {
        let limits = ImageLimits::default();
        ImageArgs {
            max_edge: limits.max_edge,
            max_pixels: limits.max_pixels,
            max_bytes: limits.max_bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--profile` offers exactly the library's registry, under the registry's names.
    #[test]
    fn the_profile_flag_offers_every_registered_profile_by_its_name() {
        let offered: Vec<String> = Profile::value_variants()
            .iter()
            .filter_map(|p| p.to_possible_value())
            .map(|v| v.get_name().to_string())
            .collect();
        let registered: Vec<&str> = Profile::ALL.iter().map(|p| p.name()).collect();
        assert_eq!(offered, registered);
    }

    #[test]
    fn image_limits_default_to_the_engine_defaults_and_refuse_zero() {
        let parsed = Cli::try_parse_from(["fsgate", "prompt"]).unwrap();
        let Command::Prompt(args) = parsed.command else {
            panic!("not prompt: {parsed:?}");
        };
        assert_eq!(args.images.limits(), ImageLimits::default());
        let parsed = Cli::try_parse_from([
            "fsgate",
            "prompt",
            "--image-max-edge",
            "800",
            "--image-max-pixels",
            "400000",
            "--image-max-bytes",
            "1000000",
        ])
        .unwrap();
        let Command::Prompt(args) = parsed.command else {
            panic!("not prompt: {parsed:?}");
        };
        assert_eq!(
            args.images.limits(),
            ImageLimits {
                max_edge: 800,
                max_pixels: 400_000,
                max_bytes: 1_000_000,
            }
        );
        for flag in [
            "--image-max-edge",
            "--image-max-pixels",
            "--image-max-bytes",
        ] {
            let err = Cli::try_parse_from(["fsgate", "prompt", flag, "0"]).unwrap_err();
            assert!(err.to_string().contains(flag), "{err}");
        }
    }
}
