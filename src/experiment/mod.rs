//! Experiments: the temporal cross-validation protocol (docs/src/reference/folds.md) around
//! the simulation and the GP engine.
//!
//! * [`fitness`]: the crawl simulation as a GP fitness.
//! * [`baselines`]: the seven baselines over the five test rotations.
//! * [`evolve`]: one rotation of the paper's protocol: evolve on the training set for
//!   several seeds, keep the best, choose by Best / Sum_σ / Avg_σ on the validation set,
//!   report the test figures.
//! * [`study`]: experiment files: a whole study in one RON file.
//! * [`units`]: a study cut into units of work (configuration × rotation × seed, and the
//!   baselines of each rotation), run one by one, resumable and shardable.
//! * [`sweep`]: budget sweeps, repeated runs (medians, Wilcoxon) and savings at equal
//!   quality (docs/src/reference/evaluation.md).
//! * [`headroom`]: the share of the distance from the best rival to the oracle a policy
//!   covers.
//! * [`windows`]: the best fixed policy per window of cycles, and what a switcher
//!   knowing each window's best would gain (before deploying a bandit).
//! * [`store`]: the output directory: the study record and one file per finished unit,
//!   written atomically.
//!
//! Unit files written before the weighted metrics existed
//! (docs/src/reference/metrics.md#wndcg and #wfreshness) still load: their cycles lack
//! `wndcg` and `wfreshness`, which are read as the cycle's NDCG and Freshness (what the
//! simulation computes without page weights; the simulation of that time ignored weights).
//!
//! **Invariant:** this layer composes `data`, `policy`, `sim` and `gp`; it never prints (progress
//! goes to a callback) and never reads flags.

pub mod baselines;
pub mod evolve;
pub mod fitness;
pub mod headroom;
pub mod request;
mod shard;
pub mod store;
pub mod study;
mod study_file;
pub mod sweep;
pub mod units;
pub mod windows;

mod stored;

use crate::data::split::SplitError;
use crate::sim::{PeriodError, SimError};
use std::fmt;

/// One of the three page sets of a rotation (docs/src/reference/folds.md#rotations), named
/// as errors show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Set {
    /// The training pages over period 1.
    Training,
    /// The validation pages over period 2.
    Validation,
    /// The test pages over period 3.
    Test,
}

impl Set {
    /// `training`, `validation` or `test`.
    pub fn name(self) -> &'static str {
        match self {
            Set::Training => "training",
            Set::Validation => "validation",
            Set::Test => "test",
        }
    }
}

impl fmt::Display for Set {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why an experiment cannot run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExperimentError {
    /// The dataset cannot be split.
    #[error("cannot split the dataset")]
    Split(#[from] SplitError),
    /// A page set or period is unusable.
    #[error("cannot build the simulated period")]
    Period(#[from] PeriodError),
    /// The simulation settings do not fit a set.
    #[error("cannot simulate the {set} set")]
    Sim {
        /// Which set (training, validation, test).
        set: Set,
        /// The cause.
        source: SimError,
    },
    /// A `top_resources` level leaves no visit per cycle on a test set.
    #[error("top_resources level {resources}: the test set of rotation {rotation} has {pages} pages, so no page would be visited per cycle (remove the level or use more pages)")]
    TopResources {
        /// The level.
        resources: f64,
        /// The rotation.
        rotation: usize,
        /// Pages in its test set.
        pages: usize,
    },
    /// The simulation settings do not fit the training sample.
    #[error("cannot simulate the training sample ({pages} pages, share {share}; a larger share may fit)")]
    SampleSim {
        /// The share.
        share: f64,
        /// Pages in the sample.
        pages: usize,
        /// The cause.
        source: SimError,
    },
    /// A rotation was asked to run with no seed.
    #[error("no seed to run: list at least one")]
    NoSeeds,
    /// A grammar with `P` (docs/src/reference/terminals.md#p) and no model to give it.
    #[error("grammar `{grammar}` has P, a learned model's prediction: give the model (--model FILE, `model: \"FILE\"` in a study)")]
    ModelMissing {
        /// The grammar's name.
        grammar: String,
    },
    /// A model given with a grammar that has no `P`.
    #[error(
        "the model {path} gives P, which grammar `{grammar}` lacks (use the grammar predictive)"
    )]
    ModelUnused {
        /// The model's path as given.
        path: String,
        /// The grammar's name.
        grammar: String,
    },
    /// A configuration's model that cannot be used.
    #[error("configuration {configuration}: {model}")]
    Model {
        /// The configuration's name.
        configuration: String,
        /// Why its model cannot be used.
        model: crate::policy::ModelUseError,
    },
    /// A model (a configuration's, or a baseline's) that reads the group rate of an
    /// attribute the data is not grouped by.
    #[error(transparent)]
    Grouping(#[from] crate::policy::GroupingError),
    /// An evolved formula cannot join a configuration's bandit.
    /// The evolved formula cannot join a bandit.
    #[error("cannot add the evolved formula to a bandit")]
    Bandit(#[from] crate::policy::BanditError),
    /// The caller's progress callback stopped the run (Ctrl-C, in the command and in
    /// Python) before it finished: nothing it had not finished was written.
    #[error("stopped before the run finished")]
    Stopped,
}
