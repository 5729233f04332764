//! Costs claimed by the papers' operational properties (issue 14), as
//! ignored tests to run in release mode:
//!
//! ```text
//! cargo test --release -p blockmodes --test incremental_cost -- --ignored --nocapture --test-threads 1
//! ```
//!
//! * XECB-MAC's incremental replacement (`xecb::hazmat::ReplaceBlock`,
//!   `w' = w xor f(x_i + i r0) xor f(x'_i + i r0)`): the same cost for a
//!   1 MiB and a 64 MiB message;
//! * on-line OCB 1.0 and CWC with 64 KiB pieces against the one-shot
//!   `encrypt` at 1 MiB, timed in alternation (paired), medians.
//!
//! Each test also checks its result, so a fast wrong answer cannot pass.
#![cfg(all(feature = "std", feature = "rayon", feature = "getrandom"))] // written for the default features

use std::time::Instant;

use blockmodes::Aes128;
use blockmodes::cwc::CwcAes128;
use blockmodes::ocb1::Ocb1Aes128;
use blockmodes::xecb::XecbMac;
use blockmodes::xecb::hazmat::ReplaceBlock;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

#[test]
#[ignore]
fn xecb_replace_cost_is_independent_of_length() {
    let mac = XecbMac::<Aes128>::new_from_slice(&[7u8; 16]).unwrap();
    let new = [0xa5u8; 16];
    // For each length: the message, its tag, a block in the middle and its
    // old value; the MAC of the whole message timed once for scale.
    let cases: Vec<_> = [1usize, 64]
        .iter()
        .map(|&mib| {
            let msg = vec![0x5au8; mib << 20];
            let t = Instant::now();
            let tag = mac.mac(&msg).unwrap();
            let whole = t.elapsed().as_secs_f64();
            let index = (msg.len() / 16 / 2) as u64;
            let at = 16 * (index as usize - 1);
            let old: [u8; 16] = msg[at..at + 16].try_into().unwrap();
            (mib, msg, tag, index, at, old, whole)
        })
        .collect();
    let replace = |c: &(usize, Vec<u8>, [u8; 32], u64, usize, [u8; 16], f64)| {
        mac.replace_block(std::hint::black_box(&c.2), c.1.len(), c.3, &c.5, &new)
            .unwrap()
    };
    // The replaced tags are right.
    for c in &cases {
        let mut msg = c.1.clone();
        msg[c.4..c.4 + 16].copy_from_slice(&new);
        mac.verify_tag(&msg, &replace(c)).unwrap();
    }
    // Alternate the two lengths, 10000 replacements per sample.
    let n = 10_000;
    let (a, b, r) = paired(
        41,
        || {
            for _ in 0..n {
                std::hint::black_box(replace(&cases[0]));
            }
        },
        || {
            for _ in 0..n {
                std::hint::black_box(replace(&cases[1]));
            }
        },
    );
    for (c, t) in cases.iter().zip([a, b]) {
        println!(
            "XECB$-MAC replace_block, {} MiB message: {:.0} ns per replacement; MAC of the whole message {:.2} ms",
            c.0,
            t / n as f64 * 1e9,
            c.6 * 1e3
        );
    }
    println!("64 MiB / 1 MiB replacement cost (median of 41 paired samples): {r:.3}");
    assert!(r < 2.0, "replacement cost grows with the message: {r}");
}

/// Alternate `a` and `b` `rounds` times; median of time(b) / time(a).
fn paired(rounds: usize, mut a: impl FnMut(), mut b: impl FnMut()) -> (f64, f64, f64) {
    let (mut ta, mut tb, mut r) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t = Instant::now();
        a();
        let x = t.elapsed().as_secs_f64();
        let t = Instant::now();
        b();
        let y = t.elapsed().as_secs_f64();
        ta.push(x);
        tb.push(y);
        r.push(y / x);
    }
    (median(ta), median(tb), median(r))
}

#[test]
#[ignore]
fn online_64k_pieces_against_one_shot_at_1mib() {
    let msg = vec![0x5au8; 1 << 20];
    let ocb = Ocb1Aes128::new_from_slice(&[1; 16]).unwrap();
    let cwc = CwcAes128::new_from_slice(&[1; 16]).unwrap();
    let mut out = Vec::with_capacity(msg.len() + 16);
    let online_ocb = |out: &mut Vec<u8>| {
        out.clear();
        let mut enc = ocb.encryptor(&[2; 16]).unwrap();
        for p in msg.chunks(64 << 10) {
            enc.update(p, out);
        }
        let tag = enc.finish(out);
        out.extend_from_slice(&tag);
    };
    online_ocb(&mut out);
    assert_eq!(out, ocb.encrypt_to_vec(&[2; 16], &msg).unwrap());
    let (a, b, r) = paired(
        301,
        || {
            std::hint::black_box(ocb.encrypt_to_vec(&[2; 16], &msg).unwrap());
        },
        || online_ocb(&mut out),
    );
    println!(
        "OCB1-AES-128, 1 MiB: one-shot encrypt {:.1} us ({:.2} GB/s), on-line 64 KiB pieces {:.1} us ({:.2} GB/s), median paired ratio on-line/one-shot {r:.3}",
        a * 1e6,
        1.048576e-3 / a,
        b * 1e6,
        1.048576e-3 / b
    );
    let online_cwc = |out: &mut Vec<u8>| {
        out.clear();
        let mut enc = cwc.encryptor(&[2; 11], b"").unwrap();
        for p in msg.chunks(64 << 10) {
            enc.update(p, out).unwrap();
        }
        let tag = enc.finish(out);
        out.extend_from_slice(&tag);
    };
    online_cwc(&mut out);
    assert_eq!(out, cwc.encrypt_to_vec(&[2; 11], b"", &msg).unwrap());
    let (a, b, r) = paired(
        301,
        || {
            std::hint::black_box(cwc.encrypt_to_vec(&[2; 11], b"", &msg).unwrap());
        },
        || online_cwc(&mut out),
    );
    println!(
        "CWC-AES-128, 1 MiB: one-shot encrypt {:.1} us ({:.2} GB/s), on-line 64 KiB pieces {:.1} us ({:.2} GB/s), median paired ratio on-line/one-shot {r:.3}",
        a * 1e6,
        1.048576e-3 / a,
        b * 1e6,
        1.048576e-3 / b
    );
}

/// Issue 25 point 9: the `Vec`-returning calls against the in-place (or
/// buffer-to-buffer) calls of the same mode, at 16 KiB and 1 MiB, timed in
/// alternation (201 paired samples of 4 MiB of data each; medians). Prints
/// the speed of the `Vec` call as a fraction of the in-place one.
#[test]
#[ignore]
fn vec_calls_against_in_place() {
    use aead::AeadInOut;
    use aead::inout::InOutBuf;
    let ocb = Ocb1Aes128::new_from_slice(&[1; 16]).unwrap();
    let cwc = CwcAes128::new_from_slice(&[1; 16]).unwrap();
    let n_ocb = aead::Nonce::<Ocb1Aes128>::from([2; 16]);
    for size in [16usize << 10, 1 << 20] {
        let calls = (4 << 20) / size;
        let msg = vec![0x5au8; size];
        let mut buf = msg.clone();
        let mut out = vec![0u8; size];
        let sealed = ocb.encrypt_to_vec(&[2; 16], &msg).unwrap();
        let (ct, tag) = sealed.split_at(size);
        let tag = aead::Tag::<Ocb1Aes128>::try_from(tag).unwrap();
        let rows: [(&str, f64); 4] = [
            ("OCB1 encrypt: encrypt_to_vec vs encrypt_detached", {
                paired(
                    201,
                    || {
                        for _ in 0..calls {
                            std::hint::black_box(ocb.encrypt_detached(&[2; 16], &mut buf).unwrap());
                        }
                    },
                    || {
                        for _ in 0..calls {
                            std::hint::black_box(ocb.encrypt_to_vec(&[2; 16], &msg).unwrap());
                        }
                    },
                )
                .2
            }),
            ("OCB1 decrypt: decrypt_to_vec vs decrypt_inout_detached", {
                paired(
                    201,
                    || {
                        for _ in 0..calls {
                            let io = InOutBuf::new(ct, &mut out).unwrap();
                            ocb.decrypt_inout_detached(&n_ocb, b"", io, &tag).unwrap();
                            std::hint::black_box(&out);
                        }
                    },
                    || {
                        for _ in 0..calls {
                            std::hint::black_box(ocb.decrypt_to_vec(&[2; 16], &sealed).unwrap());
                        }
                    },
                )
                .2
            }),
            ("CWC encrypt: encrypt_to_vec vs encrypt_detached", {
                paired(
                    201,
                    || {
                        for _ in 0..calls {
                            std::hint::black_box(
                                cwc.encrypt_detached(&[2; 11], b"", &mut buf).unwrap(),
                            );
                        }
                    },
                    || {
                        for _ in 0..calls {
                            std::hint::black_box(cwc.encrypt_to_vec(&[2; 11], b"", &msg).unwrap());
                        }
                    },
                )
                .2
            }),
            ("CWC decrypt: decrypt_to_vec vs decrypt_inout", {
                let sealed = cwc.encrypt_to_vec(&[2; 11], b"", &msg).unwrap();
                let (ct, tag) = sealed.split_at(size);
                paired(
                    201,
                    || {
                        for _ in 0..calls {
                            let io = InOutBuf::new(ct, &mut out).unwrap();
                            cwc.decrypt_inout(&[2; 11], b"", io, tag).unwrap();
                            std::hint::black_box(&out);
                        }
                    },
                    || {
                        for _ in 0..calls {
                            std::hint::black_box(
                                cwc.decrypt_to_vec(&[2; 11], b"", &sealed).unwrap(),
                            );
                        }
                    },
                )
                .2
            }),
        ];
        for (what, r) in rows {
            println!(
                "{size:>8} B  {what}: Vec speed / in-place speed {:.3} (median of 201 paired samples)",
                1.0 / r
            );
        }
    }
}
