//! The literature's policies (docs/src/reference/policies.md) in the simulation: against
//! the formulas they equal, and against the book's rules, on heterogeneous synthetic data
//! (weighted, with hosts).
//! The mathematics of the rates (Σρ = k, KKT, the closed form) is tested in `rates.rs`.

use super::*;
use crate::data::synth::{generate, SynthParams};
use crate::data::Dataset;
use crate::formula::Grammar;
use crate::metric::Metric;
use crate::policy::*;

fn policy(text: &str) -> Policy {
    Policy::parse(text, &Grammar::extended()).unwrap()
}

/// A small `preset` history: weighted, with hosts (30 days).
pub(super) fn synthetic(preset: &str, pages: usize, seed: u64) -> Dataset {
    let mut params = SynthParams::preset(preset).unwrap();
    params.pages = pages;
    params.days = 30;
    generate(&params, seed).unwrap()
}

/// The pages each scored cycle visits, in rank order (reference simulator).
pub(super) fn visits(period: &Period, policy: &Policy, config: SimConfig) -> Vec<Vec<u32>> {
    config.check(period).unwrap();
    let mut all = Vec::new();
    naive::run_traced(period, policy, &config, |_, pages| all.push(pages.to_vec()));
    all
}

/// Where a policy is a formula over the `extended` terminals, both rank alike, page for
/// page and cycle for cycle — on weighted data, at two budgets, with and without a cap.
#[test]
fn policies_rank_as_the_formulas_they_equal() {
    let pairs = [
        ("uniform", "t"),
        ("uniform", "Age"),
        ("change", "MLE * t"),
        ("weight", "w * t"),
        ("value", "w * (1 - (1 + MLE * t) * exp(-MLE * t)) / MLE"),
    ];
    for preset in ["brdc12", "commerce"] {
        let d = synthetic(preset, 400, 5);
        let period = Period::whole(&d).unwrap();
        assert!(period.weights().is_some(), "{preset} has weights");
        for (resources, cap) in [(0.05, None), (0.2, None), (0.05, Some(2))] {
            let config = SimConfig::new(resources, 2)
                .unwrap()
                .with_seed(9)
                .with_host_cap(cap)
                .unwrap();
            for (name, formula) in pairs {
                assert_eq!(
                    visits(&period, &policy(name), config),
                    visits(&period, &policy(formula), config),
                    "{name} and {formula} on {preset}, resources {resources}, cap {cap:?}"
                );
            }
        }
    }
}

/// Every §9 policy: the fast simulator equals the reference one (and a prepared run),
/// on weighted data with hosts, with and without a cap.
#[test]
fn literature_policies_simulate_alike_in_both_simulators() {
    let d = synthetic("commerce", 600, 3);
    let period = Period::whole(&d).unwrap();
    for cap in [None, Some(1), Some(3)] {
        for resources in [0.01, 0.05, 0.5] {
            let config = SimConfig::new(resources, 2)
                .unwrap()
                .with_seed(4)
                .with_host_cap(cap)
                .unwrap();
            let mut sim = Simulator::new(config);
            let prepared = Prepared::new(&period, config).unwrap();
            // The named policies, and the oracle (a synthetic history records its pages'
            // latent probabilities).
            for policy in Policy::named()
                .into_iter()
                .chain([Policy::Scorer(Scorer::Oracle)])
            {
                let fast = sim.run(&period, &policy).unwrap();
                assert_eq!(
                    fast,
                    sim.run_reference(&period, &policy).unwrap(),
                    "{policy}, resources {resources}, cap {cap:?}"
                );
                assert_eq!(
                    sim.run_prepared(&period, &policy, &prepared),
                    fast,
                    "{policy}"
                );
                assert_eq!(sim.run_flat(&period, &policy), fast, "per page: {policy}");
            }
        }
    }
}

/// The oracle ranks by `w · (1 − (1 − q)^t)` with each page's latent probability q: in the
/// first scored cycle, where every page was last visited in the warm-up (t = 1 for all),
/// it visits the top k by that score; it beats the estimators on the steady preset, whose
/// rates hold still; and a history without latent probabilities refuses it, alone or as a
/// bandit's arm.
#[test]
fn the_oracle_ranks_by_latent_probabilities() {
    let d = synthetic("steady", 2000, 4);
    let period = Period::whole(&d).unwrap();
    let config = SimConfig::new(0.05, 2).unwrap().with_seed(1);
    let first = &visits(&period, &Policy::Scorer(Scorer::Oracle), config)[0];
    let score = |p: u32| oracle_score(period.weight(p), period.latent(p), 1.0);
    let mut want: Vec<u32> = (0..period.pages() as u32).collect();
    want.sort_by(|&a, &b| score(b).total_cmp(&score(a)).then(a.cmp(&b)));
    let k = first.len();
    let mut got = first.clone();
    got.sort_unstable();
    let mut top = want[..k].to_vec();
    top.sort_unstable();
    assert_eq!(got, top, "the oracle's first cycle is the top k by w · q");
    let mut sim = Simulator::new(config);
    let oracle = sim
        .run(&period, &Policy::Scorer(Scorer::Oracle))
        .unwrap()
        .mean(Metric::WNdcg);
    for name in ["w * (1 - exp(-MLE * t))", "lambda", "value", "NAD"] {
        let other = sim.run(&period, &policy(name)).unwrap().mean(Metric::WNdcg);
        assert!(oracle > other, "oracle {oracle} vs {name} {other}");
    }
    let plain = Dataset::from_bit_strings(&["0101", "0011", "1111"]).unwrap();
    let plain = Period::whole(&plain).unwrap();
    let config = SimConfig::new(0.5, 1).unwrap();
    for text in ["oracle", "exp3(arms: [NAD, oracle])"] {
        let e = Simulator::new(config)
            .run(&plain, &policy(text))
            .unwrap_err();
        assert_eq!(e, SimError::NoLatent, "{text}");
        assert!(e.to_string().contains("latent change probability"));
    }
}

/// LambdaCrawl spends its budget where `μπ` is large: on weighted data its WNDCG beats the
/// uniform policy's, and with every weight 0 but one page's it crawls that page whenever it
/// may (ρ = 1 when at most k pages have μπ > 0:
/// docs/src/reference/policies.md#lambdacrawl).
#[test]
fn lambda_crawls_what_is_worth_crawling() {
    let d = synthetic("brdc12", 1000, 8);
    let period = Period::whole(&d).unwrap();
    let config = SimConfig::new(0.05, 2).unwrap().with_seed(2);
    let mut sim = Simulator::new(config);
    let lambda = sim.run(&period, &policy("lambda")).unwrap();
    let uniform = sim.run(&period, &policy("uniform")).unwrap();
    assert!(
        lambda.mean(Metric::WNdcg) > uniform.mean(Metric::WNdcg),
        "lambda {} vs uniform {}",
        lambda.mean(Metric::WNdcg),
        uniform.mean(Metric::WNdcg)
    );
    // One page of weight 1, every other 0: lambda visits it every scored cycle, first.
    let mut one = d.clone();
    let weights: Vec<f64> = (0..d.pages())
        .map(|p| if p == 17 { 1.0 } else { 0.0 })
        .collect();
    one.set_weights(weights);
    let period = Period::whole(&one).unwrap();
    for cycle in visits(&period, &policy("lambda"), config) {
        assert_eq!(cycle[0], 17);
    }
}
