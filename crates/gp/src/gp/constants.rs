//! Local search over a formula's numeric constants: GP finds a formula's shape well and its
//! constants poorly (it can only draw them from a fixed set and combine them), so the best
//! individuals' constants are tuned by the Nelder–Mead simplex method (argmin's
//! `NelderMead`) on the training fitness, as Operon tunes its constants by least squares.
//!
//! Nelder–Mead needs no derivatives, which a crawl's fitness (a step function of the
//! constants: only a change of ranking moves it) does not have. The simplex starts at the
//! formula's constants, each vertex moving one constant by half its size (at least 0.1);
//! every vertex the method tries is one fitness evaluation. A search spends at most
//! [`ConstantSearch::evaluations`] evaluations: once they are spent, every further vertex
//! counts as worthless, so the simplex shrinks onto the best point found and stops at the
//! iteration bound. A point with a non-finite constant is worthless too (a formula's
//! constants are finite). The result is the best formula found, kept only when it is
//! strictly fitter than the start.
//!
//! Everything is deterministic: the simplex, the order of its vertices and the fitness.

use super::{Evaluation, Fitness};
use crate::formula::{Formula, Node};
use argmin::core::{CostFunction, Executor};
use argmin::solver::neldermead::NelderMead;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;

/// How the constants of the best individuals are searched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ConstantSearch {
    /// How many of the best distinct individuals are tuned (0: no search).
    pub individuals: usize,
    /// Fitness evaluations one formula's search may spend.
    pub evaluations: usize,
    /// Tune the population's best individuals every this many generations (the tuned
    /// formulas replace the worst individuals of the next population); 0: only the hall
    /// of fame, once, at the end of the run.
    pub every: usize,
}

impl Default for ConstantSearch {
    /// No search, as in the paper.
    fn default() -> Self {
        ConstantSearch {
            individuals: 0,
            evaluations: 50,
            every: 0,
        }
    }
}

impl ConstantSearch {
    /// Whether any search runs.
    pub fn is_on(&self) -> bool {
        self.individuals > 0
    }
}

/// The positions of a formula's constant nodes, in postfix order.
pub(crate) fn constant_positions(formula: &Formula) -> Vec<usize> {
    formula
        .nodes()
        .iter()
        .enumerate()
        .filter(|(_, n)| matches!(n, Node::Const(_)))
        .map(|(i, _)| i)
        .collect()
}

/// `formula` with the constants at `positions` set to `values`; `None` when a value is
/// not finite.
pub(crate) fn with_constants(
    formula: &Formula,
    positions: &[usize],
    values: &[f64],
) -> Option<Formula> {
    if values.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let mut nodes = formula.nodes().to_vec();
    for (&i, &v) in positions.iter().zip(values) {
        // -0.0 and 0.0 evaluate alike in every operator but division's sign; keep +0.
        nodes[i] = Node::Const(if v == 0.0 { 0.0 } else { v });
    }
    Formula::from_postfix(nodes).ok()
}

/// The search's objective: minus the fitness, counted and bounded.
struct Objective<'a, F: Fitness> {
    fitness: &'a F,
    formula: &'a Formula,
    positions: Vec<usize>,
    budget: usize,
    state: RefCell<Searched<'a, F::Scratch>>,
}

/// What a search has spent and found.
struct Searched<'s, S> {
    scratch: &'s mut S,
    spent: usize,
    best: Option<(Formula, Evaluation)>,
}

impl<F: Fitness> CostFunction for Objective<'_, F> {
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, values: &Vec<f64>) -> Result<f64, argmin::core::Error> {
        let mut state = self.state.borrow_mut();
        if state.spent >= self.budget {
            return Ok(f64::INFINITY);
        }
        let Some(candidate) = with_constants(self.formula, &self.positions, values) else {
            return Ok(f64::INFINITY);
        };
        state.spent += 1;
        let evaluation = self.fitness.evaluate(&candidate, state.scratch);
        let value = evaluation.value;
        let better = state.best.as_ref().is_none_or(|(_, b)| value > b.value);
        if better {
            state.best = Some((candidate, evaluation));
        }
        Ok(if value.is_nan() {
            f64::INFINITY
        } else {
            -value
        })
    }
}

/// The outcome of one formula's search.
#[derive(Debug, Clone)]
pub struct Tuned {
    /// The fittest formula found (the start itself when nothing beat it).
    pub formula: Formula,
    /// Its evaluation.
    pub evaluation: Evaluation,
    /// Fitness evaluations spent.
    pub spent: usize,
    /// Whether the search beat the start.
    pub improved: bool,
}

/// Tunes the constants of `formula`, whose evaluation is `start`, within `budget`
/// evaluations of `fitness`.
pub fn tune<F: Fitness>(
    fitness: &F,
    formula: &Formula,
    start: &Evaluation,
    scratch: &mut F::Scratch,
    budget: usize,
) -> Tuned {
    let unchanged = |spent| Tuned {
        formula: formula.clone(),
        evaluation: start.clone(),
        spent,
        improved: false,
    };
    let positions = constant_positions(formula);
    if positions.is_empty() || budget == 0 {
        return unchanged(0);
    }
    let x0: Vec<f64> = positions
        .iter()
        .map(|&i| match formula.nodes()[i] {
            Node::Const(c) => c,
            _ => 0.0,
        })
        .collect();
    let mut simplex = vec![x0.clone()];
    for k in 0..x0.len() {
        let mut vertex = x0.clone();
        vertex[k] += (0.5 * x0[k].abs()).max(0.1);
        simplex.push(vertex);
    }
    let objective = Objective {
        fitness,
        formula,
        positions,
        budget,
        state: RefCell::new(Searched {
            scratch,
            spent: 0,
            best: None,
        }),
    };
    // Each iteration tries one to n + 2 vertices; once the budget is spent the rest are
    // free (worthless), so an iteration bound of the budget always ends the search.
    let solver = NelderMead::new(simplex);
    // A failed run (argmin's own error) keeps what it found before failing: the best point
    // is recorded by the objective itself, not read from the solver.
    drop(
        Executor::new(&objective, solver)
            .configure(|state| state.max_iters(budget as u64))
            .run(),
    );
    let searched = objective.state.into_inner();
    let spent = searched.spent;
    match searched.best {
        Some((best, evaluation)) if evaluation.value > start.value => Tuned {
            formula: best,
            evaluation,
            spent,
            improved: true,
        },
        _ => unchanged(spent),
    }
}

impl<F: Fitness> CostFunction for &Objective<'_, F> {
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, values: &Vec<f64>) -> Result<f64, argmin::core::Error> {
        (**self).cost(values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formula::Terminal;

    /// Symbolic regression of y = 2.5·t + 7 on t = 0..20: fitness is minus the squared
    /// error, so the constants of `a * t + b` have one best value.
    struct Regression;

    impl Fitness for Regression {
        type Scratch = usize;

        fn scratch(&self) -> usize {
            0
        }

        fn evaluate(&self, formula: &Formula, calls: &mut usize) -> Evaluation {
            *calls += 1;
            let cases: Vec<f64> = (0..20)
                .map(|t| {
                    let mut values = [0.0; Terminal::COUNT];
                    values[Terminal::T.index()] = f64::from(t);
                    let got =
                        crate::eval::interpret(formula, crate::formula::Closure::Paper, &values);
                    let want = 2.5 * f64::from(t) + 7.0;
                    -(got - want) * (got - want)
                })
                .collect();
            Evaluation {
                value: cases.iter().sum::<f64>() / cases.len() as f64,
                cases,
            }
        }
    }

    #[test]
    fn recovers_constants_set_wrong() {
        let wrong: Formula = "1 * t + 1".parse().unwrap();
        let fitness = Regression;
        let mut calls = 0;
        let start = fitness.evaluate(&wrong, &mut calls);
        let tuned = tune(&fitness, &wrong, &start, &mut calls, 400);
        assert!(tuned.improved);
        assert!(tuned.spent <= 400, "{}", tuned.spent);
        assert_eq!(calls, 1 + tuned.spent, "every evaluation is counted");
        let at = constant_positions(&tuned.formula);
        let [a, b] = [at[0], at[1]].map(|i| match tuned.formula.nodes()[i] {
            Node::Const(c) => c,
            _ => panic!("{}", tuned.formula),
        });
        assert!(
            (a - 2.5).abs() < 1e-3 && (b - 7.0).abs() < 1e-2,
            "{}",
            tuned.formula
        );
        assert!(tuned.evaluation.value > -1e-4);
    }

    #[test]
    fn the_budget_bounds_the_evaluations() {
        let wrong: Formula = "1 * t + 1".parse().unwrap();
        let fitness = Regression;
        for budget in [0, 1, 3, 10] {
            let mut calls = 0;
            let start = fitness.evaluate(&wrong, &mut calls);
            let tuned = tune(&fitness, &wrong, &start, &mut calls, budget);
            assert!(
                tuned.spent <= budget && calls == 1 + tuned.spent,
                "{budget}"
            );
        }
        // Nothing to tune: no evaluation.
        let mut calls = 0;
        let plain: Formula = "t".parse().unwrap();
        let start = fitness.evaluate(&plain, &mut calls);
        let tuned = tune(&fitness, &plain, &start, &mut calls, 50);
        assert_eq!((tuned.spent, tuned.improved), (0, false));
    }

    #[test]
    fn constants_are_replaced_in_place() {
        let f: Formula = "log(t + 0.5) * 3".parse().unwrap();
        let at = constant_positions(&f);
        assert_eq!(at.len(), 2);
        let g = with_constants(&f, &at, &[1.5, -0.0]).unwrap();
        assert_eq!(g.to_string(), "log(t + 1.5) * 0");
        assert!(with_constants(&f, &at, &[f64::NAN, 1.0]).is_none());
        assert!(with_constants(&f, &at, &[f64::INFINITY, 1.0]).is_none());
    }
}
