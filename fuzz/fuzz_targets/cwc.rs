//! CWC (AES-128, 16-byte tags), on the default (SIMD where the CPU has it)
//! and the portable CWC-HASH path: both give the same answers; decryption of
//! arbitrary bytes (accepted = the encryption of its plaintext; rejected =
//! no plaintext left); encrypt-then-decrypt gives exactly the plaintext, and
//! a flipped bit of ciphertext, tag or associated data is rejected and wiped.
#![no_main]
use blockmodes::Error;
use blockmodes::cwc::CwcAes128;
use blockmodes_fuzz::{Input, assert_no_plaintext};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut inp = Input(data);
    let key: [u8; 16] = inp.array();
    let nonce: [u8; 11] = inp.array();
    let flip = inp.u16() as usize;
    let ad = inp.bytes(300);
    let body = inp.rest();
    let cwc = CwcAes128::new_from_slice(&key).unwrap();
    let portable = CwcAes128::new_from_slice(&key)
        .unwrap()
        .with_portable_hash();

    let opened = cwc.decrypt_to_vec(&nonce, ad, body);
    assert_eq!(
        opened,
        portable.decrypt_to_vec(&nonce, ad, body),
        "SIMD and portable differ"
    );
    match opened {
        Ok(pt) => assert_eq!(cwc.encrypt_to_vec(&nonce, ad, &pt).unwrap(), body),
        Err(e) => assert!(body.len() < 16 || e == Error::Authentication, "{e:?}"),
    }
    if body.len() >= 16 {
        let (ct, tag) = body.split_at(body.len() - 16);
        let mut buf = ct.to_vec();
        if cwc.decrypt_detached(&nonce, ad, &mut buf, tag).is_err() {
            assert_no_plaintext(&buf, ct, "cwc in place");
        }
    }

    let sealed = cwc.encrypt_to_vec(&nonce, ad, body).unwrap();
    assert_eq!(
        sealed,
        portable.encrypt_to_vec(&nonce, ad, body).unwrap(),
        "SIMD and portable differ"
    );
    assert_eq!(cwc.decrypt_to_vec(&nonce, ad, &sealed).unwrap(), body);
    let mut bad = sealed.clone();
    let mut bad_ad = ad.to_vec();
    let bits = 8 * (sealed.len() + ad.len());
    let at = flip % bits;
    if at < 8 * sealed.len() {
        bad[at / 8] ^= 1 << (at % 8);
    } else {
        let at = at - 8 * sealed.len();
        bad_ad[at / 8] ^= 1 << (at % 8);
    }
    assert_eq!(
        cwc.decrypt_to_vec(&nonce, &bad_ad, &bad),
        Err(Error::Authentication)
    );
    let (ct, tag) = bad.split_at(body.len());
    let mut buf = ct.to_vec();
    assert!(
        cwc.decrypt_detached(&nonce, &bad_ad, &mut buf, tag)
            .is_err()
    );
    assert!(buf.iter().all(|&b| b == 0), "not wiped");
});
