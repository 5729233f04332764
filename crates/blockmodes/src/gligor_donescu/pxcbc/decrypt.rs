//! pXCBC decryption and its integrity check, each segment's chain inverted in batches.

#[allow(unused_imports)]
use super::*;
#[cfg(feature = "rayon")]
use alloc::vec::Vec;
#[cfg(feature = "rayon")]
use rayon::prelude::*;

/// Decrypt `body` (the ciphertext after its header) with r0 into `out`;
/// check every segment, the length block and the padding; wipe `out` on failure.
pub(super) fn open<C: BlockCipher128Dec + Sync>(
    keys: &Keys<C>,
    r0: u128,
    body: &[u8],
    layout: &Layout,
    out: &mut [u8],
) -> Result<usize> {
    let out = &mut out[..layout.pt_capacity()];
    let threads = threads_for(body.len(), layout.segments);
    #[cfg(not(feature = "rayon"))]
    let _ = threads;
    #[cfg(not(feature = "rayon"))]
    let mut verdict = decrypt_segments(keys, r0, layout, 0, layout.segments, body, out);
    #[cfg(feature = "rayon")]
    let mut verdict = if threads <= 1 {
        decrypt_segments(keys, r0, layout, 0, layout.segments, body, out)
    } else {
        let mut parts = Vec::with_capacity(threads);
        let (mut body_rest, mut out_rest) = (body, &mut *out);
        for (a, b) in split_segments(layout.segments, threads) {
            let (body_part, tail) = if b == layout.segments {
                (body_rest, &[][..])
            } else {
                body_rest.split_at(16 * (layout.seg_offset(b) - layout.seg_offset(a)))
            };
            body_rest = tail;
            // Plaintext blocks a*S .. b*S; block 0 (the length block) is not in `out`.
            let out_len = if b == layout.segments {
                out_rest.len()
            } else {
                16 * (b * layout.s - (a * layout.s).max(1))
            };
            let (out_part, tail) = out_rest.split_at_mut(out_len);
            out_rest = tail;
            parts.push((a, b, body_part, out_part));
        }
        crate::par::install(|| {
            parts
                .into_par_iter()
                .map(|(a, b, body_part, out_part)| {
                    decrypt_segments(keys, r0, layout, a, b, body_part, out_part)
                })
                .reduce(Verdict::default, Verdict::merge)
        })
    };
    // The length block must equal the length of the unpadded message.
    let n = layout.blocks - 1; // padded message blocks
    let mut last = [0u8; 16];
    last.copy_from_slice(&out[16 * (n - 1)..]);
    let (pos, valid) = unpad(&last);
    last.zeroize();
    let len = 16 * (n - 1) + pos;
    let ok = verdict.diff.ct_eq(&0) & valid & to_int(&verdict.len_block).ct_eq(&(len as u128));
    verdict.len_block.zeroize();
    if !bool::from(ok) {
        out.zeroize();
        return Err(Error::Authentication);
    }
    out[len..].zeroize();
    Ok(len)
}

/// What the segments of one thread found: any check-block difference, and
/// the decrypted length block (from the thread holding segment 1).
#[derive(Default)]
pub(super) struct Verdict {
    pub(super) diff: u128,
    pub(super) len_block: Block,
}

impl Verdict {
    #[cfg(feature = "rayon")]
    pub(super) fn merge(a: Self, b: Self) -> Self {
        Self {
            diff: a.diff | b.diff,
            len_block: xor(&a.len_block, &b.len_block), // only one is non-zero
        }
    }
}

/// Decrypt segments `first..end` from `body` (starting at segment `first`)
/// into `out` (plaintext blocks `first * S ..`, minus the length block):
/// on the fused AES kernels where f has them, else in lock-step groups
/// through the cipher's parallel backend.
pub(super) fn decrypt_segments<C: BlockCipher128Dec>(
    keys: &Keys<C>,
    r0: u128,
    layout: &Layout,
    first: usize,
    end: usize,
    body: &[u8],
    out: &mut [u8],
) -> Verdict {
    if let Some(k) = keys.f.aes() {
        return decrypt_segments_fused(k, keys, r0, layout, first, end, body, out);
    }
    decrypt_segments_generic(keys, r0, layout, first, end, body, out)
}

/// [`decrypt_segments`] on the fused kernels: each segment, an XCBC$-XOR
/// message of its own (`r0^(s) = r0 + s`, z0^(s), indices from 1), is one
/// kernel call (`AesKey::xcbc_decrypt`: `y_i - i r0^(s)` in registers,
/// `z_{i-1}` in the last round key, the sum while the rounds run, the check
/// block's x apart); segment 1's length block is decrypted by a call of
/// its own, into the verdict. The z0^(s) come 64 segments at a time from
/// one parallel call of f' ([`Keys::z0_run`]).
#[allow(clippy::too_many_arguments)]
fn decrypt_segments_fused<C: BlockCipher128Dec>(
    key: &crate::backend::AesKey,
    keys: &Keys<C>,
    r0: u128,
    layout: &Layout,
    first: usize,
    end: usize,
    body: &[u8],
    out: &mut [u8],
) -> Verdict {
    let (body, _) = body.as_chunks::<16>();
    let (out, _) = out.as_chunks_mut::<16>();
    let s = layout.s;
    let first_p = (first * s).max(1); // the plaintext block out[0] holds
    let mut verdict = Verdict::default();
    let mut z0s = [[0u8; 16]; MAX_LANES];
    let mut check = [0u8; 16];
    let mut g = first;
    while g < end {
        let lanes = MAX_LANES.min(end - g);
        keys.z0_run(r0.wrapping_add(g as u128 + 1), &mut z0s[..lanes]);
        for (lane, z0) in z0s[..lanes].iter().enumerate() {
            let seg = g + lane;
            let n_s = layout.seg_len(seg);
            let at = layout.seg_offset(seg) - layout.seg_offset(first);
            let ct = &body[at..at + n_s + 1];
            let r0s = r0.wrapping_add(seg as u128 + 1);
            let p0 = seg * s; // plaintext index of the segment's block 1
            let mut sum = if p0 == 0 {
                // x_1 is the length block: into the verdict, not `out`.
                let mut len_block = [[0u8; 16]; 1];
                let s1 = key.xcbc_decrypt(r0s, 1, z0, &ct[..1], &mut len_block, None);
                let mut z1 = to_block(to_int(&ct[0]).wrapping_sub(r0s));
                let o = &mut out[..n_s - 1];
                let s2 = key.xcbc_decrypt(r0s, 2, &z1, &ct[1..], o, Some(&mut check));
                verdict.len_block = len_block[0];
                wipe(&mut len_block);
                wipe(core::slice::from_mut(&mut z1));
                xor(&s1, &s2)
            } else {
                let o = &mut out[p0 - first_p..p0 - first_p + n_s];
                key.xcbc_decrypt(r0s, 1, z0, ct, o, Some(&mut check))
            };
            // x_{n_s + 1} must equal z0^(s) xor x_1 xor ... xor x_{n_s}.
            xor_in_place(&mut sum, z0);
            xor_in_place(&mut sum, &check);
            verdict.diff |= to_int(&sum);
            wipe(core::slice::from_mut(&mut sum));
        }
        g += lanes;
    }
    wipe(&mut z0s[..(end - first).min(MAX_LANES)]);
    wipe(core::slice::from_mut(&mut check));
    verdict
}

/// [`decrypt_segments`] through the cipher's parallel backend: groups of
/// up to 64 segments in lock step.
fn decrypt_segments_generic<C: BlockCipher128Dec>(
    keys: &Keys<C>,
    r0: u128,
    layout: &Layout,
    first: usize,
    end: usize,
    body: &[u8],
    out: &mut [u8],
) -> Verdict {
    let (body, _) = body.as_chunks::<16>();
    let (out, _) = out.as_chunks_mut::<16>();
    let mut work = DecGroup {
        body,
        out,
        layout: *layout,
        body_first: first,
        group_first: first,
        before: Cursor::default(),
        after: Cursor::default(),
        z0: [[0; 16]; MAX_LANES],
        sum: [[0; 16]; MAX_LANES],
        r0,
        verdict: Verdict::default(),
    };
    let mut g = first;
    while g < end {
        let lanes = MAX_LANES.min(end - g);
        work.group_first = g;
        keys.z0_run(r0.wrapping_add(g as u128 + 1), &mut work.z0[..lanes]);
        work.sum[..lanes].copy_from_slice(&work.z0[..lanes]);
        let from = layout.seg_offset(g) - layout.seg_offset(first);
        let to = if g + lanes == layout.segments {
            body.len()
        } else {
            layout.seg_offset(g + lanes) - layout.seg_offset(first)
        };
        work.before = Cursor {
            t: from,
            lane: 0,
            i: 1,
        };
        work.after = work.before;
        let mut range = GroupRange {
            work: &mut work,
            from,
        };
        decrypt_par(keys.f.cipher(), to - from, &mut range);
        g += lanes;
    }
    let verdict = core::mem::take(&mut work.verdict);
    wipe(&mut work.z0);
    wipe(&mut work.sum);
    verdict
}

/// Position of a ciphertext block: body index t, lane (segment in the
/// group), i (1-based index within the segment; n_s + 1 is the check block).
#[derive(Default, Clone, Copy)]
pub(super) struct Cursor {
    pub(super) t: usize,
    pub(super) lane: usize,
    pub(super) i: usize,
}

pub(super) struct DecGroup<'a> {
    pub(super) body: &'a [Block],
    pub(super) out: &'a mut [Block],
    pub(super) layout: Layout,
    pub(super) body_first: usize,
    pub(super) group_first: usize,
    /// The next block `before`, and `after`, will see.
    pub(super) before: Cursor,
    pub(super) after: Cursor,
    pub(super) z0: [Block; MAX_LANES],
    pub(super) sum: [Block; MAX_LANES],
    pub(super) r0: u128,
    pub(super) verdict: Verdict,
}

/// A group's blocks as one run for [`decrypt_par`] (indices from 0).
pub(super) struct GroupRange<'w, 'a> {
    pub(super) work: &'w mut DecGroup<'a>,
    pub(super) from: usize,
}

impl DecGroup<'_> {
    /// r0^(s) of a lane of the current group.
    #[inline(always)]
    pub(super) fn r0s(&self, lane: usize) -> u128 {
        self.r0.wrapping_add((self.group_first + lane) as u128 + 1)
    }

    /// z_i = y_i - i * r0^(s) at a position.
    #[inline(always)]
    pub(super) fn z(&self, c: &Cursor) -> Block {
        let offset = self.r0s(c.lane).wrapping_mul(c.i as u128);
        to_block(to_int(&self.body[c.t]).wrapping_sub(offset))
    }

    /// Advance a cursor by one block.
    #[inline(always)]
    pub(super) fn step(&self, c: &mut Cursor) {
        c.t += 1;
        let n_s = self.layout.seg_len(self.group_first + c.lane);
        if c.i == n_s + 1 {
            c.lane += 1;
            c.i = 1;
        } else {
            c.i += 1;
        }
    }
}

impl ParWork for GroupRange<'_, '_> {
    #[inline(always)]
    fn before(&mut self, start: usize, blocks: &mut [Block]) {
        let w = &mut *self.work;
        let mut c = w.before;
        debug_assert_eq!(c.t, self.from + start);
        for b in blocks.iter_mut() {
            *b = w.z(&c);
            w.step(&mut c);
        }
        w.before = c;
    }

    #[inline(always)]
    fn after(&mut self, _start: usize, blocks: &[Block]) {
        let w = &mut *self.work;
        let s = w.layout.s;
        let first_p = (w.body_first * s).max(1);
        let mut c = w.after;
        for d in blocks {
            // x_i = f^-1(z_i) xor z_{i-1}
            let z_prev = if c.i == 1 {
                w.z0[c.lane]
            } else {
                w.z(&Cursor {
                    t: c.t - 1,
                    lane: c.lane,
                    i: c.i - 1,
                })
            };
            let x = xor(d, &z_prev);
            let seg = w.group_first + c.lane;
            if c.i <= w.layout.seg_len(seg) {
                xor_in_place(&mut w.sum[c.lane], &x);
                let p = seg * s + c.i - 1; // plaintext block index
                if p == 0 {
                    w.verdict.len_block = x;
                } else {
                    w.out[p - first_p] = x;
                }
            } else {
                // the check block: x_{n_s+1} must equal z0^(s) xor x_1 .. x_{n_s}
                w.verdict.diff |= to_int(&xor(&x, &w.sum[c.lane]));
            }
            w.step(&mut c);
        }
        w.after = c;
    }
}

#[cfg(feature = "alloc")]
/// Allocate room for the plaintext, decrypt into it, truncate.
pub(super) fn open_to_vec(
    ct: &[u8],
    s: usize,
    decrypt_into: impl FnOnce(&[u8], &mut [u8]) -> Result<usize>,
) -> Result<Vec<u8>> {
    let cap = Layout::for_ciphertext(ct.len(), s)?.pt_capacity();
    let mut out = vec![0u8; cap];
    let n = decrypt_into(ct, &mut out)?;
    out.truncate(n);
    Ok(out)
}
