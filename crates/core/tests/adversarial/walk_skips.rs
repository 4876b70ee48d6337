//! Ignore files are read through the jail, and walks say what they skipped (issue 16, items 8
//! and 10).
//!
//! Item 8: an ignore file that is a link leading outside the roots would hide every name its
//! target's lines match, an oracle on any file the server's user can read. In every confined
//! profile such a file is not read, and the walk's answer says so once; a link that stays
//! inside the roots is read as before; unconfined gg reads what the link leads to, by design.
//! A confined walk otherwise hides exactly what the `ignore` crate's walk hides.
//!
//! Item 10: searches and trees that pass over symbolic links that loop, or non-accessible
//! files, say so with a count (coder in its `skipped` field). Unreadable folders need an
//! unprivileged user: `crates/cli/tests/unreadable_folders.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use fsgate_core::access::ignore::IgnoreFiles;
use fsgate_core::access::walkdir::Skips;
use fsgate_core::access::{Access, Jail, JailConfig};
use fsgate_core::{CoderConfig, Options, Profile, SgptConfig, Workspace};
use serde_json::{Value, json};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum P {
    /// gg unconfined (its default).
    Gg,
    /// gg with `--jail roots`.
    GgJail,
    Coder,
    Qwen,
    Pico,
}

const CONFINED: [P; 4] = [P::GgJail, P::Coder, P::Qwen, P::Pico];

fn open(p: P, root: &Path) -> Workspace {
    let mut o = Options::new(root);
    o.profile = match p {
        P::Gg | P::GgJail => Profile::Gg,
        P::Coder => Profile::Coder,
        P::Qwen => Profile::Qwen,
        P::Pico => Profile::Picoclaw,
    }
    .into();
    o.jail = p != P::Gg;
    if p == P::Coder {
        o.profile = CoderConfig {
            non_accessible_globs: vec!["**/.env".into(), "**/secrets/**".into()],
            ..CoderConfig::default()
        }
        .into();
    }
    Workspace::open(o).unwrap()
}

/// Every walk of `p` over the whole workspace: its searches (for `needle`) and trees.
fn walks(p: P) -> Vec<(&'static str, Value)> {
    match p {
        P::Gg | P::GgJail => vec![
            ("tree", json!({"depth": 6})),
            ("search", json!({"query": "needle"})),
        ],
        P::Coder => vec![
            ("tree", json!({"path": ".", "max_depth": 6})),
            ("search", json!({"query": "needle"})),
        ],
        P::Qwen => vec![
            ("glob", json!({"pattern": "**/*"})),
            ("grep_search", json!({"pattern": "needle"})),
        ],
        P::Pico => vec![
            ("search_files", json!({"pattern": "needle"})),
            ("search_files", json!({"pattern": "", "target": "files"})),
        ],
    }
}

/// Whether an answer says it passed over something, in any profile's words.
fn says_skipped(text: &str) -> bool {
    [
        "[skipped: ",
        "(skipped: ",
        "Passed over by the walk",
        "\"skipped\"",
    ]
    .iter()
    .any(|s| text.contains(s))
}

/// The whole answer: its text and its structured content.
fn call(ws: &Workspace, tool: &str, args: Value) -> String {
    let out = ws.call(tool, args.clone()).unwrap();
    assert!(!out.is_error, "{tool} {args}: {}", out.text_content());
    let mut text = out.text_content();
    if let Some(v) = &out.structured {
        text.push('\n');
        text.push_str(&v.to_string());
    }
    text
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// `base/root` (the workspace) and `base/outside`, canonical.
fn base() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    std::fs::create_dir_all(base.join("root")).unwrap();
    std::fs::create_dir_all(base.join("outside")).unwrap();
    (tmp, base.join("root"), base.join("outside"))
}

/// The candidate names an oracle would plant: `probe-a.txt` (named by the outside file) and
/// `probe-b.txt` (not), each at the top and in `sub/`, each holding `needle`.
fn plant_probes(root: &Path) {
    for name in [
        "probe-a.txt",
        "probe-b.txt",
        "sub/probe-a.txt",
        "sub/probe-b.txt",
    ] {
        write(&root.join(name), "needle\n");
    }
}

fn occurrences(text: &str, needle: &str) -> usize {
    text.matches(needle).count()
}

#[test]
fn an_ignore_file_linking_out_of_the_roots_is_not_read_and_every_confined_walk_says_so_once() {
    for p in CONFINED {
        let (_tmp, root, outside) = base();
        write(&outside.join("names.txt"), "probe-a.txt\n");
        plant_probes(&root);
        // One relative link climbing out, one absolute link to the same outside file.
        symlink("../outside/names.txt", root.join(".gitignore")).unwrap();
        symlink(outside.join("names.txt"), root.join("sub/.gitignore")).unwrap();
        symlink("../outside/names.txt", root.join(".ignore")).unwrap();
        symlink("../outside/names.txt", root.join(".qwenignore")).unwrap();
        let ws = open(p, &root);
        for (tool, args) in walks(p) {
            let text = call(&ws, tool, args.clone());
            let what = format!("{p:?} {tool} {args}: {text}");
            // Nothing the outside file names is hidden.
            assert!(occurrences(&text, "probe-a.txt") >= 2, "{what}");
            assert!(occurrences(&text, "probe-b.txt") >= 2, "{what}");
            if p == P::Coder {
                // coder never reads ignore files, so it has nothing to say about them.
                assert!(!text.contains("not read"), "{what}");
                continue;
            }
            for file in [".gitignore", "sub/.gitignore"] {
                let note =
                    format!("ignore file {file} not read (it leads outside the allowed roots)");
                assert_eq!(occurrences(&text, &note), 1, "{file}: {what}");
            }
        }
        if p == P::Qwen {
            // Its listing, glob and grep read .qwenignore through the jail too.
            let text = call(&ws, "list_directory", json!({"path": "."}));
            assert!(text.contains("probe-a.txt"), "{text}");
            assert!(
                text.contains("ignore file .gitignore not read: it leads outside"),
                "{text}"
            );
            assert!(
                text.contains("ignore file .qwenignore not read: it leads outside"),
                "{text}"
            );
            let text = call(&ws, "glob", json!({"pattern": "**/probe-a.txt"}));
            assert!(
                text.contains("ignore file .qwenignore not read (it leads outside"),
                "{text}"
            );
            // read_file, which refuses what .qwenignore names, is no oracle either.
            let text = call(&ws, "read_file", json!({"path": root.join("probe-a.txt")}));
            assert!(text.contains("needle"), "{text}");
        }
    }
}

#[test]
fn an_ignore_file_linking_inside_the_roots_is_read_as_before() {
    for p in [P::Gg, P::GgJail, P::Qwen, P::Pico] {
        let (_tmp, root, _outside) = base();
        write(&root.join("rules/names.txt"), "probe-a.txt\n");
        plant_probes(&root);
        // A repository, so that qwen's grep_search (ripgrep's rule) reads .gitignore too.
        std::fs::create_dir(root.join(".git")).unwrap();
        // A relative link and an absolute one, both to a file inside the root.
        symlink("rules/names.txt", root.join(".gitignore")).unwrap();
        symlink(root.join("rules/names.txt"), root.join("sub/.gitignore")).unwrap();
        let ws = open(p, &root);
        for (tool, args) in walks(p) {
            let text = call(&ws, tool, args.clone());
            let what = format!("{p:?} {tool} {args}: {text}");
            assert!(!text.contains("probe-a.txt"), "{what}");
            assert!(occurrences(&text, "probe-b.txt") >= 2, "{what}");
            assert!(!text.contains("not read"), "{what}");
        }
    }
}

#[test]
fn unconfined_gg_reads_an_ignore_file_wherever_its_link_leads() {
    let (_tmp, root, outside) = base();
    write(&outside.join("names.txt"), "probe-a.txt\n");
    plant_probes(&root);
    symlink("../outside/names.txt", root.join(".gitignore")).unwrap();
    let ws = open(P::Gg, &root);
    for (tool, args) in walks(P::Gg) {
        let text = call(&ws, tool, args);
        assert!(!text.contains("probe-a.txt"), "{text}");
        assert!(!says_skipped(&text), "{text}");
    }
}

#[test]
fn git_exclude_files_and_worktree_links_out_of_the_roots_are_not_read() {
    let (_tmp, root, outside) = base();
    write(&outside.join("names.txt"), "probe-a.txt\n");
    // An outside git folder, as a worktree's `.git` file or a linked `.git` would name it.
    write(&outside.join("git/info/exclude"), "probe-a.txt\n");
    write(&outside.join("git/commondir"), ".\n");
    for dir in ["x", "y", "z"] {
        write(&root.join(dir).join("probe-a.txt"), "needle\n");
        write(&root.join(dir).join("probe-b.txt"), "needle\n");
    }
    // x: a real `.git` whose exclude file links out; y: `.git` itself links out; z: a
    // worktree's `.git` file naming the outside git folder.
    std::fs::create_dir_all(root.join("x/.git/info")).unwrap();
    symlink(outside.join("names.txt"), root.join("x/.git/info/exclude")).unwrap();
    symlink(outside.join("git"), root.join("y/.git")).unwrap();
    write(
        &root.join("z/.git"),
        &format!("gitdir: {}\n", outside.join("git").display()),
    );
    for p in [P::GgJail, P::Qwen, P::Pico] {
        let ws = open(p, &root);
        for (tool, args) in walks(p) {
            let text = call(&ws, tool, args.clone());
            let what = format!("{p:?} {tool} {args}: {text}");
            assert_eq!(occurrences(&text, "probe-a.txt"), 3, "{what}");
            for note in [
                "ignore file x/.git/info/exclude not read",
                "ignore file y/.git/info/exclude not read",
            ] {
                assert_eq!(occurrences(&text, note), 1, "{note}: {what}");
            }
            // The worktree's commondir lies outside: neither it nor its exclude is read.
            assert!(text.contains("git/commondir not read"), "{what}");
        }
    }
    // Unconfined, every one of them is read, as git would.
    let ws = open(P::Gg, &root);
    let text = call(&ws, "search", json!({"query": "needle"}));
    assert_eq!(occurrences(&text, "probe-a.txt"), 0, "{text}");
}

#[test]
fn a_hard_linked_ignore_file_is_not_read_in_a_confined_workspace() {
    let (_tmp, root, _outside) = base();
    plant_probes(&root);
    write(&root.join("names.txt"), "probe-a.txt\n");
    // The jail cannot tell where a second name of a file lies: it might be outside the roots.
    std::fs::hard_link(root.join("names.txt"), root.join(".gitignore")).unwrap();
    let ws = open(P::GgJail, &root);
    let text = call(&ws, "search", json!({"query": "needle"}));
    assert_eq!(occurrences(&text, "probe-a.txt"), 2, "{text}");
    // Neither name of the file is searched either.
    assert!(
        text.contains(
            "[skipped: 2 unreadable files; ignore file .gitignore not read (it has 2 hard links"
        ),
        "{text}"
    );
}

#[test]
fn a_search_on_kept_listings_still_says_which_ignore_file_was_not_read() {
    let (_tmp, root, _outside) = base();
    plant_probes(&root);
    write(&root.join("names.txt"), "probe-a.txt\n");
    std::fs::hard_link(root.join("names.txt"), root.join("sub/.gitignore")).unwrap();
    let (jail, _) = Jail::new(&JailConfig {
        roots: vec![root.clone()],
        ..JailConfig::default()
    })
    .unwrap();
    let access = Access::jailed(jail);
    // Past the window in which a fresh stamp is not trusted, so the listings are kept.
    std::thread::sleep(std::time::Duration::from_millis(2200));
    for round in 0..2 {
        let skips = Arc::new(Skips::default());
        let walk = access.counted_listed_walk(&root, &skips).unwrap();
        let files: Vec<String> = walk
            .map(|f| f.path().strip_prefix(&root).unwrap().display().to_string())
            .collect();
        assert!(files.contains(&"sub/probe-a.txt".to_string()), "{files:?}");
        let skipped = skips.skipped(|p| p.strip_prefix(&root).unwrap().display().to_string());
        assert_eq!(skipped.ignore_files.len(), 1, "round {round}: {skipped:?}");
        assert_eq!(skipped.ignore_files[0].0, "sub/.gitignore");
    }
    let walk = access.counted_listed_walk(&root, &Arc::default()).unwrap();
    assert_eq!(walk.listed_anew(), 0, "the listings were kept");
}

/// The names a walk of `from` (relative to `root`) yields, relative to `root`.
fn walked(access: &Access, root: &Path, from: &str, files: &IgnoreFiles) -> Vec<String> {
    let start = if from == "." {
        root.to_path_buf()
    } else {
        root.join(from)
    };
    access
        .walk_with(&start, None, files)
        .filter_map(Result::ok)
        .filter(|e| e.depth() > 0)
        .map(|e| e.path().strip_prefix(root).unwrap().display().to_string())
        .collect()
}

#[test]
fn a_confined_walk_hides_exactly_what_an_unconfined_walk_hides() {
    let layouts: [&[(&str, &str)]; 3] = [
        // Nested files, negations, directory-only patterns, anchored patterns, `.ignore` over
        // `.gitignore`, a deeper file re-including what a shallower one hides.
        &[
            (
                ".gitignore",
                "*.log\n!keep.log\nbuild/\n/top.txt\n# comment\n\\#hash\n",
            ),
            (".ignore", "!build/\ntmp*\n"),
            ("a.log", ""),
            ("keep.log", ""),
            ("top.txt", ""),
            ("#hash", ""),
            ("build/out.o", ""),
            ("src/top.txt", ""),
            ("src/tmp1", ""),
            ("src/.gitignore", "!*.log\ngen/\n"),
            ("src/b.log", ""),
            ("src/gen/g.rs", ""),
            ("src/deep/.ignore", "*.rs\n!keep.rs\n"),
            ("src/deep/x.rs", ""),
            ("src/deep/keep.rs", ""),
            ("src/deep/y.txt", ""),
        ],
        // A repository: its exclude file, and a root deeper than the working directory.
        &[
            (".git/info/exclude", "secret-ish\n"),
            (".git/HEAD", "ref: x\n"),
            (".gitignore", "\u{feff}*.tmp\r\nout\n"),
            ("secret-ish", ""),
            ("a.tmp", ""),
            ("out/o.txt", ""),
            ("lib/secret-ish", ""),
            ("lib/m.rs", ""),
            ("lib/.gitignore", "m.rs\n"),
            ("lib/inner/m.rs", ""),
            ("lib/inner/n.rs", ""),
        ],
        // No repository, ignore files between the working directory and a deeper root.
        &[
            (".gitignore", "/deep/skip.txt\nnested/*.md\n"),
            ("deep/skip.txt", ""),
            ("deep/keep.txt", ""),
            ("deep/nested/r.md", ""),
            ("deep/nested/r.txt", ""),
            ("deep/.ignore", "keep.txt\n"),
        ],
    ];
    let rules = [
        IgnoreFiles::standard(),
        IgnoreFiles {
            git: true,
            ..IgnoreFiles::default()
        },
        IgnoreFiles {
            git: true,
            names: vec![".extra".into()],
            anchored: vec![".anchored".into()],
            ..IgnoreFiles::default()
        },
    ];
    for layout in layouts {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        for (name, text) in layout {
            write(&root.join(name), text);
        }
        write(&root.join(".anchored"), "deep/nested/\n");
        write(&root.join("src/.extra"), "!b.log\nkeep.log\n");
        let plain = Access::new(&root).unwrap();
        let (jail, _) = Jail::new(&JailConfig {
            roots: vec![root.clone()],
            ..JailConfig::default()
        })
        .unwrap();
        let jailed = Access::jailed(jail);
        for files in &rules {
            for from in [".", "src", "lib", "deep", "src/deep"] {
                if !root.join(from).is_dir() {
                    continue;
                }
                let want = walked(&plain, &root, from, files);
                let got = walked(&jailed, &root, from, files);
                assert_eq!(got, want, "{layout:?} {files:?} from {from}");
                for name in &want {
                    let path = root.join(name);
                    let is_dir = path.is_dir();
                    assert_eq!(
                        jailed.is_ignored_by(&path, is_dir, files),
                        plain.is_ignored_by(&path, is_dir, files),
                        "{name}"
                    );
                }
            }
        }
        // The walk on kept listings (gg's and picoclaw's search) and the single-path check.
        let listed = |access: &Access| -> Vec<PathBuf> {
            access
                .listed_walk(&root)
                .unwrap()
                .map(|f| f.path())
                .collect()
        };
        assert_eq!(listed(&jailed), listed(&plain), "{layout:?}");
        for (name, _) in layout {
            let path = root.join(name);
            assert_eq!(
                jailed.is_ignored(&path, false),
                plain.is_ignored(&path, false),
                "{name}"
            );
        }
    }
}

#[test]
fn symlink_loops_are_counted_by_every_search_and_shown_by_every_tree() {
    for p in [P::Gg, P::GgJail, P::Coder, P::Qwen, P::Pico] {
        let (_tmp, root, _outside) = base();
        write(&root.join("a.txt"), "needle\n");
        write(&root.join("sub/b.txt"), "needle\n");
        symlink("loop2", root.join("loop1")).unwrap();
        symlink("loop1", root.join("loop2")).unwrap();
        symlink("self", root.join("self")).unwrap();
        // Directory links to the folder holding them, or one above it.
        symlink(".", root.join("dloop")).unwrap();
        symlink("..", root.join("sub/up")).unwrap();
        // Not loops: a link to a file, a dangling link.
        symlink("a.txt", root.join("alias.txt")).unwrap();
        symlink("missing", root.join("gone")).unwrap();
        let ws = open(p, &root);
        for (tool, args) in walks(p) {
            let text = call(&ws, tool, args.clone());
            let what = format!("{p:?} {tool} {args}: {text}");
            let is_tree = tool == "tree";
            match p {
                _ if is_tree => {
                    // A tree shows each link as a link, and passes over none.
                    assert!(!says_skipped(&text), "{what}");
                    assert!(text.contains("dloop"), "{what}");
                }
                P::Coder => assert!(
                    text.contains(
                        r#""skipped":{"non_accessible":0,"symlink_loops":5,"unreadable_folders":0}"#
                    ),
                    "{what}"
                ),
                P::Gg | P::GgJail => {
                    assert!(text.ends_with("\n[skipped: 5 symlink loops]"), "{what}")
                }
                P::Qwen => assert!(text.ends_with("\n\n(skipped: 5 symlink loops)"), "{what}"),
                P::Pico => assert!(
                    text.contains("\nPassed over by the walk: 5 symlink loops.\n"),
                    "{what}"
                ),
            }
        }
    }
}

#[test]
fn a_walk_that_passes_over_nothing_says_nothing() {
    for p in [P::Gg, P::GgJail, P::Coder, P::Qwen, P::Pico] {
        let (_tmp, root, _outside) = base();
        write(&root.join("a.txt"), "needle\n");
        write(&root.join("sub/b.txt"), "needle\n");
        symlink("a.txt", root.join("alias.txt")).unwrap();
        let ws = open(p, &root);
        for (tool, args) in walks(p) {
            let text = call(&ws, tool, args.clone());
            assert!(!says_skipped(&text), "{p:?} {tool} {args}: {text}");
        }
    }
}

#[test]
fn coder_search_counts_the_non_accessible_files_and_folders_it_left_out() {
    let (_tmp, root, _outside) = base();
    write(&root.join("a.txt"), "needle\n");
    write(&root.join(".env"), "needle\n");
    write(&root.join("sub/.env"), "needle\n");
    write(&root.join("secrets/k.txt"), "needle\n");
    let ws = open(P::Coder, &root);
    let out = ws
        .call("search", json!({"query": "needle"}))
        .unwrap()
        .structured
        .unwrap();
    assert_eq!(out["content_matches"].as_array().unwrap().len(), 1, "{out}");
    // Two files, and the folder whose whole content matches the globs.
    assert_eq!(
        out["skipped"],
        json!({"non_accessible": 3, "symlink_loops": 0, "unreadable_folders": 0}),
        "{out}"
    );
}

#[test]
fn a_lore_library_walk_warns_of_links_that_loop_instead_of_reading_round_them() {
    let (_tmp, root, _outside) = base();
    write(
        &root.join("lore/a.md"),
        "---\ntitle: Alpha\n---\nthe needle is here\n",
    );
    // A folder link back to the library would read every lore again at each level.
    symlink(".", root.join("lore/again")).unwrap();
    symlink("self.md", root.join("lore/self.md")).unwrap();
    let mut o = Options::new(&root);
    o.profile = SgptConfig {
        lore_libraries: vec![PathBuf::from("lore")],
        ..SgptConfig::default()
    }
    .into();
    let ws = Workspace::open(o).unwrap();
    let out = ws
        .call("search_lores", json!({"query": "needle"}))
        .unwrap()
        .structured
        .unwrap();
    assert_eq!(out["lores"].as_array().unwrap().len(), 1, "{out}");
    let warnings: Vec<&str> = out["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert_eq!(
        warnings,
        [
            "lore/again was skipped: it is a symbolic link that leads round in a loop",
            "lore/self.md was skipped: it is a symbolic link that leads round in a loop",
        ],
        "{out}"
    );
}
