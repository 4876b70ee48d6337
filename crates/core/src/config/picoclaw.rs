//! The picoclaw profile's configuration — PicoClaw's: the keys of PicoClaw's own JSON
//! configuration that govern its filesystem tools, and the `PICOCLAW_TOOLS_<TOOL>_ENABLED`
//! environment switches.
//!
//! ```json
//! {
//!   "agents": { "defaults": { "restrict_to_workspace": true, "allow_read_outside_workspace": false } },
//!   "tools": {
//!     "allow_read_paths": ["^/usr/share/doc(?:/|$)"],
//!     "allow_write_paths": [],
//!     "non_accessible_globs": ["**/.env", "**/.env.*", "**/*.pem", "**/*.key"],
//!     "max_inline_result_chars": 16384,
//!     "read_file": { "enabled": true, "mode": "lines", "max_read_file_size": 65536,
//!                    "max_lines": 2000, "max_line_length": 2000 },
//!     "write_file": { "enabled": true },
//!     "edit_file": { "enabled": true },
//!     "append_file": { "enabled": true },
//!     "list_dir": { "enabled": true },
//!     "search_files": { "enabled": false }
//!   }
//! }
//! ```
//!
//! A PicoClaw configuration file holds much more (providers, channels, other tools); every key
//! outside the ones above is ignored, so PicoClaw's own `config.json` can be passed as it is.
//! Inside the six filesystem tools' sections, unknown keys are refused (a misspelt
//! `max_line_lenght` must not be silently ignored). Every problem is collected before refusing.
//!
//! The switches `PICOCLAW_TOOLS_WRITE_FILE_ENABLED`, `..._EDIT_FILE_...`, `..._APPEND_FILE_...`,
//! `..._LIST_DIR_...` and `..._SEARCH_FILES_...` override the file (as PicoClaw's environment
//! binding does), with Go's boolean spellings (`true`, `false`, `1`, `0`, `t`, `f`, `TRUE`,
//! ...). read_file is configured in JSON only: `PICOCLAW_TOOLS_READ_FILE_ENABLED` is not read.

use std::path::Path;

use serde_json::{Map, Value};

use super::ConfigError;
use super::json::{JsonChecks, describe};

/// The bytes a byte-mode read returns when it names no length, and the most any read returns.
pub const DEFAULT_MAX_READ_FILE_SIZE: u64 = 65_536;
/// The most lines one line-mode read returns.
pub const DEFAULT_MAX_LINES: u64 = 2_000;
/// The characters of a line shown by a line-mode read before it is cut.
pub const DEFAULT_MAX_LINE_LENGTH: u64 = 2_000;
/// The characters of a tool result returned inline; a larger one is spilled to an artifact.
pub const DEFAULT_MAX_INLINE_RESULT_CHARS: u64 = 16_384;

/// The six tools and the environment variables that switch them (read_file has none).
pub const SWITCHES: [(&str, Option<&str>); 6] = [
    ("read_file", None),
    ("write_file", Some("PICOCLAW_TOOLS_WRITE_FILE_ENABLED")),
    ("edit_file", Some("PICOCLAW_TOOLS_EDIT_FILE_ENABLED")),
    ("append_file", Some("PICOCLAW_TOOLS_APPEND_FILE_ENABLED")),
    ("list_dir", Some("PICOCLAW_TOOLS_LIST_DIR_ENABLED")),
    ("search_files", Some("PICOCLAW_TOOLS_SEARCH_FILES_ENABLED")),
];

/// How read_file pages through a file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReadFileMode {
    /// `offset`/`length` byte windows (PicoClaw's default).
    #[default]
    Bytes,
    /// `start_line`/`max_lines` windows rendered as `LINE_NUMBER|LINE_CONTENT`.
    Lines,
}

impl ReadFileMode {
    /// The mode's name in the configuration.
    pub fn name(self) -> &'static str {
        match self {
            ReadFileMode::Bytes => "bytes",
            ReadFileMode::Lines => "lines",
        }
    }
}

/// `tools.read_file`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadFileSettings {
    /// The read mode. By default [`ReadFileMode::Bytes`].
    pub mode: ReadFileMode,
    /// The most bytes one call reads (byte mode), and the default length. By default 65,536.
    pub max_read_file_size: u64,
    /// The most lines one line-mode call returns; larger requests are clamped. By default
    /// 2,000.
    pub max_lines: u64,
    /// The characters of a line shown in line mode before ` … [truncated]`. By default 2,000.
    pub max_line_length: u64,
}

impl Default for ReadFileSettings {
    fn default() -> Self {
        ReadFileSettings {
            mode: ReadFileMode::Bytes,
            max_read_file_size: DEFAULT_MAX_READ_FILE_SIZE,
            max_lines: DEFAULT_MAX_LINES,
            max_line_length: DEFAULT_MAX_LINE_LENGTH,
        }
    }
}

/// Which of the six tools are registered. By default all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToolSwitches {
    /// `tools.read_file.enabled`.
    pub read_file: bool,
    /// `tools.write_file.enabled` / `PICOCLAW_TOOLS_WRITE_FILE_ENABLED`.
    pub write_file: bool,
    /// `tools.edit_file.enabled` / `PICOCLAW_TOOLS_EDIT_FILE_ENABLED`.
    pub edit_file: bool,
    /// `tools.append_file.enabled` / `PICOCLAW_TOOLS_APPEND_FILE_ENABLED`.
    pub append_file: bool,
    /// `tools.list_dir.enabled` / `PICOCLAW_TOOLS_LIST_DIR_ENABLED`.
    pub list_dir: bool,
    /// `tools.search_files.enabled` / `PICOCLAW_TOOLS_SEARCH_FILES_ENABLED`.
    pub search_files: bool,
}

impl Default for ToolSwitches {
    fn default() -> Self {
        ToolSwitches {
            read_file: true,
            write_file: true,
            edit_file: true,
            append_file: true,
            list_dir: true,
            search_files: true,
        }
    }
}

impl ToolSwitches {
    /// Whether the tool named `tool` is enabled (`false` for names that are not one of the six).
    pub fn enabled(&self, tool: &str) -> bool {
        match tool {
            "read_file" => self.read_file,
            "write_file" => self.write_file,
            "edit_file" => self.edit_file,
            "append_file" => self.append_file,
            "list_dir" => self.list_dir,
            "search_files" => self.search_files,
            _ => false,
        }
    }

    fn slot(&mut self, tool: &str) -> Option<&mut bool> {
        match tool {
            "read_file" => Some(&mut self.read_file),
            "write_file" => Some(&mut self.write_file),
            "edit_file" => Some(&mut self.edit_file),
            "append_file" => Some(&mut self.append_file),
            "list_dir" => Some(&mut self.list_dir),
            "search_files" => Some(&mut self.search_files),
            _ => None,
        }
    }
}

/// The picoclaw configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PicoclawConfig {
    /// The per-tool switches. By default all six tools are enabled.
    pub tools: ToolSwitches,
    /// `tools.read_file`.
    pub read_file: ReadFileSettings,
    /// `agents.defaults.restrict_to_workspace`: keep reads and writes inside the workspace.
    /// By default `true`.
    pub restrict_to_workspace: bool,
    /// `agents.defaults.allow_read_outside_workspace`: read-only tools may reach paths outside
    /// the workspace (writes stay inside). By default `false`.
    pub allow_read_outside_workspace: bool,
    /// `tools.allow_read_paths`: regular expressions over absolute paths that read-only tools
    /// may reach although the workspace restriction would deny them. By default none.
    pub allow_read_paths: Vec<String>,
    /// `tools.allow_write_paths`: the same for the writing tools. By default none.
    pub allow_write_paths: Vec<String>,
    /// `tools.max_inline_result_chars`: a larger result is written to a workspace artifact and
    /// previewed. By default 16,384.
    pub max_inline_result_chars: u64,
    /// `tools.non_accessible_globs` (fsgate's own key, as the coder profile's): files (globset
    /// syntax, relative to the workspace, any letter case) no tool reads, writes, searches or
    /// lists. By default none.
    pub non_accessible_globs: Vec<String>,
}

impl Default for PicoclawConfig {
    fn default() -> Self {
        PicoclawConfig {
            tools: ToolSwitches::default(),
            read_file: ReadFileSettings::default(),
            restrict_to_workspace: true,
            allow_read_outside_workspace: false,
            allow_read_paths: Vec::new(),
            allow_write_paths: Vec::new(),
            max_inline_result_chars: DEFAULT_MAX_INLINE_RESULT_CHARS,
            non_accessible_globs: Vec::new(),
        }
    }
}

impl PicoclawConfig {
    /// Reads and validates the JSON configuration file at `path`, then applies the
    /// `PICOCLAW_TOOLS_<TOOL>_ENABLED` switches of the process environment.
    pub fn load(path: &Path) -> Result<PicoclawConfig, ConfigError> {
        let source_name = path.display().to_string();
        let text = super::read_file(path)?;
        PicoclawConfig::parse(&text, &source_name, &process_env)
    }

    /// The configuration when no file is given: the defaults with the environment switches
    /// applied. A caller without `--config` calls this instead of [`PicoclawConfig::default`].
    pub fn from_env() -> Result<PicoclawConfig, ConfigError> {
        PicoclawConfig::parse("", "the environment", &process_env)
    }

    /// Validates JSON `text` (empty text means no file) and applies the switches `env` gives;
    /// `source_name` names the source in the refusal.
    pub fn parse(
        text: &str,
        source_name: &str,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<PicoclawConfig, ConfigError> {
        let mut v = Validator::default();
        let mut config = PicoclawConfig::default();
        if !text.trim().is_empty() {
            match serde_json::from_str::<Value>(text) {
                Ok(Value::Object(root)) => v.root(&mut config, &root),
                Ok(other) => v.c.problem(
                    "",
                    format!(
                        "the configuration must be a JSON object, not {}",
                        describe(&other)
                    ),
                ),
                Err(e) => v.c.problem("", format!("not valid JSON: {e}")),
            }
        }
        v.environment(&mut config, env);
        ConfigError::unless_empty(source_name, v.c.problems, config)
    }
}

fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// The checks of this file's own sections, over the shared JSON checks.
#[derive(Default)]
struct Validator {
    c: JsonChecks,
}

impl Validator {
    fn count(&mut self, key: &str, value: &Value) -> Option<u64> {
        match value.as_u64() {
            Some(n) if n >= 1 => Some(n),
            _ => {
                self.c.problem(
                    key,
                    format!("must be a whole number, 1 or more, not {}", describe(value)),
                );
                None
            }
        }
    }

    fn patterns(&mut self, key: &str, value: &Value) -> Option<Vec<String>> {
        let Value::Array(items) = value else {
            self.c.problem(
                key,
                format!(
                    "must be an array of regular expressions, not {}",
                    describe(value)
                ),
            );
            return None;
        };
        let mut out = Vec::new();
        for item in items {
            match item.as_str() {
                Some(p) => match regex::Regex::new(p) {
                    Ok(_) => out.push(p.to_string()),
                    Err(e) => self.c.problem(
                        key,
                        format!("{p:?} is not a valid regular expression: {e}"),
                    ),
                },
                None => self.c.problem(
                    key,
                    format!(
                        "{} is not a string; each entry is a regular expression over absolute paths",
                        describe(item)
                    ),
                ),
            }
        }
        Some(out)
    }

    fn root(&mut self, config: &mut PicoclawConfig, root: &Map<String, Value>) {
        if let Some(defaults) = root
            .get("agents")
            .and_then(|a| self.c.object("agents", a))
            .and_then(|a| a.get("defaults"))
            .and_then(|d| self.c.object("agents.defaults", d))
        {
            if let Some(v) = defaults.get("restrict_to_workspace")
                && let Some(b) = self.c.bool("agents.defaults.restrict_to_workspace", v)
            {
                config.restrict_to_workspace = b;
            }
            if let Some(v) = defaults.get("allow_read_outside_workspace")
                && let Some(b) = self
                    .c
                    .bool("agents.defaults.allow_read_outside_workspace", v)
            {
                config.allow_read_outside_workspace = b;
            }
        }
        let Some(tools) = root.get("tools").and_then(|t| self.c.object("tools", t)) else {
            return;
        };
        if let Some(v) = tools.get("allow_read_paths")
            && let Some(p) = self.patterns("tools.allow_read_paths", v)
        {
            config.allow_read_paths = p;
        }
        if let Some(v) = tools.get("allow_write_paths")
            && let Some(p) = self.patterns("tools.allow_write_paths", v)
        {
            config.allow_write_paths = p;
        }
        if let Some(v) = tools.get("non_accessible_globs")
            && let Some(globs) = self.c.secret_globs("tools.non_accessible_globs", v)
        {
            config.non_accessible_globs = globs;
        }
        if let Some(v) = tools.get("max_inline_result_chars")
            && let Some(n) = self.count("tools.max_inline_result_chars", v)
        {
            config.max_inline_result_chars = n;
        }
        for (tool, _) in SWITCHES {
            let key = format!("tools.{tool}");
            let Some(section) = tools.get(tool).and_then(|s| self.c.object(&key, s)) else {
                continue;
            };
            let known: &[&str] = if tool == "read_file" {
                &[
                    "enabled",
                    "mode",
                    "max_read_file_size",
                    "max_lines",
                    "max_line_length",
                ]
            } else {
                &["enabled"]
            };
            for name in section.keys() {
                if !known.contains(&name.as_str()) {
                    self.c.problem(
                        &format!("{key}.{name}"),
                        format!("unknown key; the keys of {key} are {}", known.join(", ")),
                    );
                }
            }
            if let Some(v) = section.get("enabled")
                && let Some(b) = self.c.bool(&format!("{key}.enabled"), v)
                && let Some(slot) = config.tools.slot(tool)
            {
                *slot = b;
            }
            if tool == "read_file" {
                self.read_file(&mut config.read_file, section);
            }
        }
    }

    fn read_file(&mut self, settings: &mut ReadFileSettings, section: &Map<String, Value>) {
        match section.get("mode") {
            None => {}
            Some(Value::String(s)) if s.trim().eq_ignore_ascii_case("bytes") || s.is_empty() => {
                settings.mode = ReadFileMode::Bytes;
            }
            Some(Value::String(s)) if s.trim().eq_ignore_ascii_case("lines") => {
                settings.mode = ReadFileMode::Lines;
            }
            Some(other) => self.c.problem(
                "tools.read_file.mode",
                format!(
                    "{} is not a read mode; the modes are \"bytes\" (offset/length) and \"lines\" \
                     (start_line/max_lines)",
                    describe(other)
                ),
            ),
        }
        for (name, slot) in [
            ("max_read_file_size", &mut settings.max_read_file_size),
            ("max_lines", &mut settings.max_lines),
            ("max_line_length", &mut settings.max_line_length),
        ] {
            if let Some(v) = section.get(name)
                && let Some(n) = self.count(&format!("tools.read_file.{name}"), v)
            {
                *slot = n;
            }
        }
    }

    fn environment(&mut self, config: &mut PicoclawConfig, env: &dyn Fn(&str) -> Option<String>) {
        for (tool, var) in SWITCHES {
            let Some(var) = var else { continue };
            let Some(raw) = env(var) else { continue };
            let raw = raw.trim();
            if raw.is_empty() {
                continue;
            }
            match parse_go_bool(raw) {
                Some(b) => {
                    if let Some(slot) = config.tools.slot(tool) {
                        *slot = b;
                    }
                }
                None => self.c.problem(
                    var,
                    format!(
                        "{raw:?} is not a boolean; use true or false (also 1/0, t/f) to switch \
                         {tool}"
                    ),
                ),
            }
        }
    }
}

/// Go's `strconv.ParseBool` spellings, which PicoClaw's environment binding accepts.
fn parse_go_bool(raw: &str) -> Option<bool> {
    match raw {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn no_file_is_the_defaults() {
        let c = PicoclawConfig::parse("", "t", &no_env).unwrap();
        assert_eq!(c, PicoclawConfig::default());
        assert!(c.restrict_to_workspace);
        assert_eq!(c.read_file.max_read_file_size, 65_536);
        assert_eq!(c.max_inline_result_chars, 16_384);
    }

    #[test]
    fn a_full_picoclaw_file_parses_and_foreign_sections_are_ignored() {
        let text = r#"{
          "agents": {"defaults": {"workspace": "~/.picoclaw/workspace", "model": "x",
                      "restrict_to_workspace": false, "allow_read_outside_workspace": true}},
          "channels": {"telegram": {"enabled": false}},
          "tools": {"allow_read_paths": ["^/usr/share(?:/|$)"], "exec": {"enabled": true},
                    "read_file": {"mode": "lines", "max_lines": 50, "max_line_length": 80},
                    "search_files": {"enabled": false}}
        }"#;
        let c = PicoclawConfig::parse(text, "t", &no_env).unwrap();
        assert!(!c.restrict_to_workspace);
        assert!(c.allow_read_outside_workspace);
        assert_eq!(c.read_file.mode, ReadFileMode::Lines);
        assert_eq!(
            (c.read_file.max_lines, c.read_file.max_line_length),
            (50, 80)
        );
        assert!(!c.tools.search_files);
        assert_eq!(c.allow_read_paths, ["^/usr/share(?:/|$)"]);
    }

    #[test]
    fn every_problem_is_named_at_once() {
        let text = r#"{"agents": {"defaults": {"restrict_to_workspace": "yes"}},
          "tools": {"allow_write_paths": ["(unclosed"], "read_file": {"mode": "pages",
          "max_lines": 0, "max_line_lenght": 3}, "edit_file": {"enabled": 1}}}"#;
        let err = PicoclawConfig::parse(text, "cfg.json", &no_env).unwrap_err();
        let keys: Vec<&str> = err.problems.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "agents.defaults.restrict_to_workspace",
                "tools.allow_write_paths",
                "tools.read_file.max_line_lenght",
                "tools.read_file.mode",
                "tools.read_file.max_lines",
                "tools.edit_file.enabled",
            ],
            "{err}"
        );
    }

    #[test]
    fn environment_switches_override_the_file_except_read_file() {
        let env = |k: &str| match k {
            "PICOCLAW_TOOLS_SEARCH_FILES_ENABLED" => Some("false".to_string()),
            "PICOCLAW_TOOLS_WRITE_FILE_ENABLED" => Some("1".to_string()),
            "PICOCLAW_TOOLS_READ_FILE_ENABLED" => Some("false".to_string()),
            _ => None,
        };
        let c = PicoclawConfig::parse(
            r#"{"tools": {"write_file": {"enabled": false}}}"#,
            "t",
            &env,
        )
        .unwrap();
        assert!(!c.tools.search_files);
        assert!(c.tools.write_file);
        assert!(c.tools.read_file);
        let bad = |k: &str| (k == "PICOCLAW_TOOLS_LIST_DIR_ENABLED").then(|| "nope".to_string());
        let err = PicoclawConfig::parse("", "env", &bad).unwrap_err();
        assert_eq!(err.problems[0].key, "PICOCLAW_TOOLS_LIST_DIR_ENABLED");
    }
}
