//! Searches of a tree of many more one-file folders than the process may hold descriptors: no
//! file is lost for want of one, because the walks let go of each folder once its files are
//! handed on and searched (and gg's walk holds at most 128 at once), also when qwen's glob walks
//! the root's folders side by side. One test in this binary,
//! since the limit is the whole process's.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use fsgate_core::CallContext;
use fsgate_core::access::ignore::IgnoreFiles;
use fsgate_core::access::{Access, Jail, JailConfig};
use fsgate_core::ops::scan::sinks::by_name::{GlobOptions, glob};
use fsgate_core::ops::scan::sinks::lines::{SearchOptions, SearchOutcome, search};
use fsgate_core::ops::scan::sinks::matches::{FindOptions, Finder};

const FOLDERS: usize = 1500;

#[test]
fn searches_of_many_folders_find_every_file_with_few_descriptors() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..FOLDERS {
        let sub = dir.path().join(format!("d{i:04}"));
        std::fs::create_dir(&sub).unwrap();
        std::fs::write(sub.join("f.txt"), "needle\n").unwrap();
    }
    let root = dir.path().canonicalize().unwrap();
    use rustix::process::{Resource, getrlimit, setrlimit};
    let mut limit = getrlimit(Resource::Nofile);
    limit.current = Some(100);
    setrlimit(Resource::Nofile, limit).unwrap();

    let access = Access::new(&root).unwrap();
    let target = access.resolve(".").unwrap();
    let options = SearchOptions {
        limit: usize::MAX,
        ..Default::default()
    };
    // Twice, the second time past the racy window, on kept listings (the fastest walk).
    for round in 0..2 {
        let SearchOutcome::Matches(found, _) = search(
            &access,
            &target,
            "needle",
            &options,
            &CallContext::default(),
        )
        .unwrap() else {
            panic!("not searched");
        };
        assert_eq!(found.len(), FOLDERS, "gg search, round {round}");
        std::thread::sleep(std::time::Duration::from_millis(2100));
    }

    let (jail, _) = Jail::new(&JailConfig {
        roots: vec![root.clone()],
        ..Default::default()
    })
    .unwrap();
    let access = Access::jailed(jail);
    let target = access.resolve(".").unwrap();
    let finder = Finder::new(FindOptions {
        query: "needle".into(),
        regex: false,
        ignore_case: false,
        content: true,
        paths: false,
        include_globs: vec![],
        exclude_globs: vec![],
        use_default_excludes: false,
        max_matches: FOLDERS * 2,
        max_line_bytes: 200,
        context_before: 0,
        context_after: 0,
        budget_bytes: u64::MAX,
        max_read_bytes: 1 << 20,
        ignore: None,
    })
    .unwrap();
    let found = finder
        .run(&access, &target, &CallContext::default())
        .unwrap();
    assert_eq!(found.lines.len(), FOLDERS, "coder search");
    assert!(!found.truncated);

    // qwen's glob walks the root's folders side by side, each walk with handles of its own.
    let target = access.resolve(".").unwrap();
    let globbed = glob(
        &access,
        &target,
        "**/*.txt",
        &IgnoreFiles::standard(),
        GlobOptions::default(),
        &CallContext::default(),
    )
    .unwrap();
    assert_eq!(globbed.hits.len(), FOLDERS, "qwen glob");
    assert_eq!(globbed.skipped.unreadable_folders, 0, "qwen glob");
}
