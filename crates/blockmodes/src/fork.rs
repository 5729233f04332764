//! Fork detection: a process-wide [`Stamp`] that changes in every child
//! process, whatever made it.
//!
//! Two users: the thread RNG (`rng`: a thread's generator remembers the
//! stamp it was seeded under and reseeds when [`stamp`] returns another
//! one), and the multi-core paths (`par::install`: a child forked after
//! its parent ran them, whose inherited global pool has no threads in it,
//! runs them on a pool of its own). Three detectors, cheapest first:
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
//! # Set-up without a lock: a fork in the middle cannot block the child
//!
//! The detector is set up on the first draw and published in one atomic
//! pointer ([`Slot`]): a thread that finds it empty sets up a detector of
//! its own (registers the handler, maps a canary) and offers it with one
//! compare-and-swap; a thread that loses the race uses the winner's (its
//! own canary page, never published, is left mapped: one page per thread
//! that raced on the first draw). No thread ever *waits* for another, so
//! there is no "set-up running" state for a child to inherit. (The
//! `std::sync::OnceLock` used before had one: a `fork()` from another
//! thread while one thread ran the set-up left the child's `OnceLock`
//! marked as running by a thread that does not exist there, and the
//! child's first draw waited forever. The test
//! `a_fork_during_set_up_does_not_block_the_child` forks at exactly that
//! moment; with the `OnceLock` the child never exits.)
//!
//! What a child forked at any point of the set-up sees: either the empty
//! slot, and it sets up its own detector on its first draw; or a
//! published detector, which was complete before it was published. Every
//! thread that sets up registers the atfork handler itself before it
//! publishes, so a published detector implies the handler is registered in
//! every process that can see it (`fork` copies the handler list and the
//! slot together, and glibc serialises `pthread_atfork` with `fork`). A
//! race on the first draw, or a child forked in the middle of a set-up,
//! can register the handler more than once: the generation then rises by
//! more than one per fork, which changes the stamp just the same.
//!
//! # Why unsafe
//!
//! The three C calls (`pthread_atfork`, `mmap`, `madvise`, and `munmap` when
//! `madvise` fails) and turning the mapped page into a `&'static` atomic
//! (and back from the published pointer). They run once per process (once
//! per racing thread on the first draw); the per-draw path is safe code
//! (atomic loads, `std::process::id`) apart from reading the published
//! pointer. Besides the engine and the kernels, this is the only module
//! that allows `unsafe`.
#![allow(unsafe_code)]

use core::sync::atomic::{AtomicPtr, AtomicU32, Ordering};

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

/// How this process detects a fork; set up on the first draw.
static DETECTOR: Slot = Slot::new();

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

impl PartialEq for Detector {
    /// The same detector (a canary: the same word).
    fn eq(&self, other: &Self) -> bool {
        core::ptr::eq(encode(*self), encode(*other))
    }
}

impl Eq for Detector {}

/// Marks in the [`Slot`] for the detectors that have no canary.
static PID_MARK: AtomicU32 = AtomicU32::new(0);
#[cfg(not(unix))]
static NONE_MARK: AtomicU32 = AtomicU32::new(0);

/// A [`Detector`] published once, without a lock (see the module
/// documentation): null until set up, then the canary's address, or the
/// address of a mark for the other detectors. Never changed once set.
struct Slot(AtomicPtr<AtomicU32>);

impl Slot {
    const fn new() -> Self {
        Self(AtomicPtr::new(core::ptr::null_mut()))
    }

    /// The published detector, or `set_up()`'s offered with one
    /// compare-and-swap (the first offer wins; a loser's detector is
    /// dropped unused). Never waits for another thread.
    #[inline]
    fn get_or_set_up(&self, set_up: impl FnOnce() -> Detector) -> Detector {
        let published = self.0.load(Ordering::Acquire);
        if !published.is_null() {
            return decode(published);
        }
        self.offer(set_up())
    }

    #[cold]
    fn offer(&self, mine: Detector) -> Detector {
        match self.0.compare_exchange(
            core::ptr::null_mut(),
            encode(mine),
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            Ok(_) => mine,
            Err(theirs) => decode(theirs),
        }
    }
}

/// The slot's pointer for a detector.
fn encode(d: Detector) -> *mut AtomicU32 {
    match d {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        Detector::Canary(canary) => core::ptr::from_ref(canary).cast_mut(),
        #[cfg(unix)]
        Detector::Pid => core::ptr::from_ref(&PID_MARK).cast_mut(),
        #[cfg(not(unix))]
        Detector::None => core::ptr::from_ref(&NONE_MARK).cast_mut(),
    }
}

/// The detector of a non-null slot pointer made by [`encode`].
fn decode(p: *mut AtomicU32) -> Detector {
    #[cfg(unix)]
    if core::ptr::eq(p, &PID_MARK) {
        return Detector::Pid;
    }
    #[cfg(not(unix))]
    if core::ptr::eq(p, &NONE_MARK) {
        return Detector::None;
    }
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        // SAFETY: every pointer stored in a slot comes from `encode`, and
        // the only pointers `encode` makes besides the marks are canaries
        // from `wipe_on_fork_canary`: `&'static AtomicU32`s into a page
        // that is never unmapped.
        Detector::Canary(unsafe { &*p })
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    FALLBACK
}

/// The current process's stamp (sets the detectors up on the first call).
#[inline]
pub(crate) fn stamp() -> Stamp {
    let pid = match DETECTOR.get_or_set_up(setup) {
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

/// A value made once per process: the first caller in each process makes
/// it, and a child makes its own instead of using the one it inherited.
/// Published with one compare-and-swap, without a lock, as the detector is
/// (a lock held by another thread of the parent at the fork would block
/// the child for ever). The multi-core paths keep their pool in one
/// (`par::install`).
///
/// A value is never dropped once published (a child leaves its parent's
/// alone: it may refer to threads that do not exist in the child), so a
/// process keeps one value per ancestor that made one: a `fork` chain's
/// length, not a per-call cost.
#[cfg(feature = "rayon")]
pub(crate) struct PerProcess<T: 'static>(AtomicPtr<(Stamp, T)>);

#[cfg(feature = "rayon")]
impl<T: Sync + 'static> PerProcess<T> {
    /// Empty: the first [`get`](Self::get) of every process makes a value.
    pub(crate) const fn new() -> Self {
        Self(AtomicPtr::new(core::ptr::null_mut()))
    }

    /// This process's value; made by `make(inherited)` on the first call in
    /// this process, `inherited` telling whether an ancestor process had
    /// made one (whose copy is here but not for this process to use).
    /// Threads of one process racing on the first call may each make one:
    /// one is published, the others are dropped.
    pub(crate) fn get(&self, make: impl Fn(bool) -> T) -> &'static T {
        let stamp = stamp();
        let mut current = self.0.load(Ordering::Acquire);
        loop {
            // SAFETY: the pointer is null or came from `Box::into_raw`
            // below and was published, and a published value is never
            // freed or written again: a shared `'static` reference is valid.
            if let Some((made_in, value)) = unsafe { current.as_ref() }
                && *made_in == stamp
            {
                return value;
            }
            let made = std::boxed::Box::new((stamp, make(!current.is_null())));
            let new = std::boxed::Box::into_raw(made);
            match self
                .0
                .compare_exchange(current, new, Ordering::AcqRel, Ordering::Acquire)
            {
                // SAFETY: `new` is published: never freed from here on.
                // (The value it replaced, an ancestor's, is leaked.)
                Ok(_) => return unsafe { &(*new).1 },
                Err(other) => {
                    // Another thread of this process published first.
                    // SAFETY: `new` came from `Box::into_raw` above and was
                    // never published: this is its only owner.
                    drop(unsafe { std::boxed::Box::from_raw(new) });
                    current = other;
                }
            }
        }
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

/// Registers the atfork handler and maps the canary (once per process, or
/// once per thread that races on the first draw).
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
    if let Detector::Canary(_) = DETECTOR.get_or_set_up(setup) {
        return true;
    }
    false
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use core::sync::atomic::AtomicBool;
    use std::time::{Duration, Instant};

    /// A `fork()` from one thread while another is inside the set-up (held
    /// there until the fork is done): the child, where the setting-up
    /// thread does not exist, must get a detector on its first call and
    /// exit. Were the set-up guarded by a lock or a `OnceLock` (as it was),
    /// the child would wait forever: the parent gives it 10 s, then kills
    /// it and fails.
    #[test]
    fn a_fork_during_set_up_does_not_block_the_child() {
        static SLOT: Slot = Slot::new();
        static ENTERED: AtomicBool = AtomicBool::new(false);
        static FORKED: AtomicBool = AtomicBool::new(false);
        let setter = std::thread::spawn(|| {
            SLOT.get_or_set_up(|| {
                ENTERED.store(true, Ordering::SeqCst);
                while !FORKED.load(Ordering::SeqCst) {
                    std::thread::yield_now();
                }
                FALLBACK
            })
        });
        while !ENTERED.load(Ordering::SeqCst) {
            std::thread::yield_now();
        }
        // SAFETY: the child only runs the slot's atomic operations on a
        // set-up that allocates nothing, then `_exit`s: no lock another
        // thread of this process may hold is touched there.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            let d = SLOT.get_or_set_up(|| FALLBACK);
            // SAFETY: ends the child at once; nothing of the test harness
            // runs in it.
            unsafe { libc::_exit(if d == FALLBACK { 0 } else { 1 }) }
        }
        FORKED.store(true, Ordering::SeqCst);
        assert_eq!(setter.join().unwrap(), FALLBACK);
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut status = 0;
        loop {
            // SAFETY: polls our own child; `status` is a valid out-pointer.
            let r = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
            if r == pid {
                break;
            }
            assert_eq!(r, 0, "waitpid");
            if Instant::now() > deadline {
                // SAFETY: kills and reaps our own child.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                    libc::waitpid(pid, &mut status, 0);
                }
                panic!("the child forked during the set-up is blocked");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "child status {status:#x}"
        );
    }

    /// Racing first draws all end with the one published detector.
    #[test]
    fn racing_set_ups_agree() {
        static SLOT: Slot = Slot::new();
        let got: Vec<Detector> = (0..4)
            .map(|_| std::thread::spawn(|| SLOT.get_or_set_up(setup)))
            .collect::<Vec<_>>()
            .into_iter()
            .map(|t| t.join().unwrap())
            .collect();
        assert!(got.iter().all(|d| *d == got[0]), "{got:?}");
        assert_eq!(SLOT.get_or_set_up(|| unreachable!()), got[0]);
    }
}
