"""Tiny, valid image files built by hand (no imaging library needed), for the image scenarios."""

import struct
import zlib


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png(width: int, height: int, pad_to: int = 0) -> bytes:
    """A real RGBA PNG of width x height; pad_to grows it with an ancillary chunk."""
    raw = b"".join(b"\x00" + bytes([200, 30, 30, 255]) * width for _ in range(height))
    out = b"\x89PNG\r\n\x1a\n"
    out += _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
    out += _chunk(b"IDAT", zlib.compress(raw))
    if pad_to:
        need = pad_to - len(out) - 12 - 12
        if need > 0:
            out += _chunk(b"tEXt", b"pad\x00" + b"p" * (need - 4))
    out += _chunk(b"IEND", b"")
    return out


def gif(width: int, height: int) -> bytes:
    """A GIF89a whose logical screen is width x height, with one 1x1 frame."""
    return (
        b"GIF89a"
        + struct.pack("<HH", width, height)
        + b"\x80\x00\x00"  # global colour table of 2 entries
        + b"\x00\x00\x00\xff\xff\xff"
        + b"\x2c\x00\x00\x00\x00\x01\x00\x01\x00\x00"  # image descriptor 1x1
        + b"\x02\x02\x44\x01\x00"  # LZW data
        + b"\x3b"
    )


def jpeg(width: int, height: int) -> bytes:
    """A baseline JPEG: SOI, APP0 JFIF, SOF0 with the dimensions, a scan (SOS and entropy-coded
    bytes, enough for the pixel count to be plausible) and EOI."""
    app0 = b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    sof = struct.pack(">BHHB", 8, height, width, 3) + b"\x01\x22\x00\x02\x11\x01\x03\x11\x01"
    sos = b"\x03\x01\x00\x02\x11\x03\x11\x00\x3f\x00"
    return (
        b"\xff\xd8"
        + b"\xff\xe0" + struct.pack(">H", len(app0) + 2) + app0
        + b"\xff\xc0" + struct.pack(">H", len(sof) + 2) + sof
        + b"\xff\xda" + struct.pack(">H", len(sos) + 2) + sos
        + b"\x2a" * (width * height // 256 + 1)
        + b"\xff\xd9"
    )


def webp(width: int, height: int) -> bytes:
    """A lossless (VP8L) WebP carrying the dimensions."""
    bits = (width - 1) | ((height - 1) << 14)
    payload = b"\x2f" + struct.pack("<I", bits) + b"\x00" * 8
    chunk = b"VP8L" + struct.pack("<I", len(payload)) + payload
    body = b"WEBP" + chunk
    return b"RIFF" + struct.pack("<I", len(body)) + body


def webp_lossy(width: int, height: int) -> bytes:
    """A lossy (VP8) WebP key-frame header carrying the dimensions."""
    frame = b"\x10\x02\x00" + b"\x9d\x01\x2a" + struct.pack("<HH", width, height) + b"\x00" * 10
    chunk = b"VP8 " + struct.pack("<I", len(frame)) + frame
    body = b"WEBP" + chunk
    return b"RIFF" + struct.pack("<I", len(body)) + body
