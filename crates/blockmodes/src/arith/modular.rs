//! Integer arithmetic on blocks: mod 2^128 (XCBC, XECB) and mod 2^127 - 1
//! (CWC-HASH), written once.
//!
//! A block is read as a **big-endian** integer (`str2num` / `toint` in the
//! papers) and written back big-endian (`num2str` / `tostr`).

use crate::arith::gf128::Block;

/// `str2num(b)`: the big-endian value of a block.
#[inline(always)]
pub fn to_int(b: &Block) -> u128 {
    u128::from_be_bytes(*b)
}

/// `num2str_128(x)`: the big-endian block of a value.
#[inline(always)]
pub fn to_block(x: u128) -> Block {
    x.to_be_bytes()
}

/// `a + b mod 2^128` on big-endian blocks.
///
/// ```
/// use blockmodes::hazmat::modular::add_mod128;
/// let max = [0xff; 16];
/// let mut one = [0; 16];
/// one[15] = 1;
/// assert_eq!(add_mod128(&max, &one), [0; 16]);
/// ```
#[inline(always)]
pub fn add_mod128(a: &Block, b: &Block) -> Block {
    to_block(to_int(a).wrapping_add(to_int(b)))
}

/// `a - b mod 2^128` on big-endian blocks.
///
/// ```
/// use blockmodes::hazmat::modular::{add_mod128, sub_mod128};
/// let a = [9; 16];
/// let b = [200; 16];
/// assert_eq!(sub_mod128(&add_mod128(&a, &b), &b), a);
/// ```
#[inline(always)]
pub fn sub_mod128(a: &Block, b: &Block) -> Block {
    to_block(to_int(a).wrapping_sub(to_int(b)))
}

/// `i * r mod 2^128` for a block index `i`.
///
/// ```
/// use blockmodes::hazmat::modular::{mul_index_mod128, to_int};
/// assert_eq!(to_int(&mul_index_mod128(3, &[0xff; 16])), u128::MAX - 2);
/// ```
#[inline(always)]
pub fn mul_index_mod128(i: u64, r: &Block) -> Block {
    to_block(to_int(r).wrapping_mul(i as u128))
}

/// The Mersenne prime p = 2^127 - 1 of CWC-HASH.
pub const P127: u128 = (1u128 << 127) - 1;

/// Partial reduction mod 2^127 - 1: returns a value `< 2^127 + 1` congruent to `x`.
/// Constant time.
#[inline(always)]
pub fn reduce127_partial(x: u128) -> u128 {
    (x & P127) + (x >> 127)
}

/// Canonical reduction mod 2^127 - 1 of any `u128`, constant time.
///
/// ```
/// use blockmodes::hazmat::modular::{reduce127, P127};
/// assert_eq!(reduce127(P127), 0);
/// assert_eq!(reduce127(u128::MAX), 1);
/// ```
#[inline(always)]
pub fn reduce127(x: u128) -> u128 {
    let y = reduce127_partial(x); // y <= 2^127
    // subtract p if y >= p, without branching
    let t = y.wrapping_sub(P127);
    let ge = ((t >> 127) as u8 ^ 1) as u128; // 1 if y >= p
    let mask = ge.wrapping_neg();
    (t & mask) | (y & !mask)
}

/// Multiplication mod 2^127 - 1 of two canonical values, constant time,
/// with 64-bit limbs and 128-bit products. Result canonical.
///
/// ```
/// use blockmodes::hazmat::modular::{mul127, P127};
/// assert_eq!(mul127(P127 - 1, P127 - 1), 1); // (-1)(-1) = 1
/// assert_eq!(mul127(1u128 << 126, 2), 1);    // 2^127 = 1
/// ```
#[inline]
pub fn mul127(a: u128, b: u128) -> u128 {
    let (a0, a1) = (a as u64 as u128, a >> 64);
    let (b0, b1) = (b as u64 as u128, b >> 64);
    // a*b = a1b1 2^128 + (a1b0 + a0b1) 2^64 + a0b0, with 2^128 = 2 mod p
    let lo = a0 * b0;
    let mid = a1 * b0 + a0 * b1; // < 2^128 since a1, b1 < 2^63
    let hi = a1 * b1; // < 2^126
    // mid * 2^64 = (mid_hi * 2^128 + mid_lo * 2^64) = 2 mid_hi + mid_lo 2^64
    let mid_lo = (mid as u64 as u128) << 64;
    let mid_hi = mid >> 64;
    let s1 = reduce127_partial(lo) + reduce127_partial(mid_lo);
    let s2 = (hi << 1) + (mid_hi << 1);
    reduce127(reduce127_partial(s1) + reduce127_partial(s2))
}

/// Addition mod 2^127 - 1 of two canonical values.
#[inline(always)]
pub fn add127(a: u128, b: u128) -> u128 {
    reduce127(a + b)
}

/// Partial reduction mod 2^127 - 1 of a two-column accumulator
/// `lo + hi * 2^64` (both any `u128`): returns a value `<= 2^127` congruent
/// to it. Constant time.
///
/// This is the lazy reduction of polynomial hashes (CWC-HASH) that sum many
/// 64-bit-limb products column by column before reducing once; follow it
/// with [`reduce127`] for the canonical value.
///
/// ```
/// use blockmodes::hazmat::modular::{reduce127, reduce127_wide, P127};
/// // (2^64 - 1) + (2^64 - 1) * 2^64 = 2^128 - 1 = 1 mod p
/// assert_eq!(reduce127(reduce127_wide(u64::MAX as u128, u64::MAX as u128)), 1);
/// assert_eq!(reduce127(reduce127_wide(P127, 0)), 0);
/// ```
#[inline(always)]
pub fn reduce127_wide(lo: u128, hi: u128) -> u128 {
    // hi * 2^64 = hi_hi * 2^128 + hi_lo * 2^64, and 2^128 = 2 mod p
    let hi_lo = (hi as u64 as u128) << 64; // low 64 bits zero: partial < 2^127
    let hi_hi = hi >> 64; // < 2^64
    let a = reduce127_partial(lo) + (hi_hi << 1); // <= 2^127 + 2^65
    let b = reduce127_partial(hi_lo); // <= 2^127 - 2^64 + 1
    reduce127_partial(reduce127_partial(a) + b) // sum < 2^128
}

#[cfg(test)]
mod reduce127_wide_tests {
    use super::*;

    /// `lo + hi * 2^64 mod p` through plain 256-bit arithmetic on u64 limbs.
    fn slow(lo: u128, hi: u128) -> u128 {
        // value = v0 + v1 2^64 + v2 2^128 (v2 < 2^64 + 1 carry)
        let (lo0, lo1) = (lo as u64 as u128, lo >> 64);
        let (hi0, hi1) = (hi as u64 as u128, hi >> 64);
        let mid = lo1 + hi0; // < 2^65
        let v0 = lo0;
        let v1 = mid as u64 as u128;
        let v2 = hi1 + (mid >> 64);
        // 2^128 = 2 mod p
        reduce127(reduce127(v0 | (v1 << 64)) + reduce127(v2 * 2))
    }

    #[test]
    fn matches_slow() {
        let mut x: u128 = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210;
        let edge = [
            0,
            1,
            P127 - 1,
            P127,
            P127 + 1,
            u128::MAX,
            u128::MAX - 1,
            1 << 127,
        ];
        for &lo in &edge {
            for &hi in &edge {
                assert_eq!(reduce127(reduce127_wide(lo, hi)), slow(lo, hi));
                assert!(reduce127_wide(lo, hi) <= 1 << 127);
            }
        }
        for _ in 0..10_000 {
            // xorshift128-ish mixing
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let lo = x;
            let hi = x.rotate_left(61) ^ 0x9e37_79b9_7f4a_7c15;
            assert_eq!(reduce127(reduce127_wide(lo, hi)), slow(lo, hi));
        }
    }
}
