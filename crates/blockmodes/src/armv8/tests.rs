//! The ARMv8 kernels against the `aes` crate and a block-at-a-time model
//! (every shape, every length up to three batches and past a Gray-code
//! group, every key size). Run under `qemu-aarch64 -cpu max` in CI.

use super::*;
use crate::arith::gf128::{GrayBatch, GrayOffsets, xor};
use crate::engine::testkit::{Reference, chain_ref, ctr_reference, whiten_ref};

fn blocks(n: usize, seed: u8) -> Vec<Block> {
    (0..n)
        .map(|i| core::array::from_fn(|j| (i * 31 + j * 7) as u8 ^ seed))
        .collect()
}

/// `E_K` and `E_K^-1` of the `aes` crate for the key bytes `key`
/// (`crate::engine::testkit::Reference`).
fn model(key: &[u8]) -> (impl Fn(&Block) -> Block, impl Fn(&Block) -> Block) {
    let (e, d) = (Reference::new(key), Reference::new(key));
    (
        move |b: &Block| e.apply(Dir::Encrypt, b),
        move |b: &Block| d.apply(Dir::Decrypt, b),
    )
}

#[test]
fn fips197_vectors() {
    if !detect() {
        return;
    }
    // FIPS-197 appendix C: plaintext 00112233..ff, key 000102..
    let pt: Block = core::array::from_fn(|i| (i as u8) * 0x11);
    let key: Vec<u8> = (0..32).collect();
    for (len, ct) in [
        (16, "69c4e0d86a7b0430d8cdb78070b4c55a"),
        (24, "dda97ca4864cdfe06eaf70a0ec0d7191"),
        (32, "8ea2b7ca516745bfeafc49904b496089"),
    ] {
        let k = AesKey::new(&key[..len]).unwrap();
        let c = k.encrypt_block(&pt);
        let hex: String = c.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, ct, "AES-{}", 8 * len);
        assert_eq!(k.decrypt_block(&c), pt);
    }
}

#[test]
fn every_shape_matches_model() {
    if !detect() {
        return;
    }
    let lens: Vec<usize> = (0..=25).chain([63, 64, 65, 127, 128, 129, 200]).collect();
    for key_len in [16, 24, 32] {
        let key: Vec<u8> = (0..key_len as u8)
            .map(|b| b.wrapping_mul(37) ^ 0x5c)
            .collect();
        let k = AesKey::new(&key).unwrap();
        let (e, _) = model(&key);
        let aes = Reference::new(&key);
        let l: Block = [0x42; 16];
        let table = GrayTable::new(&GrayBatch::new(GrayOffsets::new(&l)));
        let r: Block = [0x17; 16];
        for &n in &lens {
            let input = blocks(n, n as u8);
            let zs = blocks(n, 0xa5);
            // ECB both ways.
            let mut out = input.clone();
            k.ecb(Dir::Encrypt, Io::InPlace(&mut out));
            assert_eq!(out, input.iter().map(&e).collect::<Vec<_>>(), "ecb n={n}");
            let mut back = vec![[0u8; 16]; n];
            k.ecb(Dir::Decrypt, Io::B2b(&out, &mut back));
            assert_eq!(back, input, "ecb^-1 n={n}");
            for first in [0u64, 1, 60, 1000] {
                let gray: Vec<Block> = (0..n as u64).map(|t| table.offset(&r, first + t)).collect();
                for (zname, z) in [("slice", &zs), ("gray", &gray)] {
                    let off = || match zname {
                        "slice" => Offsets::Slice(z),
                        _ => Offsets::Gray {
                            table: &table,
                            first,
                            r: &r,
                        },
                    };
                    for dir in [Dir::Encrypt, Dir::Decrypt] {
                        let (want, want_sum) = whiten_ref(&aes, dir, &input, z);
                        // Both kernels: plain and `EOR3` (QEMU's `-cpu max`
                        // has SHA-3; `whiten` takes the latter there).
                        for eor3 in [false, true] {
                            if eor3 && !AesKey::has_eor3() {
                                continue;
                            }
                            let what = format!("{zname} {dir:?} n={n} first={first} eor3 {eor3}");
                            let mut out = input.clone();
                            let s = k.whiten_on(eor3, dir, off(), true, Io::InPlace(&mut out));
                            assert_eq!(out, want, "{what}");
                            assert_eq!(s, want_sum, "{what} sum");
                            let mut out = input.clone();
                            let s = k.whiten_on(eor3, dir, off(), false, Io::InPlace(&mut out));
                            assert_eq!(s, [0; 16], "{what}");
                            assert_eq!(out, want, "{what}");
                        }
                    }
                    let sigma = input
                        .iter()
                        .zip(z)
                        .fold([0u8; 16], |a, (x, zt)| xor(&a, &e(&xor(x, zt))));
                    assert_eq!(k.sigma(off(), &input), sigma, "{zname} sigma n={n}");
                }
            }
        }
    }
}

/// XECB-MAC's sum against the `aes` crate block by block: `E_K(x_t +
/// (first + t) r0)` xored, with and without the last block, at every
/// length up to three batches, with `r0` and `first` making the 64-bit
/// halves carry (and the 128-bit sum wrap).
#[test]
fn xecb_sum_matches_block_by_block() {
    if !detect() {
        return;
    }
    for key_len in [16, 24, 32] {
        let key: Vec<u8> = (0..key_len as u8)
            .map(|i| i.wrapping_mul(41) ^ 0x6b)
            .collect();
        let k = AesKey::new(&key).unwrap();
        let (enc, _) = model(&key);
        for (r0, first) in [
            (0x0123_4567_89ab_cdef_fedc_ba98_7654_3210u128, 1u128),
            (u128::MAX - 5, 3),
            (u64::MAX as u128 - 2, u128::MAX - 9),
        ] {
            for n in 0..=25 {
                let input = blocks(n, key_len as u8);
                let last: Block = core::array::from_fn(|j| j as u8 ^ 0xa5);
                for with_last in [false, true] {
                    let mut want = [0u8; 16];
                    let all = input.iter().chain(with_last.then_some(&last));
                    for (t, x) in all.enumerate() {
                        let off = (first.wrapping_add(t as u128)).wrapping_mul(r0);
                        let z = u128::from_be_bytes(*x).wrapping_add(off).to_be_bytes();
                        want = xor(&want, &enc(&z));
                    }
                    let got = k.xecb_sum(r0, first, &input, with_last.then_some(&last));
                    assert_eq!(got, want, "key {key_len} n {n} last {with_last}");
                }
            }
        }
    }
}

/// XCBC decryption against the `aes` crate block by block (`z_t = y_t -
/// (first + t) r0`, `x_t = E_K^-1(z_t) xor z_{t-1}`), with and without the
/// check block, at every length up to three batches, with borrows across
/// the 64-bit halves and past zero.
#[test]
fn xcbc_decrypt_matches_block_by_block() {
    if !detect() {
        return;
    }
    for key_len in [16, 24, 32] {
        let key: Vec<u8> = (0..key_len as u8)
            .map(|i| i.wrapping_mul(29) ^ 0x3c)
            .collect();
        let k = AesKey::new(&key).unwrap();
        let (_, dec) = model(&key);
        let prev: Block = core::array::from_fn(|j| j as u8 ^ 0x5a);
        for (r0, first) in [
            (0x0f1e_2d3c_4b5a_6978_8796_a5b4_c3d2_e1f0u128, 1u128),
            (u128::MAX - 3, 2),
            (u64::MAX as u128 + 7, u128::MAX - 4),
        ] {
            for n in 0..=25 {
                let input = blocks(n, key_len as u8 ^ 0x11);
                // x_t for every input block, the check block's included
                let mut want = Vec::new();
                let mut zp = prev;
                for (t, y) in input.iter().enumerate() {
                    let off = (first.wrapping_add(t as u128)).wrapping_mul(r0);
                    let z = u128::from_be_bytes(*y).wrapping_sub(off).to_be_bytes();
                    want.push(xor(&dec(&z), &zp));
                    zp = z;
                }
                let sum_of = |xs: &[Block]| xs.iter().fold([0u8; 16], |a, x| xor(&a, x));
                // Both kernels: plain and `EOR3` (QEMU's `-cpu max` has
                // SHA-3; `xcbc_decrypt` takes the latter there).
                for eor3 in [false, true] {
                    if eor3 && !AesKey::has_eor3() {
                        continue;
                    }
                    // without a check block: every block out
                    let mut out = vec![[0u8; 16]; n];
                    let sum = k.xcbc_decrypt_on(eor3, r0, first, &prev, &input, &mut out, None);
                    assert_eq!(out, want, "key {key_len} n {n} eor3 {eor3}");
                    assert_eq!(sum, sum_of(&want));
                    // with one: the last block's x apart, not summed
                    if n > 0 {
                        let mut out = vec![[0u8; 16]; n - 1];
                        let mut check = [0u8; 16];
                        let sum = k.xcbc_decrypt_on(
                            eor3,
                            r0,
                            first,
                            &prev,
                            &input,
                            &mut out,
                            Some(&mut check),
                        );
                        assert_eq!(out, want[..n - 1], "key {key_len} n {n} check eor3 {eor3}");
                        assert_eq!(check, want[n - 1]);
                        assert_eq!(sum, sum_of(&want[..n - 1]));
                    }
                }
            }
        }
    }
}

/// XCBC's serial encryption chain (`chains::xcbc_chain`) against the paper
/// computed block by block with the `aes` crate: `z_i = E_K(x_i xor
/// z_{i-1})`, `y_i = z_i + i r0` (mod 2^128, big-endian), the check block
/// `x_{n+1} = z0 xor x_1 xor ... xor x_n` with `CHECK`; every key size,
/// n = 0 ..= 20, offsets that carry across the 64-bit halves and wrap.
#[test]
fn xcbc_chain_matches_block_by_block() {
    if !detect() {
        return;
    }
    for key_len in [16usize, 24, 32] {
        let key: Vec<u8> = (0..key_len as u8)
            .map(|i| i.wrapping_mul(29) ^ 0x3c)
            .collect();
        let k = AesKey::new(&key).unwrap();
        let (enc, _) = model(&key);
        for n in 0..=20usize {
            for (r0, check) in [
                (u128::MAX - 2, true),
                ((1u128 << 64) - 1, false),
                (0x0123_4567_89ab_cdef_fedc_ba98_7654_3210, true),
            ] {
                let x = blocks(n, n as u8 ^ 0x5a);
                let z0: Block = (r0 ^ 0x77).to_be_bytes();
                let mut z = z0;
                let mut sum = z0;
                let mut want = Vec::new();
                for i in 1..=n + usize::from(check) {
                    let xi = if i <= n { x[i - 1] } else { sum };
                    sum = xor(&sum, &xi);
                    z = enc(&xor(&xi, &z));
                    let y = u128::from_be_bytes(z).wrapping_add((i as u128).wrapping_mul(r0));
                    want.push(y.to_be_bytes());
                }
                let mut out = vec![[0xa5u8; 16]; want.len()];
                if check {
                    k.xcbc_chain::<true>(r0, &z0, n, |i| x[i], &mut out);
                } else {
                    k.xcbc_chain::<false>(r0, &z0, n, |i| x[i], &mut out);
                }
                assert_eq!(
                    out,
                    want,
                    "AES-{} n {n} r0 {r0:#x} check {check}",
                    key_len * 8
                );
            }
        }
    }
}

/// pXCBC$ encryption's lock-step chains (`chains.rs`) against the `aes`
/// crate block by block, as `aesni`'s `xcbc_strided_matches_the_aes_crate`:
/// every chain count 1 ..= [`CHAIN_BATCH`] (every group size of eight and
/// every remainder), n from 0 to past two tiles, with and without the check
/// round, inputs from a head, a tail and strided rows, z and Σ carried in or
/// started from z0 (under this key or one of another size), and offsets
/// `(first + t)(r0 + l)` whose sums carry across the 64-bit halves and wrap
/// mod 2^128; every key size.
#[test]
fn xcbc_strided_matches_block_by_block() {
    if !detect() {
        return;
    }
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for key_len in [16usize, 24, 32] {
        let key: Vec<u8> = (0..key_len as u8)
            .map(|i| i.wrapping_mul(37) ^ 0x6b)
            .collect();
        let k = AesKey::new(&key).unwrap();
        let aes = Reference::new(&key);
        let other_key: Vec<u8> = (0..[24u8, 32, 16][key_len / 8 - 2])
            .map(|i| i ^ 0xa7)
            .collect();
        let other = AesKey::new(&other_key).unwrap();
        let other_aes = Reference::new(&other_key);
        for lanes in 1..=CHAIN_BATCH {
            for case in 0..3usize {
                let n = [0usize, 1, 2, 3, 8, 17][(case + lanes) % 6];
                let check = (case + lanes / 6) % 2 == 0;
                let (head, tail) = (case == 1, (lanes + case) % 3 == 0);
                let r0 = [
                    u128::MAX - 3,
                    (1u128 << 64) - 2,
                    u128::from(next()) << 64 | u128::from(next()),
                ][case];
                let first = [1u128, u128::MAX - 4, (1u128 << 64) - 1][(lanes + case) % 3];
                let c = [u128::MAX - 5, u128::from(next())][lanes % 2];
                let z0 = (lanes + case) % 3;
                let what = format!(
                    "AES-{} lanes {lanes} case {case} n {n} check {check}",
                    key_len * 8
                );
                let (src_stride, dst_stride) = (n + 2, n + usize::from(check) + 1);
                let src = blocks(src_stride * lanes + n, next() as u8);
                let head_x = blocks(n, 0x33);
                let tail_x = blocks(n, 0x44);
                let mut z: [Block; CHAIN_BATCH] =
                    core::array::from_fn(|l| (next() as u128 ^ (l as u128) << 100).to_be_bytes());
                let mut sums: [Block; CHAIN_BATCH] = core::array::from_fn(|l| {
                    (u128::MAX - next() as u128 - l as u128).to_be_bytes()
                });
                let (z_in, sums_in) = (z, sums);
                let mut dst = vec![[0xa5u8; 16]; dst_stride * lanes + 1];
                let mut want = dst.clone();
                let lo = usize::from(head);
                let hi = if tail && lanes > lo { lanes - 1 } else { lanes };
                let mut states = Vec::new();
                for l in 0..lanes {
                    let xs = if head && l == 0 {
                        &head_x[..]
                    } else if l >= hi {
                        &tail_x[..]
                    } else {
                        &src[(l - lo) * src_stride..][..n]
                    };
                    let cb = c.wrapping_add(l as u128);
                    let fresh = match z0 {
                        // (nothing runs: z and Σ untouched)
                        _ if n + usize::from(check) == 0 => None,
                        0 => None,
                        1 => Some((&aes, cb)),
                        _ => Some((&other_aes, cb)),
                    };
                    let start = (z_in[l], sums_in[l]);
                    let r0l = r0.wrapping_add(l as u128);
                    let (ys, zl, sl) = chain_ref(&aes, fresh, start, r0l, first, xs, check);
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
                    z0: [None, Some((&k, c)), Some((&other, c))][z0],
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
                assert!(k.has_chains());
                assert!(k.xcbc_strided(&mut chains, io));
                assert_eq!(dst, want, "{what} outputs");
                for (l, (zl, sl)) in states.iter().enumerate() {
                    assert_eq!(z[l], *zl, "{what} z of chain {l}");
                    assert_eq!(sums[l], *sl, "{what} Σ of chain {l}");
                }
            }
        }
    }
}

/// CWC's counter mode (`ctr.rs`) against the `aes` crate block by block:
/// every length up to 25 blocks and three batches, whole or with a partial
/// last block, every key size, in place, from one buffer into another and
/// appended to a `Vec`, with and without the extra block; first counters
/// at every offset from a multiple of 8 (the kernel's head before its
/// aligned batches), counters whose 32-bit word carries across bytes and
/// wraps mod 2^32 (the first twelve bytes never change).
#[test]
fn ctr32_matches_block_by_block() {
    use cipher::inout::InOutBuf;
    if !detect() {
        return;
    }
    for key_len in [16, 24, 32] {
        let key: Vec<u8> = (0..key_len as u8)
            .map(|i| i.wrapping_mul(53) ^ 0x2d)
            .collect();
        let k = AesKey::new(&key).unwrap();
        let (enc, _) = model(&key);
        let aes = Reference::new(&key);
        let head = 0x80a1_b2c3_d4e5_f607_1829_3a4b_0000_0000u128;
        // (from 1 as CWC's messages; a multiple of 8, where the aligned
        // batches start at once; each head length 1..=7; carries across
        // bytes; wraps mod 2^32 in the head and in the aligned batches)
        for low in [
            1u32,
            8,
            0xfb,
            0x00ff_fffa,
            0x0000_fffc,
            0xffff_ffe0,
            0xffff_fff9,
            u32::MAX - 1,
            u32::MAX,
        ] {
            let cb = head | u128::from(low);
            for len in (0..=25 * 16).chain([399, 400, 401]) {
                let input: Vec<u8> = (0..len).map(|i| (i * 7 + key_len + len) as u8).collect();
                let want = ctr_reference(&aes, cb, &input);
                let what = format!("key {key_len} counter {low:#x} len {len}");
                let mut buf = input.clone();
                assert_eq!(k.ctr32(cb, (&mut buf[..]).into(), None), [0; 16]);
                assert_eq!(buf, want, "{what} in place");
                let mut out = vec![0xa5u8; len];
                let e = k.ctr32(cb, InOutBuf::new(&input, &mut out).unwrap(), Some(cb - 1));
                assert_eq!(out, want, "{what} b2b");
                assert_eq!(e, enc(&(cb - 1).to_be_bytes()), "{what} extra");
                let mut v = vec![1, 2, 3];
                let e = k.ctr32_append(cb, &input, &mut v, Some(head));
                assert_eq!(v[..3], [1, 2, 3]);
                assert_eq!(v[3..], want, "{what} append");
                assert_eq!(e, enc(&head.to_be_bytes()), "{what} append extra");
                // Both kernels, whichever `ctr32` takes here (QEMU's
                // `-cpu max` has SHA-3: `EOR3`).
                for eor3 in [false, true] {
                    if eor3 && !AesKey::has_eor3() {
                        continue;
                    }
                    let mut buf = input.clone();
                    // SAFETY: `buf` holds `len` bytes, in place; SHA-3 checked.
                    unsafe { k.ctr32_on(eor3, cb, buf.as_ptr(), buf.as_mut_ptr(), len) };
                    assert_eq!(buf, want, "{what} eor3 {eor3}");
                }
            }
        }
    }
}

/// EME's passes (`wide.rs`) against the `aes` crate block by block: the
/// first (`G(in[j] xor l[j])` and the sum of the outputs) and the last
/// (`G(in[j] xor M x^j) xor l[j]`, the LE powers by `double_le`), both
/// directions, every key size, every unit length 1 ..= 40 blocks (the
/// 512-byte sector's 32 among them), EME's longest unit (128 blocks) and a
/// 4096-byte sector's 256 (the table as long as the unit; also a table
/// shorter than the input, which bounds the pass).
#[test]
fn wide_passes_match_block_by_block() {
    use crate::arith::gf128::double_le;
    if !detect() {
        return;
    }
    let lens: Vec<usize> = (1..=40).chain([128, 256]).collect();
    for key_len in [16, 24, 32] {
        let key: Vec<u8> = (0..key_len as u8)
            .map(|i| i.wrapping_mul(53) ^ 0x2d)
            .collect();
        let k = AesKey::new(&key).unwrap();
        let (enc, dec) = model(&key);
        let m: Block = core::array::from_fn(|j| (j as u8).wrapping_mul(13) ^ 0xc3);
        for &n in &lens {
            let input = blocks(n, n as u8 ^ 0x3e);
            let l = blocks(n, 0x71);
            for (dir, g) in [
                (Dir::Encrypt, &enc as &dyn Fn(&Block) -> Block),
                (Dir::Decrypt, &dec),
            ] {
                // First pass.
                let want: Vec<Block> = input.iter().zip(&l).map(|(x, lj)| g(&xor(x, lj))).collect();
                let want_sum = want.iter().fold([0u8; 16], |a, b| xor(&a, b));
                let mut out = input.clone();
                let sum = k.wide_first(dir, &l, Io::InPlace(&mut out));
                assert_eq!(out, want, "first key {key_len} {dir:?} n {n}");
                assert_eq!(sum, want_sum, "first sum key {key_len} {dir:?} n {n}");
                // Last pass.
                let mut p = m;
                let want: Vec<Block> = input
                    .iter()
                    .zip(&l)
                    .map(|(x, lj)| {
                        let y = xor(&g(&xor(x, &p)), lj);
                        p = double_le(&p);
                        y
                    })
                    .collect();
                let mut out = vec![[0u8; 16]; n];
                k.wide_last(dir, &m, &l, Io::B2b(&input, &mut out));
                assert_eq!(out, want, "last key {key_len} {dir:?} n {n}");
                // A shorter table bounds the pass: the blocks past it untouched.
                let short = n / 2;
                let mut out = input.clone();
                k.wide_last(dir, &m, &l[..short], Io::InPlace(&mut out));
                assert_eq!(out[..short], want[..short], "short last n {n}");
                assert_eq!(
                    out[short..],
                    input[short..],
                    "short last n {n}: past the table"
                );
            }
        }
    }
}

/// EtE's passes (`SteXex`) against a block-by-block model from the `aes`
/// crate: `F_i(x) = E(sw(x) xor Δ_i) xor Δ_i`, `F_i^-1(c) = sw(E^-1(c xor
/// Δ_i) xor Δ_i)`, `sw` exchanging K and H; every unit length 1 ..= 40
/// blocks and 128, both directions, both passes, with inputs and tables
/// chosen so that each swap of the pass meets K in one block and H in
/// another (the swap's both arms, at each of its places).
#[test]
fn ste_passes_match_block_by_block() {
    use crate::arith::gf128::double_le;
    if !detect() {
        return;
    }
    let key: Vec<u8> = (0..16u8).map(|i| i.wrapping_mul(71) ^ 0x19).collect();
    let k = AesKey::new(&key).unwrap();
    let (enc, dec) = model(&key);
    let (sk, sh): (Block, Block) = ([0x3a; 16], core::array::from_fn(|j| j as u8 ^ 0x90));
    let (de, dw): (Block, Block) = ([0x5c; 16], core::array::from_fn(|j| (j as u8) << 3));
    let ste = SteXex::new(&k, &sk, &sh, &de, &dw).unwrap();
    let sw = |x: &Block| match x {
        x if *x == sk => sh,
        x if *x == sh => sk,
        x => *x,
    };
    let f = |d: &Block, x: &Block| xor(&enc(&xor(&sw(x), d)), d);
    let f_inv = |d: &Block, c: &Block| sw(&xor(&dec(&xor(c, d)), d));
    // The input to F_i^-1's swap that makes it meet `target`.
    let meets = |d: &Block, target: &Block| xor(&enc(&xor(target, d)), d);
    let m: Block = core::array::from_fn(|j| (j as u8).wrapping_mul(29) ^ 0x4e);
    for n in (1..=40).chain([128]) {
        let powers: Vec<Block> = (0..n)
            .scan(m, |p, _| {
                let q = *p;
                *p = double_le(p);
                Some(q)
            })
            .collect();
        let base = blocks(n, n as u8 ^ 0x5a);
        let table = blocks(n, 0x27);
        // (at, target): blocks 0 and 1 meet K and H at the first swap,
        // blocks 2 and 3 at the second (a pass with two).
        let hits = |i: usize| {
            [(0, sk), (1, sh), (2, sk), (3, sh)]
                .into_iter()
                .filter(move |h| h.0 < i)
        };
        // Encrypt, first pass: F_wide(F_ecb(x) xor l).
        let (mut x, mut l) = (base.clone(), table.clone());
        for (j, t) in hits(n) {
            if j < 2 {
                x[j] = t;
            } else {
                l[j] = xor(&f(&de, &x[j]), &t);
            }
        }
        let want: Vec<Block> = x
            .iter()
            .zip(&l)
            .map(|(x, l)| f(&dw, &xor(&f(&de, x), l)))
            .collect();
        let mut out = x.clone();
        let sum = ste.first(Dir::Encrypt, &l, Io::InPlace(&mut out));
        assert_eq!(out, want, "encrypt first n {n}");
        assert_eq!(sum, want.iter().fold([0; 16], |a, b| xor(&a, b)));
        // Decrypt, first pass: F_wide^-1(x xor l).
        let (mut x, l) = (base.clone(), table.clone());
        for (j, t) in hits(n.min(2)) {
            x[j] = xor(&meets(&dw, &t), &l[j]);
        }
        let want: Vec<Block> = x
            .iter()
            .zip(&l)
            .map(|(x, l)| f_inv(&dw, &xor(x, l)))
            .collect();
        let mut out = x.clone();
        let sum = ste.first(Dir::Decrypt, &l, Io::InPlace(&mut out));
        assert_eq!(out, want, "decrypt first n {n}");
        assert_eq!(sum, want.iter().fold([0; 16], |a, b| xor(&a, b)));
        // Encrypt, last pass: F_wide(x xor M x^j) xor l.
        let (mut x, l) = (base.clone(), table.clone());
        for (j, t) in hits(n.min(2)) {
            x[j] = xor(&t, &powers[j]);
        }
        let want: Vec<Block> = (0..n)
            .map(|j| xor(&f(&dw, &xor(&x[j], &powers[j])), &l[j]))
            .collect();
        let mut out = vec![[0u8; 16]; n];
        ste.last(Dir::Encrypt, &m, &l, Io::B2b(&x, &mut out));
        assert_eq!(out, want, "encrypt last n {n}");
        // Decrypt, last pass: F_ecb^-1(F_wide^-1(x xor M x^j) xor l).
        let (mut x, mut l) = (base.clone(), table.clone());
        for (j, t) in hits(n) {
            if j < 2 {
                x[j] = xor(&meets(&dw, &t), &powers[j]);
            } else {
                let inner = f_inv(&dw, &xor(&x[j], &powers[j]));
                l[j] = xor(&inner, &meets(&de, &t));
            }
        }
        let want: Vec<Block> = (0..n)
            .map(|j| f_inv(&de, &xor(&f_inv(&dw, &xor(&x[j], &powers[j])), &l[j])))
            .collect();
        let mut out = vec![[0u8; 16]; n];
        ste.last(Dir::Decrypt, &m, &l, Io::B2b(&x, &mut out));
        assert_eq!(out, want, "decrypt last n {n}");
    }
    // F_wide alone, both ways.
    let b: Block = [0x61; 16];
    assert_eq!(ste.wide_block(Dir::Encrypt, &b), f(&dw, &b));
    assert_eq!(ste.wide_block(Dir::Decrypt, &b), f_inv(&dw, &b));
    assert_eq!(ste.wide_block(Dir::Encrypt, &sk), f(&dw, &sk));
    // AES-128 only.
    assert!(SteXex::new(&AesKey::new(&[1; 32]).unwrap(), &sk, &sh, &de, &dw).is_none());
}
