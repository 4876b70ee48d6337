//! The jail fuzzer as a time-bounded property test: runs of random tool calls of every profile
//! under a racer, each from its own seed, checked after every call by the oracle in `model.rs`
//! (which the `jailfuzz` cargo-fuzz target shares).
//!
//! `FSGATE_JAILFUZZ_SECS` bounds the time (default 20 s), `FSGATE_JAILFUZZ_SEED` fixes the first
//! seed (default: from the clock; every run's seed is printed with a finding),
//! `FSGATE_JAILFUZZ_CALLS` the calls per run (default 150), `FSGATE_JAILFUZZ_TRACE` prints every
//! call's answer. `FSGATE_JAILFUZZ_SEED` with `FSGATE_JAILFUZZ_SECS=0` replays that one run
//! whole, with no time bound (the racer's timing still differs between replays). The soak is
//! the same test in a release build with a long time bound; it prints its totals and rates.

// The racer and the tree builder use Linux calls (`openat2` with `RESOLVE_BENEATH`, `mknodat`);
// on other systems the binary is empty (the portable paths are fuzzed on Linux, in the portable
// run of scripts/test's suites).
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

mod model;

use std::time::{Duration, Instant};

use model::{Rng, RunConfig, Stats};

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

#[test]
fn random_calls_under_racing_changes_never_leave_the_roots() {
    let secs = env_u64("FSGATE_JAILFUZZ_SECS").unwrap_or(20);
    let calls = env_u64("FSGATE_JAILFUZZ_CALLS").unwrap_or(150) as usize;
    let first = env_u64("FSGATE_JAILFUZZ_SEED").unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64
    });
    // One seed's run, whole: no deadline cuts its calls short.
    let replay_one = std::env::var("FSGATE_JAILFUZZ_SEED").is_ok() && secs == 0;
    let start = Instant::now();
    let deadline = start + Duration::from_secs(secs);
    let mut total = Stats::default();
    let mut last_report = start;
    let mut seed = first;
    if replay_one {
        eprintln!("jailfuzz: the run of seed {first} alone, {calls} calls");
    } else {
        eprintln!("jailfuzz: first seed {first}, {secs} s, {calls} calls per run");
    }
    loop {
        let config = RunConfig {
            seed,
            calls,
            deadline: (!replay_one).then_some(deadline),
            racer: true,
        };
        match model::run(&config, &mut Rng(seed)) {
            Ok(stats) => total.add(stats),
            Err(finding) => panic!("{finding}"),
        }
        if replay_one || Instant::now() >= deadline {
            break;
        }
        seed = Rng(seed).next_u64();
        if last_report.elapsed() >= Duration::from_secs(60) {
            last_report = Instant::now();
            report(&total, start);
        }
    }
    report(&total, start);
    assert!(total.calls > 0, "no call was made in {secs} s");
}

fn report(total: &Stats, start: Instant) {
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "jailfuzz: {} runs, {} calls ({} refused or failed), {} racer operations in {secs:.0} s: \
         {:.0} calls/s, {:.0} racer operations/s, no finding",
        total.runs,
        total.calls,
        total.errors,
        total.racer_ops,
        total.calls as f64 / secs,
        total.racer_ops as f64 / secs,
    );
}
