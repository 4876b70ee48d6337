//! Found by the jail fuzzer's release soak (issue 25, `tests/jailfuzz`, seed 4154641543299375842):
//! picoclaw's `write_file` (`overwrite: true`) on a path the racer kept renaming did not return
//! within 60 s. The racer renames entries to names like `a.txt`, the fixture's FIFO among them;
//! the engine looked at a file (a regular file: go on), then opened it by its path, and a FIFO
//! put at that name between the look and the open blocked the open for as long as no writer
//! came. Every open of a file by path (reads, appends, mode changes, walked files) now passes
//! `O_NONBLOCK`, so a FIFO swapped in fails the check that follows the open instead of holding
//! the call.
//!
//! Minimised: `root/a.txt` (a file) exchanged with `root/p.fifo` (a FIFO nobody writes) as fast
//! as a thread can, while a call reads, overwrites, appends to or searches `a.txt` again and
//! again; no call may take longer than a few seconds. A call stuck in the FIFO is released
//! (the FIFO opened at both ends) before the test fails. Before the fix each of these failed
//! within its first 15 calls (gg's and native's read_file, picoclaw's write_file and
//! append_file, qwen's grep_search of the file).

use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rustix::fs::{CWD, RenameFlags, renameat_with};
use serde_json::{Value, json};

use crate::support::{Fx, P, s, sh};

/// Calls `tool` with `args` on `p`'s workspace again and again for `secs` while a thread
/// exchanges `a.txt` with a FIFO; every call must return within 5 s.
fn never_blocks(p: P, tool: &'static str, args: impl Fn(&Fx) -> Value, secs: u64) {
    let fx = Fx::with(p, |base| {
        std::fs::write(base.join("root/a.txt"), "one\ntwo\n").unwrap();
        sh("mkfifo", &[&s(&base.join("root/p.fifo"))]);
    });
    let args = args(&fx);
    let (a, fifo) = (fx.root.join("a.txt"), fx.root.join("p.fifo"));
    let stop = Arc::new(AtomicBool::new(false));
    let flipper = {
        let (stop, a, fifo) = (stop.clone(), a.clone(), fifo.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                let _ = renameat_with(CWD, &a, CWD, &fifo, RenameFlags::EXCHANGE);
            }
        })
    };
    let ws = Arc::new(crate::support::open(p, &fx.root));
    let until = Instant::now() + Duration::from_secs(secs);
    let mut calls = 0;
    let mut stuck = None;
    while Instant::now() < until && stuck.is_none() {
        let (tx, rx) = mpsc::channel();
        let (ws, args) = (ws.clone(), args.clone());
        std::thread::spawn(move || {
            let _ = tx.send(ws.call(tool, args));
        });
        calls += 1;
        if rx.recv_timeout(Duration::from_secs(5)).is_err() {
            stuck = Some(calls);
        }
    }
    stop.store(true, Ordering::SeqCst);
    flipper.join().unwrap();
    if let Some(n) = stuck {
        release(&[a, fifo]);
        panic!("{p:?} {tool} {args}: call {n} did not return within 5 s (blocked in a FIFO)");
    }
}

/// Opens whatever FIFO is at each path at both ends, without blocking, to release a call
/// stuck opening it.
fn release(paths: &[PathBuf]) {
    for path in paths {
        for write in [true, false] {
            let _ = std::fs::OpenOptions::new()
                .read(!write)
                .write(write)
                .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
                .open(path);
        }
    }
}

#[test]
fn a_fifo_exchanged_for_a_file_never_blocks_gg_read_file() {
    never_blocks(P::Gg, "read_file", |_| json!({"path": "a.txt"}), 3);
}

#[test]
fn a_fifo_exchanged_for_a_file_never_blocks_picoclaw_write_file() {
    never_blocks(
        P::Pico,
        "write_file",
        |_| json!({"path": "a.txt", "content": "three\n", "overwrite": true}),
        3,
    );
}

#[test]
fn a_fifo_exchanged_for_a_file_never_blocks_picoclaw_append_file() {
    never_blocks(
        P::Pico,
        "append_file",
        |_| json!({"path": "a.txt", "content": "three\n"}),
        3,
    );
}

#[test]
fn a_fifo_exchanged_for_a_file_never_blocks_native_read_file() {
    never_blocks(P::Native, "read_file", |_| json!({"path": "a.txt"}), 3);
}

#[test]
fn a_fifo_exchanged_for_a_file_never_blocks_qwen_grep_search() {
    never_blocks(
        P::Qwen,
        "grep_search",
        |fx| json!({"pattern": "one", "path": s(&fx.root.join("a.txt"))}),
        3,
    );
}
