//! The longest JSON-RPC message the server reads, and the answer to one that is longer.
//!
//! A message over the limit is never read into memory whole (over stdio the rest of its line is
//! skipped as it arrives; over HTTP the rest of the body), but it is answered: with a JSON-RPC
//! error naming the limit, carrying the message's `id` when it can be found in the text kept
//! from its start (the first [`HEAD_BYTES`]) or its end (the last [`TAIL_BYTES`]), else `null`.
//! So a client never waits for an answer that does not come.

use serde_json::{Value, json};

/// The longest JSON-RPC message read, in bytes: one line over stdio, one request body over
/// HTTP. Room for the largest write a profile allows (10 MiB by default, up to six times longer
/// once escaped as JSON).
pub const MAX_MESSAGE_BYTES: usize = 256 * 1024 * 1024;

/// How much of the start of an over-long message is kept to find its `id`.
pub const HEAD_BYTES: usize = 64 * 1024;

/// How much of the end of an over-long message is kept to find its `id` (clients that write
/// `id` after `params` put it there).
pub const TAIL_BYTES: usize = 4 * 1024;

/// The JSON-RPC error code of a message over the limit: Invalid Request.
pub const TOO_LONG_CODE: i64 = -32600;

/// What is kept of a message over the limit while the rest of it goes by: its start, its end
/// and its length.
#[derive(Debug, Default)]
pub struct Oversized {
    head: Vec<u8>,
    tail: Vec<u8>,
    len: u64,
}

impl Oversized {
    /// Takes the next bytes of the message.
    pub fn take(&mut self, bytes: &[u8]) {
        self.len += bytes.len() as u64;
        let room = HEAD_BYTES.saturating_sub(self.head.len());
        self.head.extend_from_slice(&bytes[..room.min(bytes.len())]);
        if bytes.len() >= TAIL_BYTES {
            self.tail.clear();
            self.tail
                .extend_from_slice(&bytes[bytes.len() - TAIL_BYTES..]);
        } else {
            self.tail.extend_from_slice(bytes);
            if self.tail.len() > 2 * TAIL_BYTES {
                self.tail.drain(..self.tail.len() - TAIL_BYTES);
            }
        }
    }

    /// The bytes taken so far.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether nothing was taken.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The message's `id`, when its start or its end shows it: a string or an integer.
    pub fn id(&self) -> Option<Value> {
        id_from_head(&self.head).or_else(|| {
            let mut tail = self.tail.as_slice();
            tail = tail.strip_suffix(b"\n").unwrap_or(tail);
            tail = tail.strip_suffix(b"\r").unwrap_or(tail);
            id_from_tail(tail)
        })
    }

    /// The JSON-RPC error answering the message; `whole` says whether all of it went by (the
    /// length is then exact).
    pub fn answer(&self, whole: bool) -> Value {
        too_long_answer(self.id(), self.len, whole)
    }
}

/// The JSON-RPC error answering a message of (at least) `len` bytes over the limit.
pub fn too_long_answer(id: Option<Value>, len: u64, whole: bool) -> Value {
    let mib = MAX_MESSAGE_BYTES / (1024 * 1024);
    let size = if whole {
        format!("{len} bytes long")
    } else {
        format!("longer than {len} bytes")
    };
    json!({
        "jsonrpc": "2.0",
        "id": id.unwrap_or(Value::Null),
        "error": {
            "code": TOO_LONG_CODE,
            "message": format!(
                "the request is {size}, over this server's limit of {MAX_MESSAGE_BYTES} bytes \
                 ({mib} MiB) for one JSON-RPC message (one line over stdio, one body over \
                 HTTP), so it was not read and nothing of it was done; send less in one call \
                 (a large file in several parts)"
            ),
            "data": {"limit": MAX_MESSAGE_BYTES},
        }
    })
}

/// The value of the top-level `"id"` member found in `head`, the start of a JSON object
/// (members before it are skipped whole, nested values included); `None` when the text ends
/// first or the value is not a string or an integer.
pub fn id_from_head(head: &[u8]) -> Option<Value> {
    let mut at = skip_ws(head, 0);
    if head.get(at) != Some(&b'{') {
        return None;
    }
    at += 1;
    loop {
        at = skip_ws(head, at);
        let key_start = at;
        at = skip_string(head, at)?;
        let key: String = serde_json::from_slice(&head[key_start..at]).ok()?;
        at = skip_ws(head, at);
        if head.get(at) != Some(&b':') {
            return None;
        }
        at = skip_ws(head, at + 1);
        let value_start = at;
        at = skip_value(head, at)?;
        if key == "id" {
            return id_value(&head[value_start..at]);
        }
        at = skip_ws(head, at);
        match head.get(at) {
            Some(b',') => at += 1,
            _ => return None,
        }
    }
}

/// The value of an `"id"` member that is the last of the object whose end is `tail`
/// (`…,"id":7}`); `None` when the end does not read so.
pub fn id_from_tail(tail: &[u8]) -> Option<Value> {
    let mut end = skip_ws_back(tail, tail.len());
    if end == 0 || tail[end - 1] != b'}' {
        return None;
    }
    end = skip_ws_back(tail, end - 1);
    let value_end = end;
    let value_start = match tail.get(end.checked_sub(1)?)? {
        b'"' => string_start_back(tail, end - 1)?,
        b'0'..=b'9' => {
            let mut at = end;
            while at > 0 && (tail[at - 1].is_ascii_digit() || tail[at - 1] == b'-') {
                at -= 1;
            }
            at
        }
        _ => return None,
    };
    end = skip_ws_back(tail, value_start);
    if end == 0 || tail[end - 1] != b':' {
        return None;
    }
    end = skip_ws_back(tail, end - 1);
    if end == 0 || tail[end - 1] != b'"' {
        return None;
    }
    let key_start = string_start_back(tail, end - 1)?;
    let key: String = serde_json::from_slice(&tail[key_start..end]).ok()?;
    if key != "id" {
        return None;
    }
    let before = skip_ws_back(tail, key_start);
    match before.checked_sub(1).map(|i| tail[i]) {
        Some(b',' | b'{') => id_value(&tail[value_start..value_end]),
        _ => None,
    }
}

/// A JSON-RPC id: a string or an integer.
fn id_value(text: &[u8]) -> Option<Value> {
    match serde_json::from_slice::<Value>(text).ok()? {
        Value::String(s) => Some(Value::String(s)),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some(Value::Number(n)),
        _ => None,
    }
}

fn skip_ws(text: &[u8], mut at: usize) -> usize {
    while at < text.len() && matches!(text[at], b' ' | b'\t' | b'\r' | b'\n') {
        at += 1;
    }
    at
}

fn skip_ws_back(text: &[u8], mut end: usize) -> usize {
    while end > 0 && matches!(text[end - 1], b' ' | b'\t' | b'\r' | b'\n') {
        end -= 1;
    }
    end
}

/// The end of the string starting at `at` (its opening quote); `None` when `text` ends first.
fn skip_string(text: &[u8], mut at: usize) -> Option<usize> {
    if text.get(at) != Some(&b'"') {
        return None;
    }
    at += 1;
    while at < text.len() {
        match text[at] {
            b'\\' => at += 2,
            b'"' => return Some(at + 1),
            _ => at += 1,
        }
    }
    None
}

/// The start (opening quote) of the string whose closing quote is at `close`.
fn string_start_back(text: &[u8], close: usize) -> Option<usize> {
    let mut at = close;
    while at > 0 {
        at -= 1;
        if text[at] == b'"' {
            let escapes = text[..at].iter().rev().take_while(|&&b| b == b'\\').count();
            if escapes % 2 == 0 {
                return Some(at);
            }
        }
    }
    None
}

/// The end of the JSON value starting at `at`; `None` when `text` ends first.
fn skip_value(text: &[u8], at: usize) -> Option<usize> {
    match text.get(at)? {
        b'"' => skip_string(text, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            while i < text.len() {
                match text[i] {
                    b'"' => {
                        i = skip_string(text, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        _ => {
            // A number, true, false or null: it ends where the member does.
            let end = at
                + text[at..]
                    .iter()
                    .position(|b| matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n'))?;
            Some(end)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_is_read_from_the_start_past_members_before_it() {
        let head = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"content":"xxxx"#;
        assert_eq!(id_from_head(head), Some(json!(7)));
        let head = br#" { "meta" : {"id": 1, "x": [1, {"id": 2}]}, "id" : "a\"b", "params": {"#;
        assert_eq!(id_from_head(head), Some(json!("a\"b")));
    }

    #[test]
    fn an_id_past_the_kept_start_or_inside_params_is_not_taken_from_the_start() {
        let head = br#"{"jsonrpc":"2.0","method":"tools/call","params":{"id":5,"content":"xxxx"#;
        assert_eq!(id_from_head(head), None);
        assert_eq!(id_from_head(br#"{"id":12"#), None, "a number cut short");
        assert_eq!(id_from_head(br#"{"id":null,"#), None);
        assert_eq!(id_from_head(b"not json"), None);
    }

    #[test]
    fn the_id_is_read_from_the_end_when_it_is_the_last_member() {
        assert_eq!(
            id_from_tail(br#"xxxx"}},"jsonrpc":"2.0","id":42}"#),
            Some(json!(42))
        );
        assert_eq!(
            id_from_tail(br#"xx\"}}, "id" : "r-\"1" } "#),
            Some(json!("r-\"1"))
        );
        assert_eq!(id_from_tail(br#"xxxx","params":{"id":3}}"#), None);
        assert_eq!(id_from_tail(br#"xxxx","xid":3}"#), None);
    }

    #[test]
    fn an_oversized_message_keeps_only_its_ends_and_counts_the_rest() {
        let mut o = Oversized::default();
        o.take(br#"{"method":"tools/call","params":{"content":""#);
        for _ in 0..100 {
            o.take(&[b'x'; 10_000]);
        }
        o.take(br#""}},"jsonrpc":"2.0","id":"call-9"}"#);
        o.take(b"\n");
        assert!(o.head.len() <= HEAD_BYTES && o.tail.len() <= 2 * TAIL_BYTES);
        assert_eq!(o.id(), Some(json!("call-9")));
        let answer = o.answer(true);
        assert_eq!(answer["id"], json!("call-9"));
        assert_eq!(answer["error"]["code"], json!(-32600));
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("{} bytes long", o.len())),
            "{message}"
        );
        assert!(message.contains("268435456 bytes (256 MiB)"), "{message}");
    }

    #[test]
    fn an_unknown_id_is_answered_as_null() {
        let mut o = Oversized::default();
        o.take(b"[1,2,3");
        assert_eq!(o.answer(false)["id"], Value::Null);
    }
}
