//! Only real images are attached, in every profile that attaches images (gg and qwen): a file
//! whose first bytes claim PNG, GIF, JPEG or WebP but whose structure is damaged, cut short or
//! implausible for its size is described (format claimed, size, why) and nothing is attached;
//! whole images are attached as before.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

mod gg_support;

use fsgate_core::{Content, Options, Profile, Workspace};
use gg_support::{Fx, gif, images, jpeg, png, webp};
use serde_json::json;

/// Damaged images: name, bytes, claimed format, and a word of the reason.
fn damaged() -> Vec<(&'static str, Vec<u8>, &'static str, &'static str)> {
    let cut = |mut bytes: Vec<u8>, drop: usize| {
        bytes.truncate(bytes.len() - drop);
        bytes
    };
    vec![
        // The report's case: a 14-byte GIF whose header claims 26400x29281 pixels.
        ("report.gif", b"GIF89a garbage".to_vec(), "GIF", "block"),
        ("short.gif", cut(gif(17, 9), 4), "GIF", "cut short"),
        ("short.png", cut(png(3, 2), 20), "PNG", "cut short"),
        ("nodata.jpg", cut(jpeg(64, 48), 40), "JPEG", "cut short"),
        ("short.webp", cut(webp(40, 30), 3), "WebP", "cut short"),
        ("huge.gif", gif(60000, 60000), "GIF", "60000x60000"),
    ]
}

#[test]
fn gg_describes_a_damaged_image_and_attaches_nothing() {
    let fx = Fx::new();
    for (name, bytes, format, why) in damaged() {
        fx.write(name, &bytes);
        let out = fx.call("read_file", json!({"path": name}));
        assert!(!out.is_error, "{name}: {}", out.text_content());
        assert!(images(&out).is_empty(), "{name} was attached");
        let text = out.text_content();
        let head = format!(
            "Image {name}: claims to be {format}, {} bytes; not attached, as it is damaged or \
             not an image a model can be sent: ",
            bytes.len()
        );
        assert!(text.starts_with(&head), "{name}: {text}");
        assert!(text.contains(why), "{name}: {text}");
        assert!(
            text.ends_with(". Only this description is returned."),
            "{name}: {text}"
        );
    }
    // The report's file no longer claims its header's size.
    let text = fx.ok("read_file", json!({"path": "report.gif"}));
    assert!(!text.contains("26400"), "{text}");
}

#[test]
fn gg_without_vision_describes_a_damaged_image_as_damaged() {
    let fx = Fx::with(|o| o.no_vision = true);
    fx.write("report.gif", b"GIF89a garbage");
    let text = fx.ok("read_file", json!({"path": "report.gif"}));
    assert!(text.contains("damaged"), "{text}");
    assert!(!text.contains("26400x29281"), "{text}");
}

fn qwen(dir: &std::path::Path) -> Workspace {
    let mut options = Options::new(dir);
    options.profile = Profile::Qwen.into();
    Workspace::open(options).unwrap()
}

#[test]
fn qwen_describes_a_damaged_image_and_attaches_nothing() {
    let fx = Fx::new();
    let ws = qwen(fx.dir.path());
    for (name, bytes, format, why) in damaged() {
        fx.write(name, &bytes);
        let path = fx.root().join(name).to_string_lossy().into_owned();
        let out = ws.call("read_file", json!({"path": path})).unwrap();
        assert!(!out.is_error, "{name}: {}", out.text_content());
        assert!(images(&out).is_empty(), "{name} was attached");
        let text = out.text_content();
        let head = format!(
            "Image file {path} is not attached: it claims to be {format} ({} bytes) but is \
             damaged or not an image a model can be sent: ",
            bytes.len()
        );
        assert!(text.starts_with(&head), "{name}: {text}");
        assert!(text.contains(why), "{name}: {text}");
    }
}

#[test]
fn qwen_attaches_whole_images_as_what_their_bytes_are() {
    let fx = Fx::new();
    let ws = qwen(fx.dir.path());
    let cases = [
        ("a.png", png(3, 2), "image/png"),
        ("b.gif", gif(4, 4), "image/gif"),
        ("c.jpg", jpeg(40, 30), "image/jpeg"),
        ("d.webp", webp(40, 30), "image/webp"),
        // A PNG named .jpg travels as the PNG it is.
        ("e.jpg", png(2, 2), "image/png"),
    ];
    for (name, bytes, mime) in cases {
        fx.write(name, &bytes);
        let path = fx.root().join(name).to_string_lossy().into_owned();
        let out = ws.call("read_file", json!({"path": path})).unwrap();
        assert!(!out.is_error, "{name}: {}", out.text_content());
        assert_eq!(
            out.content,
            vec![Content::Image { mime, data: bytes }],
            "{name}"
        );
    }
}

#[test]
fn qwen_names_an_image_format_it_cannot_check_and_reads_text_under_an_image_name() {
    let fx = Fx::new();
    let ws = qwen(fx.dir.path());
    fx.write(
        "icon.bmp",
        b"BM\x3a\0\0\0\0\0\0\0\x36\0\0\0\x28\0\0\0\x01\0\0\0\x01\0\0\0",
    );
    fx.write("notes.png", "not a picture\n");
    let read = |name: &str| {
        let path = fx.root().join(name).to_string_lossy().into_owned();
        let out = ws.call("read_file", json!({"path": path.clone()})).unwrap();
        (path, out)
    };
    let (path, out) = read("icon.bmp");
    assert!(images(&out).is_empty());
    assert_eq!(
        out.text_content(),
        format!(
            "Image file {path} is not attached: its bytes are not a PNG, JPEG, GIF or WebP image \
             (image/bmp by its name), and only those formats are checked and sent to the model."
        )
    );
    let (_, out) = read("notes.png");
    assert!(images(&out).is_empty());
    assert!(
        out.text_content().contains("not a picture"),
        "{}",
        out.text_content()
    );
}
