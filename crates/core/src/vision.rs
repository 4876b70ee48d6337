//! Whether the model can see images, learned while serving: gg's "learned stage". A harness
//! whose model refused an image-bearing request tells the running server (over MCP, the
//! `fsgate/vision` request; in a program, [`VisionSwitch::turn_off`]); from then on every
//! session of that server describes images instead of attaching them, and its prompts say
//! reading images is unsupported. [`strip_images`] is the other half: it takes the pictures
//! out of the conversation the harness re-sends, keeping every tool result's text and call id.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Map, Value};

/// A server-wide switch: on until a harness learns the model cannot take images. Clones share
/// the one switch, so every workspace opened with a clone (one per HTTP session) sees it.
#[derive(Clone, Debug, Default)]
pub struct VisionSwitch {
    off: Arc<AtomicBool>,
}

impl VisionSwitch {
    /// A switch that is on.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether images may still be attached.
    pub fn is_on(&self) -> bool {
        !self.off.load(Ordering::Relaxed)
    }

    /// Records that the model cannot take images; returns whether this changed anything.
    pub fn turn_off(&self) -> bool {
        !self.off.swap(true, Ordering::Relaxed)
    }
}

/// The text that takes an image's place in a conversation.
pub const STRIPPED_NOTE: &str = "[An image was here. It was removed because this model cannot \
take images; the file it came from is unchanged, and reading it again returns a description \
(format, size, dimensions) instead of the picture.]";

/// Replaces every image block in `conversation` with a text block holding [`STRIPPED_NOTE`],
/// and returns how many it replaced. Everything else is kept as it was, so each tool result
/// keeps its text and its call id, and every assistant tool call still has its result.
///
/// It knows the shapes the common model APIs and MCP give images: a block whose `type` is
/// `image` (Anthropic, MCP), `image_url` (OpenAI chat) or `input_image` (OpenAI responses),
/// and a Gemini part holding `inlineData`/`inline_data` or `fileData`/`file_data` of an image
/// MIME type. A block becomes the same API's text block (`{"type": "text", "text": ...}`, or
/// `{"type": "input_text", ...}` for `input_image`, or `{"text": ...}` for a Gemini part).
///
/// ```
/// use serde_json::json;
/// let mut conversation = json!([
///   {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "m.png"}}]},
///   {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [
///     {"type": "text", "text": "Image m.png: PNG, 8x8 pixels, 120 bytes."},
///     {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}}
///   ]}]}
/// ]);
/// assert_eq!(fsgate_core::vision::strip_images(&mut conversation), 1);
/// let result = &conversation[1]["content"][0];
/// assert_eq!(result["tool_use_id"], "t1");
/// assert_eq!(result["content"][0]["text"], "Image m.png: PNG, 8x8 pixels, 120 bytes.");
/// assert_eq!(result["content"][1]["type"], "text");
/// ```
pub fn strip_images(conversation: &mut Value) -> usize {
    match conversation {
        Value::Array(items) => items
            .iter_mut()
            .map(|item| match replacement(item) {
                Some(text) => {
                    *item = text;
                    1
                }
                None => strip_images(item),
            })
            .sum(),
        Value::Object(map) => map.values_mut().map(strip_images).sum(),
        _ => 0,
    }
}

/// The text block that replaces `item`, when it is an image block.
fn replacement(item: &Value) -> Option<Value> {
    let Value::Object(map) = item else {
        return None;
    };
    let text_block = |kind: &str| {
        let mut block = Map::new();
        block.insert("type".into(), Value::String(kind.into()));
        block.insert("text".into(), Value::String(STRIPPED_NOTE.into()));
        Some(Value::Object(block))
    };
    match map.get("type").and_then(Value::as_str) {
        Some("image" | "image_url") => return text_block("text"),
        Some("input_image") => return text_block("input_text"),
        _ => {}
    }
    let gemini = ["inlineData", "inline_data", "fileData", "file_data"]
        .iter()
        .filter_map(|key| map.get(*key))
        .any(|data| {
            ["mimeType", "mime_type"]
                .iter()
                .filter_map(|key| data.get(*key).and_then(Value::as_str))
                .any(|mime| mime.starts_with("image/"))
        });
    if gemini {
        let mut part = Map::new();
        part.insert("text".into(), Value::String(STRIPPED_NOTE.into()));
        return Some(Value::Object(part));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_switch_is_shared_by_its_clones_and_turns_off_once() {
        let switch = VisionSwitch::new();
        let other = switch.clone();
        assert!(other.is_on());
        assert!(switch.turn_off());
        assert!(!other.is_on());
        assert!(!other.turn_off());
    }

    #[test]
    fn openai_tool_messages_keep_their_call_id_and_text() {
        let mut convo = json!([
            {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": [
                {"type": "text", "text": "Image a.png: PNG"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
            ]},
            {"role": "user", "content": [{"type": "input_image", "image_url": "data:image/png;base64,AAAA"}]}
        ]);
        assert_eq!(strip_images(&mut convo), 2);
        assert_eq!(convo[1]["tool_call_id"], "c1");
        assert_eq!(convo[1]["content"][0]["text"], "Image a.png: PNG");
        assert_eq!(convo[1]["content"][1]["text"], STRIPPED_NOTE);
        assert_eq!(convo[2]["content"][0]["type"], "input_text");
        assert!(!convo.to_string().contains("base64"));
    }

    #[test]
    fn gemini_parts_and_mcp_results_lose_only_their_pictures() {
        let mut convo = json!({"contents": [{"role": "user", "parts": [
            {"functionResponse": {"name": "read_file", "response": {"text": "Image a.png"}}},
            {"inlineData": {"mimeType": "image/png", "data": "AAAA"}},
            {"inlineData": {"mimeType": "application/pdf", "data": "JVBE"}}
        ]}], "mcp": {"content": [{"type": "image", "data": "AAAA", "mimeType": "image/png"}], "isError": false}});
        assert_eq!(strip_images(&mut convo), 2);
        let parts = &convo["contents"][0]["parts"];
        assert_eq!(
            parts[0]["functionResponse"]["response"]["text"],
            "Image a.png"
        );
        assert_eq!(parts[1]["text"], STRIPPED_NOTE);
        assert_eq!(parts[2]["inlineData"]["mimeType"], "application/pdf");
        assert_eq!(convo["mcp"]["content"][0]["type"], "text");
    }
}
