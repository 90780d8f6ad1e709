//! The scheduler against the reference simulator and against a brute-force ranking.

use super::*;
use crate::data::Dataset;
use crate::formula::{Closure, Formula};
use crate::sim::{Adaptive, Baseline, Period, SimConfig, Simulator};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

const FORMULA: &str = "(t * X + CG) / (n + 1) - exp(-NAD * t)";

fn rules() -> Vec<Policy> {
    let f: Formula = FORMULA.parse().unwrap();
    vec![
        Policy::formula(&f, Closure::Paper),
        Policy::Baseline(Baseline::Nad),
        Policy::Baseline(Baseline::Age),
        Policy::Baseline(Baseline::Rand),
        Policy::Adaptive(Adaptive::NUTCH),
        Policy::Adaptive(Adaptive::STORMCRAWLER),
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

/// Replays `period` through a scheduler as the simulator does; returns each scored
/// cycle's batch (slots, rank order).
pub(crate) fn replay(period: &Period, rule: &Policy, config: &SimConfig) -> Vec<Vec<u32>> {
    let pages = period.pages();
    let mut s: Scheduler<u32> = Scheduler::new(rule.clone()).with_seed(config.seed());
    for p in 0..pages as u32 {
        assert_eq!(s.add(p).unwrap(), p);
    }
    let mut stale = vec![false; pages];
    let mut batches = Vec::new();
    for d in 1..=period.len() {
        for &p in period.changes(d) {
            stale[p as usize] = true;
        }
        let cycle = d as u32;
        let visit: Vec<u32> = if d <= config.warmup() {
            (0..pages as u32).collect()
        } else {
            let batch = s.next_batch(cycle, config.k(pages)).unwrap();
            batches.push(batch.clone());
            batch
        };
        for p in visit {
            s.observe(&p, cycle, stale[p as usize]).unwrap();
            stale[p as usize] = false;
        }
    }
    batches
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

/// The batch by brute force: every page scored alone, fully sorted, walked with the cap.
fn brute_force(s: &Scheduler<u32>, cycle: u32, k: usize, cap: Option<usize>) -> Vec<u32> {
    let policy = s.policy().clone();
    let salt = tie_salt(s.seed(), cycle);
    let mut all: Vec<(u64, u64, u32)> = s
        .pages()
        .map(|&p| {
            let slot = s.slot(&p).unwrap();
            let score = policy.score_one(s.state(&p).unwrap(), cycle, &Default::default());
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
    for rule in rules() {
        let mut s: Scheduler<u32> = Scheduler::new(rule.clone()).with_seed(5);
        // 400 pages: a few big hosts, many small ones, some without host.
        for p in 0..400u32 {
            match rng.gen_range(0..10) {
                0 => s.add(p).unwrap(),
                1..=5 => s.add_with_host(p, &format!("big{}", p % 3)).unwrap(),
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
    let mut s: Scheduler = Scheduler::new(Policy::Baseline(Baseline::Age));
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
        "a cap of 0 is an error, not an empty batch (SPEC §8)"
    );
}

#[test]
fn add_remove_and_errors() {
    let mut s: Scheduler = Scheduler::new(Policy::Baseline(Baseline::Age));
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
