//! info: the jail and its limits.

use super::Ctx;
use super::wire::{InfoInput, InfoOutput};
use crate::error::Result;

pub(super) fn call(ctx: &Ctx<'_>, _input: InfoInput) -> Result<InfoOutput> {
    let l = &ctx.limits;
    let (roots, secrets, excludes) = match ctx.access.jail() {
        Some(jail) => (
            jail.roots()
                .iter()
                .map(|r| r.path.to_string_lossy().into_owned())
                .collect::<Vec<_>>(),
            jail.secret_globs().to_vec(),
            jail.exclude_globs().to_vec(),
        ),
        None => (
            vec![ctx.access.root().to_string_lossy().into_owned()],
            Vec::new(),
            Vec::new(),
        ),
    };
    Ok(InfoOutput {
        primary_root: roots.first().cloned().unwrap_or_default(),
        base_paths: roots,
        batch_read_budget_bytes: l.batch_read_budget_bytes,
        default_exclude_globs: excludes,
        list_default_page_size: l.list_default_page_size,
        list_max_page_size: l.list_max_page_size,
        max_output_bytes: l.max_output_bytes,
        max_read_bytes: l.max_read_bytes,
        max_write_bytes: l.max_write_bytes,
        non_accessible_globs: secrets,
        search_default_max_line_bytes: l.search_default_max_line_bytes,
        search_default_max_matches: l.search_default_max_matches,
        search_response_budget_bytes: l.search_response_budget_bytes,
        tree_default_depth: l.tree_default_depth,
        tree_per_folder_limit: l.tree_per_folder_limit,
        version: env!("CARGO_PKG_VERSION").to_string(),
    })
}
