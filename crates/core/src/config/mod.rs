//! Every profile's configuration, one file each: gg's TOML (`gg.rs`), the coder worker's YAML
//! (`coder.rs`), Qwen Code's settings.json (`qwen.rs`), PicoClaw's JSON (`picoclaw.rs`) and
//! sgpt's TOML (`sgpt.rs`); [`crate::ProfileConfig`] holds the one a workspace opens with. Here
//! is what they share: the refusal that names every problem, the check of the non-accessible
//! globs, and how a TOML value is named in a problem.
//!
//! Every profile takes the coder profile's non-accessible globs in its own configuration
//! (gg's and sgpt's `[access] non_accessible_globs`, qwen's
//! `context.fileFiltering.nonAccessibleGlobs`, picoclaw's `tools.non_accessible_globs`), checked
//! here by `check_secret_globs` exactly as the access layer compiles them, and enforced by
//! the access layer's one secret test.
//!
//! Validation collects every problem before refusing, so one refusal names every value that
//! cannot be honoured exactly as written.

use std::fmt;
use std::path::Path;

pub mod coder;
pub mod gg;
mod json;
pub mod native;
pub mod picoclaw;
pub mod qwen;
pub mod sgpt;

use toml::{Table, Value};

/// One value of a configuration that cannot be honoured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The dotted key the problem is at (empty for the file as a whole).
    pub key: String,
    /// What is wrong and what would be accepted.
    pub message: String,
}

/// Every problem of a configuration, reported together.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ConfigError {
    /// Where the configuration came from.
    pub source_name: String,
    /// The problems, section by section in the order of the file.
    pub problems: Vec<Problem>,
}

impl ConfigError {
    /// `value` when there are no `problems`, else the refusal naming them all.
    pub fn unless_empty<T>(
        source_name: &str,
        problems: Vec<Problem>,
        value: T,
    ) -> Result<T, ConfigError> {
        if problems.is_empty() {
            Ok(value)
        } else {
            Err(ConfigError {
                source_name: source_name.to_string(),
                problems,
            })
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.problems.len();
        write!(
            f,
            "configuration {} refused: {n} problem{}",
            self.source_name,
            if n == 1 { "" } else { "s" }
        )?;
        for p in &self.problems {
            if p.key.is_empty() {
                write!(f, "\n  - {}", p.message)?;
            } else {
                write!(f, "\n  - {}: {}", p.key, p.message)?;
            }
        }
        Ok(())
    }
}

/// The text of a configuration file, or the one problem of not being able to read it.
pub(crate) fn read_file(path: &Path) -> Result<String, ConfigError> {
    #[allow(clippy::disallowed_methods)] // the configuration is not workspace I/O
    std::fs::read_to_string(path).map_err(|e| ConfigError {
        source_name: path.display().to_string(),
        problems: vec![Problem {
            key: String::new(),
            message: format!("cannot read the file: {e}"),
        }],
    })
}

/// Checks non-accessible (secret) globs exactly as the access layer compiles them (globset
/// syntax, any letter case), so a configuration that passes opens a workspace: each pattern
/// that does not compile is a problem at `key[i]`.
pub(crate) fn check_secret_globs(key: &str, globs: &[String]) -> Vec<Problem> {
    globs
        .iter()
        .enumerate()
        .filter_map(|(i, glob)| check_secret_glob(&format!("{key}[{i}]"), glob))
        .collect()
}

/// The problem of one non-accessible glob at `key`, if it does not compile.
pub(crate) fn check_secret_glob(key: &str, glob: &str) -> Option<Problem> {
    crate::access::jail::compile_glob(glob, true)
        .err()
        .map(|e| Problem {
            key: key.to_string(),
            message: format!(
                "{glob:?} is not a glob pattern: {}; write one like \"**/.env\" or \"**/*.pem\"",
                e.kind()
            ),
        })
}

/// The `[access]` table of a TOML configuration (gg's, sgpt's): its one key,
/// `non_accessible_globs`, a list of globs checked by [`check_secret_globs`]. Problems are
/// added to `problems`; what is valid is returned (none when absent).
pub(crate) fn toml_access(root: &Table, problems: &mut Vec<Problem>) -> Vec<String> {
    let mut problem = |key: &str, message: String| {
        problems.push(Problem {
            key: key.to_string(),
            message,
        });
    };
    let Some(access) = root.get("access") else {
        return Vec::new();
    };
    let Value::Table(access) = access else {
        problem(
            "access",
            format!("must be a table, not {}", describe(access)),
        );
        return Vec::new();
    };
    for key in access.keys() {
        if key != "non_accessible_globs" {
            problem(
                &join("access", key),
                "unknown key; the keys here are \"non_accessible_globs\"".to_string(),
            );
        }
    }
    const KEY: &str = "access.non_accessible_globs";
    let Some(value) = access.get("non_accessible_globs") else {
        return Vec::new();
    };
    let Value::Array(items) = value else {
        problem(
            KEY,
            format!(
                "must be an array of glob patterns, e.g. [\"**/.env\", \"**/*.pem\"], not {}",
                describe(value)
            ),
        );
        return Vec::new();
    };
    let mut globs = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let key = format!("{KEY}[{i}]");
        match item.as_str() {
            Some(glob) => match check_secret_glob(&key, glob) {
                Some(bad) => problem(&bad.key, bad.message),
                None => globs.push(glob.to_string()),
            },
            None => problem(
                &key,
                format!("must be a glob pattern string, not {}", describe(item)),
            ),
        }
    }
    globs
}

/// `prefix.key`, the key quoted when it is not a plain word.
pub(crate) fn join(prefix: &str, key: &str) -> String {
    let key = if key.is_empty()
        || key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        key.to_string()
    } else {
        format!("{key:?}")
    };
    if prefix.is_empty() {
        key
    } else {
        format!("{prefix}.{key}")
    }
}

/// `"a", "b"` (or `none`), for the lists of accepted values in problems.
pub(crate) fn quoted_list(items: &[&str]) -> String {
    if items.is_empty() {
        return "none".to_string();
    }
    items
        .iter()
        .map(|s| format!("\"{s}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// How a TOML value is named in a problem: strings quoted, containers by kind.
pub(crate) fn describe(value: &Value) -> String {
    match value {
        Value::String(s) => format!("{s:?}"),
        Value::Table(_) => "a table".to_string(),
        Value::Array(_) => "an array".to_string(),
        other => other.to_string(),
    }
}
