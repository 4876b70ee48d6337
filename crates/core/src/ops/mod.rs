//! The engine: typed operations on a workspace. Synchronous, free of protocol types; every
//! limit is an option the calling surface fills with its profile's defaults.

pub mod edit;
pub mod find;
pub mod image;
pub mod list;
pub mod patch;
pub mod read;
pub mod search;
pub mod tree;
pub mod update;
pub mod write;
