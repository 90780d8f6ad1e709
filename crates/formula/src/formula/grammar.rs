//! Grammars (primitive sets): which terminals, constants and operators a search may use,
//! and under which closure formulas are evaluated. They live as RON files in `grammars/`;
//! the shipped ones are compiled in, so `Grammar::all()` needs no file at run time.
//!
//! ```
//! use freshgp_formula::formula::Grammar;
//!
//! let basic = Grammar::basic();
//! assert_eq!(basic.name(), "basic");
//! assert_eq!(basic.terminals().len(), 3);
//! assert_eq!(basic.constants().len(), 9);
//! ```

use super::lex::parse_constant;
use super::{Closure, Op, Terminal};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Why a grammar could not be read.
#[derive(Debug, thiserror::Error)]
pub enum GrammarError {
    /// The file could not be read.
    #[error("cannot read grammar file {path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The RON text does not describe a grammar.
    #[error("{origin}:{line}:{column}: {message}")]
    Syntax {
        /// File name or other origin.
        origin: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A field holds a value the grammar cannot use.
    #[error("{origin}: field `{field}`: {message}")]
    Invalid {
        /// File name or other origin.
        origin: String,
        /// The field.
        field: &'static str,
        /// What is wrong.
        message: String,
    },
    /// Neither a built-in grammar name nor an existing file.
    #[error("no grammar `{0}`: not a file, and not one of the built-in grammars ({names})", names = BUILT_IN.map(|(name, _)| name).join(", "))]
    Unknown(String),
}

/// The grammar file as written, before checking.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename = "Grammar", deny_unknown_fields)]
struct RawGrammar {
    name: String,
    #[serde(default)]
    description: String,
    terminals: Vec<String>,
    constants: Vec<String>,
    functions: Vec<String>,
    #[serde(default)]
    closure: Closure,
}

/// A checked primitive set.
///
/// **Invariant:** terminals and functions are non-empty and free of duplicates, constants
/// are finite.
#[derive(Debug, Clone, PartialEq)]
pub struct Grammar {
    name: String,
    description: String,
    terminals: Vec<Terminal>,
    constants: Vec<f64>,
    constant_texts: Vec<String>,
    functions: Vec<Op>,
    closure: Closure,
}

const BASIC: &str = include_str!("../../grammars/basic.ron");
const ALL: &str = include_str!("../../grammars/all.ron");
const BASIC_REFERENCE: &str = include_str!("../../grammars/basic-reference.ron");
const ALL_REFERENCE: &str = include_str!("../../grammars/all-reference.ron");
const EXTENDED: &str = include_str!("../../grammars/extended.ron");
const FREQUENCY: &str = include_str!("../../grammars/frequency.ron");
const PREDICTIVE: &str = include_str!("../../grammars/predictive.ron");
const BUDGET: &str = include_str!("../../grammars/budget.ron");
const EVERY: &str = include_str!("../../grammars/every.ron");

/// The grammars compiled into the crate: their names and `grammars/<name>.ron` texts.
const BUILT_IN: [(&str, &str); 9] = [
    ("basic", BASIC),
    ("all", ALL),
    ("extended", EXTENDED),
    ("budget", BUDGET),
    ("frequency", FREQUENCY),
    ("predictive", PREDICTIVE),
    ("every", EVERY),
    ("basic-reference", BASIC_REFERENCE),
    ("all-reference", ALL_REFERENCE),
];

/// A grammar compiled into the crate.
fn shipped(text: &str, path: &str) -> Grammar {
    // Invariant: the shipped grammar files are valid (every one is loaded by the tests).
    Grammar::from_ron(text, path).expect("invariant: a shipped grammar is valid")
}

/// The terminals a grammar file lists: `["*"]` (alone) is every terminal in column
/// order; otherwise each a known name, none twice, at least one. The error says why.
fn terminals_of(names: &[String]) -> Result<Vec<Terminal>, String> {
    if names == ["*"] {
        return Ok(Terminal::ALL.to_vec());
    }
    let mut terminals = Vec::new();
    for name in names {
        if name == "*" {
            return Err("`*` (every terminal) stands alone in the list".into());
        }
        let t = Terminal::from_name(name).ok_or_else(|| {
            format!(
                "unknown terminal `{name}`; the terminals are {}",
                Terminal::ALL.map(|t| t.name()).join(", ")
            )
        })?;
        if terminals.contains(&t) {
            return Err(format!("`{name}` is listed twice"));
        }
        terminals.push(t);
    }
    if terminals.is_empty() {
        return Err("at least one terminal is needed".into());
    }
    Ok(terminals)
}

impl Grammar {
    /// GP4C_Basic: `n X t` (from `grammars/basic.ron`).
    pub fn basic() -> Grammar {
        shipped(BASIC, "grammars/basic.ron")
    }

    /// GP4C_All: `n X t CG NAD SAD AAD GAD` (from `grammars/all.ron`).
    pub fn all() -> Grammar {
        shipped(ALL, "grammars/all.ron")
    }

    /// GP4C_Extended: All plus `w tc n7 X7 HR MLE` (from `grammars/extended.ron`).
    pub fn extended() -> Grammar {
        shipped(EXTENDED, "grammars/extended.ron")
    }

    /// GP4C_Budget: Extended plus `b`, the cycle's budget (from `grammars/budget.ron`).
    pub fn budget() -> Grammar {
        shipped(BUDGET, "grammars/budget.ron")
    }

    /// GP4C_Frequency: Extended plus `n30 X30 GR` (from `grammars/frequency.ron`).
    pub fn frequency() -> Grammar {
        shipped(FREQUENCY, "grammars/frequency.ron")
    }

    /// Frequency plus `P`, a learned model's prediction (from `grammars/predictive.ron`).
    pub fn predictive() -> Grammar {
        shipped(PREDICTIVE, "grammars/predictive.ron")
    }

    /// Every terminal: Predictive plus `b` (from `grammars/every.ron`), with which formulas
    /// given as policies are read when no grammar is named.
    pub fn every() -> Grammar {
        shipped(EVERY, "grammars/every.ron")
    }

    /// A built-in grammar by name (`basic`, `all`, `extended`, `budget`, `frequency`,
    /// `predictive`, `every`, `basic-reference`, `all-reference`), or else a RON grammar file at
    /// that path.
    pub fn named_or_file(spec: &str) -> Result<Grammar, GrammarError> {
        match Grammar::built_in(spec) {
            Some(grammar) => Ok(grammar),
            None if Path::new(spec).is_file() => Grammar::load(Path::new(spec)),
            None => Err(GrammarError::Unknown(spec.to_string())),
        }
    }

    /// The built-in grammar of this name (`basic`, `all`, `extended`, `budget`, `frequency`,
    /// `predictive`, `every`, `basic-reference`, `all-reference`), if it is one.
    pub fn built_in(name: &str) -> Option<Grammar> {
        BUILT_IN
            .iter()
            .find(|(known, _)| *known == name)
            .map(|(known, text)| shipped(text, &format!("grammars/{known}.ron")))
    }

    /// Reads a RON grammar file.
    pub fn load(path: &Path) -> Result<Grammar, GrammarError> {
        let text = std::fs::read_to_string(path).map_err(|source| GrammarError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Grammar::from_ron(&text, &path.display().to_string())
    }

    /// Reads a grammar from RON text; `origin` names it in errors.
    pub fn from_ron(text: &str, origin: &str) -> Result<Grammar, GrammarError> {
        let raw: RawGrammar = ron::from_str(text).map_err(|e| {
            let (line, column) = crate::place::ron_place(text, e.position);
            GrammarError::Syntax {
                origin: origin.to_string(),
                line,
                column,
                message: e.code.to_string(),
            }
        })?;
        Grammar::check(raw, origin)
    }

    fn check(raw: RawGrammar, origin: &str) -> Result<Grammar, GrammarError> {
        let invalid = |field, message: String| GrammarError::Invalid {
            origin: origin.to_string(),
            field,
            message,
        };
        let terminals = terminals_of(&raw.terminals).map_err(|why| invalid("terminals", why))?;
        let mut constants = Vec::new();
        for text in &raw.constants {
            let value = parse_constant(text)
                .map_err(|why| invalid("constants", format!("`{text}`: {why}")))?;
            constants.push(value);
        }
        let mut functions = Vec::new();
        for name in &raw.functions {
            let op = Op::from_name(name).ok_or_else(|| {
                invalid(
                    "functions",
                    format!(
                        "unknown function `{name}`; the functions are {}",
                        Op::ALL.map(|op| op.name()).join(", ")
                    ),
                )
            })?;
            if functions.contains(&op) {
                return Err(invalid("functions", format!("`{name}` is listed twice")));
            }
            functions.push(op);
        }
        if functions.is_empty() {
            return Err(invalid(
                "functions",
                "at least one function is needed".into(),
            ));
        }
        Ok(Grammar {
            name: raw.name,
            description: raw.description,
            terminals,
            constants,
            constant_texts: raw.constants,
            functions,
            closure: raw.closure,
        })
    }

    /// The grammar as RON text that [`Grammar::from_ron`] reads back.
    pub fn to_ron(&self) -> String {
        let raw = RawGrammar {
            name: self.name.clone(),
            description: self.description.clone(),
            terminals: self
                .terminals
                .iter()
                .map(|t| t.name().to_string())
                .collect(),
            constants: self.constant_texts.clone(),
            functions: self
                .functions
                .iter()
                .map(|op| op.name().to_string())
                .collect(),
            closure: self.closure,
        };
        // Invariant: a `RawGrammar` is strings, numbers and a unit enum, which RON always
        // serialises.
        ron::ser::to_string_pretty(&raw, ron::ser::PrettyConfig::default().struct_names(true))
            .expect("invariant: a grammar serialises")
    }

    /// The grammar's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The terminals formulas may read.
    pub fn terminals(&self) -> &[Terminal] {
        &self.terminals
    }

    /// Whether formulas may read `t`.
    pub fn has_terminal(&self, t: Terminal) -> bool {
        self.terminals.contains(&t)
    }

    /// The constants random formulas draw from.
    pub fn constants(&self) -> &[f64] {
        &self.constants
    }

    /// The operators random formulas are composed of.
    pub fn functions(&self) -> &[Op] {
        &self.functions
    }

    /// The protected-operator rules.
    pub fn closure(&self) -> Closure {
        self.closure
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_grammars_load() {
        let all = Grammar::all();
        assert_eq!(
            all.terminals(),
            &[
                Terminal::N,
                Terminal::X,
                Terminal::T,
                Terminal::CG,
                Terminal::NAD,
                Terminal::SAD,
                Terminal::AAD,
                Terminal::GAD
            ]
        );
        assert_eq!(
            all.constants(),
            &[
                0.001,
                0.01,
                0.1,
                0.5,
                1.0,
                std::f64::consts::E,
                10.0,
                100.0,
                1000.0
            ]
        );
        assert_eq!(all.closure(), Closure::Paper);
        assert_eq!(
            Grammar::built_in("all-reference").unwrap().closure(),
            Closure::Reference
        );
        assert_eq!(
            Grammar::basic().terminals(),
            &[Terminal::N, Terminal::X, Terminal::T]
        );
        assert_eq!(
            Grammar::built_in("basic-reference").unwrap().closure(),
            Closure::Reference
        );
    }

    #[test]
    fn ron_round_trip() {
        let all = Grammar::all();
        assert_eq!(Grammar::from_ron(&all.to_ron(), "x").unwrap(), all);
    }

    #[test]
    fn a_star_is_every_terminal_alone() {
        let every = Grammar::every();
        assert_eq!(every.terminals(), Terminal::ALL);
        assert_eq!(Grammar::from_ron(&every.to_ron(), "x").unwrap(), every);
        let mixed =
            "Grammar(name: \"x\", terminals: [\"t\", \"*\"], constants: [], functions: [\"+\"])";
        let err = Grammar::from_ron(mixed, "g").unwrap_err().to_string();
        assert!(
            err.contains("`terminals`") && err.contains("alone"),
            "{err}"
        );
    }

    #[test]
    fn misspelt_field_names_field_and_line() {
        let text =
            "Grammar(\n name: \"x\",\n terminalz: [\"t\"],\n constants: [], functions: [\"+\"])";
        let err = Grammar::from_ron(text, "g.ron").unwrap_err().to_string();
        assert!(err.starts_with("g.ron:3:"), "{err}");
        assert!(err.contains("terminalz"), "{err}");
    }

    #[test]
    fn bad_values_are_named() {
        let bad_terminal =
            "Grammar(name: \"x\", terminals: [\"q\"], constants: [], functions: [\"+\"])";
        let err = Grammar::from_ron(bad_terminal, "g")
            .unwrap_err()
            .to_string();
        assert!(err.contains("`terminals`") && err.contains("`q`"), "{err}");
        let bad_const =
            "Grammar(name: \"x\", terminals: [\"t\"], constants: [\"1e999\"], functions: [\"+\"])";
        let err = Grammar::from_ron(bad_const, "g").unwrap_err().to_string();
        assert!(
            err.contains("`constants`") && err.contains("1e999"),
            "{err}"
        );
        let bad_fn =
            "Grammar(name: \"x\", terminals: [\"t\"], constants: [], functions: [\"sin\"])";
        let err = Grammar::from_ron(bad_fn, "g").unwrap_err().to_string();
        assert!(err.contains("`functions`") && err.contains("sin"), "{err}");
    }

    #[test]
    fn every_built_in_grammar_loads_under_its_name() {
        for (name, _) in BUILT_IN {
            assert_eq!(Grammar::built_in(name).unwrap().name(), name);
        }
        assert!(Grammar::built_in("no-such").is_none());
        let message = Grammar::named_or_file("no-such").unwrap_err().to_string();
        assert!(
            message.contains(
                "(basic, all, extended, budget, frequency, predictive, every, basic-reference, all-reference)"
            ),
            "{message}"
        );
    }

    #[test]
    fn named_or_file() {
        assert_eq!(Grammar::named_or_file("basic").unwrap().name(), "basic");
        assert!(matches!(
            Grammar::named_or_file("no-such"),
            Err(GrammarError::Unknown(_))
        ));
    }
}
