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
    assert_eq!(json["scheme"], name);
    let v = json["vectors"].as_array().expect("vectors").clone();
    assert!(!v.is_empty(), "{path}: no vectors");
    v
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
