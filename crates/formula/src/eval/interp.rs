//! The reference interpreter: a direct reading of the tree as one [`Formula::fold`],
//! kept simple on purpose so it can serve as the oracle for the compiled evaluator.

use crate::formula::{Closure, Formula, Terminal, Visit};

/// The value of `formula` for one page whose terminal values are `terminals` (indexed by
/// [`Terminal::index`]).
///
/// ```
/// use freshgp_formula::eval::interpret;
/// use freshgp_formula::formula::{Closure, Formula, Terminal};
///
/// let f: Formula = "t / 0 + log(-1)".parse().unwrap();
/// assert_eq!(interpret(&f, Closure::Paper, &[1.0; Terminal::COUNT]), 0.0);
/// ```
pub fn interpret(formula: &Formula, closure: Closure, terminals: &[f64; Terminal::COUNT]) -> f64 {
    formula.fold(|node| match node {
        Visit::Const(c) => c,
        Visit::Var(t) => terminals[t.index()],
        Visit::Unary(op, a) => closure.unary(op, a),
        Visit::Binary(op, a, b) => closure.binary(op, a, b),
    })
}
