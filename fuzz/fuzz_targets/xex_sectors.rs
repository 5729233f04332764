//! The sector interface (XEX, EME, EtE, EME2 over AES) with an arbitrary
//! sector size and first sector: decryption of arbitrary data then
//! encryption gives the data back, the parallel and serial paths agree, and
//! sizes, lengths or sector numbers out of range are refused, data
//! untouched. Differential: XEX's SIMD and portable kernels.
#![no_main]
use blockmodes::Aes128;
use blockmodes::sector::{DiskCipher, aes_sectors};
use blockmodes::xex::Xex;
use blockmodes_fuzz::Input;
use libfuzzer_sys::fuzz_target;

const SIZES: [usize; 12] = [16, 32, 512, 2048, 4096, 1024, 0, 8, 17, 4095, 8192, 65536];

fuzz_target!(|data: &[u8]| {
    let mut inp = Input(data);
    let key: [u8; 64] = inp.array();
    let ctl = inp.byte();
    let size = SIZES[(inp.byte() % 12) as usize];
    let first = u64::from_le_bytes(inp.array());
    let first = if ctl & 0x80 == 0 { first % 1000 } else { first };
    let body = inp.rest();

    let (cipher, klen) = match ctl % 4 {
        0 => (DiskCipher::Xex, 16),
        1 => (DiskCipher::Eme, 32),
        2 => (DiskCipher::Ete, 16),
        _ => (DiskCipher::Eme2, 48),
    };
    if let Ok(s) = aes_sectors(cipher, &key[..klen], size) {
        let mut a = body.to_vec();
        let mut b = body.to_vec();
        let ra = s.decrypt_sectors(first, &mut a);
        let rb = s.decrypt_sectors_serial(first, &mut b);
        assert_eq!(ra.is_ok(), rb.is_ok());
        assert_eq!(a, b, "parallel and serial decryption differ");
        if ra.is_ok() {
            s.encrypt_sectors(first, &mut a).unwrap();
            assert_eq!(a, body, "encrypt(decrypt(y)) != y");
        } else {
            assert_eq!(a, body, "a refused call changed the data");
        }
    }

    // XEX blocks: SIMD against portable, both directions.
    let x = Xex::<Aes128>::new_from_slice(&key[..16]).unwrap();
    let p = x.clone().portable();
    let n: [u8; 16] = key[16..32].try_into().unwrap();
    let i = 1 + first % 100_000;
    let mut a = body[..body.len() / 16 * 16].to_vec();
    let mut b = a.clone();
    if x.encrypt_blocks(&n, i, &mut a).is_ok() {
        p.encrypt_blocks(&n, i, &mut b).unwrap();
        assert_eq!(a, b, "XEX SIMD and portable differ");
        x.decrypt_blocks(&n, i, &mut b).unwrap();
        assert_eq!(b, &body[..b.len()]);
        p.decrypt_blocks(&n, i, &mut a).unwrap();
        assert_eq!(a, b, "XEX SIMD and portable decryptions differ");
    }
});
