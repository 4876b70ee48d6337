//! search's text: one `path:line:text` line per match, a line over the cut annotated in place
//! as `text (N more chars...)`.

use crate::ops::search::SearchOutcome;

pub(super) fn render(query: &str, path: Option<&str>, outcome: SearchOutcome) -> String {
    let matches = match outcome {
        SearchOutcome::Matches(m) => m,
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
        return format!("No matches for {query} in {place}.");
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
    out
}
