//! # XECB$-MAC and XECB-MAC (Gligor & Donescu, 2000, sections 5 and 6)
//!
//! The eXtended ECB MACs: every padded block is randomized by its position,
//! enciphered independently, and the results are xored:
//!
//! `y_i = f(x_i + i * r0)` (mod 2^128), `w = r0 xor y_1 xor ... xor y_n`.
//!
//! * XECB$-MAC ([`XecbMac`]): r0 random per message from the OS CSPRNG; the
//!   tag is `y0 || w` (32 bytes) with `y0 = f(r0)`; the verifier recovers
//!   `r0 = f^-1(y0)`.
//! * XECB-MAC ([`XecbMacStatefulSigner`] signs, [`XecbMacStateful`] verifies):
//!   `r0 = f(ctr)` with the signer's message counter; the tag is `ctr || w`.
//!   The signer owns its [`CounterState`] with the same rules and the same
//!   **persistence duty** as the stateful XCBC senders (see [`crate::xcbc`]).
//!
//! These are **MACs: integrity only, no privacy** (the message is not
//! encrypted). Messages are always 10*-padded (n >= 1), so the empty message
//! is one padding block (with n = 0 the stateless tag would be `w = r0`,
//! which allows a forgery). One key K (f = E_K); `new_from_slice` takes K.
//!
//! The paper's properties (section 6) are all here:
//!
//! * **parallel**: every block-cipher call is independent; one-shot calls
//!   batch them through the cipher's multi-block backend, and
//!   [`XecbMac::mac_par`] / [`XecbMac::verify_par`] / `update_par` spread a
//!   large input over the rayon thread pool (w is a xor of per-block terms at
//!   absolute positions: each range is computed apart and the parts xored);
//! * **streaming**: [`XecbSigner::update`] / [`XecbSigner::finalize`] and
//!   [`XecbVerifier`] give the same tag for any split of the input;
//! * **incremental replace**: [`XecbMac::replace_block`] turns the tag of a
//!   message into the tag of the message with one whole block replaced
//!   (`w' = w xor f(x_i + i r0) xor f(x'_i + i r0)`), two cipher calls;
//! * **out-of-order verification**: [`XecbOutOfOrder`] accepts blocks with
//!   their index in any order (duplicates refused) and checks once all are in.
//!
//! Tags are compared in constant time; a failed verification is
//! [`Error::Authentication`], whatever differed.
//!
//! ```
//! use blockmodes::xecb::XecbMac;
//! use blockmodes::Aes128;
//! let mac = XecbMac::<Aes128>::new_from_slice(&[0x11u8; 16])?;
//! let tag = mac.mac(b"pay 100 to bob")?;
//! mac.verify(b"pay 100 to bob", &tag)?;
//! assert!(mac.verify(b"pay 900 to bob", &tag).is_err());
//! # Ok::<(), blockmodes::Error>(())
//! ```

use core::cell::RefCell;

use cipher::KeyInit;
use rayon::prelude::*;
use subtle::ConstantTimeEq;
use zeroize::Zeroize;

use crate::arith::gf128::{Block, xor, xor_in_place};
use crate::arith::modular::{to_block, to_int};
use crate::error::{Error, Result};
use crate::gligor_donescu::keys::random_r0;
use crate::gligor_donescu::offsets::{BATCH, Offsets, wipe, xor_into};
use crate::gligor_donescu::padding::last_block;
use crate::gligor_donescu::simd::Avx512;
use crate::gligor_donescu::xcbc::CounterState;
use crate::oracle::scratch::with_scratch;
use crate::oracle::{
    BlockCipher128, BlockCipher128Dec, ParWork, decrypt_block, ecb_encrypt_blocks, encrypt_block,
    encrypt_par, par_width,
};

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

/// XECB$-MAC: the stateless MAC (r0 random per message). Signs and verifies.
/// **Integrity only.**
///
/// ```
/// use blockmodes::xecb::XecbMac;
/// use blockmodes::Aes256;
/// let mac = XecbMac::<Aes256>::new_from_slice(&[3u8; 32])?;
/// let t1 = mac.mac(b"m")?;
/// let t2 = mac.mac(b"m")?;
/// assert_ne!(t1, t2); // fresh r0 each time
/// mac.verify(b"m", &t1)?;
/// mac.verify(b"m", &t2)?;
/// # Ok::<(), blockmodes::Error>(())
/// ```
#[derive(Clone)]
pub struct XecbMac<C> {
    f: C,
}

/// XECB-MAC, verifier side (and key holder): verification of the stateful
/// MAC (`ctr || w`, `r0 = f(ctr)`) needs no state. The signer is
/// [`XecbMacStatefulSigner`]. **Integrity only.**
///
/// ```
/// use blockmodes::xecb::{XecbMacStateful, XecbMacStatefulSigner};
/// use blockmodes::Aes128;
/// let key = [5u8; 16];
/// let mut signer = XecbMacStatefulSigner::<Aes128>::new_from_slice(&key)?;
/// let tag = signer.mac(b"msg")?;
/// assert_eq!(tag[..16], [0xff; 16]); // ctr = -1
/// XecbMacStateful::<Aes128>::new_from_slice(&key)?.verify(b"msg", &tag)?;
/// # Ok::<(), blockmodes::Error>(())
/// ```
#[derive(Clone)]
pub struct XecbMacStateful<C> {
    f: C,
}

/// XECB-MAC, signer side: owns its message counter (one value per
/// message), is not `Clone`, exports and imports its [`CounterState`] and
/// refuses to wrap. See [`crate::xcbc`] for the persistence duty.
///
/// ```
/// use blockmodes::xecb::{XecbMacStateful, XecbMacStatefulSigner};
/// use blockmodes::xcbc::CounterState;
/// use blockmodes::Aes128;
/// let keys = XecbMacStateful::<Aes128>::new_from_slice(&[5u8; 16])?;
/// let mut s = XecbMacStatefulSigner::from_state(keys.clone(), CounterState::starting_at(&[0; 16]));
/// let tag = s.mac(b"x")?;
/// assert_eq!(tag[..16], [0; 16]);
/// keys.verify(b"x", &tag)?;
/// # Ok::<(), blockmodes::Error>(())
/// ```
///
/// It cannot be cloned (a copy would reuse counter values):
///
/// ```compile_fail
/// fn clone_me<T: Clone>() {}
/// clone_me::<blockmodes::xecb::XecbMacStatefulSigner<blockmodes::Aes128>>();
/// ```
pub struct XecbMacStatefulSigner<C> {
    keys: XecbMacStateful<C>,
    counter: CounterState,
}

/// Streaming signature: [`update`](Self::update) with the message in any
/// pieces, then [`finalize`](Self::finalize). Created by
/// [`XecbMac::signer`] or [`XecbMacStatefulSigner::signer`].
///
/// ```
/// use blockmodes::xecb::XecbMac;
/// use blockmodes::Aes128;
/// let mac = XecbMac::<Aes128>::new_from_slice(&[1u8; 16])?;
/// let mut s = mac.signer()?;
/// s.update(b"hello, ");
/// s.update(b"world");
/// let tag = s.finalize();
/// mac.verify(b"hello, world", &tag)?;
/// # Ok::<(), blockmodes::Error>(())
/// ```
pub struct XecbSigner<'a, C> {
    acc: Accumulator<'a, C>,
}

/// Streaming verification: [`update`](Self::update) with the message in any
/// pieces, then [`verify`](Self::verify). Created by [`XecbMac::verifier`]
/// or [`XecbMacStateful::verifier`].
///
/// ```
/// use blockmodes::xecb::XecbMac;
/// use blockmodes::Aes128;
/// let mac = XecbMac::<Aes128>::new_from_slice(&[1u8; 16])?;
/// let tag = mac.mac(b"streamed message")?;
/// let mut v = mac.verifier(&tag)?;
/// v.update(b"streamed");
/// v.update(b" message");
/// v.verify()?;
/// # Ok::<(), blockmodes::Error>(())
/// ```
pub struct XecbVerifier<'a, C> {
    acc: Accumulator<'a, C>,
    expected: Tag,
}

/// Out-of-order verification (paper, section 6, property 4): the blocks of
/// a message of known length arrive with their index, in any order; the tag
/// is checked once all are in. Created by [`XecbMac::out_of_order`] or
/// [`XecbMacStateful::out_of_order`].
///
/// Block i (1-based) is message bytes `16 (i - 1) .. 16 i`; the last block
/// n = `msg_len / 16 + 1` holds the `msg_len % 16` final bytes (possibly
/// none) and is padded here. A block given twice is refused (a repeated
/// block would otherwise cancel out of w).
///
/// ```
/// use blockmodes::xecb::XecbMac;
/// use blockmodes::Aes128;
/// let mac = XecbMac::<Aes128>::new_from_slice(&[1u8; 16])?;
/// let msg = [7u8; 40]; // blocks 1, 2 full; block 3 = 8 bytes + padding
/// let tag = mac.mac(&msg)?;
/// let mut v = mac.out_of_order(&tag, msg.len())?;
/// v.add_block(3, &msg[32..])?;
/// v.add_block(1, &msg[..16])?;
/// v.add_block(2, &msg[16..32])?;
/// v.verify()?;
/// # Ok::<(), blockmodes::Error>(())
/// ```
pub struct XecbOutOfOrder<'a, C> {
    f: &'a C,
    offsets: Offsets,
    expected: Tag,
    header: Block,
    w: Block,
    msg_len: usize,
    /// n, the number of padded blocks.
    blocks: u64,
    /// One bit per block: seen.
    seen: Vec<u64>,
    count: u64,
}

// ---------------------------------------------------------------------------
// The core: w over runs of blocks at absolute positions.

/// Absorb whole blocks `blocks` at positions `first, first + 1, ...`
/// (1-based): `w ^= f(x_i + i * r0)` for each, in backend-wide batches.
fn absorb<C: BlockCipher128>(
    f: &C,
    offsets: &mut Offsets,
    first: u128,
    blocks: &[Block],
    w: &mut Block,
) {
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
    encrypt_par(f, blocks.len(), &mut work);
    *w = work.w;
    work.w.zeroize();
}

/// [`absorb`] over the rayon pool for large runs: each thread takes a range
/// of positions and its own offset table; the partial w's are xored.
fn absorb_par<C: BlockCipher128 + Sync>(
    f: &C,
    r0: u128,
    first: u128,
    blocks: &[Block],
    w: &mut Block,
) {
    let threads = rayon::current_num_threads().max(1);
    if 16 * blocks.len() < PARALLEL_THRESHOLD || threads == 1 {
        absorb(f, &mut Offsets::new(r0), first, blocks, w);
        return;
    }
    // Chunks of whole batches, a few per thread for balance.
    let per = blocks.len().div_ceil(4 * threads).next_multiple_of(BATCH);
    let part = blocks
        .par_chunks(per)
        .enumerate()
        .map(|(k, chunk)| {
            let mut part = [0u8; 16];
            let pos = first.wrapping_add((k * per) as u128);
            absorb(f, &mut Offsets::new(r0), pos, chunk, &mut part);
            part
        })
        .reduce(|| [0u8; 16], |a, b| xor(&a, &b));
    xor_in_place(w, &part);
}

/// One-shot MAC of a whole message under r0: `w = r0 xor y_1 xor ... xor
/// y_n` (the last block padded) and, with `Y0`, `y0 = f(r0)` too, all in
/// one pass through the backend (y0 rides as one more block after x_n).
fn mac_one_shot<C: BlockCipher128, const Y0: bool>(f: &C, r0: u128, msg: &[u8]) -> (Block, Block) {
    mac_one_shot_with::<C, Y0>(Avx512::detect(), f, r0, msg)
}

/// [`mac_one_shot`] through the AVX-512 passes (`Some`) or the portable
/// batches.
fn mac_one_shot_with<C: BlockCipher128, const Y0: bool>(
    simd: Option<Avx512>,
    f: &C,
    r0: u128,
    msg: &[u8],
) -> (Block, Block) {
    if let Some(simd) = simd {
        return mac_one_shot_simd::<C, Y0>(simd, f, r0, msg);
    }
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
        offsets: Offsets::portable(r0),
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

/// Full message blocks per pass of [`mac_one_shot_simd`].
const CHUNK: usize = 4 * BATCH;

/// The scratch of [`mac_one_shot_simd`]: a chunk of cipher inputs, room for
/// x_n and r0 after it, and the dummy lanes that round the last cipher call
/// up to a whole backend width. One per thread ([`with_scratch`]), so that
/// a message does not clear 5 KiB of stack before it starts; wiped after
/// each message.
#[repr(C, align(64))]
struct Scratch([Block; CHUNK + BATCH]);

impl Default for Scratch {
    fn default() -> Self {
        Self([[0; 16]; CHUNK + BATCH])
    }
}

thread_local! {
    static SCRATCH: RefCell<Option<Box<Scratch>>> = const { RefCell::new(None) };
}

/// [`mac_one_shot`] on AVX-512: per chunk of up to [`CHUNK`] blocks, one
/// pass computes every `x_i + i * r0` into a scratch buffer, the cipher
/// enciphers the buffer in place (full backend widths), and one pass xors
/// the `y_i` into w. (Interleaved per 64-block batch, the offset arithmetic
/// and the cipher compete for the same vector ports; in passes of their own
/// each runs at its full rate.)
fn mac_one_shot_simd<C: BlockCipher128, const Y0: bool>(
    simd: Avx512,
    f: &C,
    r0: u128,
    msg: &[u8],
) -> (Block, Block) {
    with_scratch(&SCRATCH, |scratch| {
        let buf = &mut scratch.0;
        let (full, _) = msg.as_chunks::<16>();
        let mut w = to_block(r0);
        let mut y0 = [0u8; 16];
        let mut used = 0;
        let mut pos = 0;
        // The backend's width (1 for a counting cipher: no dummy lanes).
        let width = par_width(f).max(1);
        loop {
            let k = (full.len() - pos).min(CHUNK);
            simd.apply::<true>(r0, pos as u128 + 1, &full[pos..pos + k], &mut buf[..k]);
            let last = pos + k == full.len();
            let mut count = k;
            if last {
                // x_n + n r0 (padded), then r0 for y0 = f(r0).
                let n = full.len() as u128 + 1;
                let x_n = to_int(&last_block(&msg[16 * full.len()..]));
                buf[count] = to_block(x_n.wrapping_add(r0.wrapping_mul(n)));
                count += 1;
                if Y0 {
                    buf[count] = to_block(r0);
                    count += 1;
                }
            }
            // Whole backend widths (dummy lanes past `count`) unless only a
            // few single blocks remain.
            let padded = count.next_multiple_of(width);
            let calls = if count % width >= 4 && padded <= buf.len() {
                padded
            } else {
                count
            };
            used = used.max(calls);
            ecb_encrypt_blocks(f, &mut buf[..calls]);
            let ys = count - (last && Y0) as usize;
            simd.xor_into(&buf[..ys], &mut w);
            if last {
                if Y0 {
                    y0 = buf[ys];
                }
                break;
            }
            pos += k;
        }
        wipe(&mut buf[..used]);
        let res = (y0, w);
        w.zeroize();
        res
    })
}

/// The tag `header || w`.
fn tag_of(header: &Block, w: &Block) -> Tag {
    let mut tag = [0u8; TAG_LEN];
    tag[..16].copy_from_slice(header);
    tag[16..].copy_from_slice(w);
    tag
}

/// XECB$-MAC in one pass: `f(r0) || w`.
fn sign_with_r0<C: BlockCipher128>(f: &C, r0: u128, msg: &[u8]) -> Tag {
    let (y0, mut w) = mac_one_shot::<C, true>(f, r0, msg);
    let tag = tag_of(&y0, &w);
    w.zeroize();
    tag
}

/// XECB-MAC in one pass: `ctr || w` with `r0 = f(ctr)`.
fn sign_with_counter<C: BlockCipher128>(f: &C, ctr: u128, msg: &[u8]) -> Tag {
    let ctr = to_block(ctr);
    let mut r0 = to_int(&encrypt_block(f, &ctr));
    let (_, mut w) = mac_one_shot::<C, false>(f, r0, msg);
    let tag = tag_of(&ctr, &w);
    r0.zeroize();
    w.zeroize();
    tag
}

/// Check `tag` (whose header gave r0) against `msg` in one pass.
fn verify_one_shot<C: BlockCipher128>(f: &C, r0: u128, msg: &[u8], tag: &Tag) -> Result<()> {
    let (_, mut w) = mac_one_shot::<C, false>(f, r0, msg);
    let mut got = tag_of(&header(tag), &w);
    let res = check(&got, tag);
    w.zeroize();
    got.zeroize();
    res
}

/// The state of one MAC computation: r0 (in the offset table), the header
/// of the tag, the blocks absorbed so far, a partial block, and w.
struct Accumulator<'a, C> {
    f: &'a C,
    offsets: Offsets,
    header: Block,
    /// Whole blocks absorbed so far.
    index: u64,
    buf: Block,
    buf_len: usize,
    w: Block,
}

impl<'a, C: BlockCipher128> Accumulator<'a, C> {
    fn new(f: &'a C, header: Block, r0: u128) -> Self {
        Self {
            f,
            offsets: Offsets::new(r0),
            header,
            index: 0,
            buf: [0; 16],
            buf_len: 0,
            w: to_block(r0), // w = r0 xor y_1 xor ...
        }
    }

    /// Fill the partial block; return the rest of `data` once it is absorbed.
    fn top_up<'d>(&mut self, data: &'d [u8]) -> &'d [u8] {
        if self.buf_len == 0 {
            return data;
        }
        let take = (16 - self.buf_len).min(data.len());
        self.buf[self.buf_len..self.buf_len + take].copy_from_slice(&data[..take]);
        self.buf_len += take;
        if self.buf_len == 16 {
            // Always-padding: a full block is a message block whatever follows.
            let b = [self.buf];
            absorb(
                self.f,
                &mut self.offsets,
                self.index as u128 + 1,
                &b,
                &mut self.w,
            );
            self.index += 1;
            self.buf_len = 0;
        }
        &data[take..]
    }

    /// Keep the tail of `data` (< 16 bytes) for later. (After [`top_up`],
    /// either the partial block is empty or all data went into it.)
    fn keep(&mut self, tail: &[u8]) {
        if !tail.is_empty() {
            self.buf[..tail.len()].copy_from_slice(tail);
            self.buf_len = tail.len();
        }
    }

    fn update(&mut self, data: &[u8]) {
        let data = self.top_up(data);
        let (blocks, tail) = data.as_chunks::<16>();
        absorb(
            self.f,
            &mut self.offsets,
            self.index as u128 + 1,
            blocks,
            &mut self.w,
        );
        self.index += blocks.len() as u64;
        self.keep(tail);
    }

    fn update_par(&mut self, data: &[u8])
    where
        C: Sync,
    {
        let data = self.top_up(data);
        let (blocks, tail) = data.as_chunks::<16>();
        let r0 = self.offsets.r0();
        absorb_par(self.f, r0, self.index as u128 + 1, blocks, &mut self.w);
        self.index += blocks.len() as u64;
        self.keep(tail);
    }

    /// Absorb the padded last block; the tag `header || w`.
    fn finish(&mut self) -> Tag {
        let last = [last_block(&self.buf[..self.buf_len])];
        absorb(
            self.f,
            &mut self.offsets,
            self.index as u128 + 1,
            &last,
            &mut self.w,
        );
        let mut tag = [0u8; TAG_LEN];
        tag[..16].copy_from_slice(&self.header);
        tag[16..].copy_from_slice(&self.w);
        tag
    }
}

impl<C> Drop for Accumulator<'_, C> {
    fn drop(&mut self) {
        self.buf.zeroize();
        self.w.zeroize();
    }
}

/// `tag` as a [`Tag`], or [`Error::InvalidTagLength`].
fn parse_tag(tag: &[u8]) -> Result<Tag> {
    tag.try_into().map_err(|_| Error::InvalidTagLength {
        min: TAG_LEN,
        max: TAG_LEN,
        got: tag.len(),
    })
}

/// The header (y0 or ctr) of a tag.
fn header(tag: &Tag) -> Block {
    let mut h = [0u8; 16];
    h.copy_from_slice(&tag[..16]);
    h
}

/// Constant-time comparison of two tags: `Ok` or [`Error::Authentication`].
fn check(got: &Tag, expected: &Tag) -> Result<()> {
    if bool::from(got.ct_eq(expected)) {
        Ok(())
    } else {
        Err(Error::Authentication)
    }
}

/// `w' = w xor f(x_i + i r0) xor f(x'_i + i r0)` for a whole message block.
fn replace<C: BlockCipher128>(
    f: &C,
    r0: u128,
    tag: &Tag,
    msg_len: usize,
    index: u64,
    old: &Block,
    new: &Block,
) -> Result<Tag> {
    let full = (msg_len / 16) as u64;
    if index == 0 || index > full {
        return Err(Error::InvalidParameter(
            "replace_block: index must name a whole message block (1 ..= msg_len / 16)",
        ));
    }
    let mut w = [0u8; 16];
    w.copy_from_slice(&tag[16..]);
    let mut offsets = Offsets::new(r0);
    absorb(
        f,
        &mut offsets,
        index as u128,
        core::slice::from_ref(old),
        &mut w,
    );
    absorb(
        f,
        &mut offsets,
        index as u128,
        core::slice::from_ref(new),
        &mut w,
    );
    let mut out = *tag;
    out[16..].copy_from_slice(&w);
    w.zeroize();
    Ok(out)
}

// ---------------------------------------------------------------------------
// XECB$-MAC

impl<C: BlockCipher128> XecbMac<C> {
    /// From the keyed cipher f = E_K.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use cipher::KeyInit;
    /// let mac = XecbMac::from_cipher(aes::Aes128::new(&[0u8; 16].into()));
    /// assert_eq!(mac.mac(b"")?.len(), 32);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn from_cipher(f: C) -> Self {
        Self { f }
    }

    /// From the key K ([`Error::InvalidKeyLength`] if the cipher rejects its length).
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// assert!(XecbMac::<Aes128>::new_from_slice(&[0u8; 15]).is_err());
    /// ```
    pub fn new_from_slice(key: &[u8]) -> Result<Self>
    where
        C: KeyInit,
    {
        crate::oracle::cipher_from_key(key).map(Self::from_cipher)
    }

    /// MAC `msg` under a fresh random r0: the tag `y0 || w`.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let tag = mac.mac(&[1u8; 1000])?;
    /// mac.verify(&[1u8; 1000], &tag)?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn mac(&self, msg: &[u8]) -> Result<Tag> {
        let mut r0 = random_r0()?;
        let tag = sign_with_r0(&self.f, r0, msg);
        r0.zeroize();
        Ok(tag)
    }

    /// A streaming signer under a fresh random r0.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let mut s = mac.signer()?;
    /// for chunk in [&b"a"[..], b"bc", b""] {
    ///     s.update(chunk);
    /// }
    /// mac.verify(b"abc", &s.finalize())?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn signer(&self) -> Result<XecbSigner<'_, C>> {
        let mut r0 = random_r0()?;
        let s = self.signer_with_r0(r0);
        r0.zeroize();
        Ok(s)
    }

    fn signer_with_r0(&self, r0: u128) -> XecbSigner<'_, C> {
        let y0 = encrypt_block(&self.f, &to_block(r0));
        XecbSigner {
            acc: Accumulator::new(&self.f, y0, r0),
        }
    }

    /// [`mac`](Self::mac) spread over the rayon thread pool for inputs of
    /// [`PARALLEL_THRESHOLD`] bytes or more.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let big = vec![3u8; 1 << 20];
    /// let tag = mac.mac_par(&big)?;
    /// mac.verify(&big, &tag)?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn mac_par(&self, msg: &[u8]) -> Result<Tag>
    where
        C: Sync,
    {
        let mut s = self.signer()?;
        s.update_par(msg);
        Ok(s.finalize())
    }
}

/// What XECB$-MAC and XECB-MAC share once a tag is in hand: both recover
/// r0 from the tag's header (`r0 = f^-1(y0)`, or `r0 = f(ctr)`) and then
/// verify, update or replace alike.
trait TagHeader<C: BlockCipher128> {
    /// The keyed cipher f.
    fn f(&self) -> &C;
    /// r0 from the tag's header.
    fn r0_of(&self, tag: &Tag) -> u128;

    /// Parse `tag`, recover r0, run `then` with f, r0 and the tag; r0 is
    /// wiped after.
    fn with_r0<'a, T>(
        &'a self,
        tag: &[u8],
        then: impl FnOnce(&'a C, u128, &Tag) -> Result<T>,
    ) -> Result<T>
    where
        C: 'a,
    {
        let tag = parse_tag(tag)?;
        let mut r0 = self.r0_of(&tag);
        let res = then(self.f(), r0, &tag);
        r0.zeroize();
        res
    }
}

impl<C: BlockCipher128Dec> TagHeader<C> for XecbMac<C> {
    fn f(&self) -> &C {
        &self.f
    }
    /// r0 = f^-1(y0).
    fn r0_of(&self, tag: &Tag) -> u128 {
        to_int(&decrypt_block(&self.f, &header(tag)))
    }
}

impl<C: BlockCipher128> TagHeader<C> for XecbMacStateful<C> {
    fn f(&self) -> &C {
        &self.f
    }
    /// r0 = f(ctr).
    fn r0_of(&self, tag: &Tag) -> u128 {
        to_int(&encrypt_block(&self.f, &header(tag)))
    }
}

impl<C: BlockCipher128Dec> XecbMac<C> {
    /// Verify `tag` (32 bytes: `y0 || w`) for `msg`.
    /// [`Error::InvalidTagLength`] or [`Error::Authentication`].
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let mut tag = mac.mac(b"data")?;
    /// tag[31] ^= 1;
    /// assert_eq!(mac.verify(b"data", &tag), Err(blockmodes::Error::Authentication));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn verify(&self, msg: &[u8], tag: &[u8]) -> Result<()> {
        self.with_r0(tag, |f, r0, tag| verify_one_shot(f, r0, msg, tag))
    }

    /// [`verify`](Self::verify) spread over the rayon thread pool for inputs
    /// of [`PARALLEL_THRESHOLD`] bytes or more.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let tag = mac.mac(b"small")?;
    /// mac.verify_par(b"small", &tag)?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn verify_par(&self, msg: &[u8], tag: &[u8]) -> Result<()>
    where
        C: Sync,
    {
        let mut v = self.verifier(tag)?;
        v.update_par(msg);
        v.verify()
    }

    /// A streaming verifier for `tag`.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// assert!(mac.verifier(&[0u8; 31]).is_err()); // tags are 32 bytes
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn verifier(&self, tag: &[u8]) -> Result<XecbVerifier<'_, C>> {
        self.with_r0(tag, |f, r0, expected| {
            Ok(XecbVerifier {
                acc: Accumulator::new(f, header(expected), r0),
                expected: *expected,
            })
        })
    }

    /// Out-of-order verification of `tag` for a message of `msg_len` bytes.
    /// [`Error::InputTooLong`] if the bookkeeping (one bit per block) cannot
    /// be allocated.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let tag = mac.mac(&[9u8; 32])?;
    /// let mut v = mac.out_of_order(&tag, 32)?;
    /// v.add_range(2, &[9u8; 16])?; // block 2, and the padding block 3
    /// v.add_block(1, &[9u8; 16])?;
    /// v.verify()?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn out_of_order(&self, tag: &[u8], msg_len: usize) -> Result<XecbOutOfOrder<'_, C>> {
        self.with_r0(tag, |f, r0, expected| {
            XecbOutOfOrder::new(f, *expected, r0, msg_len)
        })
    }

    /// Incremental update (paper, section 6, property 3): the tag of the
    /// message whose whole block `index` (1-based, `1 ..= msg_len / 16`: not
    /// the padded last block) changes from `old` to `new`, from the tag of
    /// the original message: `w' = w xor f(x_i + i r0) xor f(x'_i + i r0)`,
    /// same `y0`. Two block-cipher calls. The old tag is not verified:
    /// verify it first if it may be forged.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let mut doc = [0u8; 64];
    /// let tag = mac.mac(&doc)?;
    /// let new = [0xab; 16];
    /// let tag2 = mac.replace_block(&tag, doc.len(), 3, &[0; 16], &new)?;
    /// doc[32..48].copy_from_slice(&new);
    /// mac.verify(&doc, &tag2)?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn replace_block(
        &self,
        tag: &[u8],
        msg_len: usize,
        index: u64,
        old: &Block,
        new: &Block,
    ) -> Result<Tag> {
        self.with_r0(tag, |f, r0, tag| {
            replace(f, r0, tag, msg_len, index, old, new)
        })
    }
}

// ---------------------------------------------------------------------------
// XECB-MAC

impl<C: BlockCipher128> XecbMacStateful<C> {
    /// From the keyed cipher f = E_K.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMacStateful;
    /// use cipher::KeyInit;
    /// let keys = XecbMacStateful::from_cipher(aes::Aes128::new(&[0u8; 16].into()));
    /// assert!(keys.verify(b"", &[0u8; 32]).is_err());
    /// ```
    pub fn from_cipher(f: C) -> Self {
        Self { f }
    }

    /// From the key K.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMacStateful;
    /// use blockmodes::Aes192;
    /// assert!(XecbMacStateful::<Aes192>::new_from_slice(&[0u8; 24]).is_ok());
    /// ```
    pub fn new_from_slice(key: &[u8]) -> Result<Self>
    where
        C: KeyInit,
    {
        crate::oracle::cipher_from_key(key).map(Self::from_cipher)
    }

    fn signer_with_counter(&self, ctr: u128) -> XecbSigner<'_, C> {
        let ctr = to_block(ctr);
        let mut r0 = to_int(&encrypt_block(&self.f, &ctr));
        let acc = Accumulator::new(&self.f, ctr, r0);
        r0.zeroize();
        XecbSigner { acc }
    }

    /// Verify `tag` (32 bytes: `ctr || w`) for `msg`.
    ///
    /// ```
    /// use blockmodes::xecb::{XecbMacStateful, XecbMacStatefulSigner};
    /// use blockmodes::Aes128;
    /// let keys = XecbMacStateful::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let tag = XecbMacStatefulSigner::new(keys.clone()).mac(b"m")?;
    /// keys.verify(b"m", &tag)?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn verify(&self, msg: &[u8], tag: &[u8]) -> Result<()> {
        self.with_r0(tag, |f, r0, tag| verify_one_shot(f, r0, msg, tag))
    }

    /// [`verify`](Self::verify) spread over the rayon thread pool for large inputs.
    ///
    /// ```
    /// use blockmodes::xecb::{XecbMacStateful, XecbMacStatefulSigner};
    /// use blockmodes::Aes128;
    /// let keys = XecbMacStateful::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let big = vec![1u8; 300_000];
    /// let tag = XecbMacStatefulSigner::new(keys.clone()).mac_par(&big)?;
    /// keys.verify_par(&big, &tag)?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn verify_par(&self, msg: &[u8], tag: &[u8]) -> Result<()>
    where
        C: Sync,
    {
        let mut v = self.verifier(tag)?;
        v.update_par(msg);
        v.verify()
    }

    /// A streaming verifier for `tag`.
    ///
    /// ```
    /// use blockmodes::xecb::{XecbMacStateful, XecbMacStatefulSigner};
    /// use blockmodes::Aes128;
    /// let keys = XecbMacStateful::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let tag = XecbMacStatefulSigner::new(keys.clone()).mac(b"abcdef")?;
    /// let mut v = keys.verifier(&tag)?;
    /// v.update(b"abc");
    /// v.update(b"def");
    /// v.verify()?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn verifier(&self, tag: &[u8]) -> Result<XecbVerifier<'_, C>> {
        self.with_r0(tag, |f, r0, expected| {
            Ok(XecbVerifier {
                acc: Accumulator::new(f, header(expected), r0),
                expected: *expected,
            })
        })
    }

    /// Out-of-order verification of `tag` for a message of `msg_len` bytes;
    /// see [`XecbOutOfOrder`].
    ///
    /// ```
    /// use blockmodes::xecb::{XecbMacStateful, XecbMacStatefulSigner};
    /// use blockmodes::Aes128;
    /// let keys = XecbMacStateful::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let tag = XecbMacStatefulSigner::new(keys.clone()).mac(&[2u8; 20])?;
    /// let mut v = keys.out_of_order(&tag, 20)?;
    /// v.add_block(2, &[2u8; 4])?;
    /// v.add_block(1, &[2u8; 16])?;
    /// v.verify()?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn out_of_order(&self, tag: &[u8], msg_len: usize) -> Result<XecbOutOfOrder<'_, C>> {
        self.with_r0(tag, |f, r0, expected| {
            XecbOutOfOrder::new(f, *expected, r0, msg_len)
        })
    }

    /// Incremental update of a tag when whole block `index` changes from
    /// `old` to `new`; see [`XecbMac::replace_block`].
    ///
    /// ```
    /// use blockmodes::xecb::{XecbMacStateful, XecbMacStatefulSigner};
    /// use blockmodes::Aes128;
    /// let keys = XecbMacStateful::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let mut doc = [0u8; 33];
    /// let tag = XecbMacStatefulSigner::new(keys.clone()).mac(&doc)?;
    /// let tag2 = keys.replace_block(&tag, doc.len(), 1, &[0; 16], &[1; 16])?;
    /// doc[..16].copy_from_slice(&[1; 16]);
    /// keys.verify(&doc, &tag2)?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn replace_block(
        &self,
        tag: &[u8],
        msg_len: usize,
        index: u64,
        old: &Block,
        new: &Block,
    ) -> Result<Tag> {
        self.with_r0(tag, |f, r0, tag| {
            replace(f, r0, tag, msg_len, index, old, new)
        })
    }
}

impl<C: BlockCipher128> XecbMacStatefulSigner<C> {
    /// A signer for a **fresh** key, its counter at 2^128 - 1.
    ///
    /// ```
    /// use blockmodes::xecb::{XecbMacStateful, XecbMacStatefulSigner};
    /// use blockmodes::Aes128;
    /// let s = XecbMacStatefulSigner::new(XecbMacStateful::<Aes128>::new_from_slice(&[0u8; 16])?);
    /// assert_eq!(s.counter_state().next_counter(), Some([0xff; 16]));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn new(keys: XecbMacStateful<C>) -> Self {
        Self::from_state(keys, CounterState::new())
    }

    /// A signer resuming from a saved [`CounterState`].
    ///
    /// ```
    /// use blockmodes::xecb::{XecbMacStateful, XecbMacStatefulSigner};
    /// use blockmodes::xcbc::CounterState;
    /// use blockmodes::Aes128;
    /// let keys = XecbMacStateful::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let s = XecbMacStatefulSigner::from_state(keys, CounterState::starting_at(&[0; 16]));
    /// assert_eq!(s.counter_state().next_counter(), Some([0; 16]));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn from_state(keys: XecbMacStateful<C>, counter: CounterState) -> Self {
        Self { keys, counter }
    }

    /// A signer for a **fresh** key K, its counter at 2^128 - 1.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMacStatefulSigner;
    /// use blockmodes::Aes128;
    /// assert!(XecbMacStatefulSigner::<Aes128>::new_from_slice(&[0u8; 16]).is_ok());
    /// ```
    pub fn new_from_slice(key: &[u8]) -> Result<Self>
    where
        C: KeyInit,
    {
        XecbMacStateful::new_from_slice(key).map(Self::new)
    }

    /// The counter state to persist (see [`crate::xcbc`]).
    ///
    /// ```
    /// use blockmodes::xecb::XecbMacStatefulSigner;
    /// use blockmodes::Aes128;
    /// let mut s = XecbMacStatefulSigner::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// s.mac(b"")?;
    /// assert_eq!(s.counter_state().next_counter(), Some([0; 16]));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn counter_state(&self) -> CounterState {
        self.counter
    }

    /// The verifier side of this signer's key.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMacStatefulSigner;
    /// use blockmodes::Aes128;
    /// let mut s = XecbMacStatefulSigner::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let tag = s.mac(b"m")?;
    /// s.receiver().verify(b"m", &tag)?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn receiver(&self) -> &XecbMacStateful<C> {
        &self.keys
    }

    /// A streaming signer under the next counter value (taken now: the
    /// counter advances even if the signer is dropped unfinished).
    /// [`Error::CounterExhausted`] once every value has been used.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMacStatefulSigner;
    /// use blockmodes::Aes128;
    /// let mut s = XecbMacStatefulSigner::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let mut st = s.signer()?;
    /// st.update(b"part 1, ");
    /// st.update(b"part 2");
    /// let tag = st.finalize();
    /// s.receiver().verify(b"part 1, part 2", &tag)?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn signer(&mut self) -> Result<XecbSigner<'_, C>> {
        let ctr = self.counter.take(1)?;
        Ok(self.keys.signer_with_counter(ctr))
    }

    /// MAC `msg` under the next counter value: the tag `ctr || w`.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMacStatefulSigner;
    /// use blockmodes::Aes128;
    /// let mut s = XecbMacStatefulSigner::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// assert_ne!(s.mac(b"m")?, s.mac(b"m")?);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn mac(&mut self, msg: &[u8]) -> Result<Tag> {
        let ctr = self.counter.take(1)?;
        Ok(sign_with_counter(&self.keys.f, ctr, msg))
    }

    /// [`mac`](Self::mac) spread over the rayon thread pool for large inputs.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMacStatefulSigner;
    /// use blockmodes::Aes128;
    /// let mut s = XecbMacStatefulSigner::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let tag = s.mac_par(&[0u8; 100])?;
    /// s.receiver().verify(&[0u8; 100], &tag)?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn mac_par(&mut self, msg: &[u8]) -> Result<Tag>
    where
        C: Sync,
    {
        let mut s = self.signer()?;
        s.update_par(msg);
        Ok(s.finalize())
    }
}

// ---------------------------------------------------------------------------
// Streaming

impl<C: BlockCipher128> XecbSigner<'_, C> {
    /// Absorb the next piece of the message.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let mut s = mac.signer()?;
    /// s.update(&[1u8; 7]);
    /// s.update(&[1u8; 30]);
    /// mac.verify(&[1u8; 37], &s.finalize())?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn update(&mut self, data: &[u8]) {
        self.acc.update(data);
    }

    /// As [`update`](Self::update), spread over the rayon thread pool when
    /// `data` holds [`PARALLEL_THRESHOLD`] bytes or more (for example the
    /// large chunks a file reader hands over).
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let mut s = mac.signer()?;
    /// s.update_par(&vec![5u8; 200_000]);
    /// s.update_par(&vec![5u8; 3]);
    /// mac.verify(&vec![5u8; 200_003], &s.finalize())?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn update_par(&mut self, data: &[u8])
    where
        C: Sync,
    {
        self.acc.update_par(data);
    }

    /// Pad the message and return the tag (`y0 || w` or `ctr || w`).
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let tag = mac.signer()?.finalize(); // the empty message
    /// mac.verify(b"", &tag)?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn finalize(mut self) -> Tag {
        self.acc.finish()
    }
}

impl<C: BlockCipher128> XecbVerifier<'_, C> {
    /// Absorb the next piece of the message.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let tag = mac.mac(b"xyz")?;
    /// let mut v = mac.verifier(&tag)?;
    /// v.update(b"xy");
    /// v.update(b"z");
    /// assert!(v.verify().is_ok());
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn update(&mut self, data: &[u8]) {
        self.acc.update(data);
    }

    /// As [`update`](Self::update), spread over the rayon thread pool for
    /// large pieces.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let data = vec![8u8; 150_000];
    /// let tag = mac.mac(&data)?;
    /// let mut v = mac.verifier(&tag)?;
    /// v.update_par(&data);
    /// v.verify()?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn update_par(&mut self, data: &[u8])
    where
        C: Sync,
    {
        self.acc.update_par(data);
    }

    /// Pad the message and compare the tag in constant time:
    /// [`Error::Authentication`] if it differs.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let tag = mac.mac(b"one")?;
    /// let mut v = mac.verifier(&tag)?;
    /// v.update(b"two");
    /// assert!(v.verify().is_err());
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn verify(mut self) -> Result<()> {
        let mut got = self.acc.finish();
        let res = check(&got, &self.expected);
        got.zeroize();
        res
    }
}

// ---------------------------------------------------------------------------
// Out-of-order verification

impl<'a, C: BlockCipher128> XecbOutOfOrder<'a, C> {
    fn new(f: &'a C, expected: Tag, r0: u128, msg_len: usize) -> Result<Self> {
        let blocks = (msg_len / 16) as u64 + 1;
        let words = blocks.div_ceil(64);
        let too_long = || Error::InputTooLong {
            max: usize::MAX as u64,
            got: msg_len as u64,
        };
        let words = usize::try_from(words).map_err(|_| too_long())?;
        let mut seen = Vec::new();
        seen.try_reserve_exact(words).map_err(|_| too_long())?;
        seen.resize(words, 0u64);
        Ok(Self {
            f,
            offsets: Offsets::new(r0),
            header: header(&expected),
            expected,
            w: to_block(r0),
            msg_len,
            blocks,
            seen,
            count: 0,
        })
    }

    /// n, the number of (padded) blocks the message has.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let tag = mac.mac(&[0u8; 16])?;
    /// assert_eq!(mac.out_of_order(&tag, 16)?.blocks(), 2);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// Blocks still missing.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let tag = mac.mac(&[0u8; 16])?;
    /// let mut v = mac.out_of_order(&tag, 16)?;
    /// v.add_block(2, &[])?;
    /// assert_eq!(v.missing(), 1);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn missing(&self) -> u64 {
        self.blocks - self.count
    }

    /// Block `index` (1-based): 16 bytes, or for the last block n the
    /// message's `msg_len % 16` final bytes (padded here).
    /// [`Error::InvalidParameter`] for an index out of range, a wrong length
    /// or a block already given; the state is unchanged on error.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let tag = mac.mac(b"short")?;
    /// let mut v = mac.out_of_order(&tag, 5)?;
    /// assert!(v.add_block(2, b"short").is_err()); // only block 1 exists
    /// v.add_block(1, b"short")?;
    /// assert!(v.add_block(1, b"short").is_err()); // given twice
    /// v.verify()?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn add_block(&mut self, index: u64, data: &[u8]) -> Result<()> {
        if index == 0 || index > self.blocks {
            return Err(Error::InvalidParameter("block index out of range"));
        }
        let want = if index == self.blocks {
            self.msg_len % 16
        } else {
            16
        };
        if data.len() != want {
            return Err(Error::InvalidParameter(
                "a block is 16 bytes, the last one msg_len % 16",
            ));
        }
        if index == self.blocks {
            self.absorb_checked(index, &[], Some(data))
        } else {
            let (block, _) = data.as_chunks::<16>(); // exactly one, checked above
            self.absorb_checked(index, block, None)
        }
    }

    /// A run of blocks from block `first` (1-based): `data` is the message's
    /// bytes `16 (first - 1) ..` and must end on a block boundary or at the
    /// message's end (in which case it also covers the padded last block).
    /// Errors as for [`add_block`](Self::add_block).
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let msg = [4u8; 100];
    /// let tag = mac.mac(&msg)?;
    /// let mut v = mac.out_of_order(&tag, msg.len())?;
    /// v.add_range(5, &msg[64..])?; // blocks 5, 6 and the padded block 7
    /// v.add_range(1, &msg[..64])?; // blocks 1 ..= 4
    /// v.verify()?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn add_range(&mut self, first: u64, data: &[u8]) -> Result<()> {
        if first == 0 || first > self.blocks {
            return Err(Error::InvalidParameter("block index out of range"));
        }
        let start = (first - 1) as usize * 16;
        let end = start
            .checked_add(data.len())
            .filter(|&e| e <= self.msg_len)
            .ok_or(Error::InvalidParameter("range beyond the message's end"))?;
        let at_end = end == self.msg_len;
        if !at_end && !data.len().is_multiple_of(16) {
            return Err(Error::InvalidParameter(
                "a range ends on a block boundary or at the message's end",
            ));
        }
        let (full, tail) = data.as_chunks::<16>();
        self.absorb_checked(first, full, at_end.then_some(tail))
    }

    /// Absorb whole blocks `full` from position `first`, then (if given) the
    /// message's last bytes `last`, padded, as block n; refuse (changing
    /// nothing) if any of these blocks was already given.
    fn absorb_checked(&mut self, first: u64, full: &[Block], last: Option<&[u8]>) -> Result<()> {
        let count = full.len() as u64 + u64::from(last.is_some());
        let range = first..first + count;
        if range.end > self.blocks + 1 {
            return Err(Error::InvalidParameter("range beyond the message's end"));
        }
        if range.clone().any(|i| self.is_seen(i)) {
            return Err(Error::InvalidParameter("block given twice"));
        }
        absorb(self.f, &mut self.offsets, first as u128, full, &mut self.w);
        if let Some(tail) = last {
            let block = [last_block(tail)];
            let pos = first as u128 + full.len() as u128;
            absorb(self.f, &mut self.offsets, pos, &block, &mut self.w);
        }
        for i in range {
            self.mark(i);
        }
        self.count += count;
        Ok(())
    }

    fn is_seen(&self, i: u64) -> bool {
        let i = i - 1;
        self.seen[(i / 64) as usize] >> (i % 64) & 1 == 1
    }

    fn mark(&mut self, i: u64) {
        let i = i - 1;
        self.seen[(i / 64) as usize] |= 1 << (i % 64);
    }

    /// Check the tag once every block is in: [`Error::InvalidParameter`] if
    /// blocks are missing, [`Error::Authentication`] if the tag differs.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let tag = mac.mac(&[1u8; 16])?;
    /// let mut v = mac.out_of_order(&tag, 16)?;
    /// v.add_block(1, &[1u8; 16])?;
    /// assert!(v.verify().is_err()); // the padding block 2 was never given
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn verify(self) -> Result<()> {
        if self.count != self.blocks {
            return Err(Error::InvalidParameter(
                "out-of-order verification: blocks missing",
            ));
        }
        let mut got = [0u8; TAG_LEN];
        got[..16].copy_from_slice(&self.header);
        got[16..].copy_from_slice(&self.w);
        let res = check(&got, &self.expected);
        got.zeroize();
        res
    }
}

impl<C> Drop for XecbOutOfOrder<'_, C> {
    fn drop(&mut self) {
        self.w.zeroize();
    }
}

/// **Hazardous:** signing with a caller-chosen r0 or counter value, for test
/// vectors and protocols that manage the counter themselves. The caller
/// must never use an r0, or a counter value, twice under one key (and a
/// stateless r0 must be uniformly random and secret); see
/// [`crate::xcbc::hazmat`].
///
/// ```
/// use blockmodes::xecb::hazmat::{SignWithCounter, SignWithR0};
/// use blockmodes::xecb::{XecbMac, XecbMacStateful};
/// use blockmodes::Aes128;
/// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
/// let tag = mac.sign_with_r0(&[1; 16], b"v");
/// mac.verify(b"v", &tag)?;
/// let keys = XecbMacStateful::<Aes128>::new_from_slice(&[0u8; 16])?;
/// let tag = keys.sign_with_counter(&[0; 16], b"v");
/// keys.verify(b"v", &tag)?;
/// # Ok::<(), blockmodes::Error>(())
/// ```
pub mod hazmat {
    use super::*;

    /// **Hazardous:** XECB$-MAC with a caller-chosen r0.
    ///
    /// ```
    /// use blockmodes::xecb::hazmat::SignWithR0;
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// assert_eq!(mac.sign_with_r0(&[1; 16], b"a"), mac.sign_with_r0(&[1; 16], b"a"));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub trait SignWithR0 {
        /// The tag `y0 || w` of `msg` with the given r0.
        fn sign_with_r0(&self, r0: &Block, msg: &[u8]) -> Tag;
    }

    /// **Hazardous:** XECB-MAC with an explicit counter value, without a
    /// signer object that tracks it.
    ///
    /// ```
    /// use blockmodes::xecb::hazmat::SignWithCounter;
    /// use blockmodes::xecb::XecbMacStateful;
    /// use blockmodes::Aes128;
    /// let keys = XecbMacStateful::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// assert_eq!(keys.sign_with_counter(&[3; 16], b"a")[..16], [3; 16]);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub trait SignWithCounter {
        /// The tag `ctr || w` of `msg` under counter value `ctr`.
        fn sign_with_counter(&self, ctr: &Block, msg: &[u8]) -> Tag;
    }

    impl<C: BlockCipher128> SignWithR0 for XecbMac<C> {
        fn sign_with_r0(&self, r0: &Block, msg: &[u8]) -> Tag {
            super::sign_with_r0(&self.f, to_int(r0), msg)
        }
    }

    impl<C: BlockCipher128> SignWithCounter for XecbMacStateful<C> {
        fn sign_with_counter(&self, ctr: &Block, msg: &[u8]) -> Tag {
            super::sign_with_counter(&self.f, to_int(ctr), msg)
        }
    }
}

#[cfg(test)]
mod one_shot_tests {
    use super::*;
    use crate::arith::modular::add_mod128;
    use cipher::KeyInit;

    /// The AVX-512 passes and the portable batches against the definition
    /// (`w = r0 xor f(x_1 + r0) xor ... xor f(x_n + n r0)`, `y0 = f(r0)`)
    /// at every length up to 130 blocks and around the chunk boundaries.
    #[test]
    fn one_shot_paths_match_the_definition() {
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
        let paths: Vec<Option<Avx512>> = [None, Avx512::detect()].into_iter().collect();
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
            for path in paths.iter().filter(|p| p.is_some()).copied().chain([None]) {
                let got = mac_one_shot_with::<_, true>(path, &f, r0, m);
                assert_eq!(got, (y0, w), "len {len} simd {}", path.is_some());
                let got = mac_one_shot_with::<_, false>(path, &f, r0, m);
                assert_eq!(got, ([0; 16], w), "len {len} simd {}", path.is_some());
            }
        }
    }

    /// The thread's scratch holds no cipher input or output after a MAC,
    /// at lengths of one and of several chunks.
    #[test]
    fn scratch_is_wiped_after_each_message() {
        let Some(simd) = Avx512::detect() else {
            return;
        };
        let f = aes::Aes128::new(&[0x5f; 16].into());
        let msg = [0x3cu8; 16 * 600];
        for len in [1, 16 * 70, 16 * 600] {
            mac_one_shot_simd::<_, true>(simd, &f, 77, &msg[..len]);
            SCRATCH.with(|cell| {
                let slot = cell.borrow();
                let s = slot.as_ref().expect("the scratch was made");
                assert!(s.0.iter().all(|b| *b == [0; 16]), "len {len}");
            });
        }
    }
}
