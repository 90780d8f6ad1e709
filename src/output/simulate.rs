//! `simulate`: one run's per-cycle metrics and means, or a sweep's spread over runs.

use crate::experiment::sweep::{self, RunMeans, Table};
use crate::metric::{CycleMetrics, Metric};
use crate::policy::{Exp3, Policy, Reward, Scorer};
use crate::sim::{arm_shares, ArmChoice, Outcome, Period, SimConfig};
use serde::Serialize;
use std::collections::BTreeMap;

/// One simulation of one policy over one period.
#[derive(Debug, Clone, Serialize)]
pub struct SimulateRun {
    /// The policy's short label.
    pub scorer: String,
    /// The policy as text that parses back (a formula, a name, a bandit's settings).
    pub policy: String,
    /// Pages of the period.
    pub pages: usize,
    /// Cycles of the period, the warm-up included.
    pub period_cycles: usize,
    /// Pages visited per cycle.
    pub k: usize,
    /// The host cap, if any.
    pub host_cap: Option<u32>,
    /// Every scored cycle's metrics, in order.
    pub cycles: Vec<CycleMetrics>,
    /// Each metric's mean over the scored cycles, by name.
    pub mean: BTreeMap<&'static str, f64>,
    /// A bandit's arms and draws (absent for any other policy).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bandit: Option<BanditDraws>,
}

impl SimulateRun {
    /// The answer for `outcome`, the run of `policy` over `period` under `config`.
    pub fn new(policy: &Policy, period: &Period, config: SimConfig, outcome: Outcome) -> Self {
        let mean = Metric::ALL
            .iter()
            .map(|&m| (m.name(), outcome.mean(m)))
            .collect();
        let bandit = policy.bandit().map(|b| {
            let shares = arm_shares(&outcome.choices, b.arms().len());
            BanditDraws::new(b, config.metric(), shares, outcome.choices)
        });
        SimulateRun {
            scorer: policy.label(),
            policy: policy.to_string(),
            pages: period.pages(),
            period_cycles: period.len(),
            k: config.k(period.pages()),
            host_cap: config.host_cap(),
            cycles: outcome.cycles,
            mean,
            bandit,
        }
    }
}

/// A bandit's arms, its settings, the share of cycles each arm was drawn, and every draw:
/// `C` is one run's draws (`simulate`) or one list per rotation (`baselines`).
#[derive(Debug, Clone, Serialize)]
pub struct BanditDraws<C = Vec<ArmChoice>> {
    /// The arms' labels.
    pub arms: Vec<String>,
    /// The exploration rate γ.
    pub gamma: f64,
    /// What rewards it: its own reward, else the run's metric.
    pub reward: String,
    /// Per arm, the share of the scored cycles it was drawn.
    pub shares: Vec<f64>,
    /// Every draw.
    pub choices: C,
}

impl<C> BanditDraws<C> {
    /// `bandit`'s draws `choices`, each arm drawn in `shares` of them, in a run rewarded by
    /// `run_metric` unless the bandit has its own reward.
    pub fn new(bandit: &Exp3<Scorer>, run_metric: Metric, shares: Vec<f64>, choices: C) -> Self {
        BanditDraws {
            shares,
            arms: bandit.arms().iter().map(Scorer::label).collect(),
            gamma: bandit.gamma(),
            reward: bandit
                .reward()
                .unwrap_or(Reward::Metric(run_metric))
                .name()
                .to_string(),
            choices,
        }
    }
}

/// A metric's median and 2.5–97.5 percentile interval over runs, and its pooled mean.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Spread {
    /// The median of the runs' means.
    pub median: f64,
    /// The 2.5th percentile.
    pub low: f64,
    /// The 97.5th percentile.
    pub high: f64,
    /// The mean over every run, pooled by cycles.
    pub mean: f64,
}

impl Spread {
    /// `metric` over `runs`.
    pub fn of(runs: &[RunMeans], metric: Metric) -> Spread {
        let s = sweep::summary(runs, metric);
        Spread {
            median: s.median,
            low: s.low,
            high: s.high,
            mean: sweep::mean(runs, metric),
        }
    }
}

/// One policy over one period at several budgets or runs.
#[derive(Debug, Clone, Serialize)]
pub struct SimulateSweep {
    /// The policy's short label.
    pub scorer: String,
    /// The policy as text that parses back.
    pub policy: String,
    /// Pages of the period.
    pub pages: usize,
    /// Cycles of the period, the warm-up included.
    pub period_cycles: usize,
    /// How each cycle's visits are decided.
    pub decision: &'static str,
    /// The runs' seeds.
    pub seeds: Vec<u64>,
    /// One entry per budget, in the order given.
    pub levels: Vec<SweepLevel>,
}

/// One budget of a [`SimulateSweep`].
#[derive(Debug, Clone, Serialize)]
pub struct SweepLevel {
    /// The budget (share of the pages visited per cycle).
    pub resources: f64,
    /// Each metric's spread over the runs, by name.
    pub metrics: BTreeMap<&'static str, Spread>,
    /// Each run's means.
    pub runs: Vec<RunMeans>,
}

impl SimulateSweep {
    /// The answer for `table`, the sweep of `policy` (its first policy) over `period`
    /// under `config` with the runs' `seeds`.
    pub fn new(
        policy: &Policy,
        table: &Table,
        period: &Period,
        config: SimConfig,
        seeds: &[u64],
    ) -> Self {
        let levels = table
            .levels
            .iter()
            .zip(&table.runs)
            .map(|(&resources, row)| {
                let runs = row.first().map_or(&[][..], Vec::as_slice);
                SweepLevel {
                    resources,
                    metrics: Metric::ALL
                        .iter()
                        .map(|&m| (m.name(), Spread::of(runs, m)))
                        .collect(),
                    runs: runs.to_vec(),
                }
            })
            .collect();
        SimulateSweep {
            scorer: policy.label(),
            policy: policy.to_string(),
            pages: period.pages(),
            period_cycles: period.len(),
            decision: config.decision().name(),
            seeds: seeds.to_vec(),
            levels,
        }
    }
}
