//! Simulated page-cycles per second for one scoring function over a 100,000-page,
//! 19-cycle period (the target: 150 million per second per core for a 15-node formula).
//!
//! Two histories of that size, made here so the bench needs no file: a simple
//! heterogeneous model (most pages rarely change, some change often, changes cluster;
//! `fast/...`) and the `brdc12` preset (`fast-brdc12/...`), closer to real crawls.
//!
//! Page weights, hosts and the extended terminals (`spec8-brdc12/...`, on the same brdc12
//! history with its page weights and hosts): a 15-node formula over the extended terminals
//! (docs/src/reference/terminals.md; the target: 100 million page-cycles per CPU-second),
//! and the GP4C 15-node formula and the extended one under a host cap of 2 pages per host
//! and cycle (docs/src/reference/simulation.md#politeness-the-host-cap).
//!
//! `prepared-brdc12/...`: the GP4C formula and the extended ones as a GP run simulates them,
//! over a [`Prepared`] period (the warm-up and tie orders done once for all runs).
//!
//! `policies-brdc12/<name>` (same weighted brdc12 history): every policy of the literature
//! (docs/src/reference/policies.md; a rate policy costs O(P) per cycle plus its λ solve),
//! and the bandit presets `kab2`, `kab3`, `kab5` (docs/src/reference/bandit.md#presets; a
//! bandit scores with the one arm it draws per cycle, so it costs about its arms' mean).
//!
//! `simulate-19-cycles/gp-brdc12/<pages>/<grammar>-<nodes>`: formulas from 5 to 40 nodes
//! that real GP runs evolved, as an NDCG GP run simulates them, on `brdc12` periods of
//! 100,000 and 1,000,000 pages.

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use freshgp::data::synth::{generate, SynthParams};
use freshgp::data::Dataset;
use freshgp::formula::{Closure, Formula};
use freshgp::metric::Metric;
use freshgp::policy::{Baseline, Policy};
use freshgp::sim::{Period, Prepared, SimConfig, Simulator};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

fn history(pages: usize, cycles: usize, seed: u64) -> Dataset {
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut d = Dataset::new(pages, cycles);
    for p in 0..pages {
        // 60% never change, 25% rarely, 10% often, 5% almost daily.
        let rate: f64 = match rng.gen_range(0..100) {
            0..=59 => 0.0,
            60..=84 => 0.03,
            85..=94 => 0.3,
            _ => 0.9,
        };
        let mut previous = false;
        for c in 1..=cycles {
            let boost = if previous { 3.0 } else { 1.0 };
            let changed = rng.gen::<f64>() < (rate * boost).min(1.0);
            if changed {
                d.set_changed(p, c, true);
            }
            previous = changed;
        }
    }
    d
}

/// A 19-cycle period of `pages` pages from the `brdc12` preset (seed 1).
fn brdc12(pages: usize) -> Period {
    let mut params = SynthParams::preset("brdc12").unwrap();
    params.pages = pages;
    params.days = 19;
    Period::whole(&generate(&params, 1).unwrap()).unwrap()
}

fn bench(c: &mut Criterion) {
    let pages = 100_000;
    let data = history(pages, 19, 7);
    let period = Period::whole(&data).unwrap();
    let page_cycles = (pages * 19) as u64;
    let formulas = [
        ("baseline-NAD", None),
        ("formula-15", Some("(t * X + CG) / (n + 1) - exp(-NAD * t)")),
        (
            "formula-40",
            Some("(t * X + CG) / (n + 1) - exp(-NAD * t) * SAD + log(t + 1) * GAD * (AAD + 0.5) - pow(X + 1, 0.5) / (t + n) * CG"),
        ),
    ];
    // The same size from the brdc12 preset: heterogeneous rates, host effects, bursts.
    let brdc12 = brdc12(pages);
    let mut group = c.benchmark_group("simulate-100k-pages-19-cycles");
    group.throughput(Throughput::Elements(page_cycles));
    group.sample_size(20);
    for (data, period) in [("fast", &period), ("fast-brdc12", &brdc12)] {
        for (name, text) in formulas {
            let policy = match text {
                None => Policy::from(Baseline::Nad),
                Some(t) => {
                    let f: Formula = t.parse().unwrap();
                    assert_eq!(Some(f.len()), name[8..].parse().ok(), "{name} node count");
                    Policy::formula(&f, Closure::Paper)
                }
            };
            let mut sim = Simulator::new(SimConfig::paper());
            group.bench_with_input(BenchmarkId::new(data, name), &policy, |b, s| {
                b.iter(|| sim.run(period, s).unwrap())
            });
        }
    }
    let f: Formula = formulas[1].1.unwrap().parse().unwrap();
    let policy = Policy::formula(&f, Closure::Paper);
    let sim = Simulator::new(SimConfig::paper());
    group.sample_size(10);
    group.bench_with_input(
        BenchmarkId::new("reference", "formula-15"),
        &policy,
        |b, s| b.iter(|| sim.run_reference(&period, s).unwrap()),
    );
    let extended = "w * (1 - exp(-MLE * t)) + HR * X7 / tc";
    let f: Formula = extended.parse().unwrap();
    assert_eq!(f.len(), 15, "extended-15 node count");
    let extended = Policy::formula(&f, Closure::Paper);
    let gp4c = Policy::formula(&formulas[1].1.unwrap().parse().unwrap(), Closure::Paper);
    // The frequency grammar's terminals: the 30-cycle window and the group rate (grouped by
    // host here; docs/src/reference/terminals.md#recent-history-tc-n7-x7-n30-and-x30).
    let frequency: Formula = "GR * (1 - exp(-X30 * t)) + n30 / tc + X7".parse().unwrap();
    assert_eq!(frequency.len(), 15, "frequency-15 node count");
    let frequency = Policy::formula(&frequency, Closure::Paper);
    let capped = SimConfig::paper().with_host_cap(Some(2)).unwrap();
    group.sample_size(20);
    for (name, policy, config) in [
        ("extended-15", &extended, SimConfig::paper()),
        ("extended-15-cap2", &extended, capped),
        ("frequency-15", &frequency, SimConfig::paper()),
        ("formula-15-cap2", &gp4c, capped),
    ] {
        let mut sim = Simulator::new(config);
        group.bench_with_input(BenchmarkId::new("spec8-brdc12", name), policy, |b, s| {
            b.iter(|| sim.run(&brdc12, s).unwrap())
        });
    }
    // As a GP run simulates: over a prepared period (tie orders and warm-up done once).
    let prepared = Prepared::new(&brdc12, SimConfig::paper()).unwrap();
    for (name, policy) in [
        ("formula-15", &gp4c),
        ("extended-15", &extended),
        ("frequency-15", &frequency),
    ] {
        let mut sim = Simulator::new(SimConfig::paper());
        group.bench_with_input(BenchmarkId::new("prepared-brdc12", name), policy, |b, s| {
            b.iter(|| sim.run_prepared(&brdc12, s, &prepared))
        });
    }
    group.sample_size(10);
    for policy in Policy::named().into_iter().skip(Baseline::ALL.len()) {
        let mut sim = Simulator::new(SimConfig::paper());
        let id = BenchmarkId::new("policies-brdc12", policy.label());
        group.bench_with_input(id, &policy, |b, s| b.iter(|| sim.run(&brdc12, s).unwrap()));
    }
    // Sampled decisions (docs/src/reference/simulation.md#sampled-decisions): an O(P)
    // systematic draw per cycle on top of the scoring.
    let sampled = SimConfig::paper()
        .with_decision(freshgp::sim::Decision::Sample)
        .unwrap();
    for (name, policy) in [
        ("formula-15", gp4c.clone()),
        (
            "uniform",
            Policy::parse("uniform", &freshgp::formula::Grammar::extended()).unwrap(),
        ),
        (
            "lambda",
            Policy::parse("lambda", &freshgp::formula::Grammar::extended()).unwrap(),
        ),
    ] {
        let mut sim = Simulator::new(sampled);
        let id = BenchmarkId::new("sample-brdc12", name);
        group.bench_with_input(id, &policy, |b, s| b.iter(|| sim.run(&brdc12, s).unwrap()));
    }
    group.finish();
}

/// Formulas evolved by real GP runs (the best individual of a generation in
/// `experiments/paper.ron`, shard 0/4), from 5 to 40 nodes, simulated as an NDCG GP run
/// simulates them (over a prepared period, the weighted sums skipped) on `brdc12`
/// periods of 100,000 and 1,000,000 pages × 19 cycles
/// (`gp-brdc12/<pages>/<grammar>-<nodes>`).
/// (grammar, formula); the node count is read off the parsed formula.
const EVOLVED: [(&str, &str); 6] = [
    // GP4C_Basic-ChangeRate, rotation 1, seed 3, generation 2.
    ("basic", "t * (0.001 * X)"),
    // GP4C_All-ChangeRate, rotation 2, seed 4, generation 5.
    ("all", "pow(CG, 10 / t)"),
    // GP4C_Basic-ChangeRate, rotation 2, seed 2, generation 40.
    ("basic", "(X + 1 + e / (X / (t / 100))) / (n - 0.1)"),
    // GP4C_All-ChangeRate, rotation 2, seed 4, generation 13.
    (
        "all",
        "exp(GAD) / GAD * (GAD * t) + exp((AAD + SAD) * (1 + SAD))",
    ),
    // GP4C_Basic-NDCG, rotation 3, seed 4, generation 15.
    (
        "basic",
        "X^0.001 + (X * 1 * (t / 1) * (10 - n + X + log(1000)) + log(exp(t + X + log(1000)) + exp((0.5 - 100) / (0.1 + log(exp(X))))))",
    ),
    // GP4C_All-ChangeRate, rotation 1, seed 5, generation 18.
    (
        "all",
        "exp(exp(CG^n + GAD)) * (n / SAD) + ((exp(0.5 * CG)^t + CG + exp(CG + GAD)^t) / CG + exp(log(SAD) + exp(0.5 * CG)^t))",
    ),
];

fn evolved(c: &mut Criterion) {
    let mut group = c.benchmark_group("simulate-19-cycles");
    group.sample_size(10);
    for pages in [100_000, 1_000_000] {
        let period = brdc12(pages);
        let prepared = Prepared::new(&period, SimConfig::paper()).unwrap();
        group.throughput(Throughput::Elements((pages * 19) as u64));
        for (grammar, text) in EVOLVED {
            let f: Formula = text.parse().unwrap();
            let policy = Policy::formula(&f, Closure::Paper);
            let mut sim = Simulator::new(SimConfig::paper()).unweighted(Metric::Ndcg);
            let id = BenchmarkId::new(
                format!("gp-brdc12/{pages}"),
                format!("{grammar}-{}", f.len()),
            );
            group.bench_with_input(id, &policy, |b, s| {
                b.iter(|| sim.run_prepared(&period, s, &prepared))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench, evolved);
criterion_main!(benches);
