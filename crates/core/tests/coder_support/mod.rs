//! Shared fixtures for the coder integration tests: a jailed coder workspace in a temporary
//! directory, calls that assert success (validating the response against the spec's response
//! schema, tests/e2e/coder_response_schemas.json) or failure (returning the C-code and message),
//! and a small validator for the draft-07 subset those schemas use.

#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods
)]

use std::path::PathBuf;

use fsgate_core::config::coder::CoderLimits;
use fsgate_core::{CoderConfig, Options, Workspace};
use serde_json::Value;
use tempfile::TempDir;

/// A coder workspace whose one allowed root is a fresh temporary directory.
pub struct Fx {
    pub dir: TempDir,
    pub ws: Workspace,
}

impl Fx {
    /// The spec's shipped configuration (its non-accessible globs and default excludes).
    pub fn new() -> Fx {
        Fx::with(|_| {})
    }

    /// The shipped configuration with its limits adjusted by `f`.
    pub fn limits(f: impl FnOnce(&mut CoderLimits)) -> Fx {
        Fx::with(|c| f(&mut c.limits))
    }

    /// The shipped configuration adjusted by `f`.
    pub fn with(f: impl FnOnce(&mut CoderConfig)) -> Fx {
        let dir = tempfile::tempdir().unwrap();
        let mut coder = CoderConfig {
            base_paths: vec![dir.path().to_path_buf()],
            non_accessible_globs: [
                "**/.env",
                "**/.env.*",
                "**/*.pem",
                "**/*.key",
                "**/secrets/**",
            ]
            .map(String::from)
            .to_vec(),
            ..CoderConfig::default()
        };
        f(&mut coder);
        let options = Options {
            roots: vec![dir.path().to_path_buf()],
            profile: coder.into(),
            ..Options::new(dir.path())
        };
        let ws = Workspace::open(options).unwrap();
        Fx { dir, ws }
    }

    /// The canonical root, as responses carry it.
    pub fn root(&self) -> PathBuf {
        std::fs::canonicalize(self.dir.path()).unwrap()
    }

    /// The canonical absolute path of `rel`, as responses carry it.
    pub fn abs(&self, rel: &str) -> String {
        if rel.is_empty() || rel == "." {
            return self.root().display().to_string();
        }
        self.root().join(rel).display().to_string()
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Writes `bytes` at `rel`, creating parents.
    pub fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) {
        let path = self.path(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(path, bytes).unwrap();
    }

    pub fn mkdir(&self, rel: &str) {
        std::fs::create_dir_all(self.path(rel)).unwrap();
    }

    pub fn symlink(&self, target: &str, rel: &str) {
        std::os::unix::fs::symlink(target, self.path(rel)).unwrap();
    }

    /// Calls `tool`: its structured JSON and whether it failed.
    pub fn call(&self, tool: &str, args: Value) -> (Value, bool) {
        let out = self.ws.call(tool, args).unwrap();
        let json = out
            .structured
            .clone()
            .unwrap_or_else(|| panic!("{tool} answered without structured content"));
        (json, out.is_error)
    }

    /// Calls `tool`, asserts it succeeded and that the response fits the spec's response
    /// schema, and returns the response.
    pub fn ok(&self, tool: &str, args: Value) -> Value {
        let (json, is_error) = self.call(tool, args.clone());
        assert!(!is_error, "{tool} {args} failed unexpectedly: {json}");
        assert_valid(tool, &json);
        json
    }

    /// Calls `tool`, asserts it failed as a whole, and returns the code and the message.
    pub fn err(&self, tool: &str, args: Value) -> (String, String) {
        let (json, is_error) = self.call(tool, args.clone());
        assert!(is_error, "{tool} {args} succeeded unexpectedly: {json}");
        let obj = json.as_object().unwrap();
        assert_eq!(
            obj.len(),
            2,
            "an error is exactly {{code, message}}: {json}"
        );
        (
            json["code"].as_str().unwrap().to_string(),
            json["message"].as_str().unwrap().to_string(),
        )
    }
}

/// The spec's response schema of `tool` (the one copy, shared with the Python scenarios).
pub fn schema(tool: &str) -> Value {
    let all: Value = serde_json::from_str(include_str!(
        "../../../../tests/e2e/coder_response_schemas.json"
    ))
    .unwrap();
    all[tool].clone()
}

/// Asserts `value` fits the spec's response schema of `tool`.
pub fn assert_valid(tool: &str, value: &Value) {
    let schema = schema(tool);
    let mut problems = Vec::new();
    check(&schema, &schema, value, "$", &mut problems);
    assert!(
        problems.is_empty(),
        "the {tool} response does not fit the spec's schema:\n{}\nresponse: {value:#}",
        problems.join("\n")
    );
}

/// Validates `value` against `schema` (resolving `$ref` in `root`), appending what does not
/// fit to `problems`. Covers the keywords of the coder response schemas: `$ref` to
/// `#/definitions/*`, `type` (one or several), `enum`, `properties`, `required`, `items`,
/// `anyOf`, `allOf`, `minimum` and the integer `format`s. As a stricter check than the schema
/// itself, an object may hold no property its schema does not declare.
pub fn check(root: &Value, schema: &Value, value: &Value, at: &str, problems: &mut Vec<String>) {
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let name = reference
            .strip_prefix("#/definitions/")
            .unwrap_or_else(|| panic!("unsupported $ref {reference}"));
        let target = &root["definitions"][name];
        assert!(!target.is_null(), "missing definition {name}");
        check(root, target, value, at, problems);
        return;
    }
    if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
        for s in all {
            check(root, s, value, at, problems);
        }
    }
    if let Some(any) = schema.get("anyOf").and_then(Value::as_array) {
        let fits = any.iter().any(|s| {
            let mut inner = Vec::new();
            check(root, s, value, at, &mut inner);
            inner.is_empty()
        });
        if !fits {
            problems.push(format!("{at}: {value} fits none of anyOf"));
        }
    }
    if let Some(types) = schema.get("type") {
        let types: Vec<&str> = match types {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            other => panic!("unsupported type {other}"),
        };
        if !types.iter().any(|t| has_type(value, t)) {
            problems.push(format!("{at}: {value} is not of type {types:?}"));
            return;
        }
    }
    if let Some(options) = schema.get("enum").and_then(Value::as_array)
        && !options.contains(value)
    {
        problems.push(format!("{at}: {value} is not one of {options:?}"));
    }
    if let Some(n) = value.as_f64() {
        if let Some(min) = schema.get("minimum").and_then(Value::as_f64)
            && n < min
        {
            problems.push(format!("{at}: {n} is below the minimum {min}"));
        }
        let range = match schema.get("format").and_then(Value::as_str) {
            Some("uint32") => Some((0.0, f64::from(u32::MAX))),
            Some("uint64") => Some((0.0, u64::MAX as f64)),
            Some("int64") => Some((i64::MIN as f64, i64::MAX as f64)),
            _ => None,
        };
        if let Some((lo, hi)) = range
            && !(value.is_i64() || value.is_u64()) | (n < lo) | (n > hi)
        {
            problems.push(format!("{at}: {value} is out of its format's range"));
        }
    }
    if let Value::Object(map) = value {
        if let Some(required) = schema.get("required").and_then(Value::as_array) {
            for key in required.iter().filter_map(Value::as_str) {
                if !map.contains_key(key) {
                    problems.push(format!("{at}: required property {key} is missing"));
                }
            }
        }
        if let Some(props) = schema.get("properties").and_then(Value::as_object) {
            for (key, v) in map {
                match props.get(key) {
                    Some(s) => check(root, s, v, &format!("{at}.{key}"), problems),
                    None => problems.push(format!("{at}: undeclared property {key}")),
                }
            }
        }
    }
    if let (Value::Array(items), Some(item_schema)) = (value, schema.get("items")) {
        for (i, v) in items.iter().enumerate() {
            check(root, item_schema, v, &format!("{at}[{i}]"), problems);
        }
    }
}

fn has_type(value: &Value, t: &str) -> bool {
    match t {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        other => panic!("unsupported type {other}"),
    }
}

/// Problems of `value` against the schema of `tool` (for the validator's own tests).
pub fn problems(tool: &str, value: &Value) -> Vec<String> {
    let schema = schema(tool);
    let mut problems = Vec::new();
    check(&schema, &schema, value, "$", &mut problems);
    problems
}
