//! The engine: typed operations on a workspace. Synchronous, free of protocol types; every
//! limit is an option the calling surface fills with its profile's defaults.

pub mod artifacts;
pub mod edit;
pub mod image;
pub mod line_index;
pub mod list;
pub mod notebook;
pub(crate) mod ordered;
pub mod outline;
pub mod patch;
pub mod read;
pub mod replace;
pub mod scan;
pub mod shell;
pub mod syntax;
pub mod syntax_check;
pub mod tree;
pub mod undo;
pub mod update;
pub mod version;
pub mod write;
