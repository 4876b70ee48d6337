//! gg's code arm and the learned vision over MCP: `serve --arm code` offers run_code, a
//! cancelled run stops its program, and the `fsgate/vision` request turns images into
//! descriptions for the whole server.

use std::path::Path;
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest, CustomRequest,
    ServerResult,
};
use rmcp::service::{PeerRequestOptions, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

type Client = RunningService<RoleClient, ()>;

async fn start(root: &Path, extra: &[&str]) -> Client {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_fsgate"));
    cmd.arg("serve").arg("--root").arg(root).args(extra);
    ().serve(TokioChildProcess::new(cmd).unwrap())
        .await
        .unwrap()
}

fn params(tool: &str, args: Value) -> CallToolRequestParams {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    CallToolRequestParams::new(tool.to_string()).with_arguments(args)
}

async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    client.call_tool(params(tool, args)).await.unwrap()
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn has_image(result: &CallToolResult) -> bool {
    result.content.iter().any(|c| c.as_image().is_some())
}

/// A 1x1 PNG.
fn png() -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
        .unwrap()
}

#[tokio::test]
async fn serve_arm_code_offers_run_code_and_instructions_with_the_tree_and_views() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/a.rs"), "fn a() {}\n").unwrap();
    let client = start(dir.path(), &["--arm", "code"]).await;
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["run_code"]);
    let info = client.peer_info().unwrap();
    let instructions = info.instructions.clone().unwrap();
    assert!(instructions.contains("src/\n  a.rs"), "{instructions}");
    assert!(instructions.contains("## Views"));
    let out = call(
        &client,
        "run_code",
        json!({"code": "gg.views.openFile('src/a.rs'); return gg.files.search('fn').length"}),
    )
    .await;
    assert_ne!(out.is_error, Some(true));
    let shown = text(&out);
    assert!(
        shown.starts_with("[returned]\n1\n[view 1: src/a.rs, lines 1-1 of 1;"),
        "{shown}"
    );
    assert!(shown.contains("\nfn a() {}\n"));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_cancelled_run_stops_its_program_and_the_server_serves_on() {
    let dir = tempfile::tempdir().unwrap();
    let client = start(dir.path(), &["--arm", "code"]).await;
    // Left running, the program would write late.txt after two seconds.
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params(
        "run_code",
        json!({"code": "while (performance.now() < 2000) {} gg.files.writeFile('late.txt', 'x')"}),
    )));
    let handle = client
        .peer()
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    handle.cancel(Some("test".into())).await.unwrap();
    tokio::time::sleep(Duration::from_millis(2700)).await;
    assert!(
        !dir.path().join("late.txt").exists(),
        "the cancelled program ran on"
    );
    let out = call(&client, "run_code", json!({"code": "return 6 * 7"})).await;
    assert!(text(&out).starts_with("[returned]\n42"), "{}", text(&out));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_vision_request_makes_the_server_describe_images_from_then_on() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("m.png"), png()).unwrap();
    let client = start(dir.path(), &[]).await;
    assert!(has_image(
        &call(&client, "read_file", json!({"path": "m.png"})).await
    ));
    let refuse = client
        .send_request(ClientRequest::CustomRequest(CustomRequest::new(
            "fsgate/vision",
            Some(json!({"images": true})),
        )))
        .await;
    assert!(refuse.is_err(), "images: true is not something to learn");
    let answer = client
        .send_request(ClientRequest::CustomRequest(CustomRequest::new(
            "fsgate/vision",
            Some(json!({"images": false})),
        )))
        .await
        .unwrap();
    let ServerResult::CustomResult(result) = answer else {
        panic!("unexpected answer {answer:?}")
    };
    assert_eq!(result.0, json!({"images": false, "changed": true}));
    let out = call(&client, "read_file", json!({"path": "m.png"})).await;
    assert!(!has_image(&out));
    assert!(
        text(&out).contains("this model cannot see images"),
        "{}",
        text(&out)
    );
    let tools = client.list_all_tools().await.unwrap();
    let read_file = tools.iter().find(|t| t.name == "read_file").unwrap();
    assert!(
        read_file
            .description
            .as_deref()
            .unwrap_or_default()
            .contains("cannot see images")
    );
    client.cancel().await.unwrap();
}
