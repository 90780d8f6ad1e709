//! A bandit policy in a live crawl (SPEC §10): the scheduler draws the arm of each batch
//! and rewards it when the crawler reports the batch's downloads.
//!
//! A crawler cannot observe NDCG or freshness (they need the pages it did *not*
//! download), so a scheduler rewards an arm with the **change rate** of its batch: the
//! downloads at the batch's cycle, of pages in the batch, that found a change, over the
//! batch's `k` — the simulation's ChangeRate, so a scheduler fed the simulation's
//! visits draws exactly the simulation's arms (tested). A bandit naming another reward
//! metric is refused ([`ScheduleError::Reward`](super::ScheduleError::Reward)).
//!
//! The batch of cycle `d` is *pending* until a batch for a later cycle is asked for; then
//! its reward is settled (downloads never reported count as no change). Asking again for
//! the batch of the pending cycle (before any download of it is reported) draws the same
//! arm: the draw is a function of (seed, cycle) and the weights, which only settling moves.
//! Weights and the pending batch are saved with the state, so a crawler restarted mid-run
//! draws what an uninterrupted one would.

use crate::sim::{Exp3, Exp3State};
use serde::{Deserialize, Serialize};

/// A bandit's weights and its batch awaiting a reward.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct LiveBandit {
    pub(crate) state: Exp3State,
    pub(crate) pending: Option<Pending>,
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
}

impl LiveBandit {
    /// Weights 1, nothing pending.
    pub(crate) fn new(bandit: &Exp3) -> LiveBandit {
        LiveBandit {
            state: bandit.start(),
            pending: None,
        }
    }

    /// The arm that ranks the batch of `cycle` (of size `k`): the pending one if the
    /// batch is asked again, else a new draw after rewarding the pending batch.
    pub(crate) fn arm_for(&mut self, bandit: &Exp3, seed: u64, cycle: u32, k: usize) -> usize {
        self.settle(bandit, cycle);
        if let Some(p) = &mut self.pending {
            p.k = k as u32;
            return p.arm as usize;
        }
        let mut q = Vec::new();
        bandit.probabilities(&self.state, &mut q);
        let arm = Exp3::draw(&q, seed, cycle);
        self.pending = Some(Pending {
            cycle,
            arm: arm as u32,
            q,
            k: k as u32,
            batch: Vec::new(),
            found: 0,
        });
        arm
    }

    /// Rewards the pending batch if it is of a cycle before `cycle`.
    fn settle(&mut self, bandit: &Exp3, cycle: u32) {
        let Some(p) = self.pending.take_if(|p| p.cycle < cycle) else {
            return;
        };
        let x = p.found as f64 / p.k.max(1) as f64;
        let arm = p.arm as usize;
        bandit.update(&mut self.state, arm, p.q[arm], x);
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
            if changed && p.cycle == cycle && p.batch.binary_search(&slot).is_ok() {
                p.found += 1;
            }
        }
    }

    /// `slot` was removed (its next page is another).
    pub(crate) fn removed(&mut self, slot: u32) {
        if let Some(p) = &mut self.pending {
            if let Ok(at) = p.batch.binary_search(&slot) {
                p.batch.remove(at);
            }
        }
    }

    /// Whether the saved state fits `bandit` (for checking a loaded file).
    pub(crate) fn fits(&self, bandit: &Exp3, slots: usize) -> bool {
        let arms = bandit.arms().len();
        self.state.fits(bandit)
            && self.pending.as_ref().is_none_or(|p| {
                (p.arm as usize) < arms
                    && p.q.len() == arms
                    && p.q.iter().all(|q| q.is_finite() && *q > 0.0)
                    && p.found as usize <= p.batch.len()
                    && p.batch.windows(2).all(|w| w[0] < w[1])
                    && p.batch.iter().all(|&s| (s as usize) < slots)
            })
    }
}
