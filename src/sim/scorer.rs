//! Scoring functions: evolved formulas and the published baselines, behind one type.
//!
//! A [`Scorer`] turns page statistics into scores for a batch of pages. Formulas run as
//! compiled [`Program`]s; the baselines (SPEC §4) are built in, and also written as
//! formulas in `grammars/baselines.ron` ([`Baseline::formula`]).

use super::stats::PageStats;
use crate::eval::{Columns, Program, Scratch};
use crate::formula::{Closure, Formula, Grammar, Terminal};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// A published baseline scoring function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Baseline {
    /// Uniformly random order (seeded).
    Rand,
    /// `t`: the longest-unvisited first.
    Age,
    /// `1 - exp(-NAD·t)`.
    #[serde(rename = "NAD")]
    Nad,
    /// `1 - exp(-SAD·t)`.
    #[serde(rename = "SAD")]
    Sad,
    /// `1 - exp(-AAD·t)`.
    #[serde(rename = "AAD")]
    Aad,
    /// `1 - exp(-GAD·t)`.
    #[serde(rename = "GAD")]
    Gad,
    /// Cho & Garcia-Molina's change rate (no `t`).
    #[serde(rename = "CG")]
    Cg,
}

const BASELINES_RON: &str = include_str!("../../grammars/baselines.ron");

impl Baseline {
    /// All seven, in the order of the paper's tables.
    pub const ALL: [Baseline; 7] = [
        Baseline::Rand,
        Baseline::Age,
        Baseline::Nad,
        Baseline::Sad,
        Baseline::Aad,
        Baseline::Gad,
        Baseline::Cg,
    ];

    /// The name used in tables and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Baseline::Rand => "Rand",
            Baseline::Age => "Age",
            Baseline::Nad => "NAD",
            Baseline::Sad => "SAD",
            Baseline::Aad => "AAD",
            Baseline::Gad => "GAD",
            Baseline::Cg => "CG",
        }
    }

    /// The baseline with this name (case-insensitive).
    pub fn from_name(name: &str) -> Option<Baseline> {
        Baseline::ALL
            .into_iter()
            .find(|b| b.name().eq_ignore_ascii_case(name))
    }

    /// Whether its ranking depends on the random tie-break only.
    pub fn is_random(self) -> bool {
        self == Baseline::Rand
    }

    /// The baseline as a formula, from `grammars/baselines.ron`.
    pub fn formula(self) -> Formula {
        let table: BTreeMap<String, String> =
            ron::from_str(BASELINES_RON).expect("grammars/baselines.ron is valid RON");
        let text = &table[self.name()];
        Formula::parse(text, &Grammar::all()).expect("grammars/baselines.ron formulas parse")
    }

    /// The baseline's score for a page at cycle `d`.
    #[inline]
    pub fn score(self, s: &PageStats, d: u32) -> f64 {
        let probability = |rate: f64| 1.0 - (-rate * s.age(d)).exp();
        match self {
            Baseline::Rand => 0.0,
            Baseline::Age => s.age(d),
            Baseline::Nad => probability(s.nad(d)),
            Baseline::Sad => probability(s.sad(d)),
            Baseline::Aad => probability(s.aad(d)),
            Baseline::Gad => probability(s.gad(d)),
            Baseline::Cg => s.cg(),
        }
    }
}

impl fmt::Display for Baseline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A scoring function the simulator can run.
#[derive(Debug, Clone)]
pub enum Scorer {
    /// A compiled formula.
    Formula {
        /// The compiled program.
        program: Program,
        /// The formula, for reports.
        formula: Formula,
    },
    /// A built-in baseline.
    Baseline(Baseline),
}

impl Scorer {
    /// A formula evaluated under `closure`.
    pub fn formula(formula: &Formula, closure: Closure) -> Scorer {
        Scorer::Formula {
            program: Program::compile(formula, closure),
            formula: formula.clone(),
        }
    }

    /// A human-readable name: the baseline's name or the formula text.
    pub fn label(&self) -> String {
        match self {
            Scorer::Formula { formula, .. } => formula.to_string(),
            Scorer::Baseline(b) => b.name().to_string(),
        }
    }

    /// Scores pages with statistics `stats` at cycle `d` into `out`. `columns` is
    /// caller-owned space for terminal values, reused across calls.
    pub(crate) fn score_into(
        &self,
        stats: &[PageStats],
        d: u32,
        out: &mut [f64],
        buffers: &mut ScoreBuffers,
    ) {
        match self {
            Scorer::Baseline(b) => {
                for (o, s) in out.iter_mut().zip(stats) {
                    *o = b.score(s, d);
                }
            }
            Scorer::Formula { program, .. } => {
                let n = stats.len();
                for &t in program.terminals() {
                    let column = &mut buffers.columns[t.index()];
                    column.clear();
                    column.extend(stats.iter().map(|s| s.terminal(t, d)));
                }
                let mut columns = Columns::new(n);
                for &t in program.terminals() {
                    columns = columns.with(t, &buffers.columns[t.index()]);
                }
                program.eval_batch(&columns, &mut out[..n], &mut buffers.scratch);
            }
        }
    }

    /// The score of a single page (for the reference simulator and the scheduler).
    pub fn score_one(&self, s: &PageStats, d: u32) -> f64 {
        match self {
            Scorer::Baseline(b) => b.score(s, d),
            Scorer::Formula { program, .. } => program.eval_one(&s.terminals(d)),
        }
    }
}

/// Reusable space for [`Scorer::score_into`].
#[derive(Debug, Default, Clone)]
pub(crate) struct ScoreBuffers {
    columns: [Vec<f64>; Terminal::COUNT],
    scratch: Scratch,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn baseline_formulas_compute_the_builtin_scores() {
        let mut pages = Vec::new();
        let mut s = PageStats::default();
        for d in 1..=12u32 {
            s.visit(d, d % 3 == 0 || d == 4);
            pages.push(s);
        }
        for b in Baseline::ALL {
            let f = Scorer::formula(&b.formula(), Closure::Paper);
            for s in &pages {
                for d in s.last_visit + 1..s.last_visit + 5 {
                    let built_in = Scorer::Baseline(b).score_one(s, d);
                    assert_eq!(
                        f.score_one(s, d).to_bits(),
                        built_in.to_bits(),
                        "{b} at {d}"
                    );
                }
            }
        }
    }

    #[test]
    fn names_round_trip() {
        for b in Baseline::ALL {
            assert_eq!(Baseline::from_name(b.name()), Some(b));
        }
    }
}
