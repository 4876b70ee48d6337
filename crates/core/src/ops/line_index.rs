//! Line counts of large files, and a process-wide cache of where their lines are.
//!
//! A read that states a file's length (gg's windows) has to count its newlines. The count runs
//! at memory speed: big positioned reads split across the cores, SIMD counting, no per-line
//! work, and the holes of a sparse file skipped without reading (a hole reads as zero bytes, so
//! it holds no newline; see [`holes`]). It goes through the file in segments from the start,
//! recording a *mark* at every stride: how many newlines come before that byte offset.
//!
//! A count is bounded and resumable. One read counts within its [`CountBudget`] (bytes of data
//! read, and optionally time); what it counted — the marks, how far it got, and the total once
//! it reached the end — is kept in a small process-wide cache keyed by the file's identity and
//! version (device, inode, size, modification and change times). The next read of the
//! unchanged file goes on counting where the last one stopped, so repeated reads converge on
//! the exact total, and a window starts reading at the mark before it. An entry is dropped as
//! soon as any part of its key differs, and the cache holds a bounded number of marks in all.

use std::io;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime};

use crate::access::OpenFile;
use crate::access::holes::{self, Holes};
use crate::context::CallContext;

/// Files smaller than this are counted by the read itself, in one pass, and not cached.
pub const INDEX_MIN_LEN: u64 = 1 << 20;
/// The data one read counts at most by default: 4 GiB, about a second at the memory speed of
/// the page cache and a few seconds from a fast SSD, while a file of up to 4 GiB — nearly every
/// text file — is still counted whole on its first read.
pub const DEFAULT_COUNT_BYTES: u64 = 4 << 30;
/// The size of each counting thread's buffer: small enough that a read's copy stays in the
/// core's cache while it is counted.
const COUNT_BUF: usize = 128 * 1024;
/// Marks are at least this far apart.
const MIN_STRIDE: u64 = 256 * 1024;
/// A file gets at most this many marks (a larger file spaces them further apart).
const MAX_MARKS_PER_FILE: u64 = 4096;
/// The most marks held by the cache across all files (8 bytes each).
const MAX_CACHED_MARKS: usize = 64 * 1024;
/// The most files the cache holds.
const MAX_CACHED_FILES: usize = 64;
/// A file changed less than this long before a count began is not cached: a write in the
/// same timestamp tick after the count could leave its key unchanged.
const SETTLE: Duration = Duration::from_millis(100);

/// How much one read may spend counting a file's lines to state its length. Holes of a sparse
/// file cost nothing. Reaching the window a read shows is never stopped by the budget (it is
/// spent first, and may overrun it); counting on past the window stops when the budget is
/// spent, and the next read of the unchanged file goes on from there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CountBudget {
    /// Bytes of data read to count lines. By default [`DEFAULT_COUNT_BYTES`] (4 GiB).
    pub bytes: u64,
    /// How long a read may go on counting, measured from the start of the read. By default
    /// `None`: no limit, so that the same calls give the same answers on every machine.
    pub time: Option<Duration>,
}

impl Default for CountBudget {
    fn default() -> Self {
        CountBudget {
            bytes: DEFAULT_COUNT_BYTES,
            time: None,
        }
    }
}

/// What identifies one version of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileKey {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl FileKey {
    /// The key of the open `file`.
    pub fn of(file: &OpenFile) -> io::Result<FileKey> {
        let m = file.metadata()?;
        Ok(FileKey {
            dev: m.dev(),
            ino: m.ino(),
            size: m.len(),
            mtime: (m.mtime(), m.mtime_nsec()),
            ctime: (m.ctime(), m.ctime_nsec()),
        })
    }

    /// The file's size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Whether the file last changed at least [`SETTLE`] before `when`.
    fn settled_before(&self, when: SystemTime) -> bool {
        let Ok(since) = when.duration_since(SystemTime::UNIX_EPOCH) else {
            return false;
        };
        let limit = since.saturating_sub(SETTLE);
        let at = |(s, ns): (i64, i64)| {
            u64::try_from(s)
                .ok()
                .map(|s| Duration::new(s, u32::try_from(ns).unwrap_or(0)))
        };
        matches!((at(self.mtime), at(self.ctime)), (Some(m), Some(c)) if m <= limit && c <= limit)
    }
}

/// What is known of where a file's lines are: its first `counted` bytes are counted, with a
/// mark every `stride` bytes of them, and its line count once known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineIndex {
    size: u64,
    stride: u64,
    /// `marks[i]`: the newlines in bytes `0..i * stride`, for every `i * stride <= counted`.
    marks: Vec<u64>,
    /// Bytes `0..counted` are counted.
    counted: u64,
    /// The newlines in bytes `0..counted`.
    newlines: u64,
    /// How many lines the file has (a final newline does not make an empty last line), once
    /// the count, or a window read to the file's end, reached it.
    total: Option<u64>,
}

impl LineIndex {
    /// Nothing counted yet of a file of `size` bytes.
    fn new(size: u64) -> LineIndex {
        LineIndex {
            size,
            stride: MIN_STRIDE.max(size.div_ceil(MAX_MARKS_PER_FILE).next_multiple_of(4096)),
            marks: vec![0],
            counted: 0,
            newlines: 0,
            total: (size == 0).then_some(0),
        }
    }

    /// How many lines the file has, once known.
    pub fn total(&self) -> Option<u64> {
        self.total
    }

    /// How many lines the file has at least: its total when known, else the lines counted so
    /// far and the one the first uncounted byte belongs to.
    pub fn lines_at_least(&self) -> u64 {
        self.total
            .unwrap_or(self.newlines + u64::from(self.counted < self.size))
    }

    /// How many of the file's bytes are counted (holes included).
    pub fn counted(&self) -> u64 {
        self.counted
    }

    /// Where to start reading to reach the start of line `first` (1-based): a byte offset and
    /// how many newlines come before it. Either the offset is 0, or fewer than `first - 1`
    /// newlines come before it, so the newline ending line `first - 1` lies at or after it
    /// (when the count has not reached that line yet: somewhere after the last mark).
    pub fn start_for(&self, first: u64) -> (u64, u64) {
        let want = first.saturating_sub(1);
        // The last mark with fewer than `want` newlines before it.
        let i = self.marks.partition_point(|&n| n < want);
        match i.checked_sub(1) {
            Some(i) if i > 0 => (i as u64 * self.stride, self.marks[i]),
            _ => (0, 0),
        }
    }

    /// Whether `self` knows more than `other` (an index of the same file version).
    fn knows_more_than(&self, other: &LineIndex) -> bool {
        (self.total.is_some(), self.counted) > (other.total.is_some(), other.counted)
    }
}

#[cfg(test)]
impl LineIndex {
    /// The whole index of `bytes` with marks every `stride` bytes, counted the obvious way.
    pub(crate) fn of_bytes(bytes: &[u8], stride: u64) -> LineIndex {
        let marks = (0..bytes.len().div_ceil(stride as usize).max(1))
            .map(|i| memchr::memchr_iter(b'\n', &bytes[..i * stride as usize]).count() as u64)
            .collect();
        let newlines = memchr::memchr_iter(b'\n', bytes).count() as u64;
        LineIndex {
            size: bytes.len() as u64,
            stride,
            marks,
            counted: bytes.len() as u64,
            newlines,
            total: Some(newlines + u64::from(bytes.last().is_some_and(|b| *b != b'\n'))),
        }
    }
}

/// The counting of one file ended early.
#[derive(Debug)]
pub enum CountError {
    /// The caller cancelled the call; `done` of the file's bytes were counted (holes skipped
    /// included). What was counted before is kept for the next read.
    Cancelled {
        /// Bytes counted.
        done: u64,
    },
    /// Reading failed.
    Io(io::Error),
}

impl From<io::Error> for CountError {
    fn from(e: io::Error) -> Self {
        CountError::Io(e)
    }
}

/// The line count of one open file during one read: what the cache knew of it, extended as the
/// read needs and its budget allows, and remembered again for the next read.
pub struct Count<'a> {
    file: &'a OpenFile,
    key: FileKey,
    index: LineIndex,
    budget: CountBudget,
    /// When the read began: the time budget runs from here.
    started: Instant,
    /// When counting began, for the settle rule of the cache.
    began: SystemTime,
    /// Data bytes read for counting so far in this read.
    spent: u64,
    holes: Holes,
    ctx: &'a CallContext,
}

/// How far one extension of the count goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Until {
    /// Until this many newlines are counted (or the end of the file), whatever the budget.
    Newlines(u64),
    /// Until the end of the file, or until the budget is spent.
    Budget,
}

impl<'a> Count<'a> {
    /// The count of `file` (whose key is `key`) for a read that began at `started` and may
    /// spend `budget`: what the cache holds of this version of the file, or nothing yet.
    /// Progress goes to `ctx`, and `ctx`'s cancellation stops the counting.
    pub fn new(
        file: &'a OpenFile,
        key: FileKey,
        budget: CountBudget,
        started: Instant,
        ctx: &'a CallContext,
    ) -> Count<'a> {
        Count {
            file,
            key,
            index: cached(&key).unwrap_or_else(|| LineIndex::new(key.size)),
            budget,
            started,
            began: SystemTime::now(),
            spent: 0,
            holes: Holes::Seek,
            ctx,
        }
    }

    /// The same count, finding holes as `holes` says (the portable path in tests).
    #[cfg(test)]
    pub(crate) fn with_holes(mut self, holes: Holes) -> Self {
        self.holes = holes;
        self
    }

    /// What is known so far.
    pub fn index(&self) -> &LineIndex {
        &self.index
    }

    /// Data bytes this read has read to count lines.
    pub fn spent(&self) -> u64 {
        self.spent
    }

    /// Counts on, whatever the budget (though spending it), until the newline that ends line
    /// `first - 1` is counted or the file's end is reached, so that [`LineIndex::start_for`]
    /// gives a mark close before line `first`.
    pub fn reach(&mut self, first: u64) -> Result<(), CountError> {
        let want = first.saturating_sub(1);
        if self.index.newlines >= want {
            return Ok(());
        }
        self.extend(Until::Newlines(want))
    }

    /// Counts on toward the file's end within what is left of the budget.
    pub fn count_on(&mut self) -> Result<(), CountError> {
        if self.index.total.is_some() {
            return Ok(());
        }
        self.extend(Until::Budget)
    }

    /// Records the file's line count learned otherwise (a window that was read to the end).
    pub fn learn_total(&mut self, total: u64) {
        if self.index.total.is_none() {
            self.index.total = Some(total);
            self.remember();
        }
    }

    /// Keeps what is known for the next read, when the file is settled and did not change.
    fn remember(&self) {
        if self.key.settled_before(self.began)
            && FileKey::of(self.file).is_ok_and(|k| k == self.key)
        {
            remember(self.key, &self.index);
        }
    }

    fn extend(&mut self, until: Until) -> Result<(), CountError> {
        let size = self.index.size;
        let from = self.index.counted;
        if from >= size {
            return Ok(());
        }
        let (limit, deadline, target) = match until {
            Until::Newlines(want) => (None, None, Some(want - self.index.newlines)),
            Until::Budget => {
                let left = self.budget.bytes.saturating_sub(self.spent);
                let deadline = self.budget.time.map(|t| self.started + t);
                if left == 0 || deadline.is_some_and(|d| Instant::now() >= d) {
                    return Ok(());
                }
                (Some(left), deadline, None)
            }
        };
        let stride = self.index.stride;
        // Segment 0 runs from where the count stopped to the next stride boundary, the others
        // over whole strides.
        let first_boundary = (from / stride + 1) * stride;
        let segments = if first_boundary >= size {
            1
        } else {
            1 + usize::try_from((size - first_boundary).div_ceil(stride)).unwrap_or(usize::MAX)
        };
        let bounds = Bounds {
            from,
            first_boundary,
            stride,
            size,
        };
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, 8)
            .min(segments)
            .min(
                usize::try_from((size - from) / (4 * MIN_STRIDE))
                    .unwrap_or(usize::MAX)
                    .max(1),
            );
        let work = Work {
            file: self.file,
            holes: self.holes,
            ctx: self.ctx,
            bounds,
            segments,
            limit,
            deadline,
            target,
            stop: AtomicBool::new(false),
            claimed: AtomicU64::new(0),
            spent: AtomicU64::new(0),
            seen: AtomicU64::new(0),
            slots: Mutex::new(Slots {
                slots: vec![Slot::Pending; segments],
                next: 0,
                prefix: 0,
                newlines: 0,
            }),
        };
        let results: Vec<Result<(), CountError>> = if threads <= 1 {
            vec![work.run()]
        } else {
            std::thread::scope(|scope| {
                let handles: Vec<_> = (0..threads)
                    .map(|_| {
                        let work = &work;
                        scope.spawn(move || work.run())
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| {
                        h.join().unwrap_or_else(|_| {
                            Err(CountError::Io(io::Error::other("a counting thread failed")))
                        })
                    })
                    .collect()
            })
        };
        self.spent += work.spent.load(Ordering::Relaxed);
        let done = from + work.seen.load(Ordering::Relaxed);
        let slots = work.slots.into_inner().map(|s| s.slots).unwrap_or_default();
        self.apply(&bounds, slots);
        self.remember();
        let mut failure = None;
        for r in results {
            match r {
                Ok(()) => {}
                Err(CountError::Cancelled { .. }) => {
                    return Err(CountError::Cancelled {
                        done: done.min(size),
                    });
                }
                Err(e) => failure = failure.or(Some(e)),
            }
        }
        failure.map_or(Ok(()), Err)
    }

    /// Extends the index over the segments counted without a gap from where it stopped.
    fn apply(&mut self, bounds: &Bounds, slots: Vec<Slot>) {
        let index = &mut self.index;
        for (j, slot) in slots.into_iter().enumerate() {
            let (to, newlines, whole) = match slot {
                Slot::Done(n) => (bounds.end_of(j), n, true),
                Slot::Part { to, newlines } => (to, newlines, false),
                Slot::Pending => break,
            };
            index.newlines += newlines;
            index.counted = to;
            if whole && to < index.size && to % index.stride == 0 {
                index.marks.push(index.newlines);
            }
            if !whole {
                break;
            }
        }
        if index.counted >= index.size && index.total.is_none() {
            let mut last = [0u8; 1];
            let unterminated = self
                .file
                .read_exact_at(&mut last, index.size - 1)
                .map_or(true, |()| last[0] != b'\n');
            index.total = Some(index.newlines + u64::from(unterminated));
        }
    }
}

/// Where the segments of one extension begin and end.
#[derive(Clone, Copy, Debug)]
struct Bounds {
    from: u64,
    first_boundary: u64,
    stride: u64,
    size: u64,
}

impl Bounds {
    fn start_of(&self, j: usize) -> u64 {
        if j == 0 {
            self.from
        } else {
            self.end_of(j - 1)
        }
    }

    fn end_of(&self, j: usize) -> u64 {
        (self.first_boundary + j as u64 * self.stride).min(self.size)
    }
}

/// What became of one segment.
#[derive(Clone, Copy, Debug)]
enum Slot {
    /// Not counted.
    Pending,
    /// Counted whole: its newlines.
    Done(u64),
    /// Counted from its start up to `to` when the count stopped.
    Part { to: u64, newlines: u64 },
}

struct Slots {
    slots: Vec<Slot>,
    /// The next segment to take.
    next: usize,
    /// Segments `0..prefix` are all done.
    prefix: usize,
    /// The newlines in them.
    newlines: u64,
}

/// One extension of a count, shared by its threads: each takes the next segment not taken,
/// with its share of the byte budget claimed in segment order, so the segment the count's
/// prefix waits for always has budget.
struct Work<'a> {
    file: &'a OpenFile,
    holes: Holes,
    ctx: &'a CallContext,
    bounds: Bounds,
    segments: usize,
    /// The most data bytes to read.
    limit: Option<u64>,
    deadline: Option<Instant>,
    /// Stop once the done prefix holds this many newlines.
    target: Option<u64>,
    stop: AtomicBool,
    /// Bytes of the budget claimed by segments taken and not yet given back.
    claimed: AtomicU64,
    /// Data bytes read.
    spent: AtomicU64,
    /// Bytes dealt with: read, or skipped as holes.
    seen: AtomicU64,
    slots: Mutex<Slots>,
}

impl Work<'_> {
    fn run(&self) -> Result<(), CountError> {
        let mut buf = vec![0u8; COUNT_BUF];
        while let Some((j, mut grant)) = self.take() {
            let end = self.bounds.end_of(j);
            let mut pos = self.bounds.start_of(j);
            let mut newlines = 0u64;
            let mut stopped = false;
            'segment: while let Some(data) = holes::next_data(self.file, pos, end, self.holes) {
                self.dealt_with(data.start - pos);
                pos = data.start;
                while pos < data.end {
                    if self.ctx.is_cancelled() {
                        self.stop.store(true, Ordering::Relaxed);
                        self.finish(j, Slot::Part { to: pos, newlines });
                        return Err(CountError::Cancelled { done: 0 });
                    }
                    if grant == 0
                        || self.stop.load(Ordering::Relaxed)
                        || self.deadline.is_some_and(|d| Instant::now() >= d)
                    {
                        stopped = true;
                        break 'segment;
                    }
                    let want = (data.end - pos).min(buf.len() as u64).min(grant);
                    let n = match self.file.read_at(&mut buf[..want as usize], pos) {
                        // The file is shorter than it was: nothing more to count.
                        Ok(0) => {
                            pos = end;
                            break 'segment;
                        }
                        Ok(n) => n,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        Err(e) => {
                            self.stop.store(true, Ordering::Relaxed);
                            return Err(e.into());
                        }
                    };
                    grant -= n as u64;
                    self.spent.fetch_add(n as u64, Ordering::Relaxed);
                    newlines += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
                    pos += n as u64;
                    self.dealt_with(n as u64);
                }
            }
            // What holes (or a stop) left unused goes back to the budget.
            self.claimed.fetch_sub(grant, Ordering::Relaxed);
            if stopped {
                self.stop.store(true, Ordering::Relaxed);
                self.finish(j, Slot::Part { to: pos, newlines });
                return Ok(());
            }
            // The rest of the segment was a hole.
            self.dealt_with(end.saturating_sub(pos));
            self.finish(j, Slot::Done(newlines));
        }
        Ok(())
    }

    /// The next segment and the bytes of the budget it may read; `None` when none is left, the
    /// count is stopping, or the budget is all claimed.
    fn take(&self) -> Option<(usize, u64)> {
        if self.stop.load(Ordering::Relaxed) {
            return None;
        }
        let mut slots = self.slots.lock().ok()?;
        let j = slots.next;
        if j >= self.segments {
            return None;
        }
        let len = self.bounds.end_of(j) - self.bounds.start_of(j);
        // Claims are only added here, under the lock, so segments claim in their order.
        let claimed = self.claimed.load(Ordering::Relaxed);
        let grant = self
            .limit
            .map_or(len, |limit| len.min(limit.saturating_sub(claimed)));
        if grant == 0 && len > 0 {
            return None;
        }
        self.claimed.fetch_add(grant, Ordering::Relaxed);
        slots.next += 1;
        Some((j, grant))
    }

    /// Notes `n` more bytes dealt with, and reports progress in bytes of the file.
    fn dealt_with(&self, n: u64) {
        if n == 0 {
            return;
        }
        let seen = self.seen.fetch_add(n, Ordering::Relaxed) + n;
        if self.ctx.wants_progress() {
            let done = self.bounds.from + seen;
            let size = self.bounds.size;
            self.ctx.progress(done, Some(size), || {
                format!("{done} of {size} bytes counted")
            });
        }
    }

    /// Records what became of segment `j`, and stops the count once the target is reached.
    fn finish(&self, j: usize, slot: Slot) {
        let Ok(mut slots) = self.slots.lock() else {
            return;
        };
        slots.slots[j] = slot;
        while let Some(&Slot::Done(n)) = slots.slots.get(slots.prefix) {
            slots.prefix += 1;
            slots.newlines += n;
        }
        if self.target.is_some_and(|t| slots.newlines >= t) {
            self.stop.store(true, Ordering::Relaxed);
        }
    }
}

struct Entry {
    key: FileKey,
    index: LineIndex,
    used: u64,
}

struct Cache {
    entries: Vec<Entry>,
    clock: u64,
}

static CACHE: Mutex<Cache> = Mutex::new(Cache {
    entries: Vec::new(),
    clock: 0,
});

fn cached(key: &FileKey) -> Option<LineIndex> {
    let mut cache = CACHE.lock().ok()?;
    cache.clock += 1;
    let clock = cache.clock;
    let pos = cache
        .entries
        .iter()
        .position(|e| e.key.dev == key.dev && e.key.ino == key.ino)?;
    if cache.entries[pos].key != *key {
        // Another version of the file: what was known of it no longer holds.
        cache.entries.swap_remove(pos);
        return None;
    }
    let entry = &mut cache.entries[pos];
    entry.used = clock;
    Some(entry.index.clone())
}

fn remember(key: FileKey, index: &LineIndex) {
    if index.marks.len() > MAX_CACHED_MARKS {
        return;
    }
    let Ok(mut cache) = CACHE.lock() else {
        return;
    };
    cache.clock += 1;
    let clock = cache.clock;
    if let Some(held) = cache.entries.iter_mut().find(|e| e.key == key) {
        // Two reads of the same version may count at once: keep whichever knows more.
        if index.knows_more_than(&held.index) {
            held.index = index.clone();
        }
        held.used = clock;
        return;
    }
    cache
        .entries
        .retain(|e| !(e.key.dev == key.dev && e.key.ino == key.ino));
    // Least recently used first out, until the new entry fits both bounds.
    loop {
        let held: usize = cache.entries.iter().map(|e| e.index.marks.len()).sum();
        if cache.entries.len() < MAX_CACHED_FILES && held + index.marks.len() <= MAX_CACHED_MARKS {
            break;
        }
        let Some(oldest) = cache
            .entries
            .iter()
            .enumerate()
            .min_by_key(|(_, e)| e.used)
            .map(|(i, _)| i)
        else {
            break;
        };
        cache.entries.swap_remove(oldest);
    }
    cache.entries.push(Entry {
        key,
        index: index.clone(),
        used: clock,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Seek, SeekFrom, Write};
    use std::sync::Arc;

    fn file_with(bytes: &[u8]) -> OpenFile {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(bytes).unwrap();
        f.seek(SeekFrom::Start(0)).unwrap();
        f
    }

    /// Lets a file just written age past the settle time, so that its counts are cached.
    fn settle() {
        std::thread::sleep(SETTLE + Duration::from_millis(50));
    }

    fn budget(bytes: u64) -> CountBudget {
        CountBudget { bytes, time: None }
    }

    /// The index of `f` after one read's count within `budget` (the whole file by default).
    fn counted(f: &OpenFile, budget: CountBudget, holes: Holes) -> (LineIndex, u64) {
        let ctx = CallContext::default();
        let key = FileKey::of(f).unwrap();
        let mut count = Count::new(f, key, budget, Instant::now(), &ctx).with_holes(holes);
        count.count_on().unwrap();
        (count.index().clone(), count.spent())
    }

    fn text_lines(n: u32) -> Vec<u8> {
        let mut text = Vec::new();
        for i in 0..n {
            text.extend_from_slice(
                format!("line {i} {}\n", "x".repeat((i % 37) as usize)).as_bytes(),
            );
        }
        text
    }

    #[test]
    fn counts_match_a_plain_count_and_marks_count_what_precedes_them() {
        let mut text = text_lines(200_000);
        text.extend_from_slice(b"tail without newline");
        let f = file_with(&text);
        for holes in [Holes::Seek, Holes::Read] {
            let (index, _) = counted(&f, CountBudget::default(), holes);
            assert_eq!(index.total(), Some(200_001));
            assert_eq!(index.counted(), text.len() as u64);
            for (i, &m) in index.marks.iter().enumerate() {
                let at = i * index.stride as usize;
                assert_eq!(m, memchr::memchr_iter(b'\n', &text[..at]).count() as u64);
            }
            for first in [1u64, 2, 3, 1000, 54_321, 199_999, 200_001] {
                let (at, before) = index.start_for(first);
                assert_eq!(
                    before,
                    memchr::memchr_iter(b'\n', &text[..at as usize]).count() as u64
                );
                assert!(at == 0 || before < first - 1, "{first}: {at} {before}");
            }
        }
    }

    #[test]
    fn holes_are_skipped_and_a_trailing_hole_leaves_the_last_line_unterminated() {
        let f = tempfile::tempfile().unwrap();
        f.write_all_at(b"head\n", 0).unwrap();
        f.write_all_at(b"mid\n", 64 << 20).unwrap();
        f.set_len(1 << 30).unwrap();
        let (index, spent) = counted(&f, budget(1 << 30), Holes::Seek);
        assert_eq!(index.total(), Some(3));
        assert_eq!(index.start_for(3), (64 << 20, 1));
        if holes::next_data(&f, 1 << 20, 2 << 20, Holes::Seek).is_none() {
            assert!(
                spent <= 1 << 20,
                "read {spent} bytes of a file of two blocks"
            );
        }
    }

    #[test]
    fn a_sparse_file_of_thousands_of_extents_is_counted_by_its_data_alone() {
        // A line every MiB of a 4 GiB file: 4096 stretches of data, far more than any fixed
        // list of them would hold.
        let f = tempfile::tempfile().unwrap();
        let size = 4u64 << 30;
        let mut at = 0;
        while at < size {
            f.write_all_at(b"a line of text\n", at).unwrap();
            at += 1 << 20;
        }
        f.set_len(size).unwrap();
        if holes::next_data(&f, 4096, 1 << 20, Holes::Seek).is_some() {
            return; // this filesystem does not report holes
        }
        let t0 = Instant::now();
        let (index, spent) = counted(&f, budget(64 << 20), Holes::Seek);
        assert_eq!(
            index.total(),
            Some(4096 + 1),
            "the trailing hole is a last line"
        );
        assert!(spent <= 64 << 20, "{spent}");
        assert!(t0.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn a_count_stops_at_its_byte_budget_and_the_next_read_goes_on_from_there() {
        let text = text_lines(400_000);
        let f = file_with(&text);
        settle();
        let size = text.len() as u64;
        let step = 1 << 20;
        let mut last = 0;
        let mut reads = 0;
        loop {
            let (index, spent) = counted(&f, budget(step), Holes::Read);
            reads += 1;
            assert!(spent <= step, "read {spent} bytes on a budget of {step}");
            assert!(index.counted() > last, "read {reads} counted nothing new");
            let before = &text[..index.counted() as usize];
            assert_eq!(
                index.lines_at_least(),
                memchr::memchr_iter(b'\n', before).count() as u64
                    + u64::from(index.counted() < size)
            );
            last = index.counted();
            if let Some(total) = index.total() {
                assert_eq!(total, 400_000);
                break;
            }
            assert!(reads < 100, "the count does not converge");
        }
        assert!(reads >= size.div_ceil(step) as usize, "{reads} reads");
    }

    #[test]
    fn a_count_stops_at_its_time_budget() {
        let f = file_with(&text_lines(300_000));
        let none = CountBudget {
            bytes: u64::MAX,
            time: Some(Duration::ZERO),
        };
        let (index, spent) = counted(&f, none, Holes::Read);
        assert_eq!((index.counted(), spent, index.total()), (0, 0, None));
        assert_eq!(index.lines_at_least(), 1);
        let ample = CountBudget {
            bytes: u64::MAX,
            time: Some(Duration::from_secs(60)),
        };
        assert_eq!(counted(&f, ample, Holes::Read).0.total(), Some(300_000));
    }

    #[test]
    fn reaching_a_line_past_the_budget_counts_up_to_it() {
        let text = text_lines(300_000);
        let f = file_with(&text);
        let ctx = CallContext::default();
        let key = FileKey::of(&f).unwrap();
        let mut count =
            Count::new(&f, key, budget(0), Instant::now(), &ctx).with_holes(Holes::Read);
        count.count_on().unwrap();
        assert_eq!(count.index().counted(), 0);
        count.reach(250_000).unwrap();
        let (at, before) = count.index().start_for(250_000);
        assert!(before < 249_999 && at > 0);
        let after_mark = &text[at as usize..];
        let to_go = memchr::memchr_iter(b'\n', after_mark).count() as u64;
        assert!(
            before + to_go >= 249_999,
            "line 250000 starts after the mark"
        );
        // Counted at least up to that line (a thread may have run ahead of the others).
        assert!(count.index().lines_at_least() >= 250_000);
        assert!(count.spent() >= at);
    }

    #[test]
    fn a_changed_file_is_not_served_from_the_cache() {
        let text = "a\n".repeat(1 << 20);
        let f = file_with(text.as_bytes());
        let key = FileKey::of(&f).unwrap();
        let old = FileKey {
            mtime: (0, 0),
            ctime: (0, 0),
            ..key
        };
        let (index, _) = counted(&f, CountBudget::default(), Holes::Seek);
        remember(old, &index);
        assert!(cached(&old).is_some());
        let grown = FileKey {
            size: key.size + 1,
            ..old
        };
        assert!(cached(&grown).is_none(), "a size change drops the entry");
        assert!(cached(&old).is_none(), "and it stays dropped");
    }

    #[test]
    fn a_cancelled_count_stops_and_keeps_what_it_counted() {
        // Small enough to be counted by one thread, so the first progress report (which
        // cancels) comes after the first buffer of the first segment.
        let text = "a\n".repeat(768 << 10);
        let f = file_with(text.as_bytes());
        settle();
        let flag = Arc::new(AtomicBool::new(true));
        let ctx = CallContext::with_flag(Arc::clone(&flag));
        let key = FileKey::of(&f).unwrap();
        let mut count = Count::new(&f, key, budget(u64::MAX), Instant::now(), &ctx);
        assert!(matches!(
            count.count_on(),
            Err(CountError::Cancelled { .. })
        ));
        // Cancelled part way: the first progress report cancels the call.
        let seen = Arc::new(AtomicU64::new(0));
        let flag = Arc::new(AtomicBool::new(false));
        let (f2, s2) = (Arc::clone(&flag), Arc::clone(&seen));
        let ctx = CallContext::with_flag(Arc::clone(&flag)).with_progress(Arc::new(
            move |p: crate::context::Progress| {
                s2.store(p.done, Ordering::Relaxed);
                f2.store(true, Ordering::Relaxed);
            },
        ));
        let mut count = Count::new(&f, key, budget(u64::MAX), Instant::now(), &ctx);
        assert!(matches!(
            count.count_on(),
            Err(CountError::Cancelled { .. })
        ));
        assert!(seen.load(Ordering::Relaxed) > 0, "progress was reported");
        let kept = cached(&key).expect("what was counted is kept");
        assert!(kept.counted() > 0 && kept.counted() < text.len() as u64);
        let (index, spent) = counted(&f, CountBudget::default(), Holes::Seek);
        assert_eq!(index.total(), Some(768 << 10));
        assert!(
            spent <= text.len() as u64 - kept.counted(),
            "the next read resumed"
        );
    }
}
