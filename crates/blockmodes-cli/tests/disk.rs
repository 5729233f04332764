//! `blockmodes disk encrypt|decrypt` through the real binary.

mod common;

use common::*;

const CIPHERS: &[&str] = &["ete", "eme", "eme2", "xex"];

#[test]
fn round_trip_every_cipher_and_sector_size() {
    let d = dir_with_key();
    let dir = d.path();
    for &cipher in CIPHERS {
        for sector in [16usize, 512, 2048, 4096] {
            // Several 64 KiB work units and a partial one.
            let image = data(sector * (300_000 / sector + 1), sector as u64);
            std::fs::write(path(dir, "img"), &image).unwrap();
            let size = sector.to_string();
            let args = |action: &'static str, input: &'static str, output: &'static str| {
                vec![
                    "disk",
                    action,
                    "--cipher",
                    cipher,
                    "--sector-size",
                    &size,
                    "--key-file",
                    "k",
                    input,
                    "-o",
                    output,
                ]
            };
            ok(&run(dir, &args("encrypt", "img", "enc")));
            let enc = std::fs::read(path(dir, "enc")).unwrap();
            assert_eq!(enc.len(), image.len());
            assert_ne!(enc, image);
            ok(&run(dir, &args("decrypt", "enc", "dec")));
            assert!(
                std::fs::read(path(dir, "dec")).unwrap() == image,
                "{cipher} {sector}"
            );
            for f in ["img", "enc", "dec"] {
                std::fs::remove_file(path(dir, f)).unwrap();
            }
        }
    }
    assert_eq!(names(dir), ["k"]);
}

#[test]
fn first_sector_matches_the_position_in_a_larger_image() {
    let d = dir_with_key();
    let dir = d.path();
    for &cipher in CIPHERS {
        let image = data(512 * 300, 1);
        std::fs::write(path(dir, "img"), &image).unwrap();
        std::fs::write(path(dir, "tail"), &image[512 * 100..]).unwrap();
        let enc = |input: &str, out: &str, first: &str| {
            ok(&run(
                dir,
                &[
                    "disk",
                    "encrypt",
                    "--cipher",
                    cipher,
                    "--first-sector",
                    first,
                    "--key-file",
                    "k",
                    input,
                    "-o",
                    out,
                ],
            ));
            std::fs::read(path(dir, out)).unwrap()
        };
        let whole = enc("img", "whole", "0");
        let tail = enc("tail", "tail.enc", "100");
        assert!(tail == whole[512 * 100..], "{cipher}");
        // Sectors are independent: changing one sector changes only it.
        let mut changed = image.clone();
        changed[512 * 7 + 3] ^= 1;
        std::fs::write(path(dir, "img2"), &changed).unwrap();
        let whole2 = enc("img2", "whole2", "0");
        for s in 0..300 {
            let same = whole[512 * s..512 * (s + 1)] == whole2[512 * s..512 * (s + 1)];
            assert_eq!(same, s != 7, "{cipher} sector {s}");
        }
        for f in ["img", "tail", "whole", "tail.enc", "img2", "whole2"] {
            std::fs::remove_file(path(dir, f)).unwrap();
        }
    }
}

#[test]
fn errors_are_clear_and_leave_no_output() {
    let d = dir_with_key();
    let dir = d.path();
    std::fs::write(path(dir, "odd"), data(1000, 2)).unwrap();
    let o = run(
        dir,
        &[
            "disk",
            "encrypt",
            "--cipher",
            "ete",
            "--key-file",
            "k",
            "odd",
            "-o",
            "out",
        ],
    );
    fails(&o, 2, "not a whole number of 512-byte sectors");
    let o = run(
        dir,
        &[
            "disk",
            "encrypt",
            "--cipher",
            "eme",
            "--sector-size",
            "1000",
            "--key-file",
            "k",
            "odd",
            "-o",
            "out",
        ],
    );
    // A bad --sector-size is refused while the arguments are parsed
    // (issue 13, finding 3): clap's usage error, whose one message line is
    // followed by its pointer to --help.
    let err = common::stderr(&o);
    assert_eq!(common::code(&o), 2, "stderr: {err}");
    assert!(
        err.lines()
            .next()
            .is_some_and(|l| l.contains("sector size")),
        "{err:?}"
    );
    std::fs::write(path(dir, "img"), data(1024, 2)).unwrap();
    std::fs::write(path(dir, "out"), b"keep").unwrap();
    let o = run(
        dir,
        &[
            "disk",
            "encrypt",
            "--cipher",
            "xex",
            "--key-file",
            "k",
            "img",
            "-o",
            "out",
        ],
    );
    fails(&o, 2, "exists");
    assert_eq!(std::fs::read(path(dir, "out")).unwrap(), b"keep");
    ok(&run(
        dir,
        &[
            "disk",
            "encrypt",
            "--cipher",
            "xex",
            "--force",
            "--key-file",
            "k",
            "img",
            "-o",
            "out",
        ],
    ));
    assert_eq!(std::fs::read(path(dir, "out")).unwrap().len(), 1024);
    let o = run(
        dir,
        &[
            "disk",
            "encrypt",
            "--cipher",
            "xex",
            "--first-sector",
            "18446744073709551615",
            "--key-file",
            "k",
            "img",
            "-o",
            "big",
        ],
    );
    fails(&o, 2, "past sector");
    assert_eq!(names(dir), ["img", "k", "odd", "out"]);
}

#[test]
fn images_follow_the_document() {
    use blockmodes::sector::{DiskCipher, aes_sectors};
    let d = dir_with_key();
    let dir = d.path();
    let k = master_key(&std::fs::read_to_string(path(dir, "k")).unwrap());
    let image = data(4096 * 40, 9);
    std::fs::write(path(dir, "img"), &image).unwrap();
    for (name, kind, label, len) in [
        (
            "ete",
            DiskCipher::Ete,
            "blockmodes v1 disk ete-eme-aes128",
            16,
        ),
        ("eme", DiskCipher::Eme, "blockmodes v1 disk eme-aes256", 32),
        ("xex", DiskCipher::Xex, "blockmodes v1 disk xex-aes256", 32),
        (
            "eme2",
            DiskCipher::Eme2,
            "blockmodes v1 disk eme2-aes256",
            64,
        ),
    ] {
        for sector in [512usize, 4096] {
            let size = sector.to_string();
            ok(&run(
                dir,
                &[
                    "disk",
                    "encrypt",
                    "--cipher",
                    name,
                    "--sector-size",
                    &size,
                    "--first-sector",
                    "77",
                    "--key-file",
                    "k",
                    "--force",
                    "img",
                    "-o",
                    "enc",
                ],
            ));
            let disk = aes_sectors(kind, &subkey(&k, label, len), sector).unwrap();
            let mut want = image.clone();
            for (s, sec) in want.chunks_mut(sector).enumerate() {
                disk.encrypt_sector(77 + s as u64, sec).unwrap();
            }
            assert!(
                std::fs::read(path(dir, "enc")).unwrap() == want,
                "{name} {sector}"
            );
        }
    }
}
