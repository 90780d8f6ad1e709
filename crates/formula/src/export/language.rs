//! The export's entry points: the target [`Language`]s (with their reserved words, which a
//! function name may not be), [`export`] itself, the SQL score the scheduler builds on
//! ([`sql_score`]), and [`ExportError`].

use super::lower::Lowered;
use super::sql::{self, Dialect, ScoreLevels};
use super::target::{emit_function, header, Target};
use super::{c, java, python, rust};
use crate::formula::{Closure, Formula, Terminal};
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
    pub(super) fn is_sql(self) -> bool {
        matches!(self, Language::Sql(_))
    }

    /// Words that cannot be a function name in this language (a short, practical list).
    pub(super) fn reserved(self) -> &'static [&'static str] {
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
/// `language`. See the [module documentation](super) for the function's shape.
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
