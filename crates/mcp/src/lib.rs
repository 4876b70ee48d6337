//! fsgate's MCP server: a [`Workspace`] served over the Model Context Protocol with `rmcp`.
//!
//! The server holds no tool logic. It lists the workspace's tools, runs each call on the
//! blocking pool (the engine is synchronous), and maps the result to MCP content: text blocks,
//! image blocks (base64 with their MIME type), and `isError` for a failed call. A call to a
//! tool the profile does not have is a JSON-RPC invalid-params error, as MCP specifies.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let ws = std::sync::Arc::new(fsgate_core::Workspace::open(fsgate_core::Options::new("."))?);
//! fsgate_mcp::serve_stdio(ws).await?;
//! # Ok(())
//! # }
//! ```

#![deny(missing_docs)]

pub mod calllog;
pub mod http;
pub mod limit;
pub mod stdio;

use std::sync::Arc;

use base64::Engine as _;
use fsgate_core::{CallContext, Content, Progress, ProgressSink, ToolDef, ToolOutput, Workspace};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomNotification,
    CustomRequest, CustomResult, Implementation, JsonObject, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ProgressToken, ResourceContents,
    ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};

/// The method of the request (or notification) by which a harness tells a running server that
/// its model cannot take images: params `{"images": false}`. From then on every session of the
/// server describes images instead of attaching them, and its prompts and tool descriptions say
/// so; the session that sent it hears `notifications/tools/list_changed`. The answer is
/// `{"images": false, "changed": bool}`.
pub const VISION_METHOD: &str = "fsgate/vision";

/// The MCP handler of one workspace.
#[derive(Clone)]
pub struct FsgateServer {
    workspace: Arc<Workspace>,
    /// Where each call is recorded as a JSON line (`--call-log`). By default nowhere.
    call_log: Option<calllog::CallLog>,
}

impl FsgateServer {
    /// A handler serving `workspace`.
    pub fn new(workspace: Arc<Workspace>) -> Self {
        FsgateServer {
            workspace,
            call_log: None,
        }
    }

    /// Applies a [`VISION_METHOD`] message's params; whether it changed anything, or why the
    /// params are refused.
    fn learn_vision(&self, params: Option<&serde_json::Value>) -> Result<bool, String> {
        match params.and_then(|p| p.get("images")) {
            Some(serde_json::Value::Bool(false)) => Ok(self.workspace.learn_no_vision()),
            Some(serde_json::Value::Bool(true)) => Err(format!(
                "{VISION_METHOD} only records that the model cannot take images \
                 ({{\"images\": false}}); a server that has learned it keeps it until it restarts"
            )),
            _ => Err(format!(
                "{VISION_METHOD} takes params {{\"images\": false}}, telling the server its model \
                 cannot take images"
            )),
        }
    }

    /// The handler recording every call in `log`.
    pub fn with_call_log(mut self, log: calllog::CallLog) -> Self {
        self.call_log = Some(log);
        self
    }
}

/// The error of running the server.
#[derive(Debug)]
pub struct ServeError(pub String);

impl std::fmt::Display for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ServeError {}

/// Serves `workspace` over MCP on standard input and output until the client disconnects.
pub async fn serve_stdio(workspace: Arc<Workspace>) -> Result<(), ServeError> {
    serve_stdio_with(FsgateServer::new(workspace)).await
}

pub use limit::MAX_MESSAGE_BYTES;

/// Serves a prepared handler (e.g. one with a call log) on standard input and output.
pub async fn serve_stdio_with(server: FsgateServer) -> Result<(), ServeError> {
    let (read, write) = rmcp::transport::io::stdio_pipes();
    // One JSON-RPC message is one line, of up to MAX_MESSAGE_BYTES; a longer one is answered
    // with an error rather than dropped (rmcp's own framing drops it unanswered).
    let transport = stdio::LineTransport::new(read, write);
    let service = server
        .serve(transport)
        .await
        .map_err(|e| ServeError(format!("MCP initialisation failed: {e}")))?;
    service
        .waiting()
        .await
        .map_err(|e| ServeError(format!("MCP service stopped abnormally: {e}")))?;
    Ok(())
}

fn to_mcp_tool(def: &ToolDef) -> Tool {
    let schema: JsonObject = match &def.input_schema {
        serde_json::Value::Object(map) => map.clone(),
        _ => JsonObject::new(),
    };
    let mut tool = Tool::new(def.name, def.description.clone(), schema);
    if let Some(serde_json::Value::Object(output)) = &def.output_schema {
        tool.output_schema = Some(std::sync::Arc::new(output.clone()));
    }
    let mut annotations = ToolAnnotations::new();
    annotations.read_only_hint = Some(def.read_only);
    if !def.read_only {
        annotations.destructive_hint = Some(def.destructive);
    }
    annotations.open_world_hint = Some(false);
    tool.annotations = Some(annotations);
    tool
}

/// The error code of a failed call: a structured `code` (coder's C2xx), else the kind before
/// the colon of its text (`not-found`, ...).
pub fn error_code(output: &ToolOutput) -> Option<String> {
    if !output.is_error {
        return None;
    }
    if let Some(code) = output
        .structured
        .as_ref()
        .and_then(|s| s.get("code"))
        .and_then(|c| c.as_str())
    {
        return Some(code.to_string());
    }
    let text = output.text_content();
    let kind = text.split_once(": ")?.0;
    (!kind.is_empty() && kind.len() < 40 && !kind.contains(char::is_whitespace))
        .then(|| kind.to_string())
}

/// Maps a tool output to an MCP result.
pub fn to_mcp_result(output: ToolOutput) -> CallToolResult {
    let content = output
        .content
        .into_iter()
        .map(|c| match c {
            Content::Text(text) => ContentBlock::text(text),
            Content::Image { mime, data } => {
                ContentBlock::image(base64::engine::general_purpose::STANDARD.encode(data), mime)
            }
            Content::Resource { uri, mime, data } => {
                ContentBlock::resource(ResourceContents::BlobResourceContents {
                    uri,
                    mime_type: Some(mime.to_string()),
                    blob: base64::engine::general_purpose::STANDARD.encode(data),
                    meta: None,
                })
            }
        })
        .collect();
    let mut result = if output.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    result.structured_content = output.structured;
    result
}

/// A progress sink for the engine's thread and the task that sends its reports to the client.
fn progress_forwarder(
    token: ProgressToken,
    peer: rmcp::Peer<RoleServer>,
) -> (ProgressSink, tokio::task::JoinHandle<()>) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Progress>();
    let forwarder = tokio::spawn(async move {
        while let Some(report) = rx.recv().await {
            #[allow(clippy::cast_precision_loss)]
            let mut param = ProgressNotificationParam::new(token.clone(), report.done as f64)
                .with_message(report.message);
            if let Some(total) = report.total {
                #[allow(clippy::cast_precision_loss)]
                let total = total as f64;
                param = param.with_total(total);
            }
            if peer.notify_progress(param).await.is_err() {
                break;
            }
        }
    });
    let sink: ProgressSink = Arc::new(move |report| {
        let _ = tx.send(report);
    });
    (sink, forwarder)
}

impl ServerHandler for FsgateServer {
    fn get_info(&self) -> ServerConfig {
        // Built when asked: what the server has learned (a model without vision) shows in the
        // next session's instructions.
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
        .with_server_info(Implementation::new("fsgate", env!("CARGO_PKG_VERSION")))
        .with_instructions(self.workspace.prompt())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let tools = self.workspace.tools().iter().map(to_mcp_tool).collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, McpError> {
        if request.method != VISION_METHOD {
            return Err(McpError::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                format!(
                    "fsgate has no method {}; its own method is {VISION_METHOD}",
                    request.method
                ),
                None,
            ));
        }
        let changed = self
            .learn_vision(request.params.as_ref())
            .map_err(|message| McpError::invalid_params(message, None))?;
        if changed {
            tracing::info!("the model cannot take images: images are described from now on");
            let _ = context.peer.notify_tool_list_changed().await;
        }
        Ok(CustomResult::new(
            serde_json::json!({"images": false, "changed": changed}),
        ))
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        context: NotificationContext<RoleServer>,
    ) {
        if notification.method != VISION_METHOD {
            return;
        }
        match self.learn_vision(notification.params.as_ref()) {
            Ok(true) => {
                tracing::info!("the model cannot take images: images are described from now on");
                let _ = context.peer.notify_tool_list_changed().await;
            }
            Ok(false) => {}
            Err(message) => tracing::warn!("{message}"),
        }
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        let args = request
            .arguments
            .map_or(serde_json::Value::Null, serde_json::Value::Object);
        let logged_args = self.call_log.as_ref().map(|_| args.clone());
        let workspace = Arc::clone(&self.workspace);
        let span_name = name.clone();
        let started = std::time::Instant::now();
        // A cancelled request sets the flag the engine checks during long work.
        let flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let ctx = CallContext::with_flag(Arc::clone(&flag));
        // A call that carries a progress token hears how long work advances.
        let (ctx, forwarder) = match context.meta.get_progress_token() {
            Some(progress_token) => {
                let (sink, forwarder) = progress_forwarder(progress_token, context.peer.clone());
                (ctx.with_progress(sink), Some(forwarder))
            }
            None => (ctx, None),
        };
        // A quick call (one small file) runs here: handing it to another thread and back would
        // cost more than the call. Anything that may run long runs on the blocking pool, so this
        // thread stays free to read the cancellation that stops it.
        let outcome = match workspace.call_if_quick(&name, args, &ctx) {
            Ok(outcome) => {
                drop(ctx);
                Ok(outcome)
            }
            Err(args) => {
                let token = context.ct.clone();
                let watcher = tokio::spawn(async move {
                    token.cancelled().await;
                    flag.store(true, std::sync::atomic::Ordering::Relaxed);
                });
                let outcome =
                    tokio::task::spawn_blocking(move || workspace.call_with(&name, args, &ctx))
                        .await
                        .map_err(|e| {
                            McpError::internal_error(format!("the call failed: {e}"), None)
                        });
                watcher.abort();
                outcome
            }
        };
        if let Some(forwarder) = forwarder {
            // The context, and with it the sink, is gone: the forwarder ends once it has sent
            // every report, so they all reach the client before the result.
            let _ = forwarder.await;
        }
        let outcome = outcome?;
        let millis = started.elapsed().as_secs_f64() * 1000.0;
        match outcome {
            Ok(output) => {
                // One event per call, so error frequencies per tool and code are one query.
                let code = error_code(&output);
                tracing::info!(
                    tool = %span_name,
                    duration_ms = millis,
                    outcome = if output.is_error { "error" } else { "ok" },
                    code = code.as_deref().unwrap_or(""),
                    "call"
                );
                let log = self.call_log.as_ref();
                let args = logged_args.as_ref();
                calllog::record_output(log, &span_name, args, millis, &output, code.as_deref());
                Ok(to_mcp_result(output).into())
            }
            Err(unknown) => {
                tracing::info!(tool = %span_name, duration_ms = millis, outcome = "unknown-tool", "call");
                let (log, args) = (self.call_log.as_ref(), logged_args.as_ref());
                calllog::record_unknown(log, &span_name, args, millis, &unknown.to_string());
                Err(McpError::invalid_params(unknown.to_string(), None))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn error_codes_come_from_structured_codes_or_the_kind_prefix() {
        let coder = ToolOutput::json(json!({"code": "C211", "message": "gone"}), true);
        assert_eq!(error_code(&coder).as_deref(), Some("C211"));
        let gg = ToolOutput::error(&fsgate_core::ToolError::not_found("x does not exist"));
        assert_eq!(error_code(&gg).as_deref(), Some("not-found"));
        assert_eq!(error_code(&ToolOutput::text("fine: all good")), None);
    }
}
