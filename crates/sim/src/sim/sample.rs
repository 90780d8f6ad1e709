//! Sampled crawl decisions (docs/src/reference/simulation.md#sampled-decisions): instead
//! of the top k pages, draw exactly k pages with inclusion probabilities that follow the
//! scores.
//!
//! Each page gets a *sampling weight* `s_p = max(score, 0)` (a rate policy scores its
//! rate ρ_p in this mode, see [`super::ScoreContext`]) and the inclusion probability
//! `π_p = min(1, c·s_p)`, with `c` such that `Σ π_p = k` ([`inclusion_scale`]: pages whose
//! `c·s_p` would pass 1 are taken for sure and `c` spreads the rest). Pages are then drawn
//! by *systematic sampling* in page order with one uniform `u` of the (run seed, cycle)
//! stream ([`sample_u`]): page p is drawn when an integer j has
//! `C_{p-1} <= u + j < C_p`, `C` the running sum of π ([`Systematic`]), which draws exactly
//! `Σ π = k` pages and each with probability π_p.
//!
//! Two rules complete the definition:
//! - when at most k pages have `s_p > 0`, all of them are visited and the rest of the k
//!   are the top-ranked others, which is the top-k decision itself;
//! - `C` is a floating-point sum, so `C_P` can miss k by an ulp; a draw that comes out one
//!   page short (or over) takes the best-ranked page not drawn (drops the worst-ranked
//!   drawn one). This happens with a probability of the order of 1e-16 per cycle and keeps
//!   "exactly k" true always (our choice, the rule of
//!   docs/src/reference/simulation.md#sampled-decisions).
//!
//! The visited pages then enter NDCG in score order (ties by the seeded tie key), as a
//! top-k crawl's do. Both simulators and the scheduler use these functions, and feed
//! [`inclusion_scale`] the multiset of (weight, number of pages), so they draw alike bit
//! for bit whatever their grouping of pages.
//!
//! ```
//! use freshgp_sim::sim::inclusion_probabilities;
//!
//! // Four pages, two visits: the first is certain, the others share the second visit.
//! let pi = inclusion_probabilities(&[10.0, 1.0, 1.0, 0.0], 2);
//! assert_eq!(pi, [1.0, 0.5, 0.5, 0.0]);
//! ```

use crate::hash::mix64;
use crate::policy::ScoreContext;
use serde::{Deserialize, Serialize};

/// How a cycle's k visits are decided from the scores
/// (docs/src/reference/simulation.md#sampled-decisions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Decision {
    /// The k best-scored pages (docs/src/reference/simulation.md#a-scored-cycle), the
    /// default.
    #[default]
    #[serde(rename = "top-k")]
    TopK,
    /// Exactly k pages drawn by systematic sampling with probabilities from the scores.
    #[serde(rename = "sample")]
    Sample,
}

impl Decision {
    /// Both modes, in the order the help lists them.
    pub const ALL: [Decision; 2] = [Decision::TopK, Decision::Sample];

    /// The name used in flags, files and reports: `top-k` or `sample`.
    pub fn name(self) -> &'static str {
        match self {
            Decision::TopK => "top-k",
            Decision::Sample => "sample",
        }
    }

    /// `context` as this decision reads the scores: sampling reads a rate policy's rate ρ,
    /// its sampling weight ([`ScoreContext::sampled`]); top-k reads `ρ · t`.
    pub fn scoring(self, context: ScoreContext<'_>) -> ScoreContext<'_> {
        match self {
            Decision::TopK => context,
            Decision::Sample => context.sampled(),
        }
    }
}

impl std::fmt::Display for Decision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Decision {
    type Err = String;

    fn from_str(s: &str) -> Result<Decision, String> {
        Decision::ALL
            .into_iter()
            .find(|d| d.name() == s)
            .ok_or_else(|| format!("unknown decision `{s}`: expected top-k or sample"))
    }
}

/// The uniform `u` in [0, 1) of cycle `cycle` of the run with seed `seed` (its own salt:
/// independent of the tie order and of a bandit's draws).
pub fn sample_u(seed: u64, cycle: u32) -> f64 {
    const SALT: u64 = 0x5A3F_1E2D_9C4B_8A71;
    let bits = mix64(mix64(seed ^ SALT) ^ (cycle as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    (bits >> 11) as f64 / (1u64 << 53) as f64
}

/// The sampling weight of a score: `max(score, 0)` (`-0` and NaN give 0).
#[inline]
pub fn weight_of(score: f64) -> f64 {
    if score > 0.0 {
        score
    } else {
        0.0
    }
}

/// The classes of [`inclusion_scale`] when every page is its own: each positive
/// sampling weight with a count of 1.
pub(crate) fn page_classes(scores: &[f64]) -> Vec<(f64, u64)> {
    scores
        .iter()
        .map(|&s| weight_of(s))
        .filter(|&s| s > 0.0)
        .map(|s| (s, 1))
        .collect()
}

/// The scale `c` with `Σ min(1, c·s) = k` over `classes`, the positive sampling weights
/// with their numbers of pages (sorted and merged here, so any grouping of the same
/// pages gives the same `c` bit for bit).
///
/// The caller ensures that more than `k` pages have a positive weight (otherwise the
/// decision is top-k's, see the module docs); then `0 < c` and every π is in (0, 1].
pub fn inclusion_scale(classes: &mut Vec<(f64, u64)>, k: usize) -> f64 {
    sort_by_weight(classes);
    classes.dedup_by(|later, kept| {
        if later.0 == kept.0 {
            kept.1 += later.1;
            true
        } else {
            false
        }
    });
    // rest[j] = Σ_{i >= j} count_i · s_i, summed from the smallest weight up.
    let mut rest = vec![0.0; classes.len() + 1];
    for j in (0..classes.len()).rev() {
        rest[j] = rest[j + 1] + classes[j].1 as f64 * classes[j].0;
    }
    // Take the largest weights for sure, one class at a time, until the scale that spreads
    // the remaining visits over the rest keeps every one of them below 1.
    let mut certain = 0u64;
    for (j, &(s, count)) in classes.iter().enumerate() {
        let c = (k as f64 - certain as f64) / rest[j];
        if c * s <= 1.0 {
            return c;
        }
        certain += count;
    }
    // Unreachable when more than k pages have a positive weight: the last class alone
    // then gets c·s = (k - certain) / count < 1. Keep a defined value anyway.
    f64::INFINITY
}

/// Sorts `classes` by weight, largest first (classes of equal weight in any order:
/// [`inclusion_scale`] merges them, so any sort gives it the same classes).
///
/// The weights are positive, so their bits order as their values: from [`RADIX_FROM`]
/// classes on they are radix sorted on the complement of the bits
/// ([`radix_sort`]), the weights alone when every class holds one page. The sort is what
/// a sampled decision over every page costs beyond the top-k one.
fn sort_by_weight(classes: &mut Vec<(f64, u64)>) {
    let n = classes.len();
    if n < RADIX_FROM {
        classes.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
        return;
    }
    debug_assert!(
        classes.iter().all(|c| c.0 > 0.0),
        "sampling weights are positive"
    );
    let key = |s: f64| !s.to_bits();
    if classes.iter().all(|c| c.1 == 1) {
        // Pages each their own class (the per-page simulator): half the bytes to move.
        let mut keys: Vec<u64> = classes.iter().map(|c| key(c.0)).collect();
        radix_sort(&mut keys, |&k| k, 0);
        for (c, k) in classes.iter_mut().zip(keys) {
            *c = (f64::from_bits(!k), 1);
        }
    } else {
        radix_sort(classes, |c| key(c.0), (0.0, 0));
    }
}

/// Sorts `items` by `key`, lowest first and stable: a byte of the key a pass (least
/// significant first), skipping the bytes every key shares, in the vector's own room
/// (doubled with `fill`, then truncated back).
fn radix_sort<T: Copy>(items: &mut Vec<T>, key: impl Fn(&T) -> u64, fill: T) {
    let n = items.len();
    let digit = |item: &T, byte: usize| (key(item) >> (8 * byte)) as u8 as usize;
    let mut counts = [[0usize; 256]; 8];
    for item in items.iter() {
        for (byte, count) in counts.iter_mut().enumerate() {
            count[digit(item, byte)] += 1;
        }
    }
    items.resize(2 * n, fill);
    let (mut from, mut to) = items.split_at_mut(n);
    let mut moved = false;
    for (byte, count) in counts.iter().enumerate() {
        if count.contains(&n) {
            // Every key has this byte: the pass would keep the order.
            continue;
        }
        let mut next = [0usize; 256];
        let mut start = 0;
        for (slot, &c) in next.iter_mut().zip(count) {
            *slot = start;
            start += c;
        }
        for item in from.iter() {
            let d = digit(item, byte);
            to[next[d]] = *item;
            next[d] += 1;
        }
        std::mem::swap(&mut from, &mut to);
        moved = !moved;
    }
    if moved {
        items.copy_within(n.., 0);
    }
    items.truncate(n);
}

/// Classes from which [`sort_by_weight`] radix sorts.
const RADIX_FROM: usize = 1024;

/// Systematic sampling over pages in page order (see the module docs).
#[derive(Debug, Clone, Copy)]
pub struct Systematic {
    scale: f64,
    u: f64,
    sum: f64,
}

impl Systematic {
    /// A draw with scale `scale` (from [`inclusion_scale`]) and uniform `u`.
    pub fn new(scale: f64, u: f64) -> Systematic {
        Systematic { scale, u, sum: 0.0 }
    }

    /// The inclusion probability of a page of sampling weight `s`.
    #[inline]
    pub fn probability(&self, s: f64) -> f64 {
        (self.scale * s).min(1.0)
    }

    /// Whether the next page in page order, of sampling weight `s`, is drawn.
    #[inline]
    pub fn draws(&mut self, s: f64) -> bool {
        let before = self.sum - self.u;
        self.sum += self.probability(s);
        before.ceil() < self.sum - self.u
    }
}

/// Makes `drawn` exactly `k` pages in rank order: sorted by `key` (lower first), the
/// worst-ranked dropped if there are too many, the best-ranked of `candidates` (every
/// page that may be visited, in any order) not drawn added if there are too few (see the
/// module docs on rounding). `candidates` is walked only in that rare case.
pub fn settle(
    drawn: &mut Vec<u32>,
    k: usize,
    candidates: impl IntoIterator<Item = u32>,
    key: impl Fn(u32) -> (u64, u64),
) {
    if drawn.len() < k {
        let taken: std::collections::HashSet<u32> = drawn.iter().copied().collect();
        let mut rest: Vec<u32> = candidates
            .into_iter()
            .filter(|p| !taken.contains(p))
            .collect();
        rest.sort_unstable_by_key(|&p| key(p));
        let missing = k - drawn.len();
        drawn.extend(rest.into_iter().take(missing));
    }
    // Each key once (a tie key is a hash): k log k comparisons would recompute it.
    drawn.sort_by_cached_key(|&p| key(p));
    drawn.truncate(k);
}

/// The inclusion probabilities docs/src/reference/simulation.md#sampled-decisions gives
/// pages of these scores when `k` are visited (pages with a positive score, then the
/// best-ranked others when they number k or fewer: those get 1, the rest 0; ties among the
/// others are broken by the run's seeded order, so here every tied page gets its share of
/// the remaining visits).
pub fn inclusion_probabilities(scores: &[f64], k: usize) -> Vec<f64> {
    let positive = scores.iter().filter(|&&s| weight_of(s) > 0.0).count();
    if positive <= k {
        let mut pi: Vec<f64> = scores
            .iter()
            .map(|&s| if weight_of(s) > 0.0 { 1.0 } else { 0.0 })
            .collect();
        // The rest of the k go to the best others; a tied class shares what is left.
        let mut left = k - positive;
        let mut others: Vec<f64> = scores
            .iter()
            .copied()
            .filter(|&s| weight_of(s) == 0.0)
            .collect();
        others.sort_unstable_by(|a, b| b.total_cmp(a));
        others.dedup_by(|a, b| super::score_key(*a) == super::score_key(*b));
        for level in others {
            if left == 0 {
                break;
            }
            let tied: Vec<usize> = (0..scores.len())
                .filter(|&p| pi[p] == 0.0 && super::score_key(scores[p]) == super::score_key(level))
                .collect();
            let share = (left as f64 / tied.len() as f64).min(1.0);
            for &p in &tied {
                pi[p] = share;
            }
            left -= left.min(tied.len());
        }
        return pi;
    }
    let scale = inclusion_scale(&mut page_classes(scores), k);
    let draw = Systematic::new(scale, 0.0);
    scores
        .iter()
        .map(|&s| draw.probability(weight_of(s)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draw(scores: &[f64], k: usize, u: f64) -> Vec<u32> {
        let pi = inclusion_probabilities(scores, k);
        let total: f64 = pi.iter().sum();
        assert!((total - k as f64).abs() < 1e-9, "Σπ = {total}");
        let mut s = Systematic::new(inclusion_scale(&mut page_classes(scores), k), u);
        (0..scores.len() as u32)
            .filter(|&p| s.draws(weight_of(scores[p as usize])))
            .collect()
    }

    fn close(a: &[f64], b: &[f64]) {
        assert!(
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-15),
            "{a:?} vs {b:?}"
        );
    }

    #[test]
    fn probabilities_sum_to_k_and_cap_at_one() {
        close(
            &inclusion_probabilities(&[3.0, 1.0, 1.0, 1.0], 2),
            &[1.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0],
        );
        // Two rounds of capping: 100 and 50 are certain, c spreads 1 visit over 1 + 1.
        close(
            &inclusion_probabilities(&[100.0, 50.0, 1.0, 1.0], 3),
            &[1.0, 1.0, 0.5, 0.5],
        );
        // Proportional when nothing is capped.
        close(
            &inclusion_probabilities(&[1.0, 2.0, 3.0, 4.0], 2),
            &[0.2, 0.4, 0.6, 0.8],
        );
        // Negative scores weigh 0; with at most k positive pages the best others fill up.
        assert_eq!(
            inclusion_probabilities(&[-1.0, 2.0, -3.0], 2),
            [1.0, 1.0, 0.0]
        );
        assert_eq!(
            inclusion_probabilities(&[0.0, 0.0, 5.0, -1.0], 2),
            [0.5, 0.5, 1.0, 0.0]
        );
    }

    #[test]
    fn systematic_draws_exactly_k_pages_following_the_running_sum() {
        // π = [0.2, 0.4, 0.6, 0.8]: C = [0.2, 0.6, 1.2, 2.0].
        // u = 0.1: j = 0 hits [0, 0.2) (page 0), j = 1 hits 1.1 in [0.6, 1.2) (page 2).
        assert_eq!(draw(&[1.0, 2.0, 3.0, 4.0], 2, 0.1), [0, 2]);
        // u = 0.7: 0.7 in [0.6, 1.2) (page 2), 1.7 in [1.2, 2.0) (page 3).
        assert_eq!(draw(&[1.0, 2.0, 3.0, 4.0], 2, 0.7), [2, 3]);
        for i in 0..100 {
            let u = i as f64 / 100.0;
            assert_eq!(
                draw(&[1.0, 2.0, 3.0, 4.0, 0.5, 9.0, 0.0], 3, u).len(),
                3,
                "u = {u}"
            );
            // A certain page is drawn whatever u.
            assert!(draw(&[100.0, 50.0, 1.0, 1.0], 3, u).starts_with(&[0, 1]));
        }
    }

    #[test]
    fn the_scale_ignores_how_pages_are_grouped() {
        let mut one_by_one: Vec<(f64, u64)> =
            [0.3, 0.1, 0.3, 0.7, 0.1, 0.1].map(|s| (s, 1)).to_vec();
        let mut grouped = vec![(0.1, 2), (0.7, 1), (0.3, 2), (0.1, 1)];
        assert_eq!(
            inclusion_scale(&mut one_by_one, 2).to_bits(),
            inclusion_scale(&mut grouped, 2).to_bits()
        );
    }

    /// The radix sort orders weights as the comparison sort does, so the scale is the
    /// same bit for bit: weights spread over many magnitudes or sharing most of their
    /// bits, repeated, subnormal, the largest finite and infinite, any counts.
    #[test]
    fn the_radix_sort_orders_as_comparison_does() {
        let mut state = 5u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state >> 11
        };
        for case in 0..60u64 {
            let n = RADIX_FROM - 3 + (next() % 3000) as usize;
            let classes: Vec<(f64, u64)> = (0..n)
                .map(|_| {
                    let x = next() << 11 ^ next();
                    let s = match case % 5 {
                        0 => f64::from_bits(1 + x % 0x7fef_ffff_ffff_ffff),
                        1 => 1.0 + (x % 1000) as f64 / 7.0,
                        2 => [5e-324, 1e-300, 0.5, f64::MAX, f64::INFINITY][x as usize % 5],
                        // Neighbours: weights that differ in their last bits only.
                        3 => f64::from_bits(0.3f64.to_bits() + x % 600),
                        _ => (x % 1_000_000) as f64 / 1e6 + 1e-9,
                    };
                    // Every class of one page (half the cases), or of a few.
                    let count = if (case / 5) % 2 == 0 {
                        1
                    } else {
                        1 + next() % 4
                    };
                    (s, count)
                })
                .collect();
            let mut radix = classes.clone();
            sort_by_weight(&mut radix);
            let mut compared = classes;
            compared.sort_by(|a, b| b.0.total_cmp(&a.0));
            let weights = |c: &[(f64, u64)]| c.iter().map(|c| c.0.to_bits()).collect::<Vec<_>>();
            assert_eq!(weights(&radix), weights(&compared), "case {case}");
            // Whole classes move: within each weight, the same counts.
            let by_count = |mut c: Vec<(f64, u64)>| {
                c.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                c.iter().map(|c| (c.0.to_bits(), c.1)).collect::<Vec<_>>()
            };
            assert_eq!(by_count(radix), by_count(compared), "case {case}");
        }
    }

    #[test]
    fn u_is_uniform_and_seeded() {
        assert_eq!(sample_u(3, 7), sample_u(3, 7));
        assert_ne!(sample_u(3, 7), sample_u(4, 7));
        let mean = (0..10_000).map(|d| sample_u(1, d)).sum::<f64>() / 10_000.0;
        // The mean of 10,000 uniforms has standard deviation 0.0029; 5 of them is 0.0144.
        assert!((mean - 0.5).abs() < 0.0144, "{mean}");
        assert!((0..10_000).all(|d| (0.0..1.0).contains(&sample_u(9, d))));
    }

    #[test]
    fn settle_fixes_a_rounding_miss() {
        let key = |p: u32| (p as u64, 0);
        let mut short = vec![3, 1];
        settle(&mut short, 3, 0..5, key);
        assert_eq!(short, [0, 1, 3]);
        let mut over = vec![4, 2, 0];
        settle(&mut over, 2, 0..5, key);
        assert_eq!(over, [0, 2]);
        // Only candidates fill: a scheduler's free slots are not pages.
        let mut holes = vec![4];
        settle(&mut holes, 3, [1, 3, 4, 6], key);
        assert_eq!(holes, [1, 3, 4]);
    }

    #[test]
    fn decisions_read_and_print() {
        for d in Decision::ALL {
            assert_eq!(d.name().parse::<Decision>(), Ok(d));
        }
        assert!("topk"
            .parse::<Decision>()
            .unwrap_err()
            .contains("top-k or sample"));
    }
}
