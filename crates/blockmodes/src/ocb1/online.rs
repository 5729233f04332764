//! On-line OCB 1.0 (the paper's "On-line" property, section 1): the message
//! arrives in pieces of any length, its length unknown in advance, and the
//! state stays a few blocks whatever the length.
//!
//! The blocks `M[1] .. M[m-1]` are enciphered as soon as a block that comes
//! after them has arrived; `M[m]` is special (`Y[m] = E_K(len(M[m]) xor L(-1)
//! xor Z[m])`), so the last 1 to 16 bytes seen so far are held back until
//! [`finish`](Ocb1Encryptor::finish): a full block may still turn out to be
//! `M[m]`. Everything else is the one-shot's code started at block `i`
//! instead of block 1: the fused AES kernels (`fused.rs`) where key setup
//! chose them, else the generic block engine of `mod.rs` (offsets `Z[i]`
//! from the Gray-code cursor, the Checksum, the cipher's batches).

use alloc::vec::Vec;

use aead::array::Array;
use aead::consts::U16;
use aead::inout::InOutBuf;

use super::{
    BlockBuf, BlockWork, Ocb1, Tag, TagPolicy, TagSize, check_nonce, copy_prefix, copy_tail,
    truncate_tag, wipe, zero_after,
};
use crate::arith::gf128::{Block, GrayCursor, xor, xor_in_place};
use crate::engine::Dir;
use crate::error::{Error, Result};
use crate::oracle::{self, BlockCipher128, BlockCipher128Dec};

/// Bytes enciphered per pass of the block engine (measured when a pass
/// copied its piece into the output and enciphered it there in place; now
/// each pass zero-fills its part of the output and enciphers into it).
/// `blockmodes bench --modes ocb1-encrypt-vec,ocb1-online-64k --sizes
/// 1048576` (x ECB, three runs each, noisy shared 2-core Xeon): passes of
/// 16 KiB 0.458 / 0.401 / 0.444 against the one-shot's 0.480 / 0.466 /
/// 0.450; 64 KiB 0.389 / 0.335 / 0.355 against 0.465 / 0.440 / 0.384.
const PIECE: usize = 16 * 1024;

/// The state shared by the encryptor and the decryptor: the offset cursor,
/// the blocks done, the Checksum so far and the held-back bytes.
struct State {
    /// `R = E_K(N xor L)` (for the fused kernels, which take it directly).
    r: Block,
    cursor: GrayCursor,
    /// Blocks `1 ..= done` are out.
    done: u64,
    /// `M[1] xor ... xor M[done]`.
    checksum: Block,
    /// The last bytes seen (1 to 16, or 0 before any), not yet processed.
    held: Block,
    held_len: usize,
}

impl State {
    /// Append the blocks of `held || input` that are followed by at least
    /// one more byte to `out` (processed by `run`, `done` and the Checksum
    /// updated) and hold the rest back. A block completing the held bytes
    /// is processed in a local copy; the blocks after it go from `input`
    /// straight into `out` (zero-filled first: safe code cannot write into
    /// a `Vec`'s spare capacity), 16 KiB at a time.
    fn update(
        &mut self,
        input: &[u8],
        out: &mut Vec<u8>,
        mut run: impl FnMut(&mut Pair<'_, '_>, u64, &mut GrayCursor, &Block) -> Block,
    ) {
        let total = self.held_len + input.len();
        let blocks = total.saturating_sub(1) / 16;
        if blocks == 0 {
            // Everything fits in the held-back block (at most 16 bytes).
            self.held[self.held_len..total].copy_from_slice(input);
            self.held_len = total;
            return;
        }
        // The input bytes that go out now; the rest is held back.
        let (mut now, later) = input.split_at(16 * blocks - self.held_len);
        out.reserve(16 * blocks);
        if self.held_len > 0 {
            let (fill, rest) = now.split_at(16 - self.held_len);
            now = rest;
            let mut block = self.held;
            block[self.held_len..].copy_from_slice(fill);
            self.process((&mut block[..]).into(), &mut run);
            out.extend_from_slice(&block);
            wipe(&mut block);
        }
        for piece in now.chunks(PIECE) {
            let at = out.len();
            out.resize(at + piece.len(), 0);
            if let Ok(buf) = InOutBuf::new(piece, &mut out[at..]) {
                self.process(buf, &mut run);
            }
        }
        wipe(&mut self.held);
        self.held_len = later.len();
        self.held[..later.len()].copy_from_slice(later);
    }

    /// Run the whole blocks of `buf` as blocks `done + 1 ..` of the message.
    fn process(
        &mut self,
        buf: InOutBuf<'_, '_, u8>,
        run: &mut impl FnMut(&mut Pair<'_, '_>, u64, &mut GrayCursor, &Block) -> Block,
    ) {
        let (blocks, _) = buf.into_chunks::<U16>();
        let n = blocks.len() as u64;
        let mut io = Pair(blocks);
        let sum = run(&mut io, self.done, &mut self.cursor, &self.r);
        xor_in_place(&mut self.checksum, &sum);
        self.done += n;
    }
}

impl Drop for State {
    fn drop(&mut self) {
        wipe(&mut self.r);
        wipe(&mut self.checksum);
        wipe(&mut self.held);
    }
}

/// Whole blocks, from an input to an output buffer (or in place).
struct Pair<'i, 'o>(InOutBuf<'i, 'o, Array<u8, U16>>);

impl BlockBuf for Pair<'_, '_> {
    #[inline(always)]
    fn blocks_in(&self) -> &[Block] {
        Array::cast_slice_to_core(self.0.get_in())
    }
    #[inline(always)]
    fn blocks_out(&mut self) -> &mut [Block] {
        Array::cast_slice_to_core_mut(self.0.get_out())
    }
    fn tail_in(&self) -> &[u8] {
        &[]
    }
    fn tail_out(&mut self) -> &mut [u8] {
        &mut []
    }
    fn blocks_inout(&mut self) -> InOutBuf<'_, '_, Array<u8, U16>> {
        self.0.reborrow()
    }
}

/// On-line OCB 1.0 encryption of one message under one nonce: feed the
/// message `M` in pieces of any length with [`update`](Self::update), which
/// appends the ciphertext of every block it can already encipher, then
/// [`finish`](Self::finish), which appends the rest of `C` and returns the
/// tag `T`. For every split of `M`, the concatenated output and the tag are
/// the one-shot [`Ocb1::encrypt_to_vec`]'s `C || T`.
///
/// Memory: the state is a few blocks (the offset cursor, the Checksum, the
/// held-back final block: `M[m]` is enciphered differently from
/// `M[1] .. M[m-1]`, so the last 1 to 16 bytes seen wait for `finish`) plus
/// the block engine's batch tables while `update` runs; nothing grows with
/// the message. Cost: the one-shot's block-cipher calls; `update` enciphers
/// from `input` into `out` in 16 KiB passes.
///
/// The held-back bytes and the Checksum (secret: they are plaintext or
/// depend on it) are wiped when the encryptor is finished or dropped.
///
/// ```
/// use blockmodes::ocb1::Ocb1Aes128;
///
/// let ocb = Ocb1Aes128::new_from_slice(&[0x42; 16])?;
/// let nonce = [7u8; 16];
/// let mut enc = ocb.encryptor(&nonce)?;
/// let mut out = Vec::new();
/// enc.update(b"attack ", &mut out);
/// enc.update(b"at dawn", &mut out);
/// let tag = enc.finish(&mut out);
/// out.extend_from_slice(&tag);
/// assert_eq!(out, ocb.encrypt_to_vec(&nonce, b"attack at dawn")?);
/// # Ok::<(), blockmodes::Error>(())
/// ```
pub struct Ocb1Encryptor<'a, C, T, P = crate::tag::Safe>
where
    T: TagSize<P>,
    P: TagPolicy,
{
    ocb: &'a Ocb1<C, T, P>,
    state: State,
}

impl<C: BlockCipher128, T: TagSize<P>, P: TagPolicy> Ocb1<C, T, P> {
    /// Start an on-line encryption under the 16-byte `nonce` (one block-cipher
    /// call: `R = E_K(N xor L)`); see [`Ocb1Encryptor`].
    ///
    /// Errors: [`Error::InvalidNonceLength`] unless the nonce is 16 bytes.
    ///
    /// ```
    /// use blockmodes::{Error, ocb1::Ocb1Aes128};
    /// let ocb = Ocb1Aes128::new_from_slice(&[1; 16])?;
    /// let mut out = Vec::new();
    /// let tag = ocb.encryptor(&[0; 16])?.finish(&mut out); // the empty message
    /// assert_eq!(tag.to_vec(), ocb.encrypt_to_vec(&[0; 16], b"")?);
    /// assert!(matches!(ocb.encryptor(&[0; 12]), Err(Error::InvalidNonceLength { .. })));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn encryptor(&self, nonce: &[u8]) -> Result<Ocb1Encryptor<'_, C, T, P>> {
        Ok(Ocb1Encryptor {
            ocb: self,
            state: self.online_state(nonce)?,
        })
    }

    fn online_state(&self, nonce: &[u8]) -> Result<State> {
        let nonce = check_nonce(nonce)?;
        let mut n_xor_l = xor(&nonce, self.batch.offsets().l(0));
        let r = self.engine.encrypt_block(&n_xor_l); // R = E_K(N xor L)
        wipe(&mut n_xor_l);
        Ok(State {
            cursor: GrayCursor::new(&r),
            r,
            done: 0,
            checksum: [0; 16],
            held: [0; 16],
            held_len: 0,
        })
    }

    /// The last block and the tag from the state after the last `update`:
    /// writes `C[m]` (or `M[m]` when decrypting) to the first `held_len`
    /// bytes of `last_out` and returns the full 16-byte tag.
    fn online_finish<const DECRYPT: bool>(&self, state: &mut State, last_out: &mut Block) -> Block {
        let len = state.held_len;
        let mut z_m = state.cursor.offset(&self.batch, state.done + 1); // Z[m]
        let mut last = [0u8; 16];
        copy_tail(&mut last, &state.held[..len]); // M[m] or C[m]0*
        let mut y_m = self.y_m(&z_m, len); // Y[m]
        if DECRYPT {
            xor_in_place(&mut state.checksum, &last);
            xor_in_place(&mut state.checksum, &y_m); // Checksum ^= C[m]0* xor Y[m]
            xor_in_place(&mut last, &y_m); // M[m] = C[m] xor Y[m]
        } else {
            xor_in_place(&mut last, &y_m); // C[m] = M[m] xor Y[m]
            zero_after(&mut last, len); // C[m]0*
            xor_in_place(&mut state.checksum, &last);
            xor_in_place(&mut state.checksum, &y_m);
        }
        copy_prefix(&mut last_out[..len], &last);
        let tag = self.tag(&state.checksum, &z_m);
        for secret in [&mut last, &mut z_m, &mut y_m] {
            wipe(secret);
        }
        tag
    }
}

impl<C: BlockCipher128, T: TagSize<P>, P: TagPolicy> Ocb1Encryptor<'_, C, T, P> {
    /// Encrypt the next piece of `M`: appends to `out` the ciphertext of
    /// every block of the message so far except the last 1 to 16 bytes,
    /// which wait for the next call or for [`finish`](Self::finish). Any
    /// length, including 0; never fails (OCB 1.0 has no length limit an
    /// in-memory message can reach).
    ///
    /// ```
    /// use blockmodes::ocb1::Ocb1Aes128;
    /// let ocb = Ocb1Aes128::new_from_slice(&[2; 16])?;
    /// let mut enc = ocb.encryptor(&[3; 16])?;
    /// let mut out = Vec::new();
    /// enc.update(&[0; 16], &mut out);
    /// assert_eq!(out.len(), 0); // one full block: it may be M[m]
    /// enc.update(&[0; 1], &mut out);
    /// assert_eq!(out.len(), 16); // now C[1] is out
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn update(&mut self, input: &[u8], out: &mut Vec<u8>) {
        let ocb = self.ocb;
        self.state.update(input, out, |io, base, cursor, _r| {
            if let Some(f) = ocb.fused() {
                return f.blocks(Dir::Encrypt, base + 1, _r, io);
            }
            BlockWork::<_, false>::run_from(&ocb.batch, io, base, cursor, |n, w| {
                oracle::encrypt_par(ocb.engine.cipher(), n, w)
            })
        });
    }

    /// End the message: appends the last ciphertext bytes `C[m]` to `out`
    /// and returns the tag `T` (the first `T` bytes of
    /// `E_K(Checksum xor Z[m])`).
    ///
    /// ```
    /// use blockmodes::ocb1::Ocb1Aes128;
    /// let ocb = Ocb1Aes128::new_from_slice(&[2; 16])?;
    /// let mut enc = ocb.encryptor(&[3; 16])?;
    /// let mut out = Vec::new();
    /// enc.update(b"0123456789abcdef", &mut out);
    /// let tag = enc.finish(&mut out);
    /// assert_eq!(out.len(), 16);
    /// assert_eq!([out, tag.to_vec()].concat(), ocb.encrypt_to_vec(&[3; 16], b"0123456789abcdef")?);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn finish(mut self, out: &mut Vec<u8>) -> Tag<T> {
        let mut last = [0u8; 16];
        let mut full = self.ocb.online_finish::<false>(&mut self.state, &mut last);
        out.extend_from_slice(&last[..self.state.held_len]);
        let tag = truncate_tag(&full);
        wipe(&mut full);
        tag
    }
}

impl<C, T: TagSize<P>, P: TagPolicy> core::fmt::Debug for Ocb1Encryptor<'_, C, T, P> {
    /// Prints the blocks done only.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Ocb1Encryptor")
            .field("blocks_done", &self.state.done)
            .finish_non_exhaustive()
    }
}

/// **Hazmat: releases unauthenticated plaintext.** On-line OCB 1.0
/// decryption: [`update`](Self::update) appends the plaintext of every
/// ciphertext block it can already decipher, **before the tag is checked**;
/// only [`finish`](Self::finish) checks the tag. A caller that acts on the
/// plaintext before `finish` returns `Ok` acts on data an attacker may have
/// chosen (the CWC paper warns against exactly this). Use it only where the
/// plaintext can be discarded if `finish` fails (for example written to a
/// temporary file that is deleted); otherwise use [`Ocb1::decrypt_to_vec`].
///
/// On a wrong tag, `finish` returns [`Error::Authentication`] and does not
/// append the last block `M[m]`; what earlier `update`s appended is the
/// caller's to discard.
///
/// ```
/// use blockmodes::ocb1::{Ocb1Aes128, hazmat::Ocb1Decryptor};
/// use blockmodes::Error;
///
/// let ocb = Ocb1Aes128::new_from_slice(&[0x42; 16])?;
/// let sealed = ocb.encrypt_to_vec(&[7; 16], b"attack at dawn")?;
/// let (ct, tag) = sealed.split_at(14);
///
/// let mut dec = Ocb1Decryptor::new(&ocb, &[7; 16])?;
/// let mut pt = Vec::new();
/// for piece in ct.chunks(5) {
///     dec.update(piece, &mut pt); // unauthenticated so far
/// }
/// dec.finish(tag, &mut pt)?;
/// assert_eq!(pt, b"attack at dawn");
///
/// let mut dec = Ocb1Decryptor::new(&ocb, &[8; 16])?; // another nonce
/// let mut pt = Vec::new();
/// dec.update(ct, &mut pt);
/// assert_eq!(dec.finish(tag, &mut pt), Err(Error::Authentication));
/// # Ok::<(), blockmodes::Error>(())
/// ```
pub struct Ocb1Decryptor<'a, C, T, P = crate::tag::Safe>
where
    T: TagSize<P>,
    P: TagPolicy,
{
    ocb: &'a Ocb1<C, T, P>,
    state: State,
}

impl<'a, C: BlockCipher128Dec, T: TagSize<P>, P: TagPolicy> Ocb1Decryptor<'a, C, T, P> {
    /// Start an on-line decryption under the 16-byte `nonce`.
    ///
    /// Errors: [`Error::InvalidNonceLength`] unless the nonce is 16 bytes.
    ///
    /// ```
    /// use blockmodes::ocb1::{Ocb1Aes128, hazmat::Ocb1Decryptor};
    /// let ocb = Ocb1Aes128::new_from_slice(&[1; 16])?;
    /// assert!(Ocb1Decryptor::new(&ocb, &[0; 15]).is_err());
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn new(ocb: &'a Ocb1<C, T, P>, nonce: &[u8]) -> Result<Self> {
        Ok(Self {
            ocb,
            state: ocb.online_state(nonce)?,
        })
    }

    /// Decrypt the next piece of the ciphertext core `C` (without the tag):
    /// appends the **unauthenticated** plaintext of every block so far
    /// except the last 1 to 16 bytes.
    ///
    /// ```
    /// use blockmodes::ocb1::{Ocb1Aes128, hazmat::Ocb1Decryptor};
    /// let ocb = Ocb1Aes128::new_from_slice(&[1; 16])?;
    /// let sealed = ocb.encrypt_to_vec(&[0; 16], &[9; 40])?;
    /// let mut dec = Ocb1Decryptor::new(&ocb, &[0; 16])?;
    /// let mut pt = Vec::new();
    /// dec.update(&sealed[..40], &mut pt);
    /// assert_eq!(pt, [9; 32]); // M[3] waits for finish
    /// dec.finish(&sealed[40..], &mut pt)?;
    /// assert_eq!(pt, [9; 40]);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn update(&mut self, input: &[u8], out: &mut Vec<u8>) {
        let ocb = self.ocb;
        self.state.update(input, out, |io, base, cursor, _r| {
            if let Some(f) = ocb.fused() {
                return f.blocks(Dir::Decrypt, base + 1, _r, io);
            }
            BlockWork::<_, true>::run_from(&ocb.batch, io, base, cursor, |n, w| {
                oracle::decrypt_par(ocb.engine.cipher(), n, w)
            })
        });
    }

    /// End the ciphertext and check `tag` (in constant time): on success
    /// appends the last plaintext bytes `M[m]`.
    ///
    /// Errors: [`Error::InvalidTagLength`] unless `tag` has `T` bytes;
    /// [`Error::Authentication`] when it does not verify (nothing is
    /// appended; the plaintext appended by `update` is not authentic).
    ///
    /// ```
    /// use blockmodes::{Error, ocb1::{Ocb1Aes128, hazmat::Ocb1Decryptor}};
    /// let ocb = Ocb1Aes128::new_from_slice(&[1; 16])?;
    /// let mut sealed = ocb.encrypt_to_vec(&[0; 16], b"abc")?;
    /// sealed[4] ^= 1; // the tag
    /// let mut dec = Ocb1Decryptor::new(&ocb, &[0; 16])?;
    /// let mut pt = Vec::new();
    /// dec.update(&sealed[..3], &mut pt);
    /// assert_eq!(dec.finish(&sealed[3..], &mut pt), Err(Error::Authentication));
    /// assert!(pt.is_empty());
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn finish(mut self, tag: &[u8], out: &mut Vec<u8>) -> Result<()> {
        if tag.len() != T::USIZE {
            return Err(Error::InvalidTagLength {
                min: T::USIZE,
                max: T::USIZE,
                got: tag.len(),
            });
        }
        let mut last = [0u8; 16];
        let mut full = self.ocb.online_finish::<true>(&mut self.state, &mut last);
        let ok = bool::from(crate::tag::tag_matches(&full, tag));
        wipe(&mut full);
        if ok {
            out.extend_from_slice(&last[..self.state.held_len]);
        }
        wipe(&mut last);
        if ok {
            Ok(())
        } else {
            Err(Error::Authentication)
        }
    }
}

impl<C, T: TagSize<P>, P: TagPolicy> core::fmt::Debug for Ocb1Decryptor<'_, C, T, P> {
    /// Prints the blocks done only.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Ocb1Decryptor")
            .field("blocks_done", &self.state.done)
            .finish_non_exhaustive()
    }
}
