//! The sector interface against `vectors/independent/sectors/*.json`, long
//! vectors written by the independent Go reference (`tools/refvectors`,
//! format in `vectors/independent/README.md`), in both directions, through
//! the public `blockmodes::sector` API only.
#![cfg(all(feature = "std", feature = "rayon", feature = "getrandom"))] // written for the default features

use blockmodes::sector::{DiskCipher, SectorCipher, aes_sectors};
use serde_json::Value;

const DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../vectors/independent/sectors"
);

struct SectorVector {
    name: String,
    cipher: DiskCipher,
    key: Vec<u8>,
    sector_size: usize,
    first_sector: u64,
    pt: Vec<u8>,
    ct: Vec<u8>,
}

fn hex_field(v: &Value, k: &str) -> Vec<u8> {
    hex::decode(v[k].as_str().unwrap_or_else(|| panic!("field {k} missing"))).expect("hex")
}

fn load() -> Vec<SectorVector> {
    let mut files: Vec<_> = std::fs::read_dir(DIR)
        .expect("vectors/independent/sectors")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no sector vector files in {DIR}");
    let mut out = Vec::new();
    for f in files {
        let file: Value =
            serde_json::from_str(&std::fs::read_to_string(&f).expect("read")).expect("json");
        assert_eq!(file["scheme"], "sectors-aes", "{}", f.display());
        for v in file["vectors"].as_array().expect("vectors") {
            out.push(SectorVector {
                name: v["name"].as_str().expect("name").to_string(),
                cipher: v["cipher"]
                    .as_str()
                    .expect("cipher")
                    .parse()
                    .expect("cipher name"),
                key: hex_field(v, "key"),
                sector_size: v["sector_size"].as_u64().expect("sector_size") as usize,
                first_sector: v["first_sector"].as_u64().expect("first_sector"),
                pt: hex_field(v, "pt"),
                ct: hex_field(v, "ct"),
            });
        }
    }
    out
}

fn disk(v: &SectorVector) -> Box<dyn SectorCipher> {
    aes_sectors(v.cipher, &v.key, v.sector_size)
        .unwrap_or_else(|e| panic!("{}: aes_sectors: {e}", v.name))
}

mod common;

/// Both sector tests on each backend (the generic path, the fused kernels
/// on AES-NI and on VAES-512, where the CPU has them).
#[test]
fn on_every_backend() {
    common::on_each_backend(None, |_| {
        bulk_calls_match_independent_vectors();
        single_sector_calls_match_independent_vectors();
    });
}

#[test]
fn bulk_calls_match_independent_vectors() {
    let vectors = load();
    assert!(vectors.len() >= 27);
    for v in &vectors {
        let d = disk(v);
        assert_eq!(d.sector_size(), v.sector_size, "{}", v.name);
        let mut buf = v.pt.clone();
        d.encrypt_sectors(v.first_sector, &mut buf)
            .expect("encrypt_sectors");
        assert!(buf == v.ct, "{}: encrypt_sectors", v.name);
        d.decrypt_sectors(v.first_sector, &mut buf)
            .expect("decrypt_sectors");
        assert!(buf == v.pt, "{}: decrypt_sectors", v.name);

        let mut buf = v.pt.clone();
        d.encrypt_sectors_serial(v.first_sector, &mut buf)
            .expect("encrypt_sectors_serial");
        assert!(buf == v.ct, "{}: encrypt_sectors_serial", v.name);
        d.decrypt_sectors_serial(v.first_sector, &mut buf)
            .expect("decrypt_sectors_serial");
        assert!(buf == v.pt, "{}: decrypt_sectors_serial", v.name);
    }
}

#[test]
fn single_sector_calls_match_independent_vectors() {
    for v in &load() {
        let d = disk(v);
        let size = v.sector_size;
        for (k, (p, c)) in v.pt.chunks(size).zip(v.ct.chunks(size)).enumerate() {
            let s = v.first_sector + k as u64;
            let mut buf = p.to_vec();
            d.encrypt_sector(s, &mut buf).expect("encrypt_sector");
            assert!(buf == c, "{}: encrypt_sector {s}", v.name);
            d.decrypt_sector(s, &mut buf).expect("decrypt_sector");
            assert!(buf == p, "{}: decrypt_sector {s}", v.name);
        }
    }
}
