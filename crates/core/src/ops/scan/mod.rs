//! The scanning engine every search runs on: one walker, one file scanner, and per output a
//! sink, as ripgrep's `Searcher` reports to a `Sink` and one printer per format renders.
//!
//! A search is:
//! - a **walk** ([`crate::access::walk`]): the ignore rule, the handle budget, the kept
//!   listings, what the search selects; its files come in path order;
//! - a **file search** ([`FileSearch`]), run by a pool of workers (one per core, see
//!   [`super::ordered`]): each opens a walked file and reads its text through the
//!   [`Scanner`] under a [`TextRule`] (where a NUL byte makes it binary, which encodings are
//!   decoded, whole or a block of lines at a time, how long a line may be) and matches it;
//! - a **sink** ([`Sink`]): it takes each file's findings back in path order, with what the
//!   walk passed over on the way (or that is counted as the walk meets it, see
//!   [`counting_ahead`]), and says when the answer is complete, which stops the walk and the
//!   workers;
//! - a **renderer**, in the profile's surface, which words the sink's answer.
//!
//! The sinks ([`sinks`]): [`sinks::lines`] (the first matching lines: gg's `search`),
//! [`sinks::counted`] (every matching line counted, the first kept: qwen's `grep_search`),
//! [`sinks::matches`] (line and path matches with context under caps and a byte budget:
//! coder's `search`), [`sinks::pages`] (offset/limit pages of lines, blocks, files or counts:
//! picoclaw's `search_files`), [`sinks::by_name`] (files by glob, newest first: qwen's `glob`,
//! a walk without a scanner) and [`sinks::lore`] (lore libraries: sgpt's `search_lores`). A new
//! output is a new sink, never a new scanner.

pub mod scanner;
pub mod sinks;

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use super::ordered::{self, Ended};
use crate::access::walk::{Passed, Step, WalkedFile};
use crate::access::walkdir::Skips;

pub(crate) use self::scanner::{Binary, Decode, Flow, Lines, Read, Scanner, TextRule};
/// What a call carries (cancellation, progress), as the engine takes it.
pub(crate) use crate::context::CallContext;

/// What a worker does with one walked file: open it and read its text through the scanner, and
/// match it. Shared by the workers of one search.
pub(crate) trait FileSearch: Sync {
    /// A worker's tools, reused from file to file (a regex searcher, buffers).
    type Tools;
    /// What searching one file found.
    type Found: Send;
    /// A worker's tools.
    fn tools(&self) -> Self::Tools;
    /// Searches one walked file.
    fn search(
        &self,
        tools: &mut Self::Tools,
        scanner: &mut Scanner,
        file: WalkedFile,
    ) -> Self::Found;
}

/// What collects a search's answer, in the walk's order.
pub(crate) trait Sink<F> {
    /// Takes one file's findings; `false` once the answer is complete.
    fn take(&mut self, found: F) -> bool;
    /// Takes something the walk passed over on the way; `false` once the answer is complete.
    fn passed(&mut self, passed: Passed) -> bool;
}

/// One step of a walk, after a worker saw it.
enum Taken<F> {
    File(F),
    Passed(Passed),
    /// A link the walk yielded: passed over.
    Link,
}

/// `walk` with what it passes over counted in `skips` as the walk meets it, and left out of
/// the steps the workers and the sink see. A search counting this way says all its walk met,
/// also past the point where its answer was complete (the walk runs a bounded way ahead of the
/// workers), as gg's and coder's searches always have; one that hands the steps to its sink
/// instead counts only what lay on the way to its answer (picoclaw's pages, sgpt's warnings).
pub(crate) fn counting_ahead<'w>(
    walk: impl Iterator<Item = Step> + 'w,
    skips: Arc<Skips>,
) -> impl Iterator<Item = Step> + 'w {
    walk.filter(move |step| match step {
        Step::Passed(passed) => {
            skips.count(passed);
            false
        }
        _ => true,
    })
}

/// Runs `search` over the files `walk` yields, on a worker per core, and hands the findings to
/// `sink` in the walk's order, each file ticked to `ctx` as `what` ("files scanned"); stops
/// once the sink has its answer or `ctx` is cancelled. Links a walk yields are passed over.
/// Files read whole beyond the text rule's `whole_max` share one buffer, freed at the end.
pub(crate) fn run<S: FileSearch>(
    walk: impl Iterator<Item = Step>,
    search: &S,
    sink: &mut impl Sink<S::Found>,
    ctx: &CallContext,
    what: &str,
) -> Ended {
    let stop = AtomicBool::new(false);
    let large = Mutex::new(Vec::new());
    ordered::run(
        walk,
        || {
            let mut tools = search.tools();
            let mut scanner = Scanner::new(&large);
            move |step: Step| match step {
                Step::File(file) => Taken::File(search.search(&mut tools, &mut scanner, file)),
                Step::Passed(passed) => Taken::Passed(passed),
                Step::Link(_) | Step::Entry(_) => Taken::Link,
            }
        },
        |taken| match taken {
            Taken::File(found) => {
                ctx.tick(1, what);
                sink.take(found)
            }
            Taken::Passed(passed) => sink.passed(passed),
            Taken::Link => true,
        },
        || ctx.is_cancelled(),
        &stop,
    )
}
