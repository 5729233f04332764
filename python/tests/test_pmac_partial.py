"""PMAC.partial over random splits, combined in any order, pickled and
unpickled, equals PMAC.mac; partial/finish never touch the update state; the
file reader of blockmodes.dask (plain Python) places its reads."""

from __future__ import annotations

import copy
import os
import pickle
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

import blockmodes
from blockmodes import PMAC, PMACPartial, hazmat


def split(msg: bytes):
    """body ‖ last: last is the final 1..16 bytes (empty only for b"")."""
    body = 0 if not msg else (len(msg) - 1) // 16 * 16
    return msg[:body], msg[body:]


@given(
    st.sampled_from([16, 24, 32]),
    st.integers(0, 5000),
    st.integers(1, 16),
    st.randoms(use_true_random=False),
)
def test_random_splits_any_order_pickled(klen, n, t, rnd):
    key = rnd.randbytes(klen)
    msg = rnd.randbytes(n)
    body, last = split(msg)
    blocks = len(body) // 16
    cuts = sorted(rnd.sample(range(1, blocks), min(blocks - 1, rnd.randrange(6)))) if blocks > 1 else []
    bounds = [0] + cuts + [blocks]
    p = (PMAC if t >= 8 else hazmat.PMAC)(key, t)  # 1..=7-byte tags: hazmat only
    parts = [
        p.partial(1 + a, body[16 * a : 16 * b]) for a, b in zip(bounds, bounds[1:]) if b > a
    ]
    parts = [pickle.loads(pickle.dumps(x, protocol=rnd.choice([2, 4, 5]))) for x in parts]
    rnd.shuffle(parts)
    # combine as a random tree, not only left to right
    while len(parts) > 1:
        i, j = sorted(rnd.sample(range(len(parts)), 2))
        b, a = parts.pop(j), parts.pop(i)
        parts.append(a.combine(b) if rnd.random() < 0.5 else b ^ a)
    total = parts[0] if parts else PMACPartial()
    assert p.finish(total, last) == hazmat.PMAC(key, t).mac(msg)
    # the update state was not touched by partial/finish
    p.update(msg)
    assert p.finalize() == hazmat.PMAC(key, t).mac(msg)


def test_empty_message_and_empty_partial():
    key = bytes(16)
    p = PMAC(key)
    assert p.finish(PMACPartial(), b"") == PMAC(key).mac(b"")
    # an empty run of blocks is the neutral element
    assert p.finish(p.partial(5, b"").combine(PMACPartial()), b"") == PMAC(key).mac(b"")


def test_partial_after_finalize_and_copy():
    key = bytes(range(16))
    msg = bytes(range(200))
    body, last = split(msg)
    p = PMAC(key)
    p.finalize()
    assert p.finish(p.partial(1, body), last) == PMAC(key).mac(msg)
    q = copy.copy(PMACPartial())  # partials are immutable values
    assert pickle.loads(pickle.dumps(q)) is not q


def test_partial_rejects_bad_input():
    p = PMAC(bytes(16))
    with pytest.raises(ValueError, match="16"):
        p.partial(1, bytes(17))  # not whole blocks
    with pytest.raises(ValueError):
        p.partial(0, bytes(16))  # blocks are numbered from 1
    with pytest.raises(ValueError):
        p.partial(-1, bytes(16))
    with pytest.raises(TypeError):
        p.partial(1.0, bytes(16))
    with pytest.raises(TypeError):
        p.partial(1, "text")
    with pytest.raises(ValueError):
        p.finish(PMACPartial(), bytes(17))  # last is at most 16 bytes
    with pytest.raises(TypeError):
        p.finish(b"\x00" * 16, b"")
    with pytest.raises(TypeError):
        PMACPartial().combine(b"\x00" * 16)
    with pytest.raises(ValueError):
        PMACPartial(bytes(15))



def test_finish_refuses_an_empty_last_after_blocks():
    """``last`` is the final 1 to 16 bytes of a non-empty message: a message
    of whole blocks split as ``body = all of it, last = b""`` is refused
    (it gave a wrong tag, silently), and its right split gives the vector."""
    key = bytes(range(16))
    msg = bytes(range(32))
    tag = bytes.fromhex("e97ac04e9e5e3399ce5355cd7407bc75")  # vectors/pmac-aes.json, PMAC-AES-128-32B
    p = PMAC(key)
    with pytest.raises(ValueError, match="last"):
        p.finish(p.partial(1, msg), b"")
    with pytest.raises(ValueError, match="last"):
        p.finish(p.partial(2, msg[16:]), bytearray())
    assert p.finish(p.partial(1, msg[:16]), msg[16:]) == tag
    # the empty message: no blocks, empty last (PMAC-AES-128-0B)
    assert p.finish(PMACPartial(), b"") == bytes.fromhex("4399572cd6ea5341b8d35876a7098af7")

def test_partial_repr_hides_value():
    assert "secret" in repr(PMAC(bytes(16)).partial(1, bytes(16)))


@pytest.mark.parametrize("start", [0, 16, 48, 4080, 8 * 2**20 + 32])
def test_reads_land_at_addresses_congruent_to_the_file_offset(tmp_path, monkeypatch, start):
    """Each readinto of a task's range gets a destination whose address is
    congruent to the file offset it reads modulo 64 (the kernel's
    page-cache copy runs at a quarter speed on AMD Zen 3 when it is 1 to 31
    bytes forward; a bytearray sits 16 bytes into a page), short reads
    included; and the partial sum is the one of the bytes."""
    import builtins
    import ctypes

    import blockmodes.dask as bd  # needs no Dask: _partial_range is plain Python

    data = os.urandom(start + 2 * bd._READ_BYTES + 999)
    p = tmp_path / "data.bin"
    p.write_bytes(data)
    seen = []

    class Short:
        """A real file whose readinto returns at most 100,003 bytes."""

        def __init__(self, f):
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

        def seek(self, pos):
            return self.f.seek(pos)

        def readinto(self, view):
            view = view[:100_003]
            address = ctypes.addressof(ctypes.c_char.from_buffer(view))
            seen.append((address - self.f.tell()) % 64)
            return self.f.readinto(view)

    monkeypatch.setattr(bd, "open", lambda *a, **k: Short(builtins.open(*a, **k)), raising=False)
    body = bd._split(len(data))
    got = bd._partial_range(bytes(range(16)), str(p), start, body - start, 16)
    pmac = blockmodes.PMAC(bytes(range(16)))
    head = pmac.partial(1, data[:start])
    assert pmac.finish(head.combine(got), data[body:]) == pmac.mac(data)
    assert seen and set(seen) == {0}, seen[:8]
