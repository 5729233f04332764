//! The STREAM payload of a sealed file (`docs/file-format.md`, section 2.2):
//! chunk `i` of the plaintext sealed under a nonce (or counter block) that
//! encodes `i` and a last-chunk flag, in OCB 1.0, CWC or stateful XCBC-XOR
//! with AES-256. `blockmodes seal` / `open` run these over a parallel
//! pipeline; the Python package calls them chunk by chunk.
//!
//! ```
//! use blockmodes_file::header::Mode;
//! use blockmodes_file::stream::chunk_cipher;
//!
//! let c = chunk_cipher(Mode::Ocb1, &[7; 32])?;
//! let mut sealed = vec![0; c.sealed_len(5)];
//! c.seal(0, true, b"hello", &mut sealed).unwrap();
//! let mut back = vec![0; c.max_opened_len(sealed.len()).unwrap()];
//! assert_eq!(c.open(0, true, &sealed, &mut back), Ok(5));
//! assert_eq!(&back[..5], b"hello");
//! assert!(c.open(0, false, &sealed, &mut back).is_err()); // not the last chunk
//! # Ok::<(), blockmodes_file::failure::Failure>(())
//! ```

use aead::array::typenum::Unsigned;
use aead::inout::InOutBuf;
use aead::{AeadCore, AeadInOut, KeyInit, Nonce, Tag};

use crate::failure::{CliResult, Failure};
use crate::header::Mode;

/// A unit was rejected (it did not authenticate, or could not be processed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rejected;

/// One mode's way of sealing and opening chunk `i` of a STREAM.
pub trait ChunkCipher: Send + Sync {
    /// The sealed length of a chunk of `plain_len` bytes.
    fn sealed_len(&self, plain_len: usize) -> usize;
    /// An upper bound on the plaintext length of a sealed chunk of
    /// `sealed_len` bytes, or `None` if no sealed chunk has that length.
    fn max_opened_len(&self, sealed_len: usize) -> Option<usize>;
    /// Seal chunk `index` into `out` (of length `sealed_len`).
    fn seal(&self, index: u64, last: bool, plain: &[u8], out: &mut [u8]) -> Result<(), Rejected>;
    /// Open chunk `index` into `out` (of length `max_opened_len`), returning
    /// the plaintext length; `Err(Rejected)` if it does not authenticate (then
    /// `out` holds no plaintext).
    fn open(
        &self,
        index: u64,
        last: bool,
        sealed: &[u8],
        out: &mut [u8],
    ) -> Result<usize, Rejected>;
}

/// The STREAM nonce of chunk `index`: zeros, `u64be(index)`, then the
/// last-chunk flag (`docs/file-format.md`, section 2.2). `out` is at least 9 bytes.
pub fn stream_nonce(index: u64, last: bool, out: &mut [u8]) {
    out.fill(0);
    let n = out.len();
    if n >= 9 {
        out[n - 9..n - 1].copy_from_slice(&index.to_be_bytes());
        out[n - 1] = u8::from(last);
    }
}

/// Any AEAD with a nonce of at least 9 bytes, as a [`ChunkCipher`]: the
/// ciphertext then the tag, no associated data.
pub struct AeadChunks<A>(pub A);

impl<A: AeadInOut + Send + Sync> AeadChunks<A> {
    fn nonce(index: u64, last: bool) -> Nonce<A> {
        let mut n = Nonce::<A>::default();
        stream_nonce(index, last, &mut n);
        n
    }
}

impl<A: AeadInOut + Send + Sync> ChunkCipher for AeadChunks<A> {
    fn sealed_len(&self, plain_len: usize) -> usize {
        plain_len + <A as AeadCore>::TagSize::USIZE
    }

    fn max_opened_len(&self, sealed_len: usize) -> Option<usize> {
        sealed_len.checked_sub(<A as AeadCore>::TagSize::USIZE)
    }

    fn seal(&self, index: u64, last: bool, plain: &[u8], out: &mut [u8]) -> Result<(), Rejected> {
        if out.len() != self.sealed_len(plain.len()) {
            return Err(Rejected);
        }
        let (ct, tag_out) = out.split_at_mut(plain.len());
        let buf = InOutBuf::new(plain, ct).map_err(|_| Rejected)?;
        let tag = self
            .0
            .encrypt_inout_detached(&Self::nonce(index, last), &[], buf)
            .map_err(|_| Rejected)?;
        tag_out.copy_from_slice(&tag);
        Ok(())
    }

    fn open(
        &self,
        index: u64,
        last: bool,
        sealed: &[u8],
        out: &mut [u8],
    ) -> Result<usize, Rejected> {
        let len = self.max_opened_len(sealed.len()).ok_or(Rejected)?;
        let (ct, tag) = sealed.split_at(len);
        let tag = Tag::<A>::try_from(tag).map_err(|_| Rejected)?;
        let pt = out.get_mut(..len).ok_or(Rejected)?;
        let buf = InOutBuf::new(ct, pt).map_err(|_| Rejected)?;
        self.0
            .decrypt_inout_detached(&Self::nonce(index, last), &[], buf, &tag)
            .map_err(|_| Rejected)?;
        Ok(len)
    }
}

/// Stateful XCBC-XOR with two AES-256 keys as a [`ChunkCipher`]: chunk `i`
/// is encrypted under the counter block `0^7 || u64be(i) || last` through
/// the library's hazmat API (every counter value is used once: the payload
/// key is fresh per file and `(i, last)` is unique within it). The stored
/// chunk is the whole ciphertext `ctr || y_1 .. y_{n+1}`; opening checks that
/// its counter block is the expected one before decrypting.
pub struct XcbcXorChunks(pub blockmodes::xcbc::XcbcXorStateful<blockmodes::Aes256>);

impl XcbcXorChunks {
    fn counter(index: u64, last: bool) -> [u8; 16] {
        let mut ctr = [0u8; 16];
        stream_nonce(index, last, &mut ctr);
        ctr
    }
}

impl ChunkCipher for XcbcXorChunks {
    fn sealed_len(&self, plain_len: usize) -> usize {
        // ctr, the 10*-padded blocks (a whole padding block when aligned), the check block.
        (plain_len / 16 + 3) * 16
    }

    fn max_opened_len(&self, sealed_len: usize) -> Option<usize> {
        (sealed_len >= 48 && sealed_len.is_multiple_of(16)).then(|| sealed_len - 32)
    }

    fn seal(&self, index: u64, last: bool, plain: &[u8], out: &mut [u8]) -> Result<(), Rejected> {
        use blockmodes::xcbc::hazmat::EncryptWithCounter;
        let ctr = Self::counter(index, last);
        match self.0.encrypt_with_counter_into(&ctr, plain, out) {
            Ok(n) if n == out.len() => Ok(()),
            _ => Err(Rejected),
        }
    }

    fn open(
        &self,
        index: u64,
        last: bool,
        sealed: &[u8],
        out: &mut [u8],
    ) -> Result<usize, Rejected> {
        let ctr = Self::counter(index, last);
        if sealed.get(..16) != Some(&ctr[..]) {
            return Err(Rejected);
        }
        self.0.decrypt_into(sealed, out).map_err(|_| Rejected)
    }
}

/// The cipher of `mode` under the payload key.
#[allow(unreachable_patterns)]
pub fn chunk_cipher(mode: Mode, key: &[u8]) -> CliResult<Box<dyn ChunkCipher>> {
    match mode {
        Mode::Ocb1 => aead_chunks::<blockmodes::ocb1::Ocb1Aes256>(key),
        Mode::XcbcXor => Ok(Box::new(XcbcXorChunks(
            blockmodes::xcbc::XcbcXorStateful::new_from_slice(key)
                .map_err(|e| Failure::usage(format!("internal error: {e}")))?,
        ))),
        Mode::Cwc => aead_chunks::<blockmodes::cwc::CwcAes256>(key),
        _ => Err(Failure::usage(format!(
            "mode {} is not available in this build",
            mode.name()
        ))),
    }
}

/// An AEAD of the library keyed with `key`, as a [`ChunkCipher`].
pub fn aead_chunks<A>(key: &[u8]) -> CliResult<Box<dyn ChunkCipher>>
where
    A: AeadInOut + KeyInit + Send + Sync + 'static,
{
    let aead =
        A::new_from_slice(key).map_err(|_| Failure::usage("internal error: payload key length"))?;
    Ok(Box::new(AeadChunks(aead)))
}
