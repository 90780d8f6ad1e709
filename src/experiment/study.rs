//! Experiment files: a whole study (dataset, rotations, resources, the GP configurations
//! to compare, the baselines, the reports) in one RON file, checked into a [`Study`].
//!
//! ```
//! use freshgp::experiment::study::Study;
//!
//! let text = r#"(
//!     name: "tiny",
//!     dataset: Synthetic(preset: "brdc12", pages: 200, days: 21, seed: 1),
//!     seeds: 2,
//!     gp: (population: 10, generations: 2),
//!     configurations: [(name: "All-NDCG", grammar: "all", fitness: ndcg)],
//! )"#;
//! let study = Study::from_ron(text, "tiny.ron").unwrap();
//! assert_eq!(study.configurations[0].seeds, [1, 2]);
//! assert_eq!(study.rotations, [0, 1, 2, 3, 4]);
//!
//! let err = Study::from_ron(&text.replace("seeds: 2", "sedes: 2"), "tiny.ron").unwrap_err();
//! assert!(err.to_string().starts_with("tiny.ron:4:"), "{err}");
//! assert!(err.to_string().contains("sedes"), "{err}");
//! ```
//!
//! Every field but `name`, `dataset` and `configurations` has a default (the paper's
//! protocol: docs/src/reference/folds.md, docs/src/reference/gp.md#defaults). Unknown or
//! misspelt fields are errors that name the field and its line; so are values out of range
//! (the line is that of the field's first occurrence after its configuration's `name`).
//!
//! Relative paths (`Path(...)` datasets, grammar and preset files) are resolved against
//! the directory of the experiment file, so a study runs the same from any working
//! directory. The checked [`Study`] keeps them as written: it is what an output directory
//! stores (`study.json`) to recognise its study when a run is resumed or merged.
//!
//! The checked [`Study`] and its types are here; reading and checking an experiment file
//! ([`Study::load`], [`Study::from_ron`]) is `study_file.rs`.

use super::ExperimentError;
use crate::data::sample::PageSample;
use crate::data::split::{Horizon, Split};
use crate::data::synth::{self, SynthParams};
use crate::data::{self, DataError, Dataset, LoadOptions, UnknownPolicy};
use crate::formula::{Grammar, GrammarError};
use crate::gp::{RawGpConfig, Strategy};
use crate::metric::Metric;
use crate::policy::{Policy, Predictor};
use crate::sim::SimConfig;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Why an experiment file is unusable.
#[derive(Debug, thiserror::Error)]
pub enum StudyError {
    /// The file cannot be read, or is not RON of the expected shape (includes unknown and
    /// misspelt fields).
    #[error(transparent)]
    File(#[from] crate::place::RonFileError),
    /// A field's value is out of range.
    #[error("{file}:{line}: {field}: {reason}")]
    Invalid {
        /// The file.
        file: String,
        /// 1-based line of the field (0 if it was not written: a default).
        line: usize,
        /// The field, e.g. `configurations[1].grammar`.
        field: String,
        /// The rule it breaks.
        reason: String,
    },
    /// The dataset cannot be loaded or generated.
    #[error("cannot load or generate the dataset")]
    Data(#[from] DataError),
    /// A grammar cannot be loaded.
    #[error("cannot load a grammar")]
    Grammar(#[from] GrammarError),
}

/// Where the change history comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum DatasetSpec {
    /// A history file (the text format, docs/src/reference/data.md#the-text-format, or
    /// freshgp's binary cache); a relative path is resolved against the experiment file's
    /// directory.
    Path(String),
    /// A synthetic history from a generator preset (a built-in name such as `brdc12`, or a
    /// RON preset file), with its page and day counts optionally overridden.
    Synthetic {
        /// Preset name or file.
        preset: String,
        /// Pages (default: the preset's).
        #[serde(default)]
        pages: Option<usize>,
        /// Days (default: the preset's).
        #[serde(default)]
        days: Option<usize>,
        /// Generator seed.
        seed: u64,
    },
}

/// Which reports `freshgp report` writes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Reports {
    /// The selection strategies that become methods (configuration × strategy).
    pub strategies: Vec<Strategy>,
    /// SVG plots.
    pub plots: bool,
    /// Per-cycle CSV files.
    pub csv: bool,
    /// Plots draw every strategy's method, not only the first strategy's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub all_strategies: bool,
}

impl Default for Reports {
    fn default() -> Self {
        Reports {
            strategies: Strategy::ALL.to_vec(),
            plots: true,
            csv: true,
            all_strategies: false,
        }
    }
}

/// One checked GP configuration.
///
/// **Invariant** (checked with its [`Study`]): a valid name, GP parameters that pass
/// [`RawGpConfig::check`], at least one seed and no seed twice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Configuration {
    /// Its name (letters, digits, `_`, `.`, `-`): the prefix of its methods and unit files.
    pub name: String,
    /// Grammar: `basic`, `all`, `basic-reference`, `all-reference`, or a RON file (as
    /// written, relative to the experiment file).
    pub grammar: String,
    /// Fitness metric (`changerate`, `ndcg`, `freshness`, `wfreshness` or `wndcg`).
    pub fitness: Metric,
    /// Metrics the fitness also averages over
    /// (docs/src/reference/gp.md#fitness-over-several-metrics; by default the fitness's
    /// [companions](Metric::companions), `also: []` for none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<Metric>,
    /// GP parameters (checked).
    pub gp: RawGpConfig,
    /// The seeds, one run each.
    pub seeds: Vec<u64>,
    /// Bandits (docs/src/reference/bandit.md) to test each chosen formula in, as one more
    /// arm: `kab5` gives the method `<configuration>/<strategy>+kab5` (the seed's arms and
    /// the evolved formula), rewarded by the configuration's fitness unless the bandit
    /// names a metric.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bandits: Vec<Policy>,
    /// The learned model file (`freshgp model train`) that gives `P` to the formulas of
    /// the grammar `predictive` (as written, relative to the experiment file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The share of the training pages the search evaluates on, whole hosts at a time
    /// (docs/src/reference/gp.md#searching-on-a-sample-of-the-pages); `None`: all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub train_sample: Option<PageSample>,
}

impl Configuration {
    /// The configuration's model, its file resolved against `base`.
    pub(crate) fn model(&self, base: &Path) -> Result<Option<Predictor>, ExperimentError> {
        self.model
            .as_ref()
            .map(|path| Predictor::load(&base.join(path), path))
            .transpose()
            .map_err(|model| ExperimentError::Model {
                configuration: self.name.clone(),
                model,
            })
    }

    /// The configuration's grammar, a file resolved against `base`.
    pub(crate) fn grammar(&self, base: &Path) -> Result<Grammar, GrammarError> {
        match Grammar::built_in(&self.grammar) {
            Some(grammar) => Ok(grammar),
            None => Grammar::load(&base.join(&self.grammar)),
        }
    }
}

/// A checked study: what an output directory stores as `study.json`.
///
/// **Invariant:** every value passed the checks of [`Study::from_ron`]; a `study.json`
/// read back is checked again (it may have been edited), so a violation is an error naming
/// the field, never a panic later.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "StoredStudy")]
pub struct Study {
    /// Name (the default output directory is `results/<name>`).
    pub name: String,
    /// Free text, repeated in the summary.
    pub description: String,
    /// The change history.
    pub dataset: DatasetSpec,
    /// Unknown-cycle policy for file datasets (written `paper`, `paper:N`, `infer`, `zero`,
    /// `one`, `drop` or `keep`).
    pub unknown: UnknownPolicy,
    /// The attribute pages are grouped by for the terminal `GR`
    /// (docs/src/reference/terminals.md#neighbours-hr-and-gr; `None`: the host, where `GR`
    /// is `HR`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The rotations (test folds) run, in order.
    pub rotations: Vec<usize>,
    /// Simulation settings (resources, warm-up, tie seed and rule, host cap, and the run
    /// metric `metric`: what a bandit among the baselines is rewarded by unless it names
    /// its own).
    pub sim: SimConfig,
    /// The cycles the test sets are simulated over (`temporal`: period 3,
    /// docs/src/reference/folds.md#periods;
    /// `whole`: every cycle, for bandits that need long horizons).
    #[serde(default, skip_serializing_if = "is_temporal")]
    pub test_horizon: Horizon,
    /// Resources at which the chosen functions and the baselines are also tested (Fig. 5;
    /// a study's `resources: [..]` sweep, docs/src/reference/evaluation.md#budget-sweeps).
    pub top_resources: Vec<f64>,
    /// The budgets a formula is trained and validated over
    /// (docs/src/reference/gp.md#training-budgets); empty: the study's resources alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub train_resources: Vec<f64>,
    /// Repeated test runs with run seeds 1..R
    /// (docs/src/reference/evaluation.md#repeated-runs); `None`: one run with the tie seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs: Option<usize>,
    /// The reference of the Wilcoxon tests over the runs (one of `baselines`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<Policy>,
    /// The references of the savings at equal quality
    /// (docs/src/reference/evaluation.md#savings-at-equal-quality; each one of
    /// `baselines`): every method's smallest budget reaching each one's mean `metric` at
    /// the study's resources.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub savings: Vec<Policy>,
    /// The GP configurations compared.
    pub configurations: Vec<Configuration>,
    /// The fixed policies compared (written as text: a policy's name,
    /// docs/src/reference/policies.md#names-and-text, adaptive parameters, or a formula;
    /// default the seven baselines).
    pub baselines: Vec<Policy>,
    /// What the report shows.
    pub reports: Reports,
}

/// A `study.json` as stored, before its checks: the fields of [`Study`].
#[derive(Deserialize)]
struct StoredStudy {
    name: String,
    description: String,
    dataset: DatasetSpec,
    unknown: UnknownPolicy,
    #[serde(default)]
    group: Option<String>,
    rotations: Vec<usize>,
    sim: SimConfig,
    #[serde(default)]
    test_horizon: Horizon,
    top_resources: Vec<f64>,
    #[serde(default)]
    train_resources: Vec<f64>,
    #[serde(default)]
    runs: Option<usize>,
    #[serde(default)]
    reference: Option<Policy>,
    #[serde(default)]
    savings: Vec<Policy>,
    configurations: Vec<Configuration>,
    baselines: Vec<Policy>,
    reports: Reports,
}

fn is_temporal(horizon: &Horizon) -> bool {
    *horizon == Horizon::Temporal
}

impl TryFrom<StoredStudy> for Study {
    type Error = String;

    fn try_from(s: StoredStudy) -> Result<Study, String> {
        let study = Study {
            name: s.name,
            description: s.description,
            dataset: s.dataset,
            unknown: s.unknown,
            group: s.group,
            rotations: s.rotations,
            sim: s.sim,
            test_horizon: s.test_horizon,
            top_resources: s.top_resources,
            train_resources: s.train_resources,
            runs: s.runs,
            reference: s.reference,
            savings: s.savings,
            configurations: s.configurations,
            baselines: s.baselines,
            reports: s.reports,
        };
        study
            .check()
            .map_err(|v| format!("{}: {}", v.field, v.reason))?;
        Ok(study)
    }
}

impl Study {
    /// The run seeds of the test runs (docs/src/reference/evaluation.md#repeated-runs):
    /// 1..R, or the tie seed alone.
    pub fn run_seeds(&self) -> Vec<u64> {
        super::sweep::run_seeds(self.runs, self.sim.seed())
    }

    /// Whether units compute run means and savings curves
    /// (docs/src/reference/evaluation.md).
    pub fn evaluates(&self) -> bool {
        self.runs.is_some() || !self.savings.is_empty()
    }

    /// Every budget tested: the study's resources, then `top_resources`.
    pub fn levels(&self) -> Vec<f64> {
        std::iter::once(self.sim.resources())
            .chain(self.top_resources.iter().copied())
            .collect()
    }

    /// Indices into [`Study::levels`] in order of budget, each budget once (the study's
    /// own budget may also be among `top_resources`): the columns of a table by budget.
    pub fn budget_order(&self) -> Vec<usize> {
        let levels = self.levels();
        let mut order: Vec<usize> = (0..levels.len()).collect();
        order.sort_by(|&x, &y| levels[x].total_cmp(&levels[y]).then(x.cmp(&y)));
        order.dedup_by(|later, earlier| levels[*later] == levels[*earlier]);
        order
    }

    /// Loads (or generates) the dataset, relative paths resolved against `base`.
    pub(crate) fn load_dataset(&self, base: &Path) -> Result<Dataset, StudyError> {
        let mut dataset = self.read_dataset(base)?;
        dataset.group_by(self.group.as_deref())?;
        Ok(dataset)
    }

    /// Loads (or generates) the dataset as its spec says.
    fn read_dataset(&self, base: &Path) -> Result<Dataset, StudyError> {
        match &self.dataset {
            DatasetSpec::Path(path) => {
                let options = LoadOptions {
                    unknown: self.unknown,
                };
                Ok(data::load(&base.join(path), &options)?.dataset)
            }
            DatasetSpec::Synthetic {
                preset,
                pages,
                days,
                seed,
            } => {
                let mut params = if synth::PRESETS.iter().any(|(n, _)| n == preset) {
                    SynthParams::preset(preset)?
                } else {
                    SynthParams::named_or_file(&base.join(preset).display().to_string())?
                };
                if let Some(p) = pages {
                    params.pages = *p;
                }
                if let Some(d) = days {
                    params.days = *d;
                }
                params.validate(preset)?;
                Ok(synth::generate(&params, *seed)?)
            }
        }
    }

    /// A one-line description of the dataset spec.
    pub fn dataset_label(&self) -> String {
        match &self.dataset {
            DatasetSpec::Path(p) => format!("file `{p}` (unknown cycles: {})", self.unknown),
            DatasetSpec::Synthetic {
                preset,
                pages,
                days,
                seed,
            } => {
                let mut s = format!("synthetic preset `{preset}`");
                if let Some(p) = pages {
                    s += &format!(", {p} pages");
                }
                if let Some(d) = days {
                    s += &format!(", {d} days");
                }
                s + &format!(", seed {seed}")
            }
        }
    }
}

/// The directory relative paths of an experiment file are resolved against.
pub fn base_dir(file: &Path) -> PathBuf {
    match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A broken rule of a [`Study`]: the field (e.g. `configurations[1].seeds`) and the rule.
pub(super) struct Violation {
    pub(super) field: String,
    pub(super) reason: String,
}

pub(super) fn violation(field: impl Into<String>, reason: impl Into<String>) -> Violation {
    Violation {
        field: field.into(),
        reason: reason.into(),
    }
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        && !name.starts_with('.')
}

/// The first of `budgets` outside (0, 1] or equal to an earlier one: a list of budgets
/// holds distinct fractions of the pages.
pub fn first_bad_budget(budgets: &[f64]) -> Option<f64> {
    (0..budgets.len())
        .find(|&i| !(budgets[i] > 0.0 && budgets[i] <= 1.0) || budgets[..i].contains(&budgets[i]))
        .map(|i| budgets[i])
}

/// The index of the first item equal to an earlier one.
pub(super) fn first_repeat<T: PartialEq>(items: &[T]) -> Option<usize> {
    (1..items.len()).find(|&i| items[..i].contains(&items[i]))
}

/// The GP error's field and message.
pub(super) fn gp_violation(prefix: &str, e: &crate::gp::ConfigError) -> Violation {
    let crate::gp::ConfigError::Invalid { field, .. } = e;
    violation(format!("{prefix}{field}"), e.to_string())
}

/// Configuration `index`'s rules; `earlier` are the configurations before it.
fn check_configuration(
    c: &Configuration,
    index: usize,
    earlier: &[Configuration],
) -> Result<(), Violation> {
    let field = |f: &str| format!("configurations[{index}].{f}");
    if !valid_name(&c.name) || c.name == "baselines" {
        return Err(violation(
            field("name"),
            format!(
                "`{}`: letters, digits, `_`, `-` or `.`, not `baselines` (it names unit files)",
                c.name
            ),
        ));
    }
    if earlier.iter().any(|o| o.name == c.name) {
        return Err(violation(
            field("name"),
            format!("`{}` is used twice", c.name),
        ));
    }
    c.gp.clone()
        .check()
        .map_err(|e| gp_violation(&format!("configurations[{index}]."), &e))?;
    if c.seeds.is_empty() {
        return Err(violation(field("seeds"), "at least 1"));
    }
    if let Some(i) = first_repeat(&c.seeds) {
        return Err(violation(
            field("seeds"),
            format!("seed {} is listed twice", c.seeds[i]),
        ));
    }
    Ok(())
}

impl Study {
    /// The rules that depend on the dataset's size: in every rotation, each period leaves a
    /// cycle to score after the warm-up, and each set gets at least one visit a cycle at
    /// the study's resources and at every `top_resources`.
    pub(super) fn check_size(&self, pages: usize, cycles: usize) -> Result<(), Violation> {
        for &rotation in &self.rotations {
            let split = Split::new(pages, cycles, rotation)
                .map_err(|e| violation("dataset", e.to_string()))?
                .with_horizon(self.test_horizon, cycles);
            let shortest = [
                split.train_cycles.clone(),
                split.validation_cycles.clone(),
                split.test_cycles.clone(),
            ]
            .iter()
            .map(|c| c.end() + 1 - c.start())
            .min()
            .unwrap_or(0);
            if self.sim.warmup() >= shortest {
                return Err(violation(
                    "warmup",
                    format!(
                        "{} warm-up cycles leave no cycle to score in periods of {shortest} \
                         cycles ({cycles} days in 3 periods)",
                        self.sim.warmup()
                    ),
                ));
            }
            let smallest = [split.train.len(), split.validation.len(), split.test.len()]
                .into_iter()
                .min()
                .unwrap_or(0);
            let levels = std::iter::once(("resources", self.sim.resources()))
                .chain(self.top_resources.iter().map(|&r| ("top_resources", r)));
            for (field, resources) in levels {
                if (smallest as f64 * resources).floor() < 1.0 {
                    return Err(violation(
                        field,
                        format!(
                            "{resources} of the smallest set ({smallest} pages) is less than \
                             one visit a cycle"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Checks every rule of a study; the first one broken.
    pub(super) fn check(&self) -> Result<(), Violation> {
        self.check_header()?;
        self.check_lists()?;
        if self.configurations.is_empty() {
            return Err(violation("configurations", "list at least one"));
        }
        for (i, c) in self.configurations.iter().enumerate() {
            check_configuration(c, i, &self.configurations[..i])?;
        }
        Ok(())
    }

    /// The name and the dataset.
    fn check_header(&self) -> Result<(), Violation> {
        if !valid_name(&self.name) {
            return Err(violation(
                "name",
                "must be letters, digits, `_`, `-` or `.` (it names the output directory)",
            ));
        }
        if let DatasetSpec::Synthetic { pages, days, .. } = &self.dataset {
            if *pages == Some(0) || *days == Some(0) {
                return Err(violation("dataset", "pages and days must be at least 1"));
            }
        }
        Ok(())
    }

    /// Rotations, resources levels, baselines and strategies: non-empty where needed,
    /// distinct, in range.
    fn check_lists(&self) -> Result<(), Violation> {
        if self.rotations.is_empty() {
            return Err(violation("rotations", "list at least one"));
        }
        for (i, &r) in self.rotations.iter().enumerate() {
            if r >= crate::data::split::FOLDS || self.rotations[..i].contains(&r) {
                return Err(violation(
                    "rotations",
                    format!("{r}: rotations are distinct numbers in 0..=4"),
                ));
            }
        }
        for (field, budgets) in [
            ("top_resources", &self.top_resources),
            ("train_resources", &self.train_resources),
        ] {
            if let Some(r) = first_bad_budget(budgets) {
                return Err(violation(
                    field,
                    format!("{r}: distinct fractions in (0, 1]"),
                ));
            }
        }

        if let Some(i) = first_repeat(&self.baselines) {
            return Err(violation(
                "baselines",
                format!("{} is listed twice", self.baselines[i]),
            ));
        }
        self.check_evaluation()?;
        let strategies = &self.reports.strategies;
        if strategies.is_empty() || first_repeat(strategies).is_some() {
            return Err(violation(
                "reports.strategies",
                "list distinct strategies (best, sum_sigma, avg_sigma)",
            ));
        }
        Ok(())
    }

    /// The fields of repeated runs and savings: runs, the reference and the savings
    /// references.
    fn check_evaluation(&self) -> Result<(), Violation> {
        if self.runs == Some(0) {
            return Err(violation("runs", "at least 1 (run seeds 1..R)"));
        }
        if self.runs.is_some() && self.sim.seed() != 0 {
            return Err(violation(
                "runs",
                "repeated runs use the run seeds 1..R: leave tie_seed out",
            ));
        }
        let named = self.reference.iter().map(|r| ("reference", r));
        for (field, r) in named.chain(self.savings.iter().map(|r| ("savings", r))) {
            if !self.baselines.contains(r) {
                return Err(violation(
                    field,
                    format!("`{r}` is not among the study's baselines"),
                ));
            }
        }
        if let Some(i) = first_repeat(&self.savings) {
            return Err(violation(
                "savings",
                format!("`{}` is listed twice", self.savings[i]),
            ));
        }
        Ok(())
    }
}
