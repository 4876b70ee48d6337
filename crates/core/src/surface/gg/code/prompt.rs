//! What the model is told under the code arm: run_code's description (the API in brief), and
//! the system-prompt fragment, which opens with the window gg's opening turn gives (the
//! workspace's tree at depth 2 and the documentation of `gg.files.search`) and documents the
//! API under a "Views" heading. Neither states the line cap: the paging footer of a windowed
//! read carries the file's length and where to continue.

use serde_json::json;

use super::{FUNCTIONS, Gg, functions};
use crate::access::Access;
use crate::surface::CallContext;
use crate::surface::args::Args;

/// Each function's signature and what it gives the program.
const DOCS: [(&str, &str); 7] = [
    (
        "files.readFile",
        "gg.files.readFile(path, {offset, limit}) -> string: a window of the file's lines, as \
         read_file gives them (offset is the 1-based first line; a window that is not the whole \
         file ends with a line saying which lines it shows, of how many, and the offset to \
         continue with). \
         For a PNG, JPEG, GIF or WebP picture it returns {label, path, format, size, width, \
         height, shown: false, reason}: the picture itself reaches you only through a view.",
    ),
    (
        "files.tree",
        "gg.files.tree(path, {depth}) -> entries: [{name, path, kind, depth, notShown?}] of the \
         tree beneath a directory (default: the working directory; depth 2 by default, at most \
         10), under the ignore rule (.gitignore, .ignore, .git/info/exclude; .git left out); \
         entries.text is the tree as text, entries.note says when it was cut (1,000 lines, 16 \
         KiB).",
    ),
    (
        "files.search",
        "gg.files.search(query, {path, limit}) -> matches: [{path, line, text, moreChars?}] of \
         lines matching a Rust regular expression (foo|bar, fn\\s+update, (?i)todo), in path \
         order then line order, under the ignore rule; limit defaults to 50, at most 200; \
         matches.note says when the list may have been cut (narrow the query or path) or the \
         walk passed something over; lines over 200 characters are cut (moreChars says by how \
         much).",
    ),
    (
        "files.writeFile",
        "gg.files.writeFile(path, content) -> string: creates or overwrites a whole file \
         (parents created), atomically; returns what it did.",
    ),
    (
        "files.editFile",
        "gg.files.editFile(path, oldString, newString) -> string: replaces one exact, unique \
         occurrence of oldString; throws no-match when it is absent (read the file again) and \
         not-unique when it occurs several times (add surrounding lines).",
    ),
    (
        "files.listDir",
        "gg.files.listDir(path) -> entries: [{name, path, kind, target?}] of one directory, in \
         path order (kind is file, dir, symlink or other).",
    ),
    (
        "views.openFile",
        "gg.views.openFile(path, {offset, limit}) -> {id, path, kind, window, tokens}: performs \
         the read gg.files.readFile performs and opens a view of it: the view is shown to you \
         with the run's result.",
    ),
];

fn doc(function: &str) -> &'static str {
    DOCS.iter()
        .find(|(f, _)| *f == function)
        .map_or("", |(_, d)| d)
}

/// run_code's description.
pub(super) fn description(gg: &Gg, enabled: &[&str]) -> String {
    let mut out = String::from(
        "Run a JavaScript program against the workspace's files, in a sandbox (no network, \
         processes, clock or file access but gg). What gg.files returns goes to your program, \
         not to you: read, filter and search as much as you need, then open views \
         (gg.views.openFile) of only what you want to read yourself. The result holds your \
         console.log output, the returned value, the views opened, and one line estimating what \
         the run put into your context window. A failed gg call throws an Error whose message \
         starts with its kind (not-found:, invalid-argument:, no-match:, not-unique:, denied:, \
         ...); e.kind holds the kind. Functions:",
    );
    for function in enabled {
        out.push_str("\n- ");
        out.push_str(&super::code_words(doc(function)));
    }
    if enabled.contains(&"views.openFile") && !gg.sees_images() {
        out.push_str(
            "\nReading images is unsupported: a view of a picture describes it (format, size, \
             dimensions) instead of showing it.",
        );
    }
    out
}

/// The prompt's opening: the workspace's tree at depth 2 and the documentation of
/// gg.files.search, for an agent that holds them.
pub(crate) fn opening(gg: &Gg, access: &Access) -> String {
    let mut out = String::from("# Filesystem: responses as code\n");
    if gg.offers("tree") {
        let tree = Args::parse("gg.files.tree", json!({"depth": 2}), &["path", "depth"])
            .and_then(|args| gg.tree(access, &args, &CallContext::default()));
        match tree {
            Ok((text, _)) => out.push_str(&format!(
                "\nThe workspace, as gg.files.tree(\".\", {{depth: 2}}) gives it:\n\n{text}\n"
            )),
            Err(err) => out.push_str(&format!(
                "\nThe workspace's tree could not be read: {err}\n"
            )),
        }
    }
    if gg.offers("search") {
        out.push_str(&format!(
            "\n## gg.files.search\n\n{}\n",
            super::code_words(doc("files.search"))
        ));
    }
    out
}

/// The rest of the prompt: the API and the views.
pub(crate) fn render(gg: &Gg) -> String {
    let (enabled, _) = functions(gg);
    let mut out = String::from(
        "\n## run_code\n\nYou work on files by writing a program: call run_code with code, a \
         JavaScript program (the body of an async function: await freely; return a value to \
         get it back). Paths are relative to the working directory, or absolute. The program \
         has gg.files (results go to the program) and gg.views (what is shown to you), \
         console.log, and performance.now(); nothing else reaches outside it.\n",
    );
    // gg.files.search is documented in the opening already.
    for function in enabled
        .iter()
        .filter(|f| f.starts_with("files.") && **f != "files.search")
    {
        out.push_str("\n- ");
        out.push_str(&super::code_words(doc(function)));
    }
    if enabled.contains(&"files.search") {
        out.push_str("\n- gg.files.search: see above.");
    }
    out.push('\n');
    let absent: Vec<String> = FUNCTIONS
        .iter()
        .map(|(f, _)| *f)
        .filter(|f| !enabled.contains(f))
        .map(|f| format!("gg.{f}"))
        .collect();
    if !absent.is_empty() {
        out.push_str(&format!(
            "\nNot available in this configuration: {} (calling one throws denied:).\n",
            absent.join(", ")
        ));
    }
    out.push_str("\n## Views\n\n");
    if enabled.contains(&"views.openFile") {
        out.push_str(&format!(
            "{}\n\ngg.files.readFile gets bytes for your program; gg.views.openFile shows a file \
             to you. Each call opens a new view, shown after the run's output, headed by its \
             path and window; opening a path again opens a second view. What one view may carry \
             is capped in lines and bytes: a larger window is refused, never cut, and the error \
             names the caps and the window that fits. Every view's cost is estimated in tokens, \
             and the result's last line totals what the run put into your window.\n",
            doc("views.openFile"),
        ));
        if !gg.sees_images() {
            out.push_str("\nReading images is unsupported.\n");
        } else {
            out.push_str(
                "\nA view of a PNG, JPEG, GIF or WebP picture (up to 8 MiB) shows the picture.\n",
            );
        }
    } else {
        out.push_str(
            "gg.views.openFile is not available in this configuration, so a run shows you only \
             its console.log output and its returned value.\n",
        );
    }
    out
}
