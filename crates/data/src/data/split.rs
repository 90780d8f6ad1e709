//! Temporal cross-validation (docs/src/reference/folds.md): 5 page folds × 3 cycle periods.
//!
//! Pages are cut, in file order, into 5 contiguous folds whose sizes differ by at most 1
//! (the first `P mod 5` get one extra page); cycles into 3 consecutive periods by the same
//! rule. Rotation f tests on fold f over period 3; the other 4 folds, in order, are cut
//! again into 4 parts: the first validates (period 2), the other three train (period 1).
//! This is the authors' `testCV`/`trainCV`/`timeSplit` assignment.
//!
//! ```
//! use freshgp_data::data::split::Split;
//!
//! let s = Split::new(7, 57, 0).unwrap();
//! assert_eq!(s.test, [0, 1]);              // folds of 7 pages: 2 2 1 1 1
//! assert_eq!(s.validation, [2, 3]);        // the other 5 pages in 4 parts: 2 1 1 1
//! assert_eq!(s.train, [4, 5, 6]);
//! assert_eq!((s.train_cycles, s.validation_cycles, s.test_cycles), (1..=19, 20..=38, 39..=57));
//! ```

use rand::seq::SliceRandom;
use rand::SeedableRng;
use std::ops::{Range, RangeInclusive};

/// Number of page folds (and rotations).
pub const FOLDS: usize = 5;
/// Number of cycle periods.
pub(crate) const PERIODS: usize = 3;

/// Why a split cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SplitError {
    /// Rotation outside `0..5`.
    #[error("rotation {0} is out of range (expected 0..=4)")]
    Rotation(usize),
    /// Too few pages for every set to hold one.
    #[error("{0} pages: at least 5 are needed (one per fold)")]
    TooFewPages(usize),
    /// Too few cycles for three periods.
    #[error("{0} cycles: at least 3 are needed (one per period)")]
    TooFewCycles(usize),
    /// A count of rotations outside `1..=5`.
    #[error("rotations {0}: expected 1..=5")]
    Rotations(usize),
}

/// `rotation` if it names one of the five rotations (0..=4).
///
/// # Errors
/// [`SplitError::Rotation`] otherwise.
pub fn check_rotation(rotation: usize) -> Result<usize, SplitError> {
    if rotation < FOLDS {
        Ok(rotation)
    } else {
        Err(SplitError::Rotation(rotation))
    }
}

/// `count` if it is a number of rotations to run or average (1..=5).
///
/// # Errors
/// [`SplitError::Rotations`] otherwise.
pub fn check_rotations(count: usize) -> Result<usize, SplitError> {
    if (1..=FOLDS).contains(&count) {
        Ok(count)
    } else {
        Err(SplitError::Rotations(count))
    }
}

/// Which pages and cycles a single run covers: one of a rotation's three sets, or every
/// page over every cycle (`--period`, Python's `period=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Set {
    /// The rotation's training pages over period 1.
    Train,
    /// Its validation pages over period 2.
    Validation,
    /// Its test pages over period 3.
    #[default]
    Test,
    /// Every page over every cycle.
    All,
}

impl Set {
    /// Every set, in the order of their names.
    pub const ALL: [Set; 4] = [Set::Train, Set::Validation, Set::Test, Set::All];

    /// The set's name, as flags and Python write it.
    pub fn name(self) -> &'static str {
        match self {
            Set::Train => "train",
            Set::Validation => "validation",
            Set::Test => "test",
            Set::All => "all",
        }
    }
}

impl std::fmt::Display for Set {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Set {
    type Err = String;

    /// Reads `train`, `validation`, `test` or `all`.
    fn from_str(s: &str) -> Result<Set, String> {
        Set::ALL
            .into_iter()
            .find(|set| set.name() == s)
            .ok_or_else(|| format!("`{s}`: expected train, validation, test or all"))
    }
}

/// Which cycles a rotation's test pages are simulated over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Horizon {
    /// Period 3 (docs/src/reference/folds.md#rotations): the temporal split.
    #[default]
    Temporal,
    /// Every cycle of the history (the warm-up, then all the rest scored): for policies
    /// that learn as they crawl, such as the EXP3 bandit (docs/src/reference/bandit.md),
    /// which need more than one period's cycles. The page folds are unchanged, so the test
    /// pages are still never trained on; the test cycles overlap the training and
    /// validation periods.
    Whole,
}

impl Horizon {
    /// Both horizons.
    pub const ALL: [Horizon; 2] = [Horizon::Temporal, Horizon::Whole];

    /// The horizon's name, as flags and Python write it.
    pub fn name(self) -> &'static str {
        match self {
            Horizon::Temporal => "temporal",
            Horizon::Whole => "whole",
        }
    }
}

impl std::fmt::Display for Horizon {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Horizon {
    type Err = String;

    /// Reads `temporal` or `whole`.
    fn from_str(s: &str) -> Result<Horizon, String> {
        Horizon::ALL
            .into_iter()
            .find(|h| h.name() == s)
            .ok_or_else(|| format!("`{s}`: expected temporal or whole"))
    }
}

/// One rotation of the temporal cross-validation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    /// The rotation (0..5): which fold is the test fold.
    pub(crate) rotation: usize,
    /// Training pages (indices into the dataset, ascending = file order).
    pub train: Vec<u32>,
    /// Validation pages.
    pub validation: Vec<u32>,
    /// Test pages.
    pub test: Vec<u32>,
    /// Period 1 (training), 1-based inclusive cycles.
    pub train_cycles: RangeInclusive<usize>,
    /// Period 2 (validation).
    pub validation_cycles: RangeInclusive<usize>,
    /// Period 3 (test).
    pub test_cycles: RangeInclusive<usize>,
}

/// `n` items cut into `k` contiguous parts whose sizes differ by at most one, the first
/// `n mod k` parts being the larger (the authors' `testCV` rule).
///
/// ```
/// assert_eq!(freshgp_data::data::split::parts(13, 5), [0..3, 3..6, 6..9, 9..11, 11..13]);
/// ```
pub fn parts(n: usize, k: usize) -> Vec<Range<usize>> {
    let (base, extra) = (n / k, n % k);
    let mut start = 0;
    (0..k)
        .map(|i| {
            let len = base + usize::from(i < extra);
            let r = start..start + len;
            start += len;
            r
        })
        .collect()
}

/// The three periods of `cycles` cycles, as 1-based inclusive ranges.
///
/// # Panics
/// If `cycles < 3`.
pub(crate) fn periods(cycles: usize) -> [RangeInclusive<usize>; PERIODS] {
    assert!(cycles >= PERIODS, "{cycles} cycles: need at least 3");
    let p = parts(cycles, PERIODS);
    [0, 1, 2].map(|i| p[i].start + 1..=p[i].end)
}

impl Split {
    /// The same split with its test pages simulated over `horizon` in a history of
    /// `cycles` cycles.
    pub fn with_horizon(mut self, horizon: Horizon, cycles: usize) -> Split {
        if horizon == Horizon::Whole {
            self.test_cycles = 1..=cycles;
        }
        self
    }

    /// Rotation `rotation` over `pages` pages in file order and `cycles` cycles.
    pub fn new(pages: usize, cycles: usize, rotation: usize) -> Result<Split, SplitError> {
        let order: Vec<u32> = (0..pages as u32).collect();
        Split::with_order(&order, cycles, rotation)
    }

    /// As [`Split::new`], but pages are first shuffled by `seed` (the optional shuffle of
    /// docs/src/reference/folds.md#page-folds). The same seed gives the same split on every
    /// platform.
    pub fn shuffled(
        pages: usize,
        cycles: usize,
        rotation: usize,
        seed: u64,
    ) -> Result<Split, SplitError> {
        let mut order: Vec<u32> = (0..pages as u32).collect();
        order.shuffle(&mut rand_pcg::Pcg64::seed_from_u64(seed));
        Split::with_order(&order, cycles, rotation)
    }

    /// The split of pages taken in the order `order` (indices); each resulting set is
    /// returned sorted ascending, i.e. in file order.
    pub(crate) fn with_order(
        order: &[u32],
        cycles: usize,
        rotation: usize,
    ) -> Result<Split, SplitError> {
        if rotation >= FOLDS {
            return Err(SplitError::Rotation(rotation));
        }
        if order.len() < FOLDS {
            return Err(SplitError::TooFewPages(order.len()));
        }
        if cycles < PERIODS {
            return Err(SplitError::TooFewCycles(cycles));
        }
        let folds = parts(order.len(), FOLDS);
        let test_range = folds[rotation].clone();
        let rest: Vec<u32> = order[..test_range.start]
            .iter()
            .chain(&order[test_range.end..])
            .copied()
            .collect();
        let inner = parts(rest.len(), 4);
        let sorted = |s: &[u32]| {
            let mut v = s.to_vec();
            v.sort_unstable();
            v
        };
        let [train_cycles, validation_cycles, test_cycles] = periods(cycles);
        Ok(Split {
            rotation,
            test: sorted(&order[test_range]),
            validation: sorted(&rest[inner[0].clone()]),
            train: sorted(&rest[inner[1].start..]),
            train_cycles,
            validation_cycles,
            test_cycles,
        })
    }

    /// All five rotations.
    pub fn all(pages: usize, cycles: usize) -> Result<Vec<Split>, SplitError> {
        (0..FOLDS).map(|f| Split::new(pages, cycles, f)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_rule() {
        assert_eq!(parts(7, 5), [0..2, 2..4, 4..5, 5..6, 6..7]);
        assert_eq!(parts(10, 5), [0..2, 2..4, 4..6, 6..8, 8..10]);
        assert_eq!(
            parts(417_048, 5),
            [
                0..83_410,
                83_410..166_820,
                166_820..250_230,
                250_230..333_639,
                333_639..417_048
            ]
        );
        assert_eq!(periods(57), [1..=19, 20..=38, 39..=57]);
        assert_eq!(periods(58), [1..=20, 21..=39, 40..=58]);
        assert_eq!(periods(59), [1..=20, 21..=40, 41..=59]);
        assert_eq!(periods(3), [1..=1, 2..=2, 3..=3]);
    }

    #[test]
    fn seven_pages_every_rotation() {
        // folds: [0,1] [2,3] [4] [5] [6]
        let expect: [(&[u32], &[u32], &[u32]); 5] = [
            (&[0, 1], &[2, 3], &[4, 5, 6]),
            (&[2, 3], &[0, 1], &[4, 5, 6]),
            (&[4], &[0, 1], &[2, 3, 5, 6]),
            (&[5], &[0, 1], &[2, 3, 4, 6]),
            (&[6], &[0, 1], &[2, 3, 4, 5]),
        ];
        for (f, (test, val, train)) in expect.iter().enumerate() {
            let s = Split::new(7, 10, f).unwrap();
            assert_eq!(
                (&s.test[..], &s.validation[..], &s.train[..]),
                (*test, *val, *train),
                "rotation {f}"
            );
            assert_eq!(
                (
                    s.train_cycles.clone(),
                    s.validation_cycles.clone(),
                    s.test_cycles.clone()
                ),
                (1..=4, 5..=7, 8..=10)
            );
        }
    }

    #[test]
    fn thirteen_pages() {
        // folds of 13: 3 3 3 2 2 → [0..3] [3..6] [6..9] [9..11] [11..13]
        let s = Split::new(13, 57, 1).unwrap();
        assert_eq!(s.test, [3, 4, 5]);
        // rest (10 pages: 0-2, 6-12) in 4 parts: 3 3 2 2 → validation = first 3
        assert_eq!(s.validation, [0, 1, 2]);
        assert_eq!(s.train, [6, 7, 8, 9, 10, 11, 12]);
        let s = Split::new(13, 57, 4).unwrap();
        assert_eq!(s.test, [11, 12]);
        assert_eq!(s.validation, [0, 1, 2]);
        assert_eq!(s.train.len(), 8);
    }

    #[test]
    fn brdc12_size() {
        for f in 0..5 {
            let s = Split::new(417_048, 57, f).unwrap();
            let sizes = [83_410, 83_410, 83_410, 83_409, 83_409];
            assert_eq!(s.test.len(), sizes[f]);
            let rest = 417_048 - sizes[f];
            assert_eq!(s.validation.len(), parts(rest, 4)[0].len());
            assert_eq!(s.test.len() + s.validation.len() + s.train.len(), 417_048);
        }
        let s = Split::new(417_048, 57, 3).unwrap();
        assert_eq!((s.test[0], *s.test.last().unwrap()), (250_230, 333_638));
        // rest = 333,639 pages → 4 parts: 83,410 + 3 × 83,410 (rest mod 4 = 3)
        assert_eq!(s.validation, (0..83_410).collect::<Vec<u32>>());
        assert_eq!(s.train[0], 83_410);
    }

    #[test]
    fn sets_partition_the_pages_and_shuffle_is_seeded() {
        for pages in [5, 6, 9, 101] {
            for f in 0..5 {
                for s in [
                    Split::new(pages, 9, f).unwrap(),
                    Split::shuffled(pages, 9, f, 7).unwrap(),
                ] {
                    let mut all: Vec<u32> = [&s.train[..], &s.validation[..], &s.test[..]].concat();
                    all.sort_unstable();
                    assert_eq!(all, (0..pages as u32).collect::<Vec<_>>());
                    assert!(!s.train.is_empty() && !s.validation.is_empty() && !s.test.is_empty());
                }
            }
        }
        assert_eq!(Split::shuffled(50, 9, 2, 7), Split::shuffled(50, 9, 2, 7));
        assert_ne!(Split::shuffled(50, 9, 2, 7), Split::new(50, 9, 2));
        assert_eq!(Split::new(4, 9, 0), Err(SplitError::TooFewPages(4)));
        assert_eq!(Split::new(9, 2, 0), Err(SplitError::TooFewCycles(2)));
        assert_eq!(Split::new(9, 9, 5), Err(SplitError::Rotation(5)));
    }
}
