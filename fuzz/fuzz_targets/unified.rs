//! The unified-diff parser and applier: `original NUL diff`. Any input must give a diff or a
//! clear error, never a panic.
#![no_main]
// The harness (libFuzzer's macro, fixture set-up) does its own file I/O, outside fsgate's access layer.
#![allow(clippy::disallowed_methods)]

use fsgate_core::ops::patch::unified;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (original, diff) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (&b""[..], data),
    };
    let Ok(text) = std::str::from_utf8(diff) else {
        return;
    };
    let Ok(parsed) = unified::parse(text) else {
        return;
    };
    let _ = parsed.named_paths();
    if let Ok(applied) = unified::apply(original, &parsed) {
        // The rendering of the change must not panic either.
        let _ = unified::render("file.txt", original, &applied.bytes);
    }
});
