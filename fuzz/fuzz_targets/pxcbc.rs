//! pXCBC$-XOR (stateless, AES-128) with an arbitrary segment size:
//! encrypt-then-decrypt gives exactly the plaintext, a flipped bit is
//! rejected and wiped; decryption of arbitrary bytes is accepted only for
//! the encryption of its plaintext under r0 = f^-1(y0).
#![no_main]
use blockmodes::Aes128;
use blockmodes::pxcbc::PxcbcXor;
use blockmodes::xcbc::hazmat::EncryptWithR0;
use blockmodes_fuzz::{Input, aes128_decrypt, assert_no_plaintext, flip};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut inp = Input(data);
    let key: [u8; 32] = inp.array();
    let r0: [u8; 16] = inp.array();
    let s = 1 + inp.byte() as usize % 40;
    let ctl = inp.u16() as usize;
    let body = inp.rest();
    let p = if ctl & 1 == 0 {
        PxcbcXor::<Aes128>::new_from_slice(&key)
    } else {
        PxcbcXor::<Aes128>::new_from_slice_one_key(&key[..16])
    }
    .and_then(|p| p.with_segment_blocks(s))
    .unwrap();

    let ct = p.encrypt_with_r0(&r0, body).unwrap();
    assert_eq!(p.decrypt(&ct).unwrap(), body);
    let mut bad = ct.clone();
    flip(&mut bad, ctl >> 1);
    let mut out = vec![0xa5; ct.len()];
    assert!(
        p.decrypt_into(&bad, &mut out).is_err(),
        "a flipped bit was accepted"
    );
    assert_no_plaintext(&out, &vec![0xa5; ct.len()], "pxcbc tampered");

    if let Ok(pt) = p.decrypt(body) {
        let r0 = aes128_decrypt(&key[..16], &body[..16]);
        assert_eq!(p.encrypt_with_r0(&r0, &pt).unwrap(), body);
    }
});
