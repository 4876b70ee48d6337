//! list_dir's text: one entry a line, directories suffixed `/`, links shown with their target.

use crate::ops::list::{Entry, Kind};

/// The most bytes a listing returns, the read ceiling; a larger directory is cut with a note.
const MAX_BYTES: usize = 256 * 1024;

pub(super) fn render(entries: &[Entry]) -> String {
    if entries.is_empty() {
        return "(empty directory)".to_string();
    }
    let mut out = String::new();
    for (i, entry) in entries.iter().enumerate() {
        let line = line(entry);
        if out.len() + line.len() + 1 > MAX_BYTES {
            out.push_str(&format!(
                "[listing cut at 256 KiB after {i} of {} entries; use tree, or search with a \
                 path, to look inside]",
                entries.len()
            ));
            return out;
        }
        out.push_str(&line);
        out.push('\n');
    }
    out.pop();
    out
}

/// How one entry is written, here and in the tree.
pub(super) fn line(entry: &Entry) -> String {
    match &entry.kind {
        Kind::Dir => format!("{}/", entry.name),
        Kind::Symlink(target) => format!("{} -> {target}", entry.name),
        Kind::File | Kind::Other => entry.name.clone(),
    }
}
