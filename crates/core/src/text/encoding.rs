//! Text encodings: detecting a file's encoding, BOM and line endings, decoding it, and writing
//! text back so that every byte the edit did not touch stays as it was.
//!
//! Everything here is a pure function over bytes; the callers do the file I/O.
//!
//! # Contract for callers
//!
//! **Editing or overwriting an existing file**
//!
//! 1. `let decoded = decode(&bytes, fallback);` (or [`decode_as`] when the encoding is known).
//!    [`Decoded::text`] is *normalised*: every line ending is `\n`, whatever the file has
//!    (`\r\n`; `\r` only in files whose dominant ending is `\r`, see [`LineEnding`]). The BOM
//!    is not part of the text. This is the text to show the model and to match its `\n`-based
//!    quotes against.
//! 2. Build the new text from `decoded.text` (string replacement, or the model's whole new
//!    content for an overwrite), with `\n` newlines. A `\r\n` in the new text is read as a line
//!    ending too; the bytes written for an ending are the file's, never the text's.
//! 3. `let bytes = rewrite(&original, &decoded, &new_text)?;` and write `bytes`. The result
//!    keeps the encoding and the BOM, copies every line the edit left alone byte for byte (its
//!    ending included, even where the encoding does not round-trip), gives a changed line the
//!    ending the old line at its place had, and gives an added line the file's dominant ending.
//!    A final newline is there if the new text ends with one, whatever the file had. Leave
//!    `decoded.text` as `decode` returned it (rewrite refuses a changed `text`); changing
//!    `decoded.format`'s encoding, BOM or line ending is a request to convert, and then the
//!    whole text is encoded anew in the changed format.
//! 4. Errors ([`ToolError`], kind invalid-argument, nothing to write): characters the file's
//!    encoding cannot represent (each named with its line), a changed line still holding the
//!    U+FFFD that stands for invalid bytes, a stateful file that cannot be spliced.
//!
//! A line that is only partly changed is re-encoded whole: in an encoding that does not
//! round-trip, that line's untouched characters may come out as their canonical bytes (the
//! same characters); every other line keeps its bytes.
//!
//! **Creating a file**: `encode(&content, &for_new_file(path, setting, platform))`. `encode`
//! writes every line ending as the format's; to keep CRLF the model wrote explicitly into a
//! new file, see [`line_ending_of`].
//!
//! # Detection order ([`decode`])
//!
//! 1. A BOM: UTF-32LE (`FF FE 00 00`), UTF-32BE (`00 00 FE FF`), UTF-16LE (`FF FE`), UTF-16BE
//!    (`FE FF`), UTF-8 (`EF BB BF`). A UTF-16 or UTF-32 BOM decides the encoding; a UTF-8 BOM
//!    is recorded, and when the bytes after it are not UTF-8 the detection goes on below (a GBK
//!    file with a UTF-8 BOM is written back so).
//! 2. Valid UTF-8 (pure ASCII included).
//! 3. *Near-UTF-8*: invalid UTF-8 whose valid multi-byte sequences outnumber its invalid
//!    sequences at least [`NEAR_UTF8_RATIO`] to 1 is UTF-8 with a few stray bytes (chardetng
//!    would call it windows-1252 and garble every other non-ASCII character). Such a file
//!    decodes with U+FFFD for the stray bytes ([`Decoded::malformed`]); lines holding them are
//!    copied unchanged by [`rewrite`], which refuses to write a changed line still holding a
//!    U+FFFD (that would replace the original bytes).
//! 4. Statistical detection by chardetng. The fallback encoding (the system's code page)
//!    steers it: it is passed as chardetng's top-level-domain hint, which favours the
//!    encodings native to that locale when the evidence is thin.
//! 5. The fallback encoding itself, when chardetng's guess cannot decode the bytes without
//!    errors and the fallback can. Otherwise chardetng's guess stands (with U+FFFD).
//!
//! UTF-16 and UTF-32 without a BOM are not detected (such bytes hold NULs; callers treat them
//! as binary).
//!
//! # Text or binary, stored or decoded
//!
//! [`looks_binary`] is the one test of whether a file is text: a NUL byte in its head (callers
//! pass the first [`BINARY_SNIFF_LEN`] bytes, or the whole file) makes it binary, unless it
//! starts with a UTF-16 or UTF-32 BOM ([`wide_bom`]), whose text is full of NULs. A text file
//! that is UTF-8 is shown as stored; [`decode_foreign`] decodes the others, and tells a caller
//! with a UTF-8 file (valid, or near-UTF-8 with a few stray bytes) to keep to its bytes.
//! [`Utf8Check`] validates UTF-8 a buffer at a time, for callers that stream a file.

use std::borrow::Cow;
use std::fmt;
use std::time::Duration;

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::{EncoderResult, Encoding};
use similar::{Algorithm, DiffTag};

use crate::error::ToolError;

/// Invalid UTF-8 is still taken as UTF-8 when its valid multi-byte sequences are at least this
/// many times as many as its invalid sequences (see the module documentation).
pub const NEAR_UTF8_RATIO: usize = 3;

/// How long the line diff in [`rewrite`] may search for a minimal diff; past it the diff is
/// coarser (more lines count as changed), never wrong.
const DIFF_TIME_LIMIT: Duration = Duration::from_secs(2);

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";
const UTF16LE_BOM: &[u8] = b"\xFF\xFE";
const UTF16BE_BOM: &[u8] = b"\xFE\xFF";
const UTF32LE_BOM: &[u8] = b"\xFF\xFE\x00\x00";
const UTF32BE_BOM: &[u8] = b"\x00\x00\xFE\xFF";
const LF: u32 = 0x0A;
const CR: u32 = 0x0D;

/// How many leading bytes of a file decide whether it is binary ([`looks_binary`]).
pub const BINARY_SNIFF_LEN: usize = 8 * 1024;

/// A line ending.
///
/// `\n` and `\r\n` always end a line. A lone `\r` ends a line only in a file whose dominant
/// ending is [`LineEnding::Cr`]; elsewhere it is an ordinary character of the line. `\r`s
/// right before a `\n` belong to that line's ending.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LineEnding {
    /// `\n` (Unix).
    #[default]
    Lf,
    /// `\r\n` (Windows).
    CrLf,
    /// `\r` (classic Mac OS).
    Cr,
}

impl LineEnding {
    /// The ending as text.
    pub fn as_str(self) -> &'static str {
        match self {
            LineEnding::Lf => "\n",
            LineEnding::CrLf => "\r\n",
            LineEnding::Cr => "\r",
        }
    }

    /// Its usual name: `LF`, `CRLF` or `CR`.
    pub fn name(self) -> &'static str {
        match self {
            LineEnding::Lf => "LF",
            LineEnding::CrLf => "CRLF",
            LineEnding::Cr => "CR",
        }
    }
}

impl fmt::Display for LineEnding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A character encoding that can be both read and written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Enc {
    /// UTF-8.
    Utf8,
    /// UTF-16, little-endian.
    Utf16Le,
    /// UTF-16, big-endian.
    Utf16Be,
    /// UTF-32, little-endian (recognised by its BOM only).
    Utf32Le,
    /// UTF-32, big-endian (recognised by its BOM only).
    Utf32Be,
    /// Any other encoding of the WHATWG Encoding Standard (GBK, Shift_JIS, windows-1252, ...).
    /// Build it with [`Enc::from_encoding`], which never puts UTF-8 or UTF-16 here.
    Legacy(&'static Encoding),
}

impl Enc {
    /// The `Enc` for an `encoding_rs` encoding. The `replacement` encoding, which cannot be
    /// written, becomes UTF-8.
    pub fn from_encoding(encoding: &'static Encoding) -> Enc {
        if encoding == encoding_rs::UTF_16LE {
            Enc::Utf16Le
        } else if encoding == encoding_rs::UTF_16BE {
            Enc::Utf16Be
        } else if encoding.output_encoding() == encoding_rs::UTF_8 {
            Enc::Utf8
        } else {
            Enc::Legacy(encoding)
        }
    }

    /// The `encoding_rs` encoding; `None` for UTF-32, which `encoding_rs` lacks (this module
    /// decodes and encodes it itself).
    pub fn encoding(self) -> Option<&'static Encoding> {
        match self {
            Enc::Utf8 => Some(encoding_rs::UTF_8),
            Enc::Utf16Le => Some(encoding_rs::UTF_16LE),
            Enc::Utf16Be => Some(encoding_rs::UTF_16BE),
            Enc::Utf32Le | Enc::Utf32Be => None,
            Enc::Legacy(encoding) => Some(encoding),
        }
    }

    /// The encoding's WHATWG name: `UTF-8`, `UTF-16LE`, `GBK`, `Shift_JIS`, `windows-1252`...
    /// (`UTF-32LE` and `UTF-32BE`, which the WHATWG standard does not have).
    pub fn name(self) -> &'static str {
        match self {
            Enc::Utf32Le => "UTF-32LE",
            Enc::Utf32Be => "UTF-32BE",
            Enc::Utf8 => "UTF-8",
            Enc::Utf16Le => "UTF-16LE",
            Enc::Utf16Be => "UTF-16BE",
            Enc::Legacy(encoding) => encoding.name(),
        }
    }

    /// The same encoding in canonical form (a `Legacy` holding UTF-8 or UTF-16 unwrapped).
    fn canon(self) -> Enc {
        match self {
            Enc::Legacy(encoding) => Enc::from_encoding(encoding),
            other => other,
        }
    }

    /// The BOM this encoding writes: its own for UTF-16 and UTF-32, a UTF-8 BOM for everything
    /// else.
    fn bom(self) -> &'static [u8] {
        match self {
            Enc::Utf16Le => UTF16LE_BOM,
            Enc::Utf16Be => UTF16BE_BOM,
            Enc::Utf32Le => UTF32LE_BOM,
            Enc::Utf32Be => UTF32BE_BOM,
            Enc::Utf8 | Enc::Legacy(_) => UTF8_BOM,
        }
    }

    fn unit(self) -> Unit {
        match self {
            Enc::Utf16Le => Unit::Le16,
            Enc::Utf16Be => Unit::Be16,
            Enc::Utf32Le => Unit::Le32,
            Enc::Utf32Be => Unit::Be32,
            Enc::Utf8 | Enc::Legacy(_) => Unit::Byte,
        }
    }

    /// Decodes `bytes` (no BOM handling); also whether some were malformed (shown as U+FFFD).
    fn decode_raw(self, bytes: &[u8]) -> (Cow<'_, str>, bool) {
        match self.encoding() {
            Some(encoding) => {
                let (text, errors) = encoding.decode_without_bom_handling(bytes);
                (text, errors)
            }
            None => {
                let big_endian = self == Enc::Utf32Be;
                let mut text = String::with_capacity(bytes.len() / 4);
                let mut errors = false;
                let mut units = bytes.chunks_exact(4);
                for unit in units.by_ref() {
                    let raw = [unit[0], unit[1], unit[2], unit[3]];
                    let value = if big_endian {
                        u32::from_be_bytes(raw)
                    } else {
                        u32::from_le_bytes(raw)
                    };
                    match char::from_u32(value) {
                        Some(c) => text.push(c),
                        None => {
                            errors = true;
                            text.push('\u{FFFD}');
                        }
                    }
                }
                if !units.remainder().is_empty() {
                    errors = true;
                    text.push('\u{FFFD}');
                }
                (Cow::Owned(text), errors)
            }
        }
    }
}

impl fmt::Display for Enc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a file's text is laid out in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextFormat {
    /// The character encoding.
    pub encoding: Enc,
    /// Whether the file starts with a byte order mark: the encoding's own for UTF-16 and
    /// UTF-32, a UTF-8 BOM (`EF BB BF`) for UTF-8 and for legacy encodings (a GBK file with a UTF-8 BOM).
    pub bom: bool,
    /// The dominant line ending: the most frequent, ties going to the one met first; `Lf`
    /// when the file has none. New lines get it; [`encode`] writes every ending with it.
    pub line_ending: LineEnding,
    /// Whether the text ends with a line ending. Reported by [`decode`]; [`encode`] and
    /// [`rewrite`] never add or remove a final newline (the text decides), and
    /// [`for_new_file`] sets it to `true`.
    pub final_newline: bool,
}

impl Default for TextFormat {
    /// UTF-8 without BOM, LF.
    fn default() -> Self {
        TextFormat {
            encoding: Enc::Utf8,
            bom: false,
            line_ending: LineEnding::Lf,
            final_newline: true,
        }
    }
}

impl fmt::Display for TextFormat {
    /// For example `UTF-8, LF`, `UTF-16LE with BOM, CRLF`, `GBK with a UTF-8 BOM, LF`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.encoding.name())?;
        if self.bom {
            match self.encoding {
                Enc::Legacy(_) => f.write_str(" with a UTF-8 BOM")?,
                _ => f.write_str(" with BOM")?,
            }
        }
        write!(f, ", {}", self.line_ending)
    }
}

/// A decoded file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// The text, without the BOM, every line ending normalised to `\n`.
    pub text: String,
    /// How the file lays the text out.
    pub format: TextFormat,
    /// Whether encoding each line's text again gives that line's bytes (so the whole file
    /// would be written back identically even if every line were re-encoded). `false` when
    /// the bytes are malformed or hold sequences the encoding writes differently (Shift_JIS
    /// NEC/IBM duplicates, ...). [`rewrite`] keeps untouched lines' bytes either way.
    pub lossless: bool,
    /// Whether some bytes were not valid in the encoding and decoded to U+FFFD.
    pub malformed: bool,
    origin: Origin,
}

impl Decoded {
    /// The bytes each line of [`Decoded::text`] takes in the file it was decoded from, its
    /// ending included, line by line (the BOM before the first line not counted), for a reader
    /// that reports how much of the file the lines it shows cover. `None` when the lines cannot
    /// be told apart in the bytes (a stateful encoding).
    pub fn line_byte_lengths(&self) -> Option<Vec<u64>> {
        let spans = self.origin.spans.as_ref()?;
        Some(spans.iter().map(|s| (s.end - s.start) as u64).collect())
    }

    /// How many bytes of the file come before its text: the BOM's.
    pub fn text_start(&self) -> usize {
        self.origin.body_start
    }
}

/// What [`rewrite`] needs to know about the bytes a [`Decoded`] came from.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Origin {
    format: TextFormat,
    /// Where the text starts (after the BOM).
    body_start: usize,
    /// The length of the original bytes.
    len: usize,
    /// A hash of `text` as decoded, to notice a caller that changed it.
    text_hash: u64,
    /// Each line's bytes; `None` when the lines cannot be decoded one by one (a stateful
    /// encoding whose state runs across lines).
    spans: Option<Vec<Span>>,
}

/// One line in the original bytes: content `start..content_end`, ending `content_end..end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Span {
    start: usize,
    content_end: usize,
    end: usize,
}

impl Span {
    fn ended(self) -> bool {
        self.end > self.content_end
    }
}

/// Decodes a file's bytes, detecting its encoding (see the module documentation for the
/// order). `fallback` is the encoding to lean on when detection is unsure, normally the
/// system's code page; `None` when there is none (or it is UTF-8).
pub fn decode(bytes: &[u8], fallback: Option<&'static Encoding>) -> Decoded {
    let (encoding, bom) = detect(bytes, fallback);
    decode_known(bytes, encoding, bom)
}

/// Decodes bytes known to be in `encoding`. A leading BOM is recognised as such when it is
/// the one the encoding writes (`EF BB BF` for UTF-8 and legacy encodings).
pub fn decode_as(bytes: &[u8], encoding: Enc) -> Decoded {
    let encoding = encoding.canon();
    let bom = bytes.starts_with(encoding.bom());
    decode_known(bytes, encoding, bom)
}

/// Encodes `text` in `format`: the BOM if `format.bom`, then the text with every line ending
/// (`\n` or `\r\n`) written as `format.line_ending`. Nothing is added at the end.
///
/// Fails when the encoding cannot represent some characters, naming each with its line.
pub fn encode(text: &str, format: &TextFormat) -> Result<Vec<u8>, ToolError> {
    let encoding = format.encoding.canon();
    let mut out = Vec::with_capacity(text.len() + 4);
    if format.bom {
        out.extend_from_slice(encoding.bom());
    }
    let ending = encode_ending(encoding, format.line_ending);
    let mut unmappable = Vec::new();
    for (n, line) in split_text(text, format.line_ending == LineEnding::Cr)
        .iter()
        .enumerate()
    {
        encode_line(encoding, line.content, n + 1, &mut out, &mut unmappable);
        if line.ended {
            out.extend_from_slice(&ending);
        }
    }
    if unmappable.is_empty() {
        Ok(out)
    } else {
        Err(unmappable_error(encoding, &unmappable))
    }
}

/// The bytes to write when the text of `original` (decoded as `decoded`) becomes `new_text`,
/// by an edit or an overwrite. See the module documentation for the contract.
///
/// Lines are diffed by content: a line present in both keeps its original bytes and ending;
/// a changed line is encoded in the file's encoding and keeps the ending of the old line at
/// its place; an added line gets the dominant ending. The BOM is copied.
///
/// Fails, writing nothing, when a changed line has characters the encoding cannot represent,
/// when a changed line of a malformed file still holds U+FFFD (it would replace the original
/// bytes), when the file's lines cannot be re-encoded separately and the file does not
/// round-trip, or when `decoded` does not belong to `original`.
pub fn rewrite(original: &[u8], decoded: &Decoded, new_text: &str) -> Result<Vec<u8>, ToolError> {
    let origin = &decoded.origin;
    if original.len() != origin.len || text_hash(&decoded.text) != origin.text_hash {
        return Err(ToolError::invalid(format!(
            "internal error: the decoded text does not belong to these bytes ({} bytes now, {} when \
             decoded, or its text was changed); decode the file again and pass the changed text \
             as new_text",
            original.len(),
            origin.len
        )));
    }
    let asked = decoded.format;
    if (asked.encoding.canon(), asked.bom, asked.line_ending)
        != (
            origin.format.encoding,
            origin.format.bom,
            origin.format.line_ending,
        )
    {
        return encode(new_text, &asked);
    }
    let format = origin.format;
    let encoding = format.encoding;
    let cr = format.line_ending == LineEnding::Cr;
    let Some(spans) = &origin.spans else {
        return rewrite_whole(original, decoded, new_text);
    };
    let old_lines = text_lines(&decoded.text, cr).count();
    if old_lines != spans.len() {
        return Err(ToolError::invalid(format!(
            "internal error: the decoded text has {old_lines} lines but its bytes {}; decode the \
             file again",
            spans.len()
        )));
    }
    let dominant = encode_ending(encoding, format.line_ending);
    // Every line of a file whose lines all read back as their bytes and all end alike is
    // written as the encoding of its text whichever old line it is paired with: the lines
    // diff below would choose the same bytes, so the whole new text is encoded at once.
    if decoded.lossless
        && !decoded.malformed
        && spans
            .iter()
            .all(|s| !s.ended() || original[s.content_end..s.end] == dominant[..])
    {
        let out = encode(new_text, &format)?;
        verify(&out, &format, origin.body_start, new_text)?;
        return Ok(out);
    }
    rewrite_by_diff(original, decoded, new_text, spans, dominant)
}

/// [`rewrite`] by a diff of the old and new lines: a line present in both keeps its bytes and
/// ending, a changed line takes the ending of the old line at its place.
fn rewrite_by_diff(
    original: &[u8],
    decoded: &Decoded,
    new_text: &str,
    spans: &[Span],
    dominant: Vec<u8>,
) -> Result<Vec<u8>, ToolError> {
    let origin = &decoded.origin;
    let format = origin.format;
    let encoding = format.encoding;
    let cr = format.line_ending == LineEnding::Cr;
    let old = split_text(&decoded.text, cr);
    let new = split_text(new_text, cr);
    let old_keys: Vec<&str> = old.iter().map(|l| l.content).collect();
    let new_keys: Vec<&str> = new.iter().map(|l| l.content).collect();
    let deadline = std::time::Instant::now() + DIFF_TIME_LIMIT;
    let ops = similar::capture_diff_slices_deadline(
        Algorithm::Myers,
        &old_keys,
        &new_keys,
        Some(deadline),
    );

    let mut out = Vec::with_capacity(original.len() + new_text.len() / 8);
    out.extend_from_slice(&original[..origin.body_start]);
    let mut unmappable = Vec::new();
    let mut replacing_invalid = Vec::new();
    for op in ops {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => {
                for (i, j) in old_range.zip(new_range) {
                    let span = spans[i];
                    out.extend_from_slice(&original[span.start..span.content_end]);
                    if new[j].ended {
                        if span.ended() {
                            out.extend_from_slice(&original[span.content_end..span.end]);
                        } else {
                            out.extend_from_slice(&dominant);
                        }
                    }
                }
            }
            DiffTag::Delete => {}
            DiffTag::Insert | DiffTag::Replace => {
                for (p, j) in new_range.enumerate() {
                    let line = new[j];
                    if decoded.malformed && line.content.contains('\u{FFFD}') {
                        replacing_invalid.push(j + 1);
                    }
                    encode_line(encoding, line.content, j + 1, &mut out, &mut unmappable);
                    if line.ended {
                        let old_span = (p < old_range.len())
                            .then(|| spans[old_range.start + p])
                            .filter(|s| s.ended());
                        match old_span {
                            Some(s) => out.extend_from_slice(&original[s.content_end..s.end]),
                            None => out.extend_from_slice(&dominant),
                        }
                    }
                }
            }
        }
    }
    if !replacing_invalid.is_empty() {
        return Err(replacing_invalid_error(encoding, &replacing_invalid));
    }
    if !unmappable.is_empty() {
        return Err(unmappable_error(encoding, &unmappable));
    }
    verify(&out, &format, origin.body_start, new_text)?;
    Ok(out)
}

/// The setting `defaultFileEncoding`: the encoding of new files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DefaultEncoding {
    /// Not set: UTF-8 without BOM, with the platform's automatic adjustments.
    #[default]
    Unset,
    /// `utf-8`: UTF-8 without BOM, no automatic BOM.
    Utf8,
    /// `utf-8-bom`: UTF-8 with BOM for every new file.
    Utf8Bom,
}

impl DefaultEncoding {
    /// Reads the setting's value (`None` when unset); `utf-8` and `utf-8-bom`, in any case.
    pub fn parse(value: Option<&str>) -> Result<DefaultEncoding, ToolError> {
        let Some(value) = value else {
            return Ok(DefaultEncoding::Unset);
        };
        match value.trim().to_ascii_lowercase().as_str() {
            "utf-8" => Ok(DefaultEncoding::Utf8),
            "utf-8-bom" => Ok(DefaultEncoding::Utf8Bom),
            _ => Err(ToolError::invalid(format!(
                "defaultFileEncoding is {value:?}, which is not a known value; set it to \"utf-8\" \
                 or \"utf-8-bom\", or remove it for UTF-8 without BOM with platform adjustments"
            ))),
        }
    }
}

/// The platform whose conventions new files follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Platform {
    /// Linux, macOS and other Unix-likes: no automatic adjustments.
    Unix,
    /// Windows, with its ANSI code page (65001 is UTF-8, 936 GBK, 932 Shift_JIS, 950 Big5).
    Windows {
        /// The system's ANSI code page (`GetACP`).
        ansi_code_page: u32,
    },
}

impl Platform {
    /// Windows' code page number for UTF-8.
    pub const UTF8_CODE_PAGE: u32 = 65001;

    /// The platform this program was built for; `ansi_code_page` is used only on Windows.
    pub fn host(ansi_code_page: u32) -> Platform {
        if cfg!(windows) {
            Platform::Windows { ansi_code_page }
        } else {
            Platform::Unix
        }
    }
}

/// The format of a file created at `path` (the file name's extension is what counts).
///
/// UTF-8, with a BOM when `default` is [`DefaultEncoding::Utf8Bom`]. On Windows only:
/// `.bat` and `.cmd` files get CRLF whatever the setting, and `.ps1` files get a UTF-8 BOM
/// when the setting is unset and the code page is not UTF-8. Everything else gets LF.
pub fn for_new_file(path: &str, default: DefaultEncoding, platform: Platform) -> TextFormat {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let extension = name
        .rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase())
        .unwrap_or_default();
    let (windows, legacy_code_page) = match platform {
        Platform::Unix => (false, false),
        Platform::Windows { ansi_code_page } => (true, ansi_code_page != Platform::UTF8_CODE_PAGE),
    };
    let bom = match default {
        DefaultEncoding::Utf8Bom => true,
        DefaultEncoding::Utf8 => false,
        DefaultEncoding::Unset => legacy_code_page && extension == "ps1",
    };
    let line_ending = if windows && (extension == "bat" || extension == "cmd") {
        LineEnding::CrLf
    } else {
        LineEnding::Lf
    };
    TextFormat {
        encoding: Enc::Utf8,
        bom,
        line_ending,
        final_newline: true,
    }
}

/// The dominant line ending of `text` (as for a file: most frequent, ties to the first met),
/// or `None` when it has none. For a new file whose content the model wrote with explicit
/// `\r\n`, a caller may set [`TextFormat::line_ending`] from it when [`for_new_file`] left
/// the default LF.
pub fn line_ending_of(text: &str) -> Option<LineEnding> {
    let scan = scan(text.as_bytes(), 0, Unit::Byte, true);
    (scan.counts.iter().any(|&c| c > 0)).then(|| scan.dominant())
}

/// The UTF-16 or UTF-32 encoding whose byte order mark `head` starts with, if any. `FF FE 00 00`
/// is read as UTF-32LE's BOM (it could also be UTF-16LE's followed by U+0000, which no text
/// starts with).
pub fn wide_bom(head: &[u8]) -> Option<Enc> {
    if head.starts_with(UTF32LE_BOM) {
        Some(Enc::Utf32Le)
    } else if head.starts_with(UTF32BE_BOM) {
        Some(Enc::Utf32Be)
    } else if head.starts_with(UTF16LE_BOM) {
        Some(Enc::Utf16Le)
    } else if head.starts_with(UTF16BE_BOM) {
        Some(Enc::Utf16Be)
    } else {
        None
    }
}

/// Whether a file whose first bytes are `head` is binary rather than text: `head` holds a NUL
/// byte and does not start with a UTF-16 or UTF-32 BOM (text in those encodings is full of
/// NULs). Pass the first [`BINARY_SNIFF_LEN`] bytes, or more for a stricter test.
pub fn looks_binary(head: &[u8]) -> bool {
    wide_bom(head).is_none() && memchr::memchr(0, head).is_some()
}

/// Where to cut the start of a file, `bytes`, to keep at most `at` bytes of it: just after the
/// last line ending before `at`, else (a line longer than `at`) at `at` moved back so no
/// character is split. Lines are counted in the code units of the encoding a UTF-16 or UTF-32
/// BOM names, else in bytes (UTF-8 and the ASCII-compatible code pages).
pub fn cut_at_line_end(bytes: &[u8], at: usize) -> usize {
    cut_at_line_end_as(bytes, at, wide_bom(bytes))
}

/// [`cut_at_line_end`] for bytes known to be in `wide` (a UTF-16 or UTF-32 encoding; `None`:
/// bytes, as UTF-8), such as a page of a file read from an offset, which holds no BOM.
pub fn cut_at_line_end_as(bytes: &[u8], at: usize, wide: Option<Enc>) -> usize {
    let at = at.min(bytes.len());
    let Some(wide) = wide else {
        return match memchr::memrchr(b'\n', &bytes[..at]) {
            Some(newline) => newline + 1,
            None => crate::text::lines::utf8_floor(bytes, at),
        };
    };
    let unit = wide.unit();
    let width = unit.width();
    let aligned = at / width * width;
    let mut end = aligned;
    while end > width {
        if unit.at(bytes, end - width) == Some(LF) {
            return end;
        }
        end -= width;
    }
    aligned
}

/// The decoded text of `bytes` when they are text in another encoding than UTF-8 (detected as
/// [`decode`] does); `None` when they are to be shown and edited as stored: valid UTF-8, with
/// or without a UTF-8 BOM, or near-UTF-8 (a few stray bytes in UTF-8 text, which a reader
/// shows as U+FFFD and an editor keeps as they are). Valid UTF-8 costs one validation pass;
/// only other bytes are decoded.
pub fn decode_foreign(bytes: &[u8], fallback: Option<&'static Encoding>) -> Option<Decoded> {
    let (encoding, bom) = detect(bytes, fallback);
    (encoding != Enc::Utf8).then(|| decode_known(bytes, encoding, bom))
}

/// [`decode_foreign`]'s text alone, for a reader that needs nothing else (a search): the
/// whole body decoded at once with its line endings written `\n`, which is always the text
/// [`decode_known`] settles on, without its per-line decoding and checks of what would be
/// written back.
pub fn decode_foreign_text(bytes: &[u8], fallback: Option<&'static Encoding>) -> Option<String> {
    let (encoding, bom) = detect(bytes, fallback);
    if encoding == Enc::Utf8 {
        return None;
    }
    let body_start = if bom { encoding.bom().len() } else { 0 };
    let ending = scan(bytes, body_start, encoding.unit(), true).dominant();
    let (whole, _) = encoding.decode_raw(&bytes[body_start..]);
    Some(normalize(&whole, ending == LineEnding::Cr))
}

/// A change made to a file's text by [`change_text`], ready to be written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextChange<T> {
    /// The bytes to write.
    pub bytes: Vec<u8>,
    /// For text in another encoding than UTF-8: its format (kept by [`TextChange::bytes`]) and
    /// the decoded text before and after the change. `None` when the change was made to the
    /// bytes themselves (UTF-8 and binary files).
    pub decoded: Option<(TextFormat, String, String)>,
    /// What the change returned besides the new text.
    pub value: T,
}

/// Makes `change` to the text of a file whose bytes are `original`, the way every edit tool
/// does: a UTF-8 file (valid or near-UTF-8) and a binary one ([`looks_binary`]) are changed as
/// they are, byte for byte; text in another encoding is changed in its decoded text (what a
/// read shows, [`decode_foreign`] leaning on `fallback`) and written back in its encoding by
/// [`rewrite`], which refuses characters the encoding cannot represent. `change` gets the text
/// and returns the changed text (UTF-8 for decoded text) and a value of its own; its error is
/// returned as it is.
pub fn change_text<T>(
    original: &[u8],
    fallback: Option<&'static Encoding>,
    change: impl FnOnce(&[u8]) -> Result<(Vec<u8>, T), ToolError>,
) -> Result<TextChange<T>, ToolError> {
    let head = &original[..original.len().min(BINARY_SNIFF_LEN)];
    let decoded = if looks_binary(head) {
        None
    } else {
        decode_foreign(original, fallback)
    };
    let Some(decoded) = decoded else {
        let (bytes, value) = change(original)?;
        return Ok(TextChange {
            bytes,
            decoded: None,
            value,
        });
    };
    let (after, value) = change(decoded.text.as_bytes())?;
    let after = String::from_utf8(after).map_err(|_| {
        ToolError::invalid(
            "internal error: the changed text is not valid UTF-8; nothing was written. Make the \
             change again in smaller steps",
        )
    })?;
    let bytes = rewrite(original, &decoded, &after)?;
    Ok(TextChange {
        bytes,
        decoded: Some((decoded.format, decoded.text, after)),
        value,
    })
}

/// UTF-8 validation of bytes fed a buffer at a time: a character split between two buffers is
/// held until the next.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Utf8Check {
    /// The start of a character the last buffer ended inside.
    held: [u8; 4],
    held_len: usize,
    invalid: bool,
}

impl Utf8Check {
    /// Validates the next `bytes`.
    pub fn feed(&mut self, mut bytes: &[u8]) {
        if self.invalid {
            return;
        }
        if self.held_len > 0 {
            let width = match self.held[0] {
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                _ => 4,
            };
            let take = (width - self.held_len).min(bytes.len());
            self.held[self.held_len..self.held_len + take].copy_from_slice(&bytes[..take]);
            self.held_len += take;
            bytes = &bytes[take..];
            if self.held_len < width {
                return;
            }
            self.held_len = 0;
            if std::str::from_utf8(&self.held[..width]).is_err() {
                self.invalid = true;
                return;
            }
        }
        let valid = valid_up_to(bytes);
        if valid < bytes.len() {
            let rest = &bytes[valid..];
            // Only a character cut short by the end of the buffer may wait for the next.
            let cut_short = rest.len() <= 3
                && std::str::from_utf8(rest).is_err_and(|e| e.error_len().is_none());
            if cut_short {
                self.held[..rest.len()].copy_from_slice(rest);
                self.held_len = rest.len();
            } else {
                self.invalid = true;
            }
        }
    }

    /// Whether the bytes fed so far hold an invalid sequence (a character still incomplete at
    /// the end of the last buffer is not counted).
    pub fn failed(&self) -> bool {
        self.invalid
    }

    /// Whether everything fed, taken as a whole, is valid UTF-8.
    pub fn is_valid(&self) -> bool {
        !self.invalid && self.held_len == 0
    }
}

// ---------------------------------------------------------------------------------------------
// Detection

/// Whether `bytes` are valid UTF-8.
///
/// Every file a search or a read looks at is validated, so this is the hot path of the common
/// case: `encoding_rs`'s validator (SIMD where the CPU has it) runs several times as fast as
/// `std::str::from_utf8`.
pub fn is_utf8(bytes: &[u8]) -> bool {
    valid_up_to(bytes) == bytes.len()
}

/// How many leading bytes of `bytes` are valid UTF-8.
fn valid_up_to(bytes: &[u8]) -> usize {
    Encoding::utf8_valid_up_to(bytes)
}

/// The encoding and BOM of `bytes`.
fn detect(bytes: &[u8], fallback: Option<&'static Encoding>) -> (Enc, bool) {
    if let Some(wide) = wide_bom(bytes) {
        return (wide, true);
    }
    let bom = bytes.starts_with(UTF8_BOM);
    let body = if bom { &bytes[UTF8_BOM.len()..] } else { bytes };
    if is_utf8(body) {
        return (Enc::Utf8, bom);
    }
    let (multibyte, invalid) = utf8_census(body);
    if multibyte >= NEAR_UTF8_RATIO * invalid {
        return (Enc::Utf8, bom);
    }
    let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
    detector.feed(body, true);
    let guess = detector.guess(tld_hint(fallback), Utf8Detection::Allow);
    (
        Enc::from_encoding(guess_or_fallback(guess, fallback, body)),
        bom,
    )
}

/// chardetng's guess, unless it cannot decode `body` without errors and `fallback` can.
fn guess_or_fallback(
    guess: &'static Encoding,
    fallback: Option<&'static Encoding>,
    body: &[u8],
) -> &'static Encoding {
    match fallback {
        Some(fallback) if !decodes_cleanly(guess, body) && decodes_cleanly(fallback, body) => {
            fallback
        }
        _ => guess,
    }
}

fn decodes_cleanly(encoding: &'static Encoding, bytes: &[u8]) -> bool {
    encoding
        .decode_without_bom_handling_and_without_replacement(bytes)
        .is_some()
}

/// Counts the valid multi-byte sequences and the invalid sequences of (invalid) UTF-8.
fn utf8_census(mut bytes: &[u8]) -> (usize, usize) {
    let leads = |b: &[u8]| b.iter().filter(|&&x| x >= 0xC0).count();
    let (mut multibyte, mut invalid) = (0, 0);
    loop {
        match std::str::from_utf8(bytes) {
            Ok(_) => return (multibyte + leads(bytes), invalid),
            Err(e) => {
                let good = e.valid_up_to();
                multibyte += leads(&bytes[..good]);
                invalid += 1;
                let bad = e.error_len().unwrap_or(bytes.len() - good);
                bytes = &bytes[good + bad..];
            }
        }
    }
}

/// The top-level domain whose locale uses `fallback`, chardetng's way of being told which
/// encodings to expect.
fn tld_hint(fallback: Option<&'static Encoding>) -> Option<&'static [u8]> {
    let tld: &'static [u8] = match fallback?.name() {
        "GBK" | "gb18030" => b"cn",
        "Big5" => b"tw",
        "Shift_JIS" | "EUC-JP" | "ISO-2022-JP" => b"jp",
        "EUC-KR" => b"kr",
        "windows-1251" | "KOI8-R" | "KOI8-U" | "IBM866" | "ISO-8859-5" | "x-mac-cyrillic" => b"ru",
        "windows-1250" => b"cz",
        "ISO-8859-2" => b"hu",
        "windows-1253" | "ISO-8859-7" => b"gr",
        "windows-1254" => b"tr",
        "windows-1255" | "ISO-8859-8" | "ISO-8859-8-I" => b"il",
        "windows-1256" | "ISO-8859-6" => b"eg",
        "windows-1257" | "ISO-8859-4" | "ISO-8859-13" => b"lt",
        "windows-1258" => b"vn",
        "windows-874" => b"th",
        "windows-1252" | "ISO-8859-15" | "macintosh" => b"de",
        _ => return None,
    };
    Some(tld)
}

// ---------------------------------------------------------------------------------------------
// Lines over bytes

/// The code unit lines are scanned in: bytes, or UTF-16 code units.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Unit {
    Byte,
    Le16,
    Be16,
    Le32,
    Be32,
}

impl Unit {
    fn width(self) -> usize {
        match self {
            Unit::Byte => 1,
            Unit::Le16 | Unit::Be16 => 2,
            Unit::Le32 | Unit::Be32 => 4,
        }
    }

    /// The unit at byte `at`, if a whole one is there.
    fn at(self, bytes: &[u8], at: usize) -> Option<u32> {
        let b = |i: usize| bytes.get(at + i).copied();
        match self {
            Unit::Byte => b(0).map(u32::from),
            Unit::Le16 => Some(u32::from(u16::from_le_bytes([b(0)?, b(1)?]))),
            Unit::Be16 => Some(u32::from(u16::from_be_bytes([b(0)?, b(1)?]))),
            Unit::Le32 => Some(u32::from_le_bytes([b(0)?, b(1)?, b(2)?, b(3)?])),
            Unit::Be32 => Some(u32::from_be_bytes([b(0)?, b(1)?, b(2)?, b(3)?])),
        }
    }
}

struct Scan {
    spans: Vec<Span>,
    /// How many LF, CRLF and CR endings, and the offset of the first of each.
    counts: [usize; 3],
    first: [usize; 3],
}

impl Scan {
    fn note(&mut self, kind: usize, at: usize) {
        self.counts[kind] += 1;
        self.first[kind] = self.first[kind].min(at);
    }

    fn dominant(&self) -> LineEnding {
        const KINDS: [LineEnding; 3] = [LineEnding::Lf, LineEnding::CrLf, LineEnding::Cr];
        let mut best: Option<usize> = None;
        for k in 0..3 {
            if self.counts[k] == 0 {
                continue;
            }
            best = match best {
                Some(b)
                    if self.counts[b] > self.counts[k]
                        || (self.counts[b] == self.counts[k] && self.first[b] < self.first[k]) =>
                {
                    Some(b)
                }
                _ => Some(k),
            };
        }
        best.map_or(LineEnding::Lf, |k| KINDS[k])
    }
}

/// Splits `bytes[from..]` into lines. `\n` ends a line (with the `\r`s right before it);
/// a lone `\r` ends one when `cr_is_ending`.
fn scan(bytes: &[u8], from: usize, unit: Unit, cr_is_ending: bool) -> Scan {
    let w = unit.width();
    let mut scan = Scan {
        spans: Vec::new(),
        counts: [0; 3],
        first: [usize::MAX; 3],
    };
    if unit == Unit::Byte {
        scan_bytes(bytes, from, cr_is_ending, &mut scan);
        return scan;
    }
    let mut start = from;
    let mut i = from;
    while let Some(u) = unit.at(bytes, i) {
        let next = i + w;
        if u == LF {
            let mut content_end = i;
            while content_end > start && unit.at(bytes, content_end - w) == Some(CR) {
                content_end -= w;
            }
            scan.note(usize::from(content_end < i), content_end);
            scan.spans.push(Span {
                start,
                content_end,
                end: next,
            });
            start = next;
        } else if u == CR && cr_is_ending && unit.at(bytes, next) != Some(LF) {
            scan.note(2, i);
            scan.spans.push(Span {
                start,
                content_end: i,
                end: next,
            });
            start = next;
        }
        i = next;
    }
    if start < bytes.len() {
        scan.spans.push(Span {
            start,
            content_end: bytes.len(),
            end: bytes.len(),
        });
    }
    scan
}

/// [`scan`] for single-byte units, jumping from one `\n` or `\r` to the next.
fn scan_bytes(bytes: &[u8], from: usize, cr_is_ending: bool, scan: &mut Scan) {
    let mut start = from;
    let body = &bytes[from.min(bytes.len())..];
    for hit in memchr::memchr2_iter(b'\n', b'\r', body) {
        let i = from + hit;
        if bytes[i] == b'\n' {
            let mut content_end = i;
            while content_end > start && bytes[content_end - 1] == b'\r' {
                content_end -= 1;
            }
            scan.note(usize::from(content_end < i), content_end);
            scan.spans.push(Span {
                start,
                content_end,
                end: i + 1,
            });
            start = i + 1;
        } else if cr_is_ending && bytes.get(i + 1) != Some(&b'\n') {
            scan.note(2, i);
            scan.spans.push(Span {
                start,
                content_end: i,
                end: i + 1,
            });
            start = i + 1;
        }
    }
    if start < bytes.len() {
        scan.spans.push(Span {
            start,
            content_end: bytes.len(),
            end: bytes.len(),
        });
    }
}

/// The lines of `bytes[from..]` and the dominant ending.
fn split_lines(bytes: &[u8], from: usize, unit: Unit) -> (Vec<Span>, LineEnding) {
    let first = scan(bytes, from, unit, true);
    let ending = first.dominant();
    if ending == LineEnding::Cr || first.counts[2] == 0 {
        (first.spans, ending)
    } else {
        (scan(bytes, from, unit, false).spans, ending)
    }
}

/// One line of a text: its content and whether a line ending follows.
#[derive(Clone, Copy)]
struct TextLine<'a> {
    content: &'a str,
    ended: bool,
}

/// Splits text by the same rule as [`scan`].
fn split_text(text: &str, cr_is_ending: bool) -> Vec<TextLine<'_>> {
    text_lines(text, cr_is_ending).collect()
}

/// The lines of `text`, one by one, by the same rule as [`scan`].
fn text_lines(text: &str, cr_is_ending: bool) -> impl Iterator<Item = TextLine<'_>> {
    let b = text.as_bytes();
    let mut hits = memchr::memchr2_iter(b'\n', b'\r', b);
    let mut start = 0;
    std::iter::from_fn(move || {
        for i in hits.by_ref() {
            if b[i] == b'\n' {
                let mut end = i;
                while end > start && b[end - 1] == b'\r' {
                    end -= 1;
                }
                let line = TextLine {
                    content: &text[start..end],
                    ended: true,
                };
                start = i + 1;
                return Some(line);
            } else if cr_is_ending && b.get(i + 1) != Some(&b'\n') {
                let line = TextLine {
                    content: &text[start..i],
                    ended: true,
                };
                start = i + 1;
                return Some(line);
            }
        }
        if start < b.len() {
            let line = TextLine {
                content: &text[start..],
                ended: false,
            };
            start = b.len();
            return Some(line);
        }
        None
    })
}

/// Whether `a` and `b` are the same text once every line ending is written `\n`.
fn same_lines(a: &str, b: &str, cr_is_ending: bool) -> bool {
    text_lines(a, cr_is_ending)
        .map(|l| (l.content, l.ended))
        .eq(text_lines(b, cr_is_ending).map(|l| (l.content, l.ended)))
}

/// `text` with every line ending `\n`.
fn normalize(text: &str, cr_is_ending: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for line in split_text(text, cr_is_ending) {
        out.push_str(line.content);
        if line.ended {
            out.push('\n');
        }
    }
    out
}

/// A fingerprint of `text`, to tell a [`Decoded`] whose text was changed after decoding. Not
/// a defence against anyone: four multiply-xor lanes over 8-byte words, so it costs a small
/// part of decoding.
fn text_hash(text: &str) -> u64 {
    const K: [u64; 4] = [
        0x9E37_79B9_7F4A_7C15,
        0xC2B2_AE3D_27D4_EB4F,
        0x1656_67B1_9E37_79F9,
        0x85EB_CA77_C2B2_AE63,
    ];
    let bytes = text.as_bytes();
    let mut lanes = K;
    let mut blocks = bytes.chunks_exact(32);
    for block in blocks.by_ref() {
        for (i, lane) in lanes.iter_mut().enumerate() {
            let mut word = [0u8; 8];
            word.copy_from_slice(&block[i * 8..i * 8 + 8]);
            *lane = (*lane ^ u64::from_le_bytes(word))
                .wrapping_mul(K[i] | 1)
                .rotate_left(29);
        }
    }
    let mut tail = [0u8; 32];
    let rest = blocks.remainder();
    tail[..rest.len()].copy_from_slice(rest);
    let mut h = bytes.len() as u64 ^ K[0];
    for (i, lane) in lanes.iter().enumerate() {
        let mut word = [0u8; 8];
        word.copy_from_slice(&tail[i * 8..i * 8 + 8]);
        h = (h ^ lane.rotate_left(7 * i as u32) ^ u64::from_le_bytes(word))
            .wrapping_mul(K[(i + 1) % 4] | 1);
        h ^= h >> 32;
    }
    h
}

// ---------------------------------------------------------------------------------------------
// Decoding and encoding

fn decode_known(bytes: &[u8], encoding: Enc, bom: bool) -> Decoded {
    let body_start = if bom { encoding.bom().len() } else { 0 };
    let (spans, line_ending) = split_lines(bytes, body_start, encoding.unit());
    let cr = line_ending == LineEnding::Cr;
    // Valid UTF-8 decodes to itself, line by line as whole: its text is its body with every
    // ending written `\n`, lossless, and its lines can be written back one by one.
    if encoding == Enc::Utf8
        && let Ok(body) = std::str::from_utf8(&bytes[body_start..])
    {
        let text = normalize(body, cr);
        let format = TextFormat {
            encoding,
            bom,
            line_ending,
            final_newline: spans.last().is_some_and(|s| s.ended()),
        };
        return Decoded {
            origin: Origin {
                format,
                body_start,
                len: bytes.len(),
                text_hash: text_hash(&text),
                spans: Some(spans),
            },
            text,
            format,
            lossless: true,
            malformed: false,
        };
    }
    decode_by_lines(bytes, encoding, bom, spans, line_ending)
}

/// [`decode_known`] for any encoding: each line decoded on its own, then checked against the
/// whole decoded at once.
fn decode_by_lines(
    bytes: &[u8],
    encoding: Enc,
    bom: bool,
    spans: Vec<Span>,
    line_ending: LineEnding,
) -> Decoded {
    let body_start = if bom { encoding.bom().len() } else { 0 };
    let cr = line_ending == LineEnding::Cr;
    let mut text = String::with_capacity(bytes.len());
    let mut malformed = false;
    let mut lossless = true;
    let mut independent = true;
    for span in &spans {
        // The line is decoded with its ending, as the whole file is: a sequence cut short by
        // the ending then reads as it does in the whole (gb18030 gives back a byte it held).
        let (line, errors) = encoding.decode_raw(&bytes[span.start..span.end]);
        let ending_units = (span.end - span.content_end) / encoding.unit().width();
        let cut = line.len().saturating_sub(ending_units);
        if !line.is_char_boundary(cut) || line[cut..].bytes().any(|b| b != b'\r' && b != b'\n') {
            independent = false;
        }
        let content = line.get(..cut).unwrap_or(&line);
        malformed |= errors;
        lossless &= !errors;
        if lossless && let Enc::Legacy(legacy) = encoding {
            lossless = encodes_back(legacy, content, &bytes[span.start..span.content_end]);
        }
        text.push_str(content);
        if span.ended() {
            text.push('\n');
        }
    }
    let final_newline = spans.last().is_some_and(|s| s.ended());
    let mut format = TextFormat {
        encoding,
        bom,
        line_ending,
        final_newline,
    };
    let mut spans = Some(spans);
    // Lines decoded one by one must read as the whole does; a stateful encoding whose state
    // runs across a line ending (ISO-2022-JP written without resets) does not, and is then
    // handled as one piece.
    let (whole, errors) = encoding.decode_raw(&bytes[body_start..]);
    let whole = normalize(&whole, cr);
    if !independent || whole != text {
        text = whole;
        spans = None;
        malformed = errors;
        format.final_newline = text.ends_with('\n');
        lossless = !errors && encode(&text, &format).is_ok_and(|b| b == bytes);
    }
    Decoded {
        origin: Origin {
            format,
            body_start,
            len: bytes.len(),
            text_hash: text_hash(&text),
            spans,
        },
        text,
        format,
        lossless,
        malformed,
    }
}

/// Whether `text` encodes to exactly `raw` in `encoding`.
fn encodes_back(encoding: &'static Encoding, text: &str, raw: &[u8]) -> bool {
    let mut out = Vec::with_capacity(raw.len());
    let mut unmappable = Vec::new();
    encode_line(Enc::Legacy(encoding), text, 0, &mut out, &mut unmappable);
    unmappable.is_empty() && out == raw
}

fn encode_ending(encoding: Enc, ending: LineEnding) -> Vec<u8> {
    let mut out = Vec::with_capacity(4);
    encode_line(encoding, ending.as_str(), 0, &mut out, &mut Vec::new());
    out
}

/// Appends `text` (line `line` of its text) encoded in `encoding` to `out`; characters the
/// encoding lacks are skipped and recorded in `unmappable` with the line.
fn encode_line(
    encoding: Enc,
    text: &str,
    line: usize,
    out: &mut Vec<u8>,
    unmappable: &mut Vec<(usize, char)>,
) {
    match encoding {
        Enc::Utf8 => out.extend_from_slice(text.as_bytes()),
        Enc::Utf16Le => {
            for unit in text.encode_utf16() {
                out.extend_from_slice(&unit.to_le_bytes());
            }
        }
        Enc::Utf16Be => {
            for unit in text.encode_utf16() {
                out.extend_from_slice(&unit.to_be_bytes());
            }
        }
        Enc::Utf32Le => {
            for c in text.chars() {
                out.extend_from_slice(&u32::from(c).to_le_bytes());
            }
        }
        Enc::Utf32Be => {
            for c in text.chars() {
                out.extend_from_slice(&u32::from(c).to_be_bytes());
            }
        }
        Enc::Legacy(legacy) => {
            let mut encoder = legacy.new_encoder();
            let mut buf = [0u8; 1024];
            let mut src = text;
            loop {
                let (result, read, written) =
                    encoder.encode_from_utf8_without_replacement(src, &mut buf, true);
                out.extend_from_slice(&buf[..written]);
                src = &src[read..];
                match result {
                    EncoderResult::InputEmpty => break,
                    EncoderResult::OutputFull => {}
                    EncoderResult::Unmappable(c) => unmappable.push((line, c)),
                }
            }
        }
    }
}

/// [`rewrite`] for a file whose lines cannot be re-encoded one by one.
fn rewrite_whole(original: &[u8], decoded: &Decoded, new_text: &str) -> Result<Vec<u8>, ToolError> {
    let format = decoded.origin.format;
    if normalize(new_text, format.line_ending == LineEnding::Cr) == decoded.text {
        return Ok(original.to_vec());
    }
    if !decoded.lossless {
        return Err(ToolError::invalid(format!(
            "this {} file cannot be edited safely: its encoding carries state from line to line \
             and its bytes would not be written back as they are, so changing one line could \
             change others. Nothing was written. Convert the file to UTF-8 with another tool \
             first, or leave it unchanged",
            format.encoding
        )));
    }
    let out = encode(new_text, &format)?;
    verify(&out, &format, decoded.origin.body_start, new_text)?;
    Ok(out)
}

/// Checks that `out` reads back as `new_text`.
fn verify(
    out: &[u8],
    format: &TextFormat,
    body_start: usize,
    new_text: &str,
) -> Result<(), ToolError> {
    let cr = format.line_ending == LineEnding::Cr;
    let (read_back, _) = format.encoding.decode_raw(&out[body_start..]);
    if same_lines(&read_back, new_text, cr) {
        Ok(())
    } else {
        Err(ToolError::invalid(format!(
            "internal error: the new text, written in {}, would not read back as written; \
             nothing was written. Make the edit in smaller steps, or report this file",
            format.encoding
        )))
    }
}

// ---------------------------------------------------------------------------------------------
// Errors

/// How many offending characters or lines an error names.
const NAMED: usize = 10;

fn unmappable_error(encoding: Enc, found: &[(usize, char)]) -> ToolError {
    let mut seen: Vec<char> = Vec::new();
    let mut named = Vec::new();
    for &(line, c) in found {
        if seen.contains(&c) {
            continue;
        }
        seen.push(c);
        if named.len() < NAMED {
            named.push(format!("{c:?} (U+{:04X}) on line {line}", u32::from(c)));
        }
    }
    let more = if seen.len() > NAMED {
        format!(" and {} more", seen.len() - NAMED)
    } else {
        String::new()
    };
    ToolError::invalid(format!(
        "the text has characters that {encoding} cannot represent: {}{more}. The file is {encoding} \
         and is written back in {encoding}, so nothing was written. Replace these characters with \
         ones {encoding} has (for example an ASCII spelling, or an escape the file's language \
         understands) and call the tool again",
        named.join(", ")
    ))
}

fn replacing_invalid_error(encoding: Enc, lines: &[usize]) -> ToolError {
    let mut named: Vec<String> = lines.iter().take(NAMED).map(|l| l.to_string()).collect();
    if lines.len() > NAMED {
        named.push(format!("and {} more", lines.len() - NAMED));
    }
    ToolError::invalid(format!(
        "line(s) {} of the new text contain U+FFFD (\u{FFFD}), which stands for bytes of the file \
         that are not valid {encoding}; writing those lines would replace the original bytes. \
         Nothing was written. Leave the lines holding U+FFFD exactly as they are and change only \
         other lines, or remove the U+FFFD characters from the new text if dropping those bytes \
         is intended",
        named.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(name: &str) -> &'static Encoding {
        Encoding::for_label(name.as_bytes()).unwrap()
    }

    fn gbk_sample() -> Vec<u8> {
        let text = "这是一个用于测试编码检测的中文文本文件。\n我们希望它被识别为简体中文的编码。\n";
        encoding_rs::GBK.encode(text).0.into_owned()
    }

    #[test]
    fn valid_utf8_decodes_as_the_line_by_line_path_does() {
        let samples: [&[u8]; 12] = [
            b"",
            b"a",
            b"a\nb\n",
            b"a\r\nb\r\nc",
            b"a\rb\rc\r\nd\n",
            b"\r\r\n\r\n\n\r",
            b"one\r\r\ntwo\rthree",
            b"\xEF\xBB\xBFbom\r\nline\n",
            "caf\u{e9}\n\u{2014}dash\r\n\u{1F600}".as_bytes(),
            b"x\n\n\n",
            b"\rlead\nlf\nlf\r",
            b"\xEF\xBB\xBF",
        ];
        for bytes in samples {
            for bom in [false, true] {
                if bom && !bytes.starts_with(Enc::Utf8.bom()) {
                    continue;
                }
                let fast = decode_known(bytes, Enc::Utf8, bom);
                let body_start = if bom { 3 } else { 0 };
                let (spans, ending) = split_lines(bytes, body_start, Unit::Byte);
                let slow = decode_by_lines(bytes, Enc::Utf8, bom, spans, ending);
                assert_eq!(fast.text, slow.text, "{bytes:?}");
                assert_eq!(fast.format, slow.format, "{bytes:?}");
                assert_eq!(fast.origin.spans, slow.origin.spans, "{bytes:?}");
                assert_eq!(fast.origin.text_hash, slow.origin.text_hash, "{bytes:?}");
                assert_eq!(
                    (fast.lossless, fast.malformed),
                    (slow.lossless, slow.malformed)
                );
            }
        }
    }

    #[test]
    fn a_file_whose_lines_end_alike_is_rewritten_as_the_line_diff_writes_it() {
        let files: [(&[u8], Enc); 7] = [
            (b"a\nb\nc\n", Enc::Utf8),
            (b"\xEF\xBB\xBFa\r\nb\r\nlast", Enc::Utf8),
            (b"one\rtwo\rthree\r", Enc::Utf8),
            (
                b"caf\xE9\r\nna\xEFve\r\n",
                Enc::Legacy(encoding_rs::WINDOWS_1252),
            ),
            (
                &[0xFF, 0xFE, b'x', 0, b'\n', 0, b'y', 0, b'\n', 0],
                Enc::Utf16Le,
            ),
            (b"lone\rcr inside\nsecond\n", Enc::Utf8),
            (b"", Enc::Utf8),
        ];
        let texts = [
            "",
            "a\n",
            "a\nb\nc\n",
            "b\nc\na\nnew\n",
            "x\ny\nz",
            "caf\u{e9}\nchanged\nna\u{ef}ve\n",
            "lone\rcr inside\nsecond\nthird",
            "\n\n\n",
        ];
        for (bytes, enc) in files {
            let decoded = decode_as(bytes, enc);
            let spans = decoded.origin.spans.clone().expect("decoded line by line");
            let dominant = encode_ending(enc.canon(), decoded.format.line_ending);
            for text in texts {
                let whole = rewrite(bytes, &decoded, text);
                let by_diff = rewrite_by_diff(bytes, &decoded, text, &spans, dominant.clone());
                assert_eq!(whole, by_diff, "{bytes:?} as {enc} to {text:?}");
            }
        }
    }

    #[test]
    fn a_search_decodes_foreign_text_as_a_read_does() {
        let mut samples: Vec<Vec<u8>> = vec![
            gbk_sample(),
            b"caf\xE9\r\nna\xEFve\rmixed\n".to_vec(),
            b"\xFF\xFEa\x00\r\x00\n\x00b\x00\r\x00".to_vec(),
            b"\xFE\xFF\x00x\x00\n".to_vec(),
            b"\x1B$B$3$s$K$A$O\x1B(B\nline two\r\n".to_vec(),
            b"plain ascii\n".to_vec(),
            b"stray \xE9 in \xC3\xA9 utf-8\n".to_vec(),
        ];
        samples.push(
            encoding_rs::SHIFT_JIS
                .encode("日本語のテキスト\r\n二行目\r\n")
                .0
                .into_owned(),
        );
        samples.push(
            encoding_rs::BIG5
                .encode("這是一個測試\n第二行\r")
                .0
                .into_owned(),
        );
        for bytes in &samples {
            for fallback in [
                None,
                Some(encoding_rs::WINDOWS_1252),
                Some(encoding_rs::GBK),
            ] {
                assert_eq!(
                    decode_foreign_text(bytes, fallback),
                    decode_foreign(bytes, fallback).map(|d| d.text),
                    "{bytes:?} leaning on {fallback:?}"
                );
            }
        }
    }

    #[test]
    fn a_decoded_text_changed_after_decoding_is_refused() {
        let bytes = "alpha\r\nbeta\r\n".repeat(20).into_bytes();
        let mut decoded = decode(&bytes, None);
        decoded.text.replace_range(40..41, "X");
        let err = rewrite(&bytes, &decoded, "new\n").expect_err("a changed decoded text");
        assert!(err.message.contains("does not belong"), "{}", err.message);
        let mut decoded = decode(&bytes, None);
        decoded.text.push('\n');
        assert!(rewrite(&bytes, &decoded, "new\n").is_err());
    }

    #[test]
    fn byte_lines_are_found_as_the_unit_scan_finds_them() {
        let samples: [&[u8]; 6] = [
            b"a\r\nb\rc\n",
            b"\r\r\n\r\n\n\r",
            b"no ending",
            b"\n",
            b"x\r\r\ry\n\rz",
            b"",
        ];
        for bytes in samples {
            for cr in [false, true] {
                for from in 0..=bytes.len().min(2) {
                    let fast = scan(bytes, from, Unit::Byte, cr);
                    // UTF-32 units holding the same characters, one per byte.
                    let wide: Vec<u8> = bytes
                        .iter()
                        .flat_map(|&b| u32::from(b).to_le_bytes())
                        .collect();
                    let slow = scan(&wide, from * 4, Unit::Le32, cr);
                    let narrowed: Vec<Span> = slow
                        .spans
                        .iter()
                        .map(|s| Span {
                            start: s.start / 4,
                            content_end: s.content_end / 4,
                            end: s.end / 4,
                        })
                        .collect();
                    assert_eq!(fast.spans, narrowed, "{bytes:?} cr={cr} from={from}");
                    assert_eq!(fast.counts, slow.counts, "{bytes:?} cr={cr} from={from}");
                }
            }
        }
    }

    #[test]
    fn utf16_boms_decide_first() {
        let le = [0xFF, 0xFE, b'h', 0, b'i', 0, b'\n', 0];
        let d = decode(&le, None);
        assert_eq!(d.format.encoding, Enc::Utf16Le);
        assert!(d.format.bom);
        assert_eq!(d.text, "hi\n");
        let be = [0xFE, 0xFF, 0, b'h', 0, b'i'];
        let d = decode(&be, None);
        assert_eq!(d.format.encoding, Enc::Utf16Be);
        assert_eq!(d.text, "hi");
        assert!(!d.format.final_newline);
    }

    #[test]
    fn utf8_bom_then_utf8() {
        let d = decode(b"\xEF\xBB\xBFcaf\xC3\xA9\n", None);
        assert_eq!(d.format.encoding, Enc::Utf8);
        assert!(d.format.bom);
        assert_eq!(d.text, "café\n");
        assert!(d.lossless && !d.malformed);
    }

    #[test]
    fn utf8_bom_over_gbk_bytes_is_gbk_with_bom() {
        let mut bytes = UTF8_BOM.to_vec();
        bytes.extend(gbk_sample());
        let d = decode(&bytes, None);
        assert_eq!(d.format.encoding, Enc::Legacy(encoding_rs::GBK));
        assert!(d.format.bom);
        assert!(d.text.starts_with("这是"));
        assert_eq!(d.format.to_string(), "GBK with a UTF-8 BOM, LF");
    }

    #[test]
    fn valid_utf8_wins_over_statistics() {
        // Bytes that are valid UTF-8 and also plausible windows-1252 ("Ã©").
        let d = decode(
            "r\u{e9}sum\u{e9}\n".as_bytes(),
            Some(encoding_rs::WINDOWS_1252),
        );
        assert_eq!(d.format.encoding, Enc::Utf8);
        assert_eq!(d.text, "résumé\n");
        // Pure ASCII is UTF-8 whatever the fallback.
        assert_eq!(
            decode(b"plain\n", Some(encoding_rs::SHIFT_JIS))
                .format
                .encoding,
            Enc::Utf8
        );
        assert_eq!(
            decode(b"", None).format,
            TextFormat {
                final_newline: false,
                ..TextFormat::default()
            }
        );
    }

    #[test]
    fn near_utf8_stays_utf8() {
        let mut bytes = "naïve café déjà vu — über\n".as_bytes().to_vec();
        bytes.extend(b"stray \xE9 byte\n");
        let d = decode(&bytes, None);
        assert_eq!(d.format.encoding, Enc::Utf8);
        assert!(d.malformed && !d.lossless);
        assert_eq!(d.text.lines().nth(1), Some("stray \u{FFFD} byte"));
        // Without chardetng's help it would have been windows-1252:
        let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
        detector.feed(&bytes, true);
        assert_eq!(
            detector.guess(None, Utf8Detection::Allow),
            encoding_rs::WINDOWS_1252
        );
    }

    #[test]
    fn latin1_is_not_near_utf8() {
        let bytes = encoding_rs::WINDOWS_1252
            .encode("Le café est très fort, déjà la fenêtre s'ouvre à côté.\n")
            .0
            .into_owned();
        let d = decode(&bytes, None);
        assert_eq!(d.format.encoding, Enc::Legacy(encoding_rs::WINDOWS_1252));
        assert!(d.lossless && !d.malformed);
        assert!(d.text.starts_with("Le café"));
    }

    #[test]
    fn cjk_legacy_text_is_not_near_utf8() {
        for (label, text) in [
            (
                "gbk",
                "中华人民共和国成立于一九四九年，首都是北京。编码检测需要足够的文本。",
            ),
            (
                "big5",
                "中華民國的首都是臺北，這是一段繁體中文的測試文字，用來檢查編碼。",
            ),
            (
                "shift_jis",
                "日本語のテキストです。これは文字コードの判定を試験するための文章です。",
            ),
            (
                "euc-kr",
                "한국어 텍스트입니다. 이것은 문자 인코딩 감지를 시험하기 위한 문장입니다.",
            ),
            (
                "euc-jp",
                "日本語のテキストです。これは文字コードの判定を試験するための文章です。",
            ),
        ] {
            let bytes = enc(label).encode(text).0.into_owned();
            let (multibyte, invalid) = utf8_census(&bytes);
            assert!(
                multibyte < NEAR_UTF8_RATIO * invalid,
                "{label}: {multibyte} valid, {invalid} invalid"
            );
            let d = decode(&bytes, None);
            assert_eq!(d.format.encoding, Enc::Legacy(enc(label)), "{label}");
            assert_eq!(d.text, text);
        }
    }

    #[test]
    fn statistics_then_fallback_hint() {
        // Two ambiguous bytes: chardetng alone and chardetng told the locale disagree.
        let bytes = b"\xC4\xE3\xBA\xC3\n";
        let plain = decode(bytes, None).format.encoding;
        let hinted = decode(bytes, Some(encoding_rs::GBK)).format.encoding;
        assert_eq!(hinted, Enc::Legacy(encoding_rs::GBK));
        assert_ne!(plain, hinted, "the hint must matter for this sample");
    }

    #[test]
    fn fallback_used_when_guess_cannot_decode() {
        // 0xA1 is unassigned in ISO-8859-8, half-width katakana in Shift_JIS.
        let body = b"abc \xA1\n";
        let (hebrew, sjis) = (encoding_rs::ISO_8859_8, encoding_rs::SHIFT_JIS);
        assert_eq!(guess_or_fallback(hebrew, Some(sjis), body), sjis);
        assert_eq!(guess_or_fallback(hebrew, None, body), hebrew);
        assert_eq!(
            guess_or_fallback(hebrew, Some(encoding_rs::UTF_8), body),
            hebrew
        );
        assert_eq!(guess_or_fallback(sjis, Some(hebrew), body), sjis);
    }

    #[test]
    fn line_endings_dominant_and_ties() {
        let d = decode(b"a\r\nb\r\nc\n", None);
        assert_eq!(d.format.line_ending, LineEnding::CrLf);
        assert_eq!(d.text, "a\nb\nc\n");
        let d = decode(b"a\nb\r\n", None);
        assert_eq!(
            d.format.line_ending,
            LineEnding::Lf,
            "tie goes to the first"
        );
        let d = decode(b"a\rb\rc", None);
        assert_eq!(d.format.line_ending, LineEnding::Cr);
        assert_eq!(d.text, "a\nb\nc");
        let d = decode(b"x\ry\nz\n", None);
        assert_eq!(d.format.line_ending, LineEnding::Lf);
        assert_eq!(d.text, "x\ry\nz\n", "a lone CR in an LF file is content");
        let d = decode(b"no ending", None);
        assert_eq!(d.format.line_ending, LineEnding::Lf);
        assert!(!d.format.final_newline);
    }

    #[test]
    fn crs_before_lf_belong_to_the_ending() {
        let original = b"x\r\r\ny\nz\n";
        let d = decode(original, None);
        assert_eq!(d.format.line_ending, LineEnding::Lf);
        assert_eq!(d.text, "x\ny\nz\n");
        assert_eq!(rewrite(original, &d, &d.text).unwrap(), original);
        assert_eq!(
            rewrite(original, &d, "w\ny\nz\n").unwrap(),
            b"w\r\r\ny\nz\n"
        );
    }

    #[test]
    fn crlf_kept_on_touched_and_untouched_lines() {
        let original = b"one\r\ntwo\r\nthree\r\n";
        let d = decode(original, None);
        let out = rewrite(original, &d, "one\nTWO\nnew\nthree\n").unwrap();
        assert_eq!(out, b"one\r\nTWO\r\nnew\r\nthree\r\n");
    }

    #[test]
    fn mixed_endings_untouched_keep_new_take_dominant() {
        let original = b"a\nb\r\nc\nd\n";
        let d = decode(original, None);
        let out = rewrite(original, &d, "a\nB\nc\nadded\nd\n").unwrap();
        assert_eq!(out, b"a\nB\r\nc\nadded\nd\n");
    }

    #[test]
    fn final_newline_follows_the_text() {
        let original = b"a\nb";
        let d = decode(original, None);
        assert_eq!(rewrite(original, &d, "a\nb\nc").unwrap(), b"a\nb\nc");
        assert_eq!(rewrite(original, &d, "a\nb\n").unwrap(), b"a\nb\n");
        let original = b"a\r\nb\r\n";
        let d = decode(original, None);
        assert_eq!(rewrite(original, &d, "a\r\nb").unwrap(), b"a\r\nb");
        assert_eq!(rewrite(original, &d, "").unwrap(), b"");
    }

    #[test]
    fn bom_kept_even_when_text_emptied() {
        let original = b"\xEF\xBB\xBFx\n";
        let d = decode(original, None);
        assert_eq!(rewrite(original, &d, "").unwrap(), UTF8_BOM);
    }

    #[test]
    fn unmappable_characters_are_named() {
        let original = encoding_rs::SHIFT_JIS
            .encode("日本語のテキストです。文字コードの判定を試験する。\n二行目\n")
            .0
            .into_owned();
        let d = decode(&original, None);
        assert_eq!(d.format.encoding, Enc::Legacy(encoding_rs::SHIFT_JIS));
        let new_text = d.text.replace("二行目", "二行目 😀 é");
        let err = rewrite(&original, &d, &new_text).unwrap_err();
        assert!(
            err.message.contains("'😀' (U+1F600) on line 2"),
            "{}",
            err.message
        );
        assert!(
            err.message.contains("'é' (U+00E9) on line 2"),
            "{}",
            err.message
        );
        assert!(
            err.message.contains("Shift_JIS cannot represent"),
            "{}",
            err.message
        );
        let err = encode(
            "a\n😀",
            &TextFormat {
                encoding: Enc::Legacy(encoding_rs::GBK),
                ..TextFormat::default()
            },
        )
        .unwrap_err();
        assert!(err.message.contains("on line 2"), "{}", err.message);
    }

    #[test]
    fn changed_line_holding_invalid_bytes_is_refused() {
        let mut original = "déjà vu — über naïve\n".as_bytes().to_vec();
        original.extend(b"bad \xFF byte\nlast\n");
        let d = decode(&original, None);
        assert_eq!(d.format.encoding, Enc::Utf8);
        let kept = d.text.replace("last", "LAST");
        let out = rewrite(&original, &d, &kept).unwrap();
        assert_eq!(&out[..out.len() - 5], &original[..original.len() - 5]);
        assert!(out.ends_with(b"LAST\n"));
        let touched = d.text.replace("bad", "good");
        let err = rewrite(&original, &d, &touched).unwrap_err();
        assert!(err.message.contains("line(s) 2"), "{}", err.message);
        let dropped = d.text.replace("bad \u{FFFD} byte", "fixed");
        assert!(
            rewrite(&original, &d, &dropped)
                .unwrap()
                .ends_with(b"fixed\nlast\n")
        );
    }

    #[test]
    fn changed_decoded_text_is_refused_and_format_change_converts() {
        let original = b"a\r\nb\r\n";
        let mut d = decode(original, None);
        d.text = "x\n".into();
        let err = rewrite(original, &d, "x\n").unwrap_err();
        assert!(
            err.message.contains("decode the file again"),
            "{}",
            err.message
        );
        let mut d = decode(original, None);
        d.format.final_newline = false;
        assert_eq!(rewrite(original, &d, &d.text.clone()).unwrap(), original);
        d.format.line_ending = LineEnding::Lf;
        assert_eq!(rewrite(original, &d, &d.text.clone()).unwrap(), b"a\nb\n");
        assert!(rewrite(b"a\r\nb", &decode(original, None), "a").is_err());
    }

    #[test]
    fn encode_writes_bom_and_endings() {
        let format = TextFormat {
            encoding: Enc::Utf16Be,
            bom: true,
            line_ending: LineEnding::CrLf,
            final_newline: true,
        };
        assert_eq!(
            encode("a\nb\r\n", &format).unwrap(),
            [0xFE, 0xFF, 0, b'a', 0, 13, 0, 10, 0, b'b', 0, 13, 0, 10]
        );
        let format = TextFormat {
            encoding: Enc::Utf16Le,
            bom: false,
            ..TextFormat::default()
        };
        assert_eq!(encode("😀", &format).unwrap(), [0x3D, 0xD8, 0x00, 0xDE]);
        let format = TextFormat {
            encoding: Enc::Legacy(encoding_rs::GBK),
            bom: true,
            ..TextFormat::default()
        };
        assert_eq!(encode("中\n", &format).unwrap(), b"\xEF\xBB\xBF\xD6\xD0\n");
    }

    #[test]
    fn enc_canonical_forms() {
        assert_eq!(Enc::from_encoding(encoding_rs::UTF_8), Enc::Utf8);
        assert_eq!(Enc::from_encoding(encoding_rs::REPLACEMENT), Enc::Utf8);
        assert_eq!(Enc::from_encoding(encoding_rs::UTF_16BE), Enc::Utf16Be);
        assert_eq!(Enc::Legacy(encoding_rs::UTF_16LE).canon(), Enc::Utf16Le);
        assert_eq!(Enc::Legacy(encoding_rs::GBK).to_string(), "GBK");
    }

    #[test]
    fn decode_as_recognises_only_its_own_bom() {
        let d = decode_as(b"\xEF\xBB\xBFab", Enc::Legacy(encoding_rs::WINDOWS_1252));
        assert!(d.format.bom);
        assert_eq!(d.text, "ab");
        let d = decode_as(b"\xFF\xFEab", Enc::Legacy(encoding_rs::WINDOWS_1252));
        assert!(!d.format.bom);
        assert_eq!(d.text, "ÿþab");
    }

    #[test]
    fn iso_2022_jp_state_across_lines_is_one_piece() {
        let jis = Enc::Legacy(encoding_rs::ISO_2022_JP);
        // JIS X 0208 mode opened on line 1 and still on at line 2 (not RFC 1468, but seen).
        let original = b"\x1b$B$3\n$s\x1b(B\nok\n";
        let d = decode_as(original, jis);
        assert!(d.origin.spans.is_none());
        assert_eq!(rewrite(original, &d, &d.text).unwrap(), original);
        let well_formed = b"\x1b$B$3$s\x1b(B\nok\n";
        let d = decode_as(well_formed, jis);
        assert!(d.origin.spans.is_some() && d.lossless);
        let out = rewrite(well_formed, &d, &d.text.replace("ok", "OK")).unwrap();
        assert_eq!(out, b"\x1b$B$3$s\x1b(B\nOK\n");
    }

    #[test]
    fn new_file_rules_with_injected_platform() {
        use DefaultEncoding::*;
        let gbk_windows = Platform::Windows {
            ansi_code_page: 936,
        };
        let utf8_windows = Platform::Windows {
            ansi_code_page: Platform::UTF8_CODE_PAGE,
        };
        let f = |path, default, platform| {
            let format = for_new_file(path, default, platform);
            (format.bom, format.line_ending)
        };
        use LineEnding::{CrLf, Lf};
        // Unix: never an adjustment.
        assert_eq!(f("run.bat", Unset, Platform::Unix), (false, Lf));
        assert_eq!(f("x.ps1", Unset, Platform::Unix), (false, Lf));
        assert_eq!(f("x.ps1", Utf8Bom, Platform::Unix), (true, Lf));
        // Windows: CRLF for batch files whatever the setting.
        assert_eq!(f("dir\\RUN.BAT", Unset, gbk_windows), (false, CrLf));
        assert_eq!(f("a/b/run.cmd", Utf8, utf8_windows), (false, CrLf));
        assert_eq!(f("run.cmd", Utf8Bom, gbk_windows), (true, CrLf));
        // Windows: BOM for PowerShell only when unset and the code page is not UTF-8.
        assert_eq!(f("C:\\s\\x.PS1", Unset, gbk_windows), (true, Lf));
        assert_eq!(f("x.ps1", Unset, utf8_windows), (false, Lf));
        assert_eq!(f("x.ps1", Utf8, gbk_windows), (false, Lf));
        assert_eq!(f("x.txt", Unset, gbk_windows), (false, Lf));
        assert_eq!(f("x.txt", Utf8Bom, gbk_windows), (true, Lf));
        assert_eq!(f("bat", Unset, gbk_windows), (false, Lf));
        assert_eq!(for_new_file("x.rs", Unset, gbk_windows).encoding, Enc::Utf8);
        assert_eq!(
            Platform::host(936),
            if cfg!(windows) {
                gbk_windows
            } else {
                Platform::Unix
            }
        );
        // And encode applies them.
        let bat = for_new_file("go.bat", Unset, gbk_windows);
        assert_eq!(
            encode("@echo off\necho hi\n", &bat).unwrap(),
            b"@echo off\r\necho hi\r\n"
        );
        let ps1 = for_new_file("go.ps1", Unset, gbk_windows);
        assert_eq!(encode("Write-Host 你好", &ps1).unwrap()[..3], *UTF8_BOM);
    }

    #[test]
    fn default_encoding_setting() {
        assert_eq!(
            DefaultEncoding::parse(None).unwrap(),
            DefaultEncoding::Unset
        );
        assert_eq!(
            DefaultEncoding::parse(Some("UTF-8")).unwrap(),
            DefaultEncoding::Utf8
        );
        assert_eq!(
            DefaultEncoding::parse(Some("utf-8-bom")).unwrap(),
            DefaultEncoding::Utf8Bom
        );
        let err = DefaultEncoding::parse(Some("latin1")).unwrap_err();
        assert!(err.message.contains("\"latin1\""), "{}", err.message);
    }

    #[test]
    fn line_ending_of_text() {
        assert_eq!(line_ending_of("a\r\nb\r\nc\n"), Some(LineEnding::CrLf));
        assert_eq!(line_ending_of("a\nb"), Some(LineEnding::Lf));
        assert_eq!(line_ending_of("ab"), None);
    }

    #[test]
    fn utf32_boms_decode_and_rewrite_keeps_bom_and_endings() {
        let le = encode(
            "one\ntwo caf\u{e9} \u{1F600}\nthree\n",
            &TextFormat {
                encoding: Enc::Utf32Le,
                bom: true,
                line_ending: LineEnding::CrLf,
                final_newline: true,
            },
        )
        .unwrap();
        assert_eq!(&le[..8], b"\xFF\xFE\x00\x00o\x00\x00\x00");
        let d = decode(&le, None);
        assert_eq!(d.format.encoding, Enc::Utf32Le);
        assert!(d.format.bom && d.lossless && !d.malformed);
        assert_eq!(d.format.line_ending, LineEnding::CrLf);
        assert_eq!(d.text, "one\ntwo caf\u{e9} \u{1F600}\nthree\n");
        assert_eq!(d.format.to_string(), "UTF-32LE with BOM, CRLF");
        let out = rewrite(&le, &d, &d.text.replace("three", "THREE")).unwrap();
        assert_eq!(&out[..out.len() - 28], &le[..le.len() - 28]);
        assert_eq!(
            decode(&out, None).text,
            "one\ntwo caf\u{e9} \u{1F600}\nTHREE\n"
        );
        let be = [0, 0, 0xFE, 0xFF, 0, 0, 0, b'h', 0, 0, 0, b'i'];
        let d = decode(&be, None);
        assert_eq!((d.format.encoding, d.text.as_str()), (Enc::Utf32Be, "hi"));
        // A surrogate is not a character: malformed, shown as U+FFFD.
        let d = decode(b"\xFF\xFE\x00\x00\x00\xD8\x00\x00", None);
        assert!(d.malformed);
        assert_eq!(d.text, "\u{FFFD}");
    }

    #[test]
    fn binary_means_a_nul_without_a_wide_bom() {
        assert!(looks_binary(b"ELF\x00\x01"));
        assert!(!looks_binary(b"plain text\n"));
        assert!(!looks_binary(b""));
        assert!(!looks_binary(b"\xFF\xFEa\x00"));
        assert!(!looks_binary(b"\xFE\xFF\x00a"));
        assert!(!looks_binary(b"\x00\x00\xFE\xFF\x00\x00\x00a"));
        assert!(
            looks_binary(b"\xEF\xBB\xBFa\x00"),
            "a UTF-8 BOM does not excuse a NUL"
        );
        assert_eq!(wide_bom(b"\xFF\xFE\x00\x00"), Some(Enc::Utf32Le));
        assert_eq!(wide_bom(b"\xFF\xFEa\x00"), Some(Enc::Utf16Le));
        assert_eq!(wide_bom(b"\xEF\xBB\xBF"), None);
    }

    #[test]
    fn only_text_that_is_not_utf8_is_decoded_foreign() {
        assert_eq!(decode_foreign("caf\u{e9}\n".as_bytes(), None), None);
        assert_eq!(decode_foreign(b"\xEF\xBB\xBFplain", None), None);
        let mut near = "naïve café déjà vu — über\n".as_bytes().to_vec();
        near.extend(b"stray \xE9 byte\n");
        assert_eq!(
            decode_foreign(&near, None),
            None,
            "near-UTF-8 stays as stored"
        );
        let latin = encoding_rs::WINDOWS_1252
            .encode("Le café est très fort, déjà la fenêtre s'ouvre.\n")
            .0
            .into_owned();
        let d = decode_foreign(&latin, None).unwrap();
        assert_eq!(d, decode(&latin, None));
        assert_eq!(d.format.encoding, Enc::Legacy(encoding_rs::WINDOWS_1252));
        let wide = decode_foreign(b"\xFF\xFEh\x00i\x00", None).unwrap();
        assert_eq!(
            (wide.format.encoding, wide.text.as_str()),
            (Enc::Utf16Le, "hi")
        );
    }

    #[test]
    fn cuts_fall_after_a_line_end_in_the_files_own_code_units() {
        assert_eq!(cut_at_line_end(b"ab\ncd\nef", 7), 6);
        assert_eq!(cut_at_line_end(b"ab\ncd\nef", 100), 6);
        assert_eq!(cut_at_line_end("\u{e9}\u{e9}\u{e9}".as_bytes(), 3), 2);
        // UTF-16LE: U+0A0D holds the byte 0x0A, and is not a line end.
        let le = b"\xFF\xFEa\x00\n\x00\x0D\x0Ab\x00";
        assert_eq!(cut_at_line_end(le, 9), 6);
        assert_eq!(cut_at_line_end(le, 5), 4);
        let be32 = [
            0, 0, 0xFE, 0xFF, 0, 0, 0, b'a', 0, 0, 0, b'\n', 0, 0, 0, b'b',
        ];
        assert_eq!(cut_at_line_end(&be32, 15), 12);
    }

    #[test]
    fn utf8_check_across_any_split_matches_whole_validation() {
        let samples: [&[u8]; 6] = [
            "a\u{e9}\u{20ac}\u{1F600}z".as_bytes(),
            b"caf\xE9 x",
            b"\xE2\x82",
            b"\xF0\x9F\x98\x80\xF0",
            b"\xE2\x28\xA1",
            b"",
        ];
        for bytes in samples {
            for a in 0..=bytes.len() {
                for b in a..=bytes.len() {
                    let mut check = Utf8Check::default();
                    check.feed(&bytes[..a]);
                    check.feed(&bytes[a..b]);
                    check.feed(&bytes[b..]);
                    assert_eq!(
                        check.is_valid(),
                        std::str::from_utf8(bytes).is_ok(),
                        "{bytes:?} split at {a} and {b}"
                    );
                }
            }
        }
    }
}
