//! The call log: one JSON line per tool call appended to a file, for `fsgate console` (or any
//! tail) to watch a running server.
//!
//! Each line is an object with `timestamp` (RFC 3339, UTC), `tool`, `arguments`, `duration_ms`,
//! `outcome` (`ok`, `error`, `unknown-tool`), `code` (the error code, or null), `bytes` (the
//! bytes of content returned: text as UTF-8, images and resources as their base64) and
//! `est_tokens` (`bytes / 4`, rounded up: a rough estimate, not any model's tokenizer). String
//! arguments longer than [`ARGUMENT_CHARS`] characters are cut, so a large `write_file` does not
//! copy its content into the log.

// The call log is the server's own file, not the workspace's: it is opened here, not in access.
#![allow(clippy::disallowed_types)]

use std::fs::File;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use fsgate_core::{Content, ToolOutput};
use serde_json::{Value, json};

/// How many characters of a string argument the log keeps.
pub const ARGUMENT_CHARS: usize = 200;

/// An append-only call log, shared by every clone of the server.
#[derive(Clone, Debug)]
pub struct CallLog {
    path: PathBuf,
    file: Arc<Mutex<File>>,
}

/// One finished call, as the log records it.
#[derive(Clone, Debug)]
pub struct CallRecord<'a> {
    /// The tool called.
    pub tool: &'a str,
    /// The call's arguments (`null` when none were sent).
    pub arguments: &'a Value,
    /// How long the call took, in milliseconds.
    pub duration_ms: f64,
    /// `ok`, `error` or `unknown-tool`.
    pub outcome: &'a str,
    /// The error code of a failed call.
    pub code: Option<&'a str>,
    /// The bytes of content returned.
    pub bytes: u64,
}

impl CallLog {
    /// Opens `path` for appending, creating it when missing.
    pub fn open(path: &Path) -> io::Result<CallLog> {
        #[allow(clippy::disallowed_methods)]
        // the call log is the server's own file, not the workspace's
        let file = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(path)?;
        Ok(CallLog {
            path: path.to_path_buf(),
            file: Arc::new(Mutex::new(file)),
        })
    }

    /// The file the log appends to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one line for `record`. A failure to write is logged, never the call's failure.
    pub fn record(&self, record: &CallRecord<'_>) {
        let mut line = record.to_json().to_string();
        line.push('\n');
        // One write per line on an append-mode file: concurrent calls never interleave a line.
        let written = match self.file.lock() {
            Ok(mut file) => file.write_all(line.as_bytes()),
            Err(poisoned) => poisoned.into_inner().write_all(line.as_bytes()),
        };
        if let Err(e) = written {
            tracing::warn!(path = %self.path.display(), "cannot append to the call log: {e}");
        }
    }
}

impl CallRecord<'_> {
    /// The line's JSON object.
    pub fn to_json(&self) -> Value {
        json!({
            "timestamp": rfc3339_now(),
            "tool": self.tool,
            "arguments": shorten(self.arguments),
            "duration_ms": (self.duration_ms * 1000.0).round() / 1000.0,
            "outcome": self.outcome,
            "code": self.code,
            "bytes": self.bytes,
            "est_tokens": self.bytes.div_ceil(4),
        })
    }
}

/// Records a call that produced `output` in `log`, when there is one.
pub fn record_output(
    log: Option<&CallLog>,
    tool: &str,
    arguments: Option<&Value>,
    duration_ms: f64,
    output: &ToolOutput,
    code: Option<&str>,
) {
    if let Some(log) = log {
        log.record(&CallRecord {
            tool,
            arguments: arguments.unwrap_or(&Value::Null),
            duration_ms,
            outcome: if output.is_error { "error" } else { "ok" },
            code,
            bytes: content_bytes(output),
        });
    }
}

/// Records a call of a tool the profile does not have in `log`, when there is one; `message`
/// is the error returned.
pub fn record_unknown(
    log: Option<&CallLog>,
    tool: &str,
    arguments: Option<&Value>,
    duration_ms: f64,
    message: &str,
) {
    if let Some(log) = log {
        log.record(&CallRecord {
            tool,
            arguments: arguments.unwrap_or(&Value::Null),
            duration_ms,
            outcome: "unknown-tool",
            code: None,
            bytes: message.len() as u64,
        });
    }
}

/// The bytes of content an output returns: text as UTF-8, binary payloads as their base64.
pub fn content_bytes(output: &ToolOutput) -> u64 {
    output
        .content
        .iter()
        .map(|c| match c {
            Content::Text(text) => text.len() as u64,
            Content::Image { data, .. } | Content::Resource { data, .. } => {
                (data.len() as u64).div_ceil(3) * 4
            }
        })
        .sum()
}

/// `value` with every string over [`ARGUMENT_CHARS`] characters cut and annotated.
fn shorten(value: &Value) -> Value {
    match value {
        Value::String(s) if s.chars().count() > ARGUMENT_CHARS => {
            let kept: String = s.chars().take(ARGUMENT_CHARS).collect();
            let more = s.chars().count() - ARGUMENT_CHARS;
            Value::String(format!("{kept}… ({more} more chars)"))
        }
        Value::Array(items) => Value::Array(items.iter().map(shorten).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), shorten(v))).collect())
        }
        other => other.clone(),
    }
}

/// The current time as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
fn rfc3339_now() -> String {
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    rfc3339(since.as_secs(), since.subsec_millis())
}

fn rfc3339(secs: u64, millis: u32) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_utc_rfc3339() {
        assert_eq!(rfc3339(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(951_782_400, 5), "2000-02-29T00:00:00.005Z");
        assert_eq!(rfc3339(1_796_000_000, 999), "2026-11-30T00:53:20.999Z");
    }

    #[test]
    fn long_string_arguments_are_cut_and_say_by_how_much() {
        let long = "x".repeat(ARGUMENT_CHARS + 5);
        let out = shorten(&json!({"path": "a.txt", "content": long, "n": 3}));
        assert_eq!(out["path"], "a.txt");
        assert_eq!(out["n"], 3);
        let content = out["content"].as_str().unwrap();
        assert!(content.ends_with("… (5 more chars)"), "{content}");
    }

    #[test]
    fn a_record_is_one_json_line_with_bytes_and_estimated_tokens() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("calls.jsonl");
        let log = CallLog::open(&path).unwrap();
        let args = json!({"path": "README.md"});
        for outcome in ["ok", "error"] {
            log.record(&CallRecord {
                tool: "read_file",
                arguments: &args,
                duration_ms: 1.23456,
                outcome,
                code: (outcome == "error").then_some("not-found"),
                bytes: 10,
            });
        }
        #[allow(clippy::disallowed_methods)]
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["tool"], "read_file");
        assert_eq!(lines[0]["arguments"]["path"], "README.md");
        assert_eq!(lines[0]["duration_ms"], 1.235);
        assert_eq!(lines[0]["code"], Value::Null);
        assert_eq!(lines[0]["est_tokens"], 3);
        assert_eq!(lines[1]["outcome"], "error");
        assert_eq!(lines[1]["code"], "not-found");
    }
}
