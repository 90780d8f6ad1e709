//! Exporting a formula as source code: a self-contained function in Python, C, Java, Rust
//! or SQL that computes the same score as freshgp's own evaluator.
//!
//! # Arguments and their order
//!
//! The generated function returns a double and takes one argument per terminal the formula
//! reads (only those; a formula without terminals gives a function without arguments), each
//! named as the terminal (case as in docs/src/reference/terminals.md), in freshgp's column
//! order, the order of [`Terminal::ALL`](crate::formula::Terminal::ALL) and of the table of
//! docs/src/reference/terminals.md (`t n X CG NAD SAD AAD GAD w tc ...`), restricted to the
//! terminals the formula reads. [`arguments`] returns that list. The
//! order depends only on which terminals the formula reads, never on where they appear in
//! it: `MLE * w + tc` gives `(w, tc, MLE)`, and so does `tc + w * MLE`. The extended
//! terminals (`w tc n7 X7 HR MLE`) come after `GAD`, so a formula over the terminals of
//! GP4C_All exports exactly as it did before they existed. The frequency terminals of
//! learned models (`n30 X30 GR`; `GR` the rate of the page's group, which the caller
//! computes over the attribute it groups by) follow, then `P` (a learned model's predicted
//! change probability; the caller computes it with the model and passes it like any
//! terminal) and last `b`, the cycle's budget: the share `k / P` of the known pages the
//! crawler visits this cycle, the same for every page of a batch. Every export's
//! header comment repeats its arguments and the column order (for a formula that reads
//! only terminals of GP4C_All, the order of those eight, as always).
//!
//! SQL has no arguments: the query reads the same terminals as columns of `pages` by name,
//! so the table's column order does not matter; SQLite matches unquoted names ignoring
//! case, so `X7` may be stored as `x7` (no two terminal names differ only by case).
//!
//! The terminal names are identifiers in every target, none is a reserved word of one
//! (compared in lower case for SQL), none differs from another only by case, and none is
//! a name the generated code uses in the scoring function (`v0`, `v1`, ... for locals,
//! `math` and `float` in Python, `HUGE_VAL` in C, `Double` in Java, the SQL functions and
//! keywords of the query): this module's tests check every terminal. The helpers' own
//! operands `a`, `b`, `x`, `y` are local to each helper, so the terminal `b` shadows
//! nothing. The function name may not be a terminal's name (in SQL, ignoring case).
//!
//! # The code
//!
//! The protected operators of the chosen [`Closure`] are defined
//! in the output as small helper functions named `<name>_<op>` (`score_div`, `score_log`,
//! ...), so several exports can share one file.
//!
//! Constant subexpressions are folded at export time with freshgp's own operator functions
//! (as [`Program::compile`](crate::eval::Program::compile) does), so the generated code
//! evaluates only operations that read a terminal. Every remaining operator node becomes one
//! local variable (`v0`, `v1`, ... in postfix order), so the code never recurses or nests
//! deeper than one call, whatever the formula's depth. SQL has no local variables: there
//! each tree level becomes one common table expression (see [`Language::Sql`]), and each
//! [`Dialect`] writes the protected operators with its own functions.
//!
//! The export is one [`Formula::fold`](crate::formula::Formula::fold) that lowers the
//! formula to these steps, then one walk that writes them through a private `Target` trait:
//! how a language writes a literal, an infinity, a terminal, a local and a call. Python, C,
//! Java and Rust also implement `Imperative` (preamble, protected-operator helpers,
//! function header, one local per step, footer), and `emit_function` assembles them all
//! alike; SQL assembles its query from the same hooks.
//!
//! Constants are printed with Rust's shortest round-trip representation, which Python, C,
//! Java and Rust parse back to the same double; infinities use each language's constant.
//! SQL engines do not all read decimals exactly (SQLite before 3.43 misreads about 1 in
//! 4,000 random doubles), so SQL keeps a decimal only when it is the double itself with at
//! most 15 digits, and otherwise writes the exact product of an integer and powers of two,
//! `(CAST(3602879701896397 AS DOUBLE PRECISION) / 36028797018963968 /* 0.1 */)`.
//!
//! The results equal freshgp's bit for bit as long as `log`, `exp` and `pow` come from the
//! same math library (on Linux: glibc's libm, which Rust, Python, C and SQLite all call).
//! Java's `Math.log/exp/pow` are the JVM's own and can differ from glibc's in the last bit
//! for rare arguments; see [`Language::Java`].
//!
//! ```
//! use freshgp_formula::export::{arguments, export, Language};
//! use freshgp_formula::formula::{Closure, Formula, Terminal};
//!
//! let f: Formula = "X / n * t".parse().unwrap();
//! let code = export(&f, Closure::Paper, Language::Python, "score").unwrap();
//! assert!(code.contains("def score(t, n, X):"));
//! assert!(code.contains("def score_div(a, b):"));
//!
//! // Arguments in column order, wherever the terminals appear in the formula.
//! let g: Formula = "MLE * w + tc".parse().unwrap();
//! let code = export(&g, Closure::Paper, Language::C, "score")?;
//! assert!(code.contains("double score(double w, double tc, double MLE) {"));
//! assert_eq!(arguments(&g), [Terminal::W, Terminal::TC, Terminal::MLE]);
//! # Ok::<(), freshgp_formula::export::ExportError>(())
//! ```
//!
//! **Invariant:** this module reads formulas only; it knows nothing of evaluation buffers,
//! datasets, GP or the CLI.
//!
//! The parts: `lower.rs` (the steps), `target.rs` (the `Target` and `Imperative` hooks),
//! one file per target (`python.rs`, `c.rs`, `java.rs`, `rust.rs`, `sql.rs` with
//! `postgres.rs`), each with its reserved words and the names its code uses; and, here, the
//! entry points: the target [`Language`]s, [`export`] itself, the SQL score the scheduler
//! builds on ([`sql_score`]), and [`ExportError`].

mod c;
mod java;
mod lower;
mod postgres;
mod python;
mod rust;
mod sql;
mod target;

pub use lower::arguments;
pub use sql::Dialect;

#[cfg(test)]
pub(crate) use tests::fixtures;
#[cfg(test)]
mod tests;

use crate::formula::{Closure, Formula, Terminal};
use lower::Lowered;
use sql::ScoreLevels;
use std::fmt;
use std::str::FromStr;
use target::{emit_function, header, Target};

/// A target language of [`export`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Language {
    /// Python 3 (standard library `math` only). The function converts its arguments with
    /// `float()`, so ints are accepted.
    Python,
    /// C99 with `<math.h>` (link with `-lm`). Do not compile with `-ffast-math` (it breaks
    /// NaN tests and reassociates); `-ffp-contract=off` keeps the compiler from fusing a
    /// multiplication and an addition into one FMA on targets that have it.
    C,
    /// Java 8 or later: a `public final class` named after the function with its first
    /// letter upper-cased (`score` → `Score`), holding `public static double score(...)`.
    /// `Math.log`, `Math.exp` and `Math.pow` are the JVM's (HotSpot on x86-64 uses its own
    /// routines, and computes `pow(x, 2.0)` as `x * x`): they may differ from glibc's in the
    /// last bit for rare arguments (about 2 results in 10,000 in the tests; the closure rules
    /// themselves are exact).
    Java,
    /// Rust 1.66 or later (for `std::hint::black_box`, which keeps LLVM from rewriting `pow`
    /// with a constant operand), `f64` throughout, no dependencies.
    Rust,
    /// SQL for one [`Dialect`] (SQLite, DuckDB, PostgreSQL or Spark SQL): a `WITH` query
    /// that reads a table or view named `pages` with one column per terminal the formula
    /// reads (by name, in any column order; unquoted names match ignoring case), and
    /// returns every column of `pages`, one helper column per operator (`<name>_v0`, ...)
    /// and the score as column `<name>`. Each tree level is one table expression
    /// (`MATERIALIZED` where an operation reads a column more than once and the dialect
    /// has the keyword). Each dialect's protected operators are written with its own
    /// functions, guarded where the engine departs from IEEE arithmetic: see [`Dialect`]
    /// for what each one computes exactly and where not.
    Sql(Dialect),
}

impl Language {
    /// Every target language.
    pub const ALL: [Language; 8] = [
        Language::Python,
        Language::C,
        Language::Java,
        Language::Rust,
        Language::Sql(Dialect::Sqlite),
        Language::Sql(Dialect::Duckdb),
        Language::Sql(Dialect::Postgres),
        Language::Sql(Dialect::Spark),
    ];

    /// The language's name: `python`, `c`, `java`, `rust`, `sql` (SQLite), `sql/duckdb`,
    /// `sql/postgres`, `sql/spark`.
    pub fn name(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::C => "c",
            Language::Java => "java",
            Language::Rust => "rust",
            Language::Sql(Dialect::Sqlite) => "sql",
            Language::Sql(Dialect::Duckdb) => "sql/duckdb",
            Language::Sql(Dialect::Postgres) => "sql/postgres",
            Language::Sql(Dialect::Spark) => "sql/spark",
        }
    }

    /// Whether this is SQL (whose names match ignoring case).
    pub(super) fn is_sql(self) -> bool {
        matches!(self, Language::Sql(_))
    }

    /// What its target says of names: the words a function may not be named, the names
    /// its generated code uses (which no argument may be), and the names an export of a
    /// function declares.
    fn names(self) -> Names {
        fn of<T: Target>(_: &T) -> Names {
            Names {
                reserved: T::RESERVED,
                #[cfg(test)]
                generated: T::GENERATED,
                declares: T::declares,
            }
        }
        match self {
            Language::Python => of(&python::Python),
            Language::C => of(&c::C),
            Language::Java => of(&java::Java),
            Language::Rust => of(&rust::Rust),
            Language::Sql(dialect) => of(&sql::Sql(dialect)),
        }
    }

    /// The words a function may not be named (see [`Language::names`]).
    #[cfg(test)]
    pub(crate) fn reserved(self) -> &'static [&'static str] {
        self.names().reserved
    }

    /// The names the generated code uses (see [`Language::names`]).
    #[cfg(test)]
    pub(crate) fn generated(self) -> &'static [&'static str] {
        self.names().generated
    }
}

/// What a target says of names ([`Language::names`]).
struct Names {
    /// Words a function may not be named ([`Target::RESERVED`]).
    reserved: &'static [&'static str],
    /// Names the generated code uses ([`Target::GENERATED`]; the tests read them).
    #[cfg(test)]
    generated: &'static [&'static str],
    /// The names an export of a function declares ([`Target::declares`]).
    declares: fn(&str) -> Vec<String>,
}

impl Language {
    /// The language with `dialect` for SQL (`None`: the language as it is).
    ///
    /// ```
    /// use freshgp_formula::export::{Dialect, Language};
    ///
    /// let sql: Language = "sql".parse().unwrap();
    /// assert_eq!(sql.with_dialect(Some(Dialect::Duckdb)).unwrap(), Language::Sql(Dialect::Duckdb));
    /// assert!(Language::C.with_dialect(Some(Dialect::Duckdb)).is_err());
    /// ```
    ///
    /// # Errors
    /// [`ExportError::DialectNotSql`] for a dialect with another language.
    pub fn with_dialect(self, dialect: Option<Dialect>) -> Result<Language, ExportError> {
        match (self, dialect) {
            (language, None) => Ok(language),
            (Language::Sql(_), Some(d)) => Ok(Language::Sql(d)),
            (language, Some(_)) => Err(ExportError::DialectNotSql(language)),
        }
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Language {
    type Err = ExportError;

    /// Reads a language name (case-insensitive): `python`, `c`, `java`, `rust`, `sql`,
    /// `sql/duckdb`, `sql/postgres`, `sql/spark`.
    fn from_str(s: &str) -> Result<Language, ExportError> {
        Language::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| ExportError::UnknownLanguage(s.to_string()))
    }
}

/// Why a formula cannot be exported as asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    /// The function name is not an identifier of the target language.
    #[error(
        "function name `{name}`: {reason} (use letters, digits and `_`, not starting with a digit)"
    )]
    BadName {
        /// The name given.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A dialect given for a language that is not SQL.
    #[error("a dialect applies to SQL only, not to {0}")]
    DialectNotSql(Language),
    /// The language name is not one of `python c java rust sql sql/duckdb sql/postgres
    /// sql/spark`.
    #[error(
        "unknown language `{0}`: expected one of python, c, java, rust, sql, sql/duckdb, \
         sql/postgres, sql/spark"
    )]
    UnknownLanguage(String),
}

/// The source code of a function `name` that computes `formula` under `closure` in
/// `language`. See the [module documentation](self) for the function's shape.
///
/// # Errors
/// [`ExportError::BadName`] if `name` is not a plain identifier (ASCII letters, digits and
/// `_`, not starting with a digit, at most 64 characters), is (or makes the code declare,
/// as Java's class) a reserved word of the language, is a terminal's name, or looks like a
/// local variable (`v0`, `v1`, ...).
pub fn export(
    formula: &Formula,
    closure: Closure,
    language: Language,
    name: &str,
) -> Result<String, ExportError> {
    check_name(name, language)?;
    let lowered = Lowered::new(formula, closure);
    let header = header(formula, closure, &lowered);
    Ok(match language {
        Language::Python => emit_function(&python::Python, &lowered, name, &header),
        Language::C => emit_function(&c::C, &lowered, name, &header),
        Language::Java => emit_function(&java::Java, &lowered, name, &header),
        Language::Rust => emit_function(&rust::Rust, &lowered, name, &header),
        Language::Sql(dialect) => sql::emit(dialect, &lowered, name, &header),
    })
}

/// The score of `formula` under `closure` over every row of relation `source`, as `dialect`
/// table expressions with helper columns `score_v<k>` (the scheduler's batch query builds
/// on it). `source` must have one column per terminal the formula reads.
pub fn sql_score(
    formula: &Formula,
    closure: Closure,
    dialect: Dialect,
    source: &str,
) -> ScoreLevels {
    sql::score_levels(dialect, &Lowered::new(formula, closure), "score", source)
}

/// The constant `c` as a `dialect` double literal that reads back exactly.
pub fn sql_literal(dialect: Dialect, c: f64) -> String {
    sql::Sql(dialect).literal(c)
}

fn check_name(name: &str, language: Language) -> Result<(), ExportError> {
    let bad = |reason: &str| {
        Err(ExportError::BadName {
            name: name.to_string(),
            reason: reason.to_string(),
        })
    };
    let mut chars = name.chars();
    match chars.next() {
        None => return bad("it is empty"),
        Some(c) if !(c.is_ascii_alphabetic() || c == '_') => {
            return bad("it must start with an ASCII letter or `_`")
        }
        _ => {}
    }
    if !chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return bad("it may contain only ASCII letters, digits and `_`");
    }
    if name.len() > 64 {
        return bad("it is longer than 64 characters");
    }
    let rules = language.names();
    let within = |list: &[&str], word: &str| match language.is_sql() {
        true => list.contains(&word.to_ascii_lowercase().as_str()),
        false => list.contains(&word),
    };
    for declared in (rules.declares)(name) {
        let what = match declared == name {
            true => "it".to_string(),
            false => format!("`{declared}`, which its code would declare"),
        };
        if within(rules.reserved, &declared) {
            return bad(&format!(
                "{} reserves {what} (a keyword or a library name)",
                language.name()
            ));
        }
    }
    let is_terminal = Terminal::ALL.iter().any(|t| {
        if language.is_sql() {
            t.name().eq_ignore_ascii_case(name)
        } else {
            t.name() == name
        }
    });
    if is_terminal {
        return bad("it is the name of a terminal (an argument of the function)");
    }
    let local = name.len() > 1
        && (name.starts_with('v') || name.starts_with('r'))
        && name[1..].chars().all(|c| c.is_ascii_digit());
    if local {
        return bad("it would clash with the generated local variables");
    }
    Ok(())
}
