#!/usr/bin/env python3
"""Checks a PNG screenshot of the summary page: not blank, and the chart colours are drawn.

Usage: check_screenshot.py FILE.png   (exit 0 when the picture looks right, 1 with a reason)
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


def main():
    width, height, channels, rows = read_png(sys.argv[1])
    counts = {}
    for line in rows:
        for x in range(0, width * channels, channels):
            pixel = bytes(line[x:x + 3])
            counts[pixel] = counts.get(pixel, 0) + 1
    total = width * height
    non_white = total - counts.get(b"\xff\xff\xff", 0)
    print(f"{width}x{height}, {len(counts)} colours, {100.0 * non_white / total:.1f} % not white")
    if non_white < 0.01 * total:
        sys.exit("the page is blank")
    for name, rgb in (("computation bar", b"\x4e\x79\xa7"), ("waiting bars", b"\xb6\x40\x3a")):
        if counts.get(rgb, 0) < 100:
            sys.exit(f"the {name} (#{rgb.hex()}) is missing")
    return 0


if __name__ == "__main__":
    sys.exit(main())
