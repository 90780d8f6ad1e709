//! Checked simulation settings ([`SimConfig`]): the share of pages visited per cycle, the
//! warm-up, the tie-break seed and rule, the host cap, the run's metric and the crawl
//! decision; and why a simulation cannot run ([`SimError`]).

use super::{Decision, Period};
use crate::metric::Metric;
use serde::{Deserialize, Serialize};
use std::num::NonZeroU32;

/// How pages with equal scores are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TieBreak {
    /// A pseudo-random order fixed by (seed, cycle) — the default
    /// (docs/src/reference/simulation.md#the-tie-rule).
    #[default]
    Seeded,
    /// The order GCC's `std::sort` leaves tied pages in when, as in the authors'
    /// program, each cycle sorts the previous cycle's ranking. For parity checks; uses the
    /// reference simulator (O(P log P) per cycle).
    Reference,
}

/// Why a simulation cannot run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimError {
    /// Resources outside (0, 1].
    #[error("resources must be in (0, 1], got {0}")]
    Resources(f64),
    /// Warm-up too long for the period.
    #[error("warm-up of {warmup} cycles leaves no cycle to score in a period of {len}")]
    Warmup {
        /// Warm-up cycles.
        warmup: usize,
        /// Period length.
        len: usize,
    },
    /// A host cap of 0 (an error, not an empty crawl:
    /// docs/src/reference/simulation.md#politeness-the-host-cap).
    #[error("the host cap must be at least 1 page per host and cycle, got 0")]
    ZeroHostCap,
    /// Sampled decisions under a host cap
    /// (docs/src/reference/simulation.md#sampled-decisions).
    #[error("sampled crawl decisions cannot keep a host cap, got a cap of {0}: use the top-k decision or no cap")]
    SampleWithCap(u32),
    /// Sampled decisions with the authors' tie order.
    #[error("sampled crawl decisions break ties by the seeded order; the reference tie rule is for top-k parity runs")]
    SampleWithReferenceTies,
    /// A model reads the group rate of an attribute the data is not grouped by.
    #[error(transparent)]
    Grouping(#[from] crate::policy::GroupingError),
    /// The oracle over a history that does not record latent change probabilities.
    #[error("the oracle reads each page's latent change probability, which this history does not record: only synthetic histories do (`freshgp dataset synth`, or `latent_change=` on every line of the text format; docs/src/reference/data.md#latent-change-probabilities)")]
    NoLatent,
    /// k would be 0.
    #[error("{pages} pages × resources {resources} is less than one visit per cycle")]
    NoVisits {
        /// Pages simulated.
        pages: usize,
        /// Resources fraction.
        resources: f64,
    },
}

/// Checks that `period` gives `policy` what it reads beyond the pages' visits: the group
/// rates of its learned models ([`Policy::check_grouping`](crate::policy::Policy::check_grouping)) and, for the oracle, the
/// pages' latent change probabilities.
///
/// # Errors
/// [`SimError::Grouping`] or [`SimError::NoLatent`].
pub fn check_policy(period: &Period, policy: &crate::policy::Policy) -> Result<(), SimError> {
    policy.check_grouping(period.grouping())?;
    if policy.features().reads_latent() && !period.has_latent() {
        return Err(SimError::NoLatent);
    }
    Ok(())
}

/// The paper's share of pages visited per scored cycle
/// (docs/src/reference/simulation.md#a-scored-cycle): the default everywhere.
pub const DEFAULT_RESOURCES: f64 = 0.05;

/// The paper's warm-up cycles, which visit every page
/// (docs/src/reference/simulation.md#warm-up): the default everywhere.
pub const DEFAULT_WARMUP: usize = 2;

/// Checked simulation settings.
///
/// **Invariant:** `0 < resources <= 1`; deserializing checks it (through its raw fields).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawSimConfig")]
pub struct SimConfig {
    resources: f64,
    warmup: usize,
    seed: u64,
    ties: TieBreak,
    #[serde(skip_serializing_if = "Option::is_none")]
    host_cap: Option<NonZeroU32>,
    #[serde(skip_serializing_if = "is_default_metric")]
    metric: Metric,
    #[serde(default, skip_serializing_if = "is_top_k")]
    decision: Decision,
}

fn is_top_k(decision: &Decision) -> bool {
    *decision == Decision::TopK
}

fn is_default_metric(metric: &Metric) -> bool {
    *metric == Metric::default()
}

/// [`SimConfig`]'s fields as written (in a study's `study.json`), before checking.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSimConfig {
    resources: f64,
    warmup: usize,
    seed: u64,
    ties: TieBreak,
    #[serde(default)]
    host_cap: Option<u32>,
    #[serde(default)]
    metric: Metric,
    #[serde(default)]
    decision: Decision,
}

impl TryFrom<RawSimConfig> for SimConfig {
    type Error = SimError;

    fn try_from(raw: RawSimConfig) -> Result<SimConfig, SimError> {
        SimConfig::new(raw.resources, raw.warmup)?
            .with_seed(raw.seed)
            .with_ties(raw.ties)
            .with_host_cap(raw.host_cap)?
            .with_metric(raw.metric)
            .with_decision(raw.decision)
    }
}

impl SimConfig {
    /// Visit `floor(P · resources)` pages per cycle after `warmup` cycles that visit all.
    pub fn new(resources: f64, warmup: usize) -> Result<SimConfig, SimError> {
        if !(resources > 0.0 && resources <= 1.0) {
            return Err(SimError::Resources(resources));
        }
        Ok(SimConfig {
            resources,
            warmup,
            seed: 0,
            ties: TieBreak::Seeded,
            host_cap: None,
            metric: Metric::default(),
            decision: Decision::TopK,
        })
    }

    /// The paper's settings: resources [`DEFAULT_RESOURCES`], warm-up [`DEFAULT_WARMUP`],
    /// tie-break seed 0.
    pub fn paper() -> SimConfig {
        SimConfig {
            resources: DEFAULT_RESOURCES,
            warmup: DEFAULT_WARMUP,
            seed: 0,
            ties: TieBreak::Seeded,
            host_cap: None,
            metric: Metric::default(),
            decision: Decision::TopK,
        }
    }

    /// The same settings with a host cap (at most `cap` pages of one host per cycle:
    /// docs/src/reference/simulation.md#politeness-the-host-cap; `None`: no cap). A cap of 0
    /// is an error.
    pub fn with_host_cap(mut self, cap: Option<u32>) -> Result<SimConfig, SimError> {
        self.host_cap = match cap {
            None => None,
            Some(cap) => Some(NonZeroU32::new(cap).ok_or(SimError::ZeroHostCap)?),
        };
        self.consistent()?;
        Ok(self)
    }

    /// The same settings with another crawl decision (`top-k`, the default, or `sample`:
    /// docs/src/reference/simulation.md#sampled-decisions). Sampling refuses a host cap and
    /// the reference tie rule.
    pub fn with_decision(mut self, decision: Decision) -> Result<SimConfig, SimError> {
        self.decision = decision;
        self.consistent()?;
        Ok(self)
    }

    /// The crawl decision.
    pub fn decision(&self) -> Decision {
        self.decision
    }

    /// Settings that cannot go together: sampling with a host cap or with the authors' tie
    /// order (which exists for parity with their program, which has no sampling).
    fn consistent(&self) -> Result<(), SimError> {
        if self.decision == Decision::Sample {
            if let Some(cap) = self.host_cap {
                return Err(SimError::SampleWithCap(cap.get()));
            }
            if self.ties == TieBreak::Reference {
                return Err(SimError::SampleWithReferenceTies);
            }
        }
        Ok(())
    }

    /// The same settings with another run metric: what a bandit that names no reward
    /// metric is rewarded by (docs/src/reference/bandit.md#rewards; default NDCG, the
    /// paper's fitness).
    pub fn with_metric(mut self, metric: Metric) -> SimConfig {
        self.metric = metric;
        self
    }

    /// The run's metric (see [`SimConfig::with_metric`]).
    pub fn metric(&self) -> Metric {
        self.metric
    }

    /// The host cap, if any.
    pub fn host_cap(&self) -> Option<u32> {
        self.host_cap.map(NonZeroU32::get)
    }

    /// The host cap as it binds over `period`: none over a period whose pages have no
    /// host (pages without a host are never capped, so the walk skips nothing), and the
    /// simulators then take the uncapped way to the same outcome.
    pub(crate) fn host_cap_over(&self, period: &super::Period) -> Option<u32> {
        self.host_cap().filter(|_| period.hosts() > 0)
    }

    /// The same settings with another tie-break seed.
    pub fn with_seed(mut self, seed: u64) -> SimConfig {
        self.seed = seed;
        self
    }

    /// The same settings with another tie-break rule.
    pub fn with_ties(mut self, ties: TieBreak) -> SimConfig {
        self.ties = ties;
        self
    }

    /// The same settings with other resources (a budget sweep,
    /// docs/src/reference/evaluation.md#budget-sweeps).
    pub fn with_resources(self, resources: f64) -> Result<SimConfig, SimError> {
        Ok(SimConfig {
            resources,
            ..SimConfig::new(resources, self.warmup)?
        }
        .with_seed(self.seed)
        .with_ties(self.ties)
        .with_metric(self.metric)
        .with_checked(self.host_cap, self.decision))
    }

    /// `host_cap` and `decision` taken from settings that were consistent.
    fn with_checked(mut self, cap: Option<NonZeroU32>, decision: Decision) -> SimConfig {
        self.host_cap = cap;
        self.decision = decision;
        self
    }

    /// Fraction of pages visited per cycle.
    pub fn resources(&self) -> f64 {
        self.resources
    }

    /// Warm-up cycles.
    pub fn warmup(&self) -> usize {
        self.warmup
    }

    /// Tie-break seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Tie-break rule.
    pub fn ties(&self) -> TieBreak {
        self.ties
    }

    /// Pages visited per scored cycle: `floor(pages · resources)`, as the authors compute it.
    pub fn k(&self, pages: usize) -> usize {
        (pages as f64 * self.resources) as usize
    }

    /// Checks that `period` can be simulated with these settings.
    pub fn check(&self, period: &Period) -> Result<(), SimError> {
        self.consistent()?;
        if self.warmup >= period.len() {
            return Err(SimError::Warmup {
                warmup: self.warmup,
                len: period.len(),
            });
        }
        if self.k(period.pages()) == 0 {
            return Err(SimError::NoVisits {
                pages: period.pages(),
                resources: self.resources,
            });
        }
        Ok(())
    }
}
