//! Shared fixtures for the gg integration tests: a workspace in a temporary directory, calls
//! that assert success or failure, and small but valid images built byte by byte.

#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods
)]

use std::path::{Path, PathBuf};

use fsgate_core::{Content, GgConfig, Options, ToolOutput, Workspace};
use serde_json::Value;
use tempfile::TempDir;

/// Waits past the two seconds in which a folder's or an ignore file's stamp is not trusted, so
/// that the listings a walk takes are kept for the next walk.
pub fn settle() {
    std::thread::sleep(std::time::Duration::from_millis(2200));
}

/// `.gitignore` (`*.log`), `src/lib.rs` and `src/gen/x.rs` holding `x_text`, settled.
pub fn settled_gen_layout(fx: &Fx, x_text: &str) {
    fx.write(".gitignore", "*.log\n");
    fx.write("src/gen/x.rs", x_text);
    fx.write("src/lib.rs", "x\n");
    settle();
}

/// A workspace rooted at a fresh temporary directory.
pub struct Fx {
    pub dir: TempDir,
    pub ws: Workspace,
}

impl Fx {
    /// Default options (no configuration file).
    pub fn new() -> Fx {
        Fx::with(|_| {})
    }

    /// Options adjusted by `f`.
    pub fn with(f: impl FnOnce(&mut Options)) -> Fx {
        let dir = tempfile::tempdir().unwrap();
        let mut options = Options::new(dir.path());
        f(&mut options);
        let ws = Workspace::open(options).unwrap();
        Fx { dir, ws }
    }

    /// The configuration parsed from TOML `text`.
    pub fn config(text: &str) -> Fx {
        let config = parse(text);
        Fx::with(|o| o.profile = config.into())
    }

    /// The working directory as the workspace knows it.
    pub fn root(&self) -> PathBuf {
        self.ws.root().to_path_buf()
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Writes `bytes` at `rel`, creating parents.
    pub fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) {
        write(&self.path(rel), bytes.as_ref());
    }

    pub fn mkdir(&self, rel: &str) {
        std::fs::create_dir_all(self.path(rel)).unwrap();
    }

    pub fn bytes(&self, rel: &str) -> Vec<u8> {
        std::fs::read(self.path(rel)).unwrap()
    }

    pub fn call(&self, tool: &str, args: Value) -> ToolOutput {
        self.ws.call(tool, args).unwrap()
    }

    /// Calls `tool`, asserts it succeeded, returns its text.
    pub fn ok(&self, tool: &str, args: Value) -> String {
        let out = self.call(tool, args);
        assert!(
            !out.is_error,
            "{tool} failed unexpectedly: {}",
            out.text_content()
        );
        out.text_content()
    }

    /// Calls `tool`, asserts it failed, returns its text.
    pub fn err(&self, tool: &str, args: Value) -> String {
        let out = self.call(tool, args);
        assert!(
            out.is_error,
            "{tool} succeeded unexpectedly: {}",
            out.text_content()
        );
        assert_eq!(out.content.len(), 1, "an error is one text block");
        out.text_content()
    }

    /// The names in directory `rel`, sorted (to look for left-behind temp files).
    pub fn names(&self, rel: &str) -> Vec<String> {
        names(&self.path(rel))
    }
}

pub fn parse(text: &str) -> GgConfig {
    match GgConfig::parse(text, "test.toml") {
        Ok(c) => c,
        Err(e) => panic!("configuration refused: {e}"),
    }
}

pub fn write(path: &Path, bytes: &[u8]) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, bytes).unwrap();
}

pub fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `n` lines `line1\n` .. `lineN\n`.
pub fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("line{i}\n")).collect()
}

/// The image blocks of an output.
pub fn images(out: &ToolOutput) -> Vec<(&'static str, Vec<u8>)> {
    out.content
        .iter()
        .filter_map(|c| match c {
            Content::Image { mime, data } => Some((*mime, data.clone())),
            _ => None,
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Images, built byte by byte so their dimensions are known.

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

fn adler32(bytes: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &x in bytes {
        a = (a + u32::from(x)) % 65521;
        b = (b + a) % 65521;
    }
    (b << 16) | a
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let mut body = kind.to_vec();
    body.extend_from_slice(data);
    out.extend_from_slice(&body);
    out.extend_from_slice(&crc32(&body).to_be_bytes());
}

/// A valid RGB PNG of `w`x`h` pixels (stored, uncompressed deflate).
pub fn png(w: u32, h: u32) -> Vec<u8> {
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&w.to_be_bytes());
    ihdr.extend_from_slice(&h.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &ihdr);
    let mut raw = Vec::new();
    for y in 0..h {
        raw.push(0); // filter: none
        for x in 0..w {
            raw.extend_from_slice(&[(x * 40) as u8, (y * 40) as u8, 0x80]);
        }
    }
    assert!(raw.len() < 65535, "keep test images small");
    let mut z = vec![0x78, 0x01, 0x01];
    z.extend_from_slice(&(raw.len() as u16).to_le_bytes());
    z.extend_from_slice(&(!(raw.len() as u16)).to_le_bytes());
    z.extend_from_slice(&raw);
    z.extend_from_slice(&adler32(&raw).to_be_bytes());
    chunk(&mut out, b"IDAT", &z);
    chunk(&mut out, b"IEND", &[]);
    out
}

/// A GIF89a of `w`x`h` pixels: header, a two-colour table, one image of one colour.
pub fn gif(w: u16, h: u16) -> Vec<u8> {
    let mut out = b"GIF89a".to_vec();
    out.extend_from_slice(&w.to_le_bytes());
    out.extend_from_slice(&h.to_le_bytes());
    out.extend_from_slice(&[0x80, 0, 0]); // global colour table of 2 entries
    out.extend_from_slice(&[0, 0, 0, 0xFF, 0xFF, 0xFF]);
    out.push(0x2C); // image descriptor
    out.extend_from_slice(&[0, 0, 0, 0]);
    out.extend_from_slice(&w.to_le_bytes());
    out.extend_from_slice(&h.to_le_bytes());
    out.push(0);
    out.extend_from_slice(&[0x02, 0x02, 0x44, 0x01, 0x00]); // LZW min code size 2, tiny data
    out.push(0x3B);
    out
}

/// A baseline JPEG of `w`x`h` pixels: SOI, APP0 JFIF, SOF0, a scan (SOS and entropy-coded
/// bytes enough for the pixel count to be plausible), EOI.
pub fn jpeg(w: u16, h: u16) -> Vec<u8> {
    let mut out = vec![0xFF, 0xD8];
    out.extend_from_slice(&[0xFF, 0xE0, 0x00, 0x10]);
    out.extend_from_slice(b"JFIF\0");
    out.extend_from_slice(&[1, 1, 0, 0, 1, 0, 1, 0, 0]);
    out.extend_from_slice(&[0xFF, 0xC0, 0x00, 0x11, 8]);
    out.extend_from_slice(&h.to_be_bytes());
    out.extend_from_slice(&w.to_be_bytes());
    out.extend_from_slice(&[3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
    out.extend_from_slice(&[0xFF, 0xDA, 0x00, 0x0C, 3, 1, 0, 2, 0x11, 3, 0x11, 0, 63, 0]);
    out.resize(out.len() + usize::from(w) * usize::from(h) / 256 + 1, 0x2A);
    out.extend_from_slice(&[0xFF, 0xD9]);
    out
}

/// An extended-format (VP8X) WebP of `w`x`h` pixels, its image a lossless (VP8L) chunk.
pub fn webp(w: u32, h: u32) -> Vec<u8> {
    let mut vp8x = vec![0u8; 4];
    vp8x.extend_from_slice(&(w - 1).to_le_bytes()[..3]);
    vp8x.extend_from_slice(&(h - 1).to_le_bytes()[..3]);
    let mut vp8l = vec![0x2F];
    vp8l.extend_from_slice(&((w - 1) | (h - 1) << 14).to_le_bytes());
    vp8l.extend_from_slice(&[0; 7]);
    let mut body = b"WEBP".to_vec();
    body.extend_from_slice(b"VP8X");
    body.extend_from_slice(&(vp8x.len() as u32).to_le_bytes());
    body.extend_from_slice(&vp8x);
    body.extend_from_slice(b"VP8L");
    body.extend_from_slice(&(vp8l.len() as u32).to_le_bytes());
    body.extend_from_slice(&vp8l);
    let mut out = b"RIFF".to_vec();
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(&body);
    out
}
