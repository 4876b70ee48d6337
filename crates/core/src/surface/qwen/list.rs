//! list_directory: one directory's entries, directories first (marked `[DIR]`), each group
//! alphabetically, without what `.gitignore` (unless the call says otherwise), `.qwenignore`,
//! the configured ignore files and the call's own glob patterns exclude. A listing shows at most
//! [`MAX_LISTED`] entries and says how many more there are.

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde_json::Value;

use super::args::Args;
use super::{Outcome, Qwen, resolve};
use crate::access::ignore::EntryRule;
use crate::access::ignore::IgnoreFiles;
use crate::access::{Access, EntryKind};
use crate::surface::ToolOutput;

pub(super) fn list_directory(qwen: &Qwen, access: &Access, args: Value) -> Outcome {
    let args = Args::parse(
        "list_directory",
        args,
        &["path", "ignore", "respect_git_ignore"],
    )?;
    let raw = args.str("path")?;
    if raw.trim().is_empty() {
        return Err("The 'path' parameter must be non-empty.".to_string());
    }
    let patterns = args.opt_str_list("ignore")?;
    let respect_git = args
        .opt_bool("respect_git_ignore")?
        .unwrap_or(qwen.config.respect_git_ignore);
    let ignore = patterns_of(&patterns)?;
    let target = resolve(access, raw, "Path")?;
    match access.metadata(&target) {
        Ok(meta) if meta.is_dir => {}
        Ok(_) => return Err(format!("Path is not a directory: {raw}")),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!("Directory not found or inaccessible: {raw}"));
        }
        Err(e) => return Err(format!("Error listing directory {raw}: {e}")),
    }
    let entries = access
        .read_dir(&target)
        .map_err(|e| format!("Error listing directory {raw}: {e}"))?;
    if entries.is_empty() {
        return Ok(ToolOutput::text(format!("Directory {raw} is empty.")));
    }

    // Each rule asked of every entry, as a one-level walk under that rule alone asks it (the
    // folder's listing is read once, here, and not again per rule; non-accessible entries are
    // kept here and left out below, uncounted).
    let skips = std::sync::Arc::new(crate::access::walkdir::Skips::default());
    let mut git_rule = respect_git.then(|| {
        access.entry_rule(
            &target.path,
            &IgnoreFiles {
                git: true,
                keep_artifacts: true,
                ..IgnoreFiles::default()
            },
            &skips,
        )
    });
    let qwen_files = qwen.config.qwen_ignore_files();
    let mut qwen_rule = (!qwen_files.is_empty()).then(|| {
        access.entry_rule(
            &target.path,
            &IgnoreFiles {
                anchored: qwen_files,
                keep_artifacts: true,
                ..IgnoreFiles::default()
            },
            &skips,
        )
    });
    let excluded = |rule: &mut Option<EntryRule>, path: &std::path::Path, is_dir: bool| {
        rule.as_mut()
            .is_some_and(|rule| rule.excludes(path, is_dir))
    };

    let (mut git_ignored, mut qwen_ignored) = (0, 0);
    let mut shown: Vec<(bool, String)> = Vec::new();
    for entry in entries {
        let path = target.path.join(&entry.name);
        let listed_dir = entry.kind == EntryKind::Dir;
        // Walks never enter .git: it is git's, ignored exactly when .gitignore is respected.
        let is_git_dir = entry.name == ".git";
        if git_rule.is_some() && (is_git_dir || excluded(&mut git_rule, &path, listed_dir)) {
            git_ignored += 1;
            continue;
        }
        if !is_git_dir && excluded(&mut qwen_rule, &path, listed_dir) {
            qwen_ignored += 1;
            continue;
        }
        let name = entry.name.to_string_lossy().into_owned();
        if ignore.is_match(&name) || access.is_secret_path(&path) {
            continue;
        }
        let is_dir = match entry.kind {
            EntryKind::Dir => true,
            // A link is listed as what it leads to, as Qwen Code's stat does.
            EntryKind::Symlink { .. } => access
                .resolve(&crate::text::names::show_path(&path))
                .ok()
                .and_then(|r| access.metadata(&r).ok())
                .is_some_and(|m| m.is_dir),
            _ => false,
        };
        shown.push((
            is_dir,
            crate::text::names::show_name(&entry.name).into_owned(),
        ));
    }
    // Directories first, then alphabetically: letters regardless of case, ties in byte order
    // (each key made once).
    shown.sort_by_cached_key(|(is_dir, name)| (!*is_dir, name.to_lowercase(), name.clone()));
    let total = shown.len();
    let listing: Vec<String> = shown
        .iter()
        .take(MAX_LISTED)
        .map(|(is_dir, name)| {
            if *is_dir {
                format!("[DIR] {name}")
            } else {
                name.clone()
            }
        })
        .collect();
    let mut text = format!("Directory listing for {raw}:\n{}", listing.join("\n"));
    if total > MAX_LISTED {
        text.push_str(&format!(
            "\n[{} more entries not shown: the listing stops at the first {MAX_LISTED} of \
             {total}; use glob with a pattern, or pass ignore patterns, to narrow it]",
            total - MAX_LISTED
        ));
    }
    let mut ignored = Vec::new();
    if git_ignored > 0 {
        ignored.push(format!("{git_ignored} git-ignored"));
    }
    if qwen_ignored > 0 {
        ignored.push(format!("{qwen_ignored} qwen-ignored"));
    }
    // An ignore file the jail would not let be read is said to be (see `access::ignore`).
    let files = skips.skipped(|p| access.display(p)).ignore_files;
    let mut notes = ignored.join(", ");
    for (path, why) in files {
        if !notes.is_empty() {
            notes.push_str("; ");
        }
        notes.push_str(&format!("ignore file {path} not read: {why}"));
    }
    if !notes.is_empty() {
        text.push_str(&format!("\n\n({notes})"));
    }
    Ok(ToolOutput::text(text))
}

/// The most entries a listing shows; the rest are counted in a closing line.
pub(super) const MAX_LISTED: usize = 1000;

/// The call's ignore patterns, matched against entry names.
fn patterns_of(patterns: &[String]) -> Result<GlobSet, String> {
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        let glob = Glob::new(pattern)
            .map_err(|e| format!("Invalid ignore pattern {pattern:?}: {}", e.kind()))?;
        builder.add(glob);
    }
    builder
        .build()
        .map_err(|e| format!("Invalid ignore patterns: {e}"))
}
