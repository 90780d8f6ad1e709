//! A bandit policy in a live crawl
//! (docs/src/reference/scheduler.md#bandits-in-a-live-crawl): the scheduler draws the arm
//! of each batch and rewards it when the crawler reports the batch's downloads.
//!
//! A crawler cannot observe NDCG or freshness (they need the pages it did *not*
//! download), so a scheduler rewards an arm with the **change rate** of its batch: the
//! downloads at the batch's cycle, of pages in the batch, that found a change, over the
//! batch's `k` — the simulation's ChangeRate, so a scheduler fed the simulation's
//! visits draws exactly the simulation's arms (tested). A bandit naming another reward
//! metric is refused ([`ScheduleError::Reward`](super::ScheduleError::Reward)).
//!
//! The batch of cycle `d` is *pending* until a batch for a later cycle is asked for; then
//! its reward is settled (downloads never reported count as no change; a page removed
//! after its download keeps its count). Asking again for the batch of the pending cycle
//! (before any download of it is reported) draws the same arm: the draw is a function of
//! (seed, cycle) and the weights, which only settling moves. A batch for a cycle before
//! the pending one is refused ([`ScheduleError::BanditCycle`](super::ScheduleError)): its
//! reward could not be told apart.
//! Weights and the pending batch are saved with the state, so a crawler restarted mid-run
//! draws what an uninterrupted one would.

use crate::policy::{draw_arm, Exp3, Exp3State, Scorer};
use serde::{Deserialize, Serialize};

/// A bandit's weights and its batch awaiting a reward.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct LiveBandit {
    pub(crate) state: Exp3State,
    pub(crate) pending: Option<Pending>,
    /// The batch rewarded last, in this process (for reporting; not saved).
    #[serde(skip)]
    pub(crate) settled: Option<Pending>,
}

/// A bandit as state files of versions 4 to 7 hold it: the weights without the count of
/// cycles played (those files hold EXP3 bandits only, which do not read it: it loads as 0).
/// Written only by tests that forge such files.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(test, derive(Serialize))]
pub(crate) struct LiveBanditV7 {
    state: WeightsV7,
    pending: Option<Pending>,
}

/// A bandit's log weights as versions 4 to 7 hold them.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(test, derive(Serialize))]
struct WeightsV7 {
    log_weights: Vec<f64>,
}

impl From<LiveBanditV7> for LiveBandit {
    fn from(old: LiveBanditV7) -> LiveBandit {
        LiveBandit {
            state: Exp3State::from_parts(old.state.log_weights, 0),
            pending: old.pending,
            settled: None,
        }
    }
}

#[cfg(test)]
impl From<&LiveBandit> for LiveBanditV7 {
    /// The older layout (for forging old files in tests; the count of plays is dropped).
    fn from(live: &LiveBandit) -> LiveBanditV7 {
        LiveBanditV7 {
            state: WeightsV7 {
                log_weights: live.state.log_weights().to_vec(),
            },
            pending: live.pending.clone(),
        }
    }
}

/// The batch of one cycle, until it is rewarded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Pending {
    pub(crate) cycle: u32,
    pub(crate) arm: u32,
    /// Every arm's probability when it was drawn.
    pub(crate) q: Vec<f64>,
    /// The batch's size as asked (the divisor of the change rate).
    pub(crate) k: u32,
    /// The batch's slots, ascending.
    pub(crate) batch: Vec<u32>,
    /// Downloads of batch pages at `cycle` that found a change.
    pub(crate) found: u32,
    /// Downloads of batch pages at `cycle` reported, changed or not.
    pub(crate) observed: u32,
}

impl LiveBandit {
    /// Weights 1, nothing pending.
    pub(crate) fn new(bandit: &Exp3<Scorer>) -> LiveBandit {
        LiveBandit {
            state: bandit.start(),
            pending: None,
            settled: None,
        }
    }

    /// The cycle of the pending batch, if any.
    pub(crate) fn pending_cycle(&self) -> Option<u32> {
        self.pending.as_ref().map(|p| p.cycle)
    }

    /// The arm that ranks the batch of `cycle` (of size `k`, at least 1; `cycle` not before
    /// the pending one): the pending one if the batch is asked again, else a new draw after
    /// rewarding the pending batch.
    pub(crate) fn arm_for(
        &mut self,
        bandit: &Exp3<Scorer>,
        seed: u64,
        cycle: u32,
        k: usize,
    ) -> usize {
        debug_assert!(self.pending_cycle().is_none_or(|p| p <= cycle) && k >= 1);
        self.settle(bandit, cycle);
        if let Some(p) = &mut self.pending {
            p.k = k as u32;
            return p.arm as usize;
        }
        let mut q = Vec::new();
        bandit.probabilities(&self.state, &mut q);
        let arm = draw_arm(&q, seed, cycle);
        self.pending = Some(Pending {
            cycle,
            arm: arm as u32,
            q,
            k: k as u32,
            batch: Vec::new(),
            found: 0,
            observed: 0,
        });
        arm
    }

    /// Rewards the pending batch if it is of a cycle before `cycle`.
    fn settle(&mut self, bandit: &Exp3<Scorer>, cycle: u32) {
        let Some(p) = self.pending.take_if(|p| p.cycle < cycle) else {
            return;
        };
        let x = p.found as f64 / p.k.max(1) as f64;
        let arm = p.arm as usize;
        bandit.update(&mut self.state, arm, p.q[arm], x);
        self.settled = Some(p);
    }

    /// The pending batch's pages are `slots`.
    pub(crate) fn chose(&mut self, slots: impl Iterator<Item = u32>) {
        if let Some(p) = &mut self.pending {
            p.batch.clear();
            p.batch.extend(slots);
            p.batch.sort_unstable();
        }
    }

    /// A download of `slot` at `cycle` that did (or did not) find a change.
    pub(crate) fn observed(&mut self, slot: u32, cycle: u32, changed: bool) {
        if let Some(p) = &mut self.pending {
            if p.cycle == cycle && p.batch.binary_search(&slot).is_ok() {
                p.observed += 1;
                p.found += changed as u32;
            }
        }
    }

    /// `slot` was removed (its next page is another, which must not count): it leaves the
    /// batch; a change its download found stays counted.
    pub(crate) fn removed(&mut self, slot: u32) {
        if let Some(p) = &mut self.pending {
            if let Ok(at) = p.batch.binary_search(&slot) {
                p.batch.remove(at);
            }
        }
    }

    /// Whether the saved state fits `bandit` run with `seed` over `slots` slots (for
    /// checking a loaded file): the pending draw is the one these weights give at its
    /// cycle, bit for bit, and its batch and count fit its `k`.
    pub(crate) fn fits(&self, bandit: &Exp3<Scorer>, seed: u64, slots: usize) -> bool {
        if !self.state.fits(bandit) {
            return false;
        }
        let Some(p) = &self.pending else {
            return true;
        };
        let mut q = Vec::new();
        bandit.probabilities(&self.state, &mut q);
        let same_q =
            q.len() == p.q.len() && q.iter().zip(&p.q).all(|(a, b)| a.to_bits() == b.to_bits());
        same_q
            && draw_arm(&q, seed, p.cycle) == p.arm as usize
            && p.k >= 1
            && p.batch.len() <= p.k as usize
            && p.found <= p.observed
            && p.observed <= p.k
            && p.batch.windows(2).all(|w| w[0] < w[1])
            && p.batch.iter().all(|&s| (s as usize) < slots)
    }
}
