//! Exporting a formula as source code: a self-contained function in Python, C, Java, Rust
//! or SQL that computes the same score as freshgp's own evaluator.
//!
//! # Arguments and their order
//!
//! The generated function returns a double and takes one argument per terminal the formula
//! reads (only those; a formula without terminals gives a function without arguments),
//! each named as the terminal (case as in the SPEC), in freshgp's column order, the order
//! of [`Terminal::ALL`]:
//!
//! `t n X CG NAD SAD AAD GAD w tc n7 X7 HR MLE n30 X30 GR P`
//!
//! restricted to the terminals the formula reads. [`arguments`] returns that list. The
//! order depends only on which terminals the formula reads, never on where they appear in
//! it: `MLE * w + tc` gives `(w, tc, MLE)`, and so does `tc + w * MLE`. The extended
//! terminals of SPEC §8 (`w tc n7 X7 HR MLE`) come after `GAD`, so a formula over the
//! terminals of GP4C_All exports exactly as it did before they existed. SPEC §12's
//! frequency terminals (`n30 X30 GR`; `GR` the rate of the page's group, which the caller
//! computes over the attribute it groups by) follow, and `P` (a learned model's predicted
//! change probability) comes last; the caller computes it with the model and passes it
//! like any terminal. Every export's
//! header comment repeats its arguments and the column order (for a formula that reads
//! only terminals of GP4C_All, the order of those eight, as always).
//!
//! SQL has no arguments: the query reads the same terminals as columns of `pages` by name,
//! so the table's column order does not matter; SQLite matches unquoted names ignoring
//! case, so `X7` may be stored as `x7` (no two terminal names differ only by case).
//!
//! The terminal names are identifiers in every target, none is a reserved word of one
//! (compared in lower case for SQL), none differs from another only by case, and none is
//! a name the generated code uses itself (`v0`, `v1`, ... for locals, `a`, `b`, `x`, `y` in
//! the helpers, `math` and `float` in Python, `HUGE_VAL` in C, `Double` in Java, the SQL
//! functions and keywords of the query): this module's tests check every terminal. The
//! function name may not be a terminal's name (in SQL, ignoring case).
//!
//! # The code
//!
//! The protected operators of the chosen [`Closure`] are defined in the output as small
//! helper functions named `<name>_<op>` (`score_div`, `score_log`, ...), so several exports
//! can share one file.
//!
//! Constant subexpressions are folded at export time with freshgp's own operator functions
//! (as [`Program::compile`](crate::eval::Program::compile) does), so the generated code
//! evaluates only operations that read a terminal. Every remaining operator node becomes one
//! local variable (`v0`, `v1`, ... in postfix order), so the code never recurses or nests
//! deeper than one call, whatever the formula's depth. SQL has no local variables: there
//! each tree level becomes one common table expression (see [`Language::Sql`]), and each
//! [`Dialect`] writes the protected operators with its own functions.
//!
//! The export is one [`Formula::fold`] that lowers the formula to these steps, then one
//! walk that writes them through a private `Target` trait: how a language writes a literal,
//! an infinity, a terminal, a local and a call. Python, C, Java and Rust also implement
//! `Imperative` (preamble, protected-operator helpers, function header, one local per step,
//! footer), and `emit_function` assembles them all alike; SQL assembles its query from
//! the same hooks.
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
//! use freshgp::export::{arguments, export, Language};
//! use freshgp::formula::{Closure, Formula, Terminal};
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
//! # Ok::<(), freshgp::export::ExportError>(())
//! ```
//!
//! **Invariant:** this module reads formulas only; it knows nothing of evaluation buffers,
//! datasets, GP or the CLI.

mod c;
mod java;
mod postgres;
mod python;
mod rust;
mod sql;

pub use sql::Dialect;
pub(crate) use sql::ScoreLevels;

use crate::formula::ops::{BinaryKind, Kind, UnaryKind};
use crate::formula::{Closure, Formula, Grammar, Terminal, Visit};
use std::fmt;
use std::str::FromStr;

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
    fn is_sql(self) -> bool {
        matches!(self, Language::Sql(_))
    }

    /// Words that cannot be a function name in this language (a short, practical list).
    fn reserved(self) -> &'static [&'static str] {
        match self {
            Language::Python => PYTHON_RESERVED,
            Language::C => C_RESERVED,
            Language::Java => JAVA_RESERVED,
            Language::Rust => RUST_RESERVED,
            Language::Sql(_) => SQL_RESERVED,
        }
    }
}

/// Words that cannot be a function name in Python (a short, practical list).
const PYTHON_RESERVED: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield", "math", "float",
];

/// Words that cannot be a function name in C: keywords and the C library's names.
const C_RESERVED: &[&str] = &[
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
    "union", "unsigned", "void", "volatile", "while", "main", "log", "exp", "pow", "isnan",
    // <math.h> and <stdlib.h> names: a function of the same name would not compile.
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "exp2", "expm1",
    "log2", "log10", "log1p", "sqrt", "cbrt", "fabs", "floor", "ceil", "round", "trunc", "fmod",
    "fmin", "fmax", "hypot", "isinf", "isfinite", "signbit", "copysign", "nan", "abs", "exit",
    "free", "malloc",
];

/// Words that cannot be a class or method name in Java: keywords and java.lang classes.
const JAVA_RESERVED: &[&str] = &[
    "_",
    "abstract",
    "assert",
    "boolean",
    "break",
    "byte",
    "case",
    "catch",
    "char",
    "class",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extends",
    "final",
    "finally",
    "float",
    "for",
    "goto",
    "if",
    "implements",
    "import",
    "instanceof",
    "int",
    "interface",
    "long",
    "native",
    "new",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "short",
    "static",
    "strictfp",
    "super",
    "switch",
    "synchronized",
    "this",
    "throw",
    "throws",
    "transient",
    "try",
    "void",
    "volatile",
    "while",
    "true",
    "false",
    "null",
    "var",
    // java.lang classes the generated code uses or a class must not shadow.
    "Math",
    "Double",
    "Float",
    "Integer",
    "Long",
    "Object",
    "String",
    "System",
    "Number",
    "Boolean",
];

/// Words that cannot be a function name in Rust (a short, practical list).
const RUST_RESERVED: &[&str] = &[
    "_", "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn",
    "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
    "return", "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe",
    "use", "where", "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final",
    "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

/// Words that cannot be a function name in SQL (compared in lower case) (a short, practical list).
const SQL_RESERVED: &[&str] = &[
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
    /// The language name is not one of `python c java rust sql sql/duckdb sql/postgres
    /// sql/spark`.
    #[error(
        "unknown language `{0}`: expected one of python, c, java, rust, sql, sql/duckdb, \
         sql/postgres, sql/spark"
    )]
    UnknownLanguage(String),
}

/// The arguments of the function that [`export`] writes for `formula`, in order: the
/// terminals the formula reads, each once, in column order (the order of
/// [`Terminal::ALL`]; see the [module documentation](self)). For SQL, the columns of
/// `pages` the query reads.
pub fn arguments(formula: &Formula) -> Vec<Terminal> {
    formula.terminals()
}

/// The source code of a function `name` that computes `formula` under `closure` in
/// `language`. See the [module documentation](self) for the function's shape.
///
/// # Errors
/// [`ExportError::BadName`] if `name` is not a plain identifier (ASCII letters, digits and
/// `_`, not starting with a digit, at most 64 characters), is a reserved word of the
/// language, is a terminal's name, or looks like a local variable (`v0`, `v1`, ...).
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
pub(crate) fn sql_score(
    formula: &Formula,
    closure: Closure,
    dialect: Dialect,
    source: &str,
) -> ScoreLevels {
    sql::score_levels(dialect, &Lowered::new(formula, closure), "score", source)
}

/// The constant `c` as a `dialect` double literal that reads back exactly.
pub(crate) fn sql_literal(dialect: Dialect, c: f64) -> String {
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
    let reserved = if language.is_sql() {
        let lower = name.to_ascii_lowercase();
        language.reserved().contains(&lower.as_str())
    } else {
        language.reserved().contains(&name)
    };
    if reserved {
        return bad(&format!(
            "{} reserves it (a keyword or a library name)",
            language.name()
        ));
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

impl Kind {
    /// The helper's name suffix: `<name>_<suffix>`.
    pub(crate) fn suffix(self) -> &'static str {
        match self {
            Kind::Binary(BinaryKind::Add) => "add",
            Kind::Binary(BinaryKind::Sub) => "sub",
            Kind::Binary(BinaryKind::Mul) => "mul",
            Kind::Binary(BinaryKind::DivPaper | BinaryKind::DivReference) => "div",
            Kind::Binary(BinaryKind::Pow) => "pow",
            Kind::Unary(UnaryKind::Neg) => "neg",
            Kind::Unary(UnaryKind::LogPaper | UnaryKind::LogReference) => "log",
            Kind::Unary(UnaryKind::Exp) => "exp",
        }
    }
}

/// Where an operand's value comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Operand {
    /// A function argument.
    Var(Terminal),
    /// A constant (never NaN).
    Const(f64),
    /// The local variable `v<k>`.
    Local(usize),
}

/// One local variable: `v<k> = kind(args)`.
#[derive(Clone, Debug)]
pub(crate) struct Step {
    pub(crate) kind: Kind,
    pub(crate) args: Vec<Operand>,
    /// Height of the node once constant subtrees are folded: 1 for an operator whose
    /// operands are all leaves. SQL computes each height in one table expression.
    pub(crate) level: usize,
}

/// A formula as a straight-line program: what every target prints.
#[derive(Clone, Debug)]
pub(crate) struct Lowered {
    /// The function's arguments, in column order ([`arguments`]).
    pub(crate) params: Vec<Terminal>,
    pub(crate) steps: Vec<Step>,
    pub(crate) result: Operand,
    /// The helpers the steps call, each once, in a fixed order.
    pub(crate) kinds: Vec<Kind>,
}

impl Lowered {
    /// One [`Formula::fold`]: constant operations fold with the closure's own functions;
    /// every other operator becomes the next step.
    fn new(formula: &Formula, closure: Closure) -> Lowered {
        let mut steps: Vec<Step> = Vec::new();
        let result = formula.fold(|node| {
            let (kind, args) = match node {
                Visit::Const(c) => return Operand::Const(c),
                Visit::Var(t) => return Operand::Var(t),
                Visit::Unary(op, Operand::Const(a)) => return Operand::Const(closure.unary(op, a)),
                Visit::Binary(op, Operand::Const(a), Operand::Const(b)) => {
                    return Operand::Const(closure.binary(op, a, b))
                }
                Visit::Unary(op, a) => (Kind::Unary(UnaryKind::of(op, closure)), vec![a]),
                Visit::Binary(op, a, b) => (Kind::Binary(BinaryKind::of(op, closure)), vec![a, b]),
            };
            let level_of = |o: &Operand| match *o {
                Operand::Local(k) => steps[k].level,
                _ => 0,
            };
            let level = 1 + args.iter().map(level_of).max().unwrap_or(0);
            steps.push(Step { kind, args, level });
            Operand::Local(steps.len() - 1)
        });
        let mut kinds: Vec<Kind> = steps.iter().map(|s| s.kind).collect();
        kinds.sort();
        kinds.dedup();
        Lowered {
            params: arguments(formula),
            steps,
            result,
            kinds,
        }
    }

    /// Whether the `unnan` helper is needed (by any binary operator or `exp`).
    pub(crate) fn needs_unnan(&self) -> bool {
        self.kinds.iter().any(|k| {
            !matches!(
                k,
                Kind::Unary(UnaryKind::Neg | UnaryKind::LogPaper | UnaryKind::LogReference)
            )
        })
    }
}

/// How a target language writes operands and operations: a literal, an infinity, a
/// terminal, a local variable, a call of a protected operator. Every export uses these
/// hooks; [`Imperative`] adds the function around them.
pub(crate) trait Target {
    /// The line-comment marker (`#`, `//`, `--`).
    const COMMENT: &'static str;
    /// The literal for +inf.
    const INFINITY: &'static str;
    /// The literal for -inf.
    const NEG_INFINITY: &'static str;

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
fn emit_function<T: Imperative>(
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
fn header(formula: &Formula, closure: Closure, lowered: &Lowered) -> Vec<String> {
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
/// else every terminal (the order of [`Terminal::ALL`]).
fn column_order(params: &[Terminal]) -> String {
    let grammar = [Grammar::all(), Grammar::extended(), Grammar::predictive()]
        .into_iter()
        .find(|g| params.iter().all(|&t| g.has_terminal(t)))
        .unwrap_or_else(Grammar::predictive);
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

/// What the per-target tests export: a formula over terminals of GP4C_All and of SPEC §8,
/// written out of column order.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::{export, Closure, Formula, Language};

    /// The formula: it reads `t X GAD w tc n7 X7 HR MLE`.
    pub(crate) const EXTENDED: &str = "MLE * w + HR / tc - X7 ^ n7 + GAD * t + X";

    /// The export of [`EXTENDED`] as function `score` in `language`, after checking that its
    /// header names the arguments and the full column order.
    pub(crate) fn export_extended(language: Language) -> String {
        let f: Formula = EXTENDED.parse().unwrap();
        let code = export(&f, Closure::Paper, language, "score").unwrap();
        let line = "Arguments: t, X, GAD, w, tc, n7, X7, HR, MLE (the terminals the formula \
                    reads, in freshgp's column order t n X CG NAD SAD AAD GAD w tc n7 X7 HR MLE).";
        assert!(code.contains(line), "{language}: no `{line}` in\n{code}");
        code
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names the generated code of `language` uses itself (besides the reserved words, the
    /// locals `v<k>` and the `<name>_...` helpers), which an argument must not be.
    fn generated_names(language: Language) -> &'static [&'static str] {
        match language {
            Language::Python => &["a", "b", "x", "odd", "math", "float", "abs"],
            Language::C => &[
                "a", "b", "x", "y", "HUGE_VAL", "INFINITY", "NAN", "isnan", "fabs", "log", "exp",
                "pow",
            ],
            Language::Java => &["a", "b", "x", "Math", "Double"],
            Language::Rust => &["a", "b", "x", "f64", "std"],
            Language::Sql(_) => &[
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
            ],
        }
    }

    #[test]
    fn the_documented_column_order_is_terminal_all() {
        let order: Vec<&str> = Terminal::ALL.iter().map(|t| t.name()).collect();
        let line = format!("//! `{}`\n", order.join(" "));
        assert!(
            include_str!("mod.rs").contains(&line),
            "the docs must say {line}"
        );
        let f = f("MLE * w + HR / tc - X7 ^ n7 + GAD * t + X + SAD + CG + n + NAD + AAD + P + GR + X30 * n30");
        assert_eq!(arguments(&f), Terminal::ALL);
        assert_eq!(column_order(&arguments(&f)), order.join(" "));
        assert_eq!(
            column_order(&arguments(&self::f("X / n * t"))),
            "t n X CG NAD SAD AAD GAD"
        );
        assert_eq!(column_order(&[]), "t n X CG NAD SAD AAD GAD");
    }

    #[test]
    fn terminal_names_cannot_collide_in_any_target() {
        let g = f("t");
        for (i, t) in Terminal::ALL.iter().enumerate() {
            let name = t.name();
            // An identifier everywhere; without `_`, which every generated name but `v<k>`
            // has (`<name>_div`, SQL's `<name>_v0` and `<name>_1`).
            assert!(
                name.starts_with(|c: char| c.is_ascii_alphabetic()),
                "{name}"
            );
            assert!(name.chars().all(|c| c.is_ascii_alphanumeric()), "{name}");
            // Not a local `v<k>` (nor `r<k>`, also kept from function names).
            let local = name.len() > 1
                && name.starts_with(['v', 'V', 'r', 'R'])
                && name[1..].chars().all(|c| c.is_ascii_digit());
            assert!(!local, "{name}");
            for u in &Terminal::ALL[i + 1..] {
                assert!(
                    !name.eq_ignore_ascii_case(u.name()),
                    "{name} and {u} differ by case"
                );
            }
            for language in Language::ALL {
                let sql = language.is_sql();
                let same = |w: &&str| {
                    if sql {
                        w.eq_ignore_ascii_case(name)
                    } else {
                        *w == name
                    }
                };
                assert!(!language.reserved().iter().any(same), "{name}: {language}");
                assert!(
                    !generated_names(language).iter().any(same),
                    "{name}: {language}"
                );
                // A function may not take a terminal's name.
                assert!(export(&g, Closure::Paper, language, name).is_err());
                if sql {
                    for other_case in [name.to_ascii_lowercase(), name.to_ascii_uppercase()] {
                        assert!(export(&g, Closure::Paper, language, &other_case).is_err());
                    }
                }
            }
        }
    }

    fn f(s: &str) -> Formula {
        s.parse().unwrap()
    }

    #[test]
    fn lowering_folds_constants_and_numbers_locals() {
        let l = Lowered::new(&f("t * (2 + 3) + log(X)"), Closure::Paper);
        assert_eq!(l.params, vec![Terminal::T, Terminal::X]);
        assert_eq!(l.steps.len(), 3);
        assert_eq!(
            l.steps[0].args,
            vec![Operand::Var(Terminal::T), Operand::Const(5.0)]
        );
        assert_eq!(l.steps[0].kind, Kind::Binary(BinaryKind::Mul));
        assert_eq!(l.steps[1].kind, Kind::Unary(UnaryKind::LogPaper));
        assert_eq!(l.steps[2].args, vec![Operand::Local(0), Operand::Local(1)]);
        assert_eq!(l.steps[2].level, 2);
        assert_eq!(l.result, Operand::Local(2));
        assert_eq!(
            l.kinds,
            vec![
                Kind::Binary(BinaryKind::Add),
                Kind::Binary(BinaryKind::Mul),
                Kind::Unary(UnaryKind::LogPaper)
            ]
        );
    }

    #[test]
    fn constant_formula_has_no_steps() {
        let l = Lowered::new(&f("log(0) + 1 / 0"), Closure::Paper);
        assert!(l.steps.is_empty());
        assert_eq!(l.result, Operand::Const(0.0));
        let l = Lowered::new(&f("1 / 0"), Closure::Reference);
        assert_eq!(l.result, Operand::Const(1e6));
    }

    #[test]
    fn literals_round_trip() {
        for c in [
            0.1,
            1.0,
            -0.0,
            1e300,
            5e-324,
            f64::MAX,
            -2.5e-7,
            1e16,
            123456.0,
        ] {
            let text = finite_literal(c);
            assert_eq!(
                text.parse::<f64>().unwrap().to_bits(),
                c.to_bits(),
                "{text}"
            );
            assert!(
                text.contains(['.', 'e']),
                "{text} must not read as an integer"
            );
        }
    }

    #[test]
    fn names_are_checked() {
        let g = f("t");
        for bad in ["", "1x", "a-b", "def", "t", "v12", "x y", "é"] {
            assert!(
                matches!(
                    export(&g, Closure::Paper, Language::Python, bad),
                    Err(ExportError::BadName { .. })
                ),
                "{bad:?} accepted"
            );
        }
        assert!(export(
            &g,
            Closure::Paper,
            Language::Sql(Dialect::Postgres),
            "SELECT"
        )
        .is_err());
        assert!(export(&g, Closure::Paper, Language::Sql(Dialect::Sqlite), "x").is_err());
        assert!(export(&g, Closure::Paper, Language::C, "x").is_ok());
        assert!(export(&g, Closure::Paper, Language::Rust, "my_score2").is_ok());
    }

    #[test]
    fn language_names_round_trip() {
        for l in Language::ALL {
            assert_eq!(l.name().parse::<Language>().unwrap(), l);
        }
        assert_eq!("Python".parse::<Language>().unwrap(), Language::Python);
        assert!("cobol".parse::<Language>().is_err());
    }
}
