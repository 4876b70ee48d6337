//! Resources: special files, huge files, loops, deep and wide trees, broken entries during a
//! walk. Every call runs under a guard thread so a hang fails the test instead of the suite.
//! Setup is the standard fixture of `support` plus what each case adds; what must be
//! unchanged is stated per case.

use std::os::unix::fs::{FileTypeExt, symlink};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;

use super::support::*;

macro_rules! every {
    ($body:ident) => {
        every!($body: gg => P::Gg, coder => P::Coder, qwen => P::Qwen, pico => P::Pico, sgpt => P::Sgpt, native => P::Native);
    };
    ($body:ident: $($(#[$m:meta])* $name:ident => $p:expr),+ $(,)?) => {
        mod $body {
            use super::*;
            $( #[test] $(#[$m])* fn $name() { super::$body($p) } )+
        }
    };
}

/// Calls `tool` on a fresh thread, failing after `secs` seconds.
fn call_guarded(
    fx: &Fx,
    secs: u64,
    tool: &'static str,
    args: serde_json::Value,
) -> fsgate_core::ToolOutput {
    let ws = open(fx.p, &fx.root);
    let what = format!("{:?} {tool} {args}", fx.p);
    guarded(secs, &what, move || ws.call(tool, args).unwrap())
}

/// Setup: `root/pipe` is a FIFO nobody writes to. Calls: the profile's read tool (whole and
/// windowed) on it, then every walk of the root (which holds it). Expected: the reads are
/// refused within 5 s each; the walks return within 5 s. Unchanged: the FIFO stays a FIFO.
fn fifo_is_refused_without_hanging(p: P) {
    let fx = Fx::with(p, |b| sh("mkfifo", &[&s(&b.join("root/pipe"))]));
    for (tool, args) in [read(p, "pipe"), read_window(p, "pipe")] {
        let out = call_guarded(&fx, 5, tool, args);
        assert!(
            failed(&out),
            "{p:?} {tool} read a FIFO: {}",
            out.text_content()
        );
    }
    for (tool, args) in walks(p, ".") {
        call_guarded(&fx, 5, tool, args);
    }
    let (tool, args) = edit(p, "pipe", "x", "y");
    let out = call_guarded(&fx, 5, tool, args);
    assert!(failed(&out), "{p:?} {tool} edited a FIFO");
    assert!(
        std::fs::symlink_metadata(fx.root.join("pipe"))
            .unwrap()
            .file_type()
            .is_fifo()
    );
}
every!(fifo_is_refused_without_hanging);

/// Setup: `root/zero` and `root/null` are character devices 1,5 and 1,3 (made with mknod).
/// Calls: read, windowed read, edit of each; walks of the root. Expected: reads and edits
/// refused within 5 s (a read of /dev/zero never ends); walks return. Unchanged: both nodes
/// stay character devices.
fn device_files_are_refused(p: P) {
    let fx = Fx::with(p, |b| {
        sh("mknod", &[&s(&b.join("root/zero")), "c", "1", "5"]);
        sh("mknod", &[&s(&b.join("root/null")), "c", "1", "3"]);
    });
    for name in ["zero", "null"] {
        for (tool, args) in [read(p, name), read_window(p, name), edit(p, name, "", "x")] {
            let out = call_guarded(&fx, 5, tool, args);
            assert!(
                failed(&out),
                "{p:?} {tool} {name} succeeded: {}",
                out.text_content()
            );
        }
        assert!(
            std::fs::symlink_metadata(fx.root.join(name))
                .unwrap()
                .file_type()
                .is_char_device(),
            "{p:?} replaced the device {name}"
        );
    }
    for (tool, args) in walks(p, ".") {
        call_guarded(&fx, 5, tool, args);
    }
}
every!(device_files_are_refused);

/// Setup: `root/big.img`, a 10 GB sparse file whose first line is "head" (the rest NULs).
/// Calls: windowed read, whole read, listing of the root, walks of the root. Expected: each
/// returns within 5 s with under 1 MB of text. Unchanged: the file's length and inode.
fn sparse_ten_gigabyte_file_stays_fast_and_small(p: P) {
    let fx = Fx::with(p, |b| {
        let f = std::fs::File::create(b.join("root/big.img")).unwrap();
        std::io::Write::write_all(&mut &f, b"head\n").unwrap();
        f.set_len(10 << 30).unwrap();
    });
    let before = fx.snap();
    let mut calls = vec![read_window(p, "big.img"), read(p, "big.img")];
    calls.extend(list(p, "."));
    calls.extend(walks(p, "."));
    for (tool, args) in calls {
        let t0 = Instant::now();
        let out = call_guarded(&fx, 5, tool, args.clone());
        let len = all_text(&out).len();
        assert!(len < 1 << 20, "{p:?} {tool} {args}: {len} bytes of output");
        assert!(t0.elapsed() < Duration::from_secs(5));
    }
    same(&before, &fx.snap(), &format!("{p:?}"));
}
every!(sparse_ten_gigabyte_file_stays_fast_and_small:
    gg => P::Gg,
    coder => P::Coder, qwen => P::Qwen, pico => P::Pico, sgpt => P::Sgpt, native => P::Native);

/// Setup: one 100 MB file holding a single line of 'a' (shared by all profiles). Calls: every
/// profile's whole and windowed read. Expected: each within 10 s and
/// under 2 MB of text. Unchanged: the file.
#[test]
fn a_hundred_megabyte_single_line_is_bounded_for_every_profile() {
    let tmp = tempfile::tempdir().unwrap();
    let _mnt = Tmpfs::mount(tmp.path(), "1g");
    let root = tmp.path().canonicalize().unwrap();
    let line = vec![b'a'; 100 << 20];
    std::fs::write(root.join("line.txt"), &line).unwrap();
    drop(line);
    for p in ALL {
        let ws = Arc::new(open(p, &root));
        let calls = vec![read(p, "line.txt"), read_window(p, "line.txt")];
        for (tool, args) in calls {
            let ws = Arc::clone(&ws);
            let what = format!("{p:?} {tool} {args}");
            let t0 = Instant::now();
            // A hang detector, not a speed check: 200,000 entries on a loaded two-core runner
            // took over 20 s once, so the bound leaves room for that.
            let out = guarded(90, &what, move || ws.call(tool, args).unwrap());
            let len = all_text(&out).len();
            assert!(t0.elapsed() < Duration::from_secs(10), "{what}: slow");
            assert!(len < 2 << 20, "{what}: {len} bytes of output");
        }
    }
    assert_eq!(
        std::fs::metadata(root.join("line.txt")).unwrap().len(),
        100 << 20
    );
}

/// Setup: `loop1 -> loop2 -> loop1`, `self -> self`, `dloop -> .` (a directory link to its own
/// parent), `sub/up -> ..`. Calls: read and edit the loops; list and walk the root. Expected:
/// reads and edits refused, walks return within 5 s with bounded output. Unchanged: everything.
fn symlink_loops_terminate(p: P) {
    let fx = Fx::with(p, |b| {
        let r = b.join("root");
        symlink("loop2", r.join("loop1")).unwrap();
        symlink("loop1", r.join("loop2")).unwrap();
        symlink("self", r.join("self")).unwrap();
        symlink(".", r.join("dloop")).unwrap();
        symlink("..", r.join("sub/up")).unwrap();
    });
    let before = fx.snap();
    for name in ["loop1", "self", "dloop/dloop/dloop/loop1"] {
        for (tool, args) in [read(p, name), edit(p, name, "bait", "x")] {
            let out = call_guarded(&fx, 5, tool, args);
            assert!(failed(&out), "{p:?} {tool} {name}: {}", out.text_content());
        }
    }
    let mut calls: Vec<_> = list(p, ".").into_iter().collect();
    calls.extend(walks(p, "."));
    calls.extend(walks(p, "dloop"));
    for (tool, args) in calls {
        let out = call_guarded(&fx, 5, tool, args.clone());
        assert!(all_text(&out).len() < 1 << 20, "{p:?} {tool} {args}");
    }
    same(&before, &fx.snap(), &format!("{p:?}"));
}
every!(symlink_loops_terminate);

/// Setup: a 1,000-level chain `d/d/.../d/deep.txt` ("needle\n"). Calls: read the deep file by
/// its relative path; walks of the root. Expected: the read works; walks return within 20 s
/// without overflowing the stack (which would abort the whole test binary). Unchanged: the
/// tree.
fn a_thousand_level_deep_tree(p: P) {
    let rel = format!("{}deep.txt", "d/".repeat(1000));
    let fx = Fx::on_tmpfs(p, |b| write(&b.join("root").join(&rel), "needle\n"));
    let (tool, args) = read(p, &rel);
    let out = call_guarded(&fx, 20, tool, args);
    assert!(!failed(&out), "{p:?} {}", out.text_content());
    assert!(all_text(&out).contains("needle"));
    for (tool, args) in walks(p, ".") {
        let out = call_guarded(&fx, 20, tool, args.clone());
        assert!(all_text(&out).len() < 4 << 20, "{p:?} {tool} {args}");
    }
    assert!(fx.root.join(&rel).exists());
}
every!(a_thousand_level_deep_tree:
    gg => P::Gg,
    coder => P::Coder,
    qwen => P::Qwen, pico => P::Pico, sgpt => P::Sgpt, native => P::Native);

/// Setup: `root/wide/` holding 200,000 empty files. Call: each listed profile's listing of
/// `wide`. Expected: within 20 s and under 1 MB of text (the listing is bounded). Unchanged:
/// the entry count.
fn wide_listing(profiles: &[P]) {
    let tmp = tempfile::tempdir().unwrap();
    let _mnt = Tmpfs::mount(tmp.path(), "1g");
    let root = tmp.path().canonicalize().unwrap();
    let wide = root.join("wide");
    std::fs::create_dir(&wide).unwrap();
    for i in 0..200_000u32 {
        std::fs::File::create(wide.join(format!("f{i:06}"))).unwrap();
    }
    for &p in profiles {
        let ws = Arc::new(open(p, &root));
        let Some((tool, args)) = list(p, "wide") else {
            continue;
        };
        let what = format!("{p:?} {tool} {args}");
        // A hang detector, not a speed check: 200,000 entries on a loaded two-core runner
        // took over 20 s once, so the bound leaves room for that.
        let out = guarded(90, &what, move || ws.call(tool, args).unwrap());
        let len = all_text(&out).len();
        assert!(len < 1 << 20, "{what}: {len} bytes of output (unbounded)");
    }
    assert_eq!(std::fs::read_dir(&wide).unwrap().count(), 200_000);
}

#[test]
fn a_two_hundred_thousand_entry_directory_listing_is_bounded() {
    wide_listing(&[P::Gg, P::Coder, P::Pico]);
}

#[test]
fn qwen_two_hundred_thousand_entry_directory_listing_is_bounded() {
    wide_listing(&[P::Qwen]);
}

/// Setup: a walk over `a/pipe` (FIFO), `b/gone -> missing` (dangling), `c/` removed right
/// after the workspace opens, and `z/hit.txt` ("needle"). Running as root makes a mode-000
/// directory readable, so the unreadable subdirectory is stood in for by these entries.
/// Calls: every walk of the root. Expected: returns within 5 s; a content search still
/// finds `needle`. Unchanged: `z/hit.txt`.
fn a_walk_survives_broken_entries(p: P) {
    let fx = Fx::with(p, |b| {
        let r = b.join("root");
        std::fs::create_dir_all(r.join("a")).unwrap();
        sh("mkfifo", &[&s(&r.join("a/pipe"))]);
        std::fs::create_dir_all(r.join("b")).unwrap();
        symlink("missing", r.join("b/gone")).unwrap();
        write(&r.join("c/x.txt"), "x\n");
        write(&r.join("z/hit.txt"), "needle\n");
    });
    std::fs::remove_dir_all(fx.root.join("c")).unwrap();
    let mut found = walks(p, ".").is_empty();
    for (tool, mut args) in walks(p, ".") {
        for key in ["query", "pattern"] {
            if args.get(key).is_some() && tool != "glob" {
                args[key] = json!("needle");
            }
        }
        let out = call_guarded(&fx, 5, tool, args.clone());
        if all_text(&out).contains("needle") {
            found = true;
        }
    }
    assert!(found, "{p:?}: no walk found the needle");
    assert_eq!(
        std::fs::read_to_string(fx.root.join("z/hit.txt")).unwrap(),
        "needle\n"
    );
}
every!(a_walk_survives_broken_entries);
