//! `freshgp formula`: check, simplify, print, evaluate and export formulas from the command
//! line.

use crate::common::parse_formula;
use anyhow::{Context, Result};
use clap::{Subcommand, ValueEnum};
use freshgp::eval::Program;
use freshgp::export::{export, Dialect, ExportError, Language};
use freshgp::formula::{Formula, Grammar, Latex, Terminal};
use std::io::Write;

/// Flags of `freshgp formula`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(Subcommand)]
enum Action {
    /// Parse a formula and print it back (simplified, canonical or as LaTeX).
    Print {
        /// The formula text, e.g. "1 - exp(-NAD * t)" (it may start with `-`).
        #[arg(allow_hyphen_values = true)]
        formula: String,
        /// Grammar whose terminals the formula may use: basic, all, extended, budget,
        /// frequency, predictive, every, basic-reference, all-reference, or a RON file.
        #[arg(long, default_value = "all")]
        grammar: String,
        /// How to print it.
        #[arg(long, value_enum, default_value_t = Style::Text)]
        style: Style,
    },
    /// Evaluate a formula for one page: give terminal values as NAME=VALUE.
    Eval {
        /// The formula text (it may start with `-`).
        #[arg(allow_hyphen_values = true)]
        formula: String,
        /// Terminal values, e.g. t=3 n=5 X=2 (missing terminals are 0).
        values: Vec<String>,
        /// Grammar (its closure decides protected-operator values).
        #[arg(long, default_value = "all")]
        grammar: String,
    },
    /// Print a self-contained function (protected operators included) that computes the
    /// formula's score from the terminal values exactly as freshgp does.
    Export {
        /// The formula text (it may start with `-`).
        #[arg(allow_hyphen_values = true)]
        formula: String,
        /// Target language: python (3, standard library only), c (C99 with <math.h>), java
        /// (8+, a class holding a static method), rust (no dependencies) or sql (a query
        /// over a table `pages`; SQLite unless `--dialect`, or sql/duckdb, sql/postgres,
        /// sql/spark).
        #[arg(long = "to", value_parser = parse_language)]
        to: Language,
        /// Grammar (its closure decides the protected-operator semantics of the code).
        #[arg(long, default_value = "all")]
        grammar: String,
        /// Name of the generated function (SQL: of the score column).
        #[arg(long, default_value = "score")]
        name: String,
        /// With `--to sql`: the engine the query is for: sqlite (the default), duckdb,
        /// postgres or spark.
        #[arg(long, value_parser = crate::common::parse_dialect)]
        dialect: Option<Dialect>,
    },
}

/// `--to`: a language's name.
fn parse_language(s: &str) -> Result<Language, ExportError> {
    s.parse()
}

#[derive(Clone, Copy, ValueEnum)]
enum Style {
    /// As parsed.
    Text,
    /// Constants folded, neutral operations removed.
    Simplified,
    /// Simplified with commutative operands ordered (what the GP cache keys on when
    /// values count).
    Canonical,
    /// A shorter formula that ranks pages as this one does: increasing functions of the
    /// whole stripped (what a top-k search keys on and reports).
    Rank,
    /// LaTeX math.
    Latex,
}

/// Runs `freshgp formula`; output goes to a locked stdout, so a closed pipe is an
/// error (ending quietly in `main`), not a panic.
pub fn run(args: Args) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match args.action {
        Action::Print {
            formula,
            grammar,
            style,
        } => {
            let grammar = Grammar::named_or_file(&grammar)?;
            let f = parse_formula(&formula, &grammar)?;
            let closure = grammar.closure();
            match style {
                Style::Text => writeln!(out, "{f}")?,
                Style::Simplified => writeln!(out, "{}", f.simplify(closure))?,
                Style::Canonical => writeln!(out, "{}", f.canonical(closure))?,
                Style::Rank => writeln!(out, "{}", f.rank_simplify(closure))?,
                Style::Latex => writeln!(out, "{}", Latex(&f))?,
            }
        }
        Action::Eval {
            formula,
            values,
            grammar,
        } => {
            let grammar = Grammar::named_or_file(&grammar)?;
            let f = parse_formula(&formula, &grammar)?;
            let terminals = terminal_values(&f, &values)?;
            let program = Program::compile(&f, grammar.closure());
            writeln!(out, "{}", program.eval_one(&terminals))?;
        }
        Action::Export {
            formula,
            to,
            grammar,
            name,
            dialect,
        } => {
            let language = to.with_dialect(dialect).context("--dialect")?;
            let grammar = Grammar::named_or_file(&grammar)?;
            let f = parse_formula(&formula, &grammar)?;
            let code = export(&f, grammar.closure(), language, &name)?;
            write!(out, "{code}")?;
        }
    }
    Ok(())
}

/// The terminal values given as `NAME=VALUE` for `formula`: each a terminal it reads, given
/// once, with a finite value (the simulation never feeds NaN or ±inf); the others are 0.
fn terminal_values(formula: &Formula, values: &[String]) -> Result<[f64; Terminal::COUNT]> {
    let reads = formula.terminals();
    let mut terminals = [0.0; Terminal::COUNT];
    let mut given = [false; Terminal::COUNT];
    for value in values {
        let (name, number) = value
            .split_once('=')
            .with_context(|| format!("`{value}`: expected NAME=VALUE, e.g. t=3"))?;
        let t = Terminal::from_name(name.trim())
            .with_context(|| format!("`{value}`: `{name}` is not a terminal"))?;
        if !reads.contains(&t) {
            let names: Vec<String> = reads.iter().map(|t| t.to_string()).collect();
            anyhow::bail!(
                "`{value}`: the formula does not read {t} (it reads {})",
                if names.is_empty() {
                    "no terminal".to_string()
                } else {
                    names.join(", ")
                }
            );
        }
        if std::mem::replace(&mut given[t.index()], true) {
            anyhow::bail!("`{value}`: {t} is given twice");
        }
        let number: f64 = number
            .trim()
            .parse()
            .with_context(|| format!("`{value}`: `{number}` is not a number"))?;
        if !number.is_finite() {
            anyhow::bail!("`{value}`: {number} is not a finite number (terminal values are)");
        }
        terminals[t.index()] = number;
    }
    Ok(terminals)
}
