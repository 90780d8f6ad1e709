//! The per-page simulator: for runs whose pages share no group of equal scores, one
//! score per page and a linear selection of the top k.
//!
//! The fast simulator ([`Fast`](super::fast)) gains by scoring each group of equal pages
//! once. A policy that reads the page weight (`w`) over a period of continuous weights
//! finds no group to share: every page is a group of its own, and the group bookkeeping
//! (a group created and freed per visit, the page states gathered per cycle) is pure
//! cost. Such a run is simulated here, the reference simulator's way but without its
//! O(P log P) sort; so is a run under a host cap that leaves few pages per host (see
//! [`Flat::suits`]). Per cycle it
//!
//! 1. marks the pages that changed this cycle stale;
//! 2. scores every page in one batch over the page states, held in page order (or, for
//!    a formula whose only per-page terminals are `w` and `HR`, over the states pages
//!    share: [`Shared`]);
//! 3. under a host cap M, finds each host's M highest scores (the quotas), which leave
//!    out every page that the cap would skip;
//! 4. ranks by a linear selection: the candidates, the pages the quotas leave in whose
//!    score reaches a bound sampled a little below the k-th score, first; only the pages
//!    down to the k-th score are sorted (chunk after chunk until k pages are taken, the
//!    other pages after the candidates if need be), and only a class of equal scores is
//!    ordered by the seeded tie key;
//! 5. tallies the chosen pages in rank order and visits them in page order (each page's
//!    state in place, or its move to another shared state).
//!
//! O(P + k log k) per cycle. The result is bit for bit the reference simulator's (the
//! sums run in rank order, as there; tested with the fast simulator's cases).
//!
//! A sampled decision draws the pages instead of steps 3 and 4, as the grouped simulator
//! does ([`Flat::sample`]).

use super::bandit::Chooser;
use super::metrics::{Discounts, Outcome};
use super::rank::{score_key, tie_key, tie_salt};
use super::rank::{sort_chunk, Ranked};
use super::shared::Shared;
use super::tally::{cycle_tally, stale_ideal, tallies_weights, Chosen, WeightBounds};
use super::{inclusion_scale, sample_u, settle, weight_of, SimConfig, Systematic};
use super::{Decision, Period};
use crate::policy::{Histories, Policy, Scorer, Surroundings};
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
    /// The cycle's candidates (every page its host's quota leaves in whose score key is at
    /// least `below`), then, if the candidates run out before k pages are taken, the other
    /// pages the quotas leave in.
    ranked: Vec<Ranked>,
    /// The score key the candidates reach; the pages below it are not yet in `ranked`
    /// (`None`: every page is).
    below: Option<u64>,
    /// A sample of the cycle's score keys (of pages the quotas leave in), for the
    /// candidates' bound.
    sample: Vec<u64>,
    /// Under a host cap c, each host's c highest score keys this cycle, as their
    /// complements (`!key`), lowest first (`c` slots per host, [`keep_lowest`]); empty
    /// when the quota pass is off ([`Flat::quotas`]).
    quota: Vec<u64>,
    /// The cap the quota slots are laid out for (0: the pass is off).
    quota_cap: usize,
    /// A class's quotas: each host's lowest tie keys (`quota_cap` slots per host, all
    /// `u64::MAX` between classes; [`Flat::class_quotas`]).
    tie_quota: Vec<u64>,
    /// The hosts whose `tie_quota` slots a class filled.
    tie_hosts: Vec<u32>,
    /// One class of equal scores: (tie key, page).
    class: Vec<(u64, u32)>,
    /// A sampled decision's positive sampling weights, each with a count of 1.
    classes: Vec<(f64, u64)>,
    visited: Vec<u32>,
    buffers: ScoreBuffers,
    discounts: Discounts,
    /// The ranks [`stale_ideal`](super::tally::stale_ideal) reads, reused.
    ideal_ranks: Vec<u32>,
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
    /// page: a run
    /// - by a policy that reads the weights of a period with more than P/4 distinct
    ///   weights, or, when it also reads hosts' or groups' rates (`HR`, `GR`), more than
    ///   P/4 distinct (weight, host or group or both, as it reads them:
    ///   [`Period::distinct_weighted`]). The grouped simulator would find few pages of
    ///   equal state, and fewer after each visit splits them by history. The brdc12
    ///   preset's weights, rounded to 4 digits, are about 32% distinct at 100,000 pages
    ///   and 11% at 417,048, where (weight, host) are 99% distinct; the commerce preset's
    ///   68% at 20,000;
    /// - or under a host cap whose quotas ([`Flat::quotas`]) leave at most 2k pages. The
    ///   grouped walk under a cap reads its classes page by page, deeper the more pages
    ///   the cap skips; here only the pages the quotas leave in are ranked. (On the full
    ///   brdc12 preset, caps of 10 and 50, whose quotas leave more, run faster grouped for
    ///   a GP4C formula, `lambda`, `value` and `kab5`; a cap of 2 runs faster here.)
    pub(crate) fn suits(period: &Period, policy: &Policy, config: &SimConfig) -> bool {
        let track = policy.features().track();
        let weighs = track.has(Track::WEIGHT) && period.weights().is_some();
        let k = config.k(period.pages());
        // A page's latent probability is its own: pages share no state.
        (track.has(Track::LATENT) && period.has_latent())
            || (weighs && period.distinct_weighted(track) * 4 > period.pages())
            || config
                .host_cap_over(period)
                .is_some_and(|c| Flat::quotas_fill(period, c, k))
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
        let top = period.top_weight(k);
        for d in first..=period.len() {
            stale_count += self.mark_changes(period, d);
            let cycle = d as u32;
            self.score(chooser.scorer(cycle), (period, cycle), k, config.decision());
            let at = Cycle {
                k,
                warmup: config.warmup(),
                salt: tie_salt(config.seed(), cycle),
                cap: config.host_cap_over(period),
                period,
            };
            let stale_before = stale_count;
            let bounds = tallied.then(|| WeightBounds {
                ideal_dcg: stale_ideal(
                    (&self.stale, period),
                    stale_before.min(k),
                    &self.discounts,
                    &mut self.ideal_ranks,
                ),
                top,
            });
            let sampled = match config.decision() {
                Decision::Sample => self.sample(&at, config.seed(), cycle),
                Decision::TopK => None,
            };
            let found = sampled.unwrap_or_else(|| {
                self.quotas(period, at.cap);
                // Under a cap without quotas some pages are skipped: rank twice k.
                self.rank(period, if self.skips(at.cap) { 2 * k } else { k });
                self.choose(&at)
            });
            // The visits in page order: each moves its page alone (a shared state, a host's
            // counts: sums of integers), so the order changes nothing but the memory's
            // access pattern, which rank order scatters over every page's arrays.
            let mut visited = std::mem::take(&mut self.visited);
            visited.sort_unstable();
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
                bounds,
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
            self.pages
                .extend((0..pages).map(|p| period.fresh_page(policy, p)));
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
        policy: &Scorer,
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

    /// A sampled decision (docs/src/reference/simulation.md#sampled-decisions): the
    /// inclusion probabilities from the pages' scores, systematic sampling over the pages
    /// in page order, the drawn pages tallied in rank order into `self.visited`; as the
    /// grouped simulator's `Fast::sample`, with every page its own class. `None` when at
    /// most k pages have a positive score: the decision is then the top-k one.
    fn sample(&mut self, at: &Cycle<'_>, seed: u64, cycle: u32) -> Option<Chosen> {
        let mut classes = std::mem::take(&mut self.classes);
        classes.clear();
        let positive = self
            .scores
            .iter()
            .map(|&s| weight_of(s))
            .filter(|&s| s > 0.0);
        classes.extend(positive.map(|s| (s, 1)));
        let drawn = (classes.len() > at.k).then(|| {
            let mut draw =
                Systematic::new(inclusion_scale(&mut classes, at.k), sample_u(seed, cycle));
            self.visited.clear();
            for (p, &score) in self.scores.iter().enumerate() {
                if draw.draws(weight_of(score)) {
                    self.visited.push(p as u32);
                }
            }
            let scores = &self.scores;
            let key = |p: u32| (!score_key(scores[p as usize]), tie_key(at.salt, p));
            settle(&mut self.visited, at.k, 0..scores.len() as u32, key);
            let mut found = Chosen::default();
            let visited = std::mem::take(&mut self.visited);
            for &p in &visited {
                self.tally(p, at, &mut found);
            }
            self.visited = visited;
            found
        });
        self.classes = classes;
        drawn
    }

    /// The quota pass of a host cap `c`: each host's `c` highest score keys this cycle,
    /// into `self.quota`. A page whose key is below its host's c-th highest can never be
    /// taken (its host has c pages ranked above it, and the walk in rank order takes a
    /// host's pages until it has c), so the ranking leaves it out ([`Flat::eligible`]).
    /// Pages of equal keys at a host's c-th stay in, and the walk's count of each host's
    /// pages decides among them: the walk over the pages left in takes exactly the pages
    /// the walk over every page would. Without a cap, or with one so large that few hosts
    /// could fill it, the pass is off ([`Flat::quotas_bind`]).
    fn quotas(&mut self, period: &Period, cap: Option<u32>) {
        self.quota.clear();
        self.quota_cap = 0;
        let Some(cap) = cap else { return };
        if !Flat::quotas_bind(period, cap) {
            return;
        }
        let c = cap as usize;
        self.quota_cap = c;
        // u64::MAX where the host has fewer pages so far: the complement of a NaN's key,
        // the lowest, so such a page is never left out.
        self.quota.resize(c * period.hosts(), u64::MAX);
        for (p, &s) in self.scores.iter().enumerate() {
            let h = period.host(p as u32);
            if h != NO_HOST {
                keep_lowest(&mut self.quota[h as usize * c..][..c], !score_key(s));
            }
        }
    }

    /// Whether the quota pass of a host cap `cap` runs over `period`: when it has hosts
    /// and at most every page could be in a host's quota (`cap` times the hosts at most
    /// the pages).
    fn quotas_bind(period: &Period, cap: u32) -> bool {
        period.hosts() > 0 && (cap as usize).saturating_mul(period.hosts()) <= period.pages()
    }

    /// Whether the quotas of a host cap `cap` leave so few pages (`cap` times the hosts at
    /// most 2k; pages without a host and ties at a host's M-th score aside) that a walk in rank order would read most of the ranking to fill k: a
    /// grouped walk then reads page after page of every class, where the per-page
    /// simulator ranks only the pages the quotas leave in.
    fn quotas_fill(period: &Period, cap: u32, k: usize) -> bool {
        Flat::quotas_bind(period, cap) && (cap as usize) * period.hosts() <= 2 * k
    }

    /// Whether the walk under `cap` may skip many candidates: under a cap the quotas are
    /// off for (they leave few to skip).
    fn skips(&self, cap: Option<u32>) -> bool {
        cap.is_some() && self.quota_cap == 0
    }

    /// Whether page `p`, of score key `key`, can be taken under the cycle's quotas
    /// ([`Flat::quotas`]): always without them.
    #[inline]
    fn eligible(&self, period: &Period, p: u32, key: u64) -> bool {
        if self.quota_cap == 0 {
            return true;
        }
        let h = period.host(p);
        h == NO_HOST || !key <= self.quota[(h as usize + 1) * self.quota_cap - 1]
    }

    /// Puts the cycle's candidates into `self.ranked`, unsorted: every page (that its
    /// host's quota leaves in) whose score key reaches a bound that about `want` pages
    /// (and some more) reach, from a sample of the keys. Which pages are candidates
    /// changes no outcome: `choose` reads the candidates first, and the other pages, all
    /// of lower scores, only if it needs more. The selection then works on a few times k
    /// pages, not all P.
    fn rank(&mut self, period: &Period, want: usize) {
        let pages = self.scores.len();
        // Every (pages / SAMPLE)-th page; each sampled key stands for about that many.
        let step = pages.div_ceil(SAMPLE).max(1);
        self.sample.clear();
        for p in (0..pages).step_by(step) {
            let key = score_key(self.scores[p]);
            if self.eligible(period, p as u32, key) {
                self.sample.push(key);
            }
        }
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
            if key >= bound && self.eligible(period, p as u32, key) {
                self.ranked.push(Ranked::new(key, p as u32));
            }
        }
    }

    /// Appends the pages below the candidates' bound (that their hosts' quotas leave in)
    /// to `self.ranked`, all of lower score than any candidate; false if there are none.
    fn rank_the_rest(&mut self, period: &Period) -> bool {
        let Some(bound) = self.below.take() else {
            return false;
        };
        let mut ranked = std::mem::take(&mut self.ranked);
        let len = ranked.len();
        let rest = (self.scores.iter().enumerate())
            .map(|(p, &s)| Ranked::new(score_key(s), p as u32))
            .filter(|r| r.key() < bound && self.eligible(period, r.group(), r.key()));
        ranked.extend(rest);
        self.ranked = ranked;
        len < self.ranked.len()
    }

    /// Chooses the cycle's pages into `self.visited`, in rank order: chunks of the
    /// ranking, each sorted after a linear selection, walked class by class (a class: the
    /// pages of one score, in tie-key order) until k pages are taken. Without a cap the
    /// first chunk (down to the k-th score) is all it reads.
    fn choose(&mut self, at: &Cycle<'_>) -> Chosen {
        let mut found = Chosen::default();
        self.visited.clear();
        let mut start = 0;
        while found.taken < at.k && (start < self.ranked.len() || self.rank_the_rest(at.period)) {
            let room = at.k - found.taken;
            // Under a cap some pages are skipped: read ahead twice what is missing.
            let want = if self.skips(at.cap) { room * 2 } else { room };
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
        // Under quotas a large class keeps only what the walk takes: then, as without a
        // cap, its first `room` pages in tie order are all taken.
        let exact = at.cap.is_none() || (self.quota_cap > 0 && class.len() > CLASS_QUOTAS);
        if at.cap.is_some() && exact {
            self.class_quotas(&mut class, at.period);
        }
        if exact && class.len() > room {
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

    /// Leaves in `class` (a class of equal scores, as (tie key, page)) only the pages the
    /// walk along its tie order would take under the quotas' cap M: of each host with
    /// `r` places left this cycle (M less its pages taken), the `r` pages of lowest tie
    /// key (tie keys are distinct), and every page without a host. O(class size · M)
    /// instead of sorting the class whole.
    fn class_quotas(&mut self, class: &mut Vec<(u64, u32)>, period: &Period) {
        let c = self.quota_cap;
        // Invariant: every slot is u64::MAX between calls (the touched ones reset below).
        self.tie_quota.resize(c * period.hosts(), u64::MAX);
        let left = |taken: &[u32], h: u32| c - (taken[h as usize] as usize).min(c);
        for &(key, p) in class.iter() {
            let h = period.host(p);
            if h == NO_HOST {
                continue;
            }
            let r = left(&self.host_taken, h);
            if r == 0 {
                continue;
            }
            // The host's lowest keys so far, u64::MAX where it has fewer.
            let slots = &mut self.tie_quota[h as usize * c..][..r];
            let first = slots[0] == u64::MAX;
            if keep_lowest(slots, key) && first {
                self.tie_hosts.push(h);
            }
        }
        class.retain(|&(key, p)| {
            let h = period.host(p);
            if h == NO_HOST {
                return true;
            }
            let r = left(&self.host_taken, h);
            r > 0 && key <= self.tie_quota[h as usize * c + r - 1]
        });
        for h in self.tie_hosts.drain(..) {
            self.tie_quota[h as usize * c..][..c].fill(u64::MAX);
        }
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
        self.tally(p, at, found);
        self.visited.push(p);
    }

    /// Counts page `p` as the next one chosen: its rank, whether it finds a change,
    /// whether it was not visited since the warm-up.
    #[inline]
    fn tally(&self, p: u32, at: &Cycle<'_>, found: &mut Chosen) {
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
    }
}

/// Keeps in `slots` (ascending, `u64::MAX` where empty) the lowest values it has seen,
/// `value` among them if it is lower than the last; returns whether it was kept. The
/// quotas' insertion ([`Flat::quotas`], [`Flat::class_quotas`]): O(1) for a value that is
/// not kept, O(slots) at most.
#[inline]
fn keep_lowest(slots: &mut [u64], value: u64) -> bool {
    let last = slots.len() - 1;
    if value >= slots[last] {
        return false;
    }
    let mut i = last;
    while i > 0 && slots[i - 1] > value {
        slots[i] = slots[i - 1];
        i -= 1;
    }
    slots[i] = value;
    true
}

/// Score keys sampled per cycle for the bound of the candidates ([`Flat::rank`]).
const SAMPLE: usize = 1024;

/// A class of equal scores larger than this is cut to what the walk takes under a host
/// cap's quotas ([`Flat::class_quotas`]) before it is sorted; a smaller one is sorted
/// whole.
const CLASS_QUOTAS: usize = 64;

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
    fn a_chunk_holds_its_last_class_whole_after_the_higher_scores() {
        let mut r = ranked(&[5, 9, 7, 7, 1, 8, 7, 3]);
        let end = sort_chunk(&mut r, 3, <[Ranked]>::sort_unstable);
        let got: Vec<(u64, u32)> = r[..end].iter().map(|r| (r.key(), r.group())).collect();
        assert_eq!(got[..2], [(9, 1), (8, 5)]);
        let mut class = got[2..].to_vec();
        class.sort_unstable();
        assert_eq!(class, [(7, 2), (7, 3), (7, 6)]);
        let mut rest: Vec<u64> = r[end..].iter().map(|r| r.key()).collect();
        rest.sort_unstable();
        assert_eq!(rest, [1, 3, 5]);
    }

    /// A period from lines `(bits, host, weight)` (host "" for none).
    fn period(rows: &[(String, &str, f64)]) -> Period {
        let text: String = (rows.iter().enumerate())
            .map(|(i, (bits, host, w))| format!("{bits}\tp{i}\t{host}\tweight={w}\n"))
            .collect();
        Period::whole(&crate::data::text::read(text.as_bytes(), "<test>").unwrap()).unwrap()
    }

    /// Bits of `cycles` cycles for page `i`: changes at cycles where `(i * 7 + d) % m == 0`.
    fn bits(i: usize, cycles: usize, m: usize) -> String {
        (1..=cycles)
            .map(|d| {
                if (i * 7 + d).is_multiple_of(m) {
                    '1'
                } else {
                    '0'
                }
            })
            .collect()
    }

    /// A policy that reads weights runs page by page when pages share few weights, or,
    /// if it also reads its hosts' (groups') rates, few (weight, host (group)): 40 pages
    /// of 4 weights (10 pages a weight), each its own host but the first 8, which have
    /// none, and of 2 categories.
    #[test]
    fn page_by_page_when_pages_share_few_weights_and_hosts() {
        let text: String = (0..40)
            .map(|i| {
                let host = if i < 8 {
                    String::new()
                } else {
                    format!("h{i}")
                };
                let (w, category) = (i % 4 + 1, i % 2);
                let bits = bits(i, 8, 3);
                format!("{bits}\tp{i}\t{host}\tweight={w}\tcategory=c{category}\n")
            })
            .collect();
        let mut data = crate::data::text::read(text.as_bytes(), "<test>").unwrap();
        let by_host = Period::whole(&data).unwrap();
        data.group_by(Some("category")).unwrap();
        let by_category = Period::whole(&data).unwrap();
        // The hostless pages share a host: 4 keys among them, and 32 pages of their own.
        assert_eq!(by_host.distinct_weighted(Track::NONE), 4);
        assert_eq!(by_host.distinct_weighted(Track::HOST), 36);
        assert_eq!(
            by_host.distinct_weighted(Track::GROUP),
            36,
            "grouped by host"
        );
        assert_eq!(by_category.distinct_weighted(Track::GROUP), 4);
        let both = Track::HOST.with(Track::GROUP);
        assert_eq!(by_category.distinct_weighted(both), 36);
        let config = SimConfig::new(0.1, 2).unwrap();
        let suits = |period: &Period, text: &str| {
            let policy = Policy::parse(text, &crate::formula::Grammar::every()).unwrap();
            Flat::suits(period, &policy, &config)
        };
        assert!(!suits(&by_host, "w * t"), "4 weights: grouped");
        assert!(
            suits(&by_host, "w * HR * t"),
            "36 (weight, host): page by page"
        );
        assert!(suits(&by_host, "w * GR * t"), "GR is HR here");
        assert!(
            !suits(&by_category, "w * GR * t"),
            "4 (weight, category): grouped"
        );
        assert!(suits(&by_category, "w * GR * HR"));
        assert!(!suits(&by_host, "HR * t"), "no weights: grouped");
        assert!(!suits(&by_host, "NAD"));
    }

    /// A large class of equal scores under a cap: a host that already has a page taken
    /// (one place left of two), a host with none, pages without a host, all tied. The
    /// class is cut by the quotas (more than `CLASS_QUOTAS` pages) and the walk equals
    /// the reference's.
    #[test]
    fn a_large_tied_class_under_a_cap_is_walked_as_the_reference_walks_it() {
        let mut rows = vec![(bits(0, 8, 2), "a", 10.0)];
        rows.extend((1..120).map(|i| (bits(i, 8, 3 + i % 4), "a", 1.0)));
        rows.extend((120..240).map(|i| (bits(i, 8, 2 + i % 5), "b", 1.0)));
        rows.extend((240..280).map(|i| (bits(i, 8, 4), "", 1.0)));
        let p = period(&rows);
        let policy = Policy::parse("w", &crate::formula::Grammar::every()).unwrap();
        for (share, cap) in [(0.02, 2), (0.1, 2), (0.2, 1), (0.5, 3)] {
            let config = SimConfig::new(share, 2)
                .unwrap()
                .with_host_cap(Some(cap))
                .unwrap();
            let sim = crate::sim::Simulator::new(config);
            let reference = sim.run_reference(&p, &policy).unwrap();
            assert_eq!(sim.run_flat(&p, &policy), reference, "{share} cap {cap}");
        }
    }

    /// One per-page simulator reused across runs of other caps, host counts and
    /// decisions gives each run the outcome a fresh one gives it (its quota buffers carry
    /// nothing over).
    #[test]
    fn a_reused_simulator_carries_no_quota_over() {
        let make = |hosts: usize, pages: usize| {
            let names: Vec<String> = (0..hosts).map(|h| format!("h{h}")).collect();
            let rows: Vec<(String, &str, f64)> = (0..pages)
                .map(|i| {
                    let host = if i % 9 == 0 {
                        ""
                    } else {
                        names[i % hosts].as_str()
                    };
                    (bits(i, 10, 2 + i % 6), host, (i % 13) as f64)
                })
                .collect();
            period(&rows)
        };
        let (few, many) = (make(3, 200), make(40, 300));
        let policy = Policy::parse("w * t", &crate::formula::Grammar::every()).unwrap();
        let mut reused = Flat::default();
        for (p, cap, decision) in [
            (&few, Some(2), Decision::TopK),
            (&many, Some(1), Decision::TopK),
            (&few, None, Decision::TopK),
            (&many, None, Decision::Sample),
            (&few, Some(3), Decision::TopK),
            (&many, Some(2), Decision::TopK),
        ] {
            let config = SimConfig::new(0.1, 2)
                .unwrap()
                .with_host_cap(cap)
                .unwrap()
                .with_decision(decision)
                .unwrap();
            let fresh = Flat::default().run(p, &policy, &config, false);
            assert_eq!(reused.run(p, &policy, &config, false), fresh, "{cap:?}");
            let reference = crate::sim::Simulator::new(config).run_reference(p, &policy);
            assert_eq!(fresh, reference.unwrap(), "{cap:?} {decision:?}");
        }
    }

    #[test]
    fn a_chunk_larger_than_the_ranking_sorts_it_all() {
        let mut r = ranked(&[2, 8, 4]);
        assert_eq!(sort_chunk(&mut r, 5, <[Ranked]>::sort_unstable), 3);
        assert_eq!(r.iter().map(|r| r.key()).collect::<Vec<_>>(), [8, 4, 2]);
    }
}
