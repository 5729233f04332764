//! The file formats of the `blockmodes` command (`docs/file-format.md`), in
//! one place for the CLI (`crates/blockmodes-cli`) and the Python package
//! (`python/`, `blockmodes.files`), so that both read and write the same
//! bytes through the same code:
//! * [`keyfile`]: the master key and its text file (section 1), and the
//!   HKDF sub-keys of `mac` and `disk`;
//! * [`header`]: the sealed file's 88-byte header, its Argon2id / HKDF keys
//!   and its tag (section 2.1);
//! * [`stream`]: the STREAM chunks of the payload (section 2.2);
//! * [`input`]: reads placed where the kernel copies them at full speed;
//! * [`output`]: outputs that appear under their name only when complete
//!   (section 2.3);
//! * [`failure`]: the errors, rejected input or usage / I/O error.
//!
//! ```
//! use blockmodes_file::header::{Header, Mode, Secret};
//! use blockmodes_file::keyfile::MasterKey;
//!
//! let key = MasterKey::from_file_text(&format!("blockmodes-key-v1 {}\n", "ab".repeat(32)))?;
//! let secret = Secret::KeyFile(key);
//! let header = Header::new(Mode::Ocb1, 16, &secret)?;
//! let keys = header.seal_keys(&secret)?; // the 88 header bytes and the payload key
//! let parsed = Header::parse(&keys.header_bytes)?;
//! assert_eq!(*parsed.open_keys(&keys.header_bytes, &secret)?.payload, *keys.payload);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod failure;
pub mod header;
pub mod input;
pub mod keyfile;
pub mod output;
pub mod signals;
pub mod stream;
