//! The daily top-k crawl simulation (SPEC §3) — the fitness of every formula.
//!
//! A [`Period`] is a set of pages over a run of cycles; a [`Policy`] is a formula or a
//! baseline; a [`SimConfig`] holds the checked settings (resources, warm-up, seed, how
//! ties are broken). [`Simulator::run`] returns the [`Outcome`]: ChangeRate, NDCG and
//! Freshness of every scored cycle.
//!
//! ```
//! use freshgp::data::Dataset;
//! use freshgp::formula::{Closure, Formula};
//! use freshgp::policy::{Baseline, Policy};
//! use freshgp::sim::{Period, SimConfig, Simulator};
//! use freshgp::metric::Metric;
//!
//! let data = Dataset::from_bit_strings(&["0101010101", "0000000001", "1111111111", "0000000000"])?;
//! let period = Period::whole(&data)?;
//! let config = SimConfig::new(0.5, 2)?; // visit 2 of the 4 pages a cycle, after 2 warm-up cycles
//! let mut sim = Simulator::new(config);
//! let nad = sim.run(&period, &Policy::Baseline(Baseline::Nad))?;
//! assert_eq!(nad.cycles.len(), 8);
//! let formula: Formula = "X / n * t".parse()?;
//! let evolved = sim.run(&period, &Policy::formula(&formula, Closure::Paper))?;
//! assert!(evolved.mean(Metric::ChangeRate) > 0.5);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Two simulators implement the same semantics: the fast one groups pages of equal
//! statistics (see `fast.rs`), the reference one is SPEC §3 read literally (see
//! `naive.rs`) and serves as the tests' oracle and for [`TieBreak::Reference`].
//!
//! **Invariant:** the simulation knows nothing of GP; given (period, policy, config) its
//! outcome is deterministic.

mod bandit;
mod fast;
mod flat;
mod metrics;
mod naive;
mod period;
pub mod requests;
mod sample;
mod shared;
mod stdsort;

pub use bandit::{arm_shares, ArmChoice};
pub use metrics::Outcome;
pub use period::{Period, PeriodError};
pub use sample::{inclusion_probabilities, Decision};
pub(crate) use sample::{inclusion_scale, sample_u, settle, weight_of, Systematic};

use crate::hash::mix64;
use crate::metric::Metric;
use crate::policy::Policy;
use serde::{Deserialize, Serialize};
use std::num::NonZeroU32;

/// How pages with equal scores are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TieBreak {
    /// A pseudo-random order fixed by (seed, cycle) — SPEC §3, the default.
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
    /// A host cap of 0 (SPEC §8: an error, not an empty crawl).
    #[error("the host cap must be at least 1 page per host and cycle, got 0")]
    ZeroHostCap,
    /// Sampled decisions under a host cap (SPEC §11).
    #[error("sampled crawl decisions cannot keep a host cap (SPEC §11), got a cap of {0}: use the top-k decision or no cap")]
    SampleWithCap(u32),
    /// Sampled decisions with the authors' tie order.
    #[error("sampled crawl decisions break ties by the seeded order; the reference tie rule is for top-k parity runs")]
    SampleWithReferenceTies,
    /// A model reads the group rate of an attribute the data is not grouped by.
    #[error(transparent)]
    Grouping(#[from] crate::policy::GroupingError),
    /// k would be 0.
    #[error("{pages} pages × resources {resources} is less than one visit per cycle")]
    NoVisits {
        /// Pages simulated.
        pages: usize,
        /// Resources fraction.
        resources: f64,
    },
}

/// The paper's share of pages visited per scored cycle (SPEC §3): the default everywhere.
pub const DEFAULT_RESOURCES: f64 = 0.05;

/// The paper's warm-up cycles, which visit every page (SPEC §3): the default everywhere.
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

    /// The same settings with a host cap (SPEC §8: at most `cap` pages of one host per
    /// cycle; `None`: no cap). A cap of 0 is an error.
    pub fn with_host_cap(mut self, cap: Option<u32>) -> Result<SimConfig, SimError> {
        self.host_cap = match cap {
            None => None,
            Some(cap) => Some(NonZeroU32::new(cap).ok_or(SimError::ZeroHostCap)?),
        };
        self.consistent()?;
        Ok(self)
    }

    /// The same settings with another crawl decision (SPEC §11: `top-k`, the default, or
    /// `sample`). Sampling refuses a host cap and the reference tie rule.
    pub fn with_decision(mut self, decision: Decision) -> Result<SimConfig, SimError> {
        self.decision = decision;
        self.consistent()?;
        Ok(self)
    }

    /// The crawl decision.
    pub fn decision(&self) -> Decision {
        self.decision
    }

    /// Settings that cannot go together: sampling with a host cap (SPEC §11) or with the
    /// authors' tie order (which exists for parity with their program, which has no
    /// sampling).
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
    /// metric is rewarded by (SPEC §10; default NDCG, the paper's fitness).
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

    /// The same settings with other resources (a budget sweep, SPEC §11).
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
    pub(crate) fn check(&self, period: &Period) -> Result<(), SimError> {
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

/// The ranking key of a score: higher ranks first; `-0` ties with `0`; NaN ranks last.
#[inline]
pub(crate) fn score_key(score: f64) -> u64 {
    if score.is_nan() {
        return 0;
    }
    let bits = (score + 0.0).to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

/// The per-cycle salt of the tie order.
#[inline]
pub(crate) fn tie_salt(seed: u64, cycle: u32) -> u64 {
    mix64(mix64(seed) ^ (cycle as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93))
}

/// The tie key of page `p` (lower ranks first among equal scores). Distinct pages have
/// distinct keys (`salt ^ p` differs and `mix64` is a bijection), so the order is total,
/// and the simulators may rank a class by the keys alone (`Fast::take_whole_class`).
#[inline]
pub(crate) fn tie_key(salt: u64, p: u32) -> u64 {
    mix64(salt ^ p as u64)
}

/// The tie order of every scored cycle of a period: its pages sorted by ascending tie
/// key (what the seeded tie-break defines anyway).
#[derive(Debug, Clone)]
pub(crate) struct TieOrder {
    orders: Vec<Vec<u32>>,
}

impl TieOrder {
    /// The order of cycles `first..=period.len()` for tie-break `seed` (earlier cycles
    /// get none).
    fn new(period: &Period, seed: u64, first: usize) -> TieOrder {
        use rayon::prelude::*;
        let pages = period.pages() as u32;
        let orders = (0..=period.len() as u32)
            .into_par_iter()
            .map(|d| {
                if (d as usize) < first {
                    return Vec::new();
                }
                let salt = tie_salt(seed, d);
                let mut order: Vec<u32> = (0..pages).collect();
                order.sort_by_cached_key(|&p| tie_key(salt, p));
                order
            })
            .collect();
        TieOrder { orders }
    }

    /// Pages of cycle `d` in tie order.
    pub(crate) fn cycle(&self, d: usize) -> &[u32] {
        &self.orders[d]
    }
}

/// A period made ready for many simulations under one [`SimConfig`], as in a GP run
/// ([`Simulator::run_prepared`]): what every run would otherwise redo is done once.
///
/// - The tie order of every scored cycle (O(L · P log P), once): the fast simulator then
///   picks the first pages of a large tied class without touching every member.
/// - The state after the warm-up cycles, which visit every page whatever the policy:
///   each run starts from a copy of it.
///
/// ```
/// use freshgp::data::Dataset;
/// use freshgp::policy::{Baseline, Policy};
/// use freshgp::sim::{Period, Prepared, SimConfig, Simulator};
///
/// let data = Dataset::from_bit_strings(&["0101010101", "0000000001", "1111111111", "0000000000"])?;
/// let period = Period::whole(&data)?;
/// let config = SimConfig::new(0.5, 2)?;
/// let prepared = Prepared::new(&period, config)?;
/// let mut sim = Simulator::new(config);
/// for baseline in Baseline::ALL {
///     let policy = Policy::Baseline(baseline);
///     assert_eq!(sim.run_prepared(&period, &policy, &prepared), sim.run(&period, &policy)?);
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Prepared {
    config: SimConfig,
    cycles: usize,
    order: TieOrder,
    warm: fast::Warm,
}

impl Prepared {
    /// Prepares `period` for simulations under `config`.
    pub fn new(period: &Period, config: SimConfig) -> Result<Prepared, SimError> {
        config.check(period)?;
        Ok(Prepared {
            order: TieOrder::new(period, config.seed(), config.warmup() + 1),
            warm: fast::Warm::new(period, &config),
            cycles: period.len(),
            config,
        })
    }
}

/// Runs simulations, reusing its buffers from one run to the next.
#[derive(Debug, Clone)]
pub struct Simulator {
    config: SimConfig,
    fast: fast::Fast,
}

impl Simulator {
    /// A simulator with these settings.
    pub fn new(config: SimConfig) -> Simulator {
        Simulator {
            config,
            fast: fast::Fast::default(),
        }
    }

    /// Tests only: the same simulator with its groups scrambled (`Fast::scramble`).
    #[cfg(test)]
    pub(crate) fn scrambled(mut self) -> Simulator {
        self.fast.scramble = true;
        self
    }

    /// The same simulator, skipping the weighted sums (SPEC §8: the ideal weighted DCG and
    /// the fresh weight, O(P) per cycle) when `metric`, the only one the caller reads, is
    /// not weighted — as a GP fitness does. Their metrics (WNDCG, WFreshness) then read
    /// NaN over a weighted period; the others are unchanged, bit for bit. A bandit,
    /// whose rewards may read them, always tallies them.
    ///
    /// ```
    /// use freshgp::data::text;
    /// use freshgp::policy::{Baseline, Policy};
    /// use freshgp::sim::{Period, SimConfig, Simulator};
    /// use freshgp::metric::Metric;
    ///
    /// let lines = "0110\ta\t\tweight=1\n1111\tb\t\tweight=2.5\n0001\tc\t\tweight=0.5\n";
    /// let data = text::read(lines.as_bytes(), "<example>")?;
    /// let period = Period::whole(&data)?;
    /// let config = SimConfig::new(0.5, 2)?;
    /// let policy = Policy::Baseline(Baseline::Nad);
    /// let all = Simulator::new(config).run(&period, &policy)?;
    /// let ndcg = Simulator::new(config).unweighted(Metric::Ndcg).run(&period, &policy)?;
    /// assert_eq!(ndcg.mean(Metric::Ndcg), all.mean(Metric::Ndcg));
    /// assert!(ndcg.mean(Metric::WNdcg).is_nan());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn unweighted(mut self, metric: Metric) -> Simulator {
        self.fast.unweighted = !metric.is_weighted();
        self
    }

    /// Its settings.
    pub fn config(&self) -> &SimConfig {
        &self.config
    }

    /// Simulates `policy` over `period`.
    ///
    /// # Errors
    /// Settings the period cannot take (a warm-up as long as it, no visit per cycle), or a
    /// learned model that reads the group rate of an attribute the period is not grouped
    /// by ([`Policy::check_grouping`]).
    pub fn run(&mut self, period: &Period, policy: &Policy) -> Result<Outcome, SimError> {
        self.config.check(period)?;
        policy.check_grouping(period.grouping())?;
        Ok(match self.config.ties {
            TieBreak::Seeded => self.fast.run(period, policy, &self.config, None),
            TieBreak::Reference => naive::run(period, policy, &self.config),
        })
    }

    /// Simulates `policy` over a [`Prepared`] period: the same outcome as
    /// [`Simulator::run`], faster when many policys are simulated over one period.
    ///
    /// The caller checks the policy's grouping once ([`Policy::check_grouping`]): a model
    /// that reads the rate of another grouping reads that of the period's.
    ///
    /// # Panics
    /// If `prepared` was made for other settings than the simulator's, or for a period of
    /// another shape than `period`.
    pub fn run_prepared(
        &mut self,
        period: &Period,
        policy: &Policy,
        prepared: &Prepared,
    ) -> Outcome {
        assert_eq!(
            prepared.config, self.config,
            "period prepared for other settings"
        );
        assert!(
            prepared.cycles == period.len() && prepared.warm.fits(period, &self.config),
            "period prepared for another page set or length"
        );
        match self.config.ties {
            TieBreak::Seeded => self.fast.run(
                period,
                policy,
                &self.config,
                Some((&prepared.order, &prepared.warm)),
            ),
            TieBreak::Reference => naive::run(period, policy, &self.config),
        }
    }

    /// Simulates with the reference simulator (slow; the tests' oracle).
    pub fn run_reference(&self, period: &Period, policy: &Policy) -> Result<Outcome, SimError> {
        self.config.check(period)?;
        Ok(naive::run(period, policy, &self.config))
    }

    /// Simulates with the reference simulator and also returns, for each scored cycle, the
    /// pages it visited (local indices, best ranked first).
    pub fn run_reference_traced(
        &self,
        period: &Period,
        policy: &Policy,
    ) -> Result<(Outcome, Vec<Vec<u32>>), SimError> {
        self.config.check(period)?;
        let mut visits = Vec::new();
        let outcome = naive::run_traced(period, policy, &self.config, |_, pages| {
            visits.push(pages.to_vec())
        });
        Ok((outcome, visits))
    }
}

#[cfg(test)]
impl Simulator {
    /// Simulates a top-k run with the per-page simulator, whether or not
    /// [`Simulator::run`] would hand it there (the tests check it on every case).
    pub(crate) fn run_flat(&self, period: &Period, policy: &Policy) -> Outcome {
        assert_eq!(self.config.decision(), Decision::TopK);
        flat::Flat::default().run(period, policy, &self.config, self.fast.unweighted)
    }
}

#[cfg(test)]
mod bandit_tests;
#[cfg(test)]
mod importance_tests;
#[cfg(test)]
mod literature_tests;
#[cfg(test)]
mod model_tests;
#[cfg(test)]
mod sample_tests;
#[cfg(test)]
mod tests;
