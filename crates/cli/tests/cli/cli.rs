//! The `fsgate` command line: one-shot calls and their exit codes, schema, prompt and
//! configuration checks, and serve refusing a bad configuration.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn fsgate(root: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fsgate"))
        .args(args)
        .current_dir(root)
        .output()
        .unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

#[test]
fn call_prints_what_the_model_sees_and_exits_0_1_or_2() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "alpha\nbeta\n").unwrap();

    let ok = fsgate(dir.path(), &["call", "read_file", r#"{"path": "a.txt"}"#]);
    assert_eq!(ok.status.code(), Some(0));
    assert_eq!(stdout(&ok), "alpha\nbeta\n");

    let failed = fsgate(
        dir.path(),
        &["call", "read_file", r#"{"path": "missing.txt"}"#],
    );
    assert_eq!(failed.status.code(), Some(1));
    assert!(stdout(&failed).starts_with("not-found: missing.txt does not exist"));

    let bad_json = fsgate(dir.path(), &["call", "read_file", "{path: a.txt}"]);
    assert_eq!(bad_json.status.code(), Some(2));
    assert!(stderr(&bad_json).contains("not valid JSON"));

    let unknown = fsgate(dir.path(), &["call", "rm_rf", "{}"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(stderr(&unknown).contains("unknown tool \"rm_rf\""));
}

#[test]
fn call_resolves_paths_against_root_not_the_current_directory() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    std::fs::write(ws.join("inside.txt"), "in\n").unwrap();
    let out = fsgate(
        dir.path(),
        &[
            "call",
            "read_file",
            r#"{"path": "inside.txt"}"#,
            "--root",
            ws.to_str().unwrap(),
        ],
    );
    assert_eq!(stdout(&out), "in\n");
}

#[test]
fn call_shows_an_image_as_its_line_and_a_placeholder() {
    let dir = tempfile::tempdir().unwrap();
    // Header, logical screen, one 4x2 image and its LZW data, trailer.
    let mut gif = b"GIF89a".to_vec();
    gif.extend_from_slice(&[4, 0, 2, 0, 0, 0, 0]);
    gif.extend_from_slice(&[0x2C, 0, 0, 0, 0, 4, 0, 2, 0, 0, 2, 2, 0x44, 0x01, 0, 0x3B]);
    std::fs::write(dir.path().join("pic.gif"), &gif).unwrap();
    let out = fsgate(dir.path(), &["call", "read_file", r#"{"path": "pic.gif"}"#]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout(&out),
        "Image pic.gif: GIF, 4x2 pixels, 29 bytes.\n[image attachment: image/gif, 29 bytes]"
    );
    // The header alone is described, not attached.
    std::fs::write(dir.path().join("cut.gif"), &gif[..13]).unwrap();
    let out = fsgate(dir.path(), &["call", "read_file", r#"{"path": "cut.gif"}"#]);
    assert_eq!(out.status.code(), Some(0));
    let shown = stdout(&out);
    assert!(shown.starts_with("Image cut.gif: claims to be GIF, 13 bytes; not attached"));
    assert!(!shown.contains("[image attachment"), "{shown}");
}

#[test]
fn call_brings_an_image_within_the_image_flags() {
    let dir = tempfile::tempdir().unwrap();
    // A 4x2 GIF that decodes: a two-colour table, and LZW data for its eight pixels (a clear
    // code before each, so codes stay 3 bits).
    let mut gif = b"GIF89a".to_vec();
    gif.extend_from_slice(&[4, 0, 2, 0, 0x80, 0, 0, 0, 0, 0, 255, 255, 255]);
    gif.extend_from_slice(&[0x2C, 0, 0, 0, 0, 4, 0, 2, 0, 0, 2]);
    gif.extend_from_slice(&[7, 4, 65, 16, 4, 65, 16, 5, 0, 0x3B]);
    std::fs::write(dir.path().join("pic.gif"), &gif).unwrap();
    let read = |flags: &[&str]| {
        let mut args = vec!["call", "read_file", r#"{"path": "pic.gif"}"#];
        args.extend_from_slice(flags);
        let out = fsgate(dir.path(), &args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        stdout(&out)
    };
    let shown = read(&["--image-max-edge", "2"]);
    assert!(
        shown.starts_with(
            "Image pic.gif: GIF, 4x2 pixels, 40 bytes; attached downscaled to 2x1 pixels (PNG, "
        ),
        "{shown}"
    );
    assert!(
        shown.contains("\n[image attachment: image/png, "),
        "{shown}"
    );
    let shown = read(&["--image-max-pixels", "4"]);
    assert!(shown.contains("downscaled to 3x1 pixels"), "{shown}");
    // Within the limits: the file's own bytes.
    assert_eq!(
        read(&["--image-max-bytes", "40"]),
        "Image pic.gif: GIF, 4x2 pixels, 40 bytes.\n[image attachment: image/gif, 40 bytes]"
    );
    let zero = fsgate(
        dir.path(),
        &["call", "read_file", "{}", "--image-max-edge", "0"],
    );
    assert_eq!(zero.status.code(), Some(2));
}

#[test]
fn schema_lists_name_description_and_input_schema_per_mode() {
    let dir = tempfile::tempdir().unwrap();
    let out = fsgate(dir.path(), &["schema"]);
    assert_eq!(out.status.code(), Some(0));
    let tools: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let tools = tools.as_array().unwrap();
    assert_eq!(tools.len(), 6);
    for tool in tools {
        assert!(tool["name"].is_string() && tool["description"].is_string());
        assert_eq!(tool["inputSchema"]["type"], "object");
    }
    let limit = tools[0]["inputSchema"]["properties"]["limit"]["description"]
        .as_str()
        .unwrap();
    assert!(limit.contains("at most 2000 lines (the cap)"), "{limit}");

    let config = dir.path().join("unlimited.toml");
    std::fs::write(
        &config,
        "[capabilities.read-file]\nimplementation = \"unlimited\"\nparams = { lineCap = 300 }\n",
    )
    .unwrap();
    let out = fsgate(
        dir.path(),
        &["schema", "--config", config.to_str().unwrap()],
    );
    let tools: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let limit = tools[0]["inputSchema"]["properties"]["limit"]["description"]
        .as_str()
        .unwrap();
    assert!(limit.contains("to its end"), "{limit}");
    assert!(!limit.contains("300"), "{limit}");
}

#[test]
fn prompt_states_the_cap_only_under_default_cap_and_images_when_vision_is_off() {
    let dir = tempfile::tempdir().unwrap();
    let capped = dir.path().join("capped.toml");
    std::fs::write(
        &capped,
        "[capabilities.read-file]\nimplementation = \"default-cap\"\nparams = { lineCap = 321 }\n",
    )
    .unwrap();
    let unlimited = dir.path().join("unlimited.toml");
    std::fs::write(
        &unlimited,
        "[capabilities.read-file]\nimplementation = \"unlimited\"\nparams = { lineCap = 321 }\n[model]\nvision = false\n",
    )
    .unwrap();
    let with_cap = stdout(&fsgate(
        dir.path(),
        &["prompt", "--config", capped.to_str().unwrap()],
    ));
    assert!(with_cap.contains("## Reading Files"));
    assert!(with_cap.contains("at most 321 lines"), "{with_cap}");
    assert!(!with_cap.contains("Reading images is unsupported"));
    let blind = stdout(&fsgate(
        dir.path(),
        &[
            "prompt",
            "--config",
            capped.to_str().unwrap(),
            "--no-vision",
        ],
    ));
    assert!(blind.contains("Reading images is unsupported"), "{blind}");
    let without_cap = stdout(&fsgate(
        dir.path(),
        &["prompt", "--config", unlimited.to_str().unwrap()],
    ));
    assert!(!without_cap.contains("321"), "{without_cap}");
    assert!(
        without_cap.contains("Reading images is unsupported"),
        "{without_cap}"
    );
}

#[test]
fn check_config_and_serve_refuse_naming_every_bad_value() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.toml");
    std::fs::write(&good, "[capabilities.search]\nenabled = false\n").unwrap();
    let ok = fsgate(dir.path(), &["check-config", good.to_str().unwrap()]);
    assert_eq!(ok.status.code(), Some(0), "{}", stderr(&ok));

    let bad = dir.path().join("bad.toml");
    std::fs::write(
        &bad,
        "[capabilities.read-file]\nimplementation = \"paged\"\n[capabilities.grep]\nenabled = true\n",
    )
    .unwrap();
    let refused = fsgate(dir.path(), &["check-config", bad.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(2));
    let text = stderr(&refused);
    assert!(text.contains("3 problems"), "{text}");
    assert!(text.contains(
        "\"paged\" is not a read mode; the two modes are \"unlimited\" and \"default-cap\""
    ));
    assert!(text.contains("capabilities.read-file.params.lineCap: missing"));
    assert!(text.contains("capabilities.grep: unknown capability"));

    let serve = Command::new(env!("CARGO_BIN_EXE_fsgate"))
        .args(["serve", "--config", bad.to_str().unwrap()])
        .current_dir(dir.path())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(serve.status.code(), Some(2));
    assert!(stderr(&serve).contains("3 problems"));
}

#[test]
fn serve_refuses_a_missing_root_and_an_unknown_agent() {
    let dir = tempfile::tempdir().unwrap();
    let out = fsgate(dir.path(), &["serve", "--root", "does/not/exist"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("does/not/exist"), "{}", stderr(&out));
    let out = fsgate(dir.path(), &["schema", "--agent", "ghost"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("agent \"ghost\" is not in the configuration"));
}

#[test]
fn gg_with_jail_roots_confines_every_path_to_the_root() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    std::fs::write(ws.join("in.txt"), "inside\n").unwrap();
    std::fs::write(dir.path().join("out.txt"), "outside\n").unwrap();
    std::os::unix::fs::symlink(dir.path().join("out.txt"), ws.join("link.txt")).unwrap();
    let root = ws.to_str().unwrap();
    let jailed = |args: &str| {
        fsgate(
            &ws,
            &["call", "read_file", args, "--root", root, "--jail", "roots"],
        )
    };

    let inside = jailed(r#"{"path": "in.txt"}"#);
    assert_eq!(
        (inside.status.code(), stdout(&inside).as_str()),
        (Some(0), "inside\n")
    );
    for escape in [
        r#"{"path": "../out.txt"}"#,
        r#"{"path": "link.txt"}"#,
        r#"{"path": "/etc/hostname"}"#,
    ] {
        let out = jailed(escape);
        assert_eq!(out.status.code(), Some(1), "{escape}");
        assert!(
            stdout(&out).starts_with("outside-root: "),
            "{escape}: {}",
            stdout(&out)
        );
    }
    let write = fsgate(
        &ws,
        &[
            "call",
            "write_file",
            r#"{"path": "../new.txt", "content": "x"}"#,
            "--root",
            root,
            "--jail",
            "roots",
        ],
    );
    assert_eq!(write.status.code(), Some(1));
    assert!(!dir.path().join("new.txt").exists());
    // Without the jail gg reaches the whole container, as gg itself does.
    let free = fsgate(
        &ws,
        &[
            "call",
            "read_file",
            r#"{"path": "../out.txt"}"#,
            "--root",
            root,
        ],
    );
    assert_eq!(stdout(&free), "outside\n");
}

#[test]
fn picoclaw_switches_come_from_the_environment_with_or_without_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let names = |envs: &[(&str, &str)]| {
        let out = Command::new(env!("CARGO_BIN_EXE_fsgate"))
            .args(["schema", "--profile", "picoclaw", "--root"])
            .arg(dir.path())
            .envs(envs.iter().copied())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let tools: Value = serde_json::from_str(&stdout(&out)).unwrap();
        tools
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert!(names(&[]).contains(&"write_file".to_string()));
    let off = names(&[("PICOCLAW_TOOLS_WRITE_FILE_ENABLED", "false")]);
    assert!(!off.contains(&"write_file".to_string()), "{off:?}");
    assert!(off.contains(&"read_file".to_string()));
}

#[test]
fn serve_says_once_on_stderr_when_paths_are_unconfined_and_how_to_confine_them() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let serve = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_fsgate"))
            .args(["serve", "--root", root])
            .args(extra)
            .current_dir(dir.path())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        stderr(&out)
    };
    let unconfined = serve(&[]);
    let lines: Vec<&str> = unconfined
        .lines()
        .filter(|l| l.contains("unconfined"))
        .collect();
    assert_eq!(
        lines,
        [
            "fsgate: unconfined: gg reaches every path this process can (absolute paths and .. go \
          beyond --root); pass --jail roots to confine it to the roots"
        ],
        "{unconfined}"
    );
    for confined in [
        &["--jail", "roots"][..],
        &["--profile", "coder"],
        &["--profile", "qwen"],
    ] {
        let text = serve(confined);
        assert!(!text.contains("unconfined"), "{confined:?}: {text}");
    }
}
