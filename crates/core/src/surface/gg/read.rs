//! read_file's text: the window exactly as stored (UTF-8), or decoded from the file's encoding
//! with one note line naming it; then (only when the window is partial) a footer saying what is
//! shown and where to continue. Or an image and the line describing it, or the one line that
//! describes a binary file.

use crate::ops::image::tokens::ImageRule;
use crate::ops::image::{Change, Fitted};
use crate::ops::read::{
    Attachment, Cut, ImageRead, ReadOptions, ReadOutcome, Source, TextWindow, Total,
};
use crate::surface::{Content, ToolOutput};

/// The most line numbers the note on invalid UTF-8 lists.
const LINES_LISTED: usize = 10;

pub(super) fn render(
    shown: &str,
    outcome: ReadOutcome,
    options: &ReadOptions,
    rule: ImageRule,
) -> ToolOutput {
    match outcome {
        ReadOutcome::Text(window) => ToolOutput::text(text(&window, options)),
        // offset and limit describe lines of text; a picture is returned whole.
        ReadOutcome::Image(image) => self::image(shown, image, rule),
        ReadOutcome::Binary { size } => ToolOutput::text(binary(shown, size)),
    }
}

/// The one line answering a read of a binary file.
pub(super) fn binary(shown: &str, size: u64) -> String {
    format!(
        "Binary file {shown}: {size} bytes, not text (it has a NUL byte in its first 8 KiB), so \
         it is not shown; search skips it too. Inspect it with a tool made for its format (file, \
         xxd, objdump, ...) if you have a shell."
    )
}

fn text(window: &TextWindow, options: &ReadOptions) -> String {
    let (content, notes) = text_parts(window, options);
    join_notes(content, &notes)
}

/// A window's text and the lines fsgate adds after it (the decoding note, the footer).
pub(super) fn text_parts(window: &TextWindow, options: &ReadOptions) -> (String, Vec<String>) {
    let content = String::from_utf8_lossy(&window.bytes).into_owned();
    let notes = [note(&window.source), footer(window, options)]
        .into_iter()
        .flatten()
        .collect();
    (content, notes)
}

/// `content` followed by `notes`, each on a line of its own.
pub(super) fn join_notes(mut text: String, notes: &[String]) -> String {
    for line in notes {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(line);
    }
    text
}

/// The line saying how the text was decoded; `None` for UTF-8 text shown as stored.
fn note(source: &Source) -> Option<String> {
    match source {
        Source::Stored => None,
        Source::Decoded { format, malformed } => {
            let encoding = format.encoding;
            let invalid = if *malformed {
                format!(
                    "; U+FFFD (\u{FFFD}) marks bytes that are not valid {encoding}: an edit keeps \
                     them only on lines it leaves unchanged"
                )
            } else {
                String::new()
            };
            Some(format!(
                "[decoded from {format}{invalid}; edit_file and write_file write it back in \
                 {encoding}]"
            ))
        }
        Source::InvalidUtf8 { lines } => {
            let mut listed: Vec<String> = lines
                .iter()
                .take(LINES_LISTED)
                .map(ToString::to_string)
                .collect();
            if lines.len() > LINES_LISTED {
                listed.push(format!("and {} more", lines.len() - LINES_LISTED));
            }
            let (which, hold) = if lines.len() == 1 {
                ("line", "holds")
            } else {
                ("lines", "hold")
            };
            Some(format!(
                "[{which} {} {hold} bytes that are not valid UTF-8, shown as U+FFFD (\u{FFFD}); \
                 edit_file keeps them: quote the text beside them, not the U+FFFD]",
                listed.join(", ")
            ))
        }
    }
}

/// The line closing a partial window; `None` for a whole-file read. The file's length is
/// `of 1200`, or `of at least 9000` when its count stopped at the budget (lines follow the
/// window then, so there is always an offset to continue with).
pub(super) fn footer(w: &TextWindow, options: &ReadOptions) -> Option<String> {
    let ceiling = kib(options.byte_ceiling);
    let (first, last, total) = (w.first, w.last, w.total);
    let after = |line: u64| match total {
        Total::Exact(total) => line < total,
        Total::AtLeast(_) => true,
    };
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
            if after(first) {
                format!("{cut}; continue with offset: {}]", first + 1)
            } else {
                format!("{cut}; it is the last line, and no read shows the rest of it]")
            }
        }
        None if after(last) => format!(
            "[showing lines {first}-{last} of {total}; continue with offset: {}]",
            last + 1
        ),
        None if first > 1 => format!("[showing lines {first}-{total} of {total}]"),
        None => return None,
    })
}

/// The prose naming an image: `Image mockups/home.png: PNG, 1280x800 pixels, 48213 bytes`.
pub(super) fn image_label(shown: &str, image: &ImageRead) -> String {
    let dims = match image.dimensions {
        Some((w, h)) => format!("{w}x{h} pixels"),
        None => "dimensions unreadable".to_string(),
    };
    format!(
        "Image {shown}: {}, {dims}, {} bytes",
        image.format.name(),
        image.size
    )
}

/// The line an attached image travels with: its label, and when the picture sent is not the
/// file's own bytes, what was sent instead and what it costs (by `rule`):
/// `Image photo.jpg: JPEG, 4032x3024 pixels, 3480123 bytes; attached downscaled to 1237x928
/// pixels (JPEG, 201544 bytes), about 1,531 tokens.`
pub(super) fn attached_line(described: &str, fitted: &Fitted, rule: ImageRule) -> String {
    let about = format!("about {}", rule.tokens_text(fitted.width, fitted.height));
    let (w, h, format, len) = (
        fitted.width,
        fitted.height,
        fitted.format.name(),
        fitted.data.len(),
    );
    match fitted.change {
        Change::None => format!("{described}."),
        Change::Downscaled { .. } => format!(
            "{described}; attached downscaled to {w}x{h} pixels ({format}, {len} bytes), {about}."
        ),
        Change::Reencoded => format!(
            "{described}; attached encoded again as {format} ({len} bytes), as its file is over \
             the image byte limit, {about}."
        ),
    }
}

pub(super) fn image(shown: &str, image: ImageRead, rule: ImageRule) -> ToolOutput {
    let described = image_label(shown, &image);
    match image.attachment {
        Attachment::Attached(fitted) => ToolOutput {
            content: vec![
                Content::Text(attached_line(&described, &fitted, rule)),
                Content::Image {
                    mime: fitted.format.mime(),
                    data: fitted.data,
                },
            ],
            is_error: false,
            structured: None,
        },
        Attachment::Unfit(why) => ToolOutput::text(format!(
            "{described}; not attached: {why}, so only this description is returned."
        )),
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
