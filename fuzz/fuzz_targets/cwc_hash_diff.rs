//! Differential: CWC-HASH on the default path (the AVX-512 IFMA kernel where
//! the CPU has it), on the portable path, and by a naive Horner evaluation
//! mod 2^127 - 1 written here: all three agree.
#![no_main]
use blockmodes::cwc::hash::CwcHash;
use blockmodes_fuzz::Input;
use libfuzzer_sys::fuzz_target;

const P: u128 = (1 << 127) - 1;

fn fold(x: u128) -> u128 {
    let r = (x & P) + (x >> 127);
    if r >= P { r - P } else { r }
}

/// a · b mod P for a, b < 2^127, by 64-bit limbs.
fn mul_mod(a: u128, b: u128) -> u128 {
    let (a0, a1) = (a as u64 as u128, a >> 64);
    let (b0, b1) = (b as u64 as u128, b >> 64);
    let p00 = a0 * b0;
    let mid = a0 * b1 + a1 * b0; // < 2^128: a1, b1 < 2^63
    let lo = p00.wrapping_add(mid << 64);
    let hi = a1 * b1 + (mid >> 64) + u128::from(lo < p00);
    // hi·2^128 + lo with 2^127 = 1 (mod P): (lo mod 2^127) + lo/2^127 + 2·hi
    fold((lo & P) + (lo >> 127) + 2 * hi)
}

fn naive(k_block: &[u8; 16], ad: &[u8], sigma: &[u8]) -> [u8; 16] {
    let k = u128::from_be_bytes(*k_block) & P;
    let mut x = Vec::new();
    for part in [ad, sigma] {
        x.extend_from_slice(part);
        x.resize(x.len().div_ceil(12) * 12, 0);
    }
    let mut r = 0u128;
    for chunk in x.chunks(12) {
        let mut y = [0u8; 16];
        y[4..].copy_from_slice(chunk);
        r = fold(mul_mod(r, k) + u128::from_be_bytes(y));
    }
    let last = ((ad.len() as u128) << 64) + sigma.len() as u128;
    r = fold(mul_mod(r, k) + fold(last));
    r.to_be_bytes()
}

fuzz_target!(|data: &[u8]| {
    let mut inp = Input(data);
    let k: [u8; 16] = inp.array();
    let ad = inp.bytes(2000);
    let sigma = inp.rest();
    let h = CwcHash::from_key_block(&k);
    let p = h.clone().portable();
    let a = h.hash(ad, sigma).unwrap();
    assert_eq!(a, p.hash(ad, sigma).unwrap(), "SIMD and portable differ");
    assert_eq!(
        a,
        naive(&k, ad, sigma),
        "the library and the naive evaluation differ"
    );
});
