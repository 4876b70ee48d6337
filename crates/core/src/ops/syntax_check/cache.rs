//! The trees of recently checked texts, so that the next change of the same content is parsed
//! incrementally: an agent's edits come one after another, each made to what the last one
//! wrote, and re-parsing only around the change costs a fraction of a full parse.
//!
//! Shared by every thread (a call may run on any worker), keyed by content: a text is found
//! only when the `before` of a change is byte for byte a text checked earlier. Bounded in
//! entries and in the bytes of text kept; the least recently used entry goes first.

use std::sync::{Arc, Mutex, MutexGuard};

use tree_sitter::{InputEdit, Point, Tree};

use super::lang::Lang;
use super::parse::Found;

/// The most texts kept.
const ENTRIES: usize = 16;
/// The most bytes of text kept, all entries together. A tree takes some thirty times the bytes
/// of its text (measured on Rust sources), so this keeps the cache near 15 MiB at most.
const BYTES: usize = 512 << 10;
/// The largest text kept: a larger file is parsed whole at each check.
const LARGEST: usize = 256 << 10;

struct Entry {
    lang: Lang,
    text: Arc<[u8]>,
    tree: Tree,
    errors: Arc<[Found]>,
}

/// Least recently used first.
static ENTRIES_KEPT: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

fn entries() -> MutexGuard<'static, Vec<Entry>> {
    // A panic while the lock was held left nothing half-changed that matters: a cache.
    ENTRIES_KEPT.lock().unwrap_or_else(|e| e.into_inner())
}

/// A text checked earlier: its tree and its errors.
pub(super) struct Known {
    pub tree: Tree,
    pub errors: Arc<[Found]>,
}

/// The tree and errors of `text` as `lang`, if it was checked recently.
pub(super) fn get(lang: Lang, text: &[u8]) -> Option<Known> {
    let mut kept = entries();
    let at = kept
        .iter()
        .rposition(|e| e.lang == lang && *e.text == *text)?;
    let entry = kept.remove(at);
    let known = Known {
        tree: entry.tree.clone(),
        errors: Arc::clone(&entry.errors),
    };
    kept.push(entry);
    Some(known)
}

/// Keeps the tree and errors of `text` as `lang`.
pub(super) fn put(lang: Lang, text: &[u8], tree: Tree, errors: &[Found]) {
    if text.len() > LARGEST {
        return;
    }
    let mut kept = entries();
    kept.retain(|e| !(e.lang == lang && *e.text == *text));
    kept.push(Entry {
        lang,
        text: text.into(),
        tree,
        errors: errors.into(),
    });
    let mut bytes: usize = kept.iter().map(|e| e.text.len()).sum();
    while kept.len() > ENTRIES || bytes > BYTES {
        bytes -= kept.remove(0).text.len();
    }
}

/// The edit that turns `old` into `new`, as one replaced span between their common start and
/// common end, for [`Tree::edit`].
pub(super) fn edit_between(old: &[u8], new: &[u8]) -> InputEdit {
    let start = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let room = old.len().min(new.len()) - start;
    let end = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .count();
    let old_end = old.len() - end;
    let new_end = new.len() - end;
    InputEdit {
        start_byte: start,
        old_end_byte: old_end,
        new_end_byte: new_end,
        start_position: point(old, start),
        old_end_position: point(old, old_end),
        new_end_position: point(new, new_end),
    }
}

/// The row and byte column of offset `at` of `text`.
fn point(text: &[u8], at: usize) -> Point {
    let before = &text[..at];
    let row = memchr::memchr_iter(b'\n', before).count();
    let column = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(at, |nl| at - nl - 1);
    Point { row, column }
}
