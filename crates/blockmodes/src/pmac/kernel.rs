//! The core of PMAC, Σ over runs of blocks in backend-wide batches (offsets γ_i·L from the Gray-code table), and the final block.

#[allow(unused_imports)]
use super::*;

/// `E_K(X[m])`: `X[m] = Σ ⊕ pad(M[m])`, xored with `L(-1)` when
/// `|M[m]| = n`, for `last = M[m]` of at most 16 bytes. The length of `M[m]`
/// is public; its bytes are not branched on.
pub(super) fn full_tag<C: BlockCipher128>(
    engine: &Engine<C>,
    keys: &Keys,
    sigma: &Block,
    last: &[u8],
) -> Block {
    let mut tail = last_term(keys, last);
    let mut x = xor(sigma, &tail);
    let y = engine.encrypt_block(&x);
    crate::oracle::scratch::wipe(core::slice::from_mut(&mut x));
    crate::oracle::scratch::wipe(core::slice::from_mut(&mut tail));
    y
}

/// `X[m] ⊕ Σ`: `M[m] ⊕ L(-1)` when `|M[m]| = n`, else `pad(M[m]) = M[m] 10*`
/// (`last` at most 16 bytes; its length is public, its bytes are not
/// branched on).
pub(super) fn last_term(keys: &Keys, last: &[u8]) -> Block {
    match <&Block>::try_from(last) {
        Ok(full) => xor(full, &keys.l_inv),
        Err(_) => {
            let mut padded = [0u8; 16];
            for (p, b) in padded.iter_mut().zip(last) {
                *p = *b;
            }
            if let Some(first_pad_byte) = padded.get_mut(last.len()) {
                *first_pad_byte = 0x80;
            }
            padded
        }
    }
}

/// Streaming absorption: fill the held-back block; once more input follows
/// it, encipher it together with every whole block of `data` but the last
/// one, which is held back in turn.
pub(super) fn absorb<C: BlockCipher128>(
    engine: &Engine<C>,
    keys: &Keys,
    state: &mut State,
    mut data: &[u8],
) {
    if state.last_len < 16 {
        let take = (16 - state.last_len).min(data.len());
        let (now, rest) = data.split_at(take);
        state.last[state.last_len..state.last_len + take].copy_from_slice(now);
        state.last_len += take;
        data = rest;
    }
    if data.is_empty() {
        return;
    }
    // `M[done+1]` (held back, full) and the whole blocks of `data` except a
    // final full block are enciphered now.
    let (blocks, rest) = data.as_chunks::<16>();
    let n_body = if rest.is_empty() {
        blocks.len() - 1
    } else {
        blocks.len()
    };
    let mut head = state.last;
    let mut sigma = sigma_of(engine, keys, state.done + 1, Some(&head), &blocks[..n_body]);
    xor_in_place(&mut state.sigma, &sigma);
    sigma.zeroize();
    head.zeroize();
    state.done += 1 + n_body as u64;
    match blocks.get(n_body) {
        Some(final_full) if rest.is_empty() => state.set_last(final_full),
        _ => state.set_last(rest),
    }
}

/// `Y[first] ⊕ ··· ⊕ Y[first+k-1]`, `Y[i] = E_K(M[i] ⊕ γ_i·L)`, over the
/// blocks `head` (if any) followed by `body`, in batches through
/// [`oracle::encrypt_par`].
pub(super) fn sigma_of<C: BlockCipher128>(
    engine: &Engine<C>,
    keys: &Keys,
    first: u64,
    head: Option<&Block>,
    body: &[Block],
) -> Block {
    if let Some(f) = GrayView::of(engine.aes(), keys.table.as_ref()) {
        return f.sigma(first, head, body);
    }
    let n = body.len() + usize::from(head.is_some());
    let mut work = SigmaWork {
        keys,
        head,
        body,
        first,
        group: None,
        base: [0u8; 16],
        acc: [[0u8; 16]; 4],
    };
    oracle::encrypt_par(engine.cipher(), n, &mut work);
    let [a, b, c, d] = work.acc;
    xor(&xor(&a, &b), &xor(&c, &d))
}

/// A block as two native-endian 64-bit words.
#[inline(always)]
pub(super) fn halves(b: &Block) -> [u64; 2] {
    let (h, _) = b.as_chunks::<8>();
    [u64::from_ne_bytes(h[0]), u64::from_ne_bytes(h[1])]
}

/// The whitening `X[i] = M[i] ⊕ γ_i·L` before each batch and the xor of the
/// `Y[i]` into Σ after it.
pub(super) struct SigmaWork<'a> {
    pub(super) keys: &'a Keys,
    pub(super) head: Option<&'a Block>,
    pub(super) body: &'a [Block],
    /// 1-based index of the first block (`head`, or `body[0]`).
    pub(super) first: u64,
    /// The group `g` whose base `γ_{64g}·L` is in `base`.
    pub(super) group: Option<u64>,
    pub(super) base: Block,
    /// Σ in four lanes (independent xor chains), folded at the end.
    pub(super) acc: [Block; 4],
}

impl SigmaWork<'_> {
    /// `γ_{64g}·L`, from the previous group's base when `g` follows it
    /// (`γ_{64g}·L = γ_{64(g-1)+63}·L ⊕ L(ntz(64g))` and
    /// `γ_{64(g-1)+63}·L = γ_{64(g-1)}·L ⊕ γ_63·L`), else from scratch.
    #[inline(always)]
    pub(super) fn group_base(&mut self, g: u64) -> Block {
        if self.group != Some(g) {
            self.base = match self.group {
                _ if g == 0 => [0u8; 16], // γ_0·L
                Some(prev) if prev + 1 == g => {
                    let last_of_prev = xor(&self.base, &self.keys.offsets.low()[63]);
                    self.keys.offsets.offsets().next(&last_of_prev, g << 6)
                }
                _ => self.keys.offsets.offsets().gamma(g << 6),
            };
            self.group = Some(g);
        }
        self.base
    }

    /// `out[t] = src[t] ⊕ γ_{abs+t}·L`, one aligned group of 64 at a time:
    /// `γ_{64g+j}·L = γ_{64g}·L ⊕ γ_j·L`.
    #[inline(always)]
    pub(super) fn whiten(&mut self, out: &mut [Block], src: &[Block], abs: u64) {
        let mut t = 0;
        while t < out.len() {
            let i = abs + t as u64;
            let j = (i & 63) as usize;
            let n = (64 - j).min(out.len() - t);
            let base = self.group_base(i >> 6);
            let gammas = &self.keys.offsets.low()[j..j + n];
            // In 64-bit halves: the compiler keeps `base` in one vector
            // register and vectorizes the loop.
            let [b0, b1] = halves(&base);
            for ((o, s), g) in out[t..t + n].iter_mut().zip(&src[t..t + n]).zip(gammas) {
                let ([s0, s1], [g0, g1]) = (halves(s), halves(g));
                let (o01, _) = o.as_chunks_mut::<8>();
                o01[0] = (s0 ^ g0 ^ b0).to_ne_bytes();
                o01[1] = (s1 ^ g1 ^ b1).to_ne_bytes();
            }
            t += n;
        }
    }
}

impl ParWork for SigmaWork<'_> {
    #[inline(always)]
    fn before(&mut self, start: usize, blocks: &mut [Block]) {
        let abs = self.first + start as u64;
        let body = self.body;
        match self.head {
            Some(head) if start == 0 => {
                let (first, rest) = blocks.split_at_mut(1);
                self.whiten(first, core::slice::from_ref(head), abs);
                let k = rest.len();
                self.whiten(rest, &body[..k], abs + 1);
            }
            Some(_) => {
                let k = blocks.len();
                self.whiten(blocks, &body[start - 1..start - 1 + k], abs);
            }
            None => {
                let k = blocks.len();
                self.whiten(blocks, &body[start..start + k], abs);
            }
        }
    }

    #[inline(always)]
    fn after(&mut self, _start: usize, blocks: &[Block]) {
        let (quads, rest) = blocks.as_chunks::<4>();
        for q in quads {
            for (acc, y) in self.acc.iter_mut().zip(q) {
                for b in 0..16 {
                    acc[b] ^= y[b];
                }
            }
        }
        for y in rest {
            xor_in_place(&mut self.acc[0], y);
        }
    }
}

impl Drop for SigmaWork<'_> {
    fn drop(&mut self) {
        self.base.zeroize();
        self.acc.zeroize();
    }
}

/// The per-key values of the paper's section 3.3 ("KEY SETUP").
#[derive(Clone)]
pub(super) struct Keys {
    /// `L(-1) = L · x^-1`, the mask of a full final block.
    pub(super) l_inv: Block,
    /// `L(i) = L · x^i` (`L(0) = L = E_K(0^n)`) and `γ_j · L` for
    /// `j = 0..63`, the offsets inside one aligned group of 64 blocks.
    pub(super) offsets: GrayBatch,
    /// The offsets laid out for the engine's kernels, made only where
    /// `engine` has the engine's AES key (the fused path, `fused.rs`).
    pub(super) table: Option<GrayTable>,
}

impl Keys {
    /// The per-key values under `engine` (one block, `L = E_K(0^n)`).
    pub(super) fn new<C: BlockCipher128>(engine: &Engine<C>) -> Self {
        let mut l = engine.encrypt_block(&[0u8; 16]);
        let offsets = GrayBatch::new(GrayOffsets::new(&l));
        let keys = Self {
            l_inv: half_be(&l),
            table: engine.aes().map(|_| GrayTable::new(&offsets)),
            offsets,
        };
        l.zeroize();
        keys
    }
}

impl Drop for Keys {
    fn drop(&mut self) {
        self.l_inv.zeroize();
        // `GrayBatch` wipes its own tables.
    }
}

/// Σ so far and the held-back last block `M[m]`: the whole state of a
/// streaming or incremental computation.
#[derive(Clone, Default, Zeroize, ZeroizeOnDrop)]
pub(super) struct State {
    /// `Σ` without the final block: `Y[1] ⊕ ··· ⊕ Y[done]`.
    pub(super) sigma: Block,
    /// `M[m]`, zero beyond `last_len`.
    pub(super) last: Block,
    /// `|M[m]|` in bytes, 0..=16 (0 only for the empty message).
    pub(super) last_len: usize,
    /// Blocks already enciphered: `m - 1`.
    pub(super) done: u64,
}

impl State {
    /// Message length in bytes.
    pub(super) fn len(&self) -> u64 {
        self.done * 16 + self.last_len as u64
    }

    /// Set `M[m]` to `bytes` (at most 16 of them), zero-padded.
    pub(super) fn set_last(&mut self, bytes: &[u8]) {
        self.last = [0u8; 16];
        self.last[..bytes.len()].copy_from_slice(bytes);
        self.last_len = bytes.len();
    }
}

/// Split `msg` into its enciphered blocks `M[1..m-1]` and its final block
/// `M[m]` (1..=16 bytes; empty only for the empty message).
pub(super) fn split_message(msg: &[u8]) -> (&[Block], &[u8]) {
    let body_len = msg.len().saturating_sub(1) / 16 * 16;
    let (body, last) = msg.split_at(body_len);
    (body.as_chunks::<16>().0, last)
}
