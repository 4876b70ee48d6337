//! The setting the tests of other users' files and of unreadable folders share: a workspace and
//! a state folder owned by an unprivileged user, and the real `fsgate call` run as that user
//! through `setpriv`.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

/// The unprivileged user and group the calls run as.
pub const USER: (&str, &str, u32) = ("nobody", "nogroup", 65534);

/// A folder `ws` and a state folder, both owned by [`USER`], in a temp folder anyone may enter.
pub struct UserWorkspace {
    _tmp: tempfile::TempDir,
    pub ws: PathBuf,
    pub state: PathBuf,
}

impl UserWorkspace {
    /// `None` (with the reason printed) where it cannot be set up: the tests do not run as
    /// root, or `setpriv` is missing.
    pub fn new() -> Option<UserWorkspace> {
        if !running_as_root() {
            eprintln!("skipped: the tests do not run as root, so they cannot act as another user");
            return None;
        }
        if Command::new("setpriv").arg("--version").output().is_err() {
            eprintln!("skipped: setpriv is not installed");
            return None;
        }
        let tmp = tempfile::tempdir().unwrap();
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let ws = tmp.path().join("ws");
        let state = tmp.path().join("state");
        for dir in [&ws, &state] {
            std::fs::create_dir(dir).unwrap();
            std::os::unix::fs::chown(dir, Some(USER.2), Some(USER.2)).unwrap();
        }
        Some(UserWorkspace {
            _tmp: tmp,
            ws,
            state,
        })
    }

    /// Runs `fsgate call TOOL ARGS --profile PROFILE --root ws EXTRA…` as [`USER`] in `ws`.
    pub fn run(&self, profile: &str, extra: &[&str], tool: &str, args: &Value) -> Output {
        Command::new("setpriv")
            .args(["--reuid", USER.0, "--regid", USER.1, "--clear-groups", "--"])
            .arg(env!("CARGO_BIN_EXE_fsgate"))
            .args([
                "call",
                tool,
                &args.to_string(),
                "--profile",
                profile,
                "--root",
            ])
            .arg(&self.ws)
            .args(extra)
            .env("HOME", &self.state)
            .env("FSGATE_STATE_DIR", &self.state)
            .env_remove("XDG_CONFIG_HOME")
            .current_dir(&self.ws)
            .output()
            .unwrap()
    }
}

/// Whether this process runs as root.
fn running_as_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|status| {
        status
            .lines()
            .find_map(|l| l.strip_prefix("Uid:"))
            .and_then(|uid| uid.split_whitespace().nth(1))
            .is_some_and(|uid| uid == "0")
    })
}
