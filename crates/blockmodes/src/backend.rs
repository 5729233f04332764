//! Which AES the modes run: the `aes` crate through the generic path, or
//! this crate's own x86-64 kernels (`aesni`) with the mode's work fused
//! into the rounds.
//!
//! The choice is made once, at key setup from key bytes (`new_from_slice`,
//! `KeyInit::new`): a mode keyed with `C` = [`crate::Aes128`],
//! [`crate::Aes192`] or [`crate::Aes256`] on a CPU with AES-NI also expands
//! the key for the fused kernels (see `aesni::key_for`). Any other cipher,
//! a cipher handed over already keyed (`from_cipher`, which has no key
//! bytes), or a CPU without AES-NI keeps the generic path. Both paths
//! compute the same function; the tests run every vector on each.
//!
//! [`force`] is the tests' switch: it applies to keys set up afterwards on
//! the calling thread only (tests run in parallel threads); it needs the
//! `std` feature (per-thread state) and does nothing without it. Not part
//! of the public API.

#[cfg(feature = "std")]
use core::cell::Cell;

/// An AES implementation a key set up on this thread may use.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The widest the CPU runs (the default): VAES-512, else AES-NI, else
    /// the generic path.
    Auto,
    /// The generic path (the `aes` crate behind the `cipher` traits).
    Generic,
    /// The fused kernels on AES-NI alone (one block per xmm register), even
    /// where the CPU has VAES-512.
    AesNi,
}

#[cfg(feature = "std")]
std::thread_local! {
    static FORCED: Cell<Backend> = const { Cell::new(Backend::Auto) };
    static FUSED_KEYS: Cell<u64> = const { Cell::new(0) };
}

/// How many keys set up on this thread so far took the fused path (the
/// tests' check that a path they force is the one they get).
#[doc(hidden)]
pub fn fused_keys() -> u64 {
    #[cfg(feature = "std")]
    return FUSED_KEYS.with(Cell::get);
    #[cfg(not(feature = "std"))]
    0
}

/// Count a key set up for the fused path.
#[cfg(target_arch = "x86_64")]
pub(crate) fn count_fused_key() {
    #[cfg(feature = "std")]
    FUSED_KEYS.with(|c| c.set(c.get().wrapping_add(1)));
}

/// Make keys set up afterwards on this thread use `backend` (where the CPU
/// runs it; otherwise the next lower one). Returns the previous setting.
#[doc(hidden)]
pub fn force(backend: Backend) -> Backend {
    #[cfg(feature = "std")]
    return FORCED.with(|f| f.replace(backend));
    #[cfg(not(feature = "std"))]
    {
        let _ = backend;
        Backend::Auto
    }
}

/// The current setting of [`force`] on this thread.
#[cfg(target_arch = "x86_64")]
pub(crate) fn forced() -> Backend {
    #[cfg(feature = "std")]
    return FORCED.with(Cell::get);
    #[cfg(not(feature = "std"))]
    Backend::Auto
}

/// The backends this CPU runs, each distinct: always
/// [`Backend::Generic`]; [`Backend::AesNi`] with AES-NI; [`Backend::Auto`]
/// when it is wider than AES-NI (VAES-512).
#[doc(hidden)]
pub fn available() -> &'static [Backend] {
    #[cfg(target_arch = "x86_64")]
    match crate::aesni::detect() {
        None => {}
        Some(crate::aesni::Level::AesNi) => return &[Backend::Generic, Backend::AesNi],
        Some(crate::aesni::Level::Vaes512) => {
            return &[Backend::Generic, Backend::AesNi, Backend::Auto];
        }
    }
    &[Backend::Generic]
}
