//! The XCBC family and XECB-MAC (AES-128), next to the paper's comparison
//! point in its modern form: CBC encryption followed by HMAC-SHA256.
//!
//! * `xcbc-xor-encrypt` / `xcbc-xor-decrypt`: XCBC$-XOR, two keys, r0 from
//!   the OS CSPRNG for every message (as users call it).
//! * `pxcbc-xor-encrypt`: pXCBC$ with S = 16 blocks per segment, so that a
//!   16 KiB message has 65 segments to interleave (with the default S = 1024
//!   it has 2: that is XCBC's serial speed); one thread up to the rayon
//!   threshold.
//! * `xecb-mac`: XECB$-MAC signing.
//! * `cbc-hmac-sha256`: CBC encryption (zero IV, the same loop as
//!   `cbc-encrypt`) then HMAC-SHA256 over the ciphertext.

use blockmodes::Aes128;
use blockmodes::xcbc::XcbcXor;

use super::Case;

pub const MODES: &[&str] = &["xcbc-xor-encrypt", "xcbc-xor-decrypt"];

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
        _ => None,
    }
}
