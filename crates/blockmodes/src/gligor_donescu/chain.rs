//! The XCBC chaining core (paper, section 3), shared by XCBC$, XCBC, their
//! -XOR forms and every pXCBC segment:
//!
//! * encryption: `z_i = f(x_i xor z_{i-1})`, `y_i = z_i + i * r0` (mod 2^128),
//!   a serial chain like CBC's, run through one backend call with one
//!   single-block encryption per block ([`encrypt`]);
//! * decryption: `z_i = y_i - i * r0`, `x_i = f^-1(z_i) xor z_{i-1}`, all
//!   blocks independent, batched through the parallel backend ([`decrypt`]).
//!
//! With the XOR check (`CHECK = true`) the chain also encrypts
//! `x_{n+1} = z0 xor x_1 xor ... xor x_n` after the n padded blocks.

use zeroize::Zeroize;

use crate::arith::gf128::{Block, xor, xor_in_place};
use crate::arith::modular::{to_block, to_int};
use crate::oracle::{
    B2B_BATCH, BlockCipher128, BlockCipher128Dec, ParWork, ParWorkB2b, decrypt_par_b2b,
    encrypt_chain,
};

use super::offsets::{BATCH, Offsets, wipe, xor_in_and_sum};
use crate::oracle::scratch::with_scratch;

use super::keys::Keys;
use super::padding::last_block;

/// Encrypt the padded `msg` (and, if `CHECK`, its check block) with r0 and
/// z0; `out` receives `y_1 .. y_n (y_{n+1})`, exactly `(n + CHECK) * 16` bytes.
pub(crate) fn encrypt<C: BlockCipher128, const CHECK: bool>(
    keys: &Keys<C>,
    r0: u128,
    z0: &Block,
    msg: &[u8],
    out: &mut [u8],
) {
    let (full, _) = msg.as_chunks::<16>();
    let (out, _) = out.as_chunks_mut::<16>();
    let mut last = last_block(msg);
    let n = full.len() + 1;
    let x = |i: usize| full.get(i).copied().unwrap_or(last);
    encrypt_blocks::<C, CHECK>(keys, r0, z0, n, x, out);
    last.zeroize();
}

/// The chain over n blocks `x(0) .. x(n - 1)` (x_1 .. x_n: a message, or a
/// pXCBC segment read from its stream) and, if `CHECK`, the check block
/// `z0 xor x_1 xor ... xor x_n`: `out[i - 1] = y_i`, `n + CHECK` blocks.
pub(crate) fn encrypt_blocks<C: BlockCipher128, const CHECK: bool>(
    keys: &Keys<C>,
    r0: u128,
    z0: &Block,
    n: usize,
    x: impl Fn(usize) -> Block,
    out: &mut [Block],
) {
    let rounds = n + CHECK as usize;
    debug_assert_eq!(out.len(), rounds);
    // On f's fused AES key: the whole chain in one function of the engine
    // (AES-NI; the ARMv8 Crypto Extensions).
    if let Some(k) = keys.f.aes() {
        k.xcbc_chain::<CHECK>(r0, z0, n, x, out);
        return;
    }
    let mut work = EncChain::<_, CHECK> {
        x,
        n,
        out,
        z: *z0,
        sum: *z0,
        r0,
        offset: 0,
    };
    encrypt_chain(keys.f.cipher(), rounds, &mut work);
    work.wipe();
}

/// One serial chain, one block per round.
struct EncChain<'a, X, const CHECK: bool> {
    /// x_{i+1} = x(i) for i < n.
    x: X,
    n: usize,
    /// y_1, y_2, ...
    out: &'a mut [Block],
    /// z_{i-1}
    z: Block,
    /// z0 xor x_1 xor ... (the check block, once all x_i are in)
    sum: Block,
    r0: u128,
    /// (i - 1) * r0 before round i's `after`, i * r0 after it.
    offset: u128,
}

impl<X, const CHECK: bool> EncChain<'_, X, CHECK> {
    fn wipe(&mut self) {
        self.z.zeroize();
        self.sum.zeroize();
        self.r0.zeroize();
        self.offset.zeroize();
    }
}

impl<X: Fn(usize) -> Block, const CHECK: bool> ParWork for EncChain<'_, X, CHECK> {
    #[inline(always)]
    fn before(&mut self, round: usize, blocks: &mut [Block]) {
        let x = if round < self.n {
            (self.x)(round)
        } else {
            self.sum // x_{n+1}, the check block
        };
        if CHECK {
            xor_in_place(&mut self.sum, &x);
        }
        blocks[0] = xor(&x, &self.z);
    }

    #[inline(always)]
    fn after(&mut self, round: usize, blocks: &[Block]) {
        self.z = blocks[0];
        self.offset = self.offset.wrapping_add(self.r0);
        self.out[round] = to_block(to_int(&self.z).wrapping_add(self.offset));
    }
}

/// Decrypt `ct` = `y_1 .. y_n` (whole blocks) and, if `CHECK`, the check
/// block `y_{n+1}` after them, with r0 and z0: `out` (`n * 16` bytes)
/// receives `x_i = f^-1(y_i - i * r0) xor z_{i-1}`, all blocks in one pass
/// through the parallel backend (the check block rides in the last batch).
///
/// Returns `z0 xor x_1 xor ... xor x_n` and `x_{n+1}` (zeros without
/// `CHECK`): the XOR check holds when they are equal.
pub(crate) fn decrypt<C: BlockCipher128Dec, const CHECK: bool>(
    f: &C,
    r0: u128,
    z0: &Block,
    ct: &[u8],
    out: &mut [u8],
) -> (Block, Block) {
    let (ct, _) = ct.as_chunks::<16>();
    let (out, _) = out.as_chunks_mut::<16>();
    debug_assert_eq!(ct.len(), out.len() + CHECK as usize);
    decrypt_chunks(f, r0, z0, ct, out)
}

/// Blocks per pass of [`decrypt_chunks`].
const CHUNK: usize = 4 * BATCH;

/// [`decrypt`] in chunks of up to [`CHUNK`] blocks: before each batch of
/// the cipher its `z_i = y_i - i * r0` are computed inside the backend's
/// call, so with its vector features (16 KiB through the `aes` crate:
/// 0.39x ECB; the same portable offsets in a pass of their own, outside
/// it, 0.14x: `docs/lab/2026-11-27-generic-islands.md`), the
/// cipher deciphers them into `out` (the check block's output into a side
/// buffer), and after the batch its blocks get `z_{i-1}` xored in and join
/// the sum.
fn decrypt_chunks<C: BlockCipher128Dec>(
    f: &C,
    r0: u128,
    z0: &Block,
    ct: &[Block],
    out: &mut [Block],
) -> (Block, Block) {
    with_scratch(&SCRATCH, |scratch| {
        let n = out.len();
        let mut work = DecChunk {
            ct,
            offsets: Offsets::new(r0),
            zz: &mut scratch.zz,
            zz_used: 0,
            out,
            tail: &mut scratch.tail,
            tail_used: 0,
            pos: 0,
            sum: *z0,
        };
        work.zz[0] = *z0;
        let mut check = [0u8; 16];
        let mut pos = 0;
        while pos < ct.len() {
            let k = (ct.len() - pos).min(CHUNK);
            work.zz_used = work.zz_used.max(k);
            work.pos = pos;
            decrypt_par_b2b(f, k, &mut work);
            let body = k.min(n - pos);
            if body < k {
                // The check block: x_{n+1} = f^-1(z_{n+1}) xor z_n.
                // Its batch starts at a multiple of B2B_BATCH in the chunk.
                check = xor(&work.tail[body % B2B_BATCH], &work.zz[body]);
            }
            work.zz[0] = work.zz[k];
            pos += k;
        }
        (work.sum, check)
    })
}

/// The scratch of [`decrypt_chunks`], one per thread ([`with_scratch`]): a
/// chunk's z values and the outputs of the batch with the check block.
/// Kept rather than made per message, so that a message does not clear
/// 5 KiB of stack before it starts; wiped after each message.
struct DecScratch {
    zz: [Block; CHUNK + 1],
    tail: [Block; BATCH],
}

impl Default for DecScratch {
    fn default() -> Self {
        Self {
            zz: [[0; 16]; CHUNK + 1],
            tail: [[0; 16]; BATCH],
        }
    }
}

crate::oracle::scratch::scratch_slot!(SCRATCH: DecScratch);

/// The cipher's side of one chunk of [`decrypt_chunks`]: inputs `zz[1..]`,
/// outputs straight into `out`, except the batch holding the check block,
/// whose outputs go to `tail` (its message blocks are copied out after).
struct DecChunk<'a> {
    /// y_1 .. y_n (y_{n+1})
    ct: &'a [Block],
    /// The offsets `i * r0`.
    offsets: Offsets,
    /// `zz[0]`: z before the chunk; `zz[1..=k]`: the chunk's z_i.
    zz: &'a mut [Block; CHUNK + 1],
    /// The largest chunk so far: `zz[..=zz_used]` were written.
    zz_used: usize,
    /// x_1 .. x_n
    out: &'a mut [Block],
    /// The outputs of the batch with the check block.
    tail: &'a mut [Block; BATCH],
    /// How many blocks of `tail` were written.
    tail_used: usize,
    /// The chunk's first block (0-based).
    pos: usize,
    /// z0 xor x_1 xor ...
    sum: Block,
}

/// The chunk's scratch is wiped when the message is done: the blocks of
/// `zz` and `tail` it wrote, and the sum.
impl Drop for DecChunk<'_> {
    fn drop(&mut self) {
        wipe(&mut self.zz[..=self.zz_used]);
        wipe(&mut self.tail[..self.tail_used]);
        wipe(core::slice::from_mut(&mut self.sum));
    }
}

impl ParWorkB2b for DecChunk<'_> {
    #[inline(always)]
    fn before(&mut self, start: usize, k: usize) -> (&[Block], &mut [Block]) {
        let first = self.pos + start;
        let (ys, zs) = (
            &self.ct[first..first + k],
            &mut self.zz[1 + start..1 + start + k],
        );
        self.offsets.apply::<false>(first as u128 + 1, ys, zs);
        let zs = &self.zz[1 + start..1 + start + k];
        if first + k <= self.out.len() {
            (zs, &mut self.out[first..first + k])
        } else {
            self.tail_used = self.tail_used.max(k);
            (zs, &mut self.tail[..k])
        }
    }

    #[inline(always)]
    fn after(&mut self, start: usize, k: usize) {
        let first = self.pos + start;
        let n = self.out.len();
        if first + k > n {
            let body = n - first;
            self.out[first..].copy_from_slice(&self.tail[..body]);
        }
        // x_i = f^-1(z_i) xor z_{i-1} for the batch's message blocks.
        let body = k.min(n.saturating_sub(first));
        let (x, zz) = (
            &mut self.out[first..first + body],
            &self.zz[start..start + body],
        );
        xor_in_and_sum(x, zz, &mut self.sum);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arith::modular::sub_mod128;
    use crate::oracle::decrypt_block;
    use cipher::KeyInit;

    /// `x_i = f^-1(y_i - i r0) xor z_{i-1}` one block at a time, and the
    /// check values, straight from the definition.
    fn reference(
        f: &aes::Aes128,
        r0: u128,
        z0: &Block,
        ct: &[Block],
        n: usize,
    ) -> (Vec<Block>, Block, Block) {
        let mut prev = *z0;
        let mut sum = *z0;
        let mut out = Vec::new();
        let mut check = [0u8; 16];
        for (j, y) in ct.iter().enumerate() {
            let z = sub_mod128(y, &to_block(r0.wrapping_mul(j as u128 + 1)));
            let x = xor(&decrypt_block(f, &z), &prev);
            if j < n {
                xor_in_place(&mut sum, &x);
                out.push(x);
            } else {
                check = x;
            }
            prev = z;
        }
        (out, sum, check)
    }

    /// The thread's scratch holds no z value or output after a message, at
    /// lengths that use the check-block tail and more than one chunk.
    #[cfg(feature = "std")]
    #[test]
    fn scratch_is_wiped_after_each_message() {
        let f = aes::Aes128::new(&[0x5a; 16].into());
        let ct: Vec<Block> = (0..600u128)
            .map(|j| to_block(j * 0x1234_5678 + 1))
            .collect();
        for m in [2, 65, 257, 600] {
            let mut out = vec![[0u8; 16]; m - 1];
            decrypt_chunks(&f, 99, &[1; 16], &ct[..m], &mut out);
            SCRATCH.with(|cell| {
                let slot = cell.borrow();
                let s = slot.as_ref().expect("the scratch was made");
                assert!(s.zz.iter().chain(&s.tail).all(|b| *b == [0; 16]), "m {m}");
            });
        }
    }

    /// Decryption against the definition, at every length up to 130
    /// blocks and around the chunk boundaries, with and without the check
    /// block.
    #[test]
    fn decrypt_matches_the_definition() {
        let f = aes::Aes128::new(&[0x3c; 16].into());
        let r0 = 0xfedc_ba98_7654_3210_0f1e_2d3c_4b5a_6978u128;
        let z0 = [0xa7; 16];
        let ct: Vec<Block> = (0..600u128)
            .map(|j| to_block(j.wrapping_mul(u128::MAX / 7) ^ 0x55))
            .collect();
        let lengths = (1..=130).chain([255, 256, 257, 300, 511, 512, 513, 599]);
        for m in lengths {
            let (want, want_sum, want_check) = reference(&f, r0, &z0, &ct[..m], m - 1);
            let mut out = vec![[0u8; 16]; m - 1];
            let got = decrypt_chunks(&f, r0, &z0, &ct[..m], &mut out);
            assert_eq!((out, got), (want, (want_sum, want_check)), "m {m}");
            let (want, _, _) = reference(&f, r0, &z0, &ct[..m], m);
            let mut out = vec![[0u8; 16]; m];
            let (_, check) = decrypt_chunks(&f, r0, &z0, &ct[..m], &mut out);
            assert_eq!((out, check), (want, [0; 16]), "m {m}");
        }
    }
}
