//! Reading formula text (the syntax of `grammars/formula.ebnf`) with nom.
//!
//! The parser is a precedence ladder, loosest first: `sum` (`+ -`), `product` (`* /`),
//! `unary` (prefix `-`), `power` (`^`, right-associative), `atom`. It builds the postfix
//! node sequence directly. Every failure is a [`ParseError`] naming the byte offset, what
//! was found there and what was expected; no input makes it panic or overflow the stack
//! (nesting deeper than [`MAX_NESTING`] is an error).

use super::lex::{fatal, identifier, number_text, number_value, sym, PErr, Res};
use super::{BinaryOp, Formula, Grammar, Node, Op, Terminal, UnaryOp};
use nom::branch::alt;
use nom::character::complete::multispace0;
use nom::combinator::cut;
use nom::Err;
use std::cell::Cell;
use std::fmt;

/// The deepest nesting of parentheses, function calls, unary minus and `^` a formula may
/// have. Each level costs the recursive-descent parser about 10 KiB of stack in debug
/// builds (2 KiB optimised), so 128 levels fit a default 2 MiB thread stack with room to
/// spare; formulas of the default maximum depth 10 (docs/src/reference/gp.md#defaults) nest
/// at most about 20 levels.
pub const MAX_NESTING: usize = 128;

/// Why formula text could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// Byte offset in the text where the problem is.
    pub offset: usize,
    /// What stands there (a token, or "end of input").
    pub found: String,
    /// What would have been accepted there, or what is wrong.
    pub expected: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "at byte {}: found {}, expected {}",
            self.offset, self.found, self.expected
        )
    }
}

impl std::error::Error for ParseError {}

impl ParseError {
    /// The error with the formula quoted and a caret under the place, as the command line
    /// and the Python module show it. The caret's indent keeps the text's tabs, so it lines
    /// up whatever the tab width.
    ///
    /// ```
    /// use freshgp_formula::formula::{Formula, Grammar};
    ///
    /// let text = "t * (X +";
    /// let e = Formula::parse(text, &Grammar::all()).unwrap_err();
    /// assert!(e.quoted(text).starts_with("cannot read formula:\n  t * (X +\n          ^\n"));
    /// ```
    pub fn quoted(&self, text: &str) -> String {
        let mut end = self.offset.min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let indent: String = text[..end]
            .chars()
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        format!("cannot read formula:\n  {text}\n  {indent}^\n{self}")
    }
}

/// A parsed subtree, and whether it is a bare number literal (which a unary minus
/// directly before it folds into a negative constant).
struct Part {
    nodes: Vec<Node>,
    bare_literal: bool,
}

impl Part {
    fn tree(nodes: Vec<Node>) -> Part {
        Part {
            nodes,
            bare_literal: false,
        }
    }
}

struct Parser<'g> {
    grammar: &'g Grammar,
    nesting: Cell<usize>,
}

impl Parser<'_> {
    fn terminal_list(&self) -> String {
        self.grammar
            .terminals()
            .iter()
            .map(|t| t.name())
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn operand_expectation(&self) -> String {
        format!(
            "an operand (a number, `e`, a terminal of grammar `{}` ({}), log(..), exp(..), pow(.., ..), `-` or `(`)",
            self.grammar.name(),
            self.terminal_list()
        )
    }

    /// Runs `f` one nesting level deeper, failing past [`MAX_NESTING`].
    fn nested<'a, T>(&self, i: &'a str, f: impl FnOnce(&'a str) -> Res<'a, T>) -> Res<'a, T> {
        let level = self.nesting.get() + 1;
        if level > MAX_NESTING {
            return fatal(i, format!("at most {MAX_NESTING} levels of nesting"));
        }
        self.nesting.set(level);
        let result = f(i);
        self.nesting.set(level - 1);
        result
    }

    fn sum<'a>(&self, i: &'a str) -> Res<'a, Part> {
        self.chain(i, &[('+', BinaryOp::Add), ('-', BinaryOp::Sub)], |i| {
            self.product(i)
        })
    }

    fn product<'a>(&self, i: &'a str) -> Res<'a, Part> {
        self.chain(i, &[('*', BinaryOp::Mul), ('/', BinaryOp::Div)], |i| {
            self.unary(i)
        })
    }

    /// `operand (op operand)*`, left-associative.
    fn chain<'a>(
        &self,
        i: &'a str,
        ops: &[(char, BinaryOp)],
        operand: impl Fn(&'a str) -> Res<'a, Part>,
    ) -> Res<'a, Part> {
        let (mut i, mut acc) = operand(i)?;
        loop {
            let (after_ws, _) = multispace0(i)?;
            let Some(&(c, op)) = ops.iter().find(|(c, _)| after_ws.starts_with(*c)) else {
                return Ok((i, acc));
            };
            let (rest, right) = cut(&operand)(&after_ws[c.len_utf8()..])?;
            acc.nodes.extend(right.nodes);
            acc.nodes.push(Node::Binary(op));
            acc.bare_literal = false;
            i = rest;
        }
    }

    fn unary<'a>(&self, i: &'a str) -> Res<'a, Part> {
        let (i, _) = multispace0(i)?;
        match i.strip_prefix('-') {
            Some(rest) => self.nested(i, |_| {
                let (rest, operand) = cut(|i| self.unary(i))(rest)?;
                let nodes = match operand.nodes[..] {
                    [Node::Const(c)] if operand.bare_literal => vec![Node::Const(-c)],
                    _ => {
                        let mut nodes = operand.nodes;
                        nodes.push(Node::Unary(UnaryOp::Neg));
                        nodes
                    }
                };
                Ok((rest, Part::tree(nodes)))
            }),
            None => self.power(i),
        }
    }

    fn power<'a>(&self, i: &'a str) -> Res<'a, Part> {
        let (i, base) = self.atom(i)?;
        let (after_ws, _) = multispace0(i)?;
        match after_ws.strip_prefix('^') {
            Some(rest) => self.nested(rest, |rest| {
                let (rest, exponent) = cut(|i| self.unary(i))(rest)?;
                let mut nodes = base.nodes;
                nodes.extend(exponent.nodes);
                nodes.push(Node::Binary(BinaryOp::Pow));
                Ok((rest, Part::tree(nodes)))
            }),
            None => Ok((i, base)),
        }
    }

    fn atom<'a>(&self, i: &'a str) -> Res<'a, Part> {
        let (i, _) = multispace0(i)?;
        alt((
            |i| self.literal(i),
            |i| self.named(i),
            |i| self.parenthesised(i),
        ))(i)
        .map_err(|e| match e {
            Err::Error(err) if err.at.len() == i.len() => {
                Err::Error(PErr::new(i, self.operand_expectation()))
            }
            other => other,
        })
    }

    fn literal<'a>(&self, i: &'a str) -> Res<'a, Part> {
        let (rest, text) = number_text(i)?;
        match number_value(text) {
            Ok(v) => Ok((
                rest,
                Part {
                    nodes: vec![Node::Const(v)],
                    bare_literal: true,
                },
            )),
            Err(why) => fatal(i, why),
        }
    }

    fn parenthesised<'a>(&self, i: &'a str) -> Res<'a, Part> {
        let (i, _) = sym('(')(i)?;
        self.nested(i, |i| {
            let (i, inner) = cut(|i| self.sum(i))(i)?;
            let (i, _) = cut(sym(')'))(i).map_err(|e| self.close_expectation(e))?;
            Ok((i, Part::tree(inner.nodes)))
        })
    }

    /// After a complete operand, `)` or any binary operator would have been accepted.
    fn close_expectation<'a>(&self, e: Err<PErr<'a>>) -> Err<PErr<'a>> {
        e.map(|err| PErr::new(err.at, "`)` or an operator (+ - * / ^)"))
    }

    /// `e`, a terminal, or a function call.
    fn named<'a>(&self, i: &'a str) -> Res<'a, Part> {
        let (rest, name) = identifier(i)?;
        let (after_ws, _) = multispace0(rest)?;
        if after_ws.starts_with('(') {
            let op = match name {
                "log" => Op::Unary(UnaryOp::Log),
                "exp" => Op::Unary(UnaryOp::Exp),
                "pow" => Op::Binary(BinaryOp::Pow),
                _ => {
                    return fatal(i, "a function: log, exp or pow");
                }
            };
            return self.nested(after_ws, |i| {
                let (i, _) = sym('(')(i)?;
                let (mut i, first) = cut(|i| self.sum(i))(i)?;
                let mut nodes = first.nodes;
                if let Op::Binary(_) = op {
                    let (j, _) = cut(sym(','))(i).map_err(|e| {
                        e.map(|err| PErr::new(err.at, "`,` (pow takes two arguments)"))
                    })?;
                    let (j, second) = cut(|i| self.sum(i))(j)?;
                    nodes.extend(second.nodes);
                    i = j;
                }
                let (i, _) = cut(sym(')'))(i).map_err(|e| self.close_expectation(e))?;
                nodes.push(Node::from(op));
                Ok((i, Part::tree(nodes)))
            });
        }
        if name == "e" {
            return Ok((rest, Part::tree(vec![Node::Const(std::f64::consts::E)])));
        }
        match Terminal::from_name(name) {
            Some(t) if self.grammar.has_terminal(t) => Ok((rest, Part::tree(vec![Node::Var(t)]))),
            Some(_) => fatal(
                i,
                format!(
                    "a terminal of grammar `{}` ({}); `{name}` is not one of them",
                    self.grammar.name(),
                    self.terminal_list()
                ),
            ),
            None => fatal(i, self.operand_expectation()),
        }
    }
}

/// The token at the start of `rest`, for error messages.
fn describe_token(rest: &str) -> String {
    let rest = rest.trim_start_matches([' ', '\t', '\r', '\n']);
    let Some(first) = rest.chars().next() else {
        return "end of input".to_string();
    };
    if let Ok((_, text)) = number_text(rest) {
        return format!("`{text}`");
    }
    if let Ok((_, name)) = identifier(rest) {
        return format!("`{name}`");
    }
    format!("`{}`", first.escape_debug())
}

/// Parses a whole formula with the terminals `grammar` allows.
pub(super) fn parse_formula(text: &str, grammar: &Grammar) -> Result<Formula, ParseError> {
    let parser = Parser {
        grammar,
        nesting: Cell::new(0),
    };
    let to_error = |err: PErr<'_>| {
        let at = err.at.trim_start_matches([' ', '\t', '\r', '\n']);
        ParseError {
            offset: text.len() - at.len(),
            found: describe_token(at),
            expected: err.expected,
        }
    };
    match parser.sum(text) {
        Ok((rest, part)) => {
            let rest_trimmed = rest.trim_start_matches([' ', '\t', '\r', '\n']);
            if !rest_trimmed.is_empty() {
                return Err(to_error(PErr::new(
                    rest_trimmed,
                    "an operator (+ - * / ^) or the end of the formula",
                )));
            }
            // Invariant: every rule emits complete trees, and literals are finite.
            let formula = Formula::from_postfix(part.nodes);
            Ok(formula.expect("invariant: the parser builds well-shaped trees"))
        }
        Err(Err::Error(err)) | Err(Err::Failure(err)) => Err(to_error(err)),
        Err(Err::Incomplete(_)) => unreachable!("complete parsers never ask for more input"),
    }
}

impl Formula {
    /// Parses formula text, allowing only the terminals of `grammar`.
    ///
    /// ```
    /// use freshgp_formula::formula::{Formula, Grammar};
    ///
    /// let f = Formula::parse("(t * X)^100.1", &Grammar::basic()).unwrap();
    /// assert_eq!(f.to_string(), "(t * X)^100.1");
    ///
    /// let err = Formula::parse("t * CG", &Grammar::basic()).unwrap_err();
    /// assert_eq!(err.offset, 4);
    /// assert_eq!(err.found, "`CG`");
    /// ```
    pub fn parse(text: &str, grammar: &Grammar) -> Result<Formula, ParseError> {
        parse_formula(text, grammar)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(s: &str) -> Formula {
        Formula::parse(s, &Grammar::all()).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    fn err(s: &str) -> ParseError {
        Formula::parse(s, &Grammar::all()).unwrap_err()
    }

    fn postfix(s: &str) -> String {
        all(s)
            .nodes()
            .iter()
            .map(|n| match n {
                Node::Const(c) => format!("{c}"),
                Node::Var(t) => t.name().to_string(),
                Node::Unary(op) => op.name().to_string(),
                Node::Binary(op) => op.name().to_string(),
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn precedence_and_associativity() {
        assert_eq!(postfix("1 + 2 * 3"), "1 2 3 * +");
        assert_eq!(postfix("1 - 2 - 3"), "1 2 - 3 -");
        assert_eq!(postfix("t / n / X"), "t n / X /");
        assert_eq!(postfix("t ^ n ^ X"), "t n X pow pow");
        assert_eq!(postfix("-t ^ 2"), "t 2 pow neg");
        assert_eq!(postfix("2 ^ -t"), "2 t neg pow");
        assert_eq!(postfix("-t * n"), "t neg n *");
        assert_eq!(postfix("pow(t, n)"), "t n pow");
        assert_eq!(postfix("log(t) + exp(n)"), "t log n exp +");
    }

    #[test]
    fn negative_literals() {
        assert_eq!(postfix("-2"), "-2");
        assert_eq!(postfix("-(2)"), "2 neg");
        assert_eq!(postfix("-2 ^ 2"), "2 2 pow neg");
        assert_eq!(postfix("(-2) ^ 2"), "-2 2 pow");
        assert_eq!(postfix("--2"), "-2 neg");
        assert_eq!(postfix("t - -2"), "t -2 -");
    }

    #[test]
    fn rust_float_notation() {
        for (text, v) in [
            ("1", 1.0),
            ("1.5", 1.5),
            ("1.", 1.0),
            (".5", 0.5),
            ("1e-3", 1e-3),
            ("2.5E+10", 2.5e10),
            ("1_000.5", 1000.5),
            ("3f64", 3.0),
            ("100.1", 100.1),
        ] {
            assert_eq!(all(text).nodes(), &[Node::Const(v)], "{text}");
        }
        assert_eq!(all("e").nodes(), &[Node::Const(std::f64::consts::E)]);
    }

    #[test]
    fn the_issue_examples_parse() {
        for text in [
            "(t * X)^100.1",
            "t * (2.72 * e^t)^X",
            "(log(100) + 0.01) * t * X",
            "1 + X/n - 2.73/(t + 2.72) - 10",
            "exp(CG * (1 + log(t)))",
            "pow(99.5 * exp(GAD), (t + GAD)^CG)",
            "GAD * exp(NAD + t)",
        ] {
            all(text);
        }
    }

    #[test]
    fn unknown_terminal_names_offset_found_and_expected() {
        let e = Formula::parse("t + NAD", &Grammar::basic()).unwrap_err();
        assert_eq!((e.offset, e.found.as_str()), (4, "`NAD`"));
        assert!(e.expected.contains("grammar `basic`"), "{e}");
        assert!(e.expected.contains("n, X, t"), "{e}");
        let e = err("t * foo");
        assert_eq!((e.offset, e.found.as_str()), (4, "`foo`"));
        let e = err("sin(t)");
        assert_eq!((e.offset, e.found.as_str()), (0, "`sin`"));
        assert!(e.expected.contains("log, exp or pow"), "{e}");
    }

    #[test]
    fn malformed_text_errors() {
        let e = err("t +");
        assert_eq!((e.offset, e.found.as_str()), (3, "end of input"));
        assert!(e.expected.contains("operand"), "{e}");
        let e = err("(t + n");
        assert_eq!((e.offset, e.found.as_str()), (6, "end of input"));
        assert!(e.expected.contains("`)`"), "{e}");
        let e = err("t n");
        assert_eq!((e.offset, e.found.as_str()), (2, "`n`"));
        let e = err("pow(t)");
        assert_eq!((e.offset, e.found.as_str()), (5, "`)`"));
        assert!(e.expected.contains("`,`"), "{e}");
        let e = err("1e999");
        assert_eq!(e.offset, 0);
        assert!(e.expected.contains("finite"), "{e}");
        let e = err("");
        assert_eq!(e.found, "end of input");
        let e = err("t * $");
        assert_eq!((e.offset, e.found.as_str()), (4, "`$`"));
        let e = err("2e");
        assert_eq!((e.offset, e.found.as_str()), (1, "`e`"));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = format!("{}t{}", "(".repeat(100_000), ")".repeat(100_000));
        assert!(err(&deep).expected.contains("nesting"));
        let minus = format!("{}t", "-".repeat(100_000));
        assert!(err(&minus).expected.contains("nesting"));
        let tower = vec!["t"; 100_000].join("^");
        assert!(err(&tower).expected.contains("nesting"));
        let ok = format!("{}t{}", "(".repeat(100), ")".repeat(100));
        all(&ok);
    }

    #[test]
    fn non_ascii_input_is_an_error() {
        let e = err("t × n");
        assert_eq!((e.offset, e.found.as_str()), (2, "`×`"));
    }
}
