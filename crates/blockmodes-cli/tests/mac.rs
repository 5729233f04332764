//! `blockmodes mac` / `verify` through the real binary.

mod common;

use common::*;

/// The modes `mac --mode` offers, with their tag lengths in hex digits.
const MODES: &[(&str, usize)] = &[("pmac", 32), ("xecb", 64)];

/// Sizes around the block and piece boundaries (1 MiB is read whole, larger
/// files are streamed in 8 MiB pieces).
const SIZES: &[usize] = &[
    0,
    1,
    15,
    16,
    17,
    4096,
    (1 << 20) - 1,
    (1 << 20) + 16,
    (8 << 20) + 16, // one full piece, the final block in the next read
    (8 << 20) + 17,
];

#[test]
fn mac_then_verify_detects_any_one_byte_change() {
    for &(mode, hex_len) in MODES {
        let d = dir_with_key();
        let dir = d.path();
        let mut names_list = Vec::new();
        for (i, &n) in SIZES.iter().enumerate() {
            let name = format!("f{i}");
            std::fs::write(path(dir, &name), data(n, i as u64 + 100)).unwrap();
            names_list.push(name);
        }
        let mut args = vec!["mac", "--mode", mode, "--key-file", "k"];
        args.extend(names_list.iter().map(String::as_str));
        let o = run(dir, &args);
        ok(&o);
        let sums = String::from_utf8(o.stdout).unwrap();
        let lines: Vec<&str> = sums.lines().collect();
        assert_eq!(lines.len(), SIZES.len());
        for (line, name) in lines.iter().zip(&names_list) {
            let (tag, n) = line.split_once("  ").unwrap();
            assert_eq!(n, name);
            assert_eq!(tag.len(), hex_len);
            assert!(
                tag.bytes()
                    .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
            );
        }
        std::fs::write(path(dir, "SUMS"), &sums).unwrap();
        let o = run(dir, &["verify", "--key-file", "k", "SUMS"]);
        ok(&o);
        let report = String::from_utf8(o.stdout).unwrap();
        for name in &names_list {
            assert!(report.contains(&format!("{name}: OK\n")), "{report}");
        }
        // One changed byte in any file (first, middle, last) is caught, and
        // only that file fails.
        for (i, &n) in SIZES.iter().enumerate() {
            if n == 0 {
                continue;
            }
            let p = path(dir, &names_list[i]);
            let orig = std::fs::read(&p).unwrap();
            for at in [0, n / 2, n - 1] {
                let mut v = orig.clone();
                v[at] ^= 0x04;
                std::fs::write(&p, &v).unwrap();
                let o = run(dir, &["verify", "--key-file", "k", "SUMS"]);
                fails(&o, 1, "1 of 10 computed checksums did NOT match");
                let report = String::from_utf8(o.stdout).unwrap();
                assert!(
                    report.contains(&format!("{}: FAILED\n", names_list[i])),
                    "{mode} {i} {at}"
                );
                assert_eq!(report.matches(": OK\n").count(), SIZES.len() - 1);
            }
            std::fs::write(&p, &orig).unwrap();
        }
        // An appended byte too.
        let p = path(dir, &names_list[3]);
        let mut v = std::fs::read(&p).unwrap();
        v.push(0);
        std::fs::write(&p, &v).unwrap();
        fails(
            &run(dir, &["verify", "--key-file", "k", "SUMS"]),
            1,
            "did NOT match",
        );
    }
}

#[test]
fn wrong_key_missing_file_and_malformed_lines() {
    let d = dir_with_key();
    let dir = d.path();
    std::fs::write(path(dir, "a"), b"alpha").unwrap();
    std::fs::write(path(dir, "b"), b"beta").unwrap();
    let o = run(dir, &["mac", "--key-file", "k", "a", "b"]);
    ok(&o);
    std::fs::write(path(dir, "SUMS"), &o.stdout).unwrap();
    ok(&run(dir, &["keygen", "-o", "k2"]));
    let o = run(dir, &["verify", "--key-file", "k2", "SUMS"]);
    fails(&o, 1, "2 of 2 computed checksums did NOT match");
    std::fs::remove_file(path(dir, "b")).unwrap();
    let o = run(dir, &["verify", "--key-file", "k", "SUMS"]);
    assert_eq!(code(&o), 1);
    assert!(String::from_utf8_lossy(&o.stdout).contains("b: FAILED open or read"));
    std::fs::write(path(dir, "junk"), b"not a checksum line\n").unwrap();
    fails(
        &run(dir, &["verify", "--key-file", "k", "junk"]),
        1,
        "no checksum lines",
    );
    let o = run(dir, &["mac", "--key-file", "k", "a", "nope"]);
    assert_eq!(code(&o), 2);
    assert!(String::from_utf8_lossy(&o.stdout).starts_with(&format!("{:32}", "")[..0]));
}

#[test]
fn mac_of_stdin_equals_mac_of_file_and_awkward_names() {
    let d = dir_with_key();
    let dir = d.path();
    let msg = data(3_000_000, 5);
    let name = "new\nline \\ name";
    std::fs::write(path(dir, name), &msg).unwrap();
    let from_file = run(dir, &["mac", "--key-file", "k", name]);
    ok(&from_file);
    let line = String::from_utf8(from_file.stdout).unwrap();
    assert!(line.starts_with('\\'), "escaped like sha256sum: {line:?}");
    assert!(line.ends_with("  new\\nline \\\\ name\n"), "{line:?}");
    let from_stdin = run_stdin(dir, &["mac", "--key-file", "k"], &msg);
    ok(&from_stdin);
    let stdin_line = String::from_utf8(from_stdin.stdout).unwrap();
    assert_eq!(&line[1..33], &stdin_line[..32]);
    assert!(stdin_line.ends_with("  -\n"));
    std::fs::write(path(dir, "SUMS"), &line).unwrap();
    ok(&run(dir, &["verify", "--key-file", "k", "SUMS"]));
}

#[test]
fn pmac_tags_follow_the_document() {
    let d = dir_with_key();
    let dir = d.path();
    let k = master_key(&std::fs::read_to_string(path(dir, "k")).unwrap());
    let key = subkey(&k, "blockmodes v1 mac pmac-aes256", 32);
    let pmac = blockmodes::pmac::PmacAes256::new_from_slice(&key).unwrap();
    for n in [0usize, 17, 32, (1 << 20) + 1, (8 << 20) + 16, (8 << 20) + 3] {
        let msg = data(n, n as u64);
        std::fs::write(path(dir, "f"), &msg).unwrap();
        let o = run(dir, &["mac", "--key-file", "k", "f"]);
        ok(&o);
        let want = format!("{}  f\n", hex::encode(pmac.mac(&msg)));
        assert_eq!(String::from_utf8(o.stdout).unwrap(), want, "{n} bytes");
    }
}
