//! The cost of one r0 draw (an ignored test: it needs a release build to
//! mean anything):
//!
//! ```sh
//! cargo test --release -p blockmodes --lib rng::bench -- --ignored --nocapture
//! ```
//!
//! Each round times every variant once (`REPS` draws), in turn, so a noisy
//! neighbour hits them alike; the figures are the median and the minimum
//! over the rounds, in ns per draw.

use std::hint::black_box;
use std::time::Instant;

use super::*;
use cipher::BlockCipherEncrypt;

const REPS: u32 = 2_000_000;
const ROUNDS: usize = 15;

/// ns per call of `f`, `REPS` calls (monomorphized: no indirect call).
fn time(mut f: impl FnMut()) -> f64 {
    let start = Instant::now();
    for _ in 0..REPS {
        f();
    }
    start.elapsed().as_secs_f64() * 1e9 / f64::from(REPS)
}

#[test]
#[ignore = "benchmark: run with --release -- --ignored --nocapture"]
fn bench_draw() {
    let names = [
        "thread_rng 16 B (r0)",
        "thread_rng u64",
        "fork::stamp",
        "generator alone 16 B",
        "refill alone / block",
        "aes encrypt_blocks / block",
    ];
    let stamp = fork::stamp();
    let mut slot = Some(State::seeded(stamp).expect("OS RNG"));
    let mut alone = State::seeded(stamp).expect("OS RNG");
    let mut times = vec![Vec::new(); names.len()];
    for _ in 0..ROUNDS {
        times[0].push(time(|| {
            let mut r0 = [0u8; 16];
            thread_rng().try_fill_bytes(&mut r0).expect("OS RNG");
            black_box(&r0);
        }));
        times[1].push(time(|| {
            black_box(thread_rng().try_next_u64().expect("OS RNG"));
        }));
        times[2].push(time(|| {
            black_box(fork::stamp());
        }));
        times[3].push(time(|| {
            let mut r0 = [0u8; 16];
            let fast = slot.as_mut().is_some_and(|s| s.take_buffered(&mut r0));
            if !fast {
                fill_from(&mut slot, stamp, &mut r0).expect("OS RNG");
            }
            black_box(&r0);
        }));
        times[4].push(
            time(|| {
                alone.refill();
                black_box(&alone.buf);
            }) / BUF_BLOCKS as f64,
        );
        times[5].push(
            time(|| {
                alone.aes.encrypt_blocks(&mut alone.buf);
                black_box(&alone.buf);
            }) / BUF_BLOCKS as f64,
        );
    }
    for (name, t) in names.iter().zip(&mut times) {
        t.sort_by(f64::total_cmp);
        println!(
            "{name:24} median {:6.2} ns  min {:6.2} ns",
            t[t.len() / 2],
            t[0]
        );
    }
}
