#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]
//! Round trips over real files (tests/fixtures/encoding, written by its generate.py with
//! Python's codecs): decode, change one line, rewrite, and check byte for byte that only that
//! line changed and that it is written in the file's encoding with its old ending.

use std::path::Path;

use fsgate_core::text::encoding::{Enc, LineEnding, decode, encode, rewrite};

struct Case {
    file: &'static str,
    encoding: &'static str,
    bom: bool,
    ending: LineEnding,
    final_newline: bool,
    lossless: bool,
    malformed: bool,
    /// Text the decoded file must contain.
    contains: &'static str,
    /// The line (0-based) to change, and its new content.
    line: usize,
    new_content: &'static str,
}

const BASE: Case = Case {
    file: "",
    encoding: "UTF-8",
    bom: false,
    ending: LineEnding::Lf,
    final_newline: true,
    lossless: true,
    malformed: false,
    contains: "",
    line: 1,
    new_content: "",
};

fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/encoding")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `s` in the named encoding, by other code than the one under test where there is any.
fn encode_independently(encoding: &str, s: &str) -> Vec<u8> {
    match encoding {
        "UTF-8" => s.as_bytes().to_vec(),
        "UTF-16LE" => s.encode_utf16().flat_map(u16::to_le_bytes).collect(),
        "UTF-16BE" => s.encode_utf16().flat_map(u16::to_be_bytes).collect(),
        label => {
            let (bytes, _, unmappable) = encoding_rs::Encoding::for_label(label.as_bytes())
                .unwrap()
                .encode(s);
            assert!(!unmappable, "{s:?} is not all {label}");
            bytes.into_owned()
        }
    }
}

/// Line `(start, content_end, end)` byte spans of `bytes`, found independently: a line ends
/// at `terminator` (with the `\r`s right before a `\n`).
fn line_spans(
    bytes: &[u8],
    encoding: &str,
    bom: bool,
    terminator: u16,
) -> Vec<(usize, usize, usize)> {
    let width = if encoding.starts_with("UTF-16") { 2 } else { 1 };
    let unit = |i: usize| -> u16 {
        match encoding {
            "UTF-16LE" => u16::from_le_bytes([bytes[i], bytes[i + 1]]),
            "UTF-16BE" => u16::from_be_bytes([bytes[i], bytes[i + 1]]),
            _ => u16::from(bytes[i]),
        }
    };
    let bom_len = match (bom, width) {
        (false, _) => 0,
        (true, 2) => 2,
        (true, _) => 3,
    };
    let mut spans = Vec::new();
    let mut start = bom_len;
    let mut i = bom_len;
    while i + width <= bytes.len() {
        if unit(i) == terminator {
            let mut content_end = i;
            while terminator == 0x0A && content_end > start && unit(content_end - width) == 0x0D {
                content_end -= width;
            }
            spans.push((start, content_end, i + width));
            start = i + width;
        }
        i += width;
    }
    if start < bytes.len() {
        spans.push((start, bytes.len(), bytes.len()));
    }
    spans
}

fn assert_bytes_eq(actual: &[u8], expected: &[u8], what: &str) {
    if actual != expected {
        let at = actual
            .iter()
            .zip(expected)
            .position(|(a, b)| a != b)
            .unwrap_or(actual.len().min(expected.len()));
        panic!(
            "{what}: bytes differ from offset {at} (lengths {} and {})\n actual:   {:02X?}\n expected: {:02X?}",
            actual.len(),
            expected.len(),
            &actual[at..actual.len().min(at + 24)],
            &expected[at..expected.len().min(at + 24)],
        );
    }
}

fn check(case: &Case) {
    let original = fixture(case.file);
    let decoded = decode(&original, None);
    let format = decoded.format;
    assert_eq!(
        format.encoding.name(),
        case.encoding,
        "{}: encoding",
        case.file
    );
    assert_eq!(format.bom, case.bom, "{}: BOM", case.file);
    assert_eq!(
        format.line_ending, case.ending,
        "{}: line ending",
        case.file
    );
    assert_eq!(
        format.final_newline, case.final_newline,
        "{}: final newline",
        case.file
    );
    assert_eq!(decoded.lossless, case.lossless, "{}: lossless", case.file);
    assert_eq!(
        decoded.malformed, case.malformed,
        "{}: malformed",
        case.file
    );
    assert!(
        decoded.text.contains(case.contains),
        "{}: {:?} lacks {:?}",
        case.file,
        decoded.text,
        case.contains
    );
    assert!(
        !decoded.text.contains("\r\n"),
        "{}: text is normalised",
        case.file
    );

    // Overwriting with the identical text writes the identical bytes.
    let same = rewrite(&original, &decoded, &decoded.text).unwrap();
    assert_bytes_eq(
        &same,
        &original,
        &format!("{}: identical overwrite", case.file),
    );

    let terminator = if case.ending == LineEnding::Cr {
        0x0D
    } else {
        0x0A
    };
    let spans = line_spans(&original, case.encoding, case.bom, terminator);
    let lines: Vec<&str> = decoded.text.split('\n').collect();
    assert_eq!(
        spans.len(),
        lines.len() - usize::from(case.final_newline),
        "{}: line count",
        case.file
    );

    // Change one line: everything but that line's content is the original's bytes.
    let mut changed = lines.clone();
    assert_ne!(changed[case.line], case.new_content);
    changed[case.line] = case.new_content;
    let new_text = changed.join("\n");
    let out = rewrite(&original, &decoded, &new_text).unwrap();
    let (start, content_end, _) = spans[case.line];
    let mut expected = original[..start].to_vec();
    expected.extend(encode_independently(case.encoding, case.new_content));
    expected.extend_from_slice(&original[content_end..]);
    assert_bytes_eq(&out, &expected, &format!("{}: one line changed", case.file));
    let again = decode(&out, None);
    assert_eq!(again.text, new_text, "{}: reads back", case.file);
    assert_eq!(
        again.format, format,
        "{}: same format after the edit",
        case.file
    );

    // Add a line after the first: it gets the dominant ending, the rest is untouched.
    let mut added = lines.clone();
    added.insert(1, case.new_content);
    let out = rewrite(&original, &decoded, &added.join("\n")).unwrap();
    let (_, _, first_end) = spans[0];
    let mut expected = original[..first_end].to_vec();
    expected.extend(encode_independently(case.encoding, case.new_content));
    expected.extend(encode_independently(case.encoding, case.ending.as_str()));
    expected.extend_from_slice(&original[first_end..]);
    assert_bytes_eq(&out, &expected, &format!("{}: one line added", case.file));

    // Delete the first line: exactly its bytes go.
    let out = rewrite(&original, &decoded, &lines[1..].join("\n")).unwrap();
    let mut expected = original[..spans[0].0].to_vec();
    expected.extend_from_slice(&original[first_end..]);
    assert_bytes_eq(
        &out,
        &expected,
        &format!("{}: first line deleted", case.file),
    );
}

macro_rules! fixtures {
    ($($name:ident: $case:expr;)*) => {
        $(
            #[test]
            fn $name() {
                check(&$case);
            }
        )*
    };
}

fixtures! {
    utf8: Case {
        file: "utf8.txt",
        contains: "Emoji: 😀 🚀",
        line: 3,
        new_content: "中文：已修改 ✓",
        ..BASE
    };
    utf8_bom: Case {
        file: "utf8_bom.txt",
        bom: true,
        contains: "déjà vu",
        line: 2,
        new_content: "Français : modifié",
        ..BASE
    };
    utf16le_bom_crlf: Case {
        file: "utf16le_bom.txt",
        encoding: "UTF-16LE",
        bom: true,
        ending: LineEnding::CrLf,
        contains: "日本語：文字コード",
        line: 5,
        new_content: "Emoji: 🎉 changed",
        ..BASE
    };
    utf16be_bom: Case {
        file: "utf16be_bom.txt",
        encoding: "UTF-16BE",
        bom: true,
        contains: "中文：编码检测与保留",
        line: 4,
        new_content: "日本語：変更済み",
        ..BASE
    };
    gbk: Case {
        file: "gbk.txt",
        encoding: "GBK",
        contains: "简体中文的国标扩展编码",
        line: 2,
        new_content: "已修改的第二行，仍然是国标编码。",
        ..BASE
    };
    gbk_with_utf8_bom: Case {
        file: "gbk_utf8_bom.txt",
        encoding: "GBK",
        bom: true,
        ending: LineEnding::CrLf,
        contains: "保存时必须保持原来的编码",
        line: 1,
        new_content: "带有字节顺序标记的国标文件。",
        ..BASE
    };
    shift_jis_crlf: Case {
        file: "shift_jis.txt",
        encoding: "Shift_JIS",
        ending: LineEnding::CrLf,
        contains: "改行を保たなければなりません",
        line: 3,
        new_content: "カタカナ：ヘンコウ、ひらがな：へんこう",
        ..BASE
    };
    big5: Case {
        file: "big5.txt",
        encoding: "Big5",
        contains: "繁體中文",
        line: 2,
        new_content: "已經修改的第三行。",
        ..BASE
    };
    windows_1252: Case {
        file: "windows1252.txt",
        encoding: "windows-1252",
        contains: "Über die Brücke",
        line: 2,
        new_content: "Über die Brücke — später! 5 €",
        ..BASE
    };
    crlf: Case {
        file: "crlf.txt",
        ending: LineEnding::CrLf,
        contains: "second line",
        line: 1,
        new_content: "second line, edited",
        ..BASE
    };
    no_final_newline: Case {
        file: "no_final_newline.txt",
        final_newline: false,
        contains: "fourth line",
        line: 3,
        new_content: "fourth line, edited",
        ..BASE
    };
    cr_only: Case {
        file: "cr_only.txt",
        ending: LineEnding::Cr,
        contains: "third line",
        line: 2,
        new_content: "third line, edited",
        ..BASE
    };
    mixed_endings_touched_crlf_line: Case {
        file: "mixed_endings.txt",
        contains: "gamma \r progress",
        line: 1,
        new_content: "BETA",
        ..BASE
    };
    mixed_endings_lone_cr_line: Case {
        file: "mixed_endings.txt",
        contains: "delta",
        line: 2,
        new_content: "gamma done",
        ..BASE
    };
    shift_jis_not_round_trip: Case {
        file: "shift_jis_nec_ibm.txt",
        encoding: "Shift_JIS",
        ending: LineEnding::CrLf,
        lossless: false,
        contains: "これは日本語の文章です。纊Ⅰ≒",
        line: 2,
        new_content: "この行は編集されました。",
        ..BASE
    };
    near_utf8: Case {
        file: "near_utf8.txt",
        lossless: false,
        malformed: true,
        contains: "stray caf\u{FFFD} byte",
        line: 1,
        new_content: "second line, now with ß",
        ..BASE
    };
}

/// The Shift_JIS fixture really does not round-trip, and an edit elsewhere keeps its bytes.
#[test]
fn shift_jis_nec_ibm_bytes_survive_an_edit_elsewhere() {
    let original = fixture("shift_jis_nec_ibm.txt");
    let decoded = decode(&original, None);
    assert_eq!(decoded.format.encoding, Enc::Legacy(encoding_rs::SHIFT_JIS));
    let reencoded = encode(&decoded.text, &decoded.format).unwrap();
    assert_ne!(reencoded, original, "encoding the text again changes bytes");
    let special: &[u8] = b"\xED\x40\xFA\x4A\x87\x90";
    assert!(original.windows(6).any(|w| w == special));
    assert!(!reencoded.windows(6).any(|w| w == special));

    let new_text = decoded.text.replace("この行を編集します。", "編集済み");
    let out = rewrite(&original, &decoded, &new_text).unwrap();
    assert!(out.windows(6).any(|w| w == special), "NEC/IBM bytes kept");
    assert!(out.ends_with(b"\r\n\xED\x40\x82\xC5\x8F\x49\x82\xED\x82\xE9\x8D\x73\r\n"));
    // Editing the line that holds them re-encodes that line only (same characters).
    let new_text = decoded.text.replace("文章です。", "文です。");
    let out = rewrite(&original, &decoded, &new_text).unwrap();
    assert_eq!(decode(&out, None).text, new_text);
    assert!(out.starts_with(&original[..original.iter().position(|&b| b == b'\n').unwrap() + 1]));
    assert!(out.ends_with(&original[original.len() - 30..]));
}

/// In the near-UTF-8 fixture the line with the stray byte cannot be rewritten with U+FFFD.
#[test]
fn near_utf8_line_with_stray_byte_is_protected() {
    let original = fixture("near_utf8.txt");
    let decoded = decode(&original, None);
    let new_text = decoded.text.replace("stray", "lone");
    let err = rewrite(&original, &decoded, &new_text).unwrap_err();
    assert!(err.message.contains("line(s) 3"), "{}", err.message);
    assert!(err.message.contains("U+FFFD"), "{}", err.message);
}

/// A GBK file with a UTF-8 BOM keeps both, and an unmappable character is refused by name.
#[test]
fn gbk_with_bom_refuses_unmappable_characters() {
    let original = fixture("gbk_utf8_bom.txt");
    let decoded = decode(&original, None);
    assert_eq!(decoded.format.to_string(), "GBK with a UTF-8 BOM, CRLF");
    let new_text = decoded.text.replace("最后一行", "最后一行 🚀");
    let err = rewrite(&original, &decoded, &new_text).unwrap_err();
    assert!(
        err.message.contains("'🚀' (U+1F680) on line 5"),
        "{}",
        err.message
    );
    assert!(
        err.message.contains("GBK cannot represent"),
        "{}",
        err.message
    );
}
