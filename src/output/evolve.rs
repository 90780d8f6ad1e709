//! `evolve`: each strategy's winner on one rotation, the run's settings and every seed's run.

use crate::experiment::evolve::{EvolveSettings, RotationRun, SeedRun};
use crate::gp::Strategy;
use serde::Serialize;
use std::collections::BTreeMap;

/// One rotation's GP run.
#[derive(Debug, Clone, Serialize)]
pub struct Evolved<'a> {
    /// Each strategy's winner across seeds, by the strategy's name (`best`, `sum_sigma`,
    /// `avg_sigma`).
    #[serde(flatten)]
    pub winners: BTreeMap<&'static str, Winner>,
    /// The fitness metric.
    pub metric: &'static str,
    /// The host cap, if any.
    pub host_cap: Option<u32>,
    /// The training budgets (empty: the run's budget alone).
    pub train_resources: &'a [f64],
    /// The share of the training pages searched on, with a page sample.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub train_sample: Option<f64>,
    /// The pages of that sample.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sample_pages: Option<usize>,
    /// The rotation.
    pub rotation: usize,
    /// Pages in the training, validation and test sets.
    pub set_sizes: [usize; 3],
    /// Simulations run, over every seed.
    pub evaluations: usize,
    /// Fitness values taken from the cache, over every seed.
    pub cache_hits: usize,
    /// Wall-clock seconds of the whole run.
    pub seconds: f64,
    /// Every seed's run.
    pub seeds: &'a [SeedRun],
}

/// A strategy's winner: the formula, its policy, its figures and its strategy score.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Winner {
    /// The formula, simplified (parses back).
    pub formula: String,
    /// Its policy under the run's settings (the closure of its grammar, the model of `P`).
    pub policy: String,
    /// Training fitness (on every training page, with a page sample).
    pub train: f64,
    /// Validation fitness.
    pub validation: f64,
    /// Test fitness.
    pub test: f64,
    /// The strategy's score.
    pub score: f64,
}

impl<'a> Evolved<'a> {
    /// The answer for `run` under `settings`, which took `seconds` of wall-clock time.
    pub fn new(run: &'a RotationRun, settings: &'a EvolveSettings, seconds: f64) -> Self {
        let winners = Strategy::ALL
            .into_iter()
            .map(|strategy| {
                let c = run.winner(strategy);
                let winner = Winner {
                    formula: c.formula.to_string(),
                    policy: settings.policy(&c.formula).to_string(),
                    train: c.train,
                    validation: c.validation,
                    test: c.test,
                    score: c.score,
                };
                (strategy.name(), winner)
            })
            .collect();
        let sample = settings.train_sample.zip(run.sample_pages);
        Evolved {
            winners,
            metric: settings.metric.name(),
            host_cap: settings.sim.host_cap(),
            train_resources: &settings.train_resources,
            train_sample: sample.map(|(share, _)| share.share()),
            sample_pages: sample.map(|(_, pages)| pages),
            rotation: run.rotation,
            set_sizes: run.set_sizes,
            evaluations: run.seeds.iter().map(|s| s.evaluations).sum(),
            cache_hits: run.seeds.iter().map(|s| s.cache_hits).sum(),
            seconds,
            seeds: &run.seeds,
        }
    }
}
