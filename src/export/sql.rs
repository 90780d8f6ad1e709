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
        if c.is_finite() && c.is_sign_negative() {
            format!("({})", finite_literal(c))
        } else {
            super::any_literal(c, Self::INFINITY, Self::NEG_INFINITY)
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
