//! How well predicted probabilities match what happened
//! (docs/src/reference/models.md#calibration): the Brier score and the reliability table
//! ([`Calibration`]), for the stale model and any probability read as staleness.
//!
//! ```
//! use freshgp_learn::predict::Calibration;
//!
//! let c = Calibration::of(&[0.1, 0.1, 0.9, 0.9], &[false, false, true, false], 10);
//! assert!((c.brier - (0.01 + 0.01 + 0.01 + 0.81) / 4.0).abs() < 1e-15);
//! let top = c.bins.last().unwrap();
//! assert_eq!((top.count, top.observed), (2, 0.5));
//! ```

/// One bin of the reliability table: the examples whose probability falls in `lo..hi`
/// (the last bin includes 1).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Bin {
    /// Lower bound.
    pub lo: f64,
    /// Upper bound.
    pub hi: f64,
    /// Examples in the bin.
    pub count: usize,
    /// Their mean predicted probability (0 when empty).
    pub predicted: f64,
    /// The fraction of them whose label is 1 (0 when empty).
    pub observed: f64,
}

/// The Brier score and the reliability table of probabilities against labels.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Calibration {
    /// Mean of `(p − y)²` (0 for none).
    pub brier: f64,
    /// The base rate's Brier score, `ȳ(1 − ȳ)`: what predicting the mean label for every
    /// example scores (a model below it says something).
    pub base: f64,
    /// Equal-width bins of the probability.
    pub bins: Vec<Bin>,
    /// Expected calibration error: `Σ count/n · |observed − predicted|` over the bins.
    pub ece: f64,
}

impl Calibration {
    /// The calibration of `scores` (probabilities; values outside 0..=1 are clamped into
    /// it) against `labels` over `bins` equal-width bins (at least 1).
    pub fn of(scores: &[f64], labels: &[bool], bins: usize) -> Calibration {
        let k = bins.max(1);
        let n = scores.len().min(labels.len());
        let mut sums = vec![(0usize, 0.0f64, 0usize); k];
        let mut brier = 0.0;
        let mut positives = 0usize;
        for (&p, &y) in scores.iter().zip(labels) {
            let p = if p.is_nan() { 0.0 } else { p.clamp(0.0, 1.0) };
            let b = ((p * k as f64) as usize).min(k - 1);
            sums[b].0 += 1;
            sums[b].1 += p;
            sums[b].2 += usize::from(y);
            brier += (p - f64::from(u8::from(y))).powi(2);
            positives += usize::from(y);
        }
        let total = n.max(1) as f64;
        let rate = positives as f64 / total;
        let bins: Vec<Bin> = sums
            .iter()
            .enumerate()
            .map(|(i, &(count, p, y))| {
                let c = count.max(1) as f64;
                Bin {
                    lo: i as f64 / k as f64,
                    hi: (i + 1) as f64 / k as f64,
                    count,
                    predicted: if count == 0 { 0.0 } else { p / c },
                    observed: if count == 0 { 0.0 } else { y as f64 / c },
                }
            })
            .collect();
        let ece = bins
            .iter()
            .map(|b| b.count as f64 / total * (b.observed - b.predicted).abs())
            .sum();
        Calibration {
            brier: brier / total,
            base: rate * (1.0 - rate),
            bins,
            ece,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Perfect probabilities in two bins: no calibration error, Brier as by hand.
    #[test]
    fn calibrated_bins_have_no_error() {
        let scores = [0.25, 0.25, 0.25, 0.25, 0.75, 0.75, 0.75, 0.75];
        let labels = [true, false, false, false, true, true, true, false];
        let c = Calibration::of(&scores, &labels, 4);
        assert_eq!(c.ece, 0.0);
        assert_eq!(c.bins[1].count, 4);
        assert_eq!(c.bins[3].observed, 0.75);
        assert!((c.brier - 0.1875).abs() < 1e-15);
        assert_eq!(c.base, 0.25);
        // 1.0 falls in the last bin, NaN in the first.
        let c = Calibration::of(&[1.0, f64::NAN], &[true, false], 4);
        assert_eq!((c.bins[3].count, c.bins[0].count), (1, 1));
        assert_eq!(c.brier, 0.0);
    }
}
