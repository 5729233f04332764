//! The sealed-file reader of the CLI (`blockmodes open`): the header parser
//! on arbitrary bytes (a header that parses is canonical: sealing its fields
//! gives the same bytes, and it authenticates exactly when its tag is the
//! right one), and the chunk opener of each mode on an arbitrary chunk
//! stream under a fixed key (a chunk that opens is the sealing of its
//! plaintext at its index; a rejected chunk leaves no plaintext); a sealed
//! stream of arbitrary plaintext opens to exactly that plaintext.
#![no_main]
use blockmodes_cli::header::{HEADER_LEN, Header, Mode, Secret};
use blockmodes_cli::keyfile::MasterKey;
use blockmodes_cli::seal::chunk_cipher;
use blockmodes_fuzz::{Input, assert_no_plaintext};
use libfuzzer_sys::fuzz_target;

const KEY: &str =
    "blockmodes-key-v1 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\n";

fuzz_target!(|data: &[u8]| {
    let secret = Secret::KeyFile(MasterKey::from_file_text(KEY).unwrap());
    if let Ok(h) = Header::parse(data)
        && h.kdf.is_none()
    {
        let k = h.seal_keys(&secret).unwrap();
        assert_eq!(
            &k.header_bytes[..56],
            &data[..56],
            "non-canonical header parsed"
        );
        let opened = h.open_keys(data, &secret);
        assert_eq!(opened.is_ok(), k.header_bytes[..] == data[..HEADER_LEN]);
    }

    let mut inp = Input(data);
    let mode = [Mode::Ocb1, Mode::Cwc, Mode::XcbcXor][inp.byte() as usize % 3];
    let header = Header {
        mode,
        chunk_log2: 10,
        kdf: None,
        salt: inp.array(),
    };
    let keys = header.seal_keys(&secret).unwrap();
    let cipher = chunk_cipher(mode, &keys.payload).unwrap();
    let stream = inp.rest();
    let unit = cipher.sealed_len(header.chunk_len());
    let chunks: Vec<&[u8]> = if stream.is_empty() {
        vec![stream]
    } else {
        stream.chunks(unit).collect()
    };
    for (i, c) in chunks.iter().enumerate() {
        let last = i + 1 == chunks.len();
        let Some(cap) = cipher.max_opened_len(c.len()) else {
            continue;
        };
        let fresh = vec![0xa5; cap];
        let mut out = fresh.clone();
        match cipher.open(i as u64, last, c, &mut out) {
            Ok(n) => {
                let mut again = vec![0; cipher.sealed_len(n)];
                cipher.seal(i as u64, last, &out[..n], &mut again).unwrap();
                assert_eq!(
                    &again, c,
                    "an opened chunk is not the sealing of its plaintext"
                );
            }
            Err(_) => assert_no_plaintext(&out, &fresh, "chunk"),
        }
    }

    // Seal the stream as plaintext, then open it back.
    let plain: Vec<&[u8]> = if stream.is_empty() {
        vec![stream]
    } else {
        stream.chunks(header.chunk_len()).collect()
    };
    for (i, p) in plain.iter().enumerate() {
        let last = i + 1 == plain.len();
        let mut sealed = vec![0; cipher.sealed_len(p.len())];
        cipher.seal(i as u64, last, p, &mut sealed).unwrap();
        let mut out = vec![0; cipher.max_opened_len(sealed.len()).unwrap()];
        let n = cipher.open(i as u64, last, &sealed, &mut out).unwrap();
        assert_eq!(&out[..n], *p);
        // The same chunk at another index or with the other last flag is refused.
        let mut out2 = vec![0; out.len()];
        assert!(cipher.open(i as u64 + 1, last, &sealed, &mut out2).is_err());
        assert!(cipher.open(i as u64, !last, &sealed, &mut out2).is_err());
    }
});
