//! Watching the configuration file while serving: each change is handed to the workspace,
//! which applies what may change live and refuses the rest (logged, the running configuration
//! kept).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

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
    // Only changes of the file itself count: reading it to reload must not trigger a reload,
    // and other files of its folder (a log, say) are none of its business.
    let concerns = move |event: &notify::Result<notify::Event>, path: &Path| {
        event.as_ref().is_ok_and(|event| {
            (event.kind.is_modify() || event.kind.is_create() || event.kind.is_remove())
                && event.paths.iter().any(|p| crate::run::same_file(p, path))
        })
    };
    std::thread::spawn(move || {
        while let Ok(event) = rx.recv() {
            if !concerns(&event, &path) {
                continue;
            }
            // Let a burst of changes (write, then rename) settle into one reload: wait until the
            // file has been quiet for 100 ms, but never longer than a second in all.
            let settling = Instant::now();
            let mut quiet_since = Instant::now();
            while settling.elapsed() < Duration::from_secs(1)
                && quiet_since.elapsed() < Duration::from_millis(100)
            {
                if let Ok(next) = rx.recv_timeout(Duration::from_millis(20))
                    && concerns(&next, &path)
                {
                    quiet_since = Instant::now();
                }
            }
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
