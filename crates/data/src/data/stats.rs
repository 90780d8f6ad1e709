//! Summary figures of a history: sizes, change fractions, per-page change counts, weekday
//! profile, change clustering and the distribution of page weights. Computed on the
//! history as stored (unknown cycles are counted, and excluded from every change fraction).
//!
//! Weights ([`WeightStats`]): minimum, quantiles, maximum, total and the share of the
//! total held by the heaviest 1% of pages. A history without weights, or whose weights are
//! all 1, is *unweighted*: [`Stats::weights`] is `None` and the text says so.
//!
//! The weekday of cycle d is `(d - 1) mod 7` ("day 0" = the weekday of cycle 1), since the
//! text format carries no start date.
//!
//! ```
//! use freshgp_data::data::{stats::Stats, Dataset};
//!
//! let s = Stats::of(&Dataset::from_bit_strings(&["0101", "000?"]).unwrap());
//! assert_eq!((s.pages, s.cycles, s.unknown_cycles), (2, 4, 1));
//! assert!((s.mean_change_fraction - 2.0 / 7.0).abs() < 1e-12);
//! ```

use super::Dataset;
use std::fmt;

/// Summary figures of a dataset.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Stats {
    /// Pages P.
    pub pages: usize,
    /// Cycles D.
    pub cycles: usize,
    /// Distinct hosts (`None` when the dataset has no host column).
    pub(crate) hosts: Option<usize>,
    /// Mean pages per host.
    pub(crate) pages_per_host: Option<f64>,
    /// Largest host (pages).
    pub(crate) largest_host: Option<usize>,
    /// Pages whose host is empty (no host: never capped, their own host for `HR`).
    pub(crate) pages_without_host: usize,
    /// Unknown cycles over all pages.
    pub unknown_cycles: usize,
    /// Pages with at least one unknown cycle.
    pub(crate) pages_with_unknown: usize,
    /// Pages with more than 2 unknown cycles (dropped by the paper's policy).
    pub(crate) pages_over_2_unknown: usize,
    /// Changes (`1`) over all pages.
    pub(crate) changes: usize,
    /// Changes / known cycles.
    pub mean_change_fraction: f64,
    /// Per cycle d (index d-1): changed pages / pages known at d.
    pub(crate) per_cycle_change_fraction: Vec<f64>,
    /// `changes_per_page[c]` = number of pages with exactly c changes (c = 0..=D).
    pub(crate) changes_per_page: Vec<usize>,
    /// Fraction of pages that never change.
    pub(crate) never_changed_fraction: f64,
    /// Fraction of pages that change in at least half the cycles.
    pub(crate) half_or_more_fraction: f64,
    /// Quantiles of changes per page: 50%, 90%, 99%, max.
    pub(crate) changes_quantiles: [usize; 4],
    /// Change fraction per weekday `(d - 1) mod 7`.
    pub(crate) weekday_change_fraction: [f64; 7],
    /// P(change at d | change at d-1), over known pairs.
    pub(crate) p_change_after_change: f64,
    /// P(change at d | no change at d-1), over known pairs.
    pub(crate) p_change_after_no_change: f64,
    /// Whether the pages carry weights other than 1.
    pub weighted: bool,
    /// The weight distribution (`None` when unweighted: every page weighs 1).
    pub weights: Option<WeightStats>,
    /// The categorical attributes (docs/src/reference/data.md#attributes), in the order of
    /// the file.
    pub attributes: Vec<AttributeStats>,
}

/// One categorical attribute: how many values, how many pages have it, and how far its
/// groups' change fractions spread (a first look at whether it predicts change).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct AttributeStats {
    /// The key.
    pub name: String,
    /// Distinct values among the pages.
    pub cardinality: usize,
    /// Pages that have the attribute.
    pub pages: usize,
    /// The lowest and highest change fraction (changes / known cycles) of a value's pages.
    pub change_fraction_range: (f64, f64),
}

impl AttributeStats {
    fn of(d: &Dataset, a: &super::Attribute) -> AttributeStats {
        let mut changes = vec![0usize; a.values().len()];
        let mut known = vec![0usize; a.values().len()];
        for p in 0..d.pages() {
            if let Some(c) = a.code(p) {
                changes[c as usize] += d.changes_of(p);
                known[c as usize] += d.cycles() - d.unknown_of(p);
            }
        }
        let fractions = (0..changes.len())
            .filter(|&c| known[c] > 0)
            .map(|c| changes[c] as f64 / known[c] as f64);
        let range = fractions.fold(None, |r: Option<(f64, f64)>, f| {
            Some(r.map_or((f, f), |(lo, hi)| (lo.min(f), hi.max(f))))
        });
        AttributeStats {
            name: a.name().to_string(),
            cardinality: a.cardinality(),
            pages: a.pages_with(),
            change_fraction_range: range.unwrap_or((0.0, 0.0)),
        }
    }
}

/// The distribution of page weights.
///
/// Quantiles are nearest-rank: the `q` quantile is the smallest weight with at least
/// `ceil(q · P)` pages at or below it.
///
/// ```
/// use freshgp_data::data::stats::WeightStats;
///
/// let w: Vec<f64> = (1..=200).map(|i| if i <= 2 { 100.0 } else { 1.0 }).collect();
/// let s = WeightStats::of(&w).unwrap();
/// assert_eq!((s.min, s.p50, s.p99, s.max, s.total), (1.0, 1.0, 1.0, 100.0, 398.0));
/// assert_eq!(s.top_pages, 2);
/// assert!((s.top1_share - 200.0 / 398.0).abs() < 1e-12);
/// assert!(WeightStats::of(&[1.0, 1.0]).is_none()); // all 1: unweighted
/// ```
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct WeightStats {
    /// The lightest page's weight.
    pub min: f64,
    /// The median weight.
    pub p50: f64,
    /// The 90% quantile.
    pub p90: f64,
    /// The 99% quantile.
    pub p99: f64,
    /// The heaviest page's weight.
    pub max: f64,
    /// The sum of all weights.
    pub total: f64,
    /// The mean weight.
    pub mean: f64,
    /// Pages of weight 0.
    pub zero_pages: usize,
    /// The heaviest 1% of pages: `ceil(P / 100)`, at least 1.
    pub top_pages: usize,
    /// The share of `total` those pages hold (0 when the total is 0).
    pub top1_share: f64,
}

impl WeightStats {
    /// The distribution of `weights`; `None` when there is none or every weight is 1.
    pub fn of(weights: &[f64]) -> Option<WeightStats> {
        if weights.iter().all(|&w| w == 1.0) {
            return None;
        }
        let mut sorted = weights.to_vec();
        sorted.sort_unstable_by(f64::total_cmp);
        let n = sorted.len();
        let at = |q: f64| sorted[((q * n as f64).ceil() as usize).clamp(1, n) - 1];
        // Summed from the lightest up: the same order whatever the page order.
        let total: f64 = sorted.iter().sum();
        let top_pages = n.div_ceil(100).max(1);
        let top: f64 = sorted[n - top_pages..].iter().sum();
        Some(WeightStats {
            min: sorted[0],
            p50: at(0.5),
            p90: at(0.9),
            p99: at(0.99),
            max: sorted[n - 1],
            total,
            mean: total / n as f64,
            zero_pages: sorted.iter().take_while(|&&w| w == 0.0).count(),
            top_pages,
            top1_share: if total > 0.0 { top / total } else { 0.0 },
        })
    }
}

impl fmt::Display for WeightStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "weights            min {}, p50 {}, p90 {}, p99 {}, max {}",
            sig(self.min),
            sig(self.p50),
            sig(self.p90),
            sig(self.p99),
            sig(self.max)
        )?;
        write!(
            f,
            "                   total {} (mean {}), {} pages weigh 0; the top 1% ({} pages) hold {:.1}% of the weight",
            sig(self.total),
            sig(self.mean),
            self.zero_pages,
            self.top_pages,
            100.0 * self.top1_share
        )
    }
}

/// `x` with 4 significant digits (plain notation from 0.001 to 10^7, else scientific).
fn sig(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    let e = x.abs().log10().floor();
    if (-3.0..7.0).contains(&e) {
        format!("{x:.*}", (3.0 - e).max(0.0) as usize)
    } else {
        format!("{x:.3e}")
    }
}

impl Stats {
    /// Computes the figures of `d`.
    pub fn of(d: &Dataset) -> Stats {
        let (pages, cycles) = (d.pages(), d.cycles());
        let mut per_cycle_changed = vec![0usize; cycles];
        let mut per_cycle_known = vec![0usize; cycles];
        let mut changes_per_page = vec![0usize; cycles + 1];
        let (mut unknown_cycles, mut pages_with_unknown, mut over2) = (0, 0, 0);
        let (mut cc, mut c_prev, mut nc, mut n_prev) = (0usize, 0usize, 0usize, 0usize);
        for p in 0..pages {
            let (bits, unknown) = (d.row(p), d.unknown_row(p));
            let u: usize = unknown.iter().map(|w| w.count_ones() as usize).sum();
            unknown_cycles += u;
            pages_with_unknown += usize::from(u > 0);
            over2 += usize::from(u > 2);
            changes_per_page[d.changes_of(p)] += 1;
            let get = |row: &[u64], k: usize| row[k / 64] >> (k % 64) & 1 == 1;
            let mut prev: Option<bool> = None;
            for k in 0..cycles {
                if get(unknown, k) {
                    prev = None;
                    continue;
                }
                let c = get(bits, k);
                per_cycle_known[k] += 1;
                per_cycle_changed[k] += usize::from(c);
                match prev {
                    Some(true) => {
                        c_prev += 1;
                        cc += usize::from(c);
                    }
                    Some(false) => {
                        n_prev += 1;
                        nc += usize::from(c);
                    }
                    None => {}
                }
                prev = Some(c);
            }
        }
        let ratio = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        let changes: usize = per_cycle_changed.iter().sum();
        let known: usize = per_cycle_known.iter().sum();
        let mut wk_c = [0usize; 7];
        let mut wk_k = [0usize; 7];
        for k in 0..cycles {
            wk_c[k % 7] += per_cycle_changed[k];
            wk_k[k % 7] += per_cycle_known[k];
        }
        let quantile = |q: f64| {
            let target = (q * pages as f64).ceil().max(1.0) as usize;
            let mut acc = 0;
            for (c, &n) in changes_per_page.iter().enumerate() {
                acc += n;
                if acc >= target {
                    return c;
                }
            }
            cycles
        };
        let max = changes_per_page.iter().rposition(|&n| n > 0).unwrap_or(0);
        let weights = d.weight_values().and_then(WeightStats::of);
        let (hosts, pages_per_host, largest_host, pages_without_host) = host_figures(d);
        Stats {
            pages,
            cycles,
            hosts,
            pages_per_host,
            largest_host,
            pages_without_host,
            unknown_cycles,
            pages_with_unknown,
            pages_over_2_unknown: over2,
            changes,
            mean_change_fraction: ratio(changes, known),
            per_cycle_change_fraction: (0..cycles)
                .map(|k| ratio(per_cycle_changed[k], per_cycle_known[k]))
                .collect(),
            never_changed_fraction: ratio(changes_per_page[0], pages),
            half_or_more_fraction: ratio(
                changes_per_page[cycles.div_ceil(2)..].iter().sum(),
                pages,
            ),
            changes_quantiles: [quantile(0.5), quantile(0.9), quantile(0.99), max],
            changes_per_page,
            weekday_change_fraction: [0, 1, 2, 3, 4, 5, 6].map(|w| ratio(wk_c[w], wk_k[w])),
            p_change_after_change: ratio(cc, c_prev),
            p_change_after_no_change: ratio(nc, n_prev),
            weighted: weights.is_some(),
            weights,
            attributes: d
                .attributes()
                .iter()
                .map(|a| AttributeStats::of(d, a))
                .collect(),
        }
    }
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "pages              {}", self.pages)?;
        writeln!(f, "cycles             {}", self.cycles)?;
        let without = match self.pages_without_host {
            0 => String::new(),
            n => format!("; {}", count(n, "page") + " without a host"),
        };
        match (self.hosts, self.pages_per_host, self.largest_host) {
            (Some(h), Some(m), Some(l)) => writeln!(
                f,
                "hosts              {h} (mean {m:.1} pages/host, largest {l}{without})"
            )?,
            _ => writeln!(f, "hosts              - (no host column)")?,
        }
        writeln!(
            f,
            "unknown cycles     {} on {} pages ({} pages with more than 2)",
            self.unknown_cycles, self.pages_with_unknown, self.pages_over_2_unknown
        )?;
        writeln!(
            f,
            "changes            {} (mean change fraction {:.4})",
            self.changes, self.mean_change_fraction
        )?;
        writeln!(
            f,
            "P(change | change the cycle before) {:.4}, P(change | no change before) {:.4}",
            self.p_change_after_change, self.p_change_after_no_change
        )?;
        writeln!(
            f,
            "changes per page   never {:.1}%, half the cycles or more {:.1}%; median {}, p90 {}, p99 {}, max {}",
            100.0 * self.never_changed_fraction,
            100.0 * self.half_or_more_fraction,
            self.changes_quantiles[0],
            self.changes_quantiles[1],
            self.changes_quantiles[2],
            self.changes_quantiles[3]
        )?;
        match &self.weights {
            Some(w) => writeln!(f, "{w}")?,
            None => writeln!(
                f,
                "weights            none (unweighted: every page weighs 1)"
            )?,
        }
        if self.attributes.is_empty() {
            writeln!(f, "attributes         none")?;
        }
        for a in &self.attributes {
            writeln!(
                f,
                "attribute          {}: {} values on {}; change fraction by value {:.4} .. {:.4}",
                a.name,
                a.cardinality,
                count(a.pages, "page"),
                a.change_fraction_range.0,
                a.change_fraction_range.1
            )?;
        }
        write!(f, "pages by changes  ")?;
        let buckets: [(usize, usize); 8] = [
            (0, 0),
            (1, 1),
            (2, 3),
            (4, 7),
            (8, 15),
            (16, 31),
            (32, 63),
            (64, usize::MAX),
        ];
        for (lo, hi) in buckets {
            if lo > self.cycles {
                break;
            }
            let hi_c = hi.min(self.cycles);
            let n: usize = self.changes_per_page[lo..=hi_c].iter().sum();
            if lo == hi_c {
                write!(f, " {lo}:{n}")?;
            } else {
                write!(f, " {lo}-{hi_c}:{n}")?;
            }
        }
        writeln!(f)?;
        write!(f, "weekday profile    (day k = cycles d with (d-1) mod 7 = k; no start date known)\n                  ")?;
        for (w, x) in self.weekday_change_fraction.iter().enumerate() {
            write!(f, " day{w} {x:.4}")?;
        }
        writeln!(f)?;
        write!(f, "per-cycle change fraction")?;
        for (k, x) in self.per_cycle_change_fraction.iter().enumerate() {
            if k % 10 == 0 {
                write!(f, "\n  {:>4}:", k + 1)?;
            }
            write!(f, " {x:.4}")?;
        }
        writeln!(f)
    }
}

/// Hosts, mean pages per host and the largest host (`None` without a host column), and
/// the pages without a host. An empty host name is no host
/// (docs/src/reference/data.md#hosts): such pages are counted apart.
fn host_figures(d: &Dataset) -> (Option<usize>, Option<f64>, Option<usize>, usize) {
    let pages = d.pages();
    let Some(h) = (0..pages).map(|p| d.host(p)).collect::<Option<Vec<u32>>>() else {
        return (None, None, None, 0);
    };
    if pages == 0 {
        return (None, None, None, 0);
    }
    let names = d.host_names();
    let mut sizes = vec![0usize; names.len()];
    let mut without = 0;
    for x in h {
        if names[x as usize].is_empty() {
            without += 1;
        } else {
            sizes[x as usize] += 1;
        }
    }
    let n = sizes.iter().filter(|&&s| s > 0).count();
    let mean = if n == 0 {
        0.0
    } else {
        (pages - without) as f64 / n as f64
    };
    (Some(n), Some(mean), sizes.iter().max().copied(), without)
}

/// `n` and `noun`, in the plural unless `n` is 1: "1 page", "2 pages", "2 fetches" (for
/// messages; the command line's too).
pub fn count(n: usize, noun: &str) -> String {
    match n {
        1 => format!("1 {noun}"),
        _ if noun.ends_with("ch") => format!("{n} {noun}es"),
        _ => format!("{n} {noun}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_without_a_host_are_not_a_host() {
        let mut d = Dataset::from_bit_strings(&["01", "10", "11"]).unwrap();
        d.set_hosts(vec![0, 1, 1], vec!["a".into(), String::new()]);
        let s = Stats::of(&d);
        assert_eq!(
            (s.hosts, s.largest_host, s.pages_without_host),
            (Some(1), Some(1), 2)
        );
        assert!(
            s.to_string().contains(
                "hosts              1 (mean 1.0 pages/host, largest 1; 2 pages without a host)"
            ),
            "{s}"
        );
        assert_eq!(count(1, "page"), "1 page");
        assert_eq!(
            (count(2, "page"), count(0, "fetch")),
            ("2 pages".into(), "0 fetches".into())
        );
    }

    #[test]
    fn figures_by_hand() {
        let mut d =
            Dataset::from_bit_strings(&["11000000", "0000000?", "10101010", "00000000"]).unwrap();
        d.set_hosts(vec![0, 0, 1, 0], vec!["a".into(), "b".into()]);
        let s = Stats::of(&d);
        assert_eq!(s.hosts, Some(2));
        assert_eq!(s.largest_host, Some(3));
        assert_eq!(s.changes, 6);
        assert_eq!(s.changes_per_page[0], 2);
        assert_eq!(s.changes_per_page[2], 1);
        assert_eq!(s.changes_per_page[4], 1);
        assert_eq!(s.per_cycle_change_fraction[0], 0.5);
        assert_eq!(s.per_cycle_change_fraction[7], 0.0);
        assert!((s.per_cycle_change_fraction[2] - 0.25).abs() < 1e-12);
        // weekday 0 = cycles 1 and 8: changes 2 of 7 known
        assert!((s.weekday_change_fraction[0] - 2.0 / 7.0).abs() < 1e-12);
        // pairs after a change: page 0: (1→1),(1→0); page 2: 4 × (1→0) → 1/6
        assert!((s.p_change_after_change - 1.0 / 6.0).abs() < 1e-12);
        assert_eq!(s.changes_quantiles, [0, 4, 4, 4]);
        assert_eq!(s.never_changed_fraction, 0.5);
        assert_eq!(s.half_or_more_fraction, 0.25);
        assert!(s.to_string().contains("hosts              2"));
        assert!(!s.weighted && s.weights.is_none());
        assert!(s
            .to_string()
            .contains("weights            none (unweighted"));
    }

    #[test]
    fn weight_figures() {
        let mut d = Dataset::new(300, 2);
        // 297 pages of 1, one of 0, two heavy ones: top 1% = 3 pages = 100 + 50 + 1
        let mut w = vec![1.0; 300];
        w[7] = 0.0;
        w[100] = 100.0;
        w[200] = 50.0;
        d.set_weights(w);
        let s = Stats::of(&d);
        let ws = s.weights.clone().unwrap();
        assert!(s.weighted);
        assert_eq!(
            (ws.min, ws.p50, ws.p90, ws.p99, ws.max),
            (0.0, 1.0, 1.0, 1.0, 100.0)
        );
        assert_eq!((ws.total, ws.zero_pages, ws.top_pages), (447.0, 1, 3));
        assert!((ws.top1_share - 151.0 / 447.0).abs() < 1e-12);
        assert!((ws.mean - 447.0 / 300.0).abs() < 1e-12);
        let text = s.to_string();
        assert!(
            text.contains("weights            min 0, p50 1.000, p90 1.000, p99 1.000, max 100.0"),
            "{text}"
        );
        assert!(
            text.contains("total 447.0 (mean 1.490), 1 pages weigh 0; the top 1% (3 pages) hold 33.8% of the weight"),
            "{text}"
        );
        // a weight column of 1s is unweighted; all zeros has no share
        d.set_weights(vec![1.0; 300]);
        assert!(Stats::of(&d).weights.is_none());
        let z = WeightStats::of(&[0.0, 0.0]).unwrap();
        assert_eq!((z.total, z.top1_share, z.zero_pages), (0.0, 0.0, 2));
        let one = WeightStats::of(&[3.0]).unwrap();
        assert_eq!((one.p50, one.top_pages, one.top1_share), (3.0, 1, 1.0));
    }

    #[test]
    fn significant_digits() {
        assert_eq!(sig(0.0), "0");
        assert_eq!(sig(1.0), "1.000");
        assert_eq!(sig(0.012345), "0.01235");
        assert_eq!(sig(123456.7), "123457");
        assert_eq!(sig(2.5e-7), "2.500e-7");
        assert_eq!(sig(4.2e9), "4.200e9");
    }
}
