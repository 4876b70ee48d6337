//! list_dir: one directory's entries as `DIR:  name` / `FILE: name`, in name order, protected
//! credential entries and non-accessible ones (`tools.non_accessible_globs`) hidden.

use serde_json::Value;

use super::super::ToolOutput;
use super::super::args::Args;
use super::Call;
use super::policy::{Op, protected_entry};
use crate::access::EntryKind;
use crate::error::{Result, ToolError};

pub(super) fn list_dir(call: &Call<'_>, args: Value) -> Result<ToolOutput> {
    let args = Args::parse("list_dir", args, &["path"])?;
    let raw = match args.opt_str("path")? {
        Some(p) if !p.trim().is_empty() => p,
        _ => ".",
    };
    let target = call.pico.policy.locate(call.ws, raw, Op::Read)?;
    let mut entries = target
        .access
        .read_dir(&target.resolved)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => ToolError::not_found(format!(
                "failed to read directory: {raw} does not exist; list its parent to see what is \
                 there"
            )),
            std::io::ErrorKind::NotADirectory => ToolError::invalid(format!(
                "failed to read directory: {raw} is a file, not a directory; use read_file to \
                 read it"
            )),
            _ => ToolError::from_io(&e, "list", raw),
        })?;
    entries.retain(|e| {
        !protected_entry(&target.resolved.path, &e.name.to_string_lossy())
            && !target
                .access
                .is_secret_path(&target.resolved.path.join(&e.name))
    });
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    if entries.is_empty() {
        return Ok(ToolOutput::text(format!("(empty directory: {raw})")));
    }
    let mut out = String::new();
    for entry in &entries {
        let name = crate::text::names::show_name(&entry.name);
        // As PicoClaw (Go's os.ReadDir): a link is listed as a file, whatever it points to.
        let dir = entry.kind == EntryKind::Dir;
        out.push_str(if dir { "DIR:  " } else { "FILE: " });
        out.push_str(&name);
        out.push('\n');
    }
    Ok(ToolOutput::text(out))
}
