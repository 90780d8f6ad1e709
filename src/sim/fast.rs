//! The fast simulator: pages with equal statistics are scored once.
//!
//! A page's score depends only on its [`PageStats`] and the cycle, and pages change
//! statistics only when visited (k per cycle). Most pages share statistics with many
//! others (every page never visited since the warm-up with the same warm-up history, for
//! instance), so the simulator keeps pages in *groups* of equal statistics, and per cycle:
//!
//! 1. marks the pages that changed this cycle stale (only the cycle's change events);
//! 2. scores each live group once, with the compiled formula over columns of group
//!    statistics (G groups instead of P pages);
//! 3. sorts the groups by score and walks them best first, gathering pages until k are
//!    taken. Equal-score groups form one class whose pages are ordered by the seeded tie
//!    key; only the class that straddles rank k needs a selection among its pages
//!    (`select_nth_unstable`, linear; or, when the period's [`TieOrder`] is at hand and
//!    the class is large, a walk along the cycle's tie order that stops after the first
//!    pages of the class), and a class is ranked inside only when DCG needs the ranks of
//!    its stale pages (counted against its sorted stale keys, without sorting the rest);
//! 4. visits the chosen pages, moving each to the group of its new statistics.
//!
//! The cost per cycle is O(changes + G log G + k log k + size of the straddling class),
//! at most O(P) and usually far less; nothing is allocated per cycle once the buffers
//! have grown. Over a [`Prepared`](super::Prepared) period a run skips the warm-up: it
//! starts from a copy of the state the warm-up leaves ([`Warm`]), the same for every
//! scorer. The result is bit for bit the reference simulator's (tested).

use super::metrics::{Discounts, Outcome, Tally};
use super::scorer::ScoreBuffers;
use super::stats::{PageStats, StatsKey};
use super::{score_key, tie_key, tie_salt, Period, Scorer, SimConfig, TieOrder};
use rustc_hash::FxHashMap as HashMap;

const NONE: u32 = u32::MAX;

/// A live group in ranking order: sorted ascending, higher scores come first and equal
/// scores by group index. One `u128` sorts faster than a `(key, group)` pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Ranked(u128);

impl Ranked {
    fn new(score_key: u64, group: u32) -> Ranked {
        Ranked(((!score_key as u128) << 32) | group as u128)
    }

    /// The group's score key (equal for equal scores).
    fn key(self) -> u64 {
        !((self.0 >> 32) as u64)
    }

    fn group(self) -> u32 {
        self.0 as u32
    }
}

#[derive(Debug, Default, Clone)]
struct Group {
    stats: PageStats,
    members: Vec<u32>,
    stale: u32,
    /// Position in `Fast::live`, or NONE when the group is free.
    live_at: u32,
    /// Where this cycle's visits move its pages (unchanged, changed): valid when
    /// `moves_cycle` is the current cycle.
    moves_to: [u32; 2],
    moves_cycle: u32,
    /// The cycle in which the group belongs to the class straddling rank k (0: none).
    straddle_cycle: u32,
}

/// The fast simulator's state after a period's warm-up cycles. The warm-up visits every
/// page whatever the scorer, so the state is the same for every run over the period: a
/// [`Prepared`](super::Prepared) period takes it once and each run starts from a copy.
#[derive(Debug, Clone)]
pub(crate) struct Warm {
    /// Cycles simulated (the warm-up, or the whole period if shorter).
    cycles: usize,
    state: Fast,
}

impl Warm {
    /// Simulates the warm-up of `period` under `config`.
    pub(crate) fn new(period: &Period, config: &SimConfig) -> Warm {
        let mut state = Fast::default();
        let cycles = state.warm_up(period, config);
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
    group_of: Vec<u32>,
    position: Vec<u32>,
    stale: Vec<bool>,
    groups: Vec<Group>,
    free: Vec<u32>,
    live: Vec<u32>,
    index: HashMap<StatsKey, u32>,
    // Per-cycle buffers.
    group_stats: Vec<PageStats>,
    scores: Vec<f64>,
    ranked: Vec<Ranked>,
    class: Vec<(u64, u32)>,
    visited: Vec<u32>,
    scratch_groups: Vec<u32>,
    stale_keys: Vec<u64>,
    below: Vec<u32>,
    buffers: ScoreBuffers,
    discounts: Discounts,
}

impl Fast {
    fn reset(&mut self, pages: usize) {
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
        if self.groups.is_empty() {
            self.groups.push(Group::default());
        }
        let first = &mut self.groups[0];
        first.stats = PageStats::default();
        first.members.extend(0..pages as u32);
        first.stale = 0;
        first.live_at = 0;
        first.moves_cycle = 0;
        first.straddle_cycle = 0;
        self.live.push(0);
        self.index.insert(PageStats::default().key(), 0);
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
    fn restore(&mut self, warm: &Fast) {
        self.group_of.clone_from(&warm.group_of);
        self.position.clone_from(&warm.position);
        self.stale.clone_from(&warm.stale);
        let used = warm.groups.len();
        if self.groups.len() < used {
            self.groups.resize_with(used, Group::default);
        }
        for (group, from) in self.groups.iter_mut().zip(&warm.groups) {
            group.stats = from.stats;
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
        // Not `clone_from`: that would shrink the map to the warm-up's size, and the run
        // would grow it again.
        self.index.clear();
        self.index
            .extend(warm.index.iter().map(|(&key, &g)| (key, g)));
    }

    /// Starts a run over `period`: every page unvisited, then the warm-up cycles, which
    /// visit every page. Returns the number of cycles simulated; nothing is stale after.
    fn warm_up(&mut self, period: &Period, config: &SimConfig) -> usize {
        self.reset(period.pages());
        let cycles = config.warmup().min(period.len());
        for d in 1..=cycles {
            self.mark_changes(period, d);
            self.visit_everyone(d as u32);
        }
        cycles
    }

    /// Marks the pages that change at cycle `d` stale; returns how many were not yet.
    fn mark_changes(&mut self, period: &Period, d: usize) -> usize {
        let mut marked = 0;
        for &p in period.changes(d) {
            if !self.stale[p as usize] {
                self.stale[p as usize] = true;
                self.groups[self.group_of[p as usize] as usize].stale += 1;
                marked += 1;
            }
        }
        marked
    }

    /// The group holding pages with statistics `stats`, created if need be.
    fn group_for(&mut self, stats: PageStats) -> u32 {
        let key = stats.key();
        if let Some(&g) = self.index.get(&key) {
            return g;
        }
        let g = match self.free.pop() {
            Some(g) => g,
            None => {
                self.groups.push(Group::default());
                (self.groups.len() - 1) as u32
            }
        };
        let group = &mut self.groups[g as usize];
        group.stats = stats;
        group.stale = 0;
        group.moves_cycle = 0;
        group.straddle_cycle = 0;
        group.live_at = self.live.len() as u32;
        debug_assert!(group.members.is_empty());
        self.live.push(g);
        self.index.insert(key, g);
        g
    }

    /// Removes page `p` from its group, freeing the group if it empties.
    fn leave(&mut self, p: u32) {
        let g = self.group_of[p as usize] as usize;
        let at = self.position[p as usize] as usize;
        let group = &mut self.groups[g];
        group.members.swap_remove(at);
        if let Some(&moved) = group.members.get(at) {
            self.position[moved as usize] = at as u32;
        }
        if group.members.is_empty() {
            let live_at = group.live_at as usize;
            group.live_at = NONE;
            let key = group.stats.key();
            self.index.remove(&key);
            self.live.swap_remove(live_at);
            if let Some(&other) = self.live.get(live_at) {
                self.groups[other as usize].live_at = live_at as u32;
            }
            self.free.push(g as u32);
        }
    }

    fn join(&mut self, p: u32, g: u32) {
        let group = &mut self.groups[g as usize];
        self.group_of[p as usize] = g;
        self.position[p as usize] = group.members.len() as u32;
        group.members.push(p);
    }

    /// Visits the pages in `self.visited` at cycle `d`.
    fn visit_all(&mut self, d: u32) {
        let visited = std::mem::take(&mut self.visited);
        for &p in &visited {
            let old = self.group_of[p as usize] as usize;
            let changed = self.stale[p as usize];
            if changed {
                self.stale[p as usize] = false;
                self.groups[old].stale -= 1;
            }
            let group = &mut self.groups[old];
            if group.moves_cycle != d {
                group.moves_cycle = d;
                group.moves_to = [NONE; 2];
            }
            let new = match group.moves_to[changed as usize] {
                NONE => {
                    let mut stats = group.stats;
                    stats.visit(d, changed);
                    // Look the target up before `old` may be freed and reused.
                    let g = self.group_for(stats);
                    self.groups[old].moves_to[changed as usize] = g;
                    g
                }
                g => g,
            };
            self.leave(p);
            self.join(p, new);
        }
        self.visited = visited;
    }

    /// Visits every page at cycle `d` (a warm-up cycle): each group splits in two,
    /// wholesale.
    fn visit_everyone(&mut self, d: u32) {
        let olds = std::mem::take(&mut self.scratch_groups);
        let mut olds = olds;
        olds.clear();
        olds.extend_from_slice(&self.live);
        for &g in &olds {
            let mut members = std::mem::take(&mut self.groups[g as usize].members);
            let stats = self.groups[g as usize].stats;
            // Retire the old group (all its pages leave); it is freed once its pages
            // have found their new groups, so it cannot be reused as one of them.
            let group = &mut self.groups[g as usize];
            group.stale = 0;
            let live_at = group.live_at as usize;
            group.live_at = NONE;
            self.index.remove(&stats.key());
            self.live.swap_remove(live_at);
            if let Some(&other) = self.live.get(live_at) {
                self.groups[other as usize].live_at = live_at as u32;
            }
            // Unchanged pages first, then changed ones.
            let stale = &self.stale;
            let split = itertools::partition(&mut members, |&p| !stale[p as usize]);
            for (changed, pages) in [(false, &members[..split]), (true, &members[split..])] {
                if pages.is_empty() {
                    continue;
                }
                let mut next = stats;
                next.visit(d, changed);
                let target = self.group_for(next);
                let group = &mut self.groups[target as usize];
                for &p in pages {
                    self.group_of[p as usize] = target;
                    self.position[p as usize] = group.members.len() as u32;
                    group.members.push(p);
                    self.stale[p as usize] = false;
                }
            }
            members.clear();
            self.groups[g as usize].members = members;
            self.free.push(g);
        }
        self.scratch_groups = olds;
    }

    pub(crate) fn run(
        &mut self,
        period: &Period,
        scorer: &Scorer,
        config: &SimConfig,
        prepared: Option<(&TieOrder, &Warm)>,
    ) -> Outcome {
        let pages = period.pages();
        let k = config.k(pages);
        let warmup = config.warmup();
        self.discounts.up_to(k);
        let (order, first) = match prepared {
            Some((order, warm)) => {
                self.restore(&warm.state);
                (Some(order), warm.cycles + 1)
            }
            None => (None, self.warm_up(period, config) + 1),
        };
        // Nothing is stale after the warm-up.
        let mut stale_count = 0usize;
        let mut outcome = Outcome::default();
        outcome.cycles.reserve(period.len().saturating_sub(warmup));
        for d in first..=period.len() {
            stale_count += self.mark_changes(period, d);
            let cycle = d as u32;
            // 2. Score each live group once.
            self.group_stats.clear();
            let groups = &self.groups;
            self.group_stats
                .extend(self.live.iter().map(|&g| groups[g as usize].stats));
            self.scores.resize(self.live.len(), 0.0);
            scorer.score_into(
                &self.group_stats,
                cycle,
                &mut self.scores,
                &mut self.buffers,
            );
            // 3. Walk groups best first.
            self.ranked.clear();
            self.ranked.extend(
                self.scores
                    .iter()
                    .zip(&self.live)
                    .map(|(&s, &g)| Ranked::new(score_key(s), g)),
            );
            self.ranked.sort_unstable();
            let salt = tie_salt(config.seed(), cycle);
            let stale_before = stale_count;
            let (mut taken, mut found, mut dcg, mut newly) = (0usize, 0usize, 0.0f64, 0usize);
            self.visited.clear();
            let mut start = 0;
            while taken < k {
                let key = self.ranked[start].key();
                let mut end = start;
                let (mut size, mut stale) = (0usize, 0usize);
                while end < self.ranked.len() && self.ranked[end].key() == key {
                    let group = &self.groups[self.ranked[end].group() as usize];
                    size += group.members.len();
                    stale += group.stale as usize;
                    end += 1;
                }
                let class_groups = &self.ranked[start..end];
                let room = k - taken;
                let partial = size > room;
                let whole_is_uniform = stale == 0 || stale == size;
                if !partial && whole_is_uniform {
                    // Every page of the class is visited and all or none are stale: the
                    // ranks are taken..taken+size whatever the order inside the class.
                    for g in class_groups.iter().map(|r| r.group()) {
                        let group = &self.groups[g as usize];
                        self.visited.extend_from_slice(&group.members);
                        if group.stats.last_visit as usize <= warmup {
                            newly += group.members.len();
                        }
                    }
                    if stale > 0 {
                        for rank in taken + 1..=taken + size {
                            dcg += self.discounts.of(rank);
                        }
                        found += stale;
                    }
                    taken += size;
                } else if let Some(pages_in_order) = order
                    .filter(|_| partial && size * size > room * pages)
                    .map(|o| o.cycle(d))
                {
                    // A large straddling class with the cycle's tie order at hand: walk
                    // the order and take the first `room` pages of the class (about
                    // room · P / size steps instead of touching all `size` pages). They
                    // come out in rank order.
                    for g in class_groups.iter().map(|r| r.group()) {
                        self.groups[g as usize].straddle_cycle = cycle;
                    }
                    let mut rank = taken;
                    for &p in pages_in_order {
                        let g = self.group_of[p as usize] as usize;
                        if self.groups[g].straddle_cycle != cycle {
                            continue;
                        }
                        rank += 1;
                        if self.stale[p as usize] {
                            found += 1;
                            dcg += self.discounts.of(rank);
                        }
                        if self.groups[g].stats.last_visit as usize <= warmup {
                            newly += 1;
                        }
                        self.visited.push(p);
                        if rank == k {
                            break;
                        }
                    }
                    taken = k;
                } else {
                    // The class's pages in tie-key order: take the first `room` (a
                    // linear selection), and rank its stale pages among them without
                    // sorting the rest.
                    self.class.clear();
                    for g in class_groups.iter().map(|r| r.group()) {
                        let group = &self.groups[g as usize];
                        self.class
                            .extend(group.members.iter().map(|&p| (tie_key(salt, p), p)));
                    }
                    let take = size.min(room);
                    if partial {
                        self.class.select_nth_unstable(take - 1);
                        self.class.truncate(take);
                    }
                    self.stale_keys.clear();
                    for &(key, p) in &self.class {
                        if self.stale[p as usize] {
                            self.stale_keys.push(key);
                        }
                        let g = self.group_of[p as usize] as usize;
                        if self.groups[g].stats.last_visit as usize <= warmup {
                            newly += 1;
                        }
                        self.visited.push(p);
                    }
                    if !self.stale_keys.is_empty() {
                        self.stale_keys.sort_unstable();
                        // below[j]: fresh pages ranked after j stale pages of the class.
                        self.below.clear();
                        self.below.resize(self.stale_keys.len() + 1, 0);
                        for &(key, p) in &self.class {
                            if !self.stale[p as usize] {
                                let j = self.stale_keys.partition_point(|&s| s < key);
                                self.below[j] += 1;
                            }
                        }
                        let mut fresh_before = 0usize;
                        for j in 0..self.stale_keys.len() {
                            fresh_before += self.below[j] as usize;
                            dcg += self.discounts.of(taken + 1 + j + fresh_before);
                        }
                        found += self.stale_keys.len();
                    }
                    taken += take;
                }
                start = end;
            }
            // 4. Visit.
            self.visit_all(cycle);
            stale_count -= found;
            let idcg = self.discounts.ideal(stale_before.min(k));
            outcome.cycles.push(
                Tally {
                    cycle: d,
                    pages,
                    visited: k,
                    stale_before,
                    stale_after: stale_count,
                    found,
                    newly,
                    dcg,
                    ideal_dcg: idcg,
                }
                .metrics(),
            );
        }
        outcome
    }

    /// Number of groups alive at the end of the last run (a measure of how much the
    /// grouping saved).
    pub(crate) fn live_groups(&self) -> usize {
        self.live.len()
    }
}
