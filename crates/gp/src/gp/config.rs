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
    /// ε-lexicase over the fitness's cases (every scored cycle of every training budget
    /// and metric), the smallest survivor winning; the offspring replace the parents (with
    /// elitism).
    Lexicase,
}

/// How large an offspring may be, and what to do with one that is larger.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// The deepest an offspring may be (nodes on its longest root-to-leaf path).
    pub(crate) depth: usize,
    /// The most nodes an offspring may have.
    pub(crate) size: usize,
    /// What to do with an offspring beyond a limit.
    pub(crate) policy: DepthPolicy,
    /// Tries under [`DepthPolicy::Retry`].
    pub(crate) retries: usize,
}

impl Limits {
    /// Whether `f` is within both limits.
    pub(crate) fn admit(&self, f: &Formula) -> bool {
        f.len() <= self.size && super::create::levels(f) <= self.depth
    }
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

/// Which settings a GP configuration starts from before the fields it writes
/// (docs/src/reference/gp.md#defaults).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// The search freshgp finds best ([`RawGpConfig::default`]).
    #[default]
    Search,
    /// The GP4C paper's ([`RawGpConfig::paper`]).
    Paper,
}

/// GP settings as written in experiment files and flags (every field has the default of
/// docs/src/reference/gp.md#defaults, or the paper's under `protocol: paper`);
/// [`RawGpConfig::check`] turns them into a [`GpConfig`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "Written")]
pub struct RawGpConfig {
    /// The settings the others start from (freshgp's search unless `protocol: paper`); the
    /// experiment layer also reads it (the paper's protocol averages no companion metric).
    #[serde(default)]
    pub protocol: Protocol,
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
    /// The most nodes an individual may have (none: only the depth limits size). A
    /// created tree above it is drawn shallower; an offspring above it is redrawn as one
    /// too deep is.
    pub max_size: Option<usize>,
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

/// Defines [`Written`], a [`RawGpConfig`] as a file writes it (each field optional, and the
/// protocol the missing ones come from), and its conversion.
macro_rules! written {
    ($($(#[$attr:meta])* $field:ident: $ty:ty),* $(,)?) => {
        /// A [`RawGpConfig`] as written: the fields given, over the protocol's settings.
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Written {
            #[serde(default)]
            protocol: Protocol,
            $($(#[$attr])* #[serde(default, deserialize_with = "given")] $field: Option<$ty>,)*
        }

        impl From<Written> for RawGpConfig {
            fn from(w: Written) -> RawGpConfig {
                let mut raw = match w.protocol {
                    Protocol::Search => RawGpConfig::default(),
                    Protocol::Paper => RawGpConfig::paper(),
                };
                raw.protocol = w.protocol;
                $(if let Some(v) = w.$field {
                    raw.$field = v;
                })*
                raw
            }
        }
    };
}

/// A field that is written: its value as the field's type reads it (`Some(25)` for an
/// optional one), not RON's `Some(..)` around it.
fn given<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

written! {
    population: usize,
    generations: usize,
    min_creation_depth: usize,
    max_creation_depth: usize,
    max_depth: usize,
    max_size: Option<usize>,
    depth_policy: DepthPolicy,
    depth_retries: usize,
    tournament: usize,
    reproduction: f64,
    crossover: f64,
    swap_mutation: f64,
    replacement_mutation: f64,
    mutation_depth: usize,
    elitism: bool,
    keep_best: usize,
    length_penalty: f64,
    #[serde(alias = "initial")]
    seed_formulas: Vec<Formula>,
    literature_seeds: bool,
    constants: ConstantSearch,
    selection: Selection,
    parsimony: bool,
}

impl RawGpConfig {
    /// The GP4C paper's settings (`protocol: paper`): tournaments of 2 on fitness alone,
    /// sizes limited by depth only, random formulas only, no constant search, and the
    /// choice by the best score (docs/src/reference/gp.md#defaults).
    pub fn paper() -> RawGpConfig {
        RawGpConfig {
            protocol: Protocol::Paper,
            max_size: None,
            literature_seeds: false,
            constants: ConstantSearch::default(),
            selection: Selection::Tournament,
            parsimony: false,
            ..RawGpConfig::default()
        }
    }

    /// The settings of a RON file of `RawGpConfig` fields (those it leaves out take the
    /// defaults).
    ///
    /// # Errors
    /// [`GpFileError`]: the file cannot be read, or its text is not such a record (the
    /// line and column of the mistake).
    pub fn load(path: &std::path::Path) -> Result<RawGpConfig, GpFileError> {
        crate::place::read_ron(path)
    }
}

/// Why a file of GP settings cannot be read (the error of every RON settings file).
pub type GpFileError = crate::place::RonFileError;

impl Default for RawGpConfig {
    /// The search freshgp finds best (docs/src/results/oracle.md): the paper's operators
    /// and rates with ε-lexicase selection, formulas of at most 25 nodes, the literature's
    /// formulas as seeds, the constants of the 10 best tuned, and the choice by parsimony.
    fn default() -> Self {
        RawGpConfig {
            protocol: Protocol::Search,
            population: 300,
            generations: 50,
            min_creation_depth: 2,
            max_creation_depth: 10,
            max_depth: 17,
            max_size: Some(25),
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
            constants: ConstantSearch {
                individuals: 10,
                evaluations: 50,
                every: 0,
            },
            selection: Selection::Lexicase,
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
        if let Some(size) = self.max_size {
            if size < 1 {
                bad("max_size", size, "at least 1 node")?;
            }
            if let Some(f) = self.seed_formulas.iter().find(|f| f.len() > size) {
                return Err(ConfigError::Invalid {
                    field: "seed_formulas",
                    value: f.to_string(),
                    why: "a seed formula has more nodes than max_size",
                });
            }
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
    /// The limits every offspring keeps.
    pub(crate) fn limits(&self) -> Limits {
        Limits {
            depth: self.max_depth,
            size: self.max_size.unwrap_or(usize::MAX),
            policy: self.depth_policy,
            retries: self.depth_retries,
        }
    }

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
            // A seed above the size limit cannot take part in the search.
            let fits = self.0.max_size.is_none_or(|size| formula.len() <= size);
            if fits && !self.0.seed_formulas.contains(&formula) {
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

    /// A file's fields override the protocol it starts from: freshgp's search by default,
    /// the paper's under `protocol: paper`; what is stored reads back the same.
    #[test]
    fn protocols_and_written_fields() {
        let search: RawGpConfig = ron::from_str("(population: 40)").unwrap();
        assert_eq!(search.population, 40);
        assert_eq!(
            (search.selection, search.max_size, search.parsimony),
            (Selection::Lexicase, Some(25), true)
        );
        let paper: RawGpConfig =
            ron::from_str("(protocol: paper, max_size: Some(30), tournament: 3)").unwrap();
        assert_eq!(paper.protocol, Protocol::Paper);
        assert_eq!(
            (paper.selection, paper.max_size),
            (Selection::Tournament, Some(30))
        );
        assert_eq!(
            (paper.tournament, paper.parsimony, paper.literature_seeds),
            (3, false, false)
        );
        assert!(!paper.constants.is_on());
        assert_eq!(
            RawGpConfig {
                max_size: Some(30),
                tournament: 3,
                ..RawGpConfig::paper()
            },
            paper
        );
        let json = serde_json::to_string(&paper).unwrap();
        assert_eq!(serde_json::from_str::<RawGpConfig>(&json).unwrap(), paper);
        let e = ron::from_str::<RawGpConfig>("(protocol: gp4c)").unwrap_err();
        assert!(e.to_string().contains("paper"), "{e}");
    }

    #[test]
    fn a_seed_above_the_size_limit_is_named() {
        let e = RawGpConfig {
            max_size: Some(3),
            seed_formulas: vec!["t * X + n".parse().unwrap()],
            ..RawGpConfig::default()
        }
        .check()
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "seed_formulas = t * X + n: a seed formula has more nodes than max_size"
        );
        let e = RawGpConfig {
            max_size: Some(0),
            ..RawGpConfig::default()
        }
        .check()
        .unwrap_err();
        assert!(e.to_string().starts_with("max_size = 0"), "{e}");
    }

    #[test]
    fn older_files_name_the_seeds_initial() {
        let c: RawGpConfig = ron::from_str(r#"(initial: ["t"])"#).unwrap();
        assert_eq!(c.seed_formulas.len(), 1);
    }
}
