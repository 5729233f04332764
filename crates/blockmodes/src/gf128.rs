//! Arithmetic in GF(2^128) = GF(2)\[x\] / (x^128 + x^7 + x^2 + x + 1), in the
//! two byte conventions of `shared/spec/conventions.md`, written once.
//!
//! * **BE** (Rogaway's): the block is a big-endian 128-bit number whose most
//!   significant bit is the coefficient of x^127. Used by OCB, PMAC and XEX.
//! * **LE** (IEEE P1619's): the block is a little-endian 128-bit number; bit 0
//!   of byte 0 is x^0. Used by EME (and XTS).
//!
//! All functions are branch-free: the reduction is selected with a mask.

/// A 16-byte block.
pub type Block = [u8; 16];

/// `a * x` in the BE convention: shift left, xor 0x87 into byte 15 on carry.
///
/// ```
/// use blockmodes::gf128::double_be;
/// let mut one = [0u8; 16];
/// one[0] = 0x80; // x^127
/// let mut expect = [0u8; 16];
/// expect[15] = 0x87; // x^128 = x^7 + x^2 + x + 1
/// assert_eq!(double_be(&one), expect);
/// ```
#[inline(always)]
pub fn double_be(a: &Block) -> Block {
    let v = u128::from_be_bytes(*a);
    let carry = (v >> 127) as u8; // 0 or 1
    let r = (v << 1) ^ (0x87 & (carry.wrapping_neg())) as u128;
    r.to_be_bytes()
}

/// `a * x^-1` in the BE convention: shift right, xor x^-1 =
/// `0x80000000000000000000000000000043` when the bit shifted out was 1.
///
/// ```
/// use blockmodes::gf128::{double_be, half_be};
/// let a = [0x5au8; 16];
/// assert_eq!(half_be(&double_be(&a)), a);
/// ```
#[inline(always)]
pub fn half_be(a: &Block) -> Block {
    let v = u128::from_be_bytes(*a);
    let low = (v & 1).wrapping_neg(); // all ones if bit 0 was set
    let r = (v >> 1) ^ (low & 0x8000_0000_0000_0000_0000_0000_0000_0043);
    r.to_be_bytes()
}

/// `a * x` in the LE convention: shift the little-endian value left, xor 0x87
/// into byte 0 on carry.
///
/// ```
/// use blockmodes::gf128::double_le;
/// let mut top = [0u8; 16];
/// top[15] = 0x80; // x^127 in the LE convention
/// let mut expect = [0u8; 16];
/// expect[0] = 0x87;
/// assert_eq!(double_le(&top), expect);
/// ```
#[inline(always)]
pub fn double_le(a: &Block) -> Block {
    let v = u128::from_le_bytes(*a);
    let carry = (v >> 127) as u8;
    let r = (v << 1) ^ (0x87 & (carry.wrapping_neg())) as u128;
    r.to_le_bytes()
}

/// Xor of two blocks.
///
/// ```
/// use blockmodes::gf128::xor;
/// assert_eq!(xor(&[1; 16], &[3; 16]), [2; 16]);
/// ```
#[inline(always)]
pub fn xor(a: &Block, b: &Block) -> Block {
    (u128::from_ne_bytes(*a) ^ u128::from_ne_bytes(*b)).to_ne_bytes()
}

/// `a ^= b` on blocks.
#[inline(always)]
pub fn xor_in_place(a: &mut Block, b: &Block) {
    *a = xor(a, b);
}

/// Number of trailing zero bits of `i` (`ntz(i)` in the OCB and PMAC papers), for `i >= 1`.
///
/// ```
/// assert_eq!(blockmodes::gf128::ntz(8), 3);
/// ```
#[inline(always)]
pub fn ntz(i: u64) -> u32 {
    i.trailing_zeros()
}

/// The Gray-code offset table `L(0), L(1), ..., L(63)` with `L(i) = L * x^i`
/// (BE doubling), shared by OCB 1.0 and PMAC (and any mode whose offsets are
/// `gamma_i * L`).
///
/// `gamma_i * L = gamma_{i-1} * L xor L(ntz(i))`, so offset `i` follows from
/// offset `i - 1` with one table look-up at the public index `ntz(i)`.
/// 64 entries cover every block index a `u64` can hold, so the table never
/// needs to grow.
///
/// ```
/// use blockmodes::gf128::{GrayOffsets, double_be};
/// let l = [7u8; 16];
/// let t = GrayOffsets::new(&l);
/// assert_eq!(t.l(0), &l);
/// assert_eq!(t.l(1), &double_be(&l));
/// // gamma_1 L = L, gamma_2 L = L xor L(1), gamma_3 L = gamma_2 L xor L(0)
/// let g2 = t.next(&l, 2);
/// assert_eq!(t.next(&g2, 3), blockmodes::gf128::xor(&g2, &l));
/// ```
#[derive(Clone)]
pub struct GrayOffsets {
    table: [Block; 64],
}

impl GrayOffsets {
    /// Build `L(0..64)` from `L`.
    pub fn new(l: &Block) -> Self {
        let mut table = [[0u8; 16]; 64];
        table[0] = *l;
        for i in 1..64 {
            table[i] = double_be(&table[i - 1]);
        }
        Self { table }
    }

    /// `L(i) = L * x^i`, for `i < 64`.
    #[inline(always)]
    pub fn l(&self, i: u32) -> &Block {
        &self.table[(i & 63) as usize]
    }

    /// Offset of block `i` from the offset of block `i - 1`:
    /// `prev xor L(ntz(i))`, for `i >= 1`.
    #[inline(always)]
    pub fn next(&self, prev: &Block, i: u64) -> Block {
        xor(prev, self.l(ntz(i)))
    }

    /// `gamma_i * L` computed directly (xor of `L(j)` for each bit j of the Gray code `i ^ (i >> 1)`).
    /// Used to start a run of offsets at an arbitrary block index.
    pub fn gamma(&self, i: u64) -> Block {
        let g = i ^ (i >> 1);
        let mut acc = [0u8; 16];
        for j in 0..64 {
            // Index bits are public (block positions), not secret.
            if (g >> j) & 1 == 1 {
                xor_in_place(&mut acc, &self.table[j]);
            }
        }
        acc
    }
}

impl Drop for GrayOffsets {
    fn drop(&mut self) {
        use zeroize::Zeroize;
        self.table.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gamma_matches_recurrence() {
        let t = GrayOffsets::new(&[0x3c; 16]);
        let mut off = *t.l(0); // gamma_1 L = L
        assert_eq!(t.gamma(1), off);
        for i in 2..2000u64 {
            off = t.next(&off, i);
            assert_eq!(t.gamma(i), off, "i = {i}");
        }
    }

    #[test]
    fn double_half_inverse() {
        for b in 0..=255u8 {
            let a = [b.wrapping_mul(37); 16];
            let mut c = a;
            c[15] ^= b;
            assert_eq!(half_be(&double_be(&c)), c);
            assert_eq!(double_be(&half_be(&c)), c);
        }
    }
}
