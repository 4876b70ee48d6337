//! The V4A patch format Codex-trained models emit: parsing and applying.
