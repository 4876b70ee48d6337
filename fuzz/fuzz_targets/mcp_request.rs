//! MCP request decoding: the input is one JSON-RPC message as a client would send it. It is
//! decoded into rmcp's client message types; a `tools/call` then has its arguments decoded and
//! run by every profile that has the tool, each on its own empty, jailed temp workspace. No
//! input may panic: a bad message is a decode error, bad arguments a tool error.
//!
//! The shell-running tools (sgpt `exec_shell`, `agent`) are never called.
#![no_main]
// The harness (libFuzzer's macro, fixture set-up) does its own file I/O, outside fsgate's access layer.
#![allow(clippy::disallowed_methods)]

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use fsgate_core::{Options, Profile, Workspace};
use libfuzzer_sys::fuzz_target;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage};
use serde_json::Value;

const PROFILES: [Profile; 5] = [
    Profile::Gg,
    Profile::Coder,
    Profile::Qwen,
    Profile::Picoclaw,
    Profile::Sgpt,
];

/// Calls that may only be decoded, never run.
const NEVER_RUN: [&str; 2] = ["exec_shell", "agent"];

/// How many calls run before the workspaces start afresh (what the writes created goes).
const CALLS_PER_WORKSPACE: u32 = 500;

struct Workspaces {
    dir: tempfile::TempDir,
    open: Vec<Workspace>,
    calls: u32,
}

impl Workspaces {
    fn new() -> Workspaces {
        let dir = tempfile::tempdir().unwrap();
        let open = PROFILES
            .iter()
            .map(|&profile| {
                let root = dir.path().join(format!("{profile:?}"));
                std::fs::create_dir_all(&root).unwrap();
                let mut options = Options::new(root);
                options.profile = profile.into();
                // gg is unconfined by default: confine it, so no fuzzed path leaves the temp dir.
                options.jail = true;
                Workspace::open(options).unwrap()
            })
            .collect();
        Workspaces {
            dir,
            open,
            calls: 0,
        }
    }
}

/// Makes everything under `path` writable again, so a fuzzed `mode` cannot keep the temp dir
/// from being removed.
fn writable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let mut stack: Vec<PathBuf> = vec![path.to_path_buf()];
    while let Some(p) = stack.pop() {
        let Ok(meta) = std::fs::symlink_metadata(&p) else {
            continue;
        };
        if meta.file_type().is_symlink() {
            continue;
        }
        let _ = std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o700));
        if meta.is_dir()
            && let Ok(entries) = std::fs::read_dir(&p)
        {
            stack.extend(entries.flatten().map(|e| e.path()));
        }
    }
}

thread_local! {
    static WORKSPACES: RefCell<Option<Workspaces>> = const { RefCell::new(None) };
}

fn call_everywhere(name: &str, args: Value) {
    if NEVER_RUN.contains(&name) {
        return;
    }
    WORKSPACES.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.as_ref().is_none_or(|w| w.calls >= CALLS_PER_WORKSPACE) {
            if let Some(old) = slot.take() {
                writable(old.dir.path());
            }
            *slot = Some(Workspaces::new());
        }
        let workspaces = slot.as_mut().unwrap();
        workspaces.calls += 1;
        for ws in &workspaces.open {
            if ws.tools().iter().any(|t| t.name == name) {
                let out = ws.call(name, args.clone()).unwrap();
                let _ = out.text_content();
            }
        }
    });
}

fuzz_target!(|data: &[u8]| {
    let Ok(message) = serde_json::from_slice::<ClientJsonRpcMessage>(data) else {
        // Arguments alone: `tool-name NUL {json arguments}`.
        if let Some(at) = data.iter().position(|&b| b == 0)
            && let Ok(name) = std::str::from_utf8(&data[..at])
            && let Ok(args) = serde_json::from_slice::<Value>(&data[at + 1..])
        {
            call_everywhere(name, args);
        }
        return;
    };
    if let JsonRpcMessage::Request(request) = message
        && let ClientRequest::CallToolRequest(call) = request.request
    {
        let args = call.params.arguments.map_or(Value::Null, Value::Object);
        call_everywhere(&call.params.name, args);
    }
});
