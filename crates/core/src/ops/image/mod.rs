//! Image recognition by magic number (never by extension), pixel dimensions from the header,
//! and the structural check an image passes before it is attached to a result; then
//! [`downscale`] brings an image over the attachment limits within them, and [`tokens`]
//! estimates what an image costs a model's window.
//!
//! **Only real images are attached.** A model API that validates images can reject a whole turn
//! over one bad attachment, so bytes that merely start like an image are not sent: [`check`]
//! walks the format's structure and gives the image's dimensions, or why it is damaged.
//!
//! - PNG: the signature, an `IHDR` chunk first (13 bytes, its CRC checked, a valid bit depth
//!   and colour type), then every chunk complete up to `IEND`, with at least one `IDAT` (and a
//!   `PLTE` before it for a palette image).
//! - GIF: the header, the logical screen descriptor, the global colour table when flagged, and
//!   at least one image (descriptor, local colour table when flagged, LZW data sub-blocks to
//!   their terminator); every block complete up to the trailer or the end of the file.
//! - JPEG: SOI, complete marker segments, a frame header (SOF0, SOF1 or SOF2: the Huffman
//!   codings image decoders support) with its dimensions, a scan (SOS) after it and an EOI
//!   after the scan.
//! - WebP: a RIFF length no longer than the file, and a first chunk `VP8 ` (a key frame with
//!   its start code), `VP8L` (its signature, version 0) or `VP8X` (a canvas, then an image
//!   chunk, or animation frames when flagged; a still image the canvas's size), each chunk
//!   complete.
//!
//! Dimensions must be non-zero, and the pixel count plausible for the file's size: at most
//! [`ImageFormat::max_pixels_per_byte`] pixels per byte of the file, a bound twice the best
//! ratio each format's coding can reach, so that only a header that lies about its size fails
//! it. A PNG's deflate stream expands at most 1032-fold and a pixel takes at least one bit
//! (8,256 pixels a byte); a GIF's LZW code of 12 bits or fewer stands for at most 4,096 pixels
//! (2,731 a byte); a Huffman-coded JPEG spends at least one bit on each 8x8 block (512 a
//! byte); WebP can spend almost nothing on a flat picture (VP8 skips a macroblock for about
//! 1/180 of a bit, VP8L's one-symbol codes cost no bits at all), so its bound is 2^20 pixels a
//! byte, which no real encoder's output comes near.

use std::io::{BufReader, Read, Seek, SeekFrom};

pub mod downscale;
pub mod tokens;

pub use downscale::{Change, Fitted, ImageLimits, fit};
pub use tokens::ImageRule;

/// The image formats a read attaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageFormat {
    /// Portable Network Graphics.
    Png,
    /// JPEG.
    Jpeg,
    /// GIF (87a or 89a).
    Gif,
    /// WebP (RIFF container).
    Webp,
}

impl ImageFormat {
    /// The bytes a file must start with to be read as an image; 12 are enough for every format.
    pub const SNIFF_LEN: usize = 12;

    /// Recognises a format from a file's first bytes.
    pub fn sniff(head: &[u8]) -> Option<ImageFormat> {
        if head.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(ImageFormat::Png)
        } else if head.starts_with(&[0xFF, 0xD8, 0xFF]) {
            Some(ImageFormat::Jpeg)
        } else if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
            Some(ImageFormat::Gif)
        } else if head.len() >= 12 && head.starts_with(b"RIFF") && &head[8..12] == b"WEBP" {
            Some(ImageFormat::Webp)
        } else {
            None
        }
    }

    /// The MIME type of the format.
    pub fn mime(self) -> &'static str {
        match self {
            ImageFormat::Png => "image/png",
            ImageFormat::Jpeg => "image/jpeg",
            ImageFormat::Gif => "image/gif",
            ImageFormat::Webp => "image/webp",
        }
    }

    /// The format's usual name.
    pub fn name(self) -> &'static str {
        match self {
            ImageFormat::Png => "PNG",
            ImageFormat::Jpeg => "JPEG",
            ImageFormat::Gif => "GIF",
            ImageFormat::Webp => "WebP",
        }
    }

    /// The most pixels one byte of a file of this format is taken to hold: twice the best
    /// ratio the format's coding reaches (see the module's documentation).
    pub fn max_pixels_per_byte(self) -> u64 {
        match self {
            ImageFormat::Png => 2 * 8 * 1032,
            ImageFormat::Gif => 2 * 4096 * 8 / 12,
            ImageFormat::Jpeg => 2 * 64 * 8,
            ImageFormat::Webp => 1 << 20,
        }
    }
}

/// An image whose structure [`check`] found whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checked {
    /// Its format.
    pub format: ImageFormat,
    /// Width in pixels (non-zero).
    pub width: u64,
    /// Height in pixels (non-zero).
    pub height: u64,
}

/// Why bytes that start like an image are not attached: the format they claim, and what is
/// wrong with them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Damaged {
    /// The format the first bytes claim.
    pub format: ImageFormat,
    /// What is wrong, in a few words a reader can check ("the file ends inside the IHDR
    /// chunk").
    pub reason: String,
}

/// Checks that `data` is a whole image of the format its first bytes claim (see the module's
/// documentation for what is checked), and gives its dimensions. `None` when the first bytes
/// claim no format at all.
pub fn check(data: &[u8]) -> Option<Result<Checked, Damaged>> {
    let format = ImageFormat::sniff(data)?;
    let parsed = match format {
        ImageFormat::Png => png(data),
        ImageFormat::Gif => gif(data),
        ImageFormat::Jpeg => jpeg(data),
        ImageFormat::Webp => webp(data),
    };
    let damaged = |reason: String| Damaged { format, reason };
    Some(
        parsed
            .and_then(|(width, height)| plausible(format, width, height, data.len()))
            .map(|(width, height)| Checked {
                format,
                width,
                height,
            })
            .map_err(damaged),
    )
}

/// `(width, height)` when non-zero and plausible for a file of `len` bytes.
fn plausible(
    format: ImageFormat,
    width: u64,
    height: u64,
    len: usize,
) -> Result<(u64, u64), String> {
    if width == 0 || height == 0 {
        return Err(format!(
            "its header gives {width}x{height} pixels, and an image has at least one of each"
        ));
    }
    let most = format.max_pixels_per_byte().saturating_mul(len as u64);
    if width.saturating_mul(height) > most {
        return Err(format!(
            "its header gives {width}x{height} pixels, more than a {} file of {len} bytes can \
             hold (at most {most} pixels), so the header is corrupt",
            format.name()
        ));
    }
    Ok((width, height))
}

fn be16(d: &[u8], at: usize) -> Option<u64> {
    Some(u64::from(u16::from_be_bytes(
        d.get(at..at + 2)?.try_into().ok()?,
    )))
}

fn le16(d: &[u8], at: usize) -> Option<u64> {
    Some(u64::from(u16::from_le_bytes(
        d.get(at..at + 2)?.try_into().ok()?,
    )))
}

fn be32(d: &[u8], at: usize) -> Option<u64> {
    Some(u64::from(u32::from_be_bytes(
        d.get(at..at + 4)?.try_into().ok()?,
    )))
}

fn le32(d: &[u8], at: usize) -> Option<u64> {
    Some(u64::from(u32::from_le_bytes(
        d.get(at..at + 4)?.try_into().ok()?,
    )))
}

fn le24(d: &[u8], at: usize) -> Option<u64> {
    let b = d.get(at..at + 3)?;
    Some(u64::from(b[0]) | u64::from(b[1]) << 8 | u64::from(b[2]) << 16)
}

/// A chunk or marker name as text for a message.
fn shown(name: &[u8]) -> String {
    name.iter()
        .map(|&b| {
            if b.is_ascii_graphic() || b == b' ' {
                char::from(b).to_string()
            } else {
                format!("\\x{b:02x}")
            }
        })
        .collect()
}

/// CRC-32 (ISO-HDLC, PNG's), bit by bit: only a 17-byte header is checked.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn png(d: &[u8]) -> Result<(u64, u64), String> {
    const IHDR_END: usize = 8 + 8 + 13 + 4;
    if d.len() < IHDR_END {
        return Err(format!(
            "the file ends inside the IHDR header chunk ({} bytes; a PNG needs {IHDR_END} \
             before its image data)",
            d.len()
        ));
    }
    if &d[12..16] != b"IHDR" || be32(d, 8) != Some(13) {
        return Err(format!(
            "its first chunk is {:?} of {} bytes, not the 13-byte IHDR header",
            shown(&d[12..16]),
            be32(d, 8).unwrap_or(0)
        ));
    }
    if Some(u64::from(crc32(&d[12..29]))) != be32(d, 29) {
        return Err("the IHDR header's checksum does not match its bytes".to_string());
    }
    let (width, height) = (be32(d, 16).unwrap_or(0), be32(d, 20).unwrap_or(0));
    let (depth, colour) = (d[24], d[25]);
    let depth_ok = match colour {
        0 => matches!(depth, 1 | 2 | 4 | 8 | 16),
        3 => matches!(depth, 1 | 2 | 4 | 8),
        2 | 4 | 6 => matches!(depth, 8 | 16),
        _ => false,
    };
    if !depth_ok || d[26] != 0 || d[27] != 0 || d[28] > 1 {
        return Err(format!(
            "IHDR gives bit depth {depth}, colour type {colour}, compression {}, filter {} and \
             interlace {}, which is not a valid PNG",
            d[26], d[27], d[28]
        ));
    }
    if width > 0x7FFF_FFFF || height > 0x7FFF_FFFF {
        return Err(format!(
            "IHDR gives {width}x{height} pixels, beyond PNG's limit of 2^31-1 a side"
        ));
    }
    let (mut at, mut palette, mut data) = (IHDR_END, false, false);
    loop {
        if at + 8 > d.len() {
            return Err(format!(
                "the file ends at byte {} without an IEND chunk: it is cut short",
                d.len()
            ));
        }
        let name = &d[at + 4..at + 8];
        if !name.iter().all(u8::is_ascii_alphabetic) {
            return Err(format!(
                "the chunk at byte {at} has the name {:?}, which is not a chunk name",
                shown(name)
            ));
        }
        let len = be32(d, at).unwrap_or(0);
        let end = (at as u64).saturating_add(12).saturating_add(len);
        if len > 0x7FFF_FFFF || end > d.len() as u64 {
            return Err(format!(
                "the {} chunk at byte {at} declares {len} bytes, but the file ends {} bytes \
                 into it: it is cut short",
                shown(name),
                d.len() - at - 8
            ));
        }
        match name {
            b"PLTE" => palette = true,
            b"IDAT" => {
                if colour == 3 && !palette {
                    return Err("a palette image's data comes before its PLTE palette".into());
                }
                data = true;
            }
            b"IEND" => break,
            _ => {}
        }
        at = end as usize;
    }
    if !data {
        return Err("it has no IDAT chunk, so no image data".to_string());
    }
    Ok((width, height))
}

/// The end of a run of GIF data sub-blocks starting at `at` (after its zero terminator).
fn sub_blocks(d: &[u8], mut at: usize) -> Option<usize> {
    loop {
        let size = usize::from(*d.get(at)?);
        at += 1;
        if size == 0 {
            return Some(at);
        }
        at += size;
    }
}

fn gif(d: &[u8]) -> Result<(u64, u64), String> {
    let cut = |what: &str| format!("the file ends inside {what}: it is cut short");
    if d.len() < 13 {
        return Err(cut("the logical screen descriptor"));
    }
    let (width, height) = (le16(d, 6).unwrap_or(0), le16(d, 8).unwrap_or(0));
    let mut at = 13;
    if d[10] & 0x80 != 0 {
        at += 3 << ((d[10] & 7) + 1);
        if at > d.len() {
            return Err(cut("the global colour table"));
        }
    }
    let (mut images, mut trailer) = (0, false);
    while let Some(&block) = d.get(at) {
        match block {
            0x21 => {
                at = sub_blocks(d, at + 2).ok_or_else(|| cut("an extension block"))?;
            }
            0x2C => {
                let packed = *d.get(at + 9).ok_or_else(|| cut("an image descriptor"))?;
                at += 10;
                if packed & 0x80 != 0 {
                    at += 3 << ((packed & 7) + 1);
                }
                match d.get(at) {
                    None => return Err(cut("an image's colour table or data")),
                    Some(&code) if !(1..=11).contains(&code) => {
                        return Err(format!(
                            "the image at byte {at} gives an LZW code size of {code}, which \
                             GIF does not have"
                        ));
                    }
                    Some(_) => {}
                }
                at = sub_blocks(d, at + 1).ok_or_else(|| cut("an image's data"))?;
                images += 1;
            }
            0x3B => {
                trailer = true;
                break;
            }
            other => {
                return Err(format!(
                    "byte {at} holds 0x{other:02x} where a block (extension, image or trailer) \
                     should begin"
                ));
            }
        }
    }
    if images == 0 {
        return Err(format!(
            "it holds no image: {} after {at} bytes, before any image descriptor",
            if trailer {
                "its trailer comes"
            } else {
                "the file ends"
            }
        ));
    }
    // A missing trailer is tolerated, as decoders do: some encoders leave it out (such files
    // ship in the wild), and every image before it is complete.
    Ok((width, height))
}

fn jpeg(d: &[u8]) -> Result<(u64, u64), String> {
    let mut at = 2;
    let mut frame = None;
    loop {
        match d.get(at) {
            None => {
                return Err(format!(
                    "the file ends at byte {} before {}: it is cut short",
                    d.len(),
                    if frame.is_some() {
                        "its scan (SOS)"
                    } else {
                        "its frame header (SOF)"
                    }
                ));
            }
            Some(0xFF) => {}
            Some(&other) => {
                return Err(format!(
                    "byte {at} holds 0x{other:02x} where a marker should begin"
                ));
            }
        }
        while d.get(at) == Some(&0xFF) {
            at += 1;
        }
        let Some(&marker) = d.get(at) else {
            continue;
        };
        at += 1;
        match marker {
            0x01 | 0xD0..=0xD8 => continue,
            0xD9 => return Err("it ends (EOI) before any scan of image data".to_string()),
            _ => {}
        }
        let len = be16(d, at).unwrap_or(0) as usize;
        let end = at + len;
        if len < 2 || end > d.len() {
            return Err(format!(
                "the segment of marker 0x{marker:02x} at byte {} declares {len} bytes, but the \
                 file ends {} bytes into it: it is cut short",
                at - 2,
                d.len().saturating_sub(at)
            ));
        }
        match marker {
            0xC0..=0xCF if !matches!(marker, 0xC4 | 0xC8 | 0xCC) => {
                if !matches!(marker, 0xC0..=0xC2) {
                    return Err(format!(
                        "its frame is coded as SOF{} (lossless, hierarchical or arithmetic \
                         coding), which image decoders do not take; only baseline, extended and \
                         progressive Huffman JPEGs are attached",
                        marker - 0xC0
                    ));
                }
                let components = d.get(at + 7).copied().unwrap_or(0);
                if len < 8 || len != 8 + 3 * usize::from(components) || components == 0 {
                    return Err(format!(
                        "its frame header (SOF) of {len} bytes does not fit its {components} \
                         components"
                    ));
                }
                frame = Some((be16(d, at + 5).unwrap_or(0), be16(d, at + 3).unwrap_or(0)));
            }
            0xDA => {
                let Some(dims) = frame else {
                    return Err("its scan (SOS) comes before any frame header (SOF)".into());
                };
                if memchr::memmem::find(&d[end..], &[0xFF, 0xD9]).is_none() {
                    return Err(
                        "its scan data has no end (EOI marker): the file is cut short".to_string(),
                    );
                }
                return Ok(dims);
            }
            _ => {}
        }
        at = end;
    }
}

fn webp(d: &[u8]) -> Result<(u64, u64), String> {
    let riff = le32(d, 4).unwrap_or(0).saturating_add(8);
    if riff > d.len() as u64 {
        return Err(format!(
            "its RIFF header says the file holds {riff} bytes, but it holds {}: it is cut short",
            d.len()
        ));
    }
    let body = &d[..riff as usize];
    let chunk = |at: usize| -> Result<(&[u8], &[u8], usize), String> {
        let name = body
            .get(at..at + 4)
            .ok_or_else(|| format!("the file ends at byte {at}, before a chunk it needs"))?;
        let len = le32(body, at + 4).ok_or_else(|| {
            format!(
                "the file ends inside the header of the {} chunk",
                shown(name)
            )
        })?;
        let start = at + 8;
        let end = (start as u64).saturating_add(len);
        if end > body.len() as u64 {
            return Err(format!(
                "the {} chunk at byte {at} declares {len} bytes, but the RIFF data ends {} \
                 bytes into it: it is cut short",
                shown(name),
                body.len().saturating_sub(start)
            ));
        }
        let end = end as usize;
        Ok((name, &body[start..end], end + end % 2))
    };
    let (name, data, next) = chunk(12)?;
    match name {
        b"VP8 " | b"VP8L" => frame_size(name, data),
        b"VP8X" => {
            if data.len() < 10 {
                return Err("its VP8X header is shorter than 10 bytes".to_string());
            }
            let canvas = (
                le24(data, 4).unwrap_or(0) + 1,
                le24(data, 7).unwrap_or(0) + 1,
            );
            let animated = data[0] & 0x02 != 0;
            let mut at = next;
            loop {
                if at >= body.len() {
                    return Err(format!(
                        "it holds no {}: the RIFF data ends after its VP8X header and {} more \
                         bytes",
                        if animated {
                            "animation frame (ANMF)"
                        } else {
                            "image chunk (VP8 or VP8L)"
                        },
                        body.len().saturating_sub(next)
                    ));
                }
                let (name, data, after) = chunk(at)?;
                match name {
                    b"ANMF" if animated => return Ok(canvas),
                    b"VP8 " | b"VP8L" if !animated => {
                        let size = frame_size(name, data)?;
                        if size != canvas {
                            return Err(format!(
                                "its image is {}x{} pixels but its canvas {}x{}",
                                size.0, size.1, canvas.0, canvas.1
                            ));
                        }
                        return Ok(canvas);
                    }
                    _ => at = after,
                }
            }
        }
        other => Err(format!(
            "its first chunk is {:?}, not VP8, VP8L or VP8X image data",
            shown(other)
        )),
    }
}

/// The dimensions in a `VP8 ` (key frame) or `VP8L` chunk's data.
fn frame_size(name: &[u8], data: &[u8]) -> Result<(u64, u64), String> {
    if name == b"VP8L" {
        let bits = match (data.first(), le32(data, 1)) {
            (Some(0x2F), Some(bits)) => bits,
            _ => return Err("its VP8L chunk lacks the lossless signature".to_string()),
        };
        if bits >> 29 != 0 {
            return Err(format!("its VP8L chunk has version {}, not 0", bits >> 29));
        }
        return Ok(((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1));
    }
    match (data.first(), data.get(3..6)) {
        (Some(tag), Some([0x9D, 0x01, 0x2A])) if tag & 1 == 0 => Ok((
            le16(data, 6).unwrap_or(0) & 0x3FFF,
            le16(data, 8).unwrap_or(0) & 0x3FFF,
        )),
        (Some(tag), Some(_)) if tag & 1 == 1 => {
            Err("its VP8 chunk is not a key frame, so it cannot be decoded alone".to_string())
        }
        _ => Err("its VP8 chunk lacks the key frame's start code".to_string()),
    }
}

/// Width and height in pixels, from an image held in memory.
pub fn dimensions(data: &[u8]) -> Option<(u64, u64)> {
    imagesize::blob_size(data)
        .ok()
        .map(|s| (s.width as u64, s.height as u64))
}

/// Width and height in pixels, reading only as much of the file's header as needed.
pub fn dimensions_of<R: Read + Seek>(mut file: R) -> Option<(u64, u64)> {
    file.seek(SeekFrom::Start(0)).ok()?;
    imagesize::reader_size(BufReader::new(file))
        .ok()
        .map(|s| (s.width as u64, s.height as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_recognised_by_magic_number() {
        assert_eq!(
            ImageFormat::sniff(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"),
            Some(ImageFormat::Png)
        );
        assert_eq!(
            ImageFormat::sniff(&[0xFF, 0xD8, 0xFF, 0xE0]),
            Some(ImageFormat::Jpeg)
        );
        assert_eq!(ImageFormat::sniff(b"GIF89a\x01\0"), Some(ImageFormat::Gif));
        assert_eq!(
            ImageFormat::sniff(b"RIFF\0\0\0\0WEBPVP8 "),
            Some(ImageFormat::Webp)
        );
        assert_eq!(ImageFormat::sniff(b"RIFF\0\0\0\0WAVEfmt "), None);
        assert_eq!(ImageFormat::sniff(b"hello world!"), None);
    }

    fn png_chunk(out: &mut Vec<u8>, name: &[u8; 4], data: &[u8]) {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let mut body = name.to_vec();
        body.extend_from_slice(data);
        out.extend_from_slice(&body);
        out.extend_from_slice(&crc32(&body).to_be_bytes());
    }

    /// A PNG of `w`x`h` (8-bit RGB) whose IDAT holds `data_len` bytes.
    fn png_of(w: u32, h: u32, data_len: usize) -> Vec<u8> {
        let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
        let mut ihdr = w.to_be_bytes().to_vec();
        ihdr.extend_from_slice(&h.to_be_bytes());
        ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
        png_chunk(&mut out, b"IHDR", &ihdr);
        png_chunk(&mut out, b"tEXt", b"Comment\0made by hand");
        png_chunk(&mut out, b"IDAT", &vec![0x55; data_len]);
        png_chunk(&mut out, b"IEND", &[]);
        out
    }

    /// A GIF89a of `w`x`h`: a global table, an extension, one frame, the trailer.
    fn gif_of(w: u16, h: u16) -> Vec<u8> {
        let mut out = b"GIF89a".to_vec();
        out.extend_from_slice(&w.to_le_bytes());
        out.extend_from_slice(&h.to_le_bytes());
        out.extend_from_slice(&[0x81, 0, 0]);
        out.extend_from_slice(&[0; 12]);
        out.extend_from_slice(&[0x21, 0xF9, 4, 0, 10, 0, 0, 0]);
        out.push(0x2C);
        out.extend_from_slice(&[0, 0, 0, 0]);
        out.extend_from_slice(&w.to_le_bytes());
        out.extend_from_slice(&h.to_le_bytes());
        out.push(0x80);
        out.extend_from_slice(&[0; 6]);
        out.extend_from_slice(&[2, 3, 0x84, 0x8F, 0x05, 0]);
        out.push(0x3B);
        out
    }

    /// A JPEG of `w`x`h` coded as `sof` (0xC0: baseline), its scan `scan_len` bytes.
    fn jpeg_of(w: u16, h: u16, sof: u8, scan_len: usize) -> Vec<u8> {
        let mut out = vec![0xFF, 0xD8, 0xFF, 0xE0, 0, 16];
        out.extend_from_slice(b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0");
        out.extend_from_slice(&[0xFF, 0xDB, 0, 67, 0]);
        out.extend_from_slice(&[1; 64]);
        out.extend_from_slice(&[0xFF, sof, 0, 11, 8]);
        out.extend_from_slice(&h.to_be_bytes());
        out.extend_from_slice(&w.to_be_bytes());
        out.extend_from_slice(&[1, 1, 0x11, 0]);
        out.extend_from_slice(&[0xFF, 0xC4, 0, 20, 0, 1]);
        out.extend_from_slice(&[0; 16]);
        out.extend_from_slice(&[0xFF, 0xDA, 0, 8, 1, 1, 0, 0, 63, 0]);
        out.extend(
            (0..scan_len)
                .map(|i| if i % 7 == 3 { 0xFF } else { 0x12 })
                .flat_map(|b| if b == 0xFF { vec![0xFF, 0x00] } else { vec![b] }),
        );
        out.extend_from_slice(&[0xFF, 0xD9]);
        out
    }

    fn riff(chunks: &[(&[u8; 4], Vec<u8>)]) -> Vec<u8> {
        let mut body = b"WEBP".to_vec();
        for (name, data) in chunks {
            body.extend_from_slice(*name);
            body.extend_from_slice(&(data.len() as u32).to_le_bytes());
            body.extend_from_slice(data);
            if data.len() % 2 == 1 {
                body.push(0);
            }
        }
        let mut out = b"RIFF".to_vec();
        out.extend_from_slice(&(body.len() as u32).to_le_bytes());
        out.extend_from_slice(&body);
        out
    }

    fn vp8l(w: u32, h: u32) -> Vec<u8> {
        let mut data = vec![0x2F];
        data.extend_from_slice(&((w - 1) | (h - 1) << 14).to_le_bytes());
        data.extend_from_slice(&[0x11; 20]);
        data
    }

    fn vp8(w: u16, h: u16) -> Vec<u8> {
        let mut data = vec![0x50, 0x02, 0x00, 0x9D, 0x01, 0x2A];
        data.extend_from_slice(&w.to_le_bytes());
        data.extend_from_slice(&h.to_le_bytes());
        data.extend_from_slice(&[0x22; 31]);
        data
    }

    fn vp8x(w: u32, h: u32, flags: u8) -> Vec<u8> {
        let mut data = vec![flags, 0, 0, 0];
        data.extend_from_slice(&(w - 1).to_le_bytes()[..3]);
        data.extend_from_slice(&(h - 1).to_le_bytes()[..3]);
        data
    }

    fn dims(data: &[u8]) -> (ImageFormat, u64, u64) {
        match check(data) {
            Some(Ok(c)) => (c.format, c.width, c.height),
            other => panic!("not a whole image: {other:?}"),
        }
    }

    fn why(data: &[u8]) -> String {
        match check(data) {
            Some(Err(d)) => d.reason,
            other => panic!("not refused: {other:?}"),
        }
    }

    #[test]
    fn whole_images_of_every_format_pass_with_their_dimensions() {
        assert_eq!(dims(&png_of(3, 2, 40)), (ImageFormat::Png, 3, 2));
        assert_eq!(dims(&gif_of(17, 9)), (ImageFormat::Gif, 17, 9));
        assert_eq!(
            dims(&jpeg_of(64, 48, 0xC0, 40)),
            (ImageFormat::Jpeg, 64, 48)
        );
        assert_eq!(
            dims(&jpeg_of(64, 48, 0xC2, 40)),
            (ImageFormat::Jpeg, 64, 48)
        );
        assert_eq!(
            dims(&riff(&[(b"VP8 ", vp8(640, 480))])),
            (ImageFormat::Webp, 640, 480)
        );
        assert_eq!(
            dims(&riff(&[(b"VP8L", vp8l(40, 30))])),
            (ImageFormat::Webp, 40, 30)
        );
        let still = riff(&[
            (b"VP8X", vp8x(40, 30, 0x10)),
            (b"ALPH", vec![0; 9]),
            (b"VP8L", vp8l(40, 30)),
        ]);
        assert_eq!(dims(&still), (ImageFormat::Webp, 40, 30));
        let animated = riff(&[
            (b"VP8X", vp8x(8, 8, 0x02)),
            (b"ANIM", vec![0; 6]),
            (b"ANMF", vec![0; 40]),
        ]);
        assert_eq!(dims(&animated), (ImageFormat::Webp, 8, 8));
        // Bytes after the end of an image (after IEND, EOI, the trailer, the RIFF data) are
        // ignored, as decoders ignore them.
        for mut whole in [png_of(3, 2, 40), jpeg_of(8, 8, 0xC0, 4), gif_of(2, 2)] {
            whole.extend_from_slice(&[0; 100]);
            assert!(matches!(check(&whole), Some(Ok(_))));
        }
        // A GIF without its trailer still holds every image whole.
        let mut no_trailer = gif_of(4, 4);
        no_trailer.pop();
        assert_eq!(dims(&no_trailer), (ImageFormat::Gif, 4, 4));
    }

    #[test]
    fn an_image_cut_anywhere_is_refused() {
        let cases = [
            png_of(3, 2, 40),
            jpeg_of(64, 48, 0xC0, 40),
            riff(&[(b"VP8L", vp8l(40, 30))]),
            riff(&[(b"VP8X", vp8x(40, 30, 0)), (b"VP8L", vp8l(40, 30))]),
        ];
        for whole in cases {
            for len in ImageFormat::SNIFF_LEN..whole.len() {
                let cut = &whole[..len];
                assert!(
                    matches!(check(cut), Some(Err(_))),
                    "{:?} cut to {len} of {} bytes passed",
                    ImageFormat::sniff(cut),
                    whole.len()
                );
            }
        }
        // A GIF cut anywhere before the end of its image's data.
        let gif = gif_of(17, 9);
        for len in 6..gif.len() - 1 {
            assert!(
                matches!(check(&gif[..len]), Some(Err(_))),
                "GIF cut to {len}"
            );
        }
    }

    #[test]
    fn the_fourteen_byte_gif_of_the_report_is_refused() {
        // 26400x29281 pixels by its header, and nothing after it.
        let reason = why(b"GIF89a garbage");
        assert!(reason.contains("byte 13"), "{reason}");
        let reason = why(b"GIF89a\x20\x67\x61\x72\0\0\0");
        assert!(reason.contains("no image"), "{reason}");
        let reason = why(b"GIF89a\x01\0\x01\0\x80\0\0");
        assert!(reason.contains("global colour table"), "{reason}");
    }

    #[test]
    fn damaged_headers_name_what_is_wrong() {
        let mut bad_crc = png_of(3, 2, 40);
        bad_crc[20] ^= 1;
        assert!(why(&bad_crc).contains("checksum"));
        let mut bad_depth = png_of(3, 2, 40);
        bad_depth[24] = 3;
        let crc = crc32(&bad_depth[12..29]).to_be_bytes();
        bad_depth[29..33].copy_from_slice(&crc);
        assert!(why(&bad_depth).contains("bit depth 3"));
        let mut no_idat = b"\x89PNG\r\n\x1a\n".to_vec();
        no_idat.extend_from_slice(&png_of(3, 2, 0)[8..33]);
        png_chunk(&mut no_idat, b"IEND", &[]);
        assert!(why(&no_idat).contains("no IDAT"));
        let mut garbage_chunk = png_of(3, 2, 40);
        garbage_chunk[37] = b'1';
        assert!(why(&garbage_chunk).contains("not a chunk name"));

        assert!(why(&jpeg_of(64, 48, 0xC3, 40)).contains("SOF3"));
        assert!(why(&jpeg_of(64, 48, 0xC9, 40)).contains("SOF9"));
        let mut no_eoi = jpeg_of(64, 48, 0xC0, 40);
        no_eoi.truncate(no_eoi.len() - 2);
        assert!(why(&no_eoi).contains("no end"));
        assert!(why(&[0xFF, 0xD8, 0xFF, 0xD9]).contains("before any scan"));
        assert!(why(&[0xFF, 0xD8, 0xFF, 0xE0, 0x12, 0x34, 0, 0]).contains("cut short"));

        let mut too_long = riff(&[(b"VP8L", vp8l(40, 30))]);
        too_long.pop();
        assert!(why(&too_long).contains("cut short"));
        assert!(why(&riff(&[(b"VP8X", vp8x(40, 30, 0))])).contains("no image chunk"));
        let mismatch = riff(&[(b"VP8X", vp8x(40, 30, 0)), (b"VP8L", vp8l(41, 30))]);
        assert!(why(&mismatch).contains("41x30"));
        assert!(why(&riff(&[(b"ICCP", vec![0; 8])])).contains("ICCP"));
        let mut inter = vp8(64, 64);
        inter[0] |= 1;
        assert!(why(&riff(&[(b"VP8 ", inter)])).contains("key frame"));
    }

    #[test]
    fn zero_and_implausible_dimensions_are_refused() {
        assert!(why(&png_of(0, 2, 40)).contains("0x2"));
        assert!(why(&gif_of(5, 0)).contains("5x0"));
        assert!(why(&jpeg_of(0, 48, 0xC0, 40)).contains("0x48"));
        assert!(why(&riff(&[(b"VP8 ", vp8(0, 480))])).contains("0x480"));
        // The bound: pixels per byte of the file, twice each format's best coding ratio.
        let png = png_of(3000, 3000, 40);
        assert!(9_000_000 > png.len() as u64 * ImageFormat::Png.max_pixels_per_byte());
        assert!(why(&png).contains("3000x3000"));
        let png = png_of(1000, 1000, 100);
        assert!(matches!(check(&png), Some(Ok(_))));
        let jpeg = jpeg_of(4000, 3000, 0xC0, 40);
        assert!(why(&jpeg).contains("at most"));
        assert!(matches!(check(&jpeg_of(400, 300, 0xC0, 40)), Some(Ok(_))));
        assert!(why(&gif_of(60000, 60000)).contains("60000x60000"));
        // 16383x16383 WebP pixels need 256 bytes or more.
        let webp = riff(&[(b"VP8L", vp8l(16383, 16383))]);
        assert!(why(&webp).contains("16383x16383"));
        let mut big = vp8l(16383, 16383);
        big.extend_from_slice(&[0; 256]);
        assert!(matches!(check(&riff(&[(b"VP8L", big)])), Some(Ok(_))));
    }

    #[test]
    fn bytes_that_claim_no_format_are_not_checked() {
        assert_eq!(check(b"plain text, nothing more"), None);
        assert_eq!(check(b""), None);
    }
}
