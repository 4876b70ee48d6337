//! Sequential exact search/replace patches.
