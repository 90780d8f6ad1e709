//! What the robust search costs (docs/src/reference/gp.md#seeds, #training-budgets,
//! #constant-search): 5 generations of 100 individuals on the training period of rotation 0
//! of 5,000 product offers of the `commerce` preset (click weights, shops as hosts), the
//! extended grammar and WNDCG fitness, with and without host cap 2:
//!
//! - `plain-1-budget`: random formulas only, one budget (5%), no constant search;
//! - `plain-3-budgets`: the same over the budgets 1%, 5% and 20%;
//! - `seeded-3-budgets`: seeded with the literature's formulas, over the three budgets
//!   relative to the fittest seed;
//! - `robust-3-budgets`: the same, and the constants of the 10 best tuned at the end (50
//!   simulations each: 500 simulations, a fixed cost that a run of 300 individuals over 50
//!   generations, about 10,000 simulations, hardly notices, but a run of this size does).
//!
//! The target: `robust-3-budgets` costs at most twice `plain-1-budget` per training budget,
//! i.e. at most twice `plain-3-budgets`.

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use freshgp::data::split::Split;
use freshgp::data::synth::{generate, SynthParams};
use freshgp::experiment::fitness::CrawlFitness;
use freshgp::formula::Grammar;
use freshgp::gp::{evolve, ConstantSearch, RawGpConfig};
use freshgp::metric::Metric;
use freshgp::policy::literature_seeds;
use freshgp::sim::{Period, SimConfig};

fn bench(c: &mut Criterion) {
    let mut params = SynthParams::preset("commerce").unwrap();
    params.pages = 5_000;
    params.days = 57;
    let data = generate(&params, 1).unwrap();
    let split = Split::new(data.pages(), data.cycles(), 0).unwrap();
    let period = Period::new(&data, &split.train, split.train_cycles.clone()).unwrap();
    let grammar = Grammar::extended();
    let seeds: Vec<_> = literature_seeds(&grammar)
        .into_iter()
        .map(|s| s.formula)
        .collect();
    let mut group = c.benchmark_group("gp-100x5-commerce-5k");
    group.sample_size(10);
    for cap in [None, Some(2)] {
        let sim = SimConfig::new(0.05, 2).unwrap().with_host_cap(cap).unwrap();
        let fitness = |budgets: &[f64]| {
            CrawlFitness::over_budgets(
                period.clone(),
                sim,
                budgets,
                Metric::WNdcg,
                grammar.closure(),
            )
            .unwrap()
        };
        let plain = RawGpConfig {
            population: 100,
            generations: 5,
            ..Default::default()
        };
        let seeded = RawGpConfig {
            seed_formulas: seeds.clone(),
            ..plain.clone()
        };
        let robust = RawGpConfig {
            constants: ConstantSearch {
                individuals: 10,
                evaluations: 50,
                every: 0,
            },
            ..seeded.clone()
        };
        let cases = [
            ("plain-1-budget", plain.clone(), fitness(&[])),
            ("plain-3-budgets", plain, fitness(&[0.01, 0.05, 0.2])),
            (
                "seeded-3-budgets",
                seeded,
                fitness(&[0.01, 0.05, 0.2]).relative_to(&seeds),
            ),
            (
                "robust-3-budgets",
                robust,
                fitness(&[0.01, 0.05, 0.2]).relative_to(&seeds),
            ),
        ];
        let suffix = cap.map_or(String::new(), |m| format!("-cap{m}"));
        for (name, config, fitness) in cases {
            let config = config.check().unwrap();
            group.bench_with_input(
                BenchmarkId::from_parameter(format!("{name}{suffix}")),
                &config,
                |b, config| b.iter(|| evolve(config, &grammar, &fitness, 1, |_| {})),
            );
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
