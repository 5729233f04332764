//! pXCBC encryption, segments spread over threads, each thread's segments interleaved as lanes of one batch (the paper's parallel chains).

#[allow(unused_imports)]
use super::*;
#[cfg(feature = "rayon")]
use alloc::vec::Vec;
#[cfg(feature = "rayon")]
use rayon::prelude::*;

/// How many threads to use for `bytes` of work.
pub(super) fn threads_for(bytes: usize, segments: usize) -> usize {
    if bytes < PARALLEL_THRESHOLD {
        return 1;
    }
    #[cfg(feature = "rayon")]
    return crate::par::threads().min(segments).max(1);
    #[cfg(not(feature = "rayon"))]
    {
        let _ = segments;
        1
    }
}

#[cfg(feature = "rayon")]
/// Split `segments` into `parts` contiguous ranges of nearly equal size.
pub(super) fn split_segments(segments: usize, parts: usize) -> Vec<(usize, usize)> {
    let per = segments / parts;
    let extra = segments % parts;
    let mut ranges = Vec::with_capacity(parts);
    let mut start = 0;
    for p in 0..parts {
        let n = per + usize::from(p < extra);
        ranges.push((start, start + n));
        start += n;
    }
    ranges
}

/// Write `header || seg_1 || ... || seg_L` to `out`; returns its length.
pub(super) fn seal<C: BlockCipher128 + Sync>(
    keys: &Keys<C>,
    header: &Block,
    r0: u128,
    msg: &[u8],
    layout: &Layout,
    out: &mut [u8],
) -> usize {
    let len = layout.ct_len();
    let (head, body) = out[..len].split_at_mut(16);
    head.copy_from_slice(header);
    let stream = Stream::new(msg);
    let threads = threads_for(msg.len(), layout.segments);
    if threads <= 1 {
        encrypt_range(keys, r0, &stream, layout, 0, layout.segments, body);
        return len;
    }
    #[cfg(feature = "rayon")]
    seal_par(keys, r0, &stream, layout, threads, body);
    len
}

/// [`seal`]'s segments split over `threads` rayon tasks.
#[cfg(feature = "rayon")]
fn seal_par<C: BlockCipher128 + Sync>(
    keys: &Keys<C>,
    r0: u128,
    stream: &Stream<'_>,
    layout: &Layout,
    threads: usize,
    body: &mut [u8],
) {
    let mut parts = Vec::with_capacity(threads);
    let mut rest = body;
    for (a, b) in split_segments(layout.segments, threads) {
        let end = if b == layout.segments {
            rest.len()
        } else {
            16 * (layout.seg_offset(b) - layout.seg_offset(a))
        };
        let (part, tail) = rest.split_at_mut(end);
        parts.push((a, b, part));
        rest = tail;
    }
    crate::par::install(|| {
        parts.into_par_iter().for_each(|(a, b, part)| {
            encrypt_range(keys, r0, stream, layout, a, b, part);
        })
    });
}

/// Encrypt segments `first..end` (0-based) into `body`, which starts at
/// segment `first`: on the fused AES kernels where f has them
/// ([`encrypt_segments_fused`]), else through the cipher's parallel
/// backend ([`encrypt_segments`]).
fn encrypt_range<C: BlockCipher128>(
    keys: &Keys<C>,
    r0: u128,
    stream: &Stream,
    layout: &Layout,
    first: usize,
    end: usize,
    body: &mut [u8],
) {
    if let Some(k) = keys.f.aes().filter(|k| k.has_chains()) {
        encrypt_segments_fused(k, keys, r0, stream, layout, first, end, body);
        return;
    }
    encrypt_segments(keys, r0, stream, layout, first, end, body);
}

/// [`encrypt_range`] on the fused kernels: up to
/// [`CHAIN_BATCH`](crate::engine::CHAIN_BATCH) segments of one length n_s
/// per call, in lock step (`AesKey::xcbc_strided`: segment s's chain with r0^(s) = r0 + s,
/// z0^(s), i from 1, its check block `z0^(s) xor x_1 xor ... xor x_{n_s}`
/// summed while the rounds run). The rounds are cut where a chain's x is
/// not a message block: x_1 of segment 1 (the length block) and the
/// message's padded last block, each taken from a block of its own.
#[allow(clippy::too_many_arguments)]
pub(super) fn encrypt_segments_fused<C: BlockCipher128>(
    key: &crate::backend::AesKey,
    keys: &Keys<C>,
    r0: u128,
    stream: &Stream,
    layout: &Layout,
    first: usize,
    end: usize,
    body: &mut [u8],
) {
    use crate::engine::CHAIN_BATCH;
    let (body, _) = body.as_chunks_mut::<16>();
    let mut z = [[0u8; 16]; CHAIN_BATCH];
    let mut sums = [[0u8; 16]; CHAIN_BATCH];
    // The message's short last segment first: its lone chain waits on the
    // AES latency, and run before the lock-step groups (not after them)
    // the out-of-order core overlaps it with their first rounds.
    let short_last = end == layout.segments
        && end > first + 1
        && layout.seg_len(end - 1) != layout.seg_len(first);
    let split = end - usize::from(short_last);
    for (mut g, end) in [(split, end), (first, split)] {
        while g < end {
            let n_s = layout.seg_len(g);
            let lanes = layout.group_lanes(g, end, CHAIN_BATCH);
            // z0^(s) for s = g + 1 .. and Σ = z0^(s): in the kernel's first
            // call where f' (or f) is fused, else one parallel call here.
            let mut z0 = keys.z0_fused(r0.wrapping_add(g as u128 + 1));
            if z0.is_none() {
                keys.z0_run(r0.wrapping_add(g as u128 + 1), &mut z[..lanes]);
                sums[..lanes].copy_from_slice(&z[..lanes]);
            }
            let at = layout.seg_offset(g) - layout.seg_offset(first);
            let group = Group {
                stream,
                layout,
                g,
                lanes,
                n_s,
            };
            for (a, b) in group.cuts() {
                let state = (&mut z, &mut sums, z0.take());
                group.run(key, r0, a, b, &mut body[at..], state);
            }
            g += lanes;
        }
    }
    wipe(&mut z);
    wipe(&mut sums);
}

/// The most blocks of a segment taken from a copy (the one holding the
/// length block, the one holding the padded block) when its rounds run
/// in one kernel call.
const EDGE: usize = 64;

/// The chains' z and Σ between kernel calls, and the fused z0 key and
/// counter of the first call ([`crate::engine::Chains`]).
type ChainState<'a> = (
    &'a mut [Block; crate::engine::CHAIN_BATCH],
    &'a mut [Block; crate::engine::CHAIN_BATCH],
    Option<(&'a crate::backend::AesKey, u128)>,
);

/// Segments `g .. g + lanes` (0-based), all of n_s blocks.
struct Group<'a, 'b> {
    stream: &'a Stream<'b>,
    layout: &'a Layout,
    g: usize,
    lanes: usize,
    n_s: usize,
}

impl Group<'_, '_> {
    /// The round ranges of one kernel call each: all n_s rounds at once
    /// when n_s <= [`EDGE`] (a lane whose x are not all message blocks
    /// takes them from a copy), else round 0 alone when x_1 of segment 1
    /// is the length block, round n_s - 1 alone when the message's last
    /// segment (its padded block) is in the group.
    fn cuts(&self) -> impl Iterator<Item = (usize, usize)> {
        let n = self.n_s;
        let short = n <= EDGE;
        let at_len = usize::from(self.g == 0 && !short);
        let at_pad = if self.g + self.lanes == self.layout.segments && !short {
            n - 1
        } else {
            n
        };
        let points = [0, at_len.min(at_pad), at_pad.max(at_len), n];
        (0..3)
            .map(move |c| (points[c], points[c + 1]))
            .filter(|(a, b)| a < b)
    }

    /// Rounds `a .. b` (b = n_s: and the check round) of every lane, the
    /// outputs into `body` (which starts at segment g's ciphertext); the
    /// chains' z and Σ carried in `state`, or started by its z0 key.
    fn run(
        &self,
        key: &crate::backend::AesKey,
        r0: u128,
        a: usize,
        b: usize,
        body: &mut [Block],
        state: ChainState<'_>,
    ) {
        let (z, sums, z0) = state;
        let s = self.layout.s;
        let msg = self.stream.msg.as_chunks::<16>().0;
        let padded = self.layout.blocks - 1;
        let check = b == self.n_s;
        let count = b - a;
        // Lane l's x of rounds a .. b: plaintext blocks j(l) .. j(l) + count,
        // message blocks from j(l) - 1 on, S blocks apart; the lanes whose
        // blocks include the length block (plaintext block 0: lane 0) or
        // the padded block (the last lane) from copies (`cuts` keeps them
        // within EDGE blocks).
        let j = |l: usize| (self.g + l) * s + a;
        let last = self.lanes - 1;
        let odd = [j(0) == 0, j(last) + count > padded];
        let mut edges = [[[0u8; 16]; EDGE]; 2];
        // (A counted loop: the iterator adaptors' state went through the
        // stack and stalled a 16-byte reload of 8-byte stores.)
        for e in 0..2 {
            if odd[e] {
                let l = [0, last][e];
                for (k, x) in edges[e][..count].iter_mut().enumerate() {
                    *x = self.stream.block(j(l) + k);
                }
            }
        }
        let lo = usize::from(odd[0]);
        let [head, tail] = &edges;
        let io = crate::engine::ChainIo {
            src: msg.get(j(lo).saturating_sub(1)..).unwrap_or(&[]),
            src_stride: s,
            head: odd[0].then(|| &head[..count]),
            tail: odd[1].then(|| &tail[..count]),
            dst: &mut body[a..],
            dst_stride: s + 1,
            lanes: self.lanes,
        };
        let mut chains = crate::engine::Chains {
            // r0^(s) of lane 0 (s = g + 1), i = a + 1.
            r0: r0.wrapping_add(self.g as u128 + 1),
            first: a as u128 + 1,
            n: count,
            check,
            z,
            sums,
            z0,
        };
        let done = key.xcbc_strided(&mut chains, io);
        debug_assert!(done);
        for e in 0..2 {
            if odd[e] {
                wipe(&mut edges[e][..count]);
            }
        }
    }
}

/// Encrypt segments `first..end` (0-based) into `body`, which starts at
/// segment `first`: groups of up to one backend width in lock step, all
/// lanes of a group with the same number of rounds (only the message's last
/// segment may be shorter; it goes in a group of its own).
#[allow(clippy::too_many_arguments)]
pub(super) fn encrypt_segments<C: BlockCipher128>(
    keys: &Keys<C>,
    r0: u128,
    stream: &Stream,
    layout: &Layout,
    first: usize,
    end: usize,
    body: &mut [u8],
) {
    let (body, _) = body.as_chunks_mut::<16>();
    let width = par_width(keys.f.cipher()).clamp(1, MAX_LANES);
    let mut work = EncGroup::new(stream, layout, body, first);
    let mut g = first;
    while g < end {
        let lanes = layout.group_lanes(g, end, width);
        if lanes == 1 {
            // One chain: no lock step to set up.
            let at = layout.seg_offset(g) - layout.seg_offset(first);
            let seg = &mut work.body[at..at + layout.seg_len(g) + 1];
            encrypt_one_segment(keys, r0, stream, layout, g, seg);
            g += 1;
            continue;
        }
        work.start_group(keys, r0, g, lanes);
        // n_s data rounds, then the check block.
        encrypt_chains(keys.f.cipher(), lanes, layout.seg_len(g) + 1, &mut work);
        g += lanes;
    }
    work.wipe();
}

/// Segment `seg` (0-based) as one serial XCBC-XOR chain into `out` (its
/// n_s + 1 ciphertext blocks) through XCBC's chaining core, with
/// r0^(s) = r0 + s and z0^(s): a group of one lane (the message's short
/// last segment, or a message of one segment) needs no lock step.
pub(super) fn encrypt_one_segment<C: BlockCipher128>(
    keys: &Keys<C>,
    r0: u128,
    stream: &Stream,
    layout: &Layout,
    seg: usize,
    out: &mut [Block],
) {
    let mut r0s = r0.wrapping_add(seg as u128 + 1);
    let mut z0 = keys.z0(r0s);
    let first = seg * layout.s;
    let x = |i: usize| stream.block(first + i);
    chain::encrypt_blocks::<C, true>(keys, r0s, &z0, layout.seg_len(seg), x, out);
    z0.zeroize();
    r0s.zeroize();
}

/// Up to [`MAX_LANES`] segment chains in lock step (round r = block r + 1 of
/// every segment, the last round the check block). The chaining values
/// z_{i-1} stay in [`encrypt_chains`]' batch; here: z0^(s), the check
/// block's running xor, and i * r0^(s) per lane.
pub(super) struct EncGroup<'a, 'b> {
    pub(super) stream: &'a Stream<'b>,
    pub(super) layout: Layout,
    /// Message blocks x_1 .. (whole blocks only).
    pub(super) msg: &'a [Block],
    pub(super) body: &'a mut [Block],
    /// The segment `body` starts at.
    pub(super) body_first: usize,
    /// The group's first segment, and its segment length n_s.
    pub(super) group_first: usize,
    pub(super) seg_len: usize,
    /// z0^(s) per lane.
    pub(super) z0: [Block; MAX_LANES],
    /// z0^(s) xor the lane's x_i so far: the check block at the last round.
    pub(super) sums: [Block; MAX_LANES],
    /// i * r0^(s) of every lane (r0^(s) = r0 + g + 1 + lane).
    pub(super) offsets: LaneOffsets,
    /// The round's y_i, before they are stored into the segments.
    pub(super) y: [Block; MAX_LANES],
}

impl<'a, 'b> EncGroup<'a, 'b> {
    pub(super) fn new(
        stream: &'a Stream<'b>,
        layout: &Layout,
        body: &'a mut [Block],
        first: usize,
    ) -> Self {
        Self {
            stream,
            layout: *layout,
            msg: stream.msg.as_chunks::<16>().0,
            body,
            body_first: first,
            group_first: first,
            seg_len: 0,
            z0: [[0; 16]; MAX_LANES],
            sums: [[0; 16]; MAX_LANES],
            offsets: LaneOffsets::new(),
            y: [[0; 16]; MAX_LANES],
        }
    }

    /// Set up segments `g .. g + lanes`: r0^(s) = r0 + s and z0^(s) (one
    /// parallel call), with s = g + lane + 1 the paper's 1-based index.
    pub(super) fn start_group<C: BlockCipher128>(
        &mut self,
        keys: &Keys<C>,
        r0: u128,
        g: usize,
        lanes: usize,
    ) {
        self.group_first = g;
        self.seg_len = self.layout.seg_len(g);
        let first = r0.wrapping_add(g as u128 + 1);
        keys.z0_run(first, &mut self.z0[..lanes]);
        self.sums = self.z0;
        self.offsets.start(first);
    }

    pub(super) fn wipe(&mut self) {
        wipe(&mut self.z0);
        wipe(&mut self.sums);
        wipe(&mut self.y);
    }

    /// The lanes `lo .. hi` whose block at round `round` (< n_s) is a
    /// whole message block (not the length block, not the padded last
    /// block): the gathered fast path; the others go one at a time.
    #[inline(always)]
    pub(super) fn ordinary_lanes(&self, round: usize, lanes: usize) -> (usize, usize) {
        let s = self.layout.s;
        // Plaintext block of lane l: (g + l) S + round, increasing in l.
        let j = |l: usize| (self.group_first + l) * s + round;
        let lo = usize::from(j(0) == 0).min(lanes);
        let mut hi = lanes;
        while hi > lo && j(hi - 1) > self.stream.full {
            hi -= 1;
        }
        (lo, hi)
    }

    /// `blocks[l] = prev[l] xor x` for lanes `lo .. hi` (whole message
    /// blocks only, see [`ordinary_lanes`](Self::ordinary_lanes)), x
    /// gathered from the message with a stride of S blocks, four lanes
    /// (one 512-bit vector) at a time.
    #[inline(always)]
    pub(super) fn gather(
        &self,
        round: usize,
        lo: usize,
        hi: usize,
        prev: &[Block],
        blocks: &mut [Block],
    ) {
        if lo >= hi {
            return;
        }
        let s = self.layout.s;
        let first = (self.group_first + lo) * s + round - 1;
        let span = &self.msg[first..=first + (hi - 1 - lo) * s];
        let (b4, rest) = blocks[lo..hi].as_chunks_mut::<4>();
        let (p4, p_rest) = prev[lo..hi].as_chunks::<4>();
        for (c, (b, p)) in b4.iter_mut().zip(p4).enumerate() {
            // Four loads combined in a register (a partly filled array
            // would go through the stack and stall the 512-bit reload).
            let l = 4 * c;
            let x = [
                span[l * s],
                span[(l + 1) * s],
                span[(l + 2) * s],
                span[(l + 3) * s],
            ];
            *b = *p;
            for (b, x) in b.as_flattened_mut().iter_mut().zip(x.as_flattened()) {
                *b ^= x;
            }
        }
        for (l, (b, p)) in rest.iter_mut().zip(p_rest).enumerate() {
            *b = xor(p, &span[(4 * b4.len() + l) * s]);
        }
    }
}

impl ChainWork for EncGroup<'_, '_> {
    /// `inputs = z_{round} xor x_{round+1}` for every lane, with z_{round}
    /// in `prev` (round 0: z0^(s)).
    #[inline(always)]
    fn before(&mut self, round: usize, prev: &[Block], blocks: &mut [Block]) {
        let lanes = blocks.len();
        let prev = if round == 0 {
            &self.z0[..lanes]
        } else {
            &prev[..lanes]
        };
        let s = self.layout.s;
        if round >= self.seg_len {
            // x_{n_s+1}: the check block of every lane.
            let rows = blocks.iter_mut().zip(prev).zip(&self.sums[..lanes]);
            for ((b, p), sum) in rows {
                *b = xor(p, sum);
            }
            return;
        }
        let (lo, hi) = self.ordinary_lanes(round, lanes);
        self.gather(round, lo, hi, prev, blocks);
        for lane in (0..lo).chain(hi..lanes) {
            let x = self.stream.block((self.group_first + lane) * s + round);
            blocks[lane] = xor(&prev[lane], &x);
        }
        // The check blocks' running xor: x = input xor z, in a pass of its
        // own (so x need not be kept).
        let sums = self.sums[..lanes].as_flattened_mut();
        let rows = sums.iter_mut().zip(prev.as_flattened());
        for ((sum, p), b) in rows.zip(blocks.as_flattened()) {
            *sum ^= p ^ b;
        }
    }

    /// y_{round+1} = z_{round+1} + (round + 1) r0^(s) for every lane at
    /// once (vectorized), then stored into each lane's segment.
    #[inline(always)]
    fn after(&mut self, round: usize, blocks: &[Block]) {
        let lanes = blocks.len().min(MAX_LANES);
        let stride = self.layout.s + 1;
        let base = (self.group_first - self.body_first) * stride + round;
        self.offsets.seek(round as u128 + 1);
        let y = &mut self.y[..lanes];
        self.offsets.add(0, &blocks[..lanes], y);
        let dst = self.body[base..].chunks_mut(stride).map(|c| &mut c[0]);
        for (d, y) in dst.zip(y.iter()) {
            *d = *y;
        }
    }
}
