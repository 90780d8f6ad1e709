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
//! The protected operators of the chosen [`Closure`](crate::formula::Closure) are defined
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
//! `postgres.rs`), and `language.rs`, the entry points.

mod c;
mod java;
mod language;
mod lower;
mod postgres;
mod python;
mod rust;
mod sql;
mod target;

pub use language::{export, ExportError, Language};
pub use language::{sql_literal, sql_score};
pub use lower::arguments;
pub use sql::Dialect;

#[cfg(test)]
pub(crate) use tests::fixtures;
#[cfg(test)]
mod tests;
