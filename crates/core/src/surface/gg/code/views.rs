//! Views: what a program puts into the model's window. `gg.views.openFile` performs the read
//! `read_file` performs and opens a view of it, keyed by its path; the view caps refuse a window
//! too large for one view (naming the cap and the window that fits) rather than cutting it. The
//! run's result is assembled here: the program's output, then each view (text headed by its
//! path and window, or a picture), then one line totalling what the run put into the window.

use serde_json::{Value, json};

use super::sandbox::{Ended, Outcome};
use super::{code_words, failure, text};
use crate::config::gg::CodeLimits;
use crate::error::{ErrorKind, Result, ToolError};
use crate::ops::read::{Attachment, ReadOptions, ReadOutcome};
use crate::surface::gg::read;
use crate::surface::{Content, ToolOutput};
use crate::text::thousands;
use crate::window::{Band, Ledger};

/// A read made for a view.
pub(super) struct Opened {
    /// The path as the program named it, resolved for showing.
    pub path: String,
    /// The options the read ran with.
    pub options: ReadOptions,
    /// What it found.
    pub outcome: ReadOutcome,
}

/// The views one run opened, in order.
pub(super) struct Views {
    limits: CodeLimits,
    ledger: Ledger,
    /// Each view's blocks, headed by its header line.
    blocks: Vec<Vec<Content>>,
}

impl Views {
    pub(super) fn new(limits: CodeLimits) -> Self {
        Views {
            limits,
            ledger: Ledger::new(limits.image_rule),
            blocks: Vec::new(),
        }
    }

    /// Opens a view of `opened`, or refuses a text window over the caps. Returns what the
    /// program gets: the view's number, path, kind, window and estimated cost.
    pub(super) fn open(&mut self, opened: Opened) -> Result<Value> {
        let Opened {
            path,
            options,
            outcome,
        } = opened;
        let (kind, window, id, content) = match outcome {
            ReadOutcome::Text(w) => {
                let lines = if w.last >= w.first {
                    w.last - w.first + 1
                } else {
                    0
                };
                let bytes = w.bytes.len() as u64;
                if lines > self.limits.view_lines || bytes > self.limits.view_bytes {
                    return Err(self.refusal(&path, &w.bytes, w.first, lines));
                }
                let window = format!("lines {}-{} of {}", w.first, w.last, w.total);
                let (body, notes) = read::text_parts(&w, &options);
                let notes: Vec<String> = notes.iter().map(|n| code_words(n)).collect();
                let body = read::join_notes(body, &notes);
                let id = self
                    .ledger
                    .open(&path, Band::FileView, body.len() as u64, &window);
                ("text", window, id, vec![Content::Text(body)])
            }
            ReadOutcome::Image(image) => {
                let label = read::image_label(&path, &image);
                match image.attachment {
                    Attachment::Attached(fitted) => {
                        // What the view holds is what is sent: the picture as scaled down.
                        let (w, h) = (fitted.width, fitted.height);
                        let window = format!("{}, {w}x{h}", fitted.format.name());
                        let line = read::attached_line(&label, &fitted, self.ledger.rule());
                        let id = self.ledger.open_image(
                            &path,
                            fitted.data.len() as u64,
                            Some((w, h)),
                            &window,
                        );
                        (
                            "image",
                            window,
                            id,
                            vec![
                                Content::Text(line),
                                Content::Image {
                                    mime: fitted.format.mime(),
                                    data: fitted.data,
                                },
                            ],
                        )
                    }
                    other => {
                        // Described, not shown: the description is the view.
                        let described = read::image(
                            &path,
                            crate::ops::read::ImageRead {
                                attachment: other,
                                ..image
                            },
                            self.ledger.rule(),
                        )
                        .text_content();
                        let described = code_words(&described);
                        let id = self.ledger.open(
                            &path,
                            Band::FileView,
                            described.len() as u64,
                            "description",
                        );
                        (
                            "description",
                            "description".to_string(),
                            id,
                            vec![Content::Text(described)],
                        )
                    }
                }
            }
            ReadOutcome::Binary { size } => {
                let described = code_words(&read::binary(&path, size));
                let id =
                    self.ledger
                        .open(&path, Band::FileView, described.len() as u64, "description");
                (
                    "description",
                    "description".to_string(),
                    id,
                    vec![Content::Text(described)],
                )
            }
        };
        let tokens = self.ledger.get(id).map_or(0, |v| v.tokens);
        let header = format!(
            "[view {id}: {path}, {window}; about {} tokens]",
            thousands(tokens)
        );
        // A text view is one block headed by its header; a picture follows its header.
        let blocks = match content.as_slice() {
            [Content::Text(body)] => vec![text(format!("{header}\n{body}"))],
            _ => std::iter::once(text(header)).chain(content).collect(),
        };
        self.blocks.push(blocks);
        Ok(json!({
            "id": id,
            "path": path,
            "kind": kind,
            "window": window,
            "tokens": tokens,
        }))
    }

    /// The refusal of a window of `lines` lines from `first` that is over a cap: names the
    /// caps, what the window would carry, and the window that fits.
    fn refusal(&self, path: &str, bytes: &[u8], first: u64, lines: u64) -> ToolError {
        let (max_lines, max_bytes) = (self.limits.view_lines, self.limits.view_bytes);
        // The most whole lines from `first` that fit both caps.
        let mut fit = 0u64;
        let mut used = 0u64;
        for line in bytes.split_inclusive(|b| *b == b'\n') {
            if fit + 1 > max_lines || used + line.len() as u64 > max_bytes {
                break;
            }
            fit += 1;
            used += line.len() as u64;
        }
        let caps = format!(
            "the view caps are {max_lines} lines (view_max_lines) and {} (view_max_kib)",
            kib(max_bytes)
        );
        let carry = format!(
            "a view of {path} lines {first}-{} would carry {lines} lines and {} bytes",
            first + lines.saturating_sub(1),
            thousands(bytes.len() as u64)
        );
        let next = if fit == 0 {
            format!(
                "line {first} alone is over {}, so no view can show it: read it into the program \
                 with gg.files.readFile(\"{path}\", {{offset: {first}, limit: 1}}) and show a part \
                 of it with console.log",
                kib(max_bytes)
            )
        } else {
            format!(
                "the window that fits is {fit} lines: gg.views.openFile(\"{path}\", {{offset: \
                 {first}, limit: {fit}}}), then go on from offset {}",
                first + fit
            )
        };
        ToolError::new(
            ErrorKind::TooLarge,
            format!("{carry}, over the view caps ({caps}); nothing was opened; {next}"),
        )
    }
}

/// The run's result: its failure (when it failed) first, then its output, its views, and the
/// line totalling what it put into the window.
pub(super) fn result(views: Views, outcome: Outcome, limits: &CodeLimits) -> ToolOutput {
    let Views {
        mut ledger, blocks, ..
    } = views;
    let mut content = Vec::new();
    let error = match &outcome.ended {
        Ended::Returned => None,
        Ended::Failed(text) => Some(text.clone()),
    };
    if let Some(error) = &error {
        content.push(text(error.clone()));
    }
    let mut output = String::new();
    if !outcome.output.is_empty() {
        output.push_str("[console]\n");
        output.push_str(&outcome.output);
        if !output.ends_with('\n') {
            output.push('\n');
        }
    }
    if let Some(value) = &outcome.returned {
        output.push_str("[returned]\n");
        output.push_str(value);
        output.push('\n');
    }
    if !output.is_empty() {
        output.pop();
        ledger.open("(output)", Band::Other, output.len() as u64, "output");
        content.push(text(output));
    }
    let views = blocks.len();
    for view in blocks {
        content.extend(view);
    }
    let b = ledger.breakdown();
    let total = if b.total() == 0 {
        "[this run put nothing into the window]".to_string()
    } else {
        let mut parts = Vec::new();
        if views > 0 {
            let images = if b.images > 0 {
                format!(" ({} of it images)", thousands(b.images))
            } else {
                String::new()
            };
            parts.push(format!(
                "{views} view{} {}{images}",
                if views == 1 { "" } else { "s" },
                thousands(b.file_views + b.images)
            ));
        }
        if b.other > 0 {
            parts.push(format!("output {}", thousands(b.other)));
        }
        format!(
            "[this run put about {} tokens into the window: {}; estimates, at 4 bytes of text a \
             token, {}]",
            thousands(b.total()),
            parts.join(", "),
            limits.image_rule.describe()
        )
    };
    content.push(text(total));
    ToolOutput {
        content,
        is_error: error.is_some(),
        structured: None,
    }
}

/// A failure of the run as its error text.
pub(super) fn failed(kind: ErrorKind, message: impl Into<String>) -> Ended {
    Ended::Failed(failure(kind, message))
}

pub(super) fn kib(bytes: u64) -> String {
    if bytes.is_multiple_of(1024) {
        format!("{} KiB", bytes / 1024)
    } else {
        format!("{bytes} bytes")
    }
}
