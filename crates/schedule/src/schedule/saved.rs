//! A page's statistics as the scheduler's state file holds them, and their checks.
//!
//! [`SavedStats`] is the part every page keeps (every format version), [`SavedExtra`] the
//! tracked part ([`Track`], format version 3): which statistics the page keeps, its weight
//! and host as its statistics hold them, the 7-cycle visit and change masks, its
//! change-detecting visit intervals (an index into the file's list of interval multisets,
//! [`SavedSets`]), the sum of its other intervals and its MLE rate.
//!
//! Interned multiset ids ([`SetId`]) are an in-memory detail of one [`Histories`]: the file
//! lists each distinct multiset a live page uses once, as its intervals in ascending order
//! (list 0 is always the empty multiset), and loading interns them again. A loaded page's
//! MLE rate is recomputed from its intervals (it must agree with the saved one to 1e-9), so
//! the loaded scheduler's rates are exactly those its own later visits compute.
//!
//! Every check returns what is wrong in words, for an error naming the file and the page.

use crate::policy::{Histories, PageStats, SetId, Track, NO_HOST};
use rustc_hash::FxHashMap as HashMap;
use serde::{Deserialize, Serialize};

/// One slot's statistics that every page keeps, as saved (every format version).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub(super) struct SavedStats {
    pub(super) n: u32,
    pub(super) x: u32,
    pub(super) last_visit: u32,
    pub(super) last_change: u32,
    pub(super) change_cycle_sum: u64,
    pub(super) gad_anchor: f64,
}

impl From<PageStats> for SavedStats {
    fn from(s: PageStats) -> SavedStats {
        SavedStats {
            n: s.n,
            x: s.x,
            last_visit: s.last_visit,
            last_change: s.last_change,
            change_cycle_sum: s.change_cycle_sum,
            gad_anchor: s.gad_anchor,
        }
    }
}

impl SavedStats {
    /// These statistics over `fresh` (a page never visited, with the tracked fields the
    /// policy keeps).
    pub(super) fn over(self, fresh: PageStats) -> PageStats {
        PageStats {
            n: self.n,
            x: self.x,
            last_visit: self.last_visit,
            last_change: self.last_change,
            change_cycle_sum: self.change_cycle_sum,
            gad_anchor: self.gad_anchor,
            ..fresh
        }
    }

    /// What is inconsistent in these statistics, if anything.
    pub(super) fn check(&self, latest: u32) -> Option<&'static str> {
        if self.x > self.n {
            return Some("more changes than visits");
        }
        if self.last_visit > latest {
            return Some("a visit after the latest cycle");
        }
        if (self.n == 0) != (self.last_visit == 0) || self.n > self.last_visit {
            return Some("visit count and last visit disagree");
        }
        if (self.x == 0) != (self.last_change == 0) || self.last_change > self.last_visit {
            return Some("change count and last change disagree");
        }
        let sum_ok = if self.x == 0 {
            self.change_cycle_sum == 0
        } else {
            self.change_cycle_sum >= self.last_change as u64
                && self.change_cycle_sum <= self.x as u64 * self.last_change as u64
        };
        if !sum_ok {
            return Some("impossible sum of change cycles");
        }
        let gad_ok = if self.x == 0 {
            self.gad_anchor == 0.0
        } else {
            self.gad_anchor >= 1.0 && self.gad_anchor < 2.0
        };
        if !gad_ok {
            return Some("impossible GAD sum");
        }
        None
    }
}

/// The tracked statistics kept, one bit each, in the file.
const TRACKS: [(Track, u8, &str); 6] = [
    (Track::WEIGHT, 1, "w"),
    (Track::HOST, 2, "HR"),
    (Track::WINDOW, 4, "n7/X7"),
    (Track::INTERVALS, 8, "MLE"),
    (Track::WINDOW30, 16, "n30/X30/P (30 cycles)"),
    (Track::GROUP, 32, "GR"),
];

/// The 30-cycle masks `[visits, changes]` of a page that keeps them (saved beside the
/// 7-cycle ones, version 5), checked against its statistics (which hold the 7-cycle
/// masks read from the same file).
pub(super) fn window30(s: &PageStats, saved: [u32; 2]) -> Result<PageStats, String> {
    let [visits, changes] = saved;
    let bad = |what: &str| {
        Err(format!(
            "30-cycle visit/change masks {visits:#x}/{changes:#x}: {what}"
        ))
    };
    if visits >> crate::policy::MAX_WINDOW != 0 || changes & !visits != 0 {
        return bad("a change without a visit, or a cycle beyond the window");
    }
    if visits & 0x7F != s.recent_visits || changes & 0x7F != s.recent_changes {
        return bad("they disagree with the 7-cycle masks");
    }
    // Bit i is cycle last_visit - i, which must be a cycle (>= 1).
    if s.last_visit <= 31 && visits >> s.last_visit.min(31) != 0 {
        return bad("a visit before cycle 1");
    }
    Ok(PageStats {
        recent_visits: visits,
        recent_changes: changes,
        ..*s
    })
}

/// `track` as saved.
pub(super) fn track_bits(track: Track) -> u8 {
    TRACKS
        .iter()
        .filter(|(t, _, _)| track.has(*t))
        .fold(0, |bits, (_, bit, _)| bits | bit)
}

/// The track saved as `bits`, if every bit is known.
fn track_of(bits: u8) -> Option<Track> {
    let known = TRACKS.iter().fold(0, |all, (_, bit, _)| all | bit);
    let track = TRACKS
        .iter()
        .filter(|(_, bit, _)| bits & bit != 0)
        .fold(Track::NONE, |track, (t, _, _)| track.with(*t));
    // The 30-cycle window includes the 7-cycle one: bit 16 without bit 4 is no track.
    (bits & !known == 0 && track_bits(track) == bits).then_some(track)
}

/// The terminals `track` keeps statistics for, in words.
pub(super) fn track_names(track: Track) -> String {
    let names: Vec<&str> = TRACKS
        .iter()
        .filter(|(t, _, _)| track.has(*t))
        .map(|(_, _, name)| *name)
        .collect();
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

/// One slot's tracked statistics, as saved (format version 3).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub(super) struct SavedExtra {
    /// The statistics kept ([`track_bits`]).
    pub(super) track: u8,
    /// The weight its statistics hold (0 unless `w` is kept).
    pub(super) weight: f64,
    /// The host its statistics hold ([`NO_HOST`] unless `HR` is kept).
    pub(super) host: u32,
    pub(super) recent_visits: u8,
    pub(super) recent_changes: u8,
    /// Index in the file's [`SavedSets`].
    pub(super) changed_set: u32,
    pub(super) unchanged_time: u64,
    pub(super) mle: f64,
}

/// The interval multisets of a file: list `i` holds the intervals of saved set `i`,
/// ascending; list 0 is the empty multiset.
pub(super) type SavedSets = Vec<Vec<u32>>;

/// Builds a file's [`SavedSets`] while the pages are saved.
#[derive(Debug)]
pub(super) struct SetWriter {
    index: HashMap<SetId, u32>,
    sets: SavedSets,
}

impl SetWriter {
    /// Only the empty multiset, as list 0.
    pub(super) fn new() -> SetWriter {
        let mut index = HashMap::default();
        index.insert(Histories::EMPTY, 0);
        SetWriter {
            index,
            sets: vec![Vec::new()],
        }
    }

    /// The tracked part of `stats` as saved, its multiset listed (once) in the sets.
    pub(super) fn extra(&mut self, stats: &PageStats, histories: &Histories) -> SavedExtra {
        let next = self.sets.len() as u32;
        let changed_set = *self.index.entry(stats.changed_set).or_insert_with(|| {
            self.sets.push(histories.intervals(stats.changed_set));
            next
        });
        SavedExtra {
            track: track_bits(stats.track),
            weight: stats.weight,
            host: stats.host,
            // The last 7 cycles (n7, X7); a 30-cycle window is saved beside (version 5).
            recent_visits: (stats.recent_visits & 0x7F) as u8,
            recent_changes: (stats.recent_changes & 0x7F) as u8,
            changed_set,
            unchanged_time: stats.unchanged_time,
            mle: stats.mle,
        }
    }

    /// The lists.
    pub(super) fn finish(self) -> SavedSets {
        self.sets
    }
}

/// Interns a file's multisets into `histories`: their ids, by list.
pub(super) fn intern_sets(
    sets: &SavedSets,
    histories: &mut Histories,
) -> Result<Vec<SetId>, String> {
    match sets.first() {
        Some(first) if first.is_empty() => {}
        _ => return Err("the first interval multiset is not the empty one".into()),
    }
    sets.iter()
        .enumerate()
        .map(|(i, taus)| {
            if taus.first() == Some(&0) || taus.windows(2).any(|w| w[0] > w[1]) {
                return Err(format!(
                    "interval multiset {i} is not a list of intervals >= 1 in ascending order"
                ));
            }
            Ok(taus.iter().fold(Histories::EMPTY, |set, &tau| {
                histories.with_interval(set, tau)
            }))
        })
        .collect()
}

/// What a page's statistics must hold besides the part every page keeps: the policy's
/// track, the page's weight and host (scheduler host index or [`NO_HOST`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct Expected {
    pub(super) track: Track,
    pub(super) weight: f64,
    pub(super) host: u32,
}

impl SavedExtra {
    /// The whole statistics: `base` with this tracked part, its multiset id taken from
    /// `sets` (the interned [`SavedSets`]) and its MLE rate recomputed in `histories`;
    /// or what is inconsistent.
    pub(super) fn stats(
        &self,
        base: PageStats,
        expected: Expected,
        sets: &[SetId],
        histories: &mut Histories,
    ) -> Result<PageStats, String> {
        let track = track_of(self.track)
            .ok_or_else(|| format!("unknown statistics kept (bits {:#x})", self.track))?;
        if track != expected.track {
            return Err(format!(
                "statistics kept for {} but the policy reads {}",
                track_names(track),
                track_names(expected.track)
            ));
        }
        let changed_set = *sets
            .get(self.changed_set as usize)
            .ok_or_else(|| format!("interval multiset {} is not listed", self.changed_set))?;
        let stats = PageStats {
            track,
            weight: self.weight + 0.0,
            host: self.host,
            recent_visits: u32::from(self.recent_visits),
            recent_changes: u32::from(self.recent_changes),
            changed_set,
            unchanged_time: self.unchanged_time,
            mle: self.mle,
            ..base
        };
        check_kept(&stats, expected)?;
        check_window(&stats)?;
        let mle = check_intervals(&stats, histories)?;
        Ok(PageStats { mle, ..stats })
    }
}

/// The weight and host the statistics hold are the page's (or the defaults, untracked).
pub(super) fn check_kept(s: &PageStats, expected: Expected) -> Result<(), String> {
    let weight = if s.track.has(Track::WEIGHT) {
        expected.weight
    } else {
        0.0
    };
    if s.weight.to_bits() != weight.to_bits() {
        return Err(format!(
            "its statistics hold weight {}, not {weight}",
            s.weight
        ));
    }
    let host = if s.track.has(Track::HOST) {
        expected.host
    } else {
        NO_HOST
    };
    if s.host != host {
        let name = |h: u32| match h {
            NO_HOST => "none".to_string(),
            h => h.to_string(),
        };
        return Err(format!(
            "its statistics hold host {}, not {}",
            name(s.host),
            name(host)
        ));
    }
    Ok(())
}

/// The 7-cycle masks agree with the visits and changes (and are empty, untracked).
fn check_window(s: &PageStats) -> Result<(), String> {
    let (visits, changes) = (s.recent_visits, s.recent_changes);
    let bad = |what: &str| {
        Err(format!(
            "recent visit/change masks {visits:#04x}/{changes:#04x}: {what}"
        ))
    };
    if !s.track.has(Track::WINDOW) {
        return if visits == 0 && changes == 0 {
            Ok(())
        } else {
            bad("kept without n7/X7")
        };
    }
    if visits >= 0x80 || changes & !visits != 0 {
        return bad("a change without a visit, or a cycle beyond the window");
    }
    if s.n == 0 {
        return if visits == 0 {
            Ok(())
        } else {
            bad("visits of a page never visited")
        };
    }
    // Bit i is cycle last_visit - i: it is the last visit, and no cycle is before 1.
    let before_start = s.last_visit < 7 && visits >> s.last_visit != 0;
    if visits & 1 == 0 || before_start || visits.count_ones() > s.n {
        return bad("they disagree with the visit count and last visit");
    }
    let gap = s.last_visit - s.last_change;
    let lowest_change_ok = if s.x > 0 && gap < 7 {
        changes.trailing_zeros() == gap
    } else {
        changes == 0
    };
    if !lowest_change_ok || changes.count_ones() > s.x {
        return bad("they disagree with the change count and last change");
    }
    Ok(())
}

/// The visit intervals agree with the visits (and are empty, untracked); the MLE rate
/// recomputed from them, which the saved one must match to 1e-9.
fn check_intervals(s: &PageStats, histories: &mut Histories) -> Result<f64, String> {
    let ln2 = std::f64::consts::LN_2;
    if !s.track.has(Track::INTERVALS) {
        let defaults = s.changed_set == Histories::EMPTY
            && s.unchanged_time == 0
            && s.mle.to_bits() == ln2.to_bits();
        return if defaults {
            Ok(ln2)
        } else {
            Err("visit intervals kept without MLE".into())
        };
    }
    let taus = histories.intervals(s.changed_set);
    let changed_time: u64 = taus.iter().map(|&t| t as u64).sum();
    let unchanged_visits = (s.n - s.x) as u64;
    if taus.len() != s.x as usize
        || changed_time + s.unchanged_time != s.last_visit as u64
        || s.unchanged_time < unchanged_visits
    {
        return Err(format!(
            "visit intervals ({} changed, summing to {changed_time}; unchanged ones summing \
             to {}) disagree with {} visits, {} changes, the last at cycle {}",
            taus.len(),
            s.unchanged_time,
            s.n,
            s.x,
            s.last_visit
        ));
    }
    let mle = if s.n == 0 {
        ln2
    } else {
        histories.mle(s.changed_set, s.unchanged_time)
    };
    // NaN (a corrupt rate) is never close.
    let close = (s.mle - mle).abs() <= 1e-9 * mle;
    if !close {
        return Err(format!(
            "MLE rate {} disagrees with its visit intervals ({mle})",
            s.mle
        ));
    }
    Ok(mle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formula::Grammar;
    use crate::policy::Policy;

    /// The statistics of a page of weight 2 and host 3 kept for every §8 terminal,
    /// visited at `visits` (cycle, changed).
    fn visited(visits: &[(u32, bool)], histories: &mut Histories) -> PageStats {
        let policy = Policy::parse("w + tc + n7 + X7 + HR + MLE", &Grammar::extended()).unwrap();
        let mut page = policy.fresh_page_of(2.0, 3, 1);
        for &(d, changed) in visits {
            policy.visit(&mut page, d, changed, histories);
        }
        page.stats
    }

    const EVERYTHING: Expected = Expected {
        track: Track::WEIGHT
            .with(Track::HOST)
            .with(Track::WINDOW)
            .with(Track::INTERVALS),
        weight: 2.0,
        host: 3,
    };

    /// Saves `stats` and reads them back into a new `Histories`.
    fn round_trip(stats: &PageStats, histories: &Histories) -> Result<PageStats, String> {
        let mut writer = SetWriter::new();
        let extra = writer.extra(stats, histories);
        reload(stats, extra, writer.finish())
    }

    fn reload(stats: &PageStats, extra: SavedExtra, sets: SavedSets) -> Result<PageStats, String> {
        let mut fresh = Histories::default();
        let ids = intern_sets(&sets, &mut fresh)?;
        let base = SavedStats::from(*stats).over(PageStats::default());
        extra.stats(base, EVERYTHING, &ids, &mut fresh)
    }

    #[test]
    fn impossible_30_cycle_windows_are_refused() {
        let mut s = PageStats::new(Track::WINDOW30, 1.0, NO_HOST, crate::policy::NO_GROUP);
        let h = &mut Histories::default();
        for (d, c) in [(2, true), (9, false), (12, true)] {
            s.visit(d, c, h);
        }
        // Visits at 12, 9 and 2: bits 0, 3 and 10; changes at 12 and 2.
        let good = [s.recent_visits, s.recent_changes];
        assert_eq!(good, [1 | 1 << 3 | 1 << 10, 1 | 1 << 10]);
        let saved = PageStats {
            recent_visits: good[0] & 0x7F,
            recent_changes: good[1] & 0x7F,
            ..s
        };
        assert_eq!(window30(&saved, good).unwrap(), s);
        for (masks, why) in [
            ([good[0] | 1 << 30, good[1]], "beyond the window"),
            ([good[0], good[1] | 1 << 4], "a change without a visit"),
            (
                [good[0] | 1 << 2, good[1]],
                "disagree with the 7-cycle masks",
            ),
            ([good[0] | 1 << 12, good[1]], "a visit before cycle 1"),
        ] {
            let e = window30(&saved, masks).unwrap_err();
            assert!(e.contains(why), "{e}");
        }
    }

    #[test]
    fn tracks_round_trip_through_their_bits() {
        for bits in 0..64u8 {
            match track_of(bits) {
                Some(track) => assert_eq!(track_bits(track), bits),
                None => assert_eq!(bits & 0b10100, 0b10000, "{bits}"),
            }
        }
        assert_eq!(track_of(16), None);
        assert_eq!(track_of(32), Some(Track::GROUP));
        assert_eq!(track_of(64), None);
        assert_eq!(track_names(EVERYTHING.track), "w, HR, n7/X7, MLE");
        assert_eq!(track_names(Track::NONE), "none");
    }

    #[test]
    fn statistics_round_trip_and_mle_is_recomputed() {
        let mut h = Histories::default();
        let visits = [
            (1, true),
            (2, false),
            (5, true),
            (6, true),
            (9, false),
            (10, true),
        ];
        for upto in 0..=visits.len() {
            let stats = visited(&visits[..upto], &mut h);
            let back = round_trip(&stats, &h).unwrap();
            let mut reinterned = Histories::default();
            let ids = intern_sets(
                &vec![vec![], h.intervals(stats.changed_set)],
                &mut reinterned,
            );
            assert_eq!(back.changed_set, ids.unwrap()[1]);
            assert_eq!(
                PageStats {
                    changed_set: 0,
                    ..back
                },
                PageStats {
                    changed_set: 0,
                    ..stats
                },
                "after {upto} visits"
            );
        }
    }

    #[test]
    fn inconsistent_statistics_say_what_is_wrong() {
        let mut h = Histories::default();
        let stats = visited(&[(1, true), (2, false), (4, true)], &mut h);
        let mut writer = SetWriter::new();
        let good = writer.extra(&stats, &h);
        let sets = writer.finish();
        let err =
            |extra: SavedExtra, sets: &SavedSets| reload(&stats, extra, sets.clone()).unwrap_err();
        assert!(err(
            SavedExtra {
                weight: 3.0,
                ..good
            },
            &sets
        )
        .contains("weight 3, not 2"));
        assert!(err(
            SavedExtra {
                host: NO_HOST,
                ..good
            },
            &sets
        )
        .contains("host none, not 3"));
        assert!(err(SavedExtra { track: 1, ..good }, &sets).contains("kept for w but"));
        assert!(err(
            SavedExtra {
                track: 0x30,
                ..good
            },
            &sets
        )
        .contains("unknown statistics"));
        // Visits at 4, 2, 1 (bit i: cycle 4 - i): mask 0b1101; changes at 4 and 1: 0b1001.
        assert_eq!((good.recent_visits, good.recent_changes), (0b1101, 0b1001));
        for (v, c) in [
            (0b1101, 0b1011),
            (0b1100, 0b1000),
            (0b11101, 0b1001),
            (0b1101, 0b1000),
        ] {
            let e = err(
                SavedExtra {
                    recent_visits: v,
                    recent_changes: c,
                    ..good
                },
                &sets,
            );
            assert!(
                e.contains("recent visit/change masks"),
                "{v:#b} {c:#b}: {e}"
            );
        }
        assert!(err(
            SavedExtra {
                changed_set: 7,
                ..good
            },
            &sets
        )
        .contains("not listed"));
        assert!(err(
            SavedExtra {
                unchanged_time: 2,
                ..good
            },
            &sets
        )
        .contains("disagree with 3 visits"));
        assert!(err(
            SavedExtra {
                mle: good.mle * 1.01,
                ..good
            },
            &sets
        )
        .contains("MLE rate"));
        let mut other = sets.clone();
        other[1] = vec![1, 3]; // sums to 4, not 3
        assert!(err(good, &other).contains("summing to 4"));
        other[1] = vec![2, 1];
        assert!(err(good, &other).contains("ascending order"));
        assert!(err(good, &vec![vec![1]]).contains("first interval multiset"));
        // A tiny difference (another machine's libm) is accepted; the rate is recomputed.
        let close = SavedExtra {
            mle: good.mle * (1.0 + 1e-12),
            ..good
        };
        assert_eq!(reload(&stats, close, sets).unwrap().mle, stats.mle);
    }
}
