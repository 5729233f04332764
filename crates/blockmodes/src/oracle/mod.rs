//! The block cipher as an oracle.
//!
//! Every mode in this crate sees its block cipher only through the `cipher`
//! crate's traits, with 16-byte blocks: [`BlockCipher128`] (and
//! [`BlockCipher128Dec`] where a mode deciphers) is every mode's bound.
//!
//! Public here: those two bounds and [`Counting`], a wrapper that counts
//! block-cipher calls (the tests check each paper's cost claim with it;
//! research code may do the same). The machinery every parallel mode shares
//! (`calls.rs`: handing the cipher's multi-block backend full batches with
//! the mode's whitening before and after each, `ParWork`, `encrypt_par`,
//! `decrypt_par`; one serial chain, `encrypt_chain`; `lanes.rs`: buffer to
//! buffer and independent chains in lock step, also in
//! [`hazmat::lanes`](crate::hazmat::lanes)) is public only with the
//! `internals` feature, for blockmodes' own crates.

pub(crate) mod scratch;
use scratch::Align64;

use cipher::{
    Block as CipherBlock, BlockCipherDecBackend, BlockCipherDecClosure, BlockCipherDecrypt,
    BlockCipherEncBackend, BlockCipherEncClosure, BlockCipherEncrypt, BlockSizeUser, KeyInit,
    KeySizeUser, ParBlocks, ParBlocksSizeUser, array::Array, consts::U16, inout::InOut,
    typenum::Unsigned,
};

use zeroize::Zeroize;

use crate::arith::gf128::Block;
use crate::error::Error;

#[cfg(all(feature = "alloc", target_has_atomic = "64", target_has_atomic = "ptr"))]
mod counting;
#[cfg(all(feature = "alloc", target_has_atomic = "64", target_has_atomic = "ptr"))]
pub use counting::{CallCount, Counting};

pub(crate) mod lanes;
pub(crate) use lanes::*;

// Engine internals: `pub` for blockmodes' own crates with the `internals`
// feature, crate-private otherwise.
#[cfg_attr(not(feature = "internals"), allow(dead_code, unreachable_pub))]
mod calls;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub use calls::{
    ParWork, cipher_from_key, decrypt_block, decrypt_par, ecb_encrypt_blocks, encrypt_block,
    encrypt_chain, encrypt_par, par_width,
};
#[cfg(not(feature = "internals"))]
#[allow(unused_imports)]
pub(crate) use calls::{
    ParWork, cipher_from_key, decrypt_block, decrypt_par, ecb_encrypt_blocks, encrypt_block,
    encrypt_chain, encrypt_par, par_width,
};

/// Any block cipher with 128-bit blocks that can encipher (and owns its
/// key: `'static`).
///
/// The `'static` bound lets a mode recognise the `aes` crate's AES types by
/// [`TypeId`](core::any::TypeId) at key setup and take blockmodes' own AES
/// engine for them; every other cipher (a wrapper such as [`Counting`]
/// included) keeps its own calls. Block ciphers own their round keys, so
/// the bound excludes only a cipher type that borrows (`Cipher<'a>`).
///
/// ```
/// fn mode<C: blockmodes::oracle::BlockCipher128>() {}
/// mode::<blockmodes::Aes128>();
/// ```
pub trait BlockCipher128: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16> + 'static {}
impl<C: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16> + 'static> BlockCipher128 for C {}

/// Any block cipher with 128-bit blocks that can encipher and decipher.
pub trait BlockCipher128Dec: BlockCipher128 + BlockCipherDecrypt {}
impl<C: BlockCipher128 + BlockCipherDecrypt> BlockCipher128Dec for C {}

/// [`Error::InvalidKeyLength`] for a key of `got` bytes offered to `C`.
pub(crate) fn key_len_error<C: KeySizeUser>(got: usize) -> Error {
    Error::InvalidKeyLength {
        expected: C::KeySize::USIZE,
        got,
    }
}

#[cfg(all(test, feature = "alloc"))]
mod b2b_and_chains_tests {
    use super::*;
    use cipher::{BlockCipherEncrypt, KeyInit};

    /// CBC-MAC of `lanes` chains of `rounds` blocks, in lock step.
    struct Macs {
        msgs: Vec<Vec<Block>>,
        tags: Vec<Block>,
        seen: Vec<usize>,
    }
    impl ChainWork for Macs {
        fn before(&mut self, r: usize, prev: &[Block], inputs: &mut [Block]) {
            for (lane, b) in inputs.iter_mut().enumerate() {
                *b = crate::arith::gf128::xor(&prev[lane], &self.msgs[lane][r]);
            }
        }
        fn after(&mut self, r: usize, outputs: &[Block]) {
            self.seen.push(r);
            self.tags.copy_from_slice(outputs);
        }
    }

    fn serial_mac(aes: &aes::Aes128, msg: &[Block]) -> Block {
        let mut c = cipher::Block::<aes::Aes128>::default();
        for m in msg {
            for (x, y) in c.iter_mut().zip(m) {
                *x ^= y;
            }
            aes.encrypt_block(&mut c);
        }
        c.into()
    }

    #[test]
    fn chains_match_serial_chains_at_every_width() {
        let aes = aes::Aes128::new(&[9u8; 16].into());
        for lanes in [1usize, 3, 15, 16, 20, 63, 64] {
            for rounds in [1usize, 2, 5] {
                let msgs: Vec<Vec<Block>> = (0..lanes)
                    .map(|l| (0..rounds).map(|r| [(l * 31 + r) as u8; 16]).collect())
                    .collect();
                let mut w = Macs {
                    msgs,
                    tags: vec![[0; 16]; lanes],
                    seen: vec![],
                };
                encrypt_chains(&aes, lanes, rounds, &mut w);
                assert_eq!(w.seen, (0..rounds).collect::<Vec<_>>());
                for l in 0..lanes {
                    assert_eq!(w.tags[l], serial_mac(&aes, &w.msgs[l]), "{lanes} {rounds}");
                }
                // One call per block through a one-block backend.
                let (c, count) = Counting::new(aes.clone());
                let mut w2 = Macs {
                    msgs: w.msgs.clone(),
                    tags: vec![[0; 16]; lanes],
                    seen: vec![],
                };
                encrypt_chains(&c, lanes, rounds, &mut w2);
                assert_eq!(count.get(), (lanes * rounds) as u64);
                assert_eq!(w2.tags, w.tags);
            }
        }
    }

    /// Every round's outputs, and what `after_with_previous` offered as
    /// the round before.
    struct Rounds {
        outputs: Vec<Vec<Block>>,
        previous: Vec<Vec<Block>>,
    }
    impl ChainWork for Rounds {
        fn before(&mut self, r: usize, prev: &[Block], inputs: &mut [Block]) {
            for (lane, (b, p)) in inputs.iter_mut().zip(prev).enumerate() {
                *b = *p;
                b[0] ^= (r * 7 + lane) as u8;
            }
        }
        fn after(&mut self, _r: usize, _outputs: &[Block]) {
            unreachable!("encrypt_chains calls after_with_previous");
        }
        fn after_with_previous(&mut self, r: usize, outputs: &[Block], previous: &[Block]) {
            assert_eq!(self.outputs.len(), r);
            self.outputs.push(outputs.to_vec());
            self.previous.push(previous.to_vec());
        }
    }

    #[test]
    fn after_with_previous_sees_the_round_before() {
        let aes = aes::Aes128::new(&[5u8; 16].into());
        for lanes in [1usize, 15, 16, 64] {
            for rounds in 1usize..=7 {
                let mut w = Rounds {
                    outputs: vec![],
                    previous: vec![],
                };
                encrypt_chains(&aes, lanes, rounds, &mut w);
                assert_eq!(w.outputs.len(), rounds);
                assert!(w.previous[0].is_empty());
                for r in 1..rounds {
                    assert_eq!(w.previous[r], w.outputs[r - 1], "{lanes} lanes, round {r}");
                }
            }
        }
    }

    struct Ecb<'a> {
        ct: &'a [Block],
        pt: &'a mut [Block],
        calls: Vec<(usize, usize)>,
    }
    impl ParWorkB2b for Ecb<'_> {
        fn before(&mut self, start: usize, k: usize) -> (&[Block], &mut [Block]) {
            self.calls.push((start, k));
            (&self.ct[start..start + k], &mut self.pt[start..start + k])
        }
        fn after(&mut self, _start: usize, _k: usize) {}
    }

    #[test]
    fn b2b_matches_single_blocks() {
        let aes = aes::Aes128::new(&[3u8; 16].into());
        for n in [1usize, 5, 63, 64, 65, 130] {
            let ct: Vec<Block> = (0..n).map(|j| [j as u8; 16]).collect();
            let mut pt = vec![[0u8; 16]; n];
            let mut w = Ecb {
                ct: &ct,
                pt: &mut pt,
                calls: vec![],
            };
            decrypt_par_b2b(&aes, n, &mut w);
            let starts: Vec<usize> = w.calls.iter().map(|c| c.0).collect();
            assert_eq!(starts, (0..n).step_by(B2B_BATCH).collect::<Vec<_>>());
            for (c, p) in ct.iter().zip(&pt) {
                assert_eq!(decrypt_block(&aes, c), *p);
            }
        }
    }
}
