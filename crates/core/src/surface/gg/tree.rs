//! tree's text: the root unnamed, two spaces of indent per level, directories suffixed `/`,
//! `name/ (N entries not shown)` at the depth bound (`(1 entry not shown)` for one),
//! `(empty directory)` for a root with nothing beneath it; at most 1,000 lines and 16 KiB, the
//! closing lines included, and a cut result ends with a line saying so. When the walk passed
//! over something (a folder it could not list, an ignore file it did not read), a last line
//! says what: `[skipped: 1 unreadable folder]`. The walk stops as soon as the bound is reached.

use crate::ops::list::Entry;
use crate::ops::tree::{Node, TreeOutcome};

/// The most lines a tree returns.
pub const MAX_LINES: usize = 1000;
/// The most bytes a tree returns.
pub const MAX_BYTES: usize = 16 * 1024;

/// The tree's text, and the nodes it shows, in order (what the code arm returns as entries).
pub(super) fn render_nodes(shown: &str, outcome: TreeOutcome) -> (String, Vec<Node>) {
    let nodes = match outcome {
        TreeOutcome::Nodes(nodes) => nodes,
        TreeOutcome::IgnoredRoot => {
            return (
                format!(
                    "({shown} is excluded by the workspace's ignore files (.gitignore, .ignore or \
                     .git/info/exclude), so tree does not walk it; list it with list_dir)"
                ),
                Vec::new(),
            );
        }
    };
    let mut nodes = nodes;
    let mut seen = Vec::new();
    let taken = take(
        nodes.by_ref().map(|n| {
            let line = line(&n);
            seen.push(n);
            line
        }),
        MAX_LINES,
        MAX_BYTES,
    );
    let skipped = super::search::closing(&nodes.skipped());
    let (text, kept) = finish(taken, skipped.strip_prefix('\n'), MAX_LINES, MAX_BYTES);
    seen.truncate(kept);
    (text, seen)
}

fn line(node: &Node) -> String {
    let entry = Entry {
        name: node.name.clone(),
        kind: node.kind.clone(),
    };
    let mut line = "  ".repeat(node.depth.saturating_sub(1));
    line.push_str(&super::list::line(&entry));
    match node.not_shown {
        Some(1) => line.push_str(" (1 entry not shown)"),
        Some(n) => line.push_str(&format!(" ({n} entries not shown)")),
        None => {}
    }
    line
}

/// Joins `lines` until the bounds bind; then drops lines until the closing line fits.
#[cfg(test)]
fn bounded(lines: impl Iterator<Item = String>, max_lines: usize, max_bytes: usize) -> String {
    finish(
        take(lines, max_lines, max_bytes),
        None,
        max_lines,
        max_bytes,
    )
    .0
}

/// The lines taken while the bounds allowed.
struct Taken {
    kept: Vec<String>,
    /// Their bytes, joined by '\n'.
    bytes: usize,
    /// The bound that stopped the taking, in words.
    cut_by: Option<String>,
}

/// Takes `lines` until the bounds bind.
fn take(lines: impl Iterator<Item = String>, max_lines: usize, max_bytes: usize) -> Taken {
    let mut kept: Vec<String> = Vec::new();
    let mut bytes = 0usize;
    let mut cut_by = None;
    for line in lines {
        // Lines are joined by '\n': each after the first costs one byte more.
        let cost = line.len() + usize::from(!kept.is_empty());
        if kept.len() + 1 > max_lines {
            cut_by = Some(format!("{max_lines} lines"));
            break;
        }
        if bytes + cost > max_bytes {
            cut_by = Some(format!("{} KiB", max_bytes / 1024));
            break;
        }
        bytes += cost;
        kept.push(line);
    }
    Taken {
        kept,
        bytes,
        cut_by,
    }
}

/// The tree's text: the lines taken, then the closing lines (the cut, when the bounds bound,
/// and `skipped`), all within the bounds: lines are dropped until the closing lines fit, and a
/// tree that loses lines for them says it was cut. Also returns how many of the lines taken it
/// kept.
fn finish(
    taken: Taken,
    skipped: Option<&str>,
    max_lines: usize,
    max_bytes: usize,
) -> (String, usize) {
    let Taken {
        mut kept,
        mut bytes,
        mut cut_by,
    } = taken;
    let fits = |kept: &[String], bytes: usize, closing: &[String]| {
        let extra: usize = closing.iter().map(|c| c.len() + 1).sum();
        let extra = if kept.is_empty() {
            extra.saturating_sub(1)
        } else {
            extra
        };
        kept.len() + closing.len() <= max_lines && bytes + extra <= max_bytes
    };
    let mut closing: Vec<String> = skipped.map(str::to_string).into_iter().collect();
    if cut_by.is_none() && !fits(&kept, bytes, &closing) {
        cut_by = Some(if kept.len() + closing.len() > max_lines {
            format!("{max_lines} lines")
        } else {
            format!("{} KiB", max_bytes / 1024)
        });
    }
    let Some(cut_by) = cut_by else {
        let count = kept.len();
        if kept.is_empty() {
            kept.push("(empty directory)".to_string());
        }
        kept.extend(closing);
        return (kept.join("\n"), count);
    };
    closing.insert(
        0,
        format!(
            "[tree cut at {cut_by}; pass a smaller depth, or a path deeper in the tree, to see \
             the rest]"
        ),
    );
    while !kept.is_empty() && !fits(&kept, bytes, &closing) {
        let dropped = kept.pop().map_or(0, |l| l.len());
        bytes -= dropped + usize::from(!kept.is_empty());
    }
    let count = kept.len();
    kept.extend(closing);
    (kept.join("\n"), count)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(n: usize, width: usize) -> impl Iterator<Item = String> {
        (0..n).map(move |i| format!("{i:0width$}"))
    }

    #[test]
    fn a_tree_that_fits_exactly_has_no_closing_line() {
        let out = bounded(lines(1000, 4), 1000, 16 * 1024);
        assert_eq!(out.lines().count(), 1000);
        assert!(!out.contains("[tree cut"));
    }

    #[test]
    fn the_line_bound_counts_the_closing_line() {
        let out = bounded(lines(1001, 4), 1000, 16 * 1024);
        assert_eq!(out.lines().count(), 1000);
        assert_eq!(
            out.lines().last().unwrap(),
            "[tree cut at 1000 lines; pass a smaller depth, or a path deeper in the tree, to see the rest]"
        );
        assert_eq!(out.lines().nth(998).unwrap(), "0998");
    }

    #[test]
    fn the_skipped_line_closes_a_whole_tree() {
        let taken = take(lines(3, 4), 1000, 16 * 1024);
        let (out, _) = finish(
            taken,
            Some("[skipped: 1 unreadable folder]"),
            1000,
            16 * 1024,
        );
        assert_eq!(out, "0000\n0001\n0002\n[skipped: 1 unreadable folder]");
        let (empty, _) = finish(take(lines(0, 4), 10, 1024), Some("[skipped: x]"), 10, 1024);
        assert_eq!(empty, "(empty directory)\n[skipped: x]");
    }

    #[test]
    fn the_skipped_line_counts_against_the_bounds_and_cuts_the_tree_when_it_must() {
        // A tree that fits exactly loses a line to the two closing lines, and says it was cut.
        let (out, kept) = finish(
            take(lines(1000, 4), 1000, 16 * 1024),
            Some("[skipped: x]"),
            1000,
            16 * 1024,
        );
        let all: Vec<&str> = out.lines().collect();
        assert_eq!(all.len(), 1000);
        assert_eq!(kept, 998);
        assert_eq!(all[997], "0997");
        assert!(
            all[998].starts_with("[tree cut at 1000 lines;"),
            "{}",
            all[998]
        );
        assert_eq!(all[999], "[skipped: x]");
        // A tree cut by bytes keeps both closing lines within the bytes.
        let (out, _) = finish(
            take(lines(500, 60), 1000, 16 * 1024),
            Some("[skipped: x]"),
            1000,
            16 * 1024,
        );
        assert!(out.len() <= 16 * 1024, "{}", out.len());
        assert!(out.ends_with("to see the rest]\n[skipped: x]"));
    }

    #[test]
    fn the_byte_bound_counts_the_closing_line() {
        let out = bounded(lines(500, 60), 1000, 16 * 1024);
        assert!(out.len() <= 16 * 1024, "{}", out.len());
        assert!(out.ends_with("[tree cut at 16 KiB; pass a smaller depth, or a path deeper in the tree, to see the rest]"));
        assert!(
            out.len() > 16 * 1024 - 61 - 100,
            "cut far too early: {}",
            out.len()
        );
    }
}
