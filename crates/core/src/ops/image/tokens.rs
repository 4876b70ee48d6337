//! What an image costs a model's context window, in tokens, estimated from its width and
//! height by the rule one provider family documents ([`ImageRule`]). The figures are
//! estimates: providers change their vision encoders, and some pad or crop before counting.
//!
//! - `anthropic` (Claude): an image costs width × height / 750 tokens, rounded up. One whose
//!   long edge is over 1,568 px is first scaled down to it, and one that would still cost more
//!   than about 1,600 tokens is scaled down until it does not, so no image costs more than
//!   1,600. Documented examples: 200 × 200 about 54 tokens, 1,000 × 1,000 about 1,334,
//!   1,092 × 1,092 about 1,590.
//! - `openai` (GPT-4o and kin, high detail): the image is scaled to fit within 2,048 × 2,048,
//!   then so that its short side is at most 768 px (never up); it costs 85 tokens plus 170 per
//!   512 × 512 tile that covers it. Documented examples: 1,024 × 1,024 costs 765 tokens,
//!   2,048 × 4,096 costs 1,105.
//! - `gemini` (Gemini 2 and later): an image of at most 384 px on both sides costs 258 tokens;
//!   a larger one is cut into 768 × 768 tiles of 258 tokens each.

use std::fmt;

/// Whose image-billing rule estimates an image's tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ImageRule {
    /// Anthropic's Claude models: area / 750, after scaling to 1,568 px and ~1,600 tokens.
    #[default]
    Anthropic,
    /// OpenAI's models at high detail: 85 + 170 per 512-px tile after scaling.
    Openai,
    /// Google's Gemini models: 258 per 768-px tile (258 for a small image).
    Gemini,
}

/// Anthropic: the long edge an image is scaled down to.
const ANTHROPIC_EDGE: f64 = 1568.0;
/// Anthropic: the pixels one token stands for.
const ANTHROPIC_PIXELS_PER_TOKEN: f64 = 750.0;
/// Anthropic: the most an image costs (one that would cost more is scaled down first).
const ANTHROPIC_MAX_TOKENS: u64 = 1600;

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

    /// The estimated tokens of a `width` × `height` image in words: `1,531 tokens`.
    pub fn tokens_text(self, width: u64, height: u64) -> String {
        let tokens = self.tokens(width, height);
        format!(
            "{} token{}",
            crate::text::thousands(tokens),
            if tokens == 1 { "" } else { "s" }
        )
    }

    /// The estimated tokens of a `width` × `height` image.
    pub fn tokens(self, width: u64, height: u64) -> u64 {
        let (w, h) = (width.max(1) as f64, height.max(1) as f64);
        match self {
            ImageRule::Anthropic => {
                let scale = (ANTHROPIC_EDGE / w.max(h)).min(1.0);
                let area = (w * scale).round().max(1.0) * (h * scale).round().max(1.0);
                ((area / ANTHROPIC_PIXELS_PER_TOKEN).ceil() as u64).min(ANTHROPIC_MAX_TOKENS)
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
    fn anthropic_matches_its_documented_examples() {
        // The vision guide's table: 200x200 ~54, 1000x1000 ~1334, 1092x1092 ~1590.
        assert_eq!(ImageRule::Anthropic.tokens(200, 200), 54);
        assert_eq!(ImageRule::Anthropic.tokens(1000, 1000), 1334);
        assert_eq!(ImageRule::Anthropic.tokens(1092, 1092), 1590);
        assert_eq!(ImageRule::Anthropic.tokens(200, 300), 80);
    }

    #[test]
    fn anthropic_scales_to_its_long_edge_and_token_bound_first() {
        // 4032x3024 is scaled to 1568x1176 (2,459 tokens by area), then to the ~1,600 bound.
        assert_eq!(ImageRule::Anthropic.tokens(4032, 3024), 1600);
        assert_eq!(ImageRule::Anthropic.tokens(8000, 6000), 1600);
        // Long and thin: 20000x100 becomes 1568x8 (17 tokens), not 2,667.
        assert_eq!(ImageRule::Anthropic.tokens(20000, 100), 17);
        // Downscaled to 1.15 MP, as fsgate's default limits leave a photo: under the bound.
        assert_eq!(ImageRule::Anthropic.tokens(1238, 928), 1532);
    }

    #[test]
    fn openai_matches_its_documented_examples() {
        // 1024x1024 -> 768x768 -> 4 tiles: 765.
        assert_eq!(ImageRule::Openai.tokens(1024, 1024), 765);
        // 2048x4096 -> 1024x2048 -> 768x1536 -> 2x3 tiles: 1105.
        assert_eq!(ImageRule::Openai.tokens(2048, 4096), 1105);
        // One tile, never scaled up.
        assert_eq!(ImageRule::Openai.tokens(100, 100), 255);
        assert_eq!(ImageRule::Openai.tokens(512, 512), 255);
        assert_eq!(ImageRule::Openai.tokens(513, 512), 425);
    }

    #[test]
    fn gemini_charges_258_per_768_tile_and_258_within_384() {
        assert_eq!(ImageRule::Gemini.tokens(384, 384), 258);
        assert_eq!(ImageRule::Gemini.tokens(300, 384), 258);
        assert_eq!(ImageRule::Gemini.tokens(385, 10), 258);
        assert_eq!(ImageRule::Gemini.tokens(768, 768), 258);
        assert_eq!(ImageRule::Gemini.tokens(769, 768), 516);
        assert_eq!(ImageRule::Gemini.tokens(1280, 800), 258 * 4);
        assert_eq!(ImageRule::Gemini.tokens(1568, 1176), 258 * 6);
    }

    #[test]
    fn an_unreadable_header_is_charged_from_the_size() {
        // 40,000 bytes: a 200 x 200 square.
        assert_eq!(
            ImageRule::Anthropic.tokens_from_size(40_000),
            ImageRule::Anthropic.tokens(200, 200)
        );
    }

    #[test]
    fn rules_are_named_as_configurations_name_them() {
        for rule in ImageRule::ALL {
            assert_eq!(ImageRule::from_name(rule.name()), Some(rule));
        }
        assert_eq!(ImageRule::from_name("claude"), None);
    }
}
