//! XECB$-MAC and XECB-MAC: vectors, call counts, streaming, incremental
//! replace, out-of-order verification, parallel signing, counters, hostile
//! inputs.
#![cfg(all(feature = "std", feature = "rayon", feature = "getrandom"))] // written for the default features

use blockmodes::oracle::Counting;
use blockmodes::xcbc::CounterState;
use blockmodes::xecb::hazmat::{ReplaceBlock, SignWithCounter, SignWithR0};
use blockmodes::xecb::{TAG_LEN, XecbMac, XecbMacStateful, XecbMacStatefulSigner};
use blockmodes::{Aes128, Block, Error};
use cipher::KeyInit;
use proptest::prelude::*;
use serde_json::Value;

mod common;
use common::{SeededRng, block, hexf, load_all, load_long};

fn run_xecb(v: &Value) {
    let key = hexf(v, "key");
    let (r0, msg, tag) = (block(v, "r0"), hexf(v, "msg"), hexf(v, "tag"));
    let ok = v["result"] != "invalid";
    with_aes!(key.len(), C => {
        let mac = XecbMac::<C>::new_from_slice(&key).unwrap();
        if ok {
            assert_eq!(mac.sign_with_r0(&r0, &msg)[..], tag[..], "{}", v["name"]);
            mac.verify_tag(&msg, &tag).unwrap();
            mac.verify_tag_par(&msg, &tag).unwrap();
        } else {
            // (Some negative vectors have tags of the wrong length: a
            // typed error other than Authentication.)
            assert!(mac.verify_tag(&msg, &tag).is_err(), "{}", v["name"]);
            assert!(mac.verify_tag_par(&msg, &tag).is_err(), "{}", v["name"]);
        }
    })
}

fn run_xecb_ctr(v: &Value) {
    let key = hexf(v, "key");
    let (ctr, msg, tag) = (block(v, "ctr"), hexf(v, "msg"), hexf(v, "tag"));
    let ok = v["result"] != "invalid";
    with_aes!(key.len(), C => {
        let keys = XecbMacStateful::<C>::new_from_slice(&key).unwrap();
        if ok {
            assert_eq!(keys.sign_with_counter(&ctr, &msg)[..], tag[..], "{}", v["name"]);
            let mut s = XecbMacStatefulSigner::from_state(keys.clone(), CounterState::starting_at(&ctr));
            assert_eq!(s.mac(&msg).unwrap()[..], tag[..]);
            keys.verify_tag(&msg, &tag).unwrap();
        } else {
            assert!(keys.verify_tag(&msg, &tag).is_err(), "{}", v["name"]);
        }
    })
}

/// Every vector (`vectors/`, `vectors/independent/`, `vectors/negative/`
/// and the long cross-check set) on each backend: the generic path, the
/// fused kernels on AES-NI and on VAES-512 (where the CPU has them). Each
/// vector keys one MAC from bytes.
#[test]
fn vectors_on_every_backend() {
    let stateless: Vec<Value> = load_all("xecb-mac-aes")
        .into_iter()
        .chain(load_long("xecb-mac-aes"))
        .collect();
    let stateful: Vec<Value> = load_all("xecb-mac-ctr-aes")
        .into_iter()
        .chain(load_long("xecb-mac-ctr-aes"))
        .collect();
    assert!(stateless.len() >= 8 + 23 + 300, "{}", stateless.len());
    assert!(stateful.len() >= 8 + 23 + 300, "{}", stateful.len());
    let keys = (stateless.len() + stateful.len()) as u64;
    common::on_each_backend(Some(keys), |_| {
        stateless.iter().for_each(run_xecb);
        stateful.iter().for_each(run_xecb_ctr);
    });
}

#[test]
fn one_call_per_padded_block_plus_r0() {
    for len in [0usize, 1, 16, 31, 64, 1000] {
        let n = len as u64 / 16 + 1;
        let (f, count) = Counting::new(Aes128::new(&[1; 16].into()));
        let mac = XecbMac::from_cipher(f);
        let msg = vec![2u8; len];
        let tag = mac.sign_with_r0(&[5; 16], &msg);
        assert_eq!(count.get(), n + 1, "y0 = f(r0) and one call per block");
        count.reset();
        mac.verify_tag(&msg, &tag).unwrap();
        assert_eq!(count.get(), n + 1, "r0 = f^-1(y0) and one call per block");
        count.reset();
        mac.replace_block(&tag, len.max(16), 1, &[0; 16], &[1; 16])
            .ok();
        assert!(count.get() <= 3, "incremental replace: r0 and two calls");
    }
}

/// Everything the two XECB MACs compute for one key, r0, counter and
/// message, with the MACs keyed under `backend`: one-shot tags (hazmat r0
/// and counter, a seeded RNG's r0), the streaming signers in pieces, and
/// the verdicts on the tags, on a changed tag and on a changed message.
#[allow(clippy::too_many_arguments)]
fn xecb_on<C: blockmodes::oracle::BlockCipher128Dec + KeyInit + Sync + Clone>(
    backend: blockmodes::backend::Backend,
    key: &[u8],
    r0: &Block,
    ctr: &Block,
    seed: u64,
    msg: &[u8],
    cut: usize,
    flip: usize,
) -> Vec<Vec<u8>> {
    let prev = blockmodes::backend::force(backend);
    let mac = XecbMac::<C>::new_from_slice(key).unwrap();
    let keys = XecbMacStateful::<C>::new_from_slice(key).unwrap();
    blockmodes::backend::force(prev);
    let cut = cut.min(msg.len());
    let mut out = Vec::new();
    let t_r0 = mac.sign_with_r0(r0, msg);
    let t_rng = mac.mac_with_rng(&mut SeededRng(seed), msg).unwrap();
    let mut s = mac.signer_with_rng(&mut SeededRng(seed)).unwrap();
    s.update(&msg[..cut]);
    s.update(&msg[cut..]);
    let t_stream = s.finalize();
    let t_ctr = keys.sign_with_counter(ctr, msg);
    let mut signer =
        XecbMacStatefulSigner::from_state(keys.clone(), CounterState::starting_at(ctr));
    let mut st = signer.signer().unwrap();
    st.update(&msg[..cut]);
    st.update_par(&msg[cut..]);
    let t_ctr_stream = st.finalize();
    for t in [&t_r0, &t_rng, &t_stream, &t_ctr, &t_ctr_stream] {
        out.push(t.to_vec());
    }
    // Verification, streaming verification, and rejections.
    let mut verdicts = Vec::new();
    for (t, stateless) in [(t_r0, true), (t_rng, true), (t_ctr, false)] {
        let mut bad_tag = t;
        bad_tag[flip % TAG_LEN] ^= 1 << (flip % 8);
        let mut bad_msg = msg.to_vec();
        if !bad_msg.is_empty() {
            let at = flip % bad_msg.len();
            bad_msg[at] ^= 1 << (flip % 8);
        } else {
            bad_msg.push(0x80); // the padding byte as message: a different one
        }
        let v = |m: &[u8], t: &[u8]| {
            if stateless {
                mac.verify_tag(m, t)
            } else {
                keys.verify_tag(m, t)
            }
        };
        verdicts.push(v(msg, &t));
        verdicts.push(v(msg, &bad_tag));
        verdicts.push(v(&bad_msg, &t));
        let mut ver = if stateless {
            mac.verifier(&t).unwrap()
        } else {
            keys.verifier(&t).unwrap()
        };
        ver.update(&msg[..cut]);
        ver.update(&msg[cut..]);
        verdicts.push(ver.verify());
    }
    let want = [
        Ok(()),
        Err(Error::Authentication),
        Err(Error::Authentication),
        Ok(()),
    ];
    for (k, v) in verdicts.iter().enumerate() {
        assert_eq!(
            *v,
            want[k % 4],
            "{backend:?} verdict {k}, len {}",
            msg.len()
        );
    }
    out
}

/// The fused and the generic path agree at every message length from 0
/// to 5000 bytes (key sizes in turn, the split and the changed bit moving
/// with the length).
#[test]
fn fused_and_generic_agree_at_every_length() {
    use blockmodes::backend::{Backend, available};
    let msg: Vec<u8> = (0..5000u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    let mut rng = SeededRng(0x3ecb);
    for len in 0..=5000usize {
        let mut key = [0u8; 32];
        rand_core::TryRng::try_fill_bytes(&mut rng, &mut key).unwrap();
        let r0: Block = core::array::from_fn(|i| key[i] ^ 0x5c);
        let ctr: Block = core::array::from_fn(|i| key[16 + i] ^ 0x36);
        let m = &msg[..len];
        let (cut, flip) = (len * 7 / 11, len * 13 + 5);
        with_aes!([16usize, 24, 32][len % 3], C => {
            let k = &key[..[16usize, 24, 32][len % 3]];
            let generic = xecb_on::<C>(Backend::Generic, k, &r0, &ctr, len as u64, m, cut, flip);
            for &b in available() {
                assert_eq!(xecb_on::<C>(b, k, &r0, &ctr, len as u64, m, cut, flip), generic, "{b:?} len {len}");
            }
        });
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The fused and the generic path agree on random keys (every size),
    /// r0, counters, RNG seeds and messages of 0..5000 bytes, and both
    /// reject a changed tag and a changed message.
    #[test]
    fn fused_and_generic_agree(
        key in proptest::collection::vec(any::<u8>(), 32),
        key_len in prop::sample::select(vec![16usize, 24, 32]),
        r0: [u8; 16],
        ctr: [u8; 16],
        seed: u64,
        msg in proptest::collection::vec(any::<u8>(), 0..5000),
        cut: usize,
        flip: usize,
    ) {
        use blockmodes::backend::{Backend, available};
        let key = &key[..key_len];
        let cut = cut % (msg.len() + 1);
        with_aes!(key_len, C => {
            let generic = xecb_on::<C>(Backend::Generic, key, &r0, &ctr, seed, &msg, cut, flip);
            for &b in available() {
                prop_assert_eq!(&xecb_on::<C>(b, key, &r0, &ctr, seed, &msg, cut, flip), &generic, "{:?}", b);
            }
        });
    }
}

fn key(seed: u8) -> [u8; 16] {
    core::array::from_fn(|i| seed.wrapping_mul(17).wrapping_add(i as u8))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn any_split_gives_the_same_tag(msg in proptest::collection::vec(any::<u8>(), 0..700), cuts in proptest::collection::vec(0usize..700, 0..6), ctr: [u8; 16]) {
        let keys = XecbMacStateful::<Aes128>::new_from_slice(&key(1)).unwrap();
        let want = keys.sign_with_counter(&ctr, &msg);
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(msg.len())).collect();
        cuts.sort();
        let mut signer = XecbMacStatefulSigner::from_state(keys.clone(), CounterState::starting_at(&ctr));
        let mut s = signer.signer().unwrap();
        let mut v = keys.verifier(&want).unwrap();
        let mut at = 0;
        for c in cuts.iter().copied().chain([msg.len()]) {
            s.update(&msg[at..c]);
            v.update(&msg[at..c]);
            at = c;
        }
        prop_assert_eq!(s.finalize(), want);
        prop_assert!(v.verify().is_ok());
        // and the stateless mode's verifier, on a random-r0 tag
        let mac = XecbMac::<Aes128>::new_from_slice(&key(1)).unwrap();
        let tag = mac.mac(&msg).unwrap();
        let mut v = mac.verifier(&tag).unwrap();
        let mut at = 0;
        for c in cuts.iter().copied().chain([msg.len()]) {
            v.update_par(&msg[at..c]);
            at = c;
        }
        prop_assert!(v.verify().is_ok());
    }

    #[test]
    fn incremental_replace_equals_recomputation(blocks in 1usize..40, tail in 0usize..16, pick: usize, new: [u8; 16], r0: [u8; 16]) {
        let mac = XecbMac::<Aes128>::new_from_slice(&key(2)).unwrap();
        let mut msg: Vec<u8> = (0..blocks * 16 + tail).map(|i| (i * 3) as u8).collect();
        let tag = mac.sign_with_r0(&r0, &msg);
        let i = pick % blocks; // 0-based whole block
        let old: Block = msg[16 * i..16 * i + 16].try_into().unwrap();
        let updated = mac.replace_block(&tag, msg.len(), i as u64 + 1, &old, &new).unwrap();
        msg[16 * i..16 * i + 16].copy_from_slice(&new);
        prop_assert_eq!(updated, mac.sign_with_r0(&r0, &msg));
        prop_assert!(mac.verify_tag(&msg, &updated).is_ok());
        // the stateful mode the same way
        let keys = XecbMacStateful::<Aes128>::new_from_slice(&key(2)).unwrap();
        let t = keys.sign_with_counter(&r0, &msg);
        let back = keys.replace_block(&t, msg.len(), i as u64 + 1, &new, &old).unwrap();
        msg[16 * i..16 * i + 16].copy_from_slice(&old);
        prop_assert_eq!(back, keys.sign_with_counter(&r0, &msg));
    }

    #[test]
    fn out_of_order_equals_in_order(len in 0usize..500, seed: u64) {
        let mac = XecbMac::<Aes128>::new_from_slice(&key(3)).unwrap();
        let msg: Vec<u8> = (0..len).map(|i| (i as u64).wrapping_mul(seed | 1) as u8).collect();
        let tag = mac.mac(&msg).unwrap();
        let n = len / 16 + 1;
        // a permutation of 1..=n from the seed
        let mut order: Vec<usize> = (1..=n).collect();
        let mut x = seed;
        for k in (1..order.len()).rev() {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            order.swap(k, (x >> 33) as usize % (k + 1));
        }
        let mut v = mac.out_of_order(&tag, len).unwrap();
        for &i in &order {
            let start = 16 * (i - 1);
            let end = (16 * i).min(len);
            v.add_block(i as u64, &msg[start..end]).unwrap();
        }
        prop_assert!(v.verify().is_ok());
        // with a wrong block somewhere, the same order fails
        if len > 0 {
            let mut bad = msg.clone();
            bad[(seed as usize) % len] ^= 1;
            let mut v = mac.out_of_order(&tag, len).unwrap();
            for &i in &order {
                v.add_block(i as u64, &bad[16 * (i - 1)..(16 * i).min(len)]).unwrap();
            }
            prop_assert_eq!(v.verify(), Err(Error::Authentication));
        }
    }
}

#[test]
fn out_of_order_refuses_duplicates_and_gaps() {
    let mac = XecbMac::<Aes128>::new_from_slice(&key(4)).unwrap();
    let msg = [6u8; 48]; // blocks 1..=3 and the padding block 4
    let tag = mac.mac(&msg).unwrap();
    // a duplicated block would cancel out of w: refused
    let mut v = mac.out_of_order(&tag, 48).unwrap();
    v.add_block(1, &msg[..16]).unwrap();
    assert!(matches!(
        v.add_block(1, &msg[..16]),
        Err(Error::InvalidParameter(_))
    ));
    assert!(matches!(
        v.add_range(1, &msg[..32]),
        Err(Error::InvalidParameter(_))
    ));
    v.add_range(2, &msg[16..]).unwrap(); // 2, 3 and the padding block
    assert_eq!(v.missing(), 0);
    v.verify().unwrap();
    // missing blocks
    let mut v = mac.out_of_order(&tag, 48).unwrap();
    v.add_block(2, &msg[16..32]).unwrap();
    v.add_block(4, &[]).unwrap();
    assert_eq!(v.missing(), 2);
    assert!(v.verify().is_err());
    // bad indices and lengths
    let mut v = mac.out_of_order(&tag, 48).unwrap();
    assert!(v.add_block(0, &msg[..16]).is_err());
    assert!(v.add_block(5, &[]).is_err());
    assert!(v.add_block(4, &[0]).is_err());
    assert!(v.add_block(2, &msg[..15]).is_err());
    assert!(v.add_range(3, &msg[..20]).is_err()); // beyond the end
    assert!(v.add_range(1, &msg[..20]).is_err()); // not on a boundary
    assert_eq!(v.missing(), 4);
    // a replayed block in place of another
    let mut v = mac.out_of_order(&tag, 48).unwrap();
    v.add_range(1, &msg).unwrap();
    v.verify().unwrap();
}

#[test]
fn replace_block_refuses_the_padding_block() {
    let mac = XecbMac::<Aes128>::new_from_slice(&key(5)).unwrap();
    let tag = mac.mac(&[0u8; 40]).unwrap();
    assert!(mac.replace_block(&tag, 40, 2, &[0; 16], &[1; 16]).is_ok());
    assert!(mac.replace_block(&tag, 40, 3, &[0; 16], &[1; 16]).is_err()); // holds padding
    assert!(mac.replace_block(&tag, 40, 0, &[0; 16], &[1; 16]).is_err());
    assert!(
        mac.replace_block(&tag[..31], 40, 1, &[0; 16], &[1; 16])
            .is_err()
    );
}

/// The rayon paths (each thread its own range of positions) against the
/// one-shot tag of the generic path, on each backend.
#[test]
fn parallel_signing_matches_serial() {
    let prev = blockmodes::backend::force(blockmodes::backend::Backend::Generic);
    let generic = XecbMacStateful::<Aes128>::new_from_slice(&key(6)).unwrap();
    blockmodes::backend::force(prev);
    common::on_each_backend(Some(2), |b| parallel_signing_on(b, &generic));
}

fn parallel_signing_on(b: blockmodes::backend::Backend, generic: &XecbMacStateful<Aes128>) {
    let keys = XecbMacStateful::<Aes128>::new_from_slice(&key(6)).unwrap();
    for len in [0usize, 100, 131_071, 131_072, 700_001] {
        let msg: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        let ctr = [0x42; 16];
        let serial = generic.sign_with_counter(&ctr, &msg);
        assert_eq!(
            keys.sign_with_counter(&ctr, &msg),
            serial,
            "{b:?} {len} bytes"
        );
        let mut s =
            XecbMacStatefulSigner::from_state(keys.clone(), CounterState::starting_at(&ctr));
        assert_eq!(s.mac_par(&msg).unwrap(), serial, "{len} bytes");
        keys.verify_tag_par(&msg, &serial).unwrap();
        let mut s =
            XecbMacStatefulSigner::from_state(keys.clone(), CounterState::starting_at(&ctr));
        let mut st = s.signer().unwrap();
        for chunk in msg.chunks(200_003) {
            st.update_par(chunk);
        }
        assert_eq!(st.finalize(), serial);
    }
    let mac = XecbMac::<Aes128>::new_from_slice(&key(6)).unwrap();
    let big = vec![1u8; 500_000];
    let tag = mac.mac_par(&big).unwrap();
    mac.verify_tag(&big, &tag).unwrap();
    mac.verify_tag_par(&big, &tag).unwrap();
}

#[test]
fn tags_reject_modification() {
    let mac = XecbMac::<Aes128>::new_from_slice(&key(7)).unwrap();
    let msg = [3u8; 50];
    let tag = mac.mac(&msg).unwrap();
    for bit in 0..TAG_LEN * 8 {
        let mut t = tag;
        t[bit / 8] ^= 1 << (bit % 8);
        assert_eq!(mac.verify_tag(&msg, &t), Err(Error::Authentication));
    }
    for bit in 0..msg.len() * 8 {
        let mut m = msg;
        m[bit / 8] ^= 1 << (bit % 8);
        assert_eq!(mac.verify_tag(&m, &tag), Err(Error::Authentication));
    }
    assert!(mac.verify_tag(&msg[..49], &tag).is_err());
    assert!(
        mac.verify_tag(&[&msg[..], &[0x80]].concat(), &tag).is_err(),
        "padding is unambiguous"
    );
    // swapping two whole blocks changes the tag (positions are randomized)
    let mut m = [0u8; 48];
    m[..16].copy_from_slice(&[1; 16]);
    m[16..32].copy_from_slice(&[2; 16]);
    let t = mac.mac(&m).unwrap();
    let mut swapped = [0u8; 48];
    swapped[..16].copy_from_slice(&[2; 16]);
    swapped[16..32].copy_from_slice(&[1; 16]);
    assert!(mac.verify_tag(&swapped, &t).is_err());
    assert_eq!(
        mac.verify_tag(&msg, &tag[..31]),
        Err(Error::InvalidTagLength {
            min: 32,
            max: 32,
            got: 31
        })
    );
}

#[test]
fn signer_counter_exhaustion() {
    let mut state = vec![0xffu8; 32];
    state[31] = 0xfe;
    state.push(0);
    let last = CounterState::from_bytes(&state).unwrap();
    let keys = XecbMacStateful::<Aes128>::new_from_slice(&key(8)).unwrap();
    let mut s = XecbMacStatefulSigner::from_state(keys.clone(), last);
    let tag = s.mac(b"last").unwrap();
    keys.verify_tag(b"last", &tag).unwrap();
    assert_eq!(s.mac(b"more").err(), Some(Error::CounterExhausted));
    assert!(s.signer().is_err());
    assert!(s.counter_state().is_exhausted());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn hostile_inputs_never_panic(tag in proptest::collection::vec(any::<u8>(), 0..40), msg in proptest::collection::vec(any::<u8>(), 0..100), msg_len in 0usize..200, idx in 0u64..20, data in proptest::collection::vec(any::<u8>(), 0..40)) {
        let mac = XecbMac::<Aes128>::new_from_slice(&key(9)).unwrap();
        let keys = XecbMacStateful::<Aes128>::new_from_slice(&key(9)).unwrap();
        prop_assert!(mac.verify_tag(&msg, &tag).is_err());
        prop_assert!(keys.verify_tag(&msg, &tag).is_err());
        let _ = mac.replace_block(&tag, msg_len, idx, &[0; 16], &[1; 16]);
        let _ = keys.replace_block(&tag, msg_len, idx, &[0; 16], &[1; 16]);
        if let Ok(mut v) = mac.out_of_order(&tag, msg_len) {
            let _ = v.add_block(idx, &data);
            let _ = v.add_range(idx, &data);
            let _ = v.add_range(idx, &msg);
            prop_assert!(v.verify().is_err());
        }
        let _ = XecbMac::<Aes128>::new_from_slice(&data);
    }
}

/// Issue 13, finding 1: tags that share r0 combine by xor. Through the
/// hazardous in-place update, the tags of (a, b), (a', b) and (a', b') give
/// a valid tag of (a, b') that was never signed; through the safe API every
/// tag has a fresh r0 (or counter) and the same combination fails.
#[test]
fn xor_forgery_works_through_hazmat_only() {
    let mac = XecbMac::<Aes128>::new_from_slice(&[7u8; 16]).unwrap();
    let keys = XecbMacStateful::<Aes128>::new_from_slice(&[7u8; 16]).unwrap();
    let (a, a2, b, b2) = ([1u8; 16], [2u8; 16], [3u8; 16], [4u8; 16]);
    let msg = |x: &Block, y: &Block| [&x[..], &y[..]].concat();
    let forge = |t1: &[u8; 32], t2: &[u8; 32], t3: &[u8; 32]| {
        let mut f = *t1;
        for k in 16..32 {
            f[k] ^= t2[k] ^ t3[k];
        }
        f
    };

    // Hazmat, stateless: the forgery verifies.
    let t_ab = mac.mac(&msg(&a, &b)).unwrap();
    let t_a2b = mac.replace_block(&t_ab, 32, 1, &a, &a2).unwrap();
    let t_a2b2 = mac.replace_block(&t_a2b, 32, 2, &b, &b2).unwrap();
    assert!(
        mac.verify_tag(&msg(&a, &b2), &forge(&t_ab, &t_a2b, &t_a2b2))
            .is_ok()
    );

    // Hazmat, stateful: the same, and the counter value is reused.
    let mut signer = XecbMacStatefulSigner::new(keys.clone());
    let c_ab = signer.mac(&msg(&a, &b)).unwrap();
    let c_a2b = keys.replace_block(&c_ab, 32, 1, &a, &a2).unwrap();
    let c_a2b2 = keys.replace_block(&c_a2b, 32, 2, &b, &b2).unwrap();
    assert_eq!(c_a2b2[..16], c_ab[..16], "counter value reused");
    assert!(
        keys.verify_tag(&msg(&a, &b2), &forge(&c_ab, &c_a2b, &c_a2b2))
            .is_ok()
    );

    // Safe API: each version is MACed afresh; the combination is rejected.
    for _ in 0..20 {
        let s_ab = mac.mac(&msg(&a, &b)).unwrap();
        let s_a2b = mac.mac(&msg(&a2, &b)).unwrap();
        let s_a2b2 = mac.mac(&msg(&a2, &b2)).unwrap();
        for header in [&s_ab, &s_a2b, &s_a2b2] {
            let mut f = forge(&s_ab, &s_a2b, &s_a2b2);
            f[..16].copy_from_slice(&header[..16]);
            assert_eq!(
                mac.verify_tag(&msg(&a, &b2), &f),
                Err(Error::Authentication)
            );
        }
        let k_ab = signer.mac(&msg(&a, &b)).unwrap();
        let k_a2b = signer.mac(&msg(&a2, &b)).unwrap();
        let k_a2b2 = signer.mac(&msg(&a2, &b2)).unwrap();
        for header in [&k_ab, &k_a2b, &k_a2b2] {
            let mut f = forge(&k_ab, &k_a2b, &k_a2b2);
            f[..16].copy_from_slice(&header[..16]);
            assert_eq!(
                keys.verify_tag(&msg(&a, &b2), &f),
                Err(Error::Authentication)
            );
        }
    }
}
