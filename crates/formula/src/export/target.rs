//! How a language writes the lowered steps: [`Target`] (a literal, an infinity, a
//! terminal, a local, a call), [`Imperative`] (preamble, protected-operator helpers,
//! function header, one local per step, footer), [`emit_function`], the one assembly of
//! Python, C, Java and Rust, and the header comment every export carries.

use super::lower::{Lowered, Operand};
use crate::formula::ops::Kind;
use crate::formula::{Closure, Formula, Grammar, Terminal};

/// How a target language writes operands and operations: a literal, an infinity, a
/// terminal, a local variable, a call of a protected operator. Every export uses these
/// hooks; [`Imperative`] adds the function around them.
pub(crate) trait Target {
    /// Words a function (or a name its code declares, [`Target::declares`]) may not be:
    /// the language's keywords and the library names its code would hide (SQL: compared in
    /// lower case); [`export`](super::export) refuses them.
    const RESERVED: &'static [&'static str];
    /// The names its generated code uses (its library's, its helpers' locals), which no
    /// argument may be: this module's tests check every terminal's name against them.
    #[cfg(test)]
    const GENERATED: &'static [&'static str];
    /// The line-comment marker (`#`, `//`, `--`).
    const COMMENT: &'static str;
    /// The literal for +inf.
    const INFINITY: &'static str;
    /// The literal for -inf.
    const NEG_INFINITY: &'static str;

    /// The names an export of function `name` declares: the function's own (and Java's
    /// class).
    fn declares(name: &str) -> Vec<String> {
        vec![name.to_string()]
    }

    /// A constant (never NaN).
    fn literal(&self, c: f64) -> String {
        any_literal(c, Self::INFINITY, Self::NEG_INFINITY)
    }

    /// A terminal, read from the function's argument.
    fn variable(&self, t: Terminal) -> String {
        t.name().to_string()
    }

    /// The local variable `k` of function `name`.
    fn local(&self, _name: &str, k: usize) -> String {
        format!("v{k}")
    }

    /// `kind` applied to `args`: a call of the helper `<name>_<suffix>`.
    fn call(&self, kind: Kind, name: &str, args: &[String]) -> String {
        format!("{name}_{}({})", kind.suffix(), args.join(", "))
    }

    /// An operand as an expression.
    fn operand(&self, o: &Operand, name: &str) -> String {
        match *o {
            Operand::Var(t) => self.variable(t),
            Operand::Const(c) => self.literal(c),
            Operand::Local(k) => self.local(name, k),
        }
    }
}

/// A language with functions and local variables: everything but SQL. The export is
/// [`emit_function`]: header comment, preamble, the helpers, then the function with one
/// local per step.
pub(crate) trait Imperative: Target {
    /// What separates one helper definition from the next.
    const SEPARATOR: &'static str;

    /// Notes, imports and openings between the header comment and the helpers.
    fn preamble(&self, name: &str) -> String;

    /// The definition of `<name>_unnan` (NaN becomes 0).
    fn unnan_helper(&self, name: &str) -> String;

    /// The definition of the protected operator helper `<name>_<suffix>` for `kind`.
    fn helper(&self, kind: Kind, name: &str) -> String;

    /// The function's opening, taking `params` (and converting them, if needed).
    fn function_header(&self, name: &str, params: &[Terminal]) -> String;

    /// The line that defines local `v<k>` as `value`.
    fn local_definition(&self, k: usize, value: &str) -> String;

    /// The line(s) returning `value` and closing the function (and whatever the preamble
    /// opened).
    fn function_footer(&self, value: &str) -> String;
}

/// The source of `lowered` as function `name` in `target`.
pub(super) fn emit_function<T: Imperative>(
    target: &T,
    lowered: &Lowered,
    name: &str,
    header: &[String],
) -> String {
    let mut out = comment(header, T::COMMENT);
    out.push_str(&target.preamble(name));
    if lowered.needs_unnan() {
        out.push_str(&target.unnan_helper(name));
        out.push_str(T::SEPARATOR);
    }
    for &kind in &lowered.kinds {
        out.push_str(&target.helper(kind, name));
        out.push_str(T::SEPARATOR);
    }
    out.push_str(&target.function_header(name, &lowered.params));
    for (k, step) in lowered.steps.iter().enumerate() {
        let args: Vec<String> = step.args.iter().map(|a| target.operand(a, name)).collect();
        out.push_str(&target.local_definition(k, &target.call(step.kind, name, &args)));
    }
    out.push_str(&target.function_footer(&target.operand(&lowered.result, name)));
    out
}

/// The parameter list of a protected-operator helper: `a`, or `a` and `b`, each declared
/// by `declare` (`double a`, `a: f64`, ...).
pub(crate) fn helper_params(kind: Kind, declare: impl Fn(&str) -> String) -> String {
    let names: &[&str] = if kind.arity() == 1 {
        &["a"]
    } else {
        &["a", "b"]
    };
    names
        .iter()
        .map(|n| declare(n))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A constant's text: `inf` or `neg_inf` for the infinities, else [`finite_literal`].
pub(crate) fn any_literal(c: f64, inf: &str, neg_inf: &str) -> String {
    if c == f64::INFINITY {
        inf.to_string()
    } else if c == f64::NEG_INFINITY {
        neg_inf.to_string()
    } else {
        finite_literal(c)
    }
}

/// Rust's shortest round-trip text of a finite constant (`1.0`, `0.1`, `1e300`, `-0.0`,
/// `5e-324`): valid, exact double literal text in Python, C, Java and Rust.
pub(crate) fn finite_literal(c: f64) -> String {
    debug_assert!(c.is_finite());
    format!("{c:?}")
}

/// The comment lines every export starts with (without comment markers).
pub(super) fn header(formula: &Formula, closure: Closure, lowered: &Lowered) -> Vec<String> {
    let params = if lowered.params.is_empty() {
        "none (the formula reads no terminal)".to_string()
    } else {
        lowered
            .params
            .iter()
            .map(|t| t.name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let rules = match closure {
        Closure::Paper => "x / 0 = 0; log(x) = 0 for x <= 0; any NaN result is 0",
        Closure::Reference => {
            "x / y = +-1e6 when |y| < 1e-6 (sign of x*y, +1e6 when x*y = 0); \
             log(x) = ln|x| for |x| > 1, else 0; any NaN result is 0"
        }
    };
    let text = formula.to_string();
    vec![
        format!(
            "Generated by freshgp {} (`freshgp formula export`).",
            env!("CARGO_PKG_VERSION")
        ),
        format!("Formula: {text}"),
        format!("Closure: {} ({rules}).", closure.name()),
        format!(
            "Arguments: {params} (the terminals the formula reads, in freshgp's column order \
             {}).",
            column_order(&lowered.params)
        ),
        "Constant subexpressions were folded by freshgp with its own operators.".to_string(),
    ]
}

/// The column order the header spells out for a function of `params`: the terminals of
/// GP4C_All (`t n X CG NAD SAD AAD GAD`) when `params` are all among them, as the header
/// always said; else those of GP4C_Extended when they are all among them (as before `P`);
/// else those of GP4C_Predictive (as before `b`); else every terminal (the order of
/// [`Terminal::ALL`]).
pub(super) fn column_order(params: &[Terminal]) -> String {
    let grammar = [Grammar::all(), Grammar::extended(), Grammar::predictive()]
        .into_iter()
        .find(|g| params.iter().all(|&t| g.has_terminal(t)))
        .unwrap_or_else(Grammar::every);
    Terminal::ALL
        .into_iter()
        .filter(|&t| grammar.has_terminal(t))
        .map(Terminal::name)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The header as comment lines with `marker` (`#`, `//`, `--`).
pub(crate) fn comment(header: &[String], marker: &str) -> String {
    header
        .iter()
        .map(|line| format!("{marker} {line}\n"))
        .collect()
}
