//! Images over the attachment limits (long edge, pixels, bytes) are scaled down before they
//! are attached, in gg (read_file and the code arm's views) and qwen, and the text says so
//! with the estimated tokens; one that cannot be decoded is described, never an error.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use std::io::Cursor;

use crate::gg_support;

use fsgate_core::config::gg::Arm;
use fsgate_core::ops::image::ImageLimits;
use fsgate_core::{Content, Options, Profile, ToolOutput, Workspace};
use gg_support::{Fx, images, png};
use image::{DynamicImage, ImageBuffer, Rgb};
use serde_json::json;

/// A 4000x3000 PNG: smooth gradients, so the file stays small while its pixels are many.
fn big_png() -> Vec<u8> {
    let picture = DynamicImage::ImageRgb8(ImageBuffer::from_fn(4000, 3000, |x, y| {
        Rgb([(x / 16) as u8, (y / 12) as u8, ((x + y) / 28) as u8])
    }));
    let mut out = Cursor::new(Vec::new());
    picture.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

/// The one picture of `out`, decoded: its MIME type and dimensions.
fn attached(out: &ToolOutput) -> (&'static str, u32, u32, usize) {
    let pictures = images(out);
    assert_eq!(pictures.len(), 1, "{}", out.text_content());
    let (mime, data) = &pictures[0];
    let decoded = image::load_from_memory(data).unwrap();
    (mime, decoded.width(), decoded.height(), data.len())
}

#[test]
fn gg_attaches_a_4000x3000_png_downscaled_within_the_limits_and_says_so() {
    let fx = Fx::new();
    let bytes = big_png();
    assert!(bytes.len() < 8 << 20);
    fx.write("big.png", &bytes);
    let out = fx.call("read_file", json!({"path": "big.png"}));
    assert!(!out.is_error, "{}", out.text_content());
    // 1.15 megapixels (the default pixel bound) in the 4:3 of the file.
    let (mime, w, h, sent) = attached(&out);
    assert_eq!((mime, w, h), ("image/png", 1237, 928));
    assert!(sent as u64 <= ImageLimits::DEFAULT_MAX_BYTES);
    assert_eq!(
        out.text_content(),
        format!(
            "Image big.png: PNG, 4000x3000 pixels, {} bytes; attached downscaled to 1237x928 \
             pixels (PNG, {sent} bytes), about 1,531 tokens.",
            bytes.len()
        )
    );
    // The text comes first, the picture after it.
    assert!(matches!(out.content[0], Content::Text(_)));
}

#[test]
fn gg_follows_the_limits_its_options_give() {
    // Only the long edge: 1568 px, as the model APIs document it.
    let fx = Fx::with(|o| {
        o.images = ImageLimits {
            max_edge: 1568,
            max_pixels: u64::MAX,
            max_bytes: u64::MAX,
        }
    });
    fx.write("big.png", big_png());
    let out = fx.call("read_file", json!({"path": "big.png"}));
    let (_, w, h, sent) = attached(&out);
    assert_eq!((w, h), (1568, 1176));
    // Anthropic scales what is over ~1,600 tokens down itself: 1,600 is the most it bills.
    assert!(
        out.text_content().ends_with(&format!(
            "attached downscaled to 1568x1176 pixels (PNG, {sent} bytes), about 1,600 tokens."
        )),
        "{}",
        out.text_content()
    );
    // A small image is untouched and its line unchanged.
    let small = png(30, 20);
    fx.write("small.png", &small);
    let out = fx.call("read_file", json!({"path": "small.png"}));
    assert_eq!(images(&out), vec![("image/png", small.clone())]);
    assert_eq!(
        out.text_content(),
        format!("Image small.png: PNG, 30x20 pixels, {} bytes.", small.len())
    );
}

#[test]
fn gg_estimates_by_the_configured_rule() {
    let fx = Fx::config("[code]\nimage_cost_rule = \"gemini\"\n");
    fx.write("big.png", big_png());
    let text = fx
        .call("read_file", json!({"path": "big.png"}))
        .text_content();
    // 1237x928 is 2x2 tiles of 768 px: 4 x 258.
    assert!(text.ends_with("about 1,032 tokens."), "{text}");
}

#[test]
fn gg_describes_an_image_it_cannot_decode_to_scale_down() {
    let fx = Fx::new();
    // Whole chunks (it passes the structural check), but pixel data that is not deflate.
    let mut broken = big_png();
    let idat = broken.windows(4).position(|w| w == b"IDAT").unwrap();
    broken[idat + 4..idat + 60].fill(0xAB);
    fx.write("broken.png", &broken);
    let out = fx.call("read_file", json!({"path": "broken.png"}));
    assert!(!out.is_error, "{}", out.text_content());
    assert!(images(&out).is_empty());
    let text = out.text_content();
    assert!(
        text.starts_with(&format!(
            "Image broken.png: PNG, 4000x3000 pixels, {} bytes; not attached: it is over the \
             image limits (1568 px long edge, 1,150,000 pixels, 3,932,160 bytes), and it could \
             not be decoded to be scaled down: ",
            broken.len()
        )),
        "{text}"
    );
    assert!(
        text.ends_with(", so only this description is returned."),
        "{text}"
    );
}

#[test]
fn gg_code_arm_views_attach_the_downscaled_picture_and_count_its_tokens() {
    let fx = Fx::new();
    fx.write("big.png", big_png());
    let mut options = Options::new(fx.dir.path());
    options.arm = Some(Arm::Code);
    let ws = Workspace::open(options).unwrap();
    let out = ws
        .call(
            "run_code",
            json!({"code": "return gg.views.openFile('big.png')"}),
        )
        .unwrap();
    assert!(!out.is_error, "{}", out.text_content());
    let (mime, w, h, _) = attached(&out);
    assert_eq!((mime, w, h), ("image/png", 1237, 928));
    let text = out.text_content();
    assert!(
        text.contains("[view 1: big.png, PNG, 1237x928; about 1,531 tokens]"),
        "{text}"
    );
    assert!(
        text.contains("attached downscaled to 1237x928 pixels"),
        "{text}"
    );
}

fn qwen(dir: &std::path::Path) -> Workspace {
    let mut options = Options::new(dir);
    options.profile = Profile::Qwen.into();
    Workspace::open(options).unwrap()
}

#[test]
fn qwen_attaches_a_4000x3000_png_downscaled_after_a_note() {
    let fx = Fx::new();
    let ws = qwen(fx.dir.path());
    let bytes = big_png();
    fx.write("big.png", &bytes);
    let path = fx.root().join("big.png").to_string_lossy().into_owned();
    let out = ws.call("read_file", json!({"path": path})).unwrap();
    assert!(!out.is_error, "{}", out.text_content());
    let (mime, w, h, sent) = attached(&out);
    assert_eq!((mime, w, h), ("image/png", 1237, 928));
    assert_eq!(
        out.content[0],
        Content::Text(format!(
            "[Image downscaled: {path} is 4000x3000 pixels ({} bytes); sent at 1237x928 as PNG \
             ({sent} bytes), about 1,531 tokens.]",
            bytes.len()
        ))
    );
    // An image within the limits is still the inlineData alone.
    let small = png(3, 2);
    fx.write("small.png", &small);
    let path = fx.root().join("small.png").to_string_lossy().into_owned();
    let out = ws.call("read_file", json!({"path": path})).unwrap();
    assert_eq!(
        out.content,
        vec![Content::Image {
            mime: "image/png",
            data: small
        }]
    );
}

#[test]
fn qwen_describes_an_image_it_cannot_bring_within_the_limits() {
    let fx = Fx::new();
    let mut options = Options::new(fx.dir.path());
    options.profile = Profile::Qwen.into();
    options.images.max_bytes = 10;
    let ws = Workspace::open(options).unwrap();
    fx.write("big.png", big_png());
    let path = fx.root().join("big.png").to_string_lossy().into_owned();
    let out = ws.call("read_file", json!({"path": path.clone()})).unwrap();
    assert!(!out.is_error);
    assert!(images(&out).is_empty());
    let text = out.text_content();
    assert!(
        text.starts_with(&format!(
            "Image file {path} is not attached: it is over the image"
        )),
        "{text}"
    );
    assert!(text.ends_with("over the 10-byte bound."), "{text}");
}
