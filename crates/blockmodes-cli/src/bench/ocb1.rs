//! OCB 1.0 (AES-128, 16-byte tags): encryption and decryption of one message,
//! the OCB paper's figure 3 re-measured.

use aead::AeadInOut;
use aead::inout::InOutBuf;
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
            let tag = ocb.encrypt_detached(&NONCE, &mut buf);
            std::hint::black_box((&buf, tag.ok()));
        })),
        "ocb1-decrypt" => {
            // Through the aead trait with separate ciphertext and plaintext
            // buffers (decryption in place would turn the buffer into
            // plaintext after the first call): no copy is involved.
            let tag = ocb.encrypt_detached(&NONCE, &mut buf).ok()?;
            let ct = buf.clone();
            let nonce = aead::Nonce::<Ocb1Aes128>::from(NONCE);
            Some(Box::new(move || {
                let io = InOutBuf::new(&ct, &mut buf).expect("equal lengths");
                let ok = ocb.decrypt_inout_detached(&nonce, b"", io, &tag);
                std::hint::black_box((&buf, ok.is_ok()));
            }))
        }
        _ => None,
    }
}
