//! gg's second arm, responses as code: one tool, `run_code`, runs a JavaScript program against
//! `gg.files` (the file tools as functions, whose results go to the program, not the model) and
//! `gg.views` (what a program shows the model). The program runs in a sandbox of its own thread
//! (`sandbox`); every `gg.*` call it makes is performed here, on the calling thread, by the same
//! operation the tool arm runs (`host`); what it opens into the window is a view, bounded by the
//! view caps and costed (`views`).

mod host;
mod prompt;
mod sandbox;
mod views;

use serde_json::{Value, json};

use super::Gg;
use crate::access::Access;
use crate::error::{ErrorKind, ToolError};
use crate::surface::args::Args;
use crate::surface::{CallContext, Content, ToolDef, ToolOutput};

pub(super) use prompt::{opening, render as prompt};

/// The code arm's one tool.
pub(super) const TOOL: &str = "run_code";

/// The functions of the API, each with the tool whose operation it runs (and whose capability
/// and allowlist entry decide whether it exists).
pub(super) const FUNCTIONS: [(&str, &str); 7] = [
    ("files.readFile", "read_file"),
    ("files.tree", "tree"),
    ("files.search", "search"),
    ("files.writeFile", "write_file"),
    ("files.editFile", "edit_file"),
    ("files.listDir", "list_dir"),
    ("views.openFile", "read_file"),
];

/// The tool arm's names, and what the code arm calls them, for texts shared by both arms.
const RENAMES: [(&str, &str); 6] = [
    ("read_file", "gg.files.readFile"),
    ("write_file", "gg.files.writeFile"),
    ("edit_file", "gg.files.editFile"),
    ("list_dir", "gg.files.listDir"),
    ("old_string", "oldString"),
    ("new_string", "newString"),
];

/// `text` with the tool arm's names put as the code arm calls them (whole words only).
pub(super) fn code_words(text: &str) -> String {
    let mut out = text.to_string();
    for (tool, function) in RENAMES {
        let mut result = String::with_capacity(out.len());
        let mut rest = out.as_str();
        while let Some(at) = rest.find(tool) {
            let before = rest[..at].chars().next_back();
            let after = rest[at + tool.len()..].chars().next();
            let word =
                |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.');
            result.push_str(&rest[..at]);
            if word(before) || word(after) {
                result.push_str(tool);
            } else {
                result.push_str(function);
            }
            rest = &rest[at + tool.len()..];
        }
        result.push_str(rest);
        out = result;
    }
    out
}

/// The functions that exist under `gg`'s configuration, and the refusal each missing one
/// throws.
fn functions(gg: &Gg) -> (Vec<&'static str>, Vec<(&'static str, ToolError)>) {
    let enabled: Vec<&'static str> = FUNCTIONS
        .iter()
        .filter(|(_, tool)| gg.offers(tool))
        .map(|(function, _)| *function)
        .collect();
    let offered = if enabled.is_empty() {
        "it has no gg functions".to_string()
    } else {
        let names: Vec<String> = enabled.iter().map(|f| format!("gg.{f}")).collect();
        format!("the functions offered are {}", names.join(", "))
    };
    let denied = FUNCTIONS
        .iter()
        .filter(|(_, tool)| !gg.offers(tool))
        .map(|(function, tool)| {
            (
                *function,
                gg.denial(tool, &format!("gg.{function}"), &offered),
            )
        })
        .collect();
    (enabled, denied)
}

/// The code arm's tool list: run_code, when any function exists.
pub(super) fn tools(gg: &Gg) -> Vec<ToolDef> {
    if gg.active.is_empty() {
        return Vec::new();
    }
    let (enabled, _) = functions(gg);
    let writes = enabled
        .iter()
        .any(|f| matches!(*f, "files.writeFile" | "files.editFile"));
    vec![ToolDef {
        name: TOOL,
        description: prompt::description(gg, &enabled),
        input_schema: json!({
            "type": "object",
            "properties": {
                "code": {
                    "type": "string",
                    "description": "A JavaScript program (the body of an async function: use await freely, and return a value to get it back). It calls gg.files.* and gg.views.*; console.log output and the returned value come back with the views it opened."
                }
            },
            "required": ["code"],
            "additionalProperties": false,
        }),
        output_schema: None,
        read_only: !writes,
        destructive: writes,
    }]
}

/// Runs one program.
pub(super) fn call(gg: &Gg, access: &Access, args: Value, ctx: &CallContext) -> ToolOutput {
    let code =
        match Args::parse(TOOL, args, &["code"]).and_then(|a| a.str("code").map(str::to_string)) {
            Ok(code) => code,
            Err(err) => return ToolOutput::error(&err),
        };
    if code.trim().is_empty() {
        return ToolOutput::error(&ToolError::invalid(
            "code is empty; pass a JavaScript program, e.g. \
             return (await gg.files.search(\"TODO\")).length",
        ));
    }
    let (enabled, denied) = functions(gg);
    let setup = json!({
        "enabled": enabled,
        "denied": denied.into_iter().map(|(f, refusal)| (f.to_string(), Value::String(refusal.to_string()))).collect::<serde_json::Map<String, Value>>(),
    })
    .to_string();
    let mut host = host::Host::new(gg, access, ctx);
    let limits = gg.code;
    let outcome = sandbox::run(&code, &setup, &limits, ctx, |function, args| {
        host.perform(function, args)
    });
    views::result(host.finish(), outcome, &limits)
}

/// A run's failure as the error text its result starts with.
pub(super) fn failure(kind: ErrorKind, message: impl Into<String>) -> String {
    ToolError::new(kind, message).to_string()
}

/// One text block.
pub(super) fn text(text: impl Into<String>) -> Content {
    Content::Text(text.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_become_function_names_as_whole_words_only() {
        assert_eq!(
            code_words("re-read it with read_file, then edit_file (old_string); my_read_file x"),
            "re-read it with gg.files.readFile, then gg.files.editFile (oldString); my_read_file x"
        );
        assert_eq!(
            code_words("check the path with list_dir"),
            "check the path with gg.files.listDir"
        );
    }
}
