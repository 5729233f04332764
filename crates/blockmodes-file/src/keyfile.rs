//! The master key and its text file (`docs/file-format.md`, section 1).

use std::io::Write;
use std::path::Path;

use hkdf::Hkdf;
use sha2::Sha256;
use zeroize::{Zeroize, Zeroizing};

use crate::failure::{CliResult, Failure};
use crate::output::{Access, Output};

/// The word that starts the key line of a key file.
pub const KEY_PREFIX: &str = "blockmodes-key-v1";

/// The largest key file read (a key file is about 200 bytes; the rest is
/// room for comments).
pub const MAX_KEY_FILE: u64 = 64 * 1024;

/// A 32-byte master key, wiped on drop.
pub struct MasterKey(Zeroizing<[u8; 32]>);

impl MasterKey {
    /// A fresh key from the operating system's CSPRNG.
    pub fn generate() -> CliResult<Self> {
        let mut k = Zeroizing::new([0u8; 32]);
        getrandom::fill(&mut k[..]).map_err(|e| {
            Failure::usage(format!(
                "the operating system's random generator failed: {e}"
            ))
        })?;
        Ok(MasterKey(k))
    }

    /// A master key from its 32 bytes (as read from a key file elsewhere,
    /// or from a caller that holds it).
    pub fn from_bytes(key: &[u8; 32]) -> Self {
        MasterKey(Zeroizing::new(*key))
    }

    /// The key bytes.
    pub fn bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The key file's text: two comment lines and the key line.
    pub fn to_file_text(&self) -> Zeroizing<String> {
        Zeroizing::new(format!(
            "# blockmodes master key: keep this file secret.\n\
             # Anyone who has it can open your sealed files and forge your checksums.\n\
             {KEY_PREFIX} {}\n",
            hex::encode(&self.0[..])
        ))
    }

    /// Parse a key file's text.
    pub fn from_file_text(text: &str) -> Result<Self, String> {
        let mut lines = text
            .lines()
            .map(|l| l.trim_end_matches([' ', '\t', '\r']))
            .filter(|l| !l.is_empty() && !l.starts_with('#'));
        let line = lines.next().ok_or("no key line")?;
        if lines.next().is_some() {
            return Err("more than one key line".into());
        }
        let hex_part = line
            .strip_prefix(KEY_PREFIX)
            .and_then(|r| r.strip_prefix(' '))
            .ok_or_else(|| format!("the key line does not start with `{KEY_PREFIX} `"))?;
        let mut k = Zeroizing::new([0u8; 32]);
        hex::decode_to_slice(hex_part.trim(), &mut k[..])
            .map_err(|_| "the key is not 64 hex digits".to_owned())?;
        Ok(MasterKey(k))
    }

    /// Read a key file (warning on standard error if others may read it).
    /// At most [`MAX_KEY_FILE`] bytes are read: a larger file (a disk image
    /// given by mistake, `/dev/zero`) is refused, not read whole.
    pub fn read(path: &Path) -> CliResult<Self> {
        use std::io::Read;
        // Room for the whole limit: never reallocated, so no unwiped copy.
        let mut bytes = Vec::with_capacity(MAX_KEY_FILE as usize + 1);
        std::fs::File::open(path)
            .and_then(|f| f.take(MAX_KEY_FILE + 1).read_to_end(&mut bytes))
            .map_err(|e| Failure::io("read key file", path, &e))?;
        let parsed = if bytes.len() as u64 > MAX_KEY_FILE {
            Err(format!("larger than {} KiB", MAX_KEY_FILE / 1024))
        } else {
            std::str::from_utf8(&bytes)
                .map_err(|_| "not text".to_owned())
                .and_then(Self::from_file_text)
        };
        bytes.zeroize();
        if parsed.is_ok() {
            warn_if_shared(path, "key file");
        }
        parsed.map_err(|why| {
            Failure::usage(format!(
                "{} is not a blockmodes key file ({why}); create one with `blockmodes keygen -o FILE`",
                path.display()
            ))
        })
    }

    /// Write the key file at `path` (mode 0600), refusing to replace an
    /// existing file unless `force`.
    pub fn write(&self, path: &Path, force: bool) -> CliResult<()> {
        let mut out = Output::file(path, force, Access::Private)?;
        out.write_all(self.to_file_text().as_bytes())
            .map_err(|e| Failure::io("write", path, &e))?;
        out.commit()
    }

    /// A sub-key for `label`: `HKDF-Expand(HKDF-Extract("", K), label, out.len())`.
    pub fn derive(&self, label: &str, out: &mut [u8]) {
        let hk = Hkdf::<Sha256>::new(None, &self.0[..]);
        // Outputs of at most 255 * 32 bytes never fail; ours are at most 64.
        if hk.expand(label.as_bytes(), out).is_err() {
            out.fill(0);
        }
    }
}

/// Warn, as ssh does, when a secret file (`what`) may be read by its group
/// or by others.
pub fn warn_if_shared(path: &Path, what: &str) {
    use std::os::unix::fs::PermissionsExt;
    if let Ok(m) = std::fs::metadata(path)
        && m.is_file()
        && m.permissions().mode() & 0o077 != 0
    {
        eprintln!(
            "blockmodes: warning: {what} {} is readable by others (mode {:04o}): `chmod 600 {}`",
            path.display(),
            m.permissions().mode() & 0o7777,
            path.display()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trip() {
        let k = MasterKey::generate().unwrap();
        let back = MasterKey::from_file_text(&k.to_file_text()).unwrap();
        assert_eq!(k.bytes(), back.bytes());
    }

    #[test]
    fn rejects_malformed() {
        for bad in [
            "",
            "# only a comment\n",
            "blockmodes-key-v1 00\n",
            "blockmodes-key-v2 0000000000000000000000000000000000000000000000000000000000000000\n",
            "blockmodes-key-v1 000000000000000000000000000000000000000000000000000000000000000g\n",
            "blockmodes-key-v1 0000000000000000000000000000000000000000000000000000000000000000\nx\n",
        ] {
            assert!(MasterKey::from_file_text(bad).is_err(), "{bad:?}");
        }
        let ok = "# c\n\nblockmodes-key-v1 00000000000000000000000000000000000000000000000000000000000000FF \r\n";
        assert_eq!(MasterKey::from_file_text(ok).unwrap().bytes()[31], 0xff);
    }
}
