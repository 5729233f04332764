//! The on-line bench cases (issue 14) run, at sizes below, at and above
//! their 64 KiB piece.

use blockmodes_cli::bench;

#[test]
fn online_bench_cases_run() {
    for mode in [
        "ocb1-encrypt-vec",
        "ocb1-decrypt-vec",
        "ocb1-online-64k",
        "cwc-encrypt-vec",
        "cwc-decrypt-vec",
        "cwc-online-64k",
    ] {
        assert!(bench::all_modes().contains(&mode));
        for bytes in [0, 1, 4096, 65536, 200_000] {
            let mut case = bench::make(mode, bytes).expect("case");
            case();
            case();
        }
    }
}
