//! Which errors of the new text the old text already had.
//!
//! The old errors are carried over to the new text's rows through a line diff (rows of unchanged
//! lines move by the lines inserted or removed before them; rows inside a changed region go to
//! that region's new rows). A new error is explained by an old one, each old one explaining at
//! most one new one, when:
//!
//! 1. it says the same at the row the old one moved to;
//! 2. its rows overlap the rows the old one moved to (an error the edit reworded or whose
//!    recovery region grew or shrank), the same message and then the nearest row first;
//! 3. it says the same as an old one anywhere (error recovery that moved), the nearest first.
//!
//! What is left is new.

use std::time::{Duration, Instant};

use similar::{Algorithm, DiffOp};

use super::parse::Found;

/// How long the line diff may take; past it the diff is coarser (still correct).
const DIFF_DEADLINE: Duration = Duration::from_millis(20);

/// Where the rows of the old text are in the new one.
struct RowMap {
    /// For each old row: the new rows it maps to (one row for an unchanged line; the changed
    /// region's new rows, possibly none, for a changed one).
    rows: Vec<(usize, usize)>,
}

impl RowMap {
    fn new(old: &[u8], new: &[u8]) -> RowMap {
        let old_lines: Vec<&[u8]> = old.split(|&b| b == b'\n').collect();
        let new_lines: Vec<&[u8]> = new.split(|&b| b == b'\n').collect();
        let ops = similar::capture_diff_slices_deadline(
            Algorithm::Myers,
            &old_lines,
            &new_lines,
            Some(Instant::now() + DIFF_DEADLINE),
        );
        let mut rows = vec![(0, 0); old_lines.len()];
        for op in ops {
            match op {
                DiffOp::Equal {
                    old_index,
                    new_index,
                    len,
                } => {
                    for i in 0..len {
                        rows[old_index + i] = (new_index + i, new_index + i);
                    }
                }
                DiffOp::Delete {
                    old_index,
                    old_len,
                    new_index,
                } => {
                    // Gone: the old rows sit at the boundary where they were.
                    for row in &mut rows[old_index..old_index + old_len] {
                        *row = (new_index, new_index);
                    }
                }
                DiffOp::Insert { .. } => {}
                DiffOp::Replace {
                    old_index,
                    old_len,
                    new_index,
                    new_len,
                } => {
                    let last = new_index + new_len.saturating_sub(1);
                    for row in &mut rows[old_index..old_index + old_len] {
                        *row = (new_index, last);
                    }
                }
            }
        }
        RowMap { rows }
    }

    /// The new rows old rows `start..=end` became.
    fn span(&self, start: usize, end: usize) -> (usize, usize) {
        let at = |row: usize| {
            self.rows
                .get(row)
                .or(self.rows.last())
                .copied()
                .unwrap_or((0, 0))
        };
        (at(start).0, at(end).1.max(at(start).0))
    }
}

/// The errors of `after` (parsed from `new`) that `before` (parsed from `old`) does not
/// explain, in source order.
pub(super) fn new_errors(
    old: &[u8],
    before: &[Found],
    new: &[u8],
    after: Vec<Found>,
) -> Vec<Found> {
    if before.is_empty() || after.is_empty() {
        return after;
    }
    let map = RowMap::new(old, new);
    // The old errors where they are now.
    let moved: Vec<(usize, usize)> = before
        .iter()
        .map(|b| map.span(b.start_row, b.end_row))
        .collect();
    let mut used = vec![false; before.len()];
    let mut explained = vec![false; after.len()];
    let distance = |a: &Found, (start, _): (usize, usize)| a.start_row.abs_diff(start);

    // 1. Same message at the row it moved to.
    for (ai, a) in after.iter().enumerate() {
        if let Some(bi) = (0..before.len())
            .find(|&bi| !used[bi] && before[bi].message == a.message && moved[bi].0 == a.start_row)
        {
            used[bi] = true;
            explained[ai] = true;
        }
    }
    // 2. Overlapping rows, the same message first, then the nearest.
    for (ai, a) in after.iter().enumerate() {
        if explained[ai] {
            continue;
        }
        let best = (0..before.len())
            .filter(|&bi| !used[bi] && a.start_row <= moved[bi].1 && moved[bi].0 <= a.end_row)
            .min_by_key(|&bi| (before[bi].message != a.message, distance(a, moved[bi])));
        if let Some(bi) = best {
            used[bi] = true;
            explained[ai] = true;
        }
    }
    // 3. The same message anywhere, the nearest.
    for (ai, a) in after.iter().enumerate() {
        if explained[ai] {
            continue;
        }
        let best = (0..before.len())
            .filter(|&bi| !used[bi] && before[bi].message == a.message)
            .min_by_key(|&bi| distance(a, moved[bi]));
        if let Some(bi) = best {
            used[bi] = true;
            explained[ai] = true;
        }
    }
    after
        .into_iter()
        .zip(explained)
        .filter_map(|(a, explained)| (!explained).then_some(a))
        .collect()
}
