//! Tests of the request-driven simulation.

use super::config::*;
use super::run::*;
use super::savings::*;
use super::scorer::*;
use super::stream::*;
use crate::data::Dataset;
use crate::policy::Policy;
use crate::sim::{Period, SimConfig, SimError};

/// One cycle's counts.
fn c(requests: u64, fresh: u64, crawls: u64) -> CycleCounts {
    CycleCounts {
        requests,
        fresh,
        crawls,
    }
}

fn config(warmup: usize) -> RequestConfig {
    // Invariant: valid settings.
    let sim = SimConfig::new(0.34, warmup).expect("invariant: valid");
    RequestConfig::new(QUANTILES, sim).expect("invariant: Q > 0")
}

#[test]
fn quantiles_share_the_mean_rank_of_ties() {
    let (mut order, mut out) = (Vec::new(), vec![0; 4]);
    quantiles(&[3.0, 1.0, 1.0, 2.0], 100, &mut order, &mut out);
    assert_eq!(out, [100, 38, 38, 75]); // ranks 4, 1.5, 1.5, 3 of 4
    quantiles(&[3.0, 1.0, 1.0, 2.0], 3, &mut order, &mut out);
    assert_eq!(out, [3, 2, 2, 3]);
    quantiles(&[5.0; 4], 100, &mut order, &mut out);
    assert_eq!(out, [63; 4]); // mean rank 2.5 of 4: ceil(62.5)
}

/// Pages 0 (changes every cycle), 1 (at 3) and 2 (never); warm-up cycle 1; the
/// formula X; requests with their draws as in the comments.
fn hand_worked() -> RequestSim {
    let d = Dataset::from_bit_strings(&["111", "001", "000"]).unwrap();
    let period = Period::whole(&d).unwrap();
    let requests = Requests::served(
        vec![
            vec![(0, 0.9), (0, 0.1), (1, 0.6), (2, 0.4)],
            vec![(1, 0.2), (1, 0.3), (0, 0.99), (2, 0.7)],
        ],
        1,
    );
    RequestSim::new(vec![(period, requests)], config(1)).unwrap()
}

#[test]
fn hand_worked_three_cycles() {
    let sim = hand_worked();
    let x = Policy::parse("X", &crate::formula::Grammar::all()).unwrap();
    // Cycle 2: X is 1, 0, 0 → quantiles 100, 50, 50 → probabilities 1, ½, ½ at γ = 1.
    // (0, .9) stale, crawled; (0, .1) fresh, crawled; (1, .6) fresh; (2, .4) fresh,
    // crawled. Cycle 3 (pages 0 and 1 change): X is 2, 0, 0, the same quantiles.
    // (1, .2) stale, crawled; (1, .3) fresh, crawled; (0, .99) stale, crawled; (2, .7)
    // fresh.
    let t = sim.run(Crawler::Scored(&x), 1.0).unwrap();
    assert_eq!(t.cycles, [c(4, 3, 3), c(4, 2, 3)]);
    assert_eq!((t.freshness(), t.resources()), (5.0 / 8.0, 6.0 / 8.0));
    // At γ = 0.5 the probabilities are ½, ¼, ¼. Cycle 2: (0, .9) stale; (0, .1) stale,
    // crawled; (1, .6), (2, .4) fresh. Cycle 3: (1, .2) stale, crawled; (1, .3) fresh;
    // (0, .99) stale; (2, .7) fresh.
    let t = sim.run(Crawler::Scored(&x), 0.5).unwrap();
    assert_eq!(t.cycles, [c(4, 2, 1), c(4, 2, 1)]);
    // Uniform at R = ½ on the same stream. Cycle 2: (0, .9) stale; (0, .1) stale,
    // crawled; (1, .6) fresh; (2, .4) fresh, crawled. Cycle 3: (1, .2) stale, crawled;
    // (1, .3) fresh, crawled; (0, .99) stale; (2, .7) fresh.
    let u = sim.run(Crawler::Uniform, 0.5).unwrap();
    assert_eq!(u.cycles, [c(4, 2, 2), c(4, 2, 2)]);
}

#[test]
fn bad_settings_are_refused() {
    let sim = hand_worked();
    let kab = Policy::by_name("kab5").unwrap();
    assert_eq!(
        sim.run(Crawler::Scored(&kab), 1.0),
        Err(RequestError::Bandit)
    );
    assert_eq!(
        RequestConfig::new(0, SimConfig::paper()),
        Err(RequestError::Quantiles)
    );
    assert_eq!(
        sim.tune(Crawler::Uniform, Target::Freshness(1.5)),
        Err(RequestError::Target(1.5))
    );
    let d = Dataset::from_bit_strings(&["111"]).unwrap();
    let p = Period::whole(&d).unwrap();
    let none = Requests::served(vec![vec![], vec![]], 1);
    assert_eq!(
        RequestSim::new(vec![(p.clone(), none)], config(1)).err(),
        Some(RequestError::NoRequests)
    );
    let r = Requests::served(vec![], 3);
    assert!(matches!(
        RequestSim::new(vec![(p, r)], config(3)).err(),
        Some(RequestError::Sim(SimError::Warmup { .. }))
    ));
}

/// 400 pages: half never change, half change every fourth cycle (staggered).
fn predictable() -> RequestSim {
    let rows: Vec<String> = (0..400)
        .map(|p| {
            (1..=20)
                .map(|d| {
                    if p % 2 == 0 && (d + p / 2) % 4 == 0 {
                        '1'
                    } else {
                        '0'
                    }
                })
                .collect()
        })
        .collect();
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let d = Dataset::from_bit_strings(&rows).unwrap();
    let period = Period::whole(&d).unwrap();
    let config = RequestConfig::default();
    let requests = Requests::poisson(&period, &config);
    RequestSim::new(vec![(period, requests)], config).unwrap()
}

#[test]
fn poisson_requests_average_one_per_page_and_cycle() {
    let sim = predictable();
    let n = sim.runs[0].1.len() as f64 / (400.0 * 18.0);
    assert!((n - 1.0).abs() < 0.03, "{n}");
    // The same seed gives the same stream.
    let again = Requests::poisson(&sim.runs[0].0, &RequestConfig::default());
    assert_eq!(again, sim.runs[0].1);
}

#[test]
fn bisection_reaches_the_target_and_a_good_policy_saves() {
    let sim = predictable();
    let u = sim.tune(Crawler::Uniform, Target::Resources(0.4)).unwrap();
    assert!(
        (u.tally.resources() - 0.4).abs() < 0.01,
        "{}",
        u.tally.resources()
    );
    let nad = Policy::by_name("nad").unwrap();
    let levels = savings(&sim, &[&nad], &[0.4], &|_| {}).unwrap();
    let goal = levels[0].freshness;
    let s = &levels[0].methods[0];
    assert!(s.reached);
    let resolution = 1.0 / sim.runs[0].1.len() as f64;
    assert!(
        (s.freshness - goal).abs() <= resolution.max(TOLERANCE) * 4.0,
        "{s:?}"
    );
    // Crawling pages that change rather than at random saves crawls.
    assert!(s.savings > 0.2, "{s:?}");
    let m = s.per_cycle;
    assert!(
        m.mean - m.ci95 < s.savings && s.savings < m.mean + m.ci95,
        "{s:?}"
    );
}

#[test]
fn savings_reports_every_simulation() {
    let sim = predictable();
    let (nad, age) = (
        Policy::by_name("nad").unwrap(),
        Policy::by_name("age").unwrap(),
    );
    let events = std::sync::Mutex::new(Vec::new());
    let levels = [0.2, 0.6];
    let out = savings(&sim, &[&nad, &age], &levels, &|e| {
        let e = match e {
            Progress::Goal { level } => ("uniform".to_string(), level, None),
            Progress::Bisection { method, level } => (method.to_string(), level, None),
            Progress::Tuned {
                method,
                level,
                gamma,
                runs,
            } => (method.to_string(), level, Some((gamma, runs))),
        };
        events.lock().unwrap().push(e)
    })
    .unwrap();
    let events = events.into_inner().unwrap();
    let goals = events.iter().filter(|e| e.0 == "uniform").count();
    assert_eq!(goals, levels.len());
    let mut simulations = goals;
    for (i, &level) in levels.iter().enumerate() {
        for (j, label) in ["NAD", "Age"].iter().enumerate() {
            let mine = |e: &&(String, f64, Option<(f64, usize)>)| e.0 == *label && e.1 == level;
            let ran = events.iter().filter(mine).filter(|e| e.2.is_none()).count();
            let tuned: Vec<_> = events.iter().filter(mine).filter_map(|e| e.2).collect();
            // One `Tuned` per method and level, after the runs it counts.
            assert_eq!(tuned.len(), 1, "{label} at {level}: {events:?}");
            let (gamma, runs) = tuned[0];
            assert_eq!(gamma, out[i].methods[j].gamma);
            assert!(
                runs == ran && (1..=MAX_RUNS).contains(&runs),
                "{runs} {ran}"
            );
            simulations += ran;
        }
    }
    assert!(simulations <= savings_runs(2, levels.len()));
    assert_eq!(events.len(), simulations + 2 * levels.len());
}

/// The hand-worked requests, a page crawled at most once per cycle: the second request of
/// page 0 at cycle 2 and of page 1 at cycle 3 no longer crawl.
#[test]
fn once_per_cycle_skips_pages_crawled_this_cycle() {
    let hand = hand_worked();
    let sim = RequestSim::new(hand.runs.clone(), config(1).once_per_cycle(true)).unwrap();
    let x = Policy::parse("X", &crate::formula::Grammar::all()).unwrap();
    let t = sim.run(Crawler::Scored(&x), 1.0).unwrap();
    assert_eq!(t.cycles, [c(4, 3, 2), c(4, 2, 2)]);
    // Uniform obeys the rule too: at R = 1 it crawls each page once per cycle.
    let u = sim.run(Crawler::Uniform, 1.0).unwrap();
    assert_eq!(u.cycles, [c(4, 3, 3), c(4, 2, 3)]);
    // Savings are read against what uniform spent (6 of 8 requests at R = 1), not
    // against R = 1.
    let levels = savings(&sim, &[&x], &[1.0], &|_| {}).unwrap();
    let s = &levels[0].methods[0];
    assert!(
        (s.savings - (1.0 - s.resources / 0.75)).abs() < 1e-12,
        "{s:?}"
    );
}

/// Fixed probabilities used as they are.
struct Fixed(Vec<f64>);

impl RequestScorer for Fixed {
    fn label(&self) -> String {
        "fixed".into()
    }

    fn start<'s>(
        &'s self,
        _: usize,
        _: &'s Period,
        _: &RequestConfig,
    ) -> Result<Box<dyn ScoredRun + 's>, RequestError> {
        Ok(Box::new(FixedRun(&self.0)))
    }
}

struct FixedRun<'s>(&'s [f64]);

impl ScoredRun for FixedRun<'_> {
    fn visit(&mut self, _: u32, _: u32, _: bool) {}

    fn score(&mut self, _: u32, out: &mut [f64]) {
        out.copy_from_slice(self.0);
    }

    fn direct(&self) -> bool {
        true
    }
}

/// A direct scorer crawls with probability p·γ, never twice a page in a cycle:
/// probabilities 1, ½, 0 at γ = 1 over the hand-worked requests.
#[test]
fn direct_scores_are_crawl_probabilities() {
    let sim = hand_worked();
    let fixed = Fixed(vec![1.0, 0.5, 0.0]);
    let t = sim.run(Crawler::Scored(&fixed), 1.0).unwrap();
    // Cycle 2: (0, .9) crawled; (0, .1) already crawled; (1, .6) above ½; (2, .4) p 0.
    // Cycle 3: (1, .2) stale, crawled; (1, .3) already; (0, .99) crawled; (2, .7) p 0.
    assert_eq!(t.cycles, [c(4, 3, 1), c(4, 2, 2)]);
    // At γ = 2 page 1's probability is 1.
    let t = sim.run(Crawler::Scored(&fixed), 2.0).unwrap();
    assert_eq!(t.cycles, [c(4, 3, 2), c(4, 2, 2)]);
}
