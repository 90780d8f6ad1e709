//! Per-page crawl statistics and the terminals computed from them (SPEC §4).
//!
//! [`PageStats`] is everything a scoring function may know about a page: its visits, the
//! changes they detected and when. It is updated by [`PageStats::visit`] and read by
//! [`PageStats::terminals`], the single definition of `t n X CG NAD SAD AAD GAD` used by
//! the simulators, the scheduler and the tests.
//!
//! The Tan & Mitra rates are indexed by cycle, as in the authors' code: at cycle `d` they
//! weigh the detected changes `H` against the `d - 1` cycles so far. `GAD`'s sums of
//! powers of two are kept relative to the last change (`gad_anchor = Σ_{h∈H} 2^(h - last)`),
//! so they never overflow, however long the period; whenever the exact sums fit in a
//! double (periods up to 53 cycles) the result is the correctly rounded
//! `Σ 2^(h-1) / Σ_{j<d} 2^(j-1)`, bit for bit what a direct computation gives.
//!
//! **Invariant:** terminal values are never NaN and never `-0.0` (the formula simplifier
//! relies on the latter).

use crate::formula::Terminal;

/// What a crawler knows about one page at the start of a cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PageStats {
    /// Visits so far (`n`).
    pub n: u32,
    /// Visits that found the page changed (`X`, also `|H|`).
    pub x: u32,
    /// Cycle of the last visit (0: never visited).
    pub last_visit: u32,
    /// Cycle of the last visit that found a change (0: none).
    pub last_change: u32,
    /// Σ of the cycles in which a change was found (AAD's numerator).
    pub(crate) change_cycle_sum: u64,
    /// Σ_{h∈H} 2^(h - last_change) (GAD's numerator, scaled; 0 when H is empty).
    pub(crate) gad_anchor: f64,
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
    /// Records a visit at cycle `d` that did (or did not) find the page changed.
    pub fn visit(&mut self, d: u32, changed: bool) {
        self.n += 1;
        self.last_visit = d;
        if changed {
            self.x += 1;
            self.change_cycle_sum += d as u64;
            self.gad_anchor = if self.last_change == 0 {
                1.0
            } else {
                self.gad_anchor * exp2i(self.last_change as i64 - d as i64) + 1.0
            };
            self.last_change = d;
        }
    }

    /// `t`: cycles since the last visit, at cycle `d`.
    pub(crate) fn age(&self, d: u32) -> f64 {
        (d - self.last_visit) as f64
    }

    /// Cho & Garcia-Molina's estimator `-ln((n - X + 0.5) / (n + 0.5))`.
    pub(crate) fn cg(&self) -> f64 {
        let n = self.n as f64;
        let x = self.x as f64;
        // `+ 0.0` turns the -0 of -ln(1) into +0.
        -((n - x + 0.5) / (n + 0.5)).ln() + 0.0
    }

    /// Tan & Mitra's NAD at cycle `d`: `|H| · (1 / (d - 1))` (the authors' expression).
    pub(crate) fn nad(&self, d: u32) -> f64 {
        if d <= 1 {
            return 0.0;
        }
        self.x as f64 * (1.0 / (d - 1) as f64)
    }

    /// SAD at cycle `d`: 1 if the last detected change was at cycle `d - 1`.
    pub(crate) fn sad(&self, d: u32) -> f64 {
        if self.x > 0 && self.last_change + 1 == d {
            1.0
        } else {
            0.0
        }
    }

    /// AAD at cycle `d`: `Σ_{h∈H} h / Σ_{j=1}^{d-1} j`.
    pub(crate) fn aad(&self, d: u32) -> f64 {
        if d <= 1 {
            return 0.0;
        }
        let d = d as u64;
        self.change_cycle_sum as f64 / (d * (d - 1) / 2) as f64
    }

    /// GAD at cycle `d`: `Σ_{h∈H} 2^(h-1) / Σ_{j=1}^{d-1} 2^(j-1)`, without overflow.
    pub(crate) fn gad(&self, d: u32) -> f64 {
        if d <= 1 || self.x == 0 {
            return 0.0;
        }
        let numerator = self.gad_anchor * exp2i(self.last_change as i64 - d as i64);
        let denominator = 1.0 - exp2i(1 - d as i64);
        numerator / denominator
    }

    /// One terminal's value at cycle `d`.
    pub fn terminal(&self, terminal: Terminal, d: u32) -> f64 {
        match terminal {
            Terminal::T => self.age(d),
            Terminal::N => self.n as f64,
            Terminal::X => self.x as f64,
            Terminal::CG => self.cg(),
            Terminal::NAD => self.nad(d),
            Terminal::SAD => self.sad(d),
            Terminal::AAD => self.aad(d),
            Terminal::GAD => self.gad(d),
        }
    }

    /// All terminal values at cycle `d`, indexed by [`Terminal::index`].
    pub fn terminals(&self, d: u32) -> [f64; Terminal::COUNT] {
        Terminal::ALL.map(|t| self.terminal(t, d))
    }

    /// The statistics as a hashable key: pages with equal keys get equal scores.
    pub(crate) fn key(&self) -> StatsKey {
        StatsKey {
            n: self.n,
            x: self.x,
            last_visit: self.last_visit,
            last_change: self.last_change,
            change_cycle_sum: self.change_cycle_sum,
            gad_bits: self.gad_anchor.to_bits(),
        }
    }
}

/// [`PageStats`] with the float as bits, for hashing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct StatsKey {
    n: u32,
    x: u32,
    last_visit: u32,
    last_change: u32,
    change_cycle_sum: u64,
    gad_bits: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page visited at cycles 1..=4, changes found at 1 and 3; scored at cycle 6.
    fn sample() -> PageStats {
        let mut s = PageStats::default();
        for (d, changed) in [(1, true), (2, false), (3, true), (4, false)] {
            s.visit(d, changed);
        }
        s
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

    #[test]
    fn never_changed_and_never_visited() {
        let fresh = PageStats::default();
        assert_eq!(fresh.terminals(3), [3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        let mut quiet = PageStats::default();
        quiet.visit(1, false);
        quiet.visit(2, false);
        let values = quiet.terminals(3);
        assert_eq!(values, [1.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        assert!(
            values.iter().all(|v| v.is_sign_positive()),
            "no -0: {values:?}"
        );
    }

    #[test]
    fn gad_over_long_periods_does_not_overflow() {
        let mut s = PageStats::default();
        for d in 1..=5000u32 {
            s.visit(d, d % 3 == 0);
        }
        let g = s.gad(5001);
        assert!(g.is_finite() && g > 0.0 && g < 1.0, "{g}");
        // Changes every third cycle, the latest at 4998, three cycles before 5001:
        // Σ_{k≥0} 2^(-3-3k) = (1/8) / (1 - 1/8) = 1/7.
        assert!((g - 1.0 / 7.0).abs() < 1e-12, "{g}");
        // Long ago changes underflow to nothing, not to NaN.
        let mut old = PageStats::default();
        old.visit(1, true);
        old.visit(2000, false);
        assert_eq!(old.gad(3000), 0.0);
    }

    #[test]
    fn gad_matches_the_direct_sum_when_exact() {
        let changes = [1u32, 2, 5, 9, 13, 18];
        let mut s = PageStats::default();
        for d in 1..=19u32 {
            s.visit(d, changes.contains(&d));
        }
        for d in 20..=40u32 {
            let num: f64 = changes.iter().map(|&h| 2f64.powi(h as i32 - 1)).sum();
            let den: f64 = (1..d).map(|j| 2f64.powi(j as i32 - 1)).sum();
            assert_eq!(s.gad(d), num / den, "d = {d}");
        }
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
