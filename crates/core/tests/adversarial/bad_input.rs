//! Bad input: NUL in a path, empty path, `.`, 4 KB paths, non-UTF-8 and decomposed-Unicode
//! names, `~`. Setup is the standard fixture of `support`; every case checks that nothing
//! under `base` changes unless stated, and that no call panics.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

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

/// Every read, mutation and listing of `path` fails and nothing under `base` changes.
fn refused_unchanged(fx: &Fx, path: &str) {
    let p = fx.p;
    let before = fx.snap();
    let mut calls = vec![read(p, path)];
    calls.extend(mutations(p, path));
    for (tool, args) in calls {
        let out = fx.call(tool, args.clone());
        assert!(
            failed(&out),
            "{p:?} {tool} {args:?} succeeded: {}",
            out.text_content()
        );
        assert!(!all_text(&out).contains(SECRET), "{p:?} {tool} leaked");
        same(&before, &fx.snap(), &format!("{p:?} {tool} {args:?}"));
    }
}

/// Calls: read and mutate `bait.txt\0../../outside/secret.txt`, `bait\0.txt` and `\0`.
/// Expected: refused (never truncated at the NUL to `bait.txt`). Unchanged: everything.
fn nul_in_a_path(p: P) {
    let fx = Fx::new(p);
    for path in [
        "bait.txt\0../../outside/secret.txt",
        "bait\0.txt",
        "\0",
        "sub/\0x",
    ] {
        refused_unchanged(&fx, path);
    }
}
every!(nul_in_a_path);

/// Calls: read and mutate the empty path. Expected: refused. Unchanged: everything.
fn empty_path(p: P) {
    refused_unchanged(&Fx::new(p), "");
}
every!(empty_path);

/// Calls: read and mutate `.`, `./`, `sub/..` and the root's absolute path (all the root
/// directory). Expected: refused; the root is never replaced by a file. Unchanged: everything.
fn dot_and_the_root_itself(p: P) {
    let fx = Fx::new(p);
    for path in [
        ".".to_string(),
        "./".to_string(),
        "sub/..".to_string(),
        s(&fx.root),
    ] {
        refused_unchanged(&fx, &path);
        assert!(fx.root.is_dir());
    }
}
every!(dot_and_the_root_itself);

/// Calls: read and mutate a 4,096-byte single component and an 8 KB one (over NAME_MAX and
/// PATH_MAX); then write a 4 KB path of 2,048 nested `a/`. Expected: the long components are
/// refused cleanly (no panic); the nested write either fails leaving no partial directories
/// or creates exactly that file. Unchanged: nothing else is created.
fn four_kilobyte_paths(p: P) {
    let fx = Fx::new(p);
    for path in ["x".repeat(4096), "b".repeat(8192)] {
        refused_unchanged(&fx, &path);
    }
    let nested = format!("{}f.txt", "a/".repeat(2048));
    let before = fx.snap();
    for (tool, args) in mutations(p, &nested) {
        let out = fx.call(tool, args);
        if failed(&out) {
            same(
                &before,
                &fx.snap(),
                &format!("{p:?} {tool} nested 4 KB path"),
            );
        } else {
            // The tree was created below root/a; nothing else changed.
            assert!(fx.root.join("a").is_dir(), "{p:?} {tool}");
            std::fs::remove_dir_all(fx.root.join("a")).ok();
            same(
                &before,
                &fx.snap(),
                &format!("{p:?} {tool} nested 4 KB path"),
            );
        }
    }
}
every!(four_kilobyte_paths);

/// Setup: `root/bad\xff.txt` ("nonutf\n") and `root/bad\u{fffd}.txt` absent. Calls: list and
/// walk the root; read and mutate the lossy name `bad\u{fffd}.txt`. Expected: listings and
/// walks succeed as a whole; the lossy name never reaches the real file (read fails or holds
/// nothing of it). Unchanged: the non-UTF-8 file's content.
fn non_utf8_names(p: P) {
    let fx = Fx::with(p, |b| {
        let name = OsStr::from_bytes(b"bad\xff.txt");
        std::fs::write(b.join("root").join(name), "nonutf\n").unwrap();
    });
    let mut calls: Vec<_> = list(p, ".").into_iter().collect();
    calls.extend(walks(p, "."));
    for (tool, args) in calls {
        let out = fx.call(tool, args.clone());
        assert!(
            !out.is_error,
            "{p:?} {tool} {args} failed on a non-UTF-8 name: {}",
            out.text_content()
        );
    }
    let before = fx.snap();
    let (tool, args) = read(p, "bad\u{fffd}.txt");
    let out = fx.call(tool, args);
    assert!(
        failed(&out) || !all_text(&out).contains("nonutf"),
        "{p:?} lossy name reached the file"
    );
    for (tool, args) in mutations(p, "bad\u{fffd}.txt").into_iter().take(1) {
        let _ = fx.call(tool, args);
    }
    let real = fx.root.join(OsStr::from_bytes(b"bad\xff.txt"));
    assert_eq!(std::fs::read_to_string(&real).unwrap(), "nonutf\n", "{p:?}");
    let b = before.get(&real).cloned();
    assert_eq!(fx.snap().get(&real).cloned(), b);
}
every!(non_utf8_names);

/// Setup: `root/cafe\u{301}.txt` (decomposed, NFD) holding "bait\n". Calls: read it by its NFD
/// name (works); read it by its NFC name `caf\u{e9}.txt` (fails, or returns the same file);
/// edit it by its NFD name. Expected: the edit lands in the NFD file. Unchanged: no second
/// file appears beside it.
fn decomposed_unicode_names(p: P) {
    let nfd = "cafe\u{301}.txt";
    let nfc = "caf\u{e9}.txt";
    let fx = Fx::with(p, |b| write(&b.join("root").join(nfd), "bait\n"));
    let (tool, args) = read(p, nfd);
    let out = fx.call(tool, args);
    assert!(!failed(&out), "{p:?} NFD read: {}", out.text_content());
    assert!(all_text(&out).contains("bait"));
    let (tool, args) = read(p, nfc);
    let out = fx.call(tool, args);
    assert!(failed(&out) || all_text(&out).contains("bait"), "{p:?}");
    let count = std::fs::read_dir(&fx.root).unwrap().count();
    let (tool, args) = edit(p, nfd, "bait", "done");
    let out = fx.call(tool, args);
    assert!(!failed(&out), "{p:?} NFD edit: {}", out.text_content());
    assert_eq!(
        std::fs::read_to_string(fx.root.join(nfd)).unwrap(),
        "done\n"
    );
    assert_eq!(
        std::fs::read_dir(&fx.root).unwrap().count(),
        count,
        "{p:?}: a second file appeared"
    );
}
every!(decomposed_unicode_names);

/// Calls: read `~/.fsgate-adv-probe`, mutate `~/fsgate-adv-probe-<pid>.txt` and
/// `~root/fsgate-adv-probe-<pid>.txt`. Expected: `~` is never expanded to a home directory:
/// nothing appears in `$HOME` or `/root`; a write, if accepted, lands in `root/~/...`.
fn tilde_is_not_expanded(p: P) {
    let fx = Fx::new(p);
    let name = format!("fsgate-adv-probe-{}-{p:?}.txt", std::process::id());
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    for path in [format!("~/{name}"), format!("~root/{name}")] {
        for (tool, args) in mutations(p, &path) {
            let _ = fx.call(tool, args);
        }
        if let Some(h) = &home {
            assert!(!h.join(&name).exists(), "{p:?} {path} expanded into $HOME");
        }
        assert!(
            !std::path::Path::new("/root").join(&name).exists(),
            "{p:?} {path}"
        );
    }
    let (tool, args) = read(p, "~/.bashrc");
    let out = fx.call(tool, args);
    assert!(failed(&out), "{p:?} read ~/.bashrc: {}", out.text_content());
    for (_, v) in fx.snap() {
        assert!(!v.contains(SECRET) || v.contains("outside") || v.contains("evil"));
    }
}
every!(tilde_is_not_expanded);
