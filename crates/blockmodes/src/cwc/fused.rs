//! CWC on the fused AES kernels (x86-64 with AES-NI, aarch64 with the ARMv8
//! Crypto Extensions; see `crate::backend`):
//! CWC-CTR with the counter blocks made in registers and the keystream
//! xored into the data in the last AES round (no batch buffer, no padding
//! to a batch), and CWC-HASH over its output while it is still in
//! registers or the first-level cache: the message is read once.
//!
//! * With the hash on AVX-512 IFMA and the key on VAES-512, the whole
//!   message goes through `AesKey::ctr32_hash_tag` (`cwc/ctr_hash.rs`): one
//!   loop that hashes each 192 bytes of ciphertext from the registers the
//!   last AES round left them in, between the rounds of the next 192 bytes
//!   (the AES rounds and the multiply-adds issue on different ports; run
//!   one after the other they do not overlap: see `docs/performance.md`,
//!   section "CWC"), and ends with the tag (both of its cipher calls).
//! * Otherwise (AES-NI alone, a CPU without IFMA, the portable hash, and
//!   always on aarch64), strides of [`FUSED_STRIDE`] bytes through
//!   `AesKey::ctr32` (`aesni/ctr.rs`, `armv8/ctr.rs`), each hashed right
//!   after it is written.
//!
//! On the strided path the MAC pad `E_K(10^7 || N || 0^32)` rides along
//! with the first counter blocks and `E_K(CWC-HASH)` is one block. Blocks the kernels take are passed
//! as big-endian integers, never through memory (see `aesni/ctr.rs`).
//!
//! Decryption keeps the order of `Cwc::decrypt_inout`: the whole of sigma
//! is hashed and the tag checked before any keystream is xored in (see
//! `mod.rs`); only the CTR pass runs on the fused kernel.

#[cfg(feature = "alloc")]
use alloc::vec::Vec;
use core::ops::Range;

use cipher::inout::InOutBuf;
use zeroize::Zeroize;

#[cfg(target_arch = "x86_64")]
use super::hash::ifma::Powers;
use super::hash::{CwcHash, HashState};
use crate::arith::gf128::{Block, xor};
use crate::backend::AesKey;

/// Bytes of sigma per stride where the one-pass kernel does not run:
/// enciphered, then hashed while in the first-level cache. A multiple of
/// 16 (whole counter blocks) and of the hash's stride (whole groups of both
/// hash paths, `hash::STRIDE_BYTES`). Measured (16 KiB, AES-128, the IFMA
/// hash fed from memory): strides of 768 / 1536 / 3072 / 6144 / 16384
/// bytes 1704 / 1496 / 1434 / 1403 / 1416 ns.
pub(super) const FUSED_STRIDE: usize = 8 * super::hash::STRIDE_BYTES;

const _: () = assert!(
    FUSED_STRIDE.is_multiple_of(16) && FUSED_STRIDE.is_multiple_of(super::hash::STRIDE_BYTES)
);

/// The engine's expanded key (the mode's `Engine` holds it).
#[derive(Clone, Copy)]
pub(super) struct Fused<'a> {
    key: &'a AesKey,
}

impl<'a> Fused<'a> {
    pub(super) fn new(key: &'a AesKey) -> Self {
        Self { key }
    }

    /// CWC-CTR from counter `first` (`1 <= first`, the run's counters below
    /// 2^32: lengths are checked): `io`'s output = its input xor the
    /// keystream.
    pub(super) fn ctr(&self, base: u128, first: u64, io: InOutBuf<'_, '_, u8>) {
        self.key.ctr32(base + u128::from(first), io, None);
    }

    /// CWC-CTR and CWC-MAC together: `io`'s output becomes sigma; returns
    /// the full 16-byte tau. Lengths already checked.
    pub(super) fn seal(
        &self,
        hash: &CwcHash,
        base: u128,
        ad: &[u8],
        io: InOutBuf<'_, '_, u8>,
    ) -> Block {
        self.seal_to(hash, base, ad, &mut InOut(io))
    }

    /// As [`seal`](Self::seal) from `msg` onto the end of `out` (sigma
    /// written once: no zero fill, no copy): `Cwc::encrypt_to_vec`.
    #[cfg(feature = "alloc")]
    pub(super) fn seal_append(
        &self,
        hash: &CwcHash,
        base: u128,
        ad: &[u8],
        msg: &[u8],
        out: &mut Vec<u8>,
    ) -> Block {
        let start = out.len();
        self.seal_to(hash, base, ad, &mut Append { msg, out, start })
    }

    /// CWC-CTR from counter `first` of `ct` onto the end of `out`
    /// (`Cwc::decrypt_to_vec`, after the tag is checked).
    #[cfg(feature = "alloc")]
    pub(super) fn ctr_append(&self, base: u128, first: u64, ct: &[u8], out: &mut Vec<u8>) {
        self.key
            .ctr32_append(base + u128::from(first), ct, out, None);
    }

    fn seal_to(&self, hash: &CwcHash, base: u128, ad: &[u8], io: &mut impl Sink) -> Block {
        let len = io.len();
        let mut st = HashState::default();
        if !ad.is_empty() {
            hash.absorb_padded(&mut st, ad);
        }
        // The whole message and the tag in one pass where the hash runs on
        // IFMA and the key on VAES-512 (E_K(CWC-HASH) and the MAC pad
        // E_K(10^7 || N || 0^32) side by side at its end, on the round
        // keys in its registers). (aarch64: no one-pass kernel; the hash is
        // portable.)
        #[cfg(target_arch = "x86_64")]
        if let Some(pw) = hash.ifma_powers()
            && let Some(tau) = io.one_pass(self.key, base, pw, st.s, ad.len() as u64)
        {
            return tau;
        }
        let mut pad = self.strided(hash, base, &mut st, io);
        let mut hv = hash.finish_int(st, ad.len() as u64, len as u64);
        let mut r = self.key.encrypt_be(hv);
        let tau = xor(&r, &pad);
        hv.zeroize();
        r.zeroize();
        pad.zeroize();
        tau
    }

    /// CWC-CTR in strides of [`FUSED_STRIDE`] bytes, each hashed (from
    /// memory, in the first-level cache) right after it is written; the
    /// MAC pad enciphered with the first stride's counter blocks (in the
    /// same round loop for a short message). Returns the MAC pad.
    fn strided(&self, hash: &CwcHash, base: u128, st: &mut HashState, io: &mut impl Sink) -> Block {
        let len = io.len();
        let (mut counter, mut at) = (1u128, 0usize);
        let mut pad = None;
        while len - at > FUSED_STRIDE {
            let end = at + FUSED_STRIDE;
            let extra = pad.is_none().then_some(base);
            let p = io.ctr(self.key, base + counter, at..end, extra);
            pad.get_or_insert(p);
            hash.absorb_chunks(st, io.written(at..end));
            counter += (FUSED_STRIDE / 16) as u128;
            at = end;
        }
        let p = io.ctr(
            self.key,
            base + counter,
            at..len,
            pad.is_none().then_some(base),
        );
        hash.absorb_padded(st, io.written(at..len));
        pad.unwrap_or(p)
    }

    /// CWC-MAC over `sigma`: the full 16-byte tau. The MAC pad's cipher
    /// call comes first, independent of the hash it then overlaps.
    pub(super) fn mac(&self, hash: &CwcHash, base: u128, ad: &[u8], sigma: &[u8]) -> Block {
        let mut pad = self.key.encrypt_be(base);
        let mut st = HashState::default();
        if !ad.is_empty() {
            hash.absorb_padded(&mut st, ad);
        }
        hash.absorb_padded(&mut st, sigma);
        let mut hv = hash.finish_int(st, ad.len() as u64, sigma.len() as u64);
        let mut r = self.key.encrypt_be(hv);
        let tau = xor(&r, &pad);
        hv.zeroize();
        r.zeroize();
        pad.zeroize();
        tau
    }
}

/// Where CWC-CTR's output goes, for [`Fused::seal_to`]: the output half of
/// an `InOutBuf`, or the end of a `Vec` (written once, in order).
trait Sink {
    /// Bytes of the message.
    fn len(&self) -> usize;
    /// The whole message and the tag through `AesKey::ctr32_hash_tag`
    /// (the full tau; `None`: not run).
    #[cfg(target_arch = "x86_64")]
    fn one_pass(
        &mut self,
        key: &AesKey,
        base: u128,
        pw: &Powers,
        s: u128,
        ad_len: u64,
    ) -> Option<Block>;
    /// CWC-CTR of the message's bytes `range` (ranges come in order, each
    /// starting where the last ended) from the counter block `cb`; returns
    /// `E_K(extra)`.
    fn ctr(&mut self, key: &AesKey, cb: u128, range: Range<usize>, extra: Option<u128>) -> Block;
    /// The output bytes `range`, written by [`ctr`](Self::ctr).
    fn written(&mut self, range: Range<usize>) -> &[u8];
}

struct InOut<'i, 'o>(InOutBuf<'i, 'o, u8>);

impl Sink for InOut<'_, '_> {
    fn len(&self) -> usize {
        self.0.len()
    }
    #[cfg(target_arch = "x86_64")]
    fn one_pass(
        &mut self,
        key: &AesKey,
        base: u128,
        pw: &Powers,
        s: u128,
        ad_len: u64,
    ) -> Option<Block> {
        key.ctr32_hash_tag(base, self.0.reborrow(), pw, s, ad_len)
    }
    fn ctr(&mut self, key: &AesKey, cb: u128, range: Range<usize>, extra: Option<u128>) -> Block {
        let (_, rest) = self.0.reborrow().split_at(range.start);
        let (part, _) = rest.split_at(range.len());
        key.ctr32(cb, part, extra)
    }
    fn written(&mut self, range: Range<usize>) -> &[u8] {
        &self.0.get_out()[range]
    }
}

/// The message `msg` onto the end of `out` (from byte `start` of `out`).
#[cfg(feature = "alloc")]
struct Append<'a> {
    msg: &'a [u8],
    out: &'a mut Vec<u8>,
    start: usize,
}

#[cfg(feature = "alloc")]
impl Sink for Append<'_> {
    fn len(&self) -> usize {
        self.msg.len()
    }
    #[cfg(target_arch = "x86_64")]
    fn one_pass(
        &mut self,
        key: &AesKey,
        base: u128,
        pw: &Powers,
        s: u128,
        ad_len: u64,
    ) -> Option<Block> {
        key.ctr32_hash_tag_append(base, self.msg, self.out, pw, s, ad_len)
    }
    fn ctr(&mut self, key: &AesKey, cb: u128, range: Range<usize>, extra: Option<u128>) -> Block {
        debug_assert_eq!(self.out.len(), self.start + range.start);
        key.ctr32_append(cb, &self.msg[range], self.out, extra)
    }
    fn written(&mut self, range: Range<usize>) -> &[u8] {
        &self.out[self.start + range.start..self.start + range.end]
    }
}
