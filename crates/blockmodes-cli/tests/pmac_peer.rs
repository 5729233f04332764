//! Our PMAC against an independent implementation run side by side: the
//! RustCrypto `pmac` crate (0.8), on random keys of every AES size and random
//! messages, one-shot, streaming and parallel.

use aes::{Aes128, Aes192, Aes256};
use blockmodes::oracle::BlockCipher128;
use blockmodes::pmac::Pmac;
use cipher::KeyInit;
use proptest::prelude::*;

fn peer_tag<C>(key: &[u8], msg: &[u8]) -> Vec<u8>
where
    C: pmac::block_api::PmacCipher + KeyInit,
{
    let mut peer = <pmac::Pmac<C> as pmac::KeyInit>::new_from_slice(key).unwrap();
    pmac::Mac::update(&mut peer, msg);
    pmac::Mac::finalize(peer).into_bytes().to_vec()
}

fn ours<C: BlockCipher128 + KeyInit + Sync>(key: &[u8], msg: &[u8], split: usize) -> [Vec<u8>; 3] {
    let p = Pmac::<C>::new_from_slice(key).unwrap();
    let mut s = Pmac::<C>::new_from_slice(key).unwrap();
    let (a, b) = msg.split_at(split.min(msg.len()));
    s.update(a);
    s.update(b);
    [
        p.mac(msg).to_vec(),
        s.finalize().into_bytes().to_vec(),
        p.mac_par(msg).to_vec(),
    ]
}

fn check(key: &[u8], msg: &[u8], split: usize) -> Result<(), TestCaseError> {
    let (want, got) = match key.len() {
        16 => (
            peer_tag::<Aes128>(key, msg),
            ours::<Aes128>(key, msg, split),
        ),
        24 => (
            peer_tag::<Aes192>(key, msg),
            ours::<Aes192>(key, msg, split),
        ),
        _ => (
            peer_tag::<Aes256>(key, msg),
            ours::<Aes256>(key, msg, split),
        ),
    };
    for g in got {
        prop_assert_eq!(&g, &want);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn matches_rustcrypto_pmac(
        key_len in prop_oneof![Just(16usize), Just(24), Just(32)],
        key_bytes in proptest::collection::vec(any::<u8>(), 32),
        msg in proptest::collection::vec(any::<u8>(), 0..3000),
        split in any::<usize>(),
    ) {
        check(&key_bytes[..key_len], &msg, split)?;
    }
}

#[test]
fn matches_rustcrypto_pmac_on_large_inputs() {
    // Above the parallel threshold, across many groups of 64 blocks.
    let key = [0x42u8; 16];
    for len in [300_000usize, (1 << 20) + 13] {
        let msg: Vec<u8> = (0..len).map(|i| (i * 7 + i / 251) as u8).collect();
        check(&key, &msg, len / 3).unwrap();
    }
}
