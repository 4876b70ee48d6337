//! A burst of writes never runs the process out of descriptors: each replacement hands the file
//! it replaced to a background thread to close, and that thread runs at the lowest priority, so
//! on a busy machine it falls behind; the queue is bounded, and past the bound a file is closed
//! in place. One test in this binary, since the descriptor limit is the whole process's.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use fsgate_core::access::{Access, WriteOptions};

#[test]
fn a_burst_of_replacements_on_a_busy_machine_never_runs_out_of_descriptors() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    for i in 0..8 {
        std::fs::write(root.join(format!("f{i}.txt")), "old\n").unwrap();
    }
    use rustix::process::{Resource, getrlimit, setrlimit};
    let mut limit = getrlimit(Resource::Nofile);
    limit.current = Some(128);
    setrlimit(Resource::Nofile, limit).unwrap();

    // Keep every core busy at normal priority, so the background thread gets little time.
    let stop = Arc::new(AtomicBool::new(false));
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let hogs: Vec<_> = (0..cores)
        .map(|_| {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                let mut x = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                    std::hint::black_box(x);
                }
            })
        })
        .collect();

    let access = Access::new(&root).unwrap();
    let mut failed = None;
    for n in 0..4000 {
        let target = access.resolve(&format!("f{}.txt", n % 8)).unwrap();
        let body = format!("version {n}\n");
        if let Err(e) = access.write_atomic(&target, body.as_bytes(), WriteOptions::default()) {
            failed = Some((n, e));
            break;
        }
    }
    stop.store(true, Ordering::Relaxed);
    for hog in hogs {
        hog.join().unwrap();
    }
    assert!(failed.is_none(), "a write failed: {failed:?}");
    assert_eq!(
        std::fs::read_to_string(root.join("f7.txt")).unwrap(),
        "version 3999\n"
    );
}
