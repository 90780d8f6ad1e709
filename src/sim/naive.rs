//! The reference simulator: SPEC §3 read literally, one page at a time.
//!
//! Every scored cycle it scores every page, sorts them all and visits the first k. It is
//! slow (O(P log P) per cycle) and kept simple on purpose: it is the oracle the fast
//! simulator is tested against, and the only one that can rank ties the way the authors'
//! program does ([`TieBreak::Reference`]).

use super::metrics::{discount, Discounts, Outcome, Tally};
use super::{score_key, stdsort, tie_key, tie_salt, Period, Policy, SimConfig, TieBreak};

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
    let mut state = vec![policy.fresh_page(); pages];
    let mut stale = vec![false; pages];
    let mut stale_count = 0usize;
    let mut order: Vec<u32> = (0..pages as u32).collect();
    let mut scores = vec![0.0f64; pages];
    let mut ideal = Discounts::default();
    ideal.up_to(k);
    let mut outcome = Outcome::default();
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
                policy.visit(&mut state[p], cycle, stale[p]);
                stale[p] = false;
            }
            stale_count = 0;
            continue;
        }
        for p in 0..pages {
            scores[p] = policy.score_one(&state[p], cycle);
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
        let stale_before = stale_count;
        let (mut found, mut dcg, mut newly) = (0usize, 0.0f64, 0usize);
        for (i, &p) in order[..k].iter().enumerate() {
            let p = p as usize;
            if stale[p] {
                found += 1;
                dcg += discount(i + 1);
            }
            if state[p].stats.last_visit as usize <= warmup {
                newly += 1;
            }
        }
        visited(cycle, &order[..k]);
        for &p in &order[..k] {
            let p = p as usize;
            policy.visit(&mut state[p], cycle, stale[p]);
            if stale[p] {
                stale[p] = false;
                stale_count -= 1;
            }
        }
        let idcg = ideal.ideal(stale_before.min(k));
        outcome.cycles.push(
            Tally {
                cycle: d,
                pages,
                visited: k,
                stale_before,
                stale_after: stale_count,
                found,
                newly,
                dcg,
                ideal_dcg: idcg,
            }
            .metrics(),
        );
    }
    outcome
}
