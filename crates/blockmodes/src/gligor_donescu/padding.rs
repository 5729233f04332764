//! 10* padding, applied always (docs/spec/xcbc-xecb.md): a message of
//! `len` bytes becomes `len / 16 + 1` blocks, the last holding the message's
//! tail, 0x80, then zeros.

use subtle::Choice;

use crate::arith::gf128::Block;
use crate::error::{Error, Result};

/// n, the number of padded blocks of a `len`-byte message (always >= 1).
#[inline]
pub(crate) fn padded_blocks(len: usize) -> usize {
    len / 16 + 1
}

/// The last padded block x_n of `msg`: its `len % 16` final bytes, 0x80, zeros.
#[inline]
pub(crate) fn last_block(msg: &[u8]) -> Block {
    let full = msg.len() - msg.len() % 16;
    let tail = &msg[full..];
    let mut b = [0u8; 16];
    b[..tail.len()].copy_from_slice(tail);
    b[tail.len()] = 0x80;
    b
}

/// Where the padding of the last padded block starts: the number of message
/// bytes it holds (0..=15), and whether it is a valid 10* padding (the last
/// non-zero byte is 0x80). Constant time in the block's contents: word
/// arithmetic on the block as a big-endian integer, no branch and no
/// per-byte work.
pub(crate) fn unpad(last: &Block) -> (usize, Choice) {
    let v = u128::from_be_bytes(*last);
    // The lowest set bit of v (0 if v = 0) ...
    let low = v & v.wrapping_neg();
    // ... must be the top bit of a byte: a 0x80 byte followed by zeros.
    let marker = low & 0x8080_8080_8080_8080_8080_8080_8080_8080;
    let valid = ((marker | marker.wrapping_neg()) >> 127) as u8;
    // Trailing zero bits of v = popcount(low - 1); 15 - (zero bytes) is
    // the marker's position (0 when v = 0).
    let zero_bits = low.wrapping_sub(1).count_ones() as usize;
    let nonzero = ((v | v.wrapping_neg()) >> 127) as usize;
    let pos = 15usize.wrapping_sub(zero_bits >> 3) & nonzero.wrapping_neg();
    (pos, Choice::from(valid))
}

/// `InputTooLong` for a length whose encoded form overflows `usize`.
pub(crate) fn too_long(len: usize) -> Error {
    Error::InputTooLong {
        max: (usize::MAX / 2) as u64,
        got: len as u64,
    }
}

/// `len` padded and grown by `extra_blocks` blocks, in bytes; `InputTooLong`
/// if that overflows `usize` (or exceeds `usize::MAX / 2`).
pub(crate) fn encoded_len(len: usize, extra_blocks: usize) -> Result<usize> {
    padded_blocks(len)
        .checked_add(extra_blocks)
        .and_then(|b| b.checked_mul(16))
        .filter(|&b| b <= usize::MAX / 2)
        .ok_or_else(|| too_long(len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pads_always() {
        assert_eq!(padded_blocks(0), 1);
        assert_eq!(padded_blocks(15), 1);
        assert_eq!(padded_blocks(16), 2);
        let mut want = [0u8; 16];
        want[0] = 0x80;
        assert_eq!(last_block(&[1u8; 16]), want);
        want[0] = 7;
        want[1] = 0x80;
        assert_eq!(last_block(&[7u8; 17]), want);
    }

    #[test]
    fn unpad_finds_the_marker() {
        for n in 0..16 {
            let msg = vec![0xffu8; n];
            let (pos, ok) = unpad(&last_block(&msg));
            assert_eq!((pos, bool::from(ok)), (n, true));
        }
        assert!(!bool::from(unpad(&[0u8; 16]).1));
        let mut b = [0u8; 16];
        b[3] = 0x81;
        assert!(!bool::from(unpad(&b).1));
        b[3] = 0x80;
        b[9] = 0x80;
        assert_eq!(unpad(&b).0, 9);
    }

    /// The word-arithmetic `unpad` against a byte-by-byte reading of the
    /// 10* rule, on every single- and two-byte pattern that matters.
    #[test]
    fn unpad_matches_the_byte_rule() {
        fn by_bytes(b: &Block) -> (usize, bool) {
            match b.iter().rposition(|&x| x != 0) {
                Some(p) => (p, b[p] == 0x80),
                None => (0, false),
            }
        }
        let mut cases = vec![[0u8; 16]];
        for p in 0..16 {
            for v in [1u8, 0x40, 0x7f, 0x80, 0x81, 0xc0, 0xff] {
                let mut b = [0u8; 16];
                b[p] = v;
                cases.push(b);
                for q in 0..p {
                    let mut c = b;
                    c[q] = 0x80;
                    cases.push(c);
                    c[q] = 0x01;
                    cases.push(c);
                }
            }
        }
        for b in cases {
            let (pos, ok) = unpad(&b);
            let (want_pos, want_ok) = by_bytes(&b);
            assert_eq!(bool::from(ok), want_ok, "{b:?}");
            if want_ok {
                assert_eq!(pos, want_pos, "{b:?}");
            }
            assert!(pos < 16);
        }
    }

    #[test]
    fn encoded_lengths() {
        assert_eq!(encoded_len(0, 2).unwrap(), 48);
        assert_eq!(encoded_len(16, 1).unwrap(), 48);
        assert!(encoded_len(usize::MAX, 1).is_err());
    }
}
