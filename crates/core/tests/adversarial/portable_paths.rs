//! The writes of the access layer on whichever paths this build takes (`access::platform`):
//! Linux's (unnamed files, `copy_file_range`) or the portable ones a Mac runs (named temp files
//! created exclusively, a copy loop). `scripts/test` runs this file a second time with the
//! feature `portable-paths` and without `openat2`, so both are tested on Linux.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

use std::io;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

use cap_std::ambient_authority;
use cap_std::fs::Dir;
use fsgate_core::access::fs::{Conflict, Place, Splice, WriteOptions, write_atomic_from};
use fsgate_core::access::fs::{write_atomic, write_atomic_splice};
use fsgate_core::access::platform::PATHS;
use fsgate_core::access::{Access, Jail, JailConfig};

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Bytes that differ from one offset to the next, so a copy from the wrong place shows.
fn varied(len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i.wrapping_mul(31) ^ (i >> 9)) as u8)
        .collect()
}

#[test]
fn the_build_takes_the_paths_its_feature_asks_for() {
    if cfg!(feature = "portable-paths") {
        assert_eq!(PATHS, "portable");
    } else {
        assert!(PATHS == "linux" || PATHS == "portable", "{PATHS}");
    }
}

#[test]
#[cfg(target_os = "linux")]
fn a_run_without_openat2_has_none() {
    // Set by scripts/without-openat2, which the portable run goes through: then cap-std's own
    // resolution beneath a root is what the suites test.
    if std::env::var_os("FSGATE_TEST_WITHOUT_OPENAT2").is_none() {
        return;
    }
    use rustix::fs::{CWD, Mode, OFlags, ResolveFlags, openat2};
    let answer = openat2(
        CWD,
        ".",
        OFlags::RDONLY,
        Mode::empty(),
        ResolveFlags::BENEATH,
    );
    assert_eq!(answer.err(), Some(rustix::io::Errno::NOSYS));
}

#[test]
fn a_spliced_edit_copies_every_unchanged_byte_from_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let handle = Dir::open_ambient_dir(dir.path(), ambient_authority()).unwrap();
    for len in [1usize, 65_535, 65_537, 3 << 20] {
        let content = varied(len);
        let path = dir.path().join("f.bin");
        for cut in [
            0..0,
            0..1,
            len as u64 / 2..len as u64 / 2 + 1,
            len as u64 - 1..len as u64,
        ] {
            std::fs::write(&path, &content).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
            let from = std::fs::File::open(&path).unwrap();
            let splice = Splice {
                from: &from,
                len: len as u64,
                cut: cut.clone(),
                with: b"<new>",
            };
            let place = Place::Beneath(&handle, Path::new("f.bin"));
            write_atomic_splice(place, splice, WriteOptions::default()).unwrap();
            let (a, b) = (cut.start as usize, cut.end as usize);
            let want = [&content[..a], b"<new>", &content[b..]].concat();
            let got = std::fs::read(&path).unwrap();
            assert!(got == want, "{len} bytes, cut {cut:?}: the copy differs");
            let mode = std::fs::metadata(&path).unwrap().mode() & 0o7777;
            assert_eq!(mode, 0o640, "{len} bytes, cut {cut:?}");
            assert_eq!(names(dir.path()), ["f.bin"]);
        }
    }
}

#[test]
fn a_spliced_edit_of_a_file_that_shrank_meanwhile_is_a_conflict_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.txt");
    let content = varied(200_000);
    std::fs::write(&path, &content).unwrap();
    let from = std::fs::File::open(&path).unwrap();
    // Another writer cuts the file the edit was read from.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(150_000)
        .unwrap();
    let shrunk = std::fs::read(&path).unwrap();
    let splice = Splice {
        from: &from,
        len: 200_000,
        cut: 10..20,
        with: b"x",
    };
    let err =
        write_atomic_splice(Place::Ambient(&path), splice, WriteOptions::default()).unwrap_err();
    assert!(Conflict::is(&err), "{err}");
    assert_eq!(std::fs::read(&path).unwrap(), shrunk);
    assert_eq!(names(dir.path()), ["f.txt"]);
}

/// A source that gives some bytes, then fails: a write interrupted half way.
struct Failing(usize);

impl io::Read for Failing {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.0 == 0 {
            return Err(io::Error::other("the source broke"));
        }
        let n = buf.len().min(self.0);
        buf[..n].fill(b'n');
        self.0 -= n;
        Ok(n)
    }
}

#[test]
fn a_write_that_fails_half_way_leaves_the_old_file_and_no_other_name() {
    let dir = tempfile::tempdir().unwrap();
    let handle = Dir::open_ambient_dir(dir.path(), ambient_authority()).unwrap();
    std::fs::write(dir.path().join("f.txt"), "old\n").unwrap();
    for place in [
        Place::Ambient(&dir.path().join("f.txt")),
        Place::Beneath(&handle, Path::new("f.txt")),
    ] {
        let err =
            write_atomic_from(place, &mut Failing(300_000), WriteOptions::default()).unwrap_err();
        assert!(err.to_string().contains("the source broke"), "{err}");
        assert_eq!(std::fs::read(dir.path().join("f.txt")).unwrap(), b"old\n");
        assert_eq!(names(dir.path()), ["f.txt"]);
    }
    // A new file that fails leaves nothing at all.
    let place = Place::Beneath(&handle, Path::new("new.txt"));
    write_atomic_from(place, &mut Failing(10), WriteOptions::default()).unwrap_err();
    assert_eq!(names(dir.path()), ["f.txt"]);
}

#[test]
fn a_replacement_keeps_the_replaced_file_s_mode_and_owner() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.sh");
    let root = rustix::process::geteuid().is_root();
    // Set-group-ID, set-user-ID and plain: a change of owner, and a write by an unprivileged
    // process, clear the set-id bits, so they must be set after both.
    for (i, mode) in [0o2751, 0o4755, 0o640].into_iter().enumerate() {
        std::fs::write(&path, "echo old\n").unwrap();
        if root {
            // Only a privileged process may give a file away, and keep another's file theirs.
            std::os::unix::fs::chown(&path, Some(65534), Some(65534)).unwrap();
        }
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        let before = std::fs::metadata(&path).unwrap();
        let content = format!("echo new {i}\n");
        write_atomic(
            Place::Ambient(&path),
            content.as_bytes(),
            WriteOptions::default(),
        )
        .unwrap();
        let after = std::fs::metadata(&path).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), content.as_bytes());
        assert_eq!(
            after.mode() & 0o7777,
            before.mode() & 0o7777,
            "mode {mode:o}"
        );
        assert_eq!((after.uid(), after.gid()), (before.uid(), before.gid()));
        assert_ne!(after.ino(), before.ino(), "a new file took the name");
        assert_eq!(names(dir.path()), ["run.sh"]);
    }
}

#[test]
fn a_file_created_only_if_new_refuses_an_existing_name_and_leaves_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let handle = Dir::open_ambient_dir(dir.path(), ambient_authority()).unwrap();
    let only_new = WriteOptions {
        create_new: true,
        ..WriteOptions::default()
    };
    let place = Place::Beneath(&handle, Path::new("a.txt"));
    write_atomic(place, b"first", only_new).unwrap();
    let err = write_atomic(place, b"second", only_new).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
    assert_eq!(std::fs::read(dir.path().join("a.txt")).unwrap(), b"first");
    assert_eq!(names(dir.path()), ["a.txt"]);
}

#[test]
fn a_move_that_may_not_replace_leaves_both_files_and_one_that_may_replaces() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("a.txt"), "a").unwrap();
    std::fs::write(root.join("b.txt"), "b").unwrap();
    let (jail, _) = Jail::new(&JailConfig {
        roots: vec![root.clone()],
        ..Default::default()
    })
    .unwrap();
    let access = Access::jailed(jail);
    let (a, b) = (
        access.resolve("a.txt").unwrap(),
        access.resolve("b.txt").unwrap(),
    );
    let err = access.rename(&a, &b, false).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
    assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"a");
    assert_eq!(std::fs::read(root.join("b.txt")).unwrap(), b"b");
    access.rename(&a, &b, true).unwrap();
    assert_eq!(names(&root), ["b.txt"]);
    assert_eq!(std::fs::read(root.join("b.txt")).unwrap(), b"a");
}

/// The `.rs` files under `dir`, recursively.
fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn only_the_platform_module_names_an_operating_system() {
    // What names a system, or a call only some systems have. (The benchmark client, which reads
    // a server's memory from Linux's /proc, is not part of fsgate and is not checked.)
    let marks = [
        "target_os",
        "target_vendor",
        "target_family",
        "cfg(unix",
        "cfg(windows",
        "cfg(not(unix",
        "cfg(not(windows",
        "\"/proc/",
        "/proc/self",
        "TMPFILE",
        "EMPTY_PATH",
        "copy_file_range(",
        "fallocate(",
        "gettid",
        "fcntl_fullfsync",
        "getpath(",
        "renameat_with(",
        "SeekFrom::Data",
        "SeekFrom::Hole",
    ];
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let platform = crates.join("core/src/access/platform");
    let mut files = Vec::new();
    for krate in ["core", "mcp", "cli"] {
        sources(&crates.join(krate).join("src"), &mut files);
    }
    assert!(files.len() > 50, "the sources were not found: {files:?}");
    let mut found = Vec::new();
    for file in files.iter().filter(|f| !f.starts_with(&platform)) {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            // Code only: what follows `//` is a comment (or, rarely, part of a string).
            let code = line.split("//").next().unwrap_or("");
            for mark in marks.iter().filter(|m| code.contains(*m)) {
                found.push(format!("{}:{}: {mark}", file.display(), n + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "only access/platform may name an operating system or a call only some have:\n{}",
        found.join("\n")
    );
}
