//! The coder profile's configuration file (spec 001, "Configuration" and "Reload policy"),
//! driven through the real binary: `serve --profile coder --config FILE.yaml` watches the file —
//! numeric knobs hot-reload, jail fields (base_paths, non_accessible_globs,
//! default_exclude_globs) are refused until restart, an invalid file keeps the previous values —
//! plus `check-config`, the base_path/base_paths conflict and `${VAR}` expansion.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

type Client = RunningService<RoleClient, ()>;

/// How long a reload may take to show (the server debounces events for 100 ms).
const RELOAD_DEADLINE: Duration = Duration::from_secs(3);
/// How long to give a change that must NOT show before concluding it was refused.
const SETTLE: Duration = Duration::from_millis(1200);

struct Setup {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    config: PathBuf,
}

fn setup() -> Setup {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    let root = base.join("root");
    std::fs::create_dir(&root).unwrap();
    let config = base.join("coder.yaml");
    Setup {
        _tmp: tmp,
        root,
        config,
    }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The YAML of a configuration with root `root`, secret globs `globs` and extra lines.
fn yaml(root: &Path, globs: &[&str], extra: &str) -> String {
    let globs: Vec<String> = globs.iter().map(|g| format!("  - \"{g}\"\n")).collect();
    format!(
        "base_paths:\n  - {}\nnon_accessible_globs:\n{}{extra}",
        s(root),
        if globs.is_empty() {
            "  []\n".to_string()
        } else {
            globs.concat()
        }
    )
    .replace("non_accessible_globs:\n  []", "non_accessible_globs: []")
}

/// Replaces the file the way editors do: a sibling temp file renamed over it.
fn replace(path: &Path, text: &str) {
    let tmp = path.with_extension("yaml.tmp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

async fn serve(args: &[&str], env: &[(&str, &str)]) -> Client {
    serve_logging(args, env, Stdio::null()).await
}

/// Starts `fsgate serve args...` with `env` set, its log (stderr) going to `log`.
async fn serve_logging(args: &[&str], env: &[(&str, &str)], log: Stdio) -> Client {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_fsgate"));
    cmd.arg("serve").args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let (transport, _) = TokioChildProcess::builder(cmd).stderr(log).spawn().unwrap();
    ().serve(transport).await.unwrap()
}

async fn serve_coder(st: &Setup) -> Client {
    serve(
        &[
            "--profile",
            "coder",
            "--root",
            s(&st.root),
            "--config",
            s(&st.config),
        ],
        &[],
    )
    .await
}

async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    client
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args))
        .await
        .unwrap()
}

async fn info(client: &Client) -> Value {
    let result = call(client, "info", json!({})).await;
    assert_eq!(result.is_error, Some(false));
    result
        .structured_content
        .expect("info answers structured JSON")
}

/// Polls info until `key` equals `want`, for up to [`RELOAD_DEADLINE`]; returns the last info.
async fn wait_for(client: &Client, key: &str, want: Value) -> Value {
    let start = Instant::now();
    loop {
        let now = info(client).await;
        if now[key] == want {
            return now;
        }
        assert!(
            start.elapsed() < RELOAD_DEADLINE,
            "{key} never became {want} (still {}) within {RELOAD_DEADLINE:?}",
            now[key]
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_numeric_knob_change_is_visible_to_the_next_info_call() {
    let st = setup();
    std::fs::write(
        &st.config,
        yaml(&st.root, &["**/.env"], "tree_per_folder_limit: 50\n"),
    )
    .unwrap();
    let client = serve_coder(&st).await;
    let before = info(&client).await;
    assert_eq!(before["tree_per_folder_limit"], json!(50));
    assert_eq!(before["base_paths"], json!([s(&st.root)]));

    replace(
        &st.config,
        &yaml(
            &st.root,
            &["**/.env"],
            "tree_per_folder_limit: 7\nmax_read_bytes: 1234\nlist_max_page_size: 99\n",
        ),
    );
    let after = wait_for(&client, "tree_per_folder_limit", json!(7)).await;
    assert_eq!(after["max_read_bytes"], json!(1234));
    assert_eq!(after["list_max_page_size"], json!(99));
    assert_eq!(after["base_paths"], before["base_paths"]);
    assert_eq!(
        after["non_accessible_globs"],
        before["non_accessible_globs"]
    );

    // An in-place rewrite (no rename) reloads too.
    std::fs::write(
        &st.config,
        yaml(&st.root, &["**/.env"], "tree_per_folder_limit: 8\n"),
    )
    .unwrap();
    let again = wait_for(&client, "tree_per_folder_limit", json!(8)).await;
    assert_eq!(
        again["max_read_bytes"],
        json!(10_485_760),
        "unset keys go back to defaults"
    );

    // The new limit applies to calls, not just to info.
    replace(
        &st.config,
        &yaml(&st.root, &["**/.env"], "max_write_bytes: 4\n"),
    );
    wait_for(&client, "max_write_bytes", json!(4)).await;
    let r = call(
        &client,
        "create-file",
        json!({"files": [{"path": "big.txt", "content": "12345"}]}),
    )
    .await;
    let v = r.structured_content.unwrap();
    assert_eq!(v["results"][0]["error"]["code"], json!("C213"), "{v}");
    assert!(!st.root.join("big.txt").exists());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_jail_change_is_refused_and_info_keeps_the_boot_jail() {
    let st = setup();
    let other = st.root.parent().unwrap().join("other");
    std::fs::create_dir(&other).unwrap();
    std::fs::write(
        &st.config,
        yaml(&st.root, &["**/.env"], "tree_per_folder_limit: 50\n"),
    )
    .unwrap();
    let client = serve_coder(&st).await;
    let boot = info(&client).await;
    assert_eq!(boot["non_accessible_globs"], json!(["**/.env"]));

    let changes = [
        // Dropping the secret globs.
        yaml(&st.root, &[], "tree_per_folder_limit: 9\n"),
        // Widening the roots.
        format!(
            "base_paths:\n  - {}\n  - {}\nnon_accessible_globs:\n  - \"**/.env\"\ntree_per_folder_limit: 9\n",
            s(&st.root),
            s(&other)
        ),
        // Changing the noise filter.
        yaml(
            &st.root,
            &["**/.env"],
            "default_exclude_globs: []\ntree_per_folder_limit: 9\n",
        ),
    ];
    for changed in &changes {
        replace(&st.config, changed);
        tokio::time::sleep(SETTLE).await;
        let now = info(&client).await;
        assert_eq!(now["base_paths"], boot["base_paths"], "after {changed}");
        assert_eq!(
            now["non_accessible_globs"], boot["non_accessible_globs"],
            "after {changed}"
        );
        assert_eq!(
            now["default_exclude_globs"], boot["default_exclude_globs"],
            "after {changed}"
        );
        // And the running jail still enforces them.
        let r = call(
            &client,
            "create-file",
            json!({"files": [{"path": ".env", "content": "x"}]}),
        )
        .await;
        let v = r.structured_content.unwrap();
        assert_eq!(v["results"][0]["error"]["code"], json!("C211"), "{v}");
        let r = call(
            &client,
            "create-file",
            json!({"files": [{"path": s(&other.join("x.txt")), "content": "x"}]}),
        )
        .await;
        let v = r.structured_content.unwrap();
        assert_eq!(v["results"][0]["error"]["code"], json!("C215"), "{v}");
    }
    assert!(!st.root.join(".env").exists() && !other.join("x.txt").exists());

    // The watcher is still alive: a knob-only change against the boot jail applies.
    replace(
        &st.config,
        &yaml(&st.root, &["**/.env"], "tree_per_folder_limit: 11\n"),
    );
    wait_for(&client, "tree_per_folder_limit", json!(11)).await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn an_invalid_file_keeps_the_previous_values() {
    let st = setup();
    std::fs::write(
        &st.config,
        yaml(&st.root, &["**/.env"], "tree_per_folder_limit: 50\n"),
    )
    .unwrap();
    let client = serve_coder(&st).await;
    replace(
        &st.config,
        &yaml(&st.root, &["**/.env"], "tree_per_folder_limit: 12\n"),
    );
    let good = wait_for(&client, "tree_per_folder_limit", json!(12)).await;
    for bad in [
        yaml(&st.root, &["**/.env"], "tree_per_folder_limit: banana\n"),
        yaml(&st.root, &["**/.env"], "tree_per_folder_limit: -3\n"),
        yaml(
            &st.root,
            &["**/.env"],
            "tree_per_folder_limit: 13\ncolour: blue\n",
        ),
        "base_paths: [unclosed\n".to_string(),
        yaml(
            &st.root,
            &["**/.env"],
            &format!("base_path: {}\ntree_per_folder_limit: 13\n", s(&st.root)),
        ),
    ] {
        replace(&st.config, &bad);
        tokio::time::sleep(SETTLE).await;
        assert_eq!(info(&client).await, good, "after {bad}");
    }
    replace(
        &st.config,
        &yaml(&st.root, &["**/.env"], "tree_per_folder_limit: 14\n"),
    );
    wait_for(&client, "tree_per_folder_limit", json!(14)).await;
    client.cancel().await.unwrap();
}

/// One change to the file is one reload: the server's own reading of the file must not count
/// as a change (else it reloads, and logs, every 100 ms forever).
#[tokio::test]
async fn one_change_is_one_reload() {
    let st = setup();
    std::fs::write(
        &st.config,
        yaml(&st.root, &["**/.env"], "tree_per_folder_limit: 50\n"),
    )
    .unwrap();
    let log = st.root.parent().unwrap().join("server.log");
    let client = serve_logging(
        &[
            "--profile",
            "coder",
            "--root",
            s(&st.root),
            "--config",
            s(&st.config),
        ],
        &[("FSGATE_LOG", "info"), ("NO_COLOR", "1")],
        Stdio::from(std::fs::File::create(&log).unwrap()),
    )
    .await;
    replace(
        &st.config,
        &yaml(&st.root, &["**/.env"], "tree_per_folder_limit: 5\n"),
    );
    wait_for(&client, "tree_per_folder_limit", json!(5)).await;
    replace(
        &st.config,
        &yaml(&st.root, &["**/.env"], "tree_per_folder_limit: oops\n"),
    );
    tokio::time::sleep(Duration::from_secs(2)).await;
    client.cancel().await.unwrap();
    let text = std::fs::read_to_string(&log).unwrap();
    let reloads = text.matches("reloaded").count();
    let rejections = text.matches("configuration change rejected").count();
    assert!(
        reloads <= 2 && rejections <= 2,
        "{reloads} reloads and {rejections} rejections logged for two changes:\n{text}"
    );
}

fn fsgate(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fsgate"));
    cmd.args(args).stdin(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

#[test]
fn check_config_exits_0_for_a_good_file_and_2_listing_every_problem() {
    let st = setup();
    std::fs::write(
        &st.config,
        "- base_paths:\n  - ./\n  - /tmp\n  batch_read_budget_bytes: 1048576\n  default_exclude_globs:\n  - \"**/.git/**\"\n  non_accessible_globs:\n  - \"**/.env\"\n  tree_per_folder_limit: 50\n",
    )
    .unwrap();
    let out = fsgate(&["check-config", s(&st.config)], &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "the spec's seed-file shape is valid: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let good = st.root.join("good.yaml");
    std::fs::write(
        &good,
        yaml(&st.root, &["**/*.pem"], "max_output_bytes: 1\n"),
    )
    .unwrap();
    assert_eq!(
        fsgate(&["check-config", s(&good)], &[]).status.code(),
        Some(0)
    );

    let bad = st.root.join("bad.yaml");
    std::fs::write(
        &bad,
        "base_path: /a\nbase_paths: [/b]\nmax_read_bytes: -1\ncolour: blue\ntree_default_depth: deep\nnon_accessible_globs: \"**/.env\"\n",
    )
    .unwrap();
    let out = fsgate(&["check-config", s(&bad)], &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    for key in [
        "base_path",
        "max_read_bytes",
        "colour",
        "tree_default_depth",
        "non_accessible_globs",
    ] {
        assert!(
            err.contains(&format!("- {key}")),
            "{key} not listed in:\n{err}"
        );
    }
    assert!(err.contains("5 problems"), "{err}");
    // --profile coder forces YAML parsing whatever the extension.
    let odd = st.root.join("coder.conf");
    std::fs::write(&odd, "colour: blue\n").unwrap();
    let out = fsgate(&["check-config", "--profile", "coder", s(&odd)], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("colour"));
}

#[test]
fn serve_refuses_to_start_with_both_base_path_and_base_paths() {
    let st = setup();
    std::fs::write(
        &st.config,
        format!("base_path: {0}\nbase_paths:\n  - {0}\n", s(&st.root)),
    )
    .unwrap();
    for args in [
        vec!["serve", "--profile", "coder", "--config", s(&st.config)],
        vec![
            "serve",
            "--profile",
            "coder",
            "--root",
            s(&st.root),
            "--config",
            s(&st.config),
        ],
    ] {
        let out = fsgate(&args, &[]);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("base_path"), "{err}");
    }
}

#[tokio::test]
async fn placeholders_expand_from_the_server_environment() {
    let st = setup();
    std::fs::write(
        &st.config,
        "base_paths:\n  - \"${FSGATE_TEST_ROOT}\"\nnon_accessible_globs:\n  - \"**/${FSGATE_TEST_SECRET}\"\ntree_per_folder_limit: \"${FSGATE_TEST_LIMIT}\"\n",
    )
    .unwrap();
    let env = [
        ("FSGATE_TEST_ROOT", s(&st.root)),
        ("FSGATE_TEST_SECRET", "token.txt"),
        ("FSGATE_TEST_LIMIT", "33"),
    ];
    let client = serve(&["--profile", "coder", "--config", s(&st.config)], &env).await;
    let now = info(&client).await;
    assert_eq!(now["base_paths"], json!([s(&st.root)]));
    assert_eq!(now["non_accessible_globs"], json!(["**/token.txt"]));
    assert_eq!(now["tree_per_folder_limit"], json!(33));
    let r = call(
        &client,
        "create-file",
        json!({"files": [{"path": "token.txt", "content": "x"}, {"path": "ok.txt", "content": "x"}]}),
    )
    .await;
    let v = r.structured_content.unwrap();
    assert_eq!(v["results"][0]["error"]["code"], json!("C211"), "{v}");
    assert_eq!(v["results"][1]["success"], json!(true), "{v}");
    assert!(st.root.join("ok.txt").is_file());
    // A reload expands the same placeholders: same jail, new knob.
    replace(
        &st.config,
        "base_paths:\n  - \"${FSGATE_TEST_ROOT}\"\nnon_accessible_globs:\n  - \"**/${FSGATE_TEST_SECRET}\"\ntree_per_folder_limit: \"${FSGATE_TEST_LIMIT}\"\nmax_output_bytes: 777\n",
    );
    wait_for(&client, "max_output_bytes", json!(777)).await;
    client.cancel().await.unwrap();

    // check-config names an unset variable; serve refuses to start without it.
    let out = fsgate(&["check-config", s(&st.config)], &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("FSGATE_TEST_ROOT"), "{err}");
    let out = fsgate(&["check-config", s(&st.config)], &env);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = fsgate(
        &["serve", "--profile", "coder", "--config", s(&st.config)],
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
}
