//! The sealed file's header and its keys (`docs/file-format.md`, section 2.1).

use argon2::{Algorithm, Argon2, Params, Version};
use hkdf::Hkdf;
use sha2::Sha256;
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use crate::failure::{CliResult, Failure};
use crate::keyfile::MasterKey;

/// The magic bytes that start a sealed file.
pub const MAGIC: &[u8; 8] = b"blkmodes";
/// The format version this code writes and reads.
pub const VERSION: u8 = 1;
/// The header's length in bytes.
pub const HEADER_LEN: usize = 88;
/// Length of the authenticated part `H` (everything before the header tag).
const AUTH_LEN: usize = 56;
/// Default chunk size: 2^16 = 64 KiB.
pub const DEFAULT_CHUNK_LOG2: u8 = 16;
/// Smallest and largest chunk sizes (log2): 1 KiB to 16 MiB.
pub const CHUNK_LOG2_RANGE: std::ops::RangeInclusive<u8> = 10..=24;

/// Argon2id costs written by `seal`: 64 MiB, 3 passes, 1 lane.
pub const KDF_DEFAULT: KdfParams = KdfParams {
    m_kib: 65536,
    t: 3,
    p: 1,
};
const KDF_MAX_M_KIB: u32 = 1 << 20;
const KDF_MAX_T: u32 = 64;
const KDF_MAX_P: u32 = 16;

/// The payload's mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// OCB 1.0 with AES-256.
    Ocb1,
    /// CWC with AES-256.
    Cwc,
    /// Stateful XCBC-XOR with two AES-256 keys.
    XcbcXor,
}

impl Mode {
    fn code(self) -> u8 {
        match self {
            Mode::Ocb1 => 1,
            Mode::Cwc => 2,
            Mode::XcbcXor => 3,
        }
    }

    fn from_code(c: u8) -> Option<Self> {
        match c {
            1 => Some(Mode::Ocb1),
            2 => Some(Mode::Cwc),
            3 => Some(Mode::XcbcXor),
            _ => None,
        }
    }

    /// The payload key's length in bytes.
    pub fn key_len(self) -> usize {
        match self {
            Mode::Ocb1 | Mode::Cwc => 32,
            Mode::XcbcXor => 64,
        }
    }

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Ocb1 => "ocb1",
            Mode::Cwc => "cwc",
            Mode::XcbcXor => "xcbc-xor",
        }
    }
}

/// Argon2id costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KdfParams {
    /// Memory in KiB.
    pub m_kib: u32,
    /// Passes.
    pub t: u32,
    /// Lanes.
    pub p: u32,
}

/// The most Argon2id work `open` does for a header before anything
/// authenticates it (the header's costs are the file's, chosen by whoever
/// made it; the format allows up to 1 GiB and 64 passes). As `age` caps
/// scrypt's work factor, `open` refuses larger costs unless the user raises
/// the limit (`--max-kdf-memory`, `--max-kdf-passes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KdfLimit {
    /// Largest memory in MiB.
    pub max_m_mib: u32,
    /// Largest number of passes.
    pub max_t: u32,
}

impl KdfLimit {
    /// 256 MiB and 8 passes: four times the memory and under three times
    /// the passes `seal` writes ([`KDF_DEFAULT`]).
    pub const DEFAULT: KdfLimit = KdfLimit {
        max_m_mib: 256,
        max_t: 8,
    };

    /// `Ok` if `k` is within the limit; otherwise a rejection naming the
    /// flags that raise it. Nothing is computed either way.
    pub fn check(&self, k: &KdfParams) -> CliResult<()> {
        let m_mib = k.m_kib.div_ceil(1024);
        if m_mib <= self.max_m_mib && k.t <= self.max_t {
            return Ok(());
        }
        Err(Failure::rejected(format!(
            "the header asks for Argon2id with {m_mib} MiB and {} passes, above the limit of `open` before the header authenticates ({} MiB, {} passes; `seal` writes {} MiB, {} passes): nothing was computed. If you trust this file, raise the limit with --max-kdf-memory {} --max-kdf-passes {}",
            k.t,
            self.max_m_mib,
            self.max_t,
            KDF_DEFAULT.m_kib / 1024,
            KDF_DEFAULT.t,
            m_mib.max(self.max_m_mib),
            k.t.max(self.max_t),
        )))
    }
}

impl Default for KdfLimit {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Where the keys come from.
pub enum Secret {
    /// A master key from a key file.
    KeyFile(MasterKey),
    /// A passphrase (stretched with Argon2id).
    Passphrase(Zeroizing<Vec<u8>>),
}

/// A parsed header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// The payload's mode.
    pub mode: Mode,
    /// `log2` of the chunk size.
    pub chunk_log2: u8,
    /// `Some` for a passphrase, `None` for a key file.
    pub kdf: Option<KdfParams>,
    /// The per-file salt.
    pub salt: [u8; 32],
}

/// The payload key and the header bytes, once the header is authenticated
/// (or freshly made).
pub struct Keys {
    /// The payload key (32 or 64 bytes).
    pub payload: Zeroizing<Vec<u8>>,
    /// The 88 header bytes.
    pub header_bytes: [u8; HEADER_LEN],
}

impl Header {
    /// A fresh header for `mode` with a random salt.
    pub fn new(mode: Mode, chunk_log2: u8, secret: &Secret) -> CliResult<Self> {
        let mut salt = [0u8; 32];
        getrandom::fill(&mut salt).map_err(|e| {
            Failure::usage(format!(
                "the operating system's random generator failed: {e}"
            ))
        })?;
        let kdf = match secret {
            Secret::KeyFile(_) => None,
            Secret::Passphrase(_) => Some(KDF_DEFAULT),
        };
        Ok(Header {
            mode,
            chunk_log2,
            kdf,
            salt,
        })
    }

    /// The chunk size in bytes.
    pub fn chunk_len(&self) -> usize {
        1usize << self.chunk_log2
    }

    /// `H`: the 56 authenticated bytes.
    fn auth_bytes(&self) -> [u8; AUTH_LEN] {
        let mut h = [0u8; AUTH_LEN];
        h[..8].copy_from_slice(MAGIC);
        h[8] = VERSION;
        h[9] = self.mode.code();
        h[10] = if self.kdf.is_some() { 2 } else { 1 };
        h[11] = self.chunk_log2;
        let k = self.kdf.unwrap_or(KdfParams {
            m_kib: 0,
            t: 0,
            p: 0,
        });
        h[12..16].copy_from_slice(&k.m_kib.to_be_bytes());
        h[16..20].copy_from_slice(&k.t.to_be_bytes());
        h[20..24].copy_from_slice(&k.p.to_be_bytes());
        h[24..56].copy_from_slice(&self.salt);
        h
    }

    /// Parse the header bytes (steps 1 to 3 of section 2.1): everything but
    /// the tag. Every failure here is a rejected input.
    pub fn parse(bytes: &[u8]) -> CliResult<Self> {
        let not_ours = || {
            Failure::rejected(
                "not a blockmodes file (no blockmodes header): was it made by `blockmodes seal`?",
            )
        };
        let magic_len = bytes.len().min(MAGIC.len());
        if bytes.len() < HEADER_LEN && magic_len > 0 && bytes[..magic_len] == MAGIC[..magic_len] {
            return Err(Failure::rejected(format!(
                "truncated header ({} of {HEADER_LEN} bytes): the file was cut short",
                bytes.len()
            )));
        }
        if bytes.len() < HEADER_LEN || &bytes[..8] != MAGIC {
            return Err(not_ours());
        }
        if bytes[8] != VERSION {
            return Err(Failure::rejected(format!(
                "unsupported format version {} (this blockmodes reads version {VERSION}): use a newer blockmodes, or the header is corrupted",
                bytes[8]
            )));
        }
        let corrupted = |what: &str| {
            Failure::rejected(format!(
                "corrupted header ({what}): the file is damaged or not a blockmodes file"
            ))
        };
        let mode = Mode::from_code(bytes[9]).ok_or_else(|| corrupted("unknown mode"))?;
        let chunk_log2 = bytes[11];
        if !CHUNK_LOG2_RANGE.contains(&chunk_log2) {
            return Err(corrupted("chunk size out of range"));
        }
        let be =
            |i: usize| u32::from_be_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
        let k = KdfParams {
            m_kib: be(12),
            t: be(16),
            p: be(20),
        };
        let kdf = match bytes[10] {
            1 if k
                == (KdfParams {
                    m_kib: 0,
                    t: 0,
                    p: 0,
                }) =>
            {
                None
            }
            2 if (1..=KDF_MAX_P).contains(&k.p)
                && (1..=KDF_MAX_T).contains(&k.t)
                && k.m_kib <= KDF_MAX_M_KIB
                && k.m_kib >= 8 * k.p =>
            {
                Some(k)
            }
            1 | 2 => return Err(corrupted("key-derivation parameters out of range")),
            _ => return Err(corrupted("unknown key source")),
        };
        let mut salt = [0u8; 32];
        salt.copy_from_slice(&bytes[24..56]);
        Ok(Header {
            mode,
            chunk_log2,
            kdf,
            salt,
        })
    }

    /// `PRK = HKDF-Extract(salt, IKM)` for this header and secret.
    fn prk(&self, secret: &Secret) -> CliResult<Hkdf<Sha256>> {
        match (secret, self.kdf) {
            (Secret::KeyFile(k), None) => Ok(Hkdf::<Sha256>::new(Some(&self.salt), k.bytes())),
            (Secret::Passphrase(p), Some(k)) => {
                let params = Params::new(k.m_kib, k.t, k.p, Some(32))
                    .map_err(|e| Failure::rejected(format!("corrupted header ({e})")))?;
                let mut ikm = Zeroizing::new([0u8; 32]);
                Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
                    .hash_password_into(p, &self.salt, &mut ikm[..])
                    .map_err(|e| Failure::usage(format!("Argon2id failed: {e}")))?;
                Ok(Hkdf::<Sha256>::new(Some(&self.salt), &ikm[..]))
            }
            (Secret::KeyFile(_), Some(_)) => Err(Failure::rejected(
                "this file was sealed with a passphrase, not a key file: use --passphrase-file FILE, or neither option to be asked (or the header is corrupted)",
            )),
            (Secret::Passphrase(_), None) => Err(Failure::rejected(
                "this file was sealed with a key file, not a passphrase: use --key-file FILE (or the header is corrupted)",
            )),
        }
    }

    /// The header tag and payload key of this header under `secret`.
    fn derive(&self, secret: &Secret) -> CliResult<([u8; 32], Zeroizing<Vec<u8>>)> {
        let hk = self.prk(secret)?;
        let h = self.auth_bytes();
        let expand = |label: &[u8], out: &mut [u8]| {
            hk.expand_multi_info(&[label, &h], out)
                .map_err(|_| Failure::usage("internal error: HKDF output length"))
        };
        let mut tag = [0u8; 32];
        expand(b"blockmodes v1 header tag", &mut tag)?;
        let mut payload = Zeroizing::new(vec![0u8; self.mode.key_len()]);
        expand(b"blockmodes v1 payload key", &mut payload)?;
        Ok((tag, payload))
    }

    /// The keys and header bytes for a new file.
    pub fn seal_keys(&self, secret: &Secret) -> CliResult<Keys> {
        let (tag, payload) = self.derive(secret)?;
        let mut header_bytes = [0u8; HEADER_LEN];
        header_bytes[..AUTH_LEN].copy_from_slice(&self.auth_bytes());
        header_bytes[AUTH_LEN..].copy_from_slice(&tag);
        Ok(Keys {
            payload,
            header_bytes,
        })
    }

    /// Check the header tag of `bytes` (this header's bytes as read) under
    /// `secret`, in constant time; on success, the payload key.
    pub fn open_keys(&self, bytes: &[u8], secret: &Secret) -> CliResult<Keys> {
        let (tag, payload) = self.derive(secret)?;
        let given = bytes.get(AUTH_LEN..HEADER_LEN).unwrap_or_default();
        if !bool::from(tag.ct_eq(given)) {
            let what = match secret {
                Secret::KeyFile(_) => "wrong key",
                Secret::Passphrase(_) => "wrong passphrase",
            };
            return Err(Failure::rejected(format!(
                "{what} or corrupted header: the header does not authenticate; nothing was written"
            )));
        }
        let mut header_bytes = [0u8; HEADER_LEN];
        header_bytes.copy_from_slice(bytes.get(..HEADER_LEN).unwrap_or(&[0; HEADER_LEN]));
        Ok(Keys {
            payload,
            header_bytes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> Secret {
        Secret::KeyFile(MasterKey::generate().unwrap())
    }

    #[test]
    fn header_round_trip_and_tag() {
        let s = key();
        let h = Header::new(Mode::Ocb1, 16, &s).unwrap();
        let k = h.seal_keys(&s).unwrap();
        let back = Header::parse(&k.header_bytes).unwrap();
        assert_eq!(back, h);
        let k2 = back.open_keys(&k.header_bytes, &s).unwrap();
        assert_eq!(*k.payload, *k2.payload);
        // Another key fails.
        assert!(back.open_keys(&k.header_bytes, &key()).is_err());
    }

    #[test]
    fn kdf_limit() {
        let l = KdfLimit::DEFAULT;
        assert!(l.check(&KDF_DEFAULT).is_ok());
        let at = KdfParams {
            m_kib: 256 * 1024,
            t: 8,
            p: 16,
        };
        assert!(l.check(&at).is_ok());
        for k in [
            KdfParams {
                m_kib: 256 * 1024 + 1,
                ..at
            },
            KdfParams { t: 9, ..at },
            KdfParams {
                m_kib: KDF_MAX_M_KIB,
                t: KDF_MAX_T,
                p: KDF_MAX_P,
            },
        ] {
            let e = l.check(&k).unwrap_err();
            assert!(matches!(e, Failure::Rejected(_)));
            assert!(e.message().contains("--max-kdf-memory"), "{e}");
        }
        let raised = KdfLimit {
            max_m_mib: 1024,
            max_t: 64,
        };
        assert!(
            raised
                .check(&KdfParams {
                    m_kib: KDF_MAX_M_KIB,
                    t: KDF_MAX_T,
                    p: KDF_MAX_P
                })
                .is_ok()
        );
    }

    #[test]
    fn every_flipped_bit_is_rejected() {
        let s = key();
        let h = Header::new(Mode::Cwc, 12, &s).unwrap();
        let bytes = h.seal_keys(&s).unwrap().header_bytes;
        for bit in 0..HEADER_LEN * 8 {
            let mut b = bytes;
            b[bit / 8] ^= 1 << (bit % 8);
            let r = Header::parse(&b).and_then(|h| h.open_keys(&b, &s));
            assert!(matches!(r, Err(Failure::Rejected(_))), "bit {bit}");
        }
    }
}
