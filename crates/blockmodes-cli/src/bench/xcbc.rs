//! The XCBC family and XECB-MAC (AES-128), next to the paper's comparison
//! point in its modern form: CBC encryption followed by HMAC-SHA256.
//!
//! * `xcbc-xor-encrypt` / `xcbc-xor-decrypt`: XCBC$-XOR, two keys, a fresh
//!   r0 for every message from the thread RNG (`blockmodes::rng`: AES-256-CTR
//!   seeded from the OS; the call users make).
//! * `pxcbc-xor-encrypt`: pXCBC$ with S = 16 blocks per segment, so that a
//!   16 KiB message has 65 segments to interleave (with the default S = 1024
//!   it has 2: XCBC's serial speed). Kept on one thread at every size.
//! * `xecb-mac`: XECB$-MAC signing (one thread).
//! * `xecb-mac-ctr`, `pxcbc-xor-ctr-encrypt`: the stateful forms (XECB-MAC,
//!   pXCBC with S = 16), whose r0 = f(ctr) costs one block-cipher call
//!   where the stateless forms pay a 16-byte draw from the thread RNG (about
//!   3.7 ns; it was a `getrandom` system call per message, about 0.2 µs).
//! * `pxcbc-xor-decrypt`: pXCBC$ decryption with S = 16, one thread (each
//!   segment an XCBC$-XOR message of its own).
//! * `cbc-hmac-sha256`: CBC encryption (zero IV, the same loop as
//!   `cbc-encrypt`) then HMAC-SHA256 over the ciphertext, with a keyed HMAC
//!   state cloned per message.
//! * `cbc-hmac-sha256-random-iv`: the same with a fresh random IV per
//!   message (CBC's own requirement for privacy), drawn from the same thread
//!   RNG as XCBC$-XOR's r0, so both pay the same for their randomness: the
//!   like-for-like stateless comparison.

use blockmodes::pxcbc::{PxcbcXor, PxcbcXorStateful, PxcbcXorStatefulEncryptor};
use blockmodes::rand_core::TryRng;
use blockmodes::rng::thread_rng;
use blockmodes::xcbc::XcbcXor;
use blockmodes::xecb::{XecbMac, XecbMacStatefulSigner};
use blockmodes::{Aes128, Block};
use cipher::{BlockCipherEncrypt, KeyInit};
use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::Case;

pub const MODES: &[&str] = &[
    "xcbc-xor-encrypt",
    "xcbc-xor-decrypt",
    "pxcbc-xor-encrypt",
    "xecb-mac",
    "cbc-hmac-sha256",
    "cbc-hmac-sha256-random-iv",
    "xecb-mac-ctr",
    "pxcbc-xor-ctr-encrypt",
    "pxcbc-xor-decrypt",
];

/// The segment length of the `pxcbc-xor-encrypt` case.
pub const PXCBC_BENCH_SEGMENT: usize = 16;

/// K || K' for the two-key modes.
fn key2() -> [u8; 32] {
    *b"blockmodes-bench-xcbc-second-key"
}

pub fn make(mode: &str, bytes: usize) -> Option<Case> {
    let msg = vec![0x5au8; bytes];
    match mode {
        "xcbc-xor-encrypt" => {
            let x = XcbcXor::<Aes128>::new_from_slice(&key2()).ok()?;
            let mut out = vec![0u8; x.ciphertext_len(bytes).ok()?];
            Some(Box::new(move || {
                x.encrypt_into(&msg, &mut out).expect("encrypt");
                std::hint::black_box(&out);
            }))
        }
        "xcbc-xor-decrypt" => {
            let x = XcbcXor::<Aes128>::new_from_slice(&key2()).ok()?;
            let ct = x.encrypt(&msg).ok()?;
            let mut out = vec![0u8; ct.len()];
            Some(Box::new(move || {
                x.decrypt_into(&ct, &mut out).expect("decrypt");
                std::hint::black_box(&out);
            }))
        }
        "pxcbc-xor-encrypt" => {
            let p = PxcbcXor::<Aes128>::new_from_slice(&key2())
                .ok()?
                .with_segment_blocks(PXCBC_BENCH_SEGMENT)
                .ok()?;
            let mut out = vec![0u8; p.ciphertext_len(bytes).ok()?];
            // One thread, as every other row of the table.
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .build()
                .ok()?;
            let threaded = bytes >= blockmodes::pxcbc::PARALLEL_THRESHOLD;
            Some(Box::new(move || {
                if threaded {
                    pool.install(|| p.encrypt_into(&msg, &mut out).expect("encrypt"));
                } else {
                    p.encrypt_into(&msg, &mut out).expect("encrypt");
                }
                std::hint::black_box(&out);
            }))
        }
        "xecb-mac" => {
            let mac = XecbMac::<Aes128>::new_from_slice(&super::base::key()).ok()?;
            Some(Box::new(move || {
                std::hint::black_box(mac.mac(&msg).expect("sign"));
            }))
        }
        "xecb-mac-ctr" => {
            let mut mac =
                XecbMacStatefulSigner::<Aes128>::new_from_slice(&super::base::key()).ok()?;
            Some(Box::new(move || {
                std::hint::black_box(mac.mac(&msg).expect("sign"));
            }))
        }
        "pxcbc-xor-ctr-encrypt" => {
            let rx = PxcbcXorStateful::<Aes128>::new_from_slice(&key2())
                .ok()?
                .with_segment_blocks(PXCBC_BENCH_SEGMENT)
                .ok()?;
            let mut out = vec![0u8; rx.ciphertext_len(bytes).ok()?];
            let mut p = PxcbcXorStatefulEncryptor::new(rx);
            // One thread, as every other row of the table.
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .build()
                .ok()?;
            let threaded = bytes >= blockmodes::pxcbc::PARALLEL_THRESHOLD;
            Some(Box::new(move || {
                if threaded {
                    pool.install(|| p.encrypt_into(&msg, &mut out).expect("encrypt"));
                } else {
                    p.encrypt_into(&msg, &mut out).expect("encrypt");
                }
                std::hint::black_box(&out);
            }))
        }
        "pxcbc-xor-decrypt" => {
            let p = PxcbcXor::<Aes128>::new_from_slice(&key2())
                .ok()?
                .with_segment_blocks(PXCBC_BENCH_SEGMENT)
                .ok()?;
            let ct = p.encrypt(&msg).ok()?;
            let mut out = vec![0u8; ct.len()];
            // One thread, as every other row of the table.
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .build()
                .ok()?;
            let threaded = ct.len() >= blockmodes::pxcbc::PARALLEL_THRESHOLD;
            Some(Box::new(move || {
                if threaded {
                    pool.install(|| p.decrypt_into(&ct, &mut out).expect("decrypt"));
                } else {
                    p.decrypt_into(&ct, &mut out).expect("decrypt");
                }
                std::hint::black_box(&out);
            }))
        }
        "cbc-hmac-sha256" | "cbc-hmac-sha256-random-iv" => {
            let aes = Aes128::new(&super::base::key().into());
            let hmac = <Hmac<Sha256> as hmac::KeyInit>::new_from_slice(&key2()).ok()?;
            let mut blocks = vec![[0x5au8; 16]; bytes.div_ceil(16)];
            let random_iv = mode.ends_with("random-iv");
            Some(Box::new(move || {
                let mut chain: Block = [0; 16];
                if random_iv {
                    thread_rng().try_fill_bytes(&mut chain).expect("thread RNG");
                }
                let iv = chain;
                for b in blocks.iter_mut() {
                    for (x, c) in b.iter_mut().zip(chain) {
                        *x ^= c;
                    }
                    aes.encrypt_block(b.into());
                    chain = *b;
                }
                let mut m = hmac.clone();
                if random_iv {
                    m.update(&iv); // the IV travels with the ciphertext
                }
                m.update(blocks.as_flattened());
                std::hint::black_box(m.finalize().into_bytes());
                std::hint::black_box(&blocks);
            }))
        }
        _ => None,
    }
}
