//! The literature's crawl policies that are formulas over the terminals
//! (`grammars/seeds.ron`): the baselines, the rankings of the rate policies `change` and
//! `weight`, the chance of a change by the MLE, and the crawl value. A search starts from
//! those its grammar can express (`docs/src/reference/gp.md#seeds`), so that it starts at
//! least as good as the best of them.

use crate::formula::{Formula, Grammar};

const SEEDS_RON: &str = include_str!("../../grammars/seeds.ron");

/// A policy of the literature written as a formula.
#[derive(Debug, Clone, PartialEq)]
pub struct LiteratureFormula {
    /// Its short name (`NAD`, `value`, ...).
    pub name: &'static str,
    /// The formula, over every terminal (parsed with the predictive grammar).
    pub formula: Formula,
    /// Where it comes from, in a few words.
    pub source: &'static str,
}

/// Every formula of `grammars/seeds.ron`, in its order.
pub fn literature_formulas() -> Vec<LiteratureFormula> {
    // Invariant: grammars/seeds.ron is compiled in, and the unit test
    // `every_literature_formula_parses` reads and parses every entry.
    let table: Vec<(&'static str, &'static str, &'static str)> =
        ron::from_str(SEEDS_RON).expect("invariant: grammars/seeds.ron is valid RON");
    let every_terminal = Grammar::every();
    table
        .into_iter()
        .map(|(name, text, source)| LiteratureFormula {
            name,
            formula: Formula::parse(text, &every_terminal)
                .expect("invariant: grammars/seeds.ron formulas parse"),
            source,
        })
        .collect()
}

/// The formulas of [`literature_formulas`] whose terminals `grammar` has, in order.
pub fn literature_seeds(grammar: &Grammar) -> Vec<LiteratureFormula> {
    literature_formulas()
        .into_iter()
        .filter(|s| {
            s.formula
                .terminals()
                .iter()
                .all(|&t| grammar.has_terminal(t))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Baseline;

    #[test]
    fn every_literature_formula_parses() {
        let all = literature_formulas();
        assert_eq!(all.len(), 12);
        let mut names: Vec<&str> = all.iter().map(|s| s.name).collect();
        names.dedup();
        assert_eq!(names.len(), all.len(), "names are distinct");
        assert!(all.iter().all(|s| !s.source.is_empty()));
    }

    #[test]
    fn the_baselines_are_seeded_as_written_in_baselines_ron() {
        let all = literature_formulas();
        for b in Baseline::ALL.iter().filter(|b| !b.is_random()) {
            let seed = all.iter().find(|s| s.name == b.name()).expect("seeded");
            assert_eq!(seed.formula, b.formula(), "{}", b.name());
        }
    }

    #[test]
    fn a_grammar_seeds_what_it_can_express() {
        let names =
            |g: &Grammar| -> Vec<&str> { literature_seeds(g).iter().map(|s| s.name).collect() };
        assert_eq!(names(&Grammar::basic()), ["Age"]);
        assert_eq!(
            names(&Grammar::all()),
            ["Age", "NAD", "SAD", "AAD", "GAD", "CG"]
        );
        assert_eq!(literature_seeds(&Grammar::extended()).len(), 12);
    }
}
