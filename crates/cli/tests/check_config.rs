//! `fsgate check-config` runs exactly the validation `fsgate serve` runs before it starts, for
//! every profile: a configuration serve refuses is refused by check-config with the same
//! problems, and one check-config passes opens the workspace serve would open.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

use std::path::Path;
use std::process::{Command, Output, Stdio};

fn fsgate(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fsgate"))
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

/// A configuration serve refuses, per profile: (profile, file name, content, problems named).
const REFUSED: [(&str, &str, &str, &[&str]); 6] = [
    (
        "gg",
        "gg.toml",
        "[capabilities.read-file]\nimplementation = \"paged\"\n[capabilities.grep]\nenabled = true\n",
        &["capabilities.read-file.implementation", "capabilities.grep"],
    ),
    // The report's case: globs that do not compile, which only the jail used to notice.
    (
        "coder",
        "coder.yaml",
        "base_paths: [\".\"]\nnon_accessible_globs: [\"**/.env\", \"**/[.pem\"]\n\
         default_exclude_globs: [\"{target\"]\n",
        &["non_accessible_globs[1]", "default_exclude_globs[0]"],
    ),
    (
        "qwen",
        "settings.json",
        "{\"general\": {\"defaultFileEncoding\": \"latin-1\"}}",
        &["general.defaultFileEncoding"],
    ),
    (
        "picoclaw",
        "picoclaw.json",
        "{\"tools\": {\"allow_read_paths\": [\"^/usr/share/(doc\"]}}",
        &["allow_read_paths", "not a valid regular expression"],
    ),
    (
        "sgpt",
        "sgpt.toml",
        "[exec_shell]\ntimeout_secs = -1\noutput_cap_chars = 5\n",
        &["exec_shell.timeout_secs", "exec_shell.output_cap_chars"],
    ),
    // Roots that do not exist: serve (without --root) cannot start, so the check fails too.
    (
        "coder",
        "far.yaml",
        "base_paths: [\"/nonexistent/fsgate-check\"]\n",
        &["no allowed root is reachable"],
    ),
];

#[test]
fn every_configuration_serve_refuses_is_refused_by_check_config_with_the_same_problems() {
    let dir = tempfile::tempdir().unwrap();
    for (profile, name, content, named) in REFUSED {
        let file = dir.path().join(name);
        std::fs::write(&file, content).unwrap();
        let file = file.to_str().unwrap();
        let served = fsgate(
            dir.path(),
            &["serve", "--profile", profile, "--config", file],
        );
        let checked = fsgate(dir.path(), &["check-config", file, "--profile", profile]);
        assert_eq!(served.status.code(), Some(2), "{profile}: serve started");
        assert_eq!(checked.status.code(), Some(2), "{profile}: check passed");
        assert_eq!(stderr(&checked), stderr(&served), "{profile}");
        for word in named {
            assert!(
                stderr(&checked).contains(word),
                "{profile}: {}",
                stderr(&checked)
            );
        }
    }
}

#[test]
fn a_configuration_check_config_passes_opens_as_serve_opens_it() {
    let dir = tempfile::tempdir().unwrap();
    let good = [
        ("gg", "gg.toml", "[capabilities.search]\nenabled = false\n"),
        (
            "coder",
            "coder.yaml",
            "base_paths: [\".\"]\nnon_accessible_globs: [\"**/[.]env\"]\n",
        ),
        ("qwen", "settings.json", "{\"general\": {}}"),
        (
            "picoclaw",
            "picoclaw.json",
            "{\"tools\": {\"allow_read_paths\": [\"^/usr/share/doc\"]}}",
        ),
        ("sgpt", "sgpt.toml", "[exec_shell]\ntimeout_secs = 30\n"),
    ];
    for (profile, name, content) in good {
        let file = dir.path().join(name);
        std::fs::write(&file, content).unwrap();
        let file = file.to_str().unwrap();
        let checked = fsgate(dir.path(), &["check-config", file, "--profile", profile]);
        assert_eq!(
            checked.status.code(),
            Some(0),
            "{profile}: {}",
            stderr(&checked)
        );
        // `schema` opens the workspace through the same function serve does.
        let opened = fsgate(
            dir.path(),
            &["schema", "--profile", profile, "--config", file],
        );
        assert_eq!(
            opened.status.code(),
            Some(0),
            "{profile}: {}",
            stderr(&opened)
        );
    }
    // The roots serve would be given may be named, as serve takes them.
    let far = dir.path().join("far.yaml");
    std::fs::write(&far, "base_paths: [\"/nonexistent/fsgate-check\"]\n").unwrap();
    let root = dir.path().to_str().unwrap();
    let checked = fsgate(
        dir.path(),
        &["check-config", far.to_str().unwrap(), "--root", root],
    );
    assert_eq!(checked.status.code(), Some(0), "{}", stderr(&checked));
}

#[test]
fn a_json_file_without_a_profile_names_the_profiles_that_take_json() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("settings.json");
    std::fs::write(&file, "{}").unwrap();
    let out = fsgate(dir.path(), &["check-config", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let text = stderr(&out);
    assert!(
        text.contains("--profile qwen") && text.contains("--profile picoclaw"),
        "{text}"
    );
    assert!(!text.contains("TOML"), "{text}");
}

#[test]
fn serve_help_names_every_configuration_format() {
    let dir = tempfile::tempdir().unwrap();
    let out = fsgate(dir.path(), &["serve", "--help"]);
    let help = String::from_utf8(out.stdout).unwrap();
    let config = help
        .split("--config <FILE>")
        .nth(1)
        .and_then(|rest| rest.split("\n      --").next())
        .unwrap_or_else(|| panic!("no --config in {help}"));
    for format in [
        "TOML for gg",
        "YAML for coder",
        "settings.json for qwen",
        "JSON for picoclaw",
        "TOML for sgpt",
    ] {
        assert!(config.contains(format), "{format}: {config}");
    }
}

/// Issue 17 item 10: every profile's own key for the non-accessible globs is checked by the one
/// validation serve and check-config share, a glob that does not compile named by its place.
#[test]
fn every_profile_checks_its_non_accessible_globs_as_serve_does() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "gg",
            "gg.toml",
            "[access]\nnon_accessible_globs = [\"**/.env\", \"**/[.pem\"]\n",
            "access.non_accessible_globs[1]",
        ),
        (
            "sgpt",
            "sgpt.toml",
            "[access]\nnon_accessible_globs = [\"**/[.pem\"]\n",
            "access.non_accessible_globs[0]",
        ),
        (
            "qwen",
            "settings.json",
            "{\"context\": {\"fileFiltering\": {\"nonAccessibleGlobs\": [\"**/.env\", \"{a\"]}}}",
            "context.fileFiltering.nonAccessibleGlobs[1]",
        ),
        (
            "picoclaw",
            "picoclaw.json",
            "{\"tools\": {\"non_accessible_globs\": [\"**/[.key\"]}}",
            "tools.non_accessible_globs[0]",
        ),
    ];
    for (profile, name, content, key) in cases {
        let file = dir.path().join(name);
        std::fs::write(&file, content).unwrap();
        let file = file.to_str().unwrap();
        let served = fsgate(
            dir.path(),
            &["serve", "--profile", profile, "--config", file],
        );
        let checked = fsgate(dir.path(), &["check-config", file, "--profile", profile]);
        assert_eq!(checked.status.code(), Some(2), "{profile}: check passed");
        assert_eq!(stderr(&checked), stderr(&served), "{profile}");
        assert!(
            stderr(&checked).contains(key),
            "{profile}: {}",
            stderr(&checked)
        );
        // The same list with the bad pattern fixed passes.
        let fixed = content
            .replace("**/[.pem", "**/*.pem")
            .replace("{a", "**/*.key")
            .replace("**/[.key", "**/*.key");
        std::fs::write(file, fixed).unwrap();
        let checked = fsgate(dir.path(), &["check-config", file, "--profile", profile]);
        assert_eq!(
            checked.status.code(),
            Some(0),
            "{profile}: {}",
            stderr(&checked)
        );
    }
}
