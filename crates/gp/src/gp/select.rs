//! Choosing the final function among the kept individuals
//! (docs/src/reference/gp.md#choosing-the-final-formula, de Almeida et al. 2007): *Best*
//! takes the highest training fitness; *Sum_σ* maximises `f_train + f_val - σ` and *Avg_σ*
//! maximises `(f_train + f_val) / 2 - σ`, where σ is the standard deviation (population
//! form, dividing by the count) of the per-case values of both sets together. Sum_σ and
//! Avg_σ prefer functions that do well on data they were not evolved on, and steadily so.
//!
//! With parsimony ([`choose_parsimonious`]), each strategy takes instead the smallest
//! candidate whose score is within the noise of the best score: one standard error of the
//! mean of the paired per-case differences between the two (of the training set for Best,
//! of both sets for Sum_σ and Avg_σ), the "one standard error rule" of model selection. [`front`]
//! lists the candidates no other beats on both size and validation fitness.

use super::pareto::{fronts, Point};
use super::Evaluation;
use crate::formula::Formula;
use serde::{Deserialize, Serialize};

/// A selection strategy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// Highest training fitness.
    Best,
    /// Highest `f_train + f_val - σ`.
    SumSigma,
    /// Highest `(f_train + f_val) / 2 - σ`.
    AvgSigma,
}

impl Strategy {
    /// All three, in report order.
    pub const ALL: [Strategy; 3] = [Strategy::Best, Strategy::SumSigma, Strategy::AvgSigma];

    /// Name in reports and JSON (`best`, `sum_sigma`, `avg_sigma`).
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Best => "best",
            Strategy::SumSigma => "sum_sigma",
            Strategy::AvgSigma => "avg_sigma",
        }
    }

    /// The strategy's score of a candidate (higher is better).
    pub fn score(self, c: &Candidate) -> f64 {
        let (train, validation) = (c.train.value, c.validation.value);
        match self {
            Strategy::Best => train,
            Strategy::SumSigma => train + validation - c.sigma(),
            Strategy::AvgSigma => (train + validation) / 2.0 - c.sigma(),
        }
    }
}

/// A kept individual with its training and validation evaluations.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// The formula.
    pub formula: Formula,
    /// Evaluation on the training set.
    pub train: Evaluation,
    /// Evaluation on the validation set.
    pub validation: Evaluation,
    /// Nodes of the formula as reported (simplified).
    pub size: usize,
    /// Whether it is one of the run's seed formulas (the literature's, the user's).
    pub seed: bool,
}

impl Candidate {
    /// The per-case values of both sets together.
    fn both_cases(&self) -> Vec<f64> {
        let (train, validation) = (&self.train.cases, &self.validation.cases);
        train.iter().chain(validation).copied().collect()
    }

    /// Standard deviation of the per-case values of both sets together.
    pub(crate) fn sigma(&self) -> f64 {
        let values = self.both_cases();
        if values.is_empty() {
            return 0.0;
        }
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        (values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n).sqrt()
    }
}

/// The standard error of the mean of `values`, `√(s² / n)` (0 for fewer than two).
fn standard_error(values: &[f64]) -> f64 {
    if values.len() < 2 {
        return 0.0;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let variance = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1.0);
    (variance / n).sqrt()
}

impl Strategy {
    /// The per-case values the strategy's score reads: the training set's for Best, both
    /// sets' for Sum_σ and Avg_σ.
    fn cases(self, c: &Candidate) -> Vec<f64> {
        match self {
            Strategy::Best => c.train.cases.clone(),
            Strategy::SumSigma | Strategy::AvgSigma => c.both_cases(),
        }
    }

    /// The noise of `c`'s score against `best`'s: the standard error of the mean of their
    /// paired per-case differences (both are measured on the same cycles, so what varies
    /// from cycle to cycle for both cancels).
    fn paired_noise(self, c: &Candidate, best: &Candidate) -> f64 {
        paired_error(&self.cases(c), &self.cases(best))
    }

    /// Whether `c`'s score is within the noise of `best`'s: at least `best`'s less the
    /// paired noise.
    pub fn within_noise(self, c: &Candidate, best: &Candidate) -> bool {
        self.score(c) >= self.score(best) - self.paired_noise(c, best)
    }
}

/// The fittest seed formula among `candidates` by `strategy`'s score, if any is a seed.
pub fn best_seed(candidates: &[Candidate], strategy: Strategy) -> Option<&Candidate> {
    candidates
        .iter()
        .filter(|c| c.seed)
        .max_by(|a, b| strategy.score(a).total_cmp(&strategy.score(b)))
}

/// Whether `c` may be chosen: a seed, or a formula whose validation beats the fittest seed's
/// (`seed`) by more than the noise, the standard error of their paired per-cycle
/// differences on the validation set (docs/src/reference/gp.md#choosing-the-final-formula).
/// A search's formula replaces the literature's best only where it shows its gain on data
/// it was not evolved on.
pub fn admissible(c: &Candidate, seed: Option<&Candidate>) -> bool {
    let Some(seed) = seed else {
        return true;
    };
    if c.seed {
        return true;
    }
    c.validation.value - seed.validation.value
        > paired_error(&c.validation.cases, &seed.validation.cases)
}

/// The standard error of the mean of the paired differences `a[i] − b[i]`.
fn paired_error(a: &[f64], b: &[f64]) -> f64 {
    let differences: Vec<f64> = a.iter().zip(b).map(|(a, b)| a - b).collect();
    standard_error(&differences)
}

/// The candidates parsimony chooses among ([`admissible`] ones), by index.
fn admitted(candidates: &[Candidate], strategy: Strategy) -> Vec<usize> {
    let seed = best_seed(candidates, strategy);
    (0..candidates.len())
        .filter(|&i| admissible(&candidates[i], seed))
        .collect()
}

/// The best [`admissible`] candidate by `strategy` (see [`choose`]), which parsimony's
/// noise is measured against.
///
/// # Panics
/// If `candidates` is empty.
pub fn choose_admissible(candidates: &[Candidate], strategy: Strategy) -> usize {
    let admitted = admitted(candidates, strategy);
    let pool: Vec<Candidate> = admitted.iter().map(|&i| candidates[i].clone()).collect();
    // Invariant: a seed is admissible, and without seeds every candidate is.
    admitted[choose(&pool, strategy)]
}

/// Index of the candidate `strategy` picks with parsimony: among the [`admissible`]
/// candidates within the noise of the best of them ([`Strategy::within_noise`]), the
/// smallest, then the higher score, then the earlier one.
///
/// # Panics
/// If `candidates` is empty.
pub fn choose_parsimonious(candidates: &[Candidate], strategy: Strategy) -> usize {
    let best = &candidates[choose_admissible(candidates, strategy)];
    let seed = best_seed(candidates, strategy);
    let mut chosen: Option<usize> = None;
    for (i, c) in candidates.iter().enumerate() {
        if !admissible(c, seed) || !strategy.within_noise(c, best) {
            continue;
        }
        let better = chosen.is_none_or(|k| {
            let k = &candidates[k];
            k.size
                .cmp(&c.size)
                .then(strategy.score(c).total_cmp(&strategy.score(k)))
                == std::cmp::Ordering::Greater
        });
        if better {
            chosen = Some(i);
        }
    }
    // Invariant: the best candidate is within its own noise.
    chosen.expect("the best candidate is within its own noise")
}

/// The candidates on the Pareto front of size (fewer nodes) against validation fitness,
/// smallest first.
pub fn front(candidates: &[Candidate]) -> Vec<usize> {
    let points: Vec<Point> = candidates
        .iter()
        .map(|c| Point {
            fitness: c.validation.value,
            size: c.size,
        })
        .collect();
    let mut first = fronts(&points).into_iter().next().unwrap_or_default();
    first.sort_by_key(|&i| (candidates[i].size, i));
    first
}

/// Index of the candidate `strategy` picks: highest score, then fewer nodes, then the
/// earlier one.
///
/// # Panics
/// If `candidates` is empty.
pub fn choose(candidates: &[Candidate], strategy: Strategy) -> usize {
    assert!(!candidates.is_empty(), "nothing to choose from");
    let mut best = 0;
    for (i, c) in candidates.iter().enumerate().skip(1) {
        let b = &candidates[best];
        let better = strategy
            .score(c)
            .total_cmp(&strategy.score(b))
            .then(b.formula.len().cmp(&c.formula.len()));
        if better == std::cmp::Ordering::Greater {
            best = i;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(text: &str, train: &[f64], validation: &[f64]) -> Candidate {
        let eval = |v: &[f64]| Evaluation {
            value: v.iter().sum::<f64>() / v.len() as f64,
            cases: v.to_vec(),
        };
        let formula: Formula = text.parse().unwrap();
        Candidate {
            seed: false,
            size: formula.len(),
            formula,
            train: eval(train),
            validation: eval(validation),
        }
    }

    #[test]
    fn strategies_pick_as_defined() {
        let steady = candidate("t", &[0.5, 0.5], &[0.5, 0.5]);
        let overfit = candidate("X", &[0.9, 0.7], &[0.1, 0.1]);
        let all = [steady.clone(), overfit.clone()];
        assert_eq!(choose(&all, Strategy::Best), 1);
        assert_eq!(choose(&all, Strategy::SumSigma), 0);
        assert_eq!(choose(&all, Strategy::AvgSigma), 0);
        assert_eq!(steady.sigma(), 0.0);
        // overfit: values 0.9 0.7 0.1 0.1, mean 0.45, squared deviations sum to 0.51.
        assert!((overfit.sigma() - (0.51f64 / 4.0).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn ties_prefer_shorter() {
        let long = candidate("t + 0 * X", &[0.5], &[0.5]);
        let short = candidate("t", &[0.5], &[0.5]);
        assert_eq!(choose(&[long, short], Strategy::Best), 1);
    }

    #[test]
    fn parsimony_takes_the_smallest_within_the_noise() {
        // The best by training is long; a short one differs from it by +0.05 and -0.15 on
        // the two cases (mean -0.05, standard error 0.1): within the noise. Another is far.
        let long = candidate("t * t + X - n / (t + 1)", &[0.5, 0.9], &[0.6, 0.6]);
        let close = candidate("t * X", &[0.55, 0.75], &[0.5, 0.5]);
        let far = candidate("t", &[0.3, 0.3], &[0.9, 0.9]);
        let all = [long.clone(), close, far];
        assert_eq!(choose(&all, Strategy::Best), 0);
        assert_eq!(choose_parsimonious(&all, Strategy::Best), 1);
        // No noise: parsimony is the plain choice.
        let steady = candidate("t * t + X", &[0.6, 0.6], &[0.6, 0.6]);
        let short = candidate("t", &[0.59, 0.59], &[0.6, 0.6]);
        assert_eq!(choose_parsimonious(&[steady, short], Strategy::Best), 0);
        // The noise is paired: a formula 0.02 below the best on every case is not within
        // it, however much the cases vary (their own standard error is 0.3).
        let consistent = candidate("t", &[0.28, 0.88], &[0.6, 0.6]);
        let best = candidate("t * t + X - n", &[0.3, 0.9], &[0.6, 0.6]);
        assert_eq!(choose_parsimonious(&[best, consistent], Strategy::Best), 0);
    }

    #[test]
    fn the_front_trades_size_for_validation() {
        let all = [
            candidate("t * t + X", &[0.5], &[0.7]),
            candidate("t * X", &[0.5], &[0.6]),
            candidate("t * X + n", &[0.5], &[0.5]),
            candidate("t", &[0.5], &[0.4]),
        ];
        assert_eq!(front(&all), [3, 1, 0]);
    }
}
