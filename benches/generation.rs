//! One GP generation: 300 individuals evaluated on a 100,000-page training period of
//! 19 cycles (period 1 of a 57-cycle history), with the All grammar and NDCG fitness. The
//! history comes from the `brdc12` synthetic preset.
//!
//! `initial` creates and evaluates a ramped half-and-half population (every individual is
//! new, so nearly nothing comes from the cache); `bred` adds one generation of breeding
//! and evaluation on top of it (elitism, crossover, mutation; copies hit the cache).

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use freshgp::data::synth::{generate, SynthParams};
use freshgp::experiment::fitness::CrawlFitness;
use freshgp::formula::Grammar;
use freshgp::gp::{evolve, GpConfig, RawGpConfig};
use freshgp::metric::Metric;
use freshgp::sim::{Period, SimConfig};

/// The settings of a run of 300 individuals over `generations` bred generations.
fn population_300(generations: usize) -> GpConfig {
    RawGpConfig {
        population: 300,
        generations,
        ..RawGpConfig::paper()
    }
    .check()
    .unwrap()
}

fn bench(c: &mut Criterion) {
    let mut params = SynthParams::preset("brdc12").unwrap();
    params.pages = 100_000;
    params.days = 19;
    let data = generate(&params, 1).unwrap();
    let period = Period::whole(&data).unwrap();
    let grammar = Grammar::all();
    let fitness =
        CrawlFitness::new(period, SimConfig::paper(), Metric::Ndcg, grammar.closure()).unwrap();
    let mut group = c.benchmark_group("gp-300-individuals-100k-pages-19-cycles");
    group.sample_size(10);
    for (name, generations) in [("initial", 0), ("initial+bred", 1)] {
        let config = population_300(generations);
        group.bench_with_input(BenchmarkId::from_parameter(name), &config, |b, config| {
            b.iter(|| evolve(config, &grammar, &fitness, 1, |_| {}))
        });
    }
    group.finish();
}

/// The same over the extended grammar with WNDCG fitness on 100,000 offers of the
/// `commerce` preset (19 cycles; pages share few states), without a cap and under a cap
/// of 2 pages per host: `gp-300-extended-wndcg-commerce-100k/{initial,initial+bred}` and
/// `.../cap2-*`.
fn extended(c: &mut Criterion) {
    let mut params = SynthParams::preset("commerce").unwrap();
    params.pages = 100_000;
    params.days = 19;
    let period = Period::whole(&generate(&params, 1).unwrap()).unwrap();
    let grammar = Grammar::extended();
    let mut group = c.benchmark_group("gp-300-extended-wndcg-commerce-100k");
    group.sample_size(10);
    for (cap, label) in [(None, ""), (Some(2), "cap2-")] {
        let sim = SimConfig::paper().with_host_cap(cap).unwrap();
        let fitness =
            CrawlFitness::new(period.clone(), sim, Metric::WNdcg, grammar.closure()).unwrap();
        for (name, generations) in [("initial", 0), ("initial+bred", 1)] {
            let config = population_300(generations);
            let id = BenchmarkId::from_parameter(format!("{label}{name}"));
            group.bench_with_input(id, &config, |b, config| {
                b.iter(|| evolve(config, &grammar, &fitness, 1, |_| {}))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench, extended);
criterion_main!(benches);
