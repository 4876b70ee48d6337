//! End to end: start the real `fsgate serve` and drive it over stdio with an MCP client.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

use std::path::Path;

use base64::Engine as _;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

type Client = RunningService<RoleClient, ()>;

async fn start(root: &Path, extra: &[&str]) -> (Client, u32) {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_fsgate"));
    cmd.arg("serve").arg("--root").arg(root).args(extra);
    let transport = TokioChildProcess::new(cmd).unwrap();
    let pid = transport.id().unwrap();
    let client = ().serve(transport).await.unwrap();
    (client, pid)
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

async fn tool_names(client: &Client) -> Vec<String> {
    let tools = client.list_all_tools().await.unwrap();
    tools.iter().map(|t| t.name.to_string()).collect()
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn lists_the_six_gg_tools_with_schemas_annotations_and_instructions() {
    let dir = tempfile::tempdir().unwrap();
    let (client, _) = start(dir.path(), &[]).await;
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "read_file",
            "write_file",
            "edit_file",
            "list_dir",
            "tree",
            "search"
        ]
    );
    let read = &tools[0];
    let limit = &read.input_schema["properties"]["limit"]["description"];
    assert!(limit.as_str().unwrap().contains("2000 lines"), "{limit}");
    assert_eq!(read.input_schema["required"], json!(["path"]));
    assert_eq!(
        read.annotations.as_ref().unwrap().read_only_hint,
        Some(true)
    );
    let write = &tools[1];
    assert_eq!(
        write.annotations.as_ref().unwrap().read_only_hint,
        Some(false)
    );
    let info = client.peer_info().unwrap();
    let instructions = info.instructions.as_deref().unwrap();
    assert!(instructions.contains("## Reading Files"), "{instructions}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn reads_page_with_footers_and_a_covering_limit_is_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let body: String = (1..=30).map(|i| format!("row {i}\n")).collect();
    std::fs::write(dir.path().join("rows.txt"), &body).unwrap();
    let config = dir.path().join("cfg.toml");
    std::fs::write(
        &config,
        "[capabilities.read-file]\nimplementation = \"default-cap\"\nparams = { lineCap = 10 }\n",
    )
    .unwrap();
    let (client, _) = start(dir.path(), &["--config", config.to_str().unwrap()]).await;

    let first = call(&client, "read_file", json!({"path": "rows.txt"})).await;
    assert_eq!(first.is_error, Some(false));
    let expected: String = (1..=10).map(|i| format!("row {i}\n")).collect();
    assert_eq!(
        text(&first),
        format!("{expected}[showing lines 1-10 of 30; continue with offset: 11]")
    );
    let last = call(
        &client,
        "read_file",
        json!({"path": "rows.txt", "offset": 25}),
    )
    .await;
    assert!(text(&last).ends_with("row 30\n[showing lines 25-30 of 30]"));
    let whole = call(
        &client,
        "read_file",
        json!({"path": "rows.txt", "limit": 30}),
    )
    .await;
    assert_eq!(text(&whole), body);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn failed_calls_are_is_error_results_starting_with_their_kind() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "x\nx\n").unwrap();
    let (client, _) = start(dir.path(), &[]).await;
    let missing = call(&client, "read_file", json!({"path": "nope.txt"})).await;
    assert_eq!(missing.is_error, Some(true));
    assert!(text(&missing).starts_with("not-found: nope.txt does not exist"));
    let empty = call(&client, "read_file", json!({"path": ""})).await;
    assert!(text(&empty).starts_with("invalid-argument: path is empty"));
    let twice = call(
        &client,
        "edit_file",
        json!({"path": "a.txt", "old_string": "x", "new_string": "y"}),
    )
    .await;
    assert!(
        text(&twice).starts_with("not-unique: old_string occurs 2 times in a.txt, at lines 1, 2")
    );
    let bad_type = call(&client, "tree", json!({"depth": "deep"})).await;
    assert!(text(&bad_type).starts_with("invalid-argument: depth of tree"));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn unknown_tools_are_protocol_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (client, _) = start(dir.path(), &[]).await;
    let err = client
        .call_tool(CallToolRequestParams::new("delete_everything"))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("unknown tool"), "{err}");
    client.cancel().await.unwrap();
}

/// A whole 2x3 grey PNG (IHDR with its CRC, IDAT, IEND), as an encoder writes it.
fn tiny_png() -> Vec<u8> {
    [
        "89504e470d0a1a0a0000000d49484452000000020000000308000000009c",
        "81815d0000000b49444154789c636080020000090001fb52b8a900000000",
        "49454e44ae426082",
    ]
    .concat()
    .as_bytes()
    .chunks(2)
    .map(|pair| u8::from_str_radix(std::str::from_utf8(pair).unwrap(), 16).unwrap())
    .collect()
}

#[tokio::test]
async fn images_travel_as_image_blocks_unless_vision_is_off() {
    let dir = tempfile::tempdir().unwrap();
    let png = tiny_png();
    std::fs::write(dir.path().join("mock.bin"), &png).unwrap();
    let (client, _) = start(dir.path(), &[]).await;
    let seen = call(
        &client,
        "read_file",
        json!({"path": "mock.bin", "offset": 5}),
    )
    .await;
    assert_eq!(seen.content.len(), 2);
    assert_eq!(
        text(&seen),
        format!("Image mock.bin: PNG, 2x3 pixels, {} bytes.", png.len())
    );
    let image = seen.content[1].as_image().expect("an image block");
    assert_eq!(image.mime_type, "image/png");
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(&image.data)
        .unwrap();
    assert_eq!(decoded, png);
    client.cancel().await.unwrap();

    let (blind, _) = start(dir.path(), &["--no-vision"]).await;
    let described = call(&blind, "read_file", json!({"path": "mock.bin"})).await;
    assert_eq!(described.content.len(), 1);
    assert!(text(&described).contains("not attached: this model cannot see images"));
    blind.cancel().await.unwrap();
}

#[tokio::test]
async fn disabled_capabilities_and_agent_allowlists_restrict_the_tools() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("cfg.toml");
    std::fs::write(
        &config,
        "[capabilities.write-file]\nenabled = false\n[agents.reviewer]\nallow = [\"read_file\", \"tree\", \"write_file\"]\n",
    )
    .unwrap();
    let cfg = config.to_str().unwrap();
    let (client, _) = start(dir.path(), &["--config", cfg]).await;
    assert_eq!(
        tool_names(&client).await,
        ["read_file", "edit_file", "list_dir", "tree", "search"]
    );
    let refused = call(&client, "write_file", json!({"path": "x", "content": "y"})).await;
    assert_eq!(refused.is_error, Some(true));
    assert!(text(&refused).starts_with("denied: write_file is not enabled"));
    assert!(!dir.path().join("x").exists());
    client.cancel().await.unwrap();

    let (agent, _) = start(dir.path(), &["--config", cfg, "--agent", "reviewer"]).await;
    assert_eq!(
        tool_names(&agent).await,
        ["read_file", "tree"],
        "the capability switch wins over the allowlist"
    );
    agent.cancel().await.unwrap();
}

#[tokio::test]
async fn concurrent_calls_on_one_connection_all_complete() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..16 {
        std::fs::write(
            dir.path().join(format!("f{i:02}.txt")),
            format!("needle {i}\n"),
        )
        .unwrap();
    }
    let (client, _) = start(dir.path(), &[]).await;
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..16 {
        let peer = client.peer().clone();
        tasks.spawn(async move {
            let Value::Object(args) = json!({"path": format!("f{i:02}.txt")}) else {
                unreachable!()
            };
            let result = peer
                .call_tool(CallToolRequestParams::new("read_file").with_arguments(args))
                .await
                .unwrap();
            (i, text(&result))
        });
    }
    let mut seen = 0;
    while let Some(done) = tasks.join_next().await {
        let (i, body) = done.unwrap();
        assert_eq!(body, format!("needle {i}\n"));
        seen += 1;
    }
    assert_eq!(seen, 16);
    client.cancel().await.unwrap();
}

/// Peak resident memory of a process, in KiB.
fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

#[tokio::test]
async fn a_window_at_the_end_of_a_large_file_streams_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.log");
    let lines: u64 = 4_000_000; // ~100 MB
    {
        use std::io::Write;
        let mut out =
            std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&path).unwrap());
        for i in 1..=lines {
            writeln!(out, "log line number {i:012} with some padding text").unwrap();
        }
    }
    let (client, pid) = start(dir.path(), &[]).await;
    let tail = call(
        &client,
        "read_file",
        json!({"path": "big.log", "offset": lines - 4}),
    )
    .await;
    let expected_first = format!("log line number {:012} with some padding text\n", lines - 4);
    let body = text(&tail);
    assert!(body.starts_with(&expected_first), "{body}");
    assert!(body.ends_with(&format!("[showing lines {}-{lines} of {lines}]", lines - 4)));
    let head = call(
        &client,
        "read_file",
        json!({"path": "big.log", "limit": 1_000_000}),
    )
    .await;
    assert!(text(&head).contains("cut at the 256 KiB read limit"));
    let peak = peak_rss_kib(pid);
    eprintln!("server peak RSS: {peak} KiB");
    assert!(
        peak < 48 * 1024,
        "server peak RSS {peak} KiB for windows of a 200 MB file"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_write_larger_than_sixteen_mib_is_answered_and_lands_whole() {
    let dir = tempfile::tempdir().unwrap();
    let (client, _) = start(dir.path(), &[]).await;
    // Past rmcp's default 16 MiB line, which used to drop the request unanswered.
    let content: String = (0..1_600_000).map(|i| format!("line {i:08}\n")).collect();
    assert!(content.len() > 20 * 1024 * 1024);
    let result = call(
        &client,
        "write_file",
        json!({"path": "big.txt", "content": content}),
    )
    .await;
    assert_ne!(result.is_error, Some(true), "{}", text(&result));
    assert!(std::fs::read_to_string(dir.path().join("big.txt")).unwrap() == content);
    client.cancel().await.unwrap();
}
