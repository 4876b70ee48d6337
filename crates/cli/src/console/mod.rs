//! `fsgate console`: a local web page, served on loopback only, with the configuration editor
//! and the live call log of a running server.
//!
//! The page (plain HTML and JavaScript in `assets/`, compiled into the binary) talks to a small
//! JSON API:
//!
//! - `GET /api/config`: the file being edited, its profile, the editor's form (gg), the
//!   capability groups and read modes, and the problems of the file as it stands;
//! - `POST /api/validate`: `{profile, form}` or `{profile, text}`, answered with the TOML text
//!   the form makes and every problem the profile's own validation (`ProfileConfig::parse`,
//!   the code `serve --config` runs) finds in it;
//! - `POST /api/save`: the same, written atomically to the file when there is no problem, and
//!   refused with the problems (HTTP 422) otherwise;
//! - `GET /api/log?offset=N`: the call-log lines written since byte `N`, and the next offset.
//!
//! Requests must name a loopback `Host` (against DNS rebinding), and a request that changes
//! anything must come from the page's own origin, so another site open in the same browser
//! cannot drive the API.

mod gg;

use std::io::{Read as _, Seek as _, SeekFrom};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context as _;
use axum::Router;
use axum::body::Body;
use axum::extract::{RawQuery, Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use fsgate_core::ProfileConfig;
use fsgate_core::access::fs::{self as afs, Place, WriteOptions};
use fsgate_core::config::ConfigError;
use serde_json::{Value, json};

use crate::cli::{ConsoleArgs, Profile};
use crate::run::Outcome;

const INDEX_HTML: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const STYLE_CSS: &str = include_str!("assets/style.css");

/// The most call-log bytes one poll returns; the page asks again for the rest.
const LOG_CHUNK: u64 = 1 << 20;

/// What the console serves.
struct Console {
    config: PathBuf,
    profile: Profile,
    call_log: Option<PathBuf>,
}

/// Runs `fsgate console` until the process is stopped.
pub fn run(args: ConsoleArgs) -> anyhow::Result<Outcome> {
    let addr: SocketAddr = match args.listen.parse() {
        Ok(addr) => addr,
        Err(e) => {
            return Ok(Outcome::Usage(format!(
                "--listen {:?} is not an address and port ({e}); pass e.g. 127.0.0.1:7420",
                args.listen
            )));
        }
    };
    if !addr.ip().is_loopback() {
        return Ok(Outcome::Usage(format!(
            "--listen {addr} is not a loopback address; the console edits files on this machine \
             and is served on loopback only (127.0.0.1 or [::1])"
        )));
    }
    let profile = args
        .profile
        .unwrap_or_else(|| default_profile(&args.config));
    let console = Arc::new(Console {
        config: args.config,
        profile,
        call_log: args.call_log,
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let listener = match runtime.block_on(tokio::net::TcpListener::bind(addr)) {
        Ok(listener) => listener,
        Err(e) => return Ok(Outcome::Usage(format!("cannot listen on {addr}: {e}"))),
    };
    let bound = listener.local_addr().context("reading the bound address")?;
    eprintln!("fsgate: console at http://{bound}/");
    runtime
        .block_on(async { axum::serve(listener, router(console)).await })
        .context("the console's HTTP server stopped")?;
    Ok(Outcome::Ok)
}

fn router(console: Arc<Console>) -> Router {
    Router::new()
        .route(
            "/",
            get(|| async { asset("text/html; charset=utf-8", INDEX_HTML) }),
        )
        .route(
            "/app.js",
            get(|| async { asset("text/javascript; charset=utf-8", APP_JS) }),
        )
        .route(
            "/style.css",
            get(|| async { asset("text/css; charset=utf-8", STYLE_CSS) }),
        )
        .route("/api/config", get(load))
        .route("/api/validate", post(validate))
        .route("/api/save", post(save))
        .route("/api/log", get(log))
        .layer(middleware::from_fn(guard))
        .with_state(console)
}

/// gg unless the file is YAML, as `check-config` decides.
fn default_profile(path: &Path) -> Profile {
    match path.extension().and_then(|e| e.to_str()) {
        Some("yaml" | "yml") => Profile::Coder,
        _ => Profile::Gg,
    }
}

/// Refuses a `Host` that is not loopback, and a changing request from another origin.
async fn guard(request: Request, next: Next) -> Response {
    let headers = request.headers();
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    if !loopback_host(host) {
        return problem(
            StatusCode::FORBIDDEN,
            &format!("the console answers loopback hosts only, not {host:?}"),
        );
    }
    if request.method() != Method::GET
        && let Some(origin) = headers.get(header::ORIGIN)
        && origin.to_str().ok() != Some(format!("http://{host}").as_str())
    {
        return problem(
            StatusCode::FORBIDDEN,
            "a change must come from the console's own page",
        );
    }
    next.run(request).await
}

/// Whether a `Host` header names this machine: 127.0.0.1, localhost or [::1], with a port or not.
fn loopback_host(host: &str) -> bool {
    let name = match host.rsplit_once(':') {
        Some((name, port)) if !name.is_empty() && port.chars().all(|c| c.is_ascii_digit()) => name,
        _ => host,
    };
    matches!(name, "localhost" | "[::1]")
        || name
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback())
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body,
    )
        .into_response()
}

fn json_response(status: StatusCode, value: &Value) -> Response {
    let mut response = Response::new(Body::from(value.to_string()));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    headers.insert(
        header::CACHE_CONTROL,
        header::HeaderValue::from_static("no-store"),
    );
    response
}

fn problem(status: StatusCode, message: &str) -> Response {
    json_response(status, &json!({ "error": message }))
}

/// The file's text, or `None` when there is no file yet.
fn read_text(path: &Path) -> Result<Option<String>, String> {
    match afs::read_all(Place::Ambient(path)) {
        Ok((bytes, _)) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| format!("{} is not UTF-8 text", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// Every problem `profile`'s own validation finds in `text`, as the server would refuse it.
fn check(console: &Console, profile: Profile, text: &str) -> Result<(), ConfigError> {
    let name = console.config.display().to_string();
    ProfileConfig::parse(profile, text, &name).map(drop)
}

/// The checked answer for `text`: the text, its problems and the refusal's headline.
fn checked(console: &Console, profile: Profile, text: String) -> Value {
    let (problems, summary) = match check(console, profile, &text) {
        Ok(()) => (Vec::new(), format!("{}: ok", console.config.display())),
        Err(e) => {
            let problems = e
                .problems
                .iter()
                .map(|p| json!({ "key": p.key, "message": p.message }))
                .collect();
            let summary = e.to_string().lines().next().unwrap_or_default().to_string();
            (problems, summary)
        }
    };
    // The form is gg's; other profiles' files are edited as text.
    let form = if profile == Profile::Gg {
        gg::form_from_text(&text)
    } else {
        None
    };
    json!({
        "profile": profile.name(),
        "text": text,
        "ok": problems.is_empty(),
        "problems": problems,
        "summary": summary,
        "form": form,
    })
}

async fn load(State(console): State<Arc<Console>>) -> Response {
    let existing = match read_text(&console.config) {
        Ok(text) => text,
        Err(message) => return problem(StatusCode::INTERNAL_SERVER_ERROR, &message),
    };
    let exists = existing.is_some();
    let text = match existing {
        Some(text) => text,
        None if console.profile == Profile::Gg => gg::render(&gg::default_form()),
        None => String::new(),
    };
    let mut answer = checked(&console, console.profile, text);
    answer["path"] = json!(console.config.display().to_string());
    answer["exists"] = json!(exists);
    answer["callLog"] = json!(console.call_log.as_ref().map(|p| p.display().to_string()));
    answer["profiles"] = json!(Profile::ALL.map(Profile::name));
    answer["gg"] = gg::meta();
    json_response(StatusCode::OK, &answer)
}

/// The profile and the TOML text a validate or save request describes, or why the request
/// is malformed (answered with 400).
fn request_text(console: &Console, body: &str) -> Result<(Profile, String), String> {
    let request: Value =
        serde_json::from_str(body).map_err(|e| format!("the request is not JSON: {e}"))?;
    let profile = match request["profile"].as_str() {
        None => console.profile,
        Some(name) => {
            Profile::from_name(name).ok_or_else(|| format!("{name:?} is not a profile"))?
        }
    };
    let text = match (&request["form"], request["text"].as_str()) {
        (form @ Value::Object(_), _) if profile == Profile::Gg => gg::render(form),
        (_, Some(text)) => text.to_string(),
        _ => return Err("send {\"form\": {...}} (gg) or {\"text\": \"...\"}".to_string()),
    };
    Ok((profile, text))
}

async fn validate(State(console): State<Arc<Console>>, body: String) -> Response {
    match request_text(&console, &body) {
        Ok((profile, text)) => json_response(StatusCode::OK, &checked(&console, profile, text)),
        Err(message) => problem(StatusCode::BAD_REQUEST, &message),
    }
}

async fn save(State(console): State<Arc<Console>>, body: String) -> Response {
    let (profile, text) = match request_text(&console, &body) {
        Ok(request) => request,
        Err(message) => return problem(StatusCode::BAD_REQUEST, &message),
    };
    let mut answer = checked(&console, profile, text);
    if answer["ok"] != json!(true) {
        answer["saved"] = json!(false);
        return json_response(StatusCode::UNPROCESSABLE_ENTITY, &answer);
    }
    let bytes = answer["text"]
        .as_str()
        .unwrap_or_default()
        .as_bytes()
        .to_vec();
    let path = console.config.clone();
    let written = tokio::task::spawn_blocking(move || {
        afs::write_atomic(Place::Ambient(&path), &bytes, WriteOptions::default())
    })
    .await;
    match written {
        Ok(Ok(_)) => {
            tracing::info!(path = %console.config.display(), "configuration saved");
            answer["saved"] = json!(true);
            answer["path"] = json!(console.config.display().to_string());
            json_response(StatusCode::OK, &answer)
        }
        Ok(Err(e)) => problem(
            StatusCode::INTERNAL_SERVER_ERROR,
            &format!("cannot write {}: {e}", console.config.display()),
        ),
        Err(e) => problem(
            StatusCode::INTERNAL_SERVER_ERROR,
            &format!("the save failed: {e}"),
        ),
    }
}

async fn log(State(console): State<Arc<Console>>, RawQuery(query): RawQuery) -> Response {
    let Some(path) = console.call_log.clone() else {
        return json_response(
            StatusCode::OK,
            &json!({ "path": null, "entries": [], "offset": 0, "reset": false }),
        );
    };
    let offset = query
        .as_deref()
        .unwrap_or("")
        .split('&')
        .find_map(|pair| pair.strip_prefix("offset="))
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or(0);
    let read = tokio::task::spawn_blocking(move || read_log(&path, offset)).await;
    match read {
        Ok(Ok(answer)) => json_response(StatusCode::OK, &answer),
        Ok(Err(message)) => problem(StatusCode::INTERNAL_SERVER_ERROR, &message),
        Err(e) => problem(StatusCode::INTERNAL_SERVER_ERROR, &format!("{e}")),
    }
}

/// The whole lines of the call log from byte `offset` on. A log shorter than `offset` was
/// replaced, so it is read again from the start (`reset`).
fn read_log(path: &Path, offset: u64) -> Result<Value, String> {
    let shown = path.display().to_string();
    let (mut file, meta) = match afs::open_regular(Place::Ambient(path)) {
        Ok(opened) => opened,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(json!({ "path": shown, "entries": [], "offset": 0, "reset": offset > 0 }));
        }
        Err(e) => return Err(format!("cannot read the call log {shown}: {e}")),
    };
    let reset = meta.len < offset;
    let start = if reset { 0 } else { offset };
    let mut buf = Vec::new();
    file.seek(SeekFrom::Start(start))
        .and_then(|_| file.take(LOG_CHUNK).read_to_end(&mut buf))
        .map_err(|e| format!("cannot read the call log {shown}: {e}"))?;
    // A line still being written waits for the next poll.
    let whole = buf.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let entries: Vec<Value> = String::from_utf8_lossy(&buf[..whole])
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).unwrap_or_else(|_| json!({ "unreadable": line })))
        .collect();
    Ok(json!({
        "path": shown,
        "entries": entries,
        "offset": start + whole as u64,
        "reset": reset,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_hosts_are_answered() {
        for host in [
            "127.0.0.1:7420",
            "localhost:80",
            "[::1]:9",
            "127.0.0.1",
            "localhost",
        ] {
            assert!(loopback_host(host), "{host}");
        }
        for host in [
            "example.com",
            "evil.localhost.example:80",
            "10.0.0.1:7420",
            "",
            "[::2]:1",
        ] {
            assert!(!loopback_host(host), "{host}");
        }
    }
}
