//! Every request gets an answer (issue 16, item 2): a JSON-RPC message over the transport's
//! limit (256 MiB) is answered with a JSON-RPC error naming the limit, under the request's id
//! where its start or end shows it, and the server goes on serving. Over stdio the real
//! `fsgate serve` gets a 300 MiB line (generated as it is written) and then a valid request;
//! over HTTP a body over the limit, with and without a declared length, gets 413 with the
//! JSON-RPC error as its body.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

const LIMIT: u64 = 256 * 1024 * 1024;
const MIB: usize = 1024 * 1024;

/// The highest resident memory of process `pid` so far, in KiB (`VmHWM`).
fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

struct Server {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Server {
    fn start(root: &std::path::Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_fsgate"))
            .args(["serve", "--root"])
            .arg(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Server { child, lines }
    }

    fn send(&mut self, bytes: &[u8]) {
        self.child.stdin.as_mut().unwrap().write_all(bytes).unwrap();
    }

    /// The next answer carrying `id`, within `secs` seconds.
    fn answer(&self, id: &Value, secs: u64) -> Value {
        let deadline = std::time::Instant::now() + Duration::from_secs(secs);
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let line = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no answer to request {id} within {secs} s"));
            let message: Value = serde_json::from_str(&line).unwrap();
            if &message["id"] == id {
                return message;
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn line(message: Value) -> Vec<u8> {
    let mut bytes = message.to_string().into_bytes();
    bytes.push(b'\n');
    bytes
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "limits", "version": "1"}}})
}

#[test]
fn a_request_line_over_the_limit_is_answered_and_the_next_request_is_served() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "alpha\n").unwrap();
    let mut server = Server::start(dir.path());
    server.send(&line(initialize()));
    server.answer(&json!(0), 60);
    server.send(&line(
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ));
    // A 300 MiB write, its content generated as it is sent.
    server.send(
        br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"big.txt","content":""#,
    );
    let chunk = vec![b'x'; MIB];
    for _ in 0..300 {
        server.send(&chunk);
    }
    server.send(b"\"}}}\n");
    server.send(&line(
        json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
        "params": {"name": "read_file", "arguments": {"path": "a.txt"}}}),
    ));
    let refused = server.answer(&json!(7), 300);
    assert_eq!(refused["error"]["code"], json!(-32600), "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("268435456 bytes (256 MiB)"),
        "the error does not name the limit: {message}"
    );
    let read = server.answer(&json!(8), 60);
    assert_eq!(
        read["result"]["content"][0]["text"],
        json!("alpha\n"),
        "{read}"
    );
    assert!(
        !dir.path().join("big.txt").exists(),
        "the over-long call ran"
    );
    let peak = peak_rss_kib(server.child.id());
    eprintln!("server peak RSS: {peak} KiB");
    assert!(
        peak < 300 * 1024,
        "the server held the whole 300 MiB line: peak RSS {peak} KiB"
    );
}

/// Starts `fsgate serve --http 127.0.0.1:0`; the server and its address.
fn start_http(root: &std::path::Path) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fsgate"))
        .args(["serve", "--http", "127.0.0.1:0", "--root"])
        .arg(root)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr_lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut addr = String::new();
    for line in stderr_lines.by_ref() {
        let line = line.unwrap();
        if let Some(rest) = line.split("http://").nth(1) {
            addr = rest.trim_end_matches("/mcp").to_string();
            break;
        }
    }
    assert!(!addr.is_empty(), "the server printed no address");
    // The rest of its log is read too, so its writes never meet a closed pipe.
    std::thread::spawn(move || for _ in stderr_lines {});
    (child, addr)
}

/// POSTs a JSON-RPC body to `/mcp`, written by `body` onto the connection after the headers
/// (`length`: a Content-Length, else chunked); the status line and the response body.
fn post(addr: &str, length: Option<u64>, body: impl FnOnce(&mut dyn Write)) -> (String, String) {
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(300)))
        .unwrap();
    let framing = match length {
        Some(len) => format!("Content-Length: {len}"),
        None => "Transfer-Encoding: chunked".to_string(),
    };
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: \
         application/json, text/event-stream\r\n{framing}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    body(&mut stream);
    stream.flush().unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).unwrap();
    let response = String::from_utf8_lossy(&response).into_owned();
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    (
        head.lines().next().unwrap_or("").to_string(),
        body.to_string(),
    )
}

#[test]
fn an_http_body_over_the_limit_is_answered_413_with_a_json_rpc_error() {
    let dir = tempfile::tempdir().unwrap();
    let (mut child, addr) = start_http(dir.path());
    let start = br#"{"method":"tools/call","params":{"name":"write_file","arguments":{"path":"big.txt","content":""#;
    let end = br#""}},"jsonrpc":"2.0","id":"late-id"}"#;
    let filler = LIMIT as usize + MIB - start.len() - end.len();
    // With a declared length, the id written last (as some clients order the members).
    let (status, body) = post(&addr, Some(LIMIT + MIB as u64), |w| {
        w.write_all(start).unwrap();
        let chunk = vec![b'x'; MIB];
        let mut left = filler;
        while left > 0 {
            let n = left.min(MIB);
            w.write_all(&chunk[..n]).unwrap();
            left -= n;
        }
        w.write_all(end).unwrap();
    });
    assert!(status.contains("413"), "{status}");
    let answer: Value = serde_json::from_str(&body).unwrap_or_else(|_| panic!("{body}"));
    assert_eq!(answer["id"], json!("late-id"), "{answer}");
    assert_eq!(answer["error"]["code"], json!(-32600));
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("268435456 bytes"),
        "{answer}"
    );
    // Without one (chunked), the id written first.
    let (status, body) = post(&addr, None, |w| {
        let head = br#"{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"big.txt","content":""#;
        write!(w, "{:x}\r\n", head.len()).unwrap();
        w.write_all(head).unwrap();
        w.write_all(b"\r\n").unwrap();
        let chunk = vec![b'x'; MIB];
        for _ in 0..257 {
            write!(w, "{:x}\r\n", chunk.len()).unwrap();
            w.write_all(&chunk).unwrap();
            w.write_all(b"\r\n").unwrap();
        }
        w.write_all(b"3\r\n\"}}\r\n0\r\n\r\n").unwrap();
    });
    assert!(status.contains("413"), "{status}");
    let answer: Value = serde_json::from_str(&body).unwrap_or_else(|_| panic!("{body}"));
    assert_eq!(answer["id"], json!(41), "{answer}");
    assert!(!dir.path().join("big.txt").exists());
    // And the server goes on serving.
    let init = initialize().to_string();
    let (status, body) = post(&addr, Some(init.len() as u64), |w| {
        w.write_all(init.as_bytes()).unwrap()
    });
    assert!(status.contains("200"), "{status} {body}");
    assert!(body.contains("\"serverInfo\""), "{body}");
    let _ = child.kill();
    let _ = child.wait();
}
