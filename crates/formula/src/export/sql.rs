//! SQL output, one query per [`Dialect`].
//!
//! SQL has no local variables, and nesting the operators' expressions would copy an operand
//! once per use (the reference closure's division reads each operand three times), which
//! grows exponentially with depth. Instead each tree level is one common table expression
//! that adds one column per operator of that level to every row of the one before; the last
//! `SELECT` adds the score.
//!
//! When an operation reads a column more than once (the reference closure's division, and
//! most guarded operations of the stricter dialects), the levels are `MATERIALIZED` where
//! the dialect has the keyword: SQLite, for one, would otherwise flatten them into one
//! expression with a copy of each column's expression per use.
//!
//! Each dialect writes the closure's operations with its own functions:
//!
//! * **SQLite** turns every NaN result into NULL (and `x / 0` and `ln(x <= 0)` are NULL
//!   too), so `COALESCE(…, 0.0)` is exactly the closure's NaN → 0 rule.
//! * **DuckDB** is IEEE throughout (`1 / 0` is inf, NaN is a value): divisions and logs
//!   test their operands, `COALESCE(NULLIF(x, NaN), 0)` is NaN → 0.
//! * **Spark SQL** is DuckDB's text with Spark's type name, plus one rule: Java's `pow`
//!   gives NaN for `(±1) ^ ±inf` where C gives 1. Division tests its divisor first, so
//!   ANSI mode (Spark 4's default) does not raise.
//! * **PostgreSQL** raises errors where IEEE arithmetic overflows, underflows to zero,
//!   divides by zero or takes `ln` of 0 or a negative number: see [`super::postgres`].

use super::lower::{Lowered, Operand};
use super::postgres;
use super::target::{comment, finite_literal, Target};
use crate::formula::ops::Kind;
use crate::formula::ops::{BinaryKind as B, UnaryKind as U};
use crate::formula::Terminal;
use std::fmt::{self, Write};
use std::str::FromStr;

/// An SQL engine that [`export`](super::export) writes a query for.
///
/// Every dialect's query computes freshgp's score bit for bit where the engine's
/// `ln`, `exp` and `pow` are the C library's (SQLite, DuckDB and PostgreSQL on Linux call
/// glibc, as Rust does), with these exceptions:
///
/// * **Spark**: `ln`, `exp` and `power` are Java's `StrictMath` (fdlibm), which can differ
///   from glibc's in the last bit for rare arguments.
/// * **PostgreSQL** cannot compute a value that overflows or underflows without raising an
///   error, so the query decides those cases before calling the operation: exactly for
///   `+ - * /` and `exp`; for a power, from `b · ln|a|`, so a power within a relative
///   1e-10 of the largest double is taken as ±inf and one within 1e-10 above 2^-1075 (half
///   the smallest subnormal) as 0; and a product or quotient whose exact value rounds, to
///   53 bits, to exactly 2^-1075 is taken as 0 (IEEE gives 2^-1074 when it is above).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// SQLite 3.35 or later built with its math functions (`ln`, `exp`, `pow`; the default
    /// for the `sqlite3` shell and most distributions). `9e999` is +inf.
    #[default]
    Sqlite,
    /// DuckDB 1.1 or later, whose float arithmetic is IEEE's by default
    /// (`ieee_floating_point_ops`; tested with 2.0).
    Duckdb,
    /// PostgreSQL 12 or later (tested with 15).
    Postgres,
    /// Spark SQL 3 or later (tested with 4.3, ANSI mode on and off).
    Spark,
}

impl Dialect {
    /// Every dialect.
    pub const ALL: [Dialect; 4] = [
        Dialect::Sqlite,
        Dialect::Duckdb,
        Dialect::Postgres,
        Dialect::Spark,
    ];

    /// The name accepted by `--dialect`: `sqlite`, `duckdb`, `postgres`, `spark`.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Sqlite => "sqlite",
            Dialect::Duckdb => "duckdb",
            Dialect::Postgres => "postgres",
            Dialect::Spark => "spark",
        }
    }

    /// The engine's type of a double (`DOUBLE PRECISION` is standard SQL; DuckDB and
    /// Spark spell it `DOUBLE`, and Spark knows no other spelling).
    pub fn double(self) -> &'static str {
        match self {
            Dialect::Sqlite | Dialect::Postgres => "DOUBLE PRECISION",
            Dialect::Duckdb | Dialect::Spark => "DOUBLE",
        }
    }

    /// Whether `WITH x AS MATERIALIZED (...)` is understood.
    pub(crate) fn has_materialized(self) -> bool {
        self != Dialect::Spark
    }

    /// The engine and what the query relies on, for the header comment.
    fn notes(self) -> &'static str {
        match self {
            Dialect::Sqlite => {
                "-- Dialect: SQLite 3.35+ built with math functions (ln, exp, pow). NaN is NULL in SQLite;\n\
                 -- COALESCE(.., 0.0) maps it to 0 as the closure does, and 9e999 is +infinity.\n\
                 -- For DuckDB, PostgreSQL or Spark, export with --dialect.\n"
            }
            Dialect::Duckdb => {
                "-- Dialect: DuckDB 1.1+ (IEEE arithmetic, its default since 1.1: divisions and logs test\n\
                 -- their operands;\n\
                 -- COALESCE(NULLIF(x, NaN), 0) maps NaN to 0 as the closure does).\n"
            }
            Dialect::Postgres => {
                "-- Dialect: PostgreSQL 12+. PostgreSQL raises errors on float overflow, underflow, division\n\
                 -- by zero and ln of x <= 0, so every operation decides those cases before computing:\n\
                 -- exactly, except a power within a relative 1e-10 of the largest double (taken as\n\
                 -- +-infinity) or of 2^-1075 (taken as 0), and a product or quotient that rounds to\n\
                 -- exactly 2^-1075 (taken as 0).\n"
            }
            Dialect::Spark => {
                "-- Dialect: Spark SQL 3+ (ANSI mode on or off). ln, exp and power are Java's StrictMath\n\
                 -- and may differ from freshgp's (glibc) in the last bit for rare arguments.\n"
            }
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Dialect {
    type Err = String;

    /// Reads a dialect name (case-insensitive; `postgresql` and `sparksql` too).
    fn from_str(s: &str) -> Result<Dialect, String> {
        let s = s.trim().to_ascii_lowercase();
        let alias = match s.as_str() {
            "postgresql" | "pg" => "postgres",
            "sparksql" => "spark",
            other => other,
        };
        Dialect::ALL
            .into_iter()
            .find(|d| d.name() == alias)
            .ok_or_else(|| {
                format!("unknown SQL dialect `{s}`: expected sqlite, duckdb, postgres or spark")
            })
    }
}

/// The SQL target of one dialect: operands and operations as SQL expressions (the query
/// itself is assembled by [`emit`]).
pub(crate) struct Sql(pub(crate) Dialect);

impl Target for Sql {
    /// Words that cannot be a function name in SQL (compared in lower case) (a short, practical list).
    const RESERVED: &'static [&'static str] = &[
        "all",
        "and",
        "as",
        "asc",
        "between",
        "by",
        "case",
        "cast",
        "create",
        "cross",
        "delete",
        "desc",
        "distinct",
        "drop",
        "else",
        "end",
        "exists",
        "from",
        "full",
        "group",
        "having",
        "in",
        "inner",
        "insert",
        "into",
        "is",
        "join",
        "left",
        "like",
        "limit",
        "materialized",
        "not",
        "null",
        "on",
        "or",
        "order",
        "outer",
        "pages",
        "right",
        "select",
        "set",
        "table",
        "then",
        "union",
        "update",
        "using",
        "values",
        "when",
        "where",
        "with",
    ];
    #[cfg(test)]
    const GENERATED: &'static [&'static str] = &[
        "abs",
        "atan2",
        "as",
        "case",
        "cast",
        "coalesce",
        "double",
        "else",
        "end",
        "exp",
        "false",
        "floor",
        "ln",
        "max",
        "nullif",
        "pow",
        "power",
        "precision",
        "select",
        "sign",
        "then",
        "when",
    ];
    const COMMENT: &'static str = "--";
    const INFINITY: &'static str = "9e999";
    const NEG_INFINITY: &'static str = "(-9e999)";

    fn literal(&self, c: f64) -> String {
        let double = self.0.double();
        if self.0 == Dialect::Sqlite {
            return sqlite_literal(c);
        }
        if c.is_infinite() {
            let sign = if c < 0.0 { "-" } else { "" };
            format!("CAST('{sign}Infinity' AS {double})")
        } else if c == 0.0 {
            let sign = if c.is_sign_negative() { "-" } else { "" };
            format!("CAST('{sign}0' AS {double})")
        } else if exact_decimal(c) {
            format!("CAST({} AS {double})", finite_literal(c))
        } else {
            exact_binary(c, double)
        }
    }

    fn variable(&self, t: Terminal) -> String {
        format!("CAST({} AS {})", t.name(), self.0.double())
    }

    fn local(&self, name: &str, k: usize) -> String {
        format!("{name}_v{k}")
    }

    /// An operand; in PostgreSQL a constant is a scalar subquery, which the planner does
    /// not fold: it folds constant subexpressions even in a `CASE` branch that is never
    /// taken, and the guards' branches hold expressions such as `ln(abs(0))` that raise.
    fn operand(&self, o: &Operand, name: &str) -> String {
        match *o {
            Operand::Var(t) => self.variable(t),
            Operand::Const(c) if self.0 == Dialect::Postgres => {
                format!("(SELECT {})", self.literal(c))
            }
            Operand::Const(c) => self.literal(c),
            Operand::Local(k) => self.local(name, k),
        }
    }

    /// The operation written out in place (plain SQL has no user-defined functions).
    fn call(&self, kind: Kind, _name: &str, args: &[String]) -> String {
        let a = args[0].as_str();
        let b = args.get(1).map(String::as_str).unwrap_or("");
        match self.0 {
            Dialect::Sqlite => sqlite_call(kind, a, b),
            Dialect::Postgres => postgres::call(kind, a, b, &|c| self.literal(c)),
            Dialect::Duckdb | Dialect::Spark => self.ieee_call(kind, a, b),
        }
    }
}

impl Sql {
    /// NaN → 0 in an engine where NaN is a value equal to itself (DuckDB, Spark).
    fn unnan(&self, x: &str) -> String {
        let nan = format!("CAST('NaN' AS {})", self.0.double());
        format!("COALESCE(NULLIF({x}, {nan}), {})", self.literal(0.0))
    }

    /// An operation in DuckDB or Spark, whose arithmetic is IEEE's.
    fn ieee_call(&self, kind: Kind, a: &str, b: &str) -> String {
        let zero = self.literal(0.0);
        match kind {
            Kind::Binary(B::Add) => self.unnan(&format!("{a} + {b}")),
            Kind::Binary(B::Sub) => self.unnan(&format!("{a} - {b}")),
            Kind::Binary(B::Mul) => self.unnan(&format!("{a} * {b}")),
            Kind::Unary(U::Neg) => format!("(-({a}))"),
            Kind::Binary(B::DivPaper) => format!(
                "CASE WHEN {b} = 0.0 THEN {zero} ELSE {} END",
                self.unnan(&format!("{a} / {b}"))
            ),
            Kind::Binary(B::DivReference) => format!(
                "CASE WHEN abs({b}) < 1e-6 THEN (CASE WHEN {a} * {b} < 0.0 THEN {} ELSE {} END) \
                 ELSE {} END",
                self.literal(-1e6),
                self.literal(1e6),
                self.unnan(&format!("{a} / {b}"))
            ),
            Kind::Unary(U::LogPaper) => format!("CASE WHEN {a} > 0.0 THEN ln({a}) ELSE {zero} END"),
            Kind::Unary(U::LogReference) => {
                format!("CASE WHEN abs({a}) > 1.0 THEN ln(abs({a})) ELSE {zero} END")
            }
            Kind::Unary(U::Exp) => format!("exp({a})"),
            Kind::Binary(B::Pow) if self.0 == Dialect::Spark => format!(
                "CASE WHEN abs({a}) = 1.0 AND abs({b}) = {} THEN {} ELSE {} END",
                self.literal(f64::INFINITY),
                self.literal(1.0),
                self.unnan(&format!("power({a}, {b})"))
            ),
            Kind::Binary(B::Pow) => self.unnan(&format!("power({a}, {b})")),
        }
    }
}

/// A constant in SQLite: `9e999` for +inf; a decimal or an exact product (see
/// [`exact_decimal`]).
fn sqlite_literal(c: f64) -> String {
    if !c.is_finite() {
        super::target::any_literal(c, Sql::INFINITY, Sql::NEG_INFINITY)
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
        exact_binary(c, Dialect::Sqlite.double())
    }
}

/// An operation in SQLite: `COALESCE(…, 0.0)` is the closure's NaN → 0 rule.
fn sqlite_call(kind: Kind, a: &str, b: &str) -> String {
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

/// `c` as an exact product of an integer and powers of two, `(CAST(m AS <double>) / 2^62 /
/// ... /* shortest decimal */)`: integer literals below 2^63 are read exactly by every SQL
/// engine, and scaling by a power of two is exact (the intermediate values have the same
/// significand as `c` and exponents between 0 and its own).
fn exact_binary(c: f64, double: &str) -> String {
    let (m, e) = odd_significand(c);
    let sign = if c < 0.0 { "-" } else { "" };
    let mut out = format!("(CAST({sign}{m} AS {double})");
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

/// A score as table expressions over a source relation: what [`emit`] prints, and what
/// the scheduler's query builds on.
pub struct ScoreLevels {
    /// `name_1 AS [MATERIALIZED ](SELECT *, ... FROM source)`, one per tree level but the
    /// last, each reading the one before.
    pub ctes: Vec<String>,
    /// The score's expression over the columns of [`from`](Self::from).
    pub score: String,
    /// The relation the score's `SELECT` reads: the last table expression, or `source`.
    pub from: String,
}

/// The score of `lowered` over every row of `source`, in `dialect`, with helper columns
/// `<name>_v<k>` and table expressions `<name>_<level>`.
pub(crate) fn score_levels(
    dialect: Dialect,
    lowered: &Lowered,
    name: &str,
    source: &str,
) -> ScoreLevels {
    let sql = Sql(dialect);
    let levels = lowered.steps.iter().map(|s| s.level).max().unwrap_or(0);
    let expr = |k: usize| {
        let step = &lowered.steps[k];
        let args: Vec<String> = step.args.iter().map(|a| sql.operand(a, name)).collect();
        sql.call(step.kind, name, &args)
    };
    // Engines may flatten a chain of table expressions into one expression tree, copying a
    // column's expression into each place that reads it: materialise the levels when an
    // operation reads a column of the level before more than once.
    let copies = lowered.steps.iter().any(|step| {
        let marked: Vec<String> = (0..step.args.len())
            .map(|i| format!("\u{1}{i}\u{2}"))
            .collect();
        let text = sql.call(step.kind, name, &marked);
        step.args.iter().enumerate().any(|(i, a)| {
            matches!(a, Operand::Local(_)) && text.matches(marked[i].as_str()).count() > 1
        })
    });
    let materialized = if copies && dialect.has_materialized() {
        "MATERIALIZED "
    } else {
        ""
    };
    let mut from = source.to_string();
    let mut ctes = Vec::new();
    for level in 1..levels {
        let cols: Vec<String> = lowered
            .steps
            .iter()
            .enumerate()
            .filter(|(_, s)| s.level == level)
            .map(|(k, _)| format!("    {} AS {name}_v{k}", expr(k)))
            .collect();
        ctes.push(format!(
            "{name}_{level} AS {materialized}(\n  SELECT *,\n{}\n  FROM {from}\n)",
            cols.join(",\n")
        ));
        from = format!("{name}_{level}");
    }
    let score = match lowered.result {
        Operand::Local(k) => expr(k),
        ref leaf => sql.operand(leaf, name),
    };
    ScoreLevels { ctes, score, from }
}

/// The SQL query computing `lowered` as column `name` of every row of `pages`.
pub(crate) fn emit(dialect: Dialect, lowered: &Lowered, name: &str, header: &[String]) -> String {
    let mut out = comment(header, Sql::COMMENT);
    let terminals: Vec<&str> = lowered.params.iter().map(|t| t.name()).collect();
    let columns = if terminals.is_empty() {
        "no terminal column".to_string()
    } else {
        format!("the terminal columns {}", terminals.join(", "))
    };
    out.push_str(dialect.notes());
    let _ = write!(
        out,
        "-- Reads {columns} of the table or view `pages` (rename it below);\n\
         -- returns every column of `pages`, helper columns {name}_v0, {name}_v1, ... and\n\
         -- the score as column `{name}`.\n"
    );
    let levels = score_levels(dialect, lowered, name, "pages");
    if !levels.ctes.is_empty() {
        let _ = writeln!(out, "WITH\n{}", levels.ctes.join(",\n"));
    }
    let _ = writeln!(
        out,
        "SELECT *,\n  {} AS {name}\nFROM {};",
        levels.score, levels.from
    );
    out
}

#[cfg(test)]
mod tests {
    use crate::export::fixtures::export_extended;
    use crate::export::Language;

    #[test]
    fn literals_are_exact_decimals_or_exact_binary_products() {
        use super::{Dialect, Sql};
        use crate::export::target::Target;
        let lit = |c: f64| Sql(Dialect::Sqlite).literal(c);
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
        let code = export_extended(Language::Sql(super::Dialect::Sqlite));
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
