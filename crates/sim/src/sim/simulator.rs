//! [`Simulator`]: runs simulations of a policy over a period, reusing its buffers from one
//! run to the next, with the fast simulator (or the per-page one it hands runs to) or the
//! reference one; and a [`Prepared`] period, what many runs over one period share.

use super::fast::{Fast, Warm};
use super::rank::TieOrder;
use super::{naive, Outcome, Period, SimConfig, SimError, TieBreak};
use crate::metric::Metric;
use crate::policy::Policy;

/// A period made ready for many simulations under one [`SimConfig`], as in a GP run
/// ([`Simulator::run_prepared`]): what every run would otherwise redo is done once.
///
/// - The tie order of every scored cycle (O(L · P log P), once): the fast simulator then
///   picks the first pages of a large tied class without touching every member.
/// - The state after the warm-up cycles, which visit every page whatever the policy:
///   each run starts from a copy of it.
///
/// ```
/// use freshgp_data::data::Dataset;
/// use freshgp_policy::policy::{Baseline, Policy};
/// use freshgp_sim::sim::{Period, Prepared, SimConfig, Simulator};
///
/// let data = Dataset::from_bit_strings(&["0101010101", "0000000001", "1111111111", "0000000000"])?;
/// let period = Period::whole(&data)?;
/// let config = SimConfig::new(0.5, 2)?;
/// let prepared = Prepared::new(&period, config)?;
/// let mut sim = Simulator::new(config);
/// for baseline in Baseline::ALL {
///     let policy = Policy::from(baseline);
///     assert_eq!(sim.run_prepared(&period, &policy, &prepared), sim.run(&period, &policy)?);
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Prepared {
    config: SimConfig,
    cycles: usize,
    order: TieOrder,
    warm: Warm,
}

impl Prepared {
    /// Prepares `period` for simulations under `config`.
    pub fn new(period: &Period, config: SimConfig) -> Result<Prepared, SimError> {
        config.check(period)?;
        Ok(Prepared {
            order: TieOrder::new(period, config.seed(), config.warmup() + 1),
            warm: Warm::new(period, &config),
            cycles: period.len(),
            config,
        })
    }
}

/// Runs simulations, reusing its buffers from one run to the next.
#[derive(Debug, Clone)]
pub struct Simulator {
    config: SimConfig,
    fast: Fast,
}

impl Simulator {
    /// A simulator with these settings.
    pub fn new(config: SimConfig) -> Simulator {
        Simulator {
            config,
            fast: Fast::default(),
        }
    }

    /// Tests only: the same simulator with its groups scrambled (`Fast::scramble`), and
    /// every run kept in the grouped simulator (none handed to the per-page one).
    #[cfg(test)]
    pub(crate) fn scrambled(mut self) -> Simulator {
        self.fast.scramble = true;
        self
    }

    /// The same simulator, skipping the weighted sums (the ideal weighted DCG and the fresh
    /// weight, O(P) per cycle) when `metric`, the only one the caller reads, is not
    /// weighted — as a GP fitness does. Their metrics (WNDCG, WFreshness) then read NaN
    /// over a weighted period; the others are unchanged, bit for bit. A bandit, whose
    /// rewards may read them, always tallies them.
    ///
    /// ```
    /// use freshgp_data::data::text;
    /// use freshgp_policy::policy::{Baseline, Policy};
    /// use freshgp_sim::sim::{Period, SimConfig, Simulator};
    /// use freshgp_policy::metric::Metric;
    ///
    /// let lines = "0110\ta\t\tweight=1\n1111\tb\t\tweight=2.5\n0001\tc\t\tweight=0.5\n";
    /// let data = text::read(lines.as_bytes(), "<example>")?;
    /// let period = Period::whole(&data)?;
    /// let config = SimConfig::new(0.5, 2)?;
    /// let policy = Policy::from(Baseline::Nad);
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

    /// Takes other settings for the next runs, keeping its buffers and memos (the MLEs
    /// of the visit histories met so far, which a run's first visits otherwise solve
    /// again): a run gives what a new simulator with these settings gives, bit for bit.
    pub fn set_config(&mut self, config: SimConfig) {
        self.config = config;
    }

    /// Simulates `policy` over `period`.
    ///
    /// # Errors
    /// Settings the period cannot take (a warm-up as long as it, no visit per cycle), or a
    /// learned model that reads the group rate of an attribute the period is not grouped
    /// by, or the oracle over a period without latent change probabilities
    /// ([`check_policy`](super::check_policy)).
    pub fn run(&mut self, period: &Period, policy: &Policy) -> Result<Outcome, SimError> {
        self.config.check(period)?;
        super::check_policy(period, policy)?;
        Ok(match self.config.ties() {
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
        match self.config.ties() {
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
        super::check_policy(period, policy)?;
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
    /// Simulates a run with the per-page simulator, whether or not [`Simulator::run`]
    /// would hand it there (the tests check it on every case).
    pub(crate) fn run_flat(&self, period: &Period, policy: &Policy) -> Outcome {
        super::flat::Flat::default().run(period, policy, &self.config, self.fast.unweighted)
    }
}
