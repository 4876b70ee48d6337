//! Watching the configuration file while serving: each change is handed to the workspace,
//! which applies what may change live and refuses the rest (logged, the running configuration
//! kept).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use fsgate_core::Workspace;
use fsgate_core::surface::Reload;
use notify::{RecursiveMode, Watcher};

/// Starts watching `path` for `ws`; the returned watcher must be kept alive. `None` (logged)
/// when the file cannot be watched.
pub fn config(ws: Arc<Workspace>, path: &Path) -> Option<notify::RecommendedWatcher> {
    let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    // Editors replace files by renaming over them, so the folder is watched, not the file.
    let dir = path
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let (tx, rx) = mpsc::channel();
    let mut watcher = match notify::recommended_watcher(tx) {
        Ok(w) => w,
        Err(e) => {
            tracing::warn!(
                "cannot watch {}: {e}; configuration changes need a restart",
                path.display()
            );
            return None;
        }
    };
    if let Err(e) = watcher.watch(&dir, RecursiveMode::NonRecursive) {
        tracing::warn!(
            "cannot watch {}: {e}; configuration changes need a restart",
            path.display()
        );
        return None;
    }
    std::thread::spawn(move || {
        while let Ok(event) = rx.recv() {
            let Ok(event) = event else { continue };
            // Only changes count: reading the file to reload it must not trigger a reload.
            let changed =
                event.kind.is_modify() || event.kind.is_create() || event.kind.is_remove();
            if !changed || !event.paths.iter().any(|p| crate::run::same_file(p, &path)) {
                continue;
            }
            // Let a burst of events (write, then rename) settle into one reload.
            while rx.recv_timeout(Duration::from_millis(100)).is_ok() {}
            match ws.reload(&path) {
                Reload::Applied => tracing::info!("configuration {} reloaded", path.display()),
                Reload::NeedsRestart(fields) => tracing::warn!(
                    "configuration {} changes {}: restart fsgate to apply; the running jail is kept",
                    path.display(),
                    fields.join(", ")
                ),
                Reload::Invalid(message) => tracing::warn!(
                    "configuration change rejected, the previous one is kept: {message}"
                ),
                Reload::Unsupported => {}
            }
        }
    });
    Some(watcher)
}
