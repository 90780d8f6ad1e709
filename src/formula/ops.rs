//! Closure: the rules that give every operation a value for every input (SPEC §5).
//!
//! GP composes operators blindly, so `log` of a negative number or a division by zero
//! must still produce a number. Two operator sets exist:
//!
//! * [`Closure::Paper`] (the default): `x / 0 = 0`; `log(x) = 0` for `x <= 0`; any
//!   operation whose IEEE result would be NaN returns 0. ±inf are legal values.
//! * [`Closure::Reference`]: as the authors' C++ behaved: `x / y = ±1e6` when
//!   `|y| < 1e-6` (sign of `x·y`, `+1e6` when `x·y = 0`); `log(x) = ln|x|` for `|x| > 1`,
//!   else 0; `exp` and `pow` unprotected except NaN → 0.
//!
//! Under both, no operation returns NaN, whatever its inputs (property-tested).
//! These scalar functions are the single definition of each operator: the interpreter,
//! the compiled evaluator and the simplifier's constant folding all call them, which is
//! why they agree bit for bit.

use super::Op;
use serde::{Deserialize, Serialize};

/// Which protected-operator rules a formula is evaluated under.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Closure {
    /// The paper's semantics (default).
    #[default]
    Paper,
    /// The authors' reference implementation's operator set.
    Reference,
}

/// NaN becomes 0; everything else (including ±inf) passes.
#[inline(always)]
pub(crate) fn unnan(x: f64) -> f64 {
    if x.is_nan() {
        0.0
    } else {
        x
    }
}

#[inline(always)]
pub(crate) fn add(a: f64, b: f64) -> f64 {
    unnan(a + b)
}

#[inline(always)]
pub(crate) fn sub(a: f64, b: f64) -> f64 {
    unnan(a - b)
}

#[inline(always)]
pub(crate) fn mul(a: f64, b: f64) -> f64 {
    unnan(a * b)
}

#[inline(always)]
pub(crate) fn neg(a: f64) -> f64 {
    unnan(-a)
}

#[inline(always)]
pub(crate) fn div_paper(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        0.0
    } else {
        unnan(a / b)
    }
}

#[inline(always)]
pub(crate) fn div_reference(a: f64, b: f64) -> f64 {
    if b.abs() < 1e-6 {
        if a * b < 0.0 {
            -1e6
        } else {
            1e6
        }
    } else {
        unnan(a / b)
    }
}

#[inline(always)]
pub(crate) fn log_paper(a: f64) -> f64 {
    // `a > 0` is false for NaN too.
    if a > 0.0 {
        a.ln()
    } else {
        0.0
    }
}

#[inline(always)]
pub(crate) fn log_reference(a: f64) -> f64 {
    if a.abs() > 1.0 {
        a.abs().ln()
    } else {
        0.0
    }
}

#[inline(always)]
pub(crate) fn exp(a: f64) -> f64 {
    unnan(a.exp())
}

#[inline(always)]
pub(crate) fn pow(a: f64, b: f64) -> f64 {
    unnan(a.powf(b))
}

/// An operator with its closure resolved: what one evaluation step computes. The
/// compiled evaluator and the exporters both dispatch on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Kind {
    Add,
    Sub,
    Mul,
    DivPaper,
    DivReference,
    Pow,
    Neg,
    LogPaper,
    LogReference,
    Exp,
}

impl Kind {
    /// `op` under `closure`.
    pub(crate) fn of(op: Op, closure: Closure) -> Kind {
        match (op, closure) {
            (Op::Add, _) => Kind::Add,
            (Op::Sub, _) => Kind::Sub,
            (Op::Mul, _) => Kind::Mul,
            (Op::Div, Closure::Paper) => Kind::DivPaper,
            (Op::Div, Closure::Reference) => Kind::DivReference,
            (Op::Pow, _) => Kind::Pow,
            (Op::Neg, _) => Kind::Neg,
            (Op::Log, Closure::Paper) => Kind::LogPaper,
            (Op::Log, Closure::Reference) => Kind::LogReference,
            (Op::Exp, _) => Kind::Exp,
        }
    }

    /// Number of operands.
    pub(crate) fn arity(self) -> usize {
        match self {
            Kind::Neg | Kind::LogPaper | Kind::LogReference | Kind::Exp => 1,
            _ => 2,
        }
    }

    /// The value of a unary kind.
    #[inline(always)]
    pub(crate) fn scalar1(self, a: f64) -> f64 {
        match self {
            Kind::Neg => neg(a),
            Kind::LogPaper => log_paper(a),
            Kind::LogReference => log_reference(a),
            Kind::Exp => exp(a),
            _ => unreachable!("unary kinds only"),
        }
    }

    /// The value of a binary kind.
    #[inline(always)]
    pub(crate) fn scalar2(self, a: f64, b: f64) -> f64 {
        match self {
            Kind::Add => add(a, b),
            Kind::Sub => sub(a, b),
            Kind::Mul => mul(a, b),
            Kind::DivPaper => div_paper(a, b),
            Kind::DivReference => div_reference(a, b),
            Kind::Pow => pow(a, b),
            _ => unreachable!("binary kinds only"),
        }
    }
}

impl Closure {
    /// The value of a unary operator.
    ///
    /// # Panics
    /// If `op` is binary.
    #[inline]
    pub fn apply1(self, op: Op, a: f64) -> f64 {
        match (op, self) {
            (Op::Neg, _) => neg(a),
            (Op::Exp, _) => exp(a),
            (Op::Log, Closure::Paper) => log_paper(a),
            (Op::Log, Closure::Reference) => log_reference(a),
            _ => panic!("`{}` is not unary", op.name()),
        }
    }

    /// The value of a binary operator.
    ///
    /// # Panics
    /// If `op` is unary.
    #[inline]
    pub fn apply2(self, op: Op, a: f64, b: f64) -> f64 {
        match (op, self) {
            (Op::Add, _) => add(a, b),
            (Op::Sub, _) => sub(a, b),
            (Op::Mul, _) => mul(a, b),
            (Op::Pow, _) => pow(a, b),
            (Op::Div, Closure::Paper) => div_paper(a, b),
            (Op::Div, Closure::Reference) => div_reference(a, b),
            _ => panic!("`{}` is not binary", op.name()),
        }
    }

    /// The name used in grammar files: `Paper` or `Reference`.
    pub fn name(self) -> &'static str {
        match self {
            Closure::Paper => "Paper",
            Closure::Reference => "Reference",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const SPECIAL: [f64; 12] = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -2.5,
        1e-300,
        1e300,
        -1e300,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MIN_POSITIVE,
    ];

    #[test]
    fn paper_closure_values() {
        let p = Closure::Paper;
        assert_eq!(p.apply2(Op::Div, 3.0, 0.0), 0.0);
        assert_eq!(p.apply2(Op::Div, 3.0, -0.0), 0.0);
        assert_eq!(p.apply2(Op::Div, 3.0, 2.0), 1.5);
        assert_eq!(p.apply1(Op::Log, 0.0), 0.0);
        assert_eq!(p.apply1(Op::Log, -5.0), 0.0);
        assert_eq!(p.apply1(Op::Log, f64::INFINITY), f64::INFINITY);
        assert_eq!(p.apply2(Op::Add, f64::INFINITY, f64::NEG_INFINITY), 0.0);
        assert_eq!(p.apply2(Op::Mul, f64::INFINITY, 0.0), 0.0);
        assert_eq!(p.apply2(Op::Pow, -8.0, 1.0 / 3.0), 0.0);
        assert_eq!(p.apply2(Op::Pow, 0.0, -1.0), f64::INFINITY);
        assert_eq!(p.apply1(Op::Exp, 1000.0), f64::INFINITY);
        assert_eq!(
            p.apply2(Op::Div, f64::INFINITY, f64::INFINITY),
            0.0,
            "inf/inf is NaN in IEEE"
        );
    }

    #[test]
    fn reference_closure_values() {
        let r = Closure::Reference;
        assert_eq!(r.apply2(Op::Div, 3.0, 1e-7), 1e6);
        assert_eq!(r.apply2(Op::Div, -3.0, 1e-7), -1e6);
        assert_eq!(r.apply2(Op::Div, 3.0, -1e-7), -1e6);
        assert_eq!(r.apply2(Op::Div, 0.0, 0.0), 1e6);
        assert_eq!(r.apply2(Op::Div, 3.0, 2.0), 1.5);
        assert_eq!(r.apply1(Op::Log, -std::f64::consts::E), 1.0);
        assert_eq!(r.apply1(Op::Log, 0.5), 0.0);
        assert_eq!(r.apply1(Op::Log, 1.0), 0.0);
        assert_eq!(r.apply2(Op::Pow, -8.0, 0.5), 0.0);
    }

    fn any_value() -> impl Strategy<Value = f64> {
        prop_oneof![
            proptest::sample::select(SPECIAL.to_vec()),
            any::<f64>().prop_filter("NaN is never an input", |x| !x.is_nan()),
            -1e3..1e3f64,
        ]
    }

    proptest! {
        #[test]
        fn no_operation_yields_nan(a in any_value(), b in any_value()) {
            for closure in [Closure::Paper, Closure::Reference] {
                for op in Op::ALL {
                    let v = if op.arity() == 1 { closure.apply1(op, a) } else { closure.apply2(op, a, b) };
                    prop_assert!(!v.is_nan(), "{:?} {} ({a}, {b}) = NaN", closure, op.name());
                }
            }
        }
    }

    #[test]
    fn no_nan_on_special_pairs() {
        for closure in [Closure::Paper, Closure::Reference] {
            for &a in &SPECIAL {
                for &b in &SPECIAL {
                    for op in Op::ALL {
                        let v = if op.arity() == 1 {
                            closure.apply1(op, a)
                        } else {
                            closure.apply2(op, a, b)
                        };
                        assert!(!v.is_nan(), "{closure:?} {} ({a}, {b})", op.name());
                    }
                }
            }
        }
    }
}
