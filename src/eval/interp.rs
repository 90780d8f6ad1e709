//! The reference interpreter: a direct recursive reading of the tree, kept simple on
//! purpose so it can serve as the oracle for the compiled evaluator.

use crate::formula::{Closure, Formula, Node, Terminal};

/// The value of `formula` for one page whose terminal values are `terminals` (indexed by
/// [`Terminal::index`]).
///
/// ```
/// use freshgp::eval::interpret;
/// use freshgp::formula::{Closure, Formula};
///
/// let f: Formula = "t / 0 + log(-1)".parse().unwrap();
/// assert_eq!(interpret(&f, Closure::Paper, &[1.0; 8]), 0.0);
/// ```
pub fn interpret(formula: &Formula, closure: Closure, terminals: &[f64; Terminal::COUNT]) -> f64 {
    value_at(formula, formula.root(), closure, terminals)
}

fn value_at(formula: &Formula, i: usize, closure: Closure, terminals: &[f64; 8]) -> f64 {
    match formula.nodes()[i] {
        Node::Const(c) => c,
        Node::Var(t) => terminals[t.index()],
        Node::Op(op) => {
            let children = formula.children(i);
            if op.arity() == 1 {
                closure.apply1(op, value_at(formula, children[0], closure, terminals))
            } else {
                let a = value_at(formula, children[0], closure, terminals);
                let b = value_at(formula, children[1], closure, terminals);
                closure.apply2(op, a, b)
            }
        }
    }
}
