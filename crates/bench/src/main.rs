//! `fsgate-bench`: a minimal MCP client over stdio, for round-trip and memory figures.
//!
//! It spawns a server command line, performs `initialize` + `notifications/initialized` +
//! `tools/list` (timing spawn → tools/list), then makes tool calls and prints one JSON object
//! with the statistics and the server's memory (VmRSS / VmHWM from `/proc/PID/status`).
//!
//! JSON-RPC messages are newline-delimited JSON written with `serde_json` straight to the
//! child's pipes, so the client adds as little of its own cost as it can.
//!
//! ```text
//! fsgate-bench [options] -- SERVER [ARGS...]
//!   --spawns S          spawn → tools/list cycles to time (default 1; the last one is kept)
//!   --prelude TOOL JSON an unmeasured call made once before the measured ones (repeatable)
//!   --call TOOL JSON    a measured call; several are made in turn (repeatable)
//!   --iters N           measured calls (default 20)
//!   --warmup K          unmeasured calls of the --call list first (default 1)
//!   --cwd DIR           the server's working directory
//!   --show N            characters of the last result's text to include (default 200)
//! ```

// The workspace's clippy.toml keeps raw file I/O inside fsgate-core's access layer; this client
// only reads /proc to learn a server's memory, and starts the servers and tools it measures.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// A failure of the client itself (not of a tool call).
type Failure = String;

struct Opts {
    spawns: usize,
    preludes: Vec<(String, Value)>,
    calls: Vec<(String, Value)>,
    iters: usize,
    warmup: usize,
    cwd: Option<PathBuf>,
    show: usize,
    server: Vec<String>,
}

fn usage() -> Failure {
    "usage: fsgate-bench [--spawns S] [--prelude TOOL JSON]... [--call TOOL JSON]... \
     [--iters N] [--warmup K] [--cwd DIR] [--show N] -- SERVER [ARGS...]"
        .to_string()
}

fn parse_args() -> Result<Opts, Failure> {
    let mut args = std::env::args().skip(1);
    let mut o = Opts {
        spawns: 1,
        preludes: Vec::new(),
        calls: Vec::new(),
        iters: 20,
        warmup: 1,
        cwd: None,
        show: 200,
        server: Vec::new(),
    };
    let number = |v: Option<String>| -> Result<usize, Failure> {
        v.ok_or_else(usage)?
            .parse::<usize>()
            .map_err(|e| format!("bad number: {e}"))
    };
    let call = |t: Option<String>, j: Option<String>| -> Result<(String, Value), Failure> {
        let tool = t.ok_or_else(usage)?;
        let text = j.ok_or_else(usage)?;
        let args: Value =
            serde_json::from_str(&text).map_err(|e| format!("bad JSON for {tool}: {e}"))?;
        Ok((tool, args))
    };
    while let Some(a) = args.next() {
        match a.as_str() {
            "--spawns" => o.spawns = number(args.next())?.max(1),
            "--iters" => o.iters = number(args.next())?,
            "--warmup" => o.warmup = number(args.next())?,
            "--show" => o.show = number(args.next())?,
            "--cwd" => o.cwd = Some(PathBuf::from(args.next().ok_or_else(usage)?)),
            "--prelude" => o.preludes.push(call(args.next(), args.next())?),
            "--call" => o.calls.push(call(args.next(), args.next())?),
            "--" => {
                o.server = args.by_ref().collect();
                break;
            }
            "-h" | "--help" => return Err(usage()),
            other => return Err(format!("unknown option {other}\n{}", usage())),
        }
    }
    if o.server.is_empty() {
        return Err(usage());
    }
    Ok(o)
}

/// One running server and the pipes to it.
struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
    line: String,
}

/// A response: its `result` or `error`, and the size of its line.
struct Reply {
    body: Value,
    bytes: usize,
}

impl Server {
    fn spawn(o: &Opts) -> Result<Server, Failure> {
        let (program, rest) = o.server.split_first().ok_or_else(usage)?;
        let mut cmd = Command::new(program);
        cmd.args(rest)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(dir) = &o.cwd {
            cmd.current_dir(dir);
        }
        let mut child = cmd.spawn().map_err(|e| format!("spawn {program}: {e}"))?;
        let stdin = child.stdin.take().ok_or("no stdin pipe")?;
        let stdout = child.stdout.take().ok_or("no stdout pipe")?;
        Ok(Server {
            child,
            stdin,
            stdout: BufReader::with_capacity(1 << 20, stdout),
            next_id: 1,
            line: String::with_capacity(1 << 16),
        })
    }

    fn send(&mut self, msg: &Value) -> Result<(), Failure> {
        let mut buf = serde_json::to_vec(msg).map_err(|e| e.to_string())?;
        buf.push(b'\n');
        self.stdin
            .write_all(&buf)
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("write to server: {e}"))
    }

    /// Sends a request and waits for the response with its id, answering any request the
    /// server makes meanwhile with "method not found" and skipping notifications.
    fn request(&mut self, method: &str, params: Value) -> Result<Reply, Failure> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        loop {
            self.line.clear();
            let n = self
                .stdout
                .read_line(&mut self.line)
                .map_err(|e| format!("read from server: {e}"))?;
            if n == 0 {
                return Err(format!("server closed its output during {method}"));
            }
            let msg: Value = match serde_json::from_str(self.line.trim_end()) {
                Ok(v) => v,
                Err(_) => continue, // not protocol (a stray log line): ignore
            };
            if msg.get("method").is_some() {
                if let Some(req_id) = msg.get("id") {
                    let answer = json!({"jsonrpc": "2.0", "id": req_id,
                        "error": {"code": -32601, "message": "not supported by fsgate-bench"}});
                    self.send(&answer)?;
                }
                continue;
            }
            if msg.get("id").and_then(Value::as_u64) != Some(id) {
                continue;
            }
            let bytes = n;
            if let Some(err) = msg.get("error") {
                return Ok(Reply {
                    body: json!({"rpcError": err}),
                    bytes,
                });
            }
            let body = msg.get("result").cloned().unwrap_or(Value::Null);
            return Ok(Reply { body, bytes });
        }
    }

    fn handshake(&mut self) -> Result<usize, Failure> {
        let init = self.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "fsgate-bench", "version": "0.1.0"}
            }),
        )?;
        if init.body.get("rpcError").is_some() {
            return Err(format!("initialize refused: {}", init.body));
        }
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
        let tools = self.request("tools/list", json!({}))?;
        Ok(tools
            .body
            .get("tools")
            .and_then(Value::as_array)
            .map_or(0, Vec::len))
    }

    fn call(&mut self, tool: &str, args: &Value) -> Result<Reply, Failure> {
        self.request("tools/call", json!({"name": tool, "arguments": args}))
    }

    /// (VmRSS, VmHWM) in KiB.
    fn memory(&self) -> (u64, u64) {
        let path = format!("/proc/{}/status", self.child.id());
        let Ok(text) = std::fs::read_to_string(path) else {
            return (0, 0);
        };
        let field = |name: &str| -> u64 {
            text.lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|rest| rest.split_whitespace().next())
                .and_then(|v| v.parse().ok())
                .unwrap_or(0)
        };
        (field("VmRSS:"), field("VmHWM:"))
    }

    fn shutdown(mut self) {
        drop(self.stdin);
        let deadline = Instant::now() + Duration::from_secs(2);
        loop {
            match self.child.try_wait() {
                Ok(Some(_)) => return,
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                _ => break,
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn is_error(reply: &Reply) -> bool {
    reply.body.get("rpcError").is_some()
        || reply.body.get("isError").and_then(Value::as_bool) == Some(true)
}

fn first_text(reply: &Reply, show: usize) -> String {
    let text = reply
        .body
        .get("content")
        .and_then(Value::as_array)
        .and_then(|c| c.iter().find_map(|b| b.get("text").and_then(Value::as_str)))
        .map(str::to_string)
        .unwrap_or_else(|| reply.body.to_string());
    text.chars().take(show).collect()
}

fn stats_us(samples: &mut [f64]) -> Value {
    if samples.is_empty() {
        return Value::Null;
    }
    samples.sort_by(f64::total_cmp);
    let n = samples.len();
    let at = |q: f64| samples[((q * (n - 1) as f64).round() as usize).min(n - 1)];
    let mean = samples.iter().sum::<f64>() / n as f64;
    json!({"n": n, "median_us": at(0.5), "p99_us": at(0.99), "min_us": samples[0],
           "max_us": samples[n - 1], "mean_us": mean})
}

fn run(o: &Opts) -> Result<Value, Failure> {
    let mut spawn_us = Vec::with_capacity(o.spawns);
    let mut server = None;
    let mut tools = 0;
    for k in 0..o.spawns {
        let t0 = Instant::now();
        let mut s = Server::spawn(o)?;
        tools = s.handshake()?;
        spawn_us.push(t0.elapsed().as_secs_f64() * 1e6);
        if k + 1 == o.spawns {
            server = Some(s);
        } else {
            s.shutdown();
        }
    }
    let mut server = server.ok_or("no server")?;
    let (idle_rss, idle_hwm) = server.memory();

    let mut prelude_us = Vec::new();
    for (tool, args) in &o.preludes {
        let t0 = Instant::now();
        let r = server.call(tool, args)?;
        prelude_us.push(t0.elapsed().as_secs_f64() * 1e6);
        if is_error(&r) {
            let text = first_text(&r, 400);
            server.shutdown();
            return Err(format!("prelude {tool} failed: {text}"));
        }
    }

    let mut samples = Vec::with_capacity(o.iters);
    let mut errors = 0usize;
    let mut last_text = String::new();
    let mut last_bytes = 0usize;
    if !o.calls.is_empty() {
        for i in 0..(o.warmup + o.iters) {
            let (tool, args) = &o.calls[i % o.calls.len()];
            let t0 = Instant::now();
            let r = server.call(tool, args)?;
            let dt = t0.elapsed().as_secs_f64() * 1e6;
            if i >= o.warmup {
                samples.push(dt);
            }
            if is_error(&r) {
                errors += 1;
            }
            last_text = first_text(&r, o.show);
            last_bytes = r.bytes;
        }
    }
    let (rss, hwm) = server.memory();
    server.shutdown();
    Ok(json!({
        "tools": tools,
        "spawn_to_tools_list": stats_us(&mut spawn_us),
        "idle_rss_kb": idle_rss,
        "idle_hwm_kb": idle_hwm,
        "prelude_us": prelude_us,
        "call": stats_us(&mut samples),
        "errors": errors,
        "rss_kb": rss,
        "hwm_kb": hwm,
        "last_response_bytes": last_bytes,
        "last_text": last_text,
    }))
}

fn main() -> std::process::ExitCode {
    let result = parse_args().and_then(|o| run(&o));
    match result {
        Ok(v) => {
            println!("{v}");
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("fsgate-bench: {e}");
            std::process::ExitCode::from(2)
        }
    }
}
