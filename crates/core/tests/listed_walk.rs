//! The walk on kept folder listings (`Access::listed_walk`) yields exactly the files the walk of
//! its own (`Access::sorted_walk`) does, in the same order, before and after every kind of
//! change to the tree and its ignore files; and a walk of an unchanged tree lists nothing anew.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use fsgate_core::access::{Access, Jail, JailConfig};

/// Longer than the window within which a change is too recent for its stamp to be trusted.
const PAST_RACY: Duration = Duration::from_millis(2100);

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn tree(root: &Path) {
    write(root, ".gitignore", "*.log\nbuild/\n!keep.log\n");
    write(root, ".hidden", "x");
    write(root, "top.txt", "x");
    write(root, "keep.log", "x");
    write(root, "drop.log", "x");
    write(root, "build/out.txt", "x");
    write(root, "a/.gitignore", "*.tmp\n/only_here.txt\n");
    write(root, "a/.ignore", "private/\n");
    write(root, "a/only_here.txt", "x");
    write(root, "a/x.tmp", "x");
    write(root, "a/x.txt", "x");
    write(root, "a/private/p.txt", "x");
    write(root, "a/deep/only_here.txt", "x");
    write(root, "a/deep/er/f.rs", "x");
    write(root, "b/c/d/e.txt", "x");
    write(root, "b/c/z.txt", "x");
    write(root, "b/B.txt", "x");
    write(root, "b/_.txt", "x");
    write(root, "b/key.pem", "x");
    write(root, "sub/.git/HEAD", "ref");
    write(root, "sub/inner.txt", "x");
    fs::create_dir_all(root.join("empty")).unwrap();
    std::os::unix::fs::symlink("top.txt", root.join("link.txt")).unwrap();
}

/// The files the walk of its own finds under `rel`.
fn own(access: &Access, rel: &str) -> Vec<PathBuf> {
    let root = access.root().join(rel);
    access
        .sorted_walk(&root, None)
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()) && !access.is_secret_path(e.path()))
        .map(|e| e.into_path())
        .collect()
}

/// The files the listed walk finds under `rel`, and how many folders it listed anew.
fn listed(access: &Access, rel: &str) -> (Vec<PathBuf>, usize) {
    let root = access.root().join(rel);
    let mut walk = access.listed_walk(&root).expect("a folder under the root");
    let files: Vec<PathBuf> = walk.by_ref().map(|file| file.path()).collect();
    (files, walk.listed_anew())
}

/// Checks both walks agree at the root and below, twice (the second time on kept listings);
/// returns how many folders the first walk of the root listed anew.
fn agree(access: &Access, step: &str) -> usize {
    let (files, anew) = listed(access, "");
    assert_eq!(files, own(access, ""), "{step}: the whole tree");
    for rel in ["a", "a/deep", "b", "b/c", "a/private"] {
        // A search of an ignored folder answers so before walking (IgnoredRoot).
        let path = access.root().join(rel);
        if path.is_dir() && !access.is_ignored(&path, true) {
            assert_eq!(
                listed(access, rel).0,
                own(access, rel),
                "{step}: under {rel}"
            );
        }
    }
    assert_eq!(listed(access, "").0, own(access, ""), "{step}: again");
    anew
}

fn check_changes(access: &Access) {
    let root = access.root().to_path_buf();
    let root = root.as_path();
    assert!(agree(access, "fresh") > 0);
    std::thread::sleep(PAST_RACY);
    agree(access, "settled");
    let (_, anew) = listed(access, "");
    assert_eq!(anew, 0, "an unchanged tree is walked on kept listings");

    write(root, "a/new.txt", "x");
    assert_eq!(
        agree(access, "file added"),
        1,
        "only the changed folder is listed"
    );
    // Changed a moment ago, within one tick of a coarse clock maybe: not trusted yet.
    assert_eq!(
        listed(access, "").1,
        1,
        "a folder changed just now is listed again"
    );
    fs::remove_file(root.join("b/c/z.txt")).unwrap();
    agree(access, "file removed");
    std::thread::sleep(PAST_RACY);
    agree(access, "settled again");
    assert_eq!(listed(access, "").1, 0);

    // An ignore file edited in place, its modification time put back: the change time shows.
    let gitignore = root.join(".gitignore");
    let mtime = fs::metadata(&gitignore).unwrap().modified().unwrap();
    fs::write(&gitignore, "*.log\nbuild/\n!keep.log\n*.rs\n").unwrap();
    fs::File::options()
        .write(true)
        .open(&gitignore)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    agree(access, "root rules edited");
    assert!(
        !listed(access, "")
            .0
            .iter()
            .any(|p| p.ends_with("a/deep/er/f.rs"))
    );

    write(root, "b/.gitignore", "c/\n");
    agree(access, "nested rules added");
    std::thread::sleep(PAST_RACY);
    agree(access, "settled with nested rules");
    fs::write(root.join("b/.gitignore"), "d/\n").unwrap();
    agree(access, "nested rules edited");
    fs::remove_file(root.join("a/.gitignore")).unwrap();
    agree(access, "nested rules removed");
    fs::remove_file(root.join("a/.ignore")).unwrap();
    write(root, "a/private/.ignore", "p.txt\n");
    agree(access, "rules moved deeper");

    // The tree becomes a repository, then its exclude file changes.
    write(root, ".git/HEAD", "ref");
    agree(access, "repository created");
    write(root, ".git/info/exclude", "b/\n");
    agree(access, "exclude added");
    std::thread::sleep(PAST_RACY);
    agree(access, "settled in a repository");
    fs::write(root.join(".git/info/exclude"), "top.txt\n").unwrap();
    agree(access, "exclude edited");
    write(root, "sub/.git/info/exclude", "inner.txt\n");
    agree(access, "nested repository's exclude added");

    // A folder replaced by a file, and a file by a folder.
    fs::remove_dir_all(root.join("b/c")).unwrap();
    write(root, "b/c", "now a file");
    fs::remove_file(root.join("top.txt")).unwrap();
    write(root, "top.txt/inside.txt", "x");
    agree(access, "kinds swapped");
    std::thread::sleep(PAST_RACY);
    agree(access, "settled after swaps");
    assert_eq!(listed(access, "").1, 0);
}

#[test]
fn unconfined_walks_agree_through_changes() {
    let dir = tempfile::tempdir().unwrap();
    tree(dir.path());
    let access = Access::new(dir.path()).unwrap();
    check_changes(&access);
}

#[test]
fn confined_walks_agree_through_changes_and_leave_out_secrets() {
    let dir = tempfile::tempdir().unwrap();
    tree(dir.path());
    let (jail, _) = Jail::new(&JailConfig {
        roots: vec![dir.path().to_path_buf()],
        non_accessible: vec!["**/*.pem".into()],
        default_excludes: vec![],
    })
    .unwrap();
    let access = Access::jailed(jail);
    assert!(
        !listed(&access, "")
            .0
            .iter()
            .any(|p| p.ends_with("b/key.pem"))
    );
    check_changes(&access);
}

#[test]
fn a_search_below_a_nested_repository_is_not_walked_on_listings() {
    // Inside `sub` (a repository of its own in a tree that is not one) the rules above `sub`
    // are read differently, so that walk is left to the walk of its own.
    let dir = tempfile::tempdir().unwrap();
    tree(dir.path());
    let access = Access::new(dir.path()).unwrap();
    assert!(access.listed_walk(&dir.path().join("sub")).is_none());
    assert!(access.listed_walk(&dir.path().join("a")).is_some());
    assert!(access.listed_walk(Path::new("/")).is_none());
}

#[test]
fn a_tree_of_many_one_file_folders_holds_few_handles_and_loses_no_file() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..600 {
        write(dir.path(), &format!("d{i:03}/f.txt"), "x");
    }
    let access = Access::new(dir.path()).unwrap();
    let open_fds = || fs::read_dir("/proc/self/fd").unwrap().count();
    let before = open_fds();
    // Every file found is held (with its folder) at once, as a long queue of work would.
    let held: Vec<_> = access.listed_walk(dir.path()).unwrap().collect();
    let during = open_fds();
    assert_eq!(held.len(), 600);
    assert!(
        during < before + 300,
        "{} descriptors open while 600 folders are walked",
        during - before
    );
    let paths: Vec<PathBuf> = held.iter().map(|f| f.path()).collect();
    assert_eq!(paths, own(&access, ""));
    // Files whose folder is not held open are still opened, by path.
    assert!(held.iter().any(|f| f.dir().is_none()));
    drop(held);
}

#[test]
fn a_worktree_whose_rules_live_elsewhere_keeps_no_listings() {
    // A `.git` file points to rules (`info/exclude`) in another repository's folder, which no
    // stamp of the walk reaches: every walk lists anew.
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), ".git", "gitdir: /nowhere/.git/worktrees/w\n");
    write(dir.path(), "a/f.txt", "x");
    let access = Access::new(dir.path()).unwrap();
    std::thread::sleep(PAST_RACY);
    assert_eq!(listed(&access, "").0, own(&access, ""));
    let (files, anew) = listed(&access, "");
    assert_eq!(files, own(&access, ""));
    assert!(anew > 0, "listings were kept");
}
