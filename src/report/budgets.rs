//! Budgets, repeated runs and savings (docs/src/reference/evaluation.md) in reports: each
//! method at every budget of the study (median and 2.5–97.5 percentile interval over the
//! runs, Wilcoxon p-value against the reference) and its savings at equal quality against
//! each of the study's `savings` references.
//!
//! A method's runs are its units' runs pooled by run seed (rotations, and for GP methods
//! the winning seed of each rotation, weighted by their cycles). A study without `runs`
//! has one run per method: the test cycles every report table reads.

use crate::experiment::study::Study;
use crate::experiment::sweep::{self, CurvePoint, RunMeans, Savings};
use crate::experiment::units::UnitEval;
use crate::metric::{CycleMetrics, Metric};
use serde::Serialize;

/// One metric of a method at one budget.
#[derive(Debug, Clone, Serialize)]
pub struct LevelMetric {
    /// The metric.
    pub metric: Metric,
    /// Median of the run means.
    pub median: f64,
    /// 2.5th percentile of the run means.
    pub low: f64,
    /// 97.5th percentile of the run means.
    pub high: f64,
    /// Mean over every run.
    pub mean: f64,
    /// Two-sided Wilcoxon signed-rank p-value against the reference over the paired runs
    /// (absent for the reference itself and with fewer than two runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wilcoxon_p: Option<f64>,
}

/// A method at one budget.
#[derive(Debug, Clone, Serialize)]
pub struct Budget {
    /// The budget.
    pub resources: f64,
    /// Every metric.
    pub metrics: Vec<LevelMetric>,
}

impl Budget {
    /// The figures of `metric`.
    pub fn of(&self, metric: Metric) -> Option<&LevelMetric> {
        self.metrics.iter().find(|m| m.metric == metric)
    }
}

/// A method's savings against one reference.
#[derive(Debug, Clone, Serialize)]
pub struct MethodSavings {
    /// The reference method.
    pub reference: String,
    /// What was found.
    #[serde(flatten)]
    pub savings: Savings,
}

/// A method's runs and savings curve, before figures are computed.
#[derive(Debug, Clone, Default)]
pub(crate) struct Evaluated {
    /// `levels[l][run]`, budgets in [`Study::levels`] order.
    pub(crate) levels: Vec<Vec<RunMeans>>,
    /// The pooled savings curve (empty without `savings`).
    pub(crate) curve: Vec<CurvePoint>,
}

impl Evaluated {
    /// From the units' figures (one per rotation) when every unit has them, else from the
    /// test cycles (`main` at the study's budget, `top` at the others): one run.
    pub(crate) fn new(
        study: &Study,
        evals: &[Option<&UnitEval>],
        main: &[Vec<CycleMetrics>],
        top: &[Vec<Vec<CycleMetrics>>],
    ) -> Evaluated {
        let seeds = study.run_seeds();
        if let Some(evals) = evals.iter().copied().collect::<Option<Vec<&UnitEval>>>() {
            if !evals.is_empty() {
                let levels = (0..study.levels().len())
                    .map(|l| {
                        seeds
                            .iter()
                            .enumerate()
                            .map(|(i, &seed)| {
                                RunMeans::pooled(
                                    seed,
                                    evals.iter().filter_map(|e| e.levels.get(l)?.get(i)),
                                )
                            })
                            .collect()
                    })
                    .collect();
                let curves: Vec<&[CurvePoint]> = evals.iter().map(|e| &e.curve[..]).collect();
                return Evaluated {
                    levels,
                    curve: sweep::pool_curves(&curves),
                };
            }
        }
        let seed = study.sim.seed();
        let levels = std::iter::once(main)
            .chain(top.iter().map(Vec::as_slice))
            .map(|cycles| vec![RunMeans::of_cycles(seed, cycles.iter().flatten())])
            .collect();
        Evaluated {
            levels,
            curve: Vec::new(),
        }
    }
}
