//! What a crawler saw of each page (docs/src/reference/models.md#observability): which
//! cycles it observed and at which of them it detected a change.
//!
//! *Full* observability sees every cycle of the true history. *Partial* sees the visits
//! of one continuous crawl over all pages by a named policy (the simulation,
//! docs/src/reference/simulation.md, from cycle 1 with its warm-up, `k = resources × P`,
//! run seed 1 unless set): a visit at cycle d detects a change when the page changed at any
//! cycle since its previous visit.
//!
//! ```
//! use freshgp_data::data::Dataset;
//! use freshgp_learn::predict::Observations;
//!
//! let d = Dataset::from_bit_strings(&["0110", "0001"]).unwrap();
//! let full = Observations::full(&d);
//! assert!(full.observed(0, 2) && full.detected(0, 2) && !full.detected(1, 2));
//! ```
//!
//! **Invariant:** a detected cycle is an observed cycle; bits past the last cycle are 0.

use super::PredictError;
use crate::data::Dataset;
use crate::policy::Policy;
use crate::sim::{Period, SimConfig, SimError, Simulator};

/// The crawl whose visits are partial observability unless told otherwise (`model eval`'s
/// `--partial-policy`, the stale model's `--crawl-policy`): `nad` at resources 0.2, a
/// warm-up of 2, run seed 1.
pub fn default_crawl() -> (Policy, SimConfig) {
    // Invariant: DEFAULT_CRAWL_RESOURCES is a valid budget.
    crawl(Policy::from(DEFAULT_CRAWL_POLICY), DEFAULT_CRAWL_RESOURCES)
        .expect("invariant: valid settings")
}

/// The policy of [`default_crawl`].
pub const DEFAULT_CRAWL_POLICY: crate::policy::Baseline = crate::policy::Baseline::Nad;
/// The budget of [`default_crawl`].
pub const DEFAULT_CRAWL_RESOURCES: f64 = 0.2;

/// The crawl of `policy` at `resources` whose visits are partial observability: a warm-up
/// of 2, run seed 1, as [`default_crawl`].
///
/// # Errors
/// A budget outside (0, 1].
pub fn crawl(policy: Policy, resources: f64) -> Result<(Policy, SimConfig), SimError> {
    Ok((policy, SimConfig::new(resources, 2)?.with_seed(1)))
}

/// Per page, the observed cycles and the cycles whose visit detected a change, packed as
/// bits (cycle d is bit `(d - 1) % 64` of word `(d - 1) / 64`).
#[derive(Debug, Clone, PartialEq)]
pub struct Observations {
    pages: usize,
    cycles: usize,
    words: usize,
    observed: Vec<u64>,
    detected: Vec<u64>,
}

impl Observations {
    /// Every cycle observed: the detected changes are the history's changes.
    pub fn full(data: &Dataset) -> Observations {
        let (pages, cycles) = (data.pages(), data.cycles());
        let words = cycles.div_ceil(64).max(1);
        let mut observed = vec![0u64; pages * words];
        for row in observed.chunks_mut(words) {
            for (j, w) in row.iter_mut().enumerate() {
                *w = match cycles.saturating_sub(64 * j) {
                    0 => 0,
                    n if n >= 64 => u64::MAX,
                    n => (1u64 << n) - 1,
                };
            }
        }
        let mut detected = Vec::with_capacity(pages * words);
        for p in 0..pages {
            detected.extend_from_slice(data.row(p));
        }
        Observations {
            pages,
            cycles,
            words,
            observed,
            detected,
        }
    }

    /// The visits of one crawl of every page by `policy` under `config` (the simulation from
    /// cycle 1: the warm-up visits every page, then the top k each cycle).
    pub fn crawl(
        data: &Dataset,
        policy: &Policy,
        config: SimConfig,
    ) -> Result<Observations, PredictError> {
        let (pages, cycles) = (data.pages(), data.cycles());
        let words = cycles.div_ceil(64).max(1);
        let period = Period::whole(data)?;
        let warmup = config.warmup().min(cycles);
        let (_, visits) = Simulator::new(config).run_reference_traced(&period, policy)?;
        let mut out = Observations {
            pages,
            cycles,
            words,
            observed: vec![0; pages * words],
            detected: vec![0; pages * words],
        };
        let mut last = vec![0usize; pages];
        let scored = visits
            .iter()
            .enumerate()
            .map(|(i, v)| (warmup + 1 + i, v.as_slice()));
        let all: Vec<u32> = (0..pages as u32).collect();
        let warm = (1..=warmup).map(|d| (d, all.as_slice()));
        for (d, visited) in warm.chain(scored) {
            for &p in visited {
                let p = p as usize;
                let changed = (last[p] + 1..=d).any(|j| data.changed(p, j));
                out.set(p, d, changed);
                last[p] = d;
            }
        }
        Ok(out)
    }

    /// The same observations with nothing observed of the pages `pages` (cold start: pages
    /// with no history).
    pub fn forgetting(&self, pages: &[u32]) -> Observations {
        let mut out = self.clone();
        for &p in pages {
            let row = p as usize * self.words..(p as usize + 1) * self.words;
            out.observed[row.clone()].fill(0);
            out.detected[row].fill(0);
        }
        out
    }

    /// Nothing observed yet of `pages` pages over `cycles` cycles.
    pub(crate) fn empty(pages: usize, cycles: usize) -> Observations {
        let words = cycles.div_ceil(64).max(1);
        Observations {
            pages,
            cycles,
            words,
            observed: vec![0; pages * words],
            detected: vec![0; pages * words],
        }
    }

    /// Records an observation of page `p` at cycle `d` (1..=cycles) that did or did not
    /// detect a change.
    pub(crate) fn set(&mut self, p: usize, d: usize, changed: bool) {
        let (w, b) = (p * self.words + (d - 1) / 64, 1u64 << ((d - 1) % 64));
        self.observed[w] |= b;
        if changed {
            self.detected[w] |= b;
        }
    }

    /// Number of pages.
    pub fn pages(&self) -> usize {
        self.pages
    }

    /// Number of cycles.
    pub fn cycles(&self) -> usize {
        self.cycles
    }

    /// Whether page `p` was observed at cycle `d` (1-based).
    pub fn observed(&self, p: usize, d: usize) -> bool {
        self.bit(&self.observed, p, d)
    }

    /// Whether the observation of page `p` at cycle `d` detected a change.
    pub fn detected(&self, p: usize, d: usize) -> bool {
        self.bit(&self.detected, p, d)
    }

    fn bit(&self, bits: &[u64], p: usize, d: usize) -> bool {
        d >= 1 && d <= self.cycles && bits[p * self.words + (d - 1) / 64] >> ((d - 1) % 64) & 1 == 1
    }

    /// (observed, detected) cycles of page `p` in `lo..=hi` (1-based, clamped to the history).
    pub fn counts(&self, p: usize, lo: usize, hi: usize) -> (u32, u32) {
        let row = p * self.words..(p + 1) * self.words;
        (
            count_range(&self.observed[row.clone()], lo, hi),
            count_range(&self.detected[row], lo, hi),
        )
    }

    /// The last cycle at or before `d` whose observation of `p` detected a change.
    pub fn last_detected(&self, p: usize, d: usize) -> Option<usize> {
        let row = &self.detected[p * self.words..(p + 1) * self.words];
        let d = d.min(self.cycles);
        if d == 0 {
            return None;
        }
        let (mut w, bit) = ((d - 1) / 64, (d - 1) % 64);
        let mut word = row[w] & (u64::MAX >> (63 - bit));
        loop {
            if word != 0 {
                return Some(64 * w + 64 - word.leading_zeros() as usize);
            }
            if w == 0 {
                return None;
            }
            w -= 1;
            word = row[w];
        }
    }
}

/// Set bits of `row` at cycles `lo..=hi` (1-based; out-of-range cycles count nothing).
fn count_range(row: &[u64], lo: usize, hi: usize) -> u32 {
    let lo = lo.max(1);
    let hi = hi.min(64 * row.len());
    if lo > hi {
        return 0;
    }
    let (a, b) = (lo - 1, hi); // bit range a..b
    let mut total = 0;
    for (w, &word) in row.iter().enumerate().take(b.div_ceil(64)).skip(a / 64) {
        let start = (64 * w).max(a) - 64 * w;
        let end = (64 * w + 64).min(b) - 64 * w;
        let mask = if end - start == 64 {
            u64::MAX
        } else {
            ((1u64 << (end - start)) - 1) << start
        };
        total += (word & mask).count_ones();
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_last_detected_match_a_literal_reading() {
        let bits: String = (0..150)
            .map(|i| if i % 7 == 3 || i == 140 { '1' } else { '0' })
            .collect();
        let d = Dataset::from_bit_strings(&[bits.as_str()]).unwrap();
        let o = Observations::full(&d);
        for lo in [0, 1, 5, 63, 64, 65, 128, 140] {
            for hi in [0, 3, 64, 65, 127, 128, 129, 150, 200] {
                let (n, x) = o.counts(0, lo, hi);
                let cycles = lo.max(1)..=hi.min(150);
                assert_eq!(n as usize, cycles.clone().count(), "{lo} {hi}");
                assert_eq!(
                    x as usize,
                    cycles.filter(|&c| d.changed(0, c)).count(),
                    "{lo} {hi}"
                );
            }
        }
        for at in 0..=160 {
            let want = (1..=at.min(150)).rev().find(|&c| d.changed(0, c));
            assert_eq!(o.last_detected(0, at), want, "{at}");
        }
    }

    #[test]
    fn a_crawl_detects_changes_at_its_visits() {
        // Two pages, k = 1 after a one-cycle warm-up: NAD visits the page that changed.
        let d = Dataset::from_bit_strings(&["11000", "00110"]).unwrap();
        let config = SimConfig::new(0.5, 1).unwrap().with_seed(1);
        let o =
            Observations::crawl(&d, &Policy::from(crate::policy::Baseline::Nad), config).unwrap();
        assert!(o.observed(0, 1) && o.observed(1, 1));
        let visits: usize = (0..2)
            .map(|p| (1..=5).filter(|&c| o.observed(p, c)).count())
            .sum();
        assert_eq!(
            visits,
            2 + 4,
            "the warm-up sees both pages, then one page a cycle"
        );
        // Each detected change is a change since the page's previous visit.
        for p in 0..2 {
            let mut last = 0;
            for c in 1..=5 {
                if o.observed(p, c) {
                    let changed = (last + 1..=c).any(|j| d.changed(p, j));
                    assert_eq!(o.detected(p, c), changed, "page {p} cycle {c}");
                    last = c;
                } else {
                    assert!(!o.detected(p, c));
                }
            }
        }
        // Every cycle one page is visited after the warm-up.
        for c in 2..=5 {
            assert_eq!((0..2).filter(|&p| o.observed(p, c)).count(), 1, "cycle {c}");
        }
    }
}
