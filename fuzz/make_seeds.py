#!/usr/bin/env python3
"""Write the seed corpus fuzz/seeds/<target>/ from the vector files.

Each seed is a vector's inputs laid out as the target reads them (see the
target's `Input` calls), so the fuzzers start from accepted ciphertexts and
tags as well as rejected ones. Deterministic: re-running gives the same files.
Usage: python3 fuzz/make_seeds.py   (from the repository root)
"""
import glob
import hashlib
import json
import os
import struct

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "fuzz", "seeds")
MAX_SEEDS = 24
MAX_LEN = 4096


def vectors(scheme):
    out = []
    for d in ("vectors", "vectors/independent", "vectors/negative"):
        p = os.path.join(ROOT, d, scheme + ".json")
        if os.path.exists(p):
            with open(p) as f:
                out.extend(json.load(f)["vectors"])
    return out


def h(v, k):
    return bytes.fromhex(v.get(k, ""))


def u16(n):
    return struct.pack("<H", n)


def pad(b, n):
    return (b + bytes(n))[:n]


seeds = {}


def add(target, data):
    if len(data) <= MAX_LEN:
        seeds.setdefault(target, [])
        if data not in seeds[target] and len(seeds[target]) < MAX_SEEDS:
            seeds[target].append(data)


def pick(vs):
    """Short vectors first, valid and invalid both."""
    return sorted(vs, key=lambda v: (len(v.get("ct", v.get("msg", v.get("pt", "")))), v.get("name", "")))


for v in pick(vectors("ocb1-aes")):
    if len(h(v, "key")) == 16 and len(h(v, "tag")) == 16:
        add("ocb1", h(v, "key") + pad(h(v, "nonce"), 16) + u16(7) + h(v, "ct") + h(v, "tag"))
for v in pick(vectors("cwc-aes")):
    if len(h(v, "key")) == 16 and len(h(v, "tag")) == 16 and len(h(v, "ad")) <= 300:
        ad = h(v, "ad")
        add("cwc", h(v, "key") + pad(h(v, "nonce"), 11) + u16(3) + u16(len(ad)) + ad + h(v, "ct") + h(v, "tag"))
        add("cwc_hash_diff", pad(h(v, "hash_key"), 16) + u16(len(ad)) + ad + h(v, "ct"))
for v in pick(vectors("xcbc-xor-aes")):
    if len(h(v, "key")) == 16 and "key2" in v:
        add("xcbc_xor", h(v, "key") + h(v, "key2") + h(v, "r0") + u16(0) + h(v, "ct"))
for v in pick(vectors("xcbc-xor-ctr-aes")):
    if len(h(v, "key")) == 16 and "key2" in v:
        add("xcbc_xor_stateful", h(v, "key") + h(v, "key2") + h(v, "ctr") + u16(0) + u16(0) + h(v, "ct"))
for v in pick(vectors("pxcbc-xor-aes")):
    if len(h(v, "key")) == 16 and "key2" in v and v["segment_blocks"] <= 40:
        s = v["segment_blocks"]
        add("pxcbc", h(v, "key") + h(v, "key2") + h(v, "r0") + bytes([s - 1]) + u16(0) + h(v, "msg"))
        add("pxcbc_decrypt", h(v, "key") + h(v, "key2") + u16(s - 1) + h(v, "ct"))
for v in pick(vectors("pmac-aes")):
    if len(h(v, "key")) == 16:
        add("pmac_verify", h(v, "key") + bytes([0]) + bytes(16) + bytes([16]) + u16(6) + h(v, "msg"))
for v in pick(vectors("xecb-mac-aes")):
    if len(h(v, "key")) == 16:
        add("xecb_verify", h(v, "key") + h(v, "r0") + bytes([0]) + bytes(32) + bytes([32]) + h(v, "msg"))
for v in pick(vectors("eme-aes")):
    if len(h(v, "key")) == 16:
        add("eme", h(v, "key") + pad(h(v, "tweak"), 16) + h(v, "ct"))
for v in pick(vectors("eme2-aes")):
    if len(h(v, "key")) == 48 and len(h(v, "tweak")) <= 100:
        add("eme2", h(v, "key") + u16(len(h(v, "tweak"))) + h(v, "tweak") + h(v, "ct"))
for v in pick(vectors("ete-eme-aes")):
    add("ete", h(v, "key") + pad(h(v, "tweak"), 16) + h(v, "ct"))
for i, v in enumerate(pick(vectors("xex-aes"))):
    if len(h(v, "key")) == 16:
        # cipher index 0 (XEX), sector sizes 16 and 512, first sector 0
        add("xex_sectors", pad(h(v, "key") + h(v, "tweak_n"), 64) + bytes([0, i % 3]) + bytes(8) + h(v, "ct"))

# fused_diff: key size, 32 key bytes, mode (0 OCB1, 1 PMAC, 2 XEX), nonce,
# cut, first unit, its shift, unit size, message; lengths around the
# kernels' batch edges (4-block registers, 32-block batches).
for size_i, ks in enumerate((16, 24, 32)):
    for v in pick(vectors("ocb1-aes"))[:4]:
        if len(h(v, "key")) == ks:
            add("fused_diff", bytes([size_i]) + pad(h(v, "key"), 32) + bytes([0]) + pad(h(v, "nonce"), 16) + u16(5) + u16(0) + bytes([0, 0]) + h(v, "ct"))
for v in pick(vectors("pmac-aes"))[:4]:
    add("fused_diff", bytes([[16, 24, 32].index(len(h(v, "key")))]) + pad(h(v, "key"), 32) + bytes([1]) + bytes(16) + u16(17) + u16(0) + bytes([0, 0]) + h(v, "msg"))
for n in (0, 1, 15, 16, 17, 63, 64, 65, 511, 512, 513, 2047, 2048, 2049):
    add("fused_diff", bytes([n % 3]) + bytes(range(32)) + bytes([n % 3]) + bytes(range(16)) + u16(n // 2) + u16(n) + bytes([n % 49, 31]) + bytes(i % 251 for i in range(n)))

# simd_diff: kernel, r0, first, flags, K, H, blocks (r0 and first near the
# carries and the wrap-around).
for which in range(3):
    for r0, first in ((1, 1), (2**64 - 1, 2**64 - 5), (2**128 - 1, 2**128 - 3)):
        add("simd_diff", bytes([which]) + r0.to_bytes(16, "big") + first.to_bytes(16, "big") + bytes([which]) + bytes(range(16)) + bytes(range(16, 32)) + bytes(i % 253 for i in range(16 * 37)))

KEY = "blockmodes-key-v1 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\n"
add("keyfile", KEY.encode())
add("keyfile", ("# comment\n\n" + KEY.upper().replace("BLOCKMODES-KEY-V1", "blockmodes-key-v1")).encode())
add("keyfile", b"blockmodes-key-v1 00\n")
add("checksum_list", b"00112233445566778899aabbccddeeff  file.txt")
add("checksum_list", b"\\00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff  a\\nb\\\\c")
add("checksum_list", b"00112233445566778899aabbccddeeff *binary name\r")
for mode in range(3):
    add("sealed_reader", bytes([mode]) + bytes(32) + bytes(range(256)) * 5)
# A header as `seal --key-file` writes it (magic, version 1, ocb1, key file, 64 KiB chunks).
add("sealed_reader", b"blkmodes" + bytes([1, 1, 1, 16]) + bytes(12) + bytes(range(32)) + bytes(32))

for target, items in sorted(seeds.items()):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    for old in glob.glob(os.path.join(d, "*")):
        os.remove(old)
    for data in items:
        name = hashlib.sha1(data).hexdigest()
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
    print(f"{target}: {len(items)} seeds")
