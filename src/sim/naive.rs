//! The reference simulator: SPEC §3 read literally, one page at a time.
//!
//! Every scored cycle it scores every page, sorts them all and visits the first k (with a
//! host cap, the first k the cap allows, SPEC §8). It is
//! slow (O(P log P) per cycle) and kept simple on purpose: it is the oracle the fast
//! simulator is tested against, and the only one that can rank ties the way the authors'
//! program does ([`TieBreak::Reference`]).

use super::metrics::{
    discount, fresh_weight, weighted_ideal, Discounts, Outcome, Tally, WeightedTally,
};
use super::{
    score_key, stdsort, tie_key, tie_salt, Histories, HostRates, PageState, Period, Policy,
    SimConfig, TieBreak, Track,
};

/// Runs `policy` over `period`.
pub(crate) fn run(period: &Period, policy: &Policy, config: &SimConfig) -> Outcome {
    run_traced(period, policy, config, |_, _| {})
}

/// Runs `policy` over `period`, calling `visited(cycle, pages)` with each scored cycle's
/// visited pages (local indices) in rank order.
pub(crate) fn run_traced(
    period: &Period,
    policy: &Policy,
    config: &SimConfig,
    mut visited: impl FnMut(u32, &[u32]),
) -> Outcome {
    let pages = period.pages();
    let k = config.k(pages);
    let warmup = config.warmup();
    let tracks_hosts = policy.features().track().has(Track::HOST);
    let mut histories = Histories::default();
    let mut hosts = HostRates::new(period.hosts());
    let mut state: Vec<PageState> = (0..pages as u32)
        .map(|p| policy.fresh_page_of(period.weight(p), period.host(p)))
        .collect();
    let mut stale = vec![false; pages];
    let mut stale_count = 0usize;
    let mut order: Vec<u32> = (0..pages as u32).collect();
    let mut scores = vec![0.0f64; pages];
    let mut ideal = Discounts::default();
    ideal.up_to(k);
    let mut chosen = Vec::with_capacity(k);
    let mut host_taken = vec![0u32; period.hosts()];
    let mut outcome = Outcome::default();
    let mut visit = |state: &mut PageState, hosts: &mut HostRates, p: u32, cycle: u32, changed| {
        policy.visit(state, cycle, changed, &mut histories);
        if tracks_hosts {
            hosts.record(period.host(p), changed);
        }
    };
    for d in 1..=period.len() {
        for &p in period.changes(d) {
            if !stale[p as usize] {
                stale[p as usize] = true;
                stale_count += 1;
            }
        }
        let cycle = d as u32;
        if d <= warmup {
            for p in 0..pages {
                visit(&mut state[p], &mut hosts, p as u32, cycle, stale[p]);
                stale[p] = false;
            }
            stale_count = 0;
            continue;
        }
        for p in 0..pages {
            scores[p] = policy.score_one(&state[p], cycle, &hosts);
        }
        match config.ties() {
            TieBreak::Seeded => {
                let salt = tie_salt(config.seed(), cycle);
                order.sort_unstable_by_key(|&p| {
                    (
                        std::cmp::Reverse(score_key(scores[p as usize])),
                        tie_key(salt, p),
                    )
                });
            }
            TieBreak::Reference => {
                stdsort::sort(&mut order, &|a: u32, b: u32| {
                    scores[a as usize] > scores[b as usize]
                });
            }
        }
        // SPEC §8: walk the ranking, skipping a page whose host has its cap already.
        chosen.clear();
        host_taken.fill(0);
        for &p in &order {
            if chosen.len() == k {
                break;
            }
            let h = period.host(p);
            if let (Some(cap), Some(taken)) = (config.host_cap(), host_taken.get_mut(h as usize)) {
                if *taken >= cap {
                    continue;
                }
                *taken += 1;
            }
            chosen.push(p);
        }
        let stale_before = stale_count;
        let mut stale_weights: Vec<f64> = (0..pages as u32)
            .filter(|&p| stale[p as usize])
            .map(|p| period.weight(p))
            .collect();
        let (mut found, mut dcg, mut dcg_w, mut newly) = (0usize, 0.0f64, 0.0f64, 0usize);
        for (i, &p) in chosen.iter().enumerate() {
            if stale[p as usize] {
                found += 1;
                dcg += discount(i + 1);
                dcg_w += period.weight(p) * discount(i + 1);
            }
            if state[p as usize].stats.last_visit as usize <= warmup {
                newly += 1;
            }
        }
        visited(cycle, &chosen);
        for &p in &chosen {
            let changed = stale[p as usize];
            visit(&mut state[p as usize], &mut hosts, p, cycle, changed);
            if changed {
                stale[p as usize] = false;
                stale_count -= 1;
            }
        }
        let m = stale_before.min(k);
        let weighted = period.weights().map(|weights| WeightedTally {
            dcg: dcg_w,
            ideal_dcg: weighted_ideal(&mut stale_weights, m, &ideal),
            fresh: fresh_weight(&stale, weights),
            total: period.total_weight(),
        });
        outcome.cycles.push(
            Tally {
                cycle: d,
                pages,
                visited: chosen.len(),
                stale_before,
                stale_after: stale_count,
                found,
                newly,
                dcg,
                ideal_dcg: ideal.ideal(m),
                weighted,
            }
            .metrics(k),
        );
    }
    outcome
}
