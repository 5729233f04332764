//! Arithmetic in GF(2^128) = GF(2)[x] / (x^128 + x^7 + x^2 + x + 1), in the
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

/// `a * b` in GF(2^128), BE convention (Rogaway's: the most significant bit
/// of byte 0 is the coefficient of x^127).
///
/// Bit by bit, built on [`double_be`]; constant time in both operands (each
/// bit of `b` selects `a` with a mask). Slow (128 doublings): meant for
/// per-key or per-tweak set-up, never for per-block work.
///
/// ```
/// use blockmodes::gf128::{double_be, mul_be};
/// let a = [0xa5u8; 16];
/// let mut x = [0u8; 16];
/// x[15] = 2; // the polynomial x
/// assert_eq!(mul_be(&a, &x), double_be(&a));
/// ```
pub fn mul_be(a: &Block, b: &Block) -> Block {
    let bv = u128::from_be_bytes(*b);
    let av = u128::from_be_bytes(*a);
    let mut acc = [0u8; 16];
    for j in (0..128).rev() {
        acc = double_be(&acc);
        let mask = ((bv >> j) & 1).wrapping_neg();
        acc = (u128::from_be_bytes(acc) ^ (av & mask)).to_be_bytes();
    }
    acc
}

/// `a * x^k` in GF(2^128), BE convention: `a` doubled `k` times (XEX's
/// `2^i * E_K(N)`).
///
/// `k` is public: up to 128 the function doubles `k` times with
/// [`double_be`]; beyond, it computes `x^k` by square-and-multiply with
/// [`mul_be`] (constant time in `a`; the branches depend on `k` only).
///
/// ```
/// use blockmodes::gf128::{double_be, mul_x_pow_be};
/// let a = [0x3cu8; 16];
/// assert_eq!(mul_x_pow_be(&a, 0), a);
/// assert_eq!(mul_x_pow_be(&a, 2), double_be(&double_be(&a)));
/// ```
pub fn mul_x_pow_be(a: &Block, k: u64) -> Block {
    if k <= 128 {
        let mut r = *a;
        for _ in 0..k {
            r = double_be(&r);
        }
        return r;
    }
    let mut one = [0u8; 16];
    one[15] = 1;
    let mut base = one;
    base[15] = 2; // x
    let mut pow = one; // x^k, built bit by bit of k
    let mut e = k;
    while e > 0 {
        if e & 1 == 1 {
            pow = mul_be(&pow, &base);
        }
        base = mul_be(&base, &base);
        e >>= 1;
    }
    mul_be(a, &pow)
}

/// `out[j] = a * x^j` for `j = 0..out.len()`, BE convention: the run of
/// offsets `Δ, 2Δ, 4Δ, ...` of consecutive XEX blocks.
///
/// The first eight powers come from [`double_be`]; after that eight
/// interleaved chains each step by `x^8`, so the work vectorises instead of
/// waiting on one doubling after another. Constant time in `a`.
///
/// ```
/// use blockmodes::gf128::{double_be, powers_x_be};
/// let a = [0x81u8; 16];
/// let mut out = [[0u8; 16]; 20];
/// powers_x_be(&a, &mut out);
/// assert_eq!(out[0], a);
/// assert_eq!(out[19], (0..19).fold(a, |d, _| double_be(&d)));
/// ```
#[inline(always)]
pub fn powers_x_be(a: &Block, out: &mut [Block]) {
    powers_x(
        a,
        out,
        double_be,
        |b| {
            let v = u128::from_be_bytes(*b);
            ((v >> 64) as u64, v as u64)
        },
        |hi, lo| (((hi as u128) << 64) | lo as u128).to_be_bytes(),
    )
}

/// `out[j] = a * x^j` for `j = 0..out.len()`, LE convention: EME's
/// `L_i = 2^(i-1) L` and `2^(i-1) M`. As [`powers_x_be`], with [`double_le`].
///
/// ```
/// use blockmodes::gf128::{double_le, powers_x_le};
/// let a = [0x81u8; 16];
/// let mut out = [[0u8; 16]; 20];
/// powers_x_le(&a, &mut out);
/// assert_eq!(out[19], (0..19).fold(a, |d, _| double_le(&d)));
/// ```
#[inline(always)]
pub fn powers_x_le(a: &Block, out: &mut [Block]) {
    powers_x(
        a,
        out,
        double_le,
        |b| {
            let v = u128::from_le_bytes(*b);
            ((v >> 64) as u64, v as u64)
        },
        |hi, lo| (((hi as u128) << 64) | lo as u128).to_le_bytes(),
    )
}

/// The two conventions differ only in byte order: as a 128-bit integer
/// (high half `hi`, low half `lo`), multiplying by x^8 is the same shift and
/// reduction by `x^128 = x^7 + x^2 + x + 1` in both.
#[inline(always)]
fn powers_x(
    a: &Block,
    out: &mut [Block],
    double: impl Fn(&Block) -> Block,
    split: impl Fn(&Block) -> (u64, u64),
    join: impl Fn(u64, u64) -> Block,
) {
    const W: usize = 8;
    let mut hi = [0u64; W];
    let mut lo = [0u64; W];
    let mut d = *a;
    for l in 0..W.min(out.len()) {
        (hi[l], lo[l]) = split(&d);
        d = double(&d);
    }
    let mut chunks = out.chunks_exact_mut(W);
    for c in &mut chunks {
        for l in 0..W {
            c[l] = join(hi[l], lo[l]);
        }
        // times x^8: the top byte t of each lane wraps round as t * (x^7 + x^2 + x + 1)
        for l in 0..W {
            let t = hi[l] >> 56;
            hi[l] = (hi[l] << 8) | (lo[l] >> 56);
            lo[l] = (lo[l] << 8) ^ t ^ (t << 1) ^ (t << 2) ^ (t << 7);
        }
    }
    for (l, b) in chunks.into_remainder().iter_mut().enumerate() {
        *b = join(hi[l], lo[l]);
    }
}

#[cfg(test)]
mod mul_tests {
    use super::*;

    #[test]
    fn mul_be_field_laws() {
        let mut one = [0u8; 16];
        one[15] = 1;
        let a = [0x5au8; 16];
        let mut b = [0u8; 16];
        for (i, x) in b.iter_mut().enumerate() {
            *x = (i as u8).wrapping_mul(29).wrapping_add(3);
        }
        let c = [0xc3u8; 16];
        assert_eq!(mul_be(&a, &one), a);
        assert_eq!(mul_be(&a, &b), mul_be(&b, &a));
        assert_eq!(
            mul_be(&a, &xor(&b, &c)),
            xor(&mul_be(&a, &b), &mul_be(&a, &c))
        );
        assert_eq!(mul_be(&mul_be(&a, &b), &c), mul_be(&a, &mul_be(&b, &c)));
    }

    #[test]
    fn mul_x_pow_be_matches_doubling() {
        let a = [0x9eu8; 16];
        let mut d = a;
        for k in 0..600u64 {
            assert_eq!(mul_x_pow_be(&a, k), d, "k = {k}");
            d = double_be(&d);
        }
    }

    #[test]
    fn powers_match_doubling() {
        let a = [0xf3u8; 16];
        for len in [0usize, 1, 3, 7, 8, 9, 15, 16, 17, 64, 128, 200] {
            let mut be = vec![[0u8; 16]; len];
            let mut le = vec![[0u8; 16]; len];
            powers_x_be(&a, &mut be);
            powers_x_le(&a, &mut le);
            let (mut db, mut dl) = (a, a);
            for j in 0..len {
                assert_eq!(be[j], db, "be len {len} j {j}");
                assert_eq!(le[j], dl, "le len {len} j {j}");
                db = double_be(&db);
                dl = double_le(&dl);
            }
        }
    }
}
