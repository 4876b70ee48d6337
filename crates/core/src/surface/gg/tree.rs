//! tree's text: the root unnamed, two spaces of indent per level, directories suffixed `/`,
//! `name/ (N entries not shown)` at the depth bound (`(1 entry not shown)` for one),
//! `(empty directory)` for a root with nothing beneath it; at most 1,000 lines and 16 KiB, the
//! closing line included, and a cut result ends with a line saying so. The walk stops as soon
//! as the bound is reached.

use crate::ops::list::Entry;
use crate::ops::tree::{Node, TreeOutcome};

/// The most lines a tree returns.
pub const MAX_LINES: usize = 1000;
/// The most bytes a tree returns.
pub const MAX_BYTES: usize = 16 * 1024;

pub(super) fn render(shown: &str, outcome: TreeOutcome) -> String {
    let nodes = match outcome {
        TreeOutcome::Nodes(nodes) => nodes,
        TreeOutcome::IgnoredRoot => {
            return format!(
                "({shown} is excluded by the workspace's ignore files (.gitignore, .ignore or \
                 .git/info/exclude), so tree does not walk it; list it with list_dir)"
            );
        }
    };
    bounded(nodes.map(|n| line(&n)), MAX_LINES, MAX_BYTES)
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
fn bounded(lines: impl Iterator<Item = String>, max_lines: usize, max_bytes: usize) -> String {
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
    let Some(cut_by) = cut_by else {
        if kept.is_empty() {
            return "(empty directory)".to_string();
        }
        return kept.join("\n");
    };
    let closing = format!(
        "[tree cut at {cut_by}; pass a smaller depth, or a path deeper in the tree, to see the rest]"
    );
    while !kept.is_empty() && (kept.len() + 1 > max_lines || bytes + 1 + closing.len() > max_bytes)
    {
        let dropped = kept.pop().map_or(0, |l| l.len());
        bytes -= dropped + usize::from(!kept.is_empty());
    }
    kept.push(closing);
    kept.join("\n")
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
