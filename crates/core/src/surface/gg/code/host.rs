//! The calling thread's side of a run: each `gg.*` call a program makes arrives here as the
//! function's name and its arguments (JSON, in the tool's own argument names) and is performed
//! by the operation of the tool it stands for, with that tool's limits, paths, ignore rule and
//! errors. The answer goes back as JSON: `{"ok": value}` or `{"error": "kind: message"}`.

use serde_json::{Value, json};

use super::views::{Opened, Views};
use super::{Gg, code_words};
use crate::access::Access;
use crate::error::{Result, ToolError};
use crate::ops::list::{Entry, Kind};
use crate::ops::read::{Attachment, ReadOutcome};
use crate::ops::scan::sinks::lines::SearchOutcome;
use crate::surface::CallContext;
use crate::surface::args::Args;
use crate::surface::gg::{list, read, search, words};

/// What a run's calls share: the surface, the workspace, the call's context, and the views
/// opened so far.
pub(super) struct Host<'a> {
    gg: &'a Gg,
    access: &'a Access,
    ctx: &'a CallContext,
    views: Views,
}

impl<'a> Host<'a> {
    pub(super) fn new(gg: &'a Gg, access: &'a Access, ctx: &'a CallContext) -> Self {
        Host {
            gg,
            access,
            ctx,
            views: Views::new(gg.code),
        }
    }

    /// The views the run opened.
    pub(super) fn finish(self) -> Views {
        self.views
    }

    /// Performs `function` with `args`; the JSON answer for the program.
    pub(super) fn perform(&mut self, function: &str, args: &str) -> String {
        let args: Value = match serde_json::from_str(args) {
            Ok(args) => args,
            Err(e) => return reply(Err(ToolError::invalid(format!("arguments: {e}")))),
        };
        // A call refused for a concurrent change before it wrote runs again from a fresh read,
        // as a tool call does; only that call, never the program.
        let mut attempt = 0;
        let answer = loop {
            crate::access::fs::begin_call();
            let answer = self.call(function, args.clone());
            attempt += 1;
            let conflicted = answer.is_err() && crate::access::fs::call_conflicted_cleanly();
            if !conflicted || attempt >= crate::CONFLICT_RETRIES || self.ctx.is_cancelled() {
                break answer;
            }
            crate::pause_after_conflict(attempt);
        };
        // The run as a whole is never run again: its program may have written before.
        crate::access::fs::begin_call();
        let answer = answer.map_err(|err| {
            let err = err.worded(&words::CODE_NEXT);
            ToolError {
                message: code_words(&err.message),
                ..err
            }
        });
        reply(answer)
    }

    fn call(&mut self, function: &str, args: Value) -> Result<Value> {
        let Some(&(name, tool)) = super::FUNCTIONS.iter().find(|(f, _)| *f == function) else {
            return Err(ToolError::invalid(format!(
                "gg.{function} is not a function of gg"
            )));
        };
        if !self.gg.offers(tool) {
            let (_, denied) = super::functions(self.gg);
            let refusal = denied.into_iter().find(|(f, _)| *f == name);
            return Err(refusal.map_or_else(|| self.gg.denied(tool), |(_, r)| r));
        }
        let shown = format!("gg.{name}");
        let (gg, access, ctx) = (self.gg, self.access, self.ctx);
        match name {
            "files.readFile" => {
                let args = Args::parse(&shown, args, &["path", "offset", "limit"])?;
                let (target, outcome, options) = gg.read(access, &args, ctx)?;
                Ok(match outcome {
                    ReadOutcome::Image(image) => {
                        let label = read::image_label(&target.shown, &image);
                        let (width, height) = match image.dimensions {
                            Some((w, h)) => (json!(w), json!(h)),
                            None => (Value::Null, Value::Null),
                        };
                        let reason = match image.attachment {
                            Attachment::Damaged(why) => format!(
                                "gg.files.readFile gives a program an image's description, not \
                                 its picture; this one is also damaged or not an image a model \
                                 can be sent ({why}), so gg.views.openFile would describe it too"
                            ),
                            Attachment::NoVision => "gg.files.readFile gives a program an \
                                image's description, not its picture; this model cannot see \
                                images, so gg.views.openFile would describe it too"
                                .to_string(),
                            _ => "gg.files.readFile gives a program an image's description, \
                                  not its picture; to look at it, open a view with \
                                  gg.views.openFile(path)"
                                .to_string(),
                        };
                        json!({"image": {
                            "label": label,
                            "path": target.shown,
                            "format": image.format.name(),
                            "size": image.size,
                            "width": width,
                            "height": height,
                            "shown": false,
                            "reason": reason,
                        }})
                    }
                    ReadOutcome::Text(window) => {
                        // The file's text as it is; only fsgate's own lines are reworded.
                        let (content, notes) = read::text_parts(&window, &options);
                        let notes: Vec<String> = notes.iter().map(|n| code_words(n)).collect();
                        json!({"text": read::join_notes(content, &notes)})
                    }
                    ReadOutcome::Binary { size } => {
                        json!({"text": code_words(&read::binary(&target.shown, size))})
                    }
                })
            }
            "views.openFile" => {
                let args = Args::parse(&shown, args, &["path", "offset", "limit"])?;
                let (target, outcome, options) = gg.read(access, &args, ctx)?;
                let outcome = gg.attachable(outcome);
                let opened = Opened {
                    path: target.shown.clone(),
                    options,
                    outcome,
                };
                Ok(json!(self.views.open(opened)?))
            }
            "files.writeFile" => {
                let args = Args::parse(&shown, args, &["path", "content"])?;
                Ok(json!({"text": gg.write(access, &args, ctx)?}))
            }
            "files.editFile" => {
                let args = Args::parse(&shown, args, &["path", "old_string", "new_string"])?;
                Ok(json!({"text": gg.edit(access, &args, ctx)?}))
            }
            "files.listDir" => {
                let args = Args::parse(&shown, args, &["path"])?;
                let base = args.opt_str("path")?.map(str::to_string);
                let entries = gg.list(access, &args)?;
                let items: Vec<Value> = entries.iter().map(|e| entry(base.as_deref(), e)).collect();
                let text = list::render(&entries);
                let note = text
                    .lines()
                    .last()
                    .filter(|l| l.starts_with("[listing cut"));
                Ok(json!({
                    "items": items,
                    "text": text,
                    "note": note.map(code_words),
                }))
            }
            "files.tree" => {
                let args = Args::parse(&shown, args, &["path", "depth"])?;
                let base = args.opt_str("path")?.map(str::to_string);
                let (text, nodes) = gg.tree(access, &args, ctx)?;
                let mut parents: Vec<String> = Vec::new();
                let mut items = Vec::with_capacity(nodes.len());
                for node in &nodes {
                    parents.truncate(node.depth.saturating_sub(1));
                    let mut path = base.clone().unwrap_or_default();
                    for part in parents.iter().chain(std::iter::once(&node.name)) {
                        path = join(&path, part);
                    }
                    let mut item = entry_value(&node.name, &path, &node.kind);
                    item["depth"] = json!(node.depth);
                    if let Some(n) = node.not_shown {
                        item["notShown"] = json!(n);
                    }
                    items.push(item);
                    if node.kind == Kind::Dir {
                        parents.push(node.name.clone());
                    }
                }
                let mut note: Vec<&str> = text
                    .lines()
                    .skip(nodes.len())
                    .filter(|l| l.starts_with('['))
                    .collect();
                if nodes.is_empty() && text.contains("is excluded by the workspace's ignore files")
                {
                    note.push(&text);
                }
                Ok(json!({
                    "items": items,
                    "text": text,
                    "note": if note.is_empty() { Value::Null } else { json!(code_words(&note.join("\n"))) },
                }))
            }
            "files.search" => {
                let args = Args::parse(&shown, args, &["query", "path", "limit"])?;
                let (outcome, limit) = gg.search(access, &args, ctx)?;
                let (query, path) = (args.str("query")?, args.opt_str("path")?);
                let text = search::render(query, path, outcome.clone());
                let (items, mut note) = match &outcome {
                    SearchOutcome::Matches(matches, skipped) => (
                        matches
                            .iter()
                            .map(|m| {
                                let mut item =
                                    json!({"path": m.path, "line": m.line, "text": m.text});
                                if m.cut_chars > 0 {
                                    item["moreChars"] = json!(m.cut_chars);
                                }
                                item
                            })
                            .collect::<Vec<_>>(),
                        skipped
                            .describe()
                            .map(|what| format!("[skipped: {what}]"))
                            .into_iter()
                            .collect::<Vec<_>>(),
                    ),
                    SearchOutcome::IgnoredRoot => (Vec::new(), vec![text.clone()]),
                };
                if items.len() == limit {
                    note.insert(
                        0,
                        format!(
                            "[{limit} matches, the limit: there may be more; narrow the query or \
                             the path, or pass a larger limit (at most {})]",
                            crate::surface::gg::MAX_SEARCH_LIMIT
                        ),
                    );
                }
                Ok(json!({
                    "items": items,
                    "text": text,
                    "note": if note.is_empty() { Value::Null } else { json!(code_words(&note.join("\n"))) },
                }))
            }
            _ => Err(ToolError::invalid(format!(
                "gg.{function} is not a function of gg"
            ))),
        }
    }
}

fn reply(answer: Result<Value>) -> String {
    match answer {
        Ok(value) => json!({"ok": value}).to_string(),
        Err(err) => json!({"error": err.to_string()}).to_string(),
    }
}

fn join(base: &str, name: &str) -> String {
    if base.is_empty() || base == "." {
        name.to_string()
    } else if base.ends_with('/') {
        format!("{base}{name}")
    } else {
        format!("{base}/{name}")
    }
}

fn entry(base: Option<&str>, e: &Entry) -> Value {
    entry_value(&e.name, &join(base.unwrap_or(""), &e.name), &e.kind)
}

fn entry_value(name: &str, path: &str, kind: &Kind) -> Value {
    let mut item = json!({
        "name": name,
        "path": path,
        "kind": match kind {
            Kind::File => "file",
            Kind::Dir => "dir",
            Kind::Symlink(_) => "symlink",
            Kind::Other => "other",
        },
    });
    if let Kind::Symlink(target) = kind {
        item["target"] = json!(target);
    }
    item
}
