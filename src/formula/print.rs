//! Printing formulas: the text syntax (with the fewest parentheses that parse back to the
//! same tree) and LaTeX.
//!
//! Printing is one forward pass over the postfix nodes with a stack of printed operands,
//! so it never recurses, whatever the depth. Precedence levels, loosest first:
//! `+ -` (1), `* /` (2), unary minus and negative constants (3), `^` (4), atoms (5).
//!
//! The printed text never nests parentheses, function calls, unary minus and `^` deeper
//! than any text that reads as the same formula, so whatever [`Formula::parse`] accepted
//! prints as text it accepts again (the parser refuses nesting deeper than
//! [`MAX_NESTING`](super::MAX_NESTING); a formula built deeper than that by other means
//! prints, but does not parse back).
//!
//! ```
//! use freshgp::formula::Formula;
//!
//! let f: Formula = "((t * X) ^ (100.1))".parse().unwrap();
//! assert_eq!(f.to_string(), "(t * X)^100.1");
//! assert_eq!(f.to_string().parse::<Formula>().unwrap(), f);
//! ```

use super::{Formula, Node, Op};
use std::fmt;

const SUM: u8 = 1;
const PRODUCT: u8 = 2;
const UNARY: u8 = 3;
const POWER: u8 = 4;
const ATOM: u8 = 5;

/// The shortest text that reads back as exactly `c`.
pub(crate) fn constant_text(c: f64) -> String {
    if c == std::f64::consts::E {
        return "e".to_string();
    }
    let plain = format!("{c}");
    let scientific = format!("{c:e}");
    if plain.len() <= scientific.len() + 3 {
        plain
    } else {
        scientific
    }
}

fn constant_precedence(c: f64) -> u8 {
    if c.is_sign_negative() {
        UNARY
    } else {
        ATOM
    }
}

fn wrap(text: String, needs: bool) -> String {
    if needs {
        format!("({text})")
    } else {
        text
    }
}

impl fmt::Display for Formula {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut stack: Vec<(String, u8)> = Vec::with_capacity(self.stack_depth());
        for node in self.nodes() {
            let printed = match *node {
                Node::Const(c) => (constant_text(c), constant_precedence(c)),
                Node::Var(t) => (t.name().to_string(), ATOM),
                Node::Op(op) if op.arity() == 1 => {
                    let (a, pa) = stack.pop().expect("well-shaped");
                    match op {
                        Op::Neg => {
                            // `-2` would read back as the constant -2: parenthesise
                            // literals. A negation or negative constant needs none (`--x`,
                            // `--2`): `-(-x)` would nest twice as deep as the text it was
                            // read from, and a long chain of them would not parse back.
                            let literal = pa == ATOM && a.starts_with(|c: char| c.is_ascii_digit());
                            (format!("-{}", wrap(a, pa < UNARY || literal)), UNARY)
                        }
                        Op::Log => (format!("log({a})"), ATOM),
                        Op::Exp => (format!("exp({a})"), ATOM),
                        _ => unreachable!("unary operators are neg, log, exp"),
                    }
                }
                Node::Op(op) => {
                    let (b, pb) = stack.pop().expect("well-shaped");
                    let (a, pa) = stack.pop().expect("well-shaped");
                    match op {
                        // An exponent that needs parentheses is written `pow(a, b)`:
                        // `a^(b + c)` nests two levels (`^`, `(`) where `pow(` nests one,
                        // and printing must never nest deeper than the text it was read
                        // from, or a deep formula that parsed would not parse back.
                        Op::Pow if pb < UNARY => (format!("pow({a}, {b})"), ATOM),
                        Op::Pow => (format!("{}^{b}", wrap(a, pa <= POWER)), POWER),
                        Op::Mul | Op::Div => (
                            format!(
                                "{} {} {}",
                                wrap(a, pa < PRODUCT),
                                if op == Op::Mul { '*' } else { '/' },
                                wrap(b, pb <= PRODUCT)
                            ),
                            PRODUCT,
                        ),
                        Op::Add | Op::Sub => (
                            format!(
                                "{} {} {}",
                                a,
                                if op == Op::Add { '+' } else { '-' },
                                wrap(b, pb <= SUM)
                            ),
                            SUM,
                        ),
                        _ => unreachable!("binary operators are + - * / ^"),
                    }
                }
            };
            stack.push(printed);
        }
        let (text, _) = stack.pop().expect("well-shaped");
        f.write_str(&text)
    }
}

/// A formula printed as LaTeX math (without surrounding `$`).
///
/// ```
/// use freshgp::formula::{Formula, Latex};
///
/// let f: Formula = "1 - exp(-NAD * t)".parse().unwrap();
/// assert_eq!(Latex(&f).to_string(), r"1 - e^{-\mathit{NAD} \cdot t}");
/// ```
pub struct Latex<'a>(pub &'a Formula);

fn latex_constant(c: f64) -> String {
    let text = constant_text(c);
    match text.split_once('e') {
        Some((mantissa, exponent)) if !mantissa.is_empty() => {
            format!(r"{mantissa} \times 10^{{{exponent}}}")
        }
        _ => text,
    }
}

fn latex_wrap(text: String, needs: bool) -> String {
    if needs {
        format!(r"\left({text}\right)")
    } else {
        text
    }
}

impl fmt::Display for Latex<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut stack: Vec<(String, u8)> = Vec::with_capacity(self.0.stack_depth());
        for node in self.0.nodes() {
            let printed = match *node {
                Node::Const(c) => (latex_constant(c), constant_precedence(c)),
                Node::Var(t) if t.name().len() > 1 => (format!(r"\mathit{{{}}}", t.name()), ATOM),
                Node::Var(t) => (t.name().to_string(), ATOM),
                Node::Op(op) if op.arity() == 1 => {
                    let (a, pa) = stack.pop().expect("well-shaped");
                    match op {
                        Op::Neg => (format!("-{}", latex_wrap(a, pa <= UNARY)), UNARY),
                        Op::Log => (format!(r"\log\left({a}\right)"), ATOM),
                        Op::Exp => (format!("e^{{{a}}}"), POWER),
                        _ => unreachable!("unary operators are neg, log, exp"),
                    }
                }
                Node::Op(op) => {
                    let (b, pb) = stack.pop().expect("well-shaped");
                    let (a, pa) = stack.pop().expect("well-shaped");
                    match op {
                        Op::Pow => (format!("{}^{{{b}}}", latex_wrap(a, pa <= POWER)), POWER),
                        Op::Div => (format!(r"\frac{{{a}}}{{{b}}}"), ATOM),
                        Op::Mul => (
                            format!(
                                r"{} \cdot {}",
                                latex_wrap(a, pa < PRODUCT),
                                latex_wrap(b, pb <= PRODUCT)
                            ),
                            PRODUCT,
                        ),
                        Op::Add | Op::Sub => (
                            format!(
                                "{a} {} {}",
                                if op == Op::Add { '+' } else { '-' },
                                latex_wrap(b, pb <= SUM)
                            ),
                            SUM,
                        ),
                        _ => unreachable!("binary operators are + - * / ^"),
                    }
                }
            };
            stack.push(printed);
        }
        let (text, _) = stack.pop().expect("well-shaped");
        f.write_str(&text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formula::Terminal;

    fn p(s: &str) -> String {
        s.parse::<Formula>().unwrap().to_string()
    }

    #[test]
    fn minimal_parentheses() {
        assert_eq!(p("((t * X) ^ (100.1))"), "(t * X)^100.1");
        assert_eq!(p("t * (2.72 * e^t)^X"), "t * (2.72 * e^t)^X");
        assert_eq!(p("(log(100) + 0.01) * t * X"), "(log(100) + 0.01) * t * X");
        assert_eq!(
            p("1 + X/n - 2.73/(t + 2.72) - 10"),
            "1 + X / n - 2.73 / (t + 2.72) - 10"
        );
        assert_eq!(
            p("pow(99.5 * exp(GAD), (t + GAD)^CG)"),
            "(99.5 * exp(GAD))^(t + GAD)^CG"
        );
        assert_eq!(p("(t ^ n) ^ X"), "(t^n)^X");
        assert_eq!(p("t - (n - X)"), "t - (n - X)");
        assert_eq!(p("t - (n + X)"), "t - (n + X)");
        assert_eq!(p("(t - n) - X"), "t - n - X");
        assert_eq!(p("t / (n * X)"), "t / (n * X)");
        assert_eq!(p("t * (n * X)"), "t * (n * X)");
        assert_eq!(p("-(t ^ 2)"), "-t^2");
        assert_eq!(p("(-t) ^ 2"), "(-t)^2");
        assert_eq!(p("2 ^ (-t)"), "2^-t");
        assert_eq!(p("-(t * n)"), "-(t * n)");
        assert_eq!(p("-(-t)"), "--t");
        assert_eq!(p("-(-(t ^ 2))"), "--t^2");
        assert_eq!(p("t ^ (n + X)"), "pow(t, n + X)");
        assert_eq!(p("(t + 1) ^ (n * X)"), "pow(t + 1, n * X)");
        assert_eq!(p("pow(t, n)^X"), "(t^n)^X");
        assert_eq!(p("pow(t, n + 1)^X"), "pow(t, n + 1)^X");
    }

    #[test]
    fn negative_numbers_and_negations_stay_apart() {
        let neg_two = Formula::constant(-2.0);
        assert_eq!(neg_two.to_string(), "-2");
        let negated_two = Formula::apply(Op::Neg, &[&Formula::constant(2.0)]);
        assert_eq!(negated_two.to_string(), "-(2)");
        let double = Formula::apply(Op::Neg, &[&neg_two]);
        assert_eq!(double.to_string(), "--2");
        let double_neg = Formula::apply(Op::Neg, &[&negated_two]);
        assert_eq!(double_neg.to_string(), "--(2)");
        let pow = Formula::apply(Op::Pow, &[&neg_two, &Formula::var(Terminal::T)]);
        assert_eq!(pow.to_string(), "(-2)^t");
        for f in [neg_two, negated_two, double, double_neg, pow] {
            assert_eq!(f.to_string().parse::<Formula>().unwrap(), f);
        }
    }

    #[test]
    fn constants_print_shortest_round_trip() {
        assert_eq!(constant_text(std::f64::consts::E), "e");
        assert_eq!(constant_text(0.001), "0.001");
        assert_eq!(constant_text(1000.0), "1000");
        assert_eq!(constant_text(1e300), "1e300");
        assert_eq!(constant_text(1.5e-7), "1.5e-7");
        assert_eq!(constant_text(-0.0), "-0");
    }

    #[test]
    fn latex() {
        let l = |s: &str| Latex(&s.parse::<Formula>().unwrap()).to_string();
        assert_eq!(l("X / n"), r"\frac{X}{n}");
        assert_eq!(l("(t + 1)^2"), r"\left(t + 1\right)^{2}");
        assert_eq!(l("log(t) * CG"), r"\log\left(t\right) \cdot \mathit{CG}");
        assert_eq!(l("1e-7 * t"), r"1 \times 10^{-7} \cdot t");
    }
}
