//! What both architectures' engine tests check against (`aesni`:
//! `tests.rs`, `ctr.rs`, `cwc/ctr_hash.rs`; `armv8`: `tests.rs`): the
//! `aes` crate one block at a time ([`Reference`]), the whitened loop
//! written out with it ([`whiten_ref`]) and counter mode
//! written out with it block by block ([`ctr_reference`]), pXCBC's chain
//! likewise ([`chain_ref`]). Independent of every engine kernel.

use cipher::{BlockCipherDecrypt, BlockCipherEncrypt, KeyInit};

use super::Dir;
use crate::arith::gf128::{Block, xor};

/// The `aes` crate, one block at a time.
pub(crate) enum Reference {
    A128(aes::Aes128),
    A192(aes::Aes192),
    A256(aes::Aes256),
}

impl Reference {
    /// The cipher of the 16-, 24- or 32-byte key `key` (any other length:
    /// AES-256's, which panics).
    pub(crate) fn new(key: &[u8]) -> Self {
        match key.len() {
            16 => Self::A128(aes::Aes128::new_from_slice(key).expect("key")),
            24 => Self::A192(aes::Aes192::new_from_slice(key).expect("key")),
            _ => Self::A256(aes::Aes256::new_from_slice(key).expect("key")),
        }
    }

    /// `E_K(b)` or `E_K^-1(b)`.
    pub(crate) fn apply(&self, dir: Dir, b: &Block) -> Block {
        let mut x = cipher::Block::<aes::Aes128>::from(*b);
        match (self, dir) {
            (Self::A128(c), Dir::Encrypt) => c.encrypt_block(&mut x),
            (Self::A128(c), Dir::Decrypt) => c.decrypt_block(&mut x),
            (Self::A192(c), Dir::Encrypt) => c.encrypt_block(&mut x),
            (Self::A192(c), Dir::Decrypt) => c.decrypt_block(&mut x),
            (Self::A256(c), Dir::Encrypt) => c.encrypt_block(&mut x),
            (Self::A256(c), Dir::Decrypt) => c.decrypt_block(&mut x),
        }
        x.into()
    }

    /// `E_K(tostr(x, 128))`: the big-endian block of `x` enciphered.
    pub(crate) fn be(&self, x: u128) -> Block {
        self.apply(Dir::Encrypt, &x.to_be_bytes())
    }
}

/// The whitened loop by its definition: `out[t] = E(in[t] xor z[t]) xor
/// z[t]` (or with `E^-1`) and the xor of the plaintext side (the inputs
/// when enciphering, the outputs when deciphering).
pub(crate) fn whiten_ref(
    e: &Reference,
    dir: Dir,
    input: &[Block],
    z: &[Block],
) -> (Vec<Block>, Block) {
    let out: Vec<Block> = input
        .iter()
        .zip(z)
        .map(|(b, z)| xor(&e.apply(dir, &xor(b, z)), z))
        .collect();
    let plain = if dir == Dir::Encrypt { input } else { &out };
    let sum = plain.iter().fold([0; 16], |a, b| xor(&a, b));
    (out, sum)
}

/// CTR by the definition: block t of `data` xor `E_K(cb + t)`, the last
/// four bytes of the counter block `cb` a big-endian counter incremented
/// mod 2^32 (the first twelve never change).
pub(crate) fn ctr_reference(e: &Reference, cb: u128, data: &[u8]) -> Vec<u8> {
    let mut out = data.to_vec();
    for (t, chunk) in out.chunks_mut(16).enumerate() {
        let c = (cb & !u128::from(u32::MAX)) | u128::from((cb as u32).wrapping_add(t as u32));
        for (x, k) in chunk.iter_mut().zip(e.be(c)) {
            *x ^= k;
        }
    }
    out
}

/// One pXCBC chain by its definition with the `aes` crate: z and Σ from
/// `start` (or z = Σ = `E'(z0)` under `fresh`), then for each x: Σ ^= x,
/// z = E(z xor x), y = z + i (r0 + l) with i from `first`; with `check`,
/// one more round with x = Σ. Returns the y, z and Σ (`aesni`'s and
/// `armv8`'s `xcbc_strided` tests).
#[allow(clippy::too_many_arguments)]
pub(crate) fn chain_ref(
    e: &Reference,
    fresh: Option<(&Reference, u128)>,
    start: (Block, Block),
    r0: u128,
    first: u128,
    xs: &[Block],
    check: bool,
) -> (Vec<Block>, Block, Block) {
    let (mut z, mut sum) = match fresh {
        Some((k, c)) => {
            let z0 = k.apply(Dir::Encrypt, &c.to_be_bytes());
            (z0, z0)
        }
        None => start,
    };
    let mut ys = Vec::new();
    let mut round = |z: &mut Block, x: &Block, t: usize| {
        *z = e.apply(Dir::Encrypt, &xor(z, x));
        let y =
            u128::from_be_bytes(*z).wrapping_add(first.wrapping_add(t as u128).wrapping_mul(r0));
        ys.push(y.to_be_bytes());
    };
    for (t, x) in xs.iter().enumerate() {
        sum = xor(&sum, x);
        round(&mut z, x, t);
    }
    if check {
        let s = sum;
        round(&mut z, &s, xs.len());
    }
    (ys, z, sum)
}
