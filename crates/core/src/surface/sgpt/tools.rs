//! The sgpt tools' descriptions and JSON schemas, side by side. The descriptions follow spec
//! 004's, with what this implementation adds (budgets, caps, the result's fields).

use serde_json::{Value, json};

use super::output::duration_text;
use crate::config::sgpt::SgptConfig;

pub(super) struct Tool {
    pub name: &'static str,
    pub description: fn(&SgptConfig) -> String,
    pub read_only: bool,
    pub input: fn() -> Value,
    pub output: fn() -> Value,
}

pub(super) const TOOLS: [Tool; 6] = [
    Tool {
        name: "read_files",
        description: read_files_description,
        read_only: true,
        input: read_files_input,
        output: read_files_output,
    },
    Tool {
        name: "search_lores",
        description: search_lores_description,
        read_only: true,
        input: search_lores_input,
        output: search_lores_output,
    },
    Tool {
        name: "exec_shell",
        description: exec_shell_description,
        read_only: false,
        input: exec_shell_input,
        output: exec_shell_output,
    },
    Tool {
        name: "diff",
        description: diff_description,
        read_only: false,
        input: diff_input,
        output: diff_output,
    },
    Tool {
        name: "replace",
        description: replace_description,
        read_only: false,
        input: replace_input,
        output: replace_output,
    },
    Tool {
        name: "agent",
        description: agent_description,
        read_only: false,
        input: agent_input,
        output: agent_output,
    },
];

fn read_files_description(config: &SgptConfig) -> String {
    format!(
        "Read the contents of one or more files. Returns one entry per path, in request order, \
         each with content or an error (one failing path never hides the others). One call \
         returns at most {} bytes of content in all; a file cut by that budget says so \
         (truncated: true) and names the offset to read the rest from.",
        config.read_budget_bytes
    )
}

fn read_files_input() -> Value {
    json!({
        "type": "object",
        "properties": {
            "paths": {
                "type": "array",
                "items": {"type": "string"},
                "minItems": 1,
                "description": "File paths to read."
            },
            "offset": {
                "type": "integer",
                "minimum": 0,
                "description": "Optional byte offset each path is read from (default 0): the one a cut file's note names."
            }
        },
        "required": ["paths"],
        "additionalProperties": false
    })
}

fn read_files_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "files": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "path": {"type": "string"},
                        "content": {"type": "string"},
                        "error": {"type": "string"},
                        "encoding": {"type": "string"},
                        "truncated": {"type": "boolean"},
                        "note": {"type": "string"}
                    },
                    "required": ["path"]
                }
            }
        },
        "required": ["files"]
    })
}

fn search_lores_description(config: &SgptConfig) -> String {
    let libraries = if config.lore_libraries.is_empty() {
        " No lore library is configured yet.".to_string()
    } else {
        format!(
            " Libraries: {}.",
            config
                .lore_libraries
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    format!(
        "Search the selected lore libraries with a grep-style regular expression. The query is \
         a case-insensitive RE2-style regex (Rust regex syntax), run over each lore's title, \
         description, labels and content. Returns matching lores, best first (title hits, then \
         label, description and content hits, then the number of hits), with title, \
         description, labels, snippets of the matching lines, and the file path to read for \
         the full text.{libraries}"
    )
}

fn search_lores_input() -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": "Case-insensitive Go/RE2 regex, run over title, description, labels and content."
            },
            "top_n": {
                "type": "integer",
                "minimum": 1,
                "maximum": 100,
                "description": "Maximum lores to return; default 10."
            }
        },
        "required": ["query"],
        "additionalProperties": false
    })
}

fn search_lores_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "lores": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "title": {"type": "string"},
                        "description": {"type": "string"},
                        "labels": {"type": "array", "items": {"type": "string"}},
                        "path": {"type": "string"},
                        "matched_in": {"type": "array", "items": {"type": "string"}},
                        "hits": {"type": "integer"},
                        "snippets": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "properties": {
                                    "line": {"type": "integer"},
                                    "text": {"type": "string"}
                                },
                                "required": ["line", "text"]
                            }
                        }
                    },
                    "required": ["title", "description", "labels", "path", "matched_in", "hits", "snippets"]
                }
            },
            "total_matches": {"type": "integer"},
            "warnings": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["lores", "total_matches"]
    })
}

fn exec_shell_description(config: &SgptConfig) -> String {
    format!(
        "Execute a shell command on the user's system, with sh -c, in the workspace root or \
         working_directory (which must lie inside the workspace). Returns combined \
         stdout/stderr, the exit code, and an error when the command failed to start or exited \
         non-zero. Standard input is empty. The command is killed, with everything it started, \
         after {}. Output over {} characters is saved whole to a file: you get its head and \
         tail and output_file, the path to read or grep for the rest.",
        duration_text(config.shell_timeout),
        config.output_cap_chars
    )
}

fn exec_shell_input() -> Value {
    json!({
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The command."},
            "working_directory": {
                "type": "string",
                "description": "Optional; defaults to the cwd (the workspace root)."
            }
        },
        "required": ["command"],
        "additionalProperties": false
    })
}

fn exec_shell_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "exit_code": {"type": ["integer", "null"]},
            "output": {"type": "string"},
            "error": {"type": "string"},
            "note": {"type": "string"},
            "output_file": {"type": "string"}
        },
        "required": ["exit_code", "output"]
    })
}

fn diff_description(_: &SgptConfig) -> String {
    "Edit a file by applying a unified diff. Hunk line numbers are ignored, so they may be \
     wrong or omitted (@@ alone is fine); hunks must carry enough context to anchor uniquely and \
     are applied sequentially, each after the previous one. Every context (' ') and removed \
     ('-') line must equal a line of the file exactly. ---/+++ headers are optional; a diff whose \
     headers name another file of the workspace is refused. If any hunk does not apply, nothing is written and the error \
     names the hunk, the lines it looked for and the closest region of the file. Line endings \
     (CRLF) are kept. Returns the path, the number of hunks applied and the resulting diff."
        .to_string()
}

fn diff_input() -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File to edit."},
            "diff": {"type": "string", "description": "Unified diff."}
        },
        "required": ["path", "diff"],
        "additionalProperties": false
    })
}

fn diff_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "hunks_applied": {"type": "integer"},
            "created": {"type": "boolean"},
            "note": {"type": "string"},
            "written": {"type": "string"},
            "diff": {"type": "string"}
        },
        "required": ["path", "hunks_applied", "diff"]
    })
}

fn replace_description(_: &SgptConfig) -> String {
    "Edit a file by applying exact search/replace patches, sequentially: each patch applies to \
     the result of the previous one. search must occur exactly once unless replace_all is true \
     (then every occurrence is replaced). If any patch fails, nothing is written and the error \
     names the patch index and why (not found, or found N times at which lines). Line endings \
     (CRLF) are kept. Returns the path, the number of patches applied and the resulting diff."
        .to_string()
}

fn replace_input() -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File to edit."},
            "patches": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "properties": {
                        "search": {"type": "string", "description": "Exact text; must occur once unless replace_all."},
                        "replace": {"type": "string", "description": "Replacement."},
                        "replace_all": {"type": "boolean", "description": "Replace every occurrence."}
                    },
                    "required": ["search", "replace"],
                    "additionalProperties": false
                }
            }
        },
        "required": ["path", "patches"],
        "additionalProperties": false
    })
}

fn replace_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "patches_applied": {"type": "integer"},
            "replacements": {"type": "integer"},
            "written": {"type": "string"},
            "diff": {"type": "string"}
        },
        "required": ["path", "patches_applied", "replacements", "diff"]
    })
}

fn agent_description(config: &SgptConfig) -> String {
    let limit = config
        .agent
        .as_ref()
        .map(|a| format!(" It is stopped after {}.", duration_text(a.timeout)))
        .unwrap_or_default();
    format!(
        "Launch a sub-agent for a self-contained task and wait for its final answer. Nothing is \
         shared with it: query must hold all the context, and files are read and injected into \
         its prompt. tools names the tools it is granted; model overrides its model; title \
         names its tab.{limit} Returns the sub-agent's final answer."
    )
}

fn agent_input() -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "The task, with all context — nothing is shared."},
            "title": {"type": "string", "description": "Tab title."},
            "files": {"type": "array", "items": {"type": "string"}, "description": "Paths to inject."},
            "tools": {"type": "array", "items": {"type": "string"}, "description": "Tools to grant."},
            "model": {"type": "string", "description": "Optional model override."}
        },
        "required": ["query"],
        "additionalProperties": false
    })
}

fn agent_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "answer": {"type": "string"},
            "title": {"type": "string"},
            "output_file": {"type": "string"},
            "error": {"type": "string"},
            "exit_code": {"type": ["integer", "null"]},
            "stderr": {"type": "string"}
        },
        "required": ["answer"]
    })
}
