//! Work on a sequence spread over threads, its results taken back in the sequence's order.
//!
//! A walk yields items (files, in path order) on the calling thread; a pool of workers (one per
//! core) turns each into a result (its matches); the calling thread takes the results in the
//! walk's order, exactly as a loop item by item would, and says when it has all it needs. The
//! walk stays a bounded number of items ahead of the first result not yet taken, so memory and
//! open handles stay bounded, and nothing more is walked or worked on once the answer is
//! complete or the call is cancelled.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, mpsc};

/// Workers beyond this many add contention, not speed.
const MAX_WORKERS: usize = 8;
/// Batches waiting for a worker.
const QUEUE_LEN: usize = 8;
/// Items in a full batch. Each batch costs a wake-up of a worker and of the walk, so a
/// smaller one spends the time saved by a parallel search on hand-overs (measured on the
/// limit-50 search of the benchmark: 16 → 64 cut its time by 8 %).
const BATCH_LEN: usize = 64;
/// The most batches walked past the first one whose results are not yet taken.
const MAX_AHEAD: usize = 8;

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ended {
    /// Every item was worked on and its result taken.
    Walked,
    /// `take` said the answer was complete.
    Complete,
    /// `cancelled` said to stop.
    Cancelled,
}

/// The number of workers for this machine.
pub(crate) fn workers() -> usize {
    std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .clamp(1, MAX_WORKERS)
}

/// Runs each item of `items` through a worker made by `worker` (one per thread), and hands the
/// results to `take` in the order of `items`. `take` returns `false` once it needs no more;
/// `cancelled` is asked between items. `done` is set when the run stops early, so a worker in
/// the middle of a batch skips what is left of it.
pub(crate) fn run<T, R, W>(
    items: impl Iterator<Item = T>,
    worker: impl Fn() -> W + Sync,
    mut take: impl FnMut(R) -> bool,
    cancelled: impl Fn() -> bool,
    done: &AtomicBool,
) -> Ended
where
    T: Send,
    R: Send,
    W: FnMut(T) -> R,
{
    let (work_tx, work_rx) = mpsc::sync_channel::<(usize, Vec<T>)>(QUEUE_LEN);
    let work_rx = Mutex::new(work_rx);
    let (done_tx, done_rx) = mpsc::channel::<(usize, Vec<R>)>();
    let mut order = InOrder {
        next: 0,
        pending: BTreeMap::new(),
        complete: false,
    };
    let mut ended = Ended::Walked;
    std::thread::scope(|scope| {
        for _ in 0..workers() {
            let done_tx = done_tx.clone();
            let (work_rx, worker) = (&work_rx, &worker);
            scope.spawn(move || {
                let mut work = worker();
                loop {
                    let job = match work_rx.lock() {
                        Ok(rx) => rx.recv(),
                        Err(_) => return,
                    };
                    let Ok((seq, batch)) = job else { return };
                    let mut results = Vec::with_capacity(batch.len());
                    for item in batch {
                        if done.load(Ordering::Relaxed) {
                            return;
                        }
                        results.push(work(item));
                    }
                    if done_tx.send((seq, results)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(done_tx);
        let mut sent = 0usize;
        let mut batch = Vec::with_capacity(BATCH_LEN);
        let mut items = items.fuse();
        loop {
            if cancelled() {
                ended = Ended::Cancelled;
                break;
            }
            match items.next() {
                Some(item) => {
                    batch.push(item);
                    // The first batches are small (1, 2, 4, ... items), so an answer found in
                    // the first items is not held up filling a batch; full ones keep the
                    // hand-overs between threads few.
                    if batch.len() < BATCH_LEN.min(1 << sent.min(16)) {
                        continue;
                    }
                }
                None if batch.is_empty() => break,
                None => {}
            }
            // Keep the walk a bounded distance ahead of the results taken.
            while sent - order.next >= MAX_AHEAD && !order.complete {
                match done_rx.recv() {
                    Ok((seq, results)) => order.put(seq, results, &mut take),
                    Err(_) => break,
                }
            }
            while let Ok((seq, results)) = done_rx.try_recv() {
                order.put(seq, results, &mut take);
            }
            if order.complete {
                break;
            }
            let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH_LEN));
            if work_tx.send((sent, full)).is_err() {
                break;
            }
            sent += 1;
        }
        drop(work_tx);
        if ended == Ended::Cancelled || order.complete {
            done.store(true, Ordering::Relaxed);
        }
        while order.next < sent && !order.complete && ended != Ended::Cancelled {
            if cancelled() {
                ended = Ended::Cancelled;
                break;
            }
            match done_rx.recv() {
                Ok((seq, results)) => order.put(seq, results, &mut take),
                Err(_) => break,
            }
        }
        // Whatever is still queued or being worked on is not needed any more.
        done.store(true, Ordering::Relaxed);
    });
    if ended != Ended::Cancelled && order.complete {
        ended = Ended::Complete;
    }
    ended
}

/// Results put back in order.
struct InOrder<R> {
    /// The next batch to take.
    next: usize,
    /// Batches done out of order.
    pending: BTreeMap<usize, Vec<R>>,
    /// `take` needs no more.
    complete: bool,
}

impl<R> InOrder<R> {
    fn put(&mut self, seq: usize, results: Vec<R>, take: &mut impl FnMut(R) -> bool) {
        self.pending.insert(seq, results);
        while !self.complete {
            let Some(results) = self.pending.remove(&self.next) else {
                return;
            };
            self.next += 1;
            for result in results {
                if !take(result) {
                    self.complete = true;
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn results_come_back_in_the_order_of_the_items() {
        let done = AtomicBool::new(false);
        let mut got = Vec::new();
        let ended = run(
            0..1000u32,
            || {
                |n: u32| {
                    // Uneven work, so workers finish out of order.
                    if n.is_multiple_of(7) {
                        std::thread::yield_now();
                    }
                    n * 2
                }
            },
            |r| {
                got.push(r);
                true
            },
            || false,
            &done,
        );
        assert_eq!(ended, Ended::Walked);
        assert_eq!(got, (0..1000u32).map(|n| n * 2).collect::<Vec<_>>());
    }

    #[test]
    fn a_complete_answer_stops_the_walk_soon() {
        let done = AtomicBool::new(false);
        let walked = AtomicUsize::new(0);
        let items = (0..1_000_000u32).inspect(|_| {
            walked.fetch_add(1, Ordering::Relaxed);
        });
        let mut got = Vec::new();
        let ended = run(
            items,
            || |n: u32| n,
            |r| {
                got.push(r);
                got.len() < 10
            },
            || false,
            &done,
        );
        assert_eq!(ended, Ended::Complete);
        assert_eq!(got, (0..10).collect::<Vec<_>>());
        // Bounded by how far the walk may run ahead, nowhere near the million items.
        assert!(walked.load(Ordering::Relaxed) <= (MAX_AHEAD + QUEUE_LEN + 4) * BATCH_LEN);
        assert!(done.load(Ordering::Relaxed));
    }

    #[test]
    fn a_cancelled_run_stops_and_says_so() {
        let done = AtomicBool::new(false);
        let asked = AtomicUsize::new(0);
        let ended = run(
            0..1_000_000u32,
            || |n: u32| n,
            |_| true,
            || asked.fetch_add(1, Ordering::Relaxed) > 100,
            &done,
        );
        assert_eq!(ended, Ended::Cancelled);
    }
}
