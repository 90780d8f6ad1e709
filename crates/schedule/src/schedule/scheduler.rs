//! [`Scheduler`] itself: a crawler's pages in dense slots with their statistics, hosts,
//! weights and attributes, the policy that ranks them, the buffers of a batch; and
//! [`Pick`], one page of a batch. What changes the page set is `pages.rs`; batches are
//! `batch.rs`; state files `state.rs`.

use super::attributes::{self, NONE};
use super::bandit::LiveBandit;
use super::groups::Groups;
use super::ids::PageIds;
use super::ScheduleError;
use crate::metric::Metric;
use crate::policy::{Histories, PageState, PageStats, Policy, Reward, ScoreBuffers};
use crate::policy::{Surroundings, Track};
use crate::sim::Systematic;
use rustc_hash::FxHashMap as HashMap;
use serde::Serialize;
use std::borrow::Borrow;
use std::fmt::Debug;
use std::hash::Hash;

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
    /// Its weight (docs/src/reference/data.md#page-weights).
    pub weight: f64,
    /// Its inclusion probability π in a sampled batch
    /// (docs/src/reference/simulation.md#sampled-decisions; 1 for a page taken for sure),
    /// `None` in a top-k batch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probability: Option<f64>,
}

/// A crawler's page id: a key the scheduler hashes and compares. Text ids (`String`,
/// `&str`, `Box<str>`, `Arc<str>`) must be non-empty and hold no TAB or line break, as in
/// every file freshgp reads and writes (a batch prints one id a line): [`Scheduler`]
/// refuses others when a page is added. Integer ids are taken as they are.
pub trait PageId: Hash + Eq + Clone + Debug {
    /// The id as text, for ids that are text (`None`: not text, nothing to check).
    fn as_text(&self) -> Option<&str> {
        None
    }
}

impl PageId for String {
    fn as_text(&self) -> Option<&str> {
        Some(self)
    }
}

impl PageId for &str {
    fn as_text(&self) -> Option<&str> {
        Some(self)
    }
}

impl PageId for Box<str> {
    fn as_text(&self) -> Option<&str> {
        Some(self)
    }
}

impl PageId for std::sync::Arc<str> {
    fn as_text(&self) -> Option<&str> {
        Some(self)
    }
}

macro_rules! integer_ids {
    ($($t:ty),*) => { $(impl PageId for $t {})* };
}
integer_ids!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

/// `text` if it can name a page or a host (`what`) in freshgp's files: non-empty, without
/// TAB or line break. The scheduler checks every id and host it is given so; a front end
/// that checks a whole list before adding any calls it too.
///
/// ```
/// use freshgp_schedule::schedule::checked_text;
///
/// assert!(checked_text("host", "a.org").is_ok());
/// let e = checked_text("page id", "a\tb").unwrap_err();
/// assert_eq!(e.to_string(), "page id `a\\tb` must be non-empty, without TAB or line break");
/// ```
///
/// # Errors
/// [`ScheduleError::BadText`] naming `what` and the text.
pub fn checked_text<'a>(what: &str, text: &'a str) -> Result<&'a str, ScheduleError> {
    if text.is_empty() || text.contains(crate::data::attributes::LINE_BREAKS) {
        return Err(ScheduleError::BadText(format!(
            "{what} `{}` must be non-empty, without TAB or line break",
            text.escape_debug()
        )));
    }
    Ok(text)
}

/// A crawler's pages, their statistics and the rule that ranks them.
///
/// `K` is the crawler's page id (`String` by default; any [`PageId`], and
/// `Serialize`/`Deserialize` to save and load). See the [module docs](super)
/// for the semantics of cycles, ties, removal and the host cap.
#[derive(Debug, Clone)]
pub struct Scheduler<K = String> {
    pub(super) policy: Policy,
    pub(super) seed: u64,
    pub(super) latest: u32,
    /// Slot → page id and page id → slot.
    pub(super) ids: PageIds<K>,
    /// Slot → group (NONE: a free slot).
    pub(super) group_of: Vec<u32>,
    /// Free slots; the last one is reused first.
    pub(super) free: Vec<u32>,
    /// Slot → host (NONE: no host).
    pub(super) host_of: Vec<u32>,
    /// Slot → weight (1 for free slots), whether or not the policy reads it.
    pub(super) weight_of: Vec<f64>,
    /// The tracked statistics the policy reads (what its pages' statistics keep).
    pub(super) track: Track,
    pub(super) host_names: Vec<String>,
    pub(super) host_index: HashMap<String, u32>,
    pub(super) groups: Groups,
    /// The interned visit intervals of the pages (for `MLE`).
    pub(super) histories: Histories,
    /// Σ X and Σ n of each host's current pages (for `HR`), whatever the policy, and
    /// of each rate group's (`GR`).
    pub(super) host_rates: Surroundings,
    /// The pages' categorical attributes (docs/src/reference/data.md#attributes).
    pub(super) attributes: attributes::Attributes,
    /// The attribute (a column of `attributes`) pages are grouped by for `GR`; `None`:
    /// the host.
    pub(super) grouping: Option<usize>,
    /// A bandit policy's weights and pending batch
    /// (docs/src/reference/scheduler.md#bandits-in-a-live-crawl).
    pub(super) bandit: Option<LiveBandit>,
    pub(super) work: Work,
}

/// Reusable buffers of `next_batch`.
#[derive(Debug, Clone, Default)]
pub(super) struct Work {
    pub(super) buffers: ScoreBuffers,
    pub(super) live: Vec<u32>,
    pub(super) live_pages: Vec<PageState>,
    pub(super) live_scores: Vec<f64>,
    /// Group → (score key, score), valid for live groups.
    pub(super) group_key: Vec<u64>,
    pub(super) group_score: Vec<f64>,
    /// Live groups by descending score key: (key, pages).
    pub(super) ranked: Vec<(u64, u32)>,
    /// (score key, tie key, slot) of the pages considered.
    pub(super) chosen: Vec<(u64, u64, u32)>,
    /// (tie key, slot) of the pages tied at the threshold.
    pub(super) tied: Vec<(u64, u32)>,
    pub(super) host_count: Vec<u32>,
    /// A sampled batch's positive sampling weights with their numbers of pages.
    pub(super) classes: Vec<(f64, u64)>,
    /// A sampled batch's drawn slots.
    pub(super) drawn: Vec<u32>,
    /// How the latest batch was decided.
    pub(super) decided: Decided,
}

/// How a batch was decided (for its pages' inclusion probabilities).
#[derive(Debug, Clone, Copy, Default)]
pub(super) enum Decided {
    /// The top k.
    #[default]
    TopK,
    /// Sampled, but at most k pages had a positive score: the top k, each for sure.
    Certain,
    /// Drawn with this draw's probabilities.
    Drawn(Systematic),
}

impl<K: PageId> Scheduler<K> {
    /// An empty scheduler ranking by `policy`, with tie-break seed 0 (the simulation's
    /// default).
    pub fn new(policy: Policy) -> Scheduler<K> {
        Scheduler {
            track: policy.features().track(),
            bandit: policy.bandit().map(LiveBandit::new),
            policy,
            seed: 0,
            latest: 0,
            ids: PageIds::default(),
            group_of: Vec::new(),
            free: Vec::new(),
            host_of: Vec::new(),
            weight_of: Vec::new(),
            host_names: Vec::new(),
            host_index: HashMap::default(),
            groups: Groups::default(),
            histories: Histories::default(),
            host_rates: Surroundings::default(),
            attributes: attributes::Attributes::default(),
            grouping: None,
            work: Work::default(),
        }
    }

    /// Checks that `policy` can rank a live crawl: a bandit must be rewarded by the
    /// change rate (or name no reward metric), the one a crawler observes.
    pub fn check_policy(policy: &Policy) -> Result<(), ScheduleError> {
        if policy.features().reads_latent() {
            return Err(ScheduleError::Oracle);
        }
        match policy.bandit().and_then(|b| b.reward()) {
            Some(reward) if reward != Reward::Metric(Metric::ChangeRate) => {
                Err(ScheduleError::Reward(reward.name()))
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
        self.ids.len()
    }

    /// Whether no page is scheduled.
    pub fn is_empty(&self) -> bool {
        self.ids.len() == 0
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
        self.ids.slot(page).is_some()
    }

    /// The page's statistics.
    pub fn stats<Q>(&self, page: &Q) -> Option<&PageStats>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        Some(self.stats_at(self.ids.slot(page)?))
    }

    /// The statistics of the page in `slot` (a live slot).
    pub(super) fn stats_at(&self, slot: u32) -> &PageStats {
        &self.groups.pages[self.group_of[slot as usize] as usize].stats
    }

    /// The page's state: statistics and the policy's memory of it.
    pub fn state<Q>(&self, page: &Q) -> Option<&PageState>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let slot = self.ids.slot(page)?;
        Some(&self.groups.pages[self.group_of[slot as usize] as usize])
    }

    /// The page's host, if it has one.
    pub fn host<Q>(&self, page: &Q) -> Option<&str>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let slot = self.ids.slot(page)?;
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
        self.ids.slot(page)
    }

    /// The scheduled pages, in slot order (each a copy: a state loaded from a file keeps
    /// its ids encoded, and decodes them one by one here).
    pub fn pages(&self) -> impl Iterator<Item = K> + '_ {
        (0..self.group_of.len())
            .filter(|&slot| self.group_of[slot] != NONE)
            .map(|slot| self.ids.get(slot as u32))
    }

    /// The page's weight (docs/src/reference/data.md#page-weights; 1 unless set).
    pub fn weight<Q>(&self, page: &Q) -> Option<f64>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let slot = self.ids.slot(page)?;
        Some(self.weight_of[slot as usize])
    }

    /// The totals of each host's current pages that `HR` reads
    /// (docs/src/reference/terminals.md#neighbours-hr-and-gr).
    pub fn host_rates(&self) -> &Surroundings {
        &self.host_rates
    }

    /// The page's value of the attribute `key` (docs/src/reference/data.md#attributes), if
    /// it has one.
    pub fn attribute<Q>(&self, page: &Q, key: &str) -> Option<&str>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let slot = self.ids.slot(page)?;
        self.attributes.value(key, slot as usize)
    }

    /// The page's attributes, `(key, value)` in the order the keys were first set.
    pub fn attributes<Q>(&self, page: &Q) -> Vec<(&str, &str)>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        match self.ids.slot(page) {
            Some(slot) => self.attributes.of(slot as usize).collect(),
            None => Vec::new(),
        }
    }

    /// The attribute keys some scheduled page has, in the order they were first set.
    pub fn attribute_keys(&self) -> Vec<&str> {
        self.attributes.keys_in_use()
    }

    /// Why the grouping cannot stand, if it cannot: the state has pages and none has the
    /// attribute they are grouped by, so `GR` would silently read each page's own rate.
    /// The front ends refuse a grouping asked for then (`schedule --group`, the Python
    /// module's `Scheduler(group=...)`).
    pub fn unused_grouping(&self) -> Option<String> {
        let key = self.grouping()?;
        let keys = self.attribute_keys();
        if self.is_empty() || keys.contains(&key) {
            return None;
        }
        let have = if keys.is_empty() {
            "no page has any attribute; group by host".to_string()
        } else {
            format!("the pages have: host, {}", keys.join(", "))
        };
        Some(format!("no page has that attribute ({have})"))
    }

    /// The attribute pages are grouped by for `GR`, `None` for the host.
    pub fn grouping(&self) -> Option<&str> {
        self.grouping
            .map(|c| self.attributes.columns()[c].name.as_str())
    }

    /// The interned visit intervals the pages' statistics point into (for
    /// docs/src/reference/terminals.md#mle).
    pub fn histories(&self) -> &Histories {
        &self.histories
    }
}
