//! Opening and reading: regular-file opens that never block on FIFOs, whole and partial reads
//! of an open file, and directory listings.

use std::fs::File;
use std::io;

use cap_std::ambient_authority;
use cap_std::fs::Dir;

use super::Place;
use super::meta::{DirEntry, EntryKind, Meta, check_regular, metadata};

/// Opens a regular file for reading. Directories fail with `IsADirectory`; FIFOs, sockets and
/// devices fail with `InvalidInput` before they are opened, so a read never blocks on them.
pub fn open_regular(place: Place<'_>) -> io::Result<(File, Meta)> {
    check_regular(&metadata(place)?)?;
    let file = open_by_path(place, OpenFor::Read)?;
    let meta = Meta::from(file.metadata()?);
    check_regular(&meta)?;
    Ok((file, meta))
}

/// What [`open_by_path`] opens a file for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::access) enum OpenFor {
    /// Reading.
    Read,
    /// Appending, the file created when missing.
    Append,
}

/// Opens what is at `place` for `what`, adding `O_NONBLOCK | O_NOCTTY`: a file looked at before
/// the open can be exchanged for a FIFO, a socket or a device by the time it is opened, and a
/// FIFO nobody has open at the other end would hold a blocking open for ever. So the open
/// returns at once, and the check of the open file that follows refuses what is not a regular
/// file (a FIFO opened for writing with no reader fails the open itself, `ENXIO`, told as that
/// check tells it). The flag changes nothing for a regular file.
///
/// Beneath a root, a link at the last component is not followed: the jail resolved the path,
/// links and all, and checked the name it arrived at, so a link there now was put at the name
/// since (one to a non-accessible file beside it would lead the open there); the open refuses
/// it. Without a jail, links are followed as any process follows them.
pub(in crate::access) fn open_by_path(place: Place<'_>, what: OpenFor) -> io::Result<File> {
    let flags = (rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOCTTY).bits() as i32;
    let append = what == OpenFor::Append;
    let opened = match place {
        Place::Ambient(p) => {
            let mut options = std::fs::OpenOptions::new();
            std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, flags);
            options.read(!append).append(append).create(append).open(p)
        }
        Place::Beneath(dir, rel) => {
            let mut options = cap_std::fs::OpenOptions::new();
            cap_std::fs::OpenOptionsExt::custom_flags(&mut options, flags);
            cap_fs_ext::OpenOptionsFollowExt::follow(&mut options, cap_fs_ext::FollowSymlinks::No);
            options.read(!append).append(append).create(append);
            dir.open_with(Place::rel(rel), &options)
                .map(cap_std::fs::File::into_std)
        }
    };
    opened.map_err(|e| match rustix::io::Errno::from_io_error(&e) {
        Some(rustix::io::Errno::NXIO) => io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file (a FIFO, socket or device)",
        ),
        Some(rustix::io::Errno::LOOP | rustix::io::Errno::MLINK) => io::Error::other(
            "it became a symbolic link while it was being opened (something changed it \
             meanwhile), so it was not followed and nothing went through it; call again",
        ),
        _ => e,
    })
}

/// Reads the whole regular file at `place` into memory.
pub fn read_all(place: Place<'_>) -> io::Result<(Vec<u8>, Meta)> {
    let (file, meta) = open_regular(place)?;
    let buf = read_open(file, &meta)?;
    Ok((buf, meta))
}

/// Reads `file` into `buf` until it is full or the file ends; how many bytes were read. A
/// regular file reads short only at its end, so a short read ends it too: one `read` for a
/// file that fits.
pub fn read_full(file: &mut File, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match io::Read::read(file, &mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => {
                filled += n;
                // A short read of a regular file is its end.
                if filled < buf.len() {
                    break;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Reads the rest of `file`, opened by [`open_regular`] with `meta`.
pub fn read_open(file: File, meta: &Meta) -> io::Result<Vec<u8>> {
    let mut buf = Vec::with_capacity(usize::try_from(meta.len).unwrap_or(0));
    // Through `take`, so the reading does not stat the file again for a size it already has;
    // a file that grew since is still read to its end.
    io::Read::read_to_end(&mut io::Read::take(file, u64::MAX), &mut buf)?;
    Ok(buf)
}

/// The entries of the directory at `place`, in the order the filesystem gives them.
pub fn read_dir(place: Place<'_>) -> io::Result<Vec<DirEntry>> {
    let dir = open_dir(place)?;
    let mut out = Vec::new();
    for entry in dir.entries()? {
        let entry = entry?;
        let name = entry.file_name();
        let file_type = entry.file_type()?;
        let kind = if file_type.is_symlink() {
            EntryKind::Symlink {
                target: dir.read_link_contents(&name).unwrap_or_default(),
            }
        } else if file_type.is_dir() {
            EntryKind::Dir
        } else if file_type.is_file() {
            EntryKind::File
        } else {
            EntryKind::Other
        };
        let meta = dir.symlink_metadata(&name).ok().map(Meta::from);
        out.push(DirEntry { name, kind, meta });
    }
    Ok(out)
}

pub(in crate::access) fn open_dir(place: Place<'_>) -> io::Result<Dir> {
    match place {
        Place::Ambient(p) => Dir::open_ambient_dir(p, ambient_authority()),
        Place::Beneath(dir, rel) => dir.open_dir(Place::rel(rel)),
    }
}

/// Opens a file found by a walk for reading, without the look before the open of
/// [`open_regular`] (the walk listed it as a regular file); what was put at its name since is
/// refused by the check of the open file.
pub fn open_walked(place: Place<'_>) -> io::Result<File> {
    let file = open_by_path(place, OpenFor::Read)?;
    // Listed as a regular file; something else may have been put at its name since.
    check_regular(&Meta::from(file.metadata()?))?;
    Ok(file)
}
