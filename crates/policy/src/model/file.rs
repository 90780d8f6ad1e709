//! A learned change model (`docs/src/reference/models.md`) and its file: [`Model`] — a
//! single frequency feature (the predictive-crawling paper's baselines), a logistic
//! regression over several (the paper's "frequency (combined)") or the paper's network
//! ([`Network`]) — scores examples whose values follow its [`FeatureSet`], and is saved as
//! a versioned JSON file that carries its feature list. Training is `predict`'s
//! (`predict::logistic`, `predict::network`); this is what reading a model file and scoring
//! with it need, below the policies that score pages with it.
//!
//! Model files are version 3 since the stale model came (they name their [`Label`]);
//! version 2 files (the network's) and version 1 files (single features and logistic
//! regressions) read as before, as models of [`Label::Change`].
//!
//! ```
//! use freshgp_policy::model::{Feature, Model};
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

use super::{Feature, FeatureSet, Hazard, ModelError, Network};
use serde::{Deserialize, Serialize};

/// The format name in every model file.
pub const FORMAT: &str = "freshgp-model";
/// The model file version this build writes (it reads this one and versions 1 and 2).
pub const VERSION: u32 = 3;

/// The question a model was trained to answer: what its score means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Label {
    /// Whether the page changes in the next K cycles (the file's horizon), learned under
    /// full observability: the predictive-crawling paper's label.
    #[default]
    Change,
    /// Whether the page changed since the crawler's last visit, learned from a crawl's own
    /// visits: the stale model's ([`Hazard`]).
    Stale,
}

impl Label {
    /// The label's name in files and messages.
    pub fn name(self) -> &'static str {
        match self {
            Label::Change => "change",
            Label::Stale => "stale",
        }
    }
}
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
    /// The predictive-crawling paper's network ([`Network`]): the score is its predicted
    /// probability.
    Network(Network),
    /// The stale model ([`Hazard`]): the score is the probability that the page changed
    /// since the last visit.
    Hazard(Hazard),
}

/// A model file: format, version, its label (change when absent: versions 1 and 2), the
/// label horizon K it was trained for, the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelFile {
    format: String,
    version: u32,
    #[serde(default)]
    label: Label,
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

    /// The features the model reads, in the order [`Model::score`] expects them.
    pub fn features(&self) -> FeatureSet {
        match self {
            Model::Single { feature, .. } => FeatureSet::new(vec![feature.clone()]),
            Model::Logistic { features, .. } => features.clone(),
            Model::Network(n) => n.features().clone(),
            Model::Hazard(h) => h.features.clone(),
        }
    }

    /// The question the model answers: [`Label::Stale`] for the stale model,
    /// [`Label::Change`] for every other.
    pub fn label(&self) -> Label {
        match self {
            Model::Hazard(_) => Label::Stale,
            _ => Label::Change,
        }
    }

    /// The score of one example whose values follow [`Model::features`].
    pub fn score(&self, x: &[f64]) -> f64 {
        match self {
            Model::Network(n) => n.score(x),
            Model::Hazard(h) => h.score(x),
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

    /// The model's kind as its file names it.
    pub fn kind(&self) -> &'static str {
        match self {
            Model::Single { .. } => "single",
            Model::Logistic { .. } => "logistic",
            Model::Network(_) => "network",
            Model::Hazard(_) => "hazard",
        }
    }

    /// Checks the invariant (finite parameters, one per feature, positive scales).
    pub fn check(&self) -> Result<(), ModelError> {
        let bad = |why: &str| Err(ModelError::File(why.to_string()));
        match self {
            Model::Single { sign, .. } if *sign != 1.0 && *sign != -1.0 => {
                bad("sign must be 1 or -1")
            }
            Model::Single { feature, .. } if feature.is_categorical() => {
                bad("a single feature cannot be a categorical code (cat:KEY)")
            }
            Model::Hazard(h) => h.check().map_err(ModelError::File),
            _ if self
                .features()
                .features()
                .iter()
                .any(Feature::is_stale_only) =>
            {
                bad("since_visit, rate and prior are the stale model's features")
            }
            Model::Single { .. } => Ok(()),
            Model::Network(n) => n.check().map_err(ModelError::File),
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
            label: self.label(),
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
    pub fn from_json(text: &str, origin: &str) -> Result<Model, ModelError> {
        Model::from_json_with_horizon(text, origin).map(|(m, _)| m)
    }

    /// As [`Model::from_json`], with the label horizon the model was trained for.
    pub fn from_json_with_horizon(text: &str, origin: &str) -> Result<(Model, usize), ModelError> {
        let at = |e: serde_json::Error| {
            // serde_json ends its message with the place, which the prefix already gives;
            // it counts bytes, and the column of an empty line as 0.
            let message = e.to_string();
            let place = format!(" at line {} column {}", e.line(), e.column());
            let message = message.strip_suffix(&place).unwrap_or(&message);
            let (line, column) = crate::place::byte_place(text, e.line(), e.column());
            ModelError::File(format!("{origin}:{line}:{column}: {message}"))
        };
        let head: serde_json::Value = serde_json::from_str(text).map_err(at)?;
        if head.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
            return Err(ModelError::File(format!(
                "{origin}: not a freshgp model file (no \"format\": \"{FORMAT}\")"
            )));
        }
        match head.get("version").and_then(|v| v.as_u64()) {
            Some(v) if (1..=u64::from(VERSION)).contains(&v) => {}
            v => {
                return Err(ModelError::File(format!(
                    "{origin}: model file version {}, this build reads versions 1 to {VERSION}",
                    v.map_or("missing".to_string(), |v| v.to_string())
                )))
            }
        }
        let file: ModelFile = serde_json::from_str(text).map_err(at)?;
        if file.version < 2 && matches!(file.model, Model::Network(_)) {
            return Err(ModelError::File(format!(
                "{origin}: a network in a version 1 model file (networks came with version 2)"
            )));
        }
        if file.version < 3 && matches!(file.model, Model::Hazard(_)) {
            return Err(ModelError::File(format!(
                "{origin}: a stale model in a version {} model file (stale models came with version 3)",
                file.version
            )));
        }
        if file.label != file.model.label() {
            return Err(ModelError::File(format!(
                "{origin}: label `{}` does not match a model of kind {} (its label is `{}`)",
                file.label.name(),
                file.model.kind(),
                file.model.label().name()
            )));
        }
        file.model
            .check()
            .map_err(|e| ModelError::File(format!("{origin}: {e}")))?;
        if file.horizon == 0 {
            return Err(ModelError::File(format!(
                "{origin}: horizon must be at least 1"
            )));
        }
        Ok((file.model, file.horizon))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(err(&good.replace("\"version\": 3", "\"version\": 9"))
            .contains("version 9, this build reads versions 1 to 3"));
        // version 1 and 2 files (before networks, before labels) still read
        let old = good.replace("  \"label\": \"change\",\n", "");
        assert_ne!(old, good);
        for v in ["1", "2"] {
            let text = old.replace("\"version\": 3", &format!("\"version\": {v}"));
            assert_eq!(Model::from_json(&text, "m").unwrap().label(), Label::Change);
        }
        assert!(err(&good.replace("\"change\"", "\"stale\""))
            .contains("label `stale` does not match a model of kind logistic"));
        assert!(err(&good.replace("freq7", "since_visit")).contains("the stale model's features"));
        assert!(err(&good.replace(FORMAT, "other")).contains("not a freshgp model file"));
        assert!(err(&good.replace("0.2", "-0.2")).contains("scale is not positive"));
        assert!(err(&good.replace("\"freq7\"", "\"freq7\", \"freq1\""))
            .contains("one mean, scale and weight per feature"));
        assert!(err(&good.replace("freq7", "freq0")).contains("unknown feature `freq0`"));
        assert!(err(&good[..good.len() / 2]).starts_with("m.json:"));
        let e = err("{\"format\": \"freshgp-model\", \"version\": 1, \"horizon\": 1, \"model\": {\"kind\": \"single\", \"feature\": \"freq1\", \"sign\": 2}}");
        assert!(e.contains("sign must be 1 or -1"), "{e}");
    }
}
