//! MCP over streamable HTTP: the same handler as stdio, one workspace per session (so state such
//! as notebook read records, and what the session read and wrote for the stale-write rule of
//! `fsgate_core::session`, stays with its session), behind a bearer token when one is set and
//! with browser `Origin` headers checked.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use fsgate_core::Workspace;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::limit::{MAX_MESSAGE_BYTES, Oversized};
use crate::{FsgateServer, ServeError};

/// The path the MCP endpoint is mounted at.
pub const ENDPOINT: &str = "/mcp";

/// How the HTTP transport listens and whom it lets in.
#[derive(Clone, Debug, Default)]
pub struct HttpOptions {
    /// The bearer token every request must carry; `None` only on a loopback address.
    pub token: Option<String>,
    /// Browser origins allowed besides the loopback ones (`http://localhost:*` and kin).
    pub allowed_origins: Vec<String>,
    /// `Host` headers allowed; empty means loopback names on a loopback bind, any host
    /// otherwise (the token guards those).
    pub allowed_hosts: Vec<String>,
    /// Where every session's calls are recorded (`--call-log`). By default nowhere.
    pub call_log: Option<crate::calllog::CallLog>,
}

/// Serves MCP over streamable HTTP on `listener` until the process ends. `open` opens the
/// workspace of each new session. The bound address is logged.
pub async fn serve_http(
    listener: tokio::net::TcpListener,
    open: impl Fn() -> Result<Workspace, String> + Send + Sync + 'static,
    options: HttpOptions,
) -> Result<(), ServeError> {
    let addr = listener
        .local_addr()
        .map_err(|e| ServeError(format!("cannot read the bound address: {e}")))?;
    if !addr.ip().is_loopback() && options.token.is_none() {
        return Err(ServeError(format!(
            "{addr} is not a loopback address, so a bearer token is required: pass \
             --token-file FILE or set FSGATE_TOKEN"
        )));
    }
    let mut origins: Vec<String> = ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    origins.extend(options.allowed_origins.iter().cloned());
    let mut config = StreamableHttpServerConfig::default()
        .with_allowed_origins(origins)
        .enforce_origin_validation()
        .with_max_request_body_bytes(MAX_MESSAGE_BYTES);
    if !options.allowed_hosts.is_empty() {
        config = config.with_allowed_hosts(options.allowed_hosts.clone());
    } else if !addr.ip().is_loopback() {
        config = config.disable_allowed_hosts();
    }
    let call_log = options.call_log.clone();
    let service = StreamableHttpService::new(
        move || {
            open()
                .map(|ws| {
                    let server = FsgateServer::new(Arc::new(ws));
                    match &call_log {
                        Some(log) => server.with_call_log(log.clone()),
                        None => server,
                    }
                })
                .map_err(std::io::Error::other)
        },
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let token = Arc::new(options.token.clone());
    let router = axum::Router::new()
        .nest_service(ENDPOINT, service)
        .layer(middleware::from_fn(limit_body))
        .layer(middleware::from_fn(session_closed))
        .layer(middleware::from_fn_with_state(token, require_token));
    tracing::info!("serving MCP over HTTP at http://{addr}{ENDPOINT}");
    eprintln!("fsgate: listening on http://{addr}{ENDPOINT}");
    axum::serve(listener, router)
        .await
        .map_err(|e| ServeError(format!("the HTTP server stopped: {e}")))
}

/// Refuses a request without the bearer token (401), comparing in constant time.
async fn require_token(
    State(token): State<Arc<Option<String>>>,
    request: Request,
    next: Next,
) -> Response {
    let Some(expected) = token.as_deref() else {
        return next.run(request).await;
    };
    let given = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    if constant_time_eq(given.as_bytes(), expected.as_bytes()) {
        next.run(request).await
    } else {
        (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "a valid bearer token is required (Authorization: Bearer TOKEN)\n",
        )
            .into_response()
    }
}

/// Answers a request whose body is over [`MAX_MESSAGE_BYTES`] with 413 Payload Too Large and a
/// JSON-RPC error naming the limit (its `id` read from the body's start or end where it can
/// be, else `null`), having read the rest of the body first (up to [`DRAIN_BYTES`]), so a
/// client still sending it hears the answer rather than a reset connection. A body without a
/// declared length is read here, up to the limit, and handed on whole.
async fn limit_body(request: Request, next: Next) -> Response {
    if request.method() != axum::http::Method::POST {
        return next.run(request).await;
    }
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    match declared {
        Some(len) if len <= MAX_MESSAGE_BYTES as u64 => next.run(request).await,
        Some(_) => {
            let (_, body) = request.into_parts();
            too_large(drain(body, Oversized::default()).await)
        }
        None => {
            let (parts, mut body) = request.into_parts();
            let mut kept: Vec<u8> = Vec::new();
            while let Some(data) = next_data(&mut body).await {
                let Ok(data) = data else {
                    return (
                        StatusCode::BAD_REQUEST,
                        "the request body could not be read to its end\n",
                    )
                        .into_response();
                };
                if kept.len() + data.len() > MAX_MESSAGE_BYTES {
                    let mut skipped = Oversized::default();
                    skipped.take(&kept);
                    drop(kept);
                    skipped.take(&data);
                    return too_large(drain(body, skipped).await);
                }
                kept.extend_from_slice(&data);
            }
            next.run(Request::from_parts(parts, Body::from(kept))).await
        }
    }
}

/// How much of a body over the limit is read (and dropped) before it is answered anyway.
pub const DRAIN_BYTES: u64 = 4 * MAX_MESSAGE_BYTES as u64;

/// Reads the rest of `body` into `skipped` (which keeps only its ends), up to [`DRAIN_BYTES`];
/// with whether it was read to its end.
async fn drain(mut body: Body, mut skipped: Oversized) -> (Oversized, bool) {
    while skipped.len() < DRAIN_BYTES {
        match next_data(&mut body).await {
            Some(Ok(data)) => skipped.take(&data),
            Some(Err(_)) => return (skipped, false),
            None => return (skipped, true),
        }
    }
    (skipped, false)
}

/// The next data of `body` (trailers skipped); `None` at its end.
async fn next_data(body: &mut Body) -> Option<Result<Bytes, axum::Error>> {
    use axum::body::HttpBody as _;
    loop {
        let frame =
            std::future::poll_fn(|cx| std::pin::Pin::new(&mut *body).poll_frame(cx)).await?;
        match frame {
            Ok(frame) => {
                if let Ok(data) = frame.into_data() {
                    return Some(Ok(data));
                }
            }
            Err(e) => return Some(Err(e)),
        }
    }
}

/// 413 with the JSON-RPC error answering the body `skipped` kept the ends of.
fn too_large((skipped, whole): (Oversized, bool)) -> Response {
    tracing::warn!(
        bytes = skipped.len(),
        limit = MAX_MESSAGE_BYTES,
        "an HTTP request body is longer than the limit; answering it with 413"
    );
    (
        StatusCode::PAYLOAD_TOO_LARGE,
        [(header::CONTENT_TYPE, "application/json")],
        skipped.answer(whole).to_string(),
    )
        .into_response()
}

/// A session closed with DELETE is answered 204 No Content: the request is complete, not
/// merely accepted (clients treat 202 there as a failed close).
async fn session_closed(request: Request, next: Next) -> Response {
    let closing = request.method() == axum::http::Method::DELETE;
    let mut response = next.run(request).await;
    if closing && response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::NO_CONTENT;
    }
    response
}

/// Whether `a` equals `b`, taking the same time wherever they differ.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    let mut diff = a.len() ^ b.len();
    for (i, &byte) in b.iter().enumerate() {
        diff |= usize::from(a.get(i).copied().unwrap_or(0) ^ byte);
    }
    diff == 0
}

/// Parses `ADDR:PORT` (e.g. `127.0.0.1:8080`, `[::1]:0`).
pub fn parse_addr(text: &str) -> Result<SocketAddr, String> {
    text.parse().map_err(|e| {
        format!("--http {text:?} is not an address and port ({e}); pass e.g. 127.0.0.1:8080")
    })
}

#[cfg(test)]
mod tests {
    use super::constant_time_eq;

    #[test]
    fn tokens_compare_whole() {
        assert!(constant_time_eq(b"secret", b"secret"));
        assert!(!constant_time_eq(b"secre", b"secret"));
        assert!(!constant_time_eq(b"secretx", b"secret"));
        assert!(!constant_time_eq(b"", b"secret"));
        assert!(!constant_time_eq(b"Secret", b"secret"));
    }
}
