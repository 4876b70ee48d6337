//! Whether this process may change a file that exists: the question the kernel answers when the
//! file is opened for writing, asked before a write replaces the file instead.
//!
//! Atomic replacement never opens the old file for writing: it writes a new file and renames it
//! over the old name, which needs only the folder's permission. So a process that may write a
//! folder could otherwise replace a file in it that it may not write (another user's `0644`
//! file), and the file would silently become the process's own. Every write, edit, patch,
//! append and move onto an existing file therefore first asks the kernel's effective-ID access
//! check (`faccessat` with `AT_EACCESS`: the same answer an `open(O_WRONLY)` would get, ACLs
//! and capabilities included, so root passes) and refuses before anything is written.
//! Removing a file is the folder's business, as in the kernel, and is not checked here.

use std::io;
use std::os::fd::AsFd;
use std::path::Path;

use super::fs::Meta;

/// Refuses, with `PermissionDenied` naming the owner and the mode, when this process may not
/// write the existing file at `name` (relative to `dir`, links followed as an open follows
/// them), whose metadata is `meta`. `what` names the file in the message ("the file", "the
/// destination").
pub(crate) fn check_may_write(
    dir: impl AsFd,
    name: &Path,
    meta: &Meta,
    what: &str,
) -> io::Result<()> {
    use rustix::fs::{Access as Want, AtFlags};
    use rustix::io::Errno;
    let allowed = match rustix::fs::accessat(dir, name, Want::WRITE_OK, AtFlags::EACCESS) {
        Ok(()) => true,
        Err(Errno::ACCESS | Errno::PERM) => false,
        // A filesystem mounted read-only: the write would fail the same way.
        Err(Errno::ROFS) => return Err(io::Error::from(Errno::ROFS)),
        // No way to ask with the effective ids here (a kernel without `faccessat2` in a set-id
        // process): the permission bits, as the kernel reads them without ACLs.
        Err(Errno::NOSYS | Errno::INVAL) => bits_allow_write(meta),
        // The name gone or changed meanwhile: the write itself meets what is there now.
        Err(_) => true,
    };
    if allowed {
        Ok(())
    } else {
        Err(not_writable(meta, what))
    }
}

/// Whether the permission bits of `meta` let this process's effective ids write the file.
fn bits_allow_write(meta: &Meta) -> bool {
    let uid = rustix::process::geteuid().as_raw();
    if uid == 0 {
        return true;
    }
    if meta.uid == uid {
        return meta.mode & 0o200 != 0;
    }
    let gid = rustix::process::getegid().as_raw();
    let in_group = meta.gid == gid
        || rustix::process::getgroups()
            .is_ok_and(|groups| groups.iter().any(|g| g.as_raw() == meta.gid));
    if in_group {
        meta.mode & 0o020 != 0
    } else {
        meta.mode & 0o002 != 0
    }
}

/// The refusal of a write to a file this process may not write.
fn not_writable(meta: &Meta, what: &str) -> io::Error {
    let me = rustix::process::geteuid().as_raw();
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!(
            "{what} is owned by {}, group {}, with mode {:04o}, which does not let this \
             server's user, {}, write it, so it was left as it is (nothing was written); write \
             to a path of your own instead, or ask the file's owner to make it writable for you",
            id_name(Ids::User, meta.uid),
            id_name(Ids::Group, meta.gid),
            meta.mode,
            id_name(Ids::User, me),
        ),
    )
}

#[derive(Clone, Copy)]
enum Ids {
    User,
    Group,
}

/// `name (uid N)` when the local account database names `id`, else `uid N` (`gid` for
/// groups). Read only when a refusal is written, so it costs nothing on the way of a write.
fn id_name(kind: Ids, id: u32) -> String {
    let (file, label) = match kind {
        Ids::User => ("/etc/passwd", "uid"),
        Ids::Group => ("/etc/group", "gid"),
    };
    #[allow(clippy::disallowed_methods)] // the account database, not a workspace file
    let name = std::fs::read_to_string(file).ok().and_then(|text| {
        text.lines().find_map(|line| {
            let mut fields = line.split(':');
            let name = fields.next()?;
            let listed = fields.nth(1)?.parse::<u32>().ok()?;
            (listed == id && !name.is_empty()).then(|| name.to_string())
        })
    });
    match name {
        Some(name) => format!("{name} ({label} {id})"),
        None => format!("{label} {id}"),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)]
    use super::*;

    #[test]
    fn the_file_owner_and_mode_are_named_in_a_refusal() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f"), "x").unwrap();
        let meta = Meta::from(std::fs::metadata(dir.path().join("f")).unwrap());
        let err = not_writable(
            &Meta {
                mode: 0o644,
                uid: 0,
                gid: 0,
                ..meta
            },
            "the file",
        );
        assert_eq!(err.kind(), io::ErrorKind::PermissionDenied);
        let text = err.to_string();
        assert!(text.contains("owned by root (uid 0)") || text.contains("owned by uid 0"));
        assert!(text.contains("mode 0644"), "{text}");
        assert!(text.contains("nothing was written"), "{text}");
    }

    #[test]
    fn an_account_is_named_by_its_number_when_the_database_does_not_know_it() {
        assert_eq!(id_name(Ids::User, 4_000_000_001), "uid 4000000001");
        assert_eq!(id_name(Ids::Group, 4_000_000_001), "gid 4000000001");
    }

    #[test]
    fn the_bits_decide_for_owner_group_and_others() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f"), "x").unwrap();
        let meta = Meta::from(std::fs::metadata(dir.path().join("f")).unwrap());
        let me = rustix::process::geteuid().as_raw();
        if me == 0 {
            assert!(bits_allow_write(&Meta {
                mode: 0o444,
                ..meta
            }));
            return;
        }
        assert!(bits_allow_write(&Meta {
            mode: 0o644,
            uid: me,
            ..meta
        }));
        assert!(!bits_allow_write(&Meta {
            mode: 0o444,
            uid: me,
            ..meta
        }));
    }
}
