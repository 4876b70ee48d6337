//! Issue 15 items 5 and 6, issue 17 item 9: text in a legacy encoding, or in UTF-16/UTF-32 with
//! a BOM, is one text everywhere; binary files are described, not dumped.
//!
//! In gg (and qwen's grep_search, and sgpt's edits) a file that is not UTF-8 is read, searched
//! and edited as the text the encoding engine decodes: a read shows that text and one note
//! naming the encoding, a search matches it and shows it, and an edit quoting it applies and
//! writes the file back in its own encoding, every byte outside the edit unchanged. The
//! expected bytes are built here with encoding_rs from the original bytes, independently of the
//! engine's splicing. A file with a NUL byte in its first 8 KiB is described in one line.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

mod gg_support;
mod qwen_support;
mod sgpt_support;

use encoding_rs::{Encoding, SHIFT_JIS, WINDOWS_1252};
use gg_support::Fx;
use qwen_support::Qx;
use serde_json::json;
use sgpt_support::Sx;

/// `text` in `encoding`, which must be able to represent it.
fn enc(encoding: &'static Encoding, text: &str) -> Vec<u8> {
    let (bytes, _, unmappable) = encoding.encode(text);
    assert!(!unmappable, "{} cannot hold {text:?}", encoding.name());
    bytes.into_owned()
}

/// `text` in UTF-16LE with a BOM.
fn utf16le(text: &str) -> Vec<u8> {
    let mut out = vec![0xFF, 0xFE];
    for unit in text.encode_utf16() {
        out.extend_from_slice(&unit.to_le_bytes());
    }
    out
}

/// `original` with the one occurrence of `old` replaced by `new` (both raw bytes).
fn spliced(original: &[u8], old: &[u8], new: &[u8]) -> Vec<u8> {
    let at: Vec<usize> = (0..=original.len().saturating_sub(old.len()))
        .filter(|&i| original[i..].starts_with(old))
        .collect();
    assert_eq!(at.len(), 1, "the test's old bytes must occur once");
    [&original[..at[0]], new, &original[at[0] + old.len()..]].concat()
}

const FRENCH: &str = "Le café est très fort, déjà la fenêtre s'ouvre à côté.\r\n\
                      La crème brûlée est prête.\r\n\
                      Il a dit \u{201c}bonjour\u{201d} \u{2014} puis il est parti.\r\n";

const JAPANESE: &str = "日本語のテキストです。\n\
                        これは文字コードの判定を試験するための文章です。\n\
                        設定ファイルを読み込みます。\n";

// ---------------------------------------------------------------------------------------------
// gg read_file

#[test]
fn gg_read_of_a_windows_1252_file_shows_its_decoded_text_and_one_note() {
    let fx = Fx::new();
    fx.write("fr.txt", enc(WINDOWS_1252, FRENCH));
    let out = fx.ok("read_file", json!({"path": "fr.txt"}));
    assert_eq!(
        out,
        format!(
            "{}[decoded from windows-1252, CRLF; edit_file and write_file write it back in \
             windows-1252]",
            FRENCH.replace("\r\n", "\n")
        )
    );
    // A window counts the decoded lines, and the footer still says where to go on.
    let out = fx.ok(
        "read_file",
        json!({"path": "fr.txt", "offset": 2, "limit": 1}),
    );
    assert_eq!(
        out,
        "La crème brûlée est prête.\n[decoded from windows-1252, CRLF; edit_file and write_file \
         write it back in windows-1252]\n[showing lines 2-2 of 3; continue with offset: 3]"
    );
}

#[test]
fn gg_read_of_utf8_text_is_the_file_byte_for_byte_without_a_note() {
    let fx = Fx::new();
    let text = "\u{feff}caf\u{e9} cr\u{e8}me\r\nsecond\n";
    fx.write("u.txt", text);
    assert_eq!(fx.ok("read_file", json!({"path": "u.txt"})), text);
}

#[test]
fn gg_read_of_shift_jis_and_utf16_and_utf32_files_decodes_them() {
    let fx = Fx::new();
    fx.write("ja.txt", enc(SHIFT_JIS, JAPANESE));
    assert_eq!(
        fx.ok("read_file", json!({"path": "ja.txt"})),
        format!(
            "{JAPANESE}[decoded from Shift_JIS, LF; edit_file and write_file write it back in \
             Shift_JIS]"
        )
    );
    fx.write("w16.txt", utf16le("hello w\u{f6}rld\r\nzweite Zeile\r\n"));
    assert_eq!(
        fx.ok("read_file", json!({"path": "w16.txt"})),
        "hello w\u{f6}rld\nzweite Zeile\n[decoded from UTF-16LE with BOM, CRLF; edit_file and \
         write_file write it back in UTF-16LE]"
    );
    let mut w32 = vec![0, 0, 0xFE, 0xFF];
    for c in "eins\nzwei \u{1F600}\n".chars() {
        w32.extend_from_slice(&u32::from(c).to_be_bytes());
    }
    fx.write("w32.txt", &w32);
    assert_eq!(
        fx.ok("read_file", json!({"path": "w32.txt"})),
        "eins\nzwei \u{1F600}\n[decoded from UTF-32BE with BOM, LF; edit_file and write_file \
         write it back in UTF-32BE]"
    );
}

#[test]
fn gg_read_of_a_large_legacy_file_decodes_the_whole_file() {
    // Over the size below which a read holds the file whole: the window shown is not UTF-8,
    // so the file is decoded and the window taken from its text.
    let fx = Fx::new();
    let mut text = String::new();
    for i in 0..20_000 {
        text.push_str(&format!("ligne {i}: la crème brûlée est prête\n"));
    }
    fx.write("big.txt", enc(WINDOWS_1252, &text));
    let out = fx.ok(
        "read_file",
        json!({"path": "big.txt", "offset": 15000, "limit": 2}),
    );
    assert_eq!(
        out,
        "ligne 14999: la crème brûlée est prête\nligne 15000: la crème brûlée est prête\n\
         [decoded from windows-1252, LF; edit_file and write_file write it back in windows-1252]\n\
         [showing lines 15000-15001 of 20000; continue with offset: 15002]"
    );
}

#[test]
fn gg_read_names_the_lines_of_a_utf8_file_that_hold_invalid_bytes() {
    let fx = Fx::new();
    let mut bytes = "naïve café déjà vu — über\n".as_bytes().to_vec();
    bytes.extend(b"stray \xE9 byte\nlast\n");
    fx.write("near.txt", &bytes);
    assert_eq!(
        fx.ok("read_file", json!({"path": "near.txt"})),
        "naïve café déjà vu — über\nstray \u{FFFD} byte\nlast\n[line 2 holds bytes that are not \
         valid UTF-8, shown as U+FFFD (\u{FFFD}); edit_file keeps them: quote the text beside \
         them, not the U+FFFD]"
    );
    // Following that text: an edit beside the byte keeps it.
    fx.ok(
        "edit_file",
        json!({"path": "near.txt", "old_string": "stray", "new_string": "lone"}),
    );
    assert_eq!(fx.bytes("near.txt"), spliced(&bytes, b"stray", b"lone"));
    let err = fx.err(
        "edit_file",
        json!({"path": "near.txt", "old_string": "lone \u{FFFD} byte", "new_string": "x"}),
    );
    assert!(
        err.contains("not valid UTF-8; those bytes cannot be quoted")
            && !err.contains("whitespace"),
        "{err}"
    );
}

// ---------------------------------------------------------------------------------------------
// gg binary files

#[test]
fn gg_read_describes_a_binary_file_in_one_line() {
    let fx = Fx::new();
    // An object file: an ELF header, then code and zero padding.
    let mut object = b"\x7fELF\x02\x01\x01\x00".to_vec();
    object.resize(3120, 0);
    object[64..70].copy_from_slice(b"\x55\x48\x89\xe5\x5d\xc3");
    fx.write("obj/x.o", &object);
    let out = fx.call("read_file", json!({"path": "obj/x.o"}));
    assert!(!out.is_error);
    assert_eq!(
        out.text_content(),
        "Binary file obj/x.o: 3120 bytes, not text (it has a NUL byte in its first 8 KiB), so it \
         is not shown; search skips it too. Inspect it with a tool made for its format (file, \
         xxd, objdump, ...) if you have a shell."
    );
    // 12 MB of pseudo-random bytes: the large-file path describes it the same way.
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut random = Vec::with_capacity(12_000_000);
    while random.len() < 12_000_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        random.extend_from_slice(&state.to_le_bytes());
    }
    assert!(random[..8192].contains(&0));
    fx.write("noise.bin", &random);
    assert_eq!(
        fx.ok("read_file", json!({"path": "noise.bin", "offset": 2001})),
        "Binary file noise.bin: 12000000 bytes, not text (it has a NUL byte in its first 8 KiB), \
         so it is not shown; search skips it too. Inspect it with a tool made for its format \
         (file, xxd, objdump, ...) if you have a shell."
    );
}

#[test]
fn gg_a_nul_after_the_first_8_kib_is_read_as_text_and_a_utf16_file_is_never_binary() {
    let fx = Fx::new();
    let mut late = "text line\n".repeat(1000).into_bytes();
    late.extend(b"a\x00b\n");
    fx.write("late.dat", &late);
    let out = fx.ok("read_file", json!({"path": "late.dat"}));
    assert_eq!(out.as_bytes(), &late[..]);
    // UTF-16 text is full of NULs, and is text.
    fx.write("w16.txt", utf16le("needle here\n"));
    let out = fx.ok("read_file", json!({"path": "w16.txt"}));
    assert!(
        out.starts_with("needle here\n[decoded from UTF-16LE"),
        "{out}"
    );
    assert_eq!(
        fx.ok("search", json!({"query": "needle"})),
        "w16.txt:1:needle here"
    );
}

// ---------------------------------------------------------------------------------------------
// gg search

#[test]
fn gg_search_matches_and_shows_the_decoded_text_read_file_shows() {
    let fx = Fx::new();
    fx.write("a/fr.txt", enc(WINDOWS_1252, FRENCH));
    fx.write("b/ja.txt", enc(SHIFT_JIS, JAPANESE));
    fx.write("c/w16.txt", utf16le("eins\r\nzwei crème\r\n"));
    fx.write("d/plain.txt", "crème in UTF-8\n");
    assert_eq!(
        fx.ok("search", json!({"query": "crème|bonjour|設定"})),
        "a/fr.txt:2:La crème brûlée est prête.\n\
         a/fr.txt:3:Il a dit \u{201c}bonjour\u{201d} \u{2014} puis il est parti.\n\
         b/ja.txt:3:設定ファイルを読み込みます。\n\
         c/w16.txt:2:zwei crème\n\
         d/plain.txt:1:crème in UTF-8"
    );
}

#[test]
fn gg_search_decodes_a_streamed_legacy_file_and_one_whose_foreign_bytes_come_late() {
    let fx = Fx::new();
    // Larger than a file searched as one slice.
    let mut text = "ascii filler line\n".repeat(300_000);
    text.push_str("la crème brûlée\n");
    fx.write("big.txt", enc(WINDOWS_1252, &text));
    assert_eq!(
        fx.ok("search", json!({"query": "crème"})),
        "big.txt:300001:la crème brûlée"
    );
    // The search has its one match long before the byte that makes the file windows-1252; the
    // match is still shown as the decoded text (the same here) and the file is not skipped.
    let mut late = "needle first\n".to_string();
    late.push_str(&"ascii filler line\n".repeat(300_000));
    late.push_str("déjà vu\n");
    fx.write("late.txt", enc(WINDOWS_1252, &late));
    assert_eq!(
        fx.ok(
            "search",
            json!({"query": "needle", "limit": 1, "path": "late.txt"})
        ),
        "late.txt:1:needle first"
    );
    assert_eq!(
        fx.ok("search", json!({"query": "déjà", "path": "late.txt"})),
        "late.txt:300002:déjà vu"
    );
}

// ---------------------------------------------------------------------------------------------
// gg edit_file and write_file

#[test]
fn gg_edit_quoting_decoded_text_writes_only_the_edit_in_the_files_encoding() {
    let fx = Fx::new();
    let original = enc(WINDOWS_1252, FRENCH);
    fx.write("fr.txt", &original);
    assert_eq!(
        fx.ok(
            "edit_file",
            json!({"path": "fr.txt", "old_string": "crème brûlée", "new_string": "CRÈME BRÛLÉE"}),
        ),
        "Edited fr.txt: replaced line 2 with 1 line, written back in windows-1252."
    );
    let expected = spliced(
        &original,
        &enc(WINDOWS_1252, "crème brûlée"),
        &enc(WINDOWS_1252, "CRÈME BRÛLÉE"),
    );
    assert_eq!(fx.bytes("fr.txt"), expected);
    // A quote across lines, with the model's LF endings, keeps the file's CRLF.
    fx.ok(
        "edit_file",
        json!({"path": "fr.txt", "old_string": "prête.\nIl a dit", "new_string": "prête.\n\nElle a dit"}),
    );
    let expected = spliced(
        &expected,
        &enc(WINDOWS_1252, "prête.\r\nIl a dit"),
        &enc(WINDOWS_1252, "prête.\r\n\r\nElle a dit"),
    );
    assert_eq!(fx.bytes("fr.txt"), expected);
}

#[test]
fn gg_edit_of_shift_jis_and_utf16_files_keeps_encoding_bom_and_endings() {
    let fx = Fx::new();
    let original = enc(SHIFT_JIS, JAPANESE);
    fx.write("ja.txt", &original);
    fx.ok(
        "edit_file",
        json!({"path": "ja.txt", "old_string": "設定ファイル", "new_string": "構成ファイル"}),
    );
    assert_eq!(
        fx.bytes("ja.txt"),
        spliced(
            &original,
            &enc(SHIFT_JIS, "設定ファイル"),
            &enc(SHIFT_JIS, "構成ファイル")
        )
    );
    let original = utf16le("hello w\u{f6}rld\r\nzweite Zeile\r\n");
    fx.write("w16.txt", &original);
    assert_eq!(
        fx.ok(
            "edit_file",
            json!({"path": "w16.txt", "old_string": "w\u{f6}rld", "new_string": "Welt \u{1F600}"}),
        ),
        "Edited w16.txt: replaced line 1 with 1 line, written back in UTF-16LE."
    );
    assert_eq!(
        fx.bytes("w16.txt"),
        utf16le("hello Welt \u{1F600}\r\nzweite Zeile\r\n")
    );
}

#[test]
fn gg_edit_refuses_characters_the_encoding_cannot_represent_and_writes_nothing() {
    let fx = Fx::new();
    let original = enc(WINDOWS_1252, FRENCH);
    fx.write("fr.txt", &original);
    let err = fx.err(
        "edit_file",
        json!({"path": "fr.txt", "old_string": "prête", "new_string": "prête ☃ 😀"}),
    );
    assert!(
        err.starts_with(
            "invalid-argument: edit_file could not write fr.txt: the text has \
                         characters that windows-1252 cannot represent: '☃' (U+2603) on line \
                         2, '😀' (U+1F600) on line 2."
        ),
        "{err}"
    );
    assert_eq!(fx.bytes("fr.txt"), original);
    let err = fx.err("write_file", json!({"path": "fr.txt", "content": "Снег\n"}));
    assert!(err.contains("windows-1252 cannot represent: 'С'"), "{err}");
    assert_eq!(fx.bytes("fr.txt"), original);
}

#[test]
fn gg_no_match_hint_names_the_encoding_difference_never_whitespace() {
    let fx = Fx::new();
    fx.write("fr.txt", enc(WINDOWS_1252, FRENCH));
    // The quote a model would have copied from a read that showed U+FFFD for each byte.
    let err = fx.err(
        "edit_file",
        json!({"path": "fr.txt", "old_string": "La cr\u{FFFD}me br\u{FFFD}l\u{FFFD}e", "new_string": "x"}),
    );
    assert!(!err.contains("whitespace"), "{err}");
    assert!(
        err.contains(
            "it holds U+FFFD (\u{FFFD}) where the file has \"è\", \"û\", \"é\" (line 2): the \
             file is windows-1252 text, which read_file shows decoded"
        ),
        "{err}"
    );
    // A quote absent for another reason keeps the usual hint, and says how the file is read.
    let err = fx.err(
        "edit_file",
        json!({"path": "fr.txt", "old_string": "  La crème brûlée", "new_string": "x"}),
    );
    assert!(
        err.contains("with different surrounding whitespace")
            && err.contains("The file is windows-1252 text"),
        "{err}"
    );
}

#[test]
fn gg_write_file_over_a_legacy_file_keeps_its_encoding_and_endings() {
    let fx = Fx::new();
    let original = enc(WINDOWS_1252, FRENCH);
    fx.write("fr.txt", &original);
    let content = FRENCH.replace("\r\n", "\n").replace("très", "trop");
    assert_eq!(
        fx.ok("write_file", json!({"path": "fr.txt", "content": content})),
        format!(
            "Overwrote fr.txt: 3 lines ({} bytes), written in windows-1252, CRLF as the file \
             was, replacing {} bytes.",
            original.len(),
            original.len()
        )
    );
    assert_eq!(
        fx.bytes("fr.txt"),
        spliced(&original, &enc(WINDOWS_1252, "très"), b"trop")
    );
    // A UTF-8 file is overwritten with the content as given.
    fx.write("u.txt", "old\r\n");
    fx.ok("write_file", json!({"path": "u.txt", "content": "crème\n"}));
    assert_eq!(fx.bytes("u.txt"), "crème\n".as_bytes());
}

#[test]
fn following_the_text_read_search_edit_leaves_exactly_the_intended_bytes() {
    // A model that copies what read_file and search show, and nothing else.
    let fx = Fx::new();
    let original = enc(WINDOWS_1252, FRENCH);
    fx.write("src/fr.txt", &original);
    let read = fx.ok("read_file", json!({"path": "src/fr.txt"}));
    let hit = fx.ok("search", json!({"query": "bonjour"}));
    let (place, line) = hit.rsplit_once(':').unwrap();
    assert_eq!(place, "src/fr.txt:3");
    assert!(read.contains(line), "the hit is the text read_file showed");
    let edited = line.replace("bonjour", "au revoir");
    fx.ok(
        "edit_file",
        json!({"path": "src/fr.txt", "old_string": line, "new_string": edited}),
    );
    assert_eq!(
        fx.bytes("src/fr.txt"),
        spliced(
            &original,
            &enc(WINDOWS_1252, "bonjour"),
            &enc(WINDOWS_1252, "au revoir")
        )
    );
    // And the read after it shows the change in the same decoded form.
    let again = fx.ok("read_file", json!({"path": "src/fr.txt"}));
    assert_eq!(again, read.replace("bonjour", "au revoir"));
}

// ---------------------------------------------------------------------------------------------
// qwen

#[test]
fn qwen_read_names_the_encoding_and_grep_search_finds_the_decoded_text_whose_line_can_be_edited() {
    let fx = Qx::new();
    let original = enc(WINDOWS_1252, FRENCH);
    fx.write("fr.txt", &original);
    let out = fx.ok("grep_search", json!({"pattern": "crème"}));
    let hit = out
        .lines()
        .find(|l| l.contains(":2:"))
        .unwrap_or_else(|| panic!("no hit: {out}"));
    let line = hit.split_once(":2:").map(|(_, text)| text).unwrap();
    assert_eq!(line, "La crème brûlée est prête.");
    let read = fx.ok("read_file", json!({"path": fx.abs("fr.txt")}));
    assert_eq!(
        read,
        format!(
            "[File decoded from windows-1252, CRLF; write_file and edit write it back in \
             windows-1252.]\n{}",
            FRENCH.replace("\r\n", "\n")
        )
    );
    assert!(read.contains(line));
    fx.ok(
        "edit",
        json!({"file_path": fx.abs("fr.txt"), "old_string": line, "new_string": "La crème est prête."}),
    );
    assert_eq!(
        fx.read("fr.txt"),
        spliced(
            &original,
            &enc(WINDOWS_1252, "La crème brûlée est prête."),
            &enc(WINDOWS_1252, "La crème est prête.")
        )
    );
}

#[test]
fn qwen_binary_and_utf32_files_follow_the_shared_binary_test() {
    let fx = Qx::new();
    let mut object = b"\x7fELF\x02\x01\x01\x00".to_vec();
    object.resize(3120, 0);
    fx.write("x.o", &object);
    assert_eq!(
        fx.ok("read_file", json!({"path": fx.abs("x.o")})),
        format!("Cannot display content of binary file: {}", fx.abs("x.o"))
    );
    let mut w32 = vec![0, 0, 0xFE, 0xFF];
    for c in "eins\nzwei\n".chars() {
        w32.extend_from_slice(&u32::from(c).to_be_bytes());
    }
    fx.write("w32.txt", &w32);
    assert_eq!(
        fx.ok("read_file", json!({"path": fx.abs("w32.txt")})),
        "[File decoded from UTF-32BE with BOM, LF; write_file and edit write it back in \
         UTF-32BE.]\neins\nzwei\n"
    );
}

// ---------------------------------------------------------------------------------------------
// sgpt

#[test]
fn sgpt_replace_and_diff_apply_to_the_decoded_text_read_files_shows() {
    let fx = Sx::new();
    let original = enc(WINDOWS_1252, FRENCH);
    fx.write("fr.txt", &original);
    let read = fx.ok("read_files", json!({"paths": ["fr.txt"]}));
    assert_eq!(read["files"][0]["encoding"], "windows-1252");
    assert_eq!(read["files"][0]["content"], FRENCH.replace("\r\n", "\n"));
    let out = fx.ok(
        "replace",
        json!({"path": "fr.txt", "patches": [{"search": "crème", "replace": "CRÈME"}]}),
    );
    assert_eq!(out["encoding"], "windows-1252");
    let expected = spliced(
        &original,
        &enc(WINDOWS_1252, "crème"),
        &enc(WINDOWS_1252, "CRÈME"),
    );
    assert_eq!(fx.bytes("fr.txt"), expected);
    fx.ok(
        "diff",
        json!({"path": "fr.txt", "diff": "@@\n-La CRÈME brûlée est prête.\n+La CRÈME est prête.\n"}),
    );
    assert_eq!(
        fx.bytes("fr.txt"),
        spliced(
            &expected,
            &enc(WINDOWS_1252, "CRÈME brûlée"),
            &enc(WINDOWS_1252, "CRÈME")
        )
    );
    // UTF-16 with a BOM is text, not a binary file.
    fx.write("w16.txt", utf16le("eins\r\nzwei\r\n"));
    let read = fx.ok("read_files", json!({"paths": ["w16.txt"]}));
    assert_eq!(read["files"][0]["content"], "eins\nzwei\n");
    assert_eq!(read["files"][0]["encoding"], "UTF-16LE");
}
