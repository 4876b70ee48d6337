#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]
//! Properties of the text-fidelity engine over random files in each supported encoding. Files
//! are built from raw byte "atoms": ordinary characters, characters that do not round-trip
//! (Shift_JIS NEC/IBM duplicates, gb18030 four-byte forms under GBK, Big5 HKSCS pairs) and
//! invalid sequences, on lines ending in LF, CRLF or (a file of its own) CR.
//!
//! - Overwriting with the decoded text gives back the original bytes, whatever was detected.
//! - Changing one line changes only that line's content bytes (its ending stays).
//! - Adding a line inserts only that line's bytes, with the file's dominant ending.

use fsgate_core::text::encoding::{Enc, decode, decode_as, rewrite};
use proptest::prelude::*;
use proptest::sample::Index;

const ASCII: &[&[u8]] = &[b"a", b"Z", b"0", b" ", b"\t", b"#", b"$", b"(", b"\\", b"}"];

const UTF8: &[&[u8]] = &[
    "é".as_bytes(),
    "中".as_bytes(),
    "😀".as_bytes(),
    "\u{FFFD}".as_bytes(),
    b"\xFF",
    b"\xE4\xB8",
    b"\xC0\x80",
];
const SHIFT_JIS: &[&[u8]] = &[
    b"\x82\xA0",
    b"\x93\xFA",
    b"\xB1",
    b"\x80",
    b"\xED\x40",
    b"\xFA\x4A",
    b"\x87\x90",
    b"\xA0",
    b"\x81",
];
const GBK: &[&[u8]] = &[
    b"\xD6\xD0",
    b"\x80",
    b"\xA1\xA4",
    b"\x81\x30\x81\x30",
    b"\xFF",
    b"\x81",
];
const BIG5: &[&[u8]] = &[b"\xA4\xA4", b"\xA1\x40", b"\x88\x62", b"\xFF", b"\x80"];
const WINDOWS_1252: &[&[u8]] = &[b"\xE9", b"\x80", b"\x81", b"\xFF", b"\xA0"];
const EUC_JP: &[&[u8]] = &[b"\xC6\xFC", b"\x8E\xB1", b"\xA4\xA2", b"\xFF", b"\x8F"];
const ISO_2022_JP: &[&[u8]] = &[b"\x1B$B$3$s\x1B(B", b"\x1B(J\\\x1B(B", b"\x1B$BF|\x1B(B"];
/// UTF-16 atoms, as code units: é, 中, 😀 (a pair), lone surrogates, U+FFFF.
const UTF16: &[&[u16]] = &[
    &[0xE9],
    &[0x4E2D],
    &[0xD83D, 0xDE00],
    &[0xD800],
    &[0xDC00],
    &[0xFFFF],
];

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Bytes(&'static [&'static [u8]]),
    Utf16 { big_endian: bool },
}

/// A random file: its lines as atom indices, and how lines end.
#[derive(Clone, Debug)]
struct Shape {
    lines: Vec<Vec<usize>>,
    crlf: Vec<bool>,
    cr_only: bool,
    final_ending: bool,
    bom: bool,
    pick: Index,
}

fn shape() -> impl Strategy<Value = Shape> {
    (
        prop::collection::vec(prop::collection::vec(0usize..64, 0..10), 1..8),
        prop::collection::vec(any::<bool>(), 8),
        prop::bool::weighted(0.15),
        any::<bool>(),
        any::<bool>(),
        any::<Index>(),
    )
        .prop_map(|(lines, crlf, cr_only, final_ending, bom, pick)| Shape {
            lines,
            crlf,
            cr_only,
            final_ending,
            bom,
            pick,
        })
}

/// A built file and each line's `(start, content_end, end)`.
struct Built {
    bytes: Vec<u8>,
    spans: Vec<(usize, usize, usize)>,
    dominant: &'static str,
}

fn units(kind: Kind, text: &str) -> Vec<u8> {
    match kind {
        Kind::Bytes(_) => text.as_bytes().to_vec(),
        Kind::Utf16 { big_endian } => text
            .encode_utf16()
            .flat_map(|u| {
                if big_endian {
                    u.to_be_bytes()
                } else {
                    u.to_le_bytes()
                }
            })
            .collect(),
    }
}

fn atom(kind: Kind, i: usize) -> Vec<u8> {
    match kind {
        Kind::Bytes(extra) => {
            let all = ASCII.len() + extra.len();
            let i = i % all;
            if i < ASCII.len() {
                ASCII[i]
            } else {
                extra[i - ASCII.len()]
            }
            .to_vec()
        }
        Kind::Utf16 { big_endian } => {
            let all = ASCII.len() + UTF16.len();
            let i = i % all;
            let code_units: Vec<u16> = if i < ASCII.len() {
                ASCII[i].iter().map(|&b| u16::from(b)).collect()
            } else {
                UTF16[i - ASCII.len()].to_vec()
            };
            code_units
                .into_iter()
                .flat_map(|u| {
                    if big_endian {
                        u.to_be_bytes()
                    } else {
                        u.to_le_bytes()
                    }
                })
                .collect()
        }
    }
}

fn build(kind: Kind, shape: &Shape) -> Built {
    let mut bytes = Vec::new();
    if shape.bom {
        bytes.extend_from_slice(match kind {
            Kind::Bytes(_) => b"\xEF\xBB\xBF",
            Kind::Utf16 { big_endian: false } => b"\xFF\xFE",
            Kind::Utf16 { big_endian: true } => b"\xFE\xFF",
        });
    }
    let mut spans = Vec::new();
    let (mut lf, mut crlf, mut first_crlf) = (0, 0, None);
    let last = shape.lines.len() - 1;
    for (n, line) in shape.lines.iter().enumerate() {
        let start = bytes.len();
        for &i in line {
            bytes.extend(atom(kind, i));
        }
        let content_end = bytes.len();
        let ended = n < last || shape.final_ending || line.is_empty();
        if ended {
            let ending = if shape.cr_only {
                "\r"
            } else if shape.crlf[n % shape.crlf.len()] {
                crlf += 1;
                first_crlf.get_or_insert(true);
                "\r\n"
            } else {
                lf += 1;
                first_crlf.get_or_insert(false);
                "\n"
            };
            bytes.extend(units(kind, ending));
        }
        spans.push((start, content_end, bytes.len()));
    }
    let dominant = if shape.cr_only {
        "\r"
    } else if crlf > lf || (crlf == lf && first_crlf == Some(true)) {
        "\r\n"
    } else {
        "\n"
    };
    Built {
        bytes,
        spans,
        dominant,
    }
}

fn enc_of(kind: Kind, encoding: Enc) -> Enc {
    match kind {
        Kind::Bytes(_) => encoding,
        Kind::Utf16 { big_endian: false } => Enc::Utf16Le,
        Kind::Utf16 { big_endian: true } => Enc::Utf16Be,
    }
}

fn starts_with_foreign_bom(bytes: &[u8], shape: &Shape) -> bool {
    !shape.bom
        && [&b"\xEF\xBB\xBF"[..], b"\xFF\xFE", b"\xFE\xFF"]
            .iter()
            .any(|b| bytes.starts_with(b))
}

fn check(kind: Kind, encoding: Enc, shape: &Shape) -> Result<(), TestCaseError> {
    let built = build(kind, shape);
    let original = &built.bytes;
    prop_assume!(!starts_with_foreign_bom(original, shape));
    let decoded = decode_as(original, enc_of(kind, encoding));
    prop_assert_eq!(decoded.format.bom, shape.bom);

    // Identity, with the known encoding and with whatever detection finds.
    prop_assert_eq!(
        &rewrite(original, &decoded, &decoded.text).unwrap(),
        original
    );
    let detected = decode(original, None);
    prop_assert_eq!(
        &rewrite(original, &detected, &detected.text).unwrap(),
        original
    );

    let mut lines: Vec<&str> = decoded.text.split('\n').collect();
    if decoded.text.ends_with('\n') {
        lines.pop();
    }
    prop_assert_eq!(
        lines.len(),
        built.spans.len(),
        "lines of {:?}",
        decoded.text
    );
    let k = shape.pick.index(lines.len());

    // One line changed: only its content bytes differ.
    let mut changed = lines.clone();
    changed[k] = "~edited~";
    let mut new_text = changed.join("\n");
    if decoded.text.ends_with('\n') {
        new_text.push('\n');
    }
    let out = rewrite(original, &decoded, &new_text).unwrap();
    let (start, content_end, end) = built.spans[k];
    let mut expected = original[..start].to_vec();
    expected.extend(units(kind, "~edited~"));
    expected.extend_from_slice(&original[content_end..]);
    prop_assert_eq!(out, expected);

    // One line added after line k (when it has an ending): only the new line's bytes appear.
    if end > content_end {
        let mut added = lines.clone();
        added.insert(k + 1, "~added~");
        let mut new_text = added.join("\n");
        if decoded.text.ends_with('\n') {
            new_text.push('\n');
        }
        let out = rewrite(original, &decoded, &new_text).unwrap();
        let mut expected = original[..end].to_vec();
        expected.extend(units(kind, "~added~"));
        expected.extend(units(kind, built.dominant));
        expected.extend_from_slice(&original[end..]);
        prop_assert_eq!(out, expected);
    }
    Ok(())
}

macro_rules! encoding_props {
    ($($name:ident: $kind:expr, $encoding:expr;)*) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(192))]
            $(
                #[test]
                fn $name(shape in shape()) {
                    check($kind, $encoding, &shape)?;
                }
            )*
        }
    };
}

encoding_props! {
    utf8: Kind::Bytes(UTF8), Enc::Utf8;
    utf16le: Kind::Utf16 { big_endian: false }, Enc::Utf16Le;
    utf16be: Kind::Utf16 { big_endian: true }, Enc::Utf16Be;
    shift_jis: Kind::Bytes(SHIFT_JIS), Enc::Legacy(encoding_rs::SHIFT_JIS);
    gbk: Kind::Bytes(GBK), Enc::Legacy(encoding_rs::GBK);
    gb18030: Kind::Bytes(GBK), Enc::Legacy(encoding_rs::GB18030);
    big5: Kind::Bytes(BIG5), Enc::Legacy(encoding_rs::BIG5);
    windows_1252: Kind::Bytes(WINDOWS_1252), Enc::Legacy(encoding_rs::WINDOWS_1252);
    euc_jp: Kind::Bytes(EUC_JP), Enc::Legacy(encoding_rs::EUC_JP);
    iso_2022_jp: Kind::Bytes(ISO_2022_JP), Enc::Legacy(encoding_rs::ISO_2022_JP);
}

/// The atoms that should not round-trip really do not: the property covers the hard case.
#[test]
fn non_round_trip_atoms_are_real() {
    for (encoding, bytes) in [
        (encoding_rs::SHIFT_JIS, &b"\xED\x40"[..]),
        (encoding_rs::SHIFT_JIS, b"\xFA\x4A"),
        (encoding_rs::SHIFT_JIS, b"\x87\x90"),
        (encoding_rs::GBK, b"\x81\x30\x81\x30"),
        (encoding_rs::BIG5, b"\x88\x62"),
    ] {
        let decoded = decode_as(bytes, Enc::Legacy(encoding));
        assert!(!decoded.malformed, "{} {bytes:02X?}", encoding.name());
        assert!(!decoded.lossless, "{} {bytes:02X?}", encoding.name());
    }
}
