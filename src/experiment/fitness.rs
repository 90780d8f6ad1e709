//! The crawl simulation as a GP fitness: the bridge between `sim` and `gp`, which know
//! nothing of each other.
//!
//! A fitness is measured at one budget (the study's resources) or at several training
//! budgets at once (docs/src/reference/gp.md#training-budgets), on one metric or on several
//! (docs/src/reference/gp.md#fitness-over-several-metrics): then a formula's fitness is the
//! mean over the budgets and metrics of its fitness relative to a reference's there (the
//! fittest seed formula's), so that every budget and metric weighs alike whatever its
//! scale. Its cases, which lexicase selection reads, are every scored cycle's values of
//! every budget and metric, each divided by its reference.
//!
//! A top-k crawl reads only the order of the scores, so the fitness
//! [ranks only](crate::gp::Fitness::ranks_only) (the engine evaluates rank forms); a
//! sampled decision reads their size, and it does not.

use crate::formula::{Closure, Formula, Terminal};
use crate::gp::{Evaluation, Fitness};
use crate::metric::Metric;
use crate::policy::{Policy, Predictor, Scorer};
use crate::sim::{Decision, Outcome, Period, Prepared, SimConfig, SimError, Simulator, TieBreak};

/// The simulation at one budget, and what its fitness is divided by.
#[derive(Debug, Clone)]
struct Budget {
    config: SimConfig,
    prepared: Prepared,
    /// The reference fitness of each metric at this budget (1 at a single budget and
    /// metric, or without references).
    reference: Vec<f64>,
}

/// Fitness of a formula: the mean of `metric` over the scored cycles of `period`, or over
/// several budgets or metrics the mean of that relative to a reference at each.
#[derive(Debug, Clone)]
pub struct CrawlFitness {
    period: Period,
    budgets: Vec<Budget>,
    /// The metrics, the fitness's own first.
    metrics: Vec<Metric>,
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
                    reference: vec![1.0],
                })
            })
            .collect::<Result<_, SimError>>()?;
        Ok(CrawlFitness {
            period,
            budgets,
            metrics: vec![metric],
            closure,
            model: None,
        })
    }

    /// The same fitness over `also` besides its own metric (each counted once, in order):
    /// the mean over budgets and metrics of each relative to its reference.
    pub fn with_metrics(mut self, also: &[Metric]) -> CrawlFitness {
        for &m in also {
            if !self.metrics.contains(&m) {
                self.metrics.push(m);
            }
        }
        for b in &mut self.budgets {
            b.reference = vec![1.0; self.metrics.len()];
        }
        self
    }

    /// Whether the fitness is one metric at one budget (the paper's): its value is that
    /// metric's mean, not relative to any reference.
    fn is_single(&self) -> bool {
        self.budgets.len() == 1 && self.metrics.len() == 1
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

    /// Over several budgets or metrics, the same fitness relative to the fittest of
    /// `references` at each budget and metric (a reference fitness that is not positive
    /// counts as 1). At one budget on one metric, or without references, the fitness is
    /// unchanged.
    pub fn relative_to(mut self, references: &[Formula]) -> CrawlFitness {
        if self.is_single() || references.is_empty() {
            return self;
        }
        let mut scratch = self.scratch();
        let bests: Vec<Vec<f64>> = scratch
            .iter_mut()
            .enumerate()
            .map(|(b, sim)| {
                let runs: Vec<Outcome> = references.iter().map(|f| self.run(b, f, sim)).collect();
                (self.metrics.iter())
                    .map(|&m| {
                        runs.iter()
                            .map(|o| o.mean(m))
                            .fold(f64::NEG_INFINITY, f64::max)
                    })
                    .map(|best| if best > 0.0 { best } else { 1.0 })
                    .collect()
            })
            .collect();
        for (budget, best) in self.budgets.iter_mut().zip(bests) {
            budget.reference = best;
        }
        self
    }

    /// The simulated period.
    pub fn period(&self) -> &Period {
        &self.period
    }

    /// The budgets' resources and the reference fitness of the fitness's own metric at
    /// each, in order.
    pub fn references(&self) -> Vec<(f64, f64)> {
        self.budgets
            .iter()
            .map(|b| (b.config.resources(), b.reference[0]))
            .collect()
    }

    /// The metrics, the fitness's own first.
    pub fn metrics(&self) -> &[Metric] {
        &self.metrics
    }

    /// The simulation of `formula` at budget `b`.
    fn run(&self, b: usize, formula: &Formula, sim: &mut Simulator) -> Outcome {
        sim.run_prepared(
            &self.period,
            &policy_of(formula, self.closure, self.model.as_ref()),
            &self.budgets[b].prepared,
        )
    }
}

impl Fitness for CrawlFitness {
    /// One simulator per budget.
    type Scratch = Vec<Simulator>;

    fn scratch(&self) -> Vec<Simulator> {
        // Only the metrics are read: a run skips the weighted sums unless one is weighted.
        let read = (self.metrics.iter().copied())
            .find(|m| m.is_weighted())
            .unwrap_or(self.metrics[0]);
        self.budgets
            .iter()
            .map(|b| Simulator::new(b.config).unweighted(read))
            .collect()
    }

    fn evaluate(&self, formula: &Formula, sims: &mut Vec<Simulator>) -> Evaluation {
        if self.is_single() {
            let outcome = self.run(0, formula, &mut sims[0]);
            let metric = self.metrics[0];
            return Evaluation {
                value: outcome.mean(metric),
                cases: outcome.values(metric),
            };
        }
        let mut total = 0.0;
        let mut cases = Vec::new();
        for (b, sim) in sims.iter_mut().enumerate() {
            let outcome = self.run(b, formula, sim);
            for (&metric, &reference) in self.metrics.iter().zip(&self.budgets[b].reference) {
                total += outcome.mean(metric) / reference;
                cases.extend(outcome.values(metric).into_iter().map(|v| v / reference));
            }
        }
        Evaluation {
            value: total / (self.budgets.len() * self.metrics.len()) as f64,
            cases,
        }
    }

    fn ranks_only(&self) -> bool {
        // The authors' tie order is std::sort's over the scores as computed: only the
        // seeded order is a function of the ranking alone.
        self.budgets
            .iter()
            .all(|b| b.config.decision() == Decision::TopK && b.config.ties() == TieBreak::Seeded)
    }
}

/// The policy of `formula` under `closure`, its `P` (if it reads it) given by `model`.
pub(crate) fn policy_of(formula: &Formula, closure: Closure, model: Option<&Predictor>) -> Policy {
    scorer_of(formula, closure, model).into()
}

/// [`policy_of`] as a scorer (a bandit's arm).
pub(crate) fn scorer_of(formula: &Formula, closure: Closure, model: Option<&Predictor>) -> Scorer {
    let model = model.filter(|_| formula.terminals().contains(&Terminal::P));
    // Invariant: `EvolveSettings::check_model` (a model when the grammar has P) runs
    // before any formula of the grammar is simulated.
    Scorer::formula_with(formula, closure, model).expect("invariant: P has its model")
}
