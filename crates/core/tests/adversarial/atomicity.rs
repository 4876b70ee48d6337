//! Atomicity: every profile's edit tool keeps mode and owner, refuses read-only files and
//! directories, and leaves the original intact when the disk is full. Setup is the standard
//! fixture of `support` plus what each case adds.

use std::os::unix::fs::{MetadataExt, PermissionsExt};

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

/// Names in `dir` that look like leftover temp files.
fn temp_leftovers(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("tmp") || n.contains(".fsgate-") || n.starts_with(".m.txt"))
        .collect()
}

/// Setup: `root/m.txt` ("bait\n") with mode 0751 and owner 1234:5678. Call: the profile's
/// edit tool replacing "bait" by "done". Expected: success, content "done\n". Unchanged: mode
/// 0751, owner 1234:5678, the file stays a regular file; no temp file left beside it.
fn edit_keeps_mode_and_owner(p: P) {
    let fx = Fx::with(p, |b| {
        let f = b.join("root/m.txt");
        write(&f, "bait\n");
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o751)).unwrap();
        std::os::unix::fs::chown(&f, Some(1234), Some(5678)).unwrap();
    });
    let (tool, args) = edit(p, "m.txt", "bait", "done");
    let out = fx.call(tool, args);
    assert!(!failed(&out), "{p:?} {tool}: {}", out.text_content());
    let f = fx.root.join("m.txt");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "done\n", "{p:?}");
    let m = std::fs::symlink_metadata(&f).unwrap();
    assert!(m.is_file());
    assert_eq!(
        m.permissions().mode() & 0o7777,
        0o751,
        "{p:?} {tool} lost the mode"
    );
    assert_eq!(
        (m.uid(), m.gid()),
        (1234, 5678),
        "{p:?} {tool} lost the owner"
    );
    assert!(
        temp_leftovers(&fx.root).is_empty(),
        "{p:?}: {:?}",
        temp_leftovers(&fx.root)
    );
}
every!(edit_keeps_mode_and_owner);

/// Setup: `root/m.txt` ("bait\n") with mode 0640 and owner 4321:8765. Call: picoclaw
/// `append_file` and qwen/gg/picoclaw whole-file writes over it. Unchanged: mode and owner.
fn whole_writes_keep_mode_and_owner(p: P) {
    let fx = Fx::with(p, |b| {
        let f = b.join("root/m.txt");
        write(&f, "bait\n");
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o640)).unwrap();
        std::os::unix::fs::chown(&f, Some(4321), Some(8765)).unwrap();
    });
    for (tool, args) in mutations(p, "m.txt").into_iter().skip(1) {
        let out = fx.call(tool, args.clone());
        // A delete or move (native's) leaves nothing here to check.
        let Ok(m) = std::fs::symlink_metadata(fx.root.join("m.txt")) else {
            continue;
        };
        if !failed(&out) {
            assert_eq!(
                m.permissions().mode() & 0o7777,
                0o640,
                "{p:?} {tool} {args}"
            );
            assert_eq!((m.uid(), m.gid()), (4321, 8765), "{p:?} {tool} {args}");
        }
    }
}
every!(whole_writes_keep_mode_and_owner:
    gg => P::Gg,
    coder => P::Coder,
    qwen => P::Qwen, pico => P::Pico, sgpt => P::Sgpt, native => P::Native);

/// Setup: `root/ro.txt` ("bait\n", mode 0444) and `root/rod/` (mode 0555) holding `f.txt`
/// ("bait\n"). The suite runs as root, which the kernel lets write anyway, so the check is the
/// tool's own. Calls: every mutation of `ro.txt`, `rod/f.txt` and `rod/new.txt`. Expected:
/// refused. Unchanged: everything (content, modes, no new file).
fn read_only_file_and_directory_are_respected(p: P) {
    let fx = Fx::with(p, |b| {
        let r = b.join("root");
        write(&r.join("ro.txt"), "bait\n");
        std::fs::set_permissions(r.join("ro.txt"), std::fs::Permissions::from_mode(0o444)).unwrap();
        write(&r.join("rod/f.txt"), "bait\n");
        std::fs::set_permissions(r.join("rod"), std::fs::Permissions::from_mode(0o555)).unwrap();
    });
    let before = fx.snap();
    for path in ["ro.txt", "rod/new.txt"] {
        for (tool, args) in mutations(p, path) {
            let out = fx.call(tool, args.clone());
            assert!(failed(&out), "{p:?} {tool} {args} wrote a read-only target");
            same(&before, &fx.snap(), &format!("{p:?} {tool} {args}"));
        }
    }
    std::fs::set_permissions(fx.root.join("rod"), std::fs::Permissions::from_mode(0o755)).unwrap();
}
every!(read_only_file_and_directory_are_respected:
    gg => P::Gg,
    coder => P::Coder,
    qwen => P::Qwen,
    pico => P::Pico,
    sgpt => P::Sgpt, native => P::Native);

/// Setup: the root is a 1 MB tmpfs holding `big.txt` (600 KB: "bait\n" then filler) and a
/// filler file taking all but ~100 KB of the rest. Call: the profile's edit of "bait".
/// Expected: refused (ENOSPC). Unchanged: `big.txt` byte for byte and its inode; no temp
/// file left. Skipped (passes vacuously, with a note) when `mount` is not possible.
fn disk_full_leaves_the_original(p: P) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let Some(_mnt) = Tmpfs::mount(&root, "1m") else {
        eprintln!("SKIP: cannot mount a tmpfs here");
        return;
    };
    let mut body = String::from("bait\n");
    while body.len() < 600 * 1024 {
        body.push_str("filler line of text for the disk-full case\n");
    }
    std::fs::write(root.join("big.txt"), &body).unwrap();
    // Fill the rest, leaving well under the size of big.txt.
    let chunk = vec![b'x'; 4096];
    let mut f = std::fs::File::create(root.join("fill")).unwrap();
    while std::io::Write::write_all(&mut f, &chunk).is_ok() {}
    drop(f);
    let fill_len = std::fs::metadata(root.join("fill")).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(root.join("fill"))
        .unwrap()
        .set_len(fill_len.saturating_sub(100 * 1024))
        .unwrap();
    let ino = std::fs::metadata(root.join("big.txt")).unwrap().ino();
    let ws = open(p, &root);
    let (tool, args) = edit(p, "big.txt", "bait", "done");
    let out = ws.call(tool, args).unwrap();
    assert!(failed(&out), "{p:?} {tool} succeeded on a full disk");
    assert_eq!(
        std::fs::read_to_string(root.join("big.txt")).unwrap(),
        body,
        "{p:?}"
    );
    assert_eq!(
        std::fs::metadata(root.join("big.txt")).unwrap().ino(),
        ino,
        "{p:?}"
    );
    let left = temp_leftovers(&root);
    assert!(left.is_empty(), "{p:?} left {left:?}");
    drop(ws);
}
every!(disk_full_leaves_the_original);
