#!/usr/bin/env python3
"""Regenerates the hand-made seed reports in corpus/ (little/big endian, zlib-compressed).

corpus/sample.cubex is the report of round_trip_test.cpp as written by writeCubex.
"""
import io
import struct
import tarfile
import zlib
from pathlib import Path


def index(rows, big):
    e = '>' if big else '<'
    return (b'CUBEX.INDEX' + struct.pack(e + 'I', 1) + b'\0\0\x01' + struct.pack(e + 'I', len(rows))
            + b''.join(struct.pack(e + 'I', r) for r in rows))


def data(values, fmt, big):
    e = '>' if big else '<'
    return b'CUBEX.DATA' + b''.join(struct.pack(e + fmt, v) for v in values)


def zdata(values, big):
    """ZCUBEX.DATA with two blocks: {uncompressed offset, compressed offset, size} each."""
    e = '>' if big else '<'
    raw = b''.join(struct.pack(e + 'd', v) for v in values)
    half = len(raw) // 2 // 8 * 8
    blocks = [raw[:half], raw[half:]]
    packed = [zlib.compress(b) for b in blocks]
    head = b'ZCUBEX.DATA' + struct.pack(e + 'Q', len(blocks))
    offset, uoffset, table = len(head) + 24 * len(blocks), 0, b''
    for block, z in zip(blocks, packed):
        table += struct.pack(e + 'QQQ', uoffset, offset, len(z))
        uoffset += len(block)
        offset += len(z)
    return head + table + b''.join(packed)


ANCHOR = (Path(__file__).parent / 'corpus_anchor.xml').read_text()


def build(path, big=False, compressed=False):
    times = [10, 12, 3, 4, 5, 6, 1, 1]
    members = [
        ('0.index', index([0, 1, 2, 3], big)),
        ('0.data', zdata(times, big) if compressed else data(times, 'd', big)),
        ('1.index', index([1, 2], big)),
        ('1.data', data([2, 3, 4, 5], 'd', big)),
        ('2.index', index([0, 1, 2, 3], big)),
        ('2.data', data([1, 1, 2, 2, 3, 3, 1, 1], 'I', big)),
        ('ghost_4.index', index([0], big)),
        ('ghost_4.data', data([-7, 7], 'q', big)),
        ('anchor.xml', ANCHOR.encode()),
    ]
    with tarfile.open(path, 'w', format=tarfile.USTAR_FORMAT) as archive:
        for name, payload in members:
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(payload), 0, 0o644
            archive.addfile(info, io.BytesIO(payload))


if __name__ == '__main__':
    corpus = Path(__file__).parent / 'corpus'
    build(corpus / 'handmade_le.cubex')
    build(corpus / 'handmade_be.cubex', big=True)
    build(corpus / 'handmade_zlib.cubex', compressed=True)
