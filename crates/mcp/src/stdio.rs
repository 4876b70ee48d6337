//! MCP over a byte stream pair (standard input and output): one JSON-RPC message per line.
//!
//! The framing is rmcp's (a UTF-8 byte order mark and a `\r` before the newline are allowed,
//! empty lines and text that is not JSON are skipped, a notification is never answered), with
//! one difference: every request gets an answer. A line longer than
//! [`MAX_MESSAGE_BYTES`](crate::limit::MAX_MESSAGE_BYTES) is not kept (its start and end are,
//! to find its `id`; the rest is skipped as it arrives) and is answered with a JSON-RPC error
//! naming the limit; well-formed JSON that is not a message this server knows is answered with
//! Invalid Request under its own `id`. Then the next line is read as usual.

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

use crate::limit::{MAX_MESSAGE_BYTES, Oversized};

/// A line buffer that grew past this is given back after its line, so one large message does
/// not keep its memory for the life of the server.
const KEEP_BUFFER: usize = 1024 * 1024;

/// A server transport reading one JSON-RPC message per line from `R` and writing one per line
/// to `W`.
pub struct LineTransport<R, W> {
    read: BufReader<R>,
    /// The line read so far (resumed when a read is cancelled).
    line: Vec<u8>,
    limit: usize,
    /// The line over the limit being skipped, when there is one.
    skipping: Option<Oversized>,
    write: Arc<Mutex<W>>,
    /// Answers this transport owes on its own (to lines it did not pass on), being written.
    answers: tokio::task::JoinSet<()>,
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    /// Reads from `read` and writes to `write`; a line may be up to
    /// [`MAX_MESSAGE_BYTES`] long.
    pub fn new(read: R, write: W) -> Self {
        LineTransport {
            read: BufReader::with_capacity(64 * 1024, read),
            line: Vec::new(),
            limit: MAX_MESSAGE_BYTES,
            skipping: None,
            write: Arc::new(Mutex::new(write)),
            answers: tokio::task::JoinSet::new(),
        }
    }

    /// The same transport with another longest line (for tests).
    pub fn with_limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    /// Reads until a whole line is in `self.line` (`Ok(true)`), a line over the limit has gone
    /// by (`Ok(false)`, answered), or the input ends (`Err(None)`). Cancellation-safe: what was
    /// read stays in `self` for the next call.
    async fn read_line(&mut self) -> Result<bool, Option<std::io::Error>> {
        loop {
            // Decided while the buffer is borrowed, applied after: nothing awaits in between,
            // so a cancelled read loses nothing.
            let (take, ended, step) = {
                let available = match self.read.fill_buf().await {
                    Ok(available) => available,
                    Err(e) => return Err(Some(e)),
                };
                let newline = available.iter().position(|&b| b == b'\n');
                let take = newline.map_or(available.len(), |at| at + 1);
                let chunk = &available[..take];
                let step = if available.is_empty() {
                    Step::End
                } else if let Some(skipped) = self.skipping.as_mut() {
                    skipped.take(chunk);
                    Step::Skipping
                } else if self.line.len() + take > self.limit {
                    // Over the limit: keep only what finds its id, and skip the rest.
                    let mut skipped = Oversized::default();
                    skipped.take(&self.line);
                    skipped.take(chunk);
                    self.skipping = Some(skipped);
                    Step::Over
                } else {
                    self.line.extend_from_slice(chunk);
                    Step::Line
                };
                (take, newline.is_some(), step)
            };
            self.read.consume(take);
            match step {
                Step::End => {
                    if let Some(skipped) = self.skipping.take() {
                        // The input ended inside the over-long line: answer it all the same.
                        self.owe(skipped.answer(true));
                    }
                    return Err(None);
                }
                Step::Line if ended => return Ok(true),
                Step::Line => {}
                Step::Over | Step::Skipping => {
                    if matches!(step, Step::Over) {
                        self.line = Vec::new();
                        tracing::warn!(
                            limit = self.limit,
                            "a JSON-RPC message is longer than the limit; answering it with an \
                             error"
                        );
                    }
                    if ended && let Some(skipped) = self.skipping.take() {
                        self.owe(skipped.answer(true));
                        return Ok(false);
                    }
                }
            }
        }
    }

    /// Writes `answer` in the background, so a read is never held up by it (nor cancelled in
    /// the middle of it).
    fn owe(&mut self, answer: Value) {
        let write = Arc::clone(&self.write);
        self.answers.spawn(async move {
            if let Err(e) = write_line(&write, &answer).await {
                tracing::error!("could not write an answer: {e}");
            }
        });
    }
}

/// What one read of the input did.
enum Step {
    /// The input ended.
    End,
    /// More of the current line was kept.
    Line,
    /// The current line went over the limit with this read.
    Over,
    /// More of a line over the limit went by.
    Skipping,
}

async fn write_line<W: AsyncWrite + Unpin, T: serde::Serialize>(
    write: &Mutex<W>,
    item: &T,
) -> std::io::Result<()> {
    let mut bytes = serde_json::to_vec(item)?;
    bytes.push(b'\n');
    let mut write = write.lock().await;
    write.write_all(&bytes).await?;
    write.flush().await
}

/// What a line holds.
enum Parsed {
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Nothing to pass on or to answer.
    Skip,
    /// Not a message this server knows, with an id to answer under.
    Invalid(Value, String),
}

fn parse(line: &[u8]) -> Parsed {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Parsed::Skip;
    }
    let error = match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line) {
        Ok(message) => return Parsed::Message(Box::new(message)),
        Err(e) => e,
    };
    use serde_json::error::Category;
    if matches!(error.classify(), Category::Syntax | Category::Eof) {
        // Not JSON: there is no id to answer under, and answering could start an error storm
        // with a peer that echoes (rmcp and the other SDKs ignore such input too).
        tracing::debug!("skipping a line that is not JSON: {error}");
        return Parsed::Skip;
    }
    let Ok(value) = serde_json::from_slice::<Value>(line) else {
        return Parsed::Skip;
    };
    match value.get("id") {
        // A notification, or a response (to a request of this server's), is never answered.
        _ if value.get("method").is_none() => {
            tracing::debug!("skipping a response this server does not know: {error}");
            Parsed::Skip
        }
        None => {
            tracing::debug!("skipping a notification this server does not know: {error}");
            Parsed::Skip
        }
        Some(id) => {
            let id = match id {
                Value::String(_) | Value::Number(_) => id.clone(),
                _ => Value::Null,
            };
            Parsed::Invalid(id, error.to_string())
        }
    }
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = Arc::clone(&self.write);
        async move { write_line(&write, &item).await }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            while self.answers.try_join_next().is_some() {}
            match self.read_line().await {
                Ok(true) => {}
                Ok(false) => continue,
                Err(None) => return None,
                Err(Some(e)) => {
                    tracing::error!("could not read from the client: {e}");
                    return None;
                }
            }
            let parsed = parse(&self.line);
            if self.line.capacity() > KEEP_BUFFER {
                self.line = Vec::new();
            } else {
                self.line.clear();
            }
            match parsed {
                Parsed::Message(message) => return Some(*message),
                Parsed::Skip => {}
                Parsed::Invalid(id, why) => self.owe(json!({
                    "jsonrpc": "2.0",
                    "id": id,
                    "error": {
                        "code": -32600,
                        "message": format!("not a JSON-RPC message this server knows: {why}"),
                    }
                })),
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // Every answer owed reaches the client before the end.
        while self.answers.join_next().await.is_some() {}
        self.write.lock().await.flush().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `input` to a transport with a line limit of `limit` and returns what it passed on
    /// (as JSON) and what it answered by itself.
    async fn run(input: Vec<u8>, limit: usize) -> (Vec<Value>, Vec<Value>) {
        let (mut client, server_in) = tokio::io::duplex(1024);
        let (server_out, answers) = tokio::io::duplex(1 << 20);
        let mut transport = LineTransport::new(server_in, server_out).with_limit(limit);
        let feeder = tokio::spawn(async move {
            client.write_all(&input).await.unwrap();
            client.shutdown().await.unwrap();
        });
        let mut passed = Vec::new();
        while let Some(message) = transport.receive().await {
            passed.push(serde_json::to_value(&message).unwrap());
        }
        feeder.await.unwrap();
        transport.close().await.unwrap();
        drop(transport);
        let mut lines = tokio::io::BufReader::new(answers).lines();
        let mut answered = Vec::new();
        while let Some(line) = lines.next_line().await.unwrap() {
            answered.push(serde_json::from_str(&line).unwrap());
        }
        (passed, answered)
    }

    fn ping(id: i64) -> String {
        format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n")
    }

    #[tokio::test]
    async fn a_line_over_the_limit_is_answered_with_its_id_and_the_next_is_served() {
        let mut input = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{{\"x\":\"{}\"}}}}\n",
            "y".repeat(50_000)
        )
        .into_bytes();
        input.extend_from_slice(ping(8).as_bytes());
        let (passed, answered) = run(input, 10_000).await;
        assert_eq!(passed.len(), 1, "{passed:?}");
        assert_eq!(passed[0]["id"], json!(8));
        assert_eq!(answered.len(), 1, "{answered:?}");
        assert_eq!(answered[0]["id"], json!(7));
        assert_eq!(answered[0]["error"]["code"], json!(-32600));
        let message = answered[0]["error"]["message"].as_str().unwrap();
        assert!(message.contains("bytes long"), "{message}");
    }

    #[tokio::test]
    async fn an_id_written_after_the_params_is_found_at_the_end_of_the_line() {
        let mut input = format!(
            "{{\"method\":\"tools/call\",\"params\":{{\"x\":\"{}\"}},\"jsonrpc\":\"2.0\",\"id\":\"late\"}}\r\n",
            "y".repeat(300_000)
        )
        .into_bytes();
        input.extend_from_slice(ping(1).as_bytes());
        let (passed, answered) = run(input, 100_000).await;
        assert_eq!(passed.len(), 1);
        assert_eq!(answered[0]["id"], json!("late"));
    }

    #[tokio::test]
    async fn a_line_without_a_readable_id_is_answered_as_null() {
        let mut input = vec![b'z'; 30_000];
        input.push(b'\n');
        input.extend_from_slice(ping(2).as_bytes());
        let (passed, answered) = run(input, 10_000).await;
        assert_eq!(passed.len(), 1);
        assert_eq!(answered.len(), 1);
        assert_eq!(answered[0]["id"], Value::Null);
    }

    #[tokio::test]
    async fn lines_within_the_limit_pass_and_malformed_requests_are_answered_under_their_id_but_responses_are_not()
     {
        let input = format!(
            "\u{feff}{}\n   \nnot json\n{{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":5}}\n{{\"jsonrpc\":\"1.0\",\"id\":9,\"result\":{{}}}}\n{{\"jsonrpc\":\"1.0\",\"id\":10,\"method\":\"ping\"}}\n{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/unknown\"}}\n{}",
            ping(1).trim_end(),
            ping(4)
        );
        let (passed, answered) = run(input.into_bytes(), 10_000).await;
        // The unknown notification is passed on (the service ignores it), never answered.
        let ids: Vec<_> = passed.iter().map(|m| m["id"].clone()).collect();
        assert_eq!(ids, [json!(1), Value::Null, json!(4)]);
        assert_eq!(passed[1]["method"], json!("notifications/unknown"));
        // The requests are answered under their ids; the malformed response is not answered.
        let mut ids: Vec<_> = answered.iter().filter_map(|m| m["id"].as_i64()).collect();
        ids.sort_unstable();
        assert_eq!(ids, [3, 10], "{answered:?}");
        assert!(answered.iter().all(|m| m["error"]["code"] == json!(-32600)));
    }
}
