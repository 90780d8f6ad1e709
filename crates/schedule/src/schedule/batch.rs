//! A [`Scheduler`]'s batches: the k best-scored pages of a cycle (top k, host-capped or
//! sampled), ranked as the simulation ranks (`rank` in steps: `score_groups`,
//! `best_pages`, `apply_host_cap`), a bandit's arm drawn per batch.

use super::attributes::NONE;
use super::bandit::LiveBandit;
use super::scheduler::PageId;
use super::scheduler::{Decided, Pick, Scheduler};
use super::ScheduleError;
use crate::policy::Policy;
use crate::sim::Decision;
use crate::sim::{inclusion_scale, sample_u, settle, weight_of, Systematic};
use crate::sim::{score_key, tie_key, tie_salt};

impl<K: PageId> Scheduler<K> {
    /// The `k` best-ranked pages for `cycle`, best first (all pages if fewer than `k`).
    pub fn next_batch(&mut self, cycle: u32, k: usize) -> Result<Vec<K>, ScheduleError> {
        self.next_batch_capped(cycle, k, None)
    }

    /// Exactly `k` pages for `cycle` (all pages if fewer) drawn with inclusion
    /// probabilities from their scores (docs/src/reference/simulation.md#sampled-decisions,
    /// and the module docs), in rank order, each with its score, weight and probability.
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
        // Invariant: `rank` chooses only slots that hold a page.
        Ok(self
            .ids
            .get_many(self.work.chosen.iter().map(|&(_, _, slot)| slot)))
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
    pub(super) fn picks(&self) -> Vec<Pick<K>> {
        let w = &self.work;
        // Invariant: `rank` chooses only slots that hold a page.
        let pages = self.ids.get_many(w.chosen.iter().map(|&(_, _, slot)| slot));
        w.chosen
            .iter()
            .zip(pages)
            .map(|(&(_, _, slot), page)| {
                let score = w.group_score[self.group_of[slot as usize] as usize];
                Pick {
                    page,
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
    pub(super) fn rank(
        &mut self,
        cycle: u32,
        k: usize,
        host_cap: Option<usize>,
        decision: Decision,
    ) -> Result<(), ScheduleError> {
        self.check_batch(cycle, host_cap, decision)?;
        self.work.chosen.clear();
        self.work.decided = Decided::TopK;
        let pages = self.ids.len();
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
    pub(super) fn check_batch(
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

    /// The sampled decision's draw (docs/src/reference/simulation.md#sampled-decisions) of
    /// `k` pages from the scored groups into `chosen`, in rank order (as the simulation's:
    /// systematic sampling in slot order). When at most `k` pages score above 0 the
    /// decision is the top-k one: returns [`Decided::Certain`] and leaves `chosen` to
    /// [`Scheduler::best_pages`].
    pub(super) fn sample_pages(&mut self, cycle: u32, k: usize, salt: u64) -> Decided {
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
    pub(super) fn score_groups(
        &mut self,
        (cycle, k, decision): (u32, usize, Decision),
        arm: Option<usize>,
    ) {
        let policy = match &self.policy {
            Policy::Scorer(s) => s,
            // Invariant: `batch` draws an arm for a bandit's every batch (a bandit policy
            // always has its `LiveBandit`).
            Policy::Bandit(b) => &b.arms()[arm.expect("invariant: a bandit's batch has an arm")],
        };
        self.host_rates.set_budget(k, self.ids.len());
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
    pub(super) fn best_pages(&mut self, want: usize, salt: u64) {
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
    pub(super) fn apply_host_cap(&mut self, cap: usize, k: usize) -> usize {
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
}
