//! Found by the jail fuzzer (issue 25, `tests/jailfuzz`): a folder inside the root exchanged
//! back and forth with a link to an outside folder while a confined walk listed the tree let the
//! walk list the outside folder's entries under the folder's name, because the tree's walk (the
//! `ignore` crate) listed folders by path: the kernel's beneath check covered the files' contents
//! it opened, not the names it listed. Minimised from the fuzzer's seed 7429638489561774858 (gg
//! `tree` with the racer exchanging `d2` with a link to `../../root_evil`). The tree now walks on
//! the one walker, each folder opened from its parent's handle; the other walks that list names
//! (coder's tree, qwen's glob and listing) race the same way here.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rustix::fs::{CWD, RenameFlags, renameat_with};
use serde_json::json;

use crate::support::{Fx, P, all_text};

/// In the name of an entry that exists only outside.
const HIDDEN: &str = "ZQHIDDEN";

/// Runs `tool` with `args` on a `--jail roots` workspace of `p` for up to `secs` while a thread
/// exchanges `root/d` with a link to `base/outside` as fast as it can; the outside name must
/// never appear.
fn never_shows_outside_names(p: P, tool: &str, args: impl Fn(&Fx) -> serde_json::Value, secs: u64) {
    let fx = Fx::with(p, |base| {
        std::fs::create_dir_all(base.join("root/d/inner")).unwrap();
        std::fs::write(base.join("root/d/inner/f.txt"), "inside\n").unwrap();
        std::fs::write(base.join(format!("outside/{HIDDEN}.txt")), "x\n").unwrap();
        std::os::unix::fs::symlink("../outside", base.join("root/swap")).unwrap();
    });
    let args = args(&fx);
    let stop = Arc::new(AtomicBool::new(false));
    let flipper = {
        let (stop, d, swap) = (stop.clone(), fx.root.join("d"), fx.root.join("swap"));
        std::thread::spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                let _ = renameat_with(CWD, &d, CWD, &swap, RenameFlags::EXCHANGE);
            }
        })
    };
    let until = Instant::now() + Duration::from_secs(secs);
    let mut leak = None;
    let mut calls = 0;
    while Instant::now() < until && leak.is_none() {
        let text = all_text(&fx.call(tool, args.clone()));
        calls += 1;
        if text.contains(HIDDEN) {
            leak = Some(text);
        }
    }
    stop.store(true, Ordering::SeqCst);
    flipper.join().unwrap();
    assert!(
        leak.is_none(),
        "after {calls} calls of {tool}, one showed an outside name: {}",
        leak.unwrap_or_default()
    );
}

#[test]
fn a_folder_exchanged_with_an_outside_link_mid_tree_never_shows_outside_names() {
    never_shows_outside_names(P::Gg, "tree", |_| json!({"path": ".", "depth": 5}), 10);
}

#[test]
fn a_folder_exchanged_with_an_outside_link_mid_coder_tree_never_shows_outside_names() {
    never_shows_outside_names(
        P::Coder,
        "tree",
        |_| json!({"path": ".", "max_depth": 5}),
        5,
    );
}

#[test]
fn a_folder_exchanged_with_an_outside_link_mid_glob_never_shows_outside_names() {
    never_shows_outside_names(P::Qwen, "glob", |_| json!({"pattern": "**/*"}), 5);
}

#[test]
fn a_folder_exchanged_with_an_outside_link_mid_listing_never_shows_outside_names() {
    never_shows_outside_names(
        P::Qwen,
        "list_directory",
        |fx| json!({"path": fx.root.join("d").to_string_lossy()}),
        5,
    );
}
