//! Artifact folders: where a profile keeps a result too large to show inline (picoclaw's spilled
//! results, sgpt's long shell output) so the model can read it a page at a time. A folder gets a
//! `.gitignore` of `*` beside its first artifact, so artifacts never reach version control, and
//! searches leave the folders out: a spilled copy of a source file would otherwise answer a
//! search with stale text.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::access::{Access, WriteOptions};

pub use crate::access::ignore::{
    ARTIFACT_DIRS as FOLDERS, FSGATE_ARTIFACTS as FSGATE_DIR, PICOCLAW_ARTIFACTS as PICOCLAW_DIR,
};

/// Numbers the artifacts of this process.
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A file name no other artifact of any process has: `{prefix}-{unix seconds}-{pid}-{n}.{ext}`.
pub fn file_name(prefix: &str, ext: &str) -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed) + 1;
    format!("{prefix}-{secs}-{}-{n}.{ext}", std::process::id())
}

/// Keeps the artifact folder `dir` (as a tool path: relative to the primary root, or absolute)
/// out of version control: writes a `.gitignore` of `*` into it unless one is there. Call it
/// once an artifact was saved, so the folder exists. Best effort: an artifact is still useful
/// when its folder could not be marked.
pub fn keep_out_of_git(access: &Access, dir: &Path) {
    let raw = dir.join(".gitignore");
    let Ok(target) = access.resolve(&raw.to_string_lossy()) else {
        return;
    };
    if access.symlink_metadata(&target).is_err() {
        let _ = access.write_atomic(
            &target,
            b"*\n",
            WriteOptions {
                create_parents: false,
                ..WriteOptions::default()
            },
        );
    }
}

/// Whether `path` lies in one of the artifact [`FOLDERS`] of the workspace rooted at `root`.
pub fn is_artifact(root: &Path, path: &Path) -> bool {
    FOLDERS.iter().any(|dir| path.starts_with(root.join(dir)))
}
