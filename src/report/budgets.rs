//! SPEC §11 in reports: each method at every budget of the study (median and 2.5–97.5
//! percentile interval over the runs, Wilcoxon p-value against the reference) and its
//! savings at equal quality against each of the study's `savings` references.
//!
//! A method's runs are its units' runs pooled by run seed (rotations, and for GP methods
//! the winning seed of each rotation, weighted by their cycles). A study without `runs`
//! has one run per method: the test cycles every report table reads.

use super::Method;
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

/// Fills every method's `budgets` and `savings` (SPEC §11).
pub(crate) fn attach(study: &Study, methods: &mut [Method]) {
    let levels = study.levels();
    let reference = study
        .reference
        .as_ref()
        .and_then(|r| methods.iter().find(|m| m.name == r.label()))
        .map(|m| (m.name.clone(), m.evaluated.levels.clone()));
    let mut all_savings = Vec::new();
    for m in methods.iter() {
        let mut savings = Vec::new();
        for r in &study.savings {
            let Some(against) = methods.iter().find(|o| o.name == r.label()) else {
                continue;
            };
            if against.name == m.name || m.evaluated.curve.is_empty() {
                continue;
            }
            let metric = study.sim.metric();
            let target = against
                .evaluated
                .levels
                .first()
                .map_or(f64::NAN, |runs| sweep::mean(runs, metric));
            savings.push(MethodSavings {
                reference: against.name.clone(),
                savings: sweep::smallest_reaching(
                    &m.evaluated.curve,
                    metric,
                    target,
                    study.sim.resources(),
                ),
            });
        }
        all_savings.push(savings);
    }
    for (m, savings) in methods.iter_mut().zip(all_savings) {
        m.budgets = levels
            .iter()
            .enumerate()
            .filter_map(|(l, &resources)| Some((resources, m.evaluated.levels.get(l)?, l)))
            .filter(|(_, runs, _)| !runs.is_empty())
            .map(|(resources, runs, l)| {
                // No test of the reference against itself, nor of a single run.
                let against = reference
                    .as_ref()
                    .filter(|(name, _)| *name != m.name && runs.len() > 1)
                    .and_then(|(_, levels)| levels.get(l));
                Budget {
                    resources,
                    metrics: Metric::ALL
                        .into_iter()
                        .map(|metric| {
                            let s = sweep::summary(runs, metric);
                            let wilcoxon_p =
                                against.and_then(|r| sweep::wilcoxon_against(runs, r, metric));
                            LevelMetric {
                                metric,
                                median: s.median,
                                low: s.low,
                                high: s.high,
                                mean: sweep::mean(runs, metric),
                                wilcoxon_p,
                            }
                        })
                        .collect(),
                }
            })
            .collect();
        m.budgets
            .sort_by(|a, b| a.resources.total_cmp(&b.resources));
        m.savings = savings;
    }
}
