//! The stale-write rule per session (issue 17, item 2), against the real binary. Over streamable
//! HTTP each MCP session (`Mcp-Session-Id`) has its own record of what it read: a session that
//! read a file and then writes it over another session's change is refused; a session that never
//! read it writes as the profile's document says (driven with raw HTTP). `fsgate call` is a
//! session of one call, so nothing was ever read before it.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

/// `fsgate serve --http 127.0.0.1:0 --root ROOT`; the server and its `host:port`.
fn start_http(root: &std::path::Path) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fsgate"))
        .args([
            "serve",
            "--http",
            "127.0.0.1:0",
            "--jail",
            "roots",
            "--root",
        ])
        .arg(root)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut addr = String::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        if let Some(rest) = line.split("http://").nth(1) {
            addr = rest.trim_end_matches("/mcp").to_string();
            break;
        }
    }
    assert!(!addr.is_empty(), "the server printed no address");
    std::thread::spawn(move || for _ in lines {});
    (child, addr)
}

/// One POST to `/mcp`: the response's `Mcp-Session-Id` header, if any, and the JSON-RPC
/// messages of its body (plain JSON, or the `data:` lines of an event stream).
fn post(addr: &str, session: Option<&str>, body: &Value) -> (Option<String>, Vec<Value>) {
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let body = body.to_string();
    let session_header = session.map_or(String::new(), |s| format!("Mcp-Session-Id: {s}\r\n"));
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: \
         application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\n\
         {session_header}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).unwrap();
    let response = String::from_utf8_lossy(&response).into_owned();
    let (head, raw_body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    let header = |name: &str| {
        head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_string())
        })
    };
    let body = if header("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
        unchunk(raw_body)
    } else {
        raw_body.to_string()
    };
    let messages = match serde_json::from_str::<Value>(body.trim()) {
        Ok(value) => vec![value],
        Err(_) => body
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str(d.trim()).ok())
            .collect(),
    };
    (header("mcp-session-id"), messages)
}

/// The body of a chunked transfer.
fn unchunk(mut raw: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = raw.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || rest.len() < size {
            break;
        }
        out.push_str(&rest[..size]);
        raw = rest[size..].trim_start_matches("\r\n");
    }
    out
}

/// A new MCP session: initialize, then the initialized notification; its id.
fn open_session(addr: &str) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "stale", "version": "1"}}});
    let (id, messages) = post(addr, None, &init);
    assert!(
        messages.iter().any(|m| m.get("result").is_some()),
        "{messages:?}"
    );
    let id = id.expect("the server gave the session an id");
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    post(addr, Some(&id), &note);
    id
}

/// Calls `tool` in `session`; the result's text and whether it is an error.
fn call(addr: &str, session: &str, tool: &str, args: Value) -> (String, bool) {
    let request = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                         "params": {"name": tool, "arguments": args}});
    let (_, messages) = post(addr, Some(session), &request);
    let result = messages
        .iter()
        .find_map(|m| (m["id"] == json!(7)).then(|| m["result"].clone()))
        .unwrap_or_else(|| panic!("no answer to {tool}: {messages:?}"));
    let text = result["content"][0]["text"]
        .as_str()
        .unwrap_or("")
        .to_string();
    (text, result["isError"] == json!(true))
}

#[test]
fn each_http_session_has_its_own_record_of_what_it_read() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "first\n").unwrap();
    let (mut child, addr) = start_http(dir.path());
    let reader = open_session(&addr);
    let writer = open_session(&addr);
    assert_ne!(reader, writer);
    let (text, failed) = call(&addr, &reader, "read_file", json!({"path": "a.txt"}));
    assert!(!failed, "{text}");
    // The second session never read the file: its write goes as gg's document says.
    let (text, failed) = call(
        &addr,
        &writer,
        "write_file",
        json!({"path": "a.txt", "content": "second\n"}),
    );
    assert!(!failed, "{text}");
    // The first read "first\n": writing now would discard the second session's change.
    let (text, failed) = call(
        &addr,
        &reader,
        "write_file",
        json!({"path": "a.txt", "content": "third\n"}),
    );
    assert!(failed, "{text}");
    assert!(
        text.starts_with("conflict: a.txt changed on disk"),
        "{text}"
    );
    assert!(text.contains("+second"), "{text}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "second\n"
    );
    // The writer's own consecutive writes are never refused.
    let (text, failed) = call(
        &addr,
        &writer,
        "write_file",
        json!({"path": "a.txt", "content": "fourth\n"}),
    );
    assert!(!failed, "{text}");
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn each_fsgate_call_is_a_session_that_never_read_anything() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "first\n").unwrap();
    let fsgate = |tool: &str, args: Value| {
        Command::new(env!("CARGO_BIN_EXE_fsgate"))
            .args(["call", tool, &args.to_string(), "--root"])
            .arg(dir.path())
            .output()
            .unwrap()
    };
    assert!(
        fsgate("read_file", json!({"path": "a.txt"}))
            .status
            .success()
    );
    std::fs::write(dir.path().join("a.txt"), "second\n").unwrap();
    let out = fsgate("write_file", json!({"path": "a.txt", "content": "third\n"}));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "third\n"
    );
}
