//! What a run knows of one page under a policy ([`PageState`]: its statistics and the
//! policy's per-page memory), its hashable key, and how a policy starts and updates it.

use super::stats::StatsKey;
use super::{Histories, PageStats, Policy, Scorer, NO_GROUP, NO_HOST};

/// What the simulation knows about one page: its statistics
/// (docs/src/reference/simulation.md#the-state-of-a-page) and the policy's own memory of it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PageState {
    /// Visits, detected changes and when, and the tracked statistics its policy reads.
    pub stats: PageStats,
    /// The policy's per-page memory (the revisit interval of an
    /// [`Adaptive`](super::Adaptive) policy; 0 for policies that keep none).
    pub memory: f64,
}

impl PageState {
    /// The state as a hashable key: pages with equal keys get equal scores.
    pub fn key(&self) -> StateKey {
        StateKey {
            stats: self.stats.key(),
            memory: self.memory.to_bits(),
        }
    }
}

/// [`PageState`] as a hashable key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateKey {
    stats: StatsKey,
    memory: u64,
}

/// Hashes the statistics only. Equal keys have equal statistics, so this agrees with `Eq`;
/// the hot path (formula policies, whose memory is always 0) does not hash a field that
/// never varies, and pages of equal statistics but other memory are told apart by `Eq`.
impl std::hash::Hash for StateKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.stats.hash(state);
    }
}

impl Policy {
    /// The state of a page never visited, of weight 1 and without a host.
    pub fn fresh_page(&self) -> PageState {
        self.fresh_page_of(1.0, NO_HOST, NO_GROUP)
    }

    /// The state of a page never visited, of weight `weight`, host `host` ([`NO_HOST`]
    /// for none) and group `group` ([`NO_GROUP`] for none), keeping the statistics this
    /// policy reads ([`Features::track`](super::Features::track)).
    pub fn fresh_page_of(&self, weight: f64, host: u32, group: u32) -> PageState {
        PageState {
            stats: PageStats::new(self.features().track(), weight, host, group),
            memory: self.remembering().map_or(0.0, Scorer::fresh_memory),
        }
    }

    /// The scorer whose per-page memory pages keep: itself, or a bandit's one arm that
    /// keeps memory; `None` when none does.
    fn remembering(&self) -> Option<&Scorer> {
        self.scorers().find(|s| s.remembers())
    }

    /// Whether `memory` is a page memory this policy can reach (for checking saved states).
    pub fn valid_memory(&self, memory: f64) -> bool {
        self.remembering()
            .map_or(memory == 0.0, |s| s.valid_memory(memory))
    }

    /// Records a visit at cycle `d` that did (or did not) find the page changed: the
    /// statistics ([`PageStats::visit`], which interns visit intervals in `histories`
    /// when the page keeps them) and the policy's memory (a bandit's: its arm's that keeps
    /// memory, whichever arm chose the visit).
    #[inline]
    pub fn visit(&self, page: &mut PageState, d: u32, changed: bool, histories: &mut Histories) {
        page.stats.visit(d, changed, histories);
        match self {
            Policy::Scorer(s) => s.remember(page, changed),
            Policy::Bandit(b) => {
                if let Some(s) = b.remembering_arm() {
                    s.remember(page, changed);
                }
            }
        }
    }
}

impl Scorer {
    /// The memory of a page never visited.
    fn fresh_memory(&self) -> f64 {
        match self {
            Scorer::Adaptive(a) => a.initial(),
            Scorer::Formula(_)
            | Scorer::Baseline(_)
            | Scorer::Rate(_)
            | Scorer::Value
            | Scorer::Oracle
            | Scorer::Model(_) => 0.0,
        }
    }

    /// Whether `memory` is a page memory this scorer can reach.
    fn valid_memory(&self, memory: f64) -> bool {
        match self {
            Scorer::Adaptive(a) => a.reaches(memory),
            Scorer::Formula(_)
            | Scorer::Baseline(_)
            | Scorer::Rate(_)
            | Scorer::Value
            | Scorer::Oracle
            | Scorer::Model(_) => memory == 0.0,
        }
    }

    /// Updates the page's memory after a visit that did (or did not) find it changed.
    #[inline]
    fn remember(&self, page: &mut PageState, changed: bool) {
        match self {
            Scorer::Adaptive(a) => page.memory = a.next_interval(page.memory, changed),
            Scorer::Formula(_)
            | Scorer::Baseline(_)
            | Scorer::Rate(_)
            | Scorer::Value
            | Scorer::Oracle
            | Scorer::Model(_) => {}
        }
    }
}
