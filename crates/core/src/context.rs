//! What a call carries besides its arguments: a cancel flag the engine checks during long work,
//! an optional sink for progress reports (MCP `notifications/progress`, a CLI bar), and the
//! session the call belongs to (what it has seen of each file, for the stale-write rule).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::session::Session;

/// One progress report: how much is done, of how much when that is known, and what.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    /// Units done so far; strictly increasing across the reports of one call.
    pub done: u64,
    /// Units in all, when known.
    pub total: Option<u64>,
    /// What is being counted, for people: "1200 files scanned".
    pub message: String,
}

/// Receives the progress reports of a call. Called from the thread doing the work.
pub type ProgressSink = Arc<dyn Fn(Progress) + Send + Sync>;

/// Reports closer together than this are dropped; the first report of a call is never dropped.
const REPORT_EVERY: Duration = Duration::from_millis(100);

struct Reporter {
    sink: ProgressSink,
    started: Instant,
    /// Milliseconds since `started` of the last report sent; `u64::MAX` before the first.
    last_sent_ms: AtomicU64,
    /// The running count behind [`CallContext::tick`].
    count: AtomicU64,
    /// The `done` of the last report sent, so reports from parallel workers never go backwards.
    last_done: Mutex<Option<u64>>,
}

/// What a call carries besides its arguments: whether its caller has given up on it, where
/// its progress goes, and the session it belongs to.
#[derive(Clone, Default)]
pub struct CallContext {
    cancelled: Arc<AtomicBool>,
    reporter: Option<Arc<Reporter>>,
    session: Option<Arc<Session>>,
}

impl std::fmt::Debug for CallContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallContext")
            .field("cancelled", &self.is_cancelled())
            .field("reports_progress", &self.reporter.is_some())
            .field("session", &self.session)
            .finish()
    }
}

impl CallContext {
    /// A context that is cancelled when `flag` is set.
    pub fn with_flag(flag: Arc<AtomicBool>) -> Self {
        CallContext {
            cancelled: flag,
            reporter: None,
            session: None,
        }
    }

    /// The same context, in `session`: reads are recorded there and whole-file writes and line
    /// edits are checked against it. A [`crate::Workspace`] puts its own session on every call
    /// whose context has none.
    pub fn in_session(mut self, session: Arc<Session>) -> Self {
        self.session = Some(session);
        self
    }

    /// The session of the call, if it has one (a call without one has never read anything).
    pub fn session(&self) -> Option<&Session> {
        self.session.as_deref()
    }

    /// Whether the call carries a session.
    pub fn has_session(&self) -> bool {
        self.session.is_some()
    }

    /// The same context, reporting progress to `sink` (at most about ten reports a second).
    pub fn with_progress(mut self, sink: ProgressSink) -> Self {
        self.reporter = Some(Arc::new(Reporter {
            sink,
            started: Instant::now(),
            last_sent_ms: AtomicU64::new(u64::MAX),
            count: AtomicU64::new(0),
            last_done: Mutex::new(None),
        }));
        self
    }

    /// Whether the caller cancelled the call.
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }

    /// Whether anyone listens to progress; work may skip counting when nobody does.
    pub fn wants_progress(&self) -> bool {
        self.reporter.is_some()
    }

    /// Adds `n` units to the call's running count and reports it as "N `what`", e.g.
    /// `tick(1, "files scanned")`. Cheap enough to call once per file from parallel workers.
    pub fn tick(&self, n: u64, what: &str) {
        if let Some(r) = &self.reporter {
            let done = r.count.fetch_add(n, Ordering::Relaxed).saturating_add(n);
            if r.due() {
                r.send(done, None, || format!("{done} {what}"));
            }
        }
    }

    /// Reports `done` of `total` units with a message made only when the report is sent.
    pub fn progress(&self, done: u64, total: Option<u64>, message: impl FnOnce() -> String) {
        if let Some(r) = &self.reporter
            && r.due()
        {
            r.send(done, total, message);
        }
    }
}

impl Reporter {
    /// Claims the right to send a report now, if the last one is old enough.
    fn due(&self) -> bool {
        let now = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX - 1);
        let last = self.last_sent_ms.load(Ordering::Relaxed);
        let ripe = last == u64::MAX || now >= last.saturating_add(REPORT_EVERY.as_millis() as u64);
        ripe && self
            .last_sent_ms
            .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
    }

    fn send(&self, done: u64, total: Option<u64>, message: impl FnOnce() -> String) {
        let Ok(mut last) = self.last_done.lock() else {
            return;
        };
        if last.is_some_and(|l| done <= l) {
            return;
        }
        *last = Some(done);
        (self.sink)(Progress {
            done,
            total,
            message: message(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recording() -> (CallContext, Arc<Mutex<Vec<Progress>>>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink_seen = Arc::clone(&seen);
        let ctx = CallContext::default().with_progress(Arc::new(move |p| {
            if let Ok(mut v) = sink_seen.lock() {
                v.push(p);
            }
        }));
        (ctx, seen)
    }

    #[test]
    fn the_first_tick_is_reported_at_once_and_later_ones_are_throttled() {
        let (ctx, seen) = recording();
        for _ in 0..1000 {
            ctx.tick(1, "files scanned");
        }
        let got = seen.lock().unwrap().clone();
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].done, 1);
        assert_eq!(got[0].message, "1 files scanned");
        std::thread::sleep(REPORT_EVERY + Duration::from_millis(20));
        ctx.tick(1, "files scanned");
        let got = seen.lock().unwrap().clone();
        assert_eq!(got.len(), 2);
        assert_eq!(got[1].done, 1001);
    }

    #[test]
    fn reports_never_go_backwards() {
        let (ctx, seen) = recording();
        ctx.progress(10, Some(20), || "ten".into());
        std::thread::sleep(REPORT_EVERY + Duration::from_millis(20));
        ctx.progress(5, Some(20), || "five".into());
        let got = seen.lock().unwrap().clone();
        assert_eq!(got.iter().map(|p| p.done).collect::<Vec<_>>(), vec![10]);
    }

    #[test]
    fn without_a_sink_nothing_is_counted() {
        let ctx = CallContext::default();
        assert!(!ctx.wants_progress());
        ctx.tick(1, "files");
        ctx.progress(1, None, || {
            unreachable!("the message is made only when sent")
        });
    }
}
