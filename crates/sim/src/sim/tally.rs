//! A scored cycle's choice as the per-cycle simulators (`fast`, `flat`) count it: what the
//! walk chose so far ([`Chosen`]: pages taken, changes found, DCG), the ideal weighted DCG
//! read off the pages by weight ([`stale_ideal`]) and the other bound of a cycle's weighted
//! sums ([`WeightBounds`]), whether a run tallies weighted sums
//! ([`tallies_weights`]), and the cycle's metrics ([`cycle_tally`]).

use super::metrics::{fresh_weight, Discounts, Tally, WeightedTally};
use super::Period;
use crate::metric::CycleMetrics;
use crate::policy::Policy;

/// What a cycle's walk chose, so far.
#[derive(Default)]
pub(super) struct Chosen {
    pub(super) taken: usize,
    pub(super) found: usize,
    pub(super) newly: usize,
    dcg: f64,
    /// Σ w·g(rank) over the stale pages chosen (docs/src/reference/metrics.md#wndcg), with
    /// weights; read only when the walk tallies weights ([`Walk::weighted`]).
    dcg_w: f64,
    /// Σ w over the stale pages chosen, in rank order (read as `dcg_w` is).
    found_w: f64,
}

impl Chosen {
    /// Counts a stale page at `rank`.
    #[inline]
    pub(super) fn stale_at(&mut self, rank: usize, weight: f64, discounts: &Discounts) {
        self.found += 1;
        self.dcg += discounts.of(rank);
        self.dcg_w += weight * discounts.of(rank);
        self.found_w += weight;
    }

    /// Counts a stale page at `rank` in a walk that tallies no weights (`dcg_w` left).
    #[inline]
    pub(super) fn stale_unweighted_at(&mut self, rank: usize, discounts: &Discounts) {
        self.found += 1;
        self.dcg += discounts.of(rank);
    }
}

/// The ideal weighted DCG of a cycle (docs/src/reference/metrics.md#wndcg): over the
/// weights of the pages stale before the visits (`stale`), the best `m`, read off the pages
/// of `period` in descending weight order ([`Period::by_weight`]) until `m` stale ones are
/// met. The sum runs in that order, as [`weighted_ideal`](super::metrics::weighted_ideal)'s
/// (pages of equal weight add equal terms, in any order), so the value is its bit for bit.
pub(super) fn stale_ideal(
    (stale, period): (&[bool], &Period),
    m: usize,
    discounts: &Discounts,
    ranks: &mut Vec<u32>,
) -> f64 {
    let mut sum = 0.0;
    if m == 0 {
        return sum;
    }
    // First the ranks (in weight order) of the first m stale pages, written without a
    // branch per page (a page's staleness is as good as random, and a branch on it
    // mispredicts half the time), a block of pages at a time; then the sum over them, in
    // the same order as the walk page by page would add it.
    const BLOCK: usize = 1024;
    let order = period.by_weight();
    if ranks.len() < m + BLOCK {
        ranks.resize(m + BLOCK, 0);
    }
    let mut j = 0;
    for (b, block) in order.chunks(BLOCK).enumerate() {
        let base = b * BLOCK;
        for (i, &p) in block.iter().enumerate() {
            ranks[j] = (base + i) as u32;
            j += stale[p as usize] as usize;
        }
        if j >= m {
            break;
        }
    }
    let weights = period.sorted_weights();
    for (n, &r) in ranks[..j.min(m)].iter().enumerate() {
        sum += discounts.of(n + 1) * weights[r as usize];
    }
    sum
}

/// Whether a run tallies its weighted sums: over a weighted period, unless `unweighted`
/// asks to skip them and the policy (no bandit rewarded by them) needs none.
pub(super) fn tallies_weights(period: &Period, policy: &Policy, unweighted: bool) -> bool {
    let needed = !unweighted || matches!(policy, Policy::Bandit(_));
    period.weights().is_some() && needed
}

/// What a weighted cycle's sums are divided by: the ideal weighted DCG of the cycle
/// ([`stale_ideal`]) and the most `k` visits can weigh ([`Period::top_weight`], the same
/// every cycle of a run: computed once per run).
#[derive(Clone, Copy)]
pub(super) struct WeightBounds {
    pub(super) ideal_dcg: f64,
    pub(super) top: f64,
}

/// Cycle `d`'s metrics from what its `chosen` pages found, the stale counts before and
/// after the visits, and (with weights) the bounds of its weighted sums (`None` over a
/// weighted period: the weighted sums were not tallied).
pub(super) fn cycle_tally(
    (d, k, period): (usize, usize, &Period),
    (stale_before, stale_after): (usize, usize),
    chosen: &Chosen,
    bounds: Option<WeightBounds>,
    (stale, discounts): (&[bool], &Discounts),
) -> CycleMetrics {
    let weighted = period.weights().map(|weights| match bounds {
        Some(bounds) => WeightedTally {
            dcg: chosen.dcg_w,
            ideal_dcg: bounds.ideal_dcg,
            fresh: fresh_weight(stale, weights),
            total: period.total_weight(),
            found: chosen.found_w,
            top: bounds.top,
        },
        None => WeightedTally::NOT_TALLIED,
    });
    Tally {
        cycle: d,
        pages: period.pages(),
        visited: chosen.taken,
        stale_before,
        stale_after,
        found: chosen.found,
        newly: chosen.newly,
        dcg: chosen.dcg,
        ideal_dcg: discounts.ideal(stale_before.min(k)),
        weighted,
    }
    .metrics(k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::text;
    use crate::sim::metrics::weighted_ideal;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    /// [`stale_ideal`]'s walk in blocks gives [`weighted_ideal`]'s sum bit for bit: over
    /// several blocks of pages, weights with ties and without, every count of stale pages
    /// around the block size, and one buffer reused from a larger count to a smaller one.
    #[test]
    fn the_ideal_in_blocks_is_the_sorted_sum() {
        let mut rng = Pcg64::seed_from_u64(7);
        let pages = 5_000;
        let lines: String = (0..pages)
            .map(|p| {
                let w: f64 = if p % 3 == 0 {
                    [0.5, 1.0, 2.0][p % 2]
                } else {
                    rng.gen::<f64>() * 10.0
                };
                format!("00\tp{p}\th{}\tweight={w}\n", p % 40)
            })
            .collect();
        let period = Period::whole(&text::read(lines.as_bytes(), "<test>").unwrap()).unwrap();
        let mut discounts = Discounts::default();
        discounts.up_to(pages);
        let mut ranks = Vec::new();
        for share in [0.01, 0.3, 0.9] {
            let stale: Vec<bool> = (0..pages).map(|_| rng.gen::<f64>() < share).collect();
            let count = stale.iter().filter(|&&s| s).count();
            for m in [count, 2049, 1025, 1024, 1023, 7, 1, 0] {
                let m = m.min(count);
                let mut weights: Vec<f64> = (0..pages as u32)
                    .filter(|&p| stale[p as usize])
                    .map(|p| period.weight(p))
                    .collect();
                let expected = weighted_ideal(&mut weights, m, &discounts);
                let got = stale_ideal((&stale, &period), m, &discounts, &mut ranks);
                assert_eq!(got.to_bits(), expected.to_bits(), "share {share}, m {m}");
            }
        }
    }
}
