//! A formula lowered for export: one fold (constant parts folded with the closure, as
//! the compiled evaluator does) to [`Step`]s, one per remaining operator, each reading
//! [`Operand`]s — what every target writes out.

use crate::formula::ops::{BinaryKind, Kind, UnaryKind};
use crate::formula::{Closure, Formula, Terminal, Visit};

/// The arguments of the function that [`export`](super::export) writes for `formula`, in
/// order: the terminals the formula reads, each once, in column order (the order of
/// [`Terminal::ALL`]; see the [module documentation](super)). For SQL, the columns of
/// `pages` the query reads.
pub fn arguments(formula: &Formula) -> Vec<Terminal> {
    formula.terminals()
}

impl Kind {
    /// The helper's name suffix: `<name>_<suffix>`.
    pub(crate) fn suffix(self) -> &'static str {
        match self {
            Kind::Binary(BinaryKind::Add) => "add",
            Kind::Binary(BinaryKind::Sub) => "sub",
            Kind::Binary(BinaryKind::Mul) => "mul",
            Kind::Binary(BinaryKind::DivPaper | BinaryKind::DivReference) => "div",
            Kind::Binary(BinaryKind::Pow) => "pow",
            Kind::Unary(UnaryKind::Neg) => "neg",
            Kind::Unary(UnaryKind::LogPaper | UnaryKind::LogReference) => "log",
            Kind::Unary(UnaryKind::Exp) => "exp",
        }
    }
}

/// Where an operand's value comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Operand {
    /// A function argument.
    Var(Terminal),
    /// A constant (never NaN).
    Const(f64),
    /// The local variable `v<k>`.
    Local(usize),
}

/// One local variable: `v<k> = kind(args)`.
#[derive(Clone, Debug)]
pub(crate) struct Step {
    pub(crate) kind: Kind,
    pub(crate) args: Vec<Operand>,
    /// Height of the node once constant subtrees are folded: 1 for an operator whose
    /// operands are all leaves. SQL computes each height in one table expression.
    pub(crate) level: usize,
}

/// A formula as a straight-line program: what every target prints.
#[derive(Clone, Debug)]
pub(crate) struct Lowered {
    /// The function's arguments, in column order ([`arguments`]).
    pub(crate) params: Vec<Terminal>,
    pub(crate) steps: Vec<Step>,
    pub(crate) result: Operand,
    /// The helpers the steps call, each once, in a fixed order.
    pub(crate) kinds: Vec<Kind>,
}

impl Lowered {
    /// One [`Formula::fold`]: constant operations fold with the closure's own functions;
    /// every other operator becomes the next step.
    pub(super) fn new(formula: &Formula, closure: Closure) -> Lowered {
        let mut steps: Vec<Step> = Vec::new();
        let result = formula.fold(|node| {
            let (kind, args) = match node {
                Visit::Const(c) => return Operand::Const(c),
                Visit::Var(t) => return Operand::Var(t),
                Visit::Unary(op, Operand::Const(a)) => return Operand::Const(closure.unary(op, a)),
                Visit::Binary(op, Operand::Const(a), Operand::Const(b)) => {
                    return Operand::Const(closure.binary(op, a, b))
                }
                Visit::Unary(op, a) => (Kind::Unary(UnaryKind::of(op, closure)), vec![a]),
                Visit::Binary(op, a, b) => (Kind::Binary(BinaryKind::of(op, closure)), vec![a, b]),
            };
            let level_of = |o: &Operand| match *o {
                Operand::Local(k) => steps[k].level,
                _ => 0,
            };
            let level = 1 + args.iter().map(level_of).max().unwrap_or(0);
            steps.push(Step { kind, args, level });
            Operand::Local(steps.len() - 1)
        });
        let mut kinds: Vec<Kind> = steps.iter().map(|s| s.kind).collect();
        kinds.sort();
        kinds.dedup();
        Lowered {
            params: arguments(formula),
            steps,
            result,
            kinds,
        }
    }

    /// Whether the `unnan` helper is needed (by any binary operator or `exp`).
    pub(crate) fn needs_unnan(&self) -> bool {
        self.kinds.iter().any(|k| {
            !matches!(
                k,
                Kind::Unary(UnaryKind::Neg | UnaryKind::LogPaper | UnaryKind::LogReference)
            )
        })
    }
}
