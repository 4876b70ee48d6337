//! Embedding fsgate-core in an agent loop, with no async runtime and no protocol in between.
//!
//! A real agent sends the tool definitions to a model, gets tool calls back, runs them and feeds
//! the results in as the next turn. Here the "model" is a script of calls, so the loop runs
//! offline: it opens a workspace in a fresh temporary folder, lists the tools as a model API would
//! receive them, then plays the calls one by one and prints what the model would read.
//!
//! ```sh
//! cargo run -p fsgate-core --example agent_loop
//! ```

use fsgate_core::{Content, Options, Profile, ToolOutput, Workspace};
use serde_json::{Value, json};

/// One tool call as a model emits it: a tool name and JSON arguments.
struct ToolCall {
    name: &'static str,
    arguments: Value,
}

/// Stands in for the model: it answers each turn with its next scripted call, and it can see the
/// previous result (a real model would decide from it; this one only reports it).
struct ScriptedModel {
    calls: std::vec::IntoIter<ToolCall>,
}

impl ScriptedModel {
    fn new() -> Self {
        let call = |name, arguments| ToolCall { name, arguments };
        let calls = vec![
            call(
                "write_file",
                json!({
                    "path": "app/greet.py",
                    "content": "def greet(name):\n    return 'Hello ' + name\n\n\nprint(greet('world'))\n",
                }),
            ),
            call("read_file", json!({"path": "app/greet.py"})),
            // Too little context: the quote occurs twice, and the answer says where.
            call(
                "edit_file",
                json!({"path": "app/greet.py", "old_string": "greet(", "new_string": "welcome("}),
            ),
            call(
                "edit_file",
                json!({
                    "path": "app/greet.py",
                    "old_string": "    return 'Hello ' + name\n",
                    "new_string": "    return f'Hello, {name}!'\n",
                }),
            ),
            call(
                "read_file",
                json!({"path": "app/greet.py", "offset": 2, "limit": 1}),
            ),
            call("search", json!({"query": "def \\w+\\(", "path": "app"})),
            call("tree", json!({})),
            // A tool this profile does not have: the loop turns the refusal into a result.
            call("delete_file", json!({"path": "app/greet.py"})),
        ];
        ScriptedModel {
            calls: calls.into_iter(),
        }
    }

    fn next_call(&mut self, _last_result: Option<&str>) -> Option<ToolCall> {
        self.calls.next()
    }
}

/// What the model reads back: the text blocks, images as a line naming them.
fn render(output: &ToolOutput) -> String {
    let mut parts = Vec::new();
    for block in &output.content {
        match block {
            Content::Text(text) => parts.push(text.clone()),
            Content::Image { mime, data } => {
                parts.push(format!("[image {mime}, {} bytes]", data.len()))
            }
            Content::Resource { uri, mime, .. } => parts.push(format!("[resource {uri} ({mime})]")),
        }
    }
    parts.join("\n")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let workspace = Workspace::open(Options {
        profile: Profile::Gg.into(),
        // Describe images instead of attaching them, for a model without vision.
        no_vision: true,
        ..Options::new(dir.path())
    })?;

    // What goes to the model before the first turn: the tools and the system-prompt fragment.
    println!("tools offered to the model:");
    for tool in workspace.tools() {
        let summary = tool.description.split(". ").next().unwrap_or_default();
        let schema = serde_json::to_string(&tool.input_schema)?;
        println!(
            "  {:<10} {summary}. (schema: {} bytes)",
            tool.name,
            schema.len()
        );
    }
    println!("system prompt: {} characters\n", workspace.prompt().len());

    let mut model = ScriptedModel::new();
    let mut last: Option<String> = None;
    let mut turn = 0;
    while let Some(call) = model.next_call(last.as_deref()) {
        turn += 1;
        println!("#{turn} model calls {} {}", call.name, call.arguments);
        let (is_error, text) = match workspace.call(call.name, call.arguments) {
            Ok(output) => (output.is_error, render(&output)),
            // Only a tool the profile lacks altogether is an Err; tell the model so.
            Err(unknown) => (true, unknown.to_string()),
        };
        let marker = if is_error { "error" } else { "ok" };
        println!("   -> {marker}:");
        for line in text.lines() {
            println!("      {line}");
        }
        last = Some(text);
    }

    // The loop's effect, checked through the same surface.
    let final_text = workspace
        .call("read_file", json!({"path": "app/greet.py"}))?
        .text_content();
    if !final_text.contains("return f'Hello, {name}!'") {
        return Err(format!("the edit did not land:\n{final_text}").into());
    }
    println!("\n{turn} turns; app/greet.py now reads:\n{final_text}");
    Ok(())
}
