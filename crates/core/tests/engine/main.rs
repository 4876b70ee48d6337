//! The engine shared by the profiles: the patch engines and their fixtures, encodings, redaction,
//! large and wide text, the layer rule, and the (ignored) performance probes.
//!
//! One test binary, one module per area (the modules keep the names the tests had as files).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

#[path = "../gg_support/mod.rs"]
mod gg_support;
#[path = "../picoclaw_support/mod.rs"]
mod picoclaw_support;
#[path = "../qwen_support/mod.rs"]
mod qwen_support;
#[path = "../sgpt_support/mod.rs"]
mod sgpt_support;

mod encoded_text;
mod encoding_fixtures;
mod encoding_props;
mod large_edit;
mod layers;
mod move_fixtures;
mod perf_probe;
mod redact_props;
mod replace_spare;
mod unified_fixtures;
mod unified_props;
mod update_fixtures;
mod v4a_engine;
mod v4a_fixtures;
mod versions;
mod wide_text;
