//! What a user asks of one GP run, as `freshgp evolve`'s flags and Python's `evolve`
//! arguments give it: [`EvolveRequest`] holds every default once and
//! [`EvolveRequest::settings`] checks every setting once, so the two front ends build the
//! same [`EvolveSettings`] from the same words and refuse the same mistakes, each naming
//! the setting in its own spelling ([`Setting::flag`], [`Setting::name`]).

use super::evolve::{apply_overrides, EvolveSettings, GpOverrides};
use super::study::first_bad_budget;
use crate::data::sample::PageSample;
use crate::data::split::Horizon;
use crate::formula::{Formula, Grammar};
use crate::gp::RawGpConfig;
use crate::metric::Metric;
use crate::policy::Policy;
use crate::sim::SimConfig;
use std::error::Error;
use std::path::PathBuf;

/// The grammar a search uses unless told otherwise.
pub const DEFAULT_GRAMMAR: &str = "all";
/// Independent runs (seeds) unless told otherwise.
pub const DEFAULT_SEEDS: usize = 5;
/// The first seed unless told otherwise; the runs use it, it + 1, ...
pub const DEFAULT_FIRST_SEED: u64 = 1;
/// The most seeds one request runs.
pub const MAX_SEEDS: usize = 10_000;

/// One GP run's settings as given; `None` (or empty) takes the default.
#[derive(Debug, Clone, Default)]
pub struct EvolveRequest {
    /// A grammar's name or a RON file ([`DEFAULT_GRAMMAR`]).
    pub grammar: Option<String>,
    /// The model file whose prediction is the terminal `P`.
    pub model: Option<PathBuf>,
    /// The fitness metric (`Metric::default()`).
    pub fitness: Option<Metric>,
    /// The metrics the fitness also averages over (`None`: the fitness's companions, none
    /// under `paper`).
    pub also_metrics: Option<Vec<Metric>>,
    /// How many runs ([`DEFAULT_SEEDS`]).
    pub seeds: Option<usize>,
    /// The first run's seed ([`DEFAULT_FIRST_SEED`]).
    pub first_seed: Option<u64>,
    /// GP parameters from a RON file (fields of `RawGpConfig`).
    pub gp_config: Option<PathBuf>,
    /// The GP4C paper's protocol instead of freshgp's search.
    pub paper: bool,
    /// Population size (the configuration's).
    pub population: Option<usize>,
    /// Generations (the configuration's).
    pub generations: Option<usize>,
    /// Tournament size (the configuration's).
    pub tournament: Option<usize>,
    /// Formulas to start from, before the literature's.
    pub seed_formulas: Vec<String>,
    /// Whether to start from the literature's formulas too (`None`: the configuration's).
    pub literature_seeds: Option<bool>,
    /// Budgets to train and validate over (empty: the run's own).
    pub train_resources: Vec<f64>,
    /// The share of the training pages to search on (`None`: every page).
    pub train_sample: Option<f64>,
    /// The cycles the chosen formulas are tested over (`Horizon::default()`).
    pub test_horizon: Option<Horizon>,
}

/// A setting of [`EvolveRequest`], for errors that name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    /// `grammar`.
    Grammar,
    /// `model`.
    Model,
    /// `also_metrics`.
    AlsoMetrics,
    /// `seeds`.
    Seeds,
    /// `gp_config`.
    GpConfig,
    /// `paper`.
    Paper,
    /// The GP parameters as a whole (population, generations, tournament and the file's).
    Gp,
    /// `seed_formulas`.
    SeedFormulas,
    /// `train_resources`.
    TrainResources,
    /// `train_sample`.
    TrainSample,
}

impl Setting {
    /// The setting's name as Python's argument (and a study file's field) spells it.
    pub fn name(self) -> &'static str {
        match self {
            Setting::Grammar => "grammar",
            Setting::Model => "model",
            Setting::AlsoMetrics => "also_metrics",
            Setting::Seeds => "seeds",
            Setting::GpConfig => "gp_config",
            Setting::Paper => "paper",
            Setting::Gp => "the GP settings",
            Setting::SeedFormulas => "seed_formulas",
            Setting::TrainResources => "train_resources",
            Setting::TrainSample => "train_sample",
        }
    }

    /// The setting as `freshgp evolve`'s flag spells it.
    pub fn flag(self) -> &'static str {
        match self {
            Setting::Grammar => "--grammar",
            Setting::Model => "--model",
            Setting::AlsoMetrics => "--also-metrics",
            Setting::Seeds => "--seeds",
            Setting::GpConfig => "--gp-config",
            Setting::Paper => "--paper",
            Setting::Gp => "the GP settings",
            Setting::SeedFormulas => "--seed-formula",
            Setting::TrainResources => "--train-resources",
            Setting::TrainSample => "--train-sample",
        }
    }
}

/// Why a request cannot run: the setting, the value at fault when the setting holds
/// several, and the reason (its source).
#[derive(Debug, thiserror::Error)]
#[error("{}", self.named(self.setting.name()))]
pub struct RequestError {
    /// The setting at fault.
    pub setting: Setting,
    /// The value at fault, as text, when the setting holds several (a budget, a formula).
    pub given: Option<String>,
    /// Why.
    #[source]
    pub reason: Box<dyn Error + Send + Sync>,
}

impl RequestError {
    fn new(setting: Setting, reason: impl Into<Box<dyn Error + Send + Sync>>) -> RequestError {
        RequestError {
            setting,
            given: None,
            reason: reason.into(),
        }
    }

    fn given(mut self, given: impl Into<String>) -> RequestError {
        self.given = Some(given.into());
        self
    }

    /// The message with the setting spelled `name` (`self.setting.flag()` for the
    /// command, `self.setting.name()` for Python): `name given: reason`.
    pub fn named(&self, name: &str) -> String {
        match &self.given {
            Some(given) => format!("{name} {given}: {}", self.reason),
            None => format!("{name}: {}", self.reason),
        }
    }
}

impl EvolveRequest {
    /// The checked settings of the request, run under `sim`.
    ///
    /// # Errors
    /// The first setting that cannot run, named: an unknown grammar, an unreadable GP
    /// file, `paper` with a GP file, a seed formula the grammar cannot read, GP parameters
    /// out of range, a seed count outside 1..=[`MAX_SEEDS`], an unreadable model or one
    /// the grammar does not use (or lacks), training budgets that are not distinct
    /// fractions in (0, 1], a page share outside (0, 1).
    pub fn settings(&self, sim: SimConfig) -> Result<EvolveSettings, RequestError> {
        use Setting as S;
        let grammar_name = self.grammar.as_deref().unwrap_or(DEFAULT_GRAMMAR);
        let grammar =
            Grammar::named_or_file(grammar_name).map_err(|e| RequestError::new(S::Grammar, e))?;
        let raw = match (&self.gp_config, self.paper) {
            (Some(_), true) => {
                return Err(RequestError::new(
                    S::Paper,
                    "it sets the GP settings: give `protocol: paper` in the GP file instead",
                ))
            }
            (None, true) => RawGpConfig::paper(),
            (Some(path), false) => RawGpConfig::load(path)
                .map_err(|e| RequestError::new(S::GpConfig, e).given(path.display().to_string()))?,
            (None, false) => RawGpConfig::default(),
        };
        let seed_formulas = self
            .seed_formulas
            .iter()
            .map(|text| {
                Formula::parse(text, &grammar).map_err(|e| {
                    RequestError::new(S::SeedFormulas, e.quoted(text))
                        .given(format!("`{text}` (grammar `{}`)", grammar.name()))
                })
            })
            .collect::<Result<_, _>>()?;
        let overrides = GpOverrides {
            population: self.population,
            generations: self.generations,
            tournament: self.tournament,
            seed_formulas,
            literature_seeds: self.literature_seeds,
        };
        let gp = apply_overrides(raw, &overrides, &grammar).map_err(|e| match e {
            e @ super::evolve::OverrideError::Terminal { .. } => {
                RequestError::new(S::SeedFormulas, e)
            }
            super::evolve::OverrideError::Config(e) => RequestError::new(S::Gp, e),
        })?;
        let seeds = self.seeds.unwrap_or(DEFAULT_SEEDS);
        if !(1..=MAX_SEEDS).contains(&seeds) {
            return Err(
                RequestError::new(S::Seeds, format!("expected 1 to {MAX_SEEDS}"))
                    .given(seeds.to_string()),
            );
        }
        let first = self.first_seed.unwrap_or(DEFAULT_FIRST_SEED);
        let model = self
            .model
            .as_ref()
            .map(|path| Policy::load_model(&path.to_string_lossy()))
            .transpose()
            .map_err(|e| RequestError::new(S::Model, e))?;
        if let Some(r) = first_bad_budget(&self.train_resources) {
            return Err(RequestError::new(
                S::TrainResources,
                "the budgets are distinct fractions in (0, 1]",
            )
            .given(r.to_string()));
        }
        let train_sample = self
            .train_sample
            .map(PageSample::new)
            .transpose()
            .map_err(|e| RequestError::new(S::TrainSample, e))?;
        let metric = self.fitness.unwrap_or_default();
        let also = match &self.also_metrics {
            Some(list) => list.clone(),
            None if self.paper => Vec::new(),
            None => metric.companions(),
        };
        let settings = EvolveSettings {
            model,
            train_resources: self.train_resources.clone(),
            train_sample,
            horizon: self.test_horizon.unwrap_or_default(),
            grammar,
            metric,
            also,
            gp,
            sim,
            seeds: (0..seeds as u64).map(|k| first + k).collect(),
        };
        settings
            .check_model()
            .map_err(|e| RequestError::new(S::Model, e))?;
        Ok(settings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sim() -> SimConfig {
        SimConfig::new(0.1, 2).unwrap()
    }

    fn refused(request: EvolveRequest) -> RequestError {
        request.settings(sim()).unwrap_err()
    }

    #[test]
    fn an_empty_request_takes_every_default() {
        let s = EvolveRequest::default().settings(sim()).unwrap();
        assert_eq!(s.grammar.name(), DEFAULT_GRAMMAR);
        assert_eq!(s.seeds, [1, 2, 3, 4, 5]);
        assert_eq!(s.metric, Metric::default());
        assert_eq!(s.also, Metric::default().companions());
        assert_eq!(s.horizon, Horizon::default());
        assert!(s.train_resources.is_empty() && s.train_sample.is_none() && s.model.is_none());
        let raw = RawGpConfig::default();
        assert_eq!(
            (s.gp.population, s.gp.generations),
            (raw.population, raw.generations)
        );
    }

    #[test]
    fn the_paper_protocol_brings_no_companion_metric() {
        let paper = EvolveRequest {
            paper: true,
            fitness: Some(Metric::WNdcg),
            ..EvolveRequest::default()
        };
        assert!(paper.settings(sim()).unwrap().also.is_empty());
        let search = EvolveRequest {
            fitness: Some(Metric::WNdcg),
            ..EvolveRequest::default()
        };
        assert_eq!(search.settings(sim()).unwrap().also, [Metric::WFreshness]);
    }

    #[test]
    fn each_mistake_names_its_setting_in_both_spellings() {
        let cases = [
            (
                EvolveRequest {
                    seeds: Some(0),
                    ..EvolveRequest::default()
                },
                Setting::Seeds,
                "--seeds 0: expected 1 to 10000",
            ),
            (
                EvolveRequest {
                    train_resources: vec![0.05, 1.5],
                    ..EvolveRequest::default()
                },
                Setting::TrainResources,
                "--train-resources 1.5: the budgets are distinct fractions in (0, 1]",
            ),
            (
                EvolveRequest {
                    grammar: Some("extended".into()),
                    seed_formulas: vec!["GR * t".into()],
                    ..EvolveRequest::default()
                },
                Setting::SeedFormulas,
                "--seed-formula `GR * t` (grammar `extended`): ",
            ),
            (
                EvolveRequest {
                    paper: true,
                    gp_config: Some("x.ron".into()),
                    ..EvolveRequest::default()
                },
                Setting::Paper,
                "--paper: it sets the GP settings",
            ),
            (
                EvolveRequest {
                    grammar: Some("predictive".into()),
                    ..EvolveRequest::default()
                },
                Setting::Model,
                "--model: ",
            ),
            (
                EvolveRequest {
                    train_sample: Some(1.0),
                    ..EvolveRequest::default()
                },
                Setting::TrainSample,
                "--train-sample: page sample",
            ),
            (
                EvolveRequest {
                    population: Some(0),
                    ..EvolveRequest::default()
                },
                Setting::Gp,
                "the GP settings: ",
            ),
            (
                EvolveRequest {
                    grammar: Some("no-such-grammar".into()),
                    ..EvolveRequest::default()
                },
                Setting::Grammar,
                "--grammar: ",
            ),
        ];
        for (request, setting, message) in cases {
            let e = refused(request);
            assert_eq!(e.setting, setting, "{e}");
            let shown = e.named(e.setting.flag());
            assert!(shown.starts_with(message), "{shown}");
            // Python's spelling is the same message under the argument's name.
            let python = e.to_string();
            assert!(python.starts_with(setting.name()), "{python}");
            assert_eq!(
                &python[setting.name().len()..],
                &shown[setting.flag().len()..]
            );
        }
    }
}
