//! Small statistics for reports (SPEC §7): mean with a Student-t 95% confidence
//! interval, and the paired t-test used to count per-cycle victories.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

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
pub(crate) fn mean(values: &[f64]) -> f64 {
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
/// let m = freshgp::stats::mean_ci(&[1.0, 2.0, 3.0]);
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
pub(crate) fn paired_t_test(a: &[f64], b: &[f64]) -> f64 {
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

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn short_samples() {
        assert_eq!(mean_ci(&[]).mean, 0.0);
        assert_eq!(mean_ci(&[3.0]).ci95, 0.0);
    }
}
