//! Python 3 output: `math` from the standard library only.
//!
//! Python raises where IEEE arithmetic returns a special value (`math.exp` overflows,
//! `math.pow` of a negative base or of 0 to a negative power), so the helpers catch those
//! exceptions and return what C's `exp`/`pow` would have.

use super::{comment, finite_literal, Kind, Lowered, Operand};
use std::fmt::Write;

fn operand(o: &Operand) -> String {
    match *o {
        Operand::Var(t) => t.name().to_string(),
        Operand::Const(c) if c == f64::INFINITY => "math.inf".to_string(),
        Operand::Const(c) if c == f64::NEG_INFINITY => "-math.inf".to_string(),
        Operand::Const(c) => finite_literal(c),
        Operand::Local(k) => format!("v{k}"),
    }
}

fn helper(kind: Kind, name: &str) -> String {
    let n = name;
    match kind {
        Kind::Add | Kind::Sub | Kind::Mul => {
            let sym = match kind {
                Kind::Add => "+",
                Kind::Sub => "-",
                _ => "*",
            };
            format!("def {n}_{}(a, b):\n    return {n}_unnan(a {sym} b)\n", kind.suffix())
        }
        Kind::Neg => format!("def {n}_neg(a):\n    return -a\n"),
        Kind::DivPaper => format!(
            "def {n}_div(a, b):\n    if b == 0.0:\n        return 0.0\n    return {n}_unnan(a / b)\n"
        ),
        Kind::DivReference => format!(
            "def {n}_div(a, b):\n    if abs(b) < 1e-6:\n        return -1e6 if a * b < 0.0 else 1e6\n    return {n}_unnan(a / b)\n"
        ),
        Kind::LogPaper => {
            format!("def {n}_log(a):\n    return math.log(a) if a > 0.0 else 0.0\n")
        }
        Kind::LogReference => format!(
            "def {n}_log(a):\n    return math.log(abs(a)) if abs(a) > 1.0 else 0.0\n"
        ),
        Kind::Exp => format!(
            "def {n}_exp(a):\n    try:\n        return math.exp(a)\n    except OverflowError:\n        return math.inf\n"
        ),
        Kind::Pow => format!(
            "def {n}_pow(a, b):
    # math.pow raises where C's pow returns inf or NaN (finite arguments only).
    try:
        return {n}_unnan(math.pow(a, b))
    except OverflowError:
        odd = b == math.floor(b) and math.fmod(b, 2.0) != 0.0
        return -math.inf if a < 0.0 and odd else math.inf
    except ValueError:
        if a == 0.0:
            odd = b == math.floor(b) and math.fmod(b, 2.0) != 0.0
            return -math.inf if math.copysign(1.0, a) < 0.0 and odd else math.inf
        return 0.0
"
        ),
    }
}

/// The Python source of `lowered` as function `name`.
pub(crate) fn emit(lowered: &Lowered, name: &str, header: &[String]) -> String {
    let mut out = comment(header, "#");
    out.push_str("# Arguments may be ints or floats; the result is a float (never NaN).\n");
    out.push_str("import math\n\n\n");
    if lowered.needs_unnan() {
        let _ = write!(
            out,
            "def {name}_unnan(x):\n    return 0.0 if x != x else x\n\n\n"
        );
    }
    for &kind in &lowered.kinds {
        out.push_str(&helper(kind, name));
        out.push_str("\n\n");
    }
    let params: Vec<&str> = lowered.params.iter().map(|t| t.name()).collect();
    let _ = writeln!(out, "def {name}({}):", params.join(", "));
    for p in &params {
        let _ = writeln!(out, "    {p} = float({p})");
    }
    for (k, step) in lowered.steps.iter().enumerate() {
        let args: Vec<String> = step.args.iter().map(operand).collect();
        let _ = writeln!(
            out,
            "    v{k} = {name}_{}({})",
            step.kind.suffix(),
            args.join(", ")
        );
    }
    let _ = writeln!(out, "    return {}", operand(&lowered.result));
    out
}
