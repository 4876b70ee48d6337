//! Decoding a tool's JSON arguments with errors a model can act on: unknown names are refused
//! (a misspelt `offest` must not be silently ignored), `null` counts as absent, and numbers may
//! arrive as numeric strings.

use serde_json::{Map, Value};

use crate::error::{Result, ToolError};

/// A tool's arguments, checked against the names it accepts.
pub struct Args<'a> {
    tool: &'a str,
    map: Map<String, Value>,
}

impl<'a> Args<'a> {
    /// Checks that `value` is an object (or absent) whose keys are all in `known`.
    pub fn parse(tool: &'a str, value: Value, known: &[&str]) -> Result<Args<'a>> {
        let map = match value {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => {
                return Err(ToolError::invalid(format!(
                    "{tool} takes an object of arguments, not {}",
                    kind_of(&other)
                )));
            }
        };
        let unknown: Vec<&str> = map
            .keys()
            .map(String::as_str)
            .filter(|k| !known.contains(k))
            .collect();
        if !unknown.is_empty() {
            return Err(ToolError::invalid(format!(
                "{tool} has no argument{} {}; its arguments are {}",
                if unknown.len() == 1 { "" } else { "s" },
                unknown.join(", "),
                known.join(", ")
            )));
        }
        Ok(Args { tool, map })
    }

    fn get(&self, key: &str) -> Option<&Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    /// An optional string argument.
    pub fn opt_str(&self, key: &str) -> Result<Option<&str>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(ToolError::invalid(format!(
                "{} of {} must be a string, not {}",
                key,
                self.tool,
                kind_of(other)
            ))),
        }
    }

    /// A required string argument (it may be empty).
    pub fn str(&self, key: &str) -> Result<&str> {
        self.opt_str(key)?.ok_or_else(|| {
            ToolError::invalid(format!(
                "{} needs {key}, a string; call it again with {key} set",
                self.tool
            ))
        })
    }

    /// An optional boolean.
    pub fn opt_bool(&self, key: &str) -> Result<Option<bool>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(Value::String(s)) if s == "true" || s == "false" => Ok(Some(s == "true")),
            Some(other) => Err(ToolError::invalid(format!(
                "{key} of {} must be true or false, not {}",
                self.tool,
                kind_of(other)
            ))),
        }
    }

    /// An optional argument of any JSON shape, for the caller to decode.
    pub fn opt_value(&self, key: &str) -> Option<&Value> {
        self.get(key)
    }

    /// An optional count (offset, limit, depth): negative values and fractions are refused
    /// here, zero by the caller with a message of its own.
    pub fn opt_uint(&self, key: &str) -> Result<Option<u64>> {
        let bad = |shown: String| {
            ToolError::invalid(format!(
                "{key} of {} must be a whole number, 1 or more, not {shown}",
                self.tool
            ))
        };
        match self.get(key) {
            None => Ok(None),
            Some(Value::Number(n)) => match (n.as_u64(), n.as_f64()) {
                (Some(u), _) => Ok(Some(u)),
                (None, Some(f)) if f >= 0.0 && f.fract() == 0.0 && f <= u64::MAX as f64 => {
                    Ok(Some(f as u64))
                }
                _ => Err(bad(n.to_string())),
            },
            Some(Value::String(s)) => s
                .trim()
                .parse::<u64>()
                .map(Some)
                .map_err(|_| bad(format!("{s:?}"))),
            Some(other) => Err(bad(kind_of(other).to_string())),
        }
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_arguments_are_refused_by_name() {
        let err = Args::parse(
            "read_file",
            json!({"path": "a", "offest": 3}),
            &["path", "offset", "limit"],
        )
        .err()
        .unwrap();
        assert_eq!(
            err.to_string(),
            "invalid-argument: read_file has no argument offest; its arguments are path, offset, limit"
        );
    }

    #[test]
    fn numbers_accept_numeric_strings_and_refuse_negatives() {
        let args = Args::parse(
            "t",
            json!({"a": "12", "b": -1, "c": 2.5, "d": null}),
            &["a", "b", "c", "d"],
        )
        .unwrap();
        assert_eq!(args.opt_uint("a").unwrap(), Some(12));
        assert!(args.opt_uint("b").is_err());
        assert!(args.opt_uint("c").is_err());
        assert_eq!(args.opt_uint("d").unwrap(), None);
    }
}
