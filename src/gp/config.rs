//! GP settings, checked once into a [`GpConfig`] (defaults:
//! docs/src/reference/gp.md#defaults).

use super::ConstantSearch;
use crate::formula::Formula;
use serde::{Deserialize, Serialize};

/// What to do with an offspring deeper than [`RawGpConfig::max_depth`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum DepthPolicy {
    /// Draw new cut points, up to [`RawGpConfig::depth_retries`] times; if every try is too
    /// deep, the offspring is a copy of its first parent (the authors' library redraws
    /// without bound).
    #[default]
    Retry,
    /// Keep the first parent unchanged at once.
    Parent,
}

/// How parents are selected and the next population formed
/// (docs/src/reference/gp.md#selection).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Selection {
    /// Tournaments on adjusted fitness, then size; the offspring replace the parents (with
    /// elitism), as in the paper.
    #[default]
    Tournament,
    /// NSGA-II over (fitness, size): tournaments on front, then crowding distance; the
    /// next population is the survivors of parents and offspring together.
    Nsga2,
}

/// Why GP settings are unusable.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// A field is out of its range.
    #[error("{field} = {value}: {why}")]
    Invalid {
        /// The field.
        field: &'static str,
        /// Its value, printed.
        value: String,
        /// The rule it breaks.
        why: &'static str,
    },
}

/// GP settings as written in experiment files and flags (every field has the default of
/// docs/src/reference/gp.md#defaults); [`RawGpConfig::check`] turns them into a
/// [`GpConfig`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RawGpConfig {
    /// Individuals per generation.
    pub population: usize,
    /// Generations after the initial population.
    pub generations: usize,
    /// Smallest depth of ramped half-and-half creation.
    pub min_creation_depth: usize,
    /// Largest depth of ramped half-and-half creation.
    pub max_creation_depth: usize,
    /// Largest depth of any offspring.
    pub max_depth: usize,
    /// What to do with too-deep offspring.
    pub depth_policy: DepthPolicy,
    /// Tries for [`DepthPolicy::Retry`].
    pub depth_retries: usize,
    /// Tournament size.
    pub tournament: usize,
    /// Probability that an offspring is a copy of a tournament winner.
    pub reproduction: f64,
    /// Probability that a non-reproduced offspring comes from subtree crossover (else it
    /// is a copy too).
    pub crossover: f64,
    /// Probability of swap mutation (two disjoint subtrees exchange places).
    pub swap_mutation: f64,
    /// Probability of replacement mutation (a subtree replaced by a new random one).
    pub replacement_mutation: f64,
    /// Largest depth of the new subtree of replacement mutation.
    pub mutation_depth: usize,
    /// Copy the best individual to the next generation unchanged.
    pub elitism: bool,
    /// Distinct best individuals kept for validation.
    pub keep_best: usize,
    /// Fitness subtracted per node (0: none; ties prefer shorter formulas anyway).
    pub length_penalty: f64,
    /// Formulas placed in the first slots of the initial population (known good
    /// functions, so the search starts no worse than them); the rest is ramped
    /// half-and-half. Empty by default. (`initial` in older files.)
    #[serde(alias = "initial")]
    pub seed_formulas: Vec<Formula>,
    /// Whether a study or `freshgp evolve` also seeds the literature's formulas the grammar
    /// can express (`grammars/seeds.ron`), after `seed_formulas` and as many as the
    /// population holds. On by default; the GP4C paper's protocol turns it off. The engine
    /// itself reads only `seed_formulas` (see [`GpConfig::seeded`]).
    pub literature_seeds: bool,
    /// The search over the constants of the best individuals (none by default).
    pub constants: ConstantSearch,
    /// How parents are selected and the next population formed.
    pub selection: Selection,
    /// Each strategy chooses the smallest kept formula whose score is within one standard
    /// error of its best (on by default; the GP4C paper's protocol turns it off).
    pub parsimony: bool,
}

impl Default for RawGpConfig {
    fn default() -> Self {
        RawGpConfig {
            population: 300,
            generations: 50,
            min_creation_depth: 2,
            max_creation_depth: 10,
            max_depth: 17,
            depth_policy: DepthPolicy::Retry,
            depth_retries: 10,
            tournament: 2,
            reproduction: 0.15,
            crossover: 0.90,
            swap_mutation: 0.05,
            replacement_mutation: 0.05,
            mutation_depth: 4,
            elitism: true,
            keep_best: 50,
            length_penalty: 0.0,
            seed_formulas: Vec::new(),
            literature_seeds: true,
            constants: ConstantSearch::default(),
            selection: Selection::Tournament,
            parsimony: true,
        }
    }
}

/// The largest population [`RawGpConfig::check`] accepts (two generations of it are held
/// in memory, about a kilobyte per formula).
pub const MAX_POPULATION: usize = 1_000_000;

/// Checked GP settings.
///
/// **Invariant:** 2 <= population <= [`MAX_POPULATION`]; 1 <= tournament <= population; probabilities in [0, 1];
/// 1 <= min_creation_depth <= max_creation_depth <= max_depth; keep_best >= 1.
/// Depths count the nodes on the longest root-to-leaf path (a lone terminal has depth 1),
/// as in the authors' GP library.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GpConfig(RawGpConfig);

impl std::ops::Deref for GpConfig {
    type Target = RawGpConfig;
    fn deref(&self) -> &RawGpConfig {
        &self.0
    }
}

impl Default for GpConfig {
    fn default() -> Self {
        // Invariant: the book's defaults pass the check (unit test `defaults_are_the_spec`).
        RawGpConfig::default()
            .check()
            .expect("invariant: the defaults are valid")
    }
}

impl RawGpConfig {
    /// Checks every rule of [`GpConfig`].
    pub fn check(self) -> Result<GpConfig, ConfigError> {
        fn bad<T: std::fmt::Display>(
            field: &'static str,
            value: T,
            why: &'static str,
        ) -> Result<(), ConfigError> {
            Err(ConfigError::Invalid {
                field,
                value: value.to_string(),
                why,
            })
        }
        if self.population < 2 {
            bad("population", self.population, "at least 2 individuals")?;
        }
        if self.population > MAX_POPULATION {
            bad(
                "population",
                self.population,
                "at most 1,000,000 individuals (two generations of formulas, about a kilobyte \
                 each, are held in memory: a larger population would not fit)",
            )?;
        }
        if self.tournament < 1 || self.tournament > self.population {
            bad(
                "tournament",
                self.tournament,
                "between 1 and the population size",
            )?;
        }
        for (field, p) in [
            ("reproduction", self.reproduction),
            ("crossover", self.crossover),
            ("swap_mutation", self.swap_mutation),
            ("replacement_mutation", self.replacement_mutation),
        ] {
            if !(0.0..=1.0).contains(&p) {
                bad(field, p, "a probability in [0, 1]")?;
            }
        }
        if self.min_creation_depth < 1 {
            bad("min_creation_depth", self.min_creation_depth, "at least 1")?;
        }
        if self.max_creation_depth < self.min_creation_depth {
            bad(
                "max_creation_depth",
                self.max_creation_depth,
                "at least min_creation_depth",
            )?;
        }
        if self.max_depth < self.max_creation_depth {
            bad("max_depth", self.max_depth, "at least max_creation_depth")?;
        }
        if self.mutation_depth < 1 {
            bad("mutation_depth", self.mutation_depth, "at least 1")?;
        }
        if self.keep_best < 1 {
            bad("keep_best", self.keep_best, "at least 1")?;
        }
        if self.seed_formulas.len() > self.population {
            bad(
                "seed_formulas",
                self.seed_formulas.len(),
                "at most the population size",
            )?;
        }
        if self.constants.is_on() && self.constants.evaluations == 0 {
            bad(
                "constants.evaluations",
                0,
                "at least 1 when constants.individuals > 0",
            )?;
        }
        if self.constants.individuals > self.keep_best {
            bad(
                "constants.individuals",
                self.constants.individuals,
                "at most keep_best (the tuned individuals come from the kept ones)",
            )?;
        }
        if !(self.length_penalty >= 0.0 && self.length_penalty.is_finite()) {
            bad(
                "length_penalty",
                self.length_penalty,
                "a finite number >= 0",
            )?;
        }
        Ok(GpConfig(self))
    }
}

impl GpConfig {
    /// The settings as written.
    pub fn raw(&self) -> &RawGpConfig {
        &self.0
    }

    /// The settings with `more` seed formulas after [`RawGpConfig::seed_formulas`]: those
    /// not already seeded, in order, as many as the population has room for.
    pub fn seeded(mut self, more: impl IntoIterator<Item = Formula>) -> GpConfig {
        for formula in more {
            if self.0.seed_formulas.len() >= self.0.population {
                break;
            }
            if !self.0.seed_formulas.contains(&formula) {
                self.0.seed_formulas.push(formula);
            }
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_spec() {
        let c = GpConfig::default();
        assert_eq!((c.population, c.generations, c.tournament), (300, 50, 2));
        assert_eq!((c.max_creation_depth, c.keep_best), (10, 50));
        assert_eq!((c.crossover, c.reproduction), (0.9, 0.15));
    }

    #[test]
    fn bad_settings_are_named() {
        let e = RawGpConfig {
            population: 1,
            ..Default::default()
        }
        .check()
        .unwrap_err();
        assert!(e.to_string().starts_with("population = 1"), "{e}");
        let huge = RawGpConfig {
            population: 100_000_000_000,
            ..RawGpConfig::default()
        };
        let e = huge.check().unwrap_err().to_string();
        assert!(e.contains("at most 1,000,000 individuals"), "{e}");
        let e = RawGpConfig {
            tournament: 400,
            ..Default::default()
        }
        .check()
        .unwrap_err();
        assert!(e.to_string().starts_with("tournament = 400"), "{e}");
        let e = RawGpConfig {
            crossover: 1.5,
            ..Default::default()
        }
        .check()
        .unwrap_err();
        assert!(e.to_string().contains("crossover"), "{e}");
        let e = RawGpConfig {
            constants: ConstantSearch {
                individuals: 3,
                evaluations: 0,
                every: 0,
            },
            ..Default::default()
        }
        .check()
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "constants.evaluations = 0: at least 1 when constants.individuals > 0"
        );
    }

    #[test]
    fn seeding_keeps_the_given_formulas_first_and_fits_the_population() {
        let f = |text: &str| Formula::parse(text, &crate::formula::Grammar::all()).unwrap();
        let config = RawGpConfig {
            population: 3,
            seed_formulas: vec![f("t")],
            ..Default::default()
        }
        .check()
        .unwrap()
        .seeded([f("n"), f("t"), f("X"), f("CG")]);
        assert_eq!(config.seed_formulas, [f("t"), f("n"), f("X")]);
    }

    #[test]
    fn older_files_name_the_seeds_initial() {
        let c: RawGpConfig = ron::from_str(r#"(initial: ["t"])"#).unwrap();
        assert_eq!(c.seed_formulas.len(), 1);
    }
}
