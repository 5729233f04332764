//! The threaded sums of the parallel MACs (PMAC's Σ, XECB-MAC's w): the xor
//! of one 16-byte value per block of a message, the blocks shared out in
//! runs among the calling thread and this process's pool (rayon's global
//! pool, or in a forked child one of its own: [`install`]).
//!
//! The calling thread works from the first moment: the pool's threads are
//! asked to join (one `spawn` each, inside [`rayon::in_place_scope`], which
//! runs its body on the calling thread), the caller takes runs from the
//! front of the message and the pool's threads from the back, each the
//! next one not yet taken (one lock holds both ends), until the ends meet.
//! A pool thread that wakes late finds less work, so nobody waits for the
//! slowest start. (`par_chunks` from a thread outside the pool hands the
//! whole job to the pool and blocks the caller: its core idles while the
//! pool's threads wake, which at 1 MiB was a third of the time of the MAC
//! on one core.) Taking from the two ends keeps each thread on nearly the
//! same half of a message from one call to the next, so a message MACed
//! again is read from each core's own cache.
//!
//! Each run is a quarter of what is left (with two threads; `1 / (2 *
//! threads)` in general), at least `min` blocks (8 KiB for both MACs) and
//! aligned to the kernels' groups: the first runs are long (at 1 MiB
//! 256 KiB, then 192 KiB, ...) and the last ones short, so the threads finish within one
//! short run (~0.5 us) of each other whoever started late or runs on the
//! slower core (guided self-scheduling). Against fixed 64 KiB pieces (one
//! piece, ~4 us, of imbalance at the meeting point), in a timing harness
//! on the 2-core Sapphire Rapids VM (calls interleaved, medians of
//! 1,800): 1 MiB 44.2 -> 39.5 us and 4 MiB 186 -> 168 us in the VM's slow
//! state, 1-3 % with both vCPUs fast (1 MiB 31.8 -> 30.8 us, 1.84x one
//! core); 16 KiB and 32 KiB fixed pieces were no better than 64 KiB.
//! `blockmodes bench` cannot resolve these few per cent: its per-run
//! ratio swings between 1.4 and 2.5 with the two vCPUs' speed states
//! (`docs/performance.md`, "Multi-core MACs").
//!
//! When the caller runs out of runs while a pool thread is still on its
//! last one, the caller spins until that thread has folded its sum in, for
//! at most 50 us, instead of sleeping on the scope's latch: a sleeping
//! caller is woken by the pool thread through the kernel, which cost
//! several microseconds per call here.
//!
//! The first call in a process starts rayon's global pool, on the calling
//! thread: on the VM above that costs 150-250 us (std's
//! `available_parallelism` reads the cgroup files, ~70 us; the first
//! thread of a process is created in ~60 us and runs ~150 us later), more
//! than a whole 1 MiB MAC on one core (~60 us): a fresh process's first
//! 1 MiB `mac_par` took 210-530 us (median ~290) against 70-170 us
//! (median ~110) for its first `mac`.
//! No schedule can make that call pay; an application whose first message
//! is small can start the pool earlier (`rayon::broadcast(|_| ())` while it
//! reads its input, say). Computing the first call alone while the pool
//! starts (so that it never waits for a thread not yet running) measured
//! no better and was dropped; starting the pool when a key is made was not
//! chosen (every key would pay it, most of them for short messages on one
//! core). Later calls find the pool's threads asleep if
//! the last call was more than a few tens of microseconds ago: the
//! wake-up takes 9-17 us here, of which the caller, working meanwhile,
//! loses about half.
//!
//! The result does not depend on which thread takes which run, nor on
//! where the runs' boundaries fall: xor is associative and commutative,
//! and each block's value depends only on its index. Cost: one
//! uncontended lock per run (16 runs at 1 MiB, 26 at 16 MiB) and one per
//! thread.

use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::arith::gf128::{Block, xor_in_place};
use crate::fork::PerProcess;

/// This process's pool for the multi-core paths ([`Pool`]). `fork()`
/// copies only the calling thread: a child that inherits a started global
/// pool inherits its queues but not its threads, and its first parallel
/// call would wait for them for ever (as Python's `os.fork` and
/// `multiprocessing` make children).
static POOL: PerProcess<Pool> = PerProcess::new();

/// Where this process runs the multi-core paths.
enum Pool {
    /// rayon's global pool: in the first process that runs one of them.
    Global,
    /// A pool of its own: in a process forked from one that ran them.
    Own(rayon::ThreadPool),
    /// On the calling thread: a forked process that could not start one.
    Serial,
}

fn pool() -> &'static Pool {
    POOL.get(|inherited| match inherited {
        false => Pool::Global,
        true => rayon::ThreadPoolBuilder::new()
            .build()
            .map_or(Pool::Serial, Pool::Own),
    })
}

/// Run `f`, whose rayon calls then go to this process's pool ([`POOL`]).
/// Every multi-core path enters rayon through this, after [`threads`]
/// said there is more than one thread.
///
/// A process forked after its parent ran one of these paths gets a pool
/// of its own; one forked after the *application* started rayon's global
/// pool for its own work, before any of these paths ran, is not told
/// apart from the first process (its rayon calls, ours included, find no
/// threads there).
pub(crate) fn install<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    match pool() {
        Pool::Own(pool) => pool.install(f),
        Pool::Global | Pool::Serial => f(),
    }
}

/// The threads of this process's pool (1 where it runs on the caller).
pub(crate) fn threads() -> usize {
    match pool() {
        Pool::Global => rayon::current_num_threads(),
        Pool::Own(pool) => pool.current_num_threads(),
        Pool::Serial => 1,
    }
}

/// `work(r_1) xor work(r_2) xor ...` over runs `r_1, r_2, ...` that
/// partition `0..len`, computed by the calling thread and up to
/// [`threads`]`() - 1` pool threads. Every run but the
/// last starts and ends on a multiple of `align` (a kernel's group of
/// blocks); which runs the partition has depends on the order in which
/// the threads take them ([`Ends`]), so `work` must give the xor of
/// per-unit values that depend on the unit's index alone (PMAC's `Y[i]`,
/// XECB-MAC's `y_i`): then the sum is the same for every partition.
/// `work` is never given an empty run (`len == 0` gives zero). The partial
/// sums are wiped after use (they are secret: a MAC's Σ).
pub(crate) fn xor_runs(
    len: usize,
    align: usize,
    min: usize,
    work: impl Fn(Range<usize>) -> Block + Sync,
) -> Block {
    if len == 0 {
        return [0; 16];
    }
    if threads() <= 1 {
        return work(0..len);
    }
    install(|| xor_runs_here(len, align, min, &work))
}

/// [`xor_runs`] on the pool the caller is in.
fn xor_runs_here(
    len: usize,
    align: usize,
    min: usize,
    work: &(impl Fn(Range<usize>) -> Block + Sync),
) -> Block {
    let threads = rayon::current_num_threads();
    if threads <= 1 {
        return work(0..len);
    }
    let ends = Ends::new(len, align, min, threads);
    let mut total = Mutex::new([0u8; 16]);
    // Pool threads that have begun taking runs, and those that are done.
    let (started, done) = (AtomicUsize::new(0), AtomicUsize::new(0));
    // Take runs from one end until the ends meet; fold this thread's xor
    // into `total`.
    let take = |back: bool| {
        let mut acc = [0u8; 16];
        while let Some(run) = ends.take(back) {
            let mut part = work(run);
            xor_in_place(&mut acc, &part);
            wipe(&mut part);
        }
        // The lock is never held while `work` runs, so it cannot be
        // poisoned; `into_inner` keeps this path free of a panic anyway.
        let mut t = total.lock().unwrap_or_else(|p| p.into_inner());
        xor_in_place(&mut t, &acc);
        wipe(&mut acc);
    };
    rayon::in_place_scope(|s| {
        for _ in 1..threads {
            s.spawn(|_| {
                started.fetch_add(1, Ordering::AcqRel);
                take(true);
                done.fetch_add(1, Ordering::AcqRel);
            });
        }
        take(false);
        // Spin, briefly, while a pool thread finishes its last run.
        let since = Instant::now();
        while done.load(Ordering::Acquire) < started.load(Ordering::Acquire)
            && since.elapsed() < Duration::from_micros(50)
        {
            core::hint::spin_loop();
        }
    });
    // Read and wiped in place (moving it out would leave the bytes behind).
    let t = total.get_mut().unwrap_or_else(|p| p.into_inner());
    let sum = *t;
    wipe(t);
    sum
}

/// The part of `0..len` not yet taken, `front..back`, under one lock
/// (taken once per run: never contended for long). Each take gives
/// `max(min, (back - front) / share)` units (`share`: twice the threads),
/// rounded to `align`, from its end: the runs shrink as the ends near each
/// other (guided self-scheduling), so the threads finish within one
/// short run of each other whoever started late.
struct Ends {
    left: Mutex<(usize, usize)>,
    align: usize,
    min: usize,
    share: usize,
}

impl Ends {
    fn new(len: usize, align: usize, min: usize, threads: usize) -> Self {
        Self {
            left: Mutex::new((0, len)),
            align: align.max(1),
            min: min.max(1),
            share: 2 * threads.max(1),
        }
    }

    /// The next run from the front (`back == false`) or the back, or
    /// `None` when all of `0..len` is taken. Never empty; `front` stays a
    /// multiple of `align` (or `len`), and so does every start.
    fn take(&self, back: bool) -> Option<Range<usize>> {
        // Never poisoned: nothing can panic while it is held.
        let mut left = self.left.lock().unwrap_or_else(|p| p.into_inner());
        let (front, end) = *left;
        if front >= end {
            return None;
        }
        let size = ((end - front) / self.share).max(self.min);
        Some(if back {
            // Rounded down to `align`, never below `front`: `start < end`.
            let start = (end.saturating_sub(size) / self.align * self.align).max(front);
            left.1 = start;
            start..end
        } else {
            let stop = front
                .saturating_add(size)
                .checked_next_multiple_of(self.align)
                .unwrap_or(end)
                .min(end);
            left.0 = stop;
            front..stop
        })
    }
}

/// [`xor_runs`] over `blocks`: `work(start, run)` for each run, `start`
/// the index in `blocks` of the run's first block.
pub(crate) fn xor_slices(
    blocks: &[Block],
    align: usize,
    min: usize,
    work: impl Fn(usize, &[Block]) -> Block + Sync,
) -> Block {
    xor_runs(blocks.len(), align, min, |r| {
        let start = r.start;
        work(start, blocks.get(r).unwrap_or(&[]))
    })
}

/// Zero a partial sum (as `crate::oracle::scratch::wipe`: plain stores kept
/// by a black box).
fn wipe(b: &mut Block) {
    *b = [0; 16];
    core::hint::black_box(&*b);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 16-byte value that depends on the unit's index alone.
    fn value(i: usize) -> Block {
        (0x9e37_79b9_7f4a_7c15u128.wrapping_mul(i as u128 + 1)).to_le_bytes()
    }

    fn xor_of(r: Range<usize>) -> Block {
        let mut acc = [0u8; 16];
        for i in r {
            xor_in_place(&mut acc, &value(i));
        }
        acc
    }

    /// Every unit of `0..len` in exactly one run, whatever the order of
    /// takes from the two ends; runs non-empty, starting on `align`, ending
    /// on it or at `len`, and no shorter than `min` unless they take all
    /// that was left.
    #[test]
    fn the_ends_give_every_unit_once() {
        for len in [0usize, 1, 2, 63, 64, 65, 100, 1000, 4095, 65535, 65536] {
            for (align, min) in [
                (1usize, 1usize),
                (1, 7),
                (64, 64),
                (64, 512),
                (64, 1),
                (5, 3),
            ] {
                for threads in [1usize, 2, 3, 8] {
                    for pattern in [0u32, 0b1010_1010, 0xffff, 0b0110, 0b1110_0100_0111] {
                        let ends = Ends::new(len, align, min, threads);
                        let mut seen = vec![0u32; len];
                        let (mut front, mut back) = (0, len);
                        let mut k = 0;
                        loop {
                            let from_back = pattern >> (k % 16) & 1 == 1;
                            let Some(r) = ends.take(from_back) else { break };
                            let case = format!("{len} {align} {min} {threads} {pattern:#x}: {r:?}");
                            assert!(!r.is_empty(), "{case}");
                            assert_eq!(r.start % align, 0, "{case}");
                            assert!(r.end % align == 0 || r.end == len, "{case}");
                            assert!(
                                r.len() >= min || (r.start, r.end) == (front, back),
                                "{case}"
                            );
                            // Taken from the end it was asked for.
                            if from_back {
                                assert_eq!(r.end, back, "{case}");
                                back = r.start;
                            } else {
                                assert_eq!(r.start, front, "{case}");
                                front = r.end;
                            }
                            for i in r {
                                seen[i] += 1;
                            }
                            k += 1;
                        }
                        assert!(
                            seen.iter().all(|&c| c == 1),
                            "{len} {align} {min} {threads} {pattern:#x}"
                        );
                        assert_eq!(ends.take(false), None);
                        assert_eq!(ends.take(true), None);
                    }
                }
            }
        }
    }

    /// The runs shrink toward the meeting point: from two ends, the last
    /// runs are `min` long (here: 65535 units, pieces of 64).
    #[test]
    fn the_runs_shrink_to_min_where_the_ends_meet() {
        let ends = Ends::new(65535, 64, 512, 2);
        let mut sizes = Vec::new();
        let mut k = 0;
        while let Some(r) = ends.take(k % 2 == 1) {
            sizes.push(r.len());
            k += 1;
        }
        assert_eq!(sizes[0], 16384, "{sizes:?}");
        assert!(sizes.windows(2).all(|w| w[1] <= w[0] + 64), "{sizes:?}");
        assert!(
            sizes[sizes.len() - 2..].iter().all(|&s| s <= 512),
            "{sizes:?}"
        );
        assert!(sizes.len() < 40, "{sizes:?}");
    }

    #[test]
    fn the_xor_of_every_unit_once() {
        for len in [0usize, 1, 2, 3, 17, 100, 4096, 100_000] {
            for (align, min) in [(1usize, 1usize), (64, 512)] {
                let seen = Mutex::new(vec![0u32; len]);
                let got = xor_runs(len, align, min, |r| {
                    assert!(!r.is_empty());
                    let mut s = seen.lock().unwrap();
                    for i in r.clone() {
                        s[i] += 1;
                    }
                    drop(s);
                    xor_of(r)
                });
                assert_eq!(got, xor_of(0..len), "{len} units");
                assert!(seen.into_inner().unwrap().iter().all(|&c| c == 1));
            }
        }
    }

    #[test]
    fn slices_cover_every_block_once_with_their_start() {
        let blocks: Vec<Block> = (0..1000u128)
            .map(|i| (i * 0x1_0001).to_le_bytes())
            .collect();
        for (len, align, min) in [
            (0usize, 4usize, 4usize),
            (1, 4, 4),
            (7, 4, 4),
            (8, 4, 1),
            (100, 7, 7),
            (100, 100, 100),
            (1000, 64, 64),
            (5, 0, 0),
        ] {
            let blocks = &blocks[..len];
            let mut want = [0u8; 16];
            for b in blocks {
                xor_in_place(&mut want, b);
            }
            let got = xor_slices(blocks, align, min, |start, piece| {
                assert!(!piece.is_empty());
                assert_eq!(piece, &blocks[start..start + piece.len()]);
                assert!(start % align.max(1) == 0);
                let mut acc = [0u8; 16];
                for b in piece {
                    xor_in_place(&mut acc, b);
                }
                acc
            });
            assert_eq!(got, want, "{len} blocks, align {align}, min {min}");
        }
    }
}
