//! The stale model (docs/src/reference/models.md#the-stale-model): the probability that a
//! page has changed at least once in the `t` cycles since the crawler's last visit, the
//! question a crawl asks of every page it might revisit. Training it is
//! `predict::stale`'s; this is the model as a file holds and scores it.
//!
//! # Form
//!
//! A proportional-hazards (complementary log-log) regression over the logarithms of its
//! features: with `u_j = ln max(x_j, FLOOR)` standardized by the training mean and
//! deviation,
//!
//! ```text
//! P(stale) = 1 − exp(−exp(b + Σ_j w_j · (u_j − mean_j) / scale_j))
//! ```
//!
//! With the feature `since_visit` (t) among the inputs this is a Weibull hazard in t: a page
//! of rate λ under a Poisson process is stale with probability `1 − e^(−λ t)`, the case
//! where t's coefficient (unstandardized) is 1 and the other terms give `ln λ`.
//!
//! # The prior
//!
//! The features `rate` and `prior` read the model's [`Prior`]: a gamma prior on a page's
//! change rate whose mean is its group's rate (under one attribute, the host or none),
//! learned from the training pages with empirical-Bayes shrinkage, so that a small group
//! says little and a page never visited is its group's rate. The prior's arithmetic is
//! here ([`Prior::rate`]); its counts are the caller's.

use super::{Feature, FeatureSet};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The smallest feature value whose logarithm the model takes (values below read as it).
pub const FLOOR: f64 = 1e-6;

/// The largest prior strength (pseudo-cycles): what "no spread between units, shrink all
/// the way" is stored as, a finite number a JSON file can hold.
pub const MAX_STRENGTH: f64 = 1e9;

/// A gamma prior on change rates (changes per cycle), and the group rates it centres on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Prior {
    /// The global rate r₀: detected changes over observed cycles of every training page.
    pub rate: f64,
    /// The page-level strength m (pseudo-cycles): a page's rate is
    /// `(X + m·r_g) / (T + m)`.
    pub strength: f64,
    /// The attribute (or `host`) whose groups centre the prior; none: every page's prior
    /// mean is r₀.
    pub key: Option<String>,
    /// The group-level strength m_g: a group's rate is `(X_g + m_g·r₀) / (T_g + m_g)`.
    pub group_strength: f64,
    /// Each group's shrunk rate, by the attribute's value (the host's name for `host`).
    /// A value not listed (a group no training page had) reads as r₀.
    pub groups: BTreeMap<String, f64>,
}

impl Prior {
    /// A page's prior mean: its group's rate, r₀ when it has no group or one the model
    /// does not know.
    pub fn mean(&self, value: Option<&str>) -> f64 {
        value
            .and_then(|v| self.groups.get(v))
            .copied()
            .unwrap_or(self.rate)
    }

    /// A page's rate: the posterior mean `(x + m·prior) / (covered + m)` after `x`
    /// detected changes over `covered` cycles (the cycles up to its last visit), with
    /// prior mean `prior` ([`Prior::mean`]).
    pub fn rate(&self, x: u32, covered: u32, prior: f64) -> f64 {
        (f64::from(x) + self.strength * prior) / (f64::from(covered) + self.strength)
    }

    /// Checks the invariant: finite non-negative rates, positive strengths.
    fn check(&self) -> Result<(), String> {
        let rate_ok = |r: &f64| r.is_finite() && *r >= 0.0;
        let strength_ok = |m: f64| m.is_finite() && m > 0.0 && m <= MAX_STRENGTH;
        if !rate_ok(&self.rate) || !self.groups.values().all(rate_ok) {
            return Err("a prior rate is not a finite non-negative number".into());
        }
        if !strength_ok(self.strength) || !strength_ok(self.group_strength) {
            return Err(format!(
                "a prior strength is not in (0, {MAX_STRENGTH:e}] pseudo-cycles"
            ));
        }
        Ok(())
    }
}

/// Empirical-Bayes prior strength for Poisson counts: units (pages or groups) with `x`
/// detected changes over `covered` cycles, shrunk toward `center` (or, when `None`, their
/// pooled rate). The spread of true rates τ² is estimated by the method of moments: the
/// weighted squared deviations `Q = Σ T_i (x_i/T_i − r)²` less what Poisson noise alone
/// explains, over their weight — `(Q − N·r) / ΣT` around a given centre r, and
/// DerSimonian–Laird's `(Q − (N − 1)·r) / (ΣT − ΣT²/ΣT)` around the pooled rate — 0 at
/// least. The strength is `r / τ²`: the pseudo-cycles of a gamma prior with mean r and
/// variance τ² ([`MAX_STRENGTH`] when τ² is 0, r is 0, or there are fewer than two units).
pub fn strength(units: &[(u64, u64)], center: Option<f64>) -> f64 {
    let units: Vec<(f64, f64)> = units
        .iter()
        .filter(|(_, t)| *t > 0)
        .map(|&(x, t)| (x as f64, t as f64))
        .collect();
    let total: f64 = units.iter().map(|u| u.1).sum();
    if units.len() < 2 || total <= 0.0 {
        return MAX_STRENGTH;
    }
    let pooled = units.iter().map(|u| u.0).sum::<f64>() / total;
    let r0 = center.unwrap_or(pooled);
    let q: f64 = units.iter().map(|(x, t)| t * (x / t - r0).powi(2)).sum();
    let n = units.len() as f64;
    let tau2 = match center {
        Some(_) => (q - n * r0) / total,
        None => {
            let sq: f64 = units.iter().map(|u| u.1 * u.1).sum();
            (q - (n - 1.0) * r0) / (total - sq / total)
        }
    };
    if tau2.is_finite() && tau2 > 0.0 && r0 > 0.0 {
        (r0 / tau2).clamp(f64::MIN_POSITIVE, MAX_STRENGTH)
    } else {
        MAX_STRENGTH
    }
}

/// A stale model: the regression of the module's form and its prior.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hazard {
    /// The features, in column order.
    pub features: FeatureSet,
    /// Training means of the features' logarithms.
    pub mean: Vec<f64>,
    /// Training standard deviations of the features' logarithms (1 where constant).
    pub scale: Vec<f64>,
    /// Weights of the standardized logarithms.
    pub weights: Vec<f64>,
    /// The intercept b.
    pub intercept: f64,
    /// The L2 penalty selected on validation.
    pub alpha: f64,
    /// The prior `rate` and `prior` read.
    pub prior: Prior,
}

impl Hazard {
    /// The linear predictor `b + Σ w_j (u_j − mean_j) / scale_j` of one example.
    pub fn link(&self, x: &[f64]) -> f64 {
        x.iter()
            .zip(&self.mean)
            .zip(&self.scale)
            .zip(&self.weights)
            .fold(self.intercept, |z, (((x, m), s), w)| {
                z + w * (x.max(FLOOR).ln() - m) / s
            })
    }

    /// The probability that the page is stale: `1 − exp(−exp(z))`.
    pub fn score(&self, x: &[f64]) -> f64 {
        stale_probability(self.link(x))
    }

    /// The coefficient of `ln t` on its own scale (the Weibull shape: 1 for a Poisson
    /// page), when the model reads `since_visit`.
    pub fn shape(&self) -> Option<f64> {
        let j = self
            .features
            .features()
            .iter()
            .position(|f| *f == Feature::SinceVisit)?;
        Some(self.weights[j] / self.scale[j])
    }

    /// Checks the invariant: one finite mean, positive scale and weight per feature, no
    /// categorical code, and a valid prior.
    pub(crate) fn check(&self) -> Result<(), String> {
        let n = self.features.len();
        if n == 0 || self.mean.len() != n || self.scale.len() != n || self.weights.len() != n {
            return Err("a stale model needs one mean, scale and weight per feature".into());
        }
        if let Some(f) = self.features.features().iter().find(|f| f.is_categorical()) {
            return Err(format!(
                "a stale model cannot read a categorical code ({f})"
            ));
        }
        let finite = self
            .mean
            .iter()
            .chain(&self.weights)
            .chain([&self.intercept, &self.alpha])
            .all(|v| v.is_finite());
        if !finite || self.scale.iter().any(|s| !(s.is_finite() && *s > 0.0)) {
            return Err("a parameter is not finite, or a scale is not positive".into());
        }
        self.prior.check()
    }
}

/// `1 − exp(−exp(z))`, accurate for small probabilities.
pub fn stale_probability(z: f64) -> f64 {
    -(-z.exp()).exp_m1()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prior() -> Prior {
        Prior {
            rate: 0.1,
            strength: 10.0,
            key: Some("category".into()),
            group_strength: 5.0,
            groups: BTreeMap::from([("a".to_string(), 0.5)]),
        }
    }

    /// The posterior mean by hand: 3 changes over 10 cycles with 10 pseudo-cycles at 0.5.
    #[test]
    fn a_page_rate_is_its_posterior_mean() {
        let p = prior();
        assert_eq!(p.mean(Some("a")), 0.5);
        assert_eq!(p.mean(Some("zzz")), 0.1);
        assert_eq!(p.mean(None), 0.1);
        assert_eq!(p.rate(3, 10, 0.5), (3.0 + 5.0) / 20.0);
        assert_eq!(p.rate(0, 0, 0.5), 0.5); // never visited: the prior mean
    }

    /// Units of equal rates give no spread (shrink fully); spread units a finite strength
    /// that matches the method of moments by hand.
    #[test]
    fn strength_follows_the_method_of_moments() {
        assert_eq!(
            strength(&[(10, 100), (10, 100), (10, 100)], None),
            MAX_STRENGTH
        );
        assert_eq!(strength(&[(10, 100)], None), MAX_STRENGTH);
        // Two units, 0 of 100 and 40 of 100: r0 = 0.2, Q = 100·0.04·2 = 8, (N-1) r0 = 0.2,
        // denominator 200 - 20000/200 = 100: τ² = 0.078, m = 0.2 / 0.078.
        let m = strength(&[(0, 100), (40, 100)], None);
        assert!((m - 0.2 / 0.078).abs() < 1e-12, "{m}");
        // Around a given centre 0.1: Q = 100·0.01 + 100·0.09 = 10, N r = 0.2, ΣT = 200:
        // τ² = 9.8 / 200 = 0.049, m = 0.1 / 0.049.
        let m = strength(&[(0, 100), (40, 100)], Some(0.1));
        assert!((m - 0.1 / 0.049).abs() < 1e-12, "{m}");
    }

    /// A Poisson page: with `ln t` weighted 1 (scale 1, mean 0) and the intercept ln λ,
    /// the model is `1 − e^(−λ t)`.
    #[test]
    fn unit_shape_is_a_poisson_page() {
        let lambda: f64 = 0.3;
        let h = Hazard {
            features: FeatureSet::new(vec![Feature::SinceVisit]),
            mean: vec![0.0],
            scale: vec![1.0],
            weights: vec![1.0],
            intercept: lambda.ln(),
            alpha: 1.0,
            prior: prior(),
        };
        for t in [1.0, 2.0, 7.0] {
            let want = 1.0 - (-lambda * t).exp();
            assert!((h.score(&[t]) - want).abs() < 1e-15);
        }
        assert_eq!(h.shape(), Some(1.0));
        h.check().unwrap();
        let mut bad = h.clone();
        bad.prior.strength = 0.0;
        assert!(bad.check().unwrap_err().contains("strength"));
        bad = h.clone();
        bad.features = FeatureSet::new(vec![Feature::Category("host".into())]);
        assert!(bad.check().unwrap_err().contains("categorical"));
    }
}

#[cfg(test)]
mod file_tests {
    use super::super::{Label, Model};
    use super::*;

    /// A stale model's file reads back to the same model, labelled `stale`; in a file of
    /// version 2 (before stale models) it is refused.
    #[test]
    fn a_stale_model_file_round_trips() {
        let m = Model::Hazard(Hazard {
            features: FeatureSet::stale(true),
            mean: vec![0.1, -1.0, 0.5, -1.2],
            scale: vec![0.2, 0.3, 0.7, 0.25],
            weights: vec![0.1, 0.6, -0.1, -0.1],
            intercept: -0.9,
            alpha: 100.0,
            prior: Prior {
                rate: 0.27,
                strength: 12.5,
                key: Some("category".into()),
                group_strength: 67.0,
                groups: BTreeMap::from([("cat1".to_string(), 0.31)]),
            },
        });
        let text = m.to_json();
        assert!(text.contains("\"label\": \"stale\""), "{text}");
        assert_eq!(Model::from_json(&text, "m").unwrap(), m);
        assert_eq!(m.label(), Label::Stale);
        let old = text.replace("\"version\": 3", "\"version\": 2");
        let e = Model::from_json(&old, "m.json").unwrap_err().to_string();
        assert!(e.contains("stale models came with version 3"), "{e}");
        let e = Model::from_json(&text.replace("\"stale\"", "\"change\""), "m.json")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("label `change` does not match a model of kind hazard"),
            "{e}"
        );
    }
}
