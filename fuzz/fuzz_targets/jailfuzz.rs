//! The jail fuzzer driven by libFuzzer: the input's first 8 bytes seed the racer, the rest are
//! the choices (through `arbitrary`'s `Unstructured`) that build the tree and make up to 64 calls
//! of every profile's tools, each checked by the oracle shared with the `jailfuzz` test binary
//! (`crates/core/tests/jailfuzz/model.rs`: nothing outside the roots changed or shown, no secret
//! shown or changed, every file whole blocks of what a write asked for, no panic, no hang). A
//! finding panics with its description, so libFuzzer keeps the input.
#![no_main]
// The harness builds its fixture and checks the disk itself, outside fsgate's access layer.
#![allow(clippy::disallowed_methods)]

#[path = "../../crates/core/tests/jailfuzz/model.rs"]
mod model;

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;

/// The fuzzer's bytes as choices; once they run out, every choice is the first.
struct Bytes<'a>(Unstructured<'a>);

impl model::Choices for Bytes<'_> {
    fn below(&mut self, n: usize) -> usize {
        self.0.choose_index(n).unwrap_or(0)
    }
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let seed: u64 = u.arbitrary().unwrap_or(0);
    let config = model::RunConfig {
        seed,
        calls: 64,
        deadline: None,
        racer: true,
    };
    if let Err(finding) = model::run(&config, &mut Bytes(u)) {
        panic!("{finding}");
    }
});
