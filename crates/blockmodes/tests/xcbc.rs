//! XCBC$, XCBC, their -XOR forms and pXCBC: the shared vectors, the
//! independent cross-check vectors, call counts, round trips, tampering,
//! counters and hostile inputs.
#![cfg(all(feature = "std", feature = "rayon", feature = "getrandom"))] // written for the default features

use blockmodes::oracle::{CallCount, Counting};
use blockmodes::pxcbc::{PxcbcXor, PxcbcXorStateful, PxcbcXorStatefulEncryptor};
use blockmodes::xcbc::hazmat::{EncryptWithCounter, EncryptWithR0};
use blockmodes::xcbc::{
    CounterState, StatefulXcbc, StatelessXcbc, Xcbc, XcbcEncryptor, XcbcStateful,
    XcbcStatefulEncryptor, XcbcXor, XcbcXorStateful, XcbcXorStatefulEncryptor,
};
use blockmodes::{Aes128, Aes192, Aes256, Error};
use cipher::KeyInit;
use proptest::prelude::*;
use serde_json::Value;

mod common;
use common::{SeededRng, block, hexf, load, load_all, load_long};

// ---------------------------------------------------------------------------
// Vectors

fn valid(v: &Value) -> bool {
    v["result"] != "invalid"
}

/// key || key2, or key alone (one-key form), and the AES key size.
fn keys(v: &Value) -> (Vec<u8>, bool, usize) {
    let k = hexf(v, "key");
    let n = k.len();
    match v.get("key2") {
        Some(k2) if !k2.is_null() => ([k, hexf(v, "key2")].concat(), true, n),
        _ => (k, false, n),
    }
}

fn stateless<C: KeyInit + blockmodes::oracle::BlockCipher128, const X: bool>(
    key: &[u8],
    two: bool,
) -> StatelessXcbc<C, X> {
    if two {
        StatelessXcbc::new_from_slice(key).unwrap()
    } else {
        StatelessXcbc::new_from_slice_one_key(key).unwrap()
    }
}

fn stateful<C: KeyInit + blockmodes::oracle::BlockCipher128, const X: bool>(
    key: &[u8],
    two: bool,
) -> StatefulXcbc<C, X> {
    if two {
        StatefulXcbc::new_from_slice(key).unwrap()
    } else {
        StatefulXcbc::new_from_slice_one_key(key).unwrap()
    }
}

/// An invalid vector's ciphertext is refused: Authentication, or (for the
/// negative vectors of a bad length) the typed length error.
fn refused(v: &Value, res: blockmodes::Result<Vec<u8>>) {
    match res {
        Err(Error::Authentication | Error::InvalidLength(_) | Error::CiphertextTooShort { .. }) => {
        }
        other => panic!("{}: {other:?}", v["name"]),
    }
}

/// Returns the number of keys set up from key bytes (one per XCBC object).
fn run_xcbc<const X: bool>(v: &Value) -> u64 {
    let (key, two, n) = keys(v);
    let (r0, msg, ct) = (block(v, "r0"), hexf(v, "msg"), hexf(v, "ct"));
    with_aes!(n, C => {
        let x = stateless::<C, X>(&key, two);
        if valid(v) {
            assert_eq!(x.encrypt_with_r0(&r0, &msg).unwrap(), ct, "{}", v["name"]);
            assert_eq!(x.decrypt(&ct).unwrap(), msg, "{}", v["name"]);
        } else {
            refused(v, x.decrypt(&ct));
        }
    });
    1
}

fn run_xcbc_ctr<const X: bool>(v: &Value) -> u64 {
    let (key, two, n) = keys(v);
    let (ctr, msg, ct) = (block(v, "ctr"), hexf(v, "msg"), hexf(v, "ct"));
    with_aes!(n, C => {
        let rx = stateful::<C, X>(&key, two);
        if valid(v) {
            assert_eq!(rx.encrypt_with_counter(&ctr, &msg).unwrap(), ct, "{}", v["name"]);
            let mut tx = XcbcEncryptor::from_state(stateful::<C, X>(&key, two), CounterState::starting_at(&ctr));
            assert_eq!(tx.encrypt(&msg).unwrap(), ct, "{}", v["name"]);
            assert_eq!(rx.decrypt(&ct).unwrap(), msg, "{}", v["name"]);
            2
        } else {
            refused(v, rx.decrypt(&ct));
            1
        }
    })
}

fn pxcbc_keys<C: KeyInit + blockmodes::oracle::BlockCipher128>(
    key: &[u8],
    two: bool,
    s: usize,
) -> PxcbcXor<C> {
    let p = if two {
        PxcbcXor::new_from_slice(key)
    } else {
        PxcbcXor::new_from_slice_one_key(key)
    };
    p.unwrap().with_segment_blocks(s).unwrap()
}

fn pxcbc_ctr_keys<C: KeyInit + blockmodes::oracle::BlockCipher128>(
    key: &[u8],
    two: bool,
    s: usize,
) -> PxcbcXorStateful<C> {
    let p = if two {
        PxcbcXorStateful::new_from_slice(key)
    } else {
        PxcbcXorStateful::new_from_slice_one_key(key)
    };
    p.unwrap().with_segment_blocks(s).unwrap()
}

/// The segment length of a pXCBC vector (1024 blocks if not given, as in
/// the spec).
fn segment_blocks(v: &Value) -> usize {
    v["segment_blocks"].as_u64().unwrap_or(1024) as usize
}

fn run_pxcbc(v: &Value) -> u64 {
    let (key, two, n) = keys(v);
    let s = segment_blocks(v);
    let (r0, msg, ct) = (block(v, "r0"), hexf(v, "msg"), hexf(v, "ct"));
    with_aes!(n, C => {
        let p = pxcbc_keys::<C>(&key, two, s);
        if valid(v) {
            assert_eq!(p.encrypt_with_r0(&r0, &msg).unwrap(), ct, "{}", v["name"]);
            assert_eq!(p.decrypt(&ct).unwrap(), msg, "{}", v["name"]);
        } else {
            refused(v, p.decrypt(&ct));
        }
    });
    1
}

fn run_pxcbc_ctr(v: &Value) -> u64 {
    let (key, two, n) = keys(v);
    let s = segment_blocks(v);
    let (ctr, msg, ct) = (block(v, "ctr"), hexf(v, "msg"), hexf(v, "ct"));
    with_aes!(n, C => {
        let rx = pxcbc_ctr_keys::<C>(&key, two, s);
        if valid(v) {
            assert_eq!(rx.encrypt_with_counter(&ctr, &msg).unwrap(), ct, "{}", v["name"]);
            let mut tx = PxcbcXorStatefulEncryptor::from_state(rx.clone(), CounterState::starting_at(&ctr));
            assert_eq!(tx.encrypt(&msg).unwrap(), ct, "{}", v["name"]);
            assert_eq!(rx.decrypt(&ct).unwrap(), msg, "{}", v["name"]);
        } else {
            refused(v, rx.decrypt(&ct));
        }
    });
    1
}

/// A vector runner: returns the keys it set up from key bytes.
type Run = fn(&Value) -> u64;

/// Every vector of the XCBC family (`vectors/`, `vectors/independent/`,
/// `vectors/negative/`, and the long cross-check set) through `run`, on
/// each backend: the generic path, the fused kernels on AES-NI and on
/// VAES-512 (where the CPU has them), each key set up on the backend asked
/// for.
fn on_every_backend(sets: &[(&str, Run)]) {
    let sets: Vec<(Vec<Value>, Run)> = sets
        .iter()
        .map(|&(name, run)| {
            let vs: Vec<Value> = load_all(name).into_iter().chain(load_long(name)).collect();
            (vs, run)
        })
        .collect();
    // The keys each set up: count them on the generic path first.
    let keys: u64 = sets
        .iter()
        .map(|(vs, run)| vs.iter().map(run).sum::<u64>())
        .sum();
    common::on_each_backend(Some(keys), |_| {
        for (vs, run) in &sets {
            for v in vs {
                run(v);
            }
        }
    });
}

#[test]
fn vectors_on_every_backend_xcbc() {
    on_every_backend(&[
        ("xcbc-aes", run_xcbc::<false>),
        ("xcbc-xor-aes", run_xcbc::<true>),
        ("xcbc-ctr-aes", run_xcbc_ctr::<false>),
        ("xcbc-xor-ctr-aes", run_xcbc_ctr::<true>),
    ]);
}

#[test]
fn vectors_on_every_backend_pxcbc() {
    on_every_backend(&[
        ("pxcbc-xor-aes", run_pxcbc),
        ("pxcbc-xor-ctr-aes", run_pxcbc_ctr),
    ]);
}

#[test]
fn shared_vectors_include_both_key_forms_and_tampering() {
    let v = load("xcbc-xor-aes");
    assert!(v.iter().any(|v| v.get("key2").is_none()));
    assert!(v.iter().any(|v| v.get("key2").is_some()));
    assert!(v.iter().any(|v| !valid(v)));
    assert!(load_all("xcbc-xor-aes").len() >= 8 + 34 + 420);
    assert!(load_all("pxcbc-xor-aes").len() >= 8 + 500);
}

// ---------------------------------------------------------------------------
// Block-cipher call counts

fn counting(key: u8) -> (Counting<Aes128>, CallCount) {
    Counting::new(Aes128::new(&[key; 16].into()))
}

#[test]
fn xcbc_xor_costs_n_plus_3_calls() {
    for len in [0usize, 1, 15, 16, 17, 100, 1000] {
        let n = len as u64 / 16 + 1; // padded blocks
        let msg = vec![0x33u8; len];
        // two keys: y0 = f(r0), z0 = f'(r0), n blocks, the check block
        let ((f, cf), (fp, cfp)) = (counting(1), counting(2));
        let x = XcbcXor::from_ciphers(f, fp);
        let ct = x.encrypt_with_r0(&[7; 16], &msg).unwrap();
        assert_eq!(cf.get() + cfp.get(), n + 3, "encrypt, {len} bytes");
        assert_eq!(cfp.get(), 1, "f' is used once, for z0");
        cf.reset();
        cfp.reset();
        assert_eq!(x.decrypt(&ct).unwrap(), msg);
        assert_eq!(cf.get() + cfp.get(), n + 3, "decrypt, {len} bytes");
        // one key: z0 = f(r0 + 1)
        let (f, cf) = counting(1);
        let x = XcbcXor::from_cipher_one_key(f);
        let ct = x.encrypt_with_r0(&[7; 16], &msg).unwrap();
        assert_eq!(cf.get(), n + 3);
        cf.reset();
        x.decrypt(&ct).unwrap();
        assert_eq!(cf.get(), n + 3);
        // without the check block: n + 2
        let ((f, cf), (fp, cfp)) = (counting(1), counting(2));
        Xcbc::from_ciphers(f, fp)
            .encrypt_with_r0(&[7; 16], &msg)
            .unwrap();
        assert_eq!(cf.get() + cfp.get(), n + 2);
        // stateful: r0 = f(ctr), z0, n blocks, check
        let ((f, cf), (fp, cfp)) = (counting(1), counting(2));
        XcbcXorStateful::from_ciphers(f, fp)
            .encrypt_with_counter(&[0; 16], &msg)
            .unwrap();
        assert_eq!(cf.get() + cfp.get(), n + 3);
    }
}

#[test]
fn pxcbc_costs_one_call_per_block_plus_two_per_segment() {
    for (len, s) in [
        (0usize, 1usize),
        (100, 2),
        (1000, 7),
        (5000, 64),
        (3000, 1024),
    ] {
        let blocks = len / 16 + 2; // N: length block + padded message
        let segments = blocks.div_ceil(s);
        let ((f, cf), (fp, cfp)) = (counting(1), counting(2));
        let p = PxcbcXor::from_ciphers(f, fp)
            .with_segment_blocks(s)
            .unwrap();
        let msg = vec![1u8; len];
        let ct = p.encrypt_with_r0(&[9; 16], &msg).unwrap();
        // y0, then per segment z0 and the check block, and every block once
        let want = (1 + blocks + 2 * segments) as u64;
        assert_eq!(cf.get() + cfp.get(), want, "{len} bytes, S = {s}");
        assert_eq!(cfp.get(), segments as u64);
        cf.reset();
        cfp.reset();
        assert_eq!(p.decrypt(&ct).unwrap(), msg);
        assert_eq!(cf.get() + cfp.get(), want);
    }
}

// ---------------------------------------------------------------------------
// Round trips

/// What the XCBC modes compute for one key (`two`: K || K', else the
/// one-key form's K), r0, counter and message, keyed under `backend`: the
/// XCBC$-XOR ciphertexts (hazmat r0, a seeded RNG's r0), the XCBC-XOR one
/// (hazmat counter) and the XCBC$ one, each decrypted again; a changed bit
/// in each -XOR ciphertext refused with the output wiped; and what XCBC$
/// (no check block) makes of its changed ciphertext.
#[allow(clippy::too_many_arguments)]
fn xcbc_on<C: blockmodes::oracle::BlockCipher128Dec + KeyInit>(
    backend: blockmodes::backend::Backend,
    key: &[u8],
    two: bool,
    r0: &[u8; 16],
    ctr: &[u8; 16],
    seed: u64,
    msg: &[u8],
    flip: usize,
) -> Vec<Vec<u8>> {
    let prev = blockmodes::backend::force(backend);
    let x = stateless::<C, true>(key, two);
    let plain = stateless::<C, false>(key, two);
    let rx = stateful::<C, true>(key, two);
    blockmodes::backend::force(prev);
    let cts = [
        x.encrypt_with_r0(r0, msg).unwrap(),
        x.encrypt_with_rng(&mut SeededRng(seed), msg).unwrap(),
        rx.encrypt_with_counter(ctr, msg).unwrap(),
    ];
    let mut out = Vec::new();
    for (k, ct) in cts.iter().enumerate() {
        let dec = |c: &[u8], o: &mut [u8]| {
            if k < 2 {
                x.decrypt_into(c, o)
            } else {
                rx.decrypt_into(c, o)
            }
        };
        let mut pt = vec![0u8; ct.len()];
        let n = dec(ct, &mut pt).unwrap();
        assert_eq!(&pt[..n], msg, "{backend:?} ciphertext {k}");
        let mut bad = ct.clone();
        bad[flip % ct.len()] ^= 1 << (flip % 8);
        let mut buf = vec![0xaau8; ct.len()];
        assert_eq!(
            dec(&bad, &mut buf),
            Err(Error::Authentication),
            "{backend:?} {k}"
        );
        assert!(
            buf.iter().all(|&b| b == 0 || b == 0xaa),
            "{backend:?} {k}: not wiped"
        );
        out.push(ct.clone());
    }
    let ct = plain.encrypt_with_r0(r0, msg).unwrap();
    assert_eq!(plain.decrypt(&ct).unwrap(), msg, "{backend:?} XCBC$");
    let mut bad = ct.clone();
    bad[flip % ct.len()] ^= 1 << (flip % 8);
    out.push(ct);
    out.push(match plain.decrypt(&bad) {
        Ok(pt) => pt,
        Err(e) => format!("{e:?}").into_bytes(),
    });
    out
}

/// The fused and the generic path agree at every message length from 0
/// to 5000 bytes (key sizes and key forms in turn).
#[test]
fn fused_and_generic_agree_at_every_length() {
    use blockmodes::backend::{Backend, available};
    let msg: Vec<u8> = (0..5000u32)
        .map(|i| (i.wrapping_mul(2246822519) >> 11) as u8)
        .collect();
    let mut rng = SeededRng(0xc0c);
    for len in 0..=5000usize {
        let mut key = [0u8; 64];
        rand_core::TryRng::try_fill_bytes(&mut rng, &mut key).unwrap();
        let r0: [u8; 16] = core::array::from_fn(|i| key[i] ^ 0x5c);
        let ctr: [u8; 16] = core::array::from_fn(|i| key[16 + i] ^ 0x36);
        let klen = [16usize, 24, 32][len % 3];
        let two = len % 4 != 0;
        let k = &key[..if two { 2 * klen } else { klen }];
        let m = &msg[..len];
        with_aes!(klen, C => {
            let generic = xcbc_on::<C>(Backend::Generic, k, two, &r0, &ctr, len as u64, m, len * 29 + 3);
            for &b in available() {
                assert_eq!(xcbc_on::<C>(b, k, two, &r0, &ctr, len as u64, m, len * 29 + 3), generic, "{b:?} len {len}");
            }
        });
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The fused and the generic path agree on random keys (every size,
    /// both key forms), r0, counters, RNG seeds and messages of 0..5000
    /// bytes, and both refuse a changed ciphertext and wipe the output.
    #[test]
    fn fused_and_generic_agree(
        key in proptest::collection::vec(any::<u8>(), 64),
        klen in prop::sample::select(vec![16usize, 24, 32]),
        two: bool,
        r0: [u8; 16],
        ctr: [u8; 16],
        seed: u64,
        msg in proptest::collection::vec(any::<u8>(), 0..5000),
        flip: usize,
    ) {
        use blockmodes::backend::{Backend, available};
        let k = &key[..if two { 2 * klen } else { klen }];
        with_aes!(klen, C => {
            let generic = xcbc_on::<C>(Backend::Generic, k, two, &r0, &ctr, seed, &msg, flip);
            for &b in available() {
                prop_assert_eq!(&xcbc_on::<C>(b, k, two, &r0, &ctr, seed, &msg, flip), &generic, "{:?}", b);
            }
        });
    }
}

/// What pXCBC computes for one key, segment length, r0, counter and
/// message, keyed under `backend`: the pXCBC$ ciphertexts (hazmat r0, a
/// seeded RNG's r0) and the pXCBC one (hazmat counter), each decrypted
/// again, and a changed bit in each refused with the output wiped.
#[allow(clippy::too_many_arguments)]
fn pxcbc_on<C: blockmodes::oracle::BlockCipher128Dec + KeyInit + Sync + Clone>(
    backend: blockmodes::backend::Backend,
    key: &[u8],
    two: bool,
    s: usize,
    r0: &[u8; 16],
    ctr: &[u8; 16],
    seed: u64,
    msg: &[u8],
    flip: usize,
) -> Vec<Vec<u8>> {
    let prev = blockmodes::backend::force(backend);
    let p = pxcbc_keys::<C>(key, two, s);
    let rx = pxcbc_ctr_keys::<C>(key, two, s);
    blockmodes::backend::force(prev);
    let cts = [
        p.encrypt_with_r0(r0, msg).unwrap(),
        p.encrypt_with_rng(&mut SeededRng(seed), msg).unwrap(),
        rx.encrypt_with_counter(ctr, msg).unwrap(),
    ];
    for (k, ct) in cts.iter().enumerate() {
        let dec = |c: &[u8], o: &mut [u8]| {
            if k < 2 {
                p.decrypt_into(c, o)
            } else {
                rx.decrypt_into(c, o)
            }
        };
        let mut pt = vec![0u8; ct.len()];
        let n = dec(ct, &mut pt).unwrap();
        assert_eq!(&pt[..n], msg, "{backend:?} ciphertext {k}");
        let mut bad = ct.clone();
        bad[flip % ct.len()] ^= 1 << (flip % 8);
        let mut buf = vec![0xaau8; ct.len()];
        assert_eq!(
            dec(&bad, &mut buf),
            Err(Error::Authentication),
            "{backend:?} {k}"
        );
        assert!(
            buf.iter().all(|&b| b == 0 || b == 0xaa),
            "{backend:?} {k}: not wiped"
        );
    }
    cts.to_vec()
}

/// pXCBC's fused and generic paths agree at every message length from 0
/// to 5000 bytes (segment lengths, key sizes and key forms in turn).
#[test]
fn pxcbc_fused_and_generic_agree_at_every_length() {
    use blockmodes::backend::{Backend, available};
    let msg: Vec<u8> = (0..5000u32)
        .map(|i| (i.wrapping_mul(3266489917) >> 9) as u8)
        .collect();
    let mut rng = SeededRng(0x9c);
    for len in 0..=5000usize {
        let mut key = [0u8; 64];
        rand_core::TryRng::try_fill_bytes(&mut rng, &mut key).unwrap();
        let r0: [u8; 16] = core::array::from_fn(|i| key[i] ^ 0x5c);
        let ctr: [u8; 16] = core::array::from_fn(|i| key[16 + i] ^ 0x36);
        let klen = [16usize, 24, 32][len % 3];
        let two = len % 4 != 0;
        let s = [1usize, 2, 3, 16, 31, 64, 1024][len % 7];
        let k = &key[..if two { 2 * klen } else { klen }];
        let m = &msg[..len];
        with_aes!(klen, C => {
            let generic = pxcbc_on::<C>(Backend::Generic, k, two, s, &r0, &ctr, len as u64, m, len * 31 + 7);
            for &b in available() {
                assert_eq!(pxcbc_on::<C>(b, k, two, s, &r0, &ctr, len as u64, m, len * 31 + 7), generic, "{b:?} len {len} S {s}");
            }
        });
    }
}

/// pXCBC's encryptions under `backend` (keys set up there): pXCBC$ with
/// a given r0 (hazmat) and with a seeded RNG's r0, pXCBC with a counter.
#[allow(clippy::too_many_arguments)]
fn pxcbc_encryptions<C: blockmodes::oracle::BlockCipher128Dec + KeyInit + Sync + Clone>(
    backend: blockmodes::backend::Backend,
    key: &[u8],
    two: bool,
    s: usize,
    r0: &[u8; 16],
    ctr: &[u8; 16],
    seed: u64,
    msg: &[u8],
) -> [Vec<u8>; 3] {
    let prev = blockmodes::backend::force(backend);
    let p = pxcbc_keys::<C>(key, two, s);
    let rx = pxcbc_ctr_keys::<C>(key, two, s);
    blockmodes::backend::force(prev);
    [
        p.encrypt_with_r0(r0, msg).unwrap(),
        p.encrypt_with_rng(&mut SeededRng(seed), msg).unwrap(),
        rx.encrypt_with_counter(ctr, msg).unwrap(),
    ]
}

/// pXCBC encryption on the fused kernels (the segments' chains in lock
/// step) equals the generic path for every segment length S = 1 ..= 40
/// and every message length 0 ..= 5000 (key sizes and key forms in turn;
/// r0 near 2^128 in one case in four, so r0 + s and i r0^(s) wrap).
#[test]
fn pxcbc_fused_encryption_agrees_for_every_segment_length() {
    use blockmodes::backend::{Backend, available};
    let msg: Vec<u8> = (0..5000u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    let mut rng = SeededRng(0x5e9);
    for s in 1..=40usize {
        for len in 0..=5000usize {
            let mut key = [0u8; 64];
            rand_core::TryRng::try_fill_bytes(&mut rng, &mut key).unwrap();
            let mut r0: [u8; 16] = core::array::from_fn(|i| key[i] ^ 0x5c);
            if len % 4 == 1 {
                r0[..15].fill(0xff);
            }
            let ctr: [u8; 16] = core::array::from_fn(|i| key[16 + i] ^ 0x36);
            let klen = [16usize, 24, 32][(len + s) % 3];
            let two = (len + s) % 2 == 0;
            let k = &key[..if two { 2 * klen } else { klen }];
            let m = &msg[..len];
            let seed = (s * 5001 + len) as u64;
            with_aes!(klen, C => {
                let generic = pxcbc_encryptions::<C>(Backend::Generic, k, two, s, &r0, &ctr, seed, m);
                for &b in available() {
                    assert_eq!(pxcbc_encryptions::<C>(b, k, two, s, &r0, &ctr, seed, m), generic, "{b:?} len {len} S {s}");
                }
            });
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// pXCBC's fused and generic paths agree on random keys (every size,
    /// both key forms), segment lengths, r0, counters, RNG seeds and
    /// messages of 0..5000 bytes, and both refuse a changed ciphertext and
    /// wipe the output.
    #[test]
    fn pxcbc_fused_and_generic_agree(
        key in proptest::collection::vec(any::<u8>(), 64),
        klen in prop::sample::select(vec![16usize, 24, 32]),
        two: bool,
        s in 1usize..80,
        r0: [u8; 16],
        ctr: [u8; 16],
        seed: u64,
        msg in proptest::collection::vec(any::<u8>(), 0..5000),
        flip: usize,
    ) {
        use blockmodes::backend::{Backend, available};
        let k = &key[..if two { 2 * klen } else { klen }];
        with_aes!(klen, C => {
            let generic = pxcbc_on::<C>(Backend::Generic, k, two, s, &r0, &ctr, seed, &msg, flip);
            for &b in available() {
                prop_assert_eq!(&pxcbc_on::<C>(b, k, two, s, &r0, &ctr, seed, &msg, flip), &generic, "{:?}", b);
            }
        });
    }
}

fn key32(seed: u8) -> [u8; 32] {
    core::array::from_fn(|i| seed.wrapping_mul(31).wrapping_add(i as u8))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn xcbc_round_trips(msg in proptest::collection::vec(any::<u8>(), 0..600), seed: u8, one_key: bool) {
        let key = key32(seed);
        let (x, plain): (XcbcXor<Aes128>, Xcbc<Aes128>) = if one_key {
            (XcbcXor::new_from_slice_one_key(&key[..16]).unwrap(), Xcbc::new_from_slice_one_key(&key[..16]).unwrap())
        } else {
            (XcbcXor::new_from_slice(&key).unwrap(), Xcbc::new_from_slice(&key).unwrap())
        };
        let ct = x.encrypt(&msg).unwrap();
        prop_assert_eq!(ct.len(), x.ciphertext_len(msg.len()).unwrap());
        prop_assert_eq!(x.decrypt(&ct).unwrap(), msg.clone());
        let ct = plain.encrypt(&msg).unwrap();
        prop_assert_eq!(plain.decrypt(&ct).unwrap(), msg.clone());
        let mut tx = XcbcXorStatefulEncryptor::<Aes128>::new_from_slice(&key).unwrap();
        let ct = tx.encrypt(&msg).unwrap();
        prop_assert_eq!(tx.receiver().decrypt(&ct).unwrap(), msg.clone());
        let mut tx = XcbcStatefulEncryptor::<Aes128>::new_from_slice(&key).unwrap();
        let ct = tx.encrypt(&msg).unwrap();
        prop_assert_eq!(tx.receiver().decrypt(&ct).unwrap(), msg);
    }

    #[test]
    fn pxcbc_round_trips(msg in proptest::collection::vec(any::<u8>(), 0..2000), s in 1usize..80, seed: u8, one_key: bool) {
        let key = key32(seed);
        let p = if one_key {
            PxcbcXor::<Aes128>::new_from_slice_one_key(&key[..16])
        } else {
            PxcbcXor::<Aes128>::new_from_slice(&key)
        }.unwrap().with_segment_blocks(s).unwrap();
        let ct = p.encrypt(&msg).unwrap();
        prop_assert_eq!(ct.len(), p.ciphertext_len(msg.len()).unwrap());
        prop_assert_eq!(p.decrypt(&ct).unwrap(), msg.clone());
        let rx = PxcbcXorStateful::<Aes128>::new_from_slice(&key).unwrap().with_segment_blocks(s).unwrap();
        let mut tx = PxcbcXorStatefulEncryptor::new(rx.clone());
        let ct = tx.encrypt(&msg).unwrap();
        prop_assert_eq!(rx.decrypt(&ct).unwrap(), msg);
    }

    /// The serial encryption and the parallel decryption are each other's
    /// inverse also at the backend's batch boundaries (63, 64, 65 blocks ...).
    #[test]
    fn batch_boundaries(blocks in 60usize..140, tail in 0usize..16) {
        let x = XcbcXor::<Aes128>::new_from_slice(&key32(1)).unwrap();
        let msg: Vec<u8> = (0..blocks * 16 + tail).map(|i| i as u8).collect();
        prop_assert_eq!(x.decrypt(&x.encrypt(&msg).unwrap()).unwrap(), msg);
    }
}

#[test]
fn large_messages_round_trip_on_several_threads() {
    common::on_each_backend(Some(5), |_| large_messages_round_trip_here());
}

fn large_messages_round_trip_here() {
    // Above the rayon threshold, with segment ranges per thread.
    let msg: Vec<u8> = (0..700_000u32).map(|i| (i * 7) as u8).collect();
    for s in [1usize, 5, 64, 1024] {
        let p = PxcbcXor::<Aes128>::new_from_slice(&key32(4))
            .unwrap()
            .with_segment_blocks(s)
            .unwrap();
        let ct = p.encrypt_with_r0(&[3; 16], &msg).unwrap();
        assert_eq!(p.decrypt(&ct).unwrap(), msg, "S = {s}");
        // the same as one thread: compare with an unthreaded pool
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let ct1 = pool.install(|| p.encrypt_with_r0(&[3; 16], &msg).unwrap());
        assert_eq!(ct, ct1, "S = {s}");
        let mut bad = ct.clone();
        let k = bad.len() / 2;
        bad[k] ^= 4;
        assert_eq!(p.decrypt(&bad), Err(Error::Authentication));
    }
    let x = XcbcXor::<Aes128>::new_from_slice(&key32(4)).unwrap();
    assert_eq!(x.decrypt(&x.encrypt(&msg).unwrap()).unwrap(), msg);
}

#[test]
fn encryption_is_randomized() {
    let x = XcbcXor::<Aes128>::new_from_slice(&key32(2)).unwrap();
    let a = x.encrypt(b"same message").unwrap();
    let b = x.encrypt(b"same message").unwrap();
    assert_ne!(a[..16], b[..16], "y0 differs: fresh r0");
    assert_ne!(a, b);
    let p = PxcbcXor::<Aes128>::new_from_slice(&key32(2)).unwrap();
    assert_ne!(p.encrypt(b"m").unwrap(), p.encrypt(b"m").unwrap());
}

#[test]
fn key_forms_are_distinct_and_keys_checked() {
    let key = key32(3);
    let two = XcbcXor::<Aes128>::new_from_slice(&key).unwrap();
    let one = XcbcXor::<Aes128>::new_from_slice_one_key(&key[..16]).unwrap();
    assert!(two.is_two_key() && !one.is_two_key());
    let a = two.encrypt_with_r0(&[1; 16], b"x").unwrap();
    let b = one.encrypt_with_r0(&[1; 16], b"x").unwrap();
    assert_eq!(a[..16], b[..16], "same f, same y0");
    assert_ne!(a, b, "z0 = f'(r0) vs f(r0 + 1)");
    assert_eq!(one.decrypt(&a), Err(Error::Authentication));
    for bad in [0usize, 16, 31, 33, 48] {
        assert!(matches!(
            XcbcXor::<Aes128>::new_from_slice(&vec![0; bad]),
            Err(Error::InvalidKeyLength { .. })
        ));
    }
    assert!(XcbcXor::<Aes192>::new_from_slice(&[0; 48]).is_ok());
    assert!(XcbcXor::<Aes256>::new_from_slice(&[0; 64]).is_ok());
    assert!(XcbcXor::<Aes128>::new_from_slice_one_key(&[0; 32]).is_err());
    assert!(
        PxcbcXor::<Aes128>::new_from_slice(&[0; 32])
            .unwrap()
            .with_segment_blocks(0)
            .is_err()
    );
}

// ---------------------------------------------------------------------------
// Tampering: the -XOR modes reject every modification

/// Decrypt into a buffer full of 0xaa: on rejection it must come back wiped.
fn rejects(decrypt_into: impl Fn(&[u8], &mut [u8]) -> blockmodes::Result<usize>, ct: &[u8]) {
    let mut out = vec![0xaau8; ct.len() + 16];
    let res = decrypt_into(ct, &mut out);
    assert!(
        res.is_err(),
        "accepted a modified ciphertext of {} bytes",
        ct.len()
    );
    // Wiped (0) or untouched (0xaa): no plaintext byte (the messages here
    // never contain 0x00 or 0xaa) is left behind.
    assert!(out.iter().all(|&b| b == 0 || b == 0xaa), "output not wiped");
}

/// A `decrypt_into` under test.
type DecryptInto<'a> = &'a dyn Fn(&[u8], &mut [u8]) -> blockmodes::Result<usize>;

fn tamper_suite(ct: &[u8], decrypt_into: DecryptInto) {
    let blocks = ct.len() / 16;
    // every single-bit flip
    for bit in 0..ct.len() * 8 {
        let mut c = ct.to_vec();
        c[bit / 8] ^= 1 << (bit % 8);
        rejects(decrypt_into, &c);
    }
    // swap two blocks
    for i in 0..blocks {
        for j in i + 1..blocks {
            let mut c = ct.to_vec();
            let (a, b) = c.split_at_mut(16 * j);
            a[16 * i..16 * i + 16].swap_with_slice(&mut b[..16]);
            if c != ct {
                rejects(decrypt_into, &c);
            }
        }
    }
    // drop any block, truncate
    for i in 0..blocks {
        let mut c = ct.to_vec();
        c.drain(16 * i..16 * i + 16);
        rejects(decrypt_into, &c);
        rejects(decrypt_into, &ct[..16 * i]);
    }
    // duplicate any block, append a block
    for i in 0..blocks {
        let mut c = ct.to_vec();
        let b: Vec<u8> = ct[16 * i..16 * i + 16].to_vec();
        c.splice(16 * i..16 * i, b.clone());
        rejects(decrypt_into, &c);
        let mut c = ct.to_vec();
        c.extend_from_slice(&b);
        rejects(decrypt_into, &c);
    }
    let mut c = ct.to_vec();
    c.extend_from_slice(&[0u8; 16]);
    rejects(decrypt_into, &c);
    // odd lengths
    rejects(decrypt_into, &ct[..ct.len() - 1]);
}

#[test]
fn xcbc_xor_rejects_tampering() {
    common::on_each_backend(Some(2), |_| xcbc_xor_rejects_tampering_here());
}

fn xcbc_xor_rejects_tampering_here() {
    let x = XcbcXor::<Aes128>::new_from_slice(&key32(5)).unwrap();
    for len in [0usize, 5, 16, 40] {
        let ct = x.encrypt(&vec![0x5a; len]).unwrap();
        tamper_suite(&ct, &|c, o| x.decrypt_into(c, o));
    }
    let rx = XcbcXorStateful::<Aes128>::new_from_slice(&key32(5)).unwrap();
    let ct = XcbcXorStatefulEncryptor::new(rx.clone())
        .encrypt(&[1u8; 40])
        .unwrap();
    tamper_suite(&ct, &|c, o| rx.decrypt_into(c, o));
}

#[test]
fn xcbc_xor_rejects_splicing_messages() {
    let x = XcbcXor::<Aes128>::new_from_slice(&key32(6)).unwrap();
    let a = x.encrypt(&[1u8; 64]).unwrap();
    let b = x.encrypt(&[2u8; 64]).unwrap();
    for i in 1..a.len() / 16 {
        let mut c = a.clone();
        c[16 * i..16 * i + 16].copy_from_slice(&b[16 * i..16 * i + 16]);
        rejects(|c, o| x.decrypt_into(c, o), &c);
    }
    let mut c = a[..48].to_vec();
    c.extend_from_slice(&b[48..]);
    rejects(|c, o| x.decrypt_into(c, o), &c);
}

#[test]
fn pxcbc_rejects_tampering() {
    let p = PxcbcXor::<Aes128>::new_from_slice(&key32(7))
        .unwrap()
        .with_segment_blocks(2)
        .unwrap();
    for len in [0usize, 20, 50] {
        let ct = p.encrypt(&vec![0x11; len]).unwrap();
        tamper_suite(&ct, &|c, o| p.decrypt_into(c, o));
    }
}

#[test]
fn pxcbc_rejects_segment_surgery() {
    let s = 3usize;
    let p = PxcbcXor::<Aes128>::new_from_slice(&key32(8))
        .unwrap()
        .with_segment_blocks(s)
        .unwrap();
    // 1 + 9 = 10 plaintext blocks: segments of 3, 3, 3, 1 (+ check blocks)
    let msg: Vec<u8> = (0..140u8).collect();
    let ct = p.encrypt(&msg).unwrap();
    let seg = 16 * (s + 1);
    let segs: Vec<&[u8]> = ct[16..].chunks(seg).collect();
    assert_eq!(segs.len(), 4);
    let assemble = |order: &[usize]| {
        let mut c = ct[..16].to_vec();
        for &i in order {
            c.extend_from_slice(segs[i]);
        }
        c
    };
    for order in [
        &[1, 0, 2, 3][..], // reorder
        &[0, 2, 1, 3],
        &[0, 1, 2],       // drop the last segment
        &[0, 1, 3],       // drop a middle one
        &[1, 2, 3],       // drop the first (with the length block)
        &[0, 0, 1, 2, 3], // duplicate
        &[0, 1, 1, 2, 3],
        &[0, 1, 2, 2, 3],
        &[0, 1, 2],
        &[0, 1, 2, 3, 3],
    ] {
        rejects(|c, o| p.decrypt_into(c, o), &assemble(order));
    }
    assert_eq!(p.decrypt(&assemble(&[0, 1, 2, 3])).unwrap(), msg);
    // a full segment from another message under the same key
    let other = p.encrypt(&msg).unwrap();
    let mut c = ct.clone();
    c[16 + seg..16 + 2 * seg].copy_from_slice(&other[16 + seg..16 + 2 * seg]);
    rejects(|c, o| p.decrypt_into(c, o), &c);
    // truncating whole segments of a message whose segments are all full
    let msg = vec![9u8; 16 * (2 * s - 2)]; // 1 + (2s - 1) = 2s blocks: two full segments
    let ct = p.encrypt(&msg).unwrap();
    rejects(|c, o| p.decrypt_into(c, o), &ct[..16 + seg]);
    // decrypting with another S
    let q = p.clone().with_segment_blocks(s + 1).unwrap();
    assert!(q.decrypt(&ct).is_err());
}

#[test]
fn privacy_only_modes_are_documented_as_such() {
    // XCBC$ without the check block: a modified ciphertext may decrypt
    // without error (no integrity). Find one within a few tries.
    let x = Xcbc::<Aes128>::new_from_slice(&key32(9)).unwrap();
    let ct = x.encrypt(&[0u8; 32]).unwrap();
    let accepted = (0..=255u8).any(|b| {
        let mut c = ct.clone();
        c[20] ^= 1; // garble block 1: blocks 1, 2 change, the padding block stays
        c[17] = b;
        x.decrypt(&c).is_ok()
    });
    assert!(
        accepted,
        "XCBC$ accepts modified ciphertexts: it gives no integrity"
    );
}

// ---------------------------------------------------------------------------
// Stateful counters

#[test]
fn stateful_counter_sequence_export_import() {
    let rx = XcbcXorStateful::<Aes128>::new_from_slice(&key32(10)).unwrap();
    let mut tx = XcbcXorStatefulEncryptor::new(rx.clone());
    let first = tx.encrypt(b"a").unwrap();
    assert_eq!(first[..16], [0xff; 16]);
    let saved = tx.counter_state().to_bytes();
    let second = tx.encrypt(b"b").unwrap();
    assert_eq!(second[..16], [0; 16]);
    // resuming from the saved state continues the sequence
    let mut tx2 =
        XcbcXorStatefulEncryptor::from_state(rx.clone(), CounterState::from_bytes(&saved).unwrap());
    assert_eq!(
        tx2.encrypt(b"b").unwrap(),
        second,
        "same counter, same ciphertext: never do this"
    );
    let mut one = [0u8; 16];
    one[15] = 1;
    assert_eq!(tx.encrypt(b"c").unwrap()[..16], one);
    // pXCBC advances by L
    let prx = PxcbcXorStateful::<Aes128>::new_from_slice(&key32(10))
        .unwrap()
        .with_segment_blocks(4)
        .unwrap();
    let mut ptx = PxcbcXorStatefulEncryptor::new(prx);
    ptx.encrypt(&[0u8; 100]).unwrap(); // 1 + 7 blocks: L = 2
    let mut want = [0u8; 16];
    want[15] = 1;
    assert_eq!(ptx.counter_state().next_counter(), Some(want));
}

#[test]
fn stateful_counter_exhaustion() {
    // The last counter value before returning to the initial -1 is 2^128 - 2.
    let mut state = vec![0xffu8; 32];
    state[31] = 0xfe;
    state.push(0);
    let last = CounterState::from_bytes(&state).unwrap();
    let rx = XcbcXorStateful::<Aes128>::new_from_slice(&key32(11)).unwrap();
    let mut tx = XcbcXorStatefulEncryptor::from_state(rx.clone(), last);
    let ct = tx.encrypt(b"last one").unwrap();
    assert_eq!(rx.decrypt(&ct).unwrap(), b"last one");
    assert!(tx.counter_state().is_exhausted());
    assert_eq!(tx.encrypt(b"one more"), Err(Error::CounterExhausted));
    let mut buf = [0u8; 64];
    assert_eq!(
        tx.encrypt_into(b"x", &mut buf),
        Err(Error::CounterExhausted)
    );
    let mut t2 = XcbcStatefulEncryptor::from_state(
        XcbcStateful::<Aes128>::new_from_slice(&key32(11)).unwrap(),
        last,
    );
    t2.encrypt(b"").unwrap();
    assert_eq!(t2.encrypt(b""), Err(Error::CounterExhausted));
    // pXCBC needs L values: refuses without consuming any
    let prx = PxcbcXorStateful::<Aes128>::new_from_slice(&key32(11))
        .unwrap()
        .with_segment_blocks(1)
        .unwrap();
    let mut ptx = PxcbcXorStatefulEncryptor::from_state(prx, last);
    assert_eq!(ptx.encrypt(b""), Err(Error::CounterExhausted)); // L = 2 > 1 left
    assert_eq!(ptx.counter_state(), last);
    // errors other than exhaustion do not consume a counter value
    let mut tx = XcbcXorStatefulEncryptor::new(rx);
    let mut small = [0u8; 10];
    assert!(tx.encrypt_into(b"x", &mut small).is_err());
    assert_eq!(tx.counter_state().next_counter(), Some([0xff; 16]));
}

// ---------------------------------------------------------------------------
// No panics on any input

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn hostile_ciphertexts_never_panic(ct in proptest::collection::vec(any::<u8>(), 0..300), s in 1usize..6, out_len in 0usize..320) {
        let key = key32(12);
        let mut out = vec![0u8; out_len];
        let x = XcbcXor::<Aes128>::new_from_slice(&key).unwrap();
        let _ = x.decrypt(&ct);
        let _ = x.decrypt_into(&ct, &mut out);
        let p = Xcbc::<Aes128>::new_from_slice(&key).unwrap();
        let _ = p.decrypt(&ct);
        let _ = p.decrypt_into(&ct, &mut out);
        let r = XcbcXorStateful::<Aes128>::new_from_slice(&key).unwrap();
        let _ = r.decrypt(&ct);
        let r = XcbcStateful::<Aes128>::new_from_slice(&key).unwrap();
        let _ = r.decrypt_into(&ct, &mut out);
        let q = PxcbcXor::<Aes128>::new_from_slice(&key).unwrap().with_segment_blocks(s).unwrap();
        let _ = q.decrypt(&ct);
        let _ = q.decrypt_into(&ct, &mut out);
        let q = PxcbcXorStateful::<Aes128>::new_from_slice(&key).unwrap().with_segment_blocks(s).unwrap();
        let _ = q.decrypt(&ct);
        let _ = CounterState::from_bytes(&ct);
        let _ = XcbcXor::<Aes128>::new_from_slice(&ct);
        let _ = XcbcXor::<Aes128>::new_from_slice_one_key(&ct);
        let _ = x.encrypt_into(&ct, &mut out);
    }

    #[test]
    fn block_aligned_garbage_is_rejected(blocks in 3usize..20, seed: u64) {
        let x = XcbcXor::<Aes128>::new_from_slice(&key32(13)).unwrap();
        let ct: Vec<u8> = (0..16 * blocks).map(|i| (seed.wrapping_mul(i as u64 + 1) >> 7) as u8).collect();
        prop_assert_eq!(x.decrypt(&ct), Err(Error::Authentication));
        let p = PxcbcXor::<Aes128>::new_from_slice(&key32(13)).unwrap().with_segment_blocks(2).unwrap();
        prop_assert!(p.decrypt(&ct).is_err());
    }
}

#[test]
fn short_and_misaligned_inputs_get_typed_errors() {
    let x = XcbcXor::<Aes128>::new_from_slice(&key32(14)).unwrap();
    assert_eq!(
        x.decrypt(&[0; 32]),
        Err(Error::CiphertextTooShort { min: 48, got: 32 })
    );
    assert!(matches!(x.decrypt(&[0; 47]), Err(Error::InvalidLength(_))));
    let mut out = [0u8; 15];
    let ct = x.encrypt(b"abc").unwrap();
    assert!(matches!(
        x.decrypt_into(&ct, &mut out),
        Err(Error::InvalidLength(_))
    ));
    assert!(matches!(
        x.encrypt_into(b"abc", &mut out),
        Err(Error::InvalidLength(_))
    ));
    let plain = Xcbc::<Aes128>::new_from_slice(&key32(14)).unwrap();
    assert_eq!(
        plain.decrypt(&[0; 16]),
        Err(Error::CiphertextTooShort { min: 32, got: 16 })
    );
    let p = PxcbcXor::<Aes128>::new_from_slice(&key32(14)).unwrap();
    assert!(matches!(
        p.decrypt(&[0; 48]),
        Err(Error::CiphertextTooShort { .. })
    ));
}
