//! Criterion benchmarks of the same cases as `blockmodes bench`:
//! `cargo bench -p blockmodes-cli` (add a filter such as `ocb1` to narrow).

use blockmodes_cli::bench::{DEFAULT_SIZES, all_modes, make};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

fn modes(c: &mut Criterion) {
    for mode in all_modes() {
        let mut group = c.benchmark_group(mode);
        for &bytes in DEFAULT_SIZES {
            let Some(mut case) = make(mode, bytes) else {
                continue;
            };
            group.throughput(Throughput::Bytes(bytes as u64));
            group.bench_function(BenchmarkId::from_parameter(bytes), |b| b.iter(&mut case));
        }
        group.finish();
    }
}

criterion_group!(benches, modes);
criterion_main!(benches);
