//! Argument decoding with Qwen Code's wording: a missing parameter is `params must have
//! required property 'path'`, a mistyped one `params/offset must be number`, as its schema
//! validator says. Unknown parameters are refused by name (a misspelt `offest` must not be
//! silently ignored); `null` counts as absent; numbers and booleans may arrive as strings.

use serde_json::{Map, Value};

/// A tool's arguments, checked against the names it accepts.
pub(super) struct Args {
    map: Map<String, Value>,
}

impl Args {
    /// Checks that `value` is an object (or absent) whose keys are all in `known`.
    pub(super) fn parse(tool: &str, value: Value, known: &[&str]) -> Result<Args, String> {
        let map = match value {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            _ => return Err("params must be object".to_string()),
        };
        let unknown: Vec<&str> = map
            .keys()
            .map(String::as_str)
            .filter(|k| !known.contains(k))
            .collect();
        if !unknown.is_empty() {
            return Err(format!(
                "params must NOT have additional properties: {}. The parameters of {tool} are {}.",
                unknown.join(", "),
                known.join(", ")
            ));
        }
        Ok(Args { map })
    }

    fn get(&self, key: &str) -> Option<&Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    /// A required string.
    pub(super) fn str(&self, key: &str) -> Result<&str, String> {
        self.opt_str(key)?
            .ok_or_else(|| format!("params must have required property '{key}'"))
    }

    /// An optional string.
    pub(super) fn opt_str(&self, key: &str) -> Result<Option<&str>, String> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(format!("params/{key} must be string")),
        }
    }

    /// An optional boolean (`"true"` and `"false"` accepted).
    pub(super) fn opt_bool(&self, key: &str) -> Result<Option<bool>, String> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(Value::String(s)) if s == "true" => Ok(Some(true)),
            Some(Value::String(s)) if s == "false" => Ok(Some(false)),
            Some(_) => Err(format!("params/{key} must be boolean")),
        }
    }

    /// An optional whole number (a numeric string accepted).
    pub(super) fn opt_int(&self, key: &str) -> Result<Option<i64>, String> {
        let number = match self.get(key) {
            None => return Ok(None),
            Some(Value::Number(n)) => n.as_f64(),
            Some(Value::String(s)) => s.trim().parse::<f64>().ok(),
            Some(_) => None,
        };
        match number {
            Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Ok(Some(f as i64)),
            Some(_) => Err(format!("params/{key} must be integer")),
            None => Err(format!("params/{key} must be number")),
        }
    }

    /// An optional list of strings.
    pub(super) fn opt_str_list(&self, key: &str) -> Result<Vec<String>, String> {
        match self.get(key) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| match item {
                    Value::String(s) => Ok(s.clone()),
                    _ => Err(format!("params/{key} must be array of strings")),
                })
                .collect(),
            Some(_) => Err(format!("params/{key} must be array")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn messages_follow_qwen_codes_validator() {
        let err = Args::parse(
            "read_file",
            json!({"path": "a", "offest": 1}),
            &["path", "offset"],
        )
        .err()
        .unwrap();
        assert_eq!(
            err,
            "params must NOT have additional properties: offest. The parameters of read_file are \
             path, offset."
        );
        let args = Args::parse(
            "t",
            json!({"a": 1, "b": "2", "c": 1.5, "d": "x", "e": "true"}),
            &["a", "b", "c", "d", "e", "f"],
        )
        .unwrap();
        assert_eq!(
            args.str("f").unwrap_err(),
            "params must have required property 'f'"
        );
        assert_eq!(args.str("a").unwrap_err(), "params/a must be string");
        assert_eq!(args.opt_int("b").unwrap(), Some(2));
        assert_eq!(args.opt_int("c").unwrap_err(), "params/c must be integer");
        assert_eq!(args.opt_int("d").unwrap_err(), "params/d must be number");
        assert_eq!(args.opt_bool("e").unwrap(), Some(true));
    }
}
