//! Scheduling a live crawl with a scoring formula: the simulation's ranking, for real.
//!
//! A [`Scheduler`] holds what a crawler knows about each of its pages — the SPEC §4
//! statistics ([`PageStats`]) and the policy's memory of it ([`PageState`]) — keyed by the
//! crawler's own page ids, and ranks them with a [`Policy`] (an evolved formula, a
//! baseline, adaptive intervals) exactly as the simulation does:
//!
//! * [`Scheduler::add`] / [`Scheduler::add_with_host`] / [`Scheduler::add_weighted`] /
//!   [`Scheduler::remove`] keep the page set; [`Scheduler::set_host`] and
//!   [`Scheduler::set_weight`] change a page's host and weight (SPEC §8);
//! * [`Scheduler::observe`] records a download at a cycle that did or did not find the
//!   page changed ([`Policy::visit`]);
//! * [`Scheduler::next_batch`] returns the `k` best-scoring pages for a cycle, best first;
//!   [`Scheduler::next_batch_capped`] also keeps at most `m` pages of one host per batch;
//!   [`Scheduler::next_batch_sampled`] draws the `k` pages instead (SPEC §11);
//! * [`Scheduler::save`] / [`Scheduler::load`] keep the state across restarts ([`state`]);
//! * [`log`] reads observation logs (`page<TAB>cycle<TAB>0|1[<TAB>host[<TAB>weight]]`);
//! * [`sql`] writes the batch as one SQL query over a table of those observations, for
//!   crawlers whose history lives in a warehouse (`freshgp schedule --emit-sql`).
//!
//! ```
//! use freshgp::formula::{Closure, Formula};
//! use freshgp::schedule::Scheduler;
//! use freshgp::policy::Policy;
//!
//! let formula: Formula = "X / n * t".parse()?;
//! let mut s: Scheduler = Scheduler::new(Policy::formula(&formula, Closure::Paper));
//! for page in ["a", "b", "c"] {
//!     s.add(page.to_string())?;
//! }
//! // Cycle 1: every page downloaded; only b had changed.
//! s.observe("a", 1, false)?;
//! s.observe("b", 1, true)?;
//! s.observe("c", 1, false)?;
//! assert_eq!(s.next_batch(2, 1)?, ["b"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Semantics
//!
//! * **Cycles** are the crawler's, numbered from 1 and growing. A page's observations must
//!   come at increasing cycles; a batch for cycle `d` ranks the state as it is, with
//!   `t = d - last_visit`, and `d` must be after every observation so far (the batch of a
//!   cycle is decided before its downloads). A page added but never observed has
//!   `last_visit = 0`, so its age is the cycle number itself (as in the simulation,
//!   where every page starts at 0).
//! * **Ranking** is the simulation's (SPEC §3): descending score, NaN last, equal scores
//!   in the seeded pseudo-random order of (seed, cycle) applied to the page's *slot* — the
//!   dense index it got when added (0, 1, 2, ... in insertion order). Added in a dataset's
//!   order and fed the simulation's visits, a scheduler returns exactly the pages the
//!   simulation visits each cycle, in the same order (tested on a real file).
//! * **Removal** leaves a hole: the other pages keep their slots (so their tie order is
//!   unchanged), and the next page added takes the most recently freed slot.
//! * **SPEC §8 statistics** are kept as the simulation keeps them, for the terminals the
//!   policy reads ([`Policy::fresh_page_of`], [`Track`]): every page has a **weight**
//!   (default 1; finite and >= 0, else [`ScheduleError::Weight`]), held in its statistics
//!   when the policy reads `w` (a new weight moves the page to the group of its new
//!   state), and kept by the scheduler (and its state file) whatever the policy. **`HR`**
//!   reads the Σ X / Σ n of the page's host over the host's *current* pages
//!   ([`HostRates`], kept for every policy): adding, observing, removing a page or moving
//!   it to another host ([`Scheduler::set_host`]) updates the totals of the hosts
//!   concerned; a page without a host is its own host. When the policy reads `HR`, a
//!   page's statistics hold its host (the scheduler's host index), so pages are grouped
//!   per host. `n7`, `X7` and `MLE` need only [`Scheduler::observe`] (through
//!   [`Policy::visit`] with the scheduler's [`Histories`]).
//! * **Host cap** ([`Scheduler::next_batch_capped`]): walking the ranking best first, a page
//!   whose host already has `m` pages in the batch is skipped and the next-ranked pages
//!   (of other hosts) fill its place; pages without a host are never capped. If the cap
//!   leaves too few eligible pages, the batch is shorter than `k`.
//! * **Sampled batches** ([`Scheduler::next_batch_sampled`]) are the simulation's sampled
//!   decision ([`crate::sim::Decision::Sample`], SPEC §11): exactly `k` pages drawn by
//!   systematic sampling in slot order with inclusion probabilities from the scores (a
//!   rate policy's rate ρ), the uniform drawn from (seed, cycle). The scheduler's seed is
//!   the run seed: fed the simulation's visits, it draws the simulation's pages. Each
//!   page's inclusion probability comes with it ([`Pick::probability`]), for estimates
//!   that weigh a visited page by 1/π. A host cap is refused with sampling, as in the
//!   simulation.
//!
//! ## Speed
//!
//! Statistics are interned: pages with equal [`PageStats`] share a group, so a batch
//! scores each distinct statistics once (the compiled formula over columns). It then
//! finds the score threshold of rank `k` from the sizes of the `k` best groups (selected
//! in linear time, then sorted), gathers with one pass over
//! the pages those strictly above it and those tied at it, selects among the tied ones by
//! tie key (`select_nth_unstable`, linear) and sorts only the `k` chosen:
//! O(P + G + k log k) for P pages and G distinct statistics. With a host cap, if
//! the first `k` ranks do not fill the batch the prefix considered doubles until it does.
//!
//! **Invariant:** this layer uses `formula`, `eval` and `sim` (the terminals, scores and
//! ranking keys are the simulation's own); nothing below it uses it.

mod attributes;
mod bandit;
mod groups;
mod lock;
pub mod log;
mod saved;
pub mod sql;
pub mod state;

use crate::metric::Metric;
use crate::policy::{Histories, HostRates, Track};
use crate::policy::{PageState, PageStats, Policy, ScoreBuffers};
use crate::sim::Decision;
use crate::sim::{inclusion_scale, sample_u, settle, weight_of, Systematic};
use crate::sim::{score_key, tie_key, tie_salt};
use bandit::LiveBandit;
use groups::Groups;
use rustc_hash::FxHashMap as HashMap;
use serde::Serialize;
use std::borrow::Borrow;
use std::fmt::Debug;
use std::hash::Hash;

pub use lock::{LockError, StateLock};
pub use state::StateError;

/// Marks a free slot (in `group_of`) or a page without host (in `host_of`).
const NONE: u32 = u32::MAX;

/// Why a scheduler operation was refused (the state is unchanged).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    /// The page is not in the scheduler.
    #[error("page {0} is not scheduled (add it first)")]
    UnknownPage(String),
    /// The page is already in the scheduler.
    #[error("page {0} is already scheduled")]
    DuplicatePage(String),
    /// An observation at a cycle not after the page's last one.
    #[error(
        "page {page}: observation at cycle {cycle} is not after its last observation \
         (cycle {last}; cycles start at 1)"
    )]
    CycleNotAfter {
        /// The page.
        page: String,
        /// The cycle given.
        cycle: u32,
        /// The page's last observed cycle (0: never).
        last: u32,
    },
    /// A batch asked for a cycle not after the latest observation.
    #[error(
        "a batch for cycle {cycle} must come after the latest observation (cycle {latest}): \
         batches rank the state before the cycle's downloads"
    )]
    BatchCycle {
        /// The cycle asked for.
        cycle: u32,
        /// The latest observed cycle.
        latest: u32,
    },
    /// A host cap of 0 would refuse every page of a host (SPEC §8: a cap must be >= 1).
    #[error("a host cap must be at least 1 (a cap of 0 would crawl no page of any host)")]
    ZeroHostCap,
    /// A page weight that is not a finite number >= 0 (SPEC §8).
    #[error("page {page}: weight {weight} must be a finite number >= 0")]
    Weight {
        /// The page.
        page: String,
        /// The weight given, as text.
        weight: String,
    },
    /// Too many pages for 32-bit slots.
    #[error("more than {} pages", u32::MAX - 1)]
    Full,
    /// A bandit's batch asked for a cycle before its pending batch's.
    #[error(
        "a batch for cycle {cycle} comes before the pending batch of cycle {pending}: a \
         bandit's batches go forward in time (its reward is counted by cycle)"
    )]
    BanditCycle {
        /// The cycle asked for.
        cycle: u32,
        /// The pending batch's cycle.
        pending: u32,
    },
    /// A sampled batch under a host cap (SPEC §11 defines the draw without one).
    #[error(
        "a sampled batch cannot be host-capped: the draw fixes each page's inclusion \
         probability, which a cap would change (use top-k batches with a host cap)"
    )]
    SampleWithCap,
    /// A bandit rewarded by a metric a crawler cannot observe.
    #[error(
        "a bandit in a live crawl can be rewarded by changerate only (a crawler cannot \
         observe {0}, which needs the pages it did not download): write `reward: changerate`"
    )]
    Reward(&'static str),
    /// A bad attribute key or value (SPEC §12), with the reason.
    #[error("{0}")]
    Attribute(String),
    /// A learned model reads the group rate of an attribute the pages are not grouped by
    /// (`schedule --group KEY` groups them).
    #[error(transparent)]
    Grouping(#[from] crate::policy::GroupingError),
}

/// A score as JSON: the number when finite, else `"inf"` or `"-inf"` (JSON has no
/// infinity, and `null` would read as "no score").
fn score_json<S: serde::Serializer>(score: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    match *score {
        s if s.is_finite() => serializer.serialize_f64(s),
        s if s > 0.0 => serializer.serialize_str("inf"),
        _ => serializer.serialize_str("-inf"),
    }
}

/// One page of a batch.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pick<K> {
    /// The page.
    pub page: K,
    /// Its score (serialized as a number, or as the string `"inf"` / `"-inf"`: a formula
    /// can overflow, and JSON has no infinity; never NaN).
    #[serde(serialize_with = "score_json")]
    pub score: f64,
    /// Its weight (SPEC §8).
    pub weight: f64,
    /// Its inclusion probability π in a sampled batch (SPEC §11; 1 for a page taken for
    /// sure), `None` in a top-k batch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probability: Option<f64>,
}

/// A crawler's pages, their statistics and the rule that ranks them.
///
/// `K` is the crawler's page id (`String` by default; any `Hash + Eq + Clone + Debug`
/// type, and `Serialize`/`Deserialize` to save and load). See the [module docs](self)
/// for the semantics of cycles, ties, removal and the host cap.
#[derive(Debug, Clone)]
pub struct Scheduler<K = String> {
    policy: Policy,
    seed: u64,
    latest: u32,
    /// Slot → page id (`None`: a free slot).
    ids: Vec<Option<K>>,
    index: HashMap<K, u32>,
    /// Slot → group (NONE: a free slot).
    group_of: Vec<u32>,
    /// Free slots; the last one is reused first.
    free: Vec<u32>,
    /// Slot → host (NONE: no host).
    host_of: Vec<u32>,
    /// Slot → weight (SPEC §8; 1 for free slots), whether or not the policy reads it.
    weight_of: Vec<f64>,
    /// The SPEC §8 statistics the policy reads (what its pages' statistics keep).
    track: Track,
    host_names: Vec<String>,
    host_index: HashMap<String, u32>,
    groups: Groups,
    /// The interned visit intervals of the pages (SPEC §8 `MLE`).
    histories: Histories,
    /// Σ X and Σ n of each host's current pages (SPEC §8 `HR`), whatever the policy, and
    /// of each rate group's (`GR`).
    host_rates: HostRates,
    /// The pages' categorical attributes (SPEC §12).
    attributes: attributes::Attributes,
    /// The attribute (a column of `attributes`) pages are grouped by for `GR`; `None`:
    /// the host.
    grouping: Option<usize>,
    /// A bandit policy's weights and pending batch (SPEC §10).
    bandit: Option<LiveBandit>,
    work: Work,
}

/// Reusable buffers of `next_batch`.
#[derive(Debug, Clone, Default)]
struct Work {
    buffers: ScoreBuffers,
    live: Vec<u32>,
    live_pages: Vec<PageState>,
    live_scores: Vec<f64>,
    /// Group → (score key, score), valid for live groups.
    group_key: Vec<u64>,
    group_score: Vec<f64>,
    /// Live groups by descending score key: (key, pages).
    ranked: Vec<(u64, u32)>,
    /// (score key, tie key, slot) of the pages considered.
    chosen: Vec<(u64, u64, u32)>,
    /// (tie key, slot) of the pages tied at the threshold.
    tied: Vec<(u64, u32)>,
    host_count: Vec<u32>,
    /// A sampled batch's positive sampling weights with their numbers of pages.
    classes: Vec<(f64, u64)>,
    /// A sampled batch's drawn slots.
    drawn: Vec<u32>,
    /// How the latest batch was decided.
    decided: Decided,
}

/// How a batch was decided (for its pages' inclusion probabilities).
#[derive(Debug, Clone, Copy, Default)]
enum Decided {
    /// The top k.
    #[default]
    TopK,
    /// Sampled, but at most k pages had a positive score: the top k, each for sure.
    Certain,
    /// Drawn with this draw's probabilities.
    Drawn(Systematic),
}

impl<K: Hash + Eq + Clone + Debug> Scheduler<K> {
    /// An empty scheduler ranking by `policy`, with tie-break seed 0 (the simulation's
    /// default).
    pub fn new(policy: Policy) -> Scheduler<K> {
        Scheduler {
            track: policy.features().track(),
            bandit: policy.bandit().map(LiveBandit::new),
            policy,
            seed: 0,
            latest: 0,
            ids: Vec::new(),
            index: HashMap::default(),
            group_of: Vec::new(),
            free: Vec::new(),
            host_of: Vec::new(),
            weight_of: Vec::new(),
            host_names: Vec::new(),
            host_index: HashMap::default(),
            groups: Groups::default(),
            histories: Histories::default(),
            host_rates: HostRates::default(),
            attributes: attributes::Attributes::default(),
            grouping: None,
            work: Work::default(),
        }
    }

    /// Checks that `policy` can rank a live crawl: a bandit must be rewarded by the
    /// change rate (or name no reward metric), the one a crawler observes.
    pub fn check_policy(policy: &Policy) -> Result<(), ScheduleError> {
        match policy.bandit().and_then(|b| b.reward()) {
            Some(metric) if metric != Metric::ChangeRate => {
                Err(ScheduleError::Reward(metric.name()))
            }
            _ => Ok(()),
        }
    }

    /// A bandit policy's latest draw: the arm that ranked the batch of the pending cycle
    /// and every arm's probability then (`None` for other policies, or before a batch).
    pub fn drawn(&self) -> Option<(u32, usize, &[f64])> {
        let pending = self.bandit.as_ref()?.pending.as_ref()?;
        Some((pending.cycle, pending.arm as usize, &pending.q))
    }

    /// A bandit policy's batch rewarded last in this process: (cycle, arm, change rate,
    /// downloads reported that found a change, downloads reported, batch size `k`).
    pub fn settled(&self) -> Option<(u32, usize, f64, u32, u32, u32)> {
        let p = self.bandit.as_ref()?.settled.as_ref()?;
        let rate = p.found as f64 / p.k.max(1) as f64;
        Some((p.cycle, p.arm as usize, rate, p.found, p.observed, p.k))
    }

    /// A bandit policy's arm weights, in log space.
    pub fn bandit_log_weights(&self) -> Option<&[f64]> {
        Some(self.bandit.as_ref()?.state.log_weights())
    }

    /// The same scheduler with another tie-break seed (the simulation's `--tie-seed`).
    pub fn with_seed(mut self, seed: u64) -> Scheduler<K> {
        self.seed = seed;
        self
    }

    /// The ranking policy.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The tie-break seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The latest cycle observed (0: none yet).
    pub fn latest_cycle(&self) -> u32 {
        self.latest
    }

    /// Number of pages scheduled.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether no page is scheduled.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Number of distinct statistics among the pages (what a batch scores).
    pub fn distinct_stats(&self) -> usize {
        self.groups.live()
    }

    /// Whether `page` is scheduled.
    pub fn contains<Q>(&self, page: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.index.contains_key(page)
    }

    /// The page's statistics.
    pub fn stats<Q>(&self, page: &Q) -> Option<&PageStats>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let slot = *self.index.get(page)?;
        Some(&self.groups.pages[self.group_of[slot as usize] as usize].stats)
    }

    /// The page's state: statistics and the policy's memory of it.
    pub fn state<Q>(&self, page: &Q) -> Option<&PageState>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let slot = *self.index.get(page)?;
        Some(&self.groups.pages[self.group_of[slot as usize] as usize])
    }

    /// The page's host, if it has one.
    pub fn host<Q>(&self, page: &Q) -> Option<&str>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let slot = *self.index.get(page)?;
        match self.host_of[slot as usize] {
            NONE => None,
            h => Some(&self.host_names[h as usize]),
        }
    }

    /// The page's slot: its tie-break index (see the module docs).
    pub fn slot<Q>(&self, page: &Q) -> Option<u32>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.index.get(page).copied()
    }

    /// The scheduled pages, in slot order.
    pub fn pages(&self) -> impl Iterator<Item = &K> {
        self.ids.iter().flatten()
    }

    /// The page's weight (SPEC §8; 1 unless set).
    pub fn weight<Q>(&self, page: &Q) -> Option<f64>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let slot = *self.index.get(page)?;
        Some(self.weight_of[slot as usize])
    }

    /// The totals of each host's current pages that `HR` reads (SPEC §8).
    pub fn host_rates(&self) -> &HostRates {
        &self.host_rates
    }

    /// The page's value of the attribute `key` (SPEC §12), if it has one.
    pub fn attribute<Q>(&self, page: &Q, key: &str) -> Option<&str>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let slot = *self.index.get(page)?;
        self.attributes.value(key, slot as usize)
    }

    /// The page's attributes, `(key, value)` in the order the keys were first set.
    pub fn attributes<Q>(&self, page: &Q) -> Vec<(&str, &str)>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        match self.index.get(page) {
            Some(&slot) => self.attributes.of(slot as usize).collect(),
            None => Vec::new(),
        }
    }

    /// Sets (or, with `None`, clears) the page's value of the attribute `key` (SPEC §12);
    /// when the pages are grouped by `key`, its visits and changes move to its new
    /// group's totals (`GR`).
    pub fn set_attribute<Q>(
        &mut self,
        page: &Q,
        key: &str,
        value: Option<&str>,
    ) -> Result<(), ScheduleError>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + Debug + ?Sized,
    {
        let slot = self.slot_of(page)? as usize;
        let bad = |why: String| ScheduleError::Attribute(format!("page {page:?}: {why}"));
        let c = self
            .attributes
            .column_or_add(key, self.ids.len())
            .map_err(bad)?;
        let (old, new) = self.attributes.set(c, slot, value).map_err(bad)?;
        if self.grouping == Some(c) && old != new {
            self.move_rate_group(slot, old, new);
        }
        Ok(())
    }

    /// Groups the pages by the attribute `key` for `GR` (`None` or `"host"`: by host, the
    /// default, where `GR` is `HR`); every group's totals are recomputed from its pages.
    pub fn group_by(&mut self, key: Option<&str>) -> Result<(), ScheduleError> {
        self.grouping = match key {
            None | Some("host") => None,
            Some(key) => Some(
                self.attributes
                    .column_or_add(key, self.ids.len())
                    .map_err(ScheduleError::Attribute)?,
            ),
        };
        self.regroup();
        Ok(())
    }

    /// The attribute pages are grouped by for `GR`, `None` for the host.
    pub fn grouping(&self) -> Option<&str> {
        self.grouping
            .map(|c| self.attributes.columns()[c].name.as_str())
    }

    /// The interned visit intervals the pages' statistics point into (SPEC §8 `MLE`).
    pub fn histories(&self) -> &Histories {
        &self.histories
    }

    /// Adds a page without host, of weight 1, never observed.
    pub fn add(&mut self, page: K) -> Result<u32, ScheduleError> {
        self.insert(page, NONE, 1.0)
    }

    /// Adds a page of `host`, of weight 1, never observed.
    pub fn add_with_host(&mut self, page: K, host: &str) -> Result<u32, ScheduleError> {
        let h = self.intern_host(host);
        self.insert(page, h, 1.0)
    }

    /// Adds a page of `host` (`None`: without host) and `weight` (finite, >= 0), never
    /// observed.
    pub fn add_weighted(
        &mut self,
        page: K,
        host: Option<&str>,
        weight: f64,
    ) -> Result<u32, ScheduleError> {
        let weight = checked_weight(&page, weight)?;
        let h = host.map_or(NONE, |name| self.intern_host(name));
        self.insert(page, h, weight)
    }

    /// Sets (or, with `None`, clears) the page's host: its visits and changes leave the
    /// totals of its old host for those of the new one.
    pub fn set_host<Q>(&mut self, page: &Q, host: Option<&str>) -> Result<(), ScheduleError>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + Debug + ?Sized,
    {
        let slot = self.slot_of(page)? as usize;
        let h = host.map_or(NONE, |name| self.intern_host(name));
        let old = self.host_of[slot];
        if h == old {
            return Ok(());
        }
        let stats = self.groups.pages[self.group_of[slot] as usize].stats;
        let (x, n) = (stats.x as i64, stats.n as i64);
        self.host_rates.add_totals(old, -x, -n);
        self.host_rates.add_totals(h, x, n);
        self.host_of[slot] = h;
        if self.track.has(Track::HOST) {
            self.restate(slot, |state| state.stats.host = h);
        }
        if self.grouping.is_none() {
            self.move_rate_group(slot, old, h);
        }
        Ok(())
    }

    /// Sets the page's weight (finite, >= 0).
    pub fn set_weight<Q>(&mut self, page: &Q, weight: f64) -> Result<(), ScheduleError>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + Debug + ?Sized,
    {
        let slot = self.slot_of(page)? as usize;
        let weight = checked_weight(page, weight)?;
        if weight.to_bits() == self.weight_of[slot].to_bits() {
            return Ok(());
        }
        self.weight_of[slot] = weight;
        if self.track.has(Track::WEIGHT) {
            self.restate(slot, |state| state.stats.weight = weight);
        }
        Ok(())
    }

    /// Removes a page and its history (its visits leave its host's totals); the other
    /// pages keep their slots.
    pub fn remove<Q>(&mut self, page: &Q) -> Result<(), ScheduleError>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + Debug + ?Sized,
    {
        let slot = self
            .index
            .remove(page)
            .ok_or_else(|| ScheduleError::UnknownPage(format!("{page:?}")))?;
        let s = slot as usize;
        let g = self.group_of[s];
        let stats = self.groups.pages[g as usize].stats;
        self.host_rates
            .add_totals(self.host_of[s], -(stats.x as i64), -(stats.n as i64));
        self.host_rates
            .add_group_totals(self.rate_group(s), -(stats.x as i64), -(stats.n as i64));
        self.attributes.clear_slot(s);
        self.groups.leave(g);
        if let Some(live) = &mut self.bandit {
            live.removed(slot);
        }
        self.group_of[s] = NONE;
        self.host_of[s] = NONE;
        self.weight_of[s] = 1.0;
        self.ids[s] = None;
        self.free.push(slot);
        Ok(())
    }

    /// Records a download of `page` at `cycle` that did (`changed`) or did not find its
    /// content changed since the previous download.
    pub fn observe<Q>(&mut self, page: &Q, cycle: u32, changed: bool) -> Result<(), ScheduleError>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + Debug + ?Sized,
    {
        let slot = self.slot_of(page)? as usize;
        let g = self.group_of[slot];
        let mut state = self.groups.pages[g as usize];
        if cycle <= state.stats.last_visit {
            return Err(ScheduleError::CycleNotAfter {
                page: format!("{page:?}"),
                cycle,
                last: state.stats.last_visit,
            });
        }
        self.policy
            .visit(&mut state, cycle, changed, &mut self.histories);
        self.host_rates
            .add_totals(self.host_of[slot], changed as i64, 1);
        self.host_rates
            .add_group_totals(self.rate_group(slot), changed as i64, 1);
        self.groups.leave(g);
        self.group_of[slot] = self.groups.join(state);
        self.latest = self.latest.max(cycle);
        if let Some(live) = &mut self.bandit {
            live.observed(slot as u32, cycle, changed);
        }
        Ok(())
    }

    /// The `k` best-ranked pages for `cycle`, best first (all pages if fewer than `k`).
    pub fn next_batch(&mut self, cycle: u32, k: usize) -> Result<Vec<K>, ScheduleError> {
        self.next_batch_capped(cycle, k, None)
    }

    /// Exactly `k` pages for `cycle` (all pages if fewer) drawn with inclusion
    /// probabilities from their scores (SPEC §11, see the module docs), in rank order,
    /// each with its score, weight and probability.
    pub fn next_batch_sampled(
        &mut self,
        cycle: u32,
        k: usize,
    ) -> Result<Vec<Pick<K>>, ScheduleError> {
        self.rank(cycle, k, None, Decision::Sample)?;
        Ok(self.picks())
    }

    /// The `k` best-ranked pages for `cycle`, best first, with at most `host_cap` pages of
    /// one host when given (see the module docs).
    pub fn next_batch_capped(
        &mut self,
        cycle: u32,
        k: usize,
        host_cap: Option<usize>,
    ) -> Result<Vec<K>, ScheduleError> {
        self.rank(cycle, k, host_cap, Decision::TopK)?;
        Ok(self
            .work
            .chosen
            .iter()
            // Invariant: `rank` chooses only slots that hold a page.
            .map(|&(_, _, slot)| {
                self.ids[slot as usize]
                    .clone()
                    .expect("invariant: live slot")
            })
            .collect())
    }

    /// Like [`Scheduler::next_batch_capped`], with each page's score.
    pub fn next_batch_scored(
        &mut self,
        cycle: u32,
        k: usize,
        host_cap: Option<usize>,
    ) -> Result<Vec<Pick<K>>, ScheduleError> {
        self.rank(cycle, k, host_cap, Decision::TopK)?;
        Ok(self.picks())
    }

    /// The batch `rank` left in `self.work.chosen`.
    fn picks(&self) -> Vec<Pick<K>> {
        let w = &self.work;
        w.chosen
            .iter()
            .map(|&(_, _, slot)| {
                let score = w.group_score[self.group_of[slot as usize] as usize];
                Pick {
                    // Invariant: `rank` chooses only slots that hold a page.
                    page: self.ids[slot as usize]
                        .clone()
                        .expect("invariant: live slot"),
                    score,
                    weight: self.weight_of[slot as usize],
                    probability: match w.decided {
                        Decided::TopK => None,
                        Decided::Certain => Some(1.0),
                        Decided::Drawn(draw) => Some(draw.probability(weight_of(score))),
                    },
                }
            })
            .collect()
    }

    /// Leaves the batch's slots in rank order in `self.work.chosen`: scores the groups,
    /// then draws the pages (`decision` sample, [`Scheduler::sample_pages`]) or takes the
    /// best ones.
    fn rank(
        &mut self,
        cycle: u32,
        k: usize,
        host_cap: Option<usize>,
        decision: Decision,
    ) -> Result<(), ScheduleError> {
        self.check_batch(cycle, host_cap, decision)?;
        self.work.chosen.clear();
        self.work.decided = Decided::TopK;
        let pages = self.index.len();
        let k = k.min(pages);
        if k == 0 {
            return Ok(());
        }
        let arm = match (&self.policy, &mut self.bandit) {
            (Policy::Bandit(b), Some(live)) => Some(live.arm_for(b, self.seed, cycle, k)),
            _ => None,
        };
        self.score_groups((cycle, k, decision), arm);
        let salt = tie_salt(self.seed, cycle);
        if decision == Decision::Sample {
            self.work.decided = self.sample_pages(cycle, k, salt);
        }
        let mut want = k;
        while !matches!(self.work.decided, Decided::Drawn(_)) {
            // The top-k decision: the best `want` pages; under a host cap, the capped walk
            // of a prefix of the ranking that doubles until the cap leaves `k` pages (or
            // the ranking ends).
            self.best_pages(want, salt);
            let done = match host_cap {
                None => true,
                Some(cap) => self.apply_host_cap(cap, k) == k || want == pages,
            };
            if done {
                break;
            }
            want = want.saturating_mul(2).min(pages);
        }
        if let Some(live) = &mut self.bandit {
            live.chose(self.work.chosen.iter().map(|&(_, _, slot)| slot));
        }
        Ok(())
    }

    /// Refuses a batch the state cannot give (see [`ScheduleError`]).
    fn check_batch(
        &self,
        cycle: u32,
        host_cap: Option<usize>,
        decision: Decision,
    ) -> Result<(), ScheduleError> {
        if cycle <= self.latest {
            return Err(ScheduleError::BatchCycle {
                cycle,
                latest: self.latest,
            });
        }
        match (host_cap, decision) {
            (Some(0), _) => return Err(ScheduleError::ZeroHostCap),
            (Some(_), Decision::Sample) => return Err(ScheduleError::SampleWithCap),
            _ => {}
        }
        Scheduler::<K>::check_policy(&self.policy)?;
        self.policy.check_grouping(self.grouping())?;
        if let Some(pending) = self.bandit.as_ref().and_then(LiveBandit::pending_cycle) {
            if cycle < pending {
                return Err(ScheduleError::BanditCycle { cycle, pending });
            }
        }
        Ok(())
    }

    /// SPEC §11's draw of `k` pages from the scored groups into `chosen`, in rank order
    /// (as the simulation's: systematic sampling in slot order). When at most `k` pages
    /// score above 0 the decision is the top-k one: returns [`Decided::Certain`] and
    /// leaves `chosen` to [`Scheduler::best_pages`].
    fn sample_pages(&mut self, cycle: u32, k: usize, salt: u64) -> Decided {
        let w = &mut self.work;
        w.classes.clear();
        for (&g, &score) in w.live.iter().zip(&w.live_scores) {
            let s = weight_of(score);
            if s > 0.0 {
                w.classes.push((s, self.groups.count[g as usize] as u64));
            }
        }
        if w.classes.iter().map(|c| c.1).sum::<u64>() <= k as u64 {
            return Decided::Certain;
        }
        let draw = Systematic::new(
            inclusion_scale(&mut w.classes, k),
            sample_u(self.seed, cycle),
        );
        let mut walk = draw;
        w.drawn.clear();
        for (slot, &g) in self.group_of.iter().enumerate() {
            if g != NONE && walk.draws(weight_of(w.group_score[g as usize])) {
                w.drawn.push(slot as u32);
            }
        }
        let (group_of, group_key) = (&self.group_of, &w.group_key);
        let key = |slot: u32| {
            let g = group_of[slot as usize] as usize;
            (!group_key[g], tie_key(salt, slot))
        };
        let live = (0..group_of.len() as u32).filter(|&slot| group_of[slot as usize] != NONE);
        settle(&mut w.drawn, k, live, key);
        w.chosen.clear();
        w.chosen.extend(w.drawn.iter().map(|&slot| {
            (
                group_key[group_of[slot as usize] as usize],
                tie_key(salt, slot),
                slot,
            )
        }));
        Decided::Drawn(draw)
    }

    /// Scores each live group once (a rate policy first solves its rates for `k` crawls
    /// over every known page) with the policy, or a bandit's arm `arm`; fills the groups'
    /// keys and scores and `ranked`.
    fn score_groups(&mut self, (cycle, k, decision): (u32, usize, Decision), arm: Option<usize>) {
        let policy = match (&self.policy, arm) {
            (Policy::Bandit(b), Some(arm)) => &b.arms()[arm],
            (policy, _) => policy,
        };
        let w = &mut self.work;
        w.live.clear();
        w.live_pages.clear();
        for (g, &count) in self.groups.count.iter().enumerate() {
            if count > 0 {
                w.live.push(g as u32);
                w.live_pages.push(self.groups.pages[g]);
            }
        }
        w.live_scores.clear();
        w.live_scores.resize(w.live.len(), 0.0);
        let population = w
            .live
            .iter()
            .zip(&w.live_pages)
            .map(|(&g, page)| (page, self.groups.count[g as usize]));
        let context = decision.scoring(policy.context(
            cycle,
            k,
            &self.host_rates,
            population,
            &mut w.buffers,
        ));
        policy.score_into(&w.live_pages, &context, &mut w.live_scores, &mut w.buffers);
        w.group_key.resize(self.groups.slots(), 0);
        w.group_score.resize(self.groups.slots(), 0.0);
        w.ranked.clear();
        for (&g, &score) in w.live.iter().zip(&w.live_scores) {
            let key = score_key(score);
            w.group_key[g as usize] = key;
            w.group_score[g as usize] = score;
            w.ranked.push((key, self.groups.count[g as usize]));
        }
    }

    /// The `want` best-ranked pages, in rank order, into `chosen`.
    fn best_pages(&mut self, want: usize, salt: u64) {
        let w = &mut self.work;
        // The `want` best groups hold at least `want` pages, so rank `want` falls among
        // them, and every group scoring above theirs is one of them: select them (linear)
        // and sort only those.
        let top = want.min(w.ranked.len());
        let by_key = |&(key, _): &(u64, u32)| std::cmp::Reverse(key);
        if top < w.ranked.len() {
            w.ranked.select_nth_unstable_by_key(top - 1, by_key);
        }
        let ranked = &mut w.ranked[..top];
        ranked.sort_unstable_by_key(by_key);
        // The threshold: rank `want` falls in the class of score key `threshold`, of
        // which `need` pages are taken. (The class may have more groups beyond `top`;
        // the pass over the pages below gathers them all.)
        let (mut above, mut i) = (0usize, 0usize);
        let (threshold, need) = loop {
            let key = ranked[i].0;
            let mut size = 0usize;
            while i < ranked.len() && ranked[i].0 == key {
                size += ranked[i].1 as usize;
                i += 1;
            }
            if above + size >= want {
                break (key, want - above);
            }
            above += size;
        };
        w.chosen.clear();
        w.tied.clear();
        for (slot, &g) in self.group_of.iter().enumerate() {
            if g == NONE {
                continue;
            }
            let key = w.group_key[g as usize];
            if key > threshold {
                w.chosen
                    .push((key, tie_key(salt, slot as u32), slot as u32));
            } else if key == threshold {
                w.tied.push((tie_key(salt, slot as u32), slot as u32));
            }
        }
        if w.tied.len() > need {
            w.tied.select_nth_unstable(need - 1);
            w.tied.truncate(need);
        }
        w.chosen
            .extend(w.tied.iter().map(|&(tie, slot)| (threshold, tie, slot)));
        w.chosen
            .sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    }

    /// Walks `chosen`, dropping pages of hosts that already have `cap` pages, and keeps at
    /// most `k`; returns how many it kept. A page's eligibility depends only on the pages
    /// of its host ranked before it, all inside the prefix.
    fn apply_host_cap(&mut self, cap: usize, k: usize) -> usize {
        let w = &mut self.work;
        let cap = cap.min(u32::MAX as usize) as u32;
        w.host_count.clear();
        w.host_count.resize(self.host_names.len(), 0);
        let mut taken = 0usize;
        let host_of = &self.host_of;
        let host_count = &mut w.host_count;
        w.chosen.retain(|&(_, _, slot)| {
            if taken == k {
                return false;
            }
            let h = host_of[slot as usize];
            if h != NONE {
                if host_count[h as usize] >= cap {
                    return false;
                }
                host_count[h as usize] += 1;
            }
            taken += 1;
            true
        });
        taken
    }

    fn slot_of<Q>(&self, page: &Q) -> Result<u32, ScheduleError>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + Debug + ?Sized,
    {
        self.index
            .get(page)
            .copied()
            .ok_or_else(|| ScheduleError::UnknownPage(format!("{page:?}")))
    }

    fn intern_host(&mut self, host: &str) -> u32 {
        if let Some(&h) = self.host_index.get(host) {
            return h;
        }
        let h = self.host_names.len() as u32;
        self.host_names.push(host.to_string());
        self.host_index.insert(host.to_string(), h);
        h
    }

    /// The group of the page in `slot` for `GR` (NONE: none).
    #[inline]
    fn rate_group(&self, slot: usize) -> u32 {
        match self.grouping {
            Some(c) => self.attributes.code(c, slot),
            None => self.host_of[slot],
        }
    }

    /// Moves the totals of the page in `slot` from rate group `old` to `new` (`GR`), and
    /// its statistics' group when they keep it.
    fn move_rate_group(&mut self, slot: usize, old: u32, new: u32) {
        let stats = self.groups.pages[self.group_of[slot] as usize].stats;
        let (x, n) = (stats.x as i64, stats.n as i64);
        self.host_rates.add_group_totals(old, -x, -n);
        self.host_rates.add_group_totals(new, x, n);
        if self.track.has(Track::GROUP) {
            self.restate(slot, |state| state.stats.group = new);
        }
    }

    /// Recomputes every rate group's totals and the pages' groups (after the grouping
    /// changed, or on loading).
    fn regroup(&mut self) {
        self.host_rates.clear_groups();
        for slot in 0..self.ids.len() {
            if self.ids[slot].is_none() {
                continue;
            }
            let group = self.rate_group(slot);
            let stats = self.groups.pages[self.group_of[slot] as usize].stats;
            self.host_rates
                .add_group_totals(group, stats.x as i64, stats.n as i64);
            if self.track.has(Track::GROUP) && stats.group != group {
                self.restate(slot, |state| state.stats.group = group);
            }
        }
    }

    /// Moves the page in `slot` to the group of its state changed by `change`.
    fn restate(&mut self, slot: usize, change: impl FnOnce(&mut PageState)) {
        let g = self.group_of[slot];
        let mut state = self.groups.pages[g as usize];
        change(&mut state);
        self.groups.leave(g);
        self.group_of[slot] = self.groups.join(state);
    }

    /// Adds `page` of host `host` (NONE: none) and a checked `weight`, never observed, in
    /// a free slot (the last freed) or a new one.
    fn insert(&mut self, page: K, host: u32, weight: f64) -> Result<u32, ScheduleError> {
        if self.index.contains_key(&page) {
            return Err(ScheduleError::DuplicatePage(format!("{page:?}")));
        }
        let slot = match self.free.pop() {
            Some(slot) => slot,
            None => {
                if self.ids.len() >= (u32::MAX - 1) as usize {
                    return Err(ScheduleError::Full);
                }
                self.ids.push(None);
                self.group_of.push(NONE);
                self.host_of.push(NONE);
                self.weight_of.push(1.0);
                self.attributes.push_slot();
                (self.ids.len() - 1) as u32
            }
        };
        let s = slot as usize;
        self.ids[s] = Some(page.clone());
        self.host_of[s] = host;
        let group = self.rate_group(s);
        self.group_of[s] = self
            .groups
            .join(self.policy.fresh_page_of(weight, host, group));
        self.weight_of[s] = weight;
        // A page never visited adds nothing, but the tables grow to hold its host and group.
        self.host_rates.add_totals(host, 0, 0);
        self.host_rates.add_group_totals(group, 0, 0);
        self.index.insert(page, slot);
        Ok(slot)
    }
}

/// `weight` if it is a page weight (finite, >= 0; `-0` reads as `0`, as terminals are
/// never `-0`), else the error naming `page`.
fn checked_weight<Q: Debug + ?Sized>(page: &Q, weight: f64) -> Result<f64, ScheduleError> {
    if weight.is_finite() && weight >= 0.0 {
        Ok(weight + 0.0)
    } else {
        Err(ScheduleError::Weight {
            page: format!("{page:?}"),
            weight: weight.to_string(),
        })
    }
}

#[cfg(test)]
mod tests;
