//! The shape of a pXCBC message (N blocks in L segments of S) and the stream of its plaintext blocks.

#[allow(unused_imports)]
use super::*;

/// The shape of one message: N plaintext blocks (length block + padded
/// message) in L segments of S blocks.
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    /// S
    pub(super) s: usize,
    /// N = 1 + padded blocks.
    pub(super) blocks: usize,
    /// L = ceil(N / S)
    pub(super) segments: usize,
}

impl Layout {
    pub(super) fn for_message(msg_len: usize, s: usize) -> Result<Self> {
        let blocks = padded_blocks(msg_len)
            .checked_add(1)
            .ok_or_else(|| too_long(msg_len))?;
        let l = Self {
            s,
            blocks,
            segments: blocks.div_ceil(s),
        };
        // 16 (1 + N + L) must fit comfortably.
        (1 + l.blocks)
            .checked_add(l.segments)
            .and_then(|b| b.checked_mul(16))
            .filter(|&b| b <= usize::MAX / 2)
            .ok_or_else(|| too_long(msg_len))?;
        Ok(l)
    }

    /// Parse the shape of a ciphertext of `ct_len` bytes.
    pub(super) fn for_ciphertext(ct_len: usize, s: usize) -> Result<Self> {
        if !ct_len.is_multiple_of(16) {
            return Err(Error::InvalidLength(
                "ciphertext is not a whole number of blocks",
            ));
        }
        // y0, then at least one segment holding the length block, one
        // padded block and a check block (S = 1: two segments of two).
        let min = if s == 1 { 80 } else { 64 };
        if ct_len < min {
            return Err(Error::CiphertextTooShort { min, got: ct_len });
        }
        let body = ct_len / 16 - 1;
        let segments = body.div_ceil(s + 1);
        let last = body - (segments - 1) * (s + 1);
        if last < 2 || body - segments < 2 {
            // A segment of only a check block, or no room for the length
            // block and one padded block: no encryption produces it.
            return Err(Error::Authentication);
        }
        Ok(Self {
            s,
            blocks: body - segments,
            segments,
        })
    }

    pub(super) fn ct_len(&self) -> usize {
        16 * (1 + self.blocks + self.segments)
    }

    /// Room the decrypted (padded) message needs: N - 1 blocks.
    pub(super) fn pt_capacity(&self) -> usize {
        16 * (self.blocks - 1)
    }

    /// n_s of segment `seg` (0-based).
    pub(super) fn seg_len(&self, seg: usize) -> usize {
        self.s.min(self.blocks - seg * self.s)
    }

    /// How many segments from `g` (below `end`, at most `max`) run in one
    /// lock-step group: all of one length n_s (only the message's last
    /// segment may be shorter: it goes in a group of its own). `g < end`.
    pub(super) fn group_lanes(&self, g: usize, end: usize, max: usize) -> usize {
        let lanes = max.min(end - g).max(1);
        if lanes > 1 && self.seg_len(g + lanes - 1) != self.seg_len(g) {
            lanes - 1
        } else {
            lanes
        }
    }

    /// Ciphertext blocks (after the header) before segment `seg`.
    pub(super) fn seg_offset(&self, seg: usize) -> usize {
        seg * (self.s + 1)
    }
}

/// The plaintext blocks of a message: the length block, then the padded message.
pub(super) struct Stream<'a> {
    pub(super) msg: &'a [u8],
    pub(super) full: usize,
    pub(super) last: Block,
}

impl<'a> Stream<'a> {
    pub(super) fn new(msg: &'a [u8]) -> Self {
        Self {
            msg,
            full: msg.len() / 16,
            last: last_block(msg),
        }
    }

    /// Plaintext block `j` (0-based): the length block, a message block or the padded last block.
    #[inline(always)]
    pub(super) fn block(&self, j: usize) -> Block {
        if j == 0 {
            to_block(self.msg.len() as u128)
        } else if j <= self.full {
            let mut b = [0u8; 16];
            b.copy_from_slice(&self.msg[16 * (j - 1)..16 * j]);
            b
        } else {
            self.last
        }
    }
}

impl Drop for Stream<'_> {
    fn drop(&mut self) {
        self.last.zeroize();
    }
}

/// Messages (and ciphertexts) of at least this many bytes are processed on
/// several threads (rayon), in ranges of whole segments. Below it, waking
/// another thread (tens of microseconds) costs more than it saves: measured
/// on a 2-core VAES machine, two threads never won below 256 KiB.
pub const PARALLEL_THRESHOLD: usize = 256 * 1024;

/// The most segments one thread interleaves in lock step.
pub(super) const MAX_LANES: usize = 64;
