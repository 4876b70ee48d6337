//! End to end: start the real `fsgate console` and drive its HTTP API (validate, save, log) as
//! the page does; start `fsgate serve --call-log` and find its calls in the console's log.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

/// A running console, stopped when dropped.
struct Console {
    child: Child,
    addr: String,
}

impl Drop for Console {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_console(config: &Path, extra: &[&str]) -> Console {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fsgate"))
        .arg("console")
        .arg("--config")
        .arg(config)
        .args(["--listen", "127.0.0.1:0"])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let addr = line
        .trim()
        .strip_prefix("fsgate: console at http://")
        .and_then(|rest| rest.strip_suffix('/'))
        .unwrap_or_else(|| panic!("unexpected first line: {line:?}"))
        .to_string();
    Console { child, addr }
}

struct Reply {
    status: u16,
    body: Value,
}

impl Console {
    fn request(
        &self,
        method: &str,
        path: &str,
        body: Option<&Value>,
        headers: &[(&str, &str)],
    ) -> Reply {
        let mut stream = TcpStream::connect(&self.addr).unwrap();
        let body = body.map(Value::to_string).unwrap_or_default();
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n",
            body.len()
        );
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
            head.push_str(&format!("Host: {}\r\n", self.addr));
        }
        if !body.is_empty() {
            head.push_str("Content-Type: application/json\r\n");
        }
        for (k, v) in headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body.as_bytes()).unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).unwrap();
        let raw = String::from_utf8(raw).unwrap();
        let (head, payload) = raw.split_once("\r\n\r\n").unwrap();
        let status = head.split(' ').nth(1).unwrap().parse().unwrap();
        let payload = if head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked")
        {
            dechunk(payload)
        } else {
            payload.to_string()
        };
        let body = serde_json::from_str(&payload).unwrap_or(Value::String(payload));
        Reply { status, body }
    }

    fn get(&self, path: &str) -> Reply {
        self.request("GET", path, None, &[])
    }

    fn post(&self, path: &str, body: &Value) -> Reply {
        let origin = format!("http://{}", self.addr);
        self.request("POST", path, Some(body), &[("Origin", origin.as_str())])
    }
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap();
        if size == 0 {
            break;
        }
        out.push_str(&rest[..size]);
        body = &rest[size + 2..];
    }
    out
}

fn problem_keys(reply: &Reply) -> Vec<String> {
    reply.body["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["key"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_editor_names_every_bad_value_at_once_and_saves_only_a_valid_file() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("fsgate.toml");
    let console = start_console(&config, &[]);

    let loaded = console.get("/api/config");
    assert_eq!(loaded.status, 200);
    assert_eq!(loaded.body["profile"], "gg");
    assert_eq!(loaded.body["exists"], false);
    assert_eq!(loaded.body["ok"], true);
    assert_eq!(loaded.body["gg"]["groups"][0]["name"], "Filesystem");
    let caps: Vec<&str> = loaded.body["gg"]["groups"][0]["capabilities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        caps,
        ["read-file", "write-file", "edit-file", "list-dir", "search"]
    );
    let mut form = loaded.body["form"].clone();
    assert_eq!(form["capabilities"]["read-file"]["lineCap"], "2000");

    form["capabilities"]["read-file"]["lineCap"] = json!("0");
    form["capabilities"]["read-file"]["implementation"] = json!("unlimited");
    form["capabilities"]["write-file"]["enabled"] = json!(false);
    form["agents"] = json!([{"name": "reviewer", "allow": "read_file, tree, delete_file"}]);
    let request = json!({"profile": "gg", "form": form});
    let checked = console.post("/api/validate", &request);
    assert_eq!(checked.status, 200);
    assert_eq!(checked.body["ok"], false);
    assert_eq!(
        problem_keys(&checked),
        [
            "capabilities.read-file.params.lineCap",
            "agents.reviewer.allow"
        ]
    );
    assert!(
        checked.body["summary"]
            .as_str()
            .unwrap()
            .ends_with("refused: 2 problems")
    );
    let refused = console.post("/api/save", &request);
    assert_eq!(refused.status, 422);
    assert_eq!(refused.body["saved"], false);
    assert!(!config.exists(), "a refused configuration is not written");

    form["capabilities"]["read-file"]["lineCap"] = json!("250");
    form["agents"][0]["allow"] = json!("read_file, tree, search");
    let saved = console.post("/api/save", &json!({"profile": "gg", "form": form}));
    assert_eq!(saved.status, 200, "{}", saved.body);
    assert_eq!(saved.body["saved"], true);
    let text = std::fs::read_to_string(&config).unwrap();
    assert_eq!(text, saved.body["text"].as_str().unwrap());
    let parsed = fsgate_core::GgConfig::parse(&text, "saved").unwrap();
    assert_eq!(parsed.line_cap, 250);
    assert_eq!(
        parsed.read_mode,
        fsgate_core::config::gg::ReadMode::Unlimited
    );
    assert!(
        !parsed
            .enabled
            .contains(&fsgate_core::config::gg::Capability::WriteFile)
    );
    assert_eq!(parsed.agents["reviewer"], ["read_file", "tree", "search"]);
    let check = Command::new(env!("CARGO_BIN_EXE_fsgate"))
        .arg("check-config")
        .arg(&config)
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );

    // Reloading shows the saved file in the form.
    let reloaded = console.get("/api/config");
    assert_eq!(reloaded.body["exists"], true);
    assert_eq!(
        reloaded.body["form"]["capabilities"]["read-file"]["lineCap"],
        "250"
    );
    assert_eq!(
        reloaded.body["form"]["agents"][0]["allow"],
        "read_file, tree, search"
    );
}

#[test]
fn text_is_validated_by_the_chosen_profiles_own_rules() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("fsgate.toml");
    std::fs::write(&config, "[capabilities.serach]\nenabled = true\n").unwrap();
    let console = start_console(&config, &[]);
    let loaded = console.get("/api/config");
    assert_eq!(problem_keys(&loaded), ["capabilities.serach"]);

    let broken = console.post(
        "/api/validate",
        &json!({"profile": "gg", "text": "[capabilities\n"}),
    );
    assert_eq!(broken.body["ok"], false);
    assert_eq!(broken.body["form"], Value::Null);
    assert!(
        broken.body["problems"][0]["message"]
            .as_str()
            .unwrap()
            .starts_with("not valid TOML")
    );

    let sgpt = console.post(
        "/api/validate",
        &json!({"profile": "sgpt", "text": "colour = 1\n"}),
    );
    assert_eq!(sgpt.body["profile"], "sgpt");
    assert_eq!(problem_keys(&sgpt), ["colour"]);
    let unknown = console.post("/api/validate", &json!({"profile": "nope", "text": ""}));
    assert_eq!(unknown.status, 400);
}

#[test]
fn the_console_is_loopback_only_and_changes_come_from_its_own_page() {
    let out = Command::new(env!("CARGO_BIN_EXE_fsgate"))
        .args(["console", "--config", "x.toml", "--listen", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a loopback address"));

    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("fsgate.toml");
    let console = start_console(&config, &[]);
    let page = console.get("/");
    assert_eq!(page.status, 200);
    assert!(page.body.as_str().unwrap().contains("fsgate console"));
    let rebound = console.request(
        "GET",
        "/api/config",
        None,
        &[("Host", "attacker.example:80")],
    );
    assert_eq!(rebound.status, 403);
    let form = console.get("/api/config").body["form"].clone();
    let foreign = console.request(
        "POST",
        "/api/save",
        Some(&json!({"form": form})),
        &[("Origin", "http://attacker.example")],
    );
    assert_eq!(foreign.status, 403);
    assert!(!config.exists());
}

#[tokio::test]
async fn serve_writes_a_call_log_line_per_call_that_the_console_returns() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "one\ntwo\nthree\n").unwrap();
    let log = dir.path().join("calls.jsonl");

    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_fsgate"));
    cmd.arg("serve")
        .arg("--root")
        .arg(dir.path())
        .arg("--call-log")
        .arg(&log);
    let client = ().serve(rmcp::transport::TokioChildProcess::new(cmd).unwrap()).await.unwrap();
    for (tool, args) in [
        ("read_file", json!({"path": "notes.txt"})),
        ("read_file", json!({"path": "missing.txt"})),
    ] {
        let Value::Object(args) = args else {
            unreachable!()
        };
        client
            .call_tool(CallToolRequestParams::new(tool).with_arguments(args))
            .await
            .unwrap();
    }
    let unknown = client
        .call_tool(CallToolRequestParams::new("delete_everything"))
        .await;
    assert!(unknown.is_err());
    client.cancel().await.unwrap();

    let console = tokio::task::spawn_blocking(move || {
        let console = start_console(
            &dir.path().join("fsgate.toml"),
            &["--call-log", log.to_str().unwrap()],
        );
        let first = console.get("/api/log?offset=0");
        let again = console.get(&format!("/api/log?offset={}", first.body["offset"]));
        (first, again, dir)
    });
    let (first, again, _dir) = console.await.unwrap();
    assert_eq!(first.status, 200);
    let entries = first.body["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 3, "{}", first.body);
    let ok = &entries[0];
    assert_eq!(ok["tool"], "read_file");
    assert_eq!(ok["arguments"], json!({"path": "notes.txt"}));
    assert_eq!(ok["outcome"], "ok");
    assert_eq!(ok["code"], Value::Null);
    assert_eq!(ok["bytes"], 14);
    assert_eq!(ok["est_tokens"], 4);
    assert!(ok["duration_ms"].as_f64().unwrap() >= 0.0);
    assert!(ok["timestamp"].as_str().unwrap().ends_with('Z'));
    assert_eq!(entries[1]["outcome"], "error");
    assert_eq!(entries[1]["code"], "not-found");
    assert_eq!(entries[2]["tool"], "delete_everything");
    assert_eq!(entries[2]["outcome"], "unknown-tool");
    assert_eq!(again.body["entries"], json!([]));
    assert_eq!(again.body["offset"], first.body["offset"]);
}

/// One HTTP/1.1 POST of a JSON-RPC message to the MCP endpoint; the raw response.
fn post(addr: &str, session: Option<&str>, body: &serde_json::Value) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    let body = body.to_string();
    let session = session
        .map(|s| format!("Mcp-Session-Id: {s}\r\n"))
        .unwrap_or_default();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: \
         application/json, text/event-stream\r\n{session}Content-Length: {}\r\nConnection: \
         close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response
}

#[test]
fn serve_over_http_records_every_session_in_the_call_log() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "hello\n").unwrap();
    let log = dir.path().join("calls.jsonl");
    let mut child = Command::new(env!("CARGO_BIN_EXE_fsgate"))
        .args(["serve", "--http", "127.0.0.1:0", "--call-log"])
        .arg(&log)
        .arg("--root")
        .arg(dir.path())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut addr = String::new();
    for line in stderr.lines() {
        let line = line.unwrap();
        if let Some(rest) = line.split("http://").nth(1) {
            addr = rest.trim_end_matches("/mcp").to_string();
            break;
        }
    }
    assert!(!addr.is_empty(), "the server printed no address");
    let init = post(
        &addr,
        None,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
    );
    let session = init
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("mcp-session-id")
                .then(|| value.trim().to_string())
        })
        .unwrap_or_else(|| panic!("no session id in {init}"));
    post(
        &addr,
        Some(&session),
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    let called = post(
        &addr,
        Some(&session),
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "read_file", "arguments": {"path": "a.txt"}}}),
    );
    assert!(called.contains("hello"), "{called}");
    // Closing the session is complete, not merely accepted.
    let closed = {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(&addr).unwrap();
        write!(
            stream,
            "DELETE /mcp HTTP/1.1\r\nHost: {addr}\r\nMcp-Session-Id: {session}\r\n\
             Connection: close\r\n\r\n"
        )
        .unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        response
    };
    assert!(closed.starts_with("HTTP/1.1 204"), "{closed}");
    let _ = child.kill();
    let _ = child.wait();
    let text = std::fs::read_to_string(&log).unwrap();
    let entry: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(entry["tool"], "read_file");
    assert_eq!(entry["outcome"], "ok");
    assert_eq!(entry["arguments"]["path"], "a.txt");
}
