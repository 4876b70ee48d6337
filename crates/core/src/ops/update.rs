//! coder's update-file engine: line operations applied bottom-up and regex replacements, with
//! post-apply echoes. Pure: bytes in, bytes out.
