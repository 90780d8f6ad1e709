//! Learned change models (SPEC §12): a single frequency feature (the seed's baselines), a
//! logistic regression over several (the seed's "frequency (combined)") and the seed's
//! network ([`crate::predict::network`]), saved as versioned JSON files that carry their
//! feature list.
//!
//! The logistic regression is fitted by [`linfa_logistic`] (L-BFGS on the log-loss with an
//! L2 penalty `α/2·‖w‖²`): a maintained crate of the linfa toolkit made for exactly this,
//! pure Rust, deterministic (no BLAS, no threads), and small. Features are standardized
//! with the training examples' mean and standard deviation, stored in the model. The
//! penalty α is chosen from [`ALPHAS`] by the AUC on the validation examples. Neither it
//! nor a single feature reads a categorical code (`cat:KEY`): codes are the network's.
//!
//! Model files are version 2 since the network came; version 1 files (single features and
//! logistic regressions) read as before.
//!
//! ```
//! use freshgp::predict::{Feature, Model};
//!
//! let m = Model::single(Feature::SinceChange, -1.0);
//! assert_eq!(m.score(&[3.0]), -3.0);
//! let text = m.to_json();
//! assert_eq!(Model::from_json(&text, "m.json").unwrap(), m);
//! ```
//!
//! **Invariant:** a [`Model`] holds one weight, mean and scale per feature, all finite,
//! scales positive (a network: the shapes of [`Network::check`]); [`Model::from_json`]
//! checks this, so a loaded model scores safely.

use super::{Examples, Feature, FeatureSet, Network, PredictError};
use crate::stats::auc;
use serde::{Deserialize, Serialize};

/// The format name in every model file.
pub const FORMAT: &str = "freshgp-model";
/// The model file version this build writes (it reads this one and version 1).
pub const VERSION: u32 = 2;
/// The L2 penalties tried when training a logistic regression.
pub const ALPHAS: [f64; 3] = [10_000.0, 100.0, 1.0];

/// A learned (or chosen) scoring of examples: higher = more likely to change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Model {
    /// One feature, signed so that the score ranks changing pages first.
    Single {
        /// The feature.
        feature: Feature,
        /// +1 or -1.
        sign: f64,
    },
    /// A logistic regression on standardized features: the score is the probability
    /// `σ(b + Σ w_j · (x_j - mean_j) / scale_j)`.
    Logistic {
        /// The features, in column order.
        features: FeatureSet,
        /// Training means.
        mean: Vec<f64>,
        /// Training standard deviations (1 where a feature was constant).
        scale: Vec<f64>,
        /// Weights of the standardized features.
        weights: Vec<f64>,
        /// The intercept.
        intercept: f64,
        /// The L2 penalty selected on validation.
        alpha: f64,
    },
    /// The seed's network ([`crate::predict::network`]): the score is its predicted
    /// probability.
    Network(Network),
}

/// A model file: format, version, the label horizon K it was trained for, the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelFile {
    format: String,
    version: u32,
    horizon: usize,
    model: Model,
}

impl Model {
    /// One feature with its sign (+1 or -1).
    pub fn single(feature: Feature, sign: f64) -> Model {
        Model::Single {
            feature,
            sign: if sign < 0.0 { -1.0 } else { 1.0 },
        }
    }

    /// The single feature `feature` of column `column`, signed so that its AUC on
    /// `train` is at least 0.5 (SPEC §12).
    pub fn single_oriented(
        feature: Feature,
        column: usize,
        train: &Examples,
    ) -> Result<Model, PredictError> {
        let values = train.column(column);
        let a = auc(&values, train.labels())?.unwrap_or(0.5);
        Ok(Model::single(feature, if a < 0.5 { -1.0 } else { 1.0 }))
    }

    /// The features the model reads, in the order [`Model::score`] expects them.
    pub fn features(&self) -> FeatureSet {
        match self {
            Model::Single { feature, .. } => FeatureSet::new(vec![feature.clone()]),
            Model::Logistic { features, .. } => features.clone(),
            Model::Network(n) => n.features().clone(),
        }
    }

    /// The score of one example whose values follow [`Model::features`].
    pub fn score(&self, x: &[f64]) -> f64 {
        match self {
            Model::Network(n) => n.score(x),
            Model::Single { sign, .. } => sign * x[0],
            Model::Logistic {
                mean,
                scale,
                weights,
                intercept,
                ..
            } => {
                let z = x
                    .iter()
                    .zip(mean)
                    .zip(scale)
                    .zip(weights)
                    .fold(*intercept, |z, (((x, m), s), w)| z + w * (x - m) / s);
                1.0 / (1.0 + (-z).exp())
            }
        }
    }

    /// The scores of every example (columns as [`Model::features`]), into `out`.
    pub fn score_into(&self, examples: &Examples, out: &mut Vec<f64>) {
        self.score_rows(examples.values(), out);
    }

    /// The scores of examples given row after row (values as [`Model::features`]; a last
    /// partial row is ignored), into `out`: a network scores them in blocks
    /// ([`Network::score_rows`]), much faster than one by one.
    pub fn score_rows(&self, values: &[f64], out: &mut Vec<f64>) {
        match self {
            Model::Network(n) => n.score_rows(values, out),
            _ => {
                let width = self.features().len().max(1);
                out.clear();
                out.extend(values.chunks_exact(width).map(|row| self.score(row)));
            }
        }
    }

    /// Fits a logistic regression on `train` for each of [`ALPHAS`] and keeps the one
    /// whose AUC on `validation` is highest (the first on a tie). Each fit starts from the
    /// previous one's solution (the penalties decrease).
    ///
    /// # Errors
    /// Training examples of one class only (nothing to learn), or a fit that fails.
    pub fn train_logistic(
        features: &FeatureSet,
        train: &Examples,
        validation: &Examples,
    ) -> Result<Model, PredictError> {
        let width = features.len();
        if train.is_empty() || validation.is_empty() {
            return Err(PredictError::NoExamples);
        }
        if let Some(f) = features.features().iter().find(|f| f.is_categorical()) {
            return Err(PredictError::Feature(format!(
                "{f}: a categorical code is an input of the network only (the logistic regression takes freqW, since_change and group:KEY)"
            )));
        }
        if train.labels().iter().all(|&l| l) || train.labels().iter().all(|&l| !l) {
            return Err(PredictError::OneClass(train.len()));
        }
        let (mean, scale) = standardization(train);
        let standardized = |x: &Examples| {
            let values: Vec<f64> = x
                .values()
                .chunks(width)
                .flat_map(|row| {
                    row.iter()
                        .zip(&mean)
                        .zip(&scale)
                        .map(|((v, m), s)| (v - m) / s)
                })
                .collect();
            ndarray::Array2::from_shape_vec((x.len(), width), values)
        };
        let records = standardized(train).map_err(|e| PredictError::Fit(e.to_string()))?;
        let targets = ndarray::Array1::from_vec(train.labels().to_vec());
        let dataset = linfa::Dataset::new(records, targets);
        let mut best: Option<(f64, Model)> = None;
        let mut scores = Vec::new();
        let mut start: Option<ndarray::Array1<f64>> = None;
        for alpha in ALPHAS {
            use linfa::traits::Fit;
            // The loss is a sum over examples: its gradient's tolerance scales with them.
            let mut params = linfa_logistic::LogisticRegression::default()
                .alpha(alpha)
                .max_iterations(100)
                .gradient_tolerance(1e-6 * train.len() as f64);
            if let Some(start) = start.take() {
                // Warm start from the previous (more penalized) solution.
                params = params.initial_params(start);
            }
            let fitted = params
                .fit(&dataset)
                .map_err(|e| PredictError::Fit(e.to_string()))?;
            let mut next = fitted.params().to_vec();
            next.push(fitted.intercept());
            start = Some(ndarray::Array1::from_vec(next));
            // linfa's probability is that of its larger class: turn it into P(change).
            let flip = if fitted.labels().pos.class { 1.0 } else { -1.0 };
            let model = Model::Logistic {
                features: features.clone(),
                mean: mean.clone(),
                scale: scale.clone(),
                weights: fitted.params().iter().map(|w| flip * w).collect(),
                intercept: flip * fitted.intercept(),
                alpha,
            };
            model.check()?;
            model.score_into(validation, &mut scores);
            let a = auc(&scores, validation.labels())?.unwrap_or(0.5);
            if best.as_ref().is_none_or(|(b, _)| a > *b) {
                best = Some((a, model));
            }
        }
        // Invariant: ALPHAS is not empty, so the loop kept a model.
        Ok(best.expect("invariant: at least one alpha").1)
    }

    /// Checks the invariant (finite parameters, one per feature, positive scales).
    fn check(&self) -> Result<(), PredictError> {
        let bad = |why: &str| Err(PredictError::ModelFile(why.to_string()));
        match self {
            Model::Single { sign, .. } if *sign != 1.0 && *sign != -1.0 => {
                bad("sign must be 1 or -1")
            }
            Model::Single { feature, .. } if feature.is_categorical() => {
                bad("a single feature cannot be a categorical code (cat:KEY)")
            }
            Model::Single { .. } => Ok(()),
            Model::Network(n) => n.check().map_err(PredictError::ModelFile),
            Model::Logistic { features, .. }
                if features.features().iter().any(Feature::is_categorical) =>
            {
                bad("a logistic regression cannot read a categorical code (cat:KEY)")
            }
            Model::Logistic {
                features,
                mean,
                scale,
                weights,
                intercept,
                alpha,
            } => {
                let n = features.len();
                if n == 0 || mean.len() != n || scale.len() != n || weights.len() != n {
                    return bad("a logistic model needs one mean, scale and weight per feature");
                }
                let finite = mean
                    .iter()
                    .chain(weights)
                    .chain([intercept, alpha])
                    .all(|v| v.is_finite());
                if !finite || scale.iter().any(|s| !(s.is_finite() && *s > 0.0)) {
                    return bad("a parameter is not finite, or a scale is not positive");
                }
                Ok(())
            }
        }
    }

    /// The model as a model file's JSON text (label horizon 1).
    pub fn to_json(&self) -> String {
        self.to_json_with_horizon(1)
    }

    /// The model as a model file's JSON text, trained for label horizon `horizon`.
    pub fn to_json_with_horizon(&self, horizon: usize) -> String {
        let file = ModelFile {
            format: FORMAT.into(),
            version: VERSION,
            horizon,
            model: self.clone(),
        };
        // Invariant: a model is plain data (strings, finite numbers): it always serializes.
        serde_json::to_string_pretty(&file).expect("invariant: a model serializes") + "\n"
    }

    /// Reads a model file's text (`origin` names it in errors).
    ///
    /// # Errors
    /// Not JSON, not a freshgp model, another version, or parameters that break the
    /// invariant; each names `origin` and, for syntax, the line and column.
    pub fn from_json(text: &str, origin: &str) -> Result<Model, PredictError> {
        Model::from_json_with_horizon(text, origin).map(|(m, _)| m)
    }

    /// As [`Model::from_json`], with the label horizon the model was trained for.
    pub fn from_json_with_horizon(
        text: &str,
        origin: &str,
    ) -> Result<(Model, usize), PredictError> {
        let at = |e: serde_json::Error| {
            PredictError::ModelFile(format!("{origin}:{}:{}: {e}", e.line(), e.column()))
        };
        let head: serde_json::Value = serde_json::from_str(text).map_err(at)?;
        if head.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
            return Err(PredictError::ModelFile(format!(
                "{origin}: not a freshgp model file (no \"format\": \"{FORMAT}\")"
            )));
        }
        match head.get("version").and_then(|v| v.as_u64()) {
            Some(v) if (1..=u64::from(VERSION)).contains(&v) => {}
            v => {
                return Err(PredictError::ModelFile(format!(
                    "{origin}: model file version {}, this build reads versions 1 to {VERSION}",
                    v.map_or("missing".to_string(), |v| v.to_string())
                )))
            }
        }
        let file: ModelFile = serde_json::from_str(text).map_err(at)?;
        if file.version < 2 && matches!(file.model, Model::Network(_)) {
            return Err(PredictError::ModelFile(format!(
                "{origin}: a network in a version 1 model file (networks came with version 2)"
            )));
        }
        file.model
            .check()
            .map_err(|e| PredictError::ModelFile(format!("{origin}: {e}")))?;
        if file.horizon == 0 {
            return Err(PredictError::ModelFile(format!(
                "{origin}: horizon must be at least 1"
            )));
        }
        Ok((file.model, file.horizon))
    }
}

/// Each column's mean and standard deviation (1 where it is constant).
pub(super) fn standardization(x: &Examples) -> (Vec<f64>, Vec<f64>) {
    let (n, width) = (x.len().max(1) as f64, x.width());
    let mut mean = vec![0.0; width];
    for row in x.values().chunks(width) {
        for (m, v) in mean.iter_mut().zip(row) {
            *m += v;
        }
    }
    mean.iter_mut().for_each(|m| *m /= n);
    let mut var = vec![0.0; width];
    for row in x.values().chunks(width) {
        for ((s, v), m) in var.iter_mut().zip(row).zip(&mean) {
            *s += (v - m) * (v - m);
        }
    }
    let scale = var
        .into_iter()
        .map(|s| (s / n).sqrt())
        .map(|s| if s > 1e-12 && s.is_finite() { s } else { 1.0 })
        .collect();
    (mean, scale)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Dataset;
    use crate::predict::Observations;
    use rand::{Rng, SeedableRng};

    /// Pages of two hidden kinds: those of kind A (one page in three) change at each
    /// cycle with probability 0.98, the others with 0.02: a rule the frequency features
    /// can learn, whose best possible AUC is about 0.98.
    fn planted(pages: usize, cycles: usize, seed: u64) -> Dataset {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
        let mut d = Dataset::new(pages, cycles);
        for p in 0..pages {
            let prob = if p % 3 == 0 { 0.98 } else { 0.02 };
            for c in 1..=cycles {
                d.set_changed(p, c, rng.gen_bool(prob));
            }
        }
        d
    }

    #[test]
    fn logistic_learns_a_planted_rule() {
        let d = planted(600, 40, 1);
        let o = Observations::full(&d);
        let set = FeatureSet::new(vec![
            Feature::Frequency(1),
            Feature::Frequency(7),
            Feature::SinceChange,
        ]);
        let pages: Vec<u32> = (0..300).collect();
        let other: Vec<u32> = (300..600).collect();
        let train = Examples::build(&d, &o, &set, &pages, &pages, 10..=25, 1).unwrap();
        let val = Examples::build(&d, &o, &set, &other, &pages, 10..=25, 1).unwrap();
        let test = Examples::build(&d, &o, &set, &other, &pages, 26..=40, 1).unwrap();
        let m = Model::train_logistic(&set, &train, &val).unwrap();
        let mut s = Vec::new();
        m.score_into(&test, &mut s);
        let a = auc(&s, test.labels()).unwrap().unwrap();
        assert!(a > 0.95, "AUC {a}");
        // a feature that carries the rule alone, oriented on training data
        let single = Model::single_oriented(Feature::SinceChange, 2, &train).unwrap();
        assert_eq!(single, Model::single(Feature::SinceChange, -1.0));
        // the file reads back to the same model, scoring the same
        let back = Model::from_json(&m.to_json(), "m").unwrap();
        assert_eq!(back, m);
    }

    #[test]
    fn bad_model_files_are_refused_with_reasons() {
        let good = Model::Logistic {
            features: FeatureSet::new(vec![Feature::Frequency(7)]),
            mean: vec![0.1],
            scale: vec![0.2],
            weights: vec![3.0],
            intercept: -1.0,
            alpha: 1.0,
        }
        .to_json();
        Model::from_json(&good, "m").unwrap();
        let err = |text: &str| Model::from_json(text, "m.json").unwrap_err().to_string();
        assert!(err(&good.replace("\"version\": 2", "\"version\": 9"))
            .contains("version 9, this build reads versions 1 to 2"));
        // a version 1 file (before networks) still reads
        Model::from_json(&good.replace("\"version\": 2", "\"version\": 1"), "m").unwrap();
        assert!(err(&good.replace(FORMAT, "other")).contains("not a freshgp model file"));
        assert!(err(&good.replace("0.2", "-0.2")).contains("scale is not positive"));
        assert!(err(&good.replace("\"freq7\"", "\"freq7\", \"freq1\""))
            .contains("one mean, scale and weight per feature"));
        assert!(err(&good.replace("freq7", "freq0")).contains("unknown feature `freq0`"));
        assert!(err(&good[..good.len() / 2]).starts_with("m.json:"));
        let e = err("{\"format\": \"freshgp-model\", \"version\": 1, \"horizon\": 1, \"model\": {\"kind\": \"single\", \"feature\": \"freq1\", \"sign\": 2}}");
        assert!(e.contains("sign must be 1 or -1"), "{e}");
    }

    #[test]
    fn one_class_training_is_an_error() {
        let d = Dataset::from_bit_strings(&["0000000000", "0000000000"]).unwrap();
        let o = Observations::full(&d);
        let set = FeatureSet::new(vec![Feature::Frequency(1)]);
        let x = Examples::build(&d, &o, &set, &[0, 1], &[0, 1], 2..=10, 1).unwrap();
        assert!(matches!(
            Model::train_logistic(&set, &x, &x),
            Err(PredictError::OneClass(18))
        ));
    }
}
