//! Training a logistic regression over several frequency features (the seed's "frequency
//! (combined)"), and scoring examples with any [`Model`] (a single feature,
//! this regression, the network: the model file and its scores are `crate::model`'s).
//!
//! The logistic regression is fitted by [`linfa_logistic`] (L-BFGS on the log-loss with an
//! L2 penalty `α/2·‖w‖²`): a maintained crate of the linfa toolkit made for exactly this,
//! pure Rust, deterministic (no BLAS, no threads), and small. Features are standardized
//! with the training examples' mean and standard deviation, stored in the model. The
//! penalty α is chosen from [`ALPHAS`] by the AUC on the validation examples. Neither it
//! nor a single feature reads a categorical code (`cat:KEY`): codes are the network's.

use super::FeatureError;
use super::{ExampleSource, Examples, PredictError};
use crate::model::{Feature, FeatureSet, Model};
use crate::stats::auc;
use std::ops::ControlFlow;

/// The L2 penalties tried when training a logistic regression.
pub const ALPHAS: [f64; 3] = [10_000.0, 100.0, 1.0];

/// What this crate adds to a model file's [`Model`]: fitting a logistic regression to
/// examples, and scoring and judging any model on them. (The model file and its scores
/// are `freshgp_policy::model`'s, which needs no solver.)
pub trait ModelTraining: Sized {
    /// The single feature `feature` of column `column`, signed so that its AUC on
    /// `train` is at least 0.5 (docs/src/reference/models.md#training-selection-and-test).
    fn single_oriented(
        feature: Feature,
        column: usize,
        train: &Examples,
    ) -> Result<Self, PredictError>;

    /// The scores of every example (columns as [`Model::features`]), into `out`.
    fn score_into(&self, examples: &Examples, out: &mut Vec<f64>);

    /// The scores and labels of every example of `source`, chunk by chunk, into `scores`
    /// and `labels` (replacing what they held).
    fn score_source(
        &self,
        source: &dyn ExampleSource,
        scores: &mut Vec<f64>,
        labels: &mut Vec<bool>,
    );

    /// The AUC of the model's scores of `source` (`None` when the labels are of one
    /// class).
    ///
    /// # Errors
    /// Scores that are not numbers.
    fn auc_of(&self, source: &dyn ExampleSource) -> Result<Option<f64>, PredictError>;

    /// Fits a logistic regression on `train` for each of [`ALPHAS`] and keeps the one
    /// whose AUC on `validation` is highest (the first on a tie). Each fit starts from the
    /// previous one's solution (the penalties decrease). Examples held in memory (one
    /// chunk) are fitted by linfa; a stream of several chunks by the same L-BFGS on the
    /// same loss, each evaluation a pass over the chunks.
    ///
    /// # Errors
    /// Training examples of one class only (nothing to learn), or a fit that fails.
    fn train_logistic(
        features: &FeatureSet,
        train: &dyn ExampleSource,
        validation: &dyn ExampleSource,
    ) -> Result<Self, PredictError>;

    /// As [`ModelTraining::train_logistic`], telling `progress` each penalty's α and validation
    /// AUC as its fit ends; `progress` may stop the training there.
    ///
    /// # Errors
    /// As [`ModelTraining::train_logistic`], and [`PredictError::Stopped`].
    fn train_logistic_with_progress(
        features: &FeatureSet,
        train: &dyn ExampleSource,
        validation: &dyn ExampleSource,
        progress: &mut dyn FnMut(f64, f64) -> ControlFlow<()>,
    ) -> Result<Self, PredictError>;
}

impl ModelTraining for Model {
    fn single_oriented(
        feature: Feature,
        column: usize,
        train: &Examples,
    ) -> Result<Model, PredictError> {
        let values = train.column(column);
        let a = auc(&values, train.labels())?.unwrap_or(0.5);
        Ok(Model::single(feature, if a < 0.5 { -1.0 } else { 1.0 }))
    }

    fn score_into(&self, examples: &Examples, out: &mut Vec<f64>) {
        self.score_rows(examples.values(), out);
    }

    fn score_source(
        &self,
        source: &dyn ExampleSource,
        scores: &mut Vec<f64>,
        labels: &mut Vec<bool>,
    ) {
        super::features::score_chunks(source, |v, out| self.score_rows(v, out), scores, labels);
    }

    fn auc_of(&self, source: &dyn ExampleSource) -> Result<Option<f64>, PredictError> {
        let (mut scores, mut labels) = (Vec::new(), Vec::new());
        self.score_source(source, &mut scores, &mut labels);
        Ok(auc(&scores, &labels)?)
    }

    fn train_logistic(
        features: &FeatureSet,
        train: &dyn ExampleSource,
        validation: &dyn ExampleSource,
    ) -> Result<Model, PredictError> {
        Model::train_logistic_with_progress(features, train, validation, &mut |_, _| {
            ControlFlow::Continue(())
        })
    }

    fn train_logistic_with_progress(
        features: &FeatureSet,
        train: &dyn ExampleSource,
        validation: &dyn ExampleSource,
        progress: &mut dyn FnMut(f64, f64) -> ControlFlow<()>,
    ) -> Result<Model, PredictError> {
        if train.is_empty() || validation.is_empty() {
            return Err(PredictError::NoExamples);
        }
        if let Some(f) = features.features().iter().find(|f| f.is_categorical()) {
            return Err(FeatureError::Categorical(f.clone()).into());
        }
        let positives = train.positives();
        if positives == 0 || positives == train.len() {
            return Err(PredictError::OneClass(train.len()));
        }
        let (mean, scale) = standardization(train);
        let in_memory = if train.chunks() == 1 {
            Some(linfa_dataset(&train.chunk(0), &mean, &scale)?)
        } else {
            None
        };
        let mut best: Option<(f64, Model)> = None;
        let mut start: Option<Vec<f64>> = None;
        for alpha in ALPHAS {
            let (weights, intercept, next) = match &in_memory {
                Some(dataset) => linfa_fit(dataset, alpha, start.take(), train.len())?,
                None => streamed_fit(train, &mean, &scale, alpha, start.take())?,
            };
            start = Some(next);
            let model = Model::Logistic {
                features: features.clone(),
                mean: mean.clone(),
                scale: scale.clone(),
                weights,
                intercept,
                alpha,
            };
            model.check()?;
            let a = model.auc_of(validation)?.unwrap_or(0.5);
            if progress(alpha, a).is_break() {
                return Err(PredictError::Stopped);
            }
            if best.as_ref().is_none_or(|(b, _)| a > *b) {
                best = Some((a, model));
            }
        }
        // Invariant: ALPHAS is not empty, so the loop kept a model.
        Ok(best.expect("invariant: at least one alpha").1)
    }
}

/// Each column's mean and standard deviation (1 where it is constant).
pub(super) fn standardization(x: &dyn ExampleSource) -> (Vec<f64>, Vec<f64>) {
    let n = x.len().max(1) as f64;
    let mut mean: Vec<f64> = Vec::new();
    for i in 0..x.chunks() {
        let chunk = x.chunk(i);
        mean.resize(chunk.width(), 0.0);
        for row in chunk.values().chunks(chunk.width().max(1)) {
            for (m, v) in mean.iter_mut().zip(row) {
                *m += v;
            }
        }
    }
    mean.iter_mut().for_each(|m| *m /= n);
    let mut var = vec![0.0; mean.len()];
    for i in 0..x.chunks() {
        let chunk = x.chunk(i);
        for row in chunk.values().chunks(chunk.width().max(1)) {
            for ((s, v), m) in var.iter_mut().zip(row).zip(&mean) {
                *s += (v - m) * (v - m);
            }
        }
    }
    let scale = var
        .into_iter()
        .map(|s| (s / n).sqrt())
        .map(|s| if s > 1e-12 && s.is_finite() { s } else { 1.0 })
        .collect();
    (mean, scale)
}

/// The L-BFGS settings of both fits: at most this many iterations, and a gradient
/// tolerance of this much per example (the loss is a sum over examples).
const MAX_ITERATIONS: u64 = 100;
const TOLERANCE_PER_EXAMPLE: f64 = 1e-6;

/// The examples standardized, as linfa's dataset (labels: changed).
fn linfa_dataset(
    x: &Examples,
    mean: &[f64],
    scale: &[f64],
) -> Result<linfa::Dataset<f64, bool, ndarray::Ix1>, PredictError> {
    let values: Vec<f64> = x
        .values()
        .chunks(x.width())
        .flat_map(|row| {
            row.iter()
                .zip(mean)
                .zip(scale)
                .map(|((v, m), s)| (v - m) / s)
        })
        .collect();
    let records = ndarray::Array2::from_shape_vec((x.len(), x.width()), values)
        .map_err(|e| PredictError::Fit(e.to_string()))?;
    let targets = ndarray::Array1::from_vec(x.labels().to_vec());
    Ok(linfa::Dataset::new(records, targets))
}

/// A fit: the weights and intercept of P(change), and the solver's own parameters (the
/// next fit's warm start).
type Fitted = (Vec<f64>, f64, Vec<f64>);

/// linfa's fit of penalty `alpha` from `start` (linfa's parameters: weights then
/// intercept).
fn linfa_fit(
    dataset: &linfa::Dataset<f64, bool, ndarray::Ix1>,
    alpha: f64,
    start: Option<Vec<f64>>,
    examples: usize,
) -> Result<Fitted, PredictError> {
    use linfa::traits::Fit;
    let mut params = linfa_logistic::LogisticRegression::default()
        .alpha(alpha)
        .max_iterations(MAX_ITERATIONS)
        .gradient_tolerance(TOLERANCE_PER_EXAMPLE * examples as f64);
    if let Some(start) = start {
        // Warm start from the previous (more penalized) solution.
        params = params.initial_params(ndarray::Array1::from_vec(start));
    }
    let fitted = params
        .fit(dataset)
        .map_err(|e| PredictError::Fit(e.to_string()))?;
    // linfa's probability is that of its larger class: turn it into P(change).
    let flip = if fitted.labels().pos.class { 1.0 } else { -1.0 };
    let own = fitted.params().iter().copied().chain([fitted.intercept()]);
    Ok((
        fitted.params().iter().map(|w| flip * w).collect(),
        flip * fitted.intercept(),
        own.collect(),
    ))
}

/// The L2-penalized log-loss of linfa's logistic regression over a stream of examples:
/// `-Σ ln σ(y·z) + α/2·‖w‖²` with `y = ±1` (changed or not), `z = b + Σ w_j·x̃_j` over
/// the standardized values `x̃`; the intercept is not penalized. Each evaluation is one
/// pass over the chunks, in order, giving the loss and its gradient together
/// ([`super::lbfgs`] keeps the gradient of the point last costed).
struct StreamedLoss<'a> {
    x: &'a dyn ExampleSource,
    mean: &'a [f64],
    scale: &'a [f64],
    alpha: f64,
}

impl StreamedLoss<'_> {
    /// The loss and, when `gradient` is given, its gradient (weights then intercept).
    fn pass(&self, w: &[f64], mut gradient: Option<&mut [f64]>) -> f64 {
        let width = self.mean.len();
        let (weights, intercept) = (&w[..width], w[width]);
        let mut loss = 0.0;
        let mut standardized = vec![0.0; width];
        for i in 0..self.x.chunks() {
            let chunk = self.x.chunk(i);
            for (row, &label) in chunk.values().chunks(width).zip(chunk.labels()) {
                let mut z = intercept;
                for (j, x) in standardized.iter_mut().enumerate() {
                    *x = (row[j] - self.mean[j]) / self.scale[j];
                    z += weights[j] * *x;
                }
                let y = if label { 1.0 } else { -1.0 };
                let t = y * z;
                // ln σ(t), stable at both ends.
                loss -= if t > 0.0 {
                    -(-t).exp().ln_1p()
                } else {
                    t - t.exp().ln_1p()
                };
                if let Some(g) = gradient.as_deref_mut() {
                    // d/dz of -ln σ(y z) = (σ(y z) - 1)·y.
                    let r = (1.0 / (1.0 + (-t).exp()) - 1.0) * y;
                    for (gj, x) in g.iter_mut().zip(&standardized) {
                        *gj += r * x;
                    }
                    g[width] += r;
                }
            }
        }
        if let Some(g) = gradient {
            for (gj, wj) in g.iter_mut().zip(weights) {
                *gj += self.alpha * wj;
            }
        }
        loss + 0.5 * self.alpha * weights.iter().map(|w| w * w).sum::<f64>()
    }
}

impl super::lbfgs::Objective for StreamedLoss<'_> {
    fn evaluate(&self, w: &[f64]) -> (f64, Vec<f64>) {
        let mut g = vec![0.0; w.len()];
        let loss = self.pass(w, Some(&mut g));
        (loss, g)
    }
}

/// linfa's solver (L-BFGS with 10 corrections, the Moré–Thuente line search, the same
/// iteration limit and gradient tolerance) on [`StreamedLoss`] from `start` (weights then
/// intercept; zeros when none), so that a stream is fitted as linfa fits the examples in
/// memory, without holding them.
fn streamed_fit(
    x: &dyn ExampleSource,
    mean: &[f64],
    scale: &[f64],
    alpha: f64,
    start: Option<Vec<f64>>,
) -> Result<Fitted, PredictError> {
    let width = mean.len();
    let loss = StreamedLoss {
        x,
        mean,
        scale,
        alpha,
    };
    let start = start.unwrap_or_else(|| vec![0.0; width + 1]);
    let tolerance = TOLERANCE_PER_EXAMPLE * x.len() as f64;
    let best = super::lbfgs::minimize(&loss, start, tolerance, MAX_ITERATIONS)
        .map_err(PredictError::Fit)?;
    Ok((best[..width].to_vec(), best[width], best))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Dataset;
    use crate::predict::{ExampleStream, Observations};
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
    fn a_streamed_logistic_regression_is_the_one_fitted_in_memory() {
        let d = planted(600, 40, 2);
        let o = Observations::full(&d);
        let set = FeatureSet::new(vec![
            Feature::Frequency(1),
            Feature::Frequency(7),
            Feature::SinceChange,
        ]);
        let (pages, other): (Vec<u32>, Vec<u32>) = ((0..300).collect(), (300..600).collect());
        let stream = |p: &[u32]| ExampleStream::new(&d, &o, &set, p, &pages, 10..=25, 1);
        let (train, val) = (stream(&pages).unwrap(), stream(&other).unwrap());
        let in_memory = Model::train_logistic(&set, &train.collect(), &val.collect()).unwrap();
        // 4,800 examples in chunks of 700: linfa's L-BFGS, each pass over the chunks.
        let (train, val) = (train.chunk_rows(700), val.chunk_rows(700));
        assert_eq!(train.chunks(), 7);
        let streamed = Model::train_logistic(&set, &train, &val).unwrap();
        let (
            Model::Logistic {
                weights: a,
                intercept: b,
                mean,
                scale,
                alpha,
                ..
            },
            Model::Logistic {
                weights: a2,
                intercept: b2,
                mean: mean2,
                scale: scale2,
                alpha: alpha2,
                ..
            },
        ) = (&in_memory, &streamed)
        else {
            panic!("two logistic regressions");
        };
        // The same standardization (the same sums in the same order) and penalty.
        assert_eq!((mean, scale, alpha), (mean2, scale2, alpha2));
        for (w, w2) in a.iter().chain([b]).zip(a2.iter().chain([b2])) {
            assert!((w - w2).abs() < 1e-8, "{a:?} {b} against {a2:?} {b2}");
        }
        assert_eq!(
            in_memory.auc_of(&val).unwrap(),
            streamed.auc_of(&val).unwrap()
        );
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
