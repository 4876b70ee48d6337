//! Showing a command's output under the cap: whole when it fits, else its head and tail around
//! a line naming the artifact file that holds all of it.

use std::io::Read;
use std::time::Duration;

use super::Ctx;
use crate::access::WriteOptions;
use crate::ops::artifacts;
use crate::ops::shell::Captured;

/// What the model is shown of one output.
pub(super) struct Shown {
    /// The output, or its head and tail around a notice.
    pub text: String,
    /// The artifact holding the whole output, when it was over the cap and could be saved.
    pub output_file: Option<String>,
}

/// "120 s", "1.5 s".
pub(super) fn duration_text(d: Duration) -> String {
    let secs = d.as_secs_f64();
    if secs.fract() == 0.0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{secs:.1} s")
    }
}

/// The output of `captured` as the model sees it; over the cap, the whole output is saved as an
/// artifact named `{prefix}-....log`.
pub(super) fn show(ctx: &Ctx<'_>, captured: &mut Captured, prefix: &str) -> Shown {
    let cap = ctx.config.output_cap_chars;
    if captured.is_whole() {
        let text = String::from_utf8_lossy(captured.head()).into_owned();
        if text.chars().count() <= cap {
            return Shown {
                text,
                output_file: None,
            };
        }
    }
    let total_chars = captured.total_chars();
    let total_bytes = captured.total_bytes();
    let saved = save(ctx, captured, prefix);
    // The notice with the largest number it can hold, to size the head and tail around it.
    let notice = |omitted: u64| match &saved {
        Ok(path) => format!(
            "[… {omitted} characters omitted: the output has {total_chars} characters \
             ({total_bytes} bytes). It is saved whole in {path}: read it with read_files \
             {{\"paths\": [\"{path}\"]}} (a read cut by its budget names the offset to read on \
             from), or search it with exec_shell, e.g. grep -n 'error' {path}]"
        ),
        Err(reason) => format!(
            "[… {omitted} characters omitted: the output has {total_chars} characters \
             ({total_bytes} bytes), and could not be saved whole: {reason}]"
        ),
    };
    let room = cap.saturating_sub(notice(total_chars).chars().count() + 2);
    let head_room = room / 3;
    let tail_room = room - head_room;
    let head = head_text(captured.head(), head_room);
    let tail = tail_text(captured.tail(), tail_room);
    let shown_chars = (head.chars().count() + tail.chars().count()) as u64;
    let omitted = total_chars.saturating_sub(shown_chars);
    let mut text = head;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&notice(omitted));
    text.push('\n');
    text.push_str(&tail);
    Shown {
        text,
        output_file: saved.ok(),
    }
}

/// The first `room` characters of `bytes`, ending at a line end when one is near.
fn head_text(bytes: &[u8], room: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let (kept, _) = crate::text::lines::cut_chars(&text, room);
    match kept.rfind('\n') {
        Some(at) if at + 1 >= kept.len() * 3 / 4 => kept[..at + 1].to_string(),
        _ => kept.to_string(),
    }
}

/// The last `room` characters of `bytes`, starting at a line start when one is near.
fn tail_text(bytes: &[u8], room: usize) -> String {
    // The tail may start inside a character.
    let skip = bytes
        .iter()
        .take(3)
        .take_while(|&&b| (b & 0xC0) == 0x80)
        .count();
    let text = String::from_utf8_lossy(&bytes[skip..]);
    let count = text.chars().count();
    let start = text
        .char_indices()
        .nth(count.saturating_sub(room))
        .map_or(text.len(), |(i, _)| i);
    let kept = &text[start..];
    if start == 0 {
        return kept.to_string();
    }
    match kept.find('\n') {
        Some(at) if at < kept.len() / 4 => kept[at + 1..].to_string(),
        _ => kept.to_string(),
    }
}

/// Saves the whole output in the artifact folder; returns its path as the model names it, or
/// why it could not be saved.
fn save(ctx: &Ctx<'_>, captured: &mut Captured, prefix: &str) -> Result<String, String> {
    let name = artifacts::file_name(prefix, "log");
    let dir = &ctx.config.artifact_dir;
    let raw = dir.join(&name);
    let target = ctx
        .access
        .resolve(&raw.to_string_lossy())
        .map_err(|e| format!("the artifact folder {}: {e}", dir.display()))?;
    let trailer = captured.missing().map(|(bytes, why)| {
        format!("\n[fsgate: the last {bytes} bytes of the output are not in this file: {why}]\n")
    });
    let mut reader = captured
        .full()
        .map_err(|e| format!("reading the output back failed: {e}"))?
        .chain(trailer.as_deref().unwrap_or("").as_bytes());
    crate::access::fs::write_atomic_from(
        ctx.access.place(&target),
        &mut reader,
        WriteOptions {
            create_parents: true,
            ..WriteOptions::default()
        },
    )
    .map_err(|e| format!("writing {} failed: {e}", raw.display()))?;
    artifacts::keep_out_of_git(ctx.access, dir);
    Ok(ctx.access.display(&target.path))
}
