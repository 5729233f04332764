//! XCBC-XOR (stateful, AES-128): the sender at an arbitrary counter, two
//! messages; each decrypts to exactly its plaintext, counters advance, a
//! flipped bit is rejected and wiped; decryption of arbitrary bytes is
//! accepted only for the encryption of its plaintext at its counter block.
#![no_main]
use blockmodes::Aes128;
use blockmodes::xcbc::hazmat::EncryptWithCounter;
use blockmodes::xcbc::{CounterState, XcbcXorStateful, XcbcXorStatefulEncryptor};
use blockmodes_fuzz::{Input, assert_no_plaintext, flip};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut inp = Input(data);
    let key: [u8; 32] = inp.array();
    let ctr: [u8; 16] = inp.array();
    let ctl = inp.u16() as usize;
    let split = inp.u16() as usize;
    let body = inp.rest();
    let keys = XcbcXorStateful::<Aes128>::new_from_slice(&key).unwrap();

    let mut out = vec![0xa5; body.len()];
    match keys.decrypt_into(body, &mut out) {
        Ok(n) => {
            let ctr_in: [u8; 16] = body[..16].try_into().unwrap();
            assert_eq!(keys.encrypt_with_counter(&ctr_in, &out[..n]).unwrap(), body);
        }
        Err(_) => assert_no_plaintext(&out, &vec![0xa5; body.len()], "xcbc-xor stateful"),
    }

    let (m1, m2) = body.split_at(split % (body.len() + 1));
    let mut tx = XcbcXorStatefulEncryptor::from_state(keys, CounterState::starting_at(&ctr));
    let c1 = match tx.encrypt(m1) {
        Ok(c) => c,
        Err(_) => return, // the counter space is exhausted
    };
    assert_eq!(&c1[..16], &ctr);
    let rx = tx.receiver();
    assert_eq!(rx.decrypt(&c1).unwrap(), m1);
    if let Ok(c2) = tx.encrypt(m2) {
        assert_ne!(&c2[..16], &c1[..16], "a counter value was reused");
        assert_eq!(tx.receiver().decrypt(&c2).unwrap(), m2);
    }
    let mut bad = c1.clone();
    flip(&mut bad, ctl);
    let mut out = vec![0xa5; bad.len()];
    assert!(
        tx.receiver().decrypt_into(&bad, &mut out).is_err(),
        "a flipped bit was accepted"
    );
    assert_no_plaintext(&out, &vec![0xa5; bad.len()], "xcbc-xor stateful tampered");
});
