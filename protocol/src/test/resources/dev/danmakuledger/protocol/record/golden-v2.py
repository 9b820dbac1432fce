#!/usr/bin/env python3
"""Canonical record format version 2 golden vectors (docs/canonical-record.md).

An implementation of the documented layout written from the document alone, independent of the
Java encoder: run it with `python3 golden-v2.py > golden-v2.txt` next to this file.
Each line: name canonical-hex leaf-hash-hex content-hash-hex.
"""
import hashlib
import struct


def string(s):
    b = s.encode("utf-8")
    return struct.pack(">I", len(b)) + b


def content(r):
    out = string(r["deviceId"]) + string(r["room"]) + string(r["user"]) + string(r["text"])
    if r["playbackMs"] is None:
        out += b"\x00"
    else:
        out += b"\x01" + struct.pack(">q", r["playbackMs"])
    out += struct.pack(">B", r["mode"]) + struct.pack(">I", r["color"]) + struct.pack(">B", r["fontSize"])
    return out


def canonical_v2(r):
    return (b"\x02" + string(r["key"]) + content(r) + struct.pack(">q", r["hlc"])
            + struct.pack(">q", r["index"]) + bytes.fromhex(r["blind"]))


def content_hash(r):
    return hashlib.sha256(b"\x01" + content(r)).hexdigest()


def leaf_hash(b):
    return hashlib.sha256(b"\x00" + b).hexdigest()


MAX = 2**63 - 1
VECTORS = [
    ("ascii", dict(key="kiosk-01:alice:1732953600000:00112233445566778899aabbccddeeff",
                   deviceId="kiosk-01", room="live.main", user="alice", text="hello, world",
                   playbackMs=None, mode=1, color=0xFFFFFF, fontSize=25,
                   hlc=1732953600000 << 16, index=0,
                   blind="000102030405060708090a0b0c0d0e0f")),
    ("cjk", dict(key="kiosk-01:bob:1732953600001:FEDCBA9876543210",
                 deviceId="kiosk-01", room="live.main", user="bob", text="前方高能预警",
                 playbackMs=83456, mode=5, color=0xFF0000, fontSize=25,
                 hlc=(1732953600001 << 16) | 3, index=1,
                 blind="f0e1d2c3b4a5968778695a4b3c2d1e0f")),
    ("held-link", dict(key="kiosk-a:bob:1796306434311:3b5e00112233445566778899aabbccdd",
                       deviceId="kiosk-a", room="room-1", user="bob",
                       text="see https://evil.example",
                       playbackMs=None, mode=1, color=0xFFFFFF, fontSize=25,
                       hlc=1796306434311 << 16, index=9,
                       blind="5c1d8e2f7a3b4c6d9e0f1a2b3c4d5e6f")),
    ("limits", dict(key="D" * 64 + ":" + "U" * 64 + ":9999999999999:" + "f" * 64,
                    deviceId="D" * 64, room="." * 64, user="U" * 64, text="\U0001F600" * 300,
                    playbackMs=MAX, mode=8, color=0xFFFFFF, fontSize=255, hlc=MAX, index=MAX,
                    blind="ff" * 16)),
]

print("# Canonical record format version 2 golden vectors (docs/canonical-record.md).")
print("# Computed by golden-v2.py, an independent Python implementation of the documented format,")
print("# not by the Java encoder. The blinds are fixed here; agents draw them from a CSPRNG.")
print("# name canonical-hex leaf-hash-hex content-hash-hex blind-hex")
for name, r in VECTORS:
    b = canonical_v2(r)
    print(name, b.hex(), leaf_hash(b), content_hash(r), r["blind"])
