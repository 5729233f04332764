//! The files `blockmodes seal` writes follow docs/file-format.md: this test
//! re-derives every key from the document with `hkdf`, `sha2` and `argon2`
//! directly (not through the CLI's code) and opens each chunk with the
//! library's one-shot API under the nonce the document prescribes.

mod common;

use common::*;
use hkdf::Hkdf;
use sha2::Sha256;

const HEADER: usize = 88;

/// Section 2.1: PRK, header tag, payload key.
fn keys(ikm: &[u8], header: &[u8], key_len: usize) -> ([u8; 32], Vec<u8>) {
    let salt = &header[24..56];
    let h = &header[..56];
    let hk = Hkdf::<Sha256>::new(Some(salt), ikm);
    let mut tag = [0u8; 32];
    let mut info = b"blockmodes v1 header tag".to_vec();
    info.extend_from_slice(h);
    hk.expand(&info, &mut tag).unwrap();
    let mut payload = vec![0u8; key_len];
    let mut info = b"blockmodes v1 payload key".to_vec();
    info.extend_from_slice(h);
    hk.expand(&info, &mut payload).unwrap();
    (tag, payload)
}

/// Section 2.2: the nonce of chunk `i`.
fn nonce(len: usize, i: u64, last: bool) -> Vec<u8> {
    let mut n = vec![0u8; len - 9];
    n.extend_from_slice(&i.to_be_bytes());
    n.push(u8::from(last));
    n
}

type OpenChunk = fn(&[u8], &[u8], &[u8]) -> Option<Vec<u8>>;

/// A mode as the document describes it.
#[derive(Clone, Copy)]
struct Spec {
    name: &'static str,
    /// Header byte 9.
    code: u8,
    /// Nonce (or counter block) length.
    nonce_len: usize,
    /// Payload key length.
    key_len: usize,
    /// Sealed length of a full chunk minus the chunk size.
    overhead: usize,
    /// Open one sealed chunk with the library's one-shot API.
    open: OpenChunk,
}

/// The modes, each opened with the library's one-shot API.
fn modes() -> Vec<Spec> {
    vec![
        aead("ocb1", 1, 16, |key, nonce, sealed| {
            blockmodes::ocb1::Ocb1Aes256::new_from_slice(key)
                .ok()?
                .decrypt_to_vec(nonce, sealed)
                .ok()
        }),
        aead("cwc", 2, 11, |key, nonce, sealed| {
            blockmodes::cwc::CwcAes256::new_from_slice(key)
                .ok()?
                .decrypt_to_vec(nonce, b"", sealed)
                .ok()
        }),
        Spec {
            name: "xcbc-xor",
            code: 3,
            nonce_len: 16,
            key_len: 64,
            overhead: 48,
            open: |key, ctr, sealed| {
                if sealed.get(..16)? != ctr {
                    return None;
                }
                blockmodes::xcbc::XcbcXorStateful::<blockmodes::Aes256>::new_from_slice(key)
                    .ok()?
                    .decrypt(sealed)
                    .ok()
            },
        },
    ]
}

fn aead(name: &'static str, code: u8, nonce_len: usize, open: OpenChunk) -> Spec {
    Spec {
        name,
        code,
        nonce_len,
        key_len: 32,
        overhead: 16,
        open,
    }
}

/// Open a sealed file by the document alone.
fn open_by_the_spec(bytes: &[u8], ikm: &[u8], m: Spec) -> Vec<u8> {
    let Spec {
        code,
        nonce_len,
        open,
        ..
    } = m;
    assert_eq!(&bytes[..8], b"blkmodes");
    assert_eq!(bytes[8], 1, "version");
    assert_eq!(bytes[9], code, "mode");
    let chunk = 1usize << bytes[11];
    let (tag, key) = keys(ikm, &bytes[..HEADER], m.key_len);
    assert_eq!(&bytes[56..HEADER], &tag, "header tag");
    let sealed_chunk = chunk + m.overhead;
    let payload = &bytes[HEADER..];
    let pieces: Vec<&[u8]> = payload.chunks(sealed_chunk).collect();
    let mut out = Vec::new();
    for (i, piece) in pieces.iter().enumerate() {
        let last = i + 1 == pieces.len();
        let pt = open(&key, &nonce(nonce_len, i as u64, last), piece).expect("chunk opens");
        assert!(last || pt.len() == chunk);
        // The wrong flag never opens.
        assert!(open(&key, &nonce(nonce_len, i as u64, !last), piece).is_none());
        out.extend_from_slice(&pt);
    }
    out
}

#[test]
fn key_file_seal_follows_the_document() {
    for m in modes() {
        let mode = m.name;
        let d = dir_with_key();
        let dir = d.path();
        let k = master_key(&std::fs::read_to_string(path(dir, "k")).unwrap());
        for n in [0usize, 1, 1024, 2500] {
            let msg = data(n, 11);
            std::fs::write(path(dir, "m"), &msg).unwrap();
            ok(&run(
                dir,
                &[
                    "seal",
                    "--mode",
                    mode,
                    "--chunk-size",
                    "1K",
                    "--key-file",
                    "k",
                    "--force",
                    "-o",
                    "m.bm",
                    "m",
                ],
            ));
            let bytes = std::fs::read(path(dir, "m.bm")).unwrap();
            assert_eq!(bytes[10], 1, "key source: key file");
            assert_eq!(bytes[11], 10, "log2 chunk");
            assert_eq!(&bytes[12..24], &[0u8; 12], "no KDF parameters");
            assert_eq!(open_by_the_spec(&bytes, &k, m), msg, "{mode} {n}");
        }
    }
}

#[test]
fn passphrase_seal_follows_the_document() {
    let m = modes()[0];
    let mode = m.name;
    let d = dir_with_key();
    let dir = d.path();
    std::fs::write(path(dir, "pass"), "tr0ub4dor&3\n").unwrap();
    let msg = data(5000, 12);
    std::fs::write(path(dir, "m"), &msg).unwrap();
    ok(&run(
        dir,
        &[
            "seal",
            "--mode",
            mode,
            "--passphrase-file",
            "pass",
            "-o",
            "m.bm",
            "m",
        ],
    ));
    let bytes = std::fs::read(path(dir, "m.bm")).unwrap();
    assert_eq!(bytes[10], 2, "key source: passphrase");
    let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    assert_eq!((be(12), be(16), be(20)), (65536, 3, 1), "Argon2id m, t, p");
    let params = argon2::Params::new(be(12), be(16), be(20), Some(32)).unwrap();
    let mut ikm = [0u8; 32];
    argon2::Argon2::new(argon2::Algorithm::Argon2id, argon2::Version::V0x13, params)
        .hash_password_into(b"tr0ub4dor&3", &bytes[24..56], &mut ikm)
        .unwrap();
    assert_eq!(open_by_the_spec(&bytes, &ikm, m), msg);
}
