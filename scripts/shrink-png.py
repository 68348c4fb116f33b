#!/usr/bin/env python3
"""Makes the documentation's screenshots smaller, in place, with Python's standard library only.

A browser writes a screenshot as 24-bit RGB with light compression. A page like the
playground's has a few hundred colours that matter (flat panels, text and its anti-aliased
edges), so the picture is rewritten as an indexed PNG: the 256 most used colours form the
palette, every other colour takes the nearest of them (by squared distance in RGB), and the
rows are compressed at zlib's highest level. A picture with 256 colours or fewer is rewritten
without any change to its pixels. A file is replaced only when the result is smaller.

Usage: scripts/shrink-png.py FILE.png...
"""

import struct
import sys
import zlib

SIGNATURE = b"\x89PNG\r\n\x1a\n"


def chunks(data):
    """The PNG's chunks as (type, body) pairs."""
    if data[:8] != SIGNATURE:
        raise ValueError("not a PNG")
    offset = 8
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        kind = data[offset + 4 : offset + 8]
        yield kind, data[offset + 8 : offset + 8 + length]
        offset += 12 + length


def paeth(left, up, corner):
    estimate = left + up - corner
    to_left, to_up, to_corner = abs(estimate - left), abs(estimate - up), abs(estimate - corner)
    if to_left <= to_up and to_left <= to_corner:
        return left
    return up if to_up <= to_corner else corner


def unfilter(raw, width, height, channels):
    """The pixel rows of a non-interlaced 8-bit image, each a bytearray."""
    stride = width * channels
    rows, previous, offset = [], bytearray(stride), 0
    for _ in range(height):
        kind, row = raw[offset], bytearray(raw[offset + 1 : offset + 1 + stride])
        offset += 1 + stride
        if kind == 1:
            for i in range(channels, stride):
                row[i] = (row[i] + row[i - channels]) & 0xFF
        elif kind == 2:
            for i in range(stride):
                row[i] = (row[i] + previous[i]) & 0xFF
        elif kind == 3:
            for i in range(stride):
                left = row[i - channels] if i >= channels else 0
                row[i] = (row[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                left = row[i - channels] if i >= channels else 0
                corner = previous[i - channels] if i >= channels else 0
                row[i] = (row[i] + paeth(left, previous[i], corner)) & 0xFF
        elif kind != 0:
            raise ValueError(f"unknown row filter {kind}")
        rows.append(row)
        previous = row
    return rows


def read_rgb(path):
    """Width, height and the rows as RGB triples, from an 8-bit RGB or RGBA PNG."""
    data = open(path, "rb").read()
    header, idat = None, bytearray()
    for kind, body in chunks(data):
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace != 0:
        raise ValueError("only 8-bit, non-interlaced RGB or RGBA screenshots are handled")
    channels = 3 if colour == 2 else 4
    rows = unfilter(zlib.decompress(bytes(idat)), width, height, channels)
    pixels = [[tuple(row[i : i + 3]) for i in range(0, len(row), channels)] for row in rows]
    return width, height, pixels, len(data)


def palette_for(pixels):
    """The palette (the most used colours, at most 256) and each colour's index in it."""
    counts = {}
    for row in pixels:
        for colour in row:
            counts[colour] = counts.get(colour, 0) + 1
    palette = sorted(counts, key=counts.get, reverse=True)[:256]
    index = {colour: i for i, colour in enumerate(palette)}
    for colour in counts:
        if colour not in index:
            r, g, b = colour
            index[colour] = min(
                range(len(palette)),
                key=lambda i: (palette[i][0] - r) ** 2 + (palette[i][1] - g) ** 2 + (palette[i][2] - b) ** 2,
            )
    return palette, index, len(counts)


def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def write_indexed(width, height, pixels, palette, index):
    raw = bytearray()
    for row in pixels:
        raw.append(0)
        raw += bytes(index[colour] for colour in row)
    return (
        SIGNATURE
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0))
        + chunk(b"PLTE", b"".join(bytes(colour) for colour in palette))
        + chunk(b"IDAT", zlib.compress(bytes(raw), 9))
        + chunk(b"IEND", b"")
    )


def main(paths):
    for path in paths:
        width, height, pixels, before = read_rgb(path)
        palette, index, colours = palette_for(pixels)
        data = write_indexed(width, height, pixels, palette, index)
        if len(data) < before:
            open(path, "wb").write(data)
        kept = "every colour kept" if colours <= 256 else f"{colours} colours in 256"
        print(f"{path}: {width}x{height}, {before} -> {min(before, len(data))} bytes ({kept})")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    main(sys.argv[1:])
