//! Sampled decisions (docs/src/reference/simulation.md#sampled-decisions) in the
//! simulation: exactly k pages a cycle, inclusion frequencies that match π, both simulators
//! alike, and the refused combinations.

use super::literature_tests::{synthetic, visits};
use super::*;
use crate::data::Dataset;
use crate::formula::Grammar;
use crate::policy::*;

fn sampled(resources: f64, seed: u64) -> SimConfig {
    SimConfig::new(resources, 2)
        .unwrap()
        .with_seed(seed)
        .with_decision(Decision::Sample)
        .unwrap()
}

/// A small commerce history: weighted, with hosts, 30 days.
fn commerce(pages: usize, seed: u64) -> Dataset {
    synthetic("commerce", pages, seed)
}

/// Every named policy (bandits included) and a few formulas: fast = reference = prepared
/// under sampling, at budgets where sampling draws and where it falls back to top-k.
#[test]
fn both_simulators_sample_alike() {
    let d = commerce(500, 2);
    let period = Period::whole(&d).unwrap();
    let formulas = ["w * t", "X / n", "t - 10", "MLE", "0"]
        .map(|f| Policy::parse(f, &Grammar::extended()).unwrap());
    for resources in [0.01, 0.1, 0.6] {
        let config = sampled(resources, 7);
        let mut sim = Simulator::new(config);
        let prepared = Prepared::new(&period, config).unwrap();
        for policy in Policy::named().into_iter().chain(formulas.clone()) {
            let fast = sim.run(&period, &policy).unwrap();
            assert_eq!(
                fast,
                sim.run_reference(&period, &policy).unwrap(),
                "{policy} at {resources}"
            );
            assert_eq!(
                sim.run_prepared(&period, &policy, &prepared),
                fast,
                "{policy}"
            );
            // Both simulators: the per-page one, and the grouped one (a scrambled
            // simulator keeps every run grouped).
            assert_eq!(sim.run_flat(&period, &policy), fast, "per page: {policy}");
            let grouped = Simulator::new(config).scrambled().run(&period, &policy);
            assert_eq!(grouped.unwrap(), fast, "grouped: {policy}");
        }
    }
}

/// Exactly k pages every cycle, no page twice, and the run differs from top-k's (and
/// from another seed's) when scores spread the probabilities.
#[test]
fn exactly_k_pages_a_cycle() {
    let d = commerce(700, 4);
    let period = Period::whole(&d).unwrap();
    for policy in [
        "uniform", "change", "weight", "lambda", "value", "w * t", "kab5",
    ] {
        let policy = Policy::parse(policy, &Grammar::extended()).unwrap();
        for resources in [0.003, 0.05, 0.9] {
            let config = sampled(resources, 1);
            let k = config.k(period.pages());
            for cycle in visits(&period, &policy, config) {
                assert_eq!(cycle.len(), k, "{policy} at {resources}");
                let mut distinct = cycle.clone();
                distinct.sort_unstable();
                distinct.dedup();
                assert_eq!(distinct.len(), k);
            }
        }
        let top = SimConfig::new(0.05, 2).unwrap().with_seed(1);
        assert_ne!(
            visits(&period, &policy, sampled(0.05, 1)),
            visits(&period, &policy, top),
            "{policy}: sampling is not top-k"
        );
        assert_ne!(
            visits(&period, &policy, sampled(0.05, 1)),
            visits(&period, &policy, sampled(0.05, 2)),
            "{policy}: the run seed draws"
        );
    }
}

/// The formula `w` scores every page by its fixed weight, so every cycle draws with the
/// same π (`inclusion_probabilities`): over N = cycles × seeds independent draws a page's
/// visit count is Binomial(N, π). The test allows 5 standard deviations,
/// sqrt(N·π(1-π)), per page (a false alarm has probability below 6e-7 per page, 1.2e-4
/// over the 200 pages), plus one visit for rounding when π is near 0 or 1.
#[test]
fn inclusion_frequencies_match_the_probabilities() {
    let pages = 200;
    let cycles = 102;
    let rows: Vec<String> = (0..pages).map(|_| "0".repeat(cycles)).collect();
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let mut d = Dataset::from_bit_strings(&rows).unwrap();
    // Heavy-tailed weights: a few pages certain (π = 1), the rest proportional.
    let weights: Vec<f64> = (0..pages)
        .map(|p| match p % 50 {
            0 => 400.0,
            i => 1.0 + (i % 7) as f64 * 0.5 + (p / 50) as f64,
        })
        .collect();
    d.set_weights(weights.clone());
    let period = Period::whole(&d).unwrap();
    let policy = Policy::parse("w", &Grammar::extended()).unwrap();
    let k = 20;
    let pi = inclusion_probabilities(&weights, k);
    assert!(
        pi.iter().filter(|&&p| p == 1.0).count() == 4,
        "the certain pages"
    );
    let mut counts = vec![0u32; pages];
    let mut draws = 0u32;
    for seed in 1..=40 {
        for cycle in visits(&period, &policy, sampled(k as f64 / pages as f64, seed)) {
            assert_eq!(cycle.len(), k);
            for p in cycle {
                counts[p as usize] += 1;
            }
            draws += 1;
        }
    }
    let n = draws as f64;
    for (p, (&count, &pi)) in counts.iter().zip(&pi).enumerate() {
        let expected = n * pi;
        let allowed = 5.0 * (n * pi * (1.0 - pi)).sqrt() + 1.0;
        assert!(
            (count as f64 - expected).abs() <= allowed,
            "page {p}: {count} visits in {n} draws, π = {pi} expects {expected} ± {allowed}"
        );
    }
}

/// A rate policy samples in proportion to its rates: `uniform` then visits every page
/// equally often, which top-k (oldest first) also does, but in a different order.
#[test]
fn rate_policies_sample_by_their_rates() {
    let d = commerce(300, 6);
    let period = Period::whole(&d).unwrap();
    let uniform = Policy::parse("uniform", &Grammar::extended()).unwrap();
    let config = sampled(0.1, 3);
    let all = visits(&period, &uniform, config);
    // Uniform rates: the pages visited in a cycle are a systematic sample with equal π,
    // i.e. every (1/0.1)-th page in page order from a random start.
    for cycle in &all {
        let mut sorted = cycle.clone();
        sorted.sort_unstable();
        for pair in sorted.windows(2) {
            assert_eq!(pair[1] - pair[0], 10, "{sorted:?}");
        }
    }
}

#[test]
fn sampling_refuses_a_cap_and_reference_ties() {
    let config = sampled(0.1, 1);
    assert_eq!(
        config.with_host_cap(Some(2)),
        Err(SimError::SampleWithCap(2))
    );
    let capped = SimConfig::paper().with_host_cap(Some(3)).unwrap();
    assert!(capped
        .with_decision(Decision::Sample)
        .unwrap_err()
        .to_string()
        .contains("host cap"));
    let reference = config.with_ties(TieBreak::Reference);
    let d = commerce(100, 1);
    assert_eq!(
        Simulator::new(reference).run(&Period::whole(&d).unwrap(), &Policy::Scorer(Scorer::Value)),
        Err(SimError::SampleWithReferenceTies)
    );
}
