//! EME-AES-128 keyed from bytes (the engine where the CPU has AES-NI) and
//! over an already keyed cipher (the generic path): same output in both
//! directions; decrypt(encrypt(x)) = x and encrypt(decrypt(y)) = y for
//! arbitrary data; a length EME does not take is refused by both, data
//! untouched.
#![no_main]
use blockmodes::Aes128;
use blockmodes::eme::Eme;
use blockmodes_fuzz::Input;
use cipher::KeyInit;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut inp = Input(data);
    let key: [u8; 16] = inp.array();
    let tweak: [u8; 16] = inp.array();
    let body = inp.rest();
    let e = Eme::<Aes128>::new_from_slice(&key).unwrap();
    let p = Eme::from_cipher(Aes128::new(&key.into()));
    let (mut a, mut b) = (body.to_vec(), body.to_vec());
    let ra = e.encrypt(&tweak, &mut a);
    let rb = p.encrypt(&tweak, &mut b);
    assert_eq!(ra.is_ok(), rb.is_ok());
    assert_eq!(a, b, "engine and generic encryptions differ");
    if ra.is_err() {
        assert_eq!(a, body, "a refused length changed the data");
        return;
    }
    e.decrypt(&tweak, &mut a).unwrap();
    assert_eq!(a, body, "decrypt(encrypt(x)) != x");
    let (mut c, mut d) = (body.to_vec(), body.to_vec());
    e.decrypt(&tweak, &mut c).unwrap();
    p.decrypt(&tweak, &mut d).unwrap();
    assert_eq!(c, d, "engine and generic decryptions differ");
    e.encrypt(&tweak, &mut c).unwrap();
    assert_eq!(c, body, "encrypt(decrypt(y)) != y");
});
