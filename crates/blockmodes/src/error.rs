//! The one error type of the library.
//!
//! Every bad input gets a variant that says what was wrong; no function of
//! this crate panics on any input. Authentication failures are a single
//! variant ([`Error::Authentication`]) that says nothing about *where* the
//! difference was.

use thiserror::Error as ThisError;

/// Errors returned by every mode of `blockmodes`.
///
/// ```
/// use blockmodes::Error;
/// let e = Error::InvalidKeyLength { expected: 16, got: 7 };
/// assert_eq!(e.to_string(), "invalid key length: expected 16 bytes, got 7");
/// let e = Error::UnsupportedKeyLength { allowed: &[16, 24, 32], got: 7 };
/// assert_eq!(e.to_string(), "invalid key length: expected one of [16, 24, 32] bytes, got 7");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, ThisError)]
#[non_exhaustive]
pub enum Error {
    /// The key has a length the block cipher or mode does not accept.
    #[error("invalid key length: expected {expected} bytes, got {got}")]
    InvalidKeyLength {
        /// The key length the mode takes, in bytes (for two-key forms, the
        /// length of both keys together).
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// The key has none of the lengths an interface that accepts several
    /// accepts (the sector facade picks AES-128, -192 or -256 by length).
    #[error("invalid key length: expected one of {allowed:?} bytes, got {got}")]
    UnsupportedKeyLength {
        /// The accepted lengths, in bytes.
        allowed: &'static [usize],
        /// The length given.
        got: usize,
    },
    /// The nonce (or IV, counter block, tweak) has the wrong length.
    #[error("invalid nonce length: expected {expected} bytes, got {got}")]
    InvalidNonceLength {
        /// The length the mode requires.
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// The tag length is outside what the mode allows.
    #[error("invalid tag length: expected {min}..={max} bytes, got {got}")]
    InvalidTagLength {
        /// Smallest allowed tag length in bytes.
        min: usize,
        /// Largest allowed tag length in bytes.
        max: usize,
        /// The length given.
        got: usize,
    },
    /// A ciphertext is shorter than the mode's minimum (for example, shorter than the tag).
    #[error("ciphertext too short: need at least {min} bytes, got {got}")]
    CiphertextTooShort {
        /// The minimum length in bytes.
        min: usize,
        /// The length given.
        got: usize,
    },
    /// A message, associated data or ciphertext exceeds the mode's limit.
    #[error("input too long: at most {max} bytes allowed, got {got}")]
    InputTooLong {
        /// The limit in bytes.
        max: u64,
        /// The length given.
        got: u64,
    },
    /// A length does not fit the mode (not a whole number of blocks, outside a sector-size range, ...).
    #[error("invalid length: {0}")]
    InvalidLength(&'static str),
    /// Authentication failed: the tag, check block or padding did not verify.
    /// The output buffer has been wiped.
    #[error("authentication failed: the data was modified or the key is wrong")]
    Authentication,
    /// A stateful encryptor's counter would wrap around; no more messages can be encrypted under this key.
    #[error("message counter exhausted: rekey before encrypting more messages")]
    CounterExhausted,
    /// A tweak that the construction reserves (StE's gamma) was requested.
    #[error("forbidden tweak: this tweak is reserved by the construction")]
    ForbiddenTweak,
    /// An argument is outside the range the mode accepts.
    #[error("invalid parameter: {0}")]
    InvalidParameter(&'static str),
    /// The operating system's random number generator failed (directly, or
    /// while seeding the thread RNG that draws r0).
    #[error("the operating system's random number generator failed")]
    Rng,
}

/// `Result` with this crate's [`Error`].
pub type Result<T> = core::result::Result<T, Error>;
