//! Found by the jail fuzzer's release soak (issue 25, `tests/jailfuzz`, seed
//! 1146467225166019217): sgpt's `read_files {"paths": ["n.ipynb/../l0"]}` showed a secret's
//! content, `l0` being a link to it and `n.ipynb` missing at that moment. The jail walks a path
//! component by component, following links; past a missing component it only appends the rest
//! (nothing there exists to follow), and a `..` that climbed back out of the missing part left
//! it appending: `l0` was taken as the name itself, never followed, so the non-accessible check
//! saw `l0`, and the open (which follows a link beneath the root) read the secret. No race is
//! needed. Every profile but picoclaw (whose own policy resolves first) read it so; writes
//! replaced the link with a file. Now a `..` back out of the missing part resumes the walk, so
//! the link is followed and its target checked.

use std::path::Path;

use fsgate_core::{
    CoderConfig, GgConfig, NativeConfig, Options, PicoclawConfig, ProfileConfig, QwenConfig,
    SgptConfig, Workspace,
};
use serde_json::json;

use crate::support::{all_text, s};

const SECRET: &str = "TOP SECRET dotdot";

fn open(root: &Path, profile: ProfileConfig) -> Workspace {
    let mut o = Options::new(root);
    o.roots = vec![root.to_path_buf()];
    o.jail = true;
    o.profile = profile;
    Workspace::open(o).unwrap()
}

/// Each profile with `**/.env` non-accessible, and its tool reading one path.
fn profiles(root: &Path) -> Vec<(&'static str, ProfileConfig, &'static str, &'static str)> {
    let g = || vec!["**/.env".to_string()];
    vec![
        (
            "gg",
            GgConfig {
                non_accessible_globs: g(),
                ..GgConfig::default()
            }
            .into(),
            "read_file",
            "path",
        ),
        (
            "coder",
            CoderConfig {
                non_accessible_globs: g(),
                base_paths: vec![root.to_path_buf()],
                ..CoderConfig::default()
            }
            .into(),
            "read-file",
            "path",
        ),
        (
            "qwen",
            QwenConfig {
                non_accessible_globs: g(),
                ..QwenConfig::default()
            }
            .into(),
            "read_file",
            "path",
        ),
        (
            "picoclaw",
            PicoclawConfig {
                non_accessible_globs: g(),
                ..PicoclawConfig::default()
            }
            .into(),
            "read_file",
            "path",
        ),
        (
            "sgpt",
            SgptConfig {
                non_accessible_globs: g(),
                ..SgptConfig::default()
            }
            .into(),
            "read_files",
            "paths",
        ),
        (
            "native",
            NativeConfig {
                non_accessible_globs: g(),
                ..NativeConfig::default()
            }
            .into(),
            "read_file",
            "path",
        ),
    ]
}

/// Setup: `root/.env` (the secret), `root/l0` a link to it, `root/d0/` a folder. Calls: every
/// profile's read of `l0` named after a missing folder and `..` (`nope/../l0`,
/// `nope/deeper/../../l0`, `d0/nope/../../l0`). Expected: refused, the secret never shown.
/// Unchanged: the secret and the link.
#[test]
fn a_link_to_a_secret_named_after_a_missing_folder_and_dotdot_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join(".env"), format!("{SECRET}\n")).unwrap();
    std::os::unix::fs::symlink(".env", root.join("l0")).unwrap();
    std::fs::create_dir(root.join("d0")).unwrap();
    for (name, profile, tool, key) in profiles(&root) {
        let ws = open(&root, profile);
        for given in ["nope/../l0", "nope/deeper/../../l0", "d0/nope/../../l0"] {
            // qwen takes absolute paths.
            let path = if name == "qwen" {
                s(&root.join(given))
            } else {
                given.to_string()
            };
            let args = if key == "paths" {
                json!({key: [path]})
            } else {
                json!({key: path})
            };
            let text = all_text(&ws.call(tool, args.clone()).unwrap());
            assert!(
                !text.contains(SECRET),
                "{name} {tool} {args} showed the secret: {text}"
            );
        }
    }
    assert_eq!(
        std::fs::read_to_string(root.join(".env")).unwrap(),
        format!("{SECRET}\n")
    );
    assert_eq!(
        std::fs::read_link(root.join("l0")).unwrap(),
        Path::new(".env")
    );
}
