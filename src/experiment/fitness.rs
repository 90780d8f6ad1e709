//! The crawl simulation as a GP fitness: the bridge between `sim` and `gp`, which know
//! nothing of each other.

use crate::formula::{Closure, Formula, Terminal};
use crate::gp::{Evaluation, Fitness};
use crate::metric::Metric;
use crate::policy::{Policy, Predictor};
use crate::sim::{Period, Prepared, SimConfig, SimError, Simulator};

/// Fitness of a formula: the mean of `metric` over the scored cycles of `period`.
#[derive(Debug, Clone)]
pub struct CrawlFitness {
    period: Period,
    config: SimConfig,
    metric: Metric,
    closure: Closure,
    prepared: Prepared,
    model: Option<Predictor>,
}

impl CrawlFitness {
    /// Checks that `period` can be simulated with `config`.
    pub fn new(
        period: Period,
        config: SimConfig,
        metric: Metric,
        closure: Closure,
    ) -> Result<CrawlFitness, SimError> {
        let prepared = Prepared::new(&period, config)?;
        Ok(CrawlFitness {
            prepared,
            period,
            config,
            metric,
            closure,
            model: None,
        })
    }

    /// The same fitness, formulas reading `P` given it by `model`.
    ///
    /// # Errors
    /// A model that reads the group rate of an attribute the period is not grouped by.
    pub fn with_model(mut self, model: Option<Predictor>) -> Result<CrawlFitness, SimError> {
        if let Some(m) = &model {
            m.check_grouping(self.period.grouping())?;
        }
        self.model = model;
        Ok(self)
    }

    /// The simulated period.
    pub fn period(&self) -> &Period {
        &self.period
    }
}

impl Fitness for CrawlFitness {
    type Scratch = Simulator;

    fn scratch(&self) -> Simulator {
        // Only `metric` is read: a run skips the weighted sums unless it is weighted.
        Simulator::new(self.config).unweighted(self.metric)
    }

    fn evaluate(&self, formula: &Formula, sim: &mut Simulator) -> Evaluation {
        let outcome = sim.run_prepared(
            &self.period,
            &policy_of(formula, self.closure, self.model.as_ref()),
            &self.prepared,
        );
        Evaluation {
            value: outcome.mean(self.metric),
            cases: outcome.values(self.metric),
        }
    }
}

/// The policy of `formula` under `closure`, its `P` (if it reads it) given by `model`.
pub(crate) fn policy_of(formula: &Formula, closure: Closure, model: Option<&Predictor>) -> Policy {
    let model = model.filter(|_| formula.terminals().contains(&Terminal::P));
    // Invariant: `EvolveSettings::check_model` (a model when the grammar has P) runs
    // before any formula of the grammar is simulated.
    Policy::formula_with(formula, closure, model).expect("invariant: P has its model")
}
