//! The back ends against FIPS-197 and the `aes` crate.
//!
//! Expected values come from FIPS-197 (Appendix A.1, C.1-C.3) or from the
//! `aes` crate with the definitions of the fused loops written out block
//! by block (`Z[i] = Z[i-1] xor L(ntz(i))` from `gf128::GrayOffsets`).

use cipher::array::Array;
use cipher::inout::InOutBuf;

use super::*;
use crate::arith::gf128::{GrayBatch, GrayOffsets, xor};
pub(crate) use crate::engine::testkit::{Reference, chain_ref, whiten_ref};

/// Both back ends where the CPU has them (AES-NI at least, else nothing).
pub(crate) fn levels() -> Vec<Level> {
    match detect() {
        None => vec![],
        Some(Level::AesNi) => vec![Level::AesNi],
        Some(Level::Vaes256) => vec![Level::AesNi, Level::Vaes256],
        Some(Level::Vaes512) => vec![Level::AesNi, Level::Vaes256, Level::Vaes512],
    }
}

/// The tier detected is the widest the CPU has by the standard library's
/// own detection (its `avx2` checks the OS's ymm state; its `vaes` and
/// `vpclmulqdq` are the CPUID bits, so the ymm state comes from `avx2`):
/// in particular `vaes256` on a CPU with VAES, VPCLMULQDQ and AVX2 but no
/// AVX-512 (AMD Zen 3, Intel client cores), where `cpufeatures` reported
/// no VAES and the tier never ran.
#[test]
fn detect_agrees_with_std() {
    use std::arch::is_x86_feature_detected as has;
    let aesni = has!("aes") && has!("sse2");
    let vaes256 = aesni && has!("avx2") && has!("pclmulqdq") && has!("vaes") && has!("vpclmulqdq");
    let vaes512 = vaes256 && has!("avx512f") && has!("avx512bw");
    let want = if vaes512 {
        Some(Level::Vaes512)
    } else if vaes256 {
        Some(Level::Vaes256)
    } else if aesni {
        Some(Level::AesNi)
    } else {
        None
    };
    assert_eq!(detect(), want);
}

fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s).expect("test vector hex")
}

fn block(s: &str) -> Block {
    unhex(s).try_into().expect("16 bytes")
}

/// FIPS-197 Appendix C: the example vectors of AES-128, -192 and -256.
#[test]
fn fips197_appendix_c() {
    let pt = block("00112233445566778899aabbccddeeff");
    let cases = [
        (
            "000102030405060708090a0b0c0d0e0f",
            "69c4e0d86a7b0430d8cdb78070b4c55a",
        ),
        (
            "000102030405060708090a0b0c0d0e0f1011121314151617",
            "dda97ca4864cdfe06eaf70a0ec0d7191",
        ),
        (
            "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
            "8ea2b7ca516745bfeafc49904b496089",
        ),
    ];
    for level in levels() {
        for (key, ct) in cases {
            let k = AesKey::with_level(&unhex(key), level).expect("key");
            assert_eq!(k.level(), level);
            let ct = block(ct);
            // 1 block, and the same block in every lane of longer runs
            // (full registers, masked tails).
            for n in [1usize, 2, 3, 4, 5, 31, 32, 33, 67] {
                let mut buf = vec![pt; n];
                k.ecb(Dir::Encrypt, Io::InPlace(&mut buf));
                assert!(buf.iter().all(|b| *b == ct), "{level:?} {key} n {n}");
                k.ecb(Dir::Decrypt, Io::InPlace(&mut buf));
                assert!(buf.iter().all(|b| *b == pt), "{level:?} {key} n {n}");
            }
        }
    }
}

/// FIPS-197 Appendix A.1: the last round key of the AES-128 expansion
/// example (w[40..43]), seen through the schedule directly.
#[test]
fn fips197_appendix_a1_last_round_key() {
    if detect().is_none() {
        return;
    }
    let k = AesKey::new(&unhex("2b7e151628aed2a6abf7158809cf4f3c")).expect("key");
    assert_eq!(
        k.enc.k.0[10],
        block("d014f9a8c9ee2589e13f0cc8b6630ca6"),
        "w[40..43]"
    );
    assert_eq!(k.dec.k.0[0], k.enc.k.0[10]);
    assert_eq!(k.dec.k.0[10], k.enc.k.0[0]);
    // A.3 (AES-256): w[56..59].
    let k = AesKey::new(&unhex(
        "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
    ))
    .expect("key");
    assert_eq!(k.enc.k.0[14], block("fe4890d1e6188d0b046df344706c631e"));
    // A.2 (AES-192): w[48..51].
    let k = AesKey::new(&unhex("8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b")).expect("key");
    assert_eq!(k.enc.k.0[12], block("e98ba06f448c773c8ecc720401002202"));
}

#[test]
fn bad_key_lengths_are_refused() {
    for len in [0usize, 1, 15, 17, 23, 25, 31, 33, 64] {
        assert!(AesKey::new(&vec![0u8; len]).is_none(), "len {len}");
    }
}

/// splitmix64: a small deterministic generator for keys and data (the
/// backend's unit tests share it: `ctr.rs`, CWC's `ctr_hash.rs`).
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub(crate) fn fill(&mut self, buf: &mut [u8]) {
        for b in buf {
            *b = self.next() as u8;
        }
    }
    pub(crate) fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut v = vec![0u8; n];
        self.fill(&mut v);
        v
    }
    pub(super) fn block(&mut self) -> Block {
        let mut b = [0u8; 16];
        self.fill(&mut b);
        b
    }
    fn blocks(&mut self, n: usize) -> Vec<Block> {
        (0..n).map(|_| self.block()).collect()
    }
}

/// Every back end the CPU has ([`levels`]) and every key size, each with
/// a fresh random key from `rng`: `f(rng, level, key, ours, reference)`,
/// the key on that back end and in the `aes` crate (`ctr.rs`'s tests
/// too).
pub(crate) fn each_key(
    rng: &mut Rng,
    mut f: impl FnMut(&mut Rng, Level, &[u8], &AesKey, &Reference),
) {
    for level in levels() {
        for key_len in [16usize, 24, 32] {
            let mut key = vec![0u8; key_len];
            rng.fill(&mut key);
            let ours = AesKey::with_level(&key, level).expect("key");
            f(rng, level, &key, &ours, &Reference::new(&key));
        }
    }
}

/// `Z[first + t] = gamma_{first+t} L xor r` for `t < n`, by the paper's
/// chain from `gamma_first L` (computed bit by bit).
fn gray_chain(l: &GrayOffsets, r: &Block, first: u64, n: usize) -> Vec<Block> {
    let mut z = xor(&l.gamma(first), r);
    let mut out = Vec::with_capacity(n);
    for t in 0..n {
        if t > 0 {
            z = l.next(&z, first + t as u64);
        }
        out.push(z);
    }
    out
}

/// The three ways of passing blocks, each checked against `expected`.
fn check_io(
    what: &str,
    input: &[Block],
    expected: &[Block],
    mut op: impl FnMut(Io<'_, '_>) -> Block,
    expected_sum: Block,
) {
    let mut buf = input.to_vec();
    let s = op(Io::InPlace(&mut buf));
    assert_eq!(buf, expected, "{what}: in place");
    assert_eq!(s, expected_sum, "{what}: in place, sum");
    let mut out = vec![[0u8; 16]; input.len()];
    let s = op(Io::B2b(input, &mut out));
    assert_eq!(out, expected, "{what}: buffer to buffer");
    assert_eq!(s, expected_sum, "{what}: buffer to buffer, sum");
    let mut out = vec![[0u8; 16]; input.len()];
    let inout = InOutBuf::new(
        Array::cast_slice_from_core(input),
        Array::cast_slice_from_core_mut(&mut out),
    )
    .expect("same length");
    let s = op(Io::InOut(inout));
    assert_eq!(out, expected, "{what}: inout");
    assert_eq!(s, expected_sum, "{what}: inout, sum");
}

fn xor_all(blocks: &[Block]) -> Block {
    blocks.iter().fold([0u8; 16], |a, b| xor(&a, b))
}

/// Every entry point, every key size, both directions, both back ends,
/// 0..300 blocks, against the `aes` crate and the definitions.
#[test]
fn every_entry_point_matches_the_aes_crate() {
    let mut rng = Rng(0x5eed);
    each_key(&mut rng, |rng, level, key, ours, reference| {
        let l = rng.block();
        let batch = GrayBatch::new(GrayOffsets::new(&l));
        let table = GrayTable::new(&batch);
        let offs = GrayOffsets::new(&l);
        for n in 0..300usize {
            let what = format!("{level:?} AES-{} n {n}", key.len() * 8);
            let input = rng.blocks(n);
            for dir in [Dir::Encrypt, Dir::Decrypt] {
                // ECB.
                let ecb: Vec<Block> = input.iter().map(|b| reference.apply(dir, b)).collect();
                check_io(
                    &format!("{what} ecb {dir:?}"),
                    &input,
                    &ecb,
                    |io| {
                        ours.ecb(dir, io);
                        [0; 16]
                    },
                    [0; 16],
                );
                // Whitening with the caller's offsets and with Gray
                // code from a start that moves around the group edges.
                let slice_z = rng.blocks(n);
                let first = match n % 5 {
                    0 => 1,
                    1 => rng.next() % 200,
                    2 => 64 * (rng.next() % 5) + 60 + rng.next() % 8,
                    3 => (1u64 << 40) - 3,
                    _ => rng.next() >> 4,
                };
                let r = if n % 3 == 0 { [0; 16] } else { rng.block() };
                let gray_z = gray_chain(&offs, &r, first, n);
                for (src, z) in [("slice", &slice_z), ("gray", &gray_z)] {
                    let (expected, plain_sum) = whiten_ref(reference, dir, &input, z);
                    let offsets = || match src {
                        "slice" => Offsets::Slice(&slice_z),
                        _ => Offsets::Gray {
                            table: &table,
                            first,
                            r: &r,
                        },
                    };
                    for sum in [false, true] {
                        let want = if sum { plain_sum } else { [0; 16] };
                        check_io(
                            &format!("{what} whiten {src} {dir:?} sum {sum} first {first}"),
                            &input,
                            &expected,
                            |io| ours.whiten(dir, offsets(), sum, io),
                            want,
                        );
                        // With an extra block enciphered alongside.
                        let x = rng.block();
                        let ex = reference.apply(Dir::Encrypt, &x);
                        check_io(
                            &format!("{what} whiten_extra {src} {dir:?} sum {sum}"),
                            &input,
                            &expected,
                            |io| {
                                let mut e = x;
                                let s = ours.whiten_extra(dir, offsets(), sum, io, &mut e);
                                assert_eq!(e, ex, "{what} extra {src} {dir:?}");
                                s
                            },
                            want,
                        );
                    }
                    if dir == Dir::Encrypt {
                        let sigma = input.iter().zip(z.iter()).fold([0u8; 16], |a, (b, z)| {
                            xor(&a, &reference.apply(dir, &xor(b, z)))
                        });
                        assert_eq!(
                            ours.sigma(offsets(), &input),
                            sigma,
                            "{what} sigma {src} first {first}"
                        );
                    }
                }
            }
        }
    });
}

/// OCB 1.0's blocks from index 1 with `Y[m]` alongside
/// ([`AesKey::ocb_blocks`]: the short AES-NI function under 8 blocks, the
/// lane-generic one up to [`OCB_MID`] on every tier (`kernel::ocb_mid`:
/// every length of batches, 8 ..= 63 blocks), the job past it) against the `aes`
/// crate and the paper's offset chain: every key size, both directions,
/// both back ends, 0..=140 blocks.
#[test]
fn ocb_blocks_match_the_definition() {
    let mut rng = Rng(0x0cb1);
    each_key(&mut rng, |rng, level, key, ours, reference| {
        let l = rng.block();
        let table = GrayTable::new(&GrayBatch::new(GrayOffsets::new(&l)));
        let offs = GrayOffsets::new(&l);
        for n in 0..=140usize {
            let input = rng.blocks(n);
            let r = rng.block();
            let z = gray_chain(&offs, &r, 1, n);
            for dir in [Dir::Encrypt, Dir::Decrypt] {
                let what = format!("{level:?} AES-{} n {n} ocb_blocks {dir:?}", key.len() * 8);
                let (expected, plain_sum) = whiten_ref(reference, dir, &input, &z);
                let x = rng.block();
                let ex = reference.apply(Dir::Encrypt, &x);
                check_io(
                    &what,
                    &input,
                    &expected,
                    |io| {
                        let mut y = x;
                        let s = ours.ocb_blocks(dir, &table, &r, io, &mut y);
                        assert_eq!(y, ex, "{what}: Y[m]");
                        s
                    },
                    plain_sum,
                );
            }
        }
    });
}

/// Mismatched lengths: the shortest wins, nothing else is touched, and
/// nothing panics.
#[test]
fn lengths_take_the_minimum() {
    let Some(k) = AesKey::new(&[7u8; 16]) else {
        return;
    };
    let input = vec![[1u8; 16]; 40];
    let mut out = vec![[0u8; 16]; 37];
    k.ecb(Dir::Encrypt, Io::B2b(&input, &mut out));
    let mut expected = input[..37].to_vec();
    k.ecb(Dir::Encrypt, Io::InPlace(&mut expected));
    assert_eq!(out, expected);
    let z = vec![[2u8; 16]; 5];
    let mut buf = vec![[3u8; 16]; 9];
    k.whiten(
        Dir::Encrypt,
        Offsets::Slice(&z),
        true,
        Io::InPlace(&mut buf),
    );
    assert!(buf[5..].iter().all(|b| *b == [3u8; 16]));
    assert_eq!(k.sigma(Offsets::Slice(&z[..0]), &input), [0; 16]);
    // One block, with and without an extra block, and the extra block
    // alone (no blocks to whiten).
    let x = [9u8; 16];
    let mut e = x;
    k.whiten_extra(
        Dir::Decrypt,
        Offsets::Slice(&z),
        false,
        Io::InPlace(&mut []),
        &mut e,
    );
    let mut want = [x];
    k.ecb(Dir::Encrypt, Io::InPlace(&mut want));
    assert_eq!(e, want[0]);
    assert_eq!(k.encrypt_block(&x), want[0]);
}

/// XEX data units with everything made in the kernel (the nonces, their
/// `E_K(N)`, the deltas), against the definition block by block
/// (`E_K(N_s) x^(j+1)` by repeated BE doubling, the `aes` crate): every
/// key size, both directions, unit sizes 4..=128 blocks (and ones the
/// kernel refuses), 1..=70 units (past a call's 64), unit numbers whose
/// low half carries into the high one.
#[test]
fn xex_units_match_the_definition() {
    use crate::arith::gf128::double_be;
    let mut rng = Rng(0x7e7);
    each_key(&mut rng, |rng, level, key, ours, reference| {
        for m in [1usize, 3, 4, 8, 12, 16, 32, 36, 64, 100, 128] {
            for units in [1usize, 2, 9, 70] {
                if m * units > 2048 && units != 70 || m * units > 70 * 32 {
                    continue;
                }
                let input = rng.blocks(m * units);
                let first: u128 = match units {
                    2 => (u128::from(rng.next()) << 64) | u128::from(u64::MAX - 1),
                    9 => u128::MAX - 8,
                    _ => (u128::from(rng.next()) << 64) | u128::from(rng.next()),
                };
                for dir in [Dir::Encrypt, Dir::Decrypt] {
                    let mut expected = input.clone();
                    let done = XEX_UNITS.min(units);
                    for (s, unit) in expected.chunks_mut(m).take(done).enumerate() {
                        let n = (first + s as u128).to_be_bytes();
                        // Δ of block j: E_K(N) x^(j+1).
                        let mut z = double_be(&reference.apply(Dir::Encrypt, &n));
                        for b in unit.iter_mut() {
                            *b = xor(&reference.apply(dir, &xor(b, &z)), &z);
                            z = double_be(&z);
                        }
                    }
                    let mut buf = input.clone();
                    let ok = ours.xex_units(dir, first, m, Io::InPlace(&mut buf));
                    let what = format!(
                        "{level:?} AES-{} m {m} units {units} {dir:?}",
                        key.len() * 8
                    );
                    assert_eq!(ok, level >= Level::Vaes256 && m.is_multiple_of(4), "{what}");
                    if ok {
                        assert_eq!(buf, expected, "{what}");
                    } else {
                        assert_eq!(buf, input, "{what}: untouched");
                    }
                }
            }
        }
    });
}

/// XEX's whole-call kernel at every unit count 1..=70 (past a call's 64;
/// the table of `E_K(N)` is read only in the groups of four the kernel
/// wrote), against the definition (`E_K(N_s) x^(j+1)` by repeated BE
/// doubling, the `aes` crate): every key size, units of 4 blocks (the
/// general offsets), 32 (a batch per unit) and 64, unit numbers across
/// the 2^64 carry and up to 2^128 - 1, both directions, in place and
/// buffer to buffer.
#[test]
fn xex_units_every_unit_count() {
    use crate::arith::gf128::double_be;
    let mut rng = Rng(0x7e8);
    for (level, key_len) in levels()
        .into_iter()
        .filter(|l| *l >= Level::Vaes256)
        .flat_map(|l| [16usize, 24, 32].map(|k| (l, k)))
    {
        let mut key = vec![0u8; key_len];
        rng.fill(&mut key);
        let ours = AesKey::with_level(&key, level).expect("key");
        let reference = Reference::new(&key);
        for m in [4usize, 32, 64] {
            for units in 1..=70usize {
                let input = rng.blocks(m * units);
                let first = if units % 2 == 0 {
                    (1u128 << 64) - 1 - u128::from(rng.next() % 70)
                } else {
                    u128::MAX - 69 + u128::from(rng.next() % (71 - units as u64))
                };
                for dir in [Dir::Encrypt, Dir::Decrypt] {
                    let mut expected = input.clone();
                    for (s, unit) in expected.chunks_mut(m).take(XEX_UNITS).enumerate() {
                        let n = (first + s as u128).to_be_bytes();
                        let mut z = double_be(&reference.apply(Dir::Encrypt, &n));
                        for b in unit.iter_mut() {
                            *b = xor(&reference.apply(dir, &xor(b, &z)), &z);
                            z = double_be(&z);
                        }
                    }
                    let what = format!("{level:?} AES-{} m {m} units {units} {dir:?}", key_len * 8);
                    let mut buf = input.clone();
                    assert!(ours.xex_units(dir, first, m, Io::InPlace(&mut buf)));
                    assert_eq!(buf, expected, "{what}, in place");
                    let mut out = vec![[0u8; 16]; input.len()];
                    assert!(ours.xex_units(dir, first, m, Io::B2b(&input, &mut out)));
                    let done = XEX_UNITS.min(units) * m;
                    assert_eq!(out[..done], expected[..done], "{what}, buffer to buffer");
                    assert!(out[done..].iter().all(|b| *b == [0; 16]), "{what}: past 64");
                }
            }
        }
    }
}

/// The unit-start doubling of XEX's kernel by carry-less multiplies
/// (`xex_units::times_x_lanes`, on zmm and ymm) equals the one by shifts
/// (`vaes::times_x_lanes`) and the definition (`d x^(e + l)` by repeated
/// BE doubling) on random and all-ones blocks.
#[test]
fn times_x_lanes_by_clmul() {
    use crate::arith::gf128::double_be;
    use core::arch::x86_64::*;
    use lane::{Lane, Ymm, Zmm};
    let top = detect();
    let mut rng = Rng(0x7e9);
    for t in 0..200 {
        let d = if t == 0 { [0xff; 16] } else { rng.block() };
        // Lanes as 128-bit integers: the block's bytes reversed.
        let mut rev = d;
        rev.reverse();
        let mut want = [[0u8; 16]; 8];
        let mut w = d;
        for g in want.iter_mut() {
            w = double_be(&w);
            *g = w;
            g.reverse();
        }
        let mut got = [[0u8; 16]; 8];
        // SAFETY: each block runs where the CPU has the lane's tier (its
        // functions' features); the stores write inside `got`.
        unsafe {
            if top == Some(Level::Vaes512) {
                let v: Zmm = Zmm(_mm512_broadcast_i32x4(schedule::load(&rev)));
                let poly: Zmm = Zmm(_mm512_set1_epi64(0x87));
                let a = xex_units::times_x_lanes(v, 1, poly);
                let b = xex_units::times_x_lanes(v, 5, poly);
                assert_eq!(
                    schedule::store(_mm512_extracti32x4_epi32::<3>(a.0)),
                    schedule::store(_mm512_extracti32x4_epi32::<3>(vaes::times_x_lanes::<1>(
                        v.0, poly.0
                    ))),
                );
                Zmm::store(got.as_mut_ptr(), a);
                Zmm::store(got[4..].as_mut_ptr(), b);
                assert_eq!(got, want, "zmm, {d:02x?}");
            }
            if top >= Some(Level::Vaes256) {
                let v = Ymm::broadcast(schedule::load(&rev));
                let poly = Ymm::broadcast(_mm_set1_epi64x(0x87));
                for (e, g) in got.chunks_exact_mut(2).enumerate() {
                    let x: Ymm = xex_units::times_x_lanes(v, 1 + 2 * e, poly);
                    Ymm::store(g.as_mut_ptr(), x);
                }
                assert_eq!(got, want, "ymm, {d:02x?}");
            }
        }
    }
}

/// `first + t` times `r0` as a block (the reference's offsets, one u128
/// multiplication per block).
fn times_r0(r0: u128, first: u128, t: usize) -> u128 {
    first.wrapping_add(t as u128).wrapping_mul(r0)
}

/// A start index for the Gligor–Donescu kernels: 1, small, near 2^64 and
/// 2^128 (the offsets' carries), or random.
fn gd_first(rng: &mut Rng, n: usize) -> u128 {
    match n % 5 {
        0 => 1,
        1 => u128::from(rng.next() % 300),
        2 => (1u128 << 64) - u128::from(rng.next() % 40),
        3 => u128::MAX - u128::from(rng.next() % 300),
        _ => u128::from(rng.next()) << 64 | u128::from(rng.next()),
    }
}

/// XECB's sum and XCBC decryption (the Gligor–Donescu kernels) against
/// their definitions with the `aes` crate, block by block: every key size,
/// both back ends, 0..300 blocks, random keys, r0, start indices and
/// inputs, with and without XECB's separate last block and XCBC's check
/// block.
#[test]
fn gligor_donescu_kernels_match_the_aes_crate() {
    let mut rng = Rng(0x9d0);
    each_key(&mut rng, |rng, level, key, ours, reference| {
        assert_eq!(
            ours.decrypt_block(&ours.encrypt_block(&key[..16].try_into().unwrap())),
            key[..16]
        );
        for n in 0..300usize {
            let what = format!("{level:?} AES-{} n {n}", key.len() * 8);
            let input = rng.blocks(n);
            // r0: random, and now and then one with a carry in every
            // addition (all ones) or a single bit.
            let r0 = match n % 7 {
                0 => u128::MAX,
                1 => 1u128 << (rng.next() % 128),
                _ => u128::from(rng.next()) << 64 | u128::from(rng.next()),
            };
            let first = gd_first(rng, n);
            // XECB: the sum over `input`, then `input` less its last
            // block with that block passed apart.
            let want = input.iter().enumerate().fold([0u8; 16], |a, (t, x)| {
                let v = u128::from_be_bytes(*x).wrapping_add(times_r0(r0, first, t));
                xor(&a, &reference.apply(Dir::Encrypt, &v.to_be_bytes()))
            });
            assert_eq!(
                ours.xecb_sum(r0, first, &input, None),
                want,
                "{what} xecb first {first}"
            );
            if let Some((last, body)) = input.split_last() {
                assert_eq!(
                    ours.xecb_sum(r0, first, body, Some(last)),
                    want,
                    "{what} xecb, last apart, first {first}"
                );
            }
            // XCBC decryption.
            let prev = rng.block();
            let mut z_prev = prev;
            let mut plain = Vec::with_capacity(n);
            for (t, y) in input.iter().enumerate() {
                let z = u128::from_be_bytes(*y)
                    .wrapping_sub(times_r0(r0, first, t))
                    .to_be_bytes();
                plain.push(xor(&reference.apply(Dir::Decrypt, &z), &z_prev));
                z_prev = z;
            }
            let mut out = vec![[0u8; 16]; n];
            let sum = ours.xcbc_decrypt(r0, first, &prev, &input, &mut out, None);
            assert_eq!(out, plain, "{what} xcbc first {first}");
            assert_eq!(sum, xor_all(&plain), "{what} xcbc sum");
            if n > 0 {
                // The last block as the check block: not stored, not
                // summed; `out` one block shorter (and a guard block
                // after it that must stay untouched).
                let mut out = vec![[0xeeu8; 16]; n];
                let mut check = [0u8; 16];
                let sum = ours.xcbc_decrypt(
                    r0,
                    first,
                    &prev,
                    &input,
                    &mut out[..n - 1],
                    Some(&mut check),
                );
                assert_eq!(out[..n - 1], plain[..n - 1], "{what} xcbc+check");
                assert_eq!(out[n - 1], [0xee; 16], "{what} xcbc+check: guard");
                assert_eq!(check, plain[n - 1], "{what} xcbc check block");
                assert_eq!(sum, xor_all(&plain[..n - 1]), "{what} xcbc+check sum");
            }
        }
    });
}

/// `b x^j` (LE) by `j` doublings.
fn times_x_le(b: &Block, j: usize) -> Block {
    let mut z = *b;
    for _ in 0..j {
        z = crate::arith::gf128::double_le(&z);
    }
    z
}

/// `a b` in GF(2^128), LE: `gf128::mul_be` on the byte-reversed blocks
/// (the LE value of a block is the BE value of its reversal).
fn mul_le_ref(a: &Block, b: &Block) -> Block {
    let rev = |x: &Block| {
        let mut r = *x;
        r.reverse();
        r
    };
    rev(&crate::arith::gf128::mul_be(&rev(a), &rev(b)))
}

/// EME's middle by its definition, after a first pass whose outputs are
/// `ppp`, with `g` its block cipher: the unit as the last pass takes it
/// (`CCC_1 xor M, PPP_2, ...`) and M.
fn middle_ref(
    ppp: &[Block],
    tweak: &Block,
    s_m: &Block,
    g: impl Fn(&Block) -> Block,
) -> (Vec<Block>, Block) {
    let sp = xor_all(ppp);
    let mp = xor(&sp, tweak);
    let mc = g(&mp);
    let m = xor(&mp, &mc);
    let others = xor(&xor(&sp, &ppp[0]), &mul_le_ref(&m, s_m));
    let ccc1 = xor(&xor(&mc, tweak), &others);
    let mut unit = ppp.to_vec();
    unit[0] = xor(&ccc1, &m);
    (unit, m)
}

/// EME's two passes with E_K (`wide_first`, `wide_last`, and the first
/// with the middle, `wide_first_mid`) and one block of E_K^-1
/// (`decrypt_block`) against the `aes` crate and the definitions (`M x^j`
/// by repeated LE doubling, the middle's product by `gf128::mul_be`):
/// every key size, both directions, both back ends, 0..300 blocks, the
/// three ways of passing blocks.
#[test]
fn wide_passes_match_the_definition() {
    let mut rng = Rng(0x3e3e);
    each_key(&mut rng, |rng, level, key, ours, reference| {
        for n in 0..300usize {
            let what = format!("{level:?} AES-{} n {n}", key.len() * 8);
            let input = rng.blocks(n);
            let l = rng.blocks(n);
            let m = rng.block();
            for dir in [Dir::Encrypt, Dir::Decrypt] {
                let first: Vec<Block> = input
                    .iter()
                    .zip(&l)
                    .map(|(b, l)| reference.apply(dir, &xor(b, l)))
                    .collect();
                check_io(
                    &format!("{what} wide_first {dir:?}"),
                    &input,
                    &first,
                    |io| ours.wide_first(dir, &l, io),
                    xor_all(&first),
                );
                let (tweak, s_m) = (rng.block(), rng.block());
                let mut unit = input.clone();
                let got = ours.wide_first_mid(dir, &l, &tweak, &s_m, &mut unit);
                if n == 0 {
                    assert_eq!(got, None, "{what} first_mid, empty");
                } else {
                    let (want, m) = middle_ref(&first, &tweak, &s_m, |b| reference.apply(dir, b));
                    assert_eq!(got, Some(m), "{what} first_mid {dir:?}: M");
                    assert_eq!(unit, want, "{what} first_mid {dir:?}: unit");
                    let mut short = input.clone();
                    let (lt, _) = l.split_at(n - 1);
                    assert_eq!(
                        ours.wide_first_mid(dir, lt, &tweak, &s_m, &mut short),
                        None,
                        "{what} first_mid, table too short"
                    );
                    assert_eq!(short, input, "{what} first_mid, untouched");
                }
                let last: Vec<Block> = input
                    .iter()
                    .zip(&l)
                    .enumerate()
                    .map(|(j, (b, l))| xor(&reference.apply(dir, &xor(b, &times_x_le(&m, j))), l))
                    .collect();
                check_io(
                    &format!("{what} wide_last {dir:?}"),
                    &input,
                    &last,
                    |io| {
                        ours.wide_last(dir, &m, &l, io);
                        [0; 16]
                    },
                    [0; 16],
                );
            }
            if let Some(b) = input.first() {
                assert_eq!(
                    ours.decrypt_block(b),
                    reference.apply(Dir::Decrypt, b),
                    "{what} decrypt_block"
                );
            }
        }
        // A table longer than the blocks: only the blocks count.
        let input = rng.blocks(40);
        let l = rng.blocks(50);
        let mut a = input.clone();
        let s = ours.wide_first(Dir::Encrypt, &l, Io::InPlace(&mut a));
        let mut b = input.clone();
        let t = ours.wide_first(Dir::Encrypt, &l[..40], Io::InPlace(&mut b));
        assert_eq!((a, s), (b, t), "{level:?} longer table");
        // A shorter table: the blocks past it are untouched.
        let mut c = input.clone();
        ours.wide_last(Dir::Decrypt, &[1; 16], &l[..33], Io::InPlace(&mut c));
        assert_eq!(c[33..], input[33..], "{level:?} shorter table");
    });
}

/// StE over XEX (the definitions of `docs/spec/disk.md`, with the `aes`
/// crate): `F(x) = E(sw(x) xor d) xor d`, `F^-1(c) = sw(E^-1(c xor d) xor
/// d)`, `sw` exchanging K and H.
struct SteRef<'a> {
    aes: &'a Reference,
    k: Block,
    h: Block,
}

impl SteRef<'_> {
    fn sw(&self, x: &Block) -> Block {
        if *x == self.k {
            self.h
        } else if *x == self.h {
            self.k
        } else {
            *x
        }
    }
    fn f(&self, dir: Dir, d: &Block, x: &Block) -> Block {
        match dir {
            Dir::Encrypt => xor(&self.aes.apply(dir, &xor(&self.sw(x), d)), d),
            Dir::Decrypt => self.sw(&xor(&self.aes.apply(dir, &xor(x, d)), d)),
        }
    }
}

/// EtE's passes (`SteXex`) against the definitions, with inputs chosen so
/// that every swap point meets K or H in some blocks: both back ends, both
/// directions, 0..300 blocks, random K, H and deltas (and K = H once).
#[test]
fn ete_passes_match_the_definition() {
    let mut rng = Rng(0xe7e);
    for level in levels() {
        let mut key = [0u8; 16];
        rng.fill(&mut key);
        let ours = AesKey::with_level(&key, level).expect("key");
        let aes = Reference::new(&key);
        assert!(
            SteXex::new(
                &AesKey::new(&[0; 32]).expect("key"),
                &[0; 16],
                &[0; 16],
                &[0; 16],
                &[0; 16]
            )
            .is_none(),
            "AES-128 only"
        );
        for n in 0..300usize {
            let what = format!("{level:?} n {n}");
            let k = rng.block();
            let h = if n == 7 { k } else { rng.block() };
            let (de, dw) = (rng.block(), rng.block());
            let ste = SteXex::new(&ours, &k, &h, &de, &dw).expect("AES-128");
            let r = SteRef { aes: &aes, k, h };
            let l = rng.blocks(n);
            let m = rng.block();
            let mx: Vec<Block> = (0..n).map(|j| times_x_le(&m, j)).collect();
            for dir in [Dir::Encrypt, Dir::Decrypt] {
                let inv = match dir {
                    Dir::Encrypt => Dir::Decrypt,
                    Dir::Decrypt => Dir::Encrypt,
                };
                // Blocks j = 5q + 3 meet K or H (alternately) at one of the
                // pass's swap points (in turn).
                let craft = |last: bool, j: usize, b: Block| -> Block {
                    if j % 5 != 3 {
                        return b;
                    }
                    let t = if (j / 5).is_multiple_of(2) { k } else { h };
                    let point = (j / 10) % 2;
                    match (dir, last, point) {
                        // F_wide(F_ecb(P) xor L): at P, or at F_ecb(P) xor L.
                        (Dir::Encrypt, false, 0) => t,
                        (Dir::Encrypt, false, _) => r.f(inv, &de, &xor(&t, &l[j])),
                        // F_wide(C xor M x^j) xor L: at C xor M x^j.
                        (Dir::Encrypt, true, _) => xor(&t, &mx[j]),
                        // F_wide^-1(C xor L): after the inner E^-1.
                        (Dir::Decrypt, false, _) => {
                            xor(&xor(&aes.apply(inv, &xor(&t, &dw)), &dw), &l[j])
                        }
                        // F_ecb^-1(F_wide^-1(C xor M x^j) xor L): after each
                        // inner E^-1.
                        (Dir::Decrypt, true, 0) => {
                            xor(&xor(&aes.apply(inv, &xor(&t, &dw)), &dw), &mx[j])
                        }
                        (Dir::Decrypt, true, _) => {
                            let u = xor(&aes.apply(inv, &xor(&t, &de)), &de);
                            xor(&r.f(inv, &dw, &xor(&u, &l[j])), &mx[j])
                        }
                    }
                };
                for last in [false, true] {
                    let input: Vec<Block> = (0..n).map(|j| craft(last, j, rng.block())).collect();
                    let expected: Vec<Block> = input
                        .iter()
                        .enumerate()
                        .map(|(j, b)| match (dir, last) {
                            (Dir::Encrypt, false) => r.f(dir, &dw, &xor(&r.f(dir, &de, b), &l[j])),
                            (Dir::Decrypt, false) => r.f(dir, &dw, &xor(b, &l[j])),
                            (Dir::Encrypt, true) => xor(&r.f(dir, &dw, &xor(b, &mx[j])), &l[j]),
                            (Dir::Decrypt, true) => {
                                r.f(dir, &de, &xor(&r.f(dir, &dw, &xor(b, &mx[j])), &l[j]))
                            }
                        })
                        .collect();
                    if !last && n > 0 {
                        let (tweak, s_m) = (rng.block(), rng.block());
                        let mut unit = input.clone();
                        let got = ste.first_mid(dir, &l, &tweak, &s_m, &mut unit);
                        let (want, mm) = middle_ref(&expected, &tweak, &s_m, |b| r.f(dir, &dw, b));
                        assert_eq!(got, Some(mm), "{what} ete first_mid {dir:?}: M");
                        assert_eq!(unit, want, "{what} ete first_mid {dir:?}: unit");
                        // The middle's block at K and at H (through the swap).
                        for hit in [k, h] {
                            let (mut unit, ppp) = (input.clone(), &expected);
                            // MP = SP xor T = hit, and for deciphering the
                            // swap after the inner E^-1: MP = E(hit ^ dw) ^ dw.
                            let mp = match dir {
                                Dir::Encrypt => hit,
                                Dir::Decrypt => xor(&aes.apply(inv, &xor(&hit, &dw)), &dw),
                            };
                            let tweak = xor(&xor_all(ppp), &mp);
                            let got = ste.first_mid(dir, &l, &tweak, &s_m, &mut unit);
                            let (want, mm) = middle_ref(ppp, &tweak, &s_m, |b| r.f(dir, &dw, b));
                            assert_eq!(got, Some(mm), "{what} ete first_mid at K/H {dir:?}");
                            assert_eq!(unit, want, "{what} ete first_mid at K/H {dir:?}");
                        }
                    }
                    let sum = if last { [0; 16] } else { xor_all(&expected) };
                    check_io(
                        &format!("{what} ete last {last} {dir:?}"),
                        &input,
                        &expected,
                        |io| {
                            if last {
                                ste.last(dir, &m, &l, io);
                                [0; 16]
                            } else {
                                ste.first(dir, &l, io)
                            }
                        },
                        sum,
                    );
                }
                // One block of F_wide / F_wide^-1, at K, at H and at random.
                let hit = xor(&aes.apply(inv, &xor(&k, &dw)), &dw);
                for b in [k, h, hit, rng.block()] {
                    assert_eq!(
                        ste.wide_block(dir, &b),
                        r.f(dir, &dw, &b),
                        "{what} wide_block {dir:?}"
                    );
                }
            }
        }
    }
}

/// pXCBC's chain kernel (`xcbc_strided`) against [`chain_ref`](crate::engine::testkit::chain_ref): every
/// tier with the kernel (and none on the others), every key size, 1..=64
/// chains, 0..18 rounds with and without the check round, a head and a
/// tail lane taken apart, z0 made in the kernel (a key of the same size)
/// or by a key of another size or carried in, offsets with carries;
/// outputs of other chains and the gaps between untouched.
#[test]
fn xcbc_strided_matches_the_aes_crate() {
    let mut rng = Rng(0x5c4a);
    for (level, key_len) in levels()
        .into_iter()
        .flat_map(|l| [16usize, 24, 32].map(|k| (l, k)))
    {
        let mut key = vec![0u8; key_len];
        rng.fill(&mut key);
        let ours = AesKey::with_level(&key, level).expect("key");
        if !ours.has_chains() {
            println!("{level:?}: no chain kernel, nothing to check");
            assert!(!ours.xcbc_strided(
                &mut Chains {
                    r0: 1,
                    first: 1,
                    n: 1,
                    check: false,
                    z: &mut [[0; 16]; CHAIN_BATCH],
                    sums: &mut [[0; 16]; CHAIN_BATCH],
                    z0: None,
                },
                ChainIo {
                    src: &[[0; 16]],
                    src_stride: 1,
                    head: None,
                    tail: None,
                    dst: &mut [[0; 16]],
                    dst_stride: 1,
                    lanes: 1,
                }
            ));
            continue;
        }
        let e = Reference::new(&key);
        let other_len = [24usize, 32, 16][key_len / 8 - 2];
        let mut k2 = vec![0u8; key_len];
        let mut k3 = vec![0u8; other_len];
        rng.fill(&mut k2);
        rng.fill(&mut k3);
        let (same, other) = (
            AesKey::with_level(&k2, level).expect("key"),
            AesKey::with_level(&k3, level).expect("key"),
        );
        let (same_ref, other_ref) = (Reference::new(&k2), Reference::new(&k3));
        for lanes in [1usize, 2, 3, 4, 5, 8, 9, 15, 16, 17, 31, 33, 48, 63, 64] {
            for case in 0..8usize {
                let n = [0usize, 1, 2, 5, 16, 17, 3, 9][(case + lanes) % 8];
                let check = case % 2 == 0 || n == 0;
                let (head, tail) = (case % 4 == 1, case % 3 == 2);
                let r0 = match case % 3 {
                    0 => u128::MAX - 3,
                    _ => u128::from(rng.next()) << 64 | u128::from(rng.next()),
                };
                let first = gd_first(&mut rng, case);
                let c = match case % 4 {
                    0 => u128::MAX - 5,
                    _ => u128::from(rng.next()) << 64 | u128::from(rng.next()),
                };
                let z0 = [None, Some((&same, &same_ref)), Some((&other, &other_ref))][case % 3];
                let what = format!(
                    "{level:?} AES-{} lanes {lanes} case {case} n {n}",
                    key_len * 8
                );
                let (src_stride, dst_stride) = (n + 2, n + usize::from(check) + 1);
                let src = rng.blocks(src_stride * lanes + n);
                let head_x = rng.blocks(n);
                let tail_x = rng.blocks(n);
                let mut z: [Block; CHAIN_BATCH] = core::array::from_fn(|_| rng.block());
                let mut sums: [Block; CHAIN_BATCH] = core::array::from_fn(|_| rng.block());
                let (z_in, sums_in) = (z, sums);
                let mut dst = vec![[0xa5u8; 16]; dst_stride * lanes + 1];
                let mut want = dst.clone();
                let mut states = Vec::new();
                let lo = usize::from(head);
                let hi = if tail && lanes > lo { lanes - 1 } else { lanes };
                for l in 0..lanes {
                    let xs = if head && l == 0 {
                        &head_x[..]
                    } else if l >= hi {
                        &tail_x[..]
                    } else {
                        &src[(l - lo) * src_stride..][..n]
                    };
                    let fresh = z0.map(|(_, r)| (r, c.wrapping_add(l as u128)));
                    let r0l = r0.wrapping_add(l as u128);
                    let start = (z_in[l], sums_in[l]);
                    let (ys, zl, sl) = chain_ref(&e, fresh, start, r0l, first, xs, check);
                    want[l * dst_stride..][..ys.len()].copy_from_slice(&ys);
                    states.push((zl, sl));
                }
                let mut chains = Chains {
                    r0,
                    first,
                    n,
                    check,
                    z: &mut z,
                    sums: &mut sums,
                    z0: z0.map(|(k, _)| (k, c)),
                };
                let io = ChainIo {
                    src: &src,
                    src_stride,
                    head: head.then_some(&head_x[..]),
                    tail: tail.then_some(&tail_x[..]),
                    dst: &mut dst,
                    dst_stride,
                    lanes,
                };
                assert!(ours.xcbc_strided(&mut chains, io));
                assert_eq!(dst, want, "{what} outputs");
                for (l, (zl, sl)) in states.iter().enumerate() {
                    assert_eq!(z[l], *zl, "{what} z of chain {l}");
                    assert_eq!(sums[l], *sl, "{what} Σ of chain {l}");
                }
            }
        }
    }
}
