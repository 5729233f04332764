//! The plugin in a real nbdkit, driven by real clients (`nbdinfo`,
//! `nbdcopy`, `qemu-io`) and a raw NBD client. Expected plaintexts come from
//! `blockmodes disk encrypt/decrypt` (the CLI's code, checked against the
//! vectors elsewhere): the plugin is what is under test.
//!
//! Skipped, with a message, when nbdkit, libnbd-bin or qemu-utils are not
//! installed; `.ci/run` installs them.

mod common;

use std::process::Command;

use common::*;

/// Every cipher, with sector sizes and first sectors that exercise the
/// 4096-byte layout (two data units) and a non-zero first sector.
const GEOMETRIES: [Geometry; 5] = [
    Geometry::new("ete", 512, 0),
    Geometry::new("eme", 4096, 2048),
    Geometry::new("xex", 512, 7),
    Geometry::new("xex", 4096, 0),
    Geometry::new("eme2", 4096, 3),
];

const SIZE: usize = 1 << 20;

#[test]
fn export_equals_disk_decrypt() {
    let Some(plugin) = tools() else { return };
    for (i, g) in offered(&GEOMETRIES).into_iter().enumerate() {
        let fx = Fixture::new();
        let len = SIZE + 3 * g.sector_size;
        let plain = data(i as u64, len);
        let img = fx.encrypt(g, &plain, "img");
        let expected = fx.decrypt(g, &img);
        assert_eq!(expected, plain, "{g:?}: disk decrypt round trip");
        let srv = serve(&plugin, &fx, "s", &img, &g.params(&fx));

        let mut c = Command::new("nbdinfo");
        c.arg("--size").arg(srv.uri());
        let o = run_ok(c, 30);
        assert_eq!(o.stdout.trim(), len.to_string(), "{g:?}: nbdinfo --size");

        let out = fx.path("copy");
        let mut c = Command::new("nbdcopy");
        c.arg(srv.uri()).arg(&out);
        run_ok(c, 60);
        let got = std::fs::read(&out).expect("nbdcopy output");
        assert!(
            got == expected,
            "{g:?}: nbdcopy of the export != disk decrypt"
        );
        srv.stop();
    }
}

/// Unaligned and multi-sector writes, zero and trim through qemu-io; read
/// back through the export and checked with `disk decrypt`.
#[test]
fn qemu_io_writes_reach_the_image() {
    let Some(plugin) = tools() else { return };
    for (i, g) in offered(&GEOMETRIES).into_iter().enumerate() {
        let fx = Fixture::new();
        let ss = g.sector_size;
        let len = 64 * ss;
        let mut plain = data(100 + i as u64, len);
        let img = fx.encrypt(g, &plain, "img");
        let srv = serve(&plugin, &fx, "s", &img, &g.params(&fx));
        // (pattern, offset, length): unaligned start and end over several
        // sectors, one whole-sector run, one byte, one sector's tail.
        let writes: [(u8, usize, usize); 4] = [
            (0xab, 100, 3 * ss + 77),
            (0xcd, 8 * ss, 4 * ss),
            (0xef, 20 * ss + 5, 1),
            (0x5c, 30 * ss - 16, 16),
        ];
        let mut cmds = Vec::new();
        for &(p, off, n) in &writes {
            cmds.push(format!("write -P {p:#x} {off} {n}"));
            plain[off..off + n].fill(p);
        }
        // zero (unaligned) and trim (whole sectors) write enciphered zeros
        cmds.push(format!("write -z {} {}", 40 * ss + 3, 2 * ss));
        plain[40 * ss + 3..42 * ss + 3].fill(0);
        cmds.push(format!("discard {} {}", 50 * ss, 3 * ss));
        plain[50 * ss..53 * ss].fill(0);
        cmds.push("flush".into());
        // Reads that start and end inside sectors, and inside one sector.
        cmds.push(format!("read -P 0xab 300 {}", 2 * ss));
        cmds.push("read -P 0xab 100 10".into());
        cmds.push(format!("read -P 0xcd {} {}", 8 * ss + 1, 4 * ss - 2));
        cmds.push(format!("read -P 0xef {} 1", 20 * ss + 5));
        cmds.push(format!("read -P 0x5c {} 16", 30 * ss - 16));
        cmds.push(format!("read -P 0 {} {}", 40 * ss + 3, 2 * ss));
        cmds.push(format!("read -P 0 {} {}", 50 * ss, 3 * ss));
        qemu_io(&srv.uri(), &cmds);
        srv.stop();
        assert!(
            fx.decrypt(g, &img) == plain,
            "{g:?}: disk decrypt does not show the writes"
        );
    }
}

/// Two clients at once: distinct ranges, and partial writes interleaved
/// within the same sectors (16-byte slots, even ones from one client, odd
/// ones from the other, many in flight): none may be lost.
#[test]
fn two_clients_lose_nothing() {
    let Some(plugin) = tools() else { return };
    let g = Geometry::new("ete", 512, 0);
    let fx = Fixture::new();
    let ss = g.sector_size;
    let len = 256 * ss;
    let mut plain = data(7, len);
    let img = fx.encrypt(g, &plain, "img");
    let srv = serve(&plugin, &fx, "s", &img, &g.params(&fx));
    let shared = 64..96; // sectors both clients write into
    let mut scripts = [Vec::new(), Vec::new()];
    for (c, script) in scripts.iter_mut().enumerate() {
        let distinct = 128 + 64 * c; // 64 sectors of its own
        let pattern = 0x11 * (c as u8 + 1);
        for k in 0..16 {
            let off = (distinct + 4 * k) * ss + 3;
            script.push(format!("aio_write -P {pattern:#x} {off} {}", 4 * ss - 6));
            plain[off..off + 4 * ss - 6].fill(pattern);
        }
        let slot_pattern = 0xa0 + c as u8;
        for round in 0..2 {
            for s in shared.clone() {
                for slot in (c..ss / 16).step_by(2) {
                    if slot % 4 / 2 != round {
                        continue;
                    }
                    let off = s * ss + 16 * slot;
                    script.push(format!("aio_write -P {slot_pattern:#x} {off} 16"));
                    plain[off..off + 16].fill(slot_pattern);
                }
            }
        }
        script.push("aio_flush".into());
    }
    let spawn = |script: &[String]| {
        let mut c = Command::new("qemu-io");
        c.arg("-f").arg("raw");
        for s in script {
            c.arg("-c").arg(s);
        }
        c.arg(srv.uri());
        c
    };
    let (a, b) = std::thread::scope(|t| {
        let a = t.spawn(|| run(spawn(&scripts[0]), 120));
        let b = t.spawn(|| run(spawn(&scripts[1]), 120));
        (a.join().expect("client a"), b.join().expect("client b"))
    });
    for o in [&a, &b] {
        assert!(
            o.status.success() && !o.stdout.contains("failed") && !o.stderr.contains("failed"),
            "{}",
            o.text()
        );
    }
    srv.stop();
    let got = fx.decrypt(g, &img);
    let lost = (0..len / 16)
        .filter(|&j| got[16 * j..16 * j + 16] != plain[16 * j..16 * j + 16])
        .count();
    assert_eq!(lost, 0, "{lost} 16-byte slots lost or garbled");
}

/// `kill -9` of nbdkit after a flush was acknowledged: the data is in the
/// image, and a restarted server serves it.
#[test]
fn kill_after_flush_keeps_data() {
    let Some(plugin) = tools() else { return };
    let g = Geometry::new("xex", 512, 0);
    let fx = Fixture::new();
    let mut plain = data(9, 128 * 512);
    let img = fx.encrypt(g, &plain, "img");
    let srv = serve(&plugin, &fx, "s", &img, &g.params(&fx));
    qemu_io(
        &srv.uri(),
        &["write -P 0x5a 1000 3000".into(), "flush".into()],
    );
    plain[1000..4000].fill(0x5a);
    // One server per image: a second one refuses to start.
    match Nbdkit::start(&plugin, fx.dir.path(), "second", &img, &g.params(&fx)) {
        Ok(second) => panic!("a second server started:\n{}", second.stderr()),
        Err(e) => assert!(e.contains("is already served by another process"), "{e}"),
    }
    srv.kill9();
    let srv = serve(&plugin, &fx, "s2", &img, &g.params(&fx));
    qemu_io(&srv.uri(), &["read -P 0x5a 1000 3000".into()]);
    srv.stop();
    assert!(fx.decrypt(g, &img) == plain, "image after kill -9");
}

/// `readonly=true`: advertised read-only, writes refused by the server
/// itself (a raw client that sends one anyway), nothing written.
#[test]
fn read_only_refuses_writes() {
    let Some(plugin) = tools() else { return };
    let g = Geometry::new("eme", 512, 0);
    let fx = Fixture::new();
    let plain = data(11, 64 * 512);
    let img = fx.encrypt(g, &plain, "img");
    let before = std::fs::read(&img).expect("image");
    let mut params = g.params(&fx);
    params.push("readonly=true".into());
    let srv = serve(&plugin, &fx, "s", &img, &params);

    let mut c = Command::new("nbdinfo");
    c.arg(srv.uri());
    let o = run_ok(c, 30);
    assert!(o.stdout.contains("is_read_only: true"), "{}", o.text());

    let mut raw = RawClient::connect(&srv.socket).expect("connect");
    assert_ne!(raw.flags & NBD_FLAG_READ_ONLY, 0, "read-only flag");
    for cmd in [NBD_CMD_WRITE, NBD_CMD_WRITE_ZEROES, NBD_CMD_TRIM] {
        let payload = if cmd == NBD_CMD_WRITE {
            vec![1u8; 512]
        } else {
            Vec::new()
        };
        let (e, _) = raw.request(cmd, 0, 512, &payload).expect("request");
        assert_eq!(e, libc::EPERM as u32, "command {cmd} on a read-only export");
    }
    let (e, d) = raw.request(NBD_CMD_READ, 512, 512, &[]).expect("read");
    assert_eq!((e, &d[..]), (0, &plain[512..1024]));

    let mut c = Command::new("qemu-io");
    c.args(["-f", "raw", "-c", "write -P 1 0 512"])
        .arg(srv.uri());
    let o = run(c, 30);
    assert!(
        !o.status.success() || o.stdout.contains("failed") || o.stderr.contains("failed"),
        "qemu-io wrote to a read-only export:\n{}",
        o.text()
    );
    srv.stop();
    assert!(
        std::fs::read(&img).expect("image") == before,
        "image changed"
    );
}

/// Requests past the end (sent by a raw client: real clients refuse to):
/// an error reply, the server keeps serving, nothing written.
#[test]
fn past_the_end_requests_fail_cleanly() {
    let Some(plugin) = tools() else { return };
    let g = Geometry::new("ete", 512, 0);
    let fx = Fixture::new();
    let len = 16 * 512;
    let plain = data(13, len);
    let img = fx.encrypt(g, &plain, "img");
    let before = std::fs::read(&img).expect("image");
    let mut srv = serve(&plugin, &fx, "s", &img, &g.params(&fx));
    let mut raw = RawClient::connect(&srv.socket).expect("connect");
    assert_eq!(raw.size, len as u64);
    let end = len as u64;
    for (cmd, off, n) in [
        (NBD_CMD_READ, end - 100, 512u32),
        (NBD_CMD_READ, end, 1),
        (NBD_CMD_READ, u64::MAX - 10, 512),
        (NBD_CMD_WRITE, end - 1, 2),
        (NBD_CMD_WRITE, u64::MAX - 10, 512),
        (NBD_CMD_WRITE_ZEROES, end - 512, 1024),
        (NBD_CMD_TRIM, end, 512),
    ] {
        let payload = if cmd == NBD_CMD_WRITE {
            vec![7u8; n as usize]
        } else {
            Vec::new()
        };
        let (e, _) = raw.request(cmd, off, n, &payload).expect("reply");
        assert_ne!(e, 0, "command {cmd} at {off} + {n} succeeded");
    }
    let (e, d) = raw.request(NBD_CMD_READ, 100, 1000, &[]).expect("read");
    assert_eq!((e, &d[..]), (0, &plain[100..1100]), "server still serves");
    let (e, _) = raw.request(NBD_CMD_FLUSH, 0, 0, &[]).expect("flush");
    assert_eq!(e, 0);
    drop(raw);
    assert!(srv.alive(), "nbdkit died:\n{}", srv.stderr());
    srv.stop();
    assert!(
        std::fs::read(&img).expect("image") == before,
        "image changed"
    );
}

/// Bad parameters stop nbdkit at start-up with a clear message; the image
/// is never written.
#[test]
fn bad_parameters_are_refused_at_start() {
    let Some(plugin) = tools() else { return };
    let g = Geometry::new("ete", 512, 0);
    let fx = Fixture::new();
    let img = fx.encrypt(g, &data(17, 8 * 512), "img");
    let before = std::fs::read(&img).expect("image");
    let odd = fx.path("odd.img");
    std::fs::write(&odd, data(19, 8 * 512 + 100)).expect("odd image");
    let short_key = fx.path("short.key");
    std::fs::write(
        &short_key,
        format!("blockmodes-key-v1 {}\n", "ab".repeat(31)),
    )
    .expect("short key");
    let not_key = fx.path("not.key");
    std::fs::write(&not_key, "hello\n").expect("not a key");
    let key = format!("keyfile={}", fx.key.display());

    let cases: Vec<(&str, std::path::PathBuf, Vec<String>, &str)> = vec![
        (
            "key of the wrong length",
            img.clone(),
            vec![
                "cipher=ete".into(),
                format!("keyfile={}", short_key.display()),
            ],
            "not 64 hex digits",
        ),
        (
            "not a key file",
            img.clone(),
            vec![
                "cipher=xex".into(),
                format!("keyfile={}", not_key.display()),
            ],
            "is not a blockmodes key file",
        ),
        (
            "image not a whole number of sectors",
            odd.clone(),
            vec!["cipher=ete".into(), key.clone()],
            "is not a whole number of 512-byte sectors (4196 bytes, 100 left over)",
        ),
        (
            "sector size refused",
            img.clone(),
            vec!["cipher=ete".into(), key.clone(), "sector-size=100".into()],
            "sector size must be",
        ),
        (
            "sector size 0",
            img.clone(),
            vec!["cipher=eme".into(), key.clone(), "sector-size=0".into()],
            "sector size must be",
        ),
        (
            "sector size not a number",
            img.clone(),
            vec!["cipher=eme".into(), key.clone(), "sector-size=4k".into()],
            "sector-size=4k: not a number",
        ),
        (
            "unknown cipher",
            img.clone(),
            vec!["cipher=xts".into(), key.clone()],
            "expected ete, eme, xex or eme2",
        ),
        (
            "no key file",
            img.clone(),
            vec!["cipher=ete".into()],
            "keyfile=FILE is required",
        ),
        (
            "missing key file",
            img.clone(),
            vec![
                "cipher=ete".into(),
                format!("keyfile={}", fx.path("nope").display()),
            ],
            "cannot read key file",
        ),
        (
            "unknown parameter",
            img.clone(),
            vec!["cipher=ete".into(), key.clone(), "sector=512".into()],
            "unknown parameter sector=",
        ),
        (
            "parameter twice",
            img.clone(),
            vec!["cipher=ete".into(), key.clone(), "cipher=xex".into()],
            "parameter cipher given twice",
        ),
        (
            "first sector overflows",
            img.clone(),
            vec![
                "cipher=ete".into(),
                key.clone(),
                format!("first-sector={}", u64::MAX - 2),
            ],
            "would run past sector 2^64 - 1",
        ),
        (
            "missing image",
            fx.path("absent.img"),
            vec!["cipher=ete".into(), key.clone()],
            "cannot open",
        ),
    ];
    let mut cases = cases;
    if blockmodes_cli::disk::key_spec(blockmodes::sector::DiskCipher::Eme2).is_none() {
        cases.push((
            "eme2 before disk offers it",
            img.clone(),
            vec!["cipher=eme2".into(), key.clone()],
            "is not offered by `blockmodes disk`",
        ));
    }
    for (i, (what, image, params, message)) in cases.iter().enumerate() {
        match Nbdkit::start(&plugin, fx.dir.path(), &format!("bad{i}"), image, params) {
            Ok(srv) => panic!("{what}: nbdkit started:\n{}", srv.stderr()),
            Err(stderr) => {
                assert!(
                    stderr.contains(message),
                    "{what}: expected {message:?} in:\n{stderr}"
                );
                assert!(!stderr.contains("panicked"), "{what}: a panic:\n{stderr}");
            }
        }
    }
    assert!(
        std::fs::read(&img).expect("image") == before,
        "image changed"
    );
    assert_eq!(std::fs::metadata(&odd).expect("odd").len(), 8 * 512 + 100);
}
