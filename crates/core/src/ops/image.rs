//! Image recognition by magic number (never by extension) and pixel dimensions from the header.

use std::io::{BufReader, Read, Seek, SeekFrom};

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
}
