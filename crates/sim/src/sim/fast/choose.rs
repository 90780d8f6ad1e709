//! Step 3 of a cycle: the k pages chosen from the ranked groups. The walk goes class by
//! class (a class: the groups of one score) until k pages are taken; each class is taken
//! the cheapest way that gives the reference simulator's order (`take_uniform_class`,
//! `take_whole_class`, `take_along_tie_order`, `take_by_selection`; under a host cap,
//! `take_capped`). A sampled decision draws the pages instead (`sample`, with `sample.rs`).

use super::super::rank::{score_key, tie_key, Ranked};
use super::super::sample::{inclusion_scale, sample_u, settle, weight_of, Systematic};
use super::super::tally::Chosen;
use super::super::Period;
use super::groups::Fast;
use crate::policy::NO_HOST;
use std::ops::Range;

/// What one scored cycle's walk needs to know.
pub(super) struct Walk<'a> {
    pub(super) cycle: u32,
    pub(super) k: usize,
    /// Pages in the period.
    pub(super) pages: usize,
    pub(super) warmup: usize,
    pub(super) salt: u64,
    /// The cycle's pages in tie order, over a prepared period.
    pub(super) order: Option<&'a [u32]>,
    /// The period (its pages' weights and hosts).
    pub(super) period: &'a Period,
    /// The host cap (docs/src/reference/simulation.md#politeness-the-host-cap), if any.
    pub(super) cap: Option<u32>,
    /// Whether the run tallies weighted sums: each stale page's rank is then needed
    /// with its weight, not only the ranks.
    pub(super) weighted: bool,
}

/// The groups of one score (positions in `Fast::ranked`), their pages and stale pages.
struct Class {
    groups: Range<usize>,
    size: usize,
    stale: usize,
}

/// Sorts groups best score first, by score alone: the groups of one class (equal
/// scores) come in whatever order the unstable sort leaves them, the same for the same
/// input, and no result depends on it (a class's pages are ranked by their tie keys).
/// Comparing the score keys alone is cheaper than comparing whole `Ranked` values (the
/// sort took 5% of a GP run's instructions).
pub(super) fn sort_by_score(ranked: &mut [Ranked]) {
    ranked.sort_unstable_by_key(|r| !r.key());
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

impl Fast {
    /// Step 3 of a sampled decision (docs/src/reference/simulation.md#sampled-decisions,
    /// see `sample.rs`): the inclusion probabilities from the groups' scores, systematic
    /// sampling over the pages in page order (O(P)), the drawn pages tallied in rank order.
    /// `None` when at most k pages have a positive score: the decision is then the top-k
    /// one ([`Fast::choose`]).
    pub(super) fn sample(&mut self, walk: &Walk<'_>, seed: u64) -> Option<Chosen> {
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
    pub(super) fn choose(&mut self, walk: &Walk<'_>) -> Chosen {
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

    /// A class under a host cap (docs/src/reference/simulation.md#politeness-the-host-cap):
    /// its pages in rank order (the tie order), each taken unless its host has `cap` pages
    /// chosen this cycle, until `k` are chosen.
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
