//! Predictive crawling: learned change models over the observed history and page metadata
//! (docs/src/reference/models.md), judged by AUC as in the seed's Tables 2 and 3.
//!
//! The pieces, in the order data flows through them:
//!
//! - [`observe`]: what a crawler saw — every cycle (*full* observability) or the visits of
//!   one crawl by a named policy (*partial*);
//! - [`features`]: the frequency features (windows of 1, 7, 30 cycles, cycles since the
//!   last change, group frequencies per attribute and host) and the labelled examples;
//! - [`logistic`]: the logistic regression's training, and scoring examples with any
//!   [`Model`](crate::model::Model) (single-feature baselines, the regression, the
//!   network: the model file and its scores are [`crate::model`]'s, below the simulation);
//! - [`network`]: training the seed's network (embeddings of the categorical features,
//!   three ReLU layers, Adagrad) with candle;
//! - [`eval`]: the AUC table over the five rotations (docs/src/reference/folds.md#rotations),
//!   seen and unseen pages, full and partial observability;
//! - [`request`]: one model's training as the command and Python ask for it
//!   ([`TrainRequest`]: every default and check once, errors naming the setting);
//! - [`stale`]: the stale model (the probability that a page changed since the last
//!   visit), learned from a crawl's own visits with a gamma prior over group rates;
//! - [`stale_eval`]: the staleness table at a crawl's visits (AUC, Brier score,
//!   reliability) of the stale model and its rivals;
//! - [`calibration`]: the Brier score and reliability table of probabilities;
//! - [`scorer`]: models learned per rotation driving the request-driven simulation
//!   ([`crate::sim::requests`]).
//!
//! ```
//! use freshgp_data::data::synth::{generate, SynthParams};
//! use freshgp_learn::predict::{eval, EvalOptions};
//!
//! let mut p = SynthParams::preset("commerce").unwrap();
//! p.pages = 500;
//! p.days = 24;
//! let d = generate(&p, 1).unwrap();
//! let table = eval::auc_table(&d, &EvalOptions::default().rotations(1)).unwrap();
//! let row = table.row("freq7").unwrap();
//! assert!(row.full.seen.mean > 0.5);
//! ```
//!
//! **Invariant:** this module reads data and runs the simulation for partial observability;
//! it knows nothing of GP or of the experiment files.

pub mod calibration;
mod error;
pub mod eval;
pub mod features;
mod lbfgs;
pub mod logistic;
pub mod network;
pub mod observe;
pub mod request;
pub mod scorer;
pub mod stale;
pub mod stale_eval;

pub use calibration::Calibration;
pub use error::{FeatureError, NetworkOptionsError};
pub use eval::{AucCell, AucRow, AucTable, EvalOptions, Learned, ModelKind, SeenUnseen};
pub use eval::{Progress, RotationProgress, TrainOptions, Trained};
pub use features::{ExampleSource, ExampleStream, Examples, FeatureCodes};
pub use logistic::ModelTraining;
pub use network::NetworkOptions;
pub use observe::Observations;
pub use request::{TrainRequest, TrainRequestError, TrainSetting};
pub use scorer::{ModelScorer, Reading};
pub use stale::{train_stale, GroupChoice, StaleExamples, StaleOptions, StaleTrained};
pub use stale_eval::{stale_table, StaleTable};

/// Why a model cannot be trained, read or evaluated.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PredictError {
    /// A feature set, a model or data that cannot be used for learning.
    #[error(transparent)]
    Feature(#[from] FeatureError),
    /// A label horizon K of 0.
    #[error("the label horizon K must be at least 1")]
    Horizon,
    /// Cycles outside the history.
    #[error("cycles {first}..={last} are outside the history's 1..={cycles}")]
    Cycles {
        /// First cycle asked.
        first: usize,
        /// Last cycle asked.
        last: usize,
        /// Cycles in the history.
        cycles: usize,
    },
    /// No training or validation example (the label horizon K is longer than the period).
    #[error(
        "no training or validation example: the label horizon K is longer than the training period"
    )]
    NoExamples,
    /// Training examples of one class only.
    #[error("the {0} training examples are all of one class: there is nothing to learn")]
    OneClass(usize),
    /// The optimizer failed.
    #[error("fitting the logistic regression failed: {0}")]
    Fit(String),
    /// Network options out of range.
    #[error("training the network: {0}")]
    NetworkOptions(#[from] NetworkOptionsError),
    /// A failure inside candle while training the network (its message: candle's errors
    /// are neither `Clone` nor `PartialEq`).
    #[error("training the network: {0}")]
    Network(String),
    /// A model file that cannot be used.
    #[error("{0}")]
    ModelFile(String),
    /// AUC of unusable scores.
    #[error(transparent)]
    Auc(#[from] crate::stats::AucError),
    /// The data cannot be split into folds and periods (docs/src/reference/folds.md).
    #[error(transparent)]
    Split(#[from] crate::data::split::SplitError),
    /// The data cannot be simulated.
    #[error(transparent)]
    Period(#[from] crate::sim::PeriodError),
    /// The partial-observability crawl cannot run.
    #[error("the partial-observability crawl: {0}")]
    Sim(#[from] crate::sim::SimError),
    /// The caller's progress callback stopped the training (Ctrl-C, in the command and in
    /// Python) before it finished.
    #[error("stopped before the training finished")]
    Stopped,
}

impl From<crate::model::ModelError> for PredictError {
    fn from(e: crate::model::ModelError) -> PredictError {
        match e {
            crate::model::ModelError::Feature(why) => FeatureError::Name(why).into(),
            crate::model::ModelError::File(why) => PredictError::ModelFile(why),
        }
    }
}
