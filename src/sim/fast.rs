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
//! 3. sorts the groups by score (an uncapped top-k walk over many groups: only the
//!    groups down to the k-th's score, after a linear selection) and walks them best
//!    first, gathering pages until k are taken. Equal-score groups form one class whose pages are ordered by the seeded tie
//!    key; only the class that straddles rank k needs a selection among its pages
//!    (`select_nth_unstable`, linear; or, when the period's [`TieOrder`] is at hand and
//!    the class is large, a walk along the cycle's tie order that stops after the first
//!    pages of the class), and a class is ranked inside only when DCG needs the ranks of
//!    its stale pages (the fewer of its stale and fresh pages sorted, the others counted
//!    between them; a run that tallies weights sorts the stale ones, whose weights it
//!    adds in rank order);
//! 4. visits the chosen pages. A group chosen whole (most are: only the class that
//!    straddles rank k is taken in part) is visited as a group: its pages split by
//!    whether they changed, the larger part keeps the group under its new statistics,
//!    and only the other part moves, page by page. Pages of a group chosen in part move
//!    one by one to the group of their new statistics.
//!
//! The cost per cycle is O(changes + G log G + k log k + size of the straddling class)
//! (G + k log k for the uncapped top-k walk over more than 4k groups),
//! at most O(P) and usually far less; nothing is allocated per cycle once the buffers
//! have grown. Over a [`Prepared`](super::Prepared) period a run skips the warm-up: it
//! starts from a copy of the state the warm-up leaves ([`Warm`]), the same for every
//! policy without memory. The result is bit for bit the reference simulator's (tested).
//!
//! A run whose pages would hardly share a group (a top-k decision by a policy that reads
//! continuous weights) goes to the per-page simulator instead ([`Flat`]).

use super::bandit::Chooser;
use super::flat::{sort_chunk, Flat};
use super::metrics::{fresh_weight, Discounts, Outcome, Tally, WeightedTally};
use super::sample::{inclusion_scale, sample_u, settle, weight_of, Systematic};
use super::SimConfig;
use super::TieOrder;
use super::{score_key, tie_key, tie_salt, Decision, Period};
use crate::metric::CycleMetrics;
use crate::policy::{Baseline, Policy, ScoreBuffers};
use crate::policy::{Histories, HostRates, PageStats, Track, NO_HOST};
use crate::policy::{PageState, StateKey};
use rustc_hash::FxHashMap as HashMap;
use std::ops::Range;

const NONE: u32 = u32::MAX;

/// A live group in ranking order: sorted ascending, higher scores come first and equal
/// scores by group index (the per-page simulator sorts so; the grouped walk sorts by
/// score alone, [`sort_by_score`]). One `u128` sorts faster than a `(key, group)` pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Ranked(u128);

impl Ranked {
    pub(super) fn new(score_key: u64, group: u32) -> Ranked {
        Ranked(((!score_key as u128) << 32) | group as u128)
    }

    /// The group's score key (equal for equal scores).
    pub(super) fn key(self) -> u64 {
        !((self.0 >> 32) as u64)
    }

    /// The group (the page, in the per-page simulator).
    pub(super) fn group(self) -> u32 {
        self.0 as u32
    }
}

/// Sorts groups best score first, by score alone: the groups of one class (equal
/// scores) come in whatever order the unstable sort leaves them, the same for the same
/// input, and no result depends on it (a class's pages are ranked by their tie keys).
/// Comparing the score keys alone is cheaper than comparing whole `Ranked` values (the
/// sort took 5% of a GP run's instructions).
fn sort_by_score(ranked: &mut [Ranked]) {
    ranked.sort_unstable_by_key(|r| !r.key());
}

/// What one scored cycle's walk needs to know.
struct Walk<'a> {
    cycle: u32,
    k: usize,
    /// Pages in the period.
    pages: usize,
    warmup: usize,
    salt: u64,
    /// The cycle's pages in tie order, over a prepared period.
    order: Option<&'a [u32]>,
    /// The period (its pages' weights and hosts).
    period: &'a Period,
    /// The host cap (SPEC §8), if any.
    cap: Option<u32>,
    /// Whether the run tallies weighted sums: each stale page's rank is then needed
    /// with its weight, not only the ranks.
    weighted: bool,
}

/// The groups of one score (positions in `Fast::ranked`), their pages and stale pages.
struct Class {
    groups: Range<usize>,
    size: usize,
    stale: usize,
}

/// What a cycle's walk chose, so far.
#[derive(Default)]
pub(super) struct Chosen {
    pub(super) taken: usize,
    pub(super) found: usize,
    pub(super) newly: usize,
    dcg: f64,
    /// Σ w·g(rank) over the stale pages chosen (SPEC §8), with weights; read only when
    /// the walk tallies weights ([`Walk::weighted`]).
    dcg_w: f64,
}

impl Chosen {
    /// Counts a stale page at `rank`.
    #[inline]
    pub(super) fn stale_at(&mut self, rank: usize, weight: f64, discounts: &Discounts) {
        self.found += 1;
        self.dcg += discounts.of(rank);
        self.dcg_w += weight * discounts.of(rank);
    }

    /// Counts a stale page at `rank` in a walk that tallies no weights (`dcg_w` left).
    #[inline]
    fn stale_unweighted_at(&mut self, rank: usize, discounts: &Discounts) {
        self.found += 1;
        self.dcg += discounts.of(rank);
    }
}

/// The ideal weighted DCG of a cycle (SPEC §8): over the weights of the pages stale
/// before the visits (`stale`), the best `m`, read off the pages of `period` in
/// descending weight order ([`Period::by_weight`]) until `m` stale ones are met. The
/// sum runs in that order, as [`weighted_ideal`](super::metrics::weighted_ideal)'s
/// (pages of equal weight add equal terms, in any order), so the value is its bit for
/// bit.
pub(super) fn stale_ideal(
    (stale, period): (&[bool], &Period),
    m: usize,
    discounts: &Discounts,
) -> f64 {
    let mut sum = 0.0;
    let mut j = 0;
    if m == 0 {
        return sum;
    }
    for &p in period.by_weight() {
        if stale[p as usize] {
            j += 1;
            sum += discounts.of(j) * period.weight(p);
            if j == m {
                break;
            }
        }
    }
    sum
}

/// Whether a run tallies its weighted sums: over a weighted period, unless `unweighted`
/// asks to skip them and the policy (no bandit rewarded by them) needs none.
pub(super) fn tallies_weights(period: &Period, policy: &Policy, unweighted: bool) -> bool {
    let needed = !unweighted || matches!(policy, Policy::Bandit(_));
    period.weights().is_some() && needed
}

/// Cycle `d`'s metrics from what its `chosen` pages found, the stale counts before and
/// after the visits, and (with weights) the ideal weighted DCG from [`stale_ideal`]
/// (`None` over a weighted period: the weighted sums were not tallied).
pub(super) fn cycle_tally(
    (d, k, period): (usize, usize, &Period),
    (stale_before, stale_after): (usize, usize),
    chosen: &Chosen,
    ideal_w: Option<f64>,
    (stale, discounts): (&[bool], &Discounts),
) -> CycleMetrics {
    let weighted = period.weights().map(|weights| match ideal_w {
        Some(ideal) => WeightedTally {
            dcg: chosen.dcg_w,
            ideal_dcg: ideal,
            fresh: fresh_weight(stale, weights),
            total: period.total_weight(),
        },
        None => WeightedTally::NOT_TALLIED,
    });
    Tally {
        cycle: d,
        pages: period.pages(),
        visited: chosen.taken,
        stale_before,
        stale_after,
        found: chosen.found,
        newly: chosen.newly,
        dcg: chosen.dcg,
        ideal_dcg: discounts.ideal(stale_before.min(k)),
        weighted,
    }
    .metrics(k)
}

/// Appends the tie keys of `members` (under `salt`) to `yes` where `side` holds and to
/// `no` where it does not. Without a branch per page: a class's stale and fresh pages
/// interleave at random, and a branch on the side would be mispredicted half the time.
fn split_keys(
    (members, salt): (&[u32], u64),
    side: impl Fn(u32) -> bool,
    yes: &mut Vec<u64>,
    no: &mut Vec<u64>,
) {
    let (mut y, mut n) = (yes.len(), no.len());
    yes.resize(y + members.len(), 0);
    no.resize(n + members.len(), 0);
    for &p in members {
        let (key, on) = (tie_key(salt, p), side(p));
        // Both written; only the side's position moves on.
        yes[y] = key;
        no[n] = key;
        y += on as usize;
        n += !on as usize;
    }
    yes.truncate(y);
    no.truncate(n);
}

/// A group of pages in equal state. The fields read per page in the walks (the straddle
/// mark, then the page state's last visit) come first, so one cache line serves both.
#[derive(Debug, Default, Clone)]
#[repr(C)]
struct Group {
    /// The cycle in which the group belongs to the class straddling rank k (0: none).
    straddle_cycle: u32,
    stale: u32,
    page: PageState,
    members: Vec<u32>,
    /// Position in `Fast::live`, or NONE when the group is free.
    live_at: u32,
    moves_cycle: u32,
    /// Where this cycle's visits move its pages (unchanged, changed): valid when
    /// `moves_cycle` is the current cycle.
    moves_to: [u32; 2],
}

/// The fast simulator's state after a period's warm-up cycles. The warm-up visits every
/// page whatever the policy, so for every policy without memory the state is the same for
/// every run over the period: a [`Prepared`](super::Prepared) period takes it once and each
/// run starts from a copy.
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
        // Any policy without memory leaves the same state: the warm-up visits every page.
        let cycles = state.warm_up(period, &Policy::Baseline(Baseline::Rand), config);
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
    /// The groups of the states the current cycle's visits created (before the first
    /// visit, of the pages' fresh states), while pages of equal state are merged
    /// (`merge`). A visit gives a page a state whose last visit is the current cycle, so
    /// no lookup asks for an earlier cycle's state: the index is cleared when a cycle's
    /// visits begin, and entries are not removed when a group is freed. An entry
    /// `key → g` is used only while `g` is live in state `key` ([`Fast::indexed`]). A
    /// group visited whole takes its new state without an entry, so two groups may share
    /// a state; scores do not depend on grouping (equal scores form one class whatever
    /// the groups).
    index: HashMap<StateKey, u32>,
    /// Whether pages of equal state share a group. A run whose pages start mostly in
    /// groups of their own keeps one group per page instead: merging would find no
    /// partner and cost a hash lookup per visit. (A top-k run by a policy reading
    /// continuous weights goes to [`Flat`] instead; this serves a sampled decision.)
    /// Scores are the same either way (equal scores form one class whatever the groups).
    merge: bool,
    // Per-cycle buffers.
    group_pages: Vec<PageState>,
    scores: Vec<f64>,
    ranked: Vec<Ranked>,
    class: Vec<(u64, u32)>,
    visited: Vec<u32>,
    /// Groups every page of which is chosen this cycle (visited group by group).
    whole: Vec<u32>,
    /// The pages that leave a group visited whole.
    movers: Vec<u32>,
    scratch_groups: Vec<u32>,
    below: Vec<u32>,
    buffers: ScoreBuffers,
    discounts: Discounts,
    // SPEC §8: what the policy tracks, the visit histories, the host totals, and the
    // per-cycle host counts of a capped walk.
    track: Track,
    histories: Histories,
    host_rates: HostRates,
    host_taken: Vec<u32>,
    touched_hosts: Vec<u32>,
    stale_pages: Vec<(u64, u32)>,
    /// Tie keys of the fewer side of a class ([`Fast::take_whole_class`]), sorted.
    keys: Vec<u64>,
    /// Tie keys of the other side, each placed among `keys` by a binary search (unsorted).
    others: Vec<u64>,
    // SPEC §11: each group's score this cycle (by group index) and the positive sampling
    // weights with their numbers of pages, for a sampled decision.
    group_score: Vec<f64>,
    classes: Vec<(f64, u64)>,
    /// The per-page simulator, for runs whose pages share no state ([`Flat::suits`]).
    flat: Flat,
    /// Whether runs skip the weighted sums (O(P) per cycle) when their policy needs none.
    pub(super) unweighted: bool,
    /// Tests only: refuse every index hit (pages reaching one state from different groups
    /// are not merged) and rotate each class's groups after the sort, to check that no
    /// result depends on grouping or on the order of a class's groups.
    #[cfg(test)]
    pub(super) scramble: bool,
}

impl Fast {
    /// Every page of `period` unvisited, in the groups of `policy`'s fresh page states.
    fn reset(&mut self, period: &Period, policy: &Policy) {
        let pages = period.pages();
        self.track = policy.features().track();
        if self.track.has(Track::INTERVALS) {
            self.histories.trim();
        }
        self.host_rates = period.rates(self.track);
        self.host_taken.clear();
        self.host_taken.resize(period.hosts(), 0);
        self.touched_hosts.clear();
        let fresh = policy.fresh_page();
        self.reset_to(pages, fresh);
        if self
            .track
            .has_any(Track::WEIGHT.with(Track::HOST).with(Track::GROUP))
        {
            // Pages of other weights, hosts or groups start in groups of their own.
            for p in 0..pages as u32 {
                // `fresh` with this page's weight, host and group (what `fresh_page_of` gives,
                // without reading the policy's features again for every page).
                let page = PageState {
                    stats: PageStats::new(
                        self.track,
                        period.weight(p),
                        period.host(p),
                        period.group(p),
                    ),
                    ..fresh
                };
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
    fn restore(&mut self, warm: &Fast) {
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
    fn warm_up(&mut self, period: &Period, policy: &Policy, config: &SimConfig) -> usize {
        self.reset(period, policy);
        let cycles = config.warmup().min(period.len());
        for d in 1..=cycles {
            self.mark_changes(period, d);
            self.visit_everyone(period, policy, d as u32);
        }
        cycles
    }

    /// Marks the pages that change at cycle `d` stale; returns how many were not yet.
    fn mark_changes(&mut self, period: &Period, d: usize) -> usize {
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
    fn group_for(&mut self, page: PageState) -> u32 {
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
    fn indexed(&self, key: &StateKey) -> Option<u32> {
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
    fn leave(&mut self, p: u32) {
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
    fn retire(&mut self, g: u32) {
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
    fn join(&mut self, p: u32, g: u32) {
        let group = &mut self.groups[g as usize];
        self.group_of[p as usize] = g;
        self.position[p as usize] = group.members.len() as u32;
        group.members.push(p);
    }

    /// Visits the groups in `self.whole` (every page of each) and then the pages in
    /// `self.visited` at cycle `d`.
    fn visit_all(&mut self, period: &Period, policy: &Policy, d: u32) {
        // Host and group totals are kept only for a policy that reads HR or GR.
        let tracks_hosts = self.track.has_any(Track::HOST.with(Track::GROUP));
        self.index.clear();
        let whole = std::mem::take(&mut self.whole);
        for &g in &whole {
            self.visit_group(g, period, policy, d, tracks_hosts);
        }
        self.whole = whole;
        let visited = std::mem::take(&mut self.visited);
        for &p in &visited {
            let old = self.group_of[p as usize] as usize;
            let changed = self.stale[p as usize];
            if tracks_hosts {
                self.host_rates
                    .record(period.host(p), period.group(p), changed);
            }
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
                    let mut page = group.page;
                    policy.visit(&mut page, d, changed, &mut self.histories);
                    // Look the target up before `old` may be freed and reused.
                    let g = self.group_for(page);
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

    /// Visits every page of group `g` at cycle `d`. Its pages split by whether they
    /// changed; the larger part keeps the group, whose state is updated in place, and
    /// only the other part moves page by page. A visit sets the last visit to `d`, so a
    /// new state is never the state of a group not yet visited this cycle.
    fn visit_group(
        &mut self,
        g: u32,
        period: &Period,
        policy: &Policy,
        d: u32,
        tracks_hosts: bool,
    ) {
        let group = &mut self.groups[g as usize];
        let (size, stale) = (group.members.len(), group.stale as usize);
        let page = group.page;
        group.stale = 0;
        // The part that stays: the changed pages when they are more than half.
        let stays_changed = stale * 2 > size;
        let mut movers = std::mem::take(&mut self.movers);
        movers.clear();
        if stale > 0 || tracks_hosts {
            // Each page written, the count moved on for a mover only: no branch on
            // whether it changed, which is as good as random.
            movers.resize(size, 0);
            let mut moving = 0;
            for &p in &self.groups[g as usize].members {
                let changed = std::mem::replace(&mut self.stale[p as usize], false);
                if tracks_hosts {
                    self.host_rates
                        .record(period.host(p), period.group(p), changed);
                }
                movers[moving] = p;
                moving += (changed != stays_changed) as usize;
            }
            movers.truncate(moving);
        }
        if !movers.is_empty() {
            let mut next = page;
            policy.visit(&mut next, d, !stays_changed, &mut self.histories);
            let target = self.group_for(next);
            for &p in &movers {
                self.leave(p);
                self.join(p, target);
            }
        }
        self.movers = movers;
        // The group takes its new state; its old index entry no longer holds, and the
        // new state is not indexed (a merge here is rare: one visit in a thousand in
        // a GP run, against a hash and two index operations for every group).
        let group = &mut self.groups[g as usize];
        policy.visit(&mut group.page, d, stays_changed, &mut self.histories);
        group.moves_cycle = 0;
    }

    /// Visits every page at cycle `d` (a warm-up cycle), group by group.
    fn visit_everyone(&mut self, period: &Period, policy: &Policy, d: u32) {
        let tracks_hosts = self.track.has_any(Track::HOST.with(Track::GROUP));
        self.index.clear();
        let mut olds = std::mem::take(&mut self.scratch_groups);
        olds.clear();
        olds.extend_from_slice(&self.live);
        // A group freed here was visited already; one taken from the free list is a new
        // state's, which no group of `olds` can reach before its own turn.
        for &g in &olds {
            self.visit_group(g, period, policy, d, tracks_hosts);
        }
        self.scratch_groups = olds;
    }

    /// Simulates `policy` over `period`: the warm-up (or, over a prepared period and for
    /// a policy without memory, a copy of its recorded state), then each scored cycle:
    /// mark, score and rank, choose, visit, tally.
    pub(crate) fn run(
        &mut self,
        period: &Period,
        policy: &Policy,
        config: &SimConfig,
        prepared: Option<(&TieOrder, &Warm)>,
    ) -> Outcome {
        if Flat::suits(period, policy, config) {
            return self.flat.run(period, policy, config, self.unweighted);
        }
        let pages = period.pages();
        let k = config.k(pages);
        self.discounts.up_to(k);
        let (order, first) = match prepared {
            // The recorded warm-up is every memoryless policy's that tracks nothing more.
            Some((order, warm))
                if !policy.remembers() && policy.features().track() == Track::NONE =>
            {
                self.restore(&warm.state);
                self.track = Track::NONE;
                self.host_taken.clear();
                self.host_taken.resize(period.hosts(), 0);
                (Some(order), warm.cycles + 1)
            }
            _ => (
                prepared.map(|(order, _)| order),
                self.warm_up(period, policy, config) + 1,
            ),
        };
        // Nothing is stale after the warm-up.
        let mut stale_count = 0usize;
        let mut outcome = Outcome::default();
        let mut chooser = Chooser::new(policy, config.seed(), config.metric());
        let tallied = tallies_weights(period, policy, self.unweighted);
        outcome
            .cycles
            .reserve(period.len().saturating_sub(config.warmup()));
        for d in first..=period.len() {
            stale_count += self.mark_changes(period, d);
            let cycle = d as u32;
            let capped = config.host_cap().is_some();
            self.score_and_rank(chooser.scorer(cycle), (cycle, k, capped), config.decision());
            let walk = Walk {
                cycle,
                k,
                pages,
                warmup: config.warmup(),
                salt: tie_salt(config.seed(), cycle),
                order: order.map(|o| o.cycle(d)),
                period,
                cap: config.host_cap(),
                weighted: tallied,
            };
            let stale_before = stale_count;
            let ideal_w = tallied
                .then(|| stale_ideal((&self.stale, period), stale_before.min(k), &self.discounts));
            let chosen = match config.decision() {
                Decision::Sample => self
                    .sample(&walk, config.seed())
                    .unwrap_or_else(|| self.choose(&walk)),
                Decision::TopK => self.choose(&walk),
            };
            self.visit_all(period, policy, cycle);
            stale_count -= chosen.found;
            let metrics = cycle_tally(
                (d, k, period),
                (stale_before, stale_count),
                &chosen,
                ideal_w,
                (&self.stale, &self.discounts),
            );
            outcome.choices.extend(chooser.reward(&metrics));
            outcome.cycles.push(metrics);
        }
        outcome
    }

    /// Step 2: scores each live group once (a rate policy first solves its rates over
    /// the groups, each counted with its pages) and sorts the groups best first (for an
    /// uncapped top-k walk over many groups, only the prefix it reads: [`Fast::rank_prefix`]).
    fn score_and_rank(
        &mut self,
        policy: &Policy,
        (cycle, k, capped): (u32, usize, bool),
        decision: Decision,
    ) {
        self.group_pages.clear();
        let groups = &self.groups;
        self.group_pages
            .extend(self.live.iter().map(|&g| groups[g as usize].page));
        self.scores.resize(self.live.len(), 0.0);
        let population = self
            .live
            .iter()
            .map(|&g| &groups[g as usize])
            .map(|group| (&group.page, group.members.len() as u32));
        let context = decision.scoring(policy.context(
            cycle,
            k,
            &self.host_rates,
            population,
            &mut self.buffers,
        ));
        policy.score_into(
            &self.group_pages,
            &context,
            &mut self.scores,
            &mut self.buffers,
        );
        self.ranked.clear();
        self.ranked.extend(
            self.scores
                .iter()
                .zip(&self.live)
                .map(|(&s, &g)| Ranked::new(score_key(s), g)),
        );
        if decision == Decision::TopK && !capped && k > 0 && self.ranked.len() > 4 * k {
            self.rank_prefix(k);
        } else {
            sort_by_score(&mut self.ranked);
        }
        #[cfg(test)]
        if self.scramble {
            // Every group of a class of two or more moves.
            for class in self.ranked.chunk_by_mut(|a, b| a.key() == b.key()) {
                class.rotate_left(1);
            }
        }
    }

    /// Leaves in `ranked` only the prefix of the ranking an uncapped top-k walk reads,
    /// sorted: every group ranked above the k-th, and the whole class (score) of the k-th.
    /// A live group holds a page at least, so the walk takes k pages inside it. O(G + k
    /// log k) instead of sorting all G groups.
    fn rank_prefix(&mut self, k: usize) {
        let end = sort_chunk(&mut self.ranked, k, sort_by_score);
        self.ranked.truncate(end);
    }

    /// Step 3 of a sampled decision (SPEC §11, see `sample.rs`): the inclusion
    /// probabilities from the groups' scores, systematic sampling over the pages in page
    /// order (O(P)), the drawn pages tallied in rank order. `None` when at most k pages
    /// have a positive score: the decision is then the top-k one ([`Fast::choose`]).
    fn sample(&mut self, walk: &Walk<'_>, seed: u64) -> Option<Chosen> {
        self.group_score.resize(self.groups.len(), 0.0);
        self.classes.clear();
        for (&g, &score) in self.live.iter().zip(&self.scores) {
            self.group_score[g as usize] = score;
            let s = weight_of(score);
            if s > 0.0 {
                self.classes
                    .push((s, self.groups[g as usize].members.len() as u64));
            }
        }
        let positive: u64 = self.classes.iter().map(|c| c.1).sum();
        if positive <= walk.k as u64 {
            return None;
        }
        let mut draw = Systematic::new(
            inclusion_scale(&mut self.classes, walk.k),
            sample_u(seed, walk.cycle),
        );
        self.visited.clear();
        self.whole.clear();
        for p in 0..walk.pages as u32 {
            let score = self.group_score[self.group_of[p as usize] as usize];
            if draw.draws(weight_of(score)) {
                self.visited.push(p);
            }
        }
        let (scores, group_of) = (&self.group_score, &self.group_of);
        let key = |p: u32| {
            let score = scores[group_of[p as usize] as usize];
            (!score_key(score), tie_key(walk.salt, p))
        };
        settle(&mut self.visited, walk.k, 0..walk.pages as u32, key);
        let mut chosen = Chosen::default();
        for &p in &self.visited {
            self.tally(p, walk, &mut chosen);
        }
        Some(chosen)
    }

    /// Step 3: walks the ranked groups class by class (a class: the groups of one score)
    /// until `k` pages are chosen into `self.visited`; tallies what they found.
    fn choose(&mut self, walk: &Walk<'_>) -> Chosen {
        let mut chosen = Chosen::default();
        self.visited.clear();
        self.whole.clear();
        let mut start = 0;
        while chosen.taken < walk.k && start < self.ranked.len() {
            let key = self.ranked[start].key();
            let mut end = start;
            let (mut size, mut stale) = (0usize, 0usize);
            while end < self.ranked.len() && self.ranked[end].key() == key {
                let group = &self.groups[self.ranked[end].group() as usize];
                size += group.members.len();
                stale += group.stale as usize;
                end += 1;
            }
            let class = Class {
                groups: start..end,
                size,
                stale,
            };
            let room = walk.k - chosen.taken;
            let partial = size > room;
            if walk.cap.is_some() {
                self.take_capped(&class, walk, &mut chosen);
            } else if !partial && (stale == 0 || (stale == size && !walk.weighted)) {
                self.take_uniform_class(&class, walk, &mut chosen);
            } else if !partial && !walk.weighted {
                self.take_whole_class(&class, walk, &mut chosen);
            } else if let Some(order) = walk
                .order
                .filter(|_| partial && size * size > room * walk.pages)
            {
                self.take_along_tie_order(&class, order, walk, &mut chosen);
            } else {
                self.take_by_selection(&class, walk, &mut chosen);
            }
            start = end;
        }
        for h in self.touched_hosts.drain(..) {
            self.host_taken[h as usize] = 0;
        }
        chosen
    }

    /// A class under a host cap (SPEC §8): its pages in rank order (the tie order), each
    /// taken unless its host has `cap` pages chosen this cycle, until `k` are chosen.
    fn take_capped(&mut self, class: &Class, walk: &Walk<'_>, chosen: &mut Chosen) {
        let cap = walk.cap.unwrap_or(u32::MAX);
        self.class.clear();
        // A class too large to sort cheaply is read off the cycle's tie order instead.
        let along_order = walk
            .order
            .filter(|_| class.size.saturating_mul(usize::BITS as usize) > walk.pages);
        match along_order {
            Some(order) => {
                for ranked in &self.ranked[class.groups.clone()] {
                    self.groups[ranked.group() as usize].straddle_cycle = walk.cycle;
                }
                let groups = &self.groups;
                let group_of = &self.group_of;
                self.class.extend(
                    order
                        .iter()
                        .filter(|&&p| {
                            groups[group_of[p as usize] as usize].straddle_cycle == walk.cycle
                        })
                        .map(|&p| (0, p)),
                );
                // Unmarked again: a later class of the same cycle may walk the order too.
                for ranked in &self.ranked[class.groups.clone()] {
                    self.groups[ranked.group() as usize].straddle_cycle = 0;
                }
            }
            None => {
                for ranked in &self.ranked[class.groups.clone()] {
                    let group = &self.groups[ranked.group() as usize];
                    self.class
                        .extend(group.members.iter().map(|&p| (tie_key(walk.salt, p), p)));
                }
                self.class.sort_unstable();
            }
        }
        for &(_, p) in &self.class {
            if chosen.taken == walk.k {
                break;
            }
            let h = walk.period.host(p);
            if h != NO_HOST {
                let taken = &mut self.host_taken[h as usize];
                if *taken >= cap {
                    continue;
                }
                if *taken == 0 {
                    self.touched_hosts.push(h);
                }
                *taken += 1;
            }
            self.tally(p, walk, chosen);
            self.visited.push(p);
        }
    }

    /// Counts page `p` as the next one chosen: its rank, whether it finds a change, whether
    /// it was not visited since the warm-up.
    #[inline]
    fn tally(&self, p: u32, walk: &Walk<'_>, chosen: &mut Chosen) {
        chosen.taken += 1;
        if self.stale[p as usize] {
            chosen.stale_at(chosen.taken, walk.period.weight(p), &self.discounts);
        }
        let g = self.group_of[p as usize] as usize;
        if self.groups[g].page.stats.last_visit as usize <= walk.warmup {
            chosen.newly += 1;
        }
    }

    /// A class visited whole whose pages are all stale or all fresh: its ranks are
    /// `taken + 1 ..= taken + size` whatever the order inside it.
    fn take_uniform_class(&mut self, class: &Class, walk: &Walk<'_>, chosen: &mut Chosen) {
        // (`choose`'s condition, which lets this skip the weighted DCG.)
        debug_assert!(class.stale == 0 || (class.stale == class.size && !walk.weighted));
        for ranked in &self.ranked[class.groups.clone()] {
            let group = &self.groups[ranked.group() as usize];
            self.whole.push(ranked.group());
            if group.page.stats.last_visit as usize <= walk.warmup {
                chosen.newly += group.members.len();
            }
        }
        if class.stale > 0 {
            // All stale, without weights (`choose` sends weighted ones to the selection).
            for rank in chosen.taken + 1..=chosen.taken + class.size {
                chosen.stale_unweighted_at(rank, &self.discounts);
            }
        }
        chosen.taken += class.size;
    }

    /// A class visited whole whose pages are partly stale, in a run that tallies no
    /// weights: the ranks of its stale pages in tie-key order, from sorting the tie keys
    /// of whichever of its stale and fresh pages are fewer and placing each of the others
    /// between them by a binary search (the others' keys are not sorted).
    fn take_whole_class(&mut self, class: &Class, walk: &Walk<'_>, chosen: &mut Chosen) {
        debug_assert!(!walk.weighted, "the weighted DCG is not added here");
        let stale_fewer = class.stale * 2 <= class.size;
        self.keys.clear();
        self.others.clear();
        for ranked in &self.ranked[class.groups.clone()] {
            let group = &self.groups[ranked.group() as usize];
            self.whole.push(ranked.group());
            if group.page.stats.last_visit as usize <= walk.warmup {
                chosen.newly += group.members.len();
            }
            let keys = group.members.iter().map(|&p| tie_key(walk.salt, p));
            let fewer = match stale_fewer {
                true => group.stale as usize,
                false => group.members.len() - group.stale as usize,
            };
            match fewer {
                0 => self.others.extend(keys),
                n if n == group.members.len() => self.keys.extend(keys),
                _ => split_keys(
                    (&group.members, walk.salt),
                    |p| self.stale[p as usize] == stale_fewer,
                    &mut self.keys,
                    &mut self.others,
                ),
            }
        }
        self.keys.sort_unstable();
        // below[j]: pages of the larger side ranked after exactly j of the smaller.
        self.below.clear();
        self.below.resize(self.keys.len() + 1, 0);
        for &key in &self.others {
            self.below[self.keys.partition_point(|&f| f < key)] += 1;
        }
        let mut rank = chosen.taken;
        for (j, &between) in self.below.iter().enumerate() {
            if stale_fewer {
                // `between` fresh pages, then stale page j (none after the last).
                rank += between as usize;
                if j < self.keys.len() {
                    rank += 1;
                    chosen.stale_unweighted_at(rank, &self.discounts);
                }
            } else {
                // `between` stale pages, then fresh page j.
                for _ in 0..between {
                    rank += 1;
                    chosen.stale_unweighted_at(rank, &self.discounts);
                }
                rank += 1;
            }
        }
        chosen.taken += class.size;
    }

    /// A large class straddling rank k, with the cycle's tie order at hand: walks the
    /// order and takes the first pages of the class (about room · P / size steps instead
    /// of touching all `size` pages). They come out in rank order.
    fn take_along_tie_order(
        &mut self,
        class: &Class,
        order: &[u32],
        walk: &Walk<'_>,
        chosen: &mut Chosen,
    ) {
        for ranked in &self.ranked[class.groups.clone()] {
            self.groups[ranked.group() as usize].straddle_cycle = walk.cycle;
        }
        let mut rank = chosen.taken;
        for &p in order {
            let g = self.group_of[p as usize] as usize;
            if self.groups[g].straddle_cycle != walk.cycle {
                continue;
            }
            rank += 1;
            if self.stale[p as usize] {
                chosen.stale_at(rank, walk.period.weight(p), &self.discounts);
            }
            if self.groups[g].page.stats.last_visit as usize <= walk.warmup {
                chosen.newly += 1;
            }
            self.visited.push(p);
            if rank == walk.k {
                break;
            }
        }
        chosen.taken = walk.k;
    }

    /// Any other class: its pages in tie-key order, the first `room` taken by a linear
    /// selection, and its stale pages ranked among them without sorting the rest.
    fn take_by_selection(&mut self, class: &Class, walk: &Walk<'_>, chosen: &mut Chosen) {
        self.class.clear();
        for ranked in &self.ranked[class.groups.clone()] {
            let group = &self.groups[ranked.group() as usize];
            self.class
                .extend(group.members.iter().map(|&p| (tie_key(walk.salt, p), p)));
        }
        let take = class.size.min(walk.k - chosen.taken);
        let whole = class.size == take;
        if whole {
            self.whole
                .extend(self.ranked[class.groups.clone()].iter().map(|r| r.group()));
        } else {
            self.class.select_nth_unstable(take - 1);
            self.class.truncate(take);
        }
        self.stale_pages.clear();
        for &(key, p) in &self.class {
            if self.stale[p as usize] {
                self.stale_pages.push((key, p));
            }
            let g = self.group_of[p as usize] as usize;
            if self.groups[g].page.stats.last_visit as usize <= walk.warmup {
                chosen.newly += 1;
            }
            if !whole {
                self.visited.push(p);
            }
        }
        if !self.stale_pages.is_empty() {
            self.stale_pages.sort_unstable();
            // below[j]: fresh pages ranked after j stale pages of the class.
            self.below.clear();
            self.below.resize(self.stale_pages.len() + 1, 0);
            for &(key, p) in &self.class {
                if !self.stale[p as usize] {
                    let j = self.stale_pages.partition_point(|&(s, _)| s < key);
                    self.below[j] += 1;
                }
            }
            let mut fresh_before = 0usize;
            for j in 0..self.stale_pages.len() {
                fresh_before += self.below[j] as usize;
                let weight = walk.period.weight(self.stale_pages[j].1);
                chosen.stale_at(chosen.taken + 1 + j + fresh_before, weight, &self.discounts);
            }
        }
        chosen.taken += take;
    }
}
