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
//!
//! The default search's own parts (docs/src/reference/gp.md#selection, #size-limit,
//! formulas.md#rank-equivalence), group `search-100x5-commerce-5k`, over the budgets 1%, 5%
//! and 20% and the metrics WNDCG and WFreshness, seeded, no constant search:
//!
//! - `plain`: tournaments, formulas cached on their canonical forms, no size limit;
//! - `lexicase-rank`: ε-lexicase selection and formulas standing for their rank forms;
//! - `lexicase-rank-25`: the same with formulas of at most 25 nodes (the default search but
//!   its constant search, whose fixed 500 simulations the first group measures).
//!
//! The target: `lexicase-rank` costs at most 1.5 times `plain`.

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use freshgp::data::split::Split;
use freshgp::data::synth::{generate, SynthParams};
use freshgp::experiment::fitness::CrawlFitness;
use freshgp::formula::{Formula, Grammar};
use freshgp::gp::{evolve, ConstantSearch, Evaluation, Fitness, RawGpConfig, Selection};
use freshgp::metric::Metric;
use freshgp::policy::literature_seeds;
use freshgp::sim::{Period, SimConfig};

#[path = "common/default_search.rs"]
mod default_search;

/// The training period of rotation 0 of 5,000 `commerce` offers, the extended grammar and
/// its literature seeds.
fn commerce() -> (Period, Grammar, Vec<Formula>) {
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
    (period, grammar, seeds)
}

fn bench(c: &mut Criterion) {
    let (period, grammar, seeds) = commerce();
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
            ..RawGpConfig::paper()
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

/// A fitness as another, but said to read values, not only rankings: its formulas are
/// cached on their canonical forms.
struct ByValue(CrawlFitness);

impl Fitness for ByValue {
    type Scratch = <CrawlFitness as Fitness>::Scratch;

    fn scratch(&self) -> Self::Scratch {
        self.0.scratch()
    }

    fn evaluate(&self, formula: &Formula, scratch: &mut Self::Scratch) -> Evaluation {
        self.0.evaluate(formula, scratch)
    }
}

fn search(c: &mut Criterion) {
    let (period, grammar, _) = commerce();
    let (fitness, seeds) = default_search::fitness(period, &grammar);
    let plain = RawGpConfig {
        population: 100,
        generations: 5,
        seed_formulas: seeds.clone(),
        ..RawGpConfig::paper()
    };
    let lexicase = RawGpConfig {
        selection: Selection::Lexicase,
        ..plain.clone()
    };
    let limited = RawGpConfig {
        max_size: Some(25),
        ..lexicase.clone()
    };
    let mut group = c.benchmark_group("search-100x5-commerce-5k");
    group.sample_size(10);
    let by_value = ByValue(fitness.clone());
    let plain = plain.check().unwrap();
    group.bench_function("plain", |b| {
        b.iter(|| evolve(&plain, &grammar, &by_value, 1, |_| {}))
    });
    for (name, config) in [("lexicase-rank", lexicase), ("lexicase-rank-25", limited)] {
        let config = config.check().unwrap();
        group.bench_function(name, |b| {
            b.iter(|| evolve(&config, &grammar, &fitness, 1, |_| {}))
        });
    }
    group.finish();
}

criterion_group!(benches, bench, search);
criterion_main!(benches);
