//! search's text: one `path:line:text` line per match, a line over the cut annotated in place
//! as `text (N more chars...)`; when the walk passed over something (a folder it could not
//! list, a symbolic link that loops, an ignore file it did not read), one closing line says
//! what: `[skipped: 1 unreadable folder, 2 symlink loops]`.

use crate::access::walkdir::Skipped;
use crate::ops::scan::sinks::lines::SearchOutcome;

pub(super) fn render(query: &str, path: Option<&str>, outcome: SearchOutcome) -> String {
    let (matches, skipped) = match outcome {
        SearchOutcome::Matches(m, skipped) => (m, skipped),
        SearchOutcome::IgnoredRoot => {
            return format!(
                "No matches: {} is excluded by the workspace's ignore files (.gitignore, .ignore \
                 or .git/info/exclude), so search does not scan it; read files under it by path \
                 with read_file.",
                path.unwrap_or(".")
            );
        }
    };
    if matches.is_empty() {
        let place = match path {
            Some(p) => p.to_string(),
            None => "the workspace".to_string(),
        };
        return format!("No matches for {query} in {place}.{}", closing(&skipped));
    }
    let mut out = String::new();
    for m in &matches {
        out.push_str(&m.path);
        out.push(':');
        out.push_str(&m.line.to_string());
        out.push(':');
        out.push_str(&m.text);
        if m.cut_chars > 0 {
            out.push_str(&format!(" ({} more chars...)", m.cut_chars));
        }
        out.push('\n');
    }
    out.pop();
    out.push_str(&closing(&skipped));
    out
}

/// The closing line of a walk that passed over something, with the line break before it;
/// empty when it passed over nothing.
pub(super) fn closing(skipped: &Skipped) -> String {
    skipped
        .describe()
        .map_or_else(String::new, |what| format!("\n[skipped: {what}]"))
}
