//! What a model's context window holds: a ledger of *views* (a file's window shown to the model,
//! an image, other output), each keyed by the path it shows, with its estimated token cost
//! ([`cost`]), evictable by path, and a breakdown by band. gg's code arm keeps one per run to
//! total what a run put into the window; a harness that embeds fsgate-core keeps one per
//! conversation to know what each file costs and to evict it.
//!
//! ```
//! use fsgate_core::window::{Band, Ledger};
//!
//! let mut ledger = Ledger::default();
//! ledger.open("src/main.rs", Band::FileView, 4_000, "lines 1-120 of 120");
//! ledger.open("mockups/home.png", Band::Image, 48_213, "PNG, 1280x800");
//! ledger.open("src/main.rs", Band::FileView, 400, "lines 1-10 of 120");
//! assert_eq!(ledger.views().len(), 3);
//! // Evicting a path closes every view of it.
//! let closed = ledger.evict("src/main.rs");
//! assert_eq!(closed.len(), 2);
//! assert_eq!(ledger.breakdown().file_views, 0);
//! ```

pub mod cost;

pub use cost::ImageRule;

/// The band of the context breakdown a view is counted in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Band {
    /// A window of a file's text.
    FileView,
    /// An attached picture.
    Image,
    /// Anything else a tool put into the window (program output, listings).
    Other,
}

/// One view: what one read put into the window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// The view's number in its ledger, from 1, in the order views were opened.
    pub id: u64,
    /// The path it shows, as the model named it (the key eviction uses).
    pub path: String,
    /// Its band.
    pub band: Band,
    /// Its estimated cost in tokens.
    pub tokens: u64,
    /// The bytes it carries (text bytes, or an image file's bytes).
    pub bytes: u64,
    /// What it shows, for people: `lines 1-120 of 120`, `PNG, 1280x800`.
    pub label: String,
}

/// Token totals by band.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Breakdown {
    /// Text windows of files.
    pub file_views: u64,
    /// Images.
    pub images: u64,
    /// Everything else.
    pub other: u64,
}

impl Breakdown {
    /// The tokens of every band.
    pub fn total(&self) -> u64 {
        self.file_views + self.images + self.other
    }
}

/// The views open in one window, in the order they were opened (reads are append-only: a
/// second view of a path is a second entry).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ledger {
    views: Vec<View>,
    next: u64,
    /// The rule images are estimated by.
    rule: ImageRule,
}

impl Ledger {
    /// An empty ledger estimating images by `rule`.
    pub fn new(rule: ImageRule) -> Self {
        Ledger {
            views: Vec::new(),
            next: 0,
            rule,
        }
    }

    /// The rule images are estimated by.
    pub fn rule(&self) -> ImageRule {
        self.rule
    }

    /// Opens a view of `path` costing `tokens`; returns its id.
    pub fn push(&mut self, path: &str, band: Band, tokens: u64, bytes: u64, label: &str) -> u64 {
        self.next += 1;
        self.views.push(View {
            id: self.next,
            path: path.to_string(),
            band,
            tokens,
            bytes,
            label: label.to_string(),
        });
        self.next
    }

    /// Opens a view of `bytes` bytes: text (a file view or other output) costs
    /// [`cost::text_tokens`], an image is charged from its size (use
    /// [`Ledger::open_image`] when its dimensions are known). Returns its id.
    pub fn open(&mut self, path: &str, band: Band, bytes: u64, label: &str) -> u64 {
        let tokens = match band {
            Band::FileView | Band::Other => cost::text_tokens(bytes),
            Band::Image => self.rule.tokens_from_size(bytes),
        };
        self.push(path, band, tokens, bytes, label)
    }

    /// Opens an image view: charged from `dimensions` by the ledger's rule, or from its size
    /// when they are unknown. Returns its id.
    pub fn open_image(
        &mut self,
        path: &str,
        bytes: u64,
        dimensions: Option<(u64, u64)>,
        label: &str,
    ) -> u64 {
        let tokens = match dimensions {
            Some((w, h)) => self.rule.tokens(w, h),
            None => self.rule.tokens_from_size(bytes),
        };
        self.push(path, Band::Image, tokens, bytes, label)
    }

    /// Closes every view of `path`; returns them.
    pub fn evict(&mut self, path: &str) -> Vec<View> {
        let (closed, kept) = std::mem::take(&mut self.views)
            .into_iter()
            .partition(|v| v.path == path);
        self.views = kept;
        closed
    }

    /// The open views, oldest first.
    pub fn views(&self) -> &[View] {
        &self.views
    }

    /// The view with `id`, while it is open.
    pub fn get(&self, id: u64) -> Option<&View> {
        self.views.iter().find(|v| v.id == id)
    }

    /// Token totals by band.
    pub fn breakdown(&self) -> Breakdown {
        let mut b = Breakdown::default();
        for view in &self.views {
            match view.band {
                Band::FileView => b.file_views += view.tokens,
                Band::Image => b.images += view.tokens,
                Band::Other => b.other += view.tokens,
            }
        }
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_breakdown_counts_each_band_and_eviction_reclaims_a_path() {
        let mut ledger = Ledger::new(ImageRule::Gemini);
        ledger.open("a.rs", Band::FileView, 400, "lines 1-10 of 10");
        ledger.open_image("m.png", 5000, Some((1280, 800)), "PNG, 1280x800");
        ledger.open("(output)", Band::Other, 8, "console");
        assert_eq!(
            ledger.breakdown(),
            Breakdown {
                file_views: 100,
                images: 258 * 4,
                other: 2
            }
        );
        assert_eq!(ledger.evict("m.png").len(), 1);
        assert_eq!(ledger.breakdown().images, 0);
        assert_eq!(ledger.breakdown().total(), 102);
        // Ids keep counting after an eviction.
        assert_eq!(ledger.open("b.rs", Band::FileView, 4, "x"), 4);
    }
}
