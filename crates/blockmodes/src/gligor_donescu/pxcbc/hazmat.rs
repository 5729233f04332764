//! **Hazardous:** in-place update of one pXCBC segment (the XCBC paper,
//! section 4, property 5: "localization of the decryption, plaintext
//! update, and encryption to single segments"). See
//! `docs/pxcbc-update.md` for which blocks change and why.
//!
//! The update keeps r0 (the header block `y0` or `ctr` stays), so every
//! segment keeps its `r0^(s) = r0 + s` and `z0^(s)`, and each segment's
//! check block covers that segment alone; the length block, in segment 1,
//! fixes only the total length. Segments of different versions of one
//! ciphertext are therefore interchangeable: from versions `(A1, A2)`,
//! `(B1, A2)` (segment 1 updated) and `(A1, B2)` (segment 2 updated), anyone
//! who sees them assembles `(B1, B2)`, which decrypts without error although
//! no one encrypted it. That is why the update lives here and not on the
//! safe types.
//!
//! ```
//! use blockmodes::pxcbc::{PxcbcXor, hazmat::UpdateSegment};
//! use blockmodes::Aes128;
//!
//! let p = PxcbcXor::<Aes128>::new_from_slice(&[7u8; 32])?.with_segment_blocks(2)?;
//! // Segments of S = 2 plaintext blocks: (length block, message block 1),
//! // (message blocks 2, 3), (the padding block).
//! let msg = [[1u8; 16], [2; 16], [3; 16]].concat();
//! let v0 = p.encrypt(&msg)?;
//! let mut v1 = v0.clone();
//! p.update_segment(&mut v1, 1, &[9; 16])?; // segment 1 holds message block 1
//! let mut v2 = v0.clone();
//! p.update_segment(&mut v2, 2, &[8; 32])?; // segment 2: blocks 2 and 3
//!
//! // Mix and match: segment 1 of v1, segment 2 of v2.
//! let seg2 = 16 + 3 * 16; // y0, then segment 1's 2 blocks and check block
//! let forged = [&v1[..seg2], &v2[seg2..]].concat();
//! assert_eq!(p.decrypt(&forged)?, [[9u8; 16], [8; 16], [8; 16]].concat());
//! # Ok::<(), blockmodes::Error>(())
//! ```

#[allow(unused_imports)]
use super::*;

/// **Hazardous:** replace the plaintext of one segment of a pXCBC$ or pXCBC
/// ciphertext in place, keeping r0 (see the [module docs](self) for the
/// forgery this allows).
///
/// `segment` is the paper's s, 1-based (`1 ..= L`). `new_plaintext` is the
/// segment's part of the message, of the same length as before: `16 (S - 1)`
/// bytes for segment 1 (the length block comes first), `16 S` for the others,
/// and the message's remaining bytes for the last segment (before its 10*
/// padding). The segment is first decrypted and its check block verified
/// (a failed check: [`Error::Authentication`], nothing changed), then
/// encrypted again with the new plaintext under the same `r0^(s)` and
/// `z0^(s)`: `2 n_s + 3` block-cipher calls (`n_s <= S`), whatever the
/// message length. Every other segment's bytes are unchanged.
///
/// **What an observer learns:** which segment changed, and within it the
/// first block that changed (the blocks before it encrypt as before: the
/// chain `z_i = f(x_i xor z_{i-1})` is the same up to there).
///
/// **What an adversary who sees several versions can do:** combine
/// segments of different versions into a ciphertext that decrypts without
/// error (module docs). Use it only where no party sees two versions of one
/// ciphertext, or where such a mix does not matter; otherwise encrypt the
/// new message afresh.
///
/// Errors: [`Error::InvalidParameter`] for a segment outside `1 ..= L`;
/// [`Error::InvalidLength`] when `new_plaintext` does not have the
/// segment's length; the ciphertext's own length errors
/// ([`Error::InvalidLength`], [`Error::CiphertextTooShort`]) and
/// [`Error::Authentication`] (a bad check block or padding) as for
/// decryption. On any error `ciphertext` is unchanged.
///
/// ```
/// use blockmodes::pxcbc::{PxcbcXorStateful, PxcbcXorStatefulEncryptor, hazmat::UpdateSegment};
/// use blockmodes::Aes128;
/// let rx = PxcbcXorStateful::<Aes128>::new_from_slice(&[3u8; 32])?.with_segment_blocks(4)?;
/// let mut ct = PxcbcXorStatefulEncryptor::new(rx.clone()).encrypt(&[0u8; 100])?;
/// // Segment 2 holds message bytes 48..100 (then the padding).
/// rx.update_segment(&mut ct, 2, &[1u8; 52])?;
/// assert_eq!(rx.decrypt(&ct)?, [vec![0u8; 48], vec![1u8; 52]].concat());
/// # Ok::<(), blockmodes::Error>(())
/// ```
pub trait UpdateSegment {
    /// Replace segment `segment`'s plaintext with `new_plaintext`, in place.
    fn update_segment(
        &self,
        ciphertext: &mut [u8],
        segment: usize,
        new_plaintext: &[u8],
    ) -> Result<()>;
}

impl<C: BlockCipher128Dec> UpdateSegment for PxcbcXor<C> {
    fn update_segment(
        &self,
        ciphertext: &mut [u8],
        segment: usize,
        new_plaintext: &[u8],
    ) -> Result<()> {
        // r0 = f^-1(y0)
        update(
            &self.keys,
            self.segment_blocks,
            ciphertext,
            segment,
            new_plaintext,
            |y0| to_int(&self.keys.f_decrypt(y0)),
        )
    }
}

impl<C: BlockCipher128Dec> UpdateSegment for PxcbcXorStateful<C> {
    fn update_segment(
        &self,
        ciphertext: &mut [u8],
        segment: usize,
        new_plaintext: &[u8],
    ) -> Result<()> {
        // r0 = f(ctr)
        update(
            &self.keys,
            self.segment_blocks,
            ciphertext,
            segment,
            new_plaintext,
            |ctr| to_int(&self.keys.f_encrypt(ctr)),
        )
    }
}

/// The update both forms share; `r0_of` recovers r0 from the header block.
fn update<C: BlockCipher128Dec>(
    keys: &Keys<C>,
    segment_blocks: usize,
    ct: &mut [u8],
    segment: usize,
    new_pt: &[u8],
    r0_of: impl FnOnce(&Block) -> u128,
) -> Result<()> {
    let layout = Layout::for_ciphertext(ct.len(), segment_blocks)?;
    if !(1..=layout.segments).contains(&segment) {
        return Err(Error::InvalidParameter("pXCBC segment outside 1 ..= L"));
    }
    let seg = segment - 1; // 0-based, as in the layout
    let n_s = layout.seg_len(seg);
    let first = usize::from(seg == 0); // the length block is not plaintext
    let is_last = seg + 1 == layout.segments;
    // The segment's blocks: n_s + 1 after the header and earlier segments.
    let got = ct.len();
    let (header, body) = ct
        .split_first_chunk_mut::<16>()
        .ok_or(Error::CiphertextTooShort { min: 64, got })?;
    let at = 16 * layout.seg_offset(seg);
    let seg_ct = &mut body[at..at + 16 * (n_s + 1)];
    let mut r0 = r0_of(header);

    // Decrypt and check the old segment: x_1 .. x_{n_s} into `scratch`
    // (without the length block), the check block compared.
    let mut scratch = vec![0u8; 16 * (n_s - first)];
    let mut verdict = decrypt_segments(keys, r0, &layout, seg, seg + 1, seg_ct, &mut scratch);
    let mut ok = verdict.diff.ct_eq(&0);
    // The segment's plaintext length: all its blocks, or up to the padding.
    let mut pt_len = scratch.len();
    if is_last {
        let mut last = [0u8; 16];
        last.copy_from_slice(&scratch[pt_len - 16..]);
        let (pos, valid) = unpad(&last);
        last.zeroize();
        ok &= valid;
        pt_len = pt_len - 16 + pos;
    }
    let res = if !bool::from(ok) {
        Err(Error::Authentication)
    } else if new_pt.len() != pt_len {
        Err(Error::InvalidLength(
            "new segment plaintext must have the segment's length",
        ))
    } else {
        // The new x_1 .. x_{n_s}: (length block), the new plaintext, (10* padding).
        scratch[..pt_len].copy_from_slice(new_pt);
        if is_last {
            scratch[pt_len] = 0x80;
            scratch[pt_len + 1..].fill(0);
        }
        let len_block = verdict.len_block;
        let (blocks, _) = scratch.as_chunks::<16>();
        let x = |i: usize| {
            if i < first {
                len_block
            } else {
                blocks[i - first]
            }
        };
        let mut r0s = r0.wrapping_add(segment as u128); // r0^(s) = r0 + s
        let mut z0 = keys.z0(r0s);
        let (out, _) = seg_ct.as_chunks_mut::<16>();
        chain::encrypt_blocks::<C, true>(keys, r0s, &z0, n_s, x, out);
        z0.zeroize();
        r0s.zeroize();
        Ok(())
    };
    verdict.len_block.zeroize();
    scratch.zeroize();
    r0.zeroize();
    res
}
