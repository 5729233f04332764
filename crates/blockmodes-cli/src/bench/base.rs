//! The yardsticks: raw ECB (on the tier in use: the engine's own ECB, or
//! the `aes` crate's on `generic`), CBC encryption and the basic CBC-MAC,
//! all AES-128.

use blockmodes::backend::Ecb;
use blockmodes::{Aes128, Block};
use cipher::{BlockCipherEncrypt, KeyInit};

use super::Case;

pub const MODES: &[&str] = &["ecb", "ecb-aes-crate", "cbc-encrypt", "cbc-mac"];

/// A fixed benchmark key (the figures do not depend on it).
pub fn key() -> [u8; 16] {
    *b"blockmodes-bench"
}

pub fn make(mode: &str, bytes: usize) -> Option<Case> {
    let aes = Aes128::new(&key().into());
    let mut blocks = vec![[0x5au8; 16]; bytes.div_ceil(16)];
    match mode {
        "ecb" => {
            let ecb = Ecb::<Aes128>::new_from_slice(&key()).ok()?;
            Some(Box::new(move || {
                ecb.encrypt_blocks(&mut blocks);
                std::hint::black_box(&blocks);
            }))
        }
        "ecb-aes-crate" => Some(Box::new(move || {
            blockmodes::oracle::ecb_encrypt_blocks(&aes, &mut blocks);
            std::hint::black_box(&blocks);
        })),
        "cbc-encrypt" => Some(Box::new(move || {
            let mut chain: Block = [0; 16];
            for b in blocks.iter_mut() {
                for (x, c) in b.iter_mut().zip(chain) {
                    *x ^= c;
                }
                aes.encrypt_block(b.into());
                chain = *b;
            }
            std::hint::black_box(&blocks);
        })),
        "cbc-mac" => Some(Box::new(move || {
            let mut chain = cipher::Block::<Aes128>::default();
            for b in blocks.iter() {
                for (x, y) in chain.iter_mut().zip(b) {
                    *x ^= y;
                }
                aes.encrypt_block(&mut chain);
            }
            std::hint::black_box(&chain);
        })),
        _ => None,
    }
}
