//! The coder update-file op engine: a file and a list of line and regex ops built from the
//! input. Any ops must apply or fail with a clear error, never panic; the result's line count
//! must be the count of its lines.
#![no_main]
// The harness (libFuzzer's macro, fixture set-up) does its own file I/O, outside fsgate's access layer.
#![allow(clippy::disallowed_methods)]

use arbitrary::{Arbitrary, Unstructured};
use fsgate_core::ops::update::{self, Op};
use fsgate_core::text::matcher::split_lines;
use libfuzzer_sys::fuzz_target;

/// A line number near the file's range (0, inside, just past the end, or huge).
fn line(u: &mut Unstructured<'_>, total: u64) -> arbitrary::Result<u64> {
    Ok(match u8::arbitrary(u)? % 8 {
        0 => 0,
        1 => total + 1,
        2 => total + 2,
        3 => u64::arbitrary(u)?,
        _ => u64::from(u16::arbitrary(u)?) % (total + 3),
    })
}

fn short(u: &mut Unstructured<'_>, max: usize) -> arbitrary::Result<String> {
    let s = <&str>::arbitrary(u)?;
    Ok(s.chars().take(max).collect())
}

/// A line op's `expect_text`: mostly none, sometimes a guess (usually refused as stale).
fn expect(u: &mut Unstructured<'_>) -> arbitrary::Result<Option<String>> {
    Ok(match u8::arbitrary(u)? % 4 {
        0 => Some(short(u, 80)?),
        _ => None,
    })
}

fn op(u: &mut Unstructured<'_>, total: u64) -> arbitrary::Result<Op> {
    Ok(match u8::arbitrary(u)? % 4 {
        0 => Op::Insert {
            at_line: line(u, total)?,
            content: short(u, 200)?,
            expect_text: expect(u)?,
        },
        1 => Op::Remove {
            from_line: line(u, total)?,
            to_line: line(u, total)?,
            expect_text: expect(u)?,
        },
        2 => Op::UpdateLines {
            from_line: line(u, total)?,
            to_line: line(u, total)?,
            content: short(u, 200)?,
            expect_text: expect(u)?,
        },
        _ => Op::Replace {
            // Bounded so a pathological regex cannot stall the run on compile size alone.
            pattern: short(u, 48)?,
            replacement: short(u, 48)?,
            ignore_case: bool::arbitrary(u)?,
            dot_matches_newline: bool::arbitrary(u)?,
            expect_matches: if bool::arbitrary(u)? {
                Some(u64::from(u8::arbitrary(u)?))
            } else {
                None
            },
        },
    })
}

fuzz_target!(|data: &[u8]| {
    let (original, rest) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &b""[..]),
    };
    let total = split_lines(original).len() as u64;
    let mut u = Unstructured::new(rest);
    let mut ops = Vec::new();
    while ops.len() < 8 && !u.is_empty() {
        match op(&mut u, total) {
            Ok(o) => ops.push(o),
            Err(_) => break,
        }
    }
    if let Ok(applied) = update::apply(original, &ops) {
        assert_eq!(
            applied.new_line_count,
            split_lines(&applied.bytes).len() as u64
        );
        assert_eq!(applied.applied as usize, ops.len());
    }
});
