//! The driver of `tools/mca/armv8.sh`'s generic-path figure (not a usage
//! example): runs one mode on the generic tier (the modes over the `aes`
//! crate's `Aes128`, keyed with `from_cipher`, so no fused kernel) on a
//! long input, so that `qemu-aarch64 -singlestep -d exec` records the
//! instructions the generic path executes, in order. The script cuts whole
//! trips of its steady-state loop out of that trace (from one entry into
//! the `aes` crate's batch function to a later one) and gives them to
//! llvm-mca. Usage: `mca_generic ocb1-encrypt|ocb1-decrypt|pmac|xex|xex-sectors`.
//!
//! ```text
//! cargo run --release --example mca_generic -- pmac
//! ```
use blockmodes::Aes128;
use cipher::KeyInit;

fn main() -> Result<(), blockmodes::Error> {
    let mode = std::env::args().nth(1).unwrap_or_default();
    let aes = || Aes128::new(&[7u8; 16].into());
    // 64 KiB: 512 batches of 8 blocks (the script cuts trips 64..72);
    // the sector path: 96 KiB, three chunks of 64 units of 512 bytes (the
    // script cuts the second).
    let len = if mode == "xex-sectors" { 96 } else { 64 };
    let mut data = vec![0x5au8; len * 1024];
    match mode.as_str() {
        "ocb1-encrypt" => {
            let ocb = blockmodes::ocb1::Ocb1::<Aes128>::from_cipher(aes());
            let tag = ocb.encrypt_detached(&[1; 16], &mut data)?;
            std::hint::black_box(tag);
        }
        "ocb1-decrypt" => {
            let ocb = blockmodes::ocb1::Ocb1::<Aes128>::from_cipher(aes());
            // A wrong tag: the blocks are deciphered all the same (the
            // check comes after), then wiped.
            let r = ocb.decrypt_detached(&[1; 16], &mut data, &[0; 16]);
            std::hint::black_box(r.is_err());
        }
        "pmac" => {
            let pmac = blockmodes::pmac::Pmac::<Aes128>::from_cipher(aes());
            std::hint::black_box(pmac.mac(&data));
        }
        "xex" => {
            let xex = blockmodes::xex::Xex::<Aes128>::from_cipher(aes());
            xex.encrypt_blocks(&[3; 16], 1, &mut data)?;
        }
        "xex-sectors" => {
            use blockmodes::sector::DataUnitCipher;
            let xex = blockmodes::xex::Xex::<Aes128>::from_cipher(aes());
            xex.encrypt_units(0, 512, &mut data)?;
        }
        _ => {
            eprintln!("usage: mca_generic ocb1-encrypt|ocb1-decrypt|pmac|xex|xex-sectors");
            std::process::exit(2);
        }
    }
    std::hint::black_box(&data);
    Ok(())
}
