//! Writing JSON the way the notebook is written: its indent unit, separators and escaping
//! detected from its text ([`Style`]), so new text looks like the text around it; for a notebook
//! saved by Jupyter that is exactly what Jupyter writes.

use std::fmt::Write as _;

use serde_json::Value;

use super::spans::{Node, NodeKind};

/// How a notebook's JSON is laid out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Style {
    /// The indent unit of a pretty-printed notebook (one space for Jupyter's); `None` for one
    /// written on one line.
    pub(super) unit: Option<String>,
    /// Between a key and its value (`": "` for Jupyter's).
    pub(super) key_separator: String,
    /// Between the items of a one-line notebook (`", "` or `","`).
    pub(super) compact_separator: String,
    /// Non-ASCII characters are written as `\u` escapes.
    pub(super) ascii: bool,
}

impl Style {
    pub(super) fn detect(text: &str, root: &Node) -> Style {
        let mut style = Style {
            unit: Some(" ".to_string()),
            key_separator: ": ".to_string(),
            compact_separator: ", ".to_string(),
            ascii: text.is_ascii() && has_non_ascii_escape(text),
        };
        let NodeKind::Object(members) = &root.kind else {
            return style;
        };
        let Some(first) = members.first() else {
            return style;
        };
        let before = &text[root.start + 1..first.key_start];
        style.unit = before.rfind('\n').map(|i| before[i + 1..].to_string());
        style.key_separator = text[first.key_end..first.value.start].to_string();
        if let Some(second) = members.get(1) {
            style.compact_separator = text[first.value.end..second.key_start].to_string();
        }
        style
    }

    /// What goes between two items at `indent`.
    pub(super) fn item_separator(&self, indent: &str) -> String {
        match &self.unit {
            Some(_) => format!(",\n{indent}"),
            None => self.compact_separator.clone(),
        }
    }

    /// Writes `value` whose first line is indented by `indent`, as Python's `json.dumps` with
    /// this style's indent and separators would.
    pub(super) fn write(&self, value: &Value, indent: &str, out: &mut String) {
        match value {
            Value::Array(items) if !items.is_empty() => {
                let inner = self.inner(indent);
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    self.open_item(i, &inner, out);
                    self.write(item, &inner, out);
                }
                self.close(indent, out);
                out.push(']');
            }
            Value::Object(map) if !map.is_empty() => {
                let inner = self.inner(indent);
                out.push('{');
                for (i, (key, item)) in map.iter().enumerate() {
                    self.open_item(i, &inner, out);
                    write_string(key, self.ascii, out);
                    out.push_str(&self.key_separator);
                    self.write(item, &inner, out);
                }
                self.close(indent, out);
                out.push('}');
            }
            Value::Array(_) => out.push_str("[]"),
            Value::Object(_) => out.push_str("{}"),
            Value::String(s) => write_string(s, self.ascii, out),
            other => out.push_str(&other.to_string()),
        }
    }

    fn inner(&self, indent: &str) -> String {
        match &self.unit {
            Some(unit) => format!("{indent}{unit}"),
            None => String::new(),
        }
    }

    fn open_item(&self, i: usize, inner: &str, out: &mut String) {
        match &self.unit {
            Some(_) => {
                if i > 0 {
                    out.push(',');
                }
                out.push('\n');
                out.push_str(inner);
            }
            None if i > 0 => out.push_str(&self.compact_separator),
            None => {}
        }
    }

    fn close(&self, indent: &str, out: &mut String) {
        if self.unit.is_some() {
            out.push('\n');
            out.push_str(indent);
        }
    }
}

/// Whether `text` holds a `\u` escape of a non-ASCII character (a notebook written with
/// `ensure_ascii=True`).
pub(super) fn has_non_ascii_escape(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i + 6 <= bytes.len() {
        if bytes[i] == b'\\' {
            if bytes[i + 1] == b'u'
                && let Ok(code) = u32::from_str_radix(&text[i + 2..i + 6], 16)
                && code >= 0x80
            {
                return true;
            }
            i += 2;
        } else {
            i += 1;
        }
    }
    false
}

/// A JSON string as Python's `json.dumps` writes it.
pub(super) fn write_string(s: &str, ascii: bool, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if ascii && !(' '..='~').contains(&c) => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}
