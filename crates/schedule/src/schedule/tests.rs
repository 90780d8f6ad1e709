//! The scheduler against the reference simulator and against a brute-force ranking.

use super::*;
use crate::data::Dataset;
use crate::formula::{Closure, Formula, Grammar};
use crate::metric::Metric;
use crate::policy::{Adaptive, Baseline, PageStats, Policy, RatePolicy, Scorer};
use crate::policy::{ScoreBuffers, ScoreContext, NO_HOST};
use crate::sim::{score_key, tie_key, tie_salt, Decision, Period, SimConfig, Simulator};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use rustc_hash::FxHashMap as HashMap;

const FORMULA: &str = "(t * X + CG) / (n + 1) - exp(-NAD * t)";

fn rules() -> Vec<Policy> {
    let f: Formula = FORMULA.parse().unwrap();
    vec![
        Policy::formula(&f, Closure::Paper),
        Policy::from(Baseline::Nad),
        Policy::from(Baseline::Age),
        Policy::from(Baseline::Rand),
        Policy::from(Adaptive::NUTCH),
        Policy::from(Adaptive::STORMCRAWLER),
        Policy::from(RatePolicy::Lambda),
        Policy::from(RatePolicy::LambdaHarmonic),
        Policy::from(RatePolicy::Change),
        Policy::Scorer(Scorer::Value),
    ]
}

fn random_history(pages: usize, cycles: usize, seed: u64) -> Dataset {
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut d = Dataset::new(pages, cycles);
    for p in 0..pages {
        let rate = [0.0, 0.05, 0.3, 0.9][rng.gen_range(0..4)];
        for c in 1..=cycles {
            if rng.gen::<f64>() < rate {
                d.set_changed(p, c, true);
            }
        }
    }
    d
}

/// A formula reading every extended terminal (`w tc n7 X7 HR MLE`) and some of GP4C's.
const EXTENDED: &str = "w * MLE * t / (HR + 0.1) + n7 - X7 * tc + X / (n + 1)";

fn extended_rules() -> Vec<Policy> {
    let extended = Grammar::extended();
    [
        EXTENDED,
        "HR * t + w",
        "w",
        "MLE * t",
        "(n7 - X7) / (tc + 1)",
        "NAD",
        "lambda",
        "weight",
        "value",
    ]
    .iter()
    .map(|text| Policy::parse(text, &extended).unwrap())
    .collect()
}

/// Replays `period` through a scheduler as the simulator does (pages added in order with
/// the period's hosts and weights; batches capped as `config` says); returns each scored
/// cycle's batch (slots, rank order).
pub(crate) fn replay(period: &Period, rule: &Policy, config: &SimConfig) -> Vec<Vec<u32>> {
    replay_with(period, rule, config, |_, _| {}).0
}

/// What a replay just did, for [`replay_with`]'s hook.
enum Step<'a> {
    /// The batch of a scored cycle was asked for.
    Batch(u32, &'a [u32]),
    /// A page of a scored cycle's batch was observed.
    Observed,
}

/// [`replay`], calling `hook` with the scheduler after each scored cycle's batch and every
/// third of its observations (e.g. to restart it from its saved state); also returns the
/// scheduler at the end.
fn replay_with(
    period: &Period,
    rule: &Policy,
    config: &SimConfig,
    mut hook: impl FnMut(&mut Scheduler<u32>, Step<'_>),
) -> (Vec<Vec<u32>>, Scheduler<u32>) {
    let pages = period.pages();
    let mut s: Scheduler<u32> = Scheduler::new(rule.clone()).with_seed(config.seed());
    for p in 0..pages as u32 {
        let host = match period.host(p) {
            NO_HOST => None,
            h => Some(format!("host{h}")),
        };
        assert_eq!(
            s.add_weighted(p, host.as_deref(), period.weight(p))
                .unwrap(),
            p
        );
    }
    let cap = config.host_cap().map(|m| m as usize);
    let mut stale = vec![false; pages];
    let mut batches = Vec::new();
    for d in 1..=period.len() {
        for &p in period.changes(d) {
            stale[p as usize] = true;
        }
        let cycle = d as u32;
        let scored = d > config.warmup();
        let visit: Vec<u32> = if scored {
            let batch = match config.decision() {
                Decision::TopK => s.next_batch_capped(cycle, config.k(pages), cap).unwrap(),
                Decision::Sample => s
                    .next_batch_sampled(cycle, config.k(pages))
                    .unwrap()
                    .into_iter()
                    .map(|pick| pick.page)
                    .collect(),
            };
            hook(&mut s, Step::Batch(cycle, &batch));
            batches.push(batch.clone());
            batch
        } else {
            (0..pages as u32).collect()
        };
        for p in visit {
            s.observe(&p, cycle, stale[p as usize]).unwrap();
            stale[p as usize] = false;
            if scored && p % 3 == 0 {
                hook(&mut s, Step::Observed);
            }
        }
    }
    (batches, s)
}

#[test]
fn batches_are_the_reference_simulations_visits() {
    let data = random_history(300, 15, 3);
    let period = Period::whole(&data).unwrap();
    for seed in [0, 42] {
        for resources in [0.05, 0.3] {
            let config = SimConfig::new(resources, 2).unwrap().with_seed(seed);
            let sim = Simulator::new(config);
            for rule in rules() {
                let (_, visits) = sim.run_reference_traced(&period, &rule).unwrap();
                assert_eq!(visits.len(), 13);
                let batches = replay(&period, &rule, &config);
                assert_eq!(
                    batches, visits,
                    "{rule}, seed {seed}, resources {resources}"
                );
            }
        }
    }
}

/// A random history of `pages` pages over `cycles` cycles, with hosts (a few big ones,
/// many small ones, some pages without) and weights (0 included).
fn random_hosted_history(pages: usize, cycles: usize, seed: u64) -> Dataset {
    let mut d = random_history(pages, cycles, seed);
    let mut rng = Pcg64::seed_from_u64(seed ^ 0xABCD);
    let mut names = vec![String::new()];
    names.extend((0..3).map(|i| format!("big{i}")));
    names.extend((0..30).map(|i| format!("small{i}")));
    let hosts = (0..pages)
        .map(|_| match rng.gen_range(0..10) {
            0 => 0,
            1..=5 => rng.gen_range(1..4),
            _ => rng.gen_range(4..34),
        })
        .collect();
    d.set_hosts(hosts, names);
    let weights = (0..pages)
        .map(|_| [0.0, 0.5, 1.0, 2.0, 7.5][rng.gen_range(0..5)])
        .collect();
    d.set_weights(weights);
    d
}

#[test]
fn batches_are_the_simulations_visits_with_hosts_weights_and_section8_terminals() {
    let data = random_hosted_history(300, 16, 8);
    let period = Period::whole(&data).unwrap();
    assert!(period.hosts() > 20 && period.weights().is_some());
    for cap in [None, Some(1), Some(3)] {
        for resources in [0.05, 0.2] {
            let config = SimConfig::new(resources, 2)
                .unwrap()
                .with_seed(9)
                .with_host_cap(cap)
                .unwrap();
            let sim = Simulator::new(config);
            for rule in extended_rules().into_iter().chain(rules()) {
                let (_, visits) = sim.run_reference_traced(&period, &rule).unwrap();
                let batches = replay(&period, &rule, &config);
                assert_eq!(
                    batches, visits,
                    "{rule}, cap {cap:?}, resources {resources}"
                );
            }
        }
    }
}

/// The sampled decision (docs/src/reference/simulation.md#sampled-decisions): fed the
/// simulation's visits, the scheduler draws the pages the simulation draws, for every kind
/// of policy (rates sample by ρ) and bandits.
#[test]
fn sampled_batches_are_the_simulations_visits() {
    let data = random_hosted_history(300, 16, 5);
    let period = Period::whole(&data).unwrap();
    let bandit = Policy::parse("kab5", &Grammar::extended()).unwrap();
    for seed in [1, 7] {
        for resources in [0.05, 0.2] {
            let config = SimConfig::new(resources, 2)
                .unwrap()
                .with_seed(seed)
                .with_metric(Metric::ChangeRate)
                .with_decision(Decision::Sample)
                .unwrap();
            let sim = Simulator::new(config);
            let all = extended_rules().into_iter().chain(rules());
            for rule in all.chain([bandit.clone()]) {
                let (_, visits) = sim.run_reference_traced(&period, &rule).unwrap();
                let batches = replay(&period, &rule, &config);
                assert_eq!(
                    batches, visits,
                    "{rule}, seed {seed}, resources {resources}"
                );
            }
        }
    }
}

#[test]
fn a_sampled_batch_has_k_pages_with_their_probabilities_and_refuses_a_cap() {
    let f: Formula = "X / n".parse().unwrap();
    let mut s: Scheduler<u32> = Scheduler::new(Policy::formula(&f, Closure::Paper));
    for p in 0..10 {
        s.add(p).unwrap();
        s.observe(&p, 1, false).unwrap();
        // Pages 0..4 change in cycle 2 (X / n = 1/3), 4..6 in cycles 2 and 3 (2/3),
        // 6..10 never (0).
        s.observe(&p, 2, p < 6).unwrap();
        s.observe(&p, 3, (4..6).contains(&p)).unwrap();
    }
    let batch = s.next_batch_sampled(4, 3).unwrap();
    assert_eq!(batch.len(), 3);
    // s = 2/3 for two pages and 1/3 for four: c = 3 / (4/3 + 4/3) = 9/8, so π = 3/4 and
    // 3/8 (Σ π = 3); the batch is in rank order.
    for pick in &batch {
        let expected = if pick.page >= 4 { 0.75 } else { 0.375 };
        assert!(
            (pick.probability.unwrap() - expected).abs() < 1e-12,
            "{pick:?}"
        );
    }
    assert!(batch.windows(2).all(|w| w[0].score >= w[1].score));
    // At most k pages score above 0: the top k, each for sure.
    let all = s.next_batch_sampled(4, 7).unwrap();
    assert_eq!(all.len(), 7);
    assert!(all.iter().all(|p| p.probability == Some(1.0)));
    assert!(s.next_batch_scored(4, 3, None).unwrap()[0]
        .probability
        .is_none());
    assert_eq!(
        s.rank(4, 3, Some(2), Decision::Sample),
        Err(ScheduleError::SampleWithCap)
    );
    // A removed page leaves a hole the draw skips: s = 2/3 for page 4 and 1/3 for four
    // pages, c = 3/2, so page 4 is certain and each of 0..4 drawn half the time.
    s.remove(&5).unwrap();
    let mut drawn = [0u32; 10];
    for cycle in 4..404 {
        let batch = s.next_batch_sampled(cycle, 3).unwrap();
        assert_eq!(batch.len(), 3);
        for pick in batch {
            drawn[pick.page as usize] += 1;
        }
    }
    assert_eq!((drawn[4], drawn[5]), (400, 0));
    // 400 draws of probability 1/2: 5 standard deviations are 50.
    assert!(
        drawn[..4].iter().all(|&n| n.abs_diff(200) <= 50),
        "{drawn:?}"
    );
}

/// The batch by brute force: every page scored alone, fully sorted, walked with the cap.
fn brute_force(s: &Scheduler<u32>, cycle: u32, k: usize, cap: Option<usize>) -> Vec<u32> {
    let policy = s.policy().scorer().expect("a policy that scores").clone();
    let salt = tie_salt(s.seed(), cycle);
    // Every page on its own (a rate policy solves its rates over them one by one).
    let population = s.pages().map(|p| (s.state(&p).unwrap(), 1));
    let mut buffers = ScoreBuffers::default();
    let context = policy.context(
        cycle,
        k.min(s.len()),
        s.host_rates(),
        population,
        &mut buffers,
    );
    let mut all: Vec<(u64, u64, u32)> = s
        .pages()
        .map(|p| {
            let slot = s.slot(&p).unwrap();
            let score = policy.score_one(s.state(&p).unwrap(), &context);
            (score_key(score), tie_key(salt, slot), p)
        })
        .collect();
    all.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut per_host: HashMap<String, usize> = HashMap::default();
    let mut out = Vec::new();
    for (_, _, p) in all {
        if out.len() == k {
            break;
        }
        if let (Some(cap), Some(h)) = (cap, s.host(&p)) {
            let n = per_host.entry(h.to_string()).or_default();
            if *n >= cap {
                continue;
            }
            *n += 1;
        }
        out.push(p);
    }
    out
}

#[test]
fn batches_match_brute_force_with_and_without_host_cap() {
    let mut rng = Pcg64::seed_from_u64(11);
    for rule in rules().into_iter().chain(extended_rules()) {
        let mut s: Scheduler<u32> = Scheduler::new(rule.clone()).with_seed(5);
        // 400 pages: a few big hosts, many small ones, some without host; some weighted.
        for p in 0..400u32 {
            match rng.gen_range(0..10) {
                0 => s.add(p).unwrap(),
                1..=5 => s.add_with_host(p, &format!("big{}", p % 3)).unwrap(),
                6 => s
                    .add_weighted(p, Some(&format!("small{}", p % 40)), 2.5)
                    .unwrap(),
                _ => s.add_with_host(p, &format!("small{}", p % 40)).unwrap(),
            };
        }
        for d in 1..=6u32 {
            for p in 0..400u32 {
                if rng.gen::<f64>() < 0.5 {
                    s.observe(&p, d, rng.gen::<f64>() < 0.3).unwrap();
                }
            }
        }
        for p in (0..400u32).step_by(7) {
            s.remove(&p).unwrap();
        }
        for p in (3..400u32).step_by(11).filter(|p| p % 7 != 0) {
            s.set_host(&p, Some("moved")).unwrap();
            s.set_weight(&p, (p % 4) as f64).unwrap();
        }
        for (k, cap) in [
            (1, None),
            (20, None),
            (20, Some(1)),
            (60, Some(2)),
            (200, Some(3)),
            (342, None),
            (1000, Some(5)),
            (1000, Some(1)),
        ] {
            let got = s.next_batch_capped(7, k, cap).unwrap();
            assert_eq!(got, brute_force(&s, 7, k, cap), "{rule} k {k} cap {cap:?}");
        }
    }
}

#[test]
fn host_cap_replaces_skipped_pages_with_other_hosts() {
    let mut s: Scheduler = Scheduler::new(Policy::from(Baseline::Age));
    for (page, host) in [("a1", "a"), ("a2", "a"), ("a3", "a"), ("b1", "b")] {
        s.add_with_host(page.into(), host).unwrap();
    }
    s.add("free".into()).unwrap();
    // Ages at cycle 10: a1 10, a2 9, a3 8, b1 7, free 6.
    for (page, d) in [("a2", 1), ("a3", 2), ("b1", 3), ("free", 4)] {
        s.observe(page, d, false).unwrap();
    }
    assert_eq!(s.next_batch(10, 3).unwrap(), ["a1", "a2", "a3"]);
    assert_eq!(
        s.next_batch_capped(10, 3, Some(1)).unwrap(),
        ["a1", "b1", "free"]
    );
    assert_eq!(
        s.next_batch_capped(10, 5, Some(1)).unwrap(),
        ["a1", "b1", "free"],
        "too few eligible pages: a shorter batch"
    );
    assert_eq!(
        s.next_batch_capped(10, 3, Some(0)),
        Err(ScheduleError::ZeroHostCap),
        "a cap of 0 is an error, not an empty batch"
    );
}

#[test]
fn add_remove_and_errors() {
    let mut s: Scheduler = Scheduler::new(Policy::from(Baseline::Age));
    assert_eq!(s.add("a".into()), Ok(0));
    assert_eq!(s.add("b".into()), Ok(1));
    assert_eq!(s.add("c".into()), Ok(2));
    assert_eq!(
        s.add("b".into()),
        Err(ScheduleError::DuplicatePage("\"b\"".into()))
    );
    s.observe("a", 3, true).unwrap();
    assert_eq!(
        s.observe("a", 3, false),
        Err(ScheduleError::CycleNotAfter {
            page: "\"a\"".into(),
            cycle: 3,
            last: 3
        })
    );
    assert!(matches!(
        s.observe("b", 0, false),
        Err(ScheduleError::CycleNotAfter { cycle: 0, .. })
    ));
    assert_eq!(
        s.observe("zz", 4, true),
        Err(ScheduleError::UnknownPage("\"zz\"".into()))
    );
    assert_eq!(
        s.next_batch(3, 1),
        Err(ScheduleError::BatchCycle {
            cycle: 3,
            latest: 3
        })
    );
    // Removal keeps the others' slots; the freed slot is reused.
    s.remove("b").unwrap();
    assert_eq!(
        s.remove("b"),
        Err(ScheduleError::UnknownPage("\"b\"".into()))
    );
    assert_eq!((s.len(), s.slot("c")), (2, Some(2)));
    assert_eq!(s.add("d".into()), Ok(1));
    assert_eq!(s.add("e".into()), Ok(3));
    assert_eq!(s.stats("d"), Some(&PageStats::default()));
    // Never-observed pages have age = cycle, older than `a` (visited at 3).
    assert_eq!(s.next_batch(4, 10).unwrap().last().unwrap(), "a");
    assert_eq!(s.next_batch(4, 0).unwrap(), [] as [&str; 0]);
    assert_eq!(s.distinct_stats(), 2);
}

/// Each page's `HR` computed from scratch: Σ X / Σ n over the current pages of its host
/// (a page without a host is its own host), 0 when Σ n = 0.
fn host_rates_by_brute_force(s: &Scheduler<u32>) -> Vec<(u32, f64)> {
    let mut totals: HashMap<&str, (u64, u64)> = HashMap::default();
    for p in s.pages() {
        if let Some(h) = s.host(&p) {
            let st = s.stats(&p).unwrap();
            let t = totals.entry(h).or_default();
            t.0 += st.x as u64;
            t.1 += st.n as u64;
        }
    }
    s.pages()
        .map(|p| {
            let st = s.stats(&p).unwrap();
            let (x, n) = match s.host(&p) {
                Some(h) => totals[h],
                None => (st.x as u64, st.n as u64),
            };
            (p, if n == 0 { 0.0 } else { x as f64 / n as f64 })
        })
        .collect()
}

#[test]
fn host_totals_follow_add_observe_remove_and_set_host() {
    let hr = Policy::parse("HR", &Grammar::extended()).unwrap();
    let mut rng = Pcg64::seed_from_u64(4);
    let mut s: Scheduler<u32> = Scheduler::new(hr.clone());
    let host = |i: u32| ["a", "b", "c", ""][i as usize % 4];
    let mut next = 0u32;
    for d in 1..=30u32 {
        for _ in 0..rng.gen_range(0..6) {
            let h = host(rng.gen());
            let page = next;
            next += 1;
            match h {
                "" => s.add(page),
                h => s.add_with_host(page, h),
            }
            .unwrap();
        }
        let pages: Vec<u32> = s.pages().collect();
        for &p in &pages {
            match rng.gen_range(0..10) {
                0..=4 => s.observe(&p, d, rng.gen_bool(0.4)).unwrap(),
                5 => s.remove(&p).unwrap(),
                6 => s
                    .set_host(&p, Some(host(rng.gen())).filter(|h| !h.is_empty()))
                    .unwrap(),
                7 => s.set_host(&p, None).unwrap(),
                _ => {}
            }
        }
        for (p, rate) in host_rates_by_brute_force(&s) {
            let stats = s.stats(&p).unwrap();
            assert_eq!(s.host_rates().rate(stats), rate, "page {p} at cycle {d}");
            let score = hr.scorer().unwrap().score_one(
                s.state(&p).unwrap(),
                &ScoreContext::at(d + 1, s.host_rates()),
            );
            assert_eq!(score, rate, "page {p} at cycle {d}");
        }
    }
    assert!(s.len() > 10, "{}", s.len());
}

#[test]
fn weights_are_checked_kept_and_regroup_pages_only_when_read() {
    let w = Policy::parse("w * t", &Grammar::extended()).unwrap();
    let mut s: Scheduler = Scheduler::new(w);
    for page in ["a", "b", "c"] {
        s.add(page.into()).unwrap();
    }
    assert_eq!(s.distinct_stats(), 1);
    s.set_weight("b", 3.0).unwrap();
    s.set_weight("c", -0.0).unwrap();
    assert_eq!(
        s.distinct_stats(),
        3,
        "a weight read by the policy is part of the state"
    );
    assert_eq!(s.stats("b").unwrap().weight, 3.0);
    assert!(
        s.weight("c").unwrap().is_sign_positive(),
        "-0 is stored as 0"
    );
    assert_eq!(s.next_batch(2, 3).unwrap(), ["b", "a", "c"]);
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -1e-300] {
        let err = s.set_weight("a", bad).unwrap_err();
        assert_eq!(
            err,
            ScheduleError::Weight {
                page: "\"a\"".into(),
                weight: bad.to_string()
            }
        );
        assert!(
            err.to_string().contains("must be a finite number >= 0"),
            "{err}"
        );
        assert!(s.add_weighted("z".into(), None, bad).is_err());
        assert!(!s.contains("z"), "a refused page is not added");
    }
    assert_eq!(s.weight("a"), Some(1.0));
    s.set_weight("b", 1.0).unwrap();
    s.set_weight("c", 1.0).unwrap();
    assert_eq!(s.distinct_stats(), 1, "back in one group");
    assert!(matches!(
        s.set_weight("zz", 1.0),
        Err(ScheduleError::UnknownPage(_))
    ));
    // A policy that does not read `w` keeps the weight beside the statistics.
    let mut age: Scheduler = Scheduler::new(Policy::from(Baseline::Age));
    age.add_weighted("a".into(), Some("h"), 4.0).unwrap();
    age.add("b".into()).unwrap();
    assert_eq!((age.weight("a"), age.distinct_stats()), (Some(4.0), 1));
    assert_eq!(age.stats("a").unwrap(), &PageStats::default());
    assert_eq!(age.next_batch_scored(1, 1, None).unwrap()[0].weight, 4.0);
    age.remove("a").unwrap();
    age.add("a".into()).unwrap();
    assert_eq!(
        age.weight("a"),
        Some(1.0),
        "a page added again starts afresh"
    );
}

/// Bandits (docs/src/reference/bandit.md) rewarded by the change rate, the metric a crawler
/// observes.
fn bandit_rules() -> Vec<Policy> {
    let extended = Grammar::extended();
    [
        "kab5".to_string(),
        "exp3(arms: [kab3], gamma: 0.3, reward: changerate)".to_string(),
        format!("exp3(arms: [nutch, lambda, formula({EXTENDED:?})], gamma: 0.5)"),
        // The learning rules (docs/src/reference/bandit.md#learning); `anytime` reads the
        // count of plays, which a restart must keep.
        "exp3(arms: [weight, change], rate: anytime, forget: discount(window: 3))".to_string(),
        "exp3(arms: [kab3], eta: 0.8, forget: share(alpha: 0.1), reward: changerate)".to_string(),
    ]
    .iter()
    .map(|text| Policy::parse(text, &extended).unwrap())
    .collect()
}

#[test]
fn bandit_batches_are_the_simulations_visits() {
    let data = random_hosted_history(300, 40, 4);
    let period = Period::whole(&data).unwrap();
    for cap in [None, Some(2)] {
        let config = SimConfig::new(0.1, 2)
            .unwrap()
            .with_seed(5)
            .with_host_cap(cap)
            .unwrap()
            .with_metric(crate::metric::Metric::ChangeRate);
        let sim = Simulator::new(config);
        for rule in bandit_rules() {
            let (outcome, visits) = sim.run_reference_traced(&period, &rule).unwrap();
            let arms: std::collections::BTreeSet<usize> =
                outcome.choices.iter().map(|c| c.arm).collect();
            assert!(arms.len() > 1, "{rule}: several arms drawn");
            assert_eq!(
                replay(&period, &rule, &config),
                visits,
                "{rule}, cap {cap:?}"
            );
        }
    }
}

/// A crawler restarted from its saved state at any point — after a batch, after each
/// download — draws and ranks exactly as an uninterrupted one.
#[test]
fn a_restarted_bandit_draws_what_an_uninterrupted_one_would() {
    let data = random_hosted_history(120, 30, 6);
    let period = Period::whole(&data).unwrap();
    let config = SimConfig::new(0.1, 2).unwrap().with_seed(3);
    let reload =
        |s: &Scheduler<u32>| Scheduler::<u32>::from_bytes(&s.to_bytes().unwrap(), "x").unwrap();
    for rule in bandit_rules() {
        let uninterrupted = replay(&period, &rule, &config);
        let (batches, s) = replay_with(&period, &rule, &config, |s, step| {
            *s = reload(s);
            if let Step::Batch(cycle, batch) = step {
                // Asked again for the same cycle: the same arm and batch.
                assert_eq!(
                    s.next_batch(cycle, config.k(period.pages())).unwrap(),
                    batch
                );
            }
        });
        assert_eq!(batches, uninterrupted, "{rule}");
        let weights = s.bandit_log_weights().unwrap();
        assert!(
            weights.iter().any(|&w| w > 0.0),
            "{rule}: rewards moved the weights"
        );
    }
}

#[test]
fn a_bandit_rewarded_by_an_unobservable_metric_is_refused() {
    let rule = Policy::parse(
        "exp3(arms: [uniform, change], reward: ndcg)",
        &Grammar::all(),
    )
    .unwrap();
    assert_eq!(
        Scheduler::<u32>::check_policy(&rule),
        Err(ScheduleError::Reward("ndcg"))
    );
    let mut s: Scheduler<u32> = Scheduler::new(rule);
    s.add(1).unwrap();
    let err = s.next_batch(1, 1).unwrap_err();
    assert!(err.to_string().contains("reward: changerate"), "{err}");
    let kab5 = Policy::parse("kab5", &Grammar::all()).unwrap();
    assert_eq!(Scheduler::<u32>::check_policy(&kab5), Ok(()));
}

/// A bandit's pending batch across removals, out-of-order cycles and forged files.
#[test]
fn a_bandits_pending_batch_survives_removal_and_refuses_the_impossible() {
    let kab2 = Policy::parse("kab2", &Grammar::all()).unwrap();
    let mut s: Scheduler<u32> = Scheduler::new(kab2).with_seed(1);
    for p in 0..6 {
        s.add(p).unwrap();
    }
    for p in 0..6 {
        s.observe(&p, 1, p % 2 == 0).unwrap();
    }
    let batch = s.next_batch(3, 2).unwrap();
    for p in &batch {
        s.observe(p, 3, true).unwrap();
    }
    // A page removed after its download: its change still counts, the file still loads.
    s.remove(&batch[0]).unwrap();
    let back = Scheduler::<u32>::from_bytes(&s.to_bytes().unwrap(), "s").unwrap();
    assert_eq!(back.bandit, s.bandit);
    // The next batch settles the pending one's reward, 2/2.
    let (_, arm, q) = s.drawn().map(|(c, a, q)| (c, a, q.to_vec())).unwrap();
    s.next_batch(5, 2).unwrap();
    let weights = s.bandit_log_weights().unwrap();
    assert_eq!(weights[arm], 0.1 * 1.0 / (2.0 * q[arm]));
    // A batch before the pending one is refused.
    assert_eq!(
        s.next_batch(4, 2).unwrap_err(),
        ScheduleError::BanditCycle {
            cycle: 4,
            pending: 5
        }
    );
    // A forged pending draw (a q the weights do not give) is refused on loading.
    let mut forged = s.clone();
    forged.bandit.as_mut().unwrap().pending.as_mut().unwrap().q[0] = 1e-320;
    let err = Scheduler::<u32>::from_bytes(&forged.to_bytes().unwrap(), "f").unwrap_err();
    assert!(err.to_string().contains("do not fit its arms"), "{err}");
    let mut forged = s.clone();
    forged.bandit.as_mut().unwrap().pending.as_mut().unwrap().k = 0;
    assert!(Scheduler::<u32>::from_bytes(&forged.to_bytes().unwrap(), "f").is_err());
}

/// Learned models (docs/src/reference/policies.md#learned-models): `model:FILE` and
/// formulas over `P` give the simulation's visits, and a crawler restarted from its saved
/// state (version 5: the 30-cycle windows and the model itself) ranks as an uninterrupted
/// one, even with the model file gone.
#[test]
fn learned_model_batches_are_the_simulations_visits_across_restarts() {
    use crate::model::{Feature, FeatureSet, Model};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.json");
    let model = Model::Logistic {
        features: FeatureSet::new(vec![
            Feature::Frequency(1),
            Feature::Frequency(30),
            Feature::SinceChange,
            Feature::Group("host".into()),
        ]),
        mean: vec![0.1, 0.2, 5.0, 0.2],
        scale: vec![0.3, 0.3, 4.0, 0.2],
        weights: vec![0.8, 1.7, -0.4, 0.9],
        intercept: -0.5,
        alpha: 1.0,
    };
    std::fs::write(&path, model.to_json()).unwrap();
    let m = path.display();
    let rules: Vec<Policy> = [
        format!("model:{m}"),
        format!("1 - pow(1 - P, t) [model {m}]"),
        format!("exp3(arms: [NAD, model(\"{m}\")], gamma: 0.3)"),
    ]
    .iter()
    .map(|t| Policy::parse(t, &Grammar::predictive()).unwrap())
    .collect();
    // 45 cycles: the 30-cycle window slides.
    let data = random_hosted_history(150, 45, 4);
    let period = Period::whole(&data).unwrap();
    let reload =
        |s: &Scheduler<u32>| Scheduler::<u32>::from_bytes(&s.to_bytes().unwrap(), "x").unwrap();
    for cap in [None, Some(2)] {
        let config = SimConfig::new(0.1, 2)
            .unwrap()
            .with_seed(5)
            .with_host_cap(cap)
            .unwrap();
        for rule in &rules {
            let (_, visits) = Simulator::new(config)
                .run_reference_traced(&period, rule)
                .unwrap();
            assert_eq!(
                replay(&period, rule, &config),
                visits,
                "{rule}, cap {cap:?}"
            );
            let (restarted, _) = replay_with(&period, rule, &config, |s, _| *s = reload(s));
            assert_eq!(restarted, visits, "{rule} restarted");
        }
    }
    // The state holds the model: it loads without the file.
    let (_, s) = replay_with(
        &period,
        &rules[0],
        &SimConfig::new(0.1, 2).unwrap(),
        |_, _| {},
    );
    let bytes = s.to_bytes().unwrap();
    drop(dir);
    assert_eq!(
        Scheduler::<u32>::from_bytes(&bytes, "x").unwrap().policy(),
        &rules[0]
    );
}

/// The oracle reads what no crawler knows: a scheduler refuses to rank with it, alone or
/// as a bandit's arm, and says why.
#[test]
fn the_oracle_is_refused() {
    for text in ["oracle", "exp3(arms: [NAD, oracle])"] {
        let policy = Policy::parse(text, &Grammar::extended()).unwrap();
        let mut s: Scheduler<u32> = Scheduler::new(policy);
        s.add(1).unwrap();
        let e = s.next_batch(1, 1).unwrap_err();
        assert!(matches!(e, ScheduleError::Oracle), "{text}: {e}");
        assert!(e.to_string().contains("latent change probability"), "{e}");
    }
}

/// Text ids and hosts that freshgp's files could not hold (empty, or with a TAB or line
/// break) are refused by every way in, and nothing is added then; integer ids are taken
/// as they are.
#[test]
fn ids_and_hosts_that_no_file_could_hold_are_refused() {
    let mut s: Scheduler<String> = Scheduler::new(Policy::from(Baseline::Nad));
    for bad in ["", "a\tb", "a\nb", "a\rb"] {
        let e = s.add(bad.to_string()).unwrap_err();
        assert!(matches!(e, ScheduleError::BadText(_)), "{bad:?}: {e}");
        assert!(e.to_string().starts_with("page id `"), "{e}");
        let e = s.add_with_host("p".into(), bad).unwrap_err();
        assert!(e.to_string().starts_with("host `"), "{e}");
        let e = s.add_weighted("p".into(), Some(bad), 1.0).unwrap_err();
        assert!(matches!(e, ScheduleError::BadText(_)), "{e}");
    }
    assert_eq!(s.len(), 0);
    s.add_with_host("p".into(), "a.org").unwrap();
    let e = s.set_host("p", Some("b\t.org")).unwrap_err();
    assert!(matches!(e, ScheduleError::BadText(_)), "{e}");
    let mut by_str: Scheduler<&str> = Scheduler::new(Policy::from(Baseline::Nad));
    assert!(by_str.add("x\ny").is_err() && by_str.add("x").is_ok());
    let mut by_number: Scheduler<u64> = Scheduler::new(Policy::from(Baseline::Nad));
    assert!(by_number.add(0).is_ok());
}
