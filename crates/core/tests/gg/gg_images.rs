//! read_file on images: detection by magic number, the image block beside a describing line,
//! offset and limit ignored, the 8 MiB ceiling, and models that cannot see images.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use crate::gg_support;

use fsgate_core::Content;
use gg_support::{Fx, gif, images, jpeg, png, webp};
use serde_json::json;

const MIB8: usize = 8 * 1024 * 1024;

#[test]
fn png_is_returned_as_an_image_block_beside_a_line_naming_file_format_size_and_dimensions() {
    let fx = Fx::new();
    let bytes = png(3, 2);
    fx.write("mock.png", &bytes);
    let out = fx.call("read_file", json!({"path": "mock.png"}));
    assert!(!out.is_error);
    assert_eq!(
        out.content,
        vec![
            Content::Text(format!(
                "Image mock.png: PNG, 3x2 pixels, {} bytes.",
                bytes.len()
            )),
            Content::Image {
                mime: "image/png",
                data: bytes,
            },
        ]
    );
}

#[test]
fn jpeg_gif_and_webp_are_recognised_with_their_dimensions() {
    let fx = Fx::new();
    let cases = [
        ("photo.jpg", jpeg(640, 480), "JPEG", "image/jpeg", "640x480"),
        ("anim.gif", gif(17, 9), "GIF", "image/gif", "17x9"),
        (
            "hero.webp",
            webp(1200, 630),
            "WebP",
            "image/webp",
            "1200x630",
        ),
    ];
    for (name, bytes, format, mime, dims) in cases {
        fx.write(name, &bytes);
        let out = fx.call("read_file", json!({"path": name}));
        assert!(!out.is_error, "{name}: {}", out.text_content());
        assert_eq!(
            out.text_content(),
            format!(
                "Image {name}: {format}, {dims} pixels, {} bytes.",
                bytes.len()
            )
        );
        assert_eq!(images(&out), vec![(mime, bytes)], "{name}");
    }
}

#[test]
fn image_is_detected_by_magic_number_not_extension() {
    let fx = Fx::new();
    let bytes = png(4, 4);
    fx.write("notes.txt", &bytes);
    fx.write("noext", gif(2, 5));
    let out = fx.call("read_file", json!({"path": "notes.txt"}));
    assert_eq!(
        out.text_content(),
        format!("Image notes.txt: PNG, 4x4 pixels, {} bytes.", bytes.len())
    );
    assert_eq!(images(&out), vec![("image/png", bytes)]);
    let out = fx.call("read_file", json!({"path": "noext"}));
    assert_eq!(images(&out).len(), 1);
    assert!(
        out.text_content()
            .starts_with("Image noext: GIF, 2x5 pixels, ")
    );
}

#[test]
fn a_png_extension_holding_text_reads_as_text() {
    let fx = Fx::new();
    fx.write("fake.png", "not a picture\nline 2\n");
    fx.write("empty.png", "");
    let out = fx.call("read_file", json!({"path": "fake.png"}));
    assert_eq!(
        out.content,
        vec![Content::Text("not a picture\nline 2\n".to_string())]
    );
    assert_eq!(fx.ok("read_file", json!({"path": "empty.png"})), "");
    // A RIFF container that is not WebP is not an image either.
    fx.write("sound.wav", "RIFF\x24\0\0\0WAVEfmt text");
    let out = fx.call("read_file", json!({"path": "sound.wav"}));
    assert!(images(&out).is_empty());
}

#[test]
fn image_is_returned_whole_whatever_offset_and_limit_say() {
    let fx = Fx::new();
    let bytes = png(3, 2);
    fx.write("m.png", &bytes);
    let whole = fx.call("read_file", json!({"path": "m.png"}));
    for args in [
        json!({"path": "m.png", "offset": 50}),
        json!({"path": "m.png", "limit": 1}),
        json!({"path": "m.png", "offset": 2, "limit": 1}),
    ] {
        assert_eq!(fx.call("read_file", args.clone()), whole, "{args}");
    }
}

/// A valid PNG header padded past its IEND to `len` bytes.
fn padded_png(len: usize) -> Vec<u8> {
    let mut bytes = png(3, 2);
    bytes.resize(len, 0);
    bytes
}

#[test]
fn image_over_8_mib_is_described_not_attached() {
    let fx = Fx::new();
    fx.write("big.png", padded_png(MIB8 + 1));
    let out = fx.call("read_file", json!({"path": "big.png"}));
    assert!(!out.is_error);
    assert_eq!(
        out.content,
        vec![Content::Text(
            "Image big.png: PNG, 3x2 pixels, 8388609 bytes; not attached: it is over the 8 MiB \
             limit for images, so only this description is returned."
                .to_string()
        )]
    );
}

#[test]
fn image_of_exactly_8_mib_is_attached() {
    // With a byte limit above it, as it is.
    let fx = Fx::with(|o| o.images.max_bytes = MIB8 as u64);
    let bytes = padded_png(MIB8);
    fx.write("edge.png", &bytes);
    let out = fx.call("read_file", json!({"path": "edge.png"}));
    assert_eq!(
        out.text_content(),
        "Image edge.png: PNG, 3x2 pixels, 8388608 bytes."
    );
    assert_eq!(images(&out).len(), 1);
    assert_eq!(images(&out)[0].1.len(), MIB8);
    // Under the default byte limit (3.75 MiB), encoded again: the same 3x2 pixels.
    let fx = Fx::new();
    fx.write("edge.png", &bytes);
    let out = fx.call("read_file", json!({"path": "edge.png"}));
    let sent = images(&out);
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].0, "image/png");
    assert_eq!(
        out.text_content(),
        format!(
            "Image edge.png: PNG, 3x2 pixels, 8388608 bytes; attached encoded again as PNG ({} \
             bytes), as its file is over the image byte limit, about 1 token.",
            sent[0].1.len()
        )
    );
    let decoded = image::load_from_memory(&sent[0].1).unwrap().to_rgb8();
    let original = image::load_from_memory(&png(3, 2)).unwrap().to_rgb8();
    assert_eq!(decoded, original);
}

#[test]
fn no_vision_option_describes_images_instead_of_attaching() {
    let fx = Fx::with(|o| o.no_vision = true);
    let bytes = png(3, 2);
    fx.write("m.png", &bytes);
    let out = fx.call("read_file", json!({"path": "m.png"}));
    assert!(!out.is_error);
    assert_eq!(
        out.content,
        vec![Content::Text(format!(
            "Image m.png: PNG, 3x2 pixels, {} bytes; not attached: this model cannot see \
             images, so only this description is returned.",
            bytes.len()
        ))]
    );
}

#[test]
fn vision_false_in_the_configuration_describes_images_instead_of_attaching() {
    let fx = Fx::config("[model]\nvision = false\n");
    fx.write("p.jpg", jpeg(10, 20));
    fx.write("big.png", padded_png(MIB8 + 1));
    let out = fx.call("read_file", json!({"path": "p.jpg"}));
    assert!(images(&out).is_empty());
    assert!(
        out.text_content()
            .starts_with("Image p.jpg: JPEG, 10x20 pixels, ")
    );
    assert!(out.text_content().ends_with(
        "; not attached: this model cannot see images, so only this description is returned."
    ));
    // Without vision even an over-size image is described (for the model that cannot see).
    let out = fx.call("read_file", json!({"path": "big.png"}));
    assert!(images(&out).is_empty());
    assert!(out.text_content().contains("cannot see images"));
}

#[test]
fn an_image_cut_after_its_signature_is_described_as_damaged_and_not_attached() {
    let fx = Fx::new();
    fx.write("broken.png", b"\x89PNG\r\n\x1a\n");
    let out = fx.call("read_file", json!({"path": "broken.png"}));
    assert!(!out.is_error);
    assert_eq!(
        out.content,
        vec![Content::Text(
            "Image broken.png: claims to be PNG, 8 bytes; not attached, as it is damaged or not \
             an image a model can be sent: the file ends inside the IHDR header chunk (8 bytes; \
             a PNG needs 33 before its image data). Only this description is returned."
                .to_string()
        )]
    );
}
