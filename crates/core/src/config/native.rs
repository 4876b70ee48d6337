//! The native profile's configuration (TOML, as gg's):
//!
//! ```toml
//! [access]                       # off unless set: files no tool reads, lists or writes
//! non_accessible_globs = ["**/.env", "**/*.pem", "**/*.key"]
//! [read]
//! line_cap = 2000                # lines a read_file that names no limit returns
//! outline_over_bytes = 262144    # a whole-file read of a larger file gets its outline first
//! [edit]
//! syntax_errors = "report"       # report | refuse | off: new syntax errors an edit introduces
//! [undo]
//! max_steps = 200                # mutations the session can undo
//! max_bytes = 67108864           # bytes of earlier content kept for undo
//! journal_dir = "/abs/folder"    # rollback journals of multi-file changes (default: the
//!                                # user's state folder, see access::txn)
//! ```
//!
//! Validation collects every problem before refusing.

use std::path::Path;

use toml::{Table, Value};

use super::{ConfigError, Problem, describe, join, quoted_list};

/// What an edit does with the syntax errors it would introduce.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SyntaxErrors {
    /// Writes, and says which lines now have errors.
    #[default]
    Report,
    /// Refuses the edit, naming the errors; nothing is written.
    Refuse,
    /// Does not parse.
    Off,
}

impl SyntaxErrors {
    const NAMES: [&'static str; 3] = ["report", "refuse", "off"];

    fn from_name(name: &str) -> Option<SyntaxErrors> {
        match name {
            "report" => Some(SyntaxErrors::Report),
            "refuse" => Some(SyntaxErrors::Refuse),
            "off" => Some(SyntaxErrors::Off),
            _ => None,
        }
    }
}

/// The native configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NativeConfig {
    /// Files no tool reads, lists or writes. By default none.
    pub non_accessible_globs: Vec<String>,
    /// Lines a read that names no limit returns. By default 2,000.
    pub line_cap: u64,
    /// A read of the whole of a file larger than this many bytes (no offset, no limit) gets the
    /// file's outline ahead of its first lines. By default 256 KiB.
    pub outline_over_bytes: u64,
    /// What edits do with new syntax errors. By default they are reported.
    pub syntax_errors: SyntaxErrors,
    /// Mutations one session can undo. By default 200.
    pub undo_steps: usize,
    /// Bytes of earlier content the undo journal keeps. By default 64 MiB.
    pub undo_bytes: u64,
    /// Where multi-file changes write their rollback journal. By default the user's state
    /// folder (see `access::txn::journal_dir`).
    pub journal_dir: Option<std::path::PathBuf>,
}

impl Default for NativeConfig {
    fn default() -> Self {
        NativeConfig {
            non_accessible_globs: Vec::new(),
            line_cap: 2000,
            outline_over_bytes: 256 << 10,
            syntax_errors: SyntaxErrors::Report,
            undo_steps: 200,
            undo_bytes: 64 << 20,
            journal_dir: None,
        }
    }
}

impl NativeConfig {
    /// Reads and validates the TOML file at `path`.
    pub fn load(path: &Path) -> Result<NativeConfig, ConfigError> {
        let text = super::read_file(path)?;
        NativeConfig::parse(&text, &path.display().to_string())
    }

    /// Validates TOML `text`; `source_name` names it in the refusal.
    pub fn parse(text: &str, source_name: &str) -> Result<NativeConfig, ConfigError> {
        let mut problems = Vec::new();
        let config = match text.parse::<Table>() {
            Ok(table) => config(&table, &mut problems),
            Err(e) => {
                problems.push(Problem {
                    key: String::new(),
                    message: format!("not valid TOML: {}", e.to_string().trim()),
                });
                NativeConfig::default()
            }
        };
        ConfigError::unless_empty(source_name, problems, config)
    }
}

fn problem(problems: &mut Vec<Problem>, key: &str, message: impl Into<String>) {
    problems.push(Problem {
        key: key.to_string(),
        message: message.into(),
    });
}

/// The table at `key` of `root`, its unknown keys told.
fn section<'a>(
    root: &'a Table,
    key: &str,
    known: &[&str],
    problems: &mut Vec<Problem>,
) -> Option<&'a Table> {
    let value = root.get(key)?;
    let Value::Table(table) = value else {
        problem(
            problems,
            key,
            format!("must be a table, not {}", describe(value)),
        );
        return None;
    };
    for name in table.keys() {
        if !known.contains(&name.as_str()) {
            problem(
                problems,
                &join(key, name),
                format!("unknown key; the keys here are {}", quoted_list(known)),
            );
        }
    }
    Some(table)
}

/// A whole number from `min` to `max` at `table.name`, if given.
fn number(
    table: &Table,
    prefix: &str,
    name: &str,
    (min, max): (i64, i64),
    problems: &mut Vec<Problem>,
) -> Option<u64> {
    let value = table.get(name)?;
    match value {
        Value::Integer(n) if (min..=max).contains(n) => u64::try_from(*n).ok(),
        other => {
            problem(
                problems,
                &join(prefix, name),
                format!(
                    "must be a whole number from {min} to {max}, not {}",
                    describe(other)
                ),
            );
            None
        }
    }
}

fn config(root: &Table, problems: &mut Vec<Problem>) -> NativeConfig {
    let mut config = NativeConfig::default();
    for key in root.keys() {
        if !["access", "read", "edit", "undo"].contains(&key.as_str()) {
            problem(
                problems,
                key,
                "unknown key; the sections are \"access\", \"read\", \"edit\", \"undo\"",
            );
        }
    }
    config.non_accessible_globs = super::toml_access(root, problems);
    if let Some(read) = section(root, "read", &["line_cap", "outline_over_bytes"], problems) {
        if let Some(n) = number(read, "read", "line_cap", (1, 1_000_000), problems) {
            config.line_cap = n;
        }
        if let Some(n) = number(read, "read", "outline_over_bytes", (1, 1 << 40), problems) {
            config.outline_over_bytes = n;
        }
    }
    if let Some(edit) = section(root, "edit", &["syntax_errors"], problems)
        && let Some(value) = edit.get("syntax_errors")
    {
        match value.as_str().and_then(SyntaxErrors::from_name) {
            Some(s) => config.syntax_errors = s,
            None => problem(
                problems,
                "edit.syntax_errors",
                format!(
                    "must be one of {}, not {}",
                    quoted_list(&SyntaxErrors::NAMES),
                    describe(value)
                ),
            ),
        }
    }
    if let Some(undo) = section(
        root,
        "undo",
        &["max_steps", "max_bytes", "journal_dir"],
        problems,
    ) {
        if let Some(n) = number(undo, "undo", "max_steps", (0, 100_000), problems) {
            config.undo_steps = n as usize;
        }
        if let Some(n) = number(undo, "undo", "max_bytes", (0, 1 << 40), problems) {
            config.undo_bytes = n;
        }
        match undo.get("journal_dir") {
            None => {}
            Some(Value::String(dir)) if Path::new(dir).is_absolute() => {
                config.journal_dir = Some(dir.into());
            }
            Some(other) => problem(
                problems,
                "undo.journal_dir",
                format!("must be an absolute folder path, not {}", describe(other)),
            ),
        }
    }
    config
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_is_read_and_every_problem_is_told() {
        let config = NativeConfig::parse(
            "[access]\nnon_accessible_globs = [\"**/.env\"]\n[read]\nline_cap = 50\n\
             [edit]\nsyntax_errors = \"refuse\"\n[undo]\nmax_steps = 3\nmax_bytes = 1024\n",
            "t",
        )
        .unwrap();
        assert_eq!(config.non_accessible_globs, ["**/.env"]);
        assert_eq!(config.line_cap, 50);
        assert_eq!(config.syntax_errors, SyntaxErrors::Refuse);
        assert_eq!((config.undo_steps, config.undo_bytes), (3, 1024));
        let err = NativeConfig::parse(
            "[read]\nline_cap = 0\n[edit]\nsyntax_errors = \"loud\"\n[undo]\nsteps = 1\n",
            "t",
        )
        .unwrap_err();
        let keys: Vec<&str> = err.problems.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(keys, ["read.line_cap", "edit.syntax_errors", "undo.steps"]);
        assert!(
            err.problems[1]
                .message
                .contains("\"report\", \"refuse\", \"off\"")
        );
    }
}
