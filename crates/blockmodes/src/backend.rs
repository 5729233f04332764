//! Which AES the modes run: the `aes` crate through the generic path, or
//! this crate's own engine with the mode's work fused into the rounds, at
//! one of its tiers: x86-64's (`aesni`) or ARMv8's (`armv8`).
//!
//! # Tiers
//!
//! | [`Tier`] | name | what runs |
//! | --- | --- | --- |
//! | [`Tier::Generic`] | `generic` | the `aes` crate behind the `cipher` traits |
//! | [`Tier::Armv8`] | `armv8` | aarch64: the engine on the ARMv8 Crypto Extensions (`AESE`/`AESMC`), one block per NEON register |
//! | [`Tier::AesNi`] | `aesni` | the engine on AES-NI + PCLMULQDQ, one block per xmm register |
//! | [`Tier::Vaes256`] | `vaes256` | VAES + VPCLMULQDQ + AVX2: two blocks per ymm register (no AVX-512) |
//! | [`Tier::Vaes512`] | `vaes512` | VAES + AVX-512F/BW: four blocks per zmm register |
//!
//! The choice is made once, at key setup from key bytes (`new_from_slice`,
//! `KeyInit::new`): a mode keyed with `C` = [`crate::Aes128`],
//! [`crate::Aes192`] or [`crate::Aes256`] on a CPU with AES-NI also expands
//! the key for the engine, at the highest tier the CPU runs (see
//! `aesni::key_for`, `armv8::key_for`), lowered by the cap below. Any
//! other cipher, a cipher handed over already keyed (`from_cipher`, which
//! has no key bytes), or a CPU without AES-NI (x86-64) or the ARMv8 AES
//! instructions (aarch64) keeps the generic path. Every mode has its
//! engine path on both architectures' tiers. Every tier computes the same
//! function; the tests run every vector on each tier the CPU has.
//!
//! # The cap: `BLOCKMODES_CPU`
//!
//! With the `std` feature, the environment variable
//! `BLOCKMODES_CPU=generic|armv8|aesni|vaes256|vaes512` caps the tier of every
//! key set up in the process: it lowers the tier and never raises it (as
//! OpenSSL's `OPENSSL_ia32cap` does), so a CPU without VAES stays on
//! `aesni` even with `BLOCKMODES_CPU=vaes512`. It is read once, at the first
//! key setup (later changes to the environment are not seen). The value is
//! compared ignoring ASCII case and surrounding white space; unset or empty
//! means no cap. **Any other value caps at `generic`**: a cap exists to
//! keep code off the faster tiers (to test a lower tier, or to work around
//! a fault), so a misspelt one must not leave the widest tier running, and
//! a library has no good place to print a warning; `blockmodes bench`
//! names the tier in use in its header, where a typo shows. Without `std`
//! there is no environment and the CPU decides.
//!
//! [`set_cap`] lowers the same cap from code (`blockmodes bench --cpu`).
//!
//! The tiers are ordered `generic < armv8 < aesni < vaes256 < vaes512`; a
//! CPU runs `generic` and its own architecture's tiers only. So on aarch64
//! every x86 name leaves `armv8` running (a cap never raises), and on
//! x86-64 `armv8` caps at `generic`.
//!
//! The cap governs the engine's tiers only: the `aes` crate on the generic
//! path, and StE's AVX-512 swap (`disk/simd.rs`, used by StE's fixed-tweak
//! batches whatever the cipher), keep their own CPU detection. The generic
//! path's whitening is otherwise portable Rust.
//!
//! [`force`] is the tests' switch: it applies to keys set up afterwards on
//! the calling thread only (tests run in parallel threads), within the cap;
//! it needs the `std` feature (per-thread state) and does nothing without
//! it. Not part of the public API, nor is anything else in this module.

#[cfg(feature = "std")]
use core::cell::Cell;

/// A tier of the AES engine, lowest first (see the module docs).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tier {
    /// The `aes` crate behind the `cipher` traits.
    Generic,
    /// aarch64: the ARMv8 Crypto Extensions (`aes`) and NEON, one block
    /// per register.
    Armv8,
    /// AES-NI and PCLMULQDQ: one block per xmm register.
    AesNi,
    /// VAES, VPCLMULQDQ and AVX2: two blocks per ymm register.
    Vaes256,
    /// VAES and AVX-512F/BW: four blocks per zmm register.
    Vaes512,
}

impl Tier {
    /// Every tier, lowest first.
    pub const ALL: [Tier; 5] = [
        Tier::Generic,
        Tier::Armv8,
        Tier::AesNi,
        Tier::Vaes256,
        Tier::Vaes512,
    ];

    /// The tiers this architecture has, lowest first (`generic` and its
    /// own).
    #[cfg(target_arch = "aarch64")]
    const ARCH: &'static [Tier] = &[Tier::Generic, Tier::Armv8];
    #[cfg(target_arch = "x86_64")]
    const ARCH: &'static [Tier] = &[Tier::Generic, Tier::AesNi, Tier::Vaes256, Tier::Vaes512];
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    const ARCH: &'static [Tier] = &[Tier::Generic];

    /// The tier's name, as `BLOCKMODES_CPU` and `blockmodes bench --cpu`
    /// spell it.
    ///
    /// ```
    /// use blockmodes::backend::Tier;
    /// assert_eq!(Tier::Vaes256.name(), "vaes256");
    /// assert_eq!(Tier::parse(" AESNI "), Some(Tier::AesNi));
    /// assert_eq!(Tier::parse("armv8"), Some(Tier::Armv8));
    /// assert_eq!(Tier::parse("avx2"), None);
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Tier::Generic => "generic",
            Tier::Armv8 => "armv8",
            Tier::AesNi => "aesni",
            Tier::Vaes256 => "vaes256",
            Tier::Vaes512 => "vaes512",
        }
    }

    /// The tier named `s` (ASCII case ignored, surrounding white space
    /// trimmed), or `None`.
    pub fn parse(s: &str) -> Option<Tier> {
        let s = s.trim();
        Tier::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(s))
    }

    /// The highest tier this CPU runs (the cap not applied).
    pub fn cpu() -> Tier {
        #[cfg(target_arch = "x86_64")]
        if let Some(level) = crate::aesni::detect() {
            return tier_of(level);
        }
        #[cfg(target_arch = "aarch64")]
        if crate::armv8::detect() {
            return Tier::Armv8;
        }
        Tier::Generic
    }

    /// The tier a key set up now on this thread takes: the lowest of the
    /// CPU's ([`Tier::cpu`]), the cap ([`cap`]) and [`force`]'s.
    pub fn current() -> Tier {
        let forced = match forced() {
            Backend::Auto => Tier::Vaes512,
            Backend::Generic => Tier::Generic,
            Backend::Armv8 => Tier::Armv8,
            Backend::AesNi => Tier::AesNi,
            Backend::Vaes256 => Tier::Vaes256,
            Backend::Vaes512 => Tier::Vaes512,
        };
        Tier::cpu().min(cap()).min(forced)
    }
}

impl core::fmt::Display for Tier {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// An AES implementation a key set up on this thread may use ([`force`]).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The highest tier the CPU runs under the cap (the default).
    Auto,
    /// The generic path (the `aes` crate behind the `cipher` traits).
    Generic,
    /// The engine on the ARMv8 Crypto Extensions (aarch64).
    Armv8,
    /// The engine on AES-NI alone (one block per xmm register), even where
    /// the CPU has VAES.
    AesNi,
    /// The engine on VAES-256 (two blocks per ymm register), even where the
    /// CPU has VAES-512.
    Vaes256,
    /// The engine on VAES-512.
    Vaes512,
}

impl From<Tier> for Backend {
    fn from(t: Tier) -> Backend {
        match t {
            Tier::Generic => Backend::Generic,
            Tier::Armv8 => Backend::Armv8,
            Tier::AesNi => Backend::AesNi,
            Tier::Vaes256 => Backend::Vaes256,
            Tier::Vaes512 => Backend::Vaes512,
        }
    }
}

#[cfg(feature = "std")]
std::thread_local! {
    static FORCED: Cell<Backend> = const { Cell::new(Backend::Auto) };
}

/// The cap [`set_cap`] lowered (a [`Tier`] as its index in [`Tier::ALL`]).
#[cfg(feature = "std")]
static SET_CAP: core::sync::atomic::AtomicU8 = core::sync::atomic::AtomicU8::new(4);

/// `BLOCKMODES_CPU`, read once.
#[cfg(feature = "std")]
fn env_cap() -> Tier {
    static ENV: std::sync::OnceLock<Tier> = std::sync::OnceLock::new();
    *ENV.get_or_init(|| match std::env::var_os("BLOCKMODES_CPU") {
        None => Tier::Vaes512,
        Some(v) => match v.to_str() {
            Some(s) if s.trim().is_empty() => Tier::Vaes512,
            Some(s) => Tier::parse(s).unwrap_or(Tier::Generic),
            None => Tier::Generic,
        },
    })
}

/// The process's cap on the tier: `BLOCKMODES_CPU` (read once) and
/// [`set_cap`], the lower of the two; [`Tier::Vaes512`] (no cap) without
/// `std`.
pub fn cap() -> Tier {
    #[cfg(feature = "std")]
    {
        let set = Tier::ALL[usize::from(SET_CAP.load(core::sync::atomic::Ordering::Relaxed))];
        env_cap().min(set)
    }
    #[cfg(not(feature = "std"))]
    Tier::Vaes512
}

/// Lower the process's cap to `tier` for keys set up afterwards, on every
/// thread (as `BLOCKMODES_CPU` would; never raises it). Needs the `std`
/// feature; does nothing without it.
pub fn set_cap(tier: Tier) {
    #[cfg(feature = "std")]
    SET_CAP.fetch_min(tier as u8, core::sync::atomic::Ordering::Relaxed);
    #[cfg(not(feature = "std"))]
    let _ = tier;
}

/// How many keys set up on this thread so far took the fused path (the
/// tests' check that a path they force is the one they get).
#[doc(hidden)]
pub fn fused_keys() -> u64 {
    #[cfg(feature = "std")]
    return crate::engine::FUSED_KEYS.with(Cell::get);
    #[cfg(not(feature = "std"))]
    0
}

/// The engine's expanded key on this architecture (an [`Engine`] holds an
/// `Option` of it beside its cipher; [`key_for`] makes one).
#[cfg(target_arch = "x86_64")]
pub(crate) use crate::aesni::AesKey;
#[cfg(target_arch = "aarch64")]
pub(crate) use crate::armv8::AesKey;

/// What a mode keeps beside the engine's key (EME2's table, EtE's pair):
/// an `Option<T>` on the engine's architectures; elsewhere, where no engine
/// key exists, an empty zero-sized stand-in, so that the field costs no
/// memory there and the mode's code needs no `#[cfg]`.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[derive(Clone)]
pub(crate) struct Beside<T>(Option<T>);

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
impl<T> Beside<T> {
    /// Keep `value`.
    #[inline(always)]
    pub(crate) fn new(value: Option<T>) -> Self {
        Self(value)
    }

    /// The value kept, if any.
    #[inline(always)]
    pub(crate) fn get(&self) -> Option<&T> {
        self.0.as_ref()
    }
}

/// (No engine key here: nothing is kept.)
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
#[derive(Clone)]
pub(crate) struct Beside<T>(core::marker::PhantomData<T>);

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
impl<T> Beside<T> {
    /// Always `None` here (there is no engine key to be beside).
    #[inline(always)]
    pub(crate) fn new(_: Option<T>) -> Self {
        Self(core::marker::PhantomData)
    }

    #[inline(always)]
    pub(crate) fn get(&self) -> Option<&T> {
        None
    }
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const _: () = assert!(core::mem::size_of::<Beside<[crate::Block; 256]>>() == 0);

/// OCB 1.0's and PMAC's view of the engine's key and its Gray-code table.
pub(crate) type GrayView<'a> = crate::engine::GrayView<'a, AesKey>;

/// EtE's StE-over-XEX pair on the engine's key (`engine::SteXex` over
/// the architecture's `AesKey`; elsewhere it never exists, as its key).
pub(crate) type SteXex = crate::engine::SteXex<AesKey>;

/// Off the engine's architectures there is no engine key: an uninhabited
/// type, so that [`Engine::aes`] is always `None` and its callers need no
/// `#[cfg]`.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
#[derive(Clone, Debug)]
pub(crate) enum AesKey {}

/// The engine key's calls that the modes' fused drivers make, so that the
/// drivers build on every target (none can run here: there is no key).
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
impl AesKey {
    pub(crate) fn encrypt_block(&self, _: &crate::Block) -> crate::Block {
        match *self {}
    }

    pub(crate) fn decrypt_block(&self, _: &crate::Block) -> crate::Block {
        match *self {}
    }

    pub(crate) fn ecb(&self, _: crate::engine::Dir, _: crate::engine::Io<'_, '_>) {
        match *self {}
    }

    pub(crate) fn sigma(&self, _: crate::engine::Offsets<'_>, _: &[crate::Block]) -> crate::Block {
        match *self {}
    }

    pub(crate) fn encrypt_be(&self, _: u128) -> crate::Block {
        match *self {}
    }

    pub(crate) fn xex_units(
        &self,
        _: crate::engine::Dir,
        _: u128,
        _: usize,
        _: crate::engine::Io<'_, '_>,
    ) -> bool {
        match *self {}
    }

    pub(crate) fn whiten(
        &self,
        _: crate::engine::Dir,
        _: crate::engine::Offsets<'_>,
        _: bool,
        _: crate::engine::Io<'_, '_>,
    ) -> crate::Block {
        match *self {}
    }

    pub(crate) fn ocb_blocks(
        &self,
        _: crate::engine::Dir,
        _: &crate::engine::GrayTable,
        _: &crate::Block,
        _: crate::engine::Io<'_, '_>,
        _: &mut crate::Block,
    ) -> crate::Block {
        match *self {}
    }

    #[cfg(feature = "alloc")]
    pub(crate) fn ocb_blocks_append(
        &self,
        _: crate::engine::Dir,
        _: &crate::engine::GrayTable,
        _: &crate::Block,
        _: &[crate::Block],
        _: &mut alloc::vec::Vec<u8>,
        _: &mut crate::Block,
    ) -> crate::Block {
        match *self {}
    }

    pub(crate) fn xecb_sum(
        &self,
        _: u128,
        _: u128,
        _: &[crate::Block],
        _: Option<&crate::Block>,
    ) -> crate::Block {
        match *self {}
    }

    pub(crate) fn sigma_tag(
        &self,
        _: &crate::engine::GrayTable,
        _: &[crate::Block],
        _: &crate::Block,
    ) -> Option<crate::Block> {
        match *self {}
    }

    pub(crate) fn wide_first(
        &self,
        _: crate::engine::Dir,
        _: &[crate::Block],
        _: crate::engine::Io<'_, '_>,
    ) -> crate::Block {
        match *self {}
    }

    pub(crate) fn wide_last(
        &self,
        _: crate::engine::Dir,
        _: &crate::Block,
        _: &[crate::Block],
        _: crate::engine::Io<'_, '_>,
    ) {
        match *self {}
    }

    pub(crate) fn wide_first_mid(
        &self,
        _: crate::engine::Dir,
        _: &[crate::Block],
        _: &crate::Block,
        _: &crate::Block,
        _: &mut [crate::Block],
    ) -> Option<crate::Block> {
        match *self {}
    }

    pub(crate) fn wide_units(
        &self,
        _: crate::engine::Dir,
        _: &[crate::Block],
        _: &crate::Block,
        _: usize,
        _: &mut [crate::Block],
        _: &[crate::Block],
    ) -> bool {
        match *self {}
    }

    pub(crate) fn ctr32(
        &self,
        _: u128,
        _: cipher::inout::InOutBuf<'_, '_, u8>,
        _: Option<u128>,
    ) -> crate::Block {
        match *self {}
    }

    #[cfg(feature = "alloc")]
    pub(crate) fn ctr32_append(
        &self,
        _: u128,
        _: &[u8],
        _: &mut alloc::vec::Vec<u8>,
        _: Option<u128>,
    ) -> crate::Block {
        match *self {}
    }

    pub(crate) fn xcbc_chain<const CHECK: bool>(
        &self,
        _: u128,
        _: &crate::Block,
        _: usize,
        _: impl Fn(usize) -> crate::Block,
        _: &mut [crate::Block],
    ) {
        match *self {}
    }

    pub(crate) fn xcbc_decrypt(
        &self,
        _: u128,
        _: u128,
        _: &crate::Block,
        _: &[crate::Block],
        _: &mut [crate::Block],
        _: Option<&mut crate::Block>,
    ) -> crate::Block {
        match *self {}
    }

    pub(crate) fn has_chains(&self) -> bool {
        match *self {}
    }

    pub(crate) fn xcbc_strided(
        &self,
        _: &mut crate::engine::Chains<'_, AesKey>,
        _: crate::engine::ChainIo<'_, '_>,
    ) -> bool {
        match *self {}
    }
}

/// EtE's StE-over-XEX passes (`crate::engine::SteXex`), which no key runs
/// here either.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
impl crate::engine::SteKey for AesKey {
    fn rounds(&self) -> usize {
        match *self {}
    }

    fn round_keys(&self, _: crate::engine::Dir) -> &[crate::Block; 15] {
        match *self {}
    }

    fn ste_pass(
        ste: &crate::engine::SteXex<Self>,
        _: crate::engine::Dir,
        _: bool,
        _: &[crate::Block],
        _: &crate::Block,
        _: crate::engine::Io<'_, '_>,
    ) -> crate::Block {
        match ste.key {}
    }

    fn ste_first_mid(
        ste: &crate::engine::SteXex<Self>,
        _: crate::engine::Dir,
        _: &[crate::Block],
        _: &crate::Block,
        _: &crate::Block,
        _: &mut [crate::Block],
    ) -> Option<crate::Block> {
        match ste.key {}
    }

    fn ste_units(
        ste: &crate::engine::SteXex<Self>,
        _: crate::engine::Dir,
        _: &[crate::Block],
        _: &crate::Block,
        _: usize,
        _: &mut [crate::Block],
        _: &[crate::Block],
    ) -> bool {
        match ste.key {}
    }
}

/// No engine here: the generic path.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub(crate) fn key_for<C: crate::oracle::BlockCipher128>(_: &[u8], _: &C) -> Option<AesKey> {
    None
}

/// The engine's key for a mode keyed with the cipher `C` and the key bytes
/// `key`, on the highest tier that this CPU runs and that the cap
/// ([`cap`]) and [`force`] allow on this thread; `None` (the mode keeps
/// `C`) on `generic`, or where `C` is not one of the `aes` crate's AES
/// types or the two disagree (`aesni::key_for`, `armv8::key_for`).
#[cfg(target_arch = "x86_64")]
pub(crate) fn key_for<C: crate::oracle::BlockCipher128>(key: &[u8], cipher: &C) -> Option<AesKey> {
    use crate::aesni::Level;
    let max = match Tier::current() {
        // (`armv8` is below every x86 tier: as a cap it means `generic` here.)
        Tier::Generic | Tier::Armv8 => return None,
        Tier::AesNi => Level::AesNi,
        Tier::Vaes256 => Level::Vaes256,
        Tier::Vaes512 => Level::Vaes512,
    };
    crate::aesni::key_for(key, cipher, max)
}

/// As on x86-64: the ARMv8 engine's key unless the tier allowed is
/// `generic`.
#[cfg(target_arch = "aarch64")]
pub(crate) fn key_for<C: crate::oracle::BlockCipher128>(key: &[u8], cipher: &C) -> Option<AesKey> {
    if Tier::current() < Tier::Armv8 {
        return None;
    }
    crate::armv8::key_for(key, cipher)
}

/// The tier an engine key runs on.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn key_tier(k: &AesKey) -> Tier {
    tier_of(k.level())
}

/// (No engine key exists here.)
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn key_tier(k: &AesKey) -> Tier {
    match *k {}
}

/// The tier an engine key's level is.
#[cfg(target_arch = "x86_64")]
fn tier_of(level: crate::aesni::Level) -> Tier {
    use crate::aesni::Level;
    match level {
        Level::AesNi => Tier::AesNi,
        Level::Vaes256 => Tier::Vaes256,
        Level::Vaes512 => Tier::Vaes512,
    }
}

/// The tier an engine key's level is.
#[cfg(target_arch = "aarch64")]
fn tier_of(level: crate::armv8::Level) -> Tier {
    match level {
        crate::armv8::Level::Armv8 => Tier::Armv8,
    }
}

/// Make keys set up afterwards on this thread use `backend` (where the CPU
/// runs it under the cap; otherwise the next lower one). Returns the
/// previous setting.
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
fn forced() -> Backend {
    #[cfg(feature = "std")]
    return FORCED.with(Cell::get);
    #[cfg(not(feature = "std"))]
    Backend::Auto
}

/// The tiers this CPU runs under the cap, lowest first, each as the
/// [`Backend`] that forces it: always [`Backend::Generic`]; then
/// [`Backend::AesNi`], [`Backend::Vaes256`], [`Backend::Vaes512`] (x86-64)
/// or [`Backend::Armv8`] (aarch64) as the CPU has them (the tests run
/// every vector on each).
#[doc(hidden)]
pub fn available() -> &'static [Backend] {
    #[cfg(target_arch = "aarch64")]
    const ALL: &[Backend] = &[Backend::Generic, Backend::Armv8];
    #[cfg(target_arch = "x86_64")]
    const ALL: &[Backend] = &[
        Backend::Generic,
        Backend::AesNi,
        Backend::Vaes256,
        Backend::Vaes512,
    ];
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    const ALL: &[Backend] = &[Backend::Generic];
    &ALL[..arch_count()]
}

/// How many of [`Tier::ARCH`] this CPU runs under the cap (at least one:
/// `generic`).
fn arch_count() -> usize {
    let top = Tier::cpu().min(cap());
    Tier::ARCH.iter().take_while(|&&t| t <= top).count()
}

/// The tiers [`available`] lists, by name, space-separated (for the tests'
/// and CI's "tiers tested" line).
///
/// ```
/// assert!(blockmodes::backend::tier_names().starts_with("generic"));
/// ```
#[cfg(feature = "alloc")]
pub fn tier_names() -> alloc::string::String {
    let names: alloc::vec::Vec<&str> = Tier::ARCH[..arch_count()]
        .iter()
        .map(|t| t.name())
        .collect();
    names.join(" ")
}

/// What a mode holds instead of a bare cipher: the block cipher `C` and,
/// for AES keyed from key bytes on a CPU the engine runs on, the engine's
/// expanded key with its tier ([`key_for`]). Its single blocks and ECB run
/// on the engine key when there is one, else on `C` (through
/// [`crate::oracle`]); a mode's own fused driver reaches the engine key
/// through [`aes`](Self::aes).
///
/// The choice is made once, in [`from_key`](Self::from_key): `C` one of
/// the `aes` crate's AES types (recognised by `TypeId`, every mode's bound
/// [`BlockCipher128`](crate::oracle::BlockCipher128) being `'static`), and
/// `C` and the expanded key agreeing on `E_K(0^128)`.
/// [`from_cipher`](Self::from_cipher) has no key bytes and keeps the
/// generic path. The engine key wipes itself on drop; `C` is as the caller
/// gave it.
#[derive(Clone)]
pub(crate) struct Engine<C> {
    cipher: C,
    aes: Option<AesKey>,
}

impl<C: crate::oracle::BlockCipher128> Engine<C> {
    /// `cipher` alone: the generic path.
    #[inline]
    pub(crate) fn from_cipher(cipher: C) -> Self {
        Self { cipher, aes: None }
    }

    /// `cipher`, keyed with the bytes `key`, with the engine's key where
    /// [`key_for`] gives one (the tier a key set up now on this thread
    /// takes: [`Tier::current`]).
    pub(crate) fn from_key(cipher: C, key: &[u8]) -> Self {
        let aes = key_for(key, &cipher);
        Self { cipher, aes }
    }

    /// A second key of the same cipher for a mode whose first key is
    /// `first` (XCBC's and pXCBC's f' beside f): `cipher`, keyed with the
    /// bytes `key`, on `first`'s engine tier where `first` has the engine
    /// key (`aesni::companion_key`, `armv8::companion_key`, which check
    /// that the two agree; not counted apart by [`fused_keys`]); else the
    /// generic path.
    pub(crate) fn companion(first: &Engine<C>, cipher: C, key: &[u8]) -> Self {
        #[cfg(target_arch = "x86_64")]
        let aes = first
            .aes
            .as_ref()
            .and_then(|f| crate::aesni::companion_key(f, key, &cipher));
        #[cfg(target_arch = "aarch64")]
        let aes = first
            .aes
            .as_ref()
            .and_then(|f| crate::armv8::companion_key(f, key, &cipher));
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        let aes = {
            let _ = (first, key);
            None
        };
        Self { cipher, aes }
    }

    /// The block cipher.
    #[inline(always)]
    pub(crate) fn cipher(&self) -> &C {
        &self.cipher
    }

    /// The engine's key, if this runs on the engine (always `None` off
    /// x86-64 and aarch64).
    #[inline(always)]
    pub(crate) fn aes(&self) -> Option<&AesKey> {
        self.aes.as_ref()
    }

    /// The tier this runs on.
    pub(crate) fn tier(&self) -> Tier {
        self.aes.as_ref().map_or(Tier::Generic, key_tier)
    }

    /// `E_K(block)`.
    #[inline]
    pub(crate) fn encrypt_block(&self, block: &crate::Block) -> crate::Block {
        match &self.aes {
            Some(k) => k.encrypt_block(block),
            None => crate::oracle::encrypt_block(&self.cipher, block),
        }
    }

    /// `E_K(x)` of the block whose big-endian integer is `x`: on the
    /// engine key the integer goes into a register directly (a block
    /// written as two 8-byte halves and read back as one 16-byte load
    /// would wait for the stores to retire).
    #[inline]
    pub(crate) fn encrypt_be(&self, x: u128) -> crate::Block {
        match &self.aes {
            Some(k) => k.encrypt_be(x),
            None => crate::oracle::encrypt_block(&self.cipher, &x.to_be_bytes()),
        }
    }

    /// `E_K^-1(block)`.
    #[inline]
    pub(crate) fn decrypt_block(&self, block: &crate::Block) -> crate::Block
    where
        C: crate::oracle::BlockCipher128Dec,
    {
        match &self.aes {
            Some(k) => k.decrypt_block(block),
            None => crate::oracle::decrypt_block(&self.cipher, block),
        }
    }

    /// ECB: every block of `blocks` through `E_K`, in place.
    #[inline]
    pub(crate) fn ecb_encrypt(&self, blocks: &mut [crate::Block]) {
        match &self.aes {
            Some(k) => k.ecb(
                crate::engine::Dir::Encrypt,
                crate::engine::Io::InPlace(blocks),
            ),
            None => crate::oracle::ecb_encrypt_blocks(&self.cipher, blocks),
        }
    }
}

/// ECB encryption through the tier a key set up now takes ([`Tier::current`]):
/// the engine's own ECB on `armv8`, `aesni`, `vaes256` and `vaes512`, the
/// cipher's (the `aes` crate's) on `generic` — the yardstick of
/// `blockmodes bench`, so that every ratio to ECB compares a mode and ECB
/// on the same tier.
///
/// ```
/// use blockmodes::backend::Ecb;
/// let ecb = Ecb::<blockmodes::Aes128>::new_from_slice(&[0; 16]).unwrap();
/// let mut blocks = [[0u8; 16]; 3];
/// ecb.encrypt_blocks(&mut blocks);
/// // FIPS-197 / the AES-128 zero-key vector: E_0(0) = 66e94bd4...
/// assert_eq!(blocks[2][..4], [0x66, 0xe9, 0x4b, 0xd4]);
/// ```
#[doc(hidden)]
pub struct Ecb<C> {
    engine: Engine<C>,
}

impl<C> core::fmt::Debug for Ecb<C> {
    /// Prints no key material.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Ecb").finish_non_exhaustive()
    }
}

impl<C: crate::oracle::BlockCipher128 + cipher::KeyInit> Ecb<C> {
    /// Key it from `key` (the engine takes the key only for the `aes`
    /// crate's AES types, as the modes do).
    pub fn new_from_slice(key: &[u8]) -> Result<Self, cipher::InvalidLength> {
        let cipher = C::new_from_slice(key)?;
        Ok(Self {
            engine: Engine::from_key(cipher, key),
        })
    }

    /// Encipher `blocks` in place.
    pub fn encrypt_blocks(&self, blocks: &mut [crate::Block]) {
        self.engine.ecb_encrypt(blocks);
    }

    /// The tier this key runs on.
    pub fn tier(&self) -> Tier {
        self.engine.tier()
    }
}
