//! GP runs on data users have, the configuration a plain run uses (tournament selection,
//! no seeds, one budget, no constant search): 10 generations of 100 individuals on the
//! training set of rotation 0 of 5,000 `commerce` offers (extended grammar, WNDCG fitness,
//! 5%) and of the real ScoopInstaller/Main history (`datasets/real/`, the All grammar, NDCG
//! fitness, 5%). Pages share few states in both.

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};
use freshgp::data::split::Split;
use freshgp::data::synth::{generate, SynthParams};
use freshgp::data::Dataset;
use freshgp::experiment::fitness::CrawlFitness;
use freshgp::formula::Grammar;
use freshgp::gp::{evolve, RawGpConfig};
use freshgp::metric::Metric;
use freshgp::sim::{Period, SimConfig};

/// The training period of rotation 0 of `data`.
fn training(data: &Dataset) -> Period {
    let split = Split::new(data.pages(), data.cycles(), 0).unwrap();
    Period::new(data, &split.train, split.train_cycles.clone()).unwrap()
}

fn bench(c: &mut Criterion) {
    let mut params = SynthParams::preset("commerce").unwrap();
    params.pages = 5_000;
    params.days = 57;
    let commerce = generate(&params, 1).unwrap();
    let scoop_file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/datasets/real/ScoopInstaller+Main.57.tsv"
    );
    let scoop = freshgp::data::text::read_file(std::path::Path::new(scoop_file)).unwrap();
    let config = RawGpConfig {
        population: 100,
        generations: 10,
        ..RawGpConfig::paper()
    }
    .check()
    .unwrap();
    let mut group = c.benchmark_group("gp-100x10-rotation-0");
    group.sample_size(10);
    for (name, data, grammar, metric) in [
        (
            "commerce-5k-extended-wndcg",
            &commerce,
            Grammar::extended(),
            Metric::WNdcg,
        ),
        ("scoop-all-ndcg", &scoop, Grammar::all(), Metric::Ndcg),
    ] {
        let sim = SimConfig::new(0.05, 2).unwrap();
        let fitness = CrawlFitness::new(training(data), sim, metric, grammar.closure()).unwrap();
        group.bench_function(name, |b| {
            b.iter(|| evolve(&config, &grammar, &fitness, 1, |_| {}))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
