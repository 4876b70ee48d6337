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
