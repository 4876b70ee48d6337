//! Crash consistency (issue 9, item 3): `kill -9` the real `fsgate serve` at random points while
//! it writes, edits and patches a large file, then check that the file is the old one (same
//! bytes, same inode) or the complete new one — never a mix — and that, once a server has been
//! started again on the folder and has answered one call, nothing else is left in the folder
//! (no temp file).
//!
//! Whole-file writes (gg `write_file`, picoclaw `write_file`, coder `create-file`) rewrite
//! `data/written.txt`; edits and patches (gg `edit_file`, coder `update-file`, picoclaw's V4A
//! `edit_file`, sgpt `diff`) change one line of `data/big.txt`, which the server reads, changes
//! and rewrites whole. Each scenario is first run once to the end, which checks its call and
//! measures it; every kill then lands a random 0–125% of that time after the call was sent.
//!
//! Knobs (environment): `CRASH_ITERATIONS` (default 150), `CRASH_EDIT_MB` (default 6),
//! `CRASH_WRITE_MB` (default 3; a write's content travels in one JSON-RPC line, and the stdio
//! transport drops lines over 16 MiB, so keep it under 15), `FSGATE_BIN` (the server binary;
//! default the test build's own), `CRASH_SEED` (the scenarios, contents and kill delays are
//! drawn from it; every failure prints it). The defaults keep the suite's run near a minute on
//! two cores; the large run is
//!
//! ```text
//! FSGATE_BIN=target/release/fsgate CRASH_EDIT_MB=40 CRASH_WRITE_MB=12 \
//!     cargo test --release -p fsgate --test crash -- --nocapture
//! ```
//!
//! The server is driven with a minimal newline-delimited JSON-RPC client (initialize,
//! notifications/initialized, tools/call), so the kill can land at any moment of a call.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long a call may take before the test gives up on the server.
const CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// splitmix64: a small deterministic generator, so a seed replays a run exactly.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// One running server and the lines it writes on stdout.
struct Server {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    next_id: u64,
}

impl Server {
    fn start(profile: &str, root: &Path, config: Option<&Path>, state: &Path) -> Server {
        let bin = std::env::var_os("FSGATE_BIN").map_or_else(
            || PathBuf::from(env!("CARGO_BIN_EXE_fsgate")),
            PathBuf::from,
        );
        let mut cmd = Command::new(bin);
        cmd.arg("serve")
            .arg("--profile")
            .arg(profile)
            .arg("--root")
            .arg(root);
        if let Some(config) = config {
            cmd.arg("--config").arg(config);
        }
        // The journals of the folders servers give temp names in: this test's own.
        cmd.env("FSGATE_STATE_DIR", state);
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start fsgate serve");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut server = Server {
            child,
            stdin,
            lines,
            next_id: 1,
        };
        let init = server.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "crash-test", "version": "1"}
            }),
        );
        server.wait_for(init);
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    fn send(&mut self, message: &Value) {
        let mut line = serde_json::to_vec(message).unwrap();
        line.push(b'\n');
        self.stdin.write_all(&line).unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request and returns its id.
    fn request(&mut self, method: &str, params: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    fn call_tool(&mut self, tool: &str, args: &Value) -> u64 {
        self.request("tools/call", json!({"name": tool, "arguments": args}))
    }

    /// The response to request `id` (other messages are skipped).
    fn wait_for(&mut self, id: u64) -> Value {
        let deadline = Instant::now() + CALL_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => panic!("no response to request {id} in time"),
                Err(RecvTimeoutError::Disconnected) => panic!("the server closed its output"),
            };
            let message: Value = serde_json::from_str(&line).expect("a JSON-RPC line");
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    /// `kill -9`, then reap the process.
    fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// Closes stdin and waits for a clean exit.
    fn stop(self) {
        let Server {
            mut child, stdin, ..
        } = self;
        drop(stdin);
        child.wait().unwrap();
    }
}

/// A call's result text, failing the test on a protocol error or an `isError` result.
fn success_text(response: &Value, what: &str) -> String {
    assert!(response.get("error").is_none(), "{what}: {response}");
    let result = &response["result"];
    let text: String = result["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default();
    assert_ne!(result["isError"], json!(true), "{what}: {text}");
    if let Some(structured) = result.get("structuredContent") {
        // coder reports per-file failures inside a successful result.
        let failed = structured["results"]
            .as_array()
            .is_some_and(|r| r.iter().any(|f| f["success"] == json!(false)));
        assert!(!failed, "{what}: {structured}");
    }
    text
}

/// The kinds of calls that rewrite the file.
#[derive(Clone, Copy, Debug)]
enum Scenario {
    GgWrite,
    PicoclawWrite,
    CoderCreate,
    GgEdit,
    CoderUpdate,
    PicoclawV4a,
    SgptDiff,
}

const WRITTEN: &str = "data/written.txt";
const EDITED: &str = "data/big.txt";

const SCENARIOS: [Scenario; 7] = [
    Scenario::GgWrite,
    Scenario::PicoclawWrite,
    Scenario::CoderCreate,
    Scenario::GgEdit,
    Scenario::CoderUpdate,
    Scenario::PicoclawV4a,
    Scenario::SgptDiff,
];

impl Scenario {
    fn is_write(self) -> bool {
        matches!(
            self,
            Scenario::GgWrite | Scenario::PicoclawWrite | Scenario::CoderCreate
        )
    }

    /// The file the call rewrites.
    fn target(self) -> &'static str {
        if self.is_write() { WRITTEN } else { EDITED }
    }

    fn profile(self) -> &'static str {
        match self {
            Scenario::GgWrite | Scenario::GgEdit => "gg",
            Scenario::PicoclawWrite | Scenario::PicoclawV4a => "picoclaw",
            Scenario::CoderCreate | Scenario::CoderUpdate => "coder",
            Scenario::SgptDiff => "sgpt",
        }
    }

    /// A cheap call that any server of the profile answers (the "one call" after a restart).
    fn probe(self) -> (&'static str, Value) {
        match self.profile() {
            "gg" | "picoclaw" => ("list_dir", json!({"path": "."})),
            "coder" => ("list-folder", json!({"path": "."})),
            "sgpt" => ("read_files", json!({"paths": ["small.txt"]})),
            other => panic!("no probe call known for the profile {other}"),
        }
    }
}

/// The file's text: a block of pseudo-random lines repeated to `bytes`, with one marker line
/// (the only line an edit changes) somewhere in the middle half.
fn generate(rng: &mut Rng, bytes: usize, generation: u64) -> Vec<u8> {
    const WORDS: [&str; 16] = [
        "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
        "juliet", "kilo", "lima", "mike", "november", "oscar", "papa",
    ];
    let mut block = Vec::new();
    for line in 0..2048u64 {
        write!(block, "{line:04} {generation:06}").unwrap();
        for _ in 0..8 {
            block.push(b' ');
            block.extend_from_slice(WORDS[rng.below(16) as usize].as_bytes());
        }
        block.push(b'\n');
    }
    let mut out = Vec::with_capacity(bytes + block.len() + 64);
    let marker_at = bytes / 4 + rng.below(bytes as u64 / 2) as usize;
    while out.len() < bytes {
        let before = out.len();
        out.extend_from_slice(&block);
        if (before..out.len()).contains(&marker_at) {
            let middle = before + block.len() / 2;
            let cut = middle + out[middle..].iter().position(|&b| b == b'\n').unwrap() + 1;
            let rest = out.split_off(cut);
            out.extend_from_slice(marker(generation).as_bytes());
            out.push(b'\n');
            out.extend_from_slice(&rest);
        }
    }
    out
}

fn marker(generation: u64) -> String {
    format!("marker line of generation {generation:06}")
}

/// The marker line's 0-based index and the file's lines (without endings).
fn lines_around_marker(content: &[u8]) -> (usize, Vec<&[u8]>) {
    let lines: Vec<&[u8]> = content.split(|&b| b == b'\n').collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with(b"marker line of generation "))
        .expect("the file holds a marker line");
    (at, lines)
}

/// The tool, its arguments, and the content the file must have after the call.
fn plan(
    scenario: Scenario,
    rng: &mut Rng,
    current: &[u8],
    generation: u64,
    bytes: usize,
) -> (&'static str, Value, Vec<u8>) {
    let path = scenario.target();
    let seed = rng.next();
    let fresh = || generate(&mut Rng(seed), bytes, generation + 1);
    let text = |b: &[u8]| String::from_utf8(b.to_vec()).unwrap();
    let (at, lines) = lines_around_marker(current);
    let old_marker = text(lines[at]);
    let new_marker = format!("{} (edited)", marker(generation + 1));
    let edited = || {
        let mut out = Vec::with_capacity(current.len() + 64);
        for (i, line) in lines.iter().enumerate() {
            if i > 0 {
                out.push(b'\n');
            }
            if i == at {
                out.extend_from_slice(new_marker.as_bytes());
            } else {
                out.extend_from_slice(line);
            }
        }
        out
    };
    match scenario {
        Scenario::GgWrite => {
            let new = fresh();
            let args = json!({"path": path, "content": text(&new)});
            ("write_file", args, new)
        }
        Scenario::PicoclawWrite => {
            let new = fresh();
            let args = json!({"path": path, "content": text(&new), "overwrite": true});
            ("write_file", args, new)
        }
        Scenario::CoderCreate => {
            let new = fresh();
            let args = json!({"files": [{"path": path, "content": text(&new), "overwrite": true}]});
            ("create-file", args, new)
        }
        Scenario::GgEdit => {
            let args =
                json!({"path": path, "old_string": old_marker, "new_string": new_marker.clone()});
            ("edit_file", args, edited())
        }
        Scenario::CoderUpdate => {
            let args = json!({"files": [{"path": path, "ops": [{
                "op": "update_lines",
                "from_line": at + 1,
                "to_line": at + 1,
                "content": format!("{new_marker}\n"),
            }]}]});
            ("update-file", args, edited())
        }
        Scenario::PicoclawV4a => {
            let patch = format!(
                "*** Begin Patch\n*** Update File: {path}\n@@\n {}\n-{old_marker}\n+{new_marker}\n {}\n*** End Patch\n",
                text(lines[at - 1]),
                text(lines[at + 1]),
            );
            let args = json!({"path": path, "patch": patch});
            ("edit_file", args, edited())
        }
        Scenario::SgptDiff => {
            let diff = format!(
                "--- a/{path}\n+++ b/{path}\n@@\n {}\n-{old_marker}\n+{new_marker}\n {}\n",
                text(lines[at - 1]),
                text(lines[at + 1]),
            );
            let args = json!({"path": path, "diff": diff});
            ("diff", args, edited())
        }
    }
}

/// The workspace: the files under test in `data/`, `small.txt`, and a coder configuration beside
/// it that lifts coder's 10 MiB read and write ceilings.
struct Setup {
    _dir: tempfile::TempDir,
    root: PathBuf,
    coder_config: PathBuf,
    /// The servers' state folder (`FSGATE_STATE_DIR`).
    state: PathBuf,
}

impl Setup {
    fn new(files: &[Tracked]) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        std::fs::create_dir_all(root.join("data")).unwrap();
        for file in files {
            std::fs::write(root.join(file.path), &file.current).unwrap();
        }
        std::fs::write(root.join("small.txt"), "small\n").unwrap();
        let coder_config = dir.path().join("coder.yaml");
        std::fs::write(
            &coder_config,
            "max_read_bytes: 268435456\nmax_write_bytes: 268435456\n",
        )
        .unwrap();
        Setup {
            root,
            coder_config,
            state: dir.path().join("state"),
            _dir: dir,
        }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    fn start(&self, scenario: Scenario) -> Server {
        let config = (scenario.profile() == "coder").then_some(self.coder_config.as_path());
        Server::start(scenario.profile(), &self.root, config, &self.state)
    }

    /// Everything in the target's folder besides the target itself.
    fn strays(&self) -> Vec<String> {
        let mut out: Vec<String> = std::fs::read_dir(self.root.join("data"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| !WRITTEN.ends_with(n.as_str()) && !EDITED.ends_with(n.as_str()))
            .collect();
        out.sort();
        out
    }

    fn remove_strays(&self) {
        for name in self.strays() {
            std::fs::remove_file(self.root.join("data").join(name)).unwrap();
        }
    }
}

/// A file under test: its path and what it holds now.
struct Tracked {
    path: &'static str,
    current: Vec<u8>,
    generation: u64,
    bytes: usize,
}

/// What a run saw.
#[derive(Debug, Default)]
struct Outcome {
    iterations: u64,
    kept_old: u64,
    got_new: u64,
    /// (iteration, scenario, the leftover names) for each kill that left files behind after a
    /// restart and one call.
    leftovers: Vec<(u64, Scenario, Vec<String>)>,
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn seed() -> u64 {
    env_u64(
        "CRASH_SEED",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64,
    )
}

/// Runs `iterations` kills, cycling through the scenarios. The files a kill left behind are
/// counted once a restarted server has answered one call, then removed (so the disk does not
/// fill).
fn run(seed: u64, iterations: u64) -> Outcome {
    let mut rng = Rng(seed);
    let mut files: Vec<Tracked> = [
        (EDITED, env_u64("CRASH_EDIT_MB", 6)),
        (WRITTEN, env_u64("CRASH_WRITE_MB", 3)),
    ]
    .into_iter()
    .map(|(path, mb)| {
        let bytes = mb as usize * 1024 * 1024;
        Tracked {
            path,
            current: generate(&mut rng, bytes, 0),
            generation: 0,
            bytes,
        }
    })
    .collect();
    let setup = Setup::new(&files);
    let ctx =
        |i: u64, s: Scenario| format!("seed {seed} (CRASH_SEED={seed}), iteration {i}, {s:?}");

    // Calibration: each scenario once, to the end, so the kill window spans a whole call (and
    // so a call that would fail anyway cannot make the run pass vacuously).
    let mut window = [Duration::ZERO; SCENARIOS.len()];
    for (k, &scenario) in SCENARIOS.iter().enumerate() {
        let mut server = setup.start(scenario);
        let file = &mut files[usize::from(scenario.is_write())];
        let (tool, args, expected) = plan(
            scenario,
            &mut rng,
            &file.current,
            file.generation,
            file.bytes,
        );
        let started = Instant::now();
        let id = server.call_tool(tool, &args);
        let response = server.wait_for(id);
        window[k] = started.elapsed();
        success_text(&response, &format!("calibration of {scenario:?}"));
        server.stop();
        let on_disk = std::fs::read(setup.path(file.path)).unwrap();
        assert!(
            on_disk == expected,
            "calibration of {scenario:?}: the file is not the expected new content"
        );
        file.current = expected;
        file.generation += 1;
        assert!(setup.strays().is_empty(), "{:?}", setup.strays());
    }

    let mut outcome = Outcome::default();
    // The server of the previous iteration's kill is restarted by the next iteration, which
    // first makes one call and looks for leftovers.
    let mut pending: Option<(u64, Scenario)> = None;
    for i in 0..iterations {
        let k = (i as usize + rng.below(2) as usize) % SCENARIOS.len();
        let scenario = SCENARIOS[k];
        let mut server = setup.start(scenario);
        let (probe, probe_args) = scenario.probe();
        let id = server.call_tool(probe, &probe_args);
        success_text(
            &server.wait_for(id),
            &format!("probe after restart, {}", ctx(i, scenario)),
        );
        if let Some((previous, killed)) = pending.take() {
            let strays = setup.strays();
            if !strays.is_empty() {
                outcome.leftovers.push((previous, killed, strays));
                setup.remove_strays();
            }
        }

        let file = &mut files[usize::from(scenario.is_write())];
        let (tool, args, expected) = plan(
            scenario,
            &mut rng,
            &file.current,
            file.generation,
            file.bytes,
        );
        let target = setup.path(file.path);
        let before = std::fs::metadata(&target).unwrap();
        let limit = window[k].as_micros() as u64 * 5 / 4 + 1_000;
        let delay = Duration::from_micros(rng.below(limit));
        server.call_tool(tool, &args);
        std::thread::sleep(delay);
        server.kill();

        let after = std::fs::metadata(&target).unwrap();
        let on_disk = std::fs::read(&target).unwrap();
        if on_disk == file.current {
            assert_eq!(
                (after.ino(), after.dev()),
                (before.ino(), before.dev()),
                "{}: the old content is back but in another file (inode changed)",
                ctx(i, scenario)
            );
            outcome.kept_old += 1;
        } else if on_disk == expected {
            assert_ne!(
                after.ino(),
                before.ino(),
                "{}: the new content was written in place, not by replacement",
                ctx(i, scenario)
            );
            outcome.got_new += 1;
            file.current = expected;
            file.generation += 1;
        } else {
            panic!(
                "{}: killed after {delay:?}, the file is neither the old content ({} bytes) nor \
                 the new ({} bytes): {} bytes on disk",
                ctx(i, scenario),
                file.current.len(),
                expected.len(),
                on_disk.len()
            );
        }
        outcome.iterations += 1;
        pending = Some((i, scenario));
    }
    if let Some((previous, killed)) = pending {
        let mut server = setup.start(killed);
        let (probe, probe_args) = killed.probe();
        let id = server.call_tool(probe, &probe_args);
        success_text(&server.wait_for(id), "final probe");
        server.stop();
        let strays = setup.strays();
        if !strays.is_empty() {
            outcome.leftovers.push((previous, killed, strays));
        }
    }
    outcome
}

#[test]
fn a_killed_write_edit_or_patch_leaves_the_old_file_or_the_new_one_never_a_mix() {
    let seed = seed();
    let iterations = env_u64("CRASH_ITERATIONS", 150);
    let started = Instant::now();
    let outcome = run(seed, iterations);
    eprintln!(
        "crash consistency: seed {seed}, {} kills in {:.1?}: {} kept the old file, {} left the \
         new one, {} left files behind after a restart and one call",
        outcome.iterations,
        started.elapsed(),
        outcome.kept_old,
        outcome.got_new,
        outcome.leftovers.len()
    );
    assert_eq!(outcome.kept_old + outcome.got_new, iterations);
    assert!(
        outcome.leftovers.is_empty(),
        "seed {seed}: {} kills left files beside the target after a restart and one call, \
         first: {:?}",
        outcome.leftovers.len(),
        outcome.leftovers.first()
    );
    if iterations >= 50 {
        // Kills that always landed before the work (or after it) would test nothing.
        assert!(
            outcome.kept_old > 0 && outcome.got_new > 0,
            "seed {seed}: the kills never interrupted a call at both ends: {outcome:?}"
        );
    }
}

/// A server killed between giving the new content its temp name and renaming it over the file
/// leaves the temp file; the next server to start removes it before it answers, and touches
/// nothing else: not a live server's temp files, not another process's, not a folder or a file
/// that only looks like one.
#[test]
fn a_temp_file_a_killed_server_left_is_removed_by_the_next_server_to_start() {
    let setup = Setup::new(&[Tracked {
        path: WRITTEN,
        current: b"first\n".to_vec(),
        generation: 0,
        bytes: 6,
    }]);
    let data = setup.root.join("data");
    let mut killed = setup.start(Scenario::GgWrite);
    let id = killed.call_tool(
        "write_file",
        &json!({"path": WRITTEN, "content": "second\n"}),
    );
    success_text(&killed.wait_for(id), "write_file over the file");
    let pid = killed.child.id();
    let journal = setup.state.join(format!("{pid}.folders"));
    assert!(
        journal.is_file(),
        "a server that replaced a file has written its folder down in {}",
        journal.display()
    );

    // What the kill would leave: the complete new content under the server's temp name.
    let left = format!(".written.txt.{pid}.7.1a2b3c.fsgate-tmp");
    std::fs::write(data.join(&left), "third\n").unwrap();
    // And what is not the killed server's: the temp name of a live process (this test), a
    // file of the user's that ends like one, a folder with the killed server's temp name.
    let live = format!(".written.txt.{}.7.1a2b3c.fsgate-tmp", std::process::id());
    std::fs::write(data.join(&live), "live\n").unwrap();
    std::fs::write(data.join("notes.fsgate-tmp"), "mine\n").unwrap();
    let folder = format!(".kept.{pid}.1.2.fsgate-tmp");
    std::fs::create_dir(data.join(&folder)).unwrap();

    // A server started while the writer lives leaves its temp files alone.
    let mut beside = setup.start(Scenario::PicoclawWrite);
    let (probe, args) = Scenario::PicoclawWrite.probe();
    let id = beside.call_tool(probe, &args);
    success_text(&beside.wait_for(id), "probe beside a live server");
    beside.stop();
    assert!(
        data.join(&left).exists(),
        "a live server's temp file was removed"
    );
    assert!(journal.exists(), "a live server's journal was removed");

    killed.kill();
    let mut next = setup.start(Scenario::CoderCreate);
    let (probe, args) = Scenario::CoderCreate.probe();
    let id = next.call_tool(probe, &args);
    success_text(&next.wait_for(id), "probe after the kill");
    assert!(
        !data.join(&left).exists(),
        "the killed server's temp file is still there"
    );
    assert!(
        !journal.exists(),
        "the killed server's journal is still there"
    );
    for kept in [&live, "notes.fsgate-tmp", &folder] {
        assert!(data.join(kept).exists(), "{kept} was removed");
    }
    assert_eq!(std::fs::read(setup.path(WRITTEN)).unwrap(), b"second\n");

    // A server that exits cleanly takes its own journal with it.
    let id = next.call_tool(
        "create-file",
        &json!({"files": [{"path": WRITTEN, "content": "fourth\n", "overwrite": true}]}),
    );
    success_text(&next.wait_for(id), "create-file over the file");
    let own = setup.state.join(format!("{}.folders", next.child.id()));
    assert!(own.is_file(), "{} is missing", own.display());
    next.stop();
    assert!(
        !own.exists(),
        "a clean exit left its journal {}",
        own.display()
    );
}
