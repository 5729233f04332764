//! Helpers the integration tests share: reading vector files and their
//! fields, and dispatching on an AES key size.
#![allow(dead_code)] // each test file uses its own part

use blockmodes::Block;
use serde_json::Value;

/// The vectors of `vectors/<name>.json` (its `scheme` must be `name`, and
/// it must hold at least one vector).
pub fn load(name: &str) -> Vec<Value> {
    let path = format!("{}/../../vectors/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let json: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(json["scheme"], name.rsplit('/').next().unwrap_or(name));
    let v = json["vectors"].as_array().expect("vectors").clone();
    assert!(!v.is_empty(), "{path}: no vectors");
    v
}

/// The vectors of `vectors/independent/<name>.json` (the independent Go
/// reference of `tools/refvectors`; scheme `name`, at least one vector).
pub fn load_independent(name: &str) -> Vec<Value> {
    load(&format!("independent/{name}"))
}

/// Every vector of the scheme `name`: `vectors/<name>.json`, then
/// `vectors/independent/<name>.json` and `vectors/negative/<name>.json`
/// where they exist (the vectors' own `result` says valid or invalid).
pub fn load_all(name: &str) -> Vec<Value> {
    let root = format!("{}/../../vectors", env!("CARGO_MANIFEST_DIR"));
    let mut all = load(name);
    for dir in ["independent", "negative"] {
        if std::path::Path::new(&format!("{root}/{dir}/{name}.json")).exists() {
            all.extend(load(&format!("{dir}/{name}")));
        }
    }
    all
}

mod seeded;
#[allow(unused_imports)] // only the tests that draw r0 use it
pub use seeded::SeededRng;

/// The vectors of `vectors/negative/<name>.json` (every one `invalid`: the
/// independent Go reference's tamperings of valid vectors; scheme `name`).
pub fn load_negative(name: &str) -> Vec<Value> {
    load(&format!("negative/{name}"))
}

/// The set `name` of `tests/data/xcbc-long.json`, the cross-check vectors
/// of `tests/data/xcbc_ref.py` (a Python transcription of the spec that
/// reproduces every shared vector): long messages, several segments,
/// indices i >= 2.
pub fn load_long(name: &str) -> Vec<Value> {
    let path = format!("{}/tests/data/xcbc-long.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect(&path);
    let json: Value = serde_json::from_str(&text).expect("json");
    json["sets"][name].as_array().expect("set").clone()
}

/// The hex field `f` of a vector, decoded.
pub fn hexf(v: &Value, f: &str) -> Vec<u8> {
    hex::decode(v[f].as_str().unwrap_or_else(|| panic!("field {f}"))).expect("hex")
}

/// The hex field `f` of a vector, one block.
pub fn block(v: &Value, f: &str) -> Block {
    hexf(v, f).try_into().expect("16 bytes")
}

/// Run `$body` with `$C` the AES type of a key of `$n` bytes.
#[macro_export]
macro_rules! with_aes {
    ($n:expr, $C:ident => $body:expr) => {
        match $n {
            16 => {
                type $C = blockmodes::Aes128;
                $body
            }
            24 => {
                type $C = blockmodes::Aes192;
                $body
            }
            32 => {
                type $C = blockmodes::Aes256;
                $body
            }
            n => panic!("key size {n}"),
        }
    };
}

/// Run `f` once per AES backend this CPU runs (the generic path, the fused
/// kernels on AES-NI, and on VAES-512 where present), with keys set up
/// inside `f` on that backend; checks that each key set up in `f` took the
/// path asked for (`keys`: how many AES keys `f` sets up through key
/// bytes, or `None` not to check).
pub fn on_each_backend(keys: Option<u64>, mut f: impl FnMut(blockmodes::backend::Backend)) {
    use blockmodes::backend::{Backend, available, force, fused_keys};
    for &b in available() {
        let prev = force(b);
        let before = fused_keys();
        f(b);
        let fused = fused_keys() - before;
        force(prev);
        if let Some(n) = keys {
            let expected = if b != Backend::Generic { n } else { 0 };
            assert_eq!(fused, expected, "{b:?}: keys on the fused path");
        }
    }
}
