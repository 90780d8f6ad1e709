//! Printing formulas: the text syntax (with the fewest parentheses that parse back to the
//! same tree) and LaTeX.
//!
//! One printer, a [`Formula::fold`] (so it never recurses, whatever the depth), writes
//! both notations; a private `Style` (text or LaTeX) says how to write a constant, a
//! terminal, each operator and a group. Precedence levels, loosest first:
//! `+ -` (1), `* /` (2), unary minus and negative constants (3), `^` (4), atoms (5).
//!
//! The printed text never nests parentheses, function calls, unary minus and `^` deeper
//! than any text that reads as the same formula, so whatever [`Formula::parse`] accepted
//! prints as text it accepts again (the parser refuses nesting deeper than
//! [`MAX_NESTING`](super::MAX_NESTING); a formula built deeper than that by other means
//! prints, but does not parse back).
//!
//! ```
//! use freshgp_formula::formula::Formula;
//!
//! let f: Formula = "((t * X) ^ (100.1))".parse().unwrap();
//! assert_eq!(f.to_string(), "(t * X)^100.1");
//! assert_eq!(f.to_string().parse::<Formula>().unwrap(), f);
//! ```

use super::{BinaryOp, Formula, Terminal, UnaryOp, Visit};
use std::fmt;

const SUM: u8 = 1;
const PRODUCT: u8 = 2;
const UNARY: u8 = 3;
const POWER: u8 = 4;
const ATOM: u8 = 5;

/// A printed subformula and the precedence level of its outermost operation.
struct Printed {
    text: String,
    level: u8,
}

impl Printed {
    fn new(text: String, level: u8) -> Printed {
        Printed { text, level }
    }
}

/// How one notation writes constants, terminals, operators and grouping. The printer
/// ([`print`]) is one fold over the formula; the styles differ only in these choices.
trait Style {
    /// A constant's text (its level follows from its sign).
    fn constant(&self, c: f64) -> String;

    /// A terminal's text.
    fn variable(&self, t: Terminal) -> String;

    /// `text` in grouping parentheses.
    fn group(&self, text: String) -> String;

    /// A unary operator applied to its printed operand.
    fn unary(&self, op: UnaryOp, a: Printed) -> Printed;

    /// A binary operator applied to its printed operands.
    fn binary(&self, op: BinaryOp, a: Printed, b: Printed) -> Printed;

    /// `p`'s text, grouped if `needs`.
    fn wrap(&self, p: Printed, needs: bool) -> String {
        if needs {
            self.group(p.text)
        } else {
            p.text
        }
    }

    /// A left-associative infix operation at `level`: the left operand is grouped when it
    /// binds more loosely, the right one also when it binds equally.
    fn infix(&self, a: Printed, symbol: &str, b: Printed, level: u8) -> Printed {
        let (needs_a, needs_b) = (a.level < level, b.level <= level);
        Printed::new(
            format!(
                "{} {symbol} {}",
                self.wrap(a, needs_a),
                self.wrap(b, needs_b)
            ),
            level,
        )
    }
}

/// `formula` in `style`, with the fewest parentheses the style's levels allow.
fn print(formula: &Formula, style: &impl Style) -> String {
    formula
        .fold(|node| match node {
            Visit::Const(c) => Printed::new(style.constant(c), constant_level(c)),
            Visit::Var(t) => Printed::new(style.variable(t), ATOM),
            Visit::Unary(op, a) => style.unary(op, a),
            Visit::Binary(op, a, b) => style.binary(op, a, b),
        })
        .text
}

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

/// A negative constant reads like a negation.
fn constant_level(c: f64) -> u8 {
    if c.is_sign_negative() {
        UNARY
    } else {
        ATOM
    }
}

/// Formula text: what [`Formula::parse`] reads.
struct Text;

impl Style for Text {
    fn constant(&self, c: f64) -> String {
        constant_text(c)
    }

    fn variable(&self, t: Terminal) -> String {
        t.name().to_string()
    }

    fn group(&self, text: String) -> String {
        format!("({text})")
    }

    fn unary(&self, op: UnaryOp, a: Printed) -> Printed {
        match op {
            UnaryOp::Neg => {
                // `-2` would read back as the constant -2: parenthesise literals. A
                // negation or negative constant needs none (`--x`, `--2`): `-(-x)` would
                // nest twice as deep as the text it was read from, and a long chain of
                // them would not parse back.
                let literal = a.level == ATOM && a.text.starts_with(|c: char| c.is_ascii_digit());
                let needs = a.level < UNARY || literal;
                Printed::new(format!("-{}", self.wrap(a, needs)), UNARY)
            }
            UnaryOp::Log => Printed::new(format!("log({})", a.text), ATOM),
            UnaryOp::Exp => Printed::new(format!("exp({})", a.text), ATOM),
        }
    }

    fn binary(&self, op: BinaryOp, a: Printed, b: Printed) -> Printed {
        match op {
            // An exponent that needs parentheses is written `pow(a, b)`: `a^(b + c)`
            // nests two levels (`^`, `(`) where `pow(` nests one, and printing must never
            // nest deeper than the text it was read from, or a deep formula that parsed
            // would not parse back.
            BinaryOp::Pow if b.level < UNARY => {
                Printed::new(format!("pow({}, {})", a.text, b.text), ATOM)
            }
            BinaryOp::Pow => {
                let needs = a.level <= POWER;
                Printed::new(format!("{}^{}", self.wrap(a, needs), b.text), POWER)
            }
            BinaryOp::Mul => self.infix(a, "*", b, PRODUCT),
            BinaryOp::Div => self.infix(a, "/", b, PRODUCT),
            BinaryOp::Add => self.infix(a, "+", b, SUM),
            BinaryOp::Sub => self.infix(a, "-", b, SUM),
        }
    }
}

impl fmt::Display for Formula {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print(self, &Text))
    }
}

/// A formula printed as LaTeX math (without surrounding `$`).
///
/// ```
/// use freshgp_formula::formula::{Formula, Latex};
///
/// let f: Formula = "1 - exp(-NAD * t)".parse().unwrap();
/// assert_eq!(Latex(&f).to_string(), r"1 - e^{-\mathit{NAD} \cdot t}");
/// ```
pub struct Latex<'a>(pub &'a Formula);

/// LaTeX math: `\frac`, `\cdot`, `e^{..}`, multi-letter terminals in `\mathit`.
struct LatexStyle;

impl Style for LatexStyle {
    fn constant(&self, c: f64) -> String {
        let text = constant_text(c);
        match text.split_once('e') {
            Some((mantissa, exponent)) if !mantissa.is_empty() => {
                format!(r"{mantissa} \times 10^{{{exponent}}}")
            }
            _ => text,
        }
    }

    fn variable(&self, t: Terminal) -> String {
        if t.name().len() > 1 {
            format!(r"\mathit{{{}}}", t.name())
        } else {
            t.name().to_string()
        }
    }

    fn group(&self, text: String) -> String {
        format!(r"\left({text}\right)")
    }

    fn unary(&self, op: UnaryOp, a: Printed) -> Printed {
        match op {
            UnaryOp::Neg => {
                let needs = a.level <= UNARY;
                Printed::new(format!("-{}", self.wrap(a, needs)), UNARY)
            }
            UnaryOp::Log => Printed::new(format!(r"\log\left({}\right)", a.text), ATOM),
            UnaryOp::Exp => Printed::new(format!("e^{{{}}}", a.text), POWER),
        }
    }

    fn binary(&self, op: BinaryOp, a: Printed, b: Printed) -> Printed {
        // Mathematics writes `x - (-t)`, not `x - -t`: a negation right of an infix
        // operator is grouped.
        let b = match op {
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul if b.level == UNARY => {
                Printed::new(self.group(b.text), ATOM)
            }
            _ => b,
        };
        match op {
            BinaryOp::Pow => {
                let needs = a.level <= POWER;
                Printed::new(format!("{}^{{{}}}", self.wrap(a, needs), b.text), POWER)
            }
            BinaryOp::Div => Printed::new(format!(r"\frac{{{}}}{{{}}}", a.text, b.text), ATOM),
            BinaryOp::Mul => self.infix(a, r"\cdot", b, PRODUCT),
            BinaryOp::Add => self.infix(a, "+", b, SUM),
            BinaryOp::Sub => self.infix(a, "-", b, SUM),
        }
    }
}

impl fmt::Display for Latex<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print(self.0, &LatexStyle))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let negated_two = Formula::unary(UnaryOp::Neg, &Formula::constant(2.0));
        assert_eq!(negated_two.to_string(), "-(2)");
        let double = Formula::unary(UnaryOp::Neg, &neg_two);
        assert_eq!(double.to_string(), "--2");
        let double_neg = Formula::unary(UnaryOp::Neg, &negated_two);
        assert_eq!(double_neg.to_string(), "--(2)");
        let pow = Formula::binary(BinaryOp::Pow, &neg_two, &Formula::var(Terminal::T));
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
        assert_eq!(l("X - -t"), r"X - \left(-t\right)");
        assert_eq!(
            l("X * -2 + -t"),
            r"X \cdot \left(-2\right) + \left(-t\right)"
        );
        assert_eq!(l("-t - X"), r"-t - X");
    }
}
