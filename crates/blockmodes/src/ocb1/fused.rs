//! OCB 1.0 on the fused AES kernels (x86-64 with AES-NI; see
//! `crate::backend`): `R`, the `m - 1` full blocks in one kernel call (the
//! offsets `Z[i]` generated in registers, folded into the first and last
//! round keys, the Checksum summed while the rounds run), `Y[m]` and the
//! tag. No batch buffer, no padding: a message of `m` blocks costs its
//! `m + 2` block operations.
//!
//! The steps are those of `seal` and `open` in `mod.rs` (figure 2 of the
//! paper), with the block cipher calls replaced.

#[cfg(feature = "alloc")]
use alloc::vec::Vec;

#[cfg(feature = "alloc")]
use super::head_len;
use super::{BlockBuf, copy_prefix, copy_tail, wipe, zero_after};
use crate::arith::gf128::{Block, xor, xor_in_place};
use crate::backend::GrayView;
use crate::engine::{Dir, Io};

/// OCB 1.0's steps on the engine key and its offset table.
impl GrayView<'_> {
    /// `R = E_K(N xor L)`.
    fn r(&self, nonce: &Block, l: &Block) -> Block {
        let mut n_xor_l = xor(nonce, l);
        let r = self.key.encrypt_block(&n_xor_l);
        wipe(&mut n_xor_l);
        r
    }

    /// OCB.Enc: as `Ocb1::seal`.
    pub(super) fn seal(
        &self,
        l: &Block,
        l_inv: &Block,
        nonce: &Block,
        io: &mut impl BlockBuf,
    ) -> Block {
        let n_full = io.blocks_in().len() as u64; // m - 1
        let mut last = [0u8; 16];
        let len = copy_tail(&mut last, io.tail_in()); // M[m]
        let keys = (l, l_inv, nonce);
        let tag = self.core(Dir::Encrypt, keys, n_full, &mut last, len, |r, y_m| {
            let io = Io::InOut(io.blocks_inout());
            self.key.ocb_blocks(Dir::Encrypt, self.table, r, io, y_m)
        });
        copy_prefix(io.tail_out(), &last); // C[m]
        wipe(&mut last);
        tag
    }

    /// OCB.Enc (`dir` Encrypt) or OCB.Dec up to the tag (Decrypt) of
    /// `input` (`M`, or the core `C`) onto the end of `out` (written once:
    /// no zero fill, no copy); returns the full tag (`T`, or `T'` for the
    /// caller to check, wiping `out` on a mismatch). The `Vec` calls
    /// `Ocb1::encrypt_to_vec` and `decrypt_to_vec`.
    #[cfg(feature = "alloc")]
    pub(super) fn append(
        &self,
        dir: Dir,
        (l, l_inv, nonce): (&Block, &Block, &Block),
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Block {
        let (blocks, tail) = input.split_at(head_len(input.len()));
        let (blocks, _) = blocks.as_chunks::<16>();
        let mut last = [0u8; 16];
        let len = copy_tail(&mut last, tail); // M[m], or C[m]0*
        let n_full = blocks.len() as u64;
        let run = |r: &Block, y_m: &mut Block| {
            self.key
                .ocb_blocks_append(dir, self.table, r, blocks, out, y_m)
        };
        let tag = self.core(dir, (l, l_inv, nonce), n_full, &mut last, len, run);
        out.extend_from_slice(&last[..len]); // C[m], or M[m]
        wipe(&mut last);
        tag
    }

    /// OCB.Enc (`dir` Encrypt) or OCB.Dec up to the tag (Decrypt) around
    /// the full blocks, which `blocks(R, &mut X[m])` runs (returning the xor
    /// of their plaintext blocks and turning `X[m]` into `Y[m]`): returns the
    /// full tag (`T`, or `T'`). `last` holds `M[m]` (`len` bytes) or
    /// `C[m]0*` and is turned into the other side's last block, `C[m]0*` or
    /// `M[m]` (its first `len` bytes; the caller writes them and wipes
    /// `last`). Whole-block operations only, in place: a block handed back
    /// by value or rebuilt byte by byte ended in a 16-byte load of narrower
    /// stores (a store-forwarding stall that cost OCB.Dec a quarter of its
    /// speed at 1 KiB).
    fn core(
        &self,
        dir: Dir,
        (l, l_inv, nonce): (&Block, &Block, &Block),
        n_full: u64,
        last: &mut Block,
        len: usize,
        blocks: impl FnOnce(&Block, &mut Block) -> Block,
    ) -> Block {
        let mut r = self.r(nonce, l);
        let mut z_m = self.table.offset(&r, n_full + 1);
        // C[i] = E_K(M[i] xor Z[i]) xor Z[i] (or M[i] = E_K^-1(C[i] xor Z[i])
        // xor Z[i]); Checksum = xor of the M[i]; Y[m] alongside.
        let mut y_m = x_m(l_inv, &z_m, len);
        let mut checksum = blocks(&r, &mut y_m);
        // Checksum xor C[m]0* xor Y[m], enciphered after the xor with Z[m].
        match dir {
            Dir::Encrypt => {
                xor_in_place(last, &y_m); // C[m] = M[m] xor Y[m]
                zero_after(last, len); // C[m]0*
                xor_in_place(&mut checksum, last);
            }
            Dir::Decrypt => {
                xor_in_place(&mut checksum, last);
                xor_in_place(last, &y_m); // M[m] = C[m] xor Y[m]
            }
        }
        xor_in_place(&mut checksum, &y_m);
        xor_in_place(&mut checksum, &z_m);
        let tag = self.key.encrypt_block(&checksum);
        for secret in [&mut checksum, &mut z_m, &mut y_m, &mut r] {
            wipe(secret);
        }
        tag
    }

    /// OCB.Dec up to the tag: as `Ocb1::open`.
    pub(super) fn open(
        &self,
        l: &Block,
        l_inv: &Block,
        nonce: &Block,
        io: &mut impl BlockBuf,
    ) -> Block {
        let n_full = io.blocks_in().len() as u64; // m - 1
        let mut last = [0u8; 16];
        let len = copy_tail(&mut last, io.tail_in()); // C[m]0*
        let keys = (l, l_inv, nonce);
        let tag = self.core(Dir::Decrypt, keys, n_full, &mut last, len, |r, y_m| {
            let io = Io::InOut(io.blocks_inout());
            self.key.ocb_blocks(Dir::Decrypt, self.table, r, io, y_m)
        });
        copy_prefix(io.tail_out(), &last); // M[m]
        wipe(&mut last);
        tag
    }
}

impl GrayView<'_> {
    /// Full blocks `first, first + 1, ...` of a message in `io` (the on-line
    /// interface, `ocb1/online.rs`): `C[i] = E_K(M[i] xor Z[i]) xor Z[i]`
    /// (or `M[i] = E_K^-1(C[i] xor Z[i]) xor Z[i]`) with
    /// `Z[i] = gamma_i L xor R`; returns the xor of their plaintext blocks.
    #[cfg(feature = "alloc")]
    pub(super) fn blocks(&self, dir: Dir, first: u64, r: &Block, io: &mut impl BlockBuf) -> Block {
        let off = crate::engine::Offsets::Gray {
            table: self.table,
            first,
            r,
        };
        self.key
            .whiten(dir, off, true, Io::InOut(io.blocks_inout()))
    }
}

/// `X[m] = len(M[m]) xor L(-1) xor Z[m]` (`Y[m] = E_K(X[m])`), with
/// `len(M[m])` the bit length of the final block as a 128-bit big-endian
/// number.
fn x_m(l_inv: &Block, z_m: &Block, len_bytes: usize) -> Block {
    let bits = (8 * len_bytes as u128).to_be_bytes();
    xor(&xor(&bits, l_inv), z_m)
}
