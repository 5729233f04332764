//! OCB 1.0 (AES-128, 16-byte tags): decryption of arbitrary bytes (anything
//! accepted is the encryption of what it decrypts to; anything rejected
//! leaves no plaintext), and encrypt-then-decrypt of arbitrary plaintext
//! (exactly the plaintext back; one flipped bit rejected and wiped).
#![no_main]
use blockmodes::Error;
use blockmodes::ocb1::Ocb1Aes128;
use blockmodes_fuzz::{Input, assert_no_plaintext};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut inp = Input(data);
    let key: [u8; 16] = inp.array();
    let nonce: [u8; 16] = inp.array();
    let flip = inp.u16() as usize;
    let body = inp.rest();
    let ocb = Ocb1Aes128::new_from_slice(&key).unwrap();

    match ocb.decrypt_to_vec(&nonce, body) {
        Ok(pt) => assert_eq!(ocb.encrypt_to_vec(&nonce, &pt).unwrap(), body),
        Err(e) => assert!(body.len() < 16 || e == Error::Authentication, "{e:?}"),
    }
    if body.len() >= 16 {
        let (ct, tag) = body.split_at(body.len() - 16);
        let mut buf = ct.to_vec();
        if ocb.decrypt_detached(&nonce, &mut buf, tag).is_err() {
            assert_no_plaintext(&buf, ct, "ocb1 in place");
        }
    }

    let sealed = ocb.encrypt_to_vec(&nonce, body).unwrap();
    assert_eq!(sealed.len(), body.len() + 16);
    assert_eq!(ocb.decrypt_to_vec(&nonce, &sealed).unwrap(), body);
    let mut bad = sealed.clone();
    bad[(flip / 8) % sealed.len()] ^= 1 << (flip % 8);
    assert_eq!(ocb.decrypt_to_vec(&nonce, &bad), Err(Error::Authentication));
    let (ct, tag) = bad.split_at(body.len());
    let mut buf = ct.to_vec();
    assert!(ocb.decrypt_detached(&nonce, &mut buf, tag).is_err());
    assert!(buf.iter().all(|&b| b == 0), "not wiped");
});
