//! SQL output for SQLite (3.35+, with its math functions `ln`, `exp`, `pow`).
//!
//! SQL has no local variables, and nesting the operators' expressions would copy an operand
//! once per use (the reference closure's division reads each operand three times), which
//! grows exponentially with depth. Instead each tree level is one common table expression
//! that adds one column per operator of that level to every row of the one before; the last
//! `SELECT` adds the score.
//!
//! When an operator reads a column more than once (the reference closure's division), the
//! levels are `MATERIALIZED`: SQLite would otherwise flatten them into one expression with
//! a copy of each column's expression per use.
//!
//! SQLite turns every NaN result into NULL (and `x / 0` and `ln(x <= 0)` are NULL too), so
//! `COALESCE(…, 0.0)` is exactly the closure's NaN → 0 rule.

use super::{comment, finite_literal, Kind, Lowered, Operand, Target};
use crate::formula::ops::{BinaryKind as B, UnaryKind as U};
use crate::formula::Terminal;
use std::fmt::Write;

/// The SQLite target: operands and operations as SQL expressions (the query itself is
/// assembled by [`emit`]).
pub(crate) struct Sql;

impl Target for Sql {
    const COMMENT: &'static str = "--";
    const INFINITY: &'static str = "9e999";
    const NEG_INFINITY: &'static str = "(-9e999)";

    fn literal(&self, c: f64) -> String {
        if !c.is_finite() {
            super::any_literal(c, Self::INFINITY, Self::NEG_INFINITY)
        } else if c == 0.0 {
            // `(-0.0)` is `0 - 0.0` = +0.0 in SQLite; the product keeps the sign.
            let zero = if c.is_sign_negative() {
                "(-1.0 * 0.0)"
            } else {
                "0.0"
            };
            zero.to_string()
        } else if exact_decimal(c) {
            let text = finite_literal(c);
            if c < 0.0 {
                format!("({text})")
            } else {
                text
            }
        } else {
            exact_binary(c)
        }
    }

    fn variable(&self, t: Terminal) -> String {
        format!("CAST({} AS DOUBLE PRECISION)", t.name())
    }

    fn local(&self, name: &str, k: usize) -> String {
        format!("{name}_v{k}")
    }

    /// The operation written out in place (SQLite has no user-defined functions in plain
    /// SQL): `COALESCE(…, 0.0)` is the closure's NaN → 0 rule.
    fn call(&self, kind: Kind, _name: &str, args: &[String]) -> String {
        let a = &args[0];
        let b = args.get(1).map(String::as_str).unwrap_or("");
        match kind {
            Kind::Binary(B::Add) => format!("COALESCE({a} + {b}, 0.0)"),
            Kind::Binary(B::Sub) => format!("COALESCE({a} - {b}, 0.0)"),
            Kind::Binary(B::Mul) => format!("COALESCE({a} * {b}, 0.0)"),
            // SQLite computes `-x` as `0 - x`, which turns 0.0 into +0.0, not -0.0.
            Kind::Unary(U::Neg) => format!("(-1.0 * {a})"),
            Kind::Binary(B::DivPaper) => format!("COALESCE({a} / NULLIF({b}, 0.0), 0.0)"),
            Kind::Binary(B::DivReference) => format!(
                "CASE WHEN abs({b}) < 1e-6 THEN (CASE WHEN {a} * {b} < 0.0 THEN -1e6 ELSE 1e6 END) \
                 ELSE COALESCE({a} / {b}, 0.0) END"
            ),
            Kind::Unary(U::LogPaper) => format!("COALESCE(ln({a}), 0.0)"),
            Kind::Unary(U::LogReference) => format!("ln(max(abs({a}), 1.0))"),
            Kind::Unary(U::Exp) => format!("exp({a})"),
            Kind::Binary(B::Pow) => format!("COALESCE(pow({a}, {b}), 0.0)"),
        }
    }
}

/// Whether the shortest decimal of finite, nonzero `c` is `c` itself, with at most 15
/// significant digits and at most 22 digits after the point: then the text is an integer
/// `s < 2^53` over `10^j`, both exact doubles, and any parser that divides one by the other
/// reads `c` without rounding. Other decimals are not read exactly by every engine:
/// SQLite before 3.43 misreads about 1 in 4,000 shortest decimals of random doubles (e.g.
/// `1.000000000000002e-300`) and even short ones (`0.3099257971936`).
fn exact_decimal(c: f64) -> bool {
    // `d.ddddde±E`: the shortest round-trip digits and the decimal exponent.
    let text = format!("{:e}", c.abs());
    let Some((mantissa, exponent)) = text.split_once('e') else {
        return false;
    };
    let Ok(exponent) = exponent.parse::<i64>() else {
        return false;
    };
    let digits = mantissa.chars().filter(char::is_ascii_digit).count() as i64;
    // Digits after the decimal point of the value the text denotes.
    let fraction = (digits - 1 - exponent).max(0);
    // c = m · 2^-k with m odd: its exact decimal has exactly k digits after the point
    // (m·5^k / 10^k, and m·5^k is odd), 0 for an integer.
    let k = (-odd_significand(c).1).max(0);
    let integer_exact = k > 0 || c.abs() < (1u64 << 53) as f64;
    digits <= 15 && fraction <= 22 && fraction == k && integer_exact
}

/// `|c| = m · 2^e` with `m` odd, for finite, nonzero `c`.
fn odd_significand(c: f64) -> (u64, i64) {
    let bits = c.abs().to_bits();
    let (exp_bits, mantissa_bits) = ((bits >> 52) as i64, bits & ((1 << 52) - 1));
    let (m, e) = if exp_bits == 0 {
        (mantissa_bits, -1074)
    } else {
        (mantissa_bits | (1 << 52), exp_bits - 1075)
    };
    let zeros = m.trailing_zeros();
    (m >> zeros, e + zeros as i64)
}

/// `c` as an exact product of an integer and powers of two, `(CAST(m AS DOUBLE PRECISION) / 2^62 /
/// ... /* shortest decimal */)`: integer literals below 2^63 are read exactly by every SQL
/// engine, and scaling by a power of two is exact (the intermediate values have the same
/// significand as `c` and exponents between 0 and its own).
fn exact_binary(c: f64) -> String {
    let (m, e) = odd_significand(c);
    let sign = if c < 0.0 { "-" } else { "" };
    let mut out = format!("(CAST({sign}{m} AS DOUBLE PRECISION)");
    let op = if e < 0 { '/' } else { '*' };
    let mut left = e.unsigned_abs();
    while left > 0 {
        let step = left.min(62);
        let _ = write!(out, " {op} {}", 1u64 << step);
        left -= step;
    }
    let _ = write!(out, " /* {} */)", finite_literal(c));
    out
}

/// The SQL query computing `lowered` as column `name` of every row of `pages`.
pub(crate) fn emit(lowered: &Lowered, name: &str, header: &[String]) -> String {
    let mut out = comment(header, Sql::COMMENT);
    let terminals: Vec<&str> = lowered.params.iter().map(|t| t.name()).collect();
    let columns = if terminals.is_empty() {
        "no terminal column".to_string()
    } else {
        format!("the terminal columns {}", terminals.join(", "))
    };
    let _ = write!(
        out,
        "-- Dialect: SQLite 3.35+ built with math functions (ln, exp, pow). NaN is NULL in SQLite;\n\
         -- COALESCE(.., 0.0) maps it to 0 as the closure does, and 9e999 is +infinity.\n\
         -- Not for PostgreSQL: it raises errors where the closure gives +-infinity (float\n\
         -- overflow, exp of large values), rejects 9e999 and has no scalar max().\n\
         -- Reads {columns} of the table or view `pages` (rename it below);\n\
         -- returns every column of `pages`, helper columns {name}_v0, {name}_v1, ... and\n\
         -- the score as column `{name}`.\n"
    );
    let levels = lowered.steps.iter().map(|s| s.level).max().unwrap_or(0);
    let expr = |k: usize| {
        let step = &lowered.steps[k];
        let args: Vec<String> = step.args.iter().map(|a| Sql.operand(a, name)).collect();
        Sql.call(step.kind, name, &args)
    };
    // SQLite flattens a chain of table expressions into one expression tree, copying a
    // column's expression into each place that reads it; only the reference division reads
    // an operand more than once, so only then is materialising each level needed.
    let copies = lowered.steps.iter().any(|s| {
        s.kind == Kind::Binary(B::DivReference)
            && s.args.iter().any(|a| matches!(a, Operand::Local(_)))
    });
    let materialized = if copies { "MATERIALIZED " } else { "" };
    let mut from = "pages".to_string();
    if levels > 1 {
        out.push_str("WITH\n");
        for level in 1..levels {
            let _ = writeln!(out, "{name}_{level} AS {materialized}(\n  SELECT *,");
            let cols: Vec<String> = lowered
                .steps
                .iter()
                .enumerate()
                .filter(|(_, s)| s.level == level)
                .map(|(k, _)| format!("    {} AS {name}_v{k}", expr(k)))
                .collect();
            let _ = writeln!(out, "{}\n  FROM {from}\n),", cols.join(",\n"));
            from = format!("{name}_{level}");
        }
        // No comma after the last table expression.
        out.truncate(out.len() - 2);
        out.push('\n');
    }
    let result = match lowered.result {
        Operand::Local(k) => expr(k),
        ref leaf => Sql.operand(leaf, name),
    };
    let _ = writeln!(out, "SELECT *,\n  {result} AS {name}\nFROM {from};");
    out
}

#[cfg(test)]
mod tests {
    use crate::export::fixtures::export_extended;
    use crate::export::Language;

    #[test]
    fn literals_are_exact_decimals_or_exact_binary_products() {
        use super::Sql;
        use crate::export::Target;
        let lit = |c: f64| Sql.literal(c);
        // Short decimals that are the double itself stay as they are.
        assert_eq!(lit(0.5), "0.5");
        assert_eq!(lit(-0.375), "(-0.375)");
        assert_eq!(lit(3.0), "3.0");
        assert_eq!(lit(0.0), "0.0");
        assert_eq!(lit(-0.0), "(-1.0 * 0.0)");
        // 0.1 is 3602879701896397 / 2^55.
        assert_eq!(
            lit(0.1),
            "(CAST(3602879701896397 AS DOUBLE PRECISION) / 36028797018963968 /* 0.1 */)"
        );
        assert_eq!(
            lit(-1e20),
            "(CAST(-95367431640625 AS DOUBLE PRECISION) * 1048576 /* -1e20 */)"
        );
        // The smallest subnormal: 2^-1074 in 62-bit steps.
        let tiny = lit(5e-324);
        assert!(
            tiny.starts_with("(CAST(1 AS DOUBLE PRECISION) / 4611686018427387904 /"),
            "{tiny}"
        );
        assert_eq!(tiny.matches(" / ").count(), 18, "{tiny}");
        assert_eq!(lit(f64::INFINITY), "9e999");
    }

    #[test]
    fn extended_formula_arguments_in_column_order() {
        let code = export_extended(Language::Sql);
        assert!(
            code.contains(
                "\n-- Reads the terminal columns t, X, GAD, w, tc, n7, X7, HR, MLE of the table \
                 or view `pages`"
            ),
            "{code}"
        );
        // Each read by its name, unquoted (SQLite matches it ignoring case).
        for column in ["t", "X", "GAD", "w", "tc", "n7", "X7", "HR", "MLE"] {
            assert!(
                code.contains(&format!("CAST({column} AS DOUBLE PRECISION)")),
                "{column}: {code}"
            );
        }
    }
}
