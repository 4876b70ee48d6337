//! Every error names only tools the model has. Engine and access errors recommend a next step
//! (look at the folder a path should be in, list a folder's entries) without knowing the
//! profile; each surface says that step with its own tools. A model that follows the text of a
//! failed read, write, edit, listing or walk in any profile is never sent to another profile's
//! tool.

use serde_json::Value;

use crate::support::{ALL, Fx, P, all_text, list, mutations, read, walks};

/// Tool names that are unmistakably names (an underscore or a hyphen), across all profiles.
const TOOL_NAMES: [&str; 18] = [
    "list_dir",
    "list_directory",
    "list-folder",
    "read_file",
    "read-file",
    "read_files",
    "write_file",
    "edit_file",
    "create-file",
    "update-file",
    "delete-file",
    "grep_search",
    "notebook_edit",
    "append_file",
    "search_files",
    "exec_shell",
    "search_lores",
    "file_search",
];

/// The names of `text` that are a tool of some profile but not of the workspace's.
fn foreign_tools(fx: &Fx, text: &str) -> Vec<&'static str> {
    let own: Vec<&str> = fx.ws.tools().into_iter().map(|t| t.name).collect();
    TOOL_NAMES
        .into_iter()
        .filter(|name| !own.contains(name))
        .filter(|name| {
            text.match_indices(name).any(|(at, _)| {
                let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
                let before = text[..at].chars().next_back().is_none_or(|c| !word(c));
                let after = text[at + name.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| !word(c));
                before && after
            })
        })
        .collect()
}

/// The calls that meet a parent that is a file, a folder where a file is wanted, and a missing
/// path.
fn failing_calls(p: P) -> Vec<(&'static str, Value)> {
    let mut calls = Vec::new();
    for path in ["bait.txt/x", "sub", "nope/x"] {
        calls.push(read(p, path));
        calls.extend(mutations(p, path));
        calls.extend(list(p, path));
        calls.extend(walks(p, path));
    }
    calls
}

#[test]
fn failed_calls_recommend_only_the_profiles_own_tools() {
    for p in ALL {
        let fx = Fx::new(p);
        for (tool, args) in failing_calls(p) {
            let text = all_text(&fx.call(tool, args.clone()));
            let foreign = foreign_tools(&fx, &text);
            assert!(
                foreign.is_empty(),
                "{p:?} {tool} {args}: the answer names {foreign:?}, tools this profile does not \
                 have:\n{text}"
            );
        }
    }
}

/// qwen answers these with Qwen Code's own texts (`Error checking existing file …`), which
/// recommend nothing; the other profiles end with their listing step.
#[test]
fn a_parent_that_is_a_file_is_answered_with_the_profiles_listing_step() {
    let expected = [
        (P::Gg, "check the path with list_dir"),
        (P::Coder, "check the path with list-folder"),
        (P::Pico, "check the path with list_dir"),
        (P::Sgpt, "check the path (exec_shell: ls)"),
        (P::Native, "check the path with glob or list_dir"),
    ];
    for (p, step) in expected {
        let fx = Fx::new(p);
        let texts: Vec<String> = mutations(p, "bait.txt/x")
            .into_iter()
            .chain([read(p, "bait.txt/x")])
            .map(|(tool, args)| all_text(&fx.call(tool, args)))
            .collect();
        assert!(
            texts.iter().any(|t| t.contains(step)),
            "{p:?}: no failed call says {step:?}:\n{}",
            texts.join("\n")
        );
        assert!(
            texts
                .iter()
                .all(|t| !t.contains("check the path by listing its folder")),
            "{p:?}: a failed call kept the unworded step:\n{}",
            texts.join("\n")
        );
    }
}
