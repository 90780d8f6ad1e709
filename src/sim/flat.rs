//! The per-page simulator: for runs whose pages share no group of equal scores, one
//! score per page and a linear selection of the top k.
//!
//! The fast simulator ([`Fast`](super::fast)) gains by scoring each group of equal pages
//! once. A policy that reads the page weight (`w`) over a period of continuous weights
//! finds no group to share: every page is a group of its own, and the group bookkeeping
//! (a group created and freed per visit, the page states gathered per cycle) is pure
//! cost. Such a run is simulated here, the reference simulator's way but without its
//! O(P log P) sort: per cycle it
//!
//! 1. marks the pages that changed this cycle stale;
//! 2. scores every page in one batch over the page states, held in page order (or, for
//!    a formula whose only per-page terminals are `w` and `HR`, over the states pages
//!    share: [`Shared`]);
//! 3. ranks by a linear selection: the candidates, the pages whose score reaches a bound
//!    sampled a little below the k-th score, first; only the pages down to the k-th score are
//!    sorted (under a host cap, chunk after chunk until k pages are taken, the other
//!    pages after the candidates if need be), and only a class of equal scores is
//!    ordered by the seeded tie key;
//! 4. tallies the chosen pages in rank order and visits them (each page's state in place,
//!    or its move to another shared state).
//!
//! O(P + k log k) per cycle. The result is bit for bit the reference simulator's (the
//! sums run in rank order, as there; tested with the fast simulator's cases).
//!
//! **Invariant:** used only for the top-k decision ([`Decision::TopK`]); a sampled
//! decision keeps the grouped path.

use super::bandit::Chooser;
use super::metrics::{Discounts, Outcome};
use super::rank::{score_key, tie_key, tie_salt};
use super::rank::{sort_chunk, Ranked};
use super::shared::Shared;
use super::tally::{cycle_tally, stale_ideal, tallies_weights, Chosen};
use super::SimConfig;
use super::{Decision, Period};
use crate::policy::{Histories, Policy, Surroundings};
use crate::policy::{PageState, ScoreBuffers, Track, NO_HOST};

/// The per-page simulator's state and buffers, reused from one run to the next.
#[derive(Debug, Default, Clone)]
pub(crate) struct Flat {
    /// Each page's state, unless the run shares states.
    pages: Vec<PageState>,
    /// The states pages share, in a run that shares them ([`Shared::active`]).
    shared: Shared,
    stale: Vec<bool>,
    scores: Vec<f64>,
    /// The cycle's candidates (every page whose score key is at least `below`), then, if
    /// the candidates run out before k pages are taken, the other pages.
    ranked: Vec<Ranked>,
    /// The score key the candidates reach; the pages below it are not yet in `ranked`
    /// (`None`: every page is).
    below: Option<u64>,
    /// A sample of the cycle's score keys, for the candidates' bound.
    sample: Vec<u64>,
    /// One class of equal scores: (tie key, page).
    class: Vec<(u64, u32)>,
    visited: Vec<u32>,
    buffers: ScoreBuffers,
    discounts: Discounts,
    histories: Histories,
    host_rates: Surroundings,
    host_taken: Vec<u32>,
    touched_hosts: Vec<u32>,
}

/// What one cycle's choice needs to know.
struct Cycle<'a> {
    k: usize,
    warmup: usize,
    salt: u64,
    cap: Option<u32>,
    period: &'a Period,
}

impl Flat {
    /// Whether a run of `policy` over `period` under `config` is better simulated page by
    /// page: a top-k decision by a policy that reads the weights of a period with more
    /// than P/4 distinct weights (the grouped simulator would find few pages of equal
    /// state, and fewer after each visit splits them by history). The brdc12 preset's
    /// weights, rounded to 4 digits, are about 32% distinct at 100,000 pages; the
    /// commerce preset's, 68% at 20,000.
    pub(crate) fn suits(period: &Period, policy: &Policy, config: &SimConfig) -> bool {
        config.decision() == Decision::TopK
            && policy.features().track().has(Track::WEIGHT)
            && period.weights().is_some()
            && period.distinct_weights() * 4 > period.pages()
    }

    /// Simulates `policy` over `period` (any period and policy; [`Flat::suits`] says when
    /// it is the faster way).
    /// With `unweighted`, the weighted sums are skipped as in [`Fast`](super::fast).
    pub(crate) fn run(
        &mut self,
        period: &Period,
        policy: &Policy,
        config: &SimConfig,
        unweighted: bool,
    ) -> Outcome {
        let pages = period.pages();
        let k = config.k(pages);
        self.discounts.up_to(k);
        let track = policy.features().track();
        let first = self.warm_up(period, policy, config) + 1;
        let tracks_hosts = track.has_any(Track::HOST.with(Track::GROUP));
        let mut stale_count = 0usize;
        let mut outcome = Outcome::default();
        let mut chooser = Chooser::new(policy, config.seed(), config.metric());
        let tallied = tallies_weights(period, policy, unweighted);
        for d in first..=period.len() {
            stale_count += self.mark_changes(period, d);
            let cycle = d as u32;
            self.score(chooser.scorer(cycle), (period, cycle), k, config.decision());
            self.rank(if config.host_cap().is_some() {
                2 * k
            } else {
                k
            });
            let at = Cycle {
                k,
                warmup: config.warmup(),
                salt: tie_salt(config.seed(), cycle),
                cap: config.host_cap(),
                period,
            };
            let stale_before = stale_count;
            let ideal_w = tallied
                .then(|| stale_ideal((&self.stale, period), stale_before.min(k), &self.discounts));
            let found = self.choose(&at);
            let visited = std::mem::take(&mut self.visited);
            for &p in &visited {
                self.visit(period, policy, p, cycle, tracks_hosts);
            }
            self.shared.settle();
            self.visited = visited;
            stale_count -= found.found;
            let metrics = cycle_tally(
                (d, k, period),
                (stale_before, stale_count),
                &found,
                ideal_w,
                (&self.stale, &self.discounts),
            );
            outcome.choices.extend(chooser.reward(&metrics));
            outcome.cycles.push(metrics);
        }
        outcome
    }

    /// Every page in its fresh state, then the warm-up cycles, which visit every page.
    /// Returns the number of cycles simulated; nothing is stale after.
    fn warm_up(&mut self, period: &Period, policy: &Policy, config: &SimConfig) -> usize {
        let pages = period.pages() as u32;
        let track = policy.features().track();
        if track.has(Track::INTERVALS) {
            self.histories.trim();
        }
        self.host_rates = period.surroundings(track, config.k(period.pages()));
        self.host_taken.clear();
        self.host_taken.resize(period.hosts(), 0);
        self.touched_hosts.clear();
        self.pages.clear();
        if !self.shared.start(period, policy) {
            self.pages.extend(
                (0..pages).map(|p| {
                    policy.fresh_page_of(period.weight(p), period.host(p), period.group(p))
                }),
            );
        }
        self.stale.clear();
        self.stale.resize(pages as usize, false);
        let tracks_hosts = track.has_any(Track::HOST.with(Track::GROUP));
        let cycles = config.warmup().min(period.len());
        for d in 1..=cycles {
            self.mark_changes(period, d);
            for p in 0..pages {
                self.visit(period, policy, p, d as u32, tracks_hosts);
            }
            self.shared.settle();
        }
        cycles
    }

    /// Visits page `p` at cycle `d`: its state in place, its host's and group's totals
    /// when the policy reads them (`tracks_hosts`); it is fresh after.
    #[inline]
    fn visit(&mut self, period: &Period, policy: &Policy, p: u32, d: u32, tracks_hosts: bool) {
        let changed = self.stale[p as usize];
        if self.shared.active() {
            self.shared
                .visit(policy, p, (d, changed), &mut self.histories);
        } else {
            policy.visit(&mut self.pages[p as usize], d, changed, &mut self.histories);
        }
        if tracks_hosts {
            self.host_rates
                .record(period.host(p), period.group(p), changed);
        }
        self.stale[p as usize] = false;
    }

    /// Marks the pages that change at cycle `d` stale; returns how many were not yet.
    fn mark_changes(&mut self, period: &Period, d: usize) -> usize {
        let mut marked = 0;
        for &p in period.changes(d) {
            let stale = &mut self.stale[p as usize];
            marked += !*stale as usize;
            *stale = true;
        }
        marked
    }

    /// Scores every page at `cycle` (in one batch) into `self.scores`.
    fn score(
        &mut self,
        policy: &Policy,
        (period, cycle): (&Period, u32),
        k: usize,
        decision: Decision,
    ) {
        if self.shared.active() {
            let at = (cycle, &self.host_rates);
            self.shared
                .score(period, at, &mut self.scores, &mut self.buffers);
        } else {
            self.scores.resize(self.pages.len(), 0.0);
            let population = self.pages.iter().map(|page| (page, 1));
            let context = decision.scoring(policy.context(
                cycle,
                k,
                &self.host_rates,
                population,
                &mut self.buffers,
            ));
            policy.score_into(&self.pages, &context, &mut self.scores, &mut self.buffers);
        }
    }

    /// Puts the cycle's candidates into `self.ranked`, unsorted: every page whose score
    /// key reaches a bound that about `want` pages (and some more) reach, from a sample
    /// of the keys. Which pages are candidates changes no outcome: `choose` reads the
    /// candidates first, and the other pages, all of lower scores, only if it needs more.
    /// The selection then works on a few times k pages, not all P.
    fn rank(&mut self, want: usize) {
        let pages = self.scores.len();
        // Every (pages / SAMPLE)-th page; each sampled key stands for about that many.
        let step = pages.div_ceil(SAMPLE).max(1);
        self.sample.clear();
        self.sample
            .extend(self.scores.iter().step_by(step).map(|&s| score_key(s)));
        // Sampled keys expected above the want-th: want / step, with a margin.
        let reach = want / step + want / step / 4 + 8;
        self.below = (reach < self.sample.len())
            .then(|| *self.sample.select_nth_unstable_by(reach, |a, b| b.cmp(a)).1);
        let bound = self.below.unwrap_or(0);
        // A branch, not a branch-free write of every page: few pages are candidates, so
        // it is well predicted, and nothing is written for the others.
        self.ranked.clear();
        for (p, &s) in self.scores.iter().enumerate() {
            let key = score_key(s);
            if key >= bound {
                self.ranked.push(Ranked::new(key, p as u32));
            }
        }
    }

    /// Appends the pages below the candidates' bound to `self.ranked` (all of lower
    /// score than any candidate); false if there are none.
    fn rank_the_rest(&mut self) -> bool {
        let Some(bound) = self.below.take() else {
            return false;
        };
        let rest = (self.scores.iter().enumerate())
            .map(|(p, &s)| Ranked::new(score_key(s), p as u32))
            .filter(|r| r.key() < bound);
        self.ranked.extend(rest);
        true
    }

    /// Chooses the cycle's pages into `self.visited`, in rank order: chunks of the
    /// ranking, each sorted after a linear selection, walked class by class (a class: the
    /// pages of one score, in tie-key order) until k pages are taken. Without a cap the
    /// first chunk (down to the k-th score) is all it reads.
    fn choose(&mut self, at: &Cycle<'_>) -> Chosen {
        let mut found = Chosen::default();
        self.visited.clear();
        let mut start = 0;
        while found.taken < at.k && (start < self.ranked.len() || self.rank_the_rest()) {
            let room = at.k - found.taken;
            // Under a cap some pages are skipped: read ahead twice what is missing.
            let want = if at.cap.is_some() { room * 2 } else { room };
            let end =
                sort_chunk(&mut self.ranked[start..], want, <[Ranked]>::sort_unstable) + start;
            let mut i = start;
            while i < end && found.taken < at.k {
                let key = self.ranked[i].key();
                let mut j = i + 1;
                while j < end && self.ranked[j].key() == key {
                    j += 1;
                }
                self.take_class(i..j, at, &mut found);
                i = j;
            }
            start = end;
        }
        for h in self.touched_hosts.drain(..) {
            self.host_taken[h as usize] = 0;
        }
        found
    }

    /// The pages of the class `ranked[range]` in tie-key order, each taken unless its
    /// host has its cap of pages this cycle, until k are taken.
    fn take_class(&mut self, range: std::ops::Range<usize>, at: &Cycle<'_>, found: &mut Chosen) {
        if range.len() == 1 {
            let p = self.ranked[range.start].group();
            self.take(p, at, found);
            return;
        }
        let mut class = std::mem::take(&mut self.class);
        class.clear();
        class.extend(
            self.ranked[range]
                .iter()
                .map(|r| (tie_key(at.salt, r.group()), r.group())),
        );
        let room = at.k - found.taken;
        if at.cap.is_none() && class.len() > room {
            class.select_nth_unstable(room - 1);
            class.truncate(room);
        }
        class.sort_unstable();
        for &(_, p) in &class {
            if found.taken == at.k {
                break;
            }
            self.take(p, at, found);
        }
        self.class = class;
    }

    /// Takes page `p` as the next in rank order, unless the host cap forbids it.
    #[inline]
    fn take(&mut self, p: u32, at: &Cycle<'_>, found: &mut Chosen) {
        if let Some(cap) = at.cap {
            let h = at.period.host(p);
            if h != NO_HOST {
                let taken = &mut self.host_taken[h as usize];
                if *taken >= cap {
                    return;
                }
                if *taken == 0 {
                    self.touched_hosts.push(h);
                }
                *taken += 1;
            }
        }
        found.taken += 1;
        if self.stale[p as usize] {
            found.stale_at(found.taken, at.period.weight(p), &self.discounts);
        }
        let page = match self.shared.active() {
            true => self.shared.state(p),
            false => &self.pages[p as usize],
        };
        if page.stats.last_visit as usize <= at.warmup {
            found.newly += 1;
        }
        self.visited.push(p);
    }
}

/// Score keys sampled per cycle for the bound of the candidates ([`Flat::rank`]).
const SAMPLE: usize = 1024;

#[cfg(test)]
mod tests {
    use super::*;

    fn ranked(keys: &[u64]) -> Vec<Ranked> {
        keys.iter()
            .enumerate()
            .map(|(p, &k)| Ranked::new(k, p as u32))
            .collect()
    }

    #[test]
    fn a_chunk_holds_its_last_class_whole_and_sorted() {
        let mut r = ranked(&[5, 9, 7, 7, 1, 7, 3]);
        let end = sort_chunk(&mut r, 2, <[Ranked]>::sort_unstable);
        let got: Vec<(u64, u32)> = r[..end].iter().map(|r| (r.key(), r.group())).collect();
        assert_eq!(got, [(9, 1), (7, 2), (7, 3), (7, 5)]);
        let mut rest: Vec<u64> = r[end..].iter().map(|r| r.key()).collect();
        rest.sort_unstable();
        assert_eq!(rest, [1, 3, 5]);
    }

    #[test]
    fn a_chunk_larger_than_the_ranking_sorts_it_all() {
        let mut r = ranked(&[2, 8, 4]);
        assert_eq!(sort_chunk(&mut r, 5, <[Ranked]>::sort_unstable), 3);
        assert_eq!(r.iter().map(|r| r.key()).collect::<Vec<_>>(), [8, 4, 2]);
    }
}
