//! Per-page crawl statistics and the terminals computed from them
//! (docs/src/reference/terminals.md).
//!
//! [`PageStats`] is everything a scoring function may know about a page: its visits, the
//! changes they detected and when, and (for the extended terminals) its weight, host,
//! recent visits and visit intervals. It is updated by [`PageStats::visit`] and read by
//! [`PageStats::terminal`], the single definition of every terminal used by the simulators,
//! the scheduler and the tests.
//!
//! These *tracked* statistics cost memory and split pages into more groups, so a page
//! tracks only those its policy reads ([`Track`], from the policy's features): `w` and `HR`
//! keep the page's weight and host, `n7`/`X7` a 7-cycle window of visits and changes (two
//! bit masks), `MLE` the interned multiset of its change-detecting intervals (see
//! [`Histories`]) and its estimate, recomputed at each visit only. `tc` needs nothing new.
//! `HR` reads the host's totals from a [`Surroundings`] table the simulation keeps (a visit
//! updates its page and its host only); `GR` (the group rate) the same totals of the page's
//! *group*, its value of the attribute the data is grouped by (the host when none is
//! chosen: then `GR` is `HR`, bit for bit). `n30`/`X30` read the 30-cycle masks.
//!
//! The Tan & Mitra rates are indexed by cycle, as in the authors' code: at cycle `d` they
//! weigh the detected changes `H` against the `d - 1` cycles so far. `GAD`'s sums of
//! powers of two are kept relative to the last change (`gad_anchor = Σ_{h∈H} 2^(h - last)`),
//! so they never overflow, however long the period; whenever the exact sums fit in a
//! double (periods up to 53 cycles) the result is the correctly rounded
//! `Σ 2^(h-1) / Σ_{j<d} 2^(j-1)`, bit for bit what a direct computation gives. Changes
//! more than 52 cycles before the last one are left out of the numerator (each is below
//! 2^-52 of it; together they are under one unit in its last place, so GAD may be up to
//! one ulp below the correctly rounded value for histories longer than 53 cycles): so the
//! numerator is always an exact sum of
//! distinct powers of two, the same in whatever order it is added — as an SQL `SUM`
//! computes it (`freshgp schedule --emit-sql`). Adding them in order instead would round
//! at each step, differently from an engine's unordered sum.
//!
//! **Invariant:** terminal values are never NaN and never `-0.0` (the formula simplifier
//! relies on the latter).

use super::history::{Histories, SetId};
use crate::formula::{Keeps, Terminal};

/// The host id of a page without a host.
pub const NO_HOST: u32 = u32::MAX;

/// The group of a page without one (it lacks the attribute the data is grouped by).
pub const NO_GROUP: u32 = u32::MAX;

/// The longest window of visits a page keeps ([`Track::WINDOW30`]).
pub const MAX_WINDOW: u32 = 30;

/// Which tracked statistics a page keeps (a policy's choice, from the terminals it reads).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Track(u8);

impl Track {
    /// Only the statistics every page keeps (visits, detected changes and when).
    pub const NONE: Track = Track(0);
    /// The page's weight (`w`).
    pub const WEIGHT: Track = Track(1);
    /// The page's host (`HR`).
    pub const HOST: Track = Track(2);
    /// Visits and changes of the last 7 cycles (`n7`, `X7`).
    pub const WINDOW: Track = Track(4);
    /// The visit intervals and their MLE rate (`MLE`).
    pub const INTERVALS: Track = Track(8);
    /// The page's group (`GR`).
    pub const GROUP: Track = Track(32);
    /// The page's latent change probability (the `oracle` policy's: no terminal reads
    /// it, docs/src/reference/policies.md#the-oracle).
    pub const LATENT: Track = Track(64);
    /// Visits and changes of the last 30 cycles (`n30`, `X30`, a learned model's frequency
    /// features for `P`; implies [`Track::WINDOW`]'s 7).
    pub const WINDOW30: Track = Track(16 | 4);

    /// Both sets.
    pub const fn with(self, other: Track) -> Track {
        Track(self.0 | other.0)
    }

    /// Whether every statistic of `other` is kept.
    pub const fn has(self, other: Track) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether some statistic of `other` is kept.
    pub const fn has_any(self, other: Track) -> bool {
        self.0 & other.0 != 0
    }

    /// What reading `terminal` needs kept.
    pub fn of(terminal: Terminal) -> Track {
        match terminal.keeps() {
            Keeps::Counts => Track::NONE,
            Keeps::Weight => Track::WEIGHT,
            Keeps::Host => Track::HOST,
            Keeps::Window7 => Track::WINDOW,
            Keeps::Intervals => Track::INTERVALS,
            Keeps::Window30 => Track::WINDOW30,
            Keeps::Group => Track::GROUP,
        }
    }
}

/// `x / n`, 0 when `n` is 0: a rate of detected changes per visit.
#[inline]
fn ratio(x: u64, n: u64) -> f64 {
    if n == 0 {
        0.0
    } else {
        x as f64 / n as f64
    }
}

/// Σ X and Σ n of each group of pages (a host, or a value of an attribute).
#[derive(Clone, Debug, Default, PartialEq)]
struct Totals {
    changes: Vec<u64>,
    visits: Vec<u64>,
}

impl Totals {
    fn new(groups: usize) -> Totals {
        Totals {
            changes: vec![0; groups],
            visits: vec![0; groups],
        }
    }

    #[inline]
    fn record(&mut self, group: u32, changed: bool) {
        if let Some(n) = self.visits.get_mut(group as usize) {
            *n += 1;
            self.changes[group as usize] += changed as u64;
        }
    }

    /// The group's Σ X / Σ n, or the page's own X / n when it has no group (a page
    /// without one is its own group); 0 when nothing was visited.
    #[inline]
    fn rate(&self, group: u32, page: &PageStats) -> f64 {
        match self.visits.get(group as usize) {
            Some(&n) => ratio(self.changes[group as usize], n),
            None => ratio(page.x as u64, page.n as u64),
        }
    }

    fn add(&mut self, group: u32, changes: i64, visits: i64) {
        if group == NO_HOST {
            return;
        }
        let g = group as usize;
        if g >= self.visits.len() {
            self.changes.resize(g + 1, 0);
            self.visits.resize(g + 1, 0);
        }
        debug_assert!(self.changes[g].checked_add_signed(changes).is_some());
        debug_assert!(self.visits[g].checked_add_signed(visits).is_some());
        self.changes[g] = self.changes[g].wrapping_add_signed(changes);
        self.visits[g] = self.visits[g].wrapping_add_signed(visits);
    }

    fn clear(&mut self) {
        self.changes.fill(0);
        self.visits.fill(0);
    }
}

/// What a page's terminals read beyond the page itself: the change totals of each host
/// (for `HR`) and of each group (for `GR`), Σ X and Σ n over their simulated pages, and the
/// cycle's budget `k / P` (for `b`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Surroundings {
    hosts: Totals,
    groups: Totals,
    budget: f64,
}

impl Surroundings {
    /// Totals of 0 for hosts `0..hosts` and groups `0..groups` (0 of either: the run
    /// keeps none, as when its policy reads neither `HR` nor `GR`).
    pub fn new(hosts: usize, groups: usize) -> Surroundings {
        Surroundings {
            hosts: Totals::new(hosts),
            groups: Totals::new(groups),
            budget: 0.0,
        }
    }

    /// The same, with the budget `b`: `k` visits this cycle among `pages` known pages
    /// (see [`Surroundings::set_budget`]).
    pub fn with_budget(mut self, k: usize, pages: usize) -> Surroundings {
        self.set_budget(k, pages);
        self
    }

    /// Sets the budget `b` to `k / pages`: the crawler visits `k` of `pages` known pages
    /// this cycle (1 when `k` covers them all, 0 without pages).
    pub fn set_budget(&mut self, k: usize, pages: usize) {
        self.budget = if pages == 0 {
            0.0
        } else {
            k.min(pages) as f64 / pages as f64
        };
    }

    /// `b`: the cycle's budget, the share of the known pages visited (0 until set).
    #[inline]
    pub fn budget(&self) -> f64 {
        self.budget
    }

    /// Counts a visit to a page of `host` and `group` (nothing for [`NO_HOST`] or
    /// [`NO_GROUP`]).
    #[inline]
    pub fn record(&mut self, host: u32, group: u32, changed: bool) {
        self.hosts.record(host, changed);
        self.groups.record(group, changed);
    }

    /// `HR` of a page: its host's Σ X / Σ n, or its own X / n without a host (a page
    /// without a host is its own host); 0 when nothing was visited.
    #[inline]
    pub fn rate(&self, page: &PageStats) -> f64 {
        self.hosts.rate(page.host, page)
    }

    /// `HR` of a page of each host (by host index, as [`Surroundings::rate`] gives it), into
    /// `out`; a page of a host outside the table (or of none) is its own host.
    pub fn host_rates_into(&self, out: &mut Vec<f64>) {
        let totals = &self.hosts;
        out.clear();
        out.extend((totals.changes.iter().zip(&totals.visits)).map(|(&x, &n)| ratio(x, n)));
    }

    /// `GR` of a page: its group's Σ X / Σ n, or its own X / n without a group (as `HR`:
    /// a page lacking the attribute is its own group — a choice of ours where a learned
    /// model's group feature is 0 (docs/src/reference/models.md#frequency-features), so
    /// that `GR` over hosts is `HR`); 0 when nothing was visited.
    #[inline]
    pub fn group_rate(&self, page: &PageStats) -> f64 {
        self.groups.rate(page.group, page)
    }

    /// Adds a page's totals (`changes` detected in `visits`; negative: takes them away) to
    /// those of `host`, growing the table to hold it; nothing for [`NO_HOST`]. For the
    /// scheduler, whose pages come, go and move between hosts.
    pub fn add_totals(&mut self, host: u32, changes: i64, visits: i64) {
        self.hosts.add(host, changes, visits);
    }

    /// As [`Surroundings::add_totals`], for a group.
    pub fn add_group_totals(&mut self, group: u32, changes: i64, visits: i64) {
        self.groups.add(group, changes, visits);
    }

    /// Forgets every group's totals (the scheduler regrouping its pages).
    pub fn clear_groups(&mut self) {
        self.groups = Totals::default();
    }

    /// Forgets every visit.
    pub fn clear(&mut self) {
        self.hosts.clear();
        self.groups.clear();
    }
}

/// What a crawler knows about one page at the start of a cycle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PageStats {
    // The fields below `last_change` are public for the scheduler's saved state
    // (`freshgp-schedule`), which writes and restores them; they are not an API.
    /// Visits so far (`n`).
    pub n: u32,
    /// Visits that found the page changed (`X`, also `|H|`).
    pub x: u32,
    /// Cycle of the last visit (0: never visited).
    pub last_visit: u32,
    /// Cycle of the last visit that found a change (0: none).
    pub last_change: u32,
    /// Σ of the cycles in which a change was found (AAD's numerator).
    #[doc(hidden)]
    pub change_cycle_sum: u64,
    /// Σ_{h∈H, h > last_change - 53} 2^(h - last_change) (GAD's numerator, scaled and
    /// exact; 0 when H is empty).
    #[doc(hidden)]
    pub gad_anchor: f64,
    /// The tracked statistics kept (the rest stay at their defaults).
    #[doc(hidden)]
    pub track: Track,
    /// The page's weight (`w`; 0 unless tracked).
    #[doc(hidden)]
    pub weight: f64,
    /// The page's host ([`NO_HOST`] unless tracked and it has one).
    #[doc(hidden)]
    pub host: u32,
    /// The page's group ([`NO_GROUP`] unless tracked and it has one).
    #[doc(hidden)]
    pub group: u32,
    /// Bit `i`: a visit at cycle `last_visit - i` (`i < 7`, or `i < 30` under
    /// [`Track::WINDOW30`]).
    #[doc(hidden)]
    pub recent_visits: u32,
    /// Bit `i`: a visit at cycle `last_visit - i` that detected a change.
    #[doc(hidden)]
    pub recent_changes: u32,
    /// The multiset of the intervals of change-detecting visits.
    #[doc(hidden)]
    pub changed_set: SetId,
    /// Σ of the intervals of the visits that detected no change.
    #[doc(hidden)]
    pub unchanged_time: u64,
    /// The MLE rate of those intervals (`ln 2` before any visit).
    #[doc(hidden)]
    pub mle: f64,
    /// The page's latent change probability per cycle (0 unless tracked: only the
    /// `oracle` policy reads it).
    #[doc(hidden)]
    pub latent: f64,
}

impl Default for PageStats {
    fn default() -> PageStats {
        PageStats::new(Track::NONE, 1.0, NO_HOST, NO_GROUP)
    }
}

/// `2^e`, exact (0 below the smallest subnormal; `e` at most 1023).
pub(crate) fn exp2i(e: i64) -> f64 {
    debug_assert!(e <= 1023);
    if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else if e >= -1074 {
        f64::from_bits(1u64 << (e + 1074))
    } else {
        0.0
    }
}

impl PageStats {
    /// A page never visited, keeping the statistics `track` says, of weight `weight`,
    /// host `host` ([`NO_HOST`] for none) and group `group` ([`NO_GROUP`] for none); each
    /// is kept only if tracked.
    pub fn new(track: Track, weight: f64, host: u32, group: u32) -> PageStats {
        PageStats {
            n: 0,
            x: 0,
            last_visit: 0,
            last_change: 0,
            change_cycle_sum: 0,
            gad_anchor: 0.0,
            track,
            weight: if track.has(Track::WEIGHT) {
                weight
            } else {
                0.0
            },
            host: if track.has(Track::HOST) {
                host
            } else {
                NO_HOST
            },
            group: if track.has(Track::GROUP) {
                group
            } else {
                NO_GROUP
            },
            recent_visits: 0,
            recent_changes: 0,
            changed_set: Histories::EMPTY,
            unchanged_time: 0,
            mle: std::f64::consts::LN_2,
            latent: 0.0,
        }
    }

    /// Sets the page's latent change probability `q` (kept only if tracked, as its
    /// weight is).
    pub fn set_latent(&mut self, q: f64) {
        if self.track.has(Track::LATENT) {
            self.latent = q;
        }
    }

    /// The page's latent change probability (0 unless tracked).
    #[inline]
    pub fn latent(&self) -> f64 {
        self.latent
    }

    /// What it keeps.
    pub fn track(&self) -> Track {
        self.track
    }

    /// Records a visit at cycle `d` that did (or did not) find the page changed; `histories`
    /// interns its visit intervals when it keeps them.
    pub fn visit(&mut self, d: u32, changed: bool, histories: &mut Histories) {
        if self.track.has(Track::WINDOW) {
            // Only the bits a terminal reads are kept, so pages group as before.
            let width = if self.track.has(Track::WINDOW30) {
                MAX_WINDOW
            } else {
                7
            };
            let shift = d - self.last_visit;
            let keep = |mask: u32| if shift >= width { 0 } else { mask << shift };
            let bits = (1u32 << width) - 1;
            self.recent_visits = (keep(self.recent_visits) | 1) & bits;
            self.recent_changes = (keep(self.recent_changes) | changed as u32) & bits;
        }
        if self.track.has(Track::INTERVALS) {
            let tau = d - self.last_visit;
            if changed {
                self.changed_set = histories.with_interval(self.changed_set, tau);
            } else {
                self.unchanged_time += tau as u64;
            }
            self.mle = histories.mle(self.changed_set, self.unchanged_time);
        }
        self.n += 1;
        self.last_visit = d;
        if changed {
            self.x += 1;
            self.change_cycle_sum += d as u64;
            self.gad_anchor = if self.last_change == 0 {
                1.0
            } else {
                // The older changes shifted down, those more than 52 cycles before this one
                // dropped (they are below a double's precision): the sum stays exact.
                let shifted = self.gad_anchor * exp2i(self.last_change as i64 - d as i64 + 52);
                shifted.floor() * exp2i(-52) + 1.0
            };
            self.last_change = d;
        }
    }

    /// `t`: cycles since the last visit, at cycle `d`.
    #[inline]
    pub(crate) fn age(&self, d: u32) -> f64 {
        (d - self.last_visit) as f64
    }

    /// Cho & Garcia-Molina's estimator `-ln((n - X + 0.5) / (n + 0.5))`.
    #[inline]
    pub(crate) fn cg(&self) -> f64 {
        let n = self.n as f64;
        let x = self.x as f64;
        // `+ 0.0` turns the -0 of -ln(1) into +0.
        -((n - x + 0.5) / (n + 0.5)).ln() + 0.0
    }

    /// Tan & Mitra's NAD at cycle `d`: `|H| · (1 / (d - 1))` (the authors' expression).
    #[inline]
    pub(crate) fn nad(&self, d: u32) -> f64 {
        if d <= 1 {
            return 0.0;
        }
        self.x as f64 * (1.0 / (d - 1) as f64)
    }

    /// SAD at cycle `d`: 1 if the last detected change was at cycle `d - 1`.
    #[inline]
    pub(crate) fn sad(&self, d: u32) -> f64 {
        if self.x > 0 && self.last_change + 1 == d {
            1.0
        } else {
            0.0
        }
    }

    /// AAD at cycle `d`: `Σ_{h∈H} h / Σ_{j=1}^{d-1} j`.
    #[inline]
    pub(crate) fn aad(&self, d: u32) -> f64 {
        if d <= 1 {
            return 0.0;
        }
        let d = d as u64;
        self.change_cycle_sum as f64 / (d * (d - 1) / 2) as f64
    }

    /// GAD at cycle `d`: `Σ_{h∈H} 2^(h-1) / Σ_{j=1}^{d-1} 2^(j-1)`, without overflow.
    #[inline]
    pub(crate) fn gad(&self, d: u32) -> f64 {
        if d <= 1 || self.x == 0 {
            return 0.0;
        }
        let numerator = self.gad_anchor * exp2i(self.last_change as i64 - d as i64);
        let denominator = 1.0 - exp2i(1 - d as i64);
        numerator / denominator
    }

    /// Visits (`changes = false`) or detected changes in cycles `d - w ..= d - 1`
    /// (`w` 7 or, under [`Track::WINDOW30`], up to 30).
    #[inline]
    fn window(&self, d: u32, changes: bool, w: u32) -> f64 {
        debug_assert!(self.track.has(Track::WINDOW), "n7/X7 read but not tracked");
        debug_assert!(
            w <= 7 || self.track.has(Track::WINDOW30),
            "n30/X30 not tracked"
        );
        let age = d.saturating_sub(self.last_visit).max(1);
        if self.last_visit == 0 || age > w {
            return 0.0;
        }
        let mask = if changes {
            self.recent_changes
        } else {
            self.recent_visits
        };
        // Bit i is cycle last_visit - i, in the window when i <= w - age.
        (u64::from(mask) & ((1u64 << (w - age + 1)) - 1)).count_ones() as f64
    }

    /// The detected-change frequency over the last `w` cycles (`d - w ..= d - 1`,
    /// `1 <= w <=` [`MAX_WINDOW`]): detected changes / visits, 0 without a visit (a learned
    /// model's `freqW` from the crawler's own visits,
    /// docs/src/reference/policies.md#learned-models).
    #[inline]
    pub(crate) fn frequency(&self, d: u32, w: u32) -> f64 {
        debug_assert!(self.track.has(Track::WINDOW30) && (1..=MAX_WINDOW).contains(&w));
        let age = d.saturating_sub(self.last_visit).max(1);
        if self.last_visit == 0 || age > w {
            return 0.0;
        }
        // Bit i is cycle last_visit - i, in the window when i <= w - age.
        let bits = (1u64 << (w - age + 1)) - 1;
        let in_window = |mask: u32| (u64::from(mask) & bits).count_ones();
        match in_window(self.recent_visits) {
            0 => 0.0,
            n => f64::from(in_window(self.recent_changes)) / f64::from(n),
        }
    }

    /// One terminal's value at cycle `d`; `hosts` gives `HR`.
    // Always inlined: a column loop calls it with a constant terminal, and the match
    // then folds away (`policy::extend_column`).
    #[inline(always)]
    pub fn terminal(&self, terminal: Terminal, d: u32, hosts: &Surroundings) -> f64 {
        match terminal {
            Terminal::T => self.age(d),
            Terminal::N => self.n as f64,
            Terminal::X => self.x as f64,
            Terminal::CG => self.cg(),
            Terminal::NAD => self.nad(d),
            Terminal::SAD => self.sad(d),
            Terminal::AAD => self.aad(d),
            Terminal::GAD => self.gad(d),
            Terminal::W => {
                debug_assert!(self.track.has(Track::WEIGHT), "w read but not tracked");
                self.weight
            }
            Terminal::TC => (d - self.last_change) as f64,
            Terminal::N7 => self.window(d, false, 7),
            Terminal::X7 => self.window(d, true, 7),
            Terminal::N30 => self.window(d, false, MAX_WINDOW),
            Terminal::X30 => self.window(d, true, MAX_WINDOW),
            Terminal::GR => hosts.group_rate(self),
            Terminal::HR => hosts.rate(self),
            Terminal::MLE => {
                debug_assert!(self.track.has(Track::INTERVALS), "MLE read but not tracked");
                self.mle
            }
            // The model's prediction is the policy's to compute (`Learned::predict`), from
            // these statistics; a page alone does not know it.
            Terminal::P => 0.0,
            Terminal::B => hosts.budget(),
        }
    }

    /// All terminal values at cycle `d`, indexed by [`Terminal::index`] (the untracked
    /// ones at their defaults).
    pub fn terminals(&self, d: u32, hosts: &Surroundings) -> [f64; Terminal::COUNT] {
        Terminal::ALL.map(|t| match Track::of(t) {
            needed if self.track.has(needed) => self.terminal(t, d, hosts),
            _ => 0.0,
        })
    }

    /// The statistics as a hashable key: pages with equal keys get equal scores.
    #[inline]
    pub(crate) fn key(&self) -> StatsKey {
        StatsKey {
            n: self.n,
            x: self.x,
            last_visit: self.last_visit,
            last_change: self.last_change,
            change_cycle_sum: self.change_cycle_sum,
            gad_bits: self.gad_anchor.to_bits(),
            tracked: self.track != Track::NONE,
            extra: Extra {
                weight_bits: self.weight.to_bits(),
                host: self.host,
                group: self.group,
                recent: [self.recent_visits, self.recent_changes],
                changed_set: self.changed_set,
                unchanged_time: self.unchanged_time,
                latent_bits: self.latent.to_bits(),
            },
        }
    }
}

/// The tracked part of a [`StatsKey`] (all defaults unless tracked; the MLE rate is a
/// function of the intervals, so it is not part of the key).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Extra {
    weight_bits: u64,
    host: u32,
    group: u32,
    recent: [u32; 2],
    changed_set: SetId,
    unchanged_time: u64,
    latent_bits: u64,
}

/// [`PageStats`] with the floats as bits, for hashing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StatsKey {
    n: u32,
    x: u32,
    last_visit: u32,
    last_change: u32,
    change_cycle_sum: u64,
    gad_bits: u64,
    tracked: bool,
    extra: Extra,
}

/// Hashes the tracked part only when something is tracked: without it (the hot path of
/// GP4C formulas) it never varies. Agrees with `Eq`, which compares everything.
impl std::hash::Hash for StatsKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.n.hash(state);
        self.x.hash(state);
        self.last_visit.hash(state);
        self.last_change.hash(state);
        self.change_cycle_sum.hash(state);
        self.gad_bits.hash(state);
        if self.tracked {
            self.extra.hash(state);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page visited at cycles 1..=4, changes found at 1 and 3; scored at cycle 6.
    fn sample() -> PageStats {
        let mut s = PageStats::default();
        for (d, changed) in [(1, true), (2, false), (3, true), (4, false)] {
            s.visit(d, changed, &mut Histories::default());
        }
        s
    }

    /// Every simulation streams the pages' statistics: the oracle's latent probability
    /// took padding, not a larger record.
    #[test]
    fn page_stats_stay_small() {
        assert!(std::mem::size_of::<PageStats>() <= 88);
    }

    #[test]
    fn hand_computed_terminals() {
        let s = sample();
        let d = 6;
        assert_eq!(s.age(d), 2.0);
        assert_eq!((s.n, s.x), (4, 2));
        assert_eq!(s.cg(), -(2.5f64 / 4.5).ln());
        assert_eq!(s.nad(d), 2.0 * (1.0 / 5.0));
        assert_eq!(s.sad(d), 0.0);
        assert_eq!(s.sad(4), 1.0);
        assert_eq!(s.aad(d), 4.0 / 15.0); // (1 + 3) / (1 + 2 + 3 + 4 + 5)
        assert_eq!(s.gad(d), 5.0 / 31.0); // (2^0 + 2^2) / (2^0 + ... + 2^4)
    }

    /// `b` is k / P for every page, at most 1, and 0 without pages or until set.
    #[test]
    fn the_budget_is_the_share_of_pages_visited() {
        let page = PageStats::default();
        let b = |s: &Surroundings| page.terminal(Terminal::B, 3, s);
        assert_eq!(b(&Surroundings::default()), 0.0);
        assert_eq!(b(&Surroundings::new(2, 0).with_budget(5, 100)), 0.05);
        assert_eq!(b(&Surroundings::default().with_budget(1, 3)), 1.0 / 3.0);
        assert_eq!(b(&Surroundings::default().with_budget(300, 100)), 1.0);
        assert_eq!(b(&Surroundings::default().with_budget(3, 0)), 0.0);
        let mut s = Surroundings::default().with_budget(5, 100);
        s.clear();
        assert_eq!(b(&s), 0.05, "forgetting visits keeps the budget");
    }

    #[test]
    fn never_changed_and_never_visited() {
        let fresh = PageStats::default();
        assert_eq!(
            fresh.terminals(3, &Surroundings::default()),
            [
                3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                0.0, 0.0, 0.0
            ]
        );
        let mut quiet = PageStats::default();
        quiet.visit(1, false, &mut Histories::default());
        quiet.visit(2, false, &mut Histories::default());
        let values = quiet.terminals(3, &Surroundings::default());
        assert_eq!(
            values,
            [
                1.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                0.0, 0.0, 0.0
            ]
        );
        assert!(
            values.iter().all(|v| v.is_sign_positive()),
            "no -0: {values:?}"
        );
    }

    #[test]
    fn gad_over_long_periods_does_not_overflow() {
        let mut s = PageStats::default();
        for d in 1..=5000u32 {
            s.visit(d, d % 3 == 0, &mut Histories::default());
        }
        let g = s.gad(5001);
        assert!(g.is_finite() && g > 0.0 && g < 1.0, "{g}");
        // Changes every third cycle, the latest at 4998, three cycles before 5001:
        // Σ_{k≥0} 2^(-3-3k) = (1/8) / (1 - 1/8) = 1/7.
        assert!((g - 1.0 / 7.0).abs() < 1e-12, "{g}");
        // Long ago changes underflow to nothing, not to NaN.
        let mut old = PageStats::default();
        old.visit(1, true, &mut Histories::default());
        old.visit(2000, false, &mut Histories::default());
        assert_eq!(old.gad(3000), 0.0);
    }

    #[test]
    fn gad_matches_the_direct_sum_when_exact() {
        let changes = [1u32, 2, 5, 9, 13, 18];
        let mut s = PageStats::default();
        for d in 1..=19u32 {
            s.visit(d, changes.contains(&d), &mut Histories::default());
        }
        for d in 20..=40u32 {
            let num: f64 = changes.iter().map(|&h| 2f64.powi(h as i32 - 1)).sum();
            let den: f64 = (1..d).map(|j| 2f64.powi(j as i32 - 1)).sum();
            assert_eq!(s.gad(d), num / den, "d = {d}");
        }
    }

    #[test]
    fn gad_numerator_is_the_exact_sum_of_the_last_53_cycles_changes() {
        // Changes 70 cycles apart and dense: added in order, the sum would round.
        let changes: Vec<u32> = (1..=120).filter(|d| d % 3 != 1 || *d < 30).collect();
        let mut s = PageStats::default();
        for d in 1..=120u32 {
            s.visit(d, changes.contains(&d), &mut Histories::default());
        }
        let last = *changes.last().unwrap();
        let exact: f64 = changes
            .iter()
            .filter(|&&h| h + 52 >= last)
            .map(|&h| exp2i(h as i64 - last as i64))
            .sum();
        assert_eq!(s.gad_anchor, exact);
        // In any order: every partial sum is exact.
        let reversed: f64 = changes
            .iter()
            .rev()
            .filter(|&&h| h + 52 >= last)
            .map(|&h| exp2i(h as i64 - last as i64))
            .sum();
        assert_eq!(reversed, exact);
    }

    #[test]
    fn exp2i_is_exact() {
        for e in -1022..=1023i64 {
            assert_eq!(exp2i(e), 2f64.powi(e as i32), "2^{e}");
        }
        assert_eq!(exp2i(-1074), f64::from_bits(1));
        assert_eq!(exp2i(-1023), f64::MIN_POSITIVE / 2.0);
        assert_eq!(exp2i(-1075), 0.0);
    }
}
