//! `baselines`: policies side by side over the five test rotations, at one budget or swept.

use super::simulate::{BanditDraws, Spread};
use crate::data::split::Horizon;
use crate::experiment::baselines::{BaselineResult, MetricSummary};
use crate::experiment::headroom::{policy_shares, Share};
use crate::experiment::sweep::{self, Savings, Table};
use crate::experiment::windows::Windows;
use crate::metric::{CycleMetrics, Metric};
use crate::policy::Policy;
use crate::sim::{ArmChoice, SimConfig, TieBreak};
use serde::Serialize;
use std::collections::BTreeMap;

/// A policy's share of the headroom on each compared metric (`None`: no oracle listed,
/// or this is the oracle), as [`policy_shares`] gives it.
pub type Captured = Option<BTreeMap<&'static str, Option<Share>>>;

/// Every policy over the test sets of the rotations, at one budget.
#[derive(Debug, Clone, Serialize)]
pub struct Baselines {
    /// Each policy's figures, by label.
    pub baselines: BTreeMap<String, BaselineEntry>,
    /// The policies' labels in the order given.
    pub policies: Vec<String>,
    /// Scored cycles, pooled over the rotations.
    pub cycles: usize,
    /// Pages of the dataset.
    pub pages: usize,
    /// The budget.
    pub resources: f64,
    /// Warm-up cycles.
    pub warmup: usize,
    /// The tie order.
    pub ties: TieBreak,
    /// The host cap, if any.
    pub host_cap: Option<u32>,
    /// The run's metric (what a bandit is rewarded by, what `captured` is measured on).
    pub metric: &'static str,
    /// Which cycles the test pages are simulated over.
    pub test_horizon: Horizon,
    /// The best policy per window, when asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub windows: Option<Windows>,
}

/// One policy of [`Baselines`].
#[derive(Debug, Clone, Serialize)]
pub struct BaselineEntry {
    /// The policy as text that parses back.
    pub policy: String,
    /// Every metric's mean and 95% interval over the scored cycles, by name.
    #[serde(flatten)]
    pub metrics: MetricSummary,
    /// Its share of the oracle's headroom.
    pub captured: Captured,
    /// Whether it draws at random (a seed moves it).
    pub random: bool,
    /// A bandit's arms and its draws, rotation by rotation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arms: Option<BanditDraws<Vec<Vec<ArmChoice>>>>,
    /// Every scored cycle's metrics, rotation by rotation.
    pub rotations: Vec<Vec<CycleMetrics>>,
}

impl Baselines {
    /// The answer for `results` (one per policy, in the order given) of a run over
    /// `pages` pages under `config` and `horizon`, with `windows` if asked.
    pub fn new(
        results: &[BaselineResult],
        pages: usize,
        config: SimConfig,
        horizon: Horizon,
        windows: Option<Windows>,
    ) -> Self {
        let listed: Vec<&Policy> = results.iter().map(|r| &r.policy).collect();
        let captured = policy_shares(&listed, |i, m| results[i].metrics.of(m).mean);
        let baselines = results
            .iter()
            .zip(captured)
            .map(|(r, captured)| {
                let arms = r.policy.bandit().map(|b| {
                    BanditDraws::new(b, config.metric(), r.arm_shares(), r.choices.clone())
                });
                let entry = BaselineEntry {
                    policy: r.policy.to_string(),
                    metrics: r.metrics.clone(),
                    captured,
                    random: r.policy.is_random(),
                    arms,
                    rotations: r.cycles.clone(),
                };
                (r.policy.label(), entry)
            })
            .collect();
        Baselines {
            baselines,
            policies: listed.iter().map(|p| p.label()).collect(),
            cycles: results.first().map_or(0, |r| r.metrics.changerate.n),
            pages,
            resources: config.resources(),
            warmup: config.warmup(),
            ties: config.ties(),
            host_cap: config.host_cap(),
            metric: config.metric().name(),
            test_horizon: horizon,
            windows,
        }
    }
}

/// Every policy at several budgets or runs, and the savings against references.
#[derive(Debug, Clone, Serialize)]
pub struct BaselineSweep {
    /// Pages of the dataset.
    pub pages: usize,
    /// The runs' seeds.
    pub runs: Vec<u64>,
    /// The run's metric.
    pub metric: &'static str,
    /// How each cycle's visits are decided.
    pub decision: &'static str,
    /// The policy the Wilcoxon p-values compare with, if any.
    pub reference: Option<String>,
    /// One entry per budget, in the order given.
    pub levels: Vec<BaselineLevel>,
    /// Each policy's savings against each reference asked for.
    pub savings: Vec<SavingsRow>,
}

/// One budget of a [`BaselineSweep`].
#[derive(Debug, Clone, Serialize)]
pub struct BaselineLevel {
    /// The budget.
    pub resources: f64,
    /// Each policy's figures, by label.
    pub policies: BTreeMap<String, SweepEntry>,
}

/// One policy at one budget of a [`BaselineSweep`].
#[derive(Debug, Clone, Serialize)]
pub struct SweepEntry {
    /// Its share of the oracle's headroom (medians over the runs).
    pub captured: Captured,
    /// Each metric's spread over the runs and p-value against the reference, by name.
    #[serde(flatten)]
    pub metrics: BTreeMap<&'static str, SweepCell>,
}

/// A metric's spread over the runs and its Wilcoxon p-value against the reference.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SweepCell {
    /// The spread.
    #[serde(flatten)]
    pub spread: Spread,
    /// The two-sided Wilcoxon signed-rank p-value against the reference (`None`: no
    /// reference, the reference itself, or no paired runs).
    pub wilcoxon_p: Option<f64>,
}

/// One policy's savings against one reference.
#[derive(Debug, Clone, Serialize)]
pub struct SavingsRow {
    /// The policy's label.
    pub policy: String,
    /// The reference's label.
    pub reference: String,
    /// The savings.
    pub savings: Savings,
}

impl BaselineSweep {
    /// The answer for `table` over `pages` pages under `config`, the runs' `seeds`, the
    /// reference's index in the table's policies, and `savings` rows (policy, reference,
    /// savings).
    pub fn new(
        table: &Table,
        pages: usize,
        config: SimConfig,
        seeds: &[u64],
        reference: Option<usize>,
        savings: &[(Policy, Policy, Savings)],
    ) -> Self {
        let listed: Vec<&Policy> = table.policies.iter().collect();
        let levels = table
            .levels
            .iter()
            .zip(&table.runs)
            .map(|(&resources, row)| {
                let captured = policy_shares(&listed, |i, m| sweep::summary(&row[i], m).median);
                let policies = table
                    .policies
                    .iter()
                    .zip(captured)
                    .enumerate()
                    .map(|(i, (policy, captured))| {
                        let metrics = Metric::ALL
                            .iter()
                            .map(|&m| {
                                let p = reference
                                    .filter(|&r| r != i)
                                    .and_then(|r| sweep::wilcoxon_against(&row[i], &row[r], m));
                                let cell = SweepCell {
                                    spread: Spread::of(&row[i], m),
                                    wilcoxon_p: p,
                                };
                                (m.name(), cell)
                            })
                            .collect();
                        (policy.label(), SweepEntry { captured, metrics })
                    })
                    .collect();
                BaselineLevel {
                    resources,
                    policies,
                }
            })
            .collect();
        BaselineSweep {
            pages,
            runs: seeds.to_vec(),
            metric: config.metric().name(),
            decision: config.decision().name(),
            reference: reference
                .and_then(|r| table.policies.get(r))
                .map(Policy::label),
            levels,
            savings: savings
                .iter()
                .map(|(p, r, s)| SavingsRow {
                    policy: p.label(),
                    reference: r.label(),
                    savings: s.clone(),
                })
                .collect(),
        }
    }
}
