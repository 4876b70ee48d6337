//! Estimates of what content costs a model's context window, in tokens. They are estimates:
//! providers tokenize text with their own vocabularies and bill images by their own rules, so
//! the figures are close, not exact.
//!
//! - **Text**: one token per four bytes of UTF-8, rounded up (the usual rule of thumb for
//!   English prose and source code; dense non-Latin text costs more).
//! - **Images**, from their width and height, by the rule of one provider family
//!   ([`ImageRule`]):
//!   - `anthropic` (Claude): an image whose long edge is over 1,568 px, or whose area is over
//!     1.15 megapixels, is scaled down to fit both; it then costs width × height / 750 tokens.
//!   - `openai` (GPT-4o and kin, high detail): scaled to fit 2,048 × 2,048, then so that its
//!     short side is at most 768 px; it costs 85 tokens plus 170 per 512 × 512 tile.
//!   - `gemini`: an image of at most 384 px on both sides costs 258 tokens; a larger one is cut
//!     into 768 × 768 tiles of 258 tokens each.
//! - **An image whose header cannot be read** is charged as a square picture of one pixel per
//!   byte of its file (what a screenshot compresses to), by the same rule.

use std::fmt;

/// The bytes of text one token stands for.
pub const TEXT_BYTES_PER_TOKEN: u64 = 4;

/// The estimated tokens of `bytes` bytes of text.
pub fn text_tokens(bytes: u64) -> u64 {
    bytes.div_ceil(TEXT_BYTES_PER_TOKEN)
}

/// Whose image-billing rule estimates an image's tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ImageRule {
    /// Anthropic's Claude models: area / 750 after scaling to 1,568 px and 1.15 MP.
    #[default]
    Anthropic,
    /// OpenAI's models at high detail: 85 + 170 per 512-px tile after scaling.
    Openai,
    /// Google's Gemini models: 258 per 768-px tile (258 for a small image).
    Gemini,
}

impl ImageRule {
    /// Every rule, in the order configurations list them.
    pub const ALL: [ImageRule; 3] = [ImageRule::Anthropic, ImageRule::Openai, ImageRule::Gemini];

    /// The rule's name in a configuration.
    pub fn name(self) -> &'static str {
        match self {
            ImageRule::Anthropic => "anthropic",
            ImageRule::Openai => "openai",
            ImageRule::Gemini => "gemini",
        }
    }

    /// The rule named `name`.
    pub fn from_name(name: &str) -> Option<ImageRule> {
        ImageRule::ALL.into_iter().find(|r| r.name() == name)
    }

    /// The estimated tokens of a `width` × `height` image.
    pub fn tokens(self, width: u64, height: u64) -> u64 {
        let (w, h) = (width.max(1) as f64, height.max(1) as f64);
        match self {
            ImageRule::Anthropic => {
                let mut scale = (1568.0 / w.max(h)).min(1.0);
                let area = w * h * scale * scale;
                if area > 1_150_000.0 {
                    scale *= (1_150_000.0 / area).sqrt();
                }
                let (w, h) = ((w * scale).round().max(1.0), (h * scale).round().max(1.0));
                (w * h / 750.0).ceil() as u64
            }
            ImageRule::Openai => {
                let fit = (2048.0 / w.max(h)).min(1.0);
                let (w, h) = (w * fit, h * fit);
                let short = (768.0 / w.min(h)).min(1.0);
                let (w, h) = (w * short, h * short);
                let tiles = (w / 512.0).ceil() * (h / 512.0).ceil();
                85 + 170 * tiles as u64
            }
            ImageRule::Gemini => {
                if w <= 384.0 && h <= 384.0 {
                    258
                } else {
                    258 * ((w / 768.0).ceil() * (h / 768.0).ceil()) as u64
                }
            }
        }
    }

    /// The estimated tokens of an image of `bytes` bytes whose dimensions are unknown: a square
    /// of one pixel per byte.
    pub fn tokens_from_size(self, bytes: u64) -> u64 {
        let side = (bytes.max(1) as f64).sqrt().ceil() as u64;
        self.tokens(side, side)
    }

    /// What the rule is, in words, for a result's closing line.
    pub fn describe(self) -> &'static str {
        match self {
            ImageRule::Anthropic => "images by Anthropic's rule (area / 750)",
            ImageRule::Openai => "images by OpenAI's tile rule (85 + 170 per 512-px tile)",
            ImageRule::Gemini => "images by Gemini's tile rule (258 per 768-px tile)",
        }
    }
}

impl fmt::Display for ImageRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
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

    #[test]
    fn anthropic_charges_area_over_750_after_scaling_to_its_bounds() {
        assert_eq!(ImageRule::Anthropic.tokens(200, 300), 80);
        assert_eq!(ImageRule::Anthropic.tokens(1000, 1000), 1334);
        // 2000 x 2000 is scaled to 1568 px, then to 1.15 MP: about 1072 x 1072.
        let big = ImageRule::Anthropic.tokens(2000, 2000);
        assert!((1530..=1535).contains(&big), "{big}");
        // A huge picture costs no more than the bound.
        assert!(ImageRule::Anthropic.tokens(8000, 6000) <= 1534);
    }

    #[test]
    fn openai_counts_512_tiles_after_scaling() {
        // 1024 x 1024 -> 768 x 768 -> 4 tiles.
        assert_eq!(ImageRule::Openai.tokens(1024, 1024), 85 + 170 * 4);
        // 2048 x 4096 -> 1024 x 2048 -> 768 x 1536 -> 2 x 3 tiles.
        assert_eq!(ImageRule::Openai.tokens(2048, 4096), 85 + 170 * 6);
        assert_eq!(ImageRule::Openai.tokens(100, 100), 85 + 170);
    }

    #[test]
    fn gemini_charges_258_per_768_tile() {
        assert_eq!(ImageRule::Gemini.tokens(300, 384), 258);
        assert_eq!(ImageRule::Gemini.tokens(1280, 800), 258 * 4);
    }

    #[test]
    fn an_unreadable_header_is_charged_from_the_size() {
        // 40,000 bytes: a 200 x 200 square.
        assert_eq!(
            ImageRule::Anthropic.tokens_from_size(40_000),
            ImageRule::Anthropic.tokens(200, 200)
        );
    }
}
