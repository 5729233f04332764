//! `blockmodes::rng::ThreadRng`, the default source of r0: distinct
//! threads get distinct streams, draws past the reseed bound keep coming,
//! and every stateless mode's default call (which draws from it) still
//! round-trips. The fork tests are in `fork_rng.rs` and
//! `fork_rng_raw_clone.rs`; the reseed and fork bookkeeping inside the
//! generator in `src/rng/mod.rs`.
#![cfg(all(feature = "std", feature = "getrandom"))]

use std::collections::HashSet;

use blockmodes::pxcbc::PxcbcXor;
use blockmodes::rand_core::{TryCryptoRng, TryRng};
use blockmodes::rng::{RESEED_BYTES, ThreadRng, thread_rng};
use blockmodes::xcbc::{Xcbc, XcbcXor};
use blockmodes::xecb::XecbMac;
use blockmodes::{Aes128, Error};

fn draw(n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    thread_rng().try_fill_bytes(&mut v).unwrap();
    v
}

#[test]
fn the_handle_is_a_plain_crypto_rng() {
    fn usable<R: TryCryptoRng<Error = getrandom::Error> + Copy + Send + Sync + Default>() {}
    usable::<ThreadRng>();
    assert_eq!(size_of::<ThreadRng>(), 0);
}

#[test]
fn distinct_threads_get_distinct_streams() {
    // Each thread's first 64 bytes (its generator is seeded on that draw),
    // then 64 more: no two of the 2 * 9 blocks of 64 bytes are equal.
    let mut outputs: Vec<Vec<u8>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8).map(|_| s.spawn(|| [draw(64), draw(64)])).collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    outputs.extend([draw(64), draw(64)]);
    let distinct: HashSet<_> = outputs.iter().collect();
    assert_eq!(distinct.len(), outputs.len());
    // And no 16-byte piece (an r0) occurs twice anywhere.
    let pieces: Vec<_> = outputs.iter().flat_map(|o| o.chunks(16)).collect();
    assert_eq!(pieces.iter().collect::<HashSet<_>>().len(), pieces.len());
}

#[test]
fn r0_draws_continue_past_the_reseed_bound() {
    // 2.5 bounds' worth of 16-byte draws on a fresh thread (two reseeds):
    // every one distinct, none all-zero.
    let draws = std::thread::spawn(|| {
        let mut rng = thread_rng();
        (0..(5 * RESEED_BYTES / 2) / 16)
            .map(|_| {
                let mut r0 = [0u8; 16];
                rng.try_fill_bytes(&mut r0).unwrap();
                r0
            })
            .collect::<Vec<_>>()
    })
    .join()
    .unwrap();
    assert!(draws.iter().all(|r| r != &[0u8; 16]));
    assert_eq!(draws.iter().collect::<HashSet<_>>().len(), draws.len());
    // One draw longer than the bound, and the integer draws.
    let big = draw(RESEED_BYTES * 2 + 7);
    assert_ne!(big[..RESEED_BYTES], big[RESEED_BYTES..2 * RESEED_BYTES]);
    let mut rng = thread_rng();
    assert_ne!(rng.try_next_u64().unwrap(), rng.try_next_u64().unwrap());
    assert_ne!(rng.try_next_u32().unwrap(), rng.try_next_u32().unwrap());
}

/// The first block of a stateless ciphertext or tag is y0 = f(r0).
fn y0(ct: &[u8]) -> &[u8] {
    &ct[..16]
}

#[test]
fn default_calls_round_trip() -> Result<(), Error> {
    let key2 = [0x42u8; 32];
    for len in [0usize, 1, 15, 16, 17, 100, 1000, 5000] {
        let msg: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();

        let x = XcbcXor::<Aes128>::new_from_slice(&key2)?;
        let (a, b) = (x.encrypt(&msg)?, x.encrypt(&msg)?);
        assert_ne!(y0(&a), y0(&b), "XCBC$-XOR: r0 repeated");
        assert_eq!(x.decrypt(&a)?, msg);
        assert_eq!(x.decrypt(&b)?, msg);
        let mut out = vec![0u8; x.ciphertext_len(len)?];
        let n = x.encrypt_into(&msg, &mut out)?;
        assert_eq!(x.decrypt(&out[..n])?, msg);
        let c = x.encrypt_with_rng(&mut thread_rng(), &msg)?;
        assert_eq!(x.decrypt(&c)?, msg);

        let plain = Xcbc::<Aes128>::new_from_slice(&key2)?;
        let ct = plain.encrypt(&msg)?;
        assert_eq!(plain.decrypt(&ct)?, msg);

        let p = PxcbcXor::<Aes128>::new_from_slice(&key2)?.with_segment_blocks(4)?;
        let (a, b) = (p.encrypt(&msg)?, p.encrypt(&msg)?);
        assert_ne!(y0(&a), y0(&b), "pXCBC$: r0 repeated");
        assert_eq!(p.decrypt(&a)?, msg);
        let mut out = vec![0u8; p.ciphertext_len(len)?];
        let n = p.encrypt_into(&msg, &mut out)?;
        assert_eq!(p.decrypt(&out[..n])?, msg);

        let mac = XecbMac::<Aes128>::new_from_slice(&key2[..16])?;
        let (s, t) = (mac.mac(&msg)?, mac.mac(&msg)?);
        assert_ne!(y0(&s), y0(&t), "XECB$-MAC: r0 repeated");
        mac.verify_tag(&msg, &s)?;
        mac.verify_tag(&msg, &t)?;
        let mut signer = mac.signer()?;
        signer.update(&msg);
        mac.verify_tag(&msg, &signer.finalize())?;
        mac.verify_tag(&msg, &mac.mac_par(&msg)?)?;
        mac.verify_tag(&msg, &mac.mac_with_rng(&mut thread_rng(), &msg)?)?;
        let mut wrong = msg.clone();
        wrong.push(0);
        assert_eq!(mac.verify_tag(&wrong, &s), Err(Error::Authentication));
    }
    Ok(())
}

#[test]
fn default_calls_from_many_threads() {
    // The rayon-parallel and plain calls, from several threads at once,
    // each on its own thread's generator: every tag distinct, all valid.
    let mac = XecbMac::<Aes128>::new_from_slice(&[0x11; 16]).unwrap();
    let big = vec![9u8; 1 << 18];
    let tags: Vec<_> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..4)
            .map(|_| s.spawn(|| [mac.mac_par(&big).unwrap(), mac.mac(&big).unwrap()]))
            .collect();
        hs.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    for t in &tags {
        mac.verify_tag(&big, t).unwrap();
    }
    assert_eq!(
        tags.iter().map(|t| y0(t)).collect::<HashSet<_>>().len(),
        tags.len()
    );
}
