//! Argument decoding for the sgpt tools: the shared [`Args`] checks names and scalars; this adds
//! the lists and objects sgpt's arguments hold, with errors a model can act on.

use serde_json::{Map, Value};

use crate::error::{Result, ToolError};
use crate::surface::args::Args;

/// A tool's decoded arguments: the checked scalars and the raw object for lists.
pub(super) struct Input<'a> {
    pub args: Args<'a>,
    map: Map<String, Value>,
    tool: &'a str,
}

impl<'a> Input<'a> {
    /// Checks that `value` is an object whose keys are all in `known`.
    pub fn parse(tool: &'a str, value: Value, known: &[&str]) -> Result<Input<'a>> {
        let map = match &value {
            Value::Object(map) => map.clone(),
            _ => Map::new(),
        };
        let args = Args::parse(tool, value, known)?;
        Ok(Input { args, map, tool })
    }

    fn get(&self, key: &str) -> Option<&Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    /// A required string that is not blank.
    pub fn text(&self, key: &str) -> Result<String> {
        let value = self.args.str(key)?;
        if value.trim().is_empty() {
            return Err(ToolError::invalid(format!(
                "{key} of {} is empty; call it again with {key} set",
                self.tool
            )));
        }
        Ok(value.to_string())
    }

    /// An optional list of strings; a lone string is taken as a one-item list.
    pub fn strings(&self, key: &str) -> Result<Option<Vec<String>>> {
        let Some(value) = self.get(key) else {
            return Ok(None);
        };
        match value {
            Value::String(s) => Ok(Some(vec![s.clone()])),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, item)| match item {
                    Value::String(s) => Ok(s.clone()),
                    other => Err(ToolError::invalid(format!(
                        "{key}[{i}] of {} must be a string, not {}",
                        self.tool,
                        kind_of(other)
                    ))),
                })
                .collect::<Result<Vec<_>>>()
                .map(Some),
            other => Err(ToolError::invalid(format!(
                "{key} of {} must be an array of strings, not {}",
                self.tool,
                kind_of(other)
            ))),
        }
    }

    /// An optional list of objects.
    pub fn objects(&self, key: &str) -> Result<Option<Vec<Map<String, Value>>>> {
        let Some(value) = self.get(key) else {
            return Ok(None);
        };
        let Value::Array(items) = value else {
            return Err(ToolError::invalid(format!(
                "{key} of {} must be an array of objects, not {}",
                self.tool,
                kind_of(value)
            )));
        };
        items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::Object(map) => Ok(map.clone()),
                other => Err(ToolError::invalid(format!(
                    "{key}[{i}] of {} must be an object, not {}",
                    self.tool,
                    kind_of(other)
                ))),
            })
            .collect::<Result<Vec<_>>>()
            .map(Some)
    }
}

/// An optional boolean of an object (`"true"`/`"false"` strings accepted).
pub(super) fn opt_bool(map: &Map<String, Value>, key: &str, at: &str) -> Result<Option<bool>> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(Value::String(s)) if s == "true" || s == "false" => Ok(Some(s == "true")),
        Some(other) => Err(ToolError::invalid(format!(
            "{at}.{key} must be true or false, not {}",
            kind_of(other)
        ))),
    }
}

/// A string of an object; `None` when absent.
pub(super) fn opt_string(map: &Map<String, Value>, key: &str, at: &str) -> Result<Option<String>> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(ToolError::invalid(format!(
            "{at}.{key} must be a string, not {}",
            kind_of(other)
        ))),
    }
}

pub(super) fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
