//! The edit matcher: `haystack NUL needle NUL replacement`. Every level must return ranges
//! inside the haystack (the exact level: ranges equal to the needle), and the line matchers
//! must not panic on any input.
#![no_main]
// The harness (libFuzzer's macro, fixture set-up) does its own file I/O, outside fsgate's access layer.
#![allow(clippy::disallowed_methods)]

use fsgate_core::text::matcher::{self, Level};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(3, |&b| b == 0);
    let haystack = parts.next().unwrap_or_default();
    let needle = String::from_utf8_lossy(parts.next().unwrap_or_default());
    let replacement = String::from_utf8_lossy(parts.next().unwrap_or_default());

    let lines = matcher::split_lines(haystack);
    assert_eq!(lines.concat(), haystack);
    let quoted = matcher::split_lines(needle.as_bytes());
    for from in [0, lines.len() / 2, lines.len()] {
        if let Some(found) = matcher::find_lines(&lines, &quoted, from) {
            let _ = found;
        }
        let _ = matcher::closest_lines(&lines, &quoted, from);
    }
    if needle.is_empty() {
        return;
    }
    for found in [
        matcher::find(haystack, &needle, &replacement),
        matcher::find_corrected(haystack, &needle, &replacement).unwrap_or(None),
    ]
    .into_iter()
    .flatten()
    {
        assert!(!found.ranges.is_empty());
        for range in &found.ranges {
            assert!(
                range.start <= range.end && range.end <= haystack.len(),
                "{range:?}"
            );
            if found.level == Level::Exact {
                assert_eq!(&haystack[range.clone()], needle.as_bytes());
            }
        }
    }
});
