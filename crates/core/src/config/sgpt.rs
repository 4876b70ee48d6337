//! The sgpt profile's configuration (sgpt has no file format of its own for these, so it is TOML):
//! the read budget of `read_files`, the lore libraries of `search_lores`, `exec_shell`'s timeout
//! and output cap, the artifact folder for output over the cap, and the sub-agent command line.
//!
//! ```toml
//! artifact_dir = ".fsgate/artifacts"      # output over the cap is saved here, whole
//! [read_files]
//! budget_bytes = 262144                   # shared by the files of one call
//! [lore]
//! libraries = ["docs/lore"]               # folders of Markdown files with front matter
//! [exec_shell]
//! timeout_secs = 120
//! output_cap_chars = 30000
//! max_artifact_bytes = 67108864
//! [access]                                # off unless set: files no tool reads or writes
//! non_accessible_globs = ["**/.env", "**/.env.*", "**/*.pem", "**/*.key"]
//! [agent]                                 # without it the agent tool is off
//! command = ["my-agent", "--print", "{prompt}"]
//! model_args = ["--model", "{model}"]     # appended when a call names a model
//! tools_args = ["--tools", "{tools}"]     # appended when a call grants tools
//! timeout_secs = 600
//! ```
//!
//! Relative paths (the libraries, the artifact folder) are resolved against the primary root
//! when a tool runs, through the jail. Validation collects every problem before refusing.

use std::path::{Path, PathBuf};
use std::time::Duration;

use toml::{Table, Value};

use super::{ConfigError, Problem, describe, quoted_list};

/// The placeholders an `[agent]` argument may hold.
pub const AGENT_PLACEHOLDERS: [&str; 5] = ["prompt", "query", "title", "model", "tools"];

/// The sgpt configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SgptConfig {
    /// Bytes of file content one `read_files` call returns, shared by its paths. By default
    /// 256 KiB.
    pub read_budget_bytes: u64,
    /// The lore libraries: folders searched by `search_lores`, relative to the primary root or
    /// absolute (inside the roots). By default none.
    pub lore_libraries: Vec<PathBuf>,
    /// How long `exec_shell` lets a command run before killing its process group. By default
    /// 120 s.
    pub shell_timeout: Duration,
    /// The most characters of output a shell command (or a sub-agent's answer) returns; longer
    /// output is saved whole in [`SgptConfig::artifact_dir`] and the model gets its head and
    /// tail. By default 30,000.
    pub output_cap_chars: usize,
    /// The most bytes of one output saved as an artifact; the rest is dropped (and the
    /// artifact says so). By default 64 MiB.
    pub max_artifact_bytes: u64,
    /// The folder for output over the cap, relative to the primary root or absolute (inside
    /// the roots). By default `.fsgate/artifacts`.
    pub artifact_dir: PathBuf,
    /// The sub-agent command line; `None` (the default) turns the agent tool off.
    pub agent: Option<AgentConfig>,
    /// `[access] non_accessible_globs`: files (globset syntax, relative to their root, any
    /// letter case) no tool reads, writes or searches. By default none.
    pub non_accessible_globs: Vec<String>,
}

impl Default for SgptConfig {
    fn default() -> Self {
        SgptConfig {
            read_budget_bytes: 256 * 1024,
            lore_libraries: Vec::new(),
            shell_timeout: Duration::from_secs(120),
            output_cap_chars: 30_000,
            max_artifact_bytes: 64 * 1024 * 1024,
            artifact_dir: PathBuf::from(crate::access::ignore::FSGATE_ARTIFACTS),
            agent: None,
            non_accessible_globs: Vec::new(),
        }
    }
}

/// How the `agent` tool launches a sub-agent.
///
/// Every argument may hold placeholders: `{prompt}` (the query followed by the injected
/// files), `{query}`, `{title}`, `{model}`, `{tools}` (the granted tools, comma-separated);
/// `{{` and `}}` are literal braces. When no argument of `command` holds `{prompt}`, the prompt
/// is written to the sub-agent's standard input. Its standard output is its final answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentConfig {
    /// The program and its arguments (no shell). Required.
    pub command: Vec<String>,
    /// Arguments appended when a call names a model. By default none (the model then reaches
    /// the sub-agent only through `FSGATE_AGENT_MODEL`).
    pub model_args: Vec<String>,
    /// Arguments appended when a call grants tools. By default none.
    pub tools_args: Vec<String>,
    /// How long a sub-agent may run before its process group is killed. By default 600 s.
    pub timeout: Duration,
}

impl AgentConfig {
    /// A sub-agent launched by `command`, with the other fields at their defaults.
    pub fn new(command: Vec<String>) -> Self {
        AgentConfig {
            command,
            model_args: Vec::new(),
            tools_args: Vec::new(),
            timeout: Duration::from_secs(600),
        }
    }
}

impl SgptConfig {
    /// Reads and validates the TOML file at `path`.
    pub fn load(path: &Path) -> Result<SgptConfig, ConfigError> {
        let text = super::read_file(path)?;
        SgptConfig::parse(&text, &path.display().to_string())
    }

    /// Validates TOML `text`; `source_name` names it in the refusal.
    pub fn parse(text: &str, source_name: &str) -> Result<SgptConfig, ConfigError> {
        let mut v = Validator::default();
        let config = match text.parse::<Table>() {
            Ok(table) => v.config(&table),
            Err(e) => {
                v.problem("", format!("not valid TOML: {}", e.to_string().trim()));
                SgptConfig::default()
            }
        };
        ConfigError::unless_empty(source_name, v.problems, config)
    }
}

/// The smallest output cap: room for a useful head and tail.
const MIN_OUTPUT_CAP: i64 = 200;

#[derive(Default)]
struct Validator {
    problems: Vec<Problem>,
}

impl Validator {
    fn problem(&mut self, key: &str, message: impl Into<String>) {
        self.problems.push(Problem {
            key: key.to_string(),
            message: message.into(),
        });
    }

    fn unknown_keys(&mut self, prefix: &str, table: &Table, known: &[&str]) {
        for key in table.keys() {
            if !known.contains(&key.as_str()) {
                let shown = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                self.problem(
                    &shown,
                    format!("unknown key; the keys here are {}", quoted_list(known)),
                );
            }
        }
    }

    fn table<'a>(&mut self, key: &str, value: &'a Value) -> Option<&'a Table> {
        match value {
            Value::Table(t) => Some(t),
            other => {
                self.problem(key, format!("must be a table, not {}", describe(other)));
                None
            }
        }
    }

    /// A whole number of at least `min`.
    fn count(&mut self, key: &str, value: &Value, min: i64) -> Option<u64> {
        match value {
            Value::Integer(n) if *n >= min => u64::try_from(*n).ok(),
            other => {
                self.problem(
                    key,
                    format!(
                        "must be a whole number, {min} or more, not {}",
                        describe(other)
                    ),
                );
                None
            }
        }
    }

    /// A positive number of seconds, whole or fractional.
    fn seconds(&mut self, key: &str, value: &Value) -> Option<Duration> {
        let secs = match value {
            Value::Integer(n) => Some(*n as f64),
            Value::Float(f) => Some(*f),
            _ => None,
        };
        match secs {
            Some(s) if s.is_finite() && s > 0.0 && s <= 7.0 * 86_400.0 => {
                Some(Duration::from_secs_f64(s))
            }
            _ => {
                self.problem(
                    key,
                    format!(
                        "must be a number of seconds above 0 (at most a week), not {}",
                        describe(value)
                    ),
                );
                None
            }
        }
    }

    fn path(&mut self, key: &str, value: &Value) -> Option<PathBuf> {
        match value {
            Value::String(s) if !s.trim().is_empty() && !s.contains('\0') => Some(PathBuf::from(s)),
            other => {
                self.problem(
                    key,
                    format!("must be a non-empty path string, not {}", describe(other)),
                );
                None
            }
        }
    }

    fn strings(&mut self, key: &str, value: &Value) -> Option<Vec<String>> {
        let Value::Array(items) = value else {
            self.problem(
                key,
                format!("must be an array of strings, not {}", describe(value)),
            );
            return None;
        };
        let mut out = Vec::with_capacity(items.len());
        let mut ok = true;
        for (i, item) in items.iter().enumerate() {
            match item {
                Value::String(s) => out.push(s.clone()),
                other => {
                    self.problem(
                        &format!("{key}[{i}]"),
                        format!("must be a string, not {}", describe(other)),
                    );
                    ok = false;
                }
            }
        }
        ok.then_some(out)
    }

    /// Arguments whose placeholders are all known.
    fn arguments(&mut self, key: &str, value: &Value) -> Option<Vec<String>> {
        let args = self.strings(key, value)?;
        let mut ok = true;
        for (i, arg) in args.iter().enumerate() {
            if let Err(message) = check_template(arg) {
                self.problem(&format!("{key}[{i}]"), message);
                ok = false;
            }
        }
        ok.then_some(args)
    }

    fn config(&mut self, root: &Table) -> SgptConfig {
        let mut config = SgptConfig::default();
        self.unknown_keys(
            "",
            root,
            &[
                "artifact_dir",
                "read_files",
                "lore",
                "exec_shell",
                "agent",
                "access",
            ],
        );
        config.non_accessible_globs = super::toml_access(root, &mut self.problems);
        for (key, value) in root {
            match key.as_str() {
                "artifact_dir" => {
                    if let Some(p) = self.path(key, value) {
                        config.artifact_dir = p;
                    }
                }
                "read_files" => {
                    let Some(t) = self.table(key, value) else {
                        continue;
                    };
                    self.unknown_keys(key, t, &["budget_bytes"]);
                    if let Some(v) = t.get("budget_bytes")
                        && let Some(n) = self.count("read_files.budget_bytes", v, 1)
                    {
                        config.read_budget_bytes = n;
                    }
                }
                "lore" => {
                    let Some(t) = self.table(key, value) else {
                        continue;
                    };
                    self.unknown_keys(key, t, &["libraries"]);
                    if let Some(v) = t.get("libraries")
                        && let Some(items) = self.strings("lore.libraries", v)
                    {
                        let mut libraries = Vec::new();
                        for (i, item) in items.iter().enumerate() {
                            let key = format!("lore.libraries[{i}]");
                            if let Some(p) = self.path(&key, &Value::String(item.clone())) {
                                libraries.push(p);
                            }
                        }
                        config.lore_libraries = libraries;
                    }
                }
                "exec_shell" => {
                    let Some(t) = self.table(key, value) else {
                        continue;
                    };
                    self.unknown_keys(
                        key,
                        t,
                        &["timeout_secs", "output_cap_chars", "max_artifact_bytes"],
                    );
                    if let Some(v) = t.get("timeout_secs")
                        && let Some(d) = self.seconds("exec_shell.timeout_secs", v)
                    {
                        config.shell_timeout = d;
                    }
                    if let Some(v) = t.get("output_cap_chars")
                        && let Some(n) =
                            self.count("exec_shell.output_cap_chars", v, MIN_OUTPUT_CAP)
                    {
                        config.output_cap_chars = usize::try_from(n).unwrap_or(usize::MAX);
                    }
                    if let Some(v) = t.get("max_artifact_bytes")
                        && let Some(n) = self.count("exec_shell.max_artifact_bytes", v, 1)
                    {
                        config.max_artifact_bytes = n;
                    }
                }
                "agent" => {
                    if let Some(t) = self.table(key, value) {
                        config.agent = self.agent(t);
                    }
                }
                _ => {}
            }
        }
        config
    }

    fn agent(&mut self, t: &Table) -> Option<AgentConfig> {
        self.unknown_keys(
            "agent",
            t,
            &["command", "model_args", "tools_args", "timeout_secs"],
        );
        let command = match t.get("command") {
            None => {
                self.problem(
                    "agent.command",
                    "missing: the [agent] section needs command, the sub-agent's program and \
                     arguments, e.g. command = [\"my-agent\", \"--print\", \"{prompt}\"]; remove \
                     the section to turn the agent tool off",
                );
                None
            }
            Some(v) => match self.arguments("agent.command", v) {
                Some(c) if c.first().is_some_and(|p| !p.trim().is_empty()) => Some(c),
                Some(_) => {
                    self.problem(
                        "agent.command",
                        "must start with the program to run, not be empty or start with an \
                         empty string",
                    );
                    None
                }
                None => None,
            },
        };
        let mut agent = AgentConfig::new(command.unwrap_or_default());
        if let Some(v) = t.get("model_args")
            && let Some(a) = self.arguments("agent.model_args", v)
        {
            agent.model_args = a;
        }
        if let Some(v) = t.get("tools_args")
            && let Some(a) = self.arguments("agent.tools_args", v)
        {
            agent.tools_args = a;
        }
        if let Some(v) = t.get("timeout_secs")
            && let Some(d) = self.seconds("agent.timeout_secs", v)
        {
            agent.timeout = d;
        }
        (!agent.command.is_empty()).then_some(agent)
    }
}

/// Checks that every `{name}` of `template` is a known placeholder and braces are balanced.
fn check_template(template: &str) -> Result<(), String> {
    expand(template, &|name| {
        AGENT_PLACEHOLDERS.contains(&name).then(String::new)
    })
    .map(drop)
}

/// `template` with each `{name}` replaced by `value(name)`; `{{` and `}}` are literal braces.
/// An unknown placeholder (`value` gives `None`) or a lone brace is an error message.
pub fn expand(template: &str, value: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(at) = rest.find(['{', '}']) {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if let Some(after) = tail.strip_prefix("{{") {
            out.push('{');
            rest = after;
        } else if let Some(after) = tail.strip_prefix("}}") {
            out.push('}');
            rest = after;
        } else if tail.starts_with('}') {
            return Err(format!(
                "{template:?} has a lone }}; write }}}} for a literal brace"
            ));
        } else {
            let Some(end) = tail.find('}') else {
                return Err(format!(
                    "{template:?} has a {{ without its closing }}; write {{{{ for a literal brace"
                ));
            };
            let name = &tail[1..end];
            match value(name) {
                Some(v) => out.push_str(&v),
                None => {
                    return Err(format!(
                        "{template:?} holds the unknown placeholder {{{name}}}; the placeholders \
                         are {}",
                        AGENT_PLACEHOLDERS
                            .iter()
                            .map(|p| format!("{{{p}}}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
            }
            rest = &tail[end + 1..];
        }
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_file_means_the_spec_defaults_and_no_agent() {
        let c = SgptConfig::parse("", "x").unwrap();
        assert_eq!(c, SgptConfig::default());
        assert_eq!(c.shell_timeout, Duration::from_secs(120));
        assert_eq!(c.output_cap_chars, 30_000);
        assert!(c.agent.is_none());
    }

    #[test]
    fn the_documented_example_parses() {
        let text = r#"
artifact_dir = "out/artifacts"
[read_files]
budget_bytes = 1000
[lore]
libraries = ["docs/lore", "/abs/lore"]
[exec_shell]
timeout_secs = 1.5
output_cap_chars = 500
max_artifact_bytes = 4096
[agent]
command = ["my-agent", "--print", "{prompt}", "{{literal}}"]
model_args = ["--model", "{model}"]
tools_args = ["--tools", "{tools}"]
timeout_secs = 30
"#;
        let c = SgptConfig::parse(text, "x").unwrap();
        assert_eq!(c.artifact_dir, PathBuf::from("out/artifacts"));
        assert_eq!(c.read_budget_bytes, 1000);
        assert_eq!(c.lore_libraries.len(), 2);
        assert_eq!(c.shell_timeout, Duration::from_millis(1500));
        assert_eq!(c.output_cap_chars, 500);
        assert_eq!(c.max_artifact_bytes, 4096);
        let agent = c.agent.unwrap();
        assert_eq!(agent.command.len(), 4);
        assert_eq!(agent.timeout, Duration::from_secs(30));
    }

    #[test]
    fn one_refusal_names_every_bad_value() {
        let text = r#"
artefact_dir = "x"
[exec_shell]
timeout_secs = 0
output_cap_chars = 10
[lore]
libraries = ["", 3]
[agent]
command = ["run", "{promt}"]
"#;
        let err = SgptConfig::parse(text, "cfg.toml").unwrap_err();
        let keys: Vec<&str> = err.problems.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(
            keys,
            vec![
                "artefact_dir",
                "exec_shell.timeout_secs",
                "exec_shell.output_cap_chars",
                "lore.libraries[1]",
                "agent.command[1]",
            ],
            "{err}"
        );
        let text = err.to_string();
        assert!(
            text.starts_with("configuration cfg.toml refused: 5 problems"),
            "{text}"
        );
        assert!(text.contains("unknown placeholder {promt}"), "{text}");
    }

    #[test]
    fn an_agent_section_without_command_is_refused() {
        let err = SgptConfig::parse("[agent]\ntimeout_secs = 3\n", "x").unwrap_err();
        assert_eq!(err.problems[0].key, "agent.command");
    }

    #[test]
    fn expand_fills_placeholders_and_escapes_braces() {
        let v = |n: &str| (n == "model").then(|| "m1".to_string());
        assert_eq!(expand("--model={model}", &v).unwrap(), "--model=m1");
        assert_eq!(expand("{{x}}", &v).unwrap(), "{x}");
        assert!(expand("{nope}", &v).is_err());
        assert!(expand("a}b", &v).is_err());
        assert!(expand("a{b", &v).is_err());
    }
}
