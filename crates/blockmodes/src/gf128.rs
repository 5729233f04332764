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
/// use blockmodes::gf128::{GrayBatch, GrayCursor, GrayOffsets, xor};
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
/// use blockmodes::gf128::{GrayBatch, GrayCursor, GrayOffsets, xor};
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
