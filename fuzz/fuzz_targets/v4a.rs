//! The V4A patch parser and applier: `original NUL patch`. Any input must give a patch or a
//! clear error, never a panic; an update that applies must apply the same way twice.
#![no_main]
// The harness (libFuzzer's macro, fixture set-up) does its own file I/O, outside fsgate's access layer.
#![allow(clippy::disallowed_methods)]

use fsgate_core::ops::patch::v4a::{self, Section};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (original, patch) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (&b""[..], data),
    };
    let Ok(text) = std::str::from_utf8(patch) else {
        return;
    };
    let Ok(parsed) = v4a::parse(text) else {
        return;
    };
    for section in &parsed.sections {
        if let Section::Update { hunks, .. } = section
            && let Ok(applied) = v4a::apply(original, hunks)
        {
            assert_eq!(applied.placements.len(), hunks.len());
            assert_eq!(v4a::apply(original, hunks).ok(), Some(applied));
        }
    }
});
