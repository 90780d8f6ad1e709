//! The slice of a change history one simulation runs over: a set of pages and a period.
//!
//! [`Period::new`] extracts, once, the change events of the chosen pages inside the chosen
//! cycles, renumbered `1..=len` (each simulation starts fresh at the start of its period:
//! docs/src/reference/folds.md#periods). A GP run simulates thousands of formulas over the
//! same period, so everything per-period is computed here and nothing per formula.
//!
//! A period also carries its pages' weights (docs/src/reference/data.md#page-weights; only
//! when the dataset has any), their latent change probabilities (only when the dataset
//! records them: what the `oracle` policy reads,
//! docs/src/reference/data.md#latent-change-probabilities) and hosts, renumbered densely `0..hosts()` in order of first
//! appearance (for `HR`, the host cap and reports), and their groups for `GR` (the data's
//! grouping attribute, [`Dataset::group_by`]; the hosts when it has none), renumbered the
//! same way.

use crate::data::split::{Set, Split};
use crate::data::Dataset;
use crate::policy::{PageState, Policy, Surroundings, Track, NO_GROUP, NO_HOST};
use rustc_hash::FxHashMap as HashMap;
use std::ops::RangeInclusive;
use std::sync::OnceLock;

/// Why a period cannot be simulated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PeriodError {
    /// No page to simulate.
    #[error("the page set is empty")]
    NoPages,
    /// The cycles fall outside the dataset.
    #[error("cycles {start}..={end} are not inside the dataset's 1..={cycles}")]
    Cycles {
        /// First cycle asked for.
        start: usize,
        /// Last cycle asked for.
        end: usize,
        /// Cycles in the dataset.
        cycles: usize,
    },
    /// A page index is out of range.
    #[error("page {page} is not in the dataset ({pages} pages)")]
    Page {
        /// The index.
        page: u32,
        /// Pages in the dataset.
        pages: usize,
    },
    /// The rotation's split cannot be made.
    #[error(transparent)]
    Split(#[from] crate::data::split::SplitError),
}

/// The change events of a page set within one period, ready to simulate.
#[derive(Debug, Clone)]
pub struct Period {
    pages: usize,
    len: usize,
    /// Pages (local indices) changing in cycle `d` are `events[offsets[d]..offsets[d + 1]]`.
    offsets: Vec<u32>,
    events: Vec<u32>,
    /// Each page's weight, when the dataset has weights.
    weights: Option<Vec<f64>>,
    /// Each page's latent change probability, when the dataset records them.
    latent: Option<Vec<f64>>,
    /// Σ of the weights, as [`fresh_weight`](super::metrics::fresh_weight) sums them.
    total_weight: f64,
    /// [`Period::distinct_weighted`] of a policy that reads neither hosts' nor groups'
    /// rates, hosts', groups', or both, computed when first asked.
    distinct_weighted: [OnceLock<usize>; 4],
    /// The pages by descending weight (ties by page), empty without weights: the ideal
    /// weighted DCG reads the heaviest stale pages off it.
    by_weight: Vec<u32>,
    /// The weights in that order (`weight(by_weight[i])`), read in sequence.
    sorted_weights: Vec<f64>,
    /// Each page's host (dense local index), or [`NO_HOST`].
    hosts: Vec<u32>,
    host_count: usize,
    /// Each page's group (dense local index), or [`NO_GROUP`]; `None`: grouped by host.
    groups: Option<Vec<u32>>,
    group_count: usize,
    /// The attribute the pages are grouped by; `None`: the host.
    grouping: Option<String>,
}

impl Period {
    /// The pages `pages` (dataset indices; local index = position in this list) over the
    /// dataset cycles `cycles` (1-based, inclusive). Unknown cycles read as no change.
    pub fn new(
        dataset: &Dataset,
        pages: &[u32],
        cycles: RangeInclusive<usize>,
    ) -> Result<Period, PeriodError> {
        let (start, end) = (*cycles.start(), *cycles.end());
        if pages.is_empty() {
            return Err(PeriodError::NoPages);
        }
        if start < 1 || end > dataset.cycles() || start > end {
            return Err(PeriodError::Cycles {
                start,
                end,
                cycles: dataset.cycles(),
            });
        }
        if let Some(&page) = pages.iter().find(|&&p| p as usize >= dataset.pages()) {
            return Err(PeriodError::Page {
                page,
                pages: dataset.pages(),
            });
        }
        let len = end - start + 1;
        let mut by_cycle: Vec<Vec<u32>> = vec![Vec::new(); len + 1];
        for (local, &page) in pages.iter().enumerate() {
            let row = dataset.row(page as usize);
            for (d, list) in by_cycle.iter_mut().enumerate().skip(1) {
                let k = start + d - 2;
                if row[k / 64] >> (k % 64) & 1 == 1 {
                    list.push(local as u32);
                }
            }
        }
        let weights = dataset.has_weights().then(|| {
            pages
                .iter()
                .map(|&p| dataset.weight(p as usize))
                .collect::<Vec<f64>>()
        });
        let latent = dataset.has_latent().then(|| {
            pages
                .iter()
                .filter_map(|&p| dataset.latent(p as usize))
                .collect::<Vec<f64>>()
        });
        let total_weight = match &weights {
            // Summed as the simulators sum the fresh pages' weights.
            Some(w) => super::metrics::fresh_weight(&vec![false; w.len()], w),
            None => pages.len() as f64,
        };
        let mut by_weight: Vec<u32> = Vec::new();
        if let Some(w) = &weights {
            by_weight.extend(0..pages.len() as u32);
            by_weight.sort_by(|&a, &b| w[b as usize].total_cmp(&w[a as usize]).then(a.cmp(&b)));
        }
        let sorted_weights = match &weights {
            Some(w) => by_weight.iter().map(|&p| w[p as usize]).collect(),
            None => Vec::new(),
        };
        let (hosts, host_count) = renumber(pages, NO_HOST, |p| dataset.named_host(p));
        let (groups, group_count) = match dataset.grouping() {
            None => (None, host_count),
            Some(_) => {
                let (groups, count) = renumber(pages, NO_GROUP, |p| dataset.group(p));
                (Some(groups), count)
            }
        };
        let mut offsets = Vec::with_capacity(len + 2);
        let mut events = Vec::with_capacity(by_cycle.iter().map(Vec::len).sum());
        offsets.push(0);
        for list in &by_cycle {
            events.extend_from_slice(list);
            offsets.push(events.len() as u32);
        }
        Ok(Period {
            pages: pages.len(),
            len,
            offsets,
            events,
            weights,
            latent,
            total_weight,
            distinct_weighted: Default::default(),
            by_weight,
            sorted_weights,
            hosts,
            host_count,
            groups,
            group_count,
            grouping: dataset.grouping().map(str::to_string),
        })
    }

    /// A period over all pages and cycles of `dataset`.
    pub fn whole(dataset: &Dataset) -> Result<Period, PeriodError> {
        let pages: Vec<u32> = (0..dataset.pages() as u32).collect();
        Period::new(dataset, &pages, 1..=dataset.cycles())
    }

    /// The period `set` names: a set of `rotation` (its pages over its cycles), or every
    /// page over every cycle (`rotation` is then unused).
    ///
    /// # Errors
    /// A rotation outside 0..=4, a dataset too small to split, or an empty set.
    pub fn of_set(dataset: &Dataset, set: Set, rotation: usize) -> Result<Period, PeriodError> {
        if set == Set::All {
            return Period::whole(dataset);
        }
        let split = Split::new(dataset.pages(), dataset.cycles(), rotation)?;
        let (pages, cycles) = match set {
            Set::Train => (&split.train, split.train_cycles.clone()),
            Set::Validation => (&split.validation, split.validation_cycles.clone()),
            Set::Test | Set::All => (&split.test, split.test_cycles.clone()),
        };
        Period::new(dataset, pages, cycles)
    }

    /// Number of pages simulated.
    pub fn pages(&self) -> usize {
        self.pages
    }

    /// Number of cycles, `L`.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always false: a period has at least one cycle.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The weights of the pages, when the dataset has weights (else every weight is 1).
    pub fn weights(&self) -> Option<&[f64]> {
        self.weights.as_deref()
    }

    /// The weight of page `p` (local index).
    #[inline]
    pub fn weight(&self, p: u32) -> f64 {
        self.weights.as_ref().map_or(1.0, |w| w[p as usize])
    }

    /// Whether the pages' latent change probabilities are known (a synthetic history's).
    pub fn has_latent(&self) -> bool {
        self.latent.is_some()
    }

    /// The latent change probability of page `p` (local index; 0 when unknown).
    #[inline]
    pub fn latent(&self, p: u32) -> f64 {
        self.latent.as_ref().map_or(0.0, |q| q[p as usize])
    }

    /// A fresh page state of `policy` for page `p` (local index): never visited, with
    /// the page's weight, host, group and latent change probability, each kept only if
    /// the policy reads it.
    pub fn fresh_page(&self, policy: &Policy, p: u32) -> PageState {
        let mut page = policy.fresh_page_of(self.weight(p), self.host(p), self.group(p));
        page.stats.set_latent(self.latent(p));
        page
    }

    /// Number of distinct (weight, host, group) of the pages, with the host only when
    /// `track` has [`Track::HOST`] and the group only when it has [`Track::GROUP`], as a
    /// page's state holds them (1 without weights): whether pages can share a state when
    /// a policy reads their weights and their hosts' or groups' rates (`HR`, `GR`), which
    /// only pages of one host (group) share. Without either, the number of distinct
    /// weights. Computed when first asked.
    pub(crate) fn distinct_weighted(&self, track: Track) -> usize {
        let (host, group) = (track.has(Track::HOST), track.has(Track::GROUP));
        let Some(weights) = &self.weights else {
            return 1;
        };
        let slot = usize::from(host) + 2 * usize::from(group);
        *self.distinct_weighted[slot].get_or_init(|| {
            distinct(weights.iter().enumerate().map(|(p, w)| {
                let host = if host { self.host(p as u32) } else { NO_HOST };
                let group = if group {
                    self.group(p as u32)
                } else {
                    NO_GROUP
                };
                u128::from(w.to_bits()) << 64 | u128::from(host) << 32 | u128::from(group)
            }))
        })
    }

    /// The pages by descending weight, ties by page (empty without weights).
    pub(crate) fn by_weight(&self) -> &[u32] {
        &self.by_weight
    }

    /// The weights in the order of [`Period::by_weight`] (empty without weights).
    pub(crate) fn sorted_weights(&self) -> &[f64] {
        &self.sorted_weights
    }

    /// Σ of the `k` largest weights, added in descending order (`k` without weights): the
    /// most any `k` visits can weigh (docs/src/reference/metrics.md#weighted-change-rate).
    pub(crate) fn top_weight(&self, k: usize) -> f64 {
        match &self.weights {
            None => k as f64,
            Some(_) => self.sorted_weights.iter().take(k).sum(),
        }
    }

    /// Σ of the weights of all pages (summed in the simulators' order of the fresh
    /// pages' weights, four interleaved lanes: with every page fresh, WFreshness is 1).
    pub fn total_weight(&self) -> f64 {
        self.total_weight
    }

    /// The host of page `p` (local index), a dense index below [`Period::hosts`], or
    /// [`NO_HOST`](crate::policy::NO_HOST).
    #[inline]
    pub fn host(&self, p: u32) -> u32 {
        self.hosts[p as usize]
    }

    /// Number of distinct hosts of the pages.
    pub fn hosts(&self) -> usize {
        self.host_count
    }

    /// The group of page `p` (local index) for `GR`, a dense index below
    /// [`Period::groups`], or [`NO_GROUP`](crate::policy::NO_GROUP).
    #[inline]
    pub fn group(&self, p: u32) -> u32 {
        match &self.groups {
            Some(groups) => groups[p as usize],
            None => self.hosts[p as usize],
        }
    }

    /// Number of distinct groups of the pages.
    pub fn groups(&self) -> usize {
        self.group_count
    }

    /// The attribute the pages are grouped by for `GR` (the data's
    /// [`Dataset::grouping`](crate::data::Dataset::grouping)); `None`: the host.
    pub fn grouping(&self) -> Option<&str> {
        self.grouping.as_deref()
    }

    /// The surroundings at the start of a run that visits `k` of these pages a cycle and
    /// whose pages keep `track`: empty host and group totals (tables only for what its
    /// terminals read: `HR`, `GR`) and the budget `b = k / pages`.
    pub fn surroundings(&self, track: Track, k: usize) -> Surroundings {
        let size = |kept: Track, n: usize| if track.has(kept) { n } else { 0 };
        Surroundings::new(
            size(Track::HOST, self.hosts()),
            size(Track::GROUP, self.groups()),
        )
        .with_budget(k, self.pages())
    }

    /// Local indices of the pages whose content changed in cycle `d` (1-based).
    pub fn changes(&self, d: usize) -> &[u32] {
        &self.events[self.offsets[d] as usize..self.offsets[d + 1] as usize]
    }
}

/// Each page's `of(page)` renumbered densely in order of first appearance (`none` where
/// it has none), and how many there are.
fn renumber(pages: &[u32], none: u32, of: impl Fn(usize) -> Option<u32>) -> (Vec<u32>, usize) {
    let mut local: HashMap<u32, u32> = HashMap::default();
    let dense = pages
        .iter()
        .map(|&p| match of(p as usize) {
            Some(g) => {
                let next = local.len() as u32;
                *local.entry(g).or_insert(next)
            }
            None => none,
        })
        .collect();
    (dense, local.len())
}

/// Number of distinct `keys` (weights by their bits, with hosts and groups beside them).
fn distinct<K: Ord>(keys: impl Iterator<Item = K>) -> usize {
    let mut keys: Vec<K> = keys.collect();
    keys.sort_unstable();
    keys.dedup();
    keys.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_renumbered_within_the_period() {
        let d = Dataset::from_bit_strings(&["100100", "010010", "000001"]).unwrap();
        let p = Period::new(&d, &[2, 0], 4..=6).unwrap();
        assert_eq!((p.pages(), p.len()), (2, 3));
        assert_eq!(p.changes(1), &[1]); // dataset page 0 changed at cycle 4
        assert_eq!(p.changes(2), &[] as &[u32]);
        assert_eq!(p.changes(3), &[0]); // dataset page 2 at cycle 6
    }

    #[test]
    fn bad_requests_are_errors() {
        let d = Dataset::from_bit_strings(&["0101"]).unwrap();
        assert_eq!(
            Period::new(&d, &[], 1..=4).unwrap_err(),
            PeriodError::NoPages
        );
        assert!(matches!(
            Period::new(&d, &[0], 2..=5),
            Err(PeriodError::Cycles { .. })
        ));
        assert!(matches!(
            Period::new(&d, &[1], 1..=4),
            Err(PeriodError::Page { page: 1, .. })
        ));
    }
}
