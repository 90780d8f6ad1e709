//! Simulated page-cycles per second on histories whose pages share few states, with the
//! policies the studies now spend their time on: formulas real GP runs evolved over the
//! extended grammar, the same under a host cap of 2, the rate policies, bandits (EXP3 and
//! one with the learning rules) and sampled decisions.
//!
//! Three histories, made or read here so the bench needs no other file (and a fourth for
//! three formulas, below):
//! - `commerce`: 100,000 offers of the `commerce` preset, one 19-cycle period (weights,
//!   hosts, attributes);
//! - `lively`: 100,000 pages of the `brdc12` preset with a tenth of its pages static
//!   instead of six tenths, so that few pages share a state (weights, hosts);
//! - `scoop`: the real ScoopInstaller/Main history (`datasets/real/`, 1,589 pages × 57
//!   cycles, no weights or hosts), the whole of it.
//!
//! - `commerce-417k`: 417,048 offers of the `commerce` preset (the `brdc12` preset's size),
//!   one 19-cycle period, where pages share a weight with 8 others on average (the preset
//!   rounds weights to 4 digits) but rarely a host as well: `evolved-22` (which reads `w`
//!   but no host's rate), `evolved-36` and `extended-15` (which read `w` and `HR`);
//! - `commerce-417k-full`: the same offers with their weights at full precision, as real
//!   importance scores are (click counts, PageRank: nearly every offer weighs its own),
//!   with the policies of the speed targets: the formulas above, two chosen by the default
//!   search ([`DEFAULT_SEARCH`]), `evolved-22` under a host cap of 2 and sampled, the
//!   rate policies, `value`, `kab5` and NAD sampled.
//!
//! The formulas (`evolved-<nodes>`) are chosen formulas of the GP4C_Extended-WNDCG runs of
//! `experiments/robust-commerce.ron`; on `scoop`, which has no weights, `w` reads 1.

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use freshgp::data::synth::{generate, SynthParams};
use freshgp::formula::{Closure, Formula, Grammar};
use freshgp::policy::Policy;
use freshgp::sim::{Decision, Period, SimConfig, Simulator};

/// Chosen formulas of `experiments/robust-commerce.ron` (GP4C_Extended-WNDCG).
const EVOLVED: [&str; 4] = [
    "w * (log(t + X) + log(log(w + (t + X)) + t) * MLE)",
    "(exp(MLE^0.5 * w) * tc)^0.1^tc * (w * (1 - exp(-MLE * t)))",
    "w * (log(t + X) + log(6.917705609835305 + MLE * (t + (log(t * (t + X) + w * (t + X)) + HR))) * MLE)",
    "pow(exp(NAD), HR + w) * (w * t) + log((w * t - pow(n7 * 1000 - (w + CG), HR + w))^GAD * log(exp(NAD) + exp(CG)))",
];

/// Chosen formulas of the default search: `experiments/oracle-brdc12.ron` (rotation 0)
/// and `experiments/oracle-steady.ron` (rotation 3).
const DEFAULT_SEARCH: [&str; 2] = [
    "(1 - (1 - (MLE + GAD + GAD + GAD))^t) * w",
    "(0.9504776000976563 - (0.9551849365234375 - (X + tc * HR) / (n + tc + tc))^t) * w",
];

/// A 19-cycle period of `pages` pages of the preset `name`, with `edit` applied to its
/// RON text.
fn synthetic(name: &str, edit: (&str, &str), pages: usize) -> Period {
    let text = SynthParams::preset(name).unwrap().to_ron();
    assert!(text.contains(edit.0), "{name} has no `{}`", edit.0);
    let mut params: SynthParams = ron::from_str(&text.replace(edit.0, edit.1)).unwrap();
    params.pages = pages;
    params.days = 19;
    Period::whole(&generate(&params, 1).unwrap()).unwrap()
}

fn scoop() -> Period {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/datasets/real/ScoopInstaller+Main.57.tsv"
    );
    let data = freshgp::data::text::read_file(std::path::Path::new(file)).unwrap();
    Period::whole(&data).unwrap()
}

fn bench(c: &mut Criterion) {
    let histories = [
        (
            "commerce",
            synthetic("commerce", ("pages: 100000", "pages: 100000"), 100_000),
        ),
        (
            "lively",
            synthetic(
                "brdc12",
                ("static_fraction: 0.6", "static_fraction: 0.1"),
                100_000,
            ),
        ),
        ("scoop", scoop()),
    ];
    let grammar = Grammar::every();
    let mut policies: Vec<(String, Policy, SimConfig)> = Vec::new();
    let capped = SimConfig::paper().with_host_cap(Some(2)).unwrap();
    let sampled = SimConfig::paper().with_decision(Decision::Sample).unwrap();
    for (i, text) in EVOLVED.iter().enumerate() {
        let f: Formula = text.parse().unwrap();
        let policy = Policy::formula(&f, Closure::Paper);
        let name = format!("evolved-{}", f.len());
        policies.push((name.clone(), policy.clone(), SimConfig::paper()));
        if i == 1 {
            policies.push((format!("{name}-cap2"), policy.clone(), capped));
            policies.push((format!("{name}-sample"), policy, sampled));
        }
    }
    for name in ["lambda", "lambda-harmonic", "value", "weight", "kab5"] {
        let policy = Policy::parse(name, &grammar).unwrap();
        policies.push((name.to_string(), policy, SimConfig::paper()));
    }
    // A bandit over two arms as EXP3, and with the learning rules and reward of
    // docs/src/reference/bandit.md#learning (its update is per cycle, not per page).
    for (name, text) in [
        ("exp3-2", "exp3(arms: [weight, value])"),
        (
            "exp3-2-anytime-discount-found",
            "exp3(arms: [weight, value], rate: anytime, forget: discount(window: 7), reward: found)",
        ),
    ] {
        let policy = Policy::parse(text, &grammar).unwrap();
        policies.push((name.to_string(), policy, SimConfig::paper()));
    }
    let nad = Policy::parse("NAD", &grammar).unwrap();
    policies.push(("NAD-sample".to_string(), nad, sampled));

    let mut group = c.benchmark_group("simulate-heterogeneous");
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(3));
    for (data, period) in &histories {
        let page_cycles = period.pages() * period.len();
        group.throughput(Throughput::Elements(page_cycles as u64));
        for (name, policy, config) in &policies {
            let mut sim = Simulator::new(*config);
            let id = BenchmarkId::new(*data, name);
            group.bench_with_input(id, policy, |b, s| b.iter(|| sim.run(period, s).unwrap()));
        }
    }
    let large = synthetic("commerce", ("pages: 100000", "pages: 100000"), 417_048);
    group.throughput(Throughput::Elements((large.pages() * large.len()) as u64));
    let extended = "w * (1 - exp(-MLE * t)) + HR * X7 / tc";
    for (name, text) in [
        ("evolved-22", EVOLVED[1]),
        ("evolved-36", EVOLVED[3]),
        ("extended-15", extended),
    ] {
        let policy = Policy::formula(&text.parse().unwrap(), Closure::Paper);
        let mut sim = Simulator::new(SimConfig::paper());
        let id = BenchmarkId::new("commerce-417k", name);
        group.bench_with_input(id, &policy, |b, s| b.iter(|| sim.run(&large, s).unwrap()));
    }
    drop(large);
    let full = synthetic("commerce", ("digits: Some(4)", "digits: None"), 417_048);
    group.throughput(Throughput::Elements((full.pages() * full.len()) as u64));
    let mut policies: Vec<(String, Policy, SimConfig)> = Vec::new();
    let formula = |text: &str| Policy::formula(&text.parse().unwrap(), Closure::Paper);
    policies.push(("extended-15".into(), formula(extended), SimConfig::paper()));
    for text in [EVOLVED[1], DEFAULT_SEARCH[0], DEFAULT_SEARCH[1]] {
        let nodes = text.parse::<Formula>().unwrap().len();
        policies.push((
            format!("evolved-{nodes}"),
            formula(text),
            SimConfig::paper(),
        ));
    }
    policies.push(("evolved-22-cap2".into(), formula(EVOLVED[1]), capped));
    for name in ["lambda", "lambda-harmonic", "value", "kab5"] {
        let policy = Policy::parse(name, &grammar).unwrap();
        policies.push((name.to_string(), policy, SimConfig::paper()));
    }
    policies.push((
        "NAD-sample".into(),
        Policy::parse("NAD", &grammar).unwrap(),
        sampled,
    ));
    policies.push(("evolved-22-sample".into(), formula(EVOLVED[1]), sampled));
    for (name, policy, config) in &policies {
        let mut sim = Simulator::new(*config);
        let id = BenchmarkId::new("commerce-417k-full", name);
        group.bench_with_input(id, policy, |b, s| b.iter(|| sim.run(&full, s).unwrap()));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
