//! The reference simulator: docs/src/reference/simulation.md read literally, one page at a
//! time.
//!
//! Every scored cycle it scores every page, sorts them all and visits the first k (with a
//! host cap, the first k the cap allows). It is slow (O(P log P) per cycle) and kept simple
//! on purpose: it is the oracle the fast simulator is tested against, and the only one that
//! can rank ties the way the authors' program does ([`TieBreak::Reference`]).

use super::bandit::Chooser;
use super::metrics::{
    discount, fresh_weight, weighted_ideal, Discounts, Outcome, Tally, WeightedTally,
};
use super::sample::{inclusion_scale, page_classes, sample_u, settle, weight_of, Systematic};
use super::{score_key, stdsort, tie_key, tie_salt, Decision, Period, SimConfig, TieBreak};
use crate::policy::{Histories, PageState, Policy, ScoreBuffers, Scorer, Surroundings};

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
    let mut histories = Histories::default();
    let mut hosts = period.surroundings(policy.features().track(), k);
    let mut state: Vec<PageState> = (0..pages as u32)
        .map(|p| period.fresh_page(policy, p))
        .collect();
    let mut stale = vec![false; pages];
    let mut stale_count = 0usize;
    let mut order: Vec<u32> = (0..pages as u32).collect();
    let mut scores = vec![0.0f64; pages];
    let mut ideal = Discounts::default();
    ideal.up_to(k);
    let mut chosen = Vec::with_capacity(k);
    let mut host_taken = vec![0u32; period.hosts()];
    let mut buffers = ScoreBuffers::default();
    let mut outcome = Outcome::default();
    let mut chooser = Chooser::new(policy, config.seed(), config.metric());
    let mut visit =
        |state: &mut PageState, hosts: &mut Surroundings, p: u32, cycle: u32, changed| {
            policy.visit(state, cycle, changed, &mut histories);
            hosts.record(period.host(p), period.group(p), changed);
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
        score(
            chooser.scorer(cycle),
            &state,
            (cycle, k, config.decision()),
            &hosts,
            &mut scores,
            &mut buffers,
        );
        rank(&mut order, &scores, config, cycle);
        let at = (period, cycle, k);
        decide(config, (&order, &scores), at, &mut host_taken, &mut chosen);
        let stale_before = stale_count;
        let mut stale_weights = weights_of(&stale, period);
        let counted = found(&chosen, &stale, &state, period, warmup);
        visited(cycle, &chosen);
        for &p in &chosen {
            let changed = stale[p as usize];
            visit(&mut state[p as usize], &mut hosts, p, cycle, changed);
            if changed {
                stale[p as usize] = false;
                stale_count -= 1;
            }
        }
        let tally = Tally {
            cycle: d,
            pages,
            visited: chosen.len(),
            stale_before,
            stale_after: stale_count,
            found: counted.found,
            newly: counted.newly,
            dcg: counted.dcg,
            ideal_dcg: ideal.ideal(stale_before.min(k)),
            weighted: None,
        };
        let metrics = weighed(
            (tally, k),
            (counted.dcg_w, counted.found_w),
            &stale,
            &mut stale_weights,
            period,
            &ideal,
        )
        .metrics(k);
        outcome.choices.extend(chooser.reward(&metrics));
        outcome.cycles.push(metrics);
    }
    outcome
}

/// `tally` with its weighted sums when the period has weights: the chosen stale pages'
/// weighted DCG `dcg_w` and weight `found_w`, the ideal one over `stale_weights` (the weights of the pages
/// stale before the visits; the top `k`), the fresh weight after them.
fn weighed(
    (mut tally, k): (Tally, usize),
    (dcg_w, found_w): (f64, f64),
    stale: &[bool],
    stale_weights: &mut [f64],
    period: &Period,
    ideal: &Discounts,
) -> Tally {
    let m = tally.stale_before.min(k);
    tally.weighted = period.weights().map(|weights| WeightedTally {
        dcg: dcg_w,
        ideal_dcg: weighted_ideal(stale_weights, m, ideal),
        fresh: fresh_weight(stale, weights),
        total: period.total_weight(),
        found: found_w,
        top: period.top_weight(k),
    });
    tally
}

/// The first `k` pages of `order`, skipping a page whose host already has `cap` pages
/// chosen; into `chosen`. `host_taken` counts per host (any content; reset here).
fn choose(
    order: &[u32],
    period: &Period,
    (k, cap): (usize, Option<u32>),
    host_taken: &mut [u32],
    chosen: &mut Vec<u32>,
) {
    chosen.clear();
    host_taken.fill(0);
    for &p in order {
        if chosen.len() == k {
            break;
        }
        let h = period.host(p);
        if let (Some(cap), Some(taken)) = (cap, host_taken.get_mut(h as usize)) {
            if *taken >= cap {
                continue;
            }
            *taken += 1;
        }
        chosen.push(p);
    }
}

/// The cycle's visits into `chosen`, by `config`'s decision: the top k (under the host
/// cap, if any) or a sample (docs/src/reference/simulation.md#sampled-decisions).
fn decide(
    config: &SimConfig,
    (order, scores): (&[u32], &[f64]),
    (period, cycle, k): (&Period, u32, usize),
    host_taken: &mut [u32],
    chosen: &mut Vec<u32>,
) {
    match config.decision() {
        Decision::TopK => choose(order, period, (k, config.host_cap()), host_taken, chosen),
        Decision::Sample => sample(order, scores, (k, config.seed(), cycle), chosen),
    }
}

/// The sampled decision of docs/src/reference/simulation.md#sampled-decisions, literally:
/// the inclusion probabilities of every page's score, systematic sampling in page order,
/// the drawn pages in rank order (`order` when at most `k` pages have a positive score: the
/// top-k decision).
fn sample(
    order: &[u32],
    scores: &[f64],
    (k, seed, cycle): (usize, u64, u32),
    chosen: &mut Vec<u32>,
) {
    chosen.clear();
    let mut classes = page_classes(scores);
    if classes.len() <= k {
        chosen.extend_from_slice(&order[..k]);
        return;
    }
    let mut draw = Systematic::new(inclusion_scale(&mut classes, k), sample_u(seed, cycle));
    chosen.extend((0..scores.len() as u32).filter(|&p| draw.draws(weight_of(scores[p as usize]))));
    let salt = tie_salt(seed, cycle);
    settle(chosen, k, 0..scores.len() as u32, |p| {
        (!score_key(scores[p as usize]), tie_key(salt, p))
    });
}

/// Scores every page on its own at `cycle` with `k` visits to spend for `decision` (a
/// rate policy solves its rates over the pages one by one).
fn score(
    policy: &Scorer,
    state: &[PageState],
    (cycle, k, decision): (u32, usize, Decision),
    hosts: &Surroundings,
    scores: &mut [f64],
    buffers: &mut ScoreBuffers,
) {
    let population = state.iter().map(|page| (page, 1));
    let context = decision.scoring(policy.context(cycle, k, hosts, population, buffers));
    for (score, page) in scores.iter_mut().zip(state) {
        *score = policy.score_one(page, &context);
    }
}

/// Sorts `order` by descending score; ties by the seeded tie key, or as the authors'
/// `std::sort` leaves them (starting from the previous cycle's order).
fn rank(order: &mut [u32], scores: &[f64], config: &SimConfig, cycle: u32) {
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
            stdsort::sort(order, &|a: u32, b: u32| {
                scores[a as usize] > scores[b as usize]
            });
        }
    }
}

/// What the chosen pages found.
struct Found {
    found: usize,
    dcg: f64,
    dcg_w: f64,
    found_w: f64,
    newly: usize,
}

/// Counts the stale pages among `chosen` (in rank order), their DCG and weighted DCG, and
/// the pages not visited since the warm-up.
fn found(
    chosen: &[u32],
    stale: &[bool],
    state: &[PageState],
    period: &Period,
    warmup: usize,
) -> Found {
    let mut f = Found {
        found: 0,
        dcg: 0.0,
        dcg_w: 0.0,
        found_w: 0.0,
        newly: 0,
    };
    for (i, &p) in chosen.iter().enumerate() {
        if stale[p as usize] {
            f.found += 1;
            f.dcg += discount(i + 1);
            f.dcg_w += period.weight(p) * discount(i + 1);
            f.found_w += period.weight(p);
        }
        if state[p as usize].stats.last_visit as usize <= warmup {
            f.newly += 1;
        }
    }
    f
}

/// The weights of the stale pages, in page order.
fn weights_of(stale: &[bool], period: &Period) -> Vec<f64> {
    (0..stale.len() as u32)
        .filter(|&p| stale[p as usize])
        .map(|p| period.weight(p))
        .collect()
}
