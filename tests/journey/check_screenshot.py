#!/usr/bin/env python3
"""Checks a PNG screenshot: of the summary page (not blank, the chart colours drawn) or, with
--explorer, of the explorer's window (a window-sized picture with text, the selection's
highlight and the colour boxes of the values, the hottest one among them).

With --difference, of the explorer showing a difference to a baseline (the diverging colours).

Usage: check_screenshot.py [--explorer | --difference] FILE.png   (exit 0 when it looks right, else a reason)
"""
import struct
import sys
import zlib


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG file")
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            if depth != 8 or colour not in (2, 6):
                sys.exit(f"{path}: unsupported PNG (depth {depth}, colour type {colour})")
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous, offset = [], bytearray(stride), 0
    for _ in range(height):
        filter_type, line = raw[offset], bytearray(raw[offset + 1:offset + 1 + stride])
        offset += 1 + stride
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            up_left = previous[i - channels] if i >= channels else 0
            if filter_type == 1:
                line[i] = (line[i] + left) & 255
            elif filter_type == 2:
                line[i] = (line[i] + up) & 255
            elif filter_type == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif filter_type == 4:
                p = left + up - up_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
                pred = left if pa <= pb and pa <= pc else (up if pb <= pc else up_left)
                line[i] = (line[i] + pred) & 255
        rows.append(line)
        previous = line
    return width, height, channels, rows


def colour_counts(path):
    width, height, channels, rows = read_png(path)
    counts = {}
    for line in rows:
        for x in range(0, width * channels, channels):
            pixel = bytes(line[x:x + 3])
            counts[pixel] = counts.get(pixel, 0) + 1
    return width, height, counts


def check_page(path):
    width, height, counts = colour_counts(path)
    total = width * height
    non_white = total - counts.get(b"\xff\xff\xff", 0)
    print(f"{width}x{height}, {len(counts)} colours, {100.0 * non_white / total:.1f} % not white")
    if non_white < 0.01 * total:
        sys.exit("the page is blank")
    for name, rgb in (("computation bar", b"\x4e\x79\xa7"), ("waiting bars", b"\xb6\x40\x3a")):
        if counts.get(rgb, 0) < 100:
            sys.exit(f"the {name} (#{rgb.hex()}) is missing")


def near(counts, rgb, tolerance=6):
    return sum(n for pixel, n in counts.items()
               if sum(abs(a - b) for a, b in zip(pixel, rgb)) < tolerance)


def check_explorer(path):
    width, height, counts = colour_counts(path)
    total = width * height
    biggest = max(counts.values())
    print(f"{width}x{height}, {len(counts)} colours, most common colour "
          f"{100.0 * biggest / total:.1f} %")
    if width < 800 or height < 500:
        sys.exit(f"the picture is {width}x{height}, not a window")
    # A black or single-colour picture is what a window that was never mapped gives.
    if biggest > 0.9 * total or len(counts) < 50:
        sys.exit("the picture is nearly one colour: no window content")
    # Rendered text (anti-aliased greys) and the selected rows' highlight.
    checks = (("the hottest values' colour box (#d73027)", (0xd7, 0x30, 0x27), 50),
              ("the coldest values' colour box (#4575b4)", (0x45, 0x75, 0xb4), 50),
              ("the selected rows' highlight (#308cc6)", (0x30, 0x8c, 0xc6), 2000))
    for name, rgb, least in checks:
        found = near(counts, rgb)
        if found < least:
            sys.exit(f"{name} is missing: {found} pixels")


def check_difference(path):
    """The explorer in baseline mode: the diverging scale's deepest improvement (the largest
    difference, a decrease) in the colour boxes, its regression hue in the legend, and the
    bars of the baseline's values beside the differences in the system tree."""
    width, height, counts = colour_counts(path)
    print(f"{width}x{height}, {len(counts)} colours")
    if width < 800 or height < 500 or len(counts) < 50:
        sys.exit("the picture is not a window with content")
    # The system tree's baseline bars (#dddddd; the window's own greys have some 250 pixels
    # of it): rank 3's, unselected, is the largest of its level and fills its cell.
    checks = (("the largest improvement's colour box (#2166ac)", (0x21, 0x66, 0xac), 50),
              ("the legend's regression end (#b2182b)", (0xb2, 0x18, 0x2b), 5),
              ("the system tree's baseline bars (#dddddd)", (0xdd, 0xdd, 0xdd), 600),
              ("the selected rows' highlight (#308cc6)", (0x30, 0x8c, 0xc6), 2000))
    for name, rgb, least in checks:
        found = near(counts, rgb)
        if found < least:
            sys.exit(f"{name} is missing: {found} pixels")


def main():
    if sys.argv[1] == "--explorer":
        check_explorer(sys.argv[2])
    elif sys.argv[1] == "--difference":
        check_difference(sys.argv[2])
    else:
        check_page(sys.argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
