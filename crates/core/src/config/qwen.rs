//! The qwen profile's configuration, in Qwen Code's own `settings.json` shape, so a
//! project's `.qwen/settings.json` or the user's `~/.qwen/settings.json` can be passed as is:
//!
//! ```json
//! {
//!   "general": { "defaultFileEncoding": "utf-8-bom" },
//!   "context": {
//!     "fileFiltering": {
//!       "respectGitIgnore": true,
//!       "respectQwenIgnore": true,
//!       "customIgnoreFiles": [".agentignore", ".aiignore"],
//!       "nonAccessibleGlobs": ["**/.env", "**/.env.*", "**/*.pem", "**/*.key"]
//!     }
//!   },
//!   "model": { "modalities": { "image": true, "pdf": false } }
//! }
//! ```
//!
//! Keys this profile does not use (Qwen Code's many other settings) are left alone, so a real
//! settings file works unchanged; `//` and `/* */` comments are allowed, as Qwen Code allows
//! them. The keys it does use are validated, and one refusal names every bad value.

use std::path::Path;

use serde_json::{Map, Value};

use super::json::{JsonChecks, describe};
use super::{ConfigError, Problem};
use crate::text::encoding::DefaultEncoding;

/// The ignore file Qwen Code always honours when `respectQwenIgnore` is on.
pub const QWEN_IGNORE_FILE: &str = ".qwenignore";

/// The custom ignore files when `customIgnoreFiles` is not set (Qwen Code's defaults).
pub const DEFAULT_CUSTOM_IGNORE_FILES: [&str; 2] = [".agentignore", ".aiignore"];

/// Which media the model can take as input (`model.modalities`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Modalities {
    /// Images are attached as image content. By default `true`.
    pub image: bool,
    /// PDFs are attached as an embedded resource. By default `false`.
    pub pdf: bool,
}

impl Default for Modalities {
    fn default() -> Self {
        Modalities {
            image: true,
            pdf: false,
        }
    }
}

/// The qwen configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QwenConfig {
    /// `general.defaultFileEncoding`: the encoding of new files. By default unset (UTF-8
    /// without BOM, with the platform's adjustments).
    pub default_file_encoding: DefaultEncoding,
    /// `context.fileFiltering.respectGitIgnore`: glob, grep_search and (unless a call says
    /// otherwise) list_directory skip what `.gitignore` excludes. By default `true`.
    pub respect_git_ignore: bool,
    /// `context.fileFiltering.respectQwenIgnore`: `.qwenignore` and the custom ignore files
    /// apply. By default `true`.
    pub respect_qwen_ignore: bool,
    /// `context.fileFiltering.customIgnoreFiles`: ignore files beside `.qwenignore`, relative
    /// to the workspace root. By default `.agentignore` and `.aiignore`.
    pub custom_ignore_files: Vec<String>,
    /// `model.modalities`: what the model can see.
    pub modalities: Modalities,
    /// `context.fileFiltering.nonAccessibleGlobs` (fsgate's own key, as the coder profile's
    /// `non_accessible_globs`): files (globset syntax, relative to their root, any letter case)
    /// no tool reads, writes, searches or lists. By default none.
    pub non_accessible_globs: Vec<String>,
}

impl Default for QwenConfig {
    fn default() -> Self {
        QwenConfig {
            default_file_encoding: DefaultEncoding::Unset,
            respect_git_ignore: true,
            respect_qwen_ignore: true,
            custom_ignore_files: DEFAULT_CUSTOM_IGNORE_FILES.map(String::from).to_vec(),
            modalities: Modalities::default(),
            non_accessible_globs: Vec::new(),
        }
    }
}

impl QwenConfig {
    /// Reads and validates the settings file at `path`.
    pub fn load(path: &Path) -> Result<QwenConfig, ConfigError> {
        let text = super::read_file(path)?;
        QwenConfig::parse(&text, &path.display().to_string())
    }

    /// Qwen Code's own settings files for the workspace at `root`, when no file is named: the
    /// user's `HOME/.qwen/settings.json`, then the project's `root/.qwen/settings.json`, the
    /// project's values overriding the user's key by key. Missing files are skipped; with
    /// neither, the defaults.
    pub fn discover(root: &Path, home: Option<&Path>) -> Result<QwenConfig, ConfigError> {
        let mut config = QwenConfig::default();
        let files = home
            .map(|h| h.join(".qwen/settings.json"))
            .into_iter()
            .chain([root.join(".qwen/settings.json")]);
        for path in files {
            #[allow(clippy::disallowed_methods)] // the configuration is not workspace I/O
            match std::fs::read_to_string(&path) {
                Ok(text) => config.apply(&text, &path.display().to_string())?,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    return Err(ConfigError {
                        source_name: path.display().to_string(),
                        problems: vec![Problem {
                            key: String::new(),
                            message: format!("cannot read the file: {e}"),
                        }],
                    });
                }
            }
        }
        Ok(config)
    }

    /// Validates settings `text` (JSON, comments allowed); `source_name` names it in the
    /// refusal.
    pub fn parse(text: &str, source_name: &str) -> Result<QwenConfig, ConfigError> {
        let mut config = QwenConfig::default();
        config.apply(text, source_name)?;
        Ok(config)
    }

    /// Applies the values `text` sets over this configuration, or refuses with every problem
    /// (leaving it unchanged).
    fn apply(&mut self, text: &str, source_name: &str) -> Result<(), ConfigError> {
        let mut v = Validator::default();
        let mut config = self.clone();
        match serde_json::from_str::<Value>(&strip_comments(text)) {
            Ok(Value::Object(root)) => v.root(&root, &mut config),
            Ok(other) => v.c.problem(
                "",
                format!(
                    "the settings must be a JSON object, not {}",
                    describe(&other)
                ),
            ),
            Err(e) => v.c.problem("", format!("not valid JSON: {e}")),
        }
        *self = ConfigError::unless_empty(source_name, v.c.problems, config)?;
        Ok(())
    }

    /// The ignore files that apply, relative to the workspace root: `.qwenignore` last (it
    /// takes precedence), after the custom ones; none when `respectQwenIgnore` is off.
    pub fn qwen_ignore_files(&self) -> Vec<String> {
        if !self.respect_qwen_ignore {
            return Vec::new();
        }
        let mut files: Vec<String> = self
            .custom_ignore_files
            .iter()
            .filter(|f| f.as_str() != QWEN_IGNORE_FILE)
            .cloned()
            .collect();
        files.push(QWEN_IGNORE_FILE.to_string());
        files
    }
}

/// The checks of this file's own sections, over the shared JSON checks.
#[derive(Default)]
struct Validator {
    c: JsonChecks,
}

impl Validator {
    fn root(&mut self, root: &Map<String, Value>, config: &mut QwenConfig) {
        // Sections are visited in the file's order, so problems come in file order.
        for (name, value) in root {
            match name.as_str() {
                "general" => {
                    let Some(general) = self.c.object("general", value) else {
                        continue;
                    };
                    if let Some(value) = general.get("defaultFileEncoding") {
                        self.encoding(value, config);
                    }
                }
                "context" => {
                    let Some(context) = self.c.object("context", value) else {
                        continue;
                    };
                    if let Some(filtering) = context.get("fileFiltering") {
                        self.filtering(filtering, config);
                    }
                }
                "model" => {
                    let Some(model) = self.c.object("model", value) else {
                        continue;
                    };
                    if let Some(modalities) = model.get("modalities") {
                        self.modalities(modalities, config);
                    }
                }
                _ => {}
            }
        }
    }

    fn encoding(&mut self, value: &Value, config: &mut QwenConfig) {
        const KEY: &str = "general.defaultFileEncoding";
        match value {
            Value::Null => config.default_file_encoding = DefaultEncoding::Unset,
            Value::String(s) => match DefaultEncoding::parse(Some(s)) {
                Ok(encoding) => config.default_file_encoding = encoding,
                Err(_) => self.c.problem(
                    KEY,
                    format!(
                        "{s:?} is not a known value; use \"utf-8\" (UTF-8 without BOM) or \
                         \"utf-8-bom\" (UTF-8 with BOM), or leave it out for UTF-8 without BOM \
                         with the platform's adjustments"
                    ),
                ),
            },
            other => self.c.problem(
                KEY,
                format!(
                    "must be \"utf-8\" or \"utf-8-bom\", not {}",
                    describe(other)
                ),
            ),
        }
    }

    fn filtering(&mut self, value: &Value, config: &mut QwenConfig) {
        const PREFIX: &str = "context.fileFiltering";
        let Some(filtering) = self.c.object(PREFIX, value) else {
            return;
        };
        for (name, value) in filtering {
            let key = format!("{PREFIX}.{name}");
            match name.as_str() {
                "respectGitIgnore" => {
                    if let Some(b) = self.c.bool(&key, value) {
                        config.respect_git_ignore = b;
                    }
                }
                "respectQwenIgnore" => {
                    if let Some(b) = self.c.bool(&key, value) {
                        config.respect_qwen_ignore = b;
                    }
                }
                "customIgnoreFiles" => self.custom_files(&key, value, config),
                "nonAccessibleGlobs" => {
                    if let Some(globs) = self.c.secret_globs(&key, value) {
                        config.non_accessible_globs = globs;
                    }
                }
                // Qwen Code's other filtering settings (fuzzy search, ...) do not apply here.
                _ => {}
            }
        }
    }

    fn custom_files(&mut self, key: &str, value: &Value, config: &mut QwenConfig) {
        let Value::Array(items) = value else {
            self.c.problem(
                key,
                format!(
                    "must be a list of file names relative to the workspace root, not {}",
                    describe(value)
                ),
            );
            return;
        };
        let mut files = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let key = format!("{key}[{i}]");
            let Value::String(name) = item else {
                self.c.problem(
                    &key,
                    format!(
                        "must be a file name relative to the workspace root, not {}",
                        describe(item)
                    ),
                );
                continue;
            };
            let candidate = name.trim().replace('\\', "/");
            let why = if candidate.is_empty() {
                Some("is empty")
            } else if candidate.starts_with('/') || Path::new(&candidate).is_absolute() {
                Some("is absolute")
            } else if candidate.split('/').any(|part| part == "..") {
                Some("climbs out of the workspace with ..")
            } else if candidate.contains('\0') {
                Some("holds a NUL byte")
            } else {
                None
            };
            match why {
                Some(why) => self.c.problem(
                    &key,
                    format!(
                        "{name:?} {why}; name an ignore file relative to the workspace root, \
                         e.g. \".aiignore\""
                    ),
                ),
                None if !files.contains(&candidate) => files.push(candidate),
                None => {}
            }
        }
        config.custom_ignore_files = files;
    }

    fn modalities(&mut self, value: &Value, config: &mut QwenConfig) {
        const PREFIX: &str = "model.modalities";
        let Some(modalities) = self.c.object(PREFIX, value) else {
            return;
        };
        for (name, value) in modalities {
            let key = format!("{PREFIX}.{name}");
            match name.as_str() {
                "image" => {
                    if let Some(b) = self.c.bool(&key, value) {
                        config.modalities.image = b;
                    }
                }
                "pdf" => {
                    if let Some(b) = self.c.bool(&key, value) {
                        config.modalities.pdf = b;
                    }
                }
                "audio" | "video" => {
                    if value != &Value::Bool(false) {
                        self.c.problem(
                            &key,
                            format!(
                                "only false is supported: read_file describes {name} files \
                                 and never attaches them"
                            ),
                        );
                    }
                }
                _ => self.c.problem(
                    &key,
                    "unknown modality; the modalities are \"image\", \"pdf\", \"audio\", \
                     \"video\"",
                ),
            }
        }
    }
}

/// `text` with `//` line comments and `/* */` block comments outside strings blanked out
/// (kept as spaces and newlines, so JSON error positions stay right).
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => {
                    if let Some(next) = chars.next() {
                        out.push(next);
                    }
                }
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                chars.next();
                out.push_str("  ");
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                    out.push(' ');
                }
            }
            ('/', Some('*')) => {
                chars.next();
                out.push_str("  ");
                let mut prev = ' ';
                for c in chars.by_ref() {
                    out.push(if c == '\n' { '\n' } else { ' ' });
                    if prev == '*' && c == '/' {
                        break;
                    }
                    prev = c;
                }
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn no_settings_mean_the_defaults() {
        let config = QwenConfig::parse("{}", "s.json").unwrap();
        assert_eq!(config, QwenConfig::default());
        assert_eq!(
            config.qwen_ignore_files(),
            [".agentignore", ".aiignore", ".qwenignore"]
        );
        assert!(config.modalities.image && !config.modalities.pdf);
    }

    #[test]
    fn a_real_settings_file_with_comments_and_other_keys_parses() {
        let text = r#"{
          // Qwen Code's own settings are left alone.
          "mcpServers": {"x": {"command": "y"}},
          "general": {"vimMode": true, "defaultFileEncoding": "utf-8-bom"},
          /* filtering */
          "context": {"fileFiltering": {"respectGitIgnore": false, "enableFuzzySearch": true,
                      "customIgnoreFiles": ["cfg/agent.ignore", ".aiignore", ".aiignore"]}},
          "model": {"name": "qwen3-coder", "modalities": {"image": false, "pdf": true}}
        }"#;
        let config = QwenConfig::parse(text, "s.json").unwrap();
        assert_eq!(config.default_file_encoding, DefaultEncoding::Utf8Bom);
        assert!(!config.respect_git_ignore && config.respect_qwen_ignore);
        assert_eq!(
            config.custom_ignore_files,
            ["cfg/agent.ignore", ".aiignore"]
        );
        assert_eq!(
            config.modalities,
            Modalities {
                image: false,
                pdf: true
            }
        );
    }

    #[test]
    fn one_refusal_names_every_bad_value_in_file_order() {
        let text = r#"{
          "general": {"defaultFileEncoding": "gbk"},
          "context": {"fileFiltering": {"respectQwenIgnore": "yes",
                      "customIgnoreFiles": ["/etc/ignore", "../up", 3]}},
          "model": {"modalities": {"vision": true, "audio": true}}
        }"#;
        let err = QwenConfig::parse(text, "s.json").unwrap_err();
        let keys: Vec<&str> = err.problems.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "general.defaultFileEncoding",
                "context.fileFiltering.respectQwenIgnore",
                "context.fileFiltering.customIgnoreFiles[0]",
                "context.fileFiltering.customIgnoreFiles[1]",
                "context.fileFiltering.customIgnoreFiles[2]",
                "model.modalities.vision",
                "model.modalities.audio",
            ]
        );
        assert!(
            err.to_string()
                .starts_with("configuration s.json refused: 7 problems")
        );
    }

    #[test]
    fn invalid_json_is_one_problem() {
        let err = QwenConfig::parse("{\"general\": ", "s.json").unwrap_err();
        assert_eq!(err.problems.len(), 1);
        assert!(err.problems[0].message.starts_with("not valid JSON"));
    }

    #[test]
    fn qwen_ignore_off_means_no_ignore_files() {
        let config = QwenConfig::parse(
            r#"{"context": {"fileFiltering": {"respectQwenIgnore": false}}}"#,
            "s.json",
        )
        .unwrap();
        assert!(config.qwen_ignore_files().is_empty());
    }

    #[test]
    fn discover_layers_the_project_over_the_user() {
        let home = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        assert_eq!(
            QwenConfig::discover(root.path(), Some(home.path())).unwrap(),
            QwenConfig::default()
        );
        std::fs::create_dir_all(home.path().join(".qwen")).unwrap();
        std::fs::write(
            home.path().join(".qwen/settings.json"),
            r#"{"general": {"defaultFileEncoding": "utf-8-bom"}, "model": {"modalities": {"pdf": true}}}"#,
        )
        .unwrap();
        std::fs::create_dir_all(root.path().join(".qwen")).unwrap();
        std::fs::write(
            root.path().join(".qwen/settings.json"),
            r#"{"general": {"defaultFileEncoding": "utf-8"}}"#,
        )
        .unwrap();
        let config = QwenConfig::discover(root.path(), Some(home.path())).unwrap();
        assert_eq!(config.default_file_encoding, DefaultEncoding::Utf8);
        assert!(config.modalities.pdf);
    }

    #[test]
    fn comments_inside_strings_are_kept() {
        assert_eq!(
            strip_comments(r#"{"a": "http://x/*y*/"} // z"#),
            r#"{"a": "http://x/*y*/"}     "#
        );
    }
}
