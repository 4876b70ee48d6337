//! Echoes: what each op's region looks like in the final body, within a budget.

use super::{
    ECHO_BUDGET_BYTES, ECHO_CONTEXT_LINES, ECHO_LINE_MAX_BYTES, ECHO_REGION_MAX_LINES, OpEcho,
};
use crate::text::lines;

/// An echo to compute at the end: its op, the byte range of its region in the current body,
/// and its kind.
#[derive(Clone, Debug)]
pub(super) struct Pending {
    pub(super) op_index: u32,
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) kind: PendingKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PendingKind {
    /// A line op's region, echoed with context.
    Window,
    /// A replace site; the op's total replacements.
    Site(u64),
    /// A replace that matched nothing.
    NoMatch,
}

/// Line lookups in the final body.
pub(super) struct LineIndex<'a> {
    pub(super) body: &'a [u8],
    pub(super) newlines: Vec<usize>,
    pub(super) count: usize,
}

impl<'a> LineIndex<'a> {
    fn new(body: &'a [u8]) -> Self {
        LineIndex {
            body,
            newlines: memchr::memchr_iter(b'\n', body).collect(),
            count: lines::count(body),
        }
    }

    /// The 1-based line on which byte `pos` lies (`count + 1` at the end of a terminated body).
    fn line_at(&self, pos: usize) -> usize {
        1 + self.newlines.partition_point(|&nl| nl < pos)
    }

    /// Line `n` (1-based, `1..=count`) as echoed.
    fn echo(&self, n: usize) -> String {
        let start = if n <= 1 {
            0
        } else {
            self.newlines
                .get(n - 2)
                .map_or(self.body.len(), |&nl| nl + 1)
        };
        let end = self
            .newlines
            .get(n.saturating_sub(1))
            .map_or(self.body.len(), |&nl| nl + 1);
        let raw = lines::strip_ending(&self.body[start.min(end)..end]);
        let text = String::from_utf8_lossy(raw);
        if text.len() <= ECHO_LINE_MAX_BYTES {
            return text.into_owned();
        }
        let mut cut = ECHO_LINE_MAX_BYTES;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}…[+{} bytes]", &text[..cut], text.len() - cut)
    }

    fn echo_range(&self, from: usize, to: usize) -> impl Iterator<Item = String> + '_ {
        (from..=to).map(|n| self.echo(n))
    }
}

pub(super) fn render(body: &[u8], pending: &[Pending]) -> (Vec<OpEcho>, bool) {
    let index = LineIndex::new(body);
    let mut echoes = Vec::with_capacity(pending.len());
    let mut used = 0usize;
    for p in pending {
        let echo = match p.kind {
            PendingKind::Window => window_echo(&index, p),
            PendingKind::Site(total) => site_echo(&index, p, total),
            PendingKind::NoMatch => OpEcho {
                op_index: p.op_index,
                from_line: 0,
                lines: Vec::new(),
                elided: None,
                total_replacements: Some(0),
            },
        };
        let cost: usize = echo.lines.iter().map(|l| l.len() + 1).sum();
        if used + cost > ECHO_BUDGET_BYTES {
            return (echoes, true);
        }
        used += cost;
        echoes.push(echo);
    }
    (echoes, false)
}

pub(super) fn window_echo(index: &LineIndex<'_>, p: &Pending) -> OpEcho {
    let n = index.count;
    let mut echo = OpEcho {
        op_index: p.op_index,
        from_line: 0,
        lines: Vec::new(),
        elided: None,
        total_replacements: None,
    };
    if n == 0 {
        return echo;
    }
    let (first, last) = if p.start < p.end {
        (index.line_at(p.start), index.line_at(p.end - 1))
    } else {
        // An empty region: the place between two lines. Show two lines each side.
        let at = index.line_at(p.start);
        (at, at.saturating_sub(1))
    };
    let from = first.saturating_sub(ECHO_CONTEXT_LINES).max(1);
    let to = (last + ECHO_CONTEXT_LINES).min(n);
    echo.from_line = from as u64;
    let region = (last + 1).saturating_sub(first);
    if region > ECHO_REGION_MAX_LINES {
        let half = ECHO_REGION_MAX_LINES / 2;
        echo.lines.extend(index.echo_range(from, first + half - 1));
        echo.lines.extend(index.echo_range(last + 1 - half, to));
        echo.elided = Some((region - ECHO_REGION_MAX_LINES) as u64);
    } else if from <= to {
        echo.lines.extend(index.echo_range(from, to));
    }
    echo
}

pub(super) fn site_echo(index: &LineIndex<'_>, p: &Pending, total: u64) -> OpEcho {
    let n = index.count;
    let mut echo = OpEcho {
        op_index: p.op_index,
        from_line: 0,
        lines: Vec::new(),
        elided: None,
        total_replacements: Some(total),
    };
    if n == 0 {
        return echo;
    }
    let (first, last) = if p.start < p.end {
        (index.line_at(p.start), index.line_at(p.end - 1))
    } else {
        let at = index.line_at(p.start).min(n);
        (at, at)
    };
    echo.from_line = first as u64;
    echo.lines.push(index.echo(first));
    if last > first {
        echo.lines.push(index.echo(last));
    }
    if last > first + 1 {
        echo.elided = Some((last - first - 1) as u64);
    }
    echo
}
