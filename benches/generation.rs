//! One GP generation: 300 individuals evaluated on a 100,000-page training period of
//! 19 cycles (period 1 of a 57-cycle history), with the All grammar and NDCG fitness. The
//! history comes from the `brdc12` synthetic preset.
//!
//! `initial` creates and evaluates a ramped half-and-half population (every individual is
//! new, so nearly nothing comes from the cache); `bred` adds one generation of breeding
//! and evaluation on top of it (elitism, crossover, mutation; copies hit the cache).
//!
//! The same over the extended grammar with WNDCG on 100,000 `commerce` offers (with and
//! without a host cap of 2, and on a page sample of a fifth of them), and a generation of
//! the default search on them with their weights at full precision ([`default_search`]).

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use freshgp::data::sample::PageSample;
use freshgp::data::synth::{generate, SynthParams};
use freshgp::experiment::fitness::CrawlFitness;
use freshgp::formula::Grammar;
use freshgp::gp::{evolve, ConstantSearch, GpConfig, RawGpConfig};
use freshgp::metric::Metric;
use freshgp::sim::{Period, SimConfig};

#[path = "common/default_search.rs"]
mod default_search;

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
/// `.../cap2-*`; and without a cap on a page sample of a fifth of the offers (whole shops
/// at a time, docs/src/reference/gp.md#searching-on-a-sample-of-the-pages): `.../sample-0.2-*`.
fn extended(c: &mut Criterion) {
    let mut params = SynthParams::preset("commerce").unwrap();
    params.pages = 100_000;
    params.days = 19;
    let data = generate(&params, 1).unwrap();
    let all: Vec<u32> = (0..data.pages() as u32).collect();
    let period = Period::whole(&data).unwrap();
    let grammar = Grammar::extended();
    let mut group = c.benchmark_group("gp-300-extended-wndcg-commerce-100k");
    group.sample_size(10);
    // Without a cap, under a cap of 2, and on a fifth of the offers, whole shops at a
    // time, as `evolve --train-sample 0.2` takes them.
    let sample = PageSample::new(0.2).unwrap().pages(&data, &all);
    let sampled = Period::new(&data, &sample, 1..=data.cycles()).unwrap();
    for (set, cap, label) in [
        (&period, None, ""),
        (&period, Some(2), "cap2-"),
        (&sampled, None, "sample-0.2-"),
    ] {
        let sim = SimConfig::paper().with_host_cap(cap).unwrap();
        let fitness =
            CrawlFitness::new(set.clone(), sim, Metric::WNdcg, grammar.closure()).unwrap();
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

/// One generation of the default search (ε-lexicase, rank forms, at most 25 nodes, the
/// literature's seeds; no constant search, which runs once at a run's end), as `evolve`
/// runs it: 300 individuals over the training budgets 1%, 5% and 20%, WNDCG and
/// WFreshness relative to the fittest seed, on 100,000 `commerce` offers whose weights
/// are at full precision (as real importance scores are: nearly every offer weighs its
/// own), 19 cycles: `gp-300-default-search-commerce-100k-full/{initial,initial+bred}`.
fn default_search(c: &mut Criterion) {
    let mut params = SynthParams::preset("commerce").unwrap();
    params.pages = 100_000;
    params.days = 19;
    params.set_weight_digits(None).unwrap();
    let period = Period::whole(&generate(&params, 1).unwrap()).unwrap();
    let grammar = Grammar::extended();
    let (fitness, seeds) = default_search::fitness(period, &grammar);
    let mut group = c.benchmark_group("gp-300-default-search-commerce-100k-full");
    group.sample_size(10);
    for (name, generations) in [("initial", 0), ("initial+bred", 1)] {
        let config = RawGpConfig {
            population: 300,
            generations,
            seed_formulas: seeds.clone(),
            constants: ConstantSearch::default(),
            ..RawGpConfig::default()
        }
        .check()
        .unwrap();
        group.bench_with_input(BenchmarkId::from_parameter(name), &config, |b, config| {
            b.iter(|| evolve(config, &grammar, &fitness, 1, |_| {}))
        });
    }
    group.finish();
}

criterion_group!(benches, bench, extended, default_search);
criterion_main!(benches);
