//! Differential: the SIMD kernels that no public switch reaches against
//! their portable twins (`blockmodes::__fuzz`): the XCBC/XECB offsets
//! `x[j] +- (first + j) * r0` mod 2^128 at arbitrary r0 and start
//! positions (carries across both halves and wrap-around included), XCBC
//! decryption's xor pass with its check sum and XECB's sum, and StE's
//! constant-time swap of K and H with the xor before or after it (blocks
//! equal to K or H, or one bit off, included). Identical results, or the CPU
//! has no AVX-512 and only the portable path runs.
#![no_main]
use blockmodes::__fuzz;
use blockmodes_fuzz::Input;
use libfuzzer_sys::fuzz_target;

fn blocks(bytes: &[u8]) -> Vec<[u8; 16]> {
    bytes
        .chunks_exact(16)
        .map(|c| c.try_into().unwrap())
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let mut inp = Input(data);
    let which = inp.byte() % 3;
    let r0 = u128::from_be_bytes(inp.array());
    let first = u128::from_be_bytes(inp.array());
    let flags = inp.byte();
    let k: [u8; 16] = inp.array();
    let h: [u8; 16] = inp.array();
    let mut xs = blocks(inp.rest());
    let (simd, portable) = match which {
        0 => __fuzz::xcbc_offsets(flags & 1 == 1, r0, first, &xs),
        1 => {
            let half = xs.len() / 2;
            let b = xs.split_off(half);
            __fuzz::xcbc_xor_passes(&xs, &b, &k)
        }
        _ => {
            // Steer some blocks onto K and H and their near misses.
            for (j, x) in xs.iter_mut().enumerate() {
                match (flags as usize + j) % 5 {
                    0 => *x = k,
                    1 => *x = h,
                    2 => {
                        *x = k;
                        x[j % 16] ^= 1 << (j % 8);
                    }
                    _ => {}
                }
            }
            __fuzz::ste_swap(&k, &h, &r0.to_be_bytes(), flags & 2 == 2, &xs)
        }
    };
    if let Some(simd) = simd {
        assert_eq!(simd, portable, "kernel {which}: SIMD and portable differ");
    }
});
