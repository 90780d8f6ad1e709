//! What a run knows of one page under a policy ([`PageState`]: its statistics and the
//! policy's per-page memory) and its hashable key. How a policy starts and updates it is
//! [`Policy::fresh_page`](super::Policy::fresh_page) and
//! [`Policy::visit`](super::Policy::visit).

use super::stats::StatsKey;
use super::PageStats;

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
