//! One rotation of the paper's protocol (docs/src/reference/folds.md#rotations,
//! docs/src/reference/gp.md).
//!
//! For each seed: evolve on the training set (period 1), keep the best distinct
//! individuals, simulate them on the validation set (period 2), choose the final
//! function by Best, Sum_σ and Avg_σ, and simulate the three choices on the test set
//! (period 3). The winner across seeds, per strategy, is the seed whose choice has the
//! highest strategy score (train and validation only: the test set never decides).
//!
//! With a [page sample](EvolveSettings::train_sample) the search evaluates its formulas
//! on a share of the training pages, whole hosts at a time; the kept individuals (the
//! hall of fame, the front, the seeds) are then evaluated again on every training page,
//! and the choice, the distillation and the chosen formulas' training figures read those;
//! the generations' figures stay the sample's
//! (docs/src/reference/gp.md#searching-on-a-sample-of-the-pages).

use super::fitness::{scorer_of, CrawlFitness};
use super::{ExperimentError, Set};
use crate::data::sample::PageSample;
use crate::data::split::{Horizon, Split};
use crate::data::Dataset;
use crate::formula::{Formula, Grammar, Terminal};
use crate::gp::{
    self, evaluate_all, Candidate, ConfigError, Fitness, GenerationReport, GpConfig, RawGpConfig,
    Strategy,
};
use crate::metric::{CycleMetrics, Metric};
use crate::policy::{Policy, Predictor, Scorer};
use crate::sim::{Outcome, Period, SimConfig, Simulator};
use serde::{Deserialize, Serialize};
use std::ops::ControlFlow;
use std::time::Instant;

/// One value per selection [`Strategy`], indexed by the strategy: a lookup cannot miss.
///
/// Serialized as a list in [`Strategy::ALL`] order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PerStrategy<T>([T; 3]);

impl<T> PerStrategy<T> {
    /// `f(strategy)` for every strategy.
    pub fn from_fn(mut f: impl FnMut(Strategy) -> T) -> PerStrategy<T> {
        PerStrategy(Strategy::ALL.map(&mut f))
    }

    /// The values in [`Strategy::ALL`] order.
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.0.iter()
    }

    /// The position of `strategy` in [`Strategy::ALL`].
    fn slot(strategy: Strategy) -> usize {
        match strategy {
            Strategy::Best => 0,
            Strategy::SumSigma => 1,
            Strategy::AvgSigma => 2,
        }
    }
}

impl<T> std::ops::Index<Strategy> for PerStrategy<T> {
    type Output = T;

    fn index(&self, strategy: Strategy) -> &T {
        &self.0[Self::slot(strategy)]
    }
}

impl<'a, T> IntoIterator for &'a PerStrategy<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// The three choices of a seed, one per strategy.
///
/// **Invariant:** the choice at strategy `s` was chosen by `s`; checked when read back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "Vec<Choice>", into = "Vec<Choice>")]
pub struct Choices(PerStrategy<Choice>);

impl Choices {
    /// The choice of every strategy, from `f`; `f(s).strategy` must be `s`.
    fn from_fn(f: impl FnMut(Strategy) -> Choice) -> Choices {
        Choices(PerStrategy::from_fn(f))
    }

    /// The choices in [`Strategy::ALL`] order.
    pub fn iter(&self) -> std::slice::Iter<'_, Choice> {
        self.0.iter()
    }
}

impl std::ops::Index<Strategy> for Choices {
    type Output = Choice;

    fn index(&self, strategy: Strategy) -> &Choice {
        &self.0[strategy]
    }
}

impl<'a> IntoIterator for &'a Choices {
    type Item = &'a Choice;
    type IntoIter = std::slice::Iter<'a, Choice>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl TryFrom<Vec<Choice>> for Choices {
    type Error = String;

    fn try_from(choices: Vec<Choice>) -> Result<Choices, String> {
        let found: Vec<Strategy> = choices.iter().map(|c| c.strategy).collect();
        let array: [Choice; 3] = choices.try_into().map_err(|_| {
            format!(
                "expected one choice per strategy (best, sum_sigma, avg_sigma), found {found:?}"
            )
        })?;
        if array
            .iter()
            .zip(Strategy::ALL)
            .any(|(c, s)| c.strategy != s)
        {
            return Err(format!(
                "expected the choices of best, sum_sigma and avg_sigma in this order, found {found:?}"
            ));
        }
        Ok(Choices(PerStrategy(array)))
    }
}

impl From<Choices> for Vec<Choice> {
    fn from(choices: Choices) -> Vec<Choice> {
        choices.0 .0.into()
    }
}

/// Optional changes to a GP configuration (e.g. from command-line flags).
#[derive(Debug, Clone, Default)]
pub struct GpOverrides {
    /// Population size.
    pub population: Option<usize>,
    /// Generations.
    pub generations: Option<usize>,
    /// Tournament size.
    pub tournament: Option<usize>,
    /// Seed formulas, after those of the configuration.
    pub seed_formulas: Vec<Formula>,
    /// Whether to seed the literature's formulas too (`None`: as configured).
    pub literature_seeds: Option<bool>,
}

/// Why overridden GP settings are unusable.
#[derive(Debug, thiserror::Error)]
pub enum OverrideError {
    /// A seed formula reads a terminal the grammar lacks.
    #[error("seed formula `{formula}` reads {terminal}, which grammar `{grammar}` lacks")]
    Terminal {
        /// The formula.
        formula: Formula,
        /// The first terminal it reads that the grammar lacks.
        terminal: Terminal,
        /// The grammar's name.
        grammar: String,
    },
    /// A GP parameter is out of range.
    #[error("invalid GP settings")]
    Config(#[from] ConfigError),
}

/// Applies `overrides` to `raw`, checks that every seed formula fits `grammar`, checks the
/// result and adds the literature's seeds when `literature_seeds` is on.
pub fn apply_overrides(
    mut raw: RawGpConfig,
    overrides: &GpOverrides,
    grammar: &Grammar,
) -> Result<GpConfig, OverrideError> {
    if let Some(p) = overrides.population {
        raw.population = p;
    }
    if let Some(g) = overrides.generations {
        raw.generations = g;
    }
    if let Some(t) = overrides.tournament {
        raw.tournament = t;
    }
    raw.seed_formulas
        .extend(overrides.seed_formulas.iter().cloned());
    if let Some(literature) = overrides.literature_seeds {
        raw.literature_seeds = literature;
    }
    check_seeds(&raw.seed_formulas, grammar)?;
    Ok(seeded(raw.check()?, grammar))
}

/// Checks that every formula of `seeds` reads only terminals of `grammar`.
///
/// # Errors
/// [`OverrideError::Terminal`] naming the first formula that does not.
pub fn check_seeds(seeds: &[Formula], grammar: &Grammar) -> Result<(), OverrideError> {
    for formula in seeds {
        if let Some(&terminal) = formula
            .terminals()
            .iter()
            .find(|&&t| !grammar.has_terminal(t))
        {
            return Err(OverrideError::Terminal {
                formula: formula.clone(),
                terminal,
                grammar: grammar.name().to_string(),
            });
        }
    }
    Ok(())
}

/// `gp` with the literature's formulas that `grammar` can express
/// ([`literature_seeds`](crate::policy::literature_seeds)) after its own seeds, when
/// [`RawGpConfig::literature_seeds`] is on.
pub(crate) fn seeded(gp: GpConfig, grammar: &Grammar) -> GpConfig {
    if !gp.literature_seeds {
        return gp;
    }
    let literature = crate::policy::literature_seeds(grammar);
    gp.seeded(literature.into_iter().map(|s| s.formula))
}

/// What to evolve and how.
#[derive(Debug, Clone)]
pub struct EvolveSettings {
    /// Terminals, constants, functions and closure.
    pub grammar: Grammar,
    /// Fitness metric (also what the selections compare).
    pub metric: Metric,
    /// Metrics the fitness also averages over, each relative to the fittest seed at each
    /// budget (docs/src/reference/gp.md#fitness-over-several-metrics); empty: `metric`
    /// alone.
    pub also: Vec<Metric>,
    /// GP parameters.
    pub gp: GpConfig,
    /// Simulation settings.
    pub sim: SimConfig,
    /// One run per seed.
    pub seeds: Vec<u64>,
    /// The cycles the test set is simulated over.
    pub horizon: Horizon,
    /// The budgets formulas are trained and validated over, relative to the fittest seed
    /// at each (docs/src/reference/gp.md#training-budgets); empty: `sim`'s alone.
    pub train_resources: Vec<f64>,
    /// The learned model that gives `P` (docs/src/reference/terminals.md#p): needed exactly
    /// when the grammar has `P`.
    pub model: Option<Predictor>,
    /// The share of the training pages the search evaluates its formulas on, whole hosts
    /// at a time (docs/src/reference/gp.md#searching-on-a-sample-of-the-pages); the kept
    /// individuals are judged on every training page. `None`: every page throughout.
    pub train_sample: Option<PageSample>,
}

impl EvolveSettings {
    /// The policy of an evolved formula: under the grammar's closure, its `P` (if it
    /// reads it) given by the settings' model.
    ///
    /// # Panics
    /// For a formula that reads `P` when the settings have no model, which
    /// [`EvolveSettings::check_model`] refuses before any evolution.
    pub fn policy(&self, formula: &Formula) -> Policy {
        self.scorer(formula).into()
    }

    /// [`EvolveSettings::policy`] as a scorer (a bandit's arm).
    ///
    /// # Panics
    /// As [`EvolveSettings::policy`].
    pub fn scorer(&self, formula: &Formula) -> Scorer {
        scorer_of(formula, self.grammar.closure(), self.model.as_ref())
    }

    /// Checks that the settings have a model exactly when the grammar has `P`.
    ///
    /// # Errors
    /// [`ExperimentError::ModelMissing`] or [`ExperimentError::ModelUnused`].
    pub fn check_model(&self) -> Result<(), ExperimentError> {
        let grammar = self.grammar.name().to_string();
        match (self.grammar.has_terminal(Terminal::P), &self.model) {
            (true, None) => Err(ExperimentError::ModelMissing { grammar }),
            (false, Some(m)) => Err(ExperimentError::ModelUnused {
                path: m.path().to_string(),
                grammar,
            }),
            _ => Ok(()),
        }
    }
}

/// One generation's figures, as reported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GenerationSummary {
    /// 0 for the initial population.
    pub generation: usize,
    /// Best training fitness.
    pub best: f64,
    /// Mean training fitness.
    pub mean: f64,
    /// Simulations run.
    pub evaluated: usize,
    /// Fitness values taken from the cache.
    pub cache_hits: usize,
    /// Best formula of the generation.
    pub best_formula: Formula,
}

/// A chosen function and its figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    /// The strategy that chose it.
    pub strategy: Strategy,
    /// The formula, simplified (parses back).
    pub formula: Formula,
    /// Training fitness.
    pub train: f64,
    /// Validation fitness.
    pub validation: f64,
    /// Test fitness (the same metric).
    pub test: f64,
    /// The strategy's score (what the choice maximised).
    pub score: f64,
    /// The formula the choice was distilled from, when distillation shortened it
    /// (docs/src/reference/gp.md#distillation); `None` otherwise, and in results of older
    /// versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undistilled: Option<Formula>,
    /// Test-period metrics per cycle.
    #[serde(deserialize_with = "super::stored::cycles")]
    pub test_cycles: Vec<CycleMetrics>,
}

/// A seed formula's figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeedFigures {
    /// The formula.
    pub formula: Formula,
    /// Training fitness.
    pub train: f64,
    /// Validation fitness.
    pub validation: f64,
}

/// A formula on the Pareto front of size against validation fitness.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FrontPoint {
    /// The formula, simplified.
    pub formula: Formula,
    /// Its nodes.
    pub size: usize,
    /// Training fitness.
    pub train: f64,
    /// Validation fitness.
    pub validation: f64,
}

/// One seed's run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeedRun {
    /// The seed.
    pub seed: u64,
    /// Per-generation progress.
    pub generations: Vec<GenerationSummary>,
    /// Simulations run.
    pub evaluations: usize,
    /// Fitness values taken from the cache.
    pub cache_hits: usize,
    /// The fittest seed formula on the training set (`None` when the run had no seeds):
    /// where the search started from.
    #[serde(default)]
    pub best_seed: Option<SeedFigures>,
    /// The kept formulas no other beats on both size and validation fitness, smallest
    /// first (empty in results of older versions).
    #[serde(default)]
    pub front: Vec<FrontPoint>,
    /// Best, Sum_σ and Avg_σ choices.
    pub choices: Choices,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// All seeds of one rotation.
#[derive(Debug, Clone, Serialize)]
pub struct RotationRun {
    /// The rotation (which page fold is the test set).
    pub rotation: usize,
    /// Pages in the training, validation and test sets.
    pub set_sizes: [usize; 3],
    /// Pages in the training sample the search evaluated on, with a
    /// [page sample](EvolveSettings::train_sample).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sample_pages: Option<usize>,
    /// One run per seed.
    pub seeds: Vec<SeedRun>,
    /// Per strategy, the winning seed.
    pub winners: PerStrategy<usize>,
}

impl RotationRun {
    /// The winning choice of `strategy` across seeds.
    pub fn winner(&self, strategy: Strategy) -> &Choice {
        // Invariant: `winners` are indices into `seeds`, as `winners()` returns them.
        &self.seeds[self.winners[strategy]].choices[strategy]
    }
}

/// Progress events of [`run_rotation`].
#[derive(Debug)]
pub enum Progress<'a> {
    /// A generation finished.
    Generation {
        /// Index of the seed in the settings (0-based).
        seed_index: usize,
        /// The seed.
        seed: u64,
        /// The generation's report.
        report: &'a GenerationReport,
    },
    /// Validating and testing the kept individuals of a seed.
    Selecting {
        /// Index of the seed.
        seed_index: usize,
    },
}

/// The three sets of one rotation.
pub(crate) struct RotationSets {
    /// Training pages over period 1.
    pub train: Period,
    /// Validation pages over period 2.
    pub validation: Period,
    /// Test pages over period 3.
    pub test: Period,
    /// The training sample over period 1, with a page sample.
    pub sample: Option<Period>,
}

impl RotationSets {
    /// Builds the sets of `rotation`, its test set over `horizon`, and `sample` of its
    /// training pages.
    pub fn new(
        dataset: &Dataset,
        rotation: usize,
        horizon: Horizon,
        sample: Option<PageSample>,
    ) -> Result<RotationSets, ExperimentError> {
        let split = Split::new(dataset.pages(), dataset.cycles(), rotation)?
            .with_horizon(horizon, dataset.cycles());
        let sample = sample
            .map(|share| {
                let pages = share.pages(dataset, &split.train);
                Period::new(dataset, &pages, split.train_cycles.clone())
            })
            .transpose()?;
        Ok(RotationSets {
            train: Period::new(dataset, &split.train, split.train_cycles.clone())?,
            validation: Period::new(dataset, &split.validation, split.validation_cycles.clone())?,
            test: Period::new(dataset, &split.test, split.test_cycles.clone())?,
            sample,
        })
    }
}

fn fitness_for(
    set: Set,
    period: &Period,
    settings: &EvolveSettings,
) -> Result<CrawlFitness, ExperimentError> {
    settings.check_model()?;
    CrawlFitness::over_budgets(
        period.clone(),
        settings.sim,
        &settings.train_resources,
        settings.metric,
        settings.grammar.closure(),
    )
    .and_then(|f| f.with_model(settings.model.clone()))
    .map(|f| {
        f.with_metrics(&settings.also)
            .relative_to(&settings.gp.seed_formulas)
    })
    .map_err(|source| ExperimentError::Sim { set, source })
}

/// One rotation made ready to evolve on: the training and validation fitnesses and the
/// test period, checked against the simulation settings.
pub(crate) struct RotationFitness {
    /// Fitness on the training set (period 1).
    pub train: CrawlFitness,
    /// Fitness on the validation set (period 2).
    pub validation: CrawlFitness,
    /// The test set (period 3).
    pub test: Period,
    /// Fitness on the training sample the search evaluates on, with a page sample.
    pub sample: Option<CrawlFitness>,
}

impl RotationFitness {
    /// Builds and checks the sets of `rotation` for `settings` (its seeds are ignored).
    pub fn new(
        dataset: &Dataset,
        rotation: usize,
        settings: &EvolveSettings,
    ) -> Result<RotationFitness, ExperimentError> {
        let sets = RotationSets::new(dataset, rotation, settings.horizon, settings.train_sample)?;
        let train = fitness_for(Set::Training, &sets.train, settings)?;
        let validation = fitness_for(Set::Validation, &sets.validation, settings)?;
        let sample = match (&sets.sample, settings.train_sample) {
            (Some(period), Some(share)) => Some(
                fitness_for(Set::Training, period, settings).map_err(|e| match e {
                    ExperimentError::Sim { source, .. } => ExperimentError::SampleSim {
                        share: share.share(),
                        pages: period.pages(),
                        source,
                    },
                    other => other,
                })?,
            ),
            _ => None,
        };
        settings
            .sim
            .check(&sets.test)
            .map_err(|source| ExperimentError::Sim {
                set: Set::Test,
                source,
            })?;
        Ok(RotationFitness {
            train,
            validation,
            test: sets.test,
            sample,
        })
    }

    /// The fitness the search evaluates on: the training sample's, else the training
    /// set's.
    pub fn searched(&self) -> &CrawlFitness {
        self.sample.as_ref().unwrap_or(&self.train)
    }

    /// Pages in the training, validation and test sets.
    pub fn set_sizes(&self) -> [usize; 3] {
        [
            self.train.period().pages(),
            self.validation.period().pages(),
            self.test.pages(),
        ]
    }
}

/// Runs one seed on a prepared rotation: evolve on the training set, validate the hall of
/// fame, choose by every [`Strategy`] and test the choices. `seed_index` only labels the
/// progress events. The result depends only on (rotation, settings without seeds, seed).
pub(crate) fn run_seed(
    sets: &RotationFitness,
    settings: &EvolveSettings,
    seed_index: usize,
    seed: u64,
    progress: &mut impl FnMut(Progress<'_>) -> ControlFlow<()>,
) -> Result<SeedRun, ExperimentError> {
    let start = Instant::now();
    let evolution = gp::evolve_until(
        &settings.gp,
        &settings.grammar,
        sets.searched(),
        seed,
        |report| {
            progress(Progress::Generation {
                seed_index,
                seed,
                report,
            })
        },
    )
    .map_err(|()| ExperimentError::Stopped)?;
    if progress(Progress::Selecting { seed_index }).is_break() {
        return Err(ExperimentError::Stopped);
    }
    let best_seed = best_seed(sets, &settings.gp.seed_formulas);
    let (candidates, simplified) = candidates(&evolution, sets, settings);
    let front = gp::front(&candidates)
        .into_iter()
        .map(|i| {
            let c = &candidates[i];
            FrontPoint {
                formula: simplified[i].clone(),
                size: c.size,
                train: c.train.value,
                validation: c.validation.value,
            }
        })
        .collect();
    let choices = Choices::from_fn(|strategy| {
        let (c, formula, undistilled) = if settings.gp.parsimony {
            let index = gp::choose_parsimonious(&candidates, strategy);
            let best = &candidates[gp::choose_admissible(&candidates, strategy)];
            let seed = gp::best_seed(&candidates, strategy);
            distill(sets, settings, strategy, &candidates[index], (best, seed))
        } else {
            let index = gp::choose(&candidates, strategy);
            (candidates[index].clone(), simplified[index].clone(), None)
        };
        let outcome = test_outcome(&sets.test, &formula, settings);
        Choice {
            strategy,
            test: outcome.mean(settings.metric),
            train: c.train.value,
            validation: c.validation.value,
            score: strategy.score(&c),
            formula,
            undistilled,
            test_cycles: outcome.cycles,
        }
    });
    Ok(SeedRun {
        seed,
        generations: evolution
            .generations
            .iter()
            .map(|g| GenerationSummary {
                generation: g.generation,
                best: g.best,
                mean: g.mean,
                evaluated: g.evaluated,
                cache_hits: g.cache_hits,
                best_formula: g.best_formula.clone(),
            })
            .collect(),
        evaluations: evolution.evaluations,
        cache_hits: evolution.cache_hits,
        best_seed,
        front,
        choices,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// The candidates of a run's choice, validated, and each as reported: the hall of fame,
/// and with parsimony the run's front of small formulas and its seed formulas too
/// (docs/src/reference/gp.md#choosing-the-final-formula); each simplified once, or when
/// only rankings count, as the shortest formula that ranks as it does (its rank form).
fn candidates(
    evolution: &gp::Evolution,
    sets: &RotationFitness,
    settings: &EvolveSettings,
) -> (Vec<Candidate>, Vec<Formula>) {
    let mut individuals: Vec<&gp::Individual> = evolution.hall_of_fame.iter().collect();
    if settings.gp.parsimony {
        for i in evolution.front.iter().chain(&evolution.seeds) {
            if !individuals.iter().any(|k| k.canonical == i.canonical) {
                individuals.push(i);
            }
        }
    }
    let kept: Vec<Formula> = individuals.iter().map(|i| i.canonical.clone()).collect();
    let validations = evaluate_all(&sets.validation, &kept);
    // Searched on a sample, they are judged on every training page (unless the sample
    // holds them all: one host of most pages).
    let trains: Vec<gp::Evaluation> = match &sets.sample {
        Some(s) if s.period().pages() < sets.train.period().pages() => {
            evaluate_all(&sets.train, &kept)
        }
        _ => individuals
            .iter()
            .map(|i| (*i.evaluation).clone())
            .collect(),
    };
    let (closure, rank) = (settings.grammar.closure(), sets.train.ranks_only());
    let simplified: Vec<Formula> = individuals
        .iter()
        .map(|i| i.formula.reported(closure, rank))
        .collect();
    let candidates = individuals
        .iter()
        .zip(trains.into_iter().zip(validations))
        .zip(&simplified)
        .map(|((i, (t, v)), s)| Candidate {
            seed: evolution.seeds.iter().any(|k| k.canonical == i.canonical),
            size: s.len(),
            formula: i.formula.clone(),
            train: t,
            validation: v,
        })
        .collect();
    (candidates, simplified)
}

/// Distils a parsimonious choice (docs/src/reference/gp.md#distillation): the shortest
/// formula found by hoisting subtrees of `chosen` whose `strategy` score stays within the
/// noise of `best`'s and that stays admissible against the fittest seed `seed`. Returns it
/// as a candidate, as reported, and the formula it came from when it is shorter.
fn distill(
    sets: &RotationFitness,
    settings: &EvolveSettings,
    strategy: Strategy,
    chosen: &Candidate,
    (best, seed): (&Candidate, Option<&Candidate>),
) -> (Candidate, Formula, Option<Formula>) {
    let closure = settings.grammar.closure();
    let rank = sets.train.ranks_only();
    let key = |f: &Formula| f.search_key(closure, rank);
    let evaluate = |f: &Formula| {
        let one = std::slice::from_ref(f);
        Candidate {
            seed: false,
            size: f.len(),
            formula: f.clone(),
            train: evaluate_all(&sets.train, one).remove(0),
            validation: evaluate_all(&sets.validation, one).remove(0),
        }
    };
    let judge = |f: &Formula| {
        let c = evaluate(f);
        (strategy.within_noise(&c, best) && gp::admissible(&c, seed)).then(|| strategy.score(&c))
    };
    let distiller = gp::Distiller {
        key: &key,
        judge: &judge,
    };
    let start = key(&chosen.formula);
    let out = distiller.run(&start, strategy.score(chosen));
    let original = chosen.formula.reported(closure, rank);
    if out.formula == start {
        return (chosen.clone(), original, None);
    }
    let formula = out.formula.reported(closure, rank);
    let mut distilled = evaluate(&out.formula);
    distilled.size = formula.len();
    (distilled, formula, Some(original))
}

/// The fittest of `seeds` on the training set (the first on ties), with its validation
/// fitness; `None` without seeds.
fn best_seed(sets: &RotationFitness, seeds: &[Formula]) -> Option<SeedFigures> {
    let train = evaluate_all(&sets.train, seeds);
    let best = (0..seeds.len())
        .max_by(|&a, &b| train[a].value.total_cmp(&train[b].value).then(b.cmp(&a)))?;
    let validation = evaluate_all(&sets.validation, &seeds[best..=best]);
    Some(SeedFigures {
        formula: seeds[best].clone(),
        train: train[best].value,
        validation: validation[0].value,
    })
}

/// Per strategy, the index of the winning seed: the highest strategy score (train and
/// validation only), the earlier seed on ties. `None` if `seeds` is empty.
pub fn winners(seeds: &[SeedRun]) -> Option<PerStrategy<usize>> {
    if seeds.is_empty() {
        return None;
    }
    Some(PerStrategy::from_fn(|strategy| {
        (0..seeds.len())
            .max_by(|&a, &b| {
                seeds[a].choices[strategy]
                    .score
                    .total_cmp(&seeds[b].choices[strategy].score)
                    .then(b.cmp(&a))
            })
            .unwrap_or(0)
    }))
}

/// Runs every seed of `settings` on `rotation` of `dataset`; `progress` sees each event and
/// may stop the run after any generation ([`ExperimentError::Stopped`]).
///
/// # Errors
/// A rotation the settings cannot simulate, no seed, or a stop.
pub fn run_rotation(
    dataset: &Dataset,
    rotation: usize,
    settings: &EvolveSettings,
    mut progress: impl FnMut(Progress<'_>) -> ControlFlow<()>,
) -> Result<RotationRun, ExperimentError> {
    let sets = RotationFitness::new(dataset, rotation, settings)?;
    let seeds: Vec<SeedRun> = settings
        .seeds
        .iter()
        .enumerate()
        .map(|(seed_index, &seed)| run_seed(&sets, settings, seed_index, seed, &mut progress))
        .collect::<Result<_, _>>()?;
    let winners = winners(&seeds).ok_or(ExperimentError::NoSeeds)?;
    Ok(RotationRun {
        rotation,
        set_sizes: sets.set_sizes(),
        sample_pages: sets.sample.as_ref().map(|s| s.period().pages()),
        seeds,
        winners,
    })
}

/// Simulates `formula` on the test set.
pub(crate) fn test_outcome(test: &Period, formula: &Formula, settings: &EvolveSettings) -> Outcome {
    Simulator::new(settings.sim)
        .run(test, &settings.policy(formula))
        // Invariant: `RotationFitness::new` checked the settings against the test set.
        .expect("test set checked")
}
