//! On-line CWC (the paper's "On-line" property, section 2): the message
//! arrives in pieces of any length, its length unknown in advance (only its
//! bound, 16 (2^32 - 1) bytes, is checked as it grows), and the state stays
//! a few blocks whatever the length.
//!
//! CWC-CTR needs no look-ahead, so every byte is encrypted as it arrives;
//! the partly used keystream block waits for the next piece. CWC-HASH
//! absorbs sigma as it is produced: whole hash strides
//! ([`STRIDE_BYTES`](super::hash), a multiple of the IFMA kernel's group)
//! straight from the output, the rest (under one stride) in a small buffer
//! until the next piece completes it. The length block
//! `Y_{beta+1} = 2^64 l_A + l_sigma` and the MAC pad `E_K(10^7 || N || 0^32)`
//! come at `finish`, with `E_K(CWC-HASH)` in the same cipher call.

use alloc::vec::Vec;

use aead::array::Array;
use zeroize::Zeroize;

use super::hash::{HashState, MAX_INPUT_BYTES, STRIDE_BYTES, check_len};
use super::{Cwc, SEGMENT_BLOCKS, TagPolicy, TagSize, counter_base};
use crate::arith::gf128::{Block, xor};
use crate::error::{Error, Result};
use crate::oracle::BlockCipher128;
use crate::tag::Tag;

/// The state shared by the encryptor and the decryptor.
struct State {
    /// `10^7 || N || 0^32` as a big-endian integer.
    base: u128,
    ad_len: usize,
    /// CWC-HASH's running value over `A||0*` and the hashed part of sigma.
    hash: HashState,
    /// Bytes of sigma so far.
    len: u64,
    /// The keystream block of counter `len / 16 + 1` while `len` is not a
    /// multiple of 16 (its first `len % 16` bytes are used).
    keystream: Block,
    /// sigma bytes not hashed yet: under one stride.
    pending: [u8; STRIDE_BYTES],
    pending_len: usize,
}

impl Drop for State {
    fn drop(&mut self) {
        self.keystream.zeroize();
        // `pending` is ciphertext; `hash` zeroizes itself.
    }
}

impl<C: BlockCipher128, T: TagSize<P>, P: TagPolicy> Cwc<C, T, P> {
    /// Start an on-line encryption under the 11-byte `nonce` with the
    /// associated data `ad` (hashed now); see [`CwcEncryptor`].
    ///
    /// Errors: [`Error::InvalidNonceLength`]; [`Error::InputTooLong`] when
    /// `ad` is longer than 16 (2^32 - 1) bytes.
    ///
    /// ```
    /// use blockmodes::cwc::CwcAes128;
    /// let cwc = CwcAes128::new_from_slice(&[7; 16])?;
    /// let mut enc = cwc.encryptor(&[1; 11], b"header")?;
    /// let mut out = Vec::new();
    /// enc.update(b"secret ", &mut out)?;
    /// enc.update(b"message", &mut out)?;
    /// let tag = enc.finish(&mut out);
    /// out.extend_from_slice(&tag);
    /// assert_eq!(out, cwc.encrypt_to_vec(&[1; 11], b"header", b"secret message")?);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn encryptor(&self, nonce: &[u8], ad: &[u8]) -> Result<CwcEncryptor<'_, C, T, P>> {
        Ok(CwcEncryptor {
            cwc: self,
            state: self.online_state(nonce, ad)?,
        })
    }

    fn online_state(&self, nonce: &[u8], ad: &[u8]) -> Result<State> {
        let base = counter_base(nonce)?;
        check_len(ad)?;
        let mut hash = HashState::default();
        self.hash.absorb_padded(&mut hash, ad);
        Ok(State {
            base,
            ad_len: ad.len(),
            hash,
            len: 0,
            keystream: [0; 16],
            pending: [0; STRIDE_BYTES],
            pending_len: 0,
        })
    }

    /// `buf ^= ` the keystream of sigma's bytes `state.len ..`; advances
    /// `state.len`.
    fn online_ctr(&self, state: &mut State, buf: &mut [u8]) {
        let used = (state.len % 16) as usize;
        let mut done = 0;
        if used != 0 {
            // the rest of the partly used keystream block
            done = buf.len().min(16 - used);
            for (b, k) in buf[..done].iter_mut().zip(&state.keystream[used..]) {
                *b ^= k;
            }
        }
        let pos = state.len + done as u64; // a multiple of 16 unless buf ended
        let whole = (buf.len() - done) / 16 * 16;
        if whole > 0 {
            // counters pos / 16 + 1 ... (below 2^32: lengths are checked)
            self.ctr_io(
                state.base,
                (pos / 16) as usize + 1,
                (&mut buf[done..done + whole]).into(),
            );
        }
        let tail = &mut buf[done + whole..];
        if !tail.is_empty() {
            let counter = (pos + whole as u64) / 16 + 1;
            state.keystream = self.encrypt_block(&(state.base + counter as u128).to_be_bytes());
            for (b, k) in tail.iter_mut().zip(&state.keystream) {
                *b ^= k;
            }
        }
        state.len += buf.len() as u64;
    }

    /// CWC-HASH absorbs `region[*hashed..]`, the next bytes of sigma: first
    /// they complete a partly filled stride in `state.pending`, then whole
    /// strides are hashed in place; `*hashed` advances past what was taken.
    /// Less than a stride may be left: [`online_hash_keep`](Self::online_hash_keep)
    /// moves it into `state.pending` once the region is complete.
    fn online_hash(&self, state: &mut State, region: &[u8], hashed: &mut usize) {
        let mut sigma = &region[*hashed..];
        if state.pending_len > 0 {
            let take = sigma.len().min(STRIDE_BYTES - state.pending_len);
            state.pending[state.pending_len..state.pending_len + take]
                .copy_from_slice(&sigma[..take]);
            state.pending_len += take;
            *hashed += take;
            sigma = &sigma[take..];
            if state.pending_len < STRIDE_BYTES {
                return;
            }
            self.hash.absorb_chunks(&mut state.hash, &state.pending);
            state.pending_len = 0;
        }
        let whole = sigma.len() / STRIDE_BYTES * STRIDE_BYTES;
        self.hash.absorb_chunks(&mut state.hash, &sigma[..whole]);
        *hashed += whole;
    }

    /// Keep `region[hashed..]` (under one stride, `pending` empty) for the
    /// next piece.
    fn online_hash_keep(state: &mut State, region: &[u8], hashed: usize) {
        let rest = &region[hashed..];
        let at = state.pending_len;
        state.pending[at..at + rest.len()].copy_from_slice(rest);
        state.pending_len += rest.len();
    }

    /// The next piece of `input` to process: up to the end of the current
    /// 16 KiB run of counters (`SEGMENT_BLOCKS` counters from a multiple of
    /// `SEGMENT_BLOCKS`, as in the one-shot, so the cipher's batches start on
    /// aligned counters).
    fn online_piece(state: &State, input: &[u8]) -> usize {
        let next_counter = state.len / 16 + 1; // of the next full block
        let run_end = (next_counter / SEGMENT_BLOCKS as u64 + 1) * SEGMENT_BLOCKS as u64;
        let room = 16 * (run_end - 1) - state.len; // bytes until counter run_end
        input.len().min(usize::try_from(room).unwrap_or(usize::MAX))
    }

    /// The full 16-byte tau of the state: `E_K(CWC-HASH_K(A, sigma)) xor
    /// E_K(10^7 || N || 0^32)`, both in one cipher call.
    fn online_tau(&self, state: &mut State) -> Block {
        let mut hash = core::mem::take(&mut state.hash);
        self.hash
            .absorb_padded(&mut hash, &state.pending[..state.pending_len]);
        let mut hv = self.hash.finish_len(hash, state.ad_len as u64, state.len);
        let mut pair = [hv, state.base.to_be_bytes()];
        self.encrypt_pair(&mut pair);
        let tau = xor(&pair[0], &pair[1]);
        hv.zeroize();
        pair.zeroize();
        tau
    }
}

/// `Err(InputTooLong)` when sigma would grow past 16 (2^32 - 1) bytes.
fn check_growth(state: &State, more: usize) -> Result<()> {
    let got = state.len.saturating_add(more as u64);
    if got > MAX_INPUT_BYTES {
        return Err(Error::InputTooLong {
            max: MAX_INPUT_BYTES,
            got,
        });
    }
    Ok(())
}

/// On-line `CWC-ENC_K(N, A, M)` of one message: feed `M` in pieces of any
/// length with [`update`](Self::update), which appends sigma for every byte
/// at once (CWC-CTR needs no look-ahead), then [`finish`](Self::finish),
/// which returns the tag tau. For every split of `M`, the concatenated
/// output and the tag are the one-shot [`Cwc::encrypt_to_vec`]'s `sigma || tau`.
///
/// Memory: a few blocks (the hash's running value, the counter, one
/// keystream block) and under one hash stride (768 bytes) of sigma waiting
/// to be hashed; nothing grows with the message. Each piece is copied into
/// `out`, encrypted there in 16 KiB segments, and each segment hashed right
/// after (as the one-shot does).
///
/// ```
/// use blockmodes::cwc::CwcAes128;
/// let cwc = CwcAes128::new_from_slice(&[7; 16])?;
/// let msg = vec![0x61u8; 100_000];
/// let mut enc = cwc.encryptor(&[1; 11], b"")?;
/// let mut out = Vec::new();
/// for piece in msg.chunks(4096) {
///     enc.update(piece, &mut out)?;
/// }
/// let tag = enc.finish(&mut out);
/// out.extend_from_slice(&tag);
/// assert_eq!(out, cwc.encrypt_to_vec(&[1; 11], b"", &msg)?);
/// # Ok::<(), blockmodes::Error>(())
/// ```
pub struct CwcEncryptor<'a, C, T, P = crate::tag::Safe>
where
    T: TagSize<P>,
    P: TagPolicy,
{
    cwc: &'a Cwc<C, T, P>,
    state: State,
}

impl<C: BlockCipher128, T: TagSize<P>, P: TagPolicy> CwcEncryptor<'_, C, T, P> {
    /// Encrypt the next piece of `M`, appending its sigma (as many bytes)
    /// to `out`.
    ///
    /// Errors: [`Error::InputTooLong`] when the message would pass
    /// 16 (2^32 - 1) bytes (nothing is appended; the encryptor is unchanged).
    ///
    /// ```
    /// use blockmodes::cwc::CwcAes128;
    /// let cwc = CwcAes128::new_from_slice(&[7; 16])?;
    /// let mut enc = cwc.encryptor(&[1; 11], b"")?;
    /// let mut out = Vec::new();
    /// enc.update(b"abc", &mut out)?;
    /// assert_eq!(out.len(), 3);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn update(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<()> {
        check_growth(&self.state, input.len())?;
        out.reserve(input.len());
        let start = out.len();
        let (mut rest, mut hashed) = (input, 0);
        while !rest.is_empty() {
            let (piece, tail) = rest.split_at(Cwc::<C, T, P>::online_piece(&self.state, rest));
            rest = tail;
            let at = out.len();
            out.extend_from_slice(piece);
            self.cwc.online_ctr(&mut self.state, &mut out[at..]);
            self.cwc
                .online_hash(&mut self.state, &out[start..], &mut hashed);
        }
        Cwc::<C, T, P>::online_hash_keep(&mut self.state, &out[start..], hashed);
        Ok(())
    }

    /// End the message and return the tag tau (its first `T` bytes). Every
    /// byte of sigma is already out, so `out` receives nothing; the argument
    /// keeps the call the same as the OCB encryptor's.
    ///
    /// ```
    /// use blockmodes::cwc::CwcAes128;
    /// let cwc = CwcAes128::new_from_slice(&[7; 16])?;
    /// let mut out = Vec::new();
    /// let tag = cwc.encryptor(&[1; 11], b"A")?.finish(&mut out);
    /// assert_eq!(tag.to_vec(), cwc.encrypt_to_vec(&[1; 11], b"A", b"")?);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn finish(mut self, out: &mut Vec<u8>) -> Tag<T> {
        let _ = out;
        let mut tau = self.cwc.online_tau(&mut self.state);
        let tag = Array::from_fn(|i| tau[i]);
        tau.zeroize();
        tag
    }
}

impl<C, T: TagSize<P>, P: TagPolicy> core::fmt::Debug for CwcEncryptor<'_, C, T, P> {
    /// Prints the length so far only.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CwcEncryptor")
            .field("len", &self.state.len)
            .finish_non_exhaustive()
    }
}

/// **Hazmat: releases unauthenticated plaintext.** On-line CWC decryption:
/// [`update`](Self::update) hashes each piece of sigma and appends its
/// plaintext at once, **before the tag is checked**; only
/// [`finish`](Self::finish) checks the tag. The CWC paper (section 2,
/// "on-line") warns that a decryptor must not release plaintext before it
/// has verified the tag: a caller that acts on the plaintext before
/// `finish` returns `Ok` acts on data an attacker may have chosen. Use it
/// only where that plaintext can be discarded when `finish` fails; the safe
/// [`Cwc::decrypt_to_vec`] checks first and decrypts after.
///
/// ```
/// use blockmodes::cwc::{CwcAes128, hazmat::CwcDecryptor};
/// use blockmodes::Error;
///
/// let cwc = CwcAes128::new_from_slice(&[7; 16])?;
/// let sealed = cwc.encrypt_to_vec(&[1; 11], b"hdr", b"secret message")?;
/// let (ct, tag) = sealed.split_at(14);
/// let mut dec = CwcDecryptor::new(&cwc, &[1; 11], b"hdr")?;
/// let mut pt = Vec::new();
/// for piece in ct.chunks(4) {
///     dec.update(piece, &mut pt)?; // unauthenticated so far
/// }
/// dec.finish(tag, &mut pt)?;
/// assert_eq!(pt, b"secret message");
///
/// let mut dec = CwcDecryptor::new(&cwc, &[1; 11], b"HDR")?;
/// let mut pt = Vec::new();
/// dec.update(ct, &mut pt)?;
/// assert_eq!(dec.finish(tag, &mut pt), Err(Error::Authentication));
/// # Ok::<(), blockmodes::Error>(())
/// ```
pub struct CwcDecryptor<'a, C, T, P = crate::tag::Safe>
where
    T: TagSize<P>,
    P: TagPolicy,
{
    cwc: &'a Cwc<C, T, P>,
    state: State,
}

impl<'a, C: BlockCipher128, T: TagSize<P>, P: TagPolicy> CwcDecryptor<'a, C, T, P> {
    /// Start an on-line decryption under the 11-byte `nonce` with the
    /// associated data `ad`.
    ///
    /// Errors: [`Error::InvalidNonceLength`]; [`Error::InputTooLong`] for
    /// `ad` longer than 16 (2^32 - 1) bytes.
    ///
    /// ```
    /// use blockmodes::cwc::{CwcAes128, hazmat::CwcDecryptor};
    /// let cwc = CwcAes128::new_from_slice(&[7; 16])?;
    /// assert!(CwcDecryptor::new(&cwc, &[1; 12], b"").is_err());
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn new(cwc: &'a Cwc<C, T, P>, nonce: &[u8], ad: &[u8]) -> Result<Self> {
        Ok(Self {
            cwc,
            state: cwc.online_state(nonce, ad)?,
        })
    }

    /// Hash the next piece of sigma and append its **unauthenticated**
    /// plaintext (as many bytes) to `out`.
    ///
    /// Errors: [`Error::InputTooLong`] when sigma would pass
    /// 16 (2^32 - 1) bytes (nothing appended; the decryptor is unchanged).
    ///
    /// ```
    /// use blockmodes::cwc::{CwcAes128, hazmat::CwcDecryptor};
    /// let cwc = CwcAes128::new_from_slice(&[7; 16])?;
    /// let sealed = cwc.encrypt_to_vec(&[1; 11], b"", b"abc")?;
    /// let mut dec = CwcDecryptor::new(&cwc, &[1; 11], b"")?;
    /// let mut pt = Vec::new();
    /// dec.update(&sealed[..3], &mut pt)?;
    /// assert_eq!(pt, b"abc"); // not yet authenticated
    /// dec.finish(&sealed[3..], &mut pt)?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn update(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<()> {
        check_growth(&self.state, input.len())?;
        out.reserve(input.len());
        let (mut done, mut hashed) = (0, 0);
        while done < input.len() {
            let end = done + Cwc::<C, T, P>::online_piece(&self.state, &input[done..]);
            self.cwc
                .online_hash(&mut self.state, &input[..end], &mut hashed);
            let at = out.len();
            out.extend_from_slice(&input[done..end]);
            self.cwc.online_ctr(&mut self.state, &mut out[at..]);
            done = end;
        }
        Cwc::<C, T, P>::online_hash_keep(&mut self.state, input, hashed);
        Ok(())
    }

    /// Check `tag` against sigma (in constant time). `out` receives
    /// nothing (every plaintext byte went out with `update`).
    ///
    /// Errors: [`Error::InvalidTagLength`] unless `tag` has `T` bytes;
    /// [`Error::Authentication`] when it does not verify: the plaintext
    /// appended by `update` is then not authentic.
    ///
    /// ```
    /// use blockmodes::{Error, cwc::{CwcAes128, hazmat::CwcDecryptor}};
    /// let cwc = CwcAes128::new_from_slice(&[7; 16])?;
    /// let sealed = cwc.encrypt_to_vec(&[1; 11], b"", b"abc")?;
    /// let mut dec = CwcDecryptor::new(&cwc, &[1; 11], b"")?;
    /// let mut pt = Vec::new();
    /// dec.update(&sealed[..2], &mut pt)?; // one byte missing
    /// assert_eq!(dec.finish(&sealed[3..], &mut pt), Err(Error::Authentication));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn finish(mut self, tag: &[u8], out: &mut Vec<u8>) -> Result<()> {
        let _ = out;
        if tag.len() != T::USIZE {
            return Err(Error::InvalidTagLength {
                min: T::USIZE,
                max: T::USIZE,
                got: tag.len(),
            });
        }
        let mut tau = self.cwc.online_tau(&mut self.state);
        let ok = bool::from(crate::tag::tag_matches(&tau, tag));
        tau.zeroize();
        if ok {
            Ok(())
        } else {
            Err(Error::Authentication)
        }
    }
}

impl<C, T: TagSize<P>, P: TagPolicy> core::fmt::Debug for CwcDecryptor<'_, C, T, P> {
    /// Prints the length so far only.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CwcDecryptor")
            .field("len", &self.state.len)
            .finish_non_exhaustive()
    }
}
