//! Where a sparse file's data is, so that a scan for something other than zero bytes (a line
//! count looking for newlines) can skip its holes without reading them: a hole reads as zeros.
//!
//! The filesystem is asked with `lseek(SEEK_DATA)` and `lseek(SEEK_HOLE)` on the systems that
//! have them (Linux, Android, macOS and the other Apple systems, FreeBSD; the call is in
//! `platform`). Elsewhere, and
//! wherever the filesystem cannot tell (it then reports the whole file as data, which Linux's
//! generic implementation does), every byte is data: always right, only slower.

use std::fs::File;
use std::ops::Range;

/// How [`next_data`] finds holes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Holes {
    /// Ask the filesystem where the platform can; elsewhere as [`Holes::Read`]. The default.
    #[default]
    Seek,
    /// Every byte is data: the portable path, chosen explicitly so that it is tested on every
    /// platform.
    Read,
}

/// The first stretch of data within `start..end` of `file`, or `None` when that range holds
/// only holes (or is empty). A stretch may be longer than the data written there (filesystems
/// report whole blocks) but never leaves out a byte that is not zero. Asking moves the file's
/// offset: read with positioned reads, or seek before reading on.
pub fn next_data(file: &File, start: u64, end: u64, holes: Holes) -> Option<Range<u64>> {
    if start >= end {
        return None;
    }
    match holes {
        Holes::Seek => super::platform::seek_data(file, start, end),
        Holes::Read => Some(start..end),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileExt;

    /// Every stretch [`next_data`] gives for `start..end`, walked the way a scan walks them.
    fn stretches(file: &File, start: u64, end: u64, holes: Holes) -> Vec<Range<u64>> {
        let mut out = Vec::new();
        let mut pos = start;
        while let Some(data) = next_data(file, pos, end, holes) {
            assert!(data.start >= pos && data.end <= end && data.start < data.end);
            pos = data.end;
            out.push(data);
        }
        out
    }

    #[test]
    fn the_stretches_of_data_hold_every_byte_written_and_the_portable_path_reads_all() {
        let f = tempfile::tempfile().unwrap();
        let at = [0u64, 5 << 20, (64 << 20) + 3];
        for &p in &at {
            f.write_all_at(b"data\n", p).unwrap();
        }
        let size = 1u64 << 30;
        f.set_len(size).unwrap();
        let seen = stretches(&f, 0, size, Holes::Seek);
        for &p in &at {
            assert!(
                seen.iter().any(|r| r.start <= p && p + 5 <= r.end),
                "the data at {p} is outside {seen:?}"
            );
        }
        // A range that starts inside data starts there.
        let inner = stretches(&f, 2, 3, Holes::Seek);
        assert_eq!(inner, vec![2..3]);
        assert_eq!(stretches(&f, 0, size, Holes::Read), vec![0..size]);
        assert_eq!(next_data(&f, 7, 7, Holes::Read), None);
    }

    #[test]
    fn a_filesystem_that_reports_holes_keeps_a_sparse_file_to_its_data() {
        let f = tempfile::tempfile().unwrap();
        f.write_all_at(b"head\n", 0).unwrap();
        let size = 10u64 << 30;
        f.set_len(size).unwrap();
        let seen = stretches(&f, 0, size, Holes::Seek);
        let data: u64 = seen.iter().map(|r| r.end - r.start).sum();
        // A filesystem without hole support reports the whole file; ext4, XFS, btrfs, tmpfs
        // and APFS report the one block written.
        assert!(data == size || data <= 1 << 20, "{seen:?}");
        if data != size {
            assert_eq!(next_data(&f, 1 << 20, size, Holes::Seek), None);
        }
    }
}
