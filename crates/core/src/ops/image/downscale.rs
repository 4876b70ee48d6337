//! Bringing an attached image within the limits model APIs take, so that one picture never
//! makes a provider refuse the turn (or every turn after it, since the picture stays in the
//! conversation).
//!
//! An image within [`ImageLimits`] — long edge, pixel count and byte size — is attached as the
//! file's own bytes, never decoded. One over any of them is decoded (an animated GIF or WebP:
//! its first frame), turned upright by its EXIF orientation, scaled down with its aspect ratio
//! kept (never up) to fit the edge and pixel bounds, and encoded again: a PNG stays PNG, a JPEG
//! stays JPEG, a GIF becomes PNG, a WebP becomes JPEG (PNG when it has transparency). When the
//! encoding is still over the byte bound, a JPEG is encoded at lower quality, then the picture
//! is scaled down further, until it fits or [`MAX_ENCODINGS`] encodings were tried. An image
//! that cannot be decoded, or is too large to decode ([`DECODE_MAX_PIXELS`]), or does not fit,
//! is not attached, and [`fit`] says why in words a reader can act on; nothing here panics
//! into the caller (a decoder that panics on hostile bytes is caught and reported).

use std::borrow::Cow;
use std::io::Cursor;
use std::panic::{AssertUnwindSafe, catch_unwind};

use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::{CompressionType, FilterType as PngFilter, PngEncoder};
use image::imageops::FilterType;
use image::metadata::Orientation;
use image::{ColorType, DynamicImage, ImageDecoder, ImageEncoder, ImageReader, Limits};

use super::{Checked, ImageFormat};
use crate::text::thousands;

/// The bounds an attached image is brought within.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageLimits {
    /// The longest side, in pixels. By default 1,568 (the long edge Anthropic's models take
    /// without scaling down; OpenAI's and Google's take more).
    pub max_edge: u64,
    /// The most pixels. By default 1,150,000 (the 1.15 megapixels Anthropic recommends sending
    /// at most: more is scaled down by the provider, costing upload and latency, not detail).
    pub max_pixels: u64,
    /// The most bytes. By default 3,932,160 (3.75 MiB): Anthropic refuses an image whose
    /// base64 form is over 5 MiB (5,242,880 bytes), the strictest per-image bound of the common
    /// APIs, and base64 takes 4 bytes for every 3.
    pub max_bytes: u64,
}

impl ImageLimits {
    /// The default long edge, in pixels.
    pub const DEFAULT_MAX_EDGE: u64 = 1568;
    /// The default pixel count.
    pub const DEFAULT_MAX_PIXELS: u64 = 1_150_000;
    /// The default byte size: 5 MiB of base64 is 3.75 MiB of image.
    pub const DEFAULT_MAX_BYTES: u64 = 5 * 1024 * 1024 / 4 * 3;

    /// Whether an image of `width` x `height` pixels and `bytes` bytes is within the limits.
    pub fn admits(&self, width: u64, height: u64, bytes: u64) -> bool {
        self.within(width, height) && bytes <= self.max_bytes
    }

    /// Whether `width` x `height` is within the edge and pixel bounds.
    fn within(&self, width: u64, height: u64) -> bool {
        width <= self.max_edge
            && height <= self.max_edge
            && width.saturating_mul(height) <= self.max_pixels
    }

    /// The largest size within the edge and pixel bounds that keeps `width` x `height`'s
    /// aspect ratio (each side rounded, at least 1), never larger than it.
    pub fn target(&self, width: u64, height: u64) -> (u64, u64) {
        let (width, height) = (width.max(1), height.max(1));
        if self.within(width, height) {
            return (width, height);
        }
        let (w, h) = (width as f64, height as f64);
        let edge = self.max_edge.max(1) as f64 / w.max(h);
        let area = (self.max_pixels.max(1) as f64 / (w * h)).sqrt();
        scaled(width, height, edge.min(area).min(1.0), |w, h| {
            self.within(w, h)
        })
    }
}

impl Default for ImageLimits {
    fn default() -> Self {
        ImageLimits {
            max_edge: Self::DEFAULT_MAX_EDGE,
            max_pixels: Self::DEFAULT_MAX_PIXELS,
            max_bytes: Self::DEFAULT_MAX_BYTES,
        }
    }
}

/// `width` x `height` times `scale`, each side rounded and at least 1, made smaller a pixel at a
/// time (aspect kept) until `fits` holds or it is 1 x 1.
fn scaled(width: u64, height: u64, scale: f64, fits: impl Fn(u64, u64) -> bool) -> (u64, u64) {
    let side = |n: u64, s: f64| ((n as f64 * s).round() as u64).clamp(1, n);
    let (mut w, mut h) = (side(width, scale), side(height, scale));
    // Rounding can land a pixel over a bound: shrink the long side, the other in proportion.
    while !fits(w, h) && (w > 1 || h > 1) {
        if w >= h {
            w -= 1;
            h = side(height, w as f64 / width as f64);
        } else {
            h -= 1;
            w = side(width, h as f64 / height as f64);
        }
    }
    (w, h)
}

/// The most pixels decoded to scale an image down (8192 x 8192): a larger picture would take
/// more memory than a tool call should (4 bytes a pixel, more for 16-bit images).
pub const DECODE_MAX_PIXELS: u64 = 8192 * 8192;

/// The most memory the decoder may allocate.
const DECODE_MAX_ALLOC: u64 = DECODE_MAX_PIXELS * 8 + (64 << 20);

/// The most encodings tried to come under the byte bound.
pub const MAX_ENCODINGS: usize = 8;

/// The JPEG qualities tried, in turn, before a picture is scaled down further for bytes.
const JPEG_QUALITIES: [u8; 3] = [85, 70, 55];

/// An image ready to attach.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fitted {
    /// The bytes to attach.
    pub data: Vec<u8>,
    /// Their format (a GIF or WebP that was scaled down is PNG or JPEG).
    pub format: ImageFormat,
    /// Width in pixels of what is attached.
    pub width: u64,
    /// Height in pixels of what is attached.
    pub height: u64,
    /// How it differs from the file.
    pub change: Change,
}

impl Fitted {
    /// The file's own bytes, attached as they are.
    pub fn as_is(data: Vec<u8>, checked: Checked) -> Fitted {
        Fitted {
            data,
            format: checked.format,
            width: checked.width,
            height: checked.height,
            change: Change::None,
        }
    }
}

/// How an attached image differs from its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Not at all: the file's bytes.
    None,
    /// Scaled down (and encoded again) from the file's `width` x `height`.
    Downscaled {
        /// The file's width in pixels.
        width: u64,
        /// The file's height in pixels.
        height: u64,
    },
    /// Encoded again at its own size, its file being over the byte bound.
    Reencoded,
}

/// `data`, a whole image ([`super::check`] found it so, giving `checked`), brought within
/// `limits`: as it is when it already is, else scaled down and encoded again (see the module's
/// documentation). `Err` says why it cannot be attached, in a clause that follows "it is not
/// attached: ".
pub fn fit(data: Vec<u8>, checked: Checked, limits: &ImageLimits) -> Result<Fitted, String> {
    let Checked {
        format,
        width,
        height,
    } = checked;
    if limits.admits(width, height, data.len() as u64) {
        return Ok(Fitted::as_is(data, checked));
    }
    if width.saturating_mul(height) > DECODE_MAX_PIXELS {
        return Err(format!(
            "it is over the image limits ({}), and at {width}x{height} it is more than the \
             {} pixels (8192x8192) fsgate decodes to scale an image down",
            limits_words(limits),
            thousands(DECODE_MAX_PIXELS)
        ));
    }
    let stored = data.len() as u64;
    match catch_unwind(AssertUnwindSafe(|| shrink(&data, checked, limits))) {
        Ok(Ok(fitted)) => Ok(fitted),
        Ok(Err(why)) => Err(why),
        Err(_) => Err(format!(
            "it is over the image limits ({}), and the {} decoder failed on its {stored} bytes, \
             so it could not be scaled down",
            limits_words(limits),
            format.name()
        )),
    }
}

/// The limits in words: `1568 px long edge, 1,150,000 pixels, 3,932,160 bytes`.
pub fn limits_words(limits: &ImageLimits) -> String {
    format!(
        "{} px long edge, {} pixels, {} bytes",
        limits.max_edge,
        thousands(limits.max_pixels),
        thousands(limits.max_bytes)
    )
}

/// Decodes, scales and encodes `data` until it is within `limits`.
fn shrink(data: &[u8], checked: Checked, limits: &ImageLimits) -> Result<Fitted, String> {
    let picture = decode(data, checked.format).map_err(|e| {
        format!(
            "it is over the image limits ({}), and it could not be decoded to be scaled down: \
             {e}",
            limits_words(limits)
        )
    })?;
    let (pw, ph) = (u64::from(picture.width()), u64::from(picture.height()));
    let output = match checked.format {
        ImageFormat::Png | ImageFormat::Gif => ImageFormat::Png,
        ImageFormat::Jpeg => ImageFormat::Jpeg,
        ImageFormat::Webp if picture.color().has_alpha() => ImageFormat::Png,
        ImageFormat::Webp => ImageFormat::Jpeg,
    };
    let (mut w, mut h) = limits.target(pw, ph);
    let mut quality = 0;
    let mut last = None;
    for _ in 0..MAX_ENCODINGS {
        let encoded = encode(&resize(&picture, w, h), output, JPEG_QUALITIES[quality])
            .map_err(|e| format!("it could not be encoded as {}: {e}", output.name()))?;
        if encoded.len() as u64 <= limits.max_bytes {
            let change = if (w, h) == (pw, ph) {
                Change::Reencoded
            } else {
                Change::Downscaled {
                    width: checked.width,
                    height: checked.height,
                }
            };
            return Ok(Fitted {
                data: encoded,
                format: output,
                width: w,
                height: h,
                change,
            });
        }
        last = Some((w, h, encoded.len()));
        if output == ImageFormat::Jpeg && quality + 1 < JPEG_QUALITIES.len() {
            quality += 1;
            continue;
        }
        if (w, h) == (1, 1) {
            break;
        }
        // Bytes follow pixels roughly: aim a tenth under the bound.
        let ratio = (limits.max_bytes as f64 / encoded.len() as f64).sqrt() * 0.9;
        (w, h) = scaled(w, h, ratio.min(0.9), |_, _| true);
    }
    let (w, h, len) = last.unwrap_or((w, h, 0));
    Err(format!(
        "it is over the image limits ({}), and even scaled down to {w}x{h} pixels it takes {} \
         bytes as {}, over the {}-byte bound",
        limits_words(limits),
        thousands(len as u64),
        output.name(),
        thousands(limits.max_bytes)
    ))
}

/// The picture in `data`, upright: the first frame of an animation, turned by its EXIF
/// orientation, as 8-bit samples.
fn decode(data: &[u8], format: ImageFormat) -> Result<DynamicImage, String> {
    let codec = match format {
        ImageFormat::Png => image::ImageFormat::Png,
        ImageFormat::Jpeg => image::ImageFormat::Jpeg,
        ImageFormat::Gif => image::ImageFormat::Gif,
        ImageFormat::Webp => image::ImageFormat::WebP,
    };
    let mut reader = ImageReader::with_format(Cursor::new(data), codec);
    let mut limits = Limits::default();
    limits.max_alloc = Some(DECODE_MAX_ALLOC);
    reader.limits(limits);
    let mut decoder = reader.into_decoder().map_err(|e| e.to_string())?;
    // An orientation that cannot be read leaves the picture as stored.
    let orientation = decoder.orientation().unwrap_or(Orientation::NoTransforms);
    let mut picture = DynamicImage::from_decoder(decoder).map_err(|e| e.to_string())?;
    picture.apply_orientation(orientation);
    let color = picture.color();
    Ok(match (color.has_color(), color.has_alpha()) {
        (false, false) => DynamicImage::ImageLuma8(picture.into_luma8()),
        (false, true) => DynamicImage::ImageLumaA8(picture.into_luma_alpha8()),
        (true, false) => DynamicImage::ImageRgb8(picture.into_rgb8()),
        (true, true) => DynamicImage::ImageRgba8(picture.into_rgba8()),
    })
}

/// `picture` at `width` x `height`: itself when that is its size; an average over each target
/// pixel's area when it shrinks to under half (fast, and free of aliasing at such factors);
/// else a linear filter (an area average that close to 1:1 would drop or double pixels).
fn resize(picture: &DynamicImage, width: u64, height: u64) -> Cow<'_, DynamicImage> {
    let (w, h) = (
        u32::try_from(width).unwrap_or(u32::MAX),
        u32::try_from(height).unwrap_or(u32::MAX),
    );
    if (w, h) == (picture.width(), picture.height()) {
        Cow::Borrowed(picture)
    } else if w.saturating_mul(2) <= picture.width() && h.saturating_mul(2) <= picture.height() {
        Cow::Owned(picture.thumbnail_exact(w, h))
    } else {
        Cow::Owned(picture.resize_exact(w, h, FilterType::Triangle))
    }
}

/// `picture` encoded as `format` (PNG or JPEG; JPEG at `quality`, its alpha dropped). PNG is
/// written at the fast compression level: the default level takes ten times as long for a
/// couple of percent fewer bytes.
fn encode(picture: &DynamicImage, format: ImageFormat, quality: u8) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let (w, h) = (picture.width(), picture.height());
    let written = match format {
        ImageFormat::Jpeg => {
            let encoder = JpegEncoder::new_with_quality(&mut out, quality);
            let flat = match picture.color() {
                ColorType::L8 | ColorType::Rgb8 => Cow::Borrowed(picture),
                color if color.has_color() => Cow::Owned(DynamicImage::from(picture.to_rgb8())),
                _ => Cow::Owned(DynamicImage::from(picture.to_luma8())),
            };
            encoder.write_image(flat.as_bytes(), w, h, flat.color().into())
        }
        _ => PngEncoder::new_with_quality(&mut out, CompressionType::Fast, PngFilter::Adaptive)
            .write_image(picture.as_bytes(), w, h, picture.color().into()),
    };
    written.map_err(|e| e.to_string())?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{ImageBuffer, Rgb, Rgba};

    /// A photo-like picture: smooth gradients with a little deterministic grain.
    fn photo(width: u32, height: u32) -> DynamicImage {
        let mut seed = 0x2545_F491u32;
        DynamicImage::ImageRgb8(ImageBuffer::from_fn(width, height, |x, y| {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            let grain = (seed & 7) as u8;
            Rgb([
                (x * 255 / width) as u8 ^ grain,
                (y * 255 / height) as u8,
                ((x + y) % 256) as u8,
            ])
        }))
    }

    /// Noise: what no coder compresses.
    fn noise(width: u32, height: u32) -> DynamicImage {
        let mut seed = 0x9E37_79B9u32;
        DynamicImage::ImageRgb8(ImageBuffer::from_fn(width, height, |_, _| {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            let [a, b, c, _] = seed.to_le_bytes();
            Rgb([a, b, c])
        }))
    }

    fn encoded(picture: &DynamicImage, format: image::ImageFormat) -> Vec<u8> {
        let mut out = Cursor::new(Vec::new());
        picture.write_to(&mut out, format).unwrap();
        out.into_inner()
    }

    fn checked(data: &[u8]) -> Checked {
        super::super::check(data).unwrap().unwrap()
    }

    fn decoded(fitted: &Fitted) -> DynamicImage {
        image::load_from_memory(&fitted.data).unwrap()
    }

    /// Aspect ratios equal within the rounding of one pixel on the short side.
    fn same_aspect(a: (u64, u64), b: (u64, u64)) {
        let ra = a.0 as f64 / a.1 as f64;
        let rb = b.0 as f64 / b.1 as f64;
        let tolerance = ra / b.0.min(b.1) as f64 + 1e-9;
        assert!((ra - rb).abs() <= tolerance, "{a:?} vs {b:?}");
    }

    #[test]
    fn target_keeps_the_aspect_and_honours_every_bound() {
        let edge_only = ImageLimits {
            max_pixels: u64::MAX,
            ..ImageLimits::default()
        };
        assert_eq!(edge_only.target(4032, 3024), (1568, 1176));
        assert_eq!(edge_only.target(3024, 4032), (1176, 1568));
        let limits = ImageLimits::default();
        let (w, h) = limits.target(4032, 3024);
        assert!(w * h <= 1_150_000 && w * h > 1_145_000, "{w}x{h}");
        same_aspect((4032, 3024), (w, h));
        // Long and thin: the short side stays at least one pixel.
        assert_eq!(limits.target(100_000, 3), (1568, 1));
        // Never up.
        assert_eq!(limits.target(640, 480), (640, 480));
        let tiny = ImageLimits {
            max_edge: 10,
            max_pixels: 1,
            max_bytes: 1,
        };
        assert_eq!(tiny.target(30, 20), (1, 1));
        for (w, h) in [
            (1569, 1),
            (1, 1569),
            (1568, 1568),
            (2000, 575),
            (1073, 1072),
        ] {
            let (tw, th) = limits.target(w, h);
            assert!(limits.admits(tw, th, 0), "{w}x{h} -> {tw}x{th}");
            assert!(tw <= w && th <= h);
        }
    }

    #[test]
    fn a_large_png_is_downscaled_within_bounds_and_stays_png() {
        let data = encoded(&photo(4000, 3000), image::ImageFormat::Png);
        let fitted = fit(data.clone(), checked(&data), &ImageLimits::default()).unwrap();
        assert_eq!(fitted.format, ImageFormat::Png);
        assert!(fitted.width <= 1568 && fitted.height <= 1568);
        assert!(fitted.width * fitted.height <= 1_150_000);
        assert!(fitted.data.len() as u64 <= ImageLimits::DEFAULT_MAX_BYTES);
        same_aspect((4000, 3000), (fitted.width, fitted.height));
        assert_eq!(
            fitted.change,
            Change::Downscaled {
                width: 4000,
                height: 3000
            }
        );
        let back = decoded(&fitted);
        assert_eq!(
            (u64::from(back.width()), u64::from(back.height())),
            (fitted.width, fitted.height)
        );
        assert_eq!(checked(&fitted.data).format, ImageFormat::Png);
    }

    #[test]
    fn a_large_jpeg_is_downscaled_and_stays_jpeg() {
        let data = encoded(&photo(3000, 2000), image::ImageFormat::Jpeg);
        let limits = ImageLimits {
            max_pixels: u64::MAX,
            ..ImageLimits::default()
        };
        let fitted = fit(data.clone(), checked(&data), &limits).unwrap();
        assert_eq!(fitted.format, ImageFormat::Jpeg);
        assert_eq!((fitted.width, fitted.height), (1568, 1045));
        let back = decoded(&fitted);
        assert_eq!((back.width(), back.height()), (1568, 1045));
        assert!(fitted.data.len() < data.len());
    }

    #[test]
    fn an_image_within_the_limits_is_attached_as_its_own_bytes_undecoded() {
        let data = encoded(&photo(640, 480), image::ImageFormat::Png);
        let fitted = fit(data.clone(), checked(&data), &ImageLimits::default()).unwrap();
        assert_eq!(
            fitted,
            Fitted::as_is(data, checked_of_dims(ImageFormat::Png, 640, 480))
        );
        // Not decoded: bytes whose structure passes but whose pixels are garbage travel as
        // they are when their size is within the limits (the structural check is what guards
        // them).
        let mut garbage = encoded(&photo(64, 48), image::ImageFormat::Jpeg);
        let scan = garbage.len() - 40;
        garbage[scan..scan + 20].fill(0x12);
        let fitted = fit(garbage.clone(), checked(&garbage), &ImageLimits::default()).unwrap();
        assert_eq!(fitted.data, garbage);
        assert_eq!(fitted.change, Change::None);
    }

    fn checked_of_dims(format: ImageFormat, width: u64, height: u64) -> Checked {
        Checked {
            format,
            width,
            height,
        }
    }

    #[test]
    fn the_byte_bound_is_honoured_by_scaling_further() {
        // Noise within the edge and pixel bounds but over a byte bound.
        let data = encoded(&noise(800, 600), image::ImageFormat::Png);
        assert!(data.len() > 1_000_000);
        let limits = ImageLimits {
            max_bytes: 200_000,
            ..ImageLimits::default()
        };
        let fitted = fit(data.clone(), checked(&data), &limits).unwrap();
        assert!(fitted.data.len() <= 200_000, "{}", fitted.data.len());
        assert_eq!(fitted.format, ImageFormat::Png);
        assert!(fitted.width < 800);
        same_aspect((800, 600), (fitted.width, fitted.height));
        // A JPEG first gives up quality.
        let data = encoded(&noise(800, 600), image::ImageFormat::Jpeg);
        let limits = ImageLimits {
            max_bytes: data.len() as u64 * 3 / 4,
            ..ImageLimits::default()
        };
        let fitted = fit(data.clone(), checked(&data), &limits).unwrap();
        assert!(fitted.data.len() as u64 <= limits.max_bytes);
        assert_eq!(fitted.format, ImageFormat::Jpeg);
    }

    #[test]
    fn an_image_over_the_byte_bound_alone_is_reencoded_at_its_size() {
        // A small PNG padded after its end to over the bound: encoded again, same pixels.
        let mut data = encoded(&photo(30, 20), image::ImageFormat::Png);
        data.resize(300_000, 0);
        let limits = ImageLimits {
            max_bytes: 100_000,
            ..ImageLimits::default()
        };
        let fitted = fit(data.clone(), checked(&data), &limits).unwrap();
        assert_eq!(fitted.change, Change::Reencoded);
        assert_eq!((fitted.width, fitted.height), (30, 20));
        assert!(fitted.data.len() < 100_000);
        assert_eq!(decoded(&fitted).to_rgb8(), photo(30, 20).to_rgb8());
    }

    #[test]
    fn a_byte_bound_no_picture_can_meet_is_refused_with_why() {
        let data = encoded(&photo(2000, 100), image::ImageFormat::Png);
        let limits = ImageLimits {
            max_bytes: 10,
            ..ImageLimits::default()
        };
        let why = fit(data.clone(), checked(&data), &limits).unwrap_err();
        assert!(why.contains("over the 10-byte bound"), "{why}");
        assert!(why.contains("as PNG"), "{why}");
    }

    #[test]
    fn broken_data_is_refused_without_panic() {
        // A PNG whose chunks are whole but whose pixel data is not deflate.
        let good = encoded(&photo(2000, 1500), image::ImageFormat::Png);
        let mut broken = good.clone();
        let idat = broken.windows(4).position(|w| w == b"IDAT").unwrap();
        broken[idat + 4..idat + 40].fill(0xAB);
        let c = checked(&broken);
        let why = fit(broken, c, &ImageLimits::default()).unwrap_err();
        assert!(why.contains("could not be decoded"), "{why}");
        // Corruptions anywhere in a JPEG, a PNG, a GIF and a WebP over the limits: an answer,
        // never a panic.
        let limits = ImageLimits {
            max_edge: 100,
            ..ImageLimits::default()
        };
        let small = photo(160, 90);
        for format in [
            image::ImageFormat::Png,
            image::ImageFormat::Jpeg,
            image::ImageFormat::Gif,
            image::ImageFormat::WebP,
        ] {
            let whole = encoded(&small, format);
            for at in (12..whole.len()).step_by(whole.len() / 60 + 1) {
                let mut bad = whole.clone();
                bad[at] ^= 0x5A;
                bad[(at * 7) % whole.len()] = 0xFF;
                if let Some(Ok(c)) = super::super::check(&bad) {
                    let _ = fit(bad, c, &limits);
                }
            }
        }
    }

    #[test]
    fn an_image_too_large_to_decode_is_refused_before_decoding() {
        let c = checked_of_dims(ImageFormat::Png, 20_000, 20_000);
        let why = fit(vec![0; 64], c, &ImageLimits::default()).unwrap_err();
        assert!(why.contains("20000x20000"), "{why}");
        assert!(why.contains("8192x8192"), "{why}");
    }

    #[test]
    fn an_animated_gif_gives_its_first_frame_as_png() {
        use image::codecs::gif::GifEncoder;
        use image::{Delay, Frame};
        let frame = |colour: [u8; 4]| {
            Frame::from_parts(
                ImageBuffer::from_pixel(2000, 50, Rgba(colour)),
                0,
                0,
                Delay::from_numer_denom_ms(100, 1),
            )
        };
        let mut data = Vec::new();
        {
            let mut encoder = GifEncoder::new(&mut data);
            encoder
                .encode_frames([frame([255, 0, 0, 255]), frame([0, 0, 255, 255])])
                .unwrap();
        }
        let fitted = fit(data.clone(), checked(&data), &ImageLimits::default()).unwrap();
        assert_eq!(fitted.format, ImageFormat::Png);
        assert_eq!((fitted.width, fitted.height), (1568, 39));
        let back = decoded(&fitted).to_rgba8();
        assert_eq!(back.get_pixel(10, 10), &Rgba([255, 0, 0, 255]));
    }

    #[test]
    fn a_photo_stored_sideways_is_turned_upright_by_its_exif_orientation() {
        // EXIF (TIFF, little-endian): one IFD entry, Orientation (0x0112) = 6, "rotate 90".
        let mut exif = b"II*\0\x08\0\0\0\x01\0".to_vec();
        exif.extend_from_slice(&[0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0]);
        let mut data = Vec::new();
        let mut encoder = JpegEncoder::new_with_quality(&mut data, 90);
        encoder.set_exif_metadata(exif).unwrap();
        let stored = photo(400, 200).to_rgb8();
        encoder
            .write_image(stored.as_raw(), 400, 200, image::ExtendedColorType::Rgb8)
            .unwrap();
        let limits = ImageLimits {
            max_edge: 100,
            ..ImageLimits::default()
        };
        let fitted = fit(data.clone(), checked(&data), &limits).unwrap();
        assert_eq!((fitted.width, fitted.height), (50, 100));
        assert_eq!(
            fitted.change,
            Change::Downscaled {
                width: 400,
                height: 200
            }
        );
        let back = decoded(&fitted);
        assert_eq!((back.width(), back.height()), (50, 100));
    }

    #[test]
    fn a_webp_becomes_jpeg_when_opaque_and_png_when_transparent() {
        let opaque = encoded(&photo(2000, 1000), image::ImageFormat::WebP);
        let fitted = fit(opaque.clone(), checked(&opaque), &ImageLimits::default()).unwrap();
        assert_eq!(fitted.format, ImageFormat::Jpeg);
        assert!(fitted.width <= 1568);
        let clear = DynamicImage::ImageRgba8(ImageBuffer::from_fn(2000, 1000, |x, _| {
            Rgba([10, 20, 30, (x % 256) as u8])
        }));
        let clear = encoded(&clear, image::ImageFormat::WebP);
        let fitted = fit(clear.clone(), checked(&clear), &ImageLimits::default()).unwrap();
        assert_eq!(fitted.format, ImageFormat::Png);
        assert!(decoded(&fitted).color().has_alpha());
    }
}
