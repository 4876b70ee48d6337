"""read_file on pictures: detection by magic number, an image block beside a line naming the
file, format, size and dimensions, offset/limit ignored, the 8 MiB ceiling, and models that
cannot see images (gg's image reads and its rule for models that cannot see images)."""

import base64
import re

import pytest

import imagegen
from conftest import make, serve, write_config

pytestmark = pytest.mark.anyio

MIB8 = 8 * 1024 * 1024

CASES = [
    # file name, bytes, mime, format words, width, height
    ("mock.png", imagegen.png(7, 5), "image/png", r"PNG", 7, 5),
    ("photo.jpg", imagegen.jpeg(33, 21), "image/jpeg", r"JPE?G", 33, 21),
    ("anim.gif", imagegen.gif(12, 9), "image/gif", r"GIF", 12, 9),
    ("pic.webp", imagegen.webp(40, 30), "image/webp", r"WebP", 40, 30),
    ("lossy.webp", imagegen.webp_lossy(64, 48), "image/webp", r"WebP", 64, 48),
]


def size_re(n: int) -> str:
    return rf"\b({n}|{n:,})\b"


def dims_re(w: int, h: int) -> str:
    return rf"\b{w}\s*[x×X]\s*{h}\b"


def check_description(text: str, name: str, fmt: str, size: int, w: int, h: int):
    assert name in text, text
    assert re.search(fmt, text, re.I), text
    assert re.search(size_re(size), text), text
    assert re.search(dims_re(w, h), text), text


@pytest.mark.parametrize("name,data,mime,fmt,w,h", CASES, ids=[c[0] for c in CASES])
async def test_image_is_attached_with_a_describing_line(ws, name, data, mime, fmt, w, h):
    make(ws, {name: data})
    async with serve(ws) as c:
        r = await c.call("read_file", {"path": name})
        r.ok()
        assert len(r.images) == 1, r.raw
        img = r.images[0]
        assert img.mime_type == mime
        assert base64.b64decode(img.data) == data
        assert r.texts, "no text line beside the image"
        check_description(r.text, name, fmt, len(data), w, h)


async def test_format_detected_by_magic_number_not_extension(ws):
    data = imagegen.png(9, 4)
    make(ws, {"really_a_png.txt": data, "notes.png": "just text\nnot a picture\n", "noext": imagegen.gif(3, 2)})
    async with serve(ws) as c:
        r = await c.call("read_file", {"path": "really_a_png.txt"})
        assert len(r.images) == 1 and r.images[0].mime_type == "image/png"
        assert base64.b64decode(r.images[0].data) == data
        r = await c.call("read_file", {"path": "notes.png"})
        assert r.ok() == "just text\nnot a picture\n"
        assert not r.images
        r = await c.call("read_file", {"path": "noext"})
        assert len(r.images) == 1 and r.images[0].mime_type == "image/gif"


async def test_other_binary_formats_read_as_ordinary_files(ws):
    make(ws, {"doc.bmp": b"BM" + b"plain text after a BMP magic\n", "x.pdf": b"%PDF-1.4\nhello\n"})
    async with serve(ws) as c:
        for p in ("doc.bmp", "x.pdf"):
            r = await c.call("read_file", {"path": p})
            assert not r.images, p
            r.ok()


async def test_offset_and_limit_are_ignored_for_images(ws):
    data = imagegen.png(7, 5)
    make(ws, {"m.png": data})
    async with serve(ws) as c:
        r = await c.call("read_file", {"path": "m.png", "offset": 3, "limit": 1})
        r.ok()
        assert len(r.images) == 1
        assert base64.b64decode(r.images[0].data) == data
        assert "[showing" not in r.text


async def test_image_over_8_mib_is_described_not_attached(ws):
    data = imagegen.png(20, 10, pad_to=MIB8 + 4096)
    assert len(data) > MIB8
    make(ws, {"huge.png": data})
    async with serve(ws) as c:
        r = await c.call("read_file", {"path": "huge.png"})
        r.ok()
        assert not r.images
        assert "huge.png" in r.text and re.search("PNG", r.text, re.I)
        assert re.search(dims_re(20, 10), r.text), r.text


async def test_image_of_exactly_8_mib_is_attached(ws):
    data = imagegen.png(20, 10, pad_to=MIB8)
    assert len(data) == MIB8
    make(ws, {"edge.png": data})
    # Over the default byte bound (3,932,160 bytes, --image-max-bytes): still attached, encoded
    # again within it, and its line says so.
    async with serve(ws) as c:
        r = await c.call("read_file", {"path": "edge.png"})
        assert len(r.images) == 1
        shown = base64.b64decode(r.images[0].data)
        assert shown.startswith(b"\x89PNG") and len(shown) < 3_932_160
        assert "over the image byte limit" in r.text, r.text
    # With the bound at 8 MiB, the file travels as it is.
    async with serve(ws, extra=["--image-max-bytes", str(MIB8)]) as c:
        r = await c.call("read_file", {"path": "edge.png"})
        assert len(r.images) == 1
        assert base64.b64decode(r.images[0].data) == data


@pytest.mark.parametrize("name,data,mime,fmt,w,h", CASES[:4], ids=[c[0] for c in CASES[:4]])
async def test_no_vision_flag_describes_instead(ws, name, data, mime, fmt, w, h):
    make(ws, {name: data})
    async with serve(ws, extra=["--no-vision"]) as c:
        r = await c.call("read_file", {"path": name})
        r.ok()
        assert not r.images
        check_description(r.text, name, fmt, len(data), w, h)


async def test_model_vision_false_in_config_describes_instead(ws, tmp_path):
    data = imagegen.png(7, 5)
    make(ws, {"m.png": data})
    cfg = write_config(tmp_path, "[model]\nvision = false\n")
    async with serve(ws, cfg) as c:
        r = await c.call("read_file", {"path": "m.png"})
        r.ok()
        assert not r.images
        check_description(r.text, "m.png", "PNG", len(data), 7, 5)


async def test_vision_true_in_config_attaches(ws, tmp_path):
    data = imagegen.gif(4, 4)
    make(ws, {"g.gif": data})
    cfg = write_config(tmp_path, "[model]\nvision = true\n")
    async with serve(ws, cfg) as c:
        r = await c.call("read_file", {"path": "g.gif"})
        assert len(r.images) == 1


async def test_images_under_unlimited_mode_are_the_same(ws, tmp_path):
    data = imagegen.webp(40, 30)
    make(ws, {"p.webp": data})
    cfg = write_config(
        tmp_path,
        '[capabilities.read-file]\nenabled = true\nimplementation = "unlimited"\nparams = { lineCap = 10 }\n',
    )
    async with serve(ws, cfg) as c:
        r = await c.call("read_file", {"path": "p.webp"})
        assert len(r.images) == 1 and base64.b64decode(r.images[0].data) == data


async def test_a_damaged_image_is_described_not_attached(ws):
    """Only real images are attached: a model API that validates images could otherwise reject
    the whole turn. A damaged one is described (format claimed, size, why)."""
    cases = {
        "broken.png": b"\x89PNG\r\n\x1a\n" + b"not a real header",
        "report.gif": b"GIF89a garbage",
        "cut.jpg": imagegen.jpeg(33, 21)[:-2],
        "cut.webp": imagegen.webp(40, 30)[:-1],
    }
    make(ws, cases)
    async with serve(ws) as c:
        for name, data in cases.items():
            r = await c.call("read_file", {"path": name})
            r.ok()
            assert not r.images, name
            assert name in r.text and re.search(size_re(len(data)), r.text), r.text
            assert "damaged" in r.text and "not attached" in r.text, r.text
        assert "26400" not in (await c.call("read_file", {"path": "report.gif"})).text


async def test_gif87a_is_recognised(ws):
    data = b"GIF87a" + bytes([5, 0, 6, 0]) + b"\x00\x00\x00" + b"\x2c\x00\x00\x00\x00\x05\x00\x06\x00\x00\x02\x02\x44\x01\x00;"
    make(ws, {"old.gif": data})
    async with serve(ws) as c:
        r = await c.call("read_file", {"path": "old.gif"})
        assert len(r.images) == 1 and r.images[0].mime_type == "image/gif"
        assert re.search(dims_re(5, 6), r.text), r.text


async def test_image_reached_by_absolute_path_in_a_subdirectory(ws):
    data = imagegen.png(2, 3)
    make(ws, {"specs/mockups/home.png": data})
    async with serve(ws) as c:
        r = await c.call("read_file", {"path": str(ws / "specs/mockups/home.png")})
        assert len(r.images) == 1 and base64.b64decode(r.images[0].data) == data
        assert "home.png" in r.text
