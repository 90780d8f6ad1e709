//! What a report holds: the [`Analysis`] of a study — its [`Method`]s (one per
//! configuration × selection strategy, one per baseline, one per bandit) with their
//! figures, the [`Comparison`]s between them, the generation curves — and the metrics
//! compared and ranked ([`COMPARED`], [`RANKED`]).

use super::budgets;
use crate::experiment::baselines::MetricSummary;
use crate::experiment::store::StoreError;
use crate::experiment::study::Study;
use crate::experiment::units::GpUnit;
use crate::gp::Strategy;
use crate::metric::{CycleMetrics, Metric};
use crate::sim::ArmChoice;
use crate::stats::MeanCi;
use serde::Serialize;

/// The metrics compared cycle by cycle with the paired t-test (Table 3): the paper's two
/// and the weighted ones (docs/src/reference/metrics.md#wndcg and #wfreshness).
pub const COMPARED: [Metric; 4] = [
    Metric::ChangeRate,
    Metric::Ndcg,
    Metric::WFreshness,
    Metric::WNdcg,
];

/// The metrics of the top-of-schedule table and of the per-cycle and top-of-schedule plots
/// (Fig. 4 and 5): the ranking metrics, the paper's two and WNDCG.
pub const RANKED: [Metric; 3] = [Metric::ChangeRate, Metric::Ndcg, Metric::WNdcg];

/// Why a report cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The output directory or a stored file.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Units are missing.
    #[error("{dir}: {missing} of {total} units are not finished (first: {first}); run the remaining shards or `freshgp experiment FILE --resume`, or merge the shards with `freshgp report DIR --merge OTHER`")]
    Incomplete {
        /// The directory.
        dir: String,
        /// Units missing.
        missing: usize,
        /// Units in the study.
        total: usize,
        /// The first missing unit file.
        first: String,
    },
    /// A unit's content does not fit the study.
    #[error("{file}: {reason}")]
    Inconsistent {
        /// The unit file.
        file: String,
        /// What does not fit.
        reason: String,
    },
    /// Writing a report file failed.
    #[error("{path}: {reason}")]
    Io {
        /// The file.
        path: String,
        /// The system's reason.
        reason: String,
    },
}

/// A GP method or a baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Configuration × strategy.
    Gp,
    /// A published baseline.
    Baseline,
}

/// The function a GP method reports on one rotation.
#[derive(Debug, Clone, Serialize)]
pub struct Chosen {
    /// The rotation.
    pub rotation: usize,
    /// The winning seed.
    pub seed: u64,
    /// The formula (simplified).
    pub formula: String,
    /// Training fitness.
    pub train: f64,
    /// Validation fitness.
    pub validation: f64,
    /// Test value of the fitness metric.
    pub test: f64,
    /// The strategy's score (what chose it).
    pub score: f64,
    /// The winning seed's fittest seed formula in training (`None`: the run had no seeds).
    pub best_seed: Option<crate::experiment::evolve::SeedFigures>,
    /// The winning seed's front of size against validation fitness, smallest first.
    pub front: Vec<crate::experiment::evolve::FrontPoint>,
}

/// A method's figures at one resources level.
#[derive(Debug, Clone, Serialize)]
pub struct AtResources {
    /// Fraction of the test pages visited per cycle.
    pub resources: f64,
    /// Every metric over all test cycles.
    #[serde(flatten)]
    pub metrics: MetricSummary,
}

/// One method's results.
#[derive(Debug, Clone, Serialize)]
pub struct Method {
    /// `configuration/strategy`, or the baseline's name.
    pub name: String,
    /// GP or baseline.
    pub kind: Kind,
    /// The configuration (GP).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub configuration: Option<String>,
    /// The selection strategy (GP).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strategy: Option<Strategy>,
    /// The fitness metric it was evolved with (GP).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fitness: Option<Metric>,
    /// Every metric over all test cycles of all rotations.
    #[serde(flatten)]
    pub metrics: MetricSummary,
    /// Fraction of visited pages not visited since the warm-up, over all test cycles.
    pub newly_visited: MeanCi,
    /// The chosen function per rotation (GP; empty for baselines).
    pub chosen: Vec<Chosen>,
    /// The same at each `top_resources` (Fig. 5).
    pub top: Vec<AtResources>,
    /// Per rotation (study order), per scored test cycle.
    #[serde(skip)]
    pub cycles: Vec<Vec<CycleMetrics>>,
    /// Per `top_resources`, per rotation, per cycle.
    #[serde(skip)]
    pub top_cycles: Vec<Vec<Vec<CycleMetrics>>>,
    /// A bandit's arms (docs/src/reference/bandit.md#arms; empty for every other method).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub arms: Vec<String>,
    /// The metric a bandit is compared with its arms on: the metric it was rewarded by,
    /// or the study's for a bandit rewarded by `found`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reward: Option<Metric>,
    /// A bandit rewarded otherwise than by a metric: the reward's name (`found`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rewarded_by: Option<String>,
    /// The share of all test cycles in which each arm was drawn.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub arm_shares: Vec<f64>,
    /// A bandit's draws, per rotation, per scored test cycle.
    #[serde(skip)]
    pub choices: Vec<Vec<ArmChoice>>,
    /// Every budget of the study, ascending (docs/src/reference/evaluation.md#budget-sweeps):
    /// medians over the runs, intervals, Wilcoxon p-values against the reference.
    pub budgets: Vec<budgets::Budget>,
    /// Savings at equal quality against each of the study's `savings` references.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub savings: Vec<budgets::MethodSavings>,
    /// The runs and savings curve the two above are computed from.
    #[serde(skip)]
    pub(crate) evaluated: budgets::Evaluated,
}

impl Method {
    /// The mean and 95% CI of `metric` over all test cycles.
    pub fn of(&self, metric: Metric) -> &MeanCi {
        self.metrics.of(metric)
    }

    /// Whether, in every test cycle at every resources level, WNDCG equals NDCG and
    /// WFreshness equals Freshness (as without page weights).
    pub fn weights_neutral(&self) -> bool {
        let same = |c: &CycleMetrics| {
            c.wndcg.to_bits() == c.ndcg.to_bits() && c.wfreshness.to_bits() == c.freshness.to_bits()
        };
        self.cycles
            .iter()
            .chain(self.top_cycles.iter().flatten())
            .flatten()
            .all(same)
    }
}

/// A method against a baseline on one metric, cycle by cycle (Table 3).
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// The method.
    pub method: String,
    /// The baseline.
    pub baseline: String,
    /// The metric.
    pub metric: Metric,
    /// Cycles where the method is better (paired t-test over rotations, p < 0.05).
    pub wins: usize,
    /// Cycles where the baseline is better.
    pub losses: usize,
    /// Cycles without a significant difference.
    pub ties: usize,
    /// The p-value per cycle position.
    pub p_values: Vec<f64>,
}

/// A bandit against one of its arms run alone (docs/src/reference/evaluation.md#statistics):
/// does the bandit beat it?
#[derive(Debug, Clone, Serialize)]
pub struct ArmComparison {
    /// The bandit method.
    pub bandit: String,
    /// The arm, a method of the study.
    pub arm: String,
    /// The metric.
    pub metric: Metric,
    /// The bandit's mean over all test cycles.
    pub bandit_mean: f64,
    /// The arm's mean over all test cycles.
    pub arm_mean: f64,
    /// Two-sided paired t-test over the rotations' means (the rotations are independent
    /// page folds; the cycles of one rotation are not independent of each other).
    pub p_rotations: f64,
    /// Cycle by cycle over the rotations, as Table 3.
    pub per_cycle: Comparison,
}

/// Mean best and mean fitness per generation of one configuration, averaged over its
/// rotation × seed runs.
#[derive(Debug, Clone, Serialize)]
pub struct GenerationCurve {
    /// The configuration.
    pub configuration: String,
    /// Its fitness metric.
    pub fitness: Metric,
    /// Per generation (0 = initial population): mean over runs of the best fitness.
    pub best: Vec<f64>,
    /// Per generation: mean over runs of the population's mean fitness.
    pub mean: Vec<f64>,
}

/// Everything a report shows (`results.json` is its serialization).
#[derive(Debug, Clone, Serialize)]
pub struct Analysis {
    /// The study.
    pub study: Study,
    /// Pages and cycles of the dataset.
    pub dataset: [usize; 2],
    /// Test pages per rotation (study order).
    pub test_pages: Vec<usize>,
    /// Scored test cycles per rotation.
    pub cycles_per_rotation: usize,
    /// GP methods (configuration order, then strategy order), then baselines.
    pub methods: Vec<Method>,
    /// Every GP method against every baseline, on each of [`COMPARED`].
    pub comparisons: Vec<Comparison>,
    /// Every GP method against the methods of the other configurations with the same
    /// selection strategy (in `baseline`), on each of [`COMPARED`]: does one terminal set
    /// or fitness beat another?
    pub between_configurations: Vec<Comparison>,
    /// Fitness per generation, per configuration.
    pub generations: Vec<GenerationCurve>,
    /// Every bandit method against each of its arms that is a method of the study, on
    /// each of [`COMPARED`].
    pub bandits_vs_arms: Vec<ArmComparison>,
    /// The GP units, in unit order (for `generations.csv`).
    #[serde(skip)]
    pub gp_units: Vec<GpUnit>,
}
