//! Python 3 output: `math` from the standard library only.
//!
//! Python raises where IEEE arithmetic returns a special value (`math.exp` overflows,
//! `math.pow` of a negative base or of 0 to a negative power), so the helpers catch those
//! exceptions and return what C's `exp`/`pow` would have.

use super::target::{Imperative, Target};
use crate::formula::ops::Kind;
use crate::formula::ops::{BinaryKind as B, UnaryKind as U};
use crate::formula::Terminal;
use std::fmt::Write;

/// The Python target.
pub(crate) struct Python;

impl Target for Python {
    /// Words that cannot be a function name in Python (a short, practical list).
    const RESERVED: &'static [&'static str] = &[
        "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
        "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
        "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return",
        "try", "while", "with", "yield", "math", "float",
        // A builtin the helpers call: a function of the same name would shadow it.
        "abs",
    ];
    #[cfg(test)]
    const GENERATED: &'static [&'static str] = &["odd", "math", "float", "abs"];
    const COMMENT: &'static str = "#";
    const INFINITY: &'static str = "math.inf";
    const NEG_INFINITY: &'static str = "-math.inf";
}

impl Imperative for Python {
    const SEPARATOR: &'static str = "\n\n";

    fn preamble(&self, _name: &str) -> String {
        "# Arguments may be ints or floats; the result is a float (never NaN).\n\
         import math\n\n\n"
            .to_string()
    }

    fn unnan_helper(&self, name: &str) -> String {
        format!("def {name}_unnan(x):\n    return 0.0 if x != x else x\n")
    }

    fn helper(&self, kind: Kind, name: &str) -> String {
        helper(kind, name)
    }

    fn function_header(&self, name: &str, params: &[Terminal]) -> String {
        let names: Vec<&str> = params.iter().map(|t| t.name()).collect();
        let mut out = format!("def {name}({}):\n", names.join(", "));
        for p in &names {
            let _ = writeln!(out, "    {p} = float({p})");
        }
        out
    }

    fn local_definition(&self, k: usize, value: &str) -> String {
        format!("    v{k} = {value}\n")
    }

    fn function_footer(&self, value: &str) -> String {
        format!("    return {value}\n")
    }
}

fn helper(kind: Kind, name: &str) -> String {
    let n = name;
    match kind {
        Kind::Binary(op @ (B::Add | B::Sub | B::Mul)) => {
            let sym = match op {
                B::Add => "+",
                B::Sub => "-",
                _ => "*",
            };
            format!("def {n}_{}(a, b):\n    return {n}_unnan(a {sym} b)\n", kind.suffix())
        }
        Kind::Unary(U::Neg) => format!("def {n}_neg(a):\n    return -a\n"),
        Kind::Binary(B::DivPaper) => format!(
            "def {n}_div(a, b):\n    if b == 0.0:\n        return 0.0\n    return {n}_unnan(a / b)\n"
        ),
        Kind::Binary(B::DivReference) => format!(
            "def {n}_div(a, b):\n    if abs(b) < 1e-6:\n        return -1e6 if a * b < 0.0 else 1e6\n    return {n}_unnan(a / b)\n"
        ),
        Kind::Unary(U::LogPaper) => {
            format!("def {n}_log(a):\n    return math.log(a) if a > 0.0 else 0.0\n")
        }
        Kind::Unary(U::LogReference) => format!(
            "def {n}_log(a):\n    return math.log(abs(a)) if abs(a) > 1.0 else 0.0\n"
        ),
        Kind::Unary(U::Exp) => format!(
            "def {n}_exp(a):\n    try:\n        return math.exp(a)\n    except OverflowError:\n        return math.inf\n"
        ),
        Kind::Binary(B::Pow) => format!(
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

#[cfg(test)]
mod tests {
    use crate::export::fixtures::export_extended;
    use crate::export::Language;

    #[test]
    fn extended_formula_arguments_in_column_order() {
        let code = export_extended(Language::Python);
        let conversions: String = ["t", "X", "GAD", "w", "tc", "n7", "X7", "HR", "MLE"]
            .iter()
            .map(|p| format!("    {p} = float({p})\n"))
            .collect();
        let opening = format!("\ndef score(t, X, GAD, w, tc, n7, X7, HR, MLE):\n{conversions}");
        assert!(code.contains(&opening), "{code}");
    }
}
