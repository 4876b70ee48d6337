//! The adversarial suite (issue 9): escapes, secrets, atomicity, resources, bad input and
//! strict paths (issue 16),
//! driven through the public `Workspace` API for every profile. See each module.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

#[path = "adversarial/support.rs"]
mod support;

#[path = "adversarial/escapes.rs"]
mod escapes;

#[path = "adversarial/resources.rs"]
mod resources;

#[path = "adversarial/atomicity.rs"]
mod atomicity;

#[path = "adversarial/bad_input.rs"]
mod bad_input;

#[path = "adversarial/secrets.rs"]
mod secrets;

#[path = "adversarial/paths.rs"]
mod paths;
