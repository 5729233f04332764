//! EME2-AES-128 (48-byte key) with arbitrary associated data (tweak) and
//! data: decrypt(encrypt(x)) = x and encrypt(decrypt(y)) = y; a length EME2
//! does not take is refused, data untouched.
#![no_main]
use blockmodes::Aes128;
use blockmodes::eme2::Eme2;
use blockmodes_fuzz::Input;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut inp = Input(data);
    let key: [u8; 48] = inp.array();
    let ad = inp.bytes(100);
    let body = inp.rest();
    let e = Eme2::<Aes128>::new_from_slice(&key).unwrap();
    let mut a = body.to_vec();
    if e.encrypt(ad, &mut a).is_err() {
        assert_eq!(a, body, "a refused length changed the data");
        return;
    }
    e.decrypt(ad, &mut a).unwrap();
    assert_eq!(a, body, "decrypt(encrypt(x)) != x");
    let mut c = body.to_vec();
    e.decrypt(ad, &mut c).unwrap();
    e.encrypt(ad, &mut c).unwrap();
    assert_eq!(c, body, "encrypt(decrypt(y)) != y");
});
