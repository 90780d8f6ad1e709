//! Reports of a study, regenerated from its output directory alone (`study.json` and the
//! unit files; the dataset is not needed: every number a report shows is stored in a unit).
//!
//! `analyse` gathers the units into [`Analysis`]: one *method* per configuration ×
//! selection strategy (e.g. `GP4C_All-NDCG/sum_sigma`) plus one per baseline. Per rotation
//! and configuration, a strategy's reported function is the winner across seeds (the
//! highest strategy score on training and validation, earlier seed on ties; the test set
//! never decides). [`write()`] then writes into the directory:
//!
//! * `summary.md`: mean ± 95% CI of every metric ([`Metric::ALL`]) of every method over
//!   all test cycles (paper Table 2); per-cycle victories, ties and losses against each
//!   baseline by the paired t-test over the rotations, on each of [`COMPARED`] (Table 3);
//!   the chosen formula per rotation and configuration (Table 4); the top-of-schedule
//!   table on each of [`RANKED`] (Fig. 5 in numbers);
//! * `results.json`: the same figures, machine-readable;
//! * `cycles.csv` and `generations.csv`: every per-cycle value and every generation's
//!   fitness (if the study's `reports.csv`);
//! * `plots/*.svg` (if `reports.plots`): see [`plots`].
//!
//! The weighted metrics (WFreshness, WNDCG; SPEC §8) are always shown: without page
//! weights they equal Freshness and NDCG, and `summary.md` says which is the case.
//!
//! **Determinism:** every output is a function of the stored units only (timings are left
//! out), so a resumed or merged run yields byte-identical reports.

pub mod budgets;
pub mod plots;
mod summary;

use crate::data::Fingerprint;
use crate::experiment::baselines::MetricSummary;
use crate::experiment::evolve::{self, Choice};
use crate::experiment::store::{Store, StoreError};
use crate::experiment::study::{Configuration, Study};
use crate::experiment::units::{self, gp_file_name, BanditRun, BaselineUnit, GpUnit, Unit};
use crate::gp::Strategy;
use crate::metric::{CycleMetrics, Metric};
use crate::policy::Policy;
use crate::sim::ArmChoice;
use crate::stats::{mean, mean_ci, paired_t_test, MeanCi};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The metrics compared cycle by cycle with the paired t-test (Table 3): the paper's two
/// and the weighted ones (SPEC §8).
pub const COMPARED: [Metric; 4] = [
    Metric::ChangeRate,
    Metric::Ndcg,
    Metric::WFreshness,
    Metric::WNdcg,
];

/// The metrics of the top-of-schedule table and of the per-cycle and top-of-schedule plots
/// (Fig. 4 and 5): the ranking metrics, the paper's two and WNDCG.
pub const RANKED: [Metric; 3] = [Metric::ChangeRate, Metric::Ndcg, Metric::WNdcg];

/// Why a report cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The output directory or a stored file.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Units are missing.
    #[error("{dir}: {missing} of {total} units are not finished (first: {first}); run the remaining shards or `freshgp experiment FILE --resume`, or merge the shards with `freshgp report DIR --merge OTHER`")]
    Incomplete {
        /// The directory.
        dir: String,
        /// Units missing.
        missing: usize,
        /// Units in the study.
        total: usize,
        /// The first missing unit file.
        first: String,
    },
    /// A unit's content does not fit the study.
    #[error("{file}: {reason}")]
    Inconsistent {
        /// The unit file.
        file: String,
        /// What does not fit.
        reason: String,
    },
    /// Writing a report file failed.
    #[error("{path}: {reason}")]
    Io {
        /// The file.
        path: String,
        /// The system's reason.
        reason: String,
    },
}

/// A GP method or a baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Configuration × strategy.
    Gp,
    /// A published baseline.
    Baseline,
}

/// The function a GP method reports on one rotation.
#[derive(Debug, Clone, Serialize)]
pub struct Chosen {
    /// The rotation.
    pub rotation: usize,
    /// The winning seed.
    pub seed: u64,
    /// The formula (simplified).
    pub formula: String,
    /// Training fitness.
    pub train: f64,
    /// Validation fitness.
    pub validation: f64,
    /// Test value of the fitness metric.
    pub test: f64,
    /// The strategy's score (what chose it).
    pub score: f64,
}

/// A method's figures at one resources level.
#[derive(Debug, Clone, Serialize)]
pub struct AtResources {
    /// Fraction of the test pages visited per cycle.
    pub resources: f64,
    /// Every metric over all test cycles.
    #[serde(flatten)]
    pub metrics: MetricSummary,
}

/// One method's results.
#[derive(Debug, Clone, Serialize)]
pub struct Method {
    /// `configuration/strategy`, or the baseline's name.
    pub name: String,
    /// GP or baseline.
    pub kind: Kind,
    /// The configuration (GP).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub configuration: Option<String>,
    /// The selection strategy (GP).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strategy: Option<Strategy>,
    /// The fitness metric it was evolved with (GP).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fitness: Option<Metric>,
    /// Every metric over all test cycles of all rotations.
    #[serde(flatten)]
    pub metrics: MetricSummary,
    /// Fraction of visited pages not visited since the warm-up, over all test cycles.
    pub newly_visited: MeanCi,
    /// The chosen function per rotation (GP; empty for baselines).
    pub chosen: Vec<Chosen>,
    /// The same at each `top_resources` (Fig. 5).
    pub top: Vec<AtResources>,
    /// Per rotation (study order), per scored test cycle.
    #[serde(skip)]
    pub cycles: Vec<Vec<CycleMetrics>>,
    /// Per `top_resources`, per rotation, per cycle.
    #[serde(skip)]
    pub top_cycles: Vec<Vec<Vec<CycleMetrics>>>,
    /// A bandit's arms (SPEC §10; empty for every other method).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub arms: Vec<String>,
    /// The metric a bandit was rewarded by.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reward: Option<Metric>,
    /// The share of all test cycles in which each arm was drawn.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub arm_shares: Vec<f64>,
    /// A bandit's draws, per rotation, per scored test cycle.
    #[serde(skip)]
    pub choices: Vec<Vec<ArmChoice>>,
    /// Every budget of the study, ascending (SPEC §11): medians over the runs, intervals,
    /// Wilcoxon p-values against the reference.
    pub budgets: Vec<budgets::Budget>,
    /// Savings at equal quality against each of the study's `savings` references.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub savings: Vec<budgets::MethodSavings>,
    /// The runs and savings curve the two above are computed from.
    #[serde(skip)]
    pub(crate) evaluated: budgets::Evaluated,
}

impl Method {
    /// The mean and 95% CI of `metric` over all test cycles.
    pub fn of(&self, metric: Metric) -> &MeanCi {
        self.metrics.of(metric)
    }

    /// Whether, in every test cycle at every resources level, WNDCG equals NDCG and
    /// WFreshness equals Freshness (as without page weights).
    pub fn weights_neutral(&self) -> bool {
        let same = |c: &CycleMetrics| {
            c.wndcg.to_bits() == c.ndcg.to_bits() && c.wfreshness.to_bits() == c.freshness.to_bits()
        };
        self.cycles
            .iter()
            .chain(self.top_cycles.iter().flatten())
            .flatten()
            .all(same)
    }
}

/// A method against a baseline on one metric, cycle by cycle (Table 3).
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// The method.
    pub method: String,
    /// The baseline.
    pub baseline: String,
    /// The metric.
    pub metric: Metric,
    /// Cycles where the method is better (paired t-test over rotations, p < 0.05).
    pub wins: usize,
    /// Cycles where the baseline is better.
    pub losses: usize,
    /// Cycles without a significant difference.
    pub ties: usize,
    /// The p-value per cycle position.
    pub p_values: Vec<f64>,
}

/// A bandit against one of its arms run alone (SPEC §10): does the bandit beat it?
#[derive(Debug, Clone, Serialize)]
pub struct ArmComparison {
    /// The bandit method.
    pub bandit: String,
    /// The arm, a method of the study.
    pub arm: String,
    /// The metric.
    pub metric: Metric,
    /// The bandit's mean over all test cycles.
    pub bandit_mean: f64,
    /// The arm's mean over all test cycles.
    pub arm_mean: f64,
    /// Two-sided paired t-test over the rotations' means (the rotations are independent
    /// page folds; the cycles of one rotation are not independent of each other).
    pub p_rotations: f64,
    /// Cycle by cycle over the rotations, as Table 3.
    pub per_cycle: Comparison,
}

/// Mean best and mean fitness per generation of one configuration, averaged over its
/// rotation × seed runs.
#[derive(Debug, Clone, Serialize)]
pub struct GenerationCurve {
    /// The configuration.
    pub configuration: String,
    /// Its fitness metric.
    pub fitness: Metric,
    /// Per generation (0 = initial population): mean over runs of the best fitness.
    pub best: Vec<f64>,
    /// Per generation: mean over runs of the population's mean fitness.
    pub mean: Vec<f64>,
}

/// Everything a report shows (`results.json` is its serialization).
#[derive(Debug, Clone, Serialize)]
pub struct Analysis {
    /// The study.
    pub study: Study,
    /// Pages and cycles of the dataset.
    pub dataset: [usize; 2],
    /// Test pages per rotation (study order).
    pub test_pages: Vec<usize>,
    /// Scored test cycles per rotation.
    pub cycles_per_rotation: usize,
    /// GP methods (configuration order, then strategy order), then baselines.
    pub methods: Vec<Method>,
    /// Every GP method against every baseline, on each of [`COMPARED`].
    pub comparisons: Vec<Comparison>,
    /// Every GP method against the methods of the other configurations with the same
    /// selection strategy (in `baseline`), on each of [`COMPARED`]: does one terminal set
    /// or fitness beat another?
    pub between_configurations: Vec<Comparison>,
    /// Fitness per generation, per configuration.
    pub generations: Vec<GenerationCurve>,
    /// Every bandit method against each of its arms that is a method of the study, on
    /// each of [`COMPARED`].
    pub bandits_vs_arms: Vec<ArmComparison>,
    /// The GP units, in unit order (for `generations.csv`).
    #[serde(skip)]
    pub gp_units: Vec<GpUnit>,
}

fn metrics_ci(cycles: &[Vec<CycleMetrics>], f: impl Fn(&CycleMetrics) -> f64) -> MeanCi {
    let values: Vec<f64> = cycles.iter().flatten().map(f).collect();
    mean_ci(&values)
}

fn method(
    name: String,
    kind: Kind,
    cycles: Vec<Vec<CycleMetrics>>,
    top_cycles: Vec<Vec<Vec<CycleMetrics>>>,
    study: &Study,
) -> Method {
    let top = study
        .top_resources
        .iter()
        .zip(&top_cycles)
        .map(|(&resources, c)| AtResources {
            resources,
            metrics: MetricSummary::new(c),
        })
        .collect();
    Method {
        name,
        kind,
        configuration: None,
        strategy: None,
        fitness: None,
        metrics: MetricSummary::new(&cycles),
        newly_visited: metrics_ci(&cycles, |m| m.newly_visited),
        chosen: Vec::new(),
        top,
        cycles,
        top_cycles,
        arms: Vec::new(),
        reward: None,
        arm_shares: Vec::new(),
        choices: Vec::new(),
        budgets: Vec::new(),
        savings: Vec::new(),
        evaluated: budgets::Evaluated::default(),
    }
}

impl Method {
    /// The method as a bandit over `arms`, rewarded by `reward`, that drew `choices`
    /// (per rotation).
    fn with_arms(
        mut self,
        arms: Vec<String>,
        reward: Metric,
        choices: Vec<Vec<ArmChoice>>,
    ) -> Method {
        self.reward = Some(reward);
        self.arm_shares = crate::sim::arm_shares(choices.iter().flatten(), arms.len());
        self.arms = arms;
        self.choices = choices;
        self
    }
}

/// The unit files of a study, read and checked against it.
struct StoredUnits {
    /// One per rotation, in study order.
    baselines: Vec<BaselineUnit>,
    /// In unit order (configuration × rotation × seed).
    gp: Vec<GpUnit>,
}

/// Reads every unit of the study stored in `store` and computes the report's figures.
pub(crate) fn analyse(study: &Study, store: &Store) -> Result<Analysis, ReportError> {
    let units = read_units(study, store)?;
    let cycles_per_rotation = units
        .baselines
        .first()
        .and_then(|u| u.baselines.first().map(|b| b.main.len()))
        .or_else(|| {
            units
                .gp
                .first()
                .map(|u| u.run.choices[Strategy::Best].test_cycles.len())
        })
        .unwrap_or(0);
    let mut methods = Vec::new();
    let mut generations = Vec::new();
    let mut offset = 0;
    for c in &study.configurations {
        let n = study.rotations.len() * c.seeds.len();
        let runs = &units.gp[offset..offset + n];
        offset += n;
        methods.extend(gp_methods(study, c, runs, store)?);
        generations.push(generation_curve(c, runs));
    }
    let gp_methods = methods.len();
    methods.extend(baseline_methods(study, &units.baselines));
    let comparisons = comparisons(
        &methods[..gp_methods],
        &methods[gp_methods..],
        cycles_per_rotation,
    );
    let between_configurations =
        between_configurations(&methods[..gp_methods], cycles_per_rotation);
    let bandits_vs_arms = bandits_vs_arms(&methods, cycles_per_rotation);
    budgets::attach(study, &mut methods);
    Ok(Analysis {
        bandits_vs_arms,
        between_configurations,
        study: study.clone(),
        dataset: units.baselines.first().map_or([0, 0], |u| u.dataset),
        test_pages: units.baselines.iter().map(|u| u.test_pages).collect(),
        cycles_per_rotation,
        methods,
        comparisons,
        generations,
        gp_units: units.gp,
    })
}

/// Reads every unit file of `study`: an error if one is missing or does not fit.
fn read_units(study: &Study, store: &Store) -> Result<StoredUnits, ReportError> {
    let all = units::units(study);
    let mut missing = all
        .iter()
        .map(|u| u.file_name(study))
        .filter(|n| !store.unit_path(n).exists());
    if let Some(first) = missing.next() {
        return Err(ReportError::Incomplete {
            dir: store.dir().display().to_string(),
            missing: 1 + missing.count(),
            total: all.len(),
            first,
        });
    }
    let mut stored = StoredUnits {
        baselines: Vec::new(),
        gp: Vec::new(),
    };
    let dataset = store.dataset()?;
    for unit in &all {
        let name = unit.file_name(study);
        let inconsistent = |reason: &str| ReportError::Inconsistent {
            file: store.unit_path(&name).display().to_string(),
            reason: reason.to_string(),
        };
        // A unit computed on other data than the directory's (copied in by hand).
        let other_data = |fingerprint: Option<Fingerprint>| {
            match (fingerprint, dataset) {
            (Some(unit), Some(dir)) if unit != dir.fingerprint => Err(inconsistent(&format!(
                "was computed on the dataset of fingerprint {unit}, the directory's results on {dir}"
            ))),
            _ => Ok(()),
        }
        };
        match *unit {
            Unit::Baselines { rotation } => {
                let u: BaselineUnit = store
                    .read_unit(&name)?
                    .ok_or_else(|| inconsistent("no such file"))?;
                if !baselines_fit(&u, study, rotation) {
                    return Err(inconsistent(
                        "does not match the study's baselines, rotation or top_resources",
                    ));
                }
                other_data(u.fingerprint)?;
                stored.baselines.push(u);
            }
            Unit::Gp {
                configuration,
                rotation,
                seed,
            } => {
                let u: GpUnit = store
                    .read_unit(&name)?
                    .ok_or_else(|| inconsistent("no such file"))?;
                let ok = u.rotation == rotation
                    && u.seed == seed
                    && u.configuration == study.configurations[configuration].name
                    && u.top
                        .iter()
                        .all(|t| t.runs.len() == study.top_resources.len());
                if !ok {
                    return Err(inconsistent("does not match its configuration, rotation, seed or the study's top_resources"));
                }
                other_data(u.fingerprint)?;
                stored.gp.push(u);
            }
        }
    }
    Ok(stored)
}

/// Whether a baseline unit holds the study's baselines of `rotation` at every level.
fn baselines_fit(u: &BaselineUnit, study: &Study, rotation: usize) -> bool {
    u.rotation == rotation
        && u.baselines.len() == study.baselines.len()
        && u.baselines
            .iter()
            .zip(&study.baselines)
            .all(|(r, b)| r.baseline == *b && r.top.len() == study.top_resources.len())
}

/// The methods of configuration `c` (one per reported strategy), from its GP units `runs`
/// (rotation × seed).
fn gp_methods(
    study: &Study,
    c: &Configuration,
    runs: &[GpUnit],
    store: &Store,
) -> Result<Vec<Method>, ReportError> {
    // Per rotation: the seed runs and the winners.
    let mut per_rotation = Vec::new();
    for seeds in runs.chunks(c.seeds.len()) {
        let seed_runs: Vec<_> = seeds.iter().map(|u| u.run.clone()).collect();
        let winners = evolve::winners(&seed_runs).ok_or_else(|| ReportError::Inconsistent {
            file: store.dir().display().to_string(),
            reason: format!("configuration `{}` has no seed", c.name),
        })?;
        per_rotation.push((seeds, winners));
    }
    let mut methods = Vec::new();
    for &strategy in &study.reports.strategies {
        let mut cycles = Vec::new();
        let mut top_cycles = vec![Vec::new(); study.top_resources.len()];
        let mut chosen = Vec::new();
        let mut evals = Vec::new();
        for (seeds, winners) in &per_rotation {
            let unit = &seeds[winners[strategy]];
            let choice: &Choice = &unit.run.choices[strategy];
            cycles.push(choice.test_cycles.clone());
            let top = unit.top.iter().find(|t| t.strategy == strategy);
            evals.push(top.and_then(|t| t.eval.as_ref()));
            if let Some(t) = top {
                for (k, run) in t.runs.iter().enumerate() {
                    top_cycles[k].push(run.cycles.clone());
                }
            }
            chosen.push(Chosen {
                rotation: unit.rotation,
                seed: unit.seed,
                formula: choice.formula.to_string(),
                train: choice.train,
                validation: choice.validation,
                test: choice.test,
                score: choice.score,
            });
        }
        let mut m = method(
            format!("{}/{}", c.name, strategy.name()),
            Kind::Gp,
            cycles,
            top_cycles,
            study,
        );
        m.evaluated = budgets::Evaluated::new(study, &evals, &m.cycles, &m.top_cycles);
        m.configuration = Some(c.name.clone());
        m.strategy = Some(strategy);
        m.fitness = Some(c.fitness);
        m.chosen = chosen;
        methods.push(m);
    }
    let bandits = bandit_methods(study, c, &per_rotation, &methods, store)?;
    methods.extend(bandits);
    Ok(methods)
}

/// The methods of configuration `c`'s bandits with its chosen formulas as one more arm
/// (one per bandit and reported strategy), from the winners of each rotation
/// (`per_rotation`) and the configuration's strategy methods `strategies`.
fn bandit_methods(
    study: &Study,
    c: &Configuration,
    per_rotation: &[(&[GpUnit], evolve::PerStrategy<usize>)],
    strategies: &[Method],
    store: &Store,
) -> Result<Vec<Method>, ReportError> {
    let mut out = Vec::new();
    for (j, bandit) in c.bandits.iter().enumerate() {
        for &strategy in &study.reports.strategies {
            let runs = per_rotation
                .iter()
                .map(|(seeds, winners)| {
                    let unit = &seeds[winners[strategy]];
                    unit.bandits
                        .iter()
                        .filter(|r| r.strategy == strategy)
                        .nth(j)
                        .ok_or_else(|| ReportError::Inconsistent {
                            file: store.dir().display().to_string(),
                            reason: format!(
                                "unit {} has no run of bandit `{bandit}`",
                                gp_file_name(&c.name, unit.rotation, unit.seed)
                            ),
                        })
                })
                .collect::<Result<Vec<_>, _>>()?;
            let name = format!("{}/{}+{}", c.name, strategy.name(), bandit.label());
            let cycles = runs.iter().map(|r| r.cycles.clone()).collect();
            let no_top = vec![Vec::new(); study.top_resources.len()];
            let mut m = method(name, Kind::Gp, cycles, no_top, study);
            // Bandits are tested at the study's resources only, in one run.
            m.top.clear();
            m.top_cycles.clear();
            m.evaluated = budgets::Evaluated::new(study, &[], &m.cycles, &[]);
            m.configuration = Some(c.name.clone());
            m.strategy = Some(strategy);
            m.fitness = Some(c.fitness);
            // The evolved arm: the strategy's choices.
            m.chosen = strategies
                .iter()
                .find(|other: &&Method| other.strategy == Some(strategy) && other.arms.is_empty())
                .map_or_else(Vec::new, |other| other.chosen.clone());
            let mut arms: Vec<String> = bandit
                .bandit()
                .map(|b| b.arms().iter().map(Policy::label).collect())
                .unwrap_or_default();
            // The evolved arm, named as its method so that the bandit is compared with it
            // alone (absent when it already was one of the bandit's arms).
            let ran = |r: &&BanditRun| r.bandit.bandit().map_or(0, |b| b.arms().len());
            if runs.iter().all(|r| ran(r) > arms.len()) {
                arms.push(format!("{}/{}", c.name, strategy.name()));
            }
            let choices = runs.iter().map(|r| r.choices.clone()).collect();
            let reward = bandit
                .bandit()
                .and_then(|b| b.reward())
                .unwrap_or(c.fitness);
            out.push(m.with_arms(arms, reward, choices));
        }
    }
    Ok(out)
}

/// Per generation, the mean over `runs` of the best and of the mean fitness.
fn generation_curve(c: &Configuration, runs: &[GpUnit]) -> GenerationCurve {
    let len = runs
        .iter()
        .map(|u| u.run.generations.len())
        .min()
        .unwrap_or(0);
    let column = |f: &dyn Fn(&evolve::GenerationSummary) -> f64| -> Vec<f64> {
        (0..len)
            .map(|g| {
                mean(
                    &runs
                        .iter()
                        .map(|u| f(&u.run.generations[g]))
                        .collect::<Vec<_>>(),
                )
            })
            .collect()
    };
    GenerationCurve {
        configuration: c.name.clone(),
        fitness: c.fitness,
        best: column(&|g| g.best),
        mean: column(&|g| g.mean),
    }
}

/// One method per study baseline, from the baseline units (one per rotation).
fn baseline_methods(study: &Study, units: &[BaselineUnit]) -> Vec<Method> {
    study
        .baselines
        .iter()
        .enumerate()
        .map(|(b, baseline)| {
            let cycles = units.iter().map(|u| u.baselines[b].main.clone()).collect();
            let top_cycles = (0..study.top_resources.len())
                .map(|k| {
                    units
                        .iter()
                        .map(|u| u.baselines[b].top[k].cycles.clone())
                        .collect()
                })
                .collect();
            let mut m = method(baseline.label(), Kind::Baseline, cycles, top_cycles, study);
            let evals: Vec<_> = units.iter().map(|u| u.baselines[b].eval.as_ref()).collect();
            m.evaluated = budgets::Evaluated::new(study, &evals, &m.cycles, &m.top_cycles);
            match baseline.bandit() {
                Some(bandit) => {
                    let arms = bandit.arms().iter().map(Policy::label).collect();
                    let choices = units
                        .iter()
                        .map(|u| u.baselines[b].choices.clone())
                        .collect();
                    let reward = bandit.reward().unwrap_or(study.sim.metric());
                    m.with_arms(arms, reward, choices)
                }
                None => m,
            }
        })
        .collect()
}

/// Every GP method against every baseline, on each of [`COMPARED`].
fn comparisons(gp: &[Method], baselines: &[Method], positions: usize) -> Vec<Comparison> {
    let mut out = Vec::new();
    for m in gp {
        for b in baselines {
            for metric in COMPARED {
                out.push(compare(m, b, metric, positions));
            }
        }
    }
    out
}

/// Every GP method against each method of another configuration with the same strategy,
/// on each of [`COMPARED`].
fn between_configurations(gp: &[Method], positions: usize) -> Vec<Comparison> {
    let mut out = Vec::new();
    for m in gp {
        for other in gp {
            // Plain strategy methods only (not bandits with an evolved arm).
            let plain = m.arms.is_empty() && other.arms.is_empty();
            if plain && other.configuration != m.configuration && other.strategy == m.strategy {
                for metric in COMPARED {
                    out.push(compare(m, other, metric, positions));
                }
            }
        }
    }
    out
}

/// Every bandit method against each of its arms that is a method of the study.
fn bandits_vs_arms(methods: &[Method], positions: usize) -> Vec<ArmComparison> {
    let mut out = Vec::new();
    for m in methods.iter().filter(|m| !m.arms.is_empty()) {
        for arm in m.arms.iter() {
            let Some(alone) = methods.iter().find(|other| other.name == *arm) else {
                continue;
            };
            for metric in COMPARED {
                let rotation_means = |x: &Method| -> Vec<f64> {
                    x.cycles
                        .iter()
                        .map(|r| mean(&r.iter().map(|c| metric.of(c)).collect::<Vec<_>>()))
                        .collect()
                };
                let (a, b) = (rotation_means(m), rotation_means(alone));
                out.push(ArmComparison {
                    bandit: m.name.clone(),
                    arm: arm.clone(),
                    metric,
                    bandit_mean: m.of(metric).mean,
                    arm_mean: alone.of(metric).mean,
                    p_rotations: if a.len() == b.len() {
                        paired_t_test(&a, &b)
                    } else {
                        1.0
                    },
                    per_cycle: compare(m, alone, metric, positions),
                });
            }
        }
    }
    out
}

/// Cycle by cycle, the paired t-test over rotations of `m` against `b`.
fn compare(m: &Method, b: &Method, metric: Metric, positions: usize) -> Comparison {
    let (mut wins, mut losses, mut ties) = (0, 0, 0);
    let mut p_values = Vec::new();
    for j in 0..positions {
        let column = |x: &Method| -> Vec<f64> {
            x.cycles
                .iter()
                .filter_map(|r| r.get(j).map(|c| metric.of(c)))
                .collect()
        };
        let (a, z) = (column(m), column(b));
        let p = if a.len() == z.len() {
            paired_t_test(&a, &z)
        } else {
            1.0
        };
        p_values.push(p);
        if p < 0.05 {
            if mean(&a) > mean(&z) {
                wins += 1;
            } else {
                losses += 1;
            }
        } else {
            ties += 1;
        }
    }
    Comparison {
        method: m.name.clone(),
        baseline: b.name.clone(),
        metric,
        wins,
        losses,
        ties,
        p_values,
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// `cycles.csv`: one row per method, rotation, resources level and scored test cycle.
pub(crate) fn cycles_csv(a: &Analysis) -> String {
    let mut out = String::from(
        "method,kind,configuration,strategy,fitness,rotation,resources,position,cycle,change_rate,ndcg,freshness,newly_visited,stale,visited,wfreshness,wndcg\n",
    );
    for m in &a.methods {
        let kind = match m.kind {
            Kind::Gp => "gp",
            Kind::Baseline => "baseline",
        };
        let levels = std::iter::once((a.study.sim.resources(), &m.cycles))
            .chain(a.study.top_resources.iter().copied().zip(&m.top_cycles));
        for (resources, per_rotation) in levels {
            for (rotation, cycles) in a.study.rotations.iter().zip(per_rotation) {
                for (j, c) in cycles.iter().enumerate() {
                    let _ = writeln!(
                        out,
                        "{},{kind},{},{},{},{rotation},{resources},{},{},{},{},{},{},{},{},{},{}",
                        csv_field(&m.name),
                        m.configuration.as_deref().unwrap_or(""),
                        m.strategy.map_or("", |s| s.name()),
                        m.fitness.map_or("", |f| f.name()),
                        j + 1,
                        c.cycle,
                        c.change_rate,
                        c.ndcg,
                        c.freshness,
                        c.newly_visited,
                        c.stale,
                        c.visited,
                        c.wfreshness,
                        c.wndcg
                    );
                }
            }
        }
    }
    out
}

/// `arms.csv` (SPEC §10): one row per bandit method, rotation and scored test cycle: the
/// arm drawn (index into the method's `arms` in `results.json`), its reward, and every
/// arm's probability (`q0`, `q1`, ...; as many columns as the widest bandit has arms).
pub(crate) fn arms_csv(a: &Analysis) -> String {
    let bandits: Vec<&Method> = a.methods.iter().filter(|m| !m.arms.is_empty()).collect();
    let width = bandits.iter().map(|m| m.arms.len()).max().unwrap_or(0);
    let mut out = String::from("method,rotation,position,cycle,arm,arm_name,reward");
    for j in 0..width {
        let _ = write!(out, ",q{j}");
    }
    out.push('\n');
    for m in bandits {
        for (rotation, choices) in a.study.rotations.iter().zip(&m.choices) {
            for (i, c) in choices.iter().enumerate() {
                let name = m.arms.get(c.arm).map_or("", String::as_str);
                let _ = write!(
                    out,
                    "{},{rotation},{},{},{},{},{}",
                    csv_field(&m.name),
                    i + 1,
                    c.cycle,
                    c.arm,
                    csv_field(name),
                    c.reward
                );
                for j in 0..width {
                    match c.q.get(j) {
                        Some(q) => write!(out, ",{q}"),
                        None => write!(out, ","),
                    }
                    .unwrap_or_default();
                }
                out.push('\n');
            }
        }
    }
    out
}

/// `generations.csv`: one row per GP unit and generation.
pub(crate) fn generations_csv(a: &Analysis) -> String {
    let mut out = String::from(
        "configuration,fitness,rotation,seed,generation,best,mean,evaluated,cache_hits,best_formula\n",
    );
    for u in &a.gp_units {
        let fitness = a
            .study
            .configurations
            .iter()
            .find(|c| c.name == u.configuration)
            .map_or("", |c| c.fitness.name());
        for g in &u.run.generations {
            let _ = writeln!(
                out,
                "{},{fitness},{},{},{},{},{},{},{},{}",
                u.configuration,
                u.rotation,
                u.seed,
                g.generation,
                g.best,
                g.mean,
                g.evaluated,
                g.cache_hits,
                csv_field(&g.best_formula.to_string())
            );
        }
    }
    out
}

/// Reads the study and units of `dir` and writes every report the study asks for.
/// Returns the paths written.
pub fn write(dir: &Path) -> Result<Vec<PathBuf>, ReportError> {
    let (store, study) = Store::open(dir)?;
    let analysis = analyse(&study, &store)?;
    let mut written = Vec::new();
    let mut put = |name: &str, text: &str| -> Result<(), ReportError> {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| ReportError::Io {
                path: parent.display().to_string(),
                reason: e.to_string(),
            })?;
        }
        crate::atomic::write(&path, text.as_bytes()).map_err(|e| ReportError::Io {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        written.push(path);
        Ok(())
    };
    let plots = if study.reports.plots {
        plots::all(&analysis)
    } else {
        Vec::new()
    };
    put(
        "summary.md",
        &summary::markdown(
            &analysis,
            &plots.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
        ),
    )?;
    // Invariant: an analysis is plain data (string keys, finite or null numbers).
    let mut json = serde_json::to_string_pretty(&analysis).expect("results serialize");
    json.push('\n');
    put("results.json", &json)?;
    if study.reports.csv {
        put("cycles.csv", &cycles_csv(&analysis))?;
        put("generations.csv", &generations_csv(&analysis))?;
        if analysis.methods.iter().any(|m| !m.arms.is_empty()) {
            put("arms.csv", &arms_csv(&analysis))?;
        }
    }
    for (name, svg) in &plots {
        put(name, svg)?;
    }
    Ok(written)
}
