//! Fixed policies over the test sets of the five rotations: the seven published baselines
//! (docs/src/reference/policies.md#baselines), the literature's policies
//! (docs/src/reference/policies.md), or any formula.

use super::ExperimentError;
use crate::data::split::{Horizon, Split};
use crate::data::Dataset;
use crate::metric::{CycleMetrics, Metric};
use crate::policy::Policy;
use crate::sim::{ArmChoice, Period, SimConfig, Simulator};
use crate::stats::{mean_ci, MeanCi};
use rayon::prelude::*;
use serde::Serialize;

/// The test set of each rotation: its pages over the test period.
pub fn test_periods(dataset: &Dataset) -> Result<Vec<Period>, ExperimentError> {
    test_periods_over(dataset, Horizon::Temporal)
}

/// The test set of each rotation: its pages over `horizon` (period 3, or every cycle).
pub fn test_periods_over(
    dataset: &Dataset,
    horizon: Horizon,
) -> Result<Vec<Period>, ExperimentError> {
    Split::all(dataset.pages(), dataset.cycles())?
        .into_iter()
        .map(|s| s.with_horizon(horizon, dataset.cycles()))
        .map(|s| Ok(Period::new(dataset, &s.test, s.test_cycles.clone())?))
        .collect()
}

/// The mean and 95% CI of every metric over a set of scored cycles (the columns of the
/// report tables and of `baselines`).
#[derive(Debug, Clone, Serialize)]
pub struct MetricSummary {
    /// ChangeRate.
    pub changerate: MeanCi,
    /// NDCG.
    pub ndcg: MeanCi,
    /// Freshness.
    pub freshness: MeanCi,
    /// WFreshness (docs/src/reference/metrics.md#wfreshness; Freshness when the dataset has
    /// no weights).
    pub wfreshness: MeanCi,
    /// WNDCG (docs/src/reference/metrics.md#wndcg; NDCG when the dataset has no weights).
    pub wndcg: MeanCi,
}

impl MetricSummary {
    /// The summary of `cycles` (rotation by rotation; all cycles pooled).
    pub fn new(cycles: &[Vec<CycleMetrics>]) -> MetricSummary {
        let ci = |m: Metric| {
            mean_ci(
                &cycles
                    .iter()
                    .flatten()
                    .map(|c| m.of(c))
                    .collect::<Vec<f64>>(),
            )
        };
        MetricSummary {
            changerate: ci(Metric::ChangeRate),
            ndcg: ci(Metric::Ndcg),
            freshness: ci(Metric::Freshness),
            wfreshness: ci(Metric::WFreshness),
            wndcg: ci(Metric::WNdcg),
        }
    }

    /// The mean and 95% CI of `metric`.
    pub fn of(&self, metric: Metric) -> &MeanCi {
        match metric {
            Metric::ChangeRate => &self.changerate,
            Metric::Ndcg => &self.ndcg,
            Metric::Freshness => &self.freshness,
            Metric::WFreshness => &self.wfreshness,
            Metric::WNdcg => &self.wndcg,
        }
    }
}

/// One policy's results on all test rotations.
#[derive(Debug, Clone, Serialize)]
pub struct BaselineResult {
    /// The policy.
    pub policy: Policy,
    /// Every metric over all scored test cycles.
    #[serde(flatten)]
    pub metrics: MetricSummary,
    /// Per-cycle metrics, rotation by rotation.
    pub cycles: Vec<Vec<CycleMetrics>>,
    /// A bandit's arm choices, rotation by rotation (docs/src/reference/bandit.md; empty
    /// lists otherwise).
    pub choices: Vec<Vec<ArmChoice>>,
}

impl BaselineResult {
    /// The share of scored cycles in which each arm of a bandit was drawn (empty for a
    /// policy that is no bandit).
    pub fn arm_shares(&self) -> Vec<f64> {
        let arms = self.policy.bandit().map_or(0, |b| b.arms().len());
        crate::sim::arm_shares(self.choices.iter().flatten(), arms)
    }
}

/// Simulates each of `policies` on every rotation's test set.
pub fn run(
    dataset: &Dataset,
    config: SimConfig,
    policies: &[Policy],
) -> Result<Vec<BaselineResult>, ExperimentError> {
    run_over(dataset, config, policies, Horizon::Temporal)
}

/// Simulates each of `policies` on every rotation's test pages over `horizon` (period 3,
/// docs/src/reference/folds.md#rotations, or the whole history for policies that learn
/// while they crawl).
pub fn run_over(
    dataset: &Dataset,
    config: SimConfig,
    policies: &[Policy],
    horizon: Horizon,
) -> Result<Vec<BaselineResult>, ExperimentError> {
    let periods = test_periods_over(dataset, horizon)?;
    super::sweep::check(&periods, config)?;
    super::sweep::check_groupings(&periods, policies)?;
    let jobs: Vec<(usize, usize)> = (0..policies.len())
        .flat_map(|b| (0..periods.len()).map(move |r| (b, r)))
        .collect();
    let outcomes: Vec<crate::sim::Outcome> = jobs
        .par_iter()
        .map(|&(b, r)| {
            let mut sim = Simulator::new(config);
            // Invariant: every period was checked against `config` and every policy's
            // grouping above.
            sim.run(&periods[r], &policies[b])
                .expect("invariant: periods checked above")
        })
        .collect();
    Ok(policies
        .iter()
        .enumerate()
        .map(|(b, policy)| {
            let runs = &outcomes[b * periods.len()..(b + 1) * periods.len()];
            let cycles: Vec<Vec<CycleMetrics>> = runs.iter().map(|o| o.cycles.clone()).collect();
            BaselineResult {
                policy: policy.clone(),
                metrics: MetricSummary::new(&cycles),
                cycles,
                choices: runs.iter().map(|o| o.choices.clone()).collect(),
            }
        })
        .collect())
}
