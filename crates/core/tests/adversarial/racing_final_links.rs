//! Found by the jail fuzzer's release soak (issue 25, `tests/jailfuzz`, seed
//! 13518674519258080668): qwen's `grep_search` of `d0/d1/d0/e.py` showed
//! `d0/d1/d0/e.py:2:ZQSECRET12`, while the racer exchanged `e.py` (a file) with a link to the
//! secret `k.pem` beside it. The jail resolves a path component by component, following links,
//! and checks the name it arrives at (`e.py`: accessible); the open that came after followed
//! a link at the last component, so a link put at the name between the two led the open to
//! the secret. A file the jail resolved is now opened without following a link at its last
//! component: a link there was put after the resolution, and the open refuses it.
//!
//! The same race explains the jail fuzzer's first finding with native in the model, qwen's
//! `grep_search {"pattern": "ZQ", "path": "<root>/d2"}` answering `d2:2:ZQSECRET12`: the folder
//! `d2` exchanged with a link to a secret beside it between the resolution and the open; the
//! last test here is that shape.
//!
//! Minimised: `root/d/f.txt` (a file) exchanged with `root/d/swap` (a link to `k.pem`, a
//! secret, beside it) as fast as a thread can, while each profile reads `d/f.txt` again and
//! again; no answer may hold the secret. Before the fix every profile but picoclaw (whose reads
//! already opened the last component without following it) showed the secret within about 200
//! calls, the folder shape within about 60.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use fsgate_core::{
    CoderConfig, GgConfig, NativeConfig, Options, PicoclawConfig, ProfileConfig, QwenConfig,
    SgptConfig, Workspace,
};
use rustix::fs::{CWD, RenameFlags, renameat_with};
use serde_json::{Value, json};

use crate::support::{all_text, s};

const SECRET: &str = "TOP SECRET swapped";

fn open(root: &Path, profile: ProfileConfig) -> Workspace {
    let mut o = Options::new(root);
    o.roots = vec![root.to_path_buf()];
    o.jail = true;
    o.profile = profile;
    Workspace::open(o).unwrap()
}

/// Reads `d/f.txt` with `tool` and `args` on `profile` for up to `secs` while a thread
/// exchanges it with a link to the secret beside it; no answer may show the secret.
fn never_reads_the_secret(
    profile: impl FnOnce(&Path) -> ProfileConfig,
    tool: &str,
    args: impl FnOnce(&Path) -> Value,
    secs: u64,
) {
    never_reads_through("d/f.txt", profile, tool, args, secs);
}

/// [`never_reads_the_secret`] with `entry` (a file or a folder below the root) exchanged with
/// the link instead of `d/f.txt`.
fn never_reads_through(
    entry: &str,
    profile: impl FnOnce(&Path) -> ProfileConfig,
    tool: &str,
    args: impl FnOnce(&Path) -> Value,
    secs: u64,
) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("d/d2")).unwrap();
    std::fs::write(root.join("d/f.txt"), "plain\n").unwrap();
    std::fs::write(root.join("d/d2/g.txt"), "plain\n").unwrap();
    std::fs::write(root.join("d/k.pem"), format!("{SECRET}\n")).unwrap();
    std::os::unix::fs::symlink("k.pem", root.join("d/swap")).unwrap();
    let ws = open(&root, profile(&root));
    let args = args(&root);
    let stop = Arc::new(AtomicBool::new(false));
    let flipper = {
        let (stop, a, b) = (stop.clone(), root.join(entry), root.join("d/swap"));
        std::thread::spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                let _ = renameat_with(CWD, &a, CWD, &b, RenameFlags::EXCHANGE);
            }
        })
    };
    let until = Instant::now() + Duration::from_secs(secs);
    let mut calls = 0;
    let mut leak = None;
    while Instant::now() < until && leak.is_none() {
        let text = all_text(&ws.call(tool, args.clone()).unwrap());
        calls += 1;
        if text.contains(SECRET) {
            leak = Some(text);
        }
    }
    stop.store(true, Ordering::SeqCst);
    flipper.join().unwrap();
    assert!(
        leak.is_none(),
        "after {calls} calls, {tool} {args} showed the secret: {}",
        leak.unwrap_or_default()
    );
}

fn globs() -> Vec<String> {
    vec!["**/*.pem".to_string()]
}

#[test]
fn a_link_to_a_secret_exchanged_in_mid_read_is_never_followed_gg() {
    never_reads_the_secret(
        |_| {
            GgConfig {
                non_accessible_globs: globs(),
                ..GgConfig::default()
            }
            .into()
        },
        "read_file",
        |_| json!({"path": "d/f.txt"}),
        3,
    );
}

#[test]
fn a_link_to_a_secret_exchanged_in_mid_read_is_never_followed_coder() {
    never_reads_the_secret(
        |root| {
            CoderConfig {
                non_accessible_globs: globs(),
                base_paths: vec![root.to_path_buf()],
                ..CoderConfig::default()
            }
            .into()
        },
        "read-file",
        |_| json!({"path": "d/f.txt"}),
        3,
    );
}

#[test]
fn a_link_to_a_secret_exchanged_in_mid_read_is_never_followed_qwen() {
    never_reads_the_secret(
        |_| {
            QwenConfig {
                non_accessible_globs: globs(),
                ..QwenConfig::default()
            }
            .into()
        },
        "grep_search",
        |root| json!({"pattern": "T", "path": s(&root.join("d/f.txt"))}),
        3,
    );
}

#[test]
fn a_link_to_a_secret_exchanged_in_mid_read_is_never_followed_picoclaw() {
    never_reads_the_secret(
        |_| {
            PicoclawConfig {
                non_accessible_globs: globs(),
                ..PicoclawConfig::default()
            }
            .into()
        },
        "read_file",
        |_| json!({"path": "d/f.txt"}),
        3,
    );
}

#[test]
fn a_link_to_a_secret_exchanged_in_mid_read_is_never_followed_sgpt() {
    never_reads_the_secret(
        |_| {
            SgptConfig {
                non_accessible_globs: globs(),
                ..SgptConfig::default()
            }
            .into()
        },
        "read_files",
        |_| json!({"paths": ["d/f.txt"]}),
        3,
    );
}

#[test]
fn a_link_to_a_secret_exchanged_in_mid_read_is_never_followed_native() {
    never_reads_the_secret(
        |_| {
            NativeConfig {
                non_accessible_globs: globs(),
                ..NativeConfig::default()
            }
            .into()
        },
        "read_file",
        |_| json!({"path": "d/f.txt"}),
        3,
    );
}

/// The fuzzer's shape: a folder searched by qwen, exchanged with a link to a secret file.
#[test]
fn a_link_to_a_secret_exchanged_for_a_searched_folder_is_never_followed_qwen() {
    never_reads_through(
        "d/d2",
        |_| {
            QwenConfig {
                non_accessible_globs: globs(),
                ..QwenConfig::default()
            }
            .into()
        },
        "grep_search",
        |root| json!({"pattern": "T", "path": s(&root.join("d/d2"))}),
        3,
    );
}
