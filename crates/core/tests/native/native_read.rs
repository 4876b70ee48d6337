//! read_file: numbered windows with versions, continuation followed to the end, outlines.

use serde_json::json;

use crate::support::{Nx, more_args, version_in};

#[test]
fn following_the_continuation_lines_reads_every_line_once_with_one_version() {
    let nx = Nx::with(|c| c.line_cap = 7);
    let text: String = (1..=30).map(|i| format!("line {i}\n")).collect();
    nx.write("a.txt", &text);
    let mut args = json!({"path": "a.txt"});
    let mut seen = Vec::new();
    let mut versions = Vec::new();
    for _ in 0..10 {
        let out = nx.ok("read_file", args.clone());
        versions.push(version_in(&out));
        for l in out.lines().skip(1).filter(|l| !l.starts_with("more: ")) {
            let (n, rest) = l.split_once('\t').unwrap();
            seen.push((n.parse::<usize>().unwrap(), rest.to_string()));
        }
        match more_args(&out) {
            Some((tool, next)) => {
                assert_eq!(tool, "read_file");
                args = next;
            }
            None => break,
        }
    }
    let expected: Vec<(usize, String)> = (1..=30).map(|i| (i, format!("line {i}"))).collect();
    assert_eq!(seen, expected);
    versions.dedup();
    assert_eq!(versions.len(), 1, "one file, one version: {versions:?}");
}

#[test]
fn a_version_follows_content_not_modification_time() {
    let nx = Nx::new();
    nx.write("a.txt", "one\n");
    let v1 = version_in(&nx.ok("read_file", json!({"path": "a.txt"})));
    let f = std::fs::File::options()
        .write(true)
        .open(nx.path("a.txt"))
        .unwrap();
    f.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(60))
        .unwrap();
    assert_eq!(
        version_in(&nx.ok("read_file", json!({"path": "a.txt"}))),
        v1
    );
    nx.write("a.txt", "two\n");
    assert_ne!(
        version_in(&nx.ok("read_file", json!({"path": "a.txt"}))),
        v1
    );
}

#[test]
fn a_large_file_read_whole_starts_with_its_outline_and_lines_to_read_from() {
    let nx = Nx::with(|c| {
        c.outline_over_bytes = 200;
        c.line_cap = 5;
    });
    let mut src = String::new();
    for i in 0..20 {
        src.push_str(&format!("fn f{i}() {{\n    let a = {i};\n}}\n\n"));
    }
    nx.write("big.rs", &src);
    let out = nx.ok("read_file", json!({"path": "big.rs"}));
    assert!(out.starts_with("outline of big.rs"), "{out}");
    assert!(out.contains("\n37\tfn f9() {\n"), "{out}");
    let only = nx.ok("read_file", json!({"path": "big.rs", "outline": true}));
    assert!(only.contains("77\tfn f19() {"), "{only}");
    assert!(!only.contains("let a"), "{only}");
    // A window never carries the outline.
    let window = nx.ok(
        "read_file",
        json!({"path": "big.rs", "offset": 37, "limit": 3}),
    );
    assert!(window.starts_with("big.rs v"), "{window}");
    assert!(window.contains("37\tfn f9() {"), "{window}");
}

#[test]
fn line_numbers_can_be_left_out_and_bad_windows_say_what_to_send() {
    let nx = Nx::new();
    nx.write("a.txt", "x\ny\n");
    let out = nx.ok("read_file", json!({"path": "a.txt", "line_numbers": false}));
    assert!(out.ends_with("\nx\ny\n"), "{out}");
    let err = nx.err("read_file", json!({"path": "a.txt", "offset": 9}));
    assert!(err.contains("has 2 lines"), "{err}");
    let err = nx.err("read_file", json!({"path": "nope.txt"}));
    assert!(
        err.starts_with("not-found:") && err.contains("glob"),
        "{err}"
    );
}

/// A `w`x`h` PNG of smooth gradients, made with the image crate.
fn gradient_png(w: u32, h: u32) -> Vec<u8> {
    let picture = image::DynamicImage::ImageRgb8(image::ImageBuffer::from_fn(w, h, |x, y| {
        image::Rgb([(x / 16) as u8, (y / 12) as u8, ((x + y) / 28) as u8])
    }));
    let mut out = std::io::Cursor::new(Vec::new());
    picture.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

/// The text and the one picture (MIME type, decoded width and height, bytes) of a read.
fn read_image(nx: &Nx, path: &str) -> (String, &'static str, u32, u32, usize) {
    let out = nx.call("read_file", json!({ "path": path }));
    assert!(!out.is_error, "{}", out.text_content());
    let pictures: Vec<_> = out
        .content
        .iter()
        .filter_map(|c| match c {
            fsgate_core::Content::Image { mime, data } => Some((*mime, data.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(pictures.len(), 1, "{}", out.text_content());
    let (mime, data) = &pictures[0];
    let decoded = image::load_from_memory(data).unwrap();
    (
        out.text_content(),
        mime,
        decoded.width(),
        decoded.height(),
        data.len(),
    )
}

#[test]
fn a_4000x3000_png_is_attached_downscaled_and_its_line_says_so_with_its_tokens() {
    let nx = Nx::new();
    let bytes = gradient_png(4000, 3000);
    nx.write("big.png", &bytes);
    let (text, mime, w, h, sent) = read_image(&nx, "big.png");
    assert_eq!((mime, w, h), ("image/png", 1237, 928));
    assert_eq!(
        text,
        format!(
            "big.png: PNG image, 4000x3000 → 1237x928 (downscaled), ~1,531 tokens, {} → {sent} \
             bytes",
            bytes.len()
        )
    );
    // Within the limits: the file's own bytes, and what they cost.
    let small = gradient_png(200, 200);
    nx.write("small.png", &small);
    let (text, _, w, h, sent) = read_image(&nx, "small.png");
    assert_eq!((w, h, sent), (200, 200, small.len()));
    assert_eq!(
        text,
        format!(
            "small.png: PNG image, 200x200, {} bytes, ~54 tokens",
            small.len()
        )
    );
}

#[test]
fn an_image_that_cannot_be_decoded_to_be_scaled_down_is_described() {
    let nx = Nx::new();
    let mut broken = gradient_png(2000, 1500);
    let idat = broken.windows(4).position(|w| w == b"IDAT").unwrap();
    broken[idat + 4..idat + 60].fill(0xAB);
    nx.write("broken.png", &broken);
    let out = nx.ok("read_file", json!({"path": "broken.png"}));
    assert!(
        out.starts_with(&format!(
            "broken.png: PNG image, 2000x1500, {} bytes; not attached: it is over the image \
             limits (1568 px long edge, 1,150,000 pixels, 3,932,160 bytes), and it could not be \
             decoded to be scaled down: ",
            broken.len()
        )),
        "{out}"
    );
}

/// The `w…` token of the window a read header shows.
fn window_in(text: &str) -> String {
    let header = text.lines().next().unwrap();
    let at = header.find(" window w").expect("a window token") + " window ".len();
    header[at..at + 13].to_string()
}

#[test]
fn a_window_token_guards_an_edit_by_the_lines_read_alone() {
    let nx = Nx::new();
    let text: String = (1..=50).map(|i| format!("line {i}\n")).collect();
    nx.write("a.txt", &text);
    let out = nx.ok(
        "read_file",
        json!({"path": "a.txt", "offset": 20, "limit": 5}),
    );
    let window = window_in(&out);
    // Another writer changes a line outside the window: the window's token still holds.
    nx.write("a.txt", text.replace("line 3\n", "line three\n"));
    nx.ok(
        "edit",
        json!({"path": "a.txt", "expected_version": window,
               "edits": [{"old_text": "line 21\n", "new_text": "line twenty-one\n"}]}),
    );
    assert!(nx.text("a.txt").contains("line twenty-one\nline 22\n"));
    // A change inside the window: stale, with what changed and the read that gives a new token.
    let out = nx.ok(
        "read_file",
        json!({"path": "a.txt", "offset": 30, "limit": 3}),
    );
    let window = window_in(&out);
    let before = nx.text("a.txt").replace("line 31\n", "line 31 changed\n");
    nx.write("a.txt", &before);
    let err = nx.err(
        "edit",
        json!({"path": "a.txt", "expected_version": window,
               "edits": [{"old_text": "line 30\n", "new_text": "line thirty\n"}]}),
    );
    assert!(err.starts_with("stale:"), "{err}");
    assert!(err.contains("lines 30-32 changed since window"), "{err}");
    assert!(err.contains("+line 31 changed"), "{err}");
    assert!(
        err.contains(r#"read_file {"path": "a.txt", "offset": 30, "limit": 3}"#),
        "{err}"
    );
    assert_eq!(nx.text("a.txt"), before);
    // A whole read shows no window token.
    let whole = nx.ok("read_file", json!({"path": "a.txt"}));
    assert!(
        !whole.lines().next().unwrap().contains(" window "),
        "{whole}"
    );
}
