//! list_dir and tree: entries in path order, directories suffixed `/`, the tree's rendering,
//! depth bound, size bounds, and ignore files.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use crate::gg_support;

use gg_support::{Fx, settle, settled_gen_layout};
use serde_json::json;

// ---------------------------------------------------------------------------------------------
// list_dir

#[test]
fn list_dir_lists_entries_one_a_line_in_path_order_with_slash_on_directories() {
    let fx = Fx::new();
    for f in [
        "b.txt",
        "B.txt",
        "a-b.txt",
        ".env",
        "z/inner.txt",
        "a/x.txt",
    ] {
        fx.write(f, "x");
    }
    fx.mkdir("empty");
    let expected = ".env\nB.txt\na/\na-b.txt\nb.txt\nempty/\nz/";
    assert_eq!(fx.ok("list_dir", json!({})), expected);
    assert_eq!(fx.ok("list_dir", json!({"path": "."})), expected);
    assert_eq!(fx.ok("list_dir", json!({"path": "z"})), "inner.txt");
    let abs = fx.root().join("a").to_string_lossy().into_owned();
    assert_eq!(fx.ok("list_dir", json!({"path": abs})), "x.txt");
}

#[test]
fn list_dir_of_an_empty_directory_says_so() {
    let fx = Fx::new();
    assert_eq!(fx.ok("list_dir", json!({})), "(empty directory)");
    fx.mkdir("e");
    assert_eq!(fx.ok("list_dir", json!({"path": "e"})), "(empty directory)");
}

#[test]
fn list_dir_of_a_missing_path_is_not_found() {
    let fx = Fx::new();
    assert_eq!(
        fx.err("list_dir", json!({"path": "nope"})),
        "not-found: nope does not exist; list its parent directory with list_dir to see what is \
         there"
    );
}

#[test]
fn list_dir_of_a_file_is_invalid_argument() {
    let fx = Fx::new();
    fx.write("f.txt", "x");
    assert_eq!(
        fx.err("list_dir", json!({"path": "f.txt"})),
        "invalid-argument: f.txt is a file, not a directory, so list_dir cannot walk it; read it \
         with read_file"
    );
}

#[test]
fn list_dir_shows_ignored_entries_because_ignoring_is_the_searchs_rule() {
    let fx = Fx::new();
    fx.write(".gitignore", "build/\n");
    fx.write("build/out.o", "x");
    fx.write(".git/HEAD", "ref: refs/heads/main\n");
    assert_eq!(fx.ok("list_dir", json!({})), ".git/\n.gitignore\nbuild/");
    assert_eq!(fx.ok("list_dir", json!({"path": "build"})), "out.o");
}

#[test]
fn list_dir_shows_a_symbolic_link_with_its_target() {
    let fx = Fx::new();
    fx.write("real.txt", "x");
    std::os::unix::fs::symlink("real.txt", fx.path("link")).unwrap();
    assert_eq!(fx.ok("list_dir", json!({})), "link -> real.txt\nreal.txt");
}

// ---------------------------------------------------------------------------------------------
// tree: rendering

/// The layout of gg's tree example.
fn spec_layout(fx: &Fx) {
    fx.write("README.md", "# game\n");
    for f in ["game.js", "input.js"] {
        fx.write(&format!("engine/{f}"), "x");
    }
    for f in ["a.js", "b.js", "c.js", "d.js"] {
        fx.write(&format!("engine/render/{f}"), "x");
    }
    fx.write("src/main.js", "x");
    for i in 0..7 {
        fx.write(&format!("src/systems/s{i}.js"), "x");
    }
}

#[test]
fn tree_renders_exactly_the_specs_example() {
    let fx = Fx::new();
    spec_layout(&fx);
    let out = fx.ok("tree", json!({}));
    insta::assert_snapshot!(out, @r"
    README.md
    engine/
      game.js
      input.js
      render/ (4 entries not shown)
    src/
      main.js
      systems/ (7 entries not shown)
    ");
    assert!(!out.ends_with('\n'));
    assert_eq!(
        fx.ok("tree", json!({"depth": 2})),
        out,
        "depth defaults to 2"
    );
    assert_eq!(fx.ok("tree", json!({"path": "."})), out);
}

#[test]
fn tree_depth_one_shows_the_roots_own_entries_with_their_counts() {
    let fx = Fx::new();
    spec_layout(&fx);
    insta::assert_snapshot!(fx.ok("tree", json!({"depth": 1})), @r"
    README.md
    engine/ (3 entries not shown)
    src/ (2 entries not shown)
    ");
}

#[test]
fn tree_depth_three_indents_two_spaces_per_level() {
    let fx = Fx::new();
    spec_layout(&fx);
    fx.write("src/systems/deep/x.js", "x");
    insta::assert_snapshot!(fx.ok("tree", json!({"depth": 3})), @r"
    README.md
    engine/
      game.js
      input.js
      render/
        a.js
        b.js
        c.js
        d.js
    src/
      main.js
      systems/
        deep/ (1 entry not shown)
        s0.js
        s1.js
        s2.js
        s3.js
        s4.js
        s5.js
        s6.js
    ");
}

#[test]
fn tree_rooted_at_a_path_leaves_the_root_unnamed() {
    let fx = Fx::new();
    spec_layout(&fx);
    insta::assert_snapshot!(fx.ok("tree", json!({"path": "engine", "depth": 1})), @r"
    game.js
    input.js
    render/ (4 entries not shown)
    ");
    let abs = fx.root().join("src").to_string_lossy().into_owned();
    insta::assert_snapshot!(fx.ok("tree", json!({"path": abs})), @r"
    main.js
    systems/
      s0.js
      s1.js
      s2.js
      s3.js
      s4.js
      s5.js
      s6.js
    ");
}

#[test]
fn tree_lists_every_level_in_path_order() {
    let fx = Fx::new();
    for f in [
        "b.txt",
        "B.txt",
        "a-b.txt",
        ".env",
        "a/z.txt",
        "a/Y.txt",
        "a/.hidden",
    ] {
        fx.write(f, "x");
    }
    insta::assert_snapshot!(fx.ok("tree", json!({})), @r"
    .env
    B.txt
    a/
      .hidden
      Y.txt
      z.txt
    a-b.txt
    b.txt
    ");
}

#[test]
fn tree_of_an_empty_root_says_empty_directory() {
    let fx = Fx::new();
    assert_eq!(fx.ok("tree", json!({})), "(empty directory)");
    fx.mkdir("e");
    assert_eq!(
        fx.ok("tree", json!({"path": "e", "depth": 3})),
        "(empty directory)"
    );
}

#[test]
fn tree_shows_empty_directories_inside_and_at_the_bound() {
    let fx = Fx::new();
    fx.mkdir("inner");
    fx.mkdir("outer/bound");
    insta::assert_snapshot!(fx.ok("tree", json!({})), @r"
    inner/
    outer/
      bound/ (0 entries not shown)
    ");
}

#[test]
fn tree_shows_a_symbolic_link_with_its_target_without_entering_it() {
    let fx = Fx::new();
    fx.write("real/a.txt", "x");
    std::os::unix::fs::symlink("real", fx.path("link")).unwrap();
    insta::assert_snapshot!(fx.ok("tree", json!({})), @r"
    link -> real
    real/
      a.txt
    ");
}

#[test]
fn tree_of_a_root_holding_only_ignored_entries_is_empty() {
    let fx = Fx::new();
    fx.write(".git/HEAD", "x");
    assert_eq!(fx.ok("tree", json!({})), "(empty directory)");
    fx.write(".git/info/exclude", "build\n");
    fx.write("build/out.o", "x");
    assert_eq!(fx.ok("tree", json!({})), "(empty directory)");
}

#[test]
fn tree_depth_above_ten_is_answered_at_ten() {
    let fx = Fx::new();
    let deep: Vec<String> = (1..=12).map(|i| format!("d{i}")).collect();
    fx.write(&format!("{}/leaf.txt", deep.join("/")), "x");
    let ten = fx.ok("tree", json!({"depth": 10}));
    assert_eq!(fx.ok("tree", json!({"depth": 11})), ten);
    assert_eq!(fx.ok("tree", json!({"depth": 1000})), ten);
    insta::assert_snapshot!(ten, @r"
    d1/
      d2/
        d3/
          d4/
            d5/
              d6/
                d7/
                  d8/
                    d9/
                      d10/ (1 entry not shown)
    ");
}

#[test]
fn tree_depth_zero_is_invalid_argument() {
    let fx = Fx::new();
    assert_eq!(
        fx.err("tree", json!({"depth": 0})),
        "invalid-argument: depth 0 shows nothing; depth counts levels below the root, so pass 1 \
         for the root's own entries, or leave it out for 2"
    );
}

#[test]
fn tree_of_a_missing_path_is_not_found() {
    let fx = Fx::new();
    assert_eq!(
        fx.err("tree", json!({"path": "nope"})),
        "not-found: nope does not exist; list its parent directory with list_dir to see what is \
         there"
    );
}

#[test]
fn tree_of_a_file_is_invalid_argument() {
    let fx = Fx::new();
    fx.write("f.txt", "x");
    assert_eq!(
        fx.err("tree", json!({"path": "f.txt"})),
        "invalid-argument: f.txt is a file, not a directory, so tree cannot walk it; read it \
         with read_file"
    );
}

// ---------------------------------------------------------------------------------------------
// tree: bounds

const LINE_CUT: &str =
    "[tree cut at 1000 lines; pass a smaller depth, or a path deeper in the tree, to see the rest]";
const BYTE_CUT: &str =
    "[tree cut at 16 KiB; pass a smaller depth, or a path deeper in the tree, to see the rest]";

#[test]
fn tree_of_exactly_1000_lines_has_no_closing_line() {
    let fx = Fx::new();
    for i in 0..1000 {
        fx.write(&format!("f{i:04}"), "");
    }
    let out = fx.ok("tree", json!({}));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1000);
    assert_eq!(lines[0], "f0000");
    assert_eq!(lines[999], "f0999");
    assert!(!out.contains("[tree cut"));
}

#[test]
fn tree_is_cut_at_1000_lines_with_a_closing_line() {
    let fx = Fx::new();
    for i in 0..1500 {
        fx.write(&format!("f{i:04}"), "");
    }
    let out = fx.ok("tree", json!({}));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines.len(),
        1000,
        "at most 1,000 lines, the closing line included"
    );
    assert_eq!(lines[998], "f0998");
    assert_eq!(lines[999], LINE_CUT);
    assert!(out.len() <= 16 * 1024);
}

#[test]
fn tree_is_cut_at_16_kib_with_a_closing_line() {
    let fx = Fx::new();
    // 200 names of 200 bytes: 40 KiB of tree in 200 lines.
    let names: Vec<String> = (0..200)
        .map(|i| format!("{i:03}{}", "n".repeat(197)))
        .collect();
    for n in &names {
        fx.write(n, "");
    }
    let out = fx.ok("tree", json!({}));
    assert!(out.len() <= 16 * 1024, "{} bytes", out.len());
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.last().copied(), Some(BYTE_CUT));
    let shown = &lines[..lines.len() - 1];
    // Whole lines only, as many as fit with the closing line: (16384 - 89 - 1) / 201 = 81.
    assert_eq!(shown.len(), 81);
    assert_eq!(shown, &names[..81]);
}

#[test]
fn tree_that_fits_both_bounds_has_no_closing_line() {
    let fx = Fx::new();
    spec_layout(&fx);
    for depth in 1..=10 {
        let out = fx.ok("tree", json!({"depth": depth}));
        assert!(!out.contains("[tree cut"), "depth {depth}: {out}");
    }
}

// ---------------------------------------------------------------------------------------------
// tree: ignore files, on search's terms

/// A workspace with every kind of ignore rule.
fn ignoring_layout(fx: &Fx) {
    fx.write(".gitignore", "node_modules/\n*.log\n!keep.log\n");
    fx.write(".ignore", "tmp\n");
    fx.write("src/.gitignore", "gen/\n");
    fx.write("src/main.rs", "fn main() {}\n");
    fx.write("src/gen/out.rs", "x");
    fx.write("src/debug.log", "x");
    fx.write("node_modules/lib/index.js", "x");
    fx.write("tmp/scratch.txt", "x");
    fx.write("a.log", "x");
    fx.write("keep.log", "x");
    fx.write("secret.txt", "x");
    fx.write(".git/info/exclude", "secret.txt\n");
    fx.write(".git/HEAD", "ref: refs/heads/main\n");
    fx.write(".env", "KEY=1\n");
}

#[test]
fn tree_leaves_out_what_ignore_files_exclude_and_git() {
    let fx = Fx::new();
    ignoring_layout(&fx);
    insta::assert_snapshot!(fx.ok("tree", json!({})), @r"
    .env
    .gitignore
    .ignore
    keep.log
    src/
      .gitignore
      main.rs
    ");
}

#[test]
fn tree_honours_ignore_files_in_a_directory_that_is_not_a_repository() {
    let fx = Fx::new();
    ignoring_layout(&fx);
    std::fs::remove_dir_all(fx.path(".git")).unwrap();
    insta::assert_snapshot!(fx.ok("tree", json!({})), @r"
    .env
    .gitignore
    .ignore
    keep.log
    secret.txt
    src/
      .gitignore
      main.rs
    ");
}

#[test]
fn tree_counts_at_the_bound_leave_out_ignored_entries() {
    let fx = Fx::new();
    ignoring_layout(&fx);
    // src holds .gitignore, main.rs, gen/ and debug.log; the last two are ignored.
    insta::assert_snapshot!(fx.ok("tree", json!({"depth": 1})), @r"
    .env
    .gitignore
    .ignore
    keep.log
    src/ (2 entries not shown)
    ");
    // A nested ignore file inside the directory at the bound counts too.
    fx.write("lib/.gitignore", "b.js\n");
    fx.write("lib/a.js", "x");
    fx.write("lib/b.js", "x");
    fx.write("lib/c.log", "x");
    fx.write("lib/.git/HEAD", "x");
    let out = fx.ok("tree", json!({"depth": 1}));
    assert!(out.contains("\nlib/ (2 entries not shown)\n"), "{out}");
}

#[test]
fn tree_rooted_at_an_ignored_directory_says_it_is_excluded() {
    let fx = Fx::new();
    ignoring_layout(&fx);
    assert_eq!(
        fx.ok("tree", json!({"path": "node_modules"})),
        "(node_modules is excluded by the workspace's ignore files (.gitignore, .ignore or \
         .git/info/exclude), so tree does not walk it; list it with list_dir)"
    );
    // It stays reachable by path through list_dir.
    assert_eq!(fx.ok("list_dir", json!({"path": "node_modules"})), "lib/");
}

#[test]
fn tree_rooted_at_a_directory_a_nested_ignore_file_excludes_says_it_is_excluded() {
    let fx = Fx::new();
    ignoring_layout(&fx);
    assert_eq!(
        fx.ok("tree", json!({"path": "src/gen"})),
        "(src/gen is excluded by the workspace's ignore files (.gitignore, .ignore or \
         .git/info/exclude), so tree does not walk it; list it with list_dir)"
    );
}

/// The kept listings of the folders above a tree's root answer whether the rule excludes it
/// once they are settled (past the two seconds in which a stamp is not trusted); the answer
/// stays the rule's own as ignore files are edited, in the root and in a nested folder.
#[test]
fn tree_of_a_subfolder_says_whether_it_is_excluded_as_the_ignore_files_now_say() {
    let excluded = "(src/gen is excluded by the workspace's ignore files (.gitignore, .ignore or \
                    .git/info/exclude), so tree does not walk it; list it with list_dir)";
    let fx = Fx::new();
    settled_gen_layout(&fx, "x");
    for _ in 0..2 {
        assert!(fx.ok("tree", json!({})).contains("gen/"));
        assert_eq!(fx.ok("tree", json!({"path": "src/gen"})), "x.rs");
    }
    // Excluded by the root's file: at once, and once settled on the listings kept again.
    fx.write(".gitignore", "*.log\ngen/\n");
    assert_eq!(fx.ok("tree", json!({"path": "src/gen"})), excluded);
    settle();
    for _ in 0..2 {
        assert!(!fx.ok("tree", json!({})).contains("gen/"));
        assert_eq!(fx.ok("tree", json!({"path": "src/gen"})), excluded);
    }
    // Excluded by a nested file instead, then by none.
    fx.write(".gitignore", "*.log\n");
    fx.write("src/.gitignore", "gen/\n");
    settle();
    fx.ok("tree", json!({}));
    assert_eq!(fx.ok("tree", json!({"path": "src/gen"})), excluded);
    std::fs::remove_file(fx.root().join("src/.gitignore")).unwrap();
    assert_eq!(fx.ok("tree", json!({"path": "src/gen"})), "x.rs");
    settle();
    fx.ok("tree", json!({}));
    assert_eq!(fx.ok("tree", json!({"path": "src/gen"})), "x.rs");
    // Inside a folder a rule excludes, under a name no rule names: still excluded.
    fx.write(".gitignore", "*.log\nsrc/\n");
    settle();
    fx.ok("tree", json!({}));
    assert!(
        fx.ok("tree", json!({"path": "src/gen"}))
            .contains("is excluded"),
        "a folder inside an excluded one is walked"
    );
}
