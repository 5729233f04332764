//! XCBC$-XOR (stateless, AES-128, two-key and one-key forms): decryption of
//! arbitrary bytes (accepted = the encryption of its plaintext under
//! r0 = f^-1(y0); rejected = output wiped), encrypt-then-decrypt gives
//! exactly the plaintext, and one flipped bit is rejected and wiped.
#![no_main]
use blockmodes::Aes128;
use blockmodes::xcbc::XcbcXor;
use blockmodes::xcbc::hazmat::EncryptWithR0;
use blockmodes_fuzz::{Input, aes128_decrypt, assert_no_plaintext, flip};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut inp = Input(data);
    let key: [u8; 32] = inp.array();
    let r0: [u8; 16] = inp.array();
    let ctl = inp.u16() as usize;
    let body = inp.rest();
    let x = if ctl & 1 == 0 {
        XcbcXor::<Aes128>::new_from_slice(&key).unwrap()
    } else {
        XcbcXor::<Aes128>::new_from_slice_one_key(&key[..16]).unwrap()
    };

    let mut out = vec![0xa5; body.len()];
    match x.decrypt_into(body, &mut out) {
        Ok(n) => {
            let r0 = aes128_decrypt(&key[..16], &body[..16]);
            assert_eq!(x.encrypt_with_r0(&r0, &out[..n]).unwrap(), body);
            assert_eq!(x.decrypt(body).unwrap(), &out[..n]);
        }
        Err(_) => {
            assert_no_plaintext(&out, &vec![0xa5; body.len()], "xcbc-xor");
            assert!(x.decrypt(body).is_err());
        }
    }

    let ct = x.encrypt_with_r0(&r0, body).unwrap();
    assert_eq!(ct.len(), (body.len() / 16 + 3) * 16);
    assert_eq!(x.decrypt(&ct).unwrap(), body);
    let mut bad = ct.clone();
    flip(&mut bad, ctl >> 1);
    let mut out = vec![0xa5; ct.len()];
    assert!(
        x.decrypt_into(&bad, &mut out).is_err(),
        "a flipped bit was accepted"
    );
    assert_no_plaintext(&out, &vec![0xa5; ct.len()], "xcbc-xor tampered");
});
