//! read_file's text: the window exactly as stored, then (only when the window is partial) a
//! footer saying what is shown and where to continue; or an image and the line describing it.

use crate::ops::read::{Attachment, Cut, ImageRead, ReadOptions, ReadOutcome, TextWindow};
use crate::surface::{Content, ToolOutput};

pub(super) fn render(shown: &str, outcome: ReadOutcome, options: &ReadOptions) -> ToolOutput {
    match outcome {
        ReadOutcome::Text(window) => ToolOutput::text(text(&window, options)),
        // offset and limit describe lines of text; a picture is returned whole.
        ReadOutcome::Image(image) => self::image(shown, image),
    }
}

fn text(window: &TextWindow, options: &ReadOptions) -> String {
    let mut text = String::from_utf8_lossy(&window.bytes).into_owned();
    if let Some(footer) = footer(window, options) {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&footer);
    }
    text
}

/// The line closing a partial window; `None` for a whole-file read.
pub(super) fn footer(w: &TextWindow, options: &ReadOptions) -> Option<String> {
    let ceiling = kib(options.byte_ceiling);
    let (first, last, total) = (w.first, w.last, w.total);
    Some(match w.cut {
        Some(Cut::Lines) => format!(
            "[showing lines {first}-{last} of {total}, cut at the {ceiling} read limit; continue \
             with offset: {}]",
            last + 1
        ),
        Some(Cut::MidLine { shown, len }) => {
            let cut = format!(
                "[showing lines {first}-{first} of {total}, line {first} cut after {shown} of its \
                 {len} bytes by the {ceiling} read limit"
            );
            if first < total {
                format!("{cut}; continue with offset: {}]", first + 1)
            } else {
                format!("{cut}; it is the last line, and search can find text in the rest of it]")
            }
        }
        None if last < total => format!(
            "[showing lines {first}-{last} of {total}; continue with offset: {}]",
            last + 1
        ),
        None if first > 1 => format!("[showing lines {first}-{total} of {total}]"),
        None => return None,
    })
}

fn image(shown: &str, image: ImageRead) -> ToolOutput {
    let dims = match image.dimensions {
        Some((w, h)) => format!("{w}x{h} pixels"),
        None => "dimensions unreadable".to_string(),
    };
    let described = format!(
        "Image {shown}: {}, {dims}, {} bytes",
        image.format.name(),
        image.size
    );
    match image.attachment {
        Attachment::Attached(data) => ToolOutput {
            content: vec![
                Content::Text(format!("{described}.")),
                Content::Image {
                    mime: image.format.mime(),
                    data,
                },
            ],
            is_error: false,
            structured: None,
        },
        Attachment::TooLarge(ceiling) => ToolOutput::text(format!(
            "{described}; not attached: it is over the {} limit for images, so only this \
             description is returned.",
            mib(ceiling)
        )),
        Attachment::NoVision => ToolOutput::text(format!(
            "{described}; not attached: this model cannot see images, so only this description \
             is returned."
        )),
        Attachment::Damaged(why) => ToolOutput::text(format!(
            "Image {shown}: claims to be {}, {} bytes; not attached, as it is damaged or not an \
             image a model can be sent: {why}. Only this description is returned.",
            image.format.name(),
            image.size
        )),
    }
}

fn kib(bytes: usize) -> String {
    format!("{} KiB", bytes / 1024)
}

fn mib(bytes: u64) -> String {
    format!("{} MiB", bytes / (1024 * 1024))
}
