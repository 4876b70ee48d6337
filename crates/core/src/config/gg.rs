//! The gg profile's configuration: which capabilities are enabled, the read mode and its
//! lineCap, agents' allowlists, whether the model can see images, and the files no tool touches.
//!
//! ```toml
//! [capabilities.read-file]
//! enabled = true
//! implementation = "default-cap"      # or "unlimited"
//! params = { lineCap = 250 }
//! [capabilities.list-dir]             # gives list_dir and tree
//! enabled = true
//! [agents.reviewer]
//! allow = ["read_file", "tree", "search"]
//! [model]
//! vision = true
//! [access]                            # off unless set: files no tool reads, writes or lists
//! non_accessible_globs = ["**/.env", "**/.env.*", "**/*.pem", "**/*.key"]
//! ```
//!
//! Validation collects every problem before refusing, so one refusal names every value that
//! cannot be honoured exactly as written.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

mod budget;
mod code;

pub use code::{Arm, CodeLimits};

use toml::{Table, Value};

use super::{ConfigError, Problem, describe, join, quoted_list, read_file, toml_access};

/// The lineCap used when no configuration file is given.
pub const DEFAULT_LINE_CAP: u64 = 2000;

/// A switchable capability and the calls it buys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Capability {
    /// `read_file`.
    ReadFile,
    /// `write_file`.
    WriteFile,
    /// `edit_file`.
    EditFile,
    /// `list_dir` and `tree`.
    ListDir,
    /// `search`.
    Search,
}

impl Capability {
    /// Every capability, in the order gg's capabilities table lists them.
    pub const ALL: [Capability; 5] = [
        Capability::ReadFile,
        Capability::WriteFile,
        Capability::EditFile,
        Capability::ListDir,
        Capability::Search,
    ];

    /// The capability's name in the configuration.
    pub fn name(self) -> &'static str {
        match self {
            Capability::ReadFile => "read-file",
            Capability::WriteFile => "write-file",
            Capability::EditFile => "edit-file",
            Capability::ListDir => "list-dir",
            Capability::Search => "search",
        }
    }

    /// The tool calls the capability provides.
    pub fn tools(self) -> &'static [&'static str] {
        match self {
            Capability::ReadFile => &["read_file"],
            Capability::WriteFile => &["write_file"],
            Capability::EditFile => &["edit_file"],
            Capability::ListDir => &["list_dir", "tree"],
            Capability::Search => &["search"],
        }
    }

    fn from_name(name: &str) -> Option<Capability> {
        Capability::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// Every tool name of the gg profile.
pub fn all_tools() -> impl Iterator<Item = &'static str> {
    Capability::ALL
        .into_iter()
        .flat_map(|c| c.tools().iter().copied())
}

/// What a read_file call that names no limit returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadMode {
    /// The rest of the file.
    Unlimited,
    /// lineCap lines.
    DefaultCap,
}

impl ReadMode {
    /// The implementation's name in the configuration.
    pub fn name(self) -> &'static str {
        match self {
            ReadMode::Unlimited => "unlimited",
            ReadMode::DefaultCap => "default-cap",
        }
    }
}

/// gg's validated configuration (`--config FILE` with the gg profile).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GgConfig {
    /// Enabled capabilities. By default all five.
    pub enabled: BTreeSet<Capability>,
    /// The read mode. By default [`ReadMode::DefaultCap`].
    pub read_mode: ReadMode,
    /// The window of a read that names no limit under default-cap. By default 2000.
    pub line_cap: u64,
    /// What counting a large file's lines may cost a read (read-file's `countBudgetBytes` and
    /// `countBudgetMs` params). By default 4 GiB of data, no time limit.
    pub count_budget: crate::ops::line_index::CountBudget,
    /// Agents' allowlists of tool names. By default none.
    pub agents: BTreeMap<String, Vec<String>>,
    /// Whether the model can see images. By default `true`.
    pub vision: bool,
    /// `[access] non_accessible_globs`: files (globset syntax, relative to the working
    /// directory or the roots, any letter case) that no tool reads, writes, searches or lists.
    /// By default none.
    pub non_accessible_globs: Vec<String>,
    /// How the model calls the tools (`arm = "code"`). By default [`Arm::Tools`].
    pub arm: Arm,
    /// The bounds of the code arm's programs and views (`[code]`).
    pub code: CodeLimits,
}

impl Default for GgConfig {
    fn default() -> Self {
        GgConfig {
            enabled: Capability::ALL.into_iter().collect(),
            read_mode: ReadMode::DefaultCap,
            line_cap: DEFAULT_LINE_CAP,
            count_budget: Default::default(),
            agents: BTreeMap::new(),
            vision: true,
            non_accessible_globs: Vec::new(),
            arm: Arm::Tools,
            code: CodeLimits::default(),
        }
    }
}

impl GgConfig {
    /// Reads and validates the TOML file at `path`.
    pub fn load(path: &Path) -> Result<GgConfig, ConfigError> {
        let text = read_file(path)?;
        GgConfig::parse(&text, &path.display().to_string())
    }

    /// Validates TOML `text`; `source_name` names it in the refusal.
    pub fn parse(text: &str, source_name: &str) -> Result<GgConfig, ConfigError> {
        let mut v = Validator::default();
        let config = match text.parse::<Table>() {
            Ok(table) => v.config(&table),
            Err(e) => {
                v.problem("", format!("not valid TOML: {}", e.to_string().trim()));
                GgConfig::default()
            }
        };
        ConfigError::unless_empty(source_name, v.problems, config)
    }
}

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
                self.problem(
                    &join(prefix, key),
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

    fn bool(&mut self, key: &str, value: &Value) -> Option<bool> {
        match value {
            Value::Boolean(b) => Some(*b),
            other => {
                self.problem(
                    key,
                    format!("must be true or false, not {}", describe(other)),
                );
                None
            }
        }
    }

    fn config(&mut self, root: &Table) -> GgConfig {
        let mut config = GgConfig::default();
        self.unknown_keys(
            "",
            root,
            &["arm", "capabilities", "agents", "model", "access", "code"],
        );
        self.code(root, &mut config);
        if let Some(caps) = root
            .get("capabilities")
            .and_then(|v| self.table("capabilities", v))
        {
            for (name, value) in caps {
                let key = join("capabilities", name);
                let Some(cap) = Capability::from_name(name) else {
                    let known: Vec<&str> = Capability::ALL.iter().map(|c| c.name()).collect();
                    self.problem(
                        &key,
                        format!(
                            "unknown capability; the capabilities are {}",
                            quoted_list(&known)
                        ),
                    );
                    continue;
                };
                if let Some(table) = self.table(&key, value) {
                    self.capability(&mut config, cap, &key, table);
                }
            }
        }
        if let Some(agents) = root.get("agents").and_then(|v| self.table("agents", v)) {
            for (name, value) in agents {
                let key = join("agents", name);
                if let Some(table) = self.table(&key, value)
                    && let Some(allow) = self.agent(&key, table)
                {
                    config.agents.insert(name.clone(), allow);
                }
            }
        }
        if let Some(model) = root.get("model").and_then(|v| self.table("model", v)) {
            self.unknown_keys("model", model, &["vision"]);
            if let Some(vision) = model.get("vision") {
                config.vision = self.bool("model.vision", vision).unwrap_or(true);
            }
        }
        config.non_accessible_globs = toml_access(root, &mut self.problems);
        config
    }

    fn capability(&mut self, config: &mut GgConfig, cap: Capability, key: &str, table: &Table) {
        let enabled = match table.get("enabled") {
            Some(v) => self.bool(&join(key, "enabled"), v).unwrap_or(true),
            None => true,
        };
        if !enabled {
            config.enabled.remove(&cap);
        }
        if cap != Capability::ReadFile {
            self.unknown_keys(key, table, &["enabled", "implementation", "params"]);
            if let Some(imp) = table.get("implementation")
                && imp.as_str() != Some("default")
            {
                self.problem(
                    &join(key, "implementation"),
                    format!(
                        "{} is not an implementation of {}; its one implementation is \"default\"",
                        describe(imp),
                        cap.name()
                    ),
                );
            }
            if let Some(params) = table.get("params")
                && let Some(params) = self.table(&join(key, "params"), params)
            {
                self.unknown_keys(&join(key, "params"), params, &[]);
            }
            return;
        }
        self.unknown_keys(key, table, &["enabled", "implementation", "params"]);
        let imp_key = join(key, "implementation");
        match table.get("implementation") {
            None => {}
            Some(Value::String(s)) if s == "unlimited" => config.read_mode = ReadMode::Unlimited,
            Some(Value::String(s)) if s == "default-cap" => config.read_mode = ReadMode::DefaultCap,
            Some(other) => self.problem(
                &imp_key,
                format!(
                    "{} is not a read mode; the two modes are \"unlimited\" and \"default-cap\"",
                    describe(other)
                ),
            ),
        }
        let params_key = join(key, "params");
        let params = match table.get("params") {
            Some(v) => self.table(&params_key, v),
            None => None,
        };
        if let Some(params) = params {
            let known = [["lineCap"].as_slice(), &budget::PARAMS].concat();
            self.unknown_keys(&params_key, params, &known);
        }
        let cap_key = join(&params_key, "lineCap");
        match params.and_then(|p| p.get("lineCap")) {
            None if table.get("params").is_some() && params.is_none() => {}
            // A disabled read-file has no window to set.
            None if !enabled => {}
            None => self.problem(
                &cap_key,
                "missing; read-file needs params = { lineCap = N } (a line count of 1 or more) \
                 under either mode",
            ),
            Some(Value::Integer(n)) if *n >= 1 => config.line_cap = *n as u64,
            Some(other) => self.problem(
                &cap_key,
                format!(
                    "{} is not a line count; lineCap must be a whole number of lines, 1 or more",
                    describe(other)
                ),
            ),
        }
        if let Some(params) = params {
            self.count_budget(&params_key, params, &mut config.count_budget);
        }
    }

    fn agent(&mut self, key: &str, table: &Table) -> Option<Vec<String>> {
        self.unknown_keys(key, table, &["allow"]);
        let allow_key = join(key, "allow");
        let Some(allow) = table.get("allow") else {
            self.problem(
                &allow_key,
                "missing; an agent needs allow = [\"tool\", ...] naming the calls it is given",
            );
            return None;
        };
        let Value::Array(items) = allow else {
            self.problem(
                &allow_key,
                format!("must be an array of tool names, not {}", describe(allow)),
            );
            return None;
        };
        let known: Vec<&str> = all_tools().collect();
        let mut out = Vec::new();
        for item in items {
            match item.as_str() {
                Some(name) if known.contains(&name) => out.push(name.to_string()),
                _ => self.problem(
                    &allow_key,
                    format!(
                        "{} is not a tool; the tools are {}",
                        describe(item),
                        quoted_list(&known)
                    ),
                ),
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_file_means_everything_on_default_cap_2000_and_vision() {
        let config = GgConfig::parse("", "t").unwrap();
        assert_eq!(config, GgConfig::default());
        assert_eq!(config.line_cap, 2000);
        assert_eq!(config.read_mode, ReadMode::DefaultCap);
        assert_eq!(config.enabled.len(), 5);
        assert!(config.vision);
    }

    #[test]
    fn the_example_configuration_parses() {
        let config = GgConfig::parse(
            r#"
[capabilities.read-file]
enabled = true
implementation = "unlimited"
params = { lineCap = 250 }
[capabilities.write-file]
enabled = false
[capabilities.edit-file]
enabled = true
[capabilities.list-dir]
enabled = true
[capabilities.search]
enabled = true
[agents.reviewer]
allow = ["read_file", "tree", "search"]
[model]
vision = false
"#,
            "t",
        )
        .unwrap();
        assert_eq!(config.read_mode, ReadMode::Unlimited);
        assert_eq!(config.line_cap, 250);
        assert!(!config.enabled.contains(&Capability::WriteFile));
        assert_eq!(config.agents["reviewer"], ["read_file", "tree", "search"]);
        assert!(!config.vision);
    }

    #[test]
    fn one_refusal_names_every_bad_value() {
        let err = GgConfig::parse(
            r#"
colour = "blue"
[capabilities.read-file]
implementation = "capped"
params = { lineCap = 0 }
[capabilities.serach]
enabled = true
[capabilities.write-file]
enabled = "yes"
[agents.bot]
allow = ["read_file", "delete_file"]
[model]
vision = 1
"#,
            "cfg.toml",
        )
        .unwrap_err();
        insta::assert_snapshot!(err.to_string(), @r#"
        configuration cfg.toml refused: 7 problems
          - colour: unknown key; the keys here are "arm", "capabilities", "agents", "model", "access", "code"
          - capabilities.read-file.implementation: "capped" is not a read mode; the two modes are "unlimited" and "default-cap"
          - capabilities.read-file.params.lineCap: 0 is not a line count; lineCap must be a whole number of lines, 1 or more
          - capabilities.serach: unknown capability; the capabilities are "read-file", "write-file", "edit-file", "list-dir", "search"
          - capabilities.write-file.enabled: must be true or false, not "yes"
          - agents.bot.allow: "delete_file" is not a tool; the tools are "read_file", "write_file", "edit_file", "list_dir", "tree", "search"
          - model.vision: must be true or false, not 1
        "#);
    }

    #[test]
    fn an_absent_line_cap_refuses_under_either_mode() {
        for mode in ["unlimited", "default-cap"] {
            let text = format!("[capabilities.read-file]\nimplementation = \"{mode}\"\n");
            let err = GgConfig::parse(&text, "t").unwrap_err();
            assert_eq!(err.problems.len(), 1, "{err}");
            assert_eq!(err.problems[0].key, "capabilities.read-file.params.lineCap");
        }
    }

    #[test]
    fn line_caps_that_are_not_line_counts_refuse() {
        for bad in ["-3", "2.5", "\"250\"", "true", "[1]"] {
            let text = format!("[capabilities.read-file]\nparams = {{ lineCap = {bad} }}\n");
            let err = GgConfig::parse(&text, "t").unwrap_err();
            assert_eq!(err.problems.len(), 1, "{bad}: {err}");
            assert!(
                err.problems[0].message.contains("not a line count"),
                "{err}"
            );
        }
    }

    #[test]
    fn access_non_accessible_globs_are_read_and_bad_ones_named_by_place() {
        let config = GgConfig::parse(
            "[access]\nnon_accessible_globs = [\"**/.env\", \"**/*.pem\"]\n",
            "t",
        )
        .unwrap();
        assert_eq!(config.non_accessible_globs, ["**/.env", "**/*.pem"]);
        assert!(GgConfig::default().non_accessible_globs.is_empty());
        let err = GgConfig::parse(
            "[access]\nnon_accessible_globs = [\"**/.env\", \"**/[.pem\", 3]\nsecrets = 1\n",
            "t",
        )
        .unwrap_err();
        let keys: Vec<&str> = err.problems.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "access.secrets",
                "access.non_accessible_globs[1]",
                "access.non_accessible_globs[2]"
            ],
            "{err}"
        );
    }

    #[test]
    fn invalid_toml_is_one_problem_naming_the_place() {
        let err = GgConfig::parse("[capabilities\n", "t").unwrap_err();
        assert_eq!(err.problems.len(), 1);
        assert!(
            err.problems[0].message.starts_with("not valid TOML"),
            "{err}"
        );
    }
}
