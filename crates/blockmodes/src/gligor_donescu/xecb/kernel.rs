//! The core, w over runs of blocks at absolute positions, one shot or batched (the backend's multi-block calls, the rayon pool).

#[allow(unused_imports)]
use super::*;
use crate::backend::Engine;

// ---------------------------------------------------------------------------
// f, generic or on the fused AES kernels.

/// f = E_K, and its fused AES kernels where the key was set up from AES key
/// bytes on a CPU with AES-NI or the ARMv8 AES instructions
/// (`crate::backend`): there every run of blocks is one kernel call,
/// `f(x_i + i r0)` with the offsets made in registers and the sum taken
/// while the rounds run (`aesni`'s or `armv8`'s `xecb_sum`).
#[derive(Clone)]
pub(super) struct Prf<C> {
    /// f, and the engine's AES key when keyed from AES key bytes on a CPU
    /// the engine runs on.
    engine: Engine<C>,
}

impl<C: BlockCipher128> Prf<C> {
    /// The generic path for `f`.
    pub(super) fn from_cipher(f: C) -> Self {
        Self {
            engine: Engine::from_cipher(f),
        }
    }

    /// `f` keyed with the bytes `key`: the fused path where it applies.
    pub(super) fn from_key(f: C, key: &[u8]) -> Self {
        Self {
            engine: Engine::from_key(f, key),
        }
    }

    /// The block cipher f.
    #[inline(always)]
    pub(super) fn cipher(&self) -> &C {
        self.engine.cipher()
    }

    /// `f(block)`.
    #[inline]
    pub(super) fn encrypt(&self, block: &Block) -> Block {
        self.engine.encrypt_block(block)
    }

    /// `f(tostr(x, 128))` for a block given as an integer: on the fused
    /// path made in a register from the integer (a block written as two
    /// 8-byte halves and read back as one 16-byte load would wait for
    /// the stores: a store-forwarding stall).
    #[inline]
    pub(super) fn encrypt_int(&self, x: u128) -> Block {
        self.engine.encrypt_be(x)
    }

    /// `f^-1(block)`.
    #[inline]
    pub(super) fn decrypt(&self, block: &Block) -> Block
    where
        C: BlockCipher128Dec,
    {
        self.engine.decrypt_block(block)
    }

    /// `f(x_j + (first + j) r0)` xored together over `blocks` and then
    /// `last` (if given), on the fused kernels; `None` on the generic path.
    #[inline]
    pub(super) fn fused_sum(
        &self,
        r0: u128,
        first: u128,
        blocks: &[Block],
        last: Option<&Block>,
    ) -> Option<Block> {
        self.engine
            .aes()
            .map(|k| k.xecb_sum(r0, first, blocks, last))
    }
}

// ---------------------------------------------------------------------------
// The core: w over runs of blocks at absolute positions.

/// Absorb whole blocks `blocks` at positions `first, first + 1, ...`
/// (1-based): `w ^= f(x_i + i * r0)` for each, in backend-wide batches.
pub(super) fn absorb<C: BlockCipher128>(
    f: &Prf<C>,
    offsets: &mut Offsets,
    first: u128,
    blocks: &[Block],
    w: &mut Block,
) {
    if blocks.is_empty() {
        return;
    }
    if let Some(mut sum) = f.fused_sum(offsets.r0(), first, blocks, None) {
        xor_in_place(w, &sum);
        wipe(core::slice::from_mut(&mut sum));
        return;
    }
    struct Absorb<'a> {
        blocks: &'a [Block],
        first: u128,
        offsets: &'a mut Offsets,
        w: Block,
    }
    impl ParWork for Absorb<'_> {
        #[inline(always)]
        fn before(&mut self, start: usize, batch: &mut [Block]) {
            let xs = &self.blocks[start..start + batch.len()];
            self.offsets
                .apply::<true>(self.first.wrapping_add(start as u128), xs, batch);
        }
        #[inline(always)]
        fn after(&mut self, _start: usize, batch: &[Block]) {
            xor_into(batch, &mut self.w);
        }
    }
    let mut work = Absorb {
        blocks,
        first,
        offsets,
        w: *w,
    };
    encrypt_par(f.cipher(), blocks.len(), &mut work);
    *w = work.w;
    work.w.zeroize();
}

#[cfg(feature = "rayon")]
/// [`absorb`] over the calling thread and the rayon pool for large runs
/// (`crate::par`): runs of whole batches, each with its own offset
/// table; the partial w's are xored.
pub(super) fn absorb_par<C: BlockCipher128 + Sync>(
    f: &Prf<C>,
    r0: u128,
    first: u128,
    blocks: &[Block],
    w: &mut Block,
) {
    if 16 * blocks.len() < PARALLEL_THRESHOLD || crate::par::threads() <= 1 {
        absorb(f, &mut Offsets::new(r0), first, blocks, w);
        return;
    }
    // Runs of whole batches, from a quarter of what is left down to 8 KiB
    // where the threads meet: a thread that joins late still finds work,
    // and the threads finish together.
    let mut part = crate::par::xor_slices(
        blocks,
        BATCH,
        512usize.next_multiple_of(BATCH),
        |start, chunk| {
            let mut part = [0u8; 16];
            let pos = first.wrapping_add(start as u128);
            absorb(f, &mut Offsets::new(r0), pos, chunk, &mut part);
            part
        },
    );
    xor_in_place(w, &part);
    wipe(core::slice::from_mut(&mut part));
}

/// One-shot MAC of a whole message under r0: `w = r0 xor y_1 xor ... xor
/// y_n` (the last block padded) and, with `Y0`, `y0 = f(r0)` too, all in
/// one pass through the backend (y0 rides as one more block after x_n).
pub(super) fn mac_one_shot<C: BlockCipher128, const Y0: bool>(
    f: &Prf<C>,
    r0: u128,
    msg: &[u8],
) -> (Block, Block) {
    let (full, _) = msg.as_chunks::<16>();
    let mut last = last_block(&msg[16 * full.len()..]);
    // The fused kernels: x_1 .. x_{n-1} from the message, x_n padded, in
    // one call (and y0 = f(r0) beside it).
    if let Some(mut sum) = f.fused_sum(r0, 1, full, Some(&last)) {
        let y0 = if Y0 { f.encrypt_int(r0) } else { [0; 16] };
        let w = xor(&sum, &to_block(r0));
        wipe(core::slice::from_mut(&mut sum));
        wipe(core::slice::from_mut(&mut last));
        return (y0, w);
    }
    wipe(core::slice::from_mut(&mut last));
    mac_one_shot_generic::<C, Y0>(f.cipher(), r0, msg)
}

/// [`mac_one_shot`] on the generic path: the offsets added and the outputs
/// xored into w batch by batch, inside the cipher's backend call (4x
/// faster than passes of their own over the same portable code, which run
/// outside the backend's vector features:
/// `docs/lab/2026-11-27-generic-islands.md`).
pub(super) fn mac_one_shot_generic<C: BlockCipher128, const Y0: bool>(
    f: &C,
    r0: u128,
    msg: &[u8],
) -> (Block, Block) {
    struct OneShot<'a> {
        /// x_1 .. x_{n-1}
        full: &'a [Block],
        /// x_n, padded
        last: Block,
        r0: u128,
        offsets: Offsets,
        w: Block,
        y0: Block,
    }
    impl OneShot<'_> {
        /// The input of block `idx` (0-based) beyond the full blocks.
        #[inline(always)]
        fn extra(&self, idx: usize) -> Block {
            if idx == self.full.len() {
                // x_n + n r0
                let n = idx as u128 + 1;
                to_block(to_int(&self.last).wrapping_add(self.r0.wrapping_mul(n)))
            } else {
                to_block(self.r0) // y0 = f(r0)
            }
        }
    }
    impl ParWork for OneShot<'_> {
        #[inline(always)]
        fn before(&mut self, start: usize, batch: &mut [Block]) {
            let k = batch.len();
            if start + k <= self.full.len() {
                // A batch of message blocks only: the fast path.
                let xs = &self.full[start..start + k];
                self.offsets.apply::<true>(start as u128 + 1, xs, batch);
                return;
            }
            let rest = &self.full[start.min(self.full.len())..];
            let body = k.min(rest.len());
            self.offsets
                .apply::<true>(start as u128 + 1, &rest[..body], &mut batch[..body]);
            for (j, b) in batch.iter_mut().enumerate().skip(body) {
                *b = self.extra(start + j);
            }
        }
        #[inline(always)]
        fn after(&mut self, start: usize, batch: &[Block]) {
            // Blocks 0 .. n - 1 are the y_i; block n (if any) is y0.
            let n = self.full.len() + 1;
            if start + batch.len() <= n {
                xor_into(batch, &mut self.w);
                return;
            }
            let ys = batch.len().min(n.saturating_sub(start));
            xor_into(&batch[..ys], &mut self.w);
            if ys < batch.len() {
                self.y0 = batch[ys];
            }
        }
    }
    let (full, _) = msg.as_chunks::<16>();
    let mut work = OneShot {
        full,
        last: last_block(&msg[16 * full.len()..]),
        r0,
        offsets: Offsets::new(r0),
        w: to_block(r0),
        y0: [0; 16],
    };
    encrypt_par(f, full.len() + 1 + Y0 as usize, &mut work);
    let res = (work.y0, work.w);
    work.last.zeroize();
    work.r0.zeroize();
    work.w.zeroize();
    res
}

/// The tag `header || w`.
pub(super) fn tag_of(header: &Block, w: &Block) -> Tag {
    let mut tag = [0u8; TAG_LEN];
    tag[..16].copy_from_slice(header);
    tag[16..].copy_from_slice(w);
    tag
}

/// XECB$-MAC in one pass: `f(r0) || w`.
pub(super) fn sign_with_r0<C: BlockCipher128>(f: &Prf<C>, r0: u128, msg: &[u8]) -> Tag {
    let (y0, mut w) = mac_one_shot::<C, true>(f, r0, msg);
    let tag = tag_of(&y0, &w);
    w.zeroize();
    tag
}

/// XECB-MAC in one pass: `ctr || w` with `r0 = f(ctr)`.
pub(super) fn sign_with_counter<C: BlockCipher128>(f: &Prf<C>, ctr: u128, msg: &[u8]) -> Tag {
    let mut r0 = to_int(&f.encrypt_int(ctr));
    let (_, mut w) = mac_one_shot::<C, false>(f, r0, msg);
    let tag = tag_of(&to_block(ctr), &w);
    r0.zeroize();
    w.zeroize();
    tag
}

/// Check `tag` (whose header gave r0) against `msg` in one pass.
pub(super) fn verify_one_shot<C: BlockCipher128>(
    f: &Prf<C>,
    r0: u128,
    msg: &[u8],
    tag: &Tag,
) -> Result<()> {
    let (_, mut w) = mac_one_shot::<C, false>(f, r0, msg);
    let mut got = tag_of(&header(tag), &w);
    let res = check(&got, tag);
    w.zeroize();
    got.zeroize();
    res
}

/// The tag length: header (y0 or ctr) || w.
pub const TAG_LEN: usize = 32;

/// An XECB tag: `y0 || w` (XECB$-MAC) or `ctr || w` (XECB-MAC).
pub type Tag = [u8; TAG_LEN];

/// Inputs of at least this many bytes are spread over the rayon thread
/// pool by the `_par` calls; smaller ones stay on the calling thread. Below
/// it, handing work to another thread (tens of microseconds to wake it)
/// costs more than the thread saves: one thread MACs 256 KiB in about 40 µs
/// on a VAES machine. Measured there, two threads never won below it.
pub const PARALLEL_THRESHOLD: usize = 256 * 1024;

/// `tag` as a [`Tag`], or [`Error::InvalidTagLength`].
pub(super) fn parse_tag(tag: &[u8]) -> Result<Tag> {
    tag.try_into().map_err(|_| Error::InvalidTagLength {
        min: TAG_LEN,
        max: TAG_LEN,
        got: tag.len(),
    })
}

/// The header (y0 or ctr) of a tag.
pub(super) fn header(tag: &Tag) -> Block {
    let mut h = [0u8; 16];
    h.copy_from_slice(&tag[..16]);
    h
}

/// Constant-time comparison of two tags: `Ok` or [`Error::Authentication`].
pub(super) fn check(got: &Tag, expected: &Tag) -> Result<()> {
    if bool::from(got.ct_eq(expected)) {
        Ok(())
    } else {
        Err(Error::Authentication)
    }
}

#[cfg(test)]
mod one_shot_tests {
    use super::*;
    use crate::arith::modular::add_mod128;
    use crate::oracle::encrypt_block;
    use cipher::KeyInit;

    /// The generic one-shot path against the definition
    /// (`w = r0 xor f(x_1 + r0) xor ... xor f(x_n + n r0)`, `y0 = f(r0)`)
    /// at every length up to 130 blocks and around the batch boundaries.
    #[test]
    fn one_shot_matches_the_definition() {
        let f = aes::Aes128::new(&[0x5e; 16].into());
        let r0 = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210u128.wrapping_mul(3);
        let msg: Vec<u8> = (0..600 * 16).map(|j| (j * 31 + 7) as u8).collect();
        let lengths = (0..=130 * 16).step_by(5).chain([
            16 * 255,
            16 * 256 + 3,
            16 * 257,
            16 * 511,
            16 * 512,
            16 * 513 + 15,
        ]);
        for len in lengths {
            let m = &msg[..len];
            let mut w = to_block(r0);
            let (full, _) = m.as_chunks::<16>();
            let padded = full
                .iter()
                .copied()
                .chain([last_block(&m[16 * full.len()..])]);
            for (i, x) in padded.enumerate() {
                let off = to_block(r0.wrapping_mul(i as u128 + 1));
                xor_in_place(&mut w, &encrypt_block(&f, &add_mod128(&x, &off)));
            }
            let y0 = encrypt_block(&f, &to_block(r0));
            let got = mac_one_shot_generic::<_, true>(&f, r0, m);
            assert_eq!(got, (y0, w), "len {len}");
            let got = mac_one_shot_generic::<_, false>(&f, r0, m);
            assert_eq!(got, ([0; 16], w), "len {len}");
        }
    }
}
