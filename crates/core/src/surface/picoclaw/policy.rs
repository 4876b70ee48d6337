//! PicoClaw's sandbox: which access layer a path is reached through, and which paths no tool
//! may touch.
//!
//! - With `restrict_to_workspace` (the default), a path is first resolved in the workspace's own
//!   jailed access layer (relative paths from the workspace, links that leave it refused). A
//!   path outside it is reachable only when the configuration grants it: read-only tools with
//!   `allow_read_outside_workspace`, or a path matched by a `tools.allow_read_paths` regex
//!   (read-only tools) or a `tools.allow_write_paths` regex (writing tools). A write never
//!   escapes otherwise.
//! - A grant is enforced on what is opened, not on a name opened again later. The regex must
//!   match the absolute path as given; the path is then reached from `/` on folder handles, no
//!   link followed by the kernel (`access::grant::reach`), and the regex must match the real
//!   path reached too (so a link in a granted folder is followed only when its target is
//!   granted). The call then works in a jail whose one root is the deepest folder reached,
//!   already open: the kernel keeps every open beneath that handle, a link swapped in that
//!   leads out of it is refused, and a file with more than one name (a hard link) is not opened,
//!   as in the confined workspace. The path the jail resolves is checked once more. A granted
//!   folder grants what lies beneath it to list_dir and search_files, which walk it on handles.
//! - Without the restriction, every path goes through an unconfined access layer rooted at the
//!   process's working directory, which relative paths resolve from (as PicoClaw does).
//! - Protected credential paths (`.ssh`, `.gnupg`, `.aws`, `.azure`, `.kube`, `.netrc`,
//!   `.git-credentials`, `.pgpass`, private SSH keys, `.docker/config.json`,
//!   `.config/gcloud`, `.config/gh`) are refused for every tool and hidden from listings and
//!   searches; writes are also refused for `/etc/shadow`, `/etc/gshadow`, `/etc/passwd`,
//!   `/etc/group`, `/etc/sudoers` (and `/etc/sudoers.d`) and the workspace's `sessions`
//!   directory. Allowlists never override these. Names are compared without regard to ASCII
//!   case (`.NETRC` is `.netrc` on a case-insensitive filesystem, as macOS's default is);
//!   other Unicode case pairs are not folded, since no protected name holds such a letter.

use std::ops::Deref;
use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use regex::Regex;

use crate::access::{Access, Resolved, grant};
use crate::config::picoclaw::PicoclawConfig;
use crate::error::{ErrorKind, Result, ToolError};

/// Directories whose whole content is protected.
const PROTECTED_DIRS: [&str; 5] = [".ssh", ".gnupg", ".aws", ".azure", ".kube"];
/// Files protected wherever they are.
const PROTECTED_FILES: [&str; 8] = [
    ".netrc",
    "_netrc",
    ".git-credentials",
    ".pgpass",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
];
/// Entries protected inside a given directory.
const PROTECTED_PAIRS: [(&str, &str); 3] = [
    (".docker", "config.json"),
    (".config", "gcloud"),
    (".config", "gh"),
];
/// System files no write may touch.
const WRITE_DENIED: [&str; 6] = [
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/passwd",
    "/etc/group",
    "/etc/sudoers",
    "/etc/sudoers.d",
];

/// Whether a tool reads or writes the path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Op {
    Read,
    Write,
}

/// The access layer a path is reached through: the workspace's (or the unconfined host's), or
/// a jail over a granted folder made for this call.
pub(super) enum Via<'a> {
    Shared(&'a Access),
    Granted(Box<Access>),
}

impl Deref for Via<'_> {
    type Target = Access;

    fn deref(&self) -> &Access {
        match self {
            Via::Shared(access) => access,
            Via::Granted(access) => access,
        }
    }
}

/// A path located under the policy: the access layer to use and the resolved path.
pub(super) struct Target<'a> {
    pub access: Via<'a>,
    pub resolved: Resolved,
}

/// The sandbox of one picoclaw surface.
#[derive(Debug)]
pub(super) struct Policy {
    restrict: bool,
    read_outside: bool,
    read_paths: Vec<Regex>,
    write_paths: Vec<Regex>,
    /// `tools.non_accessible_globs`, which the unconfined host applies too (the workspace's
    /// jail holds its own copy).
    secrets: Vec<String>,
    /// Unconfined, rooted at the process's working directory (unrestricted mode).
    host: OnceLock<Option<Access>>,
}

fn compile(patterns: &[String]) -> Vec<Regex> {
    // Validated when the configuration was loaded; a pattern set in code that does not
    // compile grants nothing.
    patterns.iter().filter_map(|p| Regex::new(p).ok()).collect()
}

impl Policy {
    pub fn new(config: &PicoclawConfig) -> Policy {
        Policy {
            restrict: config.restrict_to_workspace,
            read_outside: config.allow_read_outside_workspace,
            read_paths: compile(&config.allow_read_paths),
            write_paths: compile(&config.allow_write_paths),
            secrets: config.non_accessible_globs.clone(),
            host: OnceLock::new(),
        }
    }

    /// Locates `raw` for `op`.
    pub fn locate<'a>(&'a self, ws: &'a Access, raw: &str, op: Op) -> Result<Target<'a>> {
        if raw.trim().is_empty() {
            return Err(ToolError::invalid(
                "path is empty; pass a path relative to the workspace or an absolute path",
            ));
        }
        if !self.restrict {
            let host = self
                .host
                .get_or_init(|| {
                    // The globs were checked when the configuration was loaded.
                    std::env::current_dir()
                        .ok()
                        .and_then(|cwd| Access::new(&cwd).ok())
                        .and_then(|host| host.with_secrets(&self.secrets).ok())
                })
                .as_ref()
                .unwrap_or(ws);
            let resolved = host.resolve(raw)?;
            self.check(ws, &resolved, op)?;
            return Ok(Target {
                access: Via::Shared(host),
                resolved,
            });
        }
        match ws.resolve(raw) {
            Ok(resolved) => {
                self.check(ws, &resolved, op)?;
                Ok(Target {
                    access: Via::Shared(ws),
                    resolved,
                })
            }
            // A path whose `..` leaves the workspace and comes back is refused with the path
            // inside to use; any other path outside is looked at for a grant.
            Err(e) if e.kind == ErrorKind::OutsideRoot && !comes_back(ws, raw) => {
                self.granted(ws, raw, op)
            }
            Err(e) => Err(e),
        }
    }

    /// Whether the configuration grants `op` on the absolute path `path`.
    fn grants(&self, path: &Path, op: Op) -> bool {
        let matches = |patterns: &[Regex]| {
            let text = path.to_string_lossy();
            patterns.iter().any(|r| r.is_match(&text))
        };
        match op {
            Op::Read => self.read_outside || matches(&self.read_paths),
            Op::Write => matches(&self.write_paths),
        }
    }

    /// Locates `raw`, outside the workspace, in the place a grant gives (see the module doc).
    fn granted<'a>(&'a self, ws: &'a Access, raw: &str, op: Op) -> Result<Target<'a>> {
        let absolute = lexical_absolute(ws.root(), raw);
        if !self.grants(&absolute, op) {
            return Err(self.outside_error(ws, raw, &absolute, op));
        }
        self.check_path(ws, &absolute, raw, op)?;
        let reached = grant::reach(&absolute).map_err(|e| ToolError::from_io(&e, "reach", raw))?;
        let real = reached.real();
        if !self.grants(&real, op) {
            return Err(self.link_error(raw, &real, op));
        }
        self.check_path(ws, &real, raw, op)?;
        let rest = reached.rest().to_path_buf();
        let access = reached.into_access();
        let rest = match rest.to_str() {
            Some("") => ".",
            Some(rest) => rest,
            None => {
                return Err(ToolError::invalid(format!(
                    "{raw} leads to {}, whose name is not UTF-8; pass a path to it that is",
                    real.display()
                )));
            }
        };
        let mut resolved = access.resolve(rest)?;
        resolved.shown = raw.to_string();
        // The folder's handle stays; what lies below it was looked at again by the jail.
        if !self.grants(&resolved.path, op) {
            return Err(self.link_error(raw, &resolved.path, op));
        }
        self.check_path(ws, &resolved.path, raw, op)?;
        Ok(Target {
            access: Via::Granted(Box::new(access)),
            resolved,
        })
    }

    fn outside_error(&self, ws: &Access, raw: &str, absolute: &Path, op: Op) -> ToolError {
        let how = match op {
            Op::Read => {
                "agents.defaults.allow_read_outside_workspace or a matching tools.allow_read_paths \
                 pattern would allow it"
            }
            Op::Write => {
                "only a matching tools.allow_write_paths pattern would allow a write there"
            }
        };
        let shown = if Path::new(raw) == absolute {
            raw.to_string()
        } else {
            format!("{raw} ({})", absolute.display())
        };
        ToolError::new(
            ErrorKind::Denied,
            format!(
                "access denied: {shown} is outside the workspace {}, and \
                 agents.defaults.restrict_to_workspace keeps tools inside it ({how}); pass a path \
                 inside the workspace",
                ws.root().display()
            ),
        )
    }

    /// The error of a granted path whose real place (through links) is not granted.
    fn link_error(&self, raw: &str, real: &Path, op: Op) -> ToolError {
        let key = match op {
            Op::Read => "tools.allow_read_paths",
            Op::Write => "tools.allow_write_paths",
        };
        ToolError::new(
            ErrorKind::Denied,
            format!(
                "access denied: {raw} leads through a symbolic link to {}, which {key} does not \
                 grant (a link in a granted place is followed only to a granted place); pass the \
                 path of a granted file itself",
                real.display()
            ),
        )
    }

    /// Refuses protected paths, and write-denied ones for writes.
    fn check(&self, ws: &Access, resolved: &Resolved, op: Op) -> Result<()> {
        let real = real_path(&resolved.path);
        for path in [resolved.path.as_path(), real.as_path()] {
            self.check_path(ws, path, &resolved.shown, op)?;
        }
        Ok(())
    }

    /// Refuses `path` when it is protected, or write-denied for a write; `shown` names it.
    fn check_path(&self, ws: &Access, path: &Path, shown: &str, op: Op) -> Result<()> {
        if let Some(what) = protected(path) {
            return Err(ToolError::new(
                ErrorKind::Denied,
                format!(
                    "access denied: {shown} is a protected credential path ({what}); no tool may \
                     read, list or write it"
                ),
            ));
        }
        if op == Op::Write
            && let Some(what) = write_denied(ws.root(), path)
        {
            return Err(ToolError::new(
                ErrorKind::Denied,
                format!(
                    "access denied: writes to {shown} are refused ({what}); allow paths do not \
                     override this"
                ),
            ));
        }
        Ok(())
    }
}

/// Whether `raw` climbs out of the workspace with `..` and lexically comes back into it.
fn comes_back(ws: &Access, raw: &str) -> bool {
    Path::new(raw)
        .components()
        .any(|c| c == Component::ParentDir)
        && ws
            .jail()
            .is_some_and(|jail| jail.locate(&lexical_absolute(ws.root(), raw)).is_some())
}

/// `raw` made absolute against `root`, with `.` and `..` removed lexically.
pub(super) fn lexical_absolute(root: &Path, raw: &str) -> PathBuf {
    let given = Path::new(raw);
    let joined = if given.is_absolute() {
        given.to_path_buf()
    } else {
        root.join(given)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The real path of `path`: its longest existing ancestor with links resolved, plus the rest.
pub(super) fn real_path(path: &Path) -> PathBuf {
    crate::access::fs::real_path(path)
}

/// The bytes of `path`'s normal components.
fn names(path: &Path) -> Vec<&[u8]> {
    path.components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.as_encoded_bytes()),
            _ => None,
        })
        .collect()
}

/// Whether `name` is one of `set`, without regard to ASCII case.
fn one_of(set: &[&str], name: &[u8]) -> bool {
    set.iter().any(|p| p.as_bytes().eq_ignore_ascii_case(name))
}

/// Why `path` is a protected credential path, if it is. Names match without regard to ASCII
/// case.
pub(super) fn protected(path: &Path) -> Option<String> {
    let names = names(path);
    for (i, name) in names.iter().enumerate() {
        let shown = String::from_utf8_lossy(name);
        if one_of(&PROTECTED_DIRS, name) || one_of(&PROTECTED_FILES, name) {
            return Some(format!("{shown} holds credentials"));
        }
        if let Some(next) = names.get(i + 1)
            && PROTECTED_PAIRS.iter().any(|(a, b)| {
                a.as_bytes().eq_ignore_ascii_case(name) && b.as_bytes().eq_ignore_ascii_case(next)
            })
        {
            return Some(format!(
                "{shown}/{} holds credentials",
                String::from_utf8_lossy(next)
            ));
        }
    }
    None
}

/// Whether the entry `name` of the directory `dir` is protected (hidden from listings).
pub(super) fn protected_entry(dir: &Path, name: &str) -> bool {
    protected(&dir.join(name)).is_some()
}

/// Whether `path` lies at or below `prefix` (both absolute), names compared without regard to
/// ASCII case.
fn under_folded(path: &Path, prefix: &Path) -> bool {
    let (path, prefix) = (names(path), names(prefix));
    path.len() >= prefix.len()
        && path
            .iter()
            .zip(&prefix)
            .all(|(a, b)| a.eq_ignore_ascii_case(b))
}

/// Why a write to `path` is refused, if it is.
fn write_denied(root: &Path, path: &Path) -> Option<String> {
    for denied in WRITE_DENIED {
        if under_folded(path, Path::new(denied)) {
            return Some(format!("{denied} is a system credential file"));
        }
    }
    let sessions = root.join("sessions");
    if under_folded(path, &sessions) {
        return Some("the workspace sessions directory holds the agent's own state".to_string());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protected_paths_are_recognised_by_component() {
        assert!(protected(Path::new("/home/u/.ssh/id_rsa")).is_some());
        assert!(protected(Path::new("/w/.aws")).is_some());
        assert!(protected(Path::new("/w/.docker/config.json")).is_some());
        assert!(protected(Path::new("/w/docker/config.json")).is_none());
        assert!(protected(Path::new("/w/id_rsa.pub")).is_none());
        assert!(protected(Path::new("/w/src/main.rs")).is_none());
    }

    #[test]
    fn protected_names_match_in_any_ascii_case() {
        for path in [
            "/w/.NETRC",
            "/w/.SSH/config",
            "/w/keys/ID_RSA",
            "/w/.Docker/Config.json",
            "/w/.CONFIG/GH/hosts.yml",
            "/w/.Git-Credentials",
        ] {
            assert!(protected(Path::new(path)).is_some(), "{path}");
        }
        assert!(protected(Path::new("/w/NETRC")).is_none());
        assert!(protected(Path::new("/w/.Docker/Config.json.bak")).is_none());
        let root = Path::new("/w/ws");
        assert!(write_denied(root, Path::new("/ETC/Shadow")).is_some());
        assert!(write_denied(root, Path::new("/etc/SUDOERS.D/x")).is_some());
        assert!(write_denied(root, Path::new("/w/ws/Sessions/s.json")).is_some());
        assert!(write_denied(root, Path::new("/etc/shadowy")).is_none());
        assert!(write_denied(root, Path::new("/w/ws/sessions2")).is_none());
    }

    #[test]
    fn lexical_absolute_resolves_dots() {
        assert_eq!(
            lexical_absolute(Path::new("/w/ws"), "../x/./y"),
            PathBuf::from("/w/x/y")
        );
        assert_eq!(
            lexical_absolute(Path::new("/w"), "/etc/hosts"),
            PathBuf::from("/etc/hosts")
        );
    }
}
