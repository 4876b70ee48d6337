//! What each command does. Library errors become exit codes here and nowhere else.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context as _;
use std::path::Path;
use std::sync::Arc;

use fsgate_core::surface::export::{Format, export};
use fsgate_core::{CallContext, Content, Options, ProfileConfig, Progress, Workspace};
use serde_json::Value;

use crate::cli::{Cli, Command, ImageArgs, JailMode, Profile, SchemaFormat, WorkspaceArgs};

/// The line `serve` prints to stderr at start when paths are not confined to the roots.
const UNCONFINED: &str = "unconfined: gg reaches every path this process can (absolute paths \
                          and .. go beyond --root); pass --jail roots to confine it to the roots";

/// How a command ended.
pub enum Outcome {
    /// Success.
    Ok,
    /// The tool call failed (its text was printed).
    ToolError,
    /// Bad usage or configuration (the message goes to stderr).
    Usage(String),
}

impl Outcome {
    /// The process exit code: 0, 1 or 2.
    pub fn exit_code(self) -> ExitCode {
        match self {
            Outcome::Ok => ExitCode::SUCCESS,
            Outcome::ToolError => ExitCode::from(1),
            Outcome::Usage(message) => {
                eprintln!("fsgate: {message}");
                ExitCode::from(2)
            }
        }
    }
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<Outcome> {
    match cli.command {
        Command::Serve(serve) => {
            let args = &serve.workspace;
            let ws = match open(args) {
                Ok(ws) => ws,
                Err(message) => return Ok(Outcome::Usage(message)),
            };
            sweep_left_temps();
            if ws.jail_roots().is_none() {
                eprintln!("fsgate: {UNCONFINED}");
            }
            // One stdio session needs no worker pool: its protocol work is light and runs on
            // this thread, tool calls run on the blocking pool. HTTP serves many sessions.
            let mut runtime = if serve.http.is_some() {
                tokio::runtime::Builder::new_multi_thread()
            } else {
                tokio::runtime::Builder::new_current_thread()
            };
            let runtime = runtime
                .enable_all()
                .build()
                .context("starting the async runtime")?;
            let call_log = match &serve.call_log {
                Some(path) => match fsgate_mcp::calllog::CallLog::open(path) {
                    Ok(log) => Some(log),
                    Err(e) => {
                        let shown = path.display();
                        return Ok(Outcome::Usage(format!(
                            "cannot open the call log {shown}: {e}"
                        )));
                    }
                },
                None => None,
            };
            if let Some(addr) = &serve.http {
                let addr = match fsgate_mcp::http::parse_addr(addr) {
                    Ok(addr) => addr,
                    Err(message) => return Ok(Outcome::Usage(message)),
                };
                let token = match read_token(serve.token_file.as_deref()) {
                    Ok(token) => token,
                    Err(message) => return Ok(Outcome::Usage(message)),
                };
                if !addr.ip().is_loopback() && token.is_none() {
                    return Ok(Outcome::Usage(format!(
                        "{addr} is not a loopback address, so a bearer token is required: pass \
                         --token-file FILE or set FSGATE_TOKEN"
                    )));
                }
                drop(ws);
                let options = fsgate_mcp::http::HttpOptions {
                    token,
                    allowed_origins: serve.allowed_origins.clone(),
                    allowed_hosts: serve.allowed_hosts.clone(),
                    call_log,
                };
                let listener = match runtime.block_on(tokio::net::TcpListener::bind(addr)) {
                    Ok(listener) => listener,
                    Err(e) => return Ok(Outcome::Usage(format!("cannot listen on {addr}: {e}"))),
                };
                // Each HTTP session opens its own workspace, so per-session state stays apart.
                let workspace_args = serve.workspace.clone();
                let opener = move || open(&workspace_args);
                runtime.block_on(fsgate_mcp::http::serve_http(listener, opener, options))?;
                return Ok(Outcome::Ok);
            }
            tracing::info!(root = %ws.root().display(), "serving over stdio");
            let ws = Arc::new(ws);
            // Keeps the configuration watched for as long as the server runs.
            let _watcher = match &args.config {
                Some(path) if args.profile.reloads_config() => {
                    crate::watch::config(Arc::clone(&ws), path)
                }
                Some(_) | None => None,
            };
            let mut server = fsgate_mcp::FsgateServer::new(ws);
            if let Some(log) = call_log {
                server = server.with_call_log(log);
            }
            runtime.block_on(fsgate_mcp::serve_stdio_with(server))?;
            Ok(Outcome::Ok)
        }
        Command::Call {
            tool,
            args,
            workspace,
        } => {
            let args: Value = match serde_json::from_str(&args) {
                Ok(v) => v,
                Err(e) => {
                    return Ok(Outcome::Usage(format!(
                        "the arguments are not valid JSON ({e}); pass an object such as \
                         '{{\"path\": \"README.md\"}}'"
                    )));
                }
            };
            let ws = match open(&workspace) {
                Ok(ws) => ws,
                Err(message) => return Ok(Outcome::Usage(message)),
            };
            sweep_left_temps();
            let bar = progress_bar();
            let ctx = match &bar {
                Some(bar) => {
                    let bar = bar.clone();
                    CallContext::default().with_progress(Arc::new(move |p: Progress| {
                        if let Some(total) = p.total {
                            bar.set_length(total);
                        }
                        bar.set_position(p.done);
                        bar.set_message(p.message);
                    }))
                }
                None => CallContext::default(),
            };
            let called = ws.call_with(&tool, args, &ctx);
            if let Some(bar) = bar {
                bar.finish_and_clear();
            }
            let output = match called {
                Ok(output) => output,
                Err(unknown) => return Ok(Outcome::Usage(unknown.to_string())),
            };
            let shown: Vec<String> = output
                .content
                .iter()
                .map(|c| match c {
                    Content::Text(text) => text.clone(),
                    Content::Image { mime, data } => {
                        format!("[image attachment: {mime}, {} bytes]", data.len())
                    }
                    Content::Resource { uri, mime, data } => {
                        format!("[embedded resource: {uri}, {mime}, {} bytes]", data.len())
                    }
                })
                .collect();
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(shown.join("\n").as_bytes())?;
            stdout.flush()?;
            Ok(if output.is_error {
                Outcome::ToolError
            } else {
                Outcome::Ok
            })
        }
        Command::Schema { workspace, format } => {
            let ws = match open(&workspace) {
                Ok(ws) => ws,
                Err(message) => return Ok(Outcome::Usage(message)),
            };
            let format = match format {
                SchemaFormat::Mcp => Format::Mcp,
                SchemaFormat::Openai => Format::OpenAi,
                SchemaFormat::Anthropic => Format::Anthropic,
                SchemaFormat::Gemini => Format::Gemini,
            };
            let tools = export(&ws.tools(), format);
            println!("{}", serde_json::to_string_pretty(&tools)?);
            Ok(Outcome::Ok)
        }
        Command::Prompt(args) => {
            let ws = match open(&args) {
                Ok(ws) => ws,
                Err(message) => return Ok(Outcome::Usage(message)),
            };
            print!("{}", ws.prompt());
            Ok(Outcome::Ok)
        }
        Command::CheckConfig {
            file,
            profile,
            roots,
        } => {
            let profile = match profile.map_or_else(|| profile_of(&file), Ok) {
                Ok(profile) => profile,
                Err(message) => return Ok(Outcome::Usage(message)),
            };
            // The workspace serve would open, opened the way serve opens it: one validation.
            let args = WorkspaceArgs {
                roots,
                config: Some(file.clone()),
                jail: JailMode::None,
                agent: None,
                no_vision: false,
                arm: None,
                profile,
                images: ImageArgs::default(),
                versions: false,
            };
            match open(&args) {
                Ok(_) => {
                    println!("{}: ok", file.display());
                    Ok(Outcome::Ok)
                }
                Err(message) => Ok(Outcome::Usage(message)),
            }
        }
        Command::Console(args) => crate::console::run(args),
    }
}

/// Removes the temp files fsgate processes that were killed while writing left behind (see
/// `fsgate_core::access::pending`), before this one makes any of its own.
fn sweep_left_temps() {
    let removed = fsgate_core::access::pending::sweep();
    if removed > 0 {
        tracing::info!(
            removed,
            "removed temp files left by fsgate processes that were killed"
        );
    }
}

/// Whose configuration `file` is when no --profile says: coder's for YAML, gg's for the rest;
/// a JSON file could be qwen's or picoclaw's, so it must be named.
fn profile_of(file: &Path) -> Result<Profile, String> {
    match file.extension().and_then(|e| e.to_str()) {
        Some("yaml" | "yml") => Ok(Profile::Coder),
        Some("json") => Err(format!(
            "{} is JSON, which the qwen profile (Qwen Code's settings.json) and the picoclaw \
             profile take; say which with --profile qwen or --profile picoclaw",
            file.display()
        )),
        _ => Ok(Profile::Gg),
    }
}

/// Whether the model served can take images, shared by every workspace of this process.
static VISION: std::sync::LazyLock<fsgate_core::vision::VisionSwitch> =
    std::sync::LazyLock::new(fsgate_core::vision::VisionSwitch::new);

/// Opens the workspace the options describe, validating its configuration: what `serve` runs
/// before it starts, and all that `check-config` runs. The error is a message for stderr.
fn open(args: &WorkspaceArgs) -> Result<Workspace, String> {
    if let Some(arm) = args.arm
        && args.profile != Profile::Gg
    {
        return Err(format!(
            "--arm {} chooses how gg's tools are called; the {} profile has one way, so leave \
             --arm out (or serve --profile gg)",
            arm.name(),
            args.profile
        ));
    }
    let mut options = Options::new(".");
    options.roots = if args.roots.is_empty() && !args.profile.configures_roots() {
        vec![
            std::env::current_dir()
                .map_err(|e| format!("cannot determine the current directory: {e}"))?,
        ]
    } else {
        args.roots.clone()
    };
    // The profile's own format and places, as the registry reads them.
    options.profile = ProfileConfig::load(args.profile, args.config.as_deref(), &options.roots)
        .map_err(|e| e.to_string())?;
    options.jail = args.jail == JailMode::Roots;
    options.agent = args.agent.clone();
    options.no_vision = args.no_vision;
    options.versions = args.versions;
    options.arm = args.arm;
    options.images = args.images.limits();
    // One switch for every workspace this process opens (one per HTTP session): what a harness
    // tells the server about its model's vision holds for all of them.
    options.vision = VISION.clone();
    let ws = Workspace::open(options).map_err(|e| e.to_string())?;
    for warning in ws.warnings() {
        tracing::warn!("{warning}");
    }
    if let Some(jail) = ws.jail_roots() {
        tracing::info!(roots = ?jail, "allowed roots");
    }
    Ok(ws)
}

/// A progress bar on standard error for a long `call`, when standard error is a terminal; it
/// appears only once the call has run for a moment.
fn progress_bar() -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal as _;
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::with_draw_target(
        None,
        indicatif::ProgressDrawTarget::stderr_with_hz(10),
    );
    let style = indicatif::ProgressStyle::with_template("{spinner} {elapsed} {wide_msg}")
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner());
    bar.set_style(style);
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    Some(bar)
}

/// The bearer token for HTTP: the file's first line, else $FSGATE_TOKEN, else none.
fn read_token(file: Option<&Path>) -> Result<Option<String>, String> {
    let token = match file {
        Some(path) => {
            #[allow(clippy::disallowed_methods)] // the token file is not workspace I/O
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read the token file {}: {e}", path.display()))?;
            text.lines().next().unwrap_or("").trim().to_string()
        }
        None => std::env::var("FSGATE_TOKEN").unwrap_or_default(),
    };
    if token.is_empty() {
        return match file {
            Some(path) => Err(format!("the token file {} is empty", path.display())),
            None => Ok(None),
        };
    }
    Ok(Some(token))
}

/// Whether `path` names the configuration file an event is about.
pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    a == b || a.file_name() == b.file_name()
}
