//! The crawl simulation as a GP fitness: the bridge between `sim` and `gp`, which know
//! nothing of each other.
//!
//! A fitness is measured at one budget (the study's resources) or at several training
//! budgets at once (docs/src/reference/gp.md#training-budgets): then a formula's fitness is
//! the mean over the budgets of its fitness relative to a reference's at that budget (the
//! fittest seed formula's), so that every budget weighs alike whatever its metric's scale.

use crate::formula::{Closure, Formula, Terminal};
use crate::gp::{Evaluation, Fitness};
use crate::metric::Metric;
use crate::policy::{Policy, Predictor};
use crate::sim::{Period, Prepared, SimConfig, SimError, Simulator};

/// The simulation at one budget, and what its fitness is divided by.
#[derive(Debug, Clone)]
struct Budget {
    config: SimConfig,
    prepared: Prepared,
    /// The reference fitness at this budget (1 at a single budget).
    reference: f64,
}

/// Fitness of a formula: the mean of `metric` over the scored cycles of `period`, or over
/// several budgets the mean of that relative to a reference at each.
#[derive(Debug, Clone)]
pub struct CrawlFitness {
    period: Period,
    budgets: Vec<Budget>,
    metric: Metric,
    closure: Closure,
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
        CrawlFitness::over_budgets(period, config, &[], metric, closure)
    }

    /// The fitness at each of `resources` (`config`'s own when empty), `config`'s other
    /// settings (host cap, warm-up, ties) kept. Until [`CrawlFitness::relative_to`] sets the
    /// references, the fitness is the mean over the budgets of the metric's mean.
    ///
    /// # Errors
    /// A budget outside (0, 1], or a period that cannot be simulated at one of them.
    pub fn over_budgets(
        period: Period,
        config: SimConfig,
        resources: &[f64],
        metric: Metric,
        closure: Closure,
    ) -> Result<CrawlFitness, SimError> {
        let configs: Vec<SimConfig> = if resources.is_empty() {
            vec![config]
        } else {
            resources
                .iter()
                .map(|&r| config.with_resources(r))
                .collect::<Result<_, _>>()?
        };
        let budgets = configs
            .into_iter()
            .map(|config| {
                Ok(Budget {
                    prepared: Prepared::new(&period, config)?,
                    config,
                    reference: 1.0,
                })
            })
            .collect::<Result<_, SimError>>()?;
        Ok(CrawlFitness {
            period,
            budgets,
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

    /// Over several budgets, the same fitness relative to the fittest of `references` at
    /// each budget (a reference fitness that is not positive counts as 1). At one budget,
    /// or without references, the fitness is unchanged.
    pub fn relative_to(mut self, references: &[Formula]) -> CrawlFitness {
        if self.budgets.len() < 2 || references.is_empty() {
            return self;
        }
        let mut scratch = self.scratch();
        let bests: Vec<f64> = scratch
            .iter_mut()
            .enumerate()
            .map(|(b, sim)| {
                references
                    .iter()
                    .map(|f| self.at_budget(b, f, sim).0)
                    .fold(f64::NEG_INFINITY, f64::max)
            })
            .collect();
        for (budget, best) in self.budgets.iter_mut().zip(bests) {
            budget.reference = if best > 0.0 { best } else { 1.0 };
        }
        self
    }

    /// The simulated period.
    pub fn period(&self) -> &Period {
        &self.period
    }

    /// The budgets' resources and reference fitnesses, in order.
    pub fn references(&self) -> Vec<(f64, f64)> {
        self.budgets
            .iter()
            .map(|b| (b.config.resources(), b.reference))
            .collect()
    }

    /// The mean of the metric and its per-cycle values at budget `b`.
    fn at_budget(&self, b: usize, formula: &Formula, sim: &mut Simulator) -> (f64, Vec<f64>) {
        let outcome = sim.run_prepared(
            &self.period,
            &policy_of(formula, self.closure, self.model.as_ref()),
            &self.budgets[b].prepared,
        );
        (outcome.mean(self.metric), outcome.values(self.metric))
    }
}

impl Fitness for CrawlFitness {
    /// One simulator per budget.
    type Scratch = Vec<Simulator>;

    fn scratch(&self) -> Vec<Simulator> {
        // Only `metric` is read: a run skips the weighted sums unless it is weighted.
        self.budgets
            .iter()
            .map(|b| Simulator::new(b.config).unweighted(self.metric))
            .collect()
    }

    fn evaluate(&self, formula: &Formula, sims: &mut Vec<Simulator>) -> Evaluation {
        if self.budgets.len() == 1 {
            let (value, cases) = self.at_budget(0, formula, &mut sims[0]);
            return Evaluation { value, cases };
        }
        let mut total = 0.0;
        let mut cases = Vec::new();
        for (b, sim) in sims.iter_mut().enumerate() {
            let reference = self.budgets[b].reference;
            let (value, values) = self.at_budget(b, formula, sim);
            total += value / reference;
            cases.extend(values.into_iter().map(|v| v / reference));
        }
        Evaluation {
            value: total / self.budgets.len() as f64,
            cases,
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
