//! # The thread RNG: where the stateless modes' r0 comes from
//!
//! XCBC$, XCBC$-XOR, pXCBC$ and XECB$-MAC need 16 fresh random bytes, r0,
//! for every message. Asking the operating system for them costs a system
//! call per message (about 0.2 µs on the benchmark machine: as much as
//! enciphering 300 bytes with XCBC). [`ThreadRng`] draws them instead from
//! an AES-256 counter-mode generator in user space, one per thread, keyed
//! from the operating system (`getrandom`) — what OpenSSL's per-thread
//! DRBGs (AES-256 CTR_DRBG by default) do for IVs. A 16-byte draw costs
//! about 3.7 ns on the benchmark machine (Intel, VAES-512). It is the
//! default source of the
//! modes' `encrypt`, `encrypt_into`, `mac`, `signer` and `mac_par` calls
//! when the `std` and `getrandom` features are on (the default); the
//! `_with_rng` calls take it, or any other `rand_core` cryptographic RNG.
//!
//! ```
//! use blockmodes::rng::thread_rng;
//! use blockmodes::{Aes128, xcbc::XcbcXor};
//! let x = XcbcXor::<Aes128>::new_from_slice(&[0x42; 32])?;
//! let a = x.encrypt_with_rng(&mut thread_rng(), b"attack at dawn")?; // what `encrypt` does
//! let b = x.encrypt(b"attack at dawn")?;
//! assert_ne!(a[..16], b[..16]); // y0 = f(r0): a fresh r0 per message
//! assert_eq!(x.decrypt(&a)?, x.decrypt(&b)?);
//! # Ok::<(), blockmodes::Error>(())
//! ```
//!
//! ## Design
//!
//! * **Per thread.** Each thread owns its generator in a thread-local
//!   slot: no lock, no atomic read-modify-write and no cache line shared
//!   between threads on the draw path (a process-wide generator behind a
//!   mutex would serialize the rayon-parallel callers). A thread's
//!   generator is made, and seeded from the OS, on its first draw.
//! * **The generator** is AES-256 in counter mode, shaped like NIST SP
//!   800-90A's CTR_DRBG (OpenSSL 3's default DRBG): 48 bytes from
//!   `getrandom` give the key K (32 bytes) and the counter block V (16);
//!   the output is `E_K(V), E_K(V + 1), ...`, V a 128-bit big-endian
//!   integer. Unlike CTR_DRBG it does not rekey from its own output after
//!   each request (see *Wiping*). The keystream is made 1 KiB (64 blocks)
//!   at a time into a per-thread buffer with the `aes` crate (the cipher
//!   this crate already uses, on its runtime-detected VAES-512, VAES-256
//!   or AES-NI back end, or its constant-time software one), so a draw is
//!   mostly a copy out of that buffer. Why not ChaCha20 (the `chacha20`
//!   crate's `ChaCha20Rng`, used before): its AVX2 keystream plus its
//!   word-buffer bookkeeping cost 10 ns per 16-byte draw here, AES-256 on
//!   VAES 1.4 ns per block including the counter blocks (measured with
//!   the ignored bench `rng::bench`). The price: on a CPU without AES
//!   instructions (x86 before AES-NI, ARMv8 without its crypto extension)
//!   the `aes` crate's constant-time bitsliced AES makes the keystream
//!   several times slower than ChaCha20 would in software; the draw there
//!   still costs a fraction of the system call it replaces.
//! * **Reseed bound: [`RESEED_BYTES`] = 64 KiB** of output (4096 r0
//!   values), then a fresh key from the OS. AES-256-CTR itself would be
//!   indistinguishable from random for far longer; the bound limits how
//!   much output hangs on one key if the state is ever exposed or
//!   duplicated in a way no fork check sees (a core dump, a virtual machine
//!   snapshot resumed twice). Its cost is one `getrandom` call per 4096
//!   messages, about 0.05 ns per message (plus the key schedule); a bound
//!   of 1 KiB would already cost 3 ns per message (as much as the draw). It
//!   is the bound `rand`'s
//!   `ThreadRng` uses; OpenSSL 3's per-thread DRBGs reseed every 2^16
//!   requests (from its primary DRBG). A draw longer than the bound is
//!   split, with a reseed in between.
//! * **Fork safety: a child process never continues its parent's stream.**
//!   `fork` copies the thread's generator into the child; without care the
//!   child's next r0 would be the parent's next r0 — a repeated r0 under
//!   one key, which voids XCBC$'s privacy and integrity. Every generator
//!   remembers the *process stamp* it was seeded under, and every draw
//!   compares it with the current one, reseeding from the OS (after wiping
//!   the inherited state) when they differ. The stamp is
//!   - a **fork generation**: a process-wide counter incremented by a
//!     `pthread_atfork` child handler, registered once, when the first
//!     generator is made (this is what catches `fork()`, and with it
//!     Python's `os.fork` and `multiprocessing`, and `nix`'s `fork`);
//!   - plus, on Linux and Android, a **wipe-on-fork canary**: a word in a
//!     page marked `MADV_WIPEONFORK`, which the kernel zero-fills in every
//!     child whatever created it — raw `clone`/`fork` system calls and
//!     glibc's `_Fork` skip the atfork handlers, but not this. Checking it
//!     is one atomic load per draw;
//!   - or, where there is no canary (other Unix systems; Linux before 4.14),
//!     the **process id**, compared on every draw (as OpenSSL 3 does). A
//!     `getpid()` per draw costs 72 ns here, 20 times the draw itself, so it
//!     is not used where the canary works; and alone it would miss a
//!     grandchild that reuses the process id of the ancestor that seeded the
//!     state, which the fork generation catches.
//!
//!   `vfork` children share the parent's memory, so their draws advance the
//!   parent's generator rather than copy it. The `unsafe` C calls
//!   (`pthread_atfork`, `mmap`, `madvise`) are in one module, `fork.rs`
//!   (shared with the multi-core paths), run once per process.
//! * **Wiping.** The generator's key (its round keys), counter and
//!   keystream buffer are zeroed when it is dropped: when its thread exits
//!   (the thread-local destructor; Rust does not promise to run the main
//!   thread's at process exit) and when a reseed or a detected fork
//!   replaces it. A draw zeroes the bytes it takes from the buffer, so
//!   past r0 values do not stay behind. Between reseeds the key (and up
//!   to 1 KiB of coming output in the buffer) stays in memory next to the cipher keys it
//!   serves: the generator does not rekey after every draw (no backtracking
//!   resistance within 64 KiB), since whoever reads this thread's memory
//!   reads those keys too.
//! * **Errors.** Seeding can fail only where `getrandom` fails; the draw
//!   then returns `getrandom`'s error (the modes turn it into
//!   [`Error::Rng`](crate::Error::Rng)) and the next draw tries again. A
//!   draw during the thread's teardown (after its generator was destroyed)
//!   or from inside a draw goes to the OS directly. Nothing panics.
//!
//! ## Without `std`
//!
//! There are no thread-locals and no way to hear of a fork, so this module
//! does not exist: with `getrandom` alone the default calls ask the OS for
//! every r0 (`getrandom::SysRng`), and without `getrandom` only the
//! `_with_rng` calls exist, taking the caller's generator.

use core::cell::RefCell;

use aes::Aes256Enc;
use cipher::{BlockCipherEncrypt, Key, KeyInit};
use rand_core::{TryCryptoRng, TryRng};
use zeroize::Zeroize;

#[cfg(test)]
mod bench;
use crate::fork;

/// Bytes a thread's generator hands out between two seedings from the
/// operating system: 64 KiB, i.e. 4096 r0 values (see the [module
/// documentation](self) for why).
///
/// ```
/// use blockmodes::rng::{RESEED_BYTES, thread_rng};
/// use blockmodes::rand_core::TryRng;
/// // A draw longer than the bound is split, with a reseed in between.
/// let mut big = vec![0u8; RESEED_BYTES + 16];
/// thread_rng().try_fill_bytes(&mut big)?;
/// assert!(big.iter().any(|&b| b != 0));
/// # Ok::<(), getrandom::Error>(())
/// ```
pub const RESEED_BYTES: usize = 64 * 1024;

/// Keystream blocks made per refill: 64 (1 KiB, 64 r0 values), the `aes`
/// crate's batch on VAES-512 (16 registers of four blocks; a shorter run is
/// enciphered a block at a time, one AES latency after another: 2.6 ns per
/// block instead of 0.3 measured), eight batches of eight with AES-NI.
const BUF_BLOCKS: usize = 64;
/// The buffer's bytes.
const BUF_BYTES: usize = BUF_BLOCKS * 16;
/// The seed drawn from the OS: the key K (32 bytes), then the counter V.
const SEED_BYTES: usize = 48;

/// One thread's generator: AES-256 in counter mode, output block i the
/// enciphered counter `E_K(V + i)` (V a big-endian 128-bit integer).
struct State {
    /// `E_K`: its round keys are wiped on drop by the `aes` crate.
    aes: Aes256Enc,
    /// V: the counter block of the next refill's first block.
    v: u128,
    /// The last refill's keystream, `E_K(V - 64), ..., E_K(V - 1)`.
    buf: [aes::Block; BUF_BLOCKS],
    /// Bytes of `buf` handed out already (at most `BUF_BYTES`).
    used: usize,
    /// Bytes left before the next reseed.
    budget: usize,
    /// The process it was seeded in.
    stamp: fork::Stamp,
    /// K and V as drawn (for the tests' independent keystream only).
    #[cfg(test)]
    seed: [u8; SEED_BYTES],
}

impl State {
    /// A generator keyed from the operating system.
    fn seeded(stamp: fork::Stamp) -> Result<Self, getrandom::Error> {
        let mut seed = [0u8; SEED_BYTES];
        let drawn = getrandom::fill(&mut seed);
        let state = drawn.map(|()| Self::from_seed(&seed, stamp));
        seed.zeroize();
        state
    }

    /// The generator with K = `seed[..32]`, V = `seed[32..]`, its buffer
    /// empty (all used).
    fn from_seed(seed: &[u8; SEED_BYTES], stamp: fork::Stamp) -> Self {
        let (k, v) = seed.split_at(32);
        let mut key = Key::<Aes256Enc>::default();
        key.copy_from_slice(k);
        let mut v_bytes = [0u8; 16];
        v_bytes.copy_from_slice(v);
        let state = Self {
            aes: Aes256Enc::new(&key),
            v: u128::from_be_bytes(v_bytes),
            buf: [aes::Block::default(); BUF_BLOCKS],
            used: BUF_BYTES,
            budget: RESEED_BYTES,
            stamp,
            #[cfg(test)]
            seed: *seed,
        };
        key.zeroize();
        v_bytes.zeroize();
        state
    }

    /// The next `BUF_BLOCKS` keystream blocks into `buf`: counter blocks
    /// V, V + 1, ... (modulo 2^128) enciphered in place.
    fn refill(&mut self) {
        for (i, block) in (0u128..).zip(self.buf.iter_mut()) {
            *block = self.v.wrapping_add(i).to_be_bytes().into();
        }
        self.v = self.v.wrapping_add(BUF_BLOCKS as u128);
        self.aes.encrypt_blocks(&mut self.buf);
        self.used = 0;
    }

    /// Hand out all of `dst` from the buffer, if the buffer and the budget
    /// both hold that much (the common case, an r0 from a full buffer).
    #[inline(always)]
    fn take_buffered(&mut self, dst: &mut [u8]) -> bool {
        let n = dst.len();
        if n > self.budget || n > BUF_BYTES - self.used {
            return false;
        }
        self.copy_out(dst);
        true
    }

    /// Copy `dst.len()` bytes (at most what the buffer and budget hold)
    /// from the buffer.
    #[inline(always)]
    fn copy_out(&mut self, dst: &mut [u8]) {
        let start = self.used;
        let end = start + dst.len();
        let out = &mut aes::Block::slice_as_flattened_mut(&mut self.buf)[start..end];
        dst.copy_from_slice(out);
        // Handed-out bytes (secret r0 values) do not stay behind.
        out.fill(0);
        self.used = end;
        self.budget -= dst.len();
    }
}

impl State {
    /// Zero V and the keystream buffer (K's round keys: the `aes` crate's
    /// own `Drop`).
    fn wipe(&mut self) {
        self.v.zeroize();
        aes::Block::slice_as_flattened_mut(&mut self.buf).zeroize();
        #[cfg(test)]
        self.seed.zeroize();
    }
}

impl Drop for State {
    fn drop(&mut self) {
        self.wipe();
    }
}

std::thread_local! {
    /// This thread's generator (made on its first draw; dropped, and so
    /// wiped, when the thread exits).
    static STATE: RefCell<Option<State>> = const { RefCell::new(None) };
}

/// A handle to the calling thread's generator: AES-256-CTR keyed from the
/// operating system, reseeded every [`RESEED_BYTES`], fork-safe (see the
/// [module documentation](self)). Zero-sized; every draw uses the
/// generator of the thread it is made on, so the handle may be copied and
/// sent anywhere. Implements `rand_core`'s [`TryRng`] and
/// [`TryCryptoRng`] with `getrandom`'s error (like `getrandom::SysRng`,
/// which it replaces), so it goes into every `_with_rng` call.
///
/// ```
/// use blockmodes::rng::ThreadRng;
/// use blockmodes::rand_core::TryRng;
/// use blockmodes::{Aes128, xecb::XecbMac};
/// let mut rng = ThreadRng::default();
/// let mac = XecbMac::<Aes128>::new_from_slice(&[0x11; 16])?;
/// let tag = mac.mac_with_rng(&mut rng, b"pay 100 to bob")?;
/// mac.verify_tag(b"pay 100 to bob", &tag)?;
/// let mut nonce = [0u8; 16];
/// rng.try_fill_bytes(&mut nonce).map_err(|_| blockmodes::Error::Rng)?;
/// # Ok::<(), blockmodes::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct ThreadRng {
    _private: (),
}

/// The calling thread's generator, [`ThreadRng`] (the same as
/// `ThreadRng::default()`).
///
/// ```
/// use blockmodes::rng::thread_rng;
/// use blockmodes::rand_core::TryRng;
/// let mut rng = thread_rng();
/// let (a, b) = (rng.try_next_u64()?, rng.try_next_u64()?);
/// assert_ne!(a, b); // equal with probability 2^-64
/// # Ok::<(), getrandom::Error>(())
/// ```
pub fn thread_rng() -> ThreadRng {
    ThreadRng { _private: () }
}

impl ThreadRng {
    /// Fill `dst` from this thread's generator.
    #[inline]
    fn fill(dst: &mut [u8]) -> Result<(), getrandom::Error> {
        let stamp = fork::stamp();
        let drawn = STATE.try_with(|cell| {
            let mut slot = cell.try_borrow_mut().ok()?;
            let fast = match slot.as_mut() {
                Some(state) => state.stamp == stamp && state.take_buffered(dst),
                None => false,
            };
            Some(if fast {
                Ok(())
            } else {
                fill_from(&mut slot, stamp, dst)
            })
        });
        match drawn {
            Ok(Some(result)) => result,
            // The thread's generator is gone (thread teardown) or busy (a
            // draw inside a draw): the OS directly.
            _ => from_os(dst),
        }
    }
}

/// Fill `dst` from the OS (out of line: the draw's fast path stays small
/// enough to inline).
#[cold]
#[inline(never)]
fn from_os(dst: &mut [u8]) -> Result<(), getrandom::Error> {
    getrandom::fill(dst)
}

/// Fill `dst` from `slot`, (re)seeding it first if it is missing, was
/// seeded in another process or has spent its budget, and refilling its
/// buffer when empty (the draw's slow path).
#[cold]
#[inline(never)]
fn fill_from(
    slot: &mut Option<State>,
    stamp: fork::Stamp,
    mut dst: &mut [u8],
) -> Result<(), getrandom::Error> {
    while !dst.is_empty() {
        let state = match slot {
            Some(state) if state.stamp == stamp && state.budget > 0 => state,
            _ => {
                // Drop (and so wipe) the spent or inherited generator first:
                // if seeding fails, nothing of it survives to be used.
                *slot = None;
                slot.insert(State::seeded(stamp)?)
            }
        };
        if state.used == BUF_BYTES {
            state.refill();
        }
        let n = dst.len().min(state.budget).min(BUF_BYTES - state.used);
        let (now, rest) = dst.split_at_mut(n);
        state.copy_out(now);
        dst = rest;
    }
    Ok(())
}

impl TryRng for ThreadRng {
    type Error = getrandom::Error;

    #[inline]
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        let mut b = [0u8; 4];
        Self::fill(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    #[inline]
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        let mut b = [0u8; 8];
        Self::fill(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    #[inline]
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        Self::fill(dst)
    }
}

impl TryCryptoRng for ThreadRng {}

#[cfg(test)]
mod tests {
    use super::*;
    use cipher::BlockCipherEncrypt;

    /// This thread's generator's seed, K and V (for the tests only).
    fn key() -> Option<[u8; SEED_BYTES]> {
        STATE.with(|cell| cell.borrow().as_ref().map(|s| s.seed))
    }

    /// The first `n` bytes of AES-256-CTR under `seed`'s K from its V,
    /// computed independently: the `aes` crate enciphering one counter
    /// block at a time, V + i as a 128-bit big-endian integer (mod 2^128).
    fn keystream(seed: &[u8; SEED_BYTES], n: usize) -> Vec<u8> {
        let aes = aes::Aes256::new_from_slice(&seed[..32]).unwrap();
        let v = u128::from_be_bytes(seed[32..].try_into().unwrap());
        let mut out = Vec::new();
        for i in 0u128.. {
            if out.len() >= n {
                break;
            }
            let mut block = aes::Block::from(v.wrapping_add(i).to_be_bytes());
            aes.encrypt_block(&mut block);
            out.extend_from_slice(&block);
        }
        out.truncate(n);
        out
    }

    fn budget() -> Option<usize> {
        STATE.with(|cell| cell.borrow().as_ref().map(|s| s.budget))
    }

    fn draw(n: usize) -> Vec<u8> {
        let mut v = vec![0u8; n];
        thread_rng().try_fill_bytes(&mut v).unwrap();
        v
    }

    #[test]
    fn generator_state_is_wiped_on_drop() {
        fn zeroize_on_drop<T: zeroize::ZeroizeOnDrop>() {}
        zeroize_on_drop::<Aes256Enc>();
        // V and the keystream buffer: `State`'s own `Drop`, `wipe`.
        let mut seed = [7u8; SEED_BYTES];
        seed[32..].fill(0xff);
        let mut state = State::from_seed(&seed, fork::stamp());
        state.refill();
        assert!(state.buf.iter().all(|b| b != &aes::Block::default()));
        state.wipe();
        assert_eq!(state.v, 0);
        assert!(state.buf.iter().all(|b| b == &aes::Block::default()));
    }

    #[test]
    fn the_keystream_is_aes256_ctr() {
        // V just below 2^64 (the carry into the high half) and just below
        // 2^128 (the wrap to 0); draws of odd lengths across refills.
        for v_top in [
            [
                0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf0,
            ],
            [0xff; 16],
        ] {
            let mut seed = [0u8; SEED_BYTES];
            for (i, b) in seed[..32].iter_mut().enumerate() {
                *b = i as u8 * 7 + 1;
            }
            seed[32..].copy_from_slice(&v_top);
            let mut slot = Some(State::from_seed(&seed, fork::stamp()));
            let mut got = Vec::new();
            for len in [16, 1, 0, 495, 16, 17, 600, 1200, 3] {
                let mut d = vec![0u8; len];
                fill_from(&mut slot, fork::stamp(), &mut d).unwrap();
                got.extend_from_slice(&d);
            }
            assert_eq!(got, keystream(&seed, got.len()));
        }
    }

    #[test]
    fn seeded_on_first_draw_then_counts_down() {
        std::thread::spawn(|| {
            assert_eq!(key(), None);
            draw(16);
            assert!(key().is_some());
            assert_eq!(budget(), Some(RESEED_BYTES - 16));
            draw(100);
            assert_eq!(budget(), Some(RESEED_BYTES - 116));
        })
        .join()
        .unwrap();
    }

    #[test]
    fn reseeds_after_the_bound() {
        std::thread::spawn(|| {
            draw(RESEED_BYTES - 10);
            let first = key().unwrap();
            assert_eq!(budget(), Some(10));
            // 10 bytes from the old key, 22 from a new one.
            let v = draw(32);
            let second = key().unwrap();
            assert_ne!(first, second);
            assert_eq!(budget(), Some(RESEED_BYTES - 22));
            // The 22 bytes after the reseed are the new key's keystream from
            // its start (AES-256-CTR from the new V, computed apart).
            assert_eq!(&v[10..], &keystream(&second, 22)[..]);
            // A draw spanning several bounds reseeds each time.
            draw(2 * RESEED_BYTES + 5);
            assert_ne!(key().unwrap(), second);
            assert_eq!(budget(), Some(RESEED_BYTES - 27));
        })
        .join()
        .unwrap();
    }

    #[test]
    fn a_fork_generation_change_reseeds() {
        std::thread::spawn(|| {
            draw(16);
            let before = key().unwrap();
            let stamp = fork::stamp();
            fork::simulate_fork_handler();
            assert_ne!(fork::stamp(), stamp);
            draw(16);
            assert_ne!(key().unwrap(), before);
            assert_eq!(budget(), Some(RESEED_BYTES - 16));
        })
        .join()
        .unwrap();
    }

    #[test]
    fn linux_detects_forks_with_the_canary() {
        // MADV_WIPEONFORK exists since Linux 4.14; older kernels fall back
        // to the process id (correct, a system call slower).
        #[cfg(any(target_os = "linux", target_os = "android"))]
        eprintln!("wipe-on-fork canary in use: {}", fork::uses_canary());
    }
}
