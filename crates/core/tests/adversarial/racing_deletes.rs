//! Found while investigating the jail fuzzer's first finding with native in the model (issue 25,
//! `tests/jailfuzz`): qwen's `grep_search` of `d2` showed a non-accessible file's content
//! (`d2:2:ZQSECRET12`). One way to a secret's content under an innocent name: the racer makes
//! hard links to secrets under innocent names (the hard-link rule refuses such a file while it
//! has two names), and a recursive delete, racing an exchange of two folders, removed the
//! secret's own name: the delete checked the tree for non-accessible entries, then removed
//! whatever tree was at the name by then (the other folder, holding the secret). The alias was
//! left the inode's only name, readable by every rule. Removing a non-accessible file is the
//! bug; the leak follows from it. (The finding itself is better explained by a link to the
//! secret exchanged in before the open, `racing_final_links.rs`, which the later soaks met
//! again; this race the fuzzer did not meet again in 20 minutes without the fix.) A recursive
//! delete now asks about every entry again as it removes it (`Access::remove`,
//! `fs::remove_tree_sparing`).
//!
//! Minimised: `root/d0` (a plain folder) exchanged with `root/d1` (holding `.env`) as fast as a
//! thread can, `root/alias.txt` a hard link to the secret, and `d0` deleted recursively again
//! and again (coder's `delete-file`, native's `delete`); the secret must keep its name, and qwen
//! must never show its content through the alias. Before the fix both tests failed within about
//! a second (after 4 to 445 deletes), qwen showing `alias.txt:1:TOP SECRET env`; since, each
//! holds for its 5 s.

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use fsgate_core::{CoderConfig, NativeConfig, Options, ProfileConfig, QwenConfig, Workspace};
use rustix::fs::{CWD, RenameFlags, renameat_with};
use serde_json::{Value, json};

use crate::support::{Fx, P, SECRET, all_text, s, write};

fn globs() -> Vec<String> {
    vec!["**/.env".to_string()]
}

fn open(root: &Path, profile: ProfileConfig) -> Workspace {
    let mut o = Options::new(root);
    o.roots = vec![root.to_path_buf()];
    o.profile = profile;
    Workspace::open(o).unwrap()
}

/// Deletes `d0` with `tool` and `args` on `profile`'s workspace for up to `secs` while a thread
/// exchanges `d0` and `d1` (which holds `.env`); the secret must keep its name, and its alias
/// stay unreadable.
fn never_removes_the_secret(profile: ProfileConfig, tool: &str, args: Value, secs: u64) {
    let fx = Fx::with(P::Coder, |base| {
        write(&base.join("root/d0/x.txt"), "x\n");
        write(&base.join("root/d1/.env"), "TOP SECRET env\n");
        std::fs::hard_link(base.join("root/d1/.env"), base.join("root/alias.txt")).unwrap();
    });
    let ws = open(&fx.root, profile);
    let qwen = open(
        &fx.root,
        QwenConfig {
            non_accessible_globs: globs(),
            ..QwenConfig::default()
        }
        .into(),
    );
    let alias = fx.root.join("alias.txt");
    let stop = Arc::new(AtomicBool::new(false));
    let flipper = {
        let (stop, a, b) = (stop.clone(), fx.root.join("d0"), fx.root.join("d1"));
        std::thread::spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                let _ = renameat_with(CWD, &a, CWD, &b, RenameFlags::EXCHANGE);
            }
        })
    };
    let until = Instant::now() + Duration::from_secs(secs);
    let mut calls = 0;
    let mut found = None;
    while Instant::now() < until && found.is_none() {
        let out = ws.call(tool, args.clone()).unwrap();
        calls += 1;
        // The plain folder went (as asked): make it again for the next round.
        for d in ["d0", "d1"] {
            let _ = std::fs::create_dir(fx.root.join(d));
        }
        let names = std::fs::metadata(&alias).unwrap().nlink();
        if names != 2 {
            // The alias is the inode's only name now: nothing keeps its content out of view.
            let shown = all_text(
                &qwen
                    .call("grep_search", json!({"pattern": "TOP", "path": s(&alias)}))
                    .unwrap(),
            );
            found = Some(format!(
                "the secret has {names} name(s) left; {tool} said: {}; qwen's grep of the \
                 alias showed{}: {shown}",
                all_text(&out).trim(),
                if shown.contains(SECRET) {
                    " the secret"
                } else {
                    ""
                }
            ));
        }
    }
    stop.store(true, Ordering::SeqCst);
    flipper.join().unwrap();
    assert!(
        found.is_none(),
        "after {calls} calls of {tool}: {}",
        found.unwrap_or_default()
    );
}

#[test]
fn a_recursive_delete_racing_a_folder_exchange_never_removes_a_non_accessible_file() {
    never_removes_the_secret(
        CoderConfig {
            non_accessible_globs: globs(),
            ..CoderConfig::default()
        }
        .into(),
        "delete-file",
        json!({"paths": ["d0"], "recursive": true}),
        5,
    );
}

#[test]
fn a_native_recursive_delete_racing_a_folder_exchange_never_removes_a_non_accessible_file() {
    never_removes_the_secret(
        NativeConfig {
            non_accessible_globs: globs(),
            ..NativeConfig::default()
        }
        .into(),
        "delete",
        json!({"path": "d0", "recursive": true}),
        5,
    );
}
