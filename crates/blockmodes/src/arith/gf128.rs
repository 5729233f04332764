//! Arithmetic in GF(2^128) = GF(2)\[x\] / (x^128 + x^7 + x^2 + x + 1), in the
//! two byte conventions of `docs/spec/conventions.md`, written once.
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
/// use blockmodes::hazmat::gf128::double_be;
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
/// use blockmodes::hazmat::gf128::{double_be, half_be};
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
/// use blockmodes::hazmat::gf128::double_le;
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
/// use blockmodes::hazmat::gf128::xor;
/// assert_eq!(xor(&[1; 16], &[3; 16]), [2; 16]);
/// ```
#[inline(always)]
pub fn xor(a: &Block, b: &Block) -> Block {
    // Byte by byte: the compiler turns this into one 16-byte vector xor,
    // whereas a `u128` xor runs as two 64-bit halves, whose two 8-byte
    // stores a following 16-byte vector load (the AES kernels') cannot
    // forward from: a stall of a dozen cycles per block handed over.
    let mut r = *a;
    for (r, b) in r.iter_mut().zip(b) {
        *r ^= b;
    }
    r
}

/// `a ^= b` on blocks.
#[inline(always)]
pub fn xor_in_place(a: &mut Block, b: &Block) {
    *a = xor(a, b);
}

/// Number of trailing zero bits of `i` (`ntz(i)` in the OCB and PMAC papers), for `i >= 1`.
///
/// ```
/// assert_eq!(blockmodes::hazmat::gf128::ntz(8), 3);
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
/// use blockmodes::hazmat::gf128::{GrayOffsets, double_be};
/// let l = [7u8; 16];
/// let t = GrayOffsets::new(&l);
/// assert_eq!(t.l(0), &l);
/// assert_eq!(t.l(1), &double_be(&l));
/// // gamma_1 L = L, gamma_2 L = L xor L(1), gamma_3 L = gamma_2 L xor L(0)
/// let g2 = t.next(&l, 2);
/// assert_eq!(t.next(&g2, 3), blockmodes::hazmat::gf128::xor(&g2, &l));
/// ```
#[derive(Clone)]
pub struct GrayOffsets {
    table: [Block; 64],
}

impl core::fmt::Debug for GrayOffsets {
    /// Prints no key material.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("GrayOffsets").finish_non_exhaustive()
    }
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

/// The Gray-code offsets of a whole batch of blocks at once, without the
/// serial chain `Z[i] = Z[i-1] xor L(ntz(i))`.
///
/// Offsets of the form `Z[i] = gamma_i * L xor R` (OCB 1.0: `R = E_K(N xor L)`;
/// PMAC: `R = 0`) split along 64-block groups. For `i = 64q + j` with
/// `0 <= j < 64` the Gray code satisfies `gamma_i = gamma_{64q} xor gamma_j`
/// (the shifted copy of `64q` does not reach the low six bits), so
///
/// `Z[64q + j] = W_q xor (gamma_j * L)`, with `W_q = Z[64q]` (and `W_0 = R`).
///
/// A run of blocks inside one group is therefore one base `W_q` xored with a
/// contiguous slice of the fixed per-key table `gamma_0 L, ..., gamma_63 L`: a
/// loop without a dependency chain, which the compiler vectorizes. Moving to
/// the next group costs one xor: `W_{q+1} = W_q xor gamma_63 L xor L(ntz(64(q+1)))`,
/// with the step `gamma_63 L xor L(6 + k)` precomputed for every `k` (four
/// copies side by side, so a 512-bit register takes it in one load).
///
/// The table owns the [`GrayOffsets`] `L(0..64)` it was built from; all of it
/// is zeroized on drop. Walk it with a [`GrayCursor`].
///
/// ```
/// use blockmodes::hazmat::gf128::{GrayBatch, GrayCursor, GrayOffsets, xor};
/// let l = [0x11u8; 16];
/// let r = [0x22u8; 16];
/// let batch = GrayBatch::new(GrayOffsets::new(&l));
/// let mut cursor = GrayCursor::new(&r);
/// // Z[1..=200] through the batched walk ...
/// let mut batched = Vec::new();
/// cursor.runs(&batch, 1, 200, |_, base, low| {
///     batched.extend(low.iter().map(|g| xor(base, g)));
/// });
/// // ... equals the paper's chain Z[1] = L xor R, Z[i] = Z[i-1] xor L(ntz(i)).
/// let mut z = xor(&l, &r);
/// assert_eq!(batched[0], z);
/// for i in 2..=200u64 {
///     z = batch.offsets().next(&z, i);
///     assert_eq!(batched[i as usize - 1], z);
/// }
/// ```
#[derive(Clone)]
pub struct GrayBatch {
    l: GrayOffsets,
    /// `gamma_j * L` for `j` in `0..64` (`gamma_0 L = 0`).
    low: [Block; 64],
    /// `[gamma_63 L xor L(6 + k); 4]`: `W_{q+1} xor W_q` when `ntz(q+1) = k`.
    steps: [[Block; 4]; 58],
}

impl core::fmt::Debug for GrayBatch {
    /// Prints no key material.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("GrayBatch").finish_non_exhaustive()
    }
}

impl GrayBatch {
    /// Build the tables `gamma_0 L .. gamma_63 L` and the group steps from `L(0..64)`.
    pub fn new(l: GrayOffsets) -> Self {
        let mut low = [[0u8; 16]; 64];
        for j in 1..64 {
            low[j] = l.next(&low[j - 1], j as u64);
        }
        let mut steps = [[[0u8; 16]; 4]; 58];
        for (k, step) in steps.iter_mut().enumerate() {
            *step = [xor(&low[63], l.l(6 + k as u32)); 4];
        }
        Self { l, low, steps }
    }

    /// The table `L(i) = L * x^i` this batch table was built from.
    #[inline(always)]
    pub fn offsets(&self) -> &GrayOffsets {
        &self.l
    }

    /// `gamma_j * L` for `j` in `0..64`.
    #[inline(always)]
    pub fn low(&self) -> &[Block; 64] {
        &self.low
    }
}

impl Drop for GrayBatch {
    fn drop(&mut self) {
        use zeroize::Zeroize;
        self.low.zeroize();
        self.steps.zeroize();
    }
}

/// A position in the offset sequence `Z[i] = gamma_i * L xor R` of a
/// [`GrayBatch`]: the group `q` and its base `W_q = Z[64q]`, kept as four
/// copies side by side (one 512-bit value, for vectorized whitening).
///
/// Moving forward by one group is one xor; any other move recomputes the
/// base from `R` with [`GrayOffsets::gamma`]. The cursor holds secret offsets
/// and is zeroized on drop.
///
/// ```
/// use blockmodes::hazmat::gf128::{GrayBatch, GrayCursor, GrayOffsets, xor};
/// let batch = GrayBatch::new(GrayOffsets::new(&[5; 16]));
/// let r = [9u8; 16];
/// let mut cursor = GrayCursor::new(&r);
/// // Z[i] = gamma_i L xor R, here for i = 1000.
/// let direct = xor(&batch.offsets().gamma(1000), &r);
/// assert_eq!(cursor.offset(&batch, 1000), direct);
/// ```
#[derive(Clone)]
pub struct GrayCursor {
    r: Block,
    group: u64,
    base4: [Block; 4],
}

impl core::fmt::Debug for GrayCursor {
    /// Prints no key material.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("GrayCursor").finish_non_exhaustive()
    }
}

impl GrayCursor {
    /// The cursor at group 0 of `Z[i] = gamma_i * L xor R` (base `W_0 = R`).
    pub fn new(r: &Block) -> Self {
        Self {
            r: *r,
            group: 0,
            base4: [*r; 4],
        }
    }

    /// Move to group `q`: one xor for the next group, a direct computation
    /// for any other jump.
    #[inline(always)]
    fn seek(&mut self, batch: &GrayBatch, q: u64) {
        if q == self.group {
            return;
        }
        if Some(q) == self.group.checked_add(1) {
            // W_q = W_{q-1} xor gamma_63 L xor L(6 + ntz(q)). A byte loop over
            // the 64-byte copies: one vector xor and one store, which the
            // 64-byte loads of `run` can forward.
            let step = &batch.steps[(ntz(q) as usize).min(57)];
            let mut base4 = self.base4;
            for (b, s) in base4.as_flattened_mut().iter_mut().zip(step.as_flattened()) {
                *b ^= s;
            }
            self.base4 = base4;
        } else {
            self.base4 = [xor(&self.r, &batch.l.gamma(q << 6)); 4];
        }
        self.group = q;
    }

    /// The longest run of offsets starting at block `i` that lies in one
    /// 64-block group, at most `max_len` long: `(base4, low)` stands for
    /// `Z[i + k] = base4[0] xor low[k]` for `k` in `0..low.len()` (`base4`
    /// holds four copies of the base). Empty only when `max_len` is 0.
    ///
    /// Walk a batch of `len` blocks from `first` as
    /// `while t < len { let (base4, low) = cursor.run(batch, first + t, len - t); ...; t += low.len() }`.
    #[inline(always)]
    pub fn run<'a>(
        &'a mut self,
        batch: &'a GrayBatch,
        i: u64,
        max_len: usize,
    ) -> (&'a [Block; 4], &'a [Block]) {
        self.seek(batch, i >> 6);
        let j = (i & 63) as usize;
        let n = (64 - j).min(max_len);
        (&self.base4, &batch.low[j..j + n])
    }

    /// Visit the offsets of the `len` blocks `first, first + 1, ...` in runs
    /// (see [`run`](Self::run)): `f(t, base, low)` stands for
    /// `Z[first + t + k] = base xor low[k]` for `k` in `0..low.len()`.
    ///
    /// The cursor ends at the group of the last block visited.
    #[inline(always)]
    pub fn runs(
        &mut self,
        batch: &GrayBatch,
        first: u64,
        len: usize,
        mut f: impl FnMut(usize, &Block, &[Block]),
    ) {
        let mut t = 0usize;
        while t < len {
            let (base4, low) = self.run(batch, first.wrapping_add(t as u64), len - t);
            f(t, &base4[0], low);
            t += low.len();
        }
    }

    /// The single offset `Z[i]`.
    #[inline]
    pub fn offset(&mut self, batch: &GrayBatch, i: u64) -> Block {
        self.seek(batch, i >> 6);
        xor(&self.base4[0], &batch.low[(i & 63) as usize])
    }
}

impl Drop for GrayCursor {
    fn drop(&mut self) {
        // Plain stores kept by a black box: cheaper than `zeroize`'s
        // byte-by-byte volatile writes, which show in the cost of short
        // messages (a cursor lives for one message).
        self.r = [0; 16];
        self.base4 = [[0; 16]; 4];
        core::hint::black_box(&*self);
    }
}

#[cfg(test)]
mod gray_batch_tests {
    use super::*;

    /// The batched walk equals the paper's chain for every run split and
    /// every start, including jumps backwards and far forwards.
    #[test]
    fn runs_match_chain() {
        let batch = GrayBatch::new(GrayOffsets::new(&[0xa7; 16]));
        let r = [0x3c; 16];
        let mut chain = vec![r]; // chain[i] = Z[i], Z[0] = R
        for i in 1..5000u64 {
            chain.push(batch.offsets().next(&chain[i as usize - 1], i));
        }
        for width in [1usize, 3, 8, 30, 64, 100] {
            let mut cursor = GrayCursor::new(&r);
            let mut first = 1u64;
            while first + width as u64 <= 5000 {
                cursor.runs(&batch, first, width, |t, base, low| {
                    for (k, g) in low.iter().enumerate() {
                        let i = first as usize + t + k;
                        assert_eq!(xor(base, g), chain[i], "width {width}, i {i}");
                    }
                });
                first += width as u64;
            }
        }
        let mut cursor = GrayCursor::new(&r);
        for i in [4999u64, 5, 640, 1, 64, 63, 128, 0, 4096, 4160] {
            assert_eq!(cursor.offset(&batch, i), chain[i as usize], "i {i}");
        }
        // Far indices: the step table covers every ntz of a group number.
        let far = (1u64 << 57) * 64;
        let mut cursor = GrayCursor::new(&r);
        let z_far = cursor.offset(&batch, far - 1);
        let direct = xor(&r, &batch.offsets().gamma(far));
        assert_eq!(cursor.offset(&batch, far), direct);
        assert_eq!(batch.offsets().next(&z_far, far), direct);
    }
}

/// `a * b` in GF(2^128), BE convention (Rogaway's: the most significant bit
/// of byte 0 is the coefficient of x^127).
///
/// Bit by bit, built on [`double_be`]. Constant time in both operands:
/// each bit of `b` selects `a` or zero through `subtle`'s
/// `ConditionallySelectable` (an optimization barrier keeps the compiler
/// from turning the selection into a branch, as it did with a plain mask;
/// `.ci/ct` runs it with both operands secret). Slow (128 doublings): meant
/// for per-key or per-tweak set-up, never for per-block work.
///
/// ```
/// use blockmodes::hazmat::gf128::{double_be, mul_be};
/// let a = [0xa5u8; 16];
/// let mut x = [0u8; 16];
/// x[15] = 2; // the polynomial x
/// assert_eq!(mul_be(&a, &x), double_be(&a));
/// ```
pub fn mul_be(a: &Block, b: &Block) -> Block {
    use subtle::{Choice, ConditionallySelectable};
    let bv = u128::from_be_bytes(*b);
    let av = u128::from_be_bytes(*a);
    let mut acc = [0u8; 16];
    for j in (0..128).rev() {
        acc = double_be(&acc);
        let bit = Choice::from(((bv >> j) & 1) as u8);
        let term = u128::conditional_select(&0, &av, bit);
        acc = (u128::from_be_bytes(acc) ^ term).to_be_bytes();
    }
    acc
}

/// `a * x^k` in GF(2^128), BE convention: `a` doubled `k` times (XEX's
/// `2^i * E_K(N)`).
///
/// `k` is public: up to 128 the function doubles `k` times with
/// [`double_be`]; beyond, it computes `x^k` by square-and-multiply with
/// [`mul_be`] (constant time; the branches depend on `k` only).
///
/// ```
/// use blockmodes::hazmat::gf128::{double_be, mul_x_pow_be};
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
/// offsets `Δ, 2Δ, 4Δ, ...` of consecutive XEX blocks (equal to doubling
/// with [`double_be`] again and again).
///
/// Written for the vectoriser, without a chain of dependent doublings: the
/// first eight powers `a * x^l` (l < 8) are computed side by side (shift by
/// l, reduce the l bits shifted out), then the eight lanes each step by
/// `x^8`, in the blocks' own byte layout (times x^8 is a one-byte shift in
/// BE), so the output needs no byte swap. Constant time in `a`.
///
/// ```
/// use blockmodes::hazmat::gf128::{double_be, powers_x_be};
/// let a = [0x81u8; 16];
/// let mut out = [[0u8; 16]; 20];
/// powers_x_be(&a, &mut out);
/// assert_eq!(out[0], a);
/// assert_eq!(out[19], (0..19).fold(a, |d, _| double_be(&d)));
/// ```
#[inline(always)]
pub fn powers_x_be(a: &Block, out: &mut [Block]) {
    const W: usize = 8;
    let v = u128::from_be_bytes(*a);
    let (mut w0, mut w1) = first_powers::<W>((v >> 64) as u64, v as u64);
    // To the block's byte layout, read as two little-endian words.
    for l in 0..W {
        (w0[l], w1[l]) = (w0[l].swap_bytes(), w1[l].swap_bytes());
    }
    let mut chunks = out.chunks_exact_mut(W);
    for c in &mut chunks {
        for l in 0..W {
            write_words(&mut c[l], w0[l], w1[l]);
        }
        // Times x^8 in BE: the block shifted one byte towards byte 0; the
        // byte t = b[0] that falls off comes back as t * (x^7 + x^2 + x + 1)
        // in the last two bytes: its low byte into b[15], its high byte
        // into b[14].
        for l in 0..W {
            let r = reduce_byte(w0[l] & 0xff);
            (w0[l], w1[l]) = (
                (w0[l] >> 8) | (w1[l] << 56),
                (w1[l] >> 8) ^ (r << 56) ^ ((r >> 8) << 48),
            );
        }
    }
    for (l, b) in chunks.into_remainder().iter_mut().enumerate() {
        write_words(b, w0[l], w1[l]);
    }
}

/// `out[j] = a * x^j` for `j = 0..out.len()`, LE convention: EME's
/// `L_i = 2^(i-1) L` and `2^(i-1) M` (equal to repeated [`double_le`]).
/// Returns the xor of all blocks written (EME's CCC_1 needs that sum; it is
/// accumulated in the lanes, almost for free).
///
/// As [`powers_x_be`], with four lanes stepping by `x^4` (in LE the block's
/// two little-endian words are the value's halves, so no byte swap).
///
/// ```
/// use blockmodes::hazmat::gf128::{double_le, powers_x_le, xor};
/// let a = [0x81u8; 16];
/// let mut out = [[0u8; 16]; 20];
/// let sum = powers_x_le(&a, &mut out);
/// assert_eq!(out[19], (0..19).fold(a, |d, _| double_le(&d)));
/// assert_eq!(sum, out.iter().fold([0; 16], |s, b| xor(&s, b)));
/// ```
#[inline(always)]
pub fn powers_x_le(a: &Block, out: &mut [Block]) -> Block {
    const W: usize = 4;
    let v = u128::from_le_bytes(*a);
    let (mut hi, mut lo) = first_powers::<W>((v >> 64) as u64, v as u64);
    let (mut s_lo, mut s_hi) = ([0u64; W], [0u64; W]);
    let mut chunks = out.chunks_exact_mut(W);
    for c in &mut chunks {
        for l in 0..W {
            write_words(&mut c[l], lo[l], hi[l]);
            s_lo[l] ^= lo[l];
            s_hi[l] ^= hi[l];
        }
        for l in 0..W {
            let t = hi[l] >> 60;
            hi[l] = (hi[l] << 4) | (lo[l] >> 60);
            lo[l] = (lo[l] << 4) ^ reduce_byte(t);
        }
    }
    for (l, b) in chunks.into_remainder().iter_mut().enumerate() {
        write_words(b, lo[l], hi[l]);
        s_lo[l] ^= lo[l];
        s_hi[l] ^= hi[l];
    }
    let mut sum = [0u8; 16];
    let fold = |s: [u64; W]| s.iter().fold(0, |a, b| a ^ b);
    write_words(&mut sum, fold(s_lo), fold(s_hi));
    sum
}

/// `t * (x^7 + x^2 + x + 1)` for a polynomial t of degree < 8 (what
/// `x^128` reduces to), carry-less.
#[inline(always)]
fn reduce_byte(t: u64) -> u64 {
    t ^ (t << 1) ^ (t << 2) ^ (t << 7)
}

/// `a * x^l` for l = 0..W (W <= 8) as (high, low) 64-bit halves of the
/// 128-bit value `hi:lo` (the same in both conventions): shift by l and
/// reduce the l bits shifted out, lane by lane (no dependency between
/// lanes).
#[inline(always)]
fn first_powers<const W: usize>(h0: u64, l0: u64) -> ([u64; W], [u64; W]) {
    let mut hi = [0u64; W];
    let mut lo = [0u64; W];
    for l in 0..W {
        // `(v >> 1) >> (63 - l)` is `v >> (64 - l)`, and 0 for l = 0.
        hi[l] = (h0 << l) | ((l0 >> 1) >> (63 - l));
        lo[l] = (l0 << l) ^ reduce_byte((h0 >> 1) >> (63 - l));
    }
    (hi, lo)
}

/// Store a block given as its two little-endian words.
#[inline(always)]
fn write_words(b: &mut Block, w0: u64, w1: u64) {
    b[..8].copy_from_slice(&w0.to_le_bytes());
    b[8..].copy_from_slice(&w1.to_le_bytes());
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
