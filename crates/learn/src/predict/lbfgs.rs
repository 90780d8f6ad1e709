//! The L-BFGS minimizer both the streamed logistic regression and the stale model use:
//! argmin's L-BFGS with 10 corrections and the Moré–Thuente line search (linfa-logistic's
//! own solver), over an [`Objective`] whose one evaluation gives the value and the
//! gradient together. argmin asks for the cost and then the gradient at the same point;
//! the gradient of the point last costed is kept, so each point costs one evaluation.

use argmin::core::{CostFunction, Executor, Gradient, State};
use argmin::solver::{linesearch::MoreThuenteLineSearch, quasinewton::LBFGS};
use std::cell::RefCell;

/// A function to minimize.
pub(crate) trait Objective {
    /// The value at `w` and its gradient.
    fn evaluate(&self, w: &[f64]) -> (f64, Vec<f64>);
}

/// An objective, with the last point evaluated and the gradient there.
struct Problem<'o, O> {
    objective: &'o O,
    last: RefCell<Option<(Vec<f64>, Vec<f64>)>>,
}

impl<O: Objective> CostFunction for Problem<'_, O> {
    type Param = ndarray::Array1<f64>;
    type Output = f64;

    fn cost(&self, w: &Self::Param) -> Result<f64, argmin::core::Error> {
        let w = w.to_vec();
        let (value, g) = self.objective.evaluate(&w);
        *self.last.borrow_mut() = Some((w, g));
        Ok(value)
    }
}

impl<O: Objective> Gradient for Problem<'_, O> {
    type Param = ndarray::Array1<f64>;
    type Gradient = ndarray::Array1<f64>;

    fn gradient(&self, w: &Self::Param) -> Result<Self::Gradient, argmin::core::Error> {
        let w = w.to_vec();
        if let Some((_, g)) = self.last.borrow().as_ref().filter(|(at, _)| *at == w) {
            return Ok(ndarray::Array1::from_vec(g.clone()));
        }
        Ok(ndarray::Array1::from_vec(self.objective.evaluate(&w).1))
    }
}

/// The best point L-BFGS finds from `start`, stopping when the gradient's norm is below
/// `tolerance` or after `max_iters` iterations.
///
/// # Errors
/// The solver's failure, as text.
pub(crate) fn minimize<O: Objective>(
    objective: &O,
    start: Vec<f64>,
    tolerance: f64,
    max_iters: u64,
) -> Result<Vec<f64>, String> {
    let problem = Problem {
        objective,
        last: RefCell::new(None),
    };
    let solver = LBFGS::new(MoreThuenteLineSearch::new(), 10)
        .with_tolerance_grad(tolerance)
        .map_err(|e| e.to_string())?;
    let result = Executor::new(problem, solver)
        .configure(|state| {
            state
                .param(ndarray::Array1::from_vec(start))
                .max_iters(max_iters)
        })
        .run()
        .map_err(|e| e.to_string())?;
    result
        .state()
        .get_best_param()
        .map(|p| p.to_vec())
        .ok_or_else(|| "L-BFGS kept no parameters".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A quadratic bowl `(w0 − 1)² + 2(w1 + 3)²` is minimized at (1, −3).
    #[test]
    fn a_bowl_is_minimized() {
        struct Bowl;
        impl Objective for Bowl {
            fn evaluate(&self, w: &[f64]) -> (f64, Vec<f64>) {
                let (a, b) = (w[0] - 1.0, w[1] + 3.0);
                (a * a + 2.0 * b * b, vec![2.0 * a, 4.0 * b])
            }
        }
        let w = minimize(&Bowl, vec![0.0, 0.0], 1e-10, 100).unwrap();
        assert!(
            (w[0] - 1.0).abs() < 1e-8 && (w[1] + 3.0).abs() < 1e-8,
            "{w:?}"
        );
    }
}
