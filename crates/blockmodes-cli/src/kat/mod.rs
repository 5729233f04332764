//! `blockmodes kat FILE...`: run test-vector files through the public API.
//!
//! The file format and the command's contract are in
//! `docs/spec/vectors.md`: one line per failing vector, a closing line
//! `N passed, M failed`, exit status 0 / 1 / 2.
//!
//! Each scheme is one match arm in [`run_vector`]; its checks live in the
//! module of its family.

use std::path::Path;

use serde_json::Value;

mod cwc;
mod disk;
mod ocb_pmac;
mod xcbc;

/// The schemes `kat` knows.
pub const SCHEMES: &[&str] = &[
    "ocb1-aes",
    "pmac-aes",
    "cwc-aes",
    "xcbc-aes",
    "xcbc-xor-aes",
    "xcbc-ctr-aes",
    "xcbc-xor-ctr-aes",
    "pxcbc-xor-aes",
    "pxcbc-xor-ctr-aes",
    "xecb-mac-aes",
    "xecb-mac-ctr-aes",
    "xex-aes",
    "eme-aes",
    "ste-xex-aes",
    "ete-eme-aes",
    "eme2-aes",
];

/// Why a file or vector could not be run at all (exit status 2).
#[derive(Debug, thiserror::Error)]
pub enum KatError {
    /// The file cannot be read or parsed.
    #[error("{path}: {msg}")]
    File {
        /// The file.
        path: String,
        /// What went wrong.
        msg: String,
    },
    /// The file names a scheme `kat` does not know.
    #[error("unknown scheme `{0}` (blockmodes kat --list shows the known ones)")]
    UnknownScheme(String),
    /// A vector lacks a field or has a malformed one.
    #[error("vector `{vector}`: field `{field}` {problem}")]
    Field {
        /// The vector's name.
        vector: String,
        /// The field.
        field: String,
        /// What is wrong with it.
        problem: &'static str,
    },
}

/// One vector of a file, with typed access to its fields.
pub struct Vector<'a> {
    /// The vector's name (or its index if it has none).
    pub name: String,
    obj: &'a Value,
}

impl<'a> Vector<'a> {
    /// Wrap the JSON object of one vector.
    pub fn new(obj: &'a Value, index: usize) -> Self {
        let name = obj
            .get("name")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| format!("#{index}"));
        Self { name, obj }
    }

    fn err(&self, field: &str, problem: &'static str) -> KatError {
        KatError::Field {
            vector: self.name.clone(),
            field: field.to_owned(),
            problem,
        }
    }

    /// A required hex field.
    pub fn hex(&self, field: &str) -> Result<Vec<u8>, KatError> {
        let s = self
            .obj
            .get(field)
            .ok_or_else(|| self.err(field, "is missing"))?
            .as_str()
            .ok_or_else(|| self.err(field, "is not a string"))?;
        hex::decode(s).map_err(|_| self.err(field, "is not valid hex"))
    }

    /// An optional hex field.
    pub fn hex_opt(&self, field: &str) -> Result<Option<Vec<u8>>, KatError> {
        match self.obj.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(_) => self.hex(field).map(Some),
        }
    }

    /// A required non-negative integer field.
    pub fn uint(&self, field: &str) -> Result<u64, KatError> {
        self.obj
            .get(field)
            .ok_or_else(|| self.err(field, "is missing"))?
            .as_u64()
            .ok_or_else(|| self.err(field, "is not a non-negative integer"))
    }

    /// An optional integer field.
    pub fn uint_opt(&self, field: &str) -> Result<Option<u64>, KatError> {
        match self.obj.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(_) => self.uint(field).map(Some),
        }
    }

    /// An optional string field.
    pub fn str_opt(&self, field: &str) -> Option<&'a str> {
        self.obj.get(field).and_then(Value::as_str)
    }

    /// `true` for `"result": "valid"` (the default), `false` for `"invalid"`.
    pub fn expects_valid(&self) -> Result<bool, KatError> {
        match self.str_opt("result") {
            None | Some("valid") => Ok(true),
            Some("invalid") => Ok(false),
            Some(_) => Err(self.err("result", "is neither `valid` nor `invalid`")),
        }
    }

    /// The tag length the receiver expects: the optional `tag_size` field,
    /// else `len(tag)`. A `valid` vector whose `tag_size` differs from
    /// `len(tag)` is malformed.
    pub fn tag_size(&self, tag: &[u8]) -> Result<usize, KatError> {
        let Some(n) = self.uint_opt("tag_size")? else {
            return Ok(tag.len());
        };
        let n = usize::try_from(n).map_err(|_| self.err("tag_size", "is too large"))?;
        if n != tag.len() && self.expects_valid()? {
            return Err(self.err(
                "tag_size",
                "differs from the tag's length in a valid vector",
            ));
        }
        Ok(n)
    }

    /// A key field whose length selects AES-128/192/256.
    pub fn bad_key_len(&self, field: &str) -> KatError {
        self.err(field, "has a length that is not 16, 24 or 32 bytes")
    }
}

/// The outcome of one vector: `Ok(())` or what differed.
pub type Outcome = Result<(), String>;

/// Compare an output with its expectation, describing the difference.
pub fn expect_eq(what: &str, got: &[u8], want: &[u8]) -> Outcome {
    if got == want {
        Ok(())
    } else {
        Err(format!(
            "{what}: got {}, want {}",
            hex::encode(got),
            hex::encode(want)
        ))
    }
}

/// Run one vector of `scheme`.
pub fn run_vector(scheme: &str, v: &Vector) -> Result<Outcome, KatError> {
    match scheme {
        "ocb1-aes" => ocb_pmac::ocb1(v),
        "pmac-aes" => ocb_pmac::pmac(v),
        "cwc-aes" => cwc::cwc(v),
        "xcbc-aes" => xcbc::xcbc::<false>(v),
        "xcbc-xor-aes" => xcbc::xcbc::<true>(v),
        "xcbc-ctr-aes" => xcbc::xcbc_ctr::<false>(v),
        "xcbc-xor-ctr-aes" => xcbc::xcbc_ctr::<true>(v),
        "pxcbc-xor-aes" => xcbc::pxcbc(v),
        "pxcbc-xor-ctr-aes" => xcbc::pxcbc_ctr(v),
        "xecb-mac-aes" => xcbc::xecb(v),
        "xecb-mac-ctr-aes" => xcbc::xecb_ctr(v),
        "xex-aes" => disk::xex_aes(v),
        "eme-aes" => disk::eme_aes(v),
        "ste-xex-aes" => disk::ste_xex_aes(v),
        "ete-eme-aes" => disk::ete_eme_aes(v),
        "eme2-aes" => disk::eme2_aes(v),
        _ => Err(KatError::UnknownScheme(scheme.to_owned())),
    }
}

/// Totals of a run.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Totals {
    /// Vectors that passed.
    pub passed: usize,
    /// Vectors that failed.
    pub failed: usize,
}

/// Read a vector file: its scheme and its vectors.
pub fn load(path: &Path) -> Result<(String, Value), KatError> {
    let file_err = |msg: String| KatError::File {
        path: path.display().to_string(),
        msg,
    };
    let text = std::fs::read_to_string(path).map_err(|e| file_err(e.to_string()))?;
    let json: Value = serde_json::from_str(&text).map_err(|e| file_err(e.to_string()))?;
    let scheme = json
        .get("scheme")
        .and_then(Value::as_str)
        .ok_or_else(|| file_err("no `scheme` field".into()))?
        .to_owned();
    if !json.get("vectors").is_some_and(Value::is_array) {
        return Err(file_err("no `vectors` array".into()));
    }
    Ok((scheme, json))
}

/// Run every vector of one file; failures are reported through `report`
/// (one line each).
pub fn run_file(path: &Path, report: &mut dyn FnMut(String)) -> Result<Totals, KatError> {
    let (scheme, json) = load(path)?;
    let mut totals = Totals::default();
    let vectors = json["vectors"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    for (i, obj) in vectors.iter().enumerate() {
        let v = Vector::new(obj, i);
        match run_vector(&scheme, &v)? {
            Ok(()) => totals.passed += 1,
            Err(why) => {
                totals.failed += 1;
                report(format!("{}: {}: {}", path.display(), v.name, why));
            }
        }
    }
    Ok(totals)
}
