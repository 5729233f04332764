//! OCB 1.0 (AES-128, 16-byte tags): encryption and decryption of one message,
//! the OCB paper's figure 3 re-measured.

use blockmodes::ocb1::Ocb1Aes128;

use super::Case;
use super::base::key;

pub const MODES: &[&str] = &["ocb1-encrypt", "ocb1-decrypt"];

/// A fixed benchmark nonce (the figures do not depend on it).
const NONCE: [u8; 16] = [0x4e; 16];

pub fn make(mode: &str, bytes: usize) -> Option<Case> {
    let ocb = Ocb1Aes128::new_from_slice(&key()).ok()?;
    let mut buf = vec![0x5au8; bytes];
    match mode {
        "ocb1-encrypt" => Some(Box::new(move || {
            let tag = ocb.encrypt_in_place_detached(&NONCE, &mut buf);
            std::hint::black_box((&buf, tag.ok()));
        })),
        "ocb1-decrypt" => {
            // Decryption in place turns the buffer into plaintext, so each
            // call first copies the ciphertext back: the figure includes one
            // memcpy of the message.
            let tag = ocb.encrypt_in_place_detached(&NONCE, &mut buf).ok()?;
            let ct = buf.clone();
            Some(Box::new(move || {
                buf.copy_from_slice(&ct);
                let ok = ocb.decrypt_in_place_detached(&NONCE, &mut buf, &tag);
                std::hint::black_box((&buf, ok.is_ok()));
            }))
        }
        _ => None,
    }
}
