//! The bench header names the CPU: parsing `/proc/cpuinfo` (x86, ARM, none)
//! and the header the command prints, as text and as JSON.

mod common;

use blockmodes_cli::bench::cpu::Cpu;
use common::*;

const INTEL_VM: &str = "processor\t: 0
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 143
model name\t: Intel(R) Xeon(R) Processor
stepping\t: 8
flags\t\t: fpu aes avx512f

processor\t: 1
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 143
model name\t: Intel(R) Xeon(R) Processor
";

const ARM: &str = "processor\t: 0
BogoMIPS\t: 50.00
CPU implementer\t: 0x41
CPU architecture: 8
CPU variant\t: 0x3
CPU part\t: 0xd0c
";

#[test]
fn cpuinfo_x86_fields() {
    let cpu = Cpu::from_cpuinfo(INTEL_VM, vec![("vaes", true), ("avx512ifma", false)]);
    assert_eq!(cpu.model_name, "Intel(R) Xeon(R) Processor");
    assert_eq!(cpu.vendor, "GenuineIntel");
    assert_eq!(cpu.family, "6");
    assert_eq!(cpu.model, "143");
    assert_eq!(
        cpu.describe(),
        "Intel(R) Xeon(R) Processor (GenuineIntel, family 6, model 143); vaes yes, avx512ifma no"
    );
    let json = cpu.to_json();
    assert_eq!(json["model_name"], "Intel(R) Xeon(R) Processor");
    assert_eq!(json["model"], "143");
    assert_eq!(json["features"]["vaes"], true);
    assert_eq!(json["features"]["avx512ifma"], false);
}

#[test]
fn cpuinfo_arm_and_missing_fields() {
    let arm = Cpu::from_cpuinfo(ARM, Vec::new());
    assert_eq!(
        (arm.model_name.as_str(), arm.vendor.as_str()),
        ("unknown", "0x41")
    );
    assert_eq!((arm.family.as_str(), arm.model.as_str()), ("8", "0xd0c"));
    assert!(arm.describe().ends_with("x86 features: n/a"));
    for text in ["", "garbage without colons\n\n", ": :\nmodel name:\n"] {
        let none = Cpu::from_cpuinfo(text, Vec::new());
        assert_eq!(none.model_name, "unknown");
        assert_eq!(none.model, "unknown");
    }
}

#[test]
fn bench_prints_the_cpu() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["bench", "--quick", "--modes", "ecb", "--sizes", "64"];
    let text = run(dir.path(), &args);
    assert_eq!(code(&text), 0, "{}", stderr(&text));
    let out = String::from_utf8(text.stdout).unwrap();
    assert!(out.lines().next().unwrap().starts_with("# CPU: "), "{out}");

    let json = run(dir.path(), &[&args[..], &["--json"]].concat());
    assert_eq!(code(&json), 0, "{}", stderr(&json));
    let out = String::from_utf8(json.stdout).unwrap();
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines[0]["cpu"]["model_name"].is_string(), "{out}");
    assert!(lines[0]["cpu"]["features"].is_object(), "{out}");
    assert_eq!(lines[1]["mode"], "ecb");
    assert_eq!(lines.len(), 2);
}

/// The tier line of a text header run with `args` and `BLOCKMODES_CPU` =
/// `env` (unset with `None`).
fn tier_of(dir: &std::path::Path, env: Option<&str>, args: &[&str]) -> String {
    let mut cmd = bin();
    cmd.current_dir(dir)
        .args(["bench", "--quick", "--modes", "ecb", "--sizes", "64"])
        .args(args);
    cmd.env_remove("BLOCKMODES_CPU");
    if let Some(v) = env {
        cmd.env("BLOCKMODES_CPU", v);
    }
    let out = cmd.output().unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("# tier: "))
        .unwrap_or_else(|| panic!("no tier line: {text}"));
    line.split_whitespace().next().unwrap().to_string()
}

#[test]
fn bench_names_the_tier_and_the_cap_lowers_it() {
    let dir = tempfile::tempdir().unwrap();
    let listed = run(dir.path(), &["bench", "--tiers"]);
    assert_eq!(code(&listed), 0, "{}", stderr(&listed));
    let tiers: Vec<String> = String::from_utf8(listed.stdout)
        .unwrap()
        .split_whitespace()
        .map(str::to_string)
        .collect();
    assert_eq!(tiers[0], "generic");
    let top = tiers.last().unwrap().clone();
    assert_eq!(tier_of(dir.path(), None, &[]), top);
    // Every tier the CPU runs, by the variable and by --cpu; a cap above
    // the CPU's highest never raises it; an unknown value caps at generic.
    for t in &tiers {
        assert_eq!(&tier_of(dir.path(), Some(t), &[]), t);
        assert_eq!(&tier_of(dir.path(), None, &["--cpu", t]), t);
    }
    assert_eq!(tier_of(dir.path(), Some("VAES512"), &[]), top);
    assert_eq!(tier_of(dir.path(), Some("no-such-tier"), &[]), "generic");
    assert_eq!(tier_of(dir.path(), Some(""), &[]), top);
    // The lower of the two wins.
    assert_eq!(
        tier_of(dir.path(), Some("generic"), &["--cpu", &top]),
        "generic"
    );
    let bad = run(dir.path(), &["bench", "--cpu", "avx2"]);
    assert_eq!(code(&bad), 2, "{}", stderr(&bad));
    let json = run(
        dir.path(),
        &[
            "bench", "--quick", "--modes", "ecb", "--sizes", "64", "--json", "--cpu", "generic",
        ],
    );
    let first: serde_json::Value = serde_json::from_str(
        String::from_utf8(json.stdout)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(first["cpu"]["tier"], "generic");
}

#[test]
fn against_times_every_other_row_beside_the_named_mode() {
    let dir = tempfile::tempdir().expect("tempdir");
    let args = [
        "bench",
        "--quick",
        "--json",
        "--modes",
        "ecb,ocb1-encrypt,pmac",
        "--sizes",
        "1K",
        "--against",
        "pmac",
    ];
    let out = run(dir.path(), &args);
    ok(&out);
    let rows: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .filter(|v: &serde_json::Value| v.get("mode").is_some())
        .collect();
    assert_eq!(rows.len(), 3);
    for row in &rows {
        let against = row.get("against");
        match row["mode"].as_str() {
            // a row is not timed against itself, nor ECB against anything
            Some("ecb" | "pmac") => assert!(against.is_none(), "{row}"),
            _ => {
                assert_eq!(against, Some(&"pmac".into()), "{row}");
                assert!(
                    row["ratio_to_against"].as_f64().is_some_and(|r| r > 0.0),
                    "{row}"
                );
            }
        }
    }
    let no_json: Vec<&str> = args.iter().copied().filter(|a| *a != "--json").collect();
    let text = run(dir.path(), &no_json);
    ok(&text);
    let text = String::from_utf8_lossy(&text.stdout).into_owned();
    assert!(
        text.lines()
            .any(|l| l.starts_with("mode") && l.ends_with("x pmac")),
        "{text}"
    );
    fails(
        &run(
            dir.path(),
            &[
                "bench",
                "--quick",
                "--modes",
                "ecb",
                "--sizes",
                "64",
                "--against",
                "rot13",
            ],
        ),
        2,
        "unknown mode `rot13`",
    );
}
