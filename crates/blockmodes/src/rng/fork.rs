//! Fork detection for the thread RNG: a process-wide [`Stamp`] that changes
//! in every child process, whatever made it.
//!
//! A thread's generator remembers the stamp it was seeded under and reseeds
//! when [`stamp`] returns another one. Three detectors, cheapest first:
//!
//! * **fork generation** (Linux, Android, Apple, the BSDs, Solaris and
//!   illumos): a process-wide counter that a `pthread_atfork` child handler
//!   increments. `fork()` (and so Python's `os.fork` and
//!   `multiprocessing`, `nix::unistd::fork`) runs the handler in the child
//!   before any of its code. Raw `clone`/`fork` system calls and glibc's `_Fork`
//!   skip the handlers, hence:
//! * **wipe-on-fork canary** (Linux and Android): one word in a page
//!   marked `MADV_WIPEONFORK` (Linux 4.14). The kernel hands every child
//!   that gets a copy of the address space (any `fork`/`clone` without
//!   `CLONE_VM`, with or without the C library's handlers) a zero-filled
//!   page; the parent keeps 1 there, so reading 0 means "I am a new
//!   process". One atomic load per draw: no system call. This is how the
//!   kernel's own `vgetrandom` states and OpenBSD's `arc4random`
//!   (`MAP_INHERIT_ZERO`) detect forks.
//! * **process id** where there is no canary (other Unix systems, or a
//!   Linux kernel older than 4.14, where `madvise` refuses the flag):
//!   `getpid()` is compared on every draw, as OpenSSL 3's DRBG does. It
//!   costs a system call (72 ns measured on the benchmark machine, 20
//!   times a 16-byte AES-256-CTR draw and a third of the `getrandom` call
//!   the thread RNG replaces), which is why it is only the fallback. Alone
//!   it would miss a grandchild that reuses the process id of an ancestor
//!   which seeded the state (a double fork after the ancestor exited): the
//!   fork generation covers that case where `pthread_atfork` exists.
//!
//! `vfork` needs no detection: the child borrows the parent's memory, so a
//! draw in it advances the parent's own generator instead of copying it.
//! Targets without `fork` (Windows, WASI, ...) have a constant stamp.
//!
//! # Why unsafe
//!
//! The three C calls (`pthread_atfork`, `mmap`, `madvise`, and `munmap` when
//! `madvise` fails) and turning the mapped page into a `&'static` atomic.
//! They run once per process, inside a [`OnceLock`]; the per-draw path is
//! safe code (atomic loads, `std::process::id`). This module is the only
//! place in `rng` that allows `unsafe`.
#![allow(unsafe_code)]

#[cfg(any(target_os = "linux", target_os = "android"))]
use core::sync::atomic::AtomicU32;
use core::sync::atomic::Ordering;
use std::sync::OnceLock;

/// The fork generation's counter: 64-bit where the target has 64-bit
/// atomics (it must be lock-free to be touched in the atfork handler).
#[cfg(target_has_atomic = "64")]
type AtomicGeneration = core::sync::atomic::AtomicU64;
#[cfg(not(target_has_atomic = "64"))]
type AtomicGeneration = core::sync::atomic::AtomicUsize;

/// Which process a generator was seeded in: equal stamps, same process
/// (and no fork in between on this thread's lineage).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stamp {
    /// The fork generation (0 without `pthread_atfork` and canary).
    generation: u64,
    /// `getpid()` where the process id is the detector, else 0.
    pid: u32,
}

/// Incremented in every child by the atfork handler and when the canary
/// reads 0.
static GENERATION: AtomicGeneration = AtomicGeneration::new(0);

/// How this process detects a fork; set up once, on the first draw.
static DETECTOR: OnceLock<Detector> = OnceLock::new();

#[derive(Clone, Copy, Debug)]
enum Detector {
    /// A word in a wipe-on-fork page: 1 in the process that set it, 0 in
    /// a child until its first draw sets it again.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    Canary(&'static AtomicU32),
    /// Compare `getpid()`.
    #[cfg(unix)]
    Pid,
    /// No `fork` on this target.
    #[cfg(not(unix))]
    None,
}

/// The current process's stamp (sets the detectors up on the first call).
#[inline]
pub(crate) fn stamp() -> Stamp {
    let pid = match DETECTOR.get_or_init(setup) {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        Detector::Canary(canary) => {
            if canary.load(Ordering::Acquire) == 0 {
                // A new process that the atfork handler may not have seen:
                // count it, then re-arm the canary for our own children.
                // (Bump before re-arming: a thread that reads 1 also reads
                // the new generation.)
                GENERATION.fetch_add(1, Ordering::AcqRel);
                canary.store(1, Ordering::Release);
            }
            0
        }
        #[cfg(unix)]
        Detector::Pid => std::process::id(),
        #[cfg(not(unix))]
        Detector::None => 0,
    };
    Stamp {
        generation: generation(),
        pid,
    }
}

#[cfg(target_has_atomic = "64")]
fn generation() -> u64 {
    GENERATION.load(Ordering::Acquire)
}

#[cfg(not(target_has_atomic = "64"))]
fn generation() -> u64 {
    GENERATION.load(Ordering::Acquire) as u64
}

/// Registers the atfork handler and maps the canary (once per process).
fn setup() -> Detector {
    register_atfork();
    #[cfg(any(target_os = "linux", target_os = "android"))]
    if let Some(canary) = wipe_on_fork_canary() {
        return Detector::Canary(canary);
    }
    FALLBACK
}

/// The detector without a canary: the process id on Unix, none elsewhere.
#[cfg(unix)]
const FALLBACK: Detector = Detector::Pid;
#[cfg(not(unix))]
const FALLBACK: Detector = Detector::None;

/// The atfork child handler: runs in the child of every `fork()`, before
/// `fork()` returns there. A lock-free atomic increment is
/// async-signal-safe, as the handler must be.
extern "C" fn forked_child() {
    GENERATION.fetch_add(1, Ordering::Relaxed);
}

#[cfg(any(
    target_os = "linux",
    target_os = "android",
    target_vendor = "apple",
    target_os = "freebsd",
    target_os = "netbsd",
    target_os = "openbsd",
    target_os = "dragonfly",
    target_os = "solaris",
    target_os = "illumos",
))]
fn register_atfork() {
    // SAFETY: `pthread_atfork` only records the three function pointers; the
    // one given is a plain `extern "C" fn()` that lives as long as the
    // program and only touches a static atomic. A failure (ENOMEM) leaves
    // the canary or process-id detector in charge.
    let _ = unsafe { libc::pthread_atfork(None, None, Some(forked_child)) };
}

#[cfg(not(any(
    target_os = "linux",
    target_os = "android",
    target_vendor = "apple",
    target_os = "freebsd",
    target_os = "netbsd",
    target_os = "openbsd",
    target_os = "dragonfly",
    target_os = "solaris",
    target_os = "illumos",
)))]
fn register_atfork() {
    // No `pthread_atfork` in `libc` for this target (or no `fork` at all):
    // the process id (Unix) stands alone.
    let _ = forked_child;
}

/// A word in a fresh page marked `MADV_WIPEONFORK`, set to 1; `None` if
/// the kernel refuses (before Linux 4.14).
#[cfg(any(target_os = "linux", target_os = "android"))]
fn wipe_on_fork_canary() -> Option<&'static AtomicU32> {
    /// One page (the kernel rounds the length up to its page size).
    const LEN: usize = 4096;
    // SAFETY: an anonymous private mapping at an address of the kernel's
    // choosing: no file, no hint, nothing of ours overlapped. The result is
    // checked against MAP_FAILED before any use.
    let page = unsafe {
        libc::mmap(
            core::ptr::null_mut(),
            LEN,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if page == libc::MAP_FAILED {
        return None;
    }
    // SAFETY: `page` is the page-aligned start of the LEN-byte mapping made
    // above, which nothing else knows of.
    if unsafe { libc::madvise(page, LEN, libc::MADV_WIPEONFORK) } != 0 {
        // SAFETY: the same mapping, unused, given back whole.
        let _ = unsafe { libc::munmap(page, LEN) };
        return None;
    }
    // SAFETY: the mapping is page-aligned (so aligned for AtomicU32), at
    // least 4 bytes long, readable and writable, zero-filled (a valid
    // AtomicU32 holding 0), never unmapped (it lives as long as the
    // process: 'static), and only ever accessed through this atomic.
    let canary: &'static AtomicU32 = unsafe { &*page.cast::<AtomicU32>() };
    canary.store(1, Ordering::Release);
    Some(canary)
}

/// The tests' view of the fork handler: what a `fork()` does to the
/// generation, without forking.
#[cfg(test)]
pub(crate) fn simulate_fork_handler() {
    forked_child();
}

/// Whether this process detects forks with the wipe-on-fork canary (the
/// tests report it).
#[cfg(test)]
pub(crate) fn uses_canary() -> bool {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    if let Detector::Canary(_) = DETECTOR.get_or_init(setup) {
        return true;
    }
    false
}
