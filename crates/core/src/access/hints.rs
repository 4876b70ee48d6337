//! What the access layer tells a model about a path that names nothing yet.
//!
//! - **Habits.** A path that names nothing and would be created from a form a model writes by
//!   habit is refused (`invalid-argument`), naming what it likely meant: a leading `~` (not
//!   expanded), a `file://` URL, a `\` (not a separator), a name with a space at its start or
//!   end. Only the names that would be created are looked at: an existing folder named `~`, or
//!   an existing file `x.ts `, stays reachable.
//! - **Near misses.** A path found missing is remembered for the rest of the call (per thread,
//!   at most a few, the folder held open), and a not-found error of the call that names it gets
//!   the existing siblings that differ only in case, percent-encoding or extension
//!   (`did you mean src/x.ts?`). The folder is listed only when such an error is made.
//! - **Dangling links.** The one wording of a link whose target does not exist.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::ffi::OsString;
use std::path::PathBuf;

use cap_std::ambient_authority;
use cap_std::fs::Dir;

use crate::error::ToolError;
use crate::text::names;

/// How many missing paths a call remembers.
const MISSES_KEPT: usize = 4;

/// The most entries of a folder looked at for near misses.
const SIBLINGS_LOOKED_AT: usize = 100_000;

/// Whether `raw` holds a form a model writes by habit (see the module doc), so that creating
/// it needs a closer look.
pub(super) fn has_habit(raw: &str) -> bool {
    raw.starts_with('~')
        || is_file_url(raw)
        || raw.contains('\\')
        || raw.split('/').any(names::has_edge_space)
}

fn is_file_url(raw: &str) -> bool {
    raw.get(..5)
        .is_some_and(|head| head.eq_ignore_ascii_case("file:"))
}

/// The refusal of a path whose names from `parts[first_new]` on do not exist yet, when one of
/// those would be created from a habitual form. `parts` is `raw` split at `/`; `root` is
/// the working directory as shown.
pub(super) fn refuse_habit(
    raw: &str,
    parts: &[&str],
    first_new: usize,
    root: &str,
) -> Option<ToolError> {
    let q = names::quoted(raw);
    let end = "nothing was created or changed";
    if first_new == 0 && raw.starts_with('~') {
        let rest = raw.split_once('/').map_or("", |(_, rest)| rest);
        let rest = rest.trim_start_matches('/');
        let relative = if rest.is_empty() {
            String::new()
        } else {
            format!(" ({})", names::given(rest))
        };
        return Some(ToolError::invalid(format!(
            "{q} names nothing: ~ is not expanded (no home folder is looked up), and a new path \
             would make a folder named ~ in {root}; pass a path relative to the workspace\
             {relative} or an absolute path; {end}"
        )));
    }
    if first_new == 0 && is_file_url(raw) {
        return Some(ToolError::invalid(format!(
            "{q} is a file:// URL, not a path (a new path would make a folder named file: in \
             {root}); pass the path itself: {}; {end}",
            names::given(&url_path(raw))
        )));
    }
    let new = &parts[first_new.min(parts.len())..];
    if let Some(part) = new.iter().find(|p| p.contains('\\')) {
        let head = parts[..first_new.min(parts.len())].join("/");
        let tail = new.join("/").replace('\\', "/");
        let meant = if head.is_empty() {
            tail
        } else {
            format!("{head}/{tail}")
        };
        let escapes = if names::unescape(part).is_some() {
            "; and a name is never created from an escape sequence (\\xHH, \\u{…}): those reach \
             existing entries only"
        } else {
            ""
        };
        return Some(ToolError::invalid(format!(
            "{q}: \\ is not a path separator here (paths use /), and nothing named {} exists; \
             pass {} to mean folders separated by /{escapes}; {end}",
            names::quoted(part),
            names::given(&meant)
        )));
    }
    if let Some(part) = new.iter().find(|p| names::has_edge_space(p)) {
        let at = if part.starts_with(char::is_whitespace) {
            "starts"
        } else {
            "ends"
        };
        let trimmed: Vec<&str> = parts
            .iter()
            .enumerate()
            .map(|(i, p)| if i >= first_new { p.trim() } else { p })
            .collect();
        return Some(ToolError::invalid(format!(
            "{q}: the name {} {at} with a space, and no tool trims paths: nothing is named so, \
             and a new name would keep the space; pass {} for the name without it; {end}",
            names::quoted(part),
            names::quoted(&trimmed.join("/"))
        )));
    }
    None
}

/// The path a `file:` URL names, percent-decoded (`file:///a%20b` is `/a b`).
fn url_path(raw: &str) -> String {
    let rest = &raw[5..];
    let path = match rest.strip_prefix("//") {
        // `file://host/path`: the host is dropped (empty or `localhost` for a local file).
        Some(after) => after.find('/').map_or("/", |i| &after[i..]),
        None => rest,
    };
    percent_decoded(path)
}

/// `text` with its `%HH` sequences decoded (a sequence that is not valid UTF-8 stays as it is).
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = text.get(i + 1..i + 3)
            && let Ok(byte) = u8::from_str_radix(hex, 16)
        {
            out.push(byte);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

/// The not-found of a path through a symbolic link whose target does not exist. `shown` is
/// the path as given; `link` the link, when it is not the path itself; `written` what the
/// link says; `lands` where that is, when it lies inside the workspace.
pub(super) fn dangling(
    shown: &str,
    link: Option<&str>,
    written: &str,
    lands: Option<&str>,
) -> ToolError {
    let place = match lands {
        Some(lands) if lands != written => format!(" ({lands})"),
        _ => String::new(),
    };
    let fix = match lands {
        Some(lands) => format!("write {lands} to create its target, or delete the link"),
        None => "delete the link, or make it point to an existing file".to_string(),
    };
    ToolError::not_found(match link {
        None => format!(
            "{shown} is a symbolic link to {written}{place}, which does not exist: the link \
             dangles; {fix}"
        ),
        Some(link) => format!(
            "{shown} goes through the symbolic link {link} to {written}{place}, which does not \
             exist: the link dangles; {fix}"
        ),
    })
}

/// The folder a missing name was looked for in, held open until the call ends.
pub(super) enum Folder {
    /// Beneath a jail root: the root's handle (a duplicate) and the folder below it.
    Beneath(Dir, PathBuf),
    /// A folder taken as any process takes it.
    Ambient(PathBuf),
}

/// A path found missing.
pub(super) struct Miss {
    /// The path as the model gave it, and as messages name it.
    pub raw: String,
    pub shown: String,
    /// The folder of the first name that does not exist, and that name.
    pub folder: Folder,
    pub name: OsString,
    /// The text of `raw` before and after that name, when it can be found in it.
    pub around: Option<(String, String)>,
}

thread_local! {
    static MISSES: RefCell<VecDeque<Miss>> = const { RefCell::new(VecDeque::new()) };
}

/// Remembers a missing path for the not-found errors of this call.
pub(super) fn remember(miss: Miss) {
    MISSES.with(|m| {
        let mut misses = m.borrow_mut();
        misses.retain(|old| old.raw != miss.raw);
        if misses.len() >= MISSES_KEPT {
            misses.pop_front();
        }
        misses.push_back(miss);
    });
}

/// Forgets the missing paths of the call before (a new call starts on this thread).
pub(crate) fn forget() {
    MISSES.with(|m| m.borrow_mut().clear());
}

/// `message`, a not-found of this call, with the near misses of the missing path it names.
pub fn amend_not_found(message: String) -> String {
    if message.contains("id you mean ") {
        return message;
    }
    let note = MISSES.with(|m| {
        let misses = m.borrow();
        misses
            .iter()
            .rev()
            .find(|miss| names_path(&message, &miss.shown) || names_path(&message, &miss.raw))
            .and_then(near_misses)
    });
    match note {
        Some(note) if message.ends_with('.') => format!("{message} Did you mean {note}."),
        Some(note) => format!("{message}; did you mean {note}?"),
        None => message,
    }
}

/// Whether `message` names `path` as a whole (not as a part of a longer path or word).
fn names_path(message: &str, path: &str) -> bool {
    if path.is_empty() {
        return false;
    }
    message.match_indices(path).any(|(at, _)| {
        let before = message[..at].chars().next_back();
        let rest = &message[at + path.len()..];
        let mut after = rest.chars();
        let starts = before.is_none_or(|c| c.is_whitespace() || "\"'(:[`".contains(c));
        let ends = match after.next() {
            None => true,
            Some('.') => after.next().is_none_or(char::is_whitespace),
            Some(c) => c.is_whitespace() || "\"')]:;,`?".contains(c),
        };
        starts && ends
    })
}

/// What differs between a name asked for and one that exists.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Differs {
    Case,
    Percent,
    Extension,
}

impl Differs {
    fn words(self) -> &'static str {
        match self {
            Differs::Case => "only in case",
            Differs::Percent => "only in percent-encoding",
            Differs::Extension => "only in its extension",
        }
    }
}

/// The siblings of a missing name that differ from it only in case, percent-encoding or
/// extension, as the path to pass and what differs.
fn near_misses(miss: &Miss) -> Option<String> {
    let asked = miss.name.to_string_lossy();
    let entries = match &miss.folder {
        Folder::Beneath(dir, rel) => {
            let folder = if rel.as_os_str().is_empty() {
                dir.try_clone().ok()?
            } else {
                dir.open_dir(rel).ok()?
            };
            folder.entries().ok()?
        }
        Folder::Ambient(path) => Dir::open_ambient_dir(path, ambient_authority())
            .ok()?
            .entries()
            .ok()?,
    };
    let mut found: Vec<(Differs, OsString)> = entries
        .take(SIBLINGS_LOOKED_AT)
        .filter_map(|e| e.ok().map(|e| e.file_name()))
        .filter_map(|name| {
            let have = name.to_string_lossy();
            differs(&asked, &have).map(|d| (d, name))
        })
        .collect();
    if found.is_empty() {
        return None;
    }
    found.sort();
    found.truncate(3);
    let shown: Vec<String> = found
        .iter()
        .map(|(how, name)| {
            let name = names::show_name(name);
            let path = match &miss.around {
                Some((before, after)) => format!("{before}{name}{after}"),
                None => name.into_owned(),
            };
            format!(
                "{} (it exists and differs {})",
                names::given(&path),
                how.words()
            )
        })
        .collect();
    Some(shown.join(" or "))
}

/// How an existing name `have` differs from the name `asked` for, when only in one way.
fn differs(asked: &str, have: &str) -> Option<Differs> {
    if asked == have {
        return None;
    }
    if asked.to_lowercase() == have.to_lowercase() {
        return Some(Differs::Case);
    }
    if (asked.contains('%') || have.contains('%'))
        && percent_decoded(asked) == percent_decoded(have)
    {
        return Some(Differs::Percent);
    }
    (stem(asked) == stem(have)).then_some(Differs::Extension)
}

/// A name without its extension (`x.ts` is `x`; `.env` keeps its dot).
fn stem(name: &str) -> &str {
    match name.rfind('.') {
        Some(0) | None => name,
        Some(dot) => &name[..dot],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn siblings_that_differ_in_one_way_are_near_misses() {
        assert!(differs("x.js", "x.ts") == Some(Differs::Extension));
        assert!(differs("x", "x.ts") == Some(Differs::Extension));
        assert!(differs("README.MD", "README.md") == Some(Differs::Case));
        assert!(differs("my%20file.txt", "my file.txt") == Some(Differs::Percent));
        assert!(differs("a.ts", "b.ts").is_none());
        assert!(differs("x.ts", "x.ts").is_none());
    }

    #[test]
    fn a_message_names_a_path_only_as_a_whole() {
        assert!(names_path("File not found: a.ts", "a.ts"));
        assert!(names_path("a.ts does not exist; check", "a.ts"));
        assert!(names_path("not found: a.ts.", "a.ts"));
        assert!(!names_path("b.txt does not exist", "b"));
        assert!(!names_path("data.txt does not exist", "a"));
        assert!(!names_path("src/a.ts does not exist", "a.ts"));
    }

    #[test]
    fn habits_are_refused_only_in_names_that_would_be_created() {
        let parts = ["~", "new.ts"];
        assert!(refuse_habit("~/new.ts", &parts, 0, "/ws").is_some());
        assert!(refuse_habit("~/new.ts", &parts, 1, "/ws").is_none());
        let err = refuse_habit("src\\x.ts", &["src\\x.ts"], 0, "/ws").unwrap();
        assert!(err.message.contains("pass src/x.ts"), "{}", err.message);
        let err = refuse_habit("x.ts ", &["x.ts "], 0, "/ws").unwrap();
        assert!(err.message.starts_with("\"x.ts \": "), "{}", err.message);
        assert!(err.message.contains("pass \"x.ts\""), "{}", err.message);
        let err = refuse_habit("file:///ws/a%20b.ts", &[], 0, "/ws").unwrap();
        assert!(err.message.contains("pass the path itself: /ws/a b.ts"));
    }
}
