//! Differential: the SIMD kernel that no public switch reaches against its
//! portable twin (`blockmodes::__fuzz`): StE's constant-time swap of K and
//! H with the xor before or after it (blocks equal to K or H, or one bit
//! off, included). Identical results, or the CPU has no AVX-512 and only
//! the portable path runs. (The input keeps the layout of the seeds: a
//! kernel byte, once a choice of three kernels, is read and ignored.)
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
    let _kernel = inp.byte();
    let r0 = u128::from_be_bytes(inp.array());
    let _first: [u8; 16] = inp.array();
    let flags = inp.byte();
    let k: [u8; 16] = inp.array();
    let h: [u8; 16] = inp.array();
    let mut xs = blocks(inp.rest());
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
    let (simd, portable) = __fuzz::ste_swap(&k, &h, &r0.to_be_bytes(), flags & 2 == 2, &xs);
    if let Some(simd) = simd {
        assert_eq!(simd, portable, "SIMD and portable swaps differ");
    }
});
