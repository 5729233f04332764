//! pXCBC decryption (stateless pXCBC$-XOR and stateful pXCBC-XOR, AES-128)
//! of arbitrary bytes with an arbitrary segment size: accepted only for the
//! encryption of the plaintext (under r0 = f^-1(y0), or at the counter in
//! clear), and a rejection leaves no plaintext in the output.
#![no_main]
use blockmodes::Aes128;
use blockmodes::pxcbc::{PxcbcXor, PxcbcXorStateful};
use blockmodes::xcbc::hazmat::{EncryptWithCounter, EncryptWithR0};
use blockmodes_fuzz::{Input, aes128_decrypt, assert_no_plaintext};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut inp = Input(data);
    let key: [u8; 32] = inp.array();
    let s = 1 + inp.u16() as usize % 300;
    let body = inp.rest();
    let fresh = vec![0xa5; body.len()];

    let p = PxcbcXor::<Aes128>::new_from_slice(&key)
        .unwrap()
        .with_segment_blocks(s)
        .unwrap();
    let mut out = fresh.clone();
    match p.decrypt_into(body, &mut out) {
        Ok(n) => {
            let r0 = aes128_decrypt(&key[..16], &body[..16]);
            assert_eq!(p.encrypt_with_r0(&r0, &out[..n]).unwrap(), body);
        }
        Err(_) => assert_no_plaintext(&out, &fresh, "pxcbc$"),
    }

    let q = PxcbcXorStateful::<Aes128>::new_from_slice(&key)
        .unwrap()
        .with_segment_blocks(s)
        .unwrap();
    let mut out = fresh.clone();
    match q.decrypt_into(body, &mut out) {
        Ok(n) => {
            let ctr: [u8; 16] = body[..16].try_into().unwrap();
            assert_eq!(q.encrypt_with_counter(&ctr, &out[..n]).unwrap(), body);
        }
        Err(_) => assert_no_plaintext(&out, &fresh, "pxcbc stateful"),
    }
});
