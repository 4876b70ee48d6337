//! PicoClaw's sandbox: which access layer a path is reached through, and which paths no tool
//! may touch.
//!
//! - With `restrict_to_workspace` (the default), a path is first resolved in the workspace's own
//!   jailed access layer (relative paths from the workspace, links that leave it refused). A
//!   path outside it is reachable only when the configuration allows it: read-only tools with
//!   `allow_read_outside_workspace`, or a path whose absolute form (and, for a link, its real
//!   form too) matches a `tools.allow_read_paths` regex (read-only tools) or a
//!   `tools.allow_write_paths` regex (writing tools). Such a path goes through a separate,
//!   unconfined access layer rooted at the workspace; a write never escapes otherwise.
//! - Without the restriction, every path goes through an unconfined access layer rooted at the
//!   process's working directory, which relative paths resolve from (as PicoClaw does).
//! - Protected credential paths (`.ssh`, `.gnupg`, `.aws`, `.azure`, `.kube`, `.netrc`,
//!   `.git-credentials`, `.pgpass`, private SSH keys, `.docker/config.json`,
//!   `.config/gcloud`, `.config/gh`) are refused for every tool and hidden from listings and
//!   searches; writes are also refused for `/etc/shadow`, `/etc/gshadow`, `/etc/passwd`,
//!   `/etc/group`, `/etc/sudoers` (and `/etc/sudoers.d`) and the workspace's `sessions`
//!   directory. Allowlists never override these.

use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use regex::Regex;

use crate::access::{Access, Resolved};
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

/// A path located under the policy: the access layer to use and the resolved path.
pub(super) struct Target<'a> {
    pub access: &'a Access,
    pub resolved: Resolved,
}

/// The sandbox of one picoclaw surface.
#[derive(Debug)]
pub(super) struct Policy {
    restrict: bool,
    read_outside: bool,
    read_paths: Vec<Regex>,
    write_paths: Vec<Regex>,
    /// Unconfined, rooted at the workspace (allowlisted paths in restricted mode).
    outside: OnceLock<Option<Access>>,
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
            outside: OnceLock::new(),
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
                    std::env::current_dir()
                        .ok()
                        .and_then(|cwd| Access::new(&cwd).ok())
                })
                .as_ref()
                .unwrap_or(ws);
            let resolved = host.resolve(raw)?;
            self.check(ws, &resolved, op)?;
            return Ok(Target {
                access: host,
                resolved,
            });
        }
        match ws.resolve(raw) {
            Ok(resolved) => {
                self.check(ws, &resolved, op)?;
                Ok(Target {
                    access: ws,
                    resolved,
                })
            }
            Err(e) if e.kind == ErrorKind::OutsideRoot => {
                let absolute = lexical_absolute(ws.root(), raw);
                let real = real_path(&absolute);
                let allowed = match op {
                    Op::Read => {
                        self.read_outside || allowlisted(&self.read_paths, &absolute, &real)
                    }
                    Op::Write => allowlisted(&self.write_paths, &absolute, &real),
                };
                if !allowed {
                    return Err(self.outside_error(ws, raw, &absolute, op));
                }
                let Some(outside) = self
                    .outside
                    .get_or_init(|| Access::new(ws.root()).ok())
                    .as_ref()
                else {
                    return Err(e);
                };
                let mut resolved = outside.resolve(&absolute.to_string_lossy())?;
                resolved.shown = raw.to_string();
                self.check(ws, &resolved, op)?;
                Ok(Target {
                    access: outside,
                    resolved,
                })
            }
            Err(e) => Err(e),
        }
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

    /// Refuses protected paths, and write-denied ones for writes.
    fn check(&self, ws: &Access, resolved: &Resolved, op: Op) -> Result<()> {
        let real = real_path(&resolved.path);
        for path in [resolved.path.as_path(), real.as_path()] {
            if let Some(what) = protected(path) {
                return Err(ToolError::new(
                    ErrorKind::Denied,
                    format!(
                        "access denied: {} is a protected credential path ({what}); no tool may \
                         read, list or write it",
                        resolved.shown
                    ),
                ));
            }
            if op == Op::Write
                && let Some(what) = write_denied(ws.root(), path)
            {
                return Err(ToolError::new(
                    ErrorKind::Denied,
                    format!(
                        "access denied: writes to {} are refused ({what}); allow paths do not \
                         override this",
                        resolved.shown
                    ),
                ));
            }
        }
        Ok(())
    }
}

fn allowlisted(patterns: &[Regex], absolute: &Path, real: &Path) -> bool {
    let matches = |p: &Path| {
        let text = p.to_string_lossy();
        patterns.iter().any(|r| r.is_match(&text))
    };
    !patterns.is_empty() && matches(absolute) && matches(real)
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

/// Why `path` is a protected credential path, if it is.
pub(super) fn protected(path: &Path) -> Option<String> {
    let names: Vec<&str> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => n.to_str(),
            _ => None,
        })
        .collect();
    for (i, name) in names.iter().enumerate() {
        if PROTECTED_DIRS.contains(name) || PROTECTED_FILES.contains(name) {
            return Some(format!("{name} holds credentials"));
        }
        if let Some(next) = names.get(i + 1)
            && PROTECTED_PAIRS.contains(&(*name, *next))
        {
            return Some(format!("{name}/{next} holds credentials"));
        }
    }
    None
}

/// Whether the entry `name` of the directory `dir` is protected (hidden from listings).
pub(super) fn protected_entry(dir: &Path, name: &str) -> bool {
    protected(&dir.join(name)).is_some()
}

/// Why a write to `path` is refused, if it is.
fn write_denied(root: &Path, path: &Path) -> Option<String> {
    for denied in WRITE_DENIED {
        if path.starts_with(denied) {
            return Some(format!("{denied} is a system credential file"));
        }
    }
    let sessions = root.join("sessions");
    if path.starts_with(&sessions) {
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
