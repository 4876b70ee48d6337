//! Line counts of large files, and a process-wide cache of where their lines are.
//!
//! A read that must state a file's length (gg's windows) has to count every newline once. The
//! count runs at memory speed: big positioned reads split across the cores, SIMD counting, no
//! per-line work, holes of sparse files skipped (a hole holds only zero bytes, so no newline).
//! While counting it records a *mark* every so many bytes: the number of newlines before that
//! byte offset. The marks and the total are kept in a small process-wide cache keyed by the
//! file's identity and version (device, inode, size, modification and change times), so a later
//! window of the unchanged file starts reading at the mark before it and stops at its end. An
//! entry is dropped as soon as any part of its key differs, and the cache holds a bounded
//! number of marks in all.

use std::fs::File;
use std::io;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use crate::surface::CallContext;

/// Files smaller than this are counted by the read itself, in one pass, and not cached.
pub const INDEX_MIN_LEN: u64 = 1 << 20;
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
/// The most data extents of a sparse file looked up before the rest is read as data.
const MAX_EXTENTS: usize = 1024;

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
    pub fn of(file: &File) -> io::Result<FileKey> {
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

/// Where a file's lines are: its line count and, every `stride` bytes, how many newlines come
/// before that offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineIndex {
    /// How many lines the file has (a final newline does not make an empty last line).
    pub total: u64,
    stride: u64,
    /// `marks[i]`: the newlines in bytes `0..i * stride`.
    marks: Vec<u64>,
}

impl LineIndex {
    /// Where to start reading to reach the start of line `first` (1-based): a byte offset and
    /// how many newlines come before it. Either the offset is 0, or fewer than `first - 1`
    /// newlines come before it, so the newline ending line `first - 1` lies at or after it.
    pub fn start_for(&self, first: u64) -> (u64, u64) {
        let want = first.saturating_sub(1);
        // The last mark with fewer than `want` newlines before it.
        let i = self.marks.partition_point(|&n| n < want);
        match i.checked_sub(1) {
            Some(i) if i > 0 => (i as u64 * self.stride, self.marks[i]),
            _ => (0, 0),
        }
    }
}

#[cfg(test)]
impl LineIndex {
    /// The index of `bytes` with marks every `stride` bytes, counted the obvious way.
    pub(crate) fn of_bytes(bytes: &[u8], stride: u64) -> LineIndex {
        let marks = (0..bytes.len().div_ceil(stride as usize).max(1))
            .map(|i| memchr::memchr_iter(b'\n', &bytes[..i * stride as usize]).count() as u64)
            .collect();
        let newlines = memchr::memchr_iter(b'\n', bytes).count() as u64;
        LineIndex {
            total: newlines + u64::from(bytes.last().is_some_and(|b| *b != b'\n')),
            stride,
            marks,
        }
    }
}

/// The counting of one file ended early.
#[derive(Debug)]
pub enum CountError {
    /// The caller cancelled the call; `done` of the file's bytes were counted.
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

/// The line index of `file` (whose key is `key`): from the cache when it holds this version,
/// else counted (reporting progress as bytes counted of the file's size) and, when the file
/// is settled and did not change meanwhile, cached.
pub fn index_of(file: &File, key: &FileKey, ctx: &CallContext) -> Result<LineIndex, CountError> {
    if let Some(index) = cached(key) {
        return Ok(index);
    }
    let began = SystemTime::now();
    let index = count(file, key.size, ctx)?;
    if key.settled_before(began) && FileKey::of(file).is_ok_and(|now| now == *key) {
        remember(*key, &index);
    }
    Ok(index)
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

/// Counts the lines of the first `size` bytes of `file`, recording marks.
pub fn count(file: &File, size: u64, ctx: &CallContext) -> Result<LineIndex, CountError> {
    let stride = MIN_STRIDE.max(size.div_ceil(MAX_MARKS_PER_FILE).next_multiple_of(4096));
    let segments = usize::try_from(size.div_ceil(stride)).unwrap_or(usize::MAX);
    let extents = data_extents(file, size);
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8)
        .min(segments.max(1))
        .min(
            usize::try_from(size / (4 * MIN_STRIDE))
                .unwrap_or(usize::MAX)
                .max(1),
        );
    let done = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let counter = Counter {
        file,
        size,
        stride,
        extents: &extents,
        done: &done,
        stop: &stop,
        ctx,
    };
    let mut counts = vec![0u64; segments];
    if threads <= 1 {
        counter.run(0, &mut counts)?;
    } else {
        // Contiguous runs of segments, one per thread, so each reads sequentially.
        let per = segments.div_ceil(threads);
        let results: Vec<Result<(), CountError>> = std::thread::scope(|scope| {
            let handles: Vec<_> = counts
                .chunks_mut(per)
                .enumerate()
                .map(|(i, part)| {
                    let counter = &counter;
                    scope.spawn(move || counter.run(i * per, part))
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
        });
        for r in results {
            r?;
        }
    }
    let mut marks = Vec::with_capacity(segments);
    let mut newlines = 0u64;
    for c in counts {
        marks.push(newlines);
        newlines += c;
    }
    let mut last = [0u8; 1];
    let unterminated = size > 0
        && file
            .read_exact_at(&mut last, size - 1)
            .map_or(true, |()| last[0] != b'\n');
    Ok(LineIndex {
        total: newlines + u64::from(unterminated),
        stride,
        marks,
    })
}

struct Counter<'a> {
    file: &'a File,
    size: u64,
    stride: u64,
    extents: &'a [(u64, u64)],
    done: &'a AtomicU64,
    stop: &'a AtomicBool,
    ctx: &'a CallContext,
}

impl Counter<'_> {
    /// Counts the newlines of segments `first..first + counts.len()` into `counts`.
    fn run(&self, first: usize, counts: &mut [u64]) -> Result<(), CountError> {
        let mut buf = vec![0u8; COUNT_BUF];
        for (i, slot) in counts.iter_mut().enumerate() {
            let start = (first + i) as u64 * self.stride;
            let end = (start + self.stride).min(self.size);
            for (from, to) in self.data_in(start, end) {
                let mut pos = from;
                while pos < to {
                    if self.stop.load(Ordering::Relaxed) {
                        return Ok(());
                    }
                    if self.ctx.is_cancelled() {
                        self.stop.store(true, Ordering::Relaxed);
                        return Err(CountError::Cancelled {
                            done: self.done.load(Ordering::Relaxed),
                        });
                    }
                    let want = usize::try_from(to - pos)
                        .unwrap_or(usize::MAX)
                        .min(buf.len());
                    let n = match self.file.read_at(&mut buf[..want], pos) {
                        Ok(0) => break,
                        Ok(n) => n,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        Err(e) => {
                            self.stop.store(true, Ordering::Relaxed);
                            return Err(e.into());
                        }
                    };
                    *slot += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
                    pos += n as u64;
                    let done = self.done.fetch_add(n as u64, Ordering::Relaxed) + n as u64;
                    if self.ctx.wants_progress() {
                        self.ctx.progress(done, Some(self.size), || {
                            format!("{done} of {} bytes counted", self.size)
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// The parts of `start..end` that hold data (not holes).
    fn data_in(&self, start: u64, end: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.extents
            .iter()
            .map(move |&(a, b)| (a.max(start), b.min(end)))
            .filter(|(a, b)| a < b)
    }
}

/// The data extents of `file` up to `size`, found with `SEEK_DATA`/`SEEK_HOLE`; the whole file
/// when the filesystem cannot say, or when there are too many to look up.
fn data_extents(file: &File, size: u64) -> Vec<(u64, u64)> {
    use rustix::fs::{SeekFrom, seek};
    let whole = vec![(0, size)];
    let mut extents = Vec::new();
    let mut pos = 0u64;
    while pos < size {
        if extents.len() >= MAX_EXTENTS {
            extents.push((pos, size));
            return extents;
        }
        let data = match seek(file, SeekFrom::Data(pos)) {
            Ok(d) => d,
            // No data past `pos`: the rest is a hole.
            Err(rustix::io::Errno::NXIO) => break,
            Err(_) => return whole,
        };
        if data >= size {
            break;
        }
        let hole = match seek(file, SeekFrom::Hole(data)) {
            Ok(h) => h.min(size),
            Err(_) => return whole,
        };
        if hole <= data {
            return whole;
        }
        extents.push((data, hole));
        pos = hole;
    }
    extents
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Seek, SeekFrom, Write};

    fn file_with(bytes: &[u8]) -> File {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(bytes).unwrap();
        f.seek(SeekFrom::Start(0)).unwrap();
        f
    }

    #[test]
    fn counts_match_a_plain_count_and_marks_count_what_precedes_them() {
        let mut text = Vec::new();
        for i in 0..200_000u32 {
            text.extend_from_slice(
                format!("line {i} {}\n", "x".repeat((i % 37) as usize)).as_bytes(),
            );
        }
        text.extend_from_slice(b"tail without newline");
        let f = file_with(&text);
        let index = count(&f, text.len() as u64, &CallContext::default()).unwrap();
        assert_eq!(index.total, 200_001);
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

    #[test]
    fn holes_are_skipped_and_a_trailing_hole_leaves_the_last_line_unterminated() {
        let f = tempfile::tempfile().unwrap();
        f.write_all_at(b"head\n", 0).unwrap();
        f.write_all_at(b"mid\n", 64 << 20).unwrap();
        f.set_len(1 << 30).unwrap();
        let t0 = std::time::Instant::now();
        let index = count(&f, 1 << 30, &CallContext::default()).unwrap();
        assert_eq!(index.total, 3);
        assert!(t0.elapsed() < Duration::from_secs(5));
        assert_eq!(index.start_for(3), (64 << 20, 1));
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
        remember(old, &count(&f, key.size, &CallContext::default()).unwrap());
        assert!(cached(&old).is_some());
        let grown = FileKey {
            size: key.size + 1,
            ..old
        };
        assert!(cached(&grown).is_none(), "a size change drops the entry");
        assert!(cached(&old).is_none(), "and it stays dropped");
    }

    #[test]
    fn a_cancelled_count_stops() {
        let text = "a\n".repeat(4 << 20);
        let f = file_with(text.as_bytes());
        let flag = std::sync::Arc::new(AtomicBool::new(true));
        let ctx = CallContext::with_flag(flag);
        assert!(matches!(
            count(&f, text.len() as u64, &ctx),
            Err(CountError::Cancelled { .. })
        ));
    }
}
