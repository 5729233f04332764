//! EtE (EME over StE[XEX], AES-128): decrypt(encrypt(x)) = x and
//! encrypt(decrypt(y)) = y for arbitrary data and tweak; a length it does
//! not take is refused, data untouched.
#![no_main]
use blockmodes::ete::EteEmeAes128;
use blockmodes_fuzz::Input;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut inp = Input(data);
    let key: [u8; 16] = inp.array();
    let tweak: [u8; 16] = inp.array();
    let body = inp.rest();
    let e = EteEmeAes128::new_from_slice(&key).unwrap();
    let mut a = body.to_vec();
    if e.encrypt(&tweak, &mut a).is_err() {
        assert_eq!(a, body, "a refused length changed the data");
        return;
    }
    e.decrypt(&tweak, &mut a).unwrap();
    assert_eq!(a, body, "decrypt(encrypt(x)) != x");
    let mut c = body.to_vec();
    e.decrypt(&tweak, &mut c).unwrap();
    e.encrypt(&tweak, &mut c).unwrap();
    assert_eq!(c, body, "encrypt(decrypt(y)) != y");
});
