//! Hand-computed cases and the fast-versus-reference check.

use super::metrics::discount;
use super::*;
use crate::data::Dataset;
use crate::formula::{Closure, Formula};
use crate::metric::Metric;
use crate::policy::*;
use crate::policy::{Adaptive, RatePolicy, RawAdaptive};

fn period(rows: &[&str]) -> Period {
    Period::whole(&Dataset::from_bit_strings(rows).unwrap()).unwrap()
}

fn both(period: &Period, policy: &Policy, config: SimConfig) -> Outcome {
    let mut sim = Simulator::new(config);
    let fast = sim.run(period, policy).unwrap();
    let reference = sim.run_reference(period, policy).unwrap();
    assert_eq!(
        fast,
        reference,
        "fast and reference simulators differ for {}",
        policy.label()
    );
    if config.ties() == TieBreak::Seeded {
        let flat = sim.run_flat(period, policy);
        assert_eq!(flat, reference, "per-page simulator differs for {policy}");
    }
    fast
}

/// Four pages, five cycles, k = 2, NAD (worked out by hand in the comments).
#[test]
fn hand_computed_nad_run() {
    let p = period(&["01100", "00010", "11111", "00000"]);
    let out = both(
        &p,
        &Policy::from(Baseline::Nad),
        SimConfig::new(0.5, 2).unwrap(),
    );
    assert_eq!(out.cycles.len(), 3);
    let g2 = 1.0 + discount(2);
    // Cycle 3: pages 0 and 2 stale, NAD ranks 2 (rate 1) then 0 (rate 1/2): both found.
    let c3 = out.cycles[0];
    assert_eq!((c3.cycle, c3.stale, c3.visited), (3, 2, 2));
    assert_eq!((c3.change_rate, c3.ndcg, c3.freshness), (1.0, 1.0, 1.0));
    // Cycle 4: pages 1 and 2 stale; NAD still ranks 2 then 0: one found, at rank 1.
    let c4 = out.cycles[1];
    assert_eq!(
        (c4.change_rate, c4.ndcg, c4.freshness),
        (0.5, 1.0 / g2, 0.75)
    );
    // Cycle 5: pages 1 and 2 stale; same ranking.
    let c5 = out.cycles[2];
    assert_eq!(
        (c5.change_rate, c5.ndcg, c5.freshness),
        (0.5, 1.0 / g2, 0.75)
    );
    assert_eq!(out.mean(Metric::ChangeRate), 2.0 / 3.0);
    // Cycle 3 visits two pages last seen in the warm-up; later cycles revisit them.
    let newly: Vec<f64> = out.cycles.iter().map(|c| c.newly_visited).collect();
    assert_eq!(newly, [1.0, 0.0, 0.0]);
}

#[test]
fn no_stale_page_gives_zero_ndcg() {
    let p = period(&["0000", "0000", "0000"]);
    let out = both(
        &p,
        &Policy::from(Baseline::Age),
        SimConfig::new(0.34, 1).unwrap(),
    );
    assert!(out
        .cycles
        .iter()
        .all(|c| c.ndcg == 0.0 && c.change_rate == 0.0 && c.stale == 0));
    assert!(out.cycles.iter().all(|c| c.freshness == 1.0));
}

#[test]
fn k_larger_than_the_stale_count() {
    // k = 3 of 4 pages, only page 0 ever changes: at most 1/3 of a cycle's visits find it.
    let p = period(&["01111", "00000", "00000", "00000"]);
    let out = both(
        &p,
        &Policy::from(Baseline::Nad),
        SimConfig::new(0.75, 2).unwrap(),
    );
    for c in &out.cycles {
        assert_eq!(c.stale, 1);
        assert_eq!(c.change_rate, 1.0 / 3.0);
        assert_eq!(c.ndcg, 1.0, "the one stale page is ranked first");
    }
}

#[test]
fn pages_never_visited_after_warmup_are_newly_visited_when_reached() {
    // Age with k = 1 of 3: every page is eventually visited for the first time since warm-up.
    let p = period(&["000000", "000000", "000000"]);
    let out = both(
        &p,
        &Policy::from(Baseline::Age),
        SimConfig::new(0.34, 1).unwrap(),
    );
    let newly: Vec<f64> = out.cycles.iter().map(|c| c.newly_visited).collect();
    // Cycles 2, 3, 4 each reach a page last seen in the warm-up; cycle 5 revisits.
    assert_eq!(newly, [1.0, 1.0, 1.0, 0.0, 0.0]);
}

#[test]
fn ties_follow_the_seed() {
    let rows: Vec<String> = (0..200)
        .map(|p| {
            (0..12)
                .map(|d| if (p * 7 + d * 3) % 11 == 0 { '1' } else { '0' })
                .collect()
        })
        .collect();
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let p = period(&rows);
    let rand = Policy::from(Baseline::Rand);
    let a = both(&p, &rand, SimConfig::new(0.05, 2).unwrap().with_seed(1));
    let b = both(&p, &rand, SimConfig::new(0.05, 2).unwrap().with_seed(1));
    let c = both(&p, &rand, SimConfig::new(0.05, 2).unwrap().with_seed(2));
    assert_eq!(a, b);
    assert_ne!(a, c, "another seed breaks ties another way");
}

#[test]
fn errors_for_impossible_settings() {
    assert_eq!(SimConfig::new(0.0, 2), Err(SimError::Resources(0.0)));
    assert_eq!(SimConfig::new(1.5, 2), Err(SimError::Resources(1.5)));
    assert!(SimConfig::new(f64::NAN, 2).is_err());
    let p = period(&["0101", "1010"]);
    let mut sim = Simulator::new(SimConfig::new(0.5, 4).unwrap());
    assert!(matches!(
        sim.run(&p, &Policy::from(Baseline::Age)),
        Err(SimError::Warmup { warmup: 4, len: 4 })
    ));
    let mut sim = Simulator::new(SimConfig::new(0.1, 1).unwrap());
    assert!(matches!(
        sim.run(&p, &Policy::from(Baseline::Age)),
        Err(SimError::NoVisits { pages: 2, .. })
    ));
}

/// A small deterministic generator for random histories.
fn lcg(state: &mut u64) -> u64 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *state >> 33
}

/// A random history of 1 to `max_pages` pages and 3 to `max_cycles + 2` cycles, its pages
/// changing at 0, 1/2 or 1 times one random rate.
fn random_history(state: &mut u64, max_pages: usize, max_cycles: usize) -> Period {
    let pages = 1 + lcg(state) as usize % max_pages;
    let cycles = 3 + lcg(state) as usize % max_cycles;
    let rate = lcg(state) % 100;
    let rates: Vec<u64> = (0..pages).map(|_| rate * (lcg(state) % 3) / 2).collect();
    random_period(state, &rates, cycles)
}

/// The settings of a random case, if they are valid for `p`.
fn config_for(p: &Period, resources: f64, warmup: usize, seed: u64) -> Option<SimConfig> {
    let config = SimConfig::new(resources, warmup).ok()?.with_seed(seed);
    config.check(p).is_ok().then_some(config)
}

/// A history of one page per entry of `rates` (percent chance of a change per cycle).
fn random_period(state: &mut u64, rates: &[u64], cycles: usize) -> Period {
    let rows: Vec<String> = rates
        .iter()
        .map(|&rate| {
            (0..cycles)
                .map(|_| if lcg(state) % 100 < rate { '1' } else { '0' })
                .collect()
        })
        .collect();
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    period(&rows)
}

#[test]
fn fast_equals_reference_on_random_histories() {
    let formulas = [
        "t",
        "0",
        "X / n * t",
        "1 - exp(-NAD * t)",
        "CG * t + SAD",
        "log(t) * GAD + AAD",
        "(t * X)^0.5 - n / 10",
        "exp(CG * (1 + log(t)))",
        "pow(99.5 * exp(GAD), (t + GAD)^CG)",
        "X",
        "-t",
        "SAD",
    ];
    let mut state = 42u64;
    for case in 0..60 {
        let p = random_history(&mut state, 150, 30);
        let warmup = (lcg(&mut state) % 3) as usize;
        let resources = (1 + lcg(&mut state) % 100) as f64 / 100.0;
        let Some(config) = config_for(&p, resources, warmup, case) else {
            continue;
        };
        // One prepared period and one simulator for every policy, as in a GP run: each
        // run starts from the recorded warm-up state, whatever the previous run left
        // (policies with per-page memory redo the warm-up).
        let prepared = Prepared::new(&p, config).unwrap();
        let mut sim = Simulator::new(config);
        let policies = formulas
            .iter()
            .map(|text| Policy::formula(&text.parse::<Formula>().unwrap(), Closure::Paper))
            .chain(Baseline::ALL.map(Policy::from))
            .chain([Adaptive::NUTCH, Adaptive::STORMCRAWLER, odd_adaptive()].map(Policy::from))
            .chain(RatePolicy::ALL.map(Policy::from))
            .chain([Policy::Scorer(Scorer::Value)]);
        for policy in policies {
            let expected = both(&p, &policy, config);
            assert_eq!(
                sim.run_prepared(&p, &policy, &prepared),
                expected,
                "prepared run differs for {policy}"
            );
        }
    }
}

/// Grouping is an optimisation: with every index hit refused (pages reaching one state
/// from different groups are not merged) and each class's groups reordered, every outcome
/// is the same, for top-k and sampled decisions. (Weights, hosts, caps, prepared periods
/// and the NDCG GP path: `importance_tests::both` checks each of its cases so.)
#[test]
fn outcomes_do_not_depend_on_grouping_or_class_order() {
    let formulas = [
        "t",
        "0",
        "X / n * t",
        "1 - exp(-NAD * t)",
        "CG * t + SAD",
        "X",
    ];
    let mut state = 7u64;
    for case in 0..40 {
        let p = random_history(&mut state, 200, 20);
        let resources = (1 + lcg(&mut state) % 60) as f64 / 100.0;
        let Some(config) = config_for(&p, resources, 1 + case as usize % 2, case) else {
            continue;
        };
        let configs = [config, config.with_decision(Decision::Sample).unwrap()];
        let policies: Vec<Policy> = formulas
            .iter()
            .map(|text| Policy::formula(&text.parse::<Formula>().unwrap(), Closure::Paper))
            .chain(Baseline::ALL.map(Policy::from))
            .chain([Adaptive::NUTCH, odd_adaptive()].map(Policy::from))
            .chain([
                Policy::from(RatePolicy::Lambda),
                Policy::Scorer(Scorer::Value),
            ])
            .collect();
        for config in configs {
            let (mut plain, mut scrambled) =
                (Simulator::new(config), Simulator::new(config).scrambled());
            for policy in &policies {
                assert_eq!(
                    scrambled.run(&p, policy).unwrap(),
                    plain.run(&p, policy).unwrap(),
                    "case {case}, {policy}, {config:?}"
                );
            }
        }
    }
}

/// An adaptive policy whose intervals take many distinct values (few pages share one).
fn odd_adaptive() -> Adaptive {
    Adaptive::new(RawAdaptive {
        init: 3.0,
        min: 0.7,
        max: 40.0,
        inc: 0.37,
        dec: 0.29,
    })
    .unwrap()
}

/// The adaptive policy by hand on a two-page history: intervals, and hence ranks, follow
/// docs/src/reference/policies.md#adaptive-intervals from the warm-up on.
#[test]
fn adaptive_intervals_rank_pages() {
    // Page 0 changes every cycle, page 1 never; one visit a cycle after a 2-cycle warm-up.
    let p = period(&["11111", "00000"]);
    let policy = Policy::from(Adaptive::STORMCRAWLER);
    let outcome = both(&p, &policy, SimConfig::new(0.5, 2).unwrap());
    // After the warm-up: page 0's interval is 1 (shrinks to the minimum), page 1's is
    // 1.5² = 2.25; both have t = 1 at cycle 3, so page 0 (1/1 > 1/2.25) is visited and
    // found changed. At cycle 4: page 0 has t = 1 (score 1), page 1 t = 2 (2/2.25 < 1):
    // page 0 again; at cycle 5 page 1 has t = 3 (3/2.25 > 1) and is visited, unchanged.
    let found: Vec<f64> = outcome.cycles.iter().map(|c| c.change_rate).collect();
    assert_eq!(found, [1.0, 1.0, 0.0]);
}

#[test]
#[should_panic(expected = "prepared for other settings")]
fn a_period_prepared_for_other_settings_is_refused() {
    let p = period(&["0101", "0011", "1111", "0000"]);
    let prepared = Prepared::new(&p, SimConfig::new(0.5, 1).unwrap()).unwrap();
    let mut sim = Simulator::new(SimConfig::new(0.5, 2).unwrap());
    sim.run_prepared(&p, &Policy::from(Baseline::Age), &prepared);
}

#[test]
fn reference_ties_are_deterministic_and_differ_from_seeded() {
    let rows: Vec<String> = (0..300)
        .map(|p| {
            (0..19)
                .map(|d| if (p * 13 + d * 5) % 17 == 0 { '1' } else { '0' })
                .collect()
        })
        .collect();
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let p = period(&rows);
    let config = SimConfig::paper().with_ties(TieBreak::Reference);
    let mut sim = Simulator::new(config);
    let a = sim.run(&p, &Policy::from(Baseline::Age)).unwrap();
    let b = sim.run(&p, &Policy::from(Baseline::Age)).unwrap();
    assert_eq!(a, b);
}

#[test]
fn builtin_and_formula_baselines_rank_identically() {
    let rates: Vec<u64> = (0..400).map(|p| [0, 2, 10, 40, 90][p % 5]).collect();
    let p = random_period(&mut 7, &rates, 30);
    for ties in [TieBreak::Seeded, TieBreak::Reference] {
        let config = SimConfig::new(0.1, 2).unwrap().with_seed(5).with_ties(ties);
        let mut sim = Simulator::new(config);
        for b in Baseline::ALL {
            let built_in = sim.run(&p, &Policy::from(b)).unwrap();
            let formula = sim
                .run(&p, &Policy::formula(&b.formula(), Closure::Paper))
                .unwrap();
            assert_eq!(built_in, formula, "{b} ({ties:?})");
        }
    }
}

#[test]
fn the_paper_settings_pass_their_own_check() {
    let checked = SimConfig::new(DEFAULT_RESOURCES, DEFAULT_WARMUP).unwrap();
    assert_eq!(SimConfig::paper(), checked);
}

#[test]
fn deserialized_settings_are_checked() {
    let good = serde_json::to_string(&SimConfig::paper().with_seed(3)).unwrap();
    let back: SimConfig = serde_json::from_str(&good).unwrap();
    assert_eq!(back, SimConfig::paper().with_seed(3));
    let bad = good.replace("0.05", "0.0");
    let err = serde_json::from_str::<SimConfig>(&bad)
        .unwrap_err()
        .to_string();
    assert!(err.contains("resources must be in (0, 1]"), "{err}");
}
