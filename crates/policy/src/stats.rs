//! Small statistics for reports: mean with a Student-t 95% confidence interval, and the
//! paired t-test used to count per-cycle victories
//! (docs/src/reference/evaluation.md#statistics); the median with its 2.5–97.5 percentile
//! interval and the two-sided Wilcoxon signed-rank test over repeated runs
//! (docs/src/reference/evaluation.md#repeated-runs); the area under the ROC curve of a
//! change model, over subsets of the test examples (docs/src/reference/models.md#auc).
//!
//! No maintained crate we could find has the Wilcoxon signed-rank test with an exact
//! distribution (statrs has the distributions, not the test), so it is here, tested
//! against published table values and R's `wilcox.test`/SciPy's `wilcoxon` outputs.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal, StudentsT};
use std::cmp::Ordering;

/// A mean and the half-width of its 95% confidence interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MeanCi {
    /// The sample mean.
    pub mean: f64,
    /// Half-width of the 95% confidence interval (Student t, n - 1 degrees of freedom);
    /// 0 with fewer than two values.
    pub ci95: f64,
    /// Number of values.
    pub n: usize,
}

/// Sample mean.
pub fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.iter().sum::<f64>() / values.len() as f64
}

/// Sample standard deviation (n - 1 in the denominator); 0 with fewer than two values.
pub(crate) fn sample_sd(values: &[f64]) -> f64 {
    let n = values.len();
    if n < 2 {
        return 0.0;
    }
    let m = mean(values);
    (values.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (n - 1) as f64).sqrt()
}

/// The two-sided 97.5% quantile of Student's t with `df` degrees of freedom (NaN for
/// `df = 0`, which has none).
pub(crate) fn t_quantile_975(df: usize) -> f64 {
    match StudentsT::new(0.0, 1.0, df as f64) {
        Ok(t) => t.inverse_cdf(0.975),
        Err(_) => f64::NAN,
    }
}

/// Mean and 95% confidence half-width of `values`.
///
/// ```
/// let m = freshgp_policy::stats::mean_ci(&[1.0, 2.0, 3.0]);
/// assert_eq!(m.mean, 2.0);
/// assert!((m.ci95 - 2.4841).abs() < 1e-4); // t(0.975, 2) · 1 / √3
/// ```
pub fn mean_ci(values: &[f64]) -> MeanCi {
    let n = values.len();
    let ci95 = if n < 2 {
        0.0
    } else {
        t_quantile_975(n - 1) * sample_sd(values) / (n as f64).sqrt()
    };
    MeanCi {
        mean: mean(values),
        ci95,
        n,
    }
}

/// Two-sided p-value of the paired t-test of `a` against `b` (equal lengths). Identical
/// samples give 1; a constant non-zero difference gives 0.
///
/// # Panics
/// If the lengths differ.
pub fn paired_t_test(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len(), "paired samples have equal lengths");
    let diffs: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    let n = diffs.len();
    if n < 2 {
        return 1.0;
    }
    let m = mean(&diffs);
    let sd = sample_sd(&diffs);
    if sd == 0.0 {
        return if m == 0.0 { 1.0 } else { 0.0 };
    }
    let t = m / (sd / (n as f64).sqrt());
    match StudentsT::new(0.0, 1.0, (n - 1) as f64) {
        Ok(dist) => 2.0 * (1.0 - dist.cdf(t.abs())),
        Err(_) => f64::NAN,
    }
}

/// A median and its 2.5–97.5 percentile interval (over the R run means:
/// docs/src/reference/evaluation.md#repeated-runs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MedianInterval {
    /// The median.
    pub median: f64,
    /// The 2.5th percentile.
    pub low: f64,
    /// The 97.5th percentile.
    pub high: f64,
    /// Number of values.
    pub n: usize,
}

/// The `q`-quantile (0 ≤ q ≤ 1) of sorted `values` by linear interpolation between the
/// closest ranks (`h = (n - 1)·q`; R's type 7, NumPy's default); 0 for no values.
pub fn quantile_sorted(values: &[f64], q: f64) -> f64 {
    match values.len() {
        0 => 0.0,
        n => {
            let h = (n - 1) as f64 * q;
            let below = h.floor() as usize;
            let above = (below + 1).min(n - 1);
            values[below] + (h - below as f64) * (values[above] - values[below])
        }
    }
}

/// Median and 2.5–97.5 percentile interval of `values`.
///
/// ```
/// let m = freshgp_policy::stats::median_interval(&[3.0, 1.0, 2.0, 4.0, 5.0]);
/// assert_eq!((m.median, m.low, m.high), (3.0, 1.1, 4.9));
/// ```
pub fn median_interval(values: &[f64]) -> MedianInterval {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    MedianInterval {
        median: quantile_sorted(&sorted, 0.5),
        low: quantile_sorted(&sorted, 0.025),
        high: quantile_sorted(&sorted, 0.975),
        n: values.len(),
    }
}

/// Largest number of non-zero differences for which [`wilcoxon`] uses the exact
/// distribution (2^25 sign patterns are summarized by at most 2·325 + 1 rank sums).
pub const WILCOXON_EXACT_MAX: usize = 25;

/// The two-sided Wilcoxon signed-rank test of paired samples `a` and `b` (equal
/// lengths): the p-value of "the differences `a - b` are symmetric about 0".
///
/// Zero differences are dropped (Wilcoxon's rule, R's and SciPy's default) and the
/// others ranked by absolute value, ties given their mid-rank. Up to
/// [`WILCOXON_EXACT_MAX`] non-zero differences the p-value is exact: the distribution
/// of the positive-rank sum over the 2^n equally likely sign patterns, counted on doubled
/// ranks so that it stays exact with ties (conditional on the tied ranks);
/// `p = min(1, 2·min(P(W⁺ <= w), P(W⁺ >= w)))`. Above, the normal approximation with
/// the tie-corrected variance `n(n+1)(2n+1)/24 - Σ(t³ - t)/48` and a continuity
/// correction of 1/2. No non-zero difference gives 1.
///
/// ```
/// use freshgp_policy::stats::wilcoxon;
/// // Ten differences whose negative ranks sum to 8 (the 5% critical value of the
/// // published tables for n = 10): p = 50/1024.
/// let d = [1.0, 2.0, -3.0, 4.0, -5.0, 6.0, 7.0, 8.0, 9.0, 10.0];
/// assert_eq!(wilcoxon(&d, &[0.0; 10]), 50.0 / 1024.0);
/// ```
///
/// # Panics
/// If the lengths differ.
pub fn wilcoxon(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len(), "paired samples have equal lengths");
    let mut diffs: Vec<f64> = a
        .iter()
        .zip(b)
        .map(|(x, y)| x - y)
        .filter(|d| *d != 0.0)
        .collect();
    let n = diffs.len();
    if n == 0 {
        return 1.0;
    }
    diffs.sort_by(|x, y| x.abs().total_cmp(&y.abs()));
    // Doubled mid-ranks (integers) and the tie sizes.
    let mut doubled = vec![0u64; n];
    let mut ties = 0.0;
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j + 1 < n && diffs[j + 1].abs() == diffs[i].abs() {
            j += 1;
        }
        // Ranks i+1 ..= j+1: mid-rank (i + j + 2) / 2, doubled.
        for r in &mut doubled[i..=j] {
            *r = (i + j + 2) as u64;
        }
        let t = (j - i + 1) as f64;
        ties += t * t * t - t;
        i = j + 1;
    }
    let w2: u64 = doubled
        .iter()
        .zip(&diffs)
        .filter(|(_, d)| **d > 0.0)
        .map(|(r, _)| r)
        .sum();
    let p = if n <= WILCOXON_EXACT_MAX {
        exact_signed_rank(&doubled, w2)
    } else {
        let nf = n as f64;
        let mean = nf * (nf + 1.0) / 4.0;
        let var = nf * (nf + 1.0) * (2.0 * nf + 1.0) / 24.0 - ties / 48.0;
        let w = w2 as f64 / 2.0;
        let z = ((w - mean).abs() - 0.5).max(0.0) / var.sqrt();
        match Normal::new(0.0, 1.0) {
            Ok(normal) => 2.0 * normal.sf(z),
            Err(_) => f64::NAN,
        }
    };
    p.min(1.0)
}

/// The exact two-sided p-value of the doubled positive-rank sum `w2` over all sign
/// patterns of the doubled ranks `doubled`.
fn exact_signed_rank(doubled: &[u64], w2: u64) -> f64 {
    let total: u64 = doubled.iter().sum();
    // counts[s] = number of sign patterns whose positive doubled ranks sum to s.
    let mut counts = vec![0.0f64; total as usize + 1];
    counts[0] = 1.0;
    let mut reach = 0usize;
    for &r in doubled {
        let r = r as usize;
        for s in (0..=reach).rev() {
            if counts[s] > 0.0 {
                counts[s + r] += counts[s];
            }
        }
        reach += r;
    }
    let patterns: f64 = counts.iter().sum();
    let w2 = w2 as usize;
    let lower: f64 = counts[..=w2].iter().sum();
    let upper: f64 = counts[w2..].iter().sum();
    2.0 * lower.min(upper) / patterns
}

/// Why an AUC cannot be computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AucError {
    /// Scores and labels of different lengths.
    #[error("{scores} scores but {labels} labels")]
    Lengths {
        /// Number of scores.
        scores: usize,
        /// Number of labels.
        labels: usize,
    },
    /// A NaN score (it has no rank).
    #[error("score {0} is NaN")]
    NaN(usize),
}

/// The area under the ROC curve of `scores` for `labels` (`true`: positive): the
/// probability that a positive example outscores a negative one, tied scores counted one
/// half (docs/src/reference/models.md#auc). Computed from mid-ranks,
/// `(R₊ − n₊(n₊ + 1)/2) / (n₊ n₋)` with `R₊` the positives' rank sum (the Mann–Whitney U
/// over `n₊ n₋`), in O(n log n). `None` when one class is absent (the area is undefined).
///
/// ```
/// use freshgp_policy::stats::auc;
/// // Positives 0.35, 0.8, 0.4 against negatives 0.1, 0.4: 4.5 of 6 pairs.
/// let scores = [0.1, 0.4, 0.35, 0.8, 0.4];
/// let labels = [false, false, true, true, true];
/// assert_eq!(auc(&scores, &labels)?, Some(0.75));
/// # Ok::<(), freshgp_policy::stats::AucError>(())
/// ```
///
/// # Errors
/// [`AucError::Lengths`] if the slices differ in length, [`AucError::NaN`] for a NaN
/// score.
pub fn auc(scores: &[f64], labels: &[bool]) -> Result<Option<f64>, AucError> {
    if scores.len() != labels.len() {
        return Err(AucError::Lengths {
            scores: scores.len(),
            labels: labels.len(),
        });
    }
    if let Some(i) = scores.iter().position(|s| s.is_nan()) {
        return Err(AucError::NaN(i));
    }
    let positives = labels.iter().filter(|&&l| l).count();
    let negatives = labels.len() - positives;
    if positives == 0 || negatives == 0 {
        return Ok(None);
    }
    let mut order: Vec<usize> = (0..scores.len()).collect();
    // -0.0 and 0.0 are one score: compare by value (no NaN here).
    order.sort_unstable_by(|&a, &b| scores[a].partial_cmp(&scores[b]).unwrap_or(Ordering::Equal));
    // Twice the positives' rank sum, ranks from 1, tied runs at their mean rank.
    let mut doubled_rank_sum: u128 = 0;
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && scores[order[end]] == scores[order[start]] {
            end += 1;
        }
        let tied_positives = order[start..end].iter().filter(|&&i| labels[i]).count() as u128;
        // Mean rank of positions start+1 ..= end, doubled: start + 1 + end.
        doubled_rank_sum += tied_positives * (start + 1 + end) as u128;
        start = end;
    }
    let (p, n) = (positives as u128, negatives as u128);
    // 2U = 2R₊ − n₊(n₊ + 1), exact in integers.
    let doubled_u = doubled_rank_sum - p * (p + 1);
    Ok(Some(doubled_u as f64 / (2 * p * n) as f64))
}

/// AUC as docs/src/reference/models.md#auc reports it: over `subsets` equal consecutive
/// subsets of the examples (in the order given; subset `i` holds examples
/// `i·n/subsets .. (i+1)·n/subsets`), those with both classes only.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SubsetAuc {
    /// Mean of the subsets' AUCs (NaN when no subset has both classes).
    pub mean: f64,
    /// Their standard deviation, n − 1 in the denominator (0 with fewer than two).
    pub sd: f64,
    /// Subsets with both classes (the others are skipped).
    pub subsets: usize,
}

/// [`SubsetAuc`] of `scores` for `labels` over `subsets` subsets (the predictive-crawling
/// paper's Tables 2 and 3 use 20).
///
/// # Errors
/// As [`auc`].
pub fn subset_auc(scores: &[f64], labels: &[bool], subsets: usize) -> Result<SubsetAuc, AucError> {
    auc(scores, labels)?;
    let n = scores.len();
    let parts = subsets.max(1);
    let mut values = Vec::with_capacity(parts);
    for i in 0..parts {
        let (a, b) = (i * n / parts, (i + 1) * n / parts);
        if let Some(v) = auc(&scores[a..b], &labels[a..b])? {
            values.push(v);
        }
    }
    Ok(SubsetAuc {
        mean: if values.is_empty() {
            f64::NAN
        } else {
            mean(&values)
        },
        sd: sample_sd(&values),
        subsets: values.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition itself: positive-negative pairs, ties one half.
    fn pairwise_auc(scores: &[f64], labels: &[bool]) -> Option<f64> {
        let (mut wins, mut pairs) = (0.0, 0.0);
        for (i, &li) in labels.iter().enumerate() {
            for (j, &lj) in labels.iter().enumerate() {
                if li && !lj {
                    pairs += 1.0;
                    wins += match scores[i].partial_cmp(&scores[j]) {
                        Some(Ordering::Greater) => 1.0,
                        Some(Ordering::Equal) => 0.5,
                        _ => 0.0,
                    };
                }
            }
        }
        (pairs > 0.0).then(|| wins / pairs)
    }

    #[test]
    fn auc_counts_ties_one_half() {
        // Every score tied: 0.5.
        assert_eq!(auc(&[3.0; 4], &[true, false, true, false]), Ok(Some(0.5)));
        // Perfect and reversed rankings.
        assert_eq!(auc(&[1.0, 2.0], &[false, true]), Ok(Some(1.0)));
        assert_eq!(auc(&[1.0, 2.0], &[true, false]), Ok(Some(0.0)));
        // -0 and 0 are one score.
        assert_eq!(auc(&[-0.0, 0.0], &[true, false]), Ok(Some(0.5)));
        assert_eq!(auc(&[1.0, 2.0], &[true, true]), Ok(None));
        assert_eq!(auc(&[], &[]), Ok(None));
        assert_eq!(
            auc(&[1.0], &[true, false]),
            Err(AucError::Lengths {
                scores: 1,
                labels: 2
            })
        );
        assert_eq!(auc(&[1.0, f64::NAN], &[true, false]), Err(AucError::NaN(1)));
        // SciPy: mannwhitneyu([2, 2, 5, 7, 7], [1, 2, 7, 3]).statistic / 20 = 0.65 (13 of 20).
        let scores = [2.0, 2.0, 5.0, 7.0, 7.0, 1.0, 2.0, 7.0, 3.0];
        let labels = [true, true, true, true, true, false, false, false, false];
        assert_eq!(auc(&scores, &labels), Ok(Some(0.65)));
    }

    proptest::proptest! {
        #[test]
        fn auc_is_the_pairwise_definition(
            data in proptest::collection::vec((0u8..6, proptest::bool::ANY), 0..60)
        ) {
            let scores: Vec<f64> = data.iter().map(|d| f64::from(d.0) * 0.5).collect();
            let labels: Vec<bool> = data.iter().map(|d| d.1).collect();
            let got = auc(&scores, &labels).unwrap();
            let want = pairwise_auc(&scores, &labels);
            match (got, want) {
                (Some(g), Some(w)) => proptest::prop_assert!((g - w).abs() < 1e-12, "{g} {w}"),
                (g, w) => proptest::prop_assert_eq!(g, w),
            }
        }
    }

    #[test]
    fn subset_auc_skips_one_class_subsets() {
        // Four subsets of two: (1, 0) perfect, (0, 1) reversed, then two one-class ones.
        let scores = [2.0, 1.0, 2.0, 1.0, 5.0, 6.0, 7.0, 8.0];
        let labels = [true, false, false, true, true, true, false, false];
        let r = subset_auc(&scores, &labels, 4).unwrap();
        assert_eq!(r.subsets, 2);
        assert_eq!(r.mean, 0.5);
        assert!(
            (r.sd - std::f64::consts::SQRT_2 / 2.0).abs() < 1e-15,
            "{}",
            r.sd
        );
        let none = subset_auc(&[1.0, 2.0], &[true, true], 20).unwrap();
        assert!(none.mean.is_nan() && none.subsets == 0);
    }

    #[test]
    fn t_quantiles() {
        assert!((t_quantile_975(4) - 2.776445).abs() < 1e-5);
        assert!((t_quantile_975(84) - 1.98861).abs() < 1e-4);
    }

    #[test]
    fn paired_test() {
        let a = [0.71, 0.72, 0.70, 0.73, 0.72];
        assert_eq!(paired_t_test(&a, &a), 1.0);
        let b = [0.61, 0.60, 0.62, 0.60, 0.61];
        assert!(paired_t_test(&a, &b) < 0.001);
        let c = [0.70, 0.73, 0.69, 0.74, 0.71];
        assert!(paired_t_test(&a, &c) > 0.05);
    }

    fn p(d: &[f64]) -> f64 {
        wilcoxon(d, &vec![0.0; d.len()])
    }

    /// Exact p-values: the published critical values (n = 10, T = 8 is the largest T
    /// significant at 5%, two-sided) and SciPy 1.x `wilcoxon(d, method="exact")`.
    #[test]
    fn wilcoxon_exact() {
        let d10 = [1.0, 2.0, -3.0, 4.0, -5.0, 6.0, 7.0, 8.0, 9.0, 10.0];
        assert_eq!(p(&d10), 0.048828125);
        // T = 9 is no longer significant: 2 · 30/1024.
        let d10b = [1.0, 2.0, 3.0, 4.0, -9.0, 5.0, 6.0, 7.0, 8.0, 10.0];
        assert_eq!(p(&d10b), 2.0 * 33.0 / 1024.0);
        let d12 = [
            0.5, -0.25, 1.1, 0.7, -0.4, 0.9, 1.3, 0.2, 0.6, -0.1, 0.8, 1.0,
        ];
        assert_eq!(p(&d12), 0.01220703125);
        let d25 = [
            0.5, -0.25, 1.1, 0.7, -0.4, 0.9, 1.3, 0.2, 0.6, -0.1, 0.8, 1.0, 0.15, -0.35, 0.45,
            0.55, 0.65, 0.75, -0.85, 0.95, 1.05, 1.15, 1.25, -1.35, 1.45,
        ];
        assert!((p(&d25) - 0.0027848482131958008).abs() < 1e-15);
        // Symmetric in its arguments; identical samples give 1.
        assert_eq!(wilcoxon(&d12, &[0.0; 12]), wilcoxon(&[0.0; 12], &d12));
        assert_eq!(wilcoxon(&d12, &d12), 1.0);
    }

    /// Ties stay exact on doubled ranks: three tied differences have doubled ranks 4, 4, 4
    /// (sums 0, 4, 8, 12 in 1, 3, 3, 1 of the 8 patterns).
    #[test]
    fn wilcoxon_ties_and_zeros() {
        assert_eq!(p(&[1.0, 1.0, 1.0]), 0.25);
        assert_eq!(p(&[1.0, 1.0, -1.0]), 1.0);
        // Zeros are dropped: the same as without them.
        assert_eq!(p(&[1.0, 0.0, 1.0, 0.0, 1.0]), 0.25);
        assert_eq!(p(&[0.0, 0.0]), 1.0);
    }

    /// The normal approximation (more than 25 non-zero differences), against SciPy's
    /// `wilcoxon(d, method="approx", correction=True, zero_method="wilcox")`: with ties
    /// and zeros, and without.
    #[test]
    fn wilcoxon_normal_approximation() {
        let tied = [
            0.4, 0.7, 0.1, -0.5, -0.1, -0.6, 0.5, 1.7, -0.1, -0.2, 0.9, 0.8, 0.5, -0.5, 0.4, 1.1,
            -0.9, -0.1, -1.5, -0.9, -1.4, 0.2, -0.9, 0.7, 0.6, 0.2, -2.1, -0.1, 0.4, 0.5, -1.1,
            -0.1, -0.6, -0.4, 1.5, -0.4, 0.4, 1.3, 0.0, 0.0,
        ];
        assert!((p(&tied) - 0.8275442493123388).abs() < 1e-9, "{}", p(&tied));
        let plain: Vec<f64> = (1..=40)
            .map(|i| {
                let x = 0.05 * i as f64;
                if i % 3 == 0 {
                    -x
                } else {
                    x
                }
            })
            .collect();
        assert!(
            (p(&plain) - 0.06654465496858146).abs() < 1e-9,
            "{}",
            p(&plain)
        );
    }

    #[test]
    fn medians_and_percentiles() {
        let m = median_interval(&[3.0, 1.0, 2.0, 4.0, 5.0]);
        assert_eq!((m.median, m.low, m.high, m.n), (3.0, 1.1, 4.9, 5));
        assert_eq!(median_interval(&[2.0, 4.0]).median, 3.0);
        assert_eq!(median_interval(&[7.0]).low, 7.0);
    }

    #[test]
    fn short_samples() {
        assert_eq!(mean_ci(&[]).mean, 0.0);
        assert_eq!(mean_ci(&[3.0]).ci95, 0.0);
    }
}
