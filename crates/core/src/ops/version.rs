//! Version tokens: a short hash of a file's content that a read returns and an edit or write may
//! send back as `expected_version`. Content decides, never modification times: a file only
//! touched keeps its version, and a write by fsgate returns the new one, so consecutive edits of
//! one caller never trip over each other.
//!
//! A token is `v` and 12 hex digits (48 bits of a 64-bit hash of the bytes). [`Versions`] keeps
//! the content behind recent tokens (bounded), so a mismatch can show what changed since, and an
//! edit whose target region is unchanged can be applied to the new content (a rebase) instead
//! of refused.

use std::collections::{HashMap, VecDeque};
use std::hash::Hasher;
use std::sync::{Arc, Mutex};

/// The most bytes of content [`Versions`] keeps.
pub const KEPT_BYTES: usize = 32 << 20;
/// The largest content [`Versions`] keeps (larger files get tokens, not kept content).
pub const KEPT_FILE: usize = 2 << 20;

/// The version token of `bytes`.
pub fn of(bytes: &[u8]) -> String {
    let mut hasher = std::hash::DefaultHasher::new();
    hasher.write(bytes);
    format!("v{:012x}", hasher.finish() >> 16)
}

/// Whether `token` is spelled as a version token.
pub fn is_token(token: &str) -> bool {
    token.len() == 13 && token.starts_with('v') && token[1..].bytes().all(|b| b.is_ascii_hexdigit())
}

/// The content behind recent version tokens, oldest dropped first past [`KEPT_BYTES`].
#[derive(Debug, Default)]
pub struct Versions {
    inner: Mutex<Kept>,
}

#[derive(Debug, Default)]
struct Kept {
    by_token: HashMap<String, Arc<[u8]>>,
    order: VecDeque<String>,
    bytes: usize,
}

impl Versions {
    /// Remembers `bytes` under its token, and returns the token.
    pub fn keep(&self, bytes: &[u8]) -> String {
        let token = of(bytes);
        if bytes.len() > KEPT_FILE {
            return token;
        }
        let Ok(mut kept) = self.inner.lock() else {
            return token;
        };
        if kept.by_token.contains_key(&token) {
            return token;
        }
        kept.by_token.insert(token.clone(), Arc::from(bytes));
        kept.order.push_back(token.clone());
        kept.bytes += bytes.len();
        while kept.bytes > KEPT_BYTES {
            let Some(old) = kept.order.pop_front() else {
                break;
            };
            if let Some(gone) = kept.by_token.remove(&old) {
                kept.bytes -= gone.len();
            }
        }
        token
    }

    /// The content behind `token`, when still kept.
    pub fn content(&self, token: &str) -> Option<Arc<[u8]>> {
        self.inner.lock().ok()?.by_token.get(token).cloned()
    }
}

/// The token of a window of lines: `w` and 12 hex digits of a hash of its first line's number
/// and its bytes (whole lines as stored, endings included).
pub fn of_window(first: usize, bytes: &[u8]) -> String {
    let mut hasher = std::hash::DefaultHasher::new();
    hasher.write_usize(first);
    hasher.write(bytes);
    format!("w{:012x}", hasher.finish() >> 16)
}

/// Whether `token` is spelled as a window token.
pub fn is_window_token(token: &str) -> bool {
    token.len() == 13 && token.starts_with('w') && token[1..].bytes().all(|b| b.is_ascii_hexdigit())
}

/// Lines `first..first + count` (1-based) of `bytes`, endings included; `None` when the text
/// has fewer lines.
pub fn lines_of(bytes: &[u8], first: usize, count: usize) -> Option<&[u8]> {
    let mut starts = std::iter::once(0).chain(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1));
    let start = starts.nth(first.checked_sub(1)?)?;
    if start >= bytes.len() && count > 0 {
        return None;
    }
    let end = match count {
        0 => start,
        n => match memchr::memchr_iter(b'\n', &bytes[start..]).nth(n - 1) {
            Some(i) => start + i + 1,
            // The last line may lack its ending; fewer lines than asked is no window.
            None if memchr::memchr_iter(b'\n', &bytes[start..]).count() == n - 1 => bytes.len(),
            None => return None,
        },
    };
    Some(&bytes[start..end])
}

/// The most windows [`Windows`] remembers.
const KEPT_WINDOWS: usize = 4096;

/// The windows behind recent window tokens: where each starts, how many lines it has, and the
/// version token its bytes are kept under in [`Versions`] (for the diff of a change).
#[derive(Debug, Default)]
pub struct Windows {
    inner: Mutex<(HashMap<String, Window>, VecDeque<String>)>,
}

/// A window a read showed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Window {
    /// Its first line, 1-based.
    pub first: usize,
    /// How many lines it has.
    pub count: usize,
    /// The version token of its bytes (their content kept in [`Versions`] when small enough).
    pub bytes_version: String,
}

impl Windows {
    /// Remembers the window of `count` lines from `first` holding `bytes` (content kept in
    /// `versions`), and returns its token.
    pub fn keep(&self, versions: &Versions, first: usize, count: usize, bytes: &[u8]) -> String {
        let token = of_window(first, bytes);
        let bytes_version = versions.keep(bytes);
        let Ok(mut kept) = self.inner.lock() else {
            return token;
        };
        let (map, order) = &mut *kept;
        if map
            .insert(
                token.clone(),
                Window {
                    first,
                    count,
                    bytes_version,
                },
            )
            .is_none()
        {
            order.push_back(token.clone());
            while order.len() > KEPT_WINDOWS {
                if let Some(old) = order.pop_front() {
                    map.remove(&old);
                }
            }
        }
        token
    }

    /// The window behind `token`, when still remembered.
    pub fn get(&self, token: &str) -> Option<Window> {
        self.inner.lock().ok()?.0.get(token).cloned()
    }
}

/// Whether an edit quoting `quote`, made against `then`, applies to `now` as it was meant: the
/// quote has a single place in each (found at the same level of the matcher) and the text
/// there is the same, so only other parts of the file changed. An empty quote never rebases.
pub fn quote_rebases(then: &[u8], now: &[u8], quote: &str) -> bool {
    if quote.is_empty() {
        return false;
    }
    let at = |bytes: &[u8]| {
        crate::text::matcher::find_corrected(bytes, quote, "")
            .ok()
            .flatten()
    };
    match (at(then), at(now)) {
        (Some(a), Some(b)) => {
            a.ranges.len() == 1
                && b.ranges.len() == 1
                && a.level == b.level
                && then[a.ranges[0].clone()] == now[b.ranges[0].clone()]
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_of_takes_whole_lines_and_refuses_a_short_text() {
        let text = b"a\nb\nc";
        assert_eq!(lines_of(text, 1, 1), Some(&b"a\n"[..]));
        assert_eq!(lines_of(text, 2, 2), Some(&b"b\nc"[..]));
        assert_eq!(lines_of(text, 3, 1), Some(&b"c"[..]));
        assert_eq!(lines_of(text, 3, 2), None);
        assert_eq!(lines_of(text, 4, 1), None);
        assert_eq!(lines_of(b"a\nb\n", 2, 1), Some(&b"b\n"[..]));
        assert_eq!(lines_of(b"a\nb\n", 3, 1), None);
    }

    #[test]
    fn tokens_follow_content_and_kept_content_is_bounded() {
        let a = of(b"hello\n");
        assert!(is_token(&a), "{a}");
        assert_eq!(a, of(b"hello\n"));
        assert_ne!(a, of(b"hello \n"));
        assert!(!is_token("v12"));
        let versions = Versions::default();
        let t = versions.keep(b"one\n");
        assert_eq!(versions.content(&t).as_deref(), Some(&b"one\n"[..]));
        let big = vec![b'x'; KEPT_FILE];
        for i in 0..20u8 {
            let mut b = big.clone();
            b[0] = i;
            versions.keep(&b);
        }
        assert!(
            versions.content(&t).is_none(),
            "the oldest content goes first"
        );
    }
}
