//! The valgrind harness of `bash .ci/ct`: each case marks the key, the
//! plaintext, the tag or ciphertext under test (and StE's inputs equal to K
//! and to H) secret, runs the mode in both directions on valid and invalid
//! inputs, and declassifies only what the caller is told (the verdict, and
//! outputs before the harness compares them). Memcheck then reports every
//! branch or memory index on a secret; `.ci/ct` classifies the reports.
//!
//!   ct-harness CASE...   (`all` for every case, `self-test` for the
//!                         deliberately leaky compare)

use blockmodes::cwc::CwcAes128;
use blockmodes::cwc::hash::CwcHash;
use blockmodes::eme::Eme;
use blockmodes::eme2::Eme2;
use blockmodes::ete::EteEmeAes128;
use blockmodes::hazmat::{gf128, modular};
use blockmodes::ocb1::Ocb1Aes128;
use blockmodes::pmac::PmacAes128;
use blockmodes::pxcbc::PxcbcXor;
use blockmodes::ste::SteXexAes128;
use blockmodes::tweakable::TweakableBlockCipher;
use blockmodes::xcbc::hazmat::{EncryptWithCounter, EncryptWithR0};
use blockmodes::xcbc::{XcbcXor, XcbcXorStateful};
use blockmodes::xecb::hazmat::{SignWithCounter, SignWithR0};
use blockmodes::xecb::{XecbMac, XecbMacStateful};
use blockmodes::xex::{Xex, XexTweak};
use blockmodes::{Aes128, Block};
use blockmodes_ct::{public, public_bytes, secret};

/// Deterministic test bytes.
fn bytes(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

fn key<const N: usize>(seed: u8) -> [u8; N] {
    let mut k = [0u8; N];
    k.copy_from_slice(&bytes(N, seed));
    secret(&mut k);
    k
}

/// A secret copy of `b`.
fn sec(b: &[u8]) -> Vec<u8> {
    let mut v = b.to_vec();
    secret(&mut v[..]);
    v
}

/// The verdict of a call, declassified (the caller is told it).
fn verdict<T>(r: &blockmodes::Result<T>) -> bool {
    public(r);
    r.is_ok()
}

/// Flip a bit of a public copy, the copy made secret again (the tag or
/// ciphertext under test).
fn tampered(b: &[u8], at: usize) -> Vec<u8> {
    let mut v = b.to_vec();
    public_bytes(&v);
    v[at] ^= 1;
    secret(&mut v[..]);
    v
}

const LENS: [usize; 4] = [0, 15, 16, 70];

fn ocb1() {
    let o = Ocb1Aes128::new_from_slice(&key::<16>(1)).unwrap();
    for len in LENS {
        let msg = sec(&bytes(len, 2));
        let ct = o.encrypt_to_vec(&[7; 16], &msg).unwrap();
        let r = o.decrypt_to_vec(&[7; 16], &ct);
        assert!(verdict(&r));
        let r = o.decrypt_to_vec(&[7; 16], &tampered(&ct, ct.len() - 1));
        assert!(!verdict(&r));
        let r = o.decrypt_to_vec(&[7; 16], &tampered(&ct, 0));
        assert!(!verdict(&r));
    }
}

fn cwc() {
    let c = CwcAes128::new_from_slice(&key::<16>(3)).unwrap();
    for len in LENS {
        let msg = sec(&bytes(len, 4));
        let ad = bytes(len / 2, 5);
        let ct = c.encrypt_to_vec(&[1; 11], &ad, &msg).unwrap();
        assert!(verdict(&c.decrypt_to_vec(&[1; 11], &ad, &ct)));
        assert!(!verdict(&c.decrypt_to_vec(
            &[1; 11],
            &ad,
            &tampered(&ct, ct.len() - 1)
        )));
        assert!(!verdict(&c.decrypt_to_vec(&[1; 11], &ad, &tampered(&ct, 0))));
    }
}

fn cwc_hash() {
    let mut kb: Block = bytes(16, 6).try_into().unwrap();
    secret(&mut kb);
    let h = CwcHash::from_key_block(&kb).portable();
    for len in LENS {
        let sigma = sec(&bytes(len * 3, 7));
        let ad = bytes(len, 8);
        let v = h.hash(&ad, &sigma);
        assert!(verdict(&v));
    }
}

fn pmac() {
    let p = PmacAes128::new_from_slice(&key::<16>(9)).unwrap();
    for len in LENS {
        let msg = sec(&bytes(len, 10));
        let tag = p.mac(&msg);
        assert!(verdict(&p.verify_tag(&msg, &tag)));
        assert!(!verdict(&p.verify_tag(&msg, &tampered(&tag, 15))));
        assert!(!verdict(&p.verify_tag(&msg, &tampered(&tag, 0))));
    }
}

fn xcbc() {
    let two = XcbcXor::<Aes128>::new_from_slice(&key::<32>(11)).unwrap();
    let one = XcbcXor::<Aes128>::new_from_slice_one_key(&key::<16>(12)).unwrap();
    let mut r0 = [5u8; 16];
    secret(&mut r0);
    for x in [&two, &one] {
        for len in LENS {
            let msg = sec(&bytes(len, 13));
            let ct = x.encrypt_with_r0(&r0, &msg).unwrap();
            assert!(verdict(&x.decrypt(&ct)));
            assert!(!verdict(&x.decrypt(&tampered(&ct, ct.len() - 1))));
            assert!(!verdict(&x.decrypt(&tampered(&ct, 20))));
        }
    }
    let st = XcbcXorStateful::<Aes128>::new_from_slice(&key::<32>(14)).unwrap();
    for len in LENS {
        let msg = sec(&bytes(len, 15));
        let ct = st.encrypt_with_counter(&[0; 16], &msg).unwrap();
        assert!(verdict(&st.decrypt(&ct)));
        assert!(!verdict(&st.decrypt(&tampered(&ct, ct.len() - 1))));
    }
}

fn pxcbc() {
    let p = PxcbcXor::<Aes128>::new_from_slice(&key::<32>(16))
        .unwrap()
        .with_segment_blocks(2)
        .unwrap();
    let mut r0 = [9u8; 16];
    secret(&mut r0);
    for len in LENS {
        let msg = sec(&bytes(len, 17));
        let ct = p.encrypt_with_r0(&r0, &msg).unwrap();
        assert!(verdict(&p.decrypt(&ct)));
        assert!(!verdict(&p.decrypt(&tampered(&ct, ct.len() - 1))));
        assert!(!verdict(&p.decrypt(&tampered(&ct, 40))));
    }
}

fn xecb() {
    let m = XecbMac::<Aes128>::new_from_slice(&key::<16>(18)).unwrap();
    let mut r0 = [3u8; 16];
    secret(&mut r0);
    let s = XecbMacStateful::<Aes128>::new_from_slice(&key::<16>(19)).unwrap();
    for len in LENS {
        let msg = sec(&bytes(len, 20));
        let tag = m.sign_with_r0(&r0, &msg);
        assert!(verdict(&m.verify_tag(&msg, &tag)));
        assert!(!verdict(&m.verify_tag(&msg, &tampered(&tag, 31))));
        assert!(!verdict(&m.verify_tag(&msg, &tampered(&tag, 0))));
        let tag = s.sign_with_counter(&[0; 16], &msg);
        assert!(verdict(&s.verify_tag(&msg, &tag)));
        assert!(!verdict(&s.verify_tag(&msg, &tampered(&tag, 31))));
    }
}

fn disk() {
    let tweak = [4u8; 16];
    let e = Eme::<Aes128>::new_from_slice(&key::<16>(21)).unwrap();
    let e2 = Eme2::<Aes128>::new_from_slice(&key::<48>(22)).unwrap();
    let ete = EteEmeAes128::new_from_slice(&key::<16>(23)).unwrap();
    let x = Xex::<Aes128>::new_from_slice(&key::<16>(24)).unwrap();
    for blocks in [1usize, 2, 5, 32] {
        let mut d = sec(&bytes(16 * blocks, 25));
        e.encrypt(&tweak, &mut d).unwrap();
        e.decrypt(&tweak, &mut d).unwrap();
        e2.encrypt(&tweak, &mut d).unwrap();
        e2.decrypt(&tweak, &mut d).unwrap();
        ete.encrypt(&tweak, &mut d).unwrap();
        ete.decrypt(&tweak, &mut d).unwrap();
        x.encrypt_blocks(&tweak, 1, &mut d).unwrap();
        x.decrypt_blocks(&tweak, 1, &mut d).unwrap();
        public_bytes(&d);
        assert_eq!(d, bytes(16 * blocks, 25));
    }
    // EME2 with a partial last block.
    let mut d = sec(&bytes(37, 26));
    e2.encrypt(&tweak, &mut d).unwrap();
    e2.decrypt(&tweak, &mut d).unwrap();
}

/// StE over XEX-AES-128 on the inputs that trigger its swaps: the key K
/// itself and the hidden point H (from the Go reference's vectors), and a
/// random block; the inputs and the key are secret.
fn ste() {
    let cases = [
        (
            "b4fe682ec38985aed3862b3fc271c010",
            "b4fe682ec38985aed3862b3fc271c010",
            "66e8faf50315383e10a7964e180cacb4",
        ),
        (
            "b4fe682ec38985aed3862b3fc271c010",
            "2e692ab3892236792570aabe32206e88",
            "fafe5e384a87e85b01f54ecfeecc0d7b",
        ),
        (
            "b4fe682ec38985aed3862b3fc271c010",
            "a2985de7ef30420ff17576d9d86dab18",
            "77f04a703ea7cdc8ff5d549c8f44498b",
        ),
    ];
    let unhex = |s: &str| -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    };
    for (k, pt, ct) in cases {
        let s = SteXexAes128::new_from_slice(&sec(&unhex(k))).unwrap();
        let mut b: Block = unhex(pt).try_into().unwrap();
        secret(&mut b);
        s.encrypt_block(&XexTweak { n: [0; 16], i: 1 }, &mut b)
            .unwrap();
        public(&b);
        assert_eq!(b.to_vec(), unhex(ct));
        secret(&mut b);
        s.decrypt_block(&XexTweak { n: [0; 16], i: 1 }, &mut b)
            .unwrap();
        public(&b);
        assert_eq!(b.to_vec(), unhex(pt));
    }
}

/// The shared arithmetic on secret operands: GF(2^128) doubling, halving
/// and products; mod 2^128 sums, differences and i × r; mod 2^127 - 1.
fn arith() {
    let mut a: Block = bytes(16, 27).try_into().unwrap();
    let mut b: Block = bytes(16, 28).try_into().unwrap();
    a[0] |= 0x80; // the reduction case
    secret(&mut a);
    secret(&mut b);
    let out = [
        gf128::double_be(&a),
        gf128::half_be(&a),
        gf128::double_le(&a),
        gf128::mul_be(&a, &b),
        gf128::mul_be(&b, &a),
        gf128::mul_x_pow_be(&a, 77),
        gf128::mul_x_pow_be(&a, 300),
        modular::add_mod128(&a, &b),
        modular::sub_mod128(&a, &b),
        modular::mul_index_mod128(12345, &b),
    ];
    let (x, y) = (modular::to_int(&a), modular::to_int(&b));
    let ints = [
        modular::reduce127(x),
        modular::mul127(x & ((1 << 127) - 1), y & ((1 << 127) - 1)),
        modular::add127(x >> 1, y >> 1),
        modular::reduce127_wide(x, y),
    ];
    let mut powers = [[0u8; 16]; 8];
    gf128::powers_x_be(&a, &mut powers);
    public(&out);
    public(&ints);
    public(&powers);
}

/// Deliberately leaky: an early-exit comparison of a secret tag.
fn self_test() {
    let mut tag = bytes(16, 29);
    secret(&mut tag[..]);
    let given = bytes(16, 29);
    if tag == given {
        println!("equal");
    }
}

const CASES: &[(&str, fn())] = &[
    ("ocb1", ocb1),
    ("cwc", cwc),
    ("cwc-hash", cwc_hash),
    ("pmac", pmac),
    ("xcbc", xcbc),
    ("pxcbc", pxcbc),
    ("xecb", xecb),
    ("disk", disk),
    ("ste", ste),
    ("arith", arith),
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    for a in &args {
        match a.as_str() {
            "self-test" => self_test(),
            "list" => CASES.iter().for_each(|(n, _)| println!("{n}")),
            "all" => CASES.iter().for_each(|(n, f)| {
                eprintln!("ct-harness: {n}");
                f()
            }),
            name => match CASES.iter().find(|(n, _)| *n == name) {
                Some((_, f)) => f(),
                None => {
                    eprintln!("unknown case {name}");
                    std::process::exit(2);
                }
            },
        }
    }
}
