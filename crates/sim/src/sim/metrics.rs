//! What a simulated cycle is worth (docs/src/reference/metrics.md): ChangeRate, the
//! authors' NDCG, Freshness, and their importance-weighted forms WNDCG and WFreshness.
//!
//! The DCG discount is the authors': `g(1) = 1` and `g(i) = 1 / ln(i + 1)` for `i >= 2`.
//! Sums run in rank order, as theirs do, so values agree to the last bit. The weighted
//! sums are defined so that with every weight 1 they are the unweighted ones bit for bit:
//! `DCG_w` adds `w·g(i)` in rank order, the ideal `DCG_w` adds `g(j)·w_(j)` over the
//! stale pages' weights in descending order ([`weighted_ideal`]), and WFreshness sums the
//! weights of the fresh pages in four interleaved lanes of page order ([`fresh_weight`]),
//! as the period's total is summed. Without weights (a dataset
//! that has none) WNDCG and WFreshness are NDCG and Freshness.

use crate::metric::{CycleMetrics, Metric};
use serde::{Deserialize, Serialize};

/// The DCG discount of rank `i` (1-based).
pub(crate) fn discount(i: usize) -> f64 {
    if i == 1 {
        1.0
    } else {
        1.0 / ((i + 1) as f64).ln()
    }
}

/// The discount of ranks `1..=k` and its prefix sums (the ideal DCG), computed once and
/// looked up, not recomputed (one logarithm each) for every visit.
#[derive(Debug, Clone, Default)]
pub(crate) struct Discounts {
    /// `g[i]` = `discount(i)`; `g[0]` unused.
    g: Vec<f64>,
    /// `ideal[m]` = `Σ_{i=1}^{m} g(i)`, summed in rank order.
    ideal: Vec<f64>,
}

impl Discounts {
    /// Makes ranks up to `k` available.
    pub(crate) fn up_to(&mut self, k: usize) {
        if self.g.is_empty() {
            self.g.push(0.0);
            self.ideal.push(0.0);
        }
        while self.g.len() <= k {
            let i = self.g.len();
            let g = discount(i);
            self.g.push(g);
            self.ideal.push(self.ideal[i - 1] + g);
        }
    }

    /// The discount of `rank` (at most the `k` of [`Discounts::up_to`]).
    #[inline]
    pub(crate) fn of(&self, rank: usize) -> f64 {
        self.g[rank]
    }

    /// The ideal DCG of `m` relevant pages at the top (`m` at most `k`).
    pub(crate) fn ideal(&self, m: usize) -> f64 {
        self.ideal[m]
    }
}

/// The weighted sums of one scored cycle, for WNDCG and WFreshness
/// (docs/src/reference/metrics.md#wndcg).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct WeightedTally {
    /// Σ w·g(i) over the stale visited pages, in rank order.
    pub(crate) dcg: f64,
    /// [`weighted_ideal`] of the pages stale before the visits.
    pub(crate) ideal_dcg: f64,
    /// [`fresh_weight`] after the visits.
    pub(crate) fresh: f64,
    /// Σ of all weights.
    pub(crate) total: f64,
    /// Σ w over the stale visited pages, in rank order.
    pub(crate) found: f64,
    /// [`Period::top_weight`](super::Period::top_weight) of the budget.
    pub(crate) top: f64,
}

impl WeightedTally {
    /// The weighted sums of a run that did not tally them ([`Simulator::unweighted`](super::Simulator::unweighted)):
    /// WNDCG and WFreshness read NaN, never a wrong number.
    pub(crate) const NOT_TALLIED: WeightedTally = WeightedTally {
        dcg: f64::NAN,
        ideal_dcg: f64::NAN,
        fresh: f64::NAN,
        total: f64::NAN,
        found: f64::NAN,
        top: f64::NAN,
    };
}

/// The ideal weighted DCG: `Σ_{j <= m} g(j)·w_(j)` with `w_(1) >= w_(2) >= ...` the
/// largest `m` of `stale_weights` (reordered in place).
pub(crate) fn weighted_ideal(stale_weights: &mut [f64], m: usize, discounts: &Discounts) -> f64 {
    let m = m.min(stale_weights.len());
    if m == 0 {
        return 0.0;
    }
    let descending = |a: &f64, b: &f64| b.total_cmp(a);
    if m < stale_weights.len() {
        stale_weights.select_nth_unstable_by(m - 1, descending);
    }
    let top = &mut stale_weights[..m];
    top.sort_unstable_by(descending);
    let mut sum = 0.0;
    for (j, &w) in top.iter().enumerate() {
        sum += discounts.of(j + 1) * w;
    }
    sum
}

/// Σ of the weights of the pages that are not stale, in one fixed order: page `p` is
/// added in page order to lane `p mod 4` of four, and the lanes as `(l0 + l1) + (l2 +
/// l3)`. Four independent chains of adds run four times as fast as one, and every
/// simulator sums so, as the period's total does ([`Period::total_weight`]): with every
/// page fresh the sum is exactly the total. (With weights of 1 every partial sum is an
/// exact integer, so any order gives the page count.)
///
/// [`Period::total_weight`]: super::Period::total_weight
pub(crate) fn fresh_weight(stale: &[bool], weights: &[f64]) -> f64 {
    let n = stale.len().min(weights.len());
    let mut lanes = [0.0f64; 4];
    // A stale page adds +0.0, which leaves a lane (never -0.0: it starts at +0.0) as
    // it was: the select costs no mispredicted branch.
    let add = |lane: &mut f64, s: bool, w: f64| *lane += if s { 0.0 } else { w };
    let whole = n / 4 * 4;
    for (s, w) in stale[..whole]
        .chunks_exact(4)
        .zip(weights[..whole].chunks_exact(4))
    {
        for l in 0..4 {
            add(&mut lanes[l], s[l], w[l]);
        }
    }
    for (l, p) in (whole..n).enumerate() {
        add(&mut lanes[l], stale[p], weights[p]);
    }
    (lanes[0] + lanes[1]) + (lanes[2] + lanes[3])
}

/// What a simulator counted in one scored cycle; [`Tally::metrics`] turns it into
/// [`CycleMetrics`] (one definition for both simulators).
pub(crate) struct Tally {
    pub(crate) cycle: usize,
    pub(crate) pages: usize,
    pub(crate) visited: usize,
    pub(crate) stale_before: usize,
    pub(crate) stale_after: usize,
    pub(crate) found: usize,
    pub(crate) newly: usize,
    pub(crate) dcg: f64,
    pub(crate) ideal_dcg: f64,
    /// The weighted sums, when the period has weights.
    pub(crate) weighted: Option<WeightedTally>,
}

/// `a / b`, 0 when `b` is 0.
fn ratio_or_zero(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        0.0
    } else {
        a / b
    }
}

impl Tally {
    /// The metrics; `k` is the budget (ChangeRate divides by it even when a host cap
    /// left the cycle fewer visits).
    pub(crate) fn metrics(&self, k: usize) -> CycleMetrics {
        let k = k as f64;
        let ndcg = ratio_or_zero(self.dcg, self.ideal_dcg);
        let freshness = (self.pages - self.stale_after) as f64 / self.pages as f64;
        let change_rate = self.found as f64 / k;
        let (wndcg, wfreshness, wchange_rate) = match &self.weighted {
            None => (ndcg, freshness, change_rate),
            Some(w) => (
                ratio_or_zero(w.dcg, w.ideal_dcg),
                if w.total == 0.0 {
                    1.0
                } else {
                    w.fresh / w.total
                },
                ratio_or_zero(w.found, w.top),
            ),
        };
        CycleMetrics {
            cycle: self.cycle,
            change_rate,
            wchange_rate,
            ndcg,
            freshness,
            wndcg,
            wfreshness,
            newly_visited: self.newly as f64 / k,
            stale: self.stale_before,
            visited: self.visited,
        }
    }
}

/// The result of one simulation: the metrics of every scored cycle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Outcome {
    /// One entry per scored cycle, in order.
    pub cycles: Vec<CycleMetrics>,
    /// A bandit's arm choice in each scored cycle, in order
    /// (docs/src/reference/bandit.md#the-update; empty for every other policy).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<super::ArmChoice>,
}

impl Outcome {
    /// The per-cycle values of `metric`.
    pub fn values(&self, metric: Metric) -> Vec<f64> {
        self.cycles.iter().map(|c| metric.of(c)).collect()
    }

    /// The mean of `metric` over the scored cycles (the fitness); 0 with no scored cycle.
    pub fn mean(&self, metric: Metric) -> f64 {
        if self.cycles.is_empty() {
            return 0.0;
        }
        let sum: f64 = self.cycles.iter().map(|c| metric.of(c)).sum();
        sum / self.cycles.len() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fresh weight counts every fresh page once, whatever the length (the tail
    /// after the last whole group of four included), and all pages fresh give the sum
    /// the period's total is.
    #[test]
    fn fresh_weight_counts_each_fresh_page_once() {
        for n in 0..10usize {
            let weights: Vec<f64> = (0..n).map(|p| (p * p + 1) as f64).collect();
            let stale: Vec<bool> = (0..n).map(|p| p % 3 == 1).collect();
            let want: f64 = (0..n).filter(|p| p % 3 != 1).map(|p| weights[p]).sum();
            assert_eq!(fresh_weight(&stale, &weights), want, "{n} pages");
            let all: f64 = weights.iter().sum();
            assert_eq!(fresh_weight(&vec![false; n], &weights), all, "{n} pages");
        }
        // Lanes of page order, added pairwise: 0.1 + 0.2 is not 0.3, each lane holds one.
        let w = [0.1, 0.2, 0.3, 0.4, 0.5];
        let lanes: f64 = ((0.1 + 0.5) + 0.2) + (0.3 + 0.4);
        assert_eq!(fresh_weight(&[false; 5], &w).to_bits(), lanes.to_bits());
    }

    #[test]
    fn discount_and_ideal() {
        assert_eq!(discount(1), 1.0);
        assert_eq!(discount(2), 1.0 / 3f64.ln());
        let mut table = Discounts::default();
        table.up_to(3);
        assert_eq!(table.ideal(0), 0.0);
        assert_eq!(table.ideal(1), 1.0);
        assert_eq!(table.ideal(3), 1.0 + 1.0 / 3f64.ln() + 1.0 / 4f64.ln());
        assert_eq!(table.of(3), discount(3));
        table.up_to(2); // never shrinks
        assert_eq!(table.of(3), discount(3));
    }
}
