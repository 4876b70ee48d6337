//! Estimates of what content costs a model's context window, in tokens. They are estimates:
//! providers tokenize text with their own vocabularies and bill images by their own rules, so
//! the figures are close, not exact.
//!
//! - **Text**: one token per four bytes of UTF-8, rounded up (the usual rule of thumb for
//!   English prose and source code; dense non-Latin text costs more).
//! - **Images**, from their width and height, by the rule of one provider family
//!   ([`ImageRule`], whose rules and their documented examples live with the image engine in
//!   [`crate::ops::image::tokens`]).
//! - **An image whose header cannot be read** is charged as a square picture of one pixel per
//!   byte of its file (what a screenshot compresses to), by the same rule.

pub use crate::ops::image::tokens::ImageRule;

/// The bytes of text one token stands for.
pub const TEXT_BYTES_PER_TOKEN: u64 = 4;

/// The estimated tokens of `bytes` bytes of text.
pub fn text_tokens(bytes: u64) -> u64 {
    bytes.div_ceil(TEXT_BYTES_PER_TOKEN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_costs_a_token_per_four_bytes_rounded_up() {
        assert_eq!(text_tokens(0), 0);
        assert_eq!(text_tokens(1), 1);
        assert_eq!(text_tokens(4), 1);
        assert_eq!(text_tokens(4001), 1001);
    }
}
