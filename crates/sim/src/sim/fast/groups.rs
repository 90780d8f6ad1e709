//! The fast simulator's state: every page in a group of pages of equal state (a
//! [`PageState`] and the pages holding it), the index of the states the current cycle's
//! visits created, the per-cycle buffers; starting a run (every page unvisited, then the
//! warm-up, or a copy of a [`Warm`] state) and moving pages between groups.

use super::super::flat::Flat;
use super::super::metrics::Discounts;
use super::super::rank::Ranked;
use super::super::{Period, SimConfig};
use crate::policy::{Baseline, Histories, PageState, PageStats, Policy, Surroundings};
use crate::policy::{ScoreBuffers, StateKey, Track};
use rustc_hash::FxHashMap as HashMap;

/// No group (a free group's position in `Fast::live`, a move not made this cycle).
pub(super) const NONE: u32 = u32::MAX;

/// A group of pages in equal state. The fields read per page in the walks (the straddle
/// mark, then the page state's last visit) come first, so one cache line serves both.
#[derive(Debug, Default, Clone)]
#[repr(C)]
pub(super) struct Group {
    /// The cycle in which the group belongs to the class straddling rank k (0: none).
    pub(super) straddle_cycle: u32,
    pub(super) stale: u32,
    pub(super) page: PageState,
    pub(super) members: Vec<u32>,
    /// Position in `Fast::live`, or NONE when the group is free.
    pub(super) live_at: u32,
    pub(super) moves_cycle: u32,
    /// Where this cycle's visits move its pages (unchanged, changed): valid when
    /// `moves_cycle` is the current cycle.
    pub(super) moves_to: [u32; 2],
}

/// The fast simulator's state after a period's warm-up cycles. The warm-up visits every
/// page whatever the policy, so for every policy without memory the state is the same for
/// every run over the period: a [`Prepared`](crate::sim::Prepared) period takes it once and each
/// run starts from a copy.
#[derive(Debug, Clone)]
pub(crate) struct Warm {
    /// Cycles simulated (the warm-up, or the whole period if shorter).
    pub(super) cycles: usize,
    pub(super) state: Fast,
}

impl Warm {
    /// Simulates the warm-up of `period` under `config`.
    pub(crate) fn new(period: &Period, config: &SimConfig) -> Warm {
        let mut state = Fast::default();
        // Any policy without memory leaves the same state: the warm-up visits every page.
        let cycles = state.warm_up(period, &Policy::from(Baseline::Rand), config);
        Warm { cycles, state }
    }

    /// Whether this warm-up belongs to `period` simulated under `config`.
    pub(crate) fn fits(&self, period: &Period, config: &SimConfig) -> bool {
        self.cycles == config.warmup().min(period.len())
            && self.state.group_of.len() == period.pages()
    }
}

/// Reusable state and buffers of the fast simulator.
#[derive(Debug, Default, Clone)]
pub(crate) struct Fast {
    pub(super) group_of: Vec<u32>,
    pub(super) position: Vec<u32>,
    pub(super) stale: Vec<bool>,
    pub(super) groups: Vec<Group>,
    pub(super) free: Vec<u32>,
    pub(super) live: Vec<u32>,
    /// The groups of the states the current cycle's visits created (before the first
    /// visit, of the pages' fresh states), while pages of equal state are merged
    /// (`merge`). A visit gives a page a state whose last visit is the current cycle, so
    /// no lookup asks for an earlier cycle's state: the index is cleared when a cycle's
    /// visits begin, and entries are not removed when a group is freed. An entry
    /// `key → g` is used only while `g` is live in state `key` ([`Fast::indexed`]). A
    /// group visited whole takes its new state without an entry, so two groups may share
    /// a state; scores do not depend on grouping (equal scores form one class whatever
    /// the groups).
    pub(super) index: HashMap<StateKey, u32>,
    /// Whether pages of equal state share a group. A run whose pages start mostly in
    /// groups of their own keeps one group per page instead: merging would find no
    /// partner and cost a hash lookup per visit. (A top-k run by a policy reading
    /// continuous weights goes to [`Flat`] instead; this serves a sampled decision.)
    /// Scores are the same either way (equal scores form one class whatever the groups).
    pub(super) merge: bool,
    // Per-cycle buffers.
    pub(super) group_pages: Vec<PageState>,
    pub(super) scores: Vec<f64>,
    pub(super) ranked: Vec<Ranked>,
    pub(super) class: Vec<(u64, u32)>,
    pub(super) visited: Vec<u32>,
    /// Groups every page of which is chosen this cycle (visited group by group).
    pub(super) whole: Vec<u32>,
    /// The pages that leave a group visited whole.
    pub(super) movers: Vec<u32>,
    pub(super) scratch_groups: Vec<u32>,
    pub(super) below: Vec<u32>,
    pub(super) buffers: ScoreBuffers,
    pub(super) discounts: Discounts,
    /// The ranks [`stale_ideal`](super::super::tally::stale_ideal) reads, reused.
    pub(super) ideal_ranks: Vec<u32>,
    // Tracked statistics: what the policy tracks, the visit histories, the host totals, and
    // the per-cycle host counts of a capped walk.
    pub(super) track: Track,
    pub(super) histories: Histories,
    pub(super) host_rates: Surroundings,
    pub(super) host_taken: Vec<u32>,
    pub(super) touched_hosts: Vec<u32>,
    pub(super) stale_pages: Vec<(u64, u32)>,
    /// Tie keys of the fewer side of a class ([`Fast::take_whole_class`]), sorted.
    pub(super) keys: Vec<u64>,
    /// Tie keys of the other side, each placed among `keys` by a binary search (unsorted).
    pub(super) others: Vec<u64>,
    // Sampled decisions: each group's score this cycle (by group index) and the positive
    // sampling weights with their numbers of pages, for a sampled decision.
    pub(super) group_score: Vec<f64>,
    pub(super) classes: Vec<(f64, u64)>,
    /// The per-page simulator, for runs whose pages share no state ([`Flat::suits`]).
    pub(super) flat: Flat,
    /// Whether runs skip the weighted sums (O(P) per cycle) when their policy needs none.
    pub(in crate::sim) unweighted: bool,
    /// Tests only: refuse every index hit (pages reaching one state from different groups
    /// are not merged) and rotate each class's groups after the sort, to check that no
    /// result depends on grouping or on the order of a class's groups.
    #[cfg(test)]
    pub(in crate::sim) scramble: bool,
}

impl Fast {
    /// Whether every run stays grouped: a scrambled simulator's, the tests', so that its
    /// runs check the grouped simulator even where the per-page one is faster.
    pub(super) fn grouped_only(&self) -> bool {
        #[cfg(test)]
        return self.scramble;
        #[cfg(not(test))]
        false
    }

    /// Every page of `period` unvisited, in the groups of `policy`'s fresh page states, for
    /// a run that visits `k` pages a cycle.
    pub(super) fn reset(&mut self, period: &Period, policy: &Policy, k: usize) {
        let pages = period.pages();
        self.track = policy.features().track();
        if self.track.has(Track::INTERVALS) {
            self.histories.trim();
        }
        self.host_rates = period.surroundings(self.track, k);
        self.host_taken.clear();
        self.host_taken.resize(period.hosts(), 0);
        self.touched_hosts.clear();
        let fresh = policy.fresh_page();
        self.reset_to(pages, fresh);
        if self.track.has_any(
            Track::WEIGHT
                .with(Track::HOST)
                .with(Track::GROUP)
                .with(Track::LATENT),
        ) {
            // Pages of other weights, hosts or groups start in groups of their own.
            for p in 0..pages as u32 {
                // `fresh` with this page's weight, host and group (what `fresh_page_of` gives,
                // without reading the policy's features again for every page).
                let mut stats = PageStats::new(
                    self.track,
                    period.weight(p),
                    period.host(p),
                    period.group(p),
                );
                stats.set_latent(period.latent(p));
                let page = PageState { stats, ..fresh };
                if page.key() != fresh.key() {
                    let g = self.group_for(page);
                    self.leave(p);
                    self.join(p, g);
                }
            }
            if self.live.len() * 2 > pages {
                self.merge = false;
                self.index.clear();
            }
        }
    }

    fn reset_to(&mut self, pages: usize, fresh: PageState) {
        self.group_of.clear();
        self.group_of.resize(pages, 0);
        self.position.clear();
        self.position.extend(0..pages as u32);
        self.stale.clear();
        self.stale.resize(pages, false);
        for g in &mut self.groups {
            g.members.clear();
        }
        self.free.clear();
        self.live.clear();
        self.index.clear();
        self.merge = true;
        if self.groups.is_empty() {
            self.groups.push(Group::default());
        }
        let first = &mut self.groups[0];
        first.page = fresh;
        first.members.extend(0..pages as u32);
        first.stale = 0;
        first.live_at = 0;
        first.moves_cycle = 0;
        first.straddle_cycle = 0;
        self.live.push(0);
        self.index.insert(fresh.key(), 0);
        for g in 1..self.groups.len() as u32 {
            self.groups[g as usize].live_at = NONE;
            self.free.push(g);
        }
        // Pop order: lowest index first, so runs are reproducible regardless of history.
        self.free.reverse();
    }

    /// Takes the state `warm` recorded, keeping this simulator's buffers. Groups that
    /// `warm` does not use are freed in the order a run from [`Fast::reset`] would have
    /// left them, so the state is exactly the one that run would reach.
    pub(super) fn restore(&mut self, warm: &Fast) {
        self.group_of.clone_from(&warm.group_of);
        self.position.clone_from(&warm.position);
        self.stale.clone_from(&warm.stale);
        let used = warm.groups.len();
        if self.groups.len() < used {
            self.groups.resize_with(used, Group::default);
        }
        for (group, from) in self.groups.iter_mut().zip(&warm.groups) {
            group.page = from.page;
            group.members.clone_from(&from.members);
            group.stale = from.stale;
            group.live_at = from.live_at;
            group.moves_to = from.moves_to;
            group.moves_cycle = from.moves_cycle;
            group.straddle_cycle = from.straddle_cycle;
        }
        for group in &mut self.groups[used..] {
            group.members.clear();
            group.live_at = NONE;
        }
        self.free.clear();
        self.free
            .extend((used as u32..self.groups.len() as u32).rev());
        self.free.extend_from_slice(&warm.free);
        self.live.clone_from(&warm.live);
        self.merge = warm.merge;
        // The warm-up's last states are never looked up again (see `index`).
        self.index.clear();
    }

    /// Starts a run over `period`: every page unvisited, then the warm-up cycles, which
    /// visit every page. Returns the number of cycles simulated; nothing is stale after.
    pub(super) fn warm_up(
        &mut self,
        period: &Period,
        policy: &Policy,
        config: &SimConfig,
    ) -> usize {
        self.reset(period, policy, config.k(period.pages()));
        let cycles = config.warmup().min(period.len());
        for d in 1..=cycles {
            self.mark_changes(period, d);
            self.visit_everyone(period, policy, d as u32);
        }
        cycles
    }

    /// Marks the pages that change at cycle `d` stale; returns how many were not yet.
    pub(super) fn mark_changes(&mut self, period: &Period, d: usize) -> usize {
        let mut marked = 0;
        for &p in period.changes(d) {
            // Without a branch on whether `p` was stale already, which is hard to predict.
            let newly = !std::mem::replace(&mut self.stale[p as usize], true);
            self.groups[self.group_of[p as usize] as usize].stale += newly as u32;
            marked += newly as usize;
        }
        marked
    }

    /// The group holding pages in state `page`, created if need be.
    pub(super) fn group_for(&mut self, page: PageState) -> u32 {
        let key = page.key();
        if self.merge {
            if let Some(g) = self.indexed(&key) {
                return g;
            }
        }
        let g = match self.free.pop() {
            Some(g) => g,
            None => {
                self.groups.push(Group::default());
                (self.groups.len() - 1) as u32
            }
        };
        let group = &mut self.groups[g as usize];
        group.page = page;
        group.stale = 0;
        group.moves_cycle = 0;
        group.straddle_cycle = 0;
        group.live_at = self.live.len() as u32;
        debug_assert!(group.members.is_empty());
        self.live.push(g);
        if self.merge {
            self.index.insert(key, g);
        }
        g
    }

    /// The group the index gives for `key`, if it still holds: live and in that state.
    #[inline]
    pub(super) fn indexed(&self, key: &StateKey) -> Option<u32> {
        #[cfg(test)]
        if self.scramble {
            return None;
        }
        let &g = self.index.get(key)?;
        let group = &self.groups[g as usize];
        (group.live_at != NONE && group.page.key() == *key).then_some(g)
    }

    /// Removes page `p` from its group, freeing the group if it empties.
    #[inline]
    pub(super) fn leave(&mut self, p: u32) {
        let g = self.group_of[p as usize] as usize;
        let at = self.position[p as usize] as usize;
        let group = &mut self.groups[g];
        group.members.swap_remove(at);
        if let Some(&moved) = group.members.get(at) {
            self.position[moved as usize] = at as u32;
        }
        if group.members.is_empty() {
            self.retire(g as u32);
        }
    }

    /// Frees group `g`, which holds no page any more.
    pub(super) fn retire(&mut self, g: u32) {
        let group = &mut self.groups[g as usize];
        debug_assert!(group.members.is_empty());
        group.stale = 0;
        let live_at = group.live_at as usize;
        // Its index entry, if any, no longer holds (`Fast::indexed`).
        group.live_at = NONE;
        self.live.swap_remove(live_at);
        if let Some(&other) = self.live.get(live_at) {
            self.groups[other as usize].live_at = live_at as u32;
        }
        self.free.push(g);
    }

    #[inline]
    pub(super) fn join(&mut self, p: u32, g: u32) {
        let group = &mut self.groups[g as usize];
        self.group_of[p as usize] = g;
        self.position[p as usize] = group.members.len() as u32;
        group.members.push(p);
    }
}
