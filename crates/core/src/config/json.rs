//! Checks shared by the configurations written in JSON (qwen's settings.json, PicoClaw's
//! config.json): each problem is collected with its key, so one refusal names them all.

use serde_json::{Map, Value};

use super::Problem;

/// Collected problems and the type checks every JSON configuration makes.
#[derive(Debug, Default)]
pub(crate) struct JsonChecks {
    /// The problems so far, in the order found.
    pub problems: Vec<Problem>,
}

impl JsonChecks {
    /// Records a problem at `key`.
    pub fn problem(&mut self, key: &str, message: impl Into<String>) {
        self.problems.push(Problem {
            key: key.to_string(),
            message: message.into(),
        });
    }

    /// `value` as an object, or a problem.
    pub fn object<'a>(&mut self, key: &str, value: &'a Value) -> Option<&'a Map<String, Value>> {
        match value {
            Value::Object(map) => Some(map),
            other => {
                self.problem(key, format!("must be an object, not {}", describe(other)));
                None
            }
        }
    }

    /// `value` as a boolean, or a problem.
    pub fn bool(&mut self, key: &str, value: &Value) -> Option<bool> {
        match value {
            Value::Bool(b) => Some(*b),
            other => {
                self.problem(
                    key,
                    format!("must be true or false, not {}", describe(other)),
                );
                None
            }
        }
    }
}

impl JsonChecks {
    /// `value` as a list of non-accessible globs, each checked as the access layer compiles it
    /// (see [`super::check_secret_glob`]); every bad entry is a problem at `key[i]`, and the
    /// good ones are kept.
    pub fn secret_globs(&mut self, key: &str, value: &Value) -> Option<Vec<String>> {
        let Value::Array(items) = value else {
            self.problem(
                key,
                format!(
                    "must be a list of glob patterns, e.g. [\"**/.env\", \"**/*.pem\"], not {}",
                    describe(value)
                ),
            );
            return None;
        };
        let mut globs = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let at = format!("{key}[{i}]");
            match item.as_str() {
                Some(glob) => match super::check_secret_glob(&at, glob) {
                    Some(bad) => self.problems.push(bad),
                    None => globs.push(glob.to_string()),
                },
                None => self.problem(
                    &at,
                    format!("must be a glob pattern string, not {}", describe(item)),
                ),
            }
        }
        Some(globs)
    }
}

/// How a value is named in a problem: strings quoted, containers by kind.
pub(crate) fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_string(),
        Value::String(s) => format!("{s:?}"),
        Value::Array(_) => "a list".to_string(),
        Value::Object(_) => "an object".to_string(),
        other => other.to_string(),
    }
}
