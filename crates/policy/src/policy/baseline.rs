//! The published baseline scoring functions (`docs/src/reference/policies.md#baselines`):
//! `Rand`, `Age`, `NAD`, `SAD`, `AAD`, `GAD`, `CG`, each also a formula of
//! `grammars/baselines.ron`.

use super::Features;
use crate::formula::{Formula, Grammar, Terminal};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// A published baseline scoring function (docs/src/reference/policies.md#baselines).
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
        // Invariant: grammars/baselines.ron is compiled in, and the unit test
        // `baseline_formulas_compute_the_builtin_scores` reads and parses every entry.
        let table: BTreeMap<String, String> =
            ron::from_str(BASELINES_RON).expect("invariant: grammars/baselines.ron is valid RON");
        Formula::parse(&table[self.name()], &Grammar::all())
            .expect("invariant: grammars/baselines.ron formulas parse")
    }

    /// The change-rate terminal it turns into a probability `1 - exp(-rate · t)`, if any.
    fn rate(self) -> Option<Terminal> {
        match self {
            Baseline::Nad => Some(Terminal::NAD),
            Baseline::Sad => Some(Terminal::SAD),
            Baseline::Aad => Some(Terminal::AAD),
            Baseline::Gad => Some(Terminal::GAD),
            Baseline::Rand | Baseline::Age | Baseline::Cg => None,
        }
    }

    /// The terminals its score reads.
    pub(crate) fn features(self) -> Features {
        match (self, self.rate()) {
            (_, Some(rate)) => Features::of(&[Terminal::T, rate]),
            (Baseline::Age, None) => Features::of(&[Terminal::T]),
            (Baseline::Cg, None) => Features::of(&[Terminal::CG]),
            _ => Features::NONE,
        }
    }

    /// The score from the values of its terminals (`values[t.index()]`; only those of
    /// [`Baseline::features`] are read).
    #[inline]
    pub(crate) fn score(self, value: impl Fn(Terminal) -> f64) -> f64 {
        match self {
            Baseline::Rand => 0.0,
            Baseline::Age => value(Terminal::T),
            Baseline::Cg => value(Terminal::CG),
            rated => match rated.rate() {
                Some(rate) => 1.0 - (-value(rate) * value(Terminal::T)).exp(),
                None => 0.0,
            },
        }
    }
}

impl fmt::Display for Baseline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
