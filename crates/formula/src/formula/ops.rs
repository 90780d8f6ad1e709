//! Closure: the rules that give every operation a value for every input
//! (docs/src/reference/formulas.md#closure).
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
//! the compiled evaluator, the exporters' and the simplifier's constant folding all call
//! them (through `UnaryKind`/`BinaryKind`, an operator with its closure resolved), which
//! is why they agree bit for bit.

use super::{BinaryOp, UnaryOp};
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
    // The quotient is computed either way (a division by 0 traps nothing), so that a
    // loop of these selects instead of branching, and vectorises.
    let q = unnan(a / b);
    if b == 0.0 {
        0.0
    } else {
        q
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

// `pow` answers the inputs whose value IEEE 754 (C99 Annex F) fixes without the libm
// call, which for some of these goes through errno handling; GP formulas meet them often
// (exponent 0 or 1, base +0 or 1, NaN: a third of the calls in a GP run). The value is
// the call's, bit for bit (`fast_paths_equal_libm`). (The same for `exp`'s overflow and
// underflow slowed its common case more than it saved.)
#[inline(always)]
pub(crate) fn pow(a: f64, b: f64) -> f64 {
    if b == 0.0 || a == 1.0 {
        // pow(x, ±0) = 1 and pow(+1, y) = 1, for every x and y (NaN too).
        1.0
    } else if b == 1.0 {
        // x^1 is x, exactly representable, and pow errs by well under half an ulp.
        unnan(a)
    } else if a.is_nan() || b.is_nan() {
        0.0
    } else if a.to_bits() == 0 {
        // pow(+0, y) = +0 for y > 0 and +inf for y < 0.
        if b > 0.0 {
            0.0
        } else {
            f64::INFINITY
        }
    } else {
        unnan(a.powf(b))
    }
}

/// A unary operator with its closure resolved: what one evaluation step computes. The
/// compiled evaluator and the exporters dispatch on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum UnaryKind {
    Neg,
    LogPaper,
    LogReference,
    Exp,
}

impl UnaryKind {
    /// `op` under `closure`.
    pub(crate) fn of(op: UnaryOp, closure: Closure) -> UnaryKind {
        match (op, closure) {
            (UnaryOp::Neg, _) => UnaryKind::Neg,
            (UnaryOp::Log, Closure::Paper) => UnaryKind::LogPaper,
            (UnaryOp::Log, Closure::Reference) => UnaryKind::LogReference,
            (UnaryOp::Exp, _) => UnaryKind::Exp,
        }
    }

    /// The value of the operation.
    #[inline(always)]
    pub(crate) fn apply(self, a: f64) -> f64 {
        match self {
            UnaryKind::Neg => neg(a),
            UnaryKind::LogPaper => log_paper(a),
            UnaryKind::LogReference => log_reference(a),
            UnaryKind::Exp => exp(a),
        }
    }
}

/// A binary operator with its closure resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum BinaryKind {
    Add,
    Sub,
    Mul,
    DivPaper,
    DivReference,
    Pow,
}

impl BinaryKind {
    /// `op` under `closure`.
    pub(crate) fn of(op: BinaryOp, closure: Closure) -> BinaryKind {
        match (op, closure) {
            (BinaryOp::Add, _) => BinaryKind::Add,
            (BinaryOp::Sub, _) => BinaryKind::Sub,
            (BinaryOp::Mul, _) => BinaryKind::Mul,
            (BinaryOp::Div, Closure::Paper) => BinaryKind::DivPaper,
            (BinaryOp::Div, Closure::Reference) => BinaryKind::DivReference,
            (BinaryOp::Pow, _) => BinaryKind::Pow,
        }
    }

    /// The value of the operation.
    #[inline(always)]
    pub(crate) fn apply(self, a: f64, b: f64) -> f64 {
        match self {
            BinaryKind::Add => add(a, b),
            BinaryKind::Sub => sub(a, b),
            BinaryKind::Mul => mul(a, b),
            BinaryKind::DivPaper => div_paper(a, b),
            BinaryKind::DivReference => div_reference(a, b),
            BinaryKind::Pow => pow(a, b),
        }
    }
}

/// Either kind of resolved operator (binary kinds order first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Kind {
    Binary(BinaryKind),
    Unary(UnaryKind),
}

impl Kind {
    /// Number of operands.
    pub(crate) fn arity(self) -> usize {
        match self {
            Kind::Unary(_) => 1,
            Kind::Binary(_) => 2,
        }
    }
}

impl Closure {
    /// The value of a unary operator under this closure.
    #[inline]
    pub(crate) fn unary(self, op: UnaryOp, a: f64) -> f64 {
        UnaryKind::of(op, self).apply(a)
    }

    /// The value of a binary operator under this closure.
    #[inline]
    pub(crate) fn binary(self, op: BinaryOp, a: f64, b: f64) -> f64 {
        BinaryKind::of(op, self).apply(a, b)
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
    use crate::formula::Op;
    use proptest::prelude::*;

    /// `op` applied to `a` (and `b`, when binary).
    fn apply(closure: Closure, op: Op, a: f64, b: f64) -> f64 {
        match op {
            Op::Unary(op) => closure.unary(op, a),
            Op::Binary(op) => closure.binary(op, a, b),
        }
    }

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
        assert_eq!(p.binary(BinaryOp::Div, 3.0, 0.0), 0.0);
        assert_eq!(p.binary(BinaryOp::Div, 3.0, -0.0), 0.0);
        assert_eq!(p.binary(BinaryOp::Div, 3.0, 2.0), 1.5);
        assert_eq!(p.unary(UnaryOp::Log, 0.0), 0.0);
        assert_eq!(p.unary(UnaryOp::Log, -5.0), 0.0);
        assert_eq!(p.unary(UnaryOp::Log, f64::INFINITY), f64::INFINITY);
        assert_eq!(
            p.binary(BinaryOp::Add, f64::INFINITY, f64::NEG_INFINITY),
            0.0
        );
        assert_eq!(p.binary(BinaryOp::Mul, f64::INFINITY, 0.0), 0.0);
        assert_eq!(p.binary(BinaryOp::Pow, -8.0, 1.0 / 3.0), 0.0);
        assert_eq!(p.binary(BinaryOp::Pow, 0.0, -1.0), f64::INFINITY);
        assert_eq!(p.unary(UnaryOp::Exp, 1000.0), f64::INFINITY);
        assert_eq!(
            p.binary(BinaryOp::Div, f64::INFINITY, f64::INFINITY),
            0.0,
            "inf/inf is NaN in IEEE"
        );
    }

    #[test]
    fn reference_closure_values() {
        let r = Closure::Reference;
        assert_eq!(r.binary(BinaryOp::Div, 3.0, 1e-7), 1e6);
        assert_eq!(r.binary(BinaryOp::Div, -3.0, 1e-7), -1e6);
        assert_eq!(r.binary(BinaryOp::Div, 3.0, -1e-7), -1e6);
        assert_eq!(r.binary(BinaryOp::Div, 0.0, 0.0), 1e6);
        assert_eq!(r.binary(BinaryOp::Div, 3.0, 2.0), 1.5);
        assert_eq!(r.unary(UnaryOp::Log, -std::f64::consts::E), 1.0);
        assert_eq!(r.unary(UnaryOp::Log, 0.5), 0.0);
        assert_eq!(r.unary(UnaryOp::Log, 1.0), 0.0);
        assert_eq!(r.binary(BinaryOp::Pow, -8.0, 0.5), 0.0);
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
                    let v = apply(closure, op, a, b);
                    prop_assert!(!v.is_nan(), "{:?} {} ({a}, {b}) = NaN", closure, op.name());
                }
            }
        }
    }

    /// Inputs around every fast path of `pow`, and others.
    const EDGES: [f64; 34] = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        2.0,
        -3.0,
        3.0,
        -2.0,
        0.5,
        -0.5,
        -2.5,
        1.5,
        9007199254740991.0,
        -9007199254740991.0,
        9007199254740992.0,
        -1e300,
        -4.9e-324 * 3.0,
        1.0 + f64::EPSILON,
        1.0 - f64::EPSILON / 2.0,
        709.78,
        709.79,
        709.8,
        -745.13,
        -745.14,
        -745.15,
        -708.4,
        4.9e-324,
        -4.9e-324,
        f64::MIN_POSITIVE,
        f64::MAX,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -f64::NAN,
    ];

    #[test]
    fn fast_paths_equal_libm() {
        // Opaque operands, so that the compiler cannot fold `powf(x, 1.0)` away itself.
        let libm_pow = |a: f64, b: f64| {
            use std::hint::black_box;
            unnan(black_box(a).powf(black_box(b)))
        };
        for &a in &EDGES {
            for &b in &EDGES {
                let (got, want) = (pow(a, b), libm_pow(a, b));
                assert_eq!(got.to_bits(), want.to_bits(), "pow({a}, {b})");
            }
        }
        // Across the exponent range, the subnormals included.
        let mut x = 4.9e-324f64;
        while x < f64::MAX / 3.0 {
            for a in [x, -x, x * 1.37, -x / 1.37] {
                assert_eq!(
                    pow(a, 1.0).to_bits(),
                    libm_pow(a, 1.0).to_bits(),
                    "pow({a}, 1)"
                );
                assert_eq!(
                    pow(a, 0.0).to_bits(),
                    libm_pow(a, 0.0).to_bits(),
                    "pow({a}, 0)"
                );
                assert_eq!(
                    pow(0.0, a).to_bits(),
                    libm_pow(0.0, a).to_bits(),
                    "pow(0, {a})"
                );
                assert_eq!(
                    pow(1.0, a).to_bits(),
                    libm_pow(1.0, a).to_bits(),
                    "pow(1, {a})"
                );
                for (base, exponent) in [(-0.0, a), (-0.0, a.round()), (a, 0.5), (a, -2.5)] {
                    // Opaque too: with a literal 0.5 the compiler may call `sqrt` instead.
                    let (base, exponent) = std::hint::black_box((base, exponent));
                    assert_eq!(
                        pow(base, exponent).to_bits(),
                        libm_pow(base, exponent).to_bits(),
                        "pow({base}, {exponent})"
                    );
                }
            }
            x *= 3.0;
        }
    }

    proptest! {
        #[test]
        fn pow_equals_libm(a in any::<f64>(), b in any_value()) {
            prop_assert_eq!(pow(a, b).to_bits(), unnan(a.powf(b)).to_bits());
            let one = std::hint::black_box(1.0);
            prop_assert_eq!(pow(a, 1.0).to_bits(), unnan(a.powf(one)).to_bits());
        }
    }

    #[test]
    fn no_nan_on_special_pairs() {
        for closure in [Closure::Paper, Closure::Reference] {
            for &a in &SPECIAL {
                for &b in &SPECIAL {
                    for op in Op::ALL {
                        let v = apply(closure, op, a, b);
                        assert!(!v.is_nan(), "{closure:?} {} ({a}, {b})", op.name());
                    }
                }
            }
        }
    }
}
