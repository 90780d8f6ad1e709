//! The units of work of a study and running them.
//!
//! A study is cut into independent units, in a fixed order: first one *baseline unit* per
//! rotation (every baseline on the rotation's test set, at the study's resources and at
//! each of its `top_resources`), then one *GP unit* per configuration × rotation × seed
//! (evolve, validate, choose by Best / Sum_σ / Avg_σ, test the choices, and test them again
//! at each `top_resources`, for Fig. 5). A unit's result depends only on the study and the
//! unit, never on which other units ran, in which process or on how many threads.
//!
//! Each finished unit is stored at once as `units/<name>.json` ([`Unit::file_name`]), so
//! a killed run resumes where it stopped, and shards ([`Shard`]: the units whose index
//! modulo n is i) can run on different machines and be merged.

use super::evolve::{self, EvolveSettings, Progress, RotationFitness, SeedRun};
pub use super::shard::{Shard, SlurmError};
use super::store::{DatasetRecord, Store, StoreError};
use super::study::{Study, StudyError};
use super::sweep::{self, CurvePoint, RunMeans};
use super::{ExperimentError, Set};
use crate::data::split::Split;
use crate::data::{Dataset, Fingerprint};
use crate::formula::Grammar;
use crate::gp::{GenerationReport, Strategy};
use crate::metric::CycleMetrics;
use crate::policy::Predictor;
use crate::policy::{BanditError, Policy};
use crate::sim::{ArmChoice, Period, SimConfig, Simulator};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::ops::ControlFlow;
use std::path::Path;
use std::time::Instant;

/// One unit of work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Every baseline on one rotation's test set.
    Baselines {
        /// The rotation.
        rotation: usize,
    },
    /// One seed of one configuration on one rotation.
    Gp {
        /// Index into [`Study::configurations`].
        configuration: usize,
        /// The rotation.
        rotation: usize,
        /// The seed.
        seed: u64,
    },
}

impl Unit {
    /// The unit's result file name inside `units/`: `baselines-r<rotation>.json` or
    /// `<configuration>-r<rotation>-s<seed>.json`.
    pub fn file_name(&self, study: &Study) -> String {
        match *self {
            Unit::Baselines { rotation } => format!("baselines-r{rotation}.json"),
            Unit::Gp {
                configuration,
                rotation,
                seed,
            } => gp_file_name(&study.configurations[configuration].name, rotation, seed),
        }
    }

    /// A short label for progress lines.
    pub(crate) fn label(&self, study: &Study) -> String {
        match *self {
            Unit::Baselines { rotation } => format!("baselines rotation {rotation}"),
            Unit::Gp {
                configuration,
                rotation,
                seed,
            } => format!(
                "{} rotation {rotation} seed {seed}",
                study.configurations[configuration].name
            ),
        }
    }

    /// A rough measure of the unit's work, for ETAs: generations (+1 for the initial
    /// population) times population for GP units; one generation's worth for baselines.
    pub(crate) fn work(&self, study: &Study) -> f64 {
        match *self {
            Unit::Baselines { .. } => {
                let p = study
                    .configurations
                    .iter()
                    .map(|c| c.gp.population)
                    .max()
                    .unwrap_or(1);
                p as f64
            }
            Unit::Gp { configuration, .. } => {
                let gp = &study.configurations[configuration].gp;
                ((gp.generations + 1) * gp.population) as f64
            }
        }
    }
}

/// The result file name of the GP unit of `configuration` (its name), `rotation` and
/// `seed`: `<configuration>-r<rotation>-s<seed>.json`.
pub(crate) fn gp_file_name(configuration: &str, rotation: usize, seed: u64) -> String {
    format!("{configuration}-r{rotation}-s{seed}.json")
}

/// Every unit of `study`, in the fixed order of the module docs.
pub fn units(study: &Study) -> Vec<Unit> {
    let mut all: Vec<Unit> = study
        .rotations
        .iter()
        .map(|&rotation| Unit::Baselines { rotation })
        .collect();
    for (configuration, c) in study.configurations.iter().enumerate() {
        for &rotation in &study.rotations {
            for &seed in &c.seeds {
                all.push(Unit::Gp {
                    configuration,
                    rotation,
                    seed,
                });
            }
        }
    }
    all
}

/// One simulation at given resources.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceRun {
    /// Fraction of the test pages visited per cycle.
    pub resources: f64,
    /// Per scored cycle.
    #[serde(deserialize_with = "super::stored::cycles")]
    pub cycles: Vec<CycleMetrics>,
}

/// A chosen function re-tested at other resources.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StrategyRuns {
    /// The strategy whose choice this is.
    pub strategy: Strategy,
    /// One run per `top_resources` entry, in order.
    pub runs: Vec<ResourceRun>,
    /// The repeated runs and savings curve (studies with `runs` or `savings`;
    /// docs/src/reference/evaluation.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eval: Option<UnitEval>,
}

/// One policy's figures of budgets, runs and savings (docs/src/reference/evaluation.md) on
/// one test set: each run's means at every budget of the study ([`Study::levels`]), and the
/// savings curve at the study's budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnitEval {
    /// `levels[l][run]`: run means at budget `l`, run by run (seeds 1..R).
    pub levels: Vec<Vec<RunMeans>>,
    /// Means on the savings grid (empty when the study asks no savings).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub curve: Vec<CurvePoint>,
}

/// A chosen formula tested as one more arm of a bandit (docs/src/reference/bandit.md#arms).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BanditRun {
    /// The strategy whose choice is the last arm.
    pub strategy: Strategy,
    /// The bandit as run: the configuration's bandit with the chosen formula last.
    pub bandit: Policy,
    /// Per scored test cycle.
    #[serde(deserialize_with = "super::stored::cycles")]
    pub cycles: Vec<CycleMetrics>,
    /// The arm drawn in each scored test cycle.
    pub choices: Vec<ArmChoice>,
}

/// The result of a GP unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GpUnit {
    /// Configuration name.
    pub configuration: String,
    /// Rotation.
    pub rotation: usize,
    /// Seed.
    pub seed: u64,
    /// Pages in the training, validation and test sets.
    pub set_sizes: [usize; 3],
    /// Pages in the training sample the search evaluated on, with a configuration's
    /// `train_sample`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_pages: Option<usize>,
    /// The run: generations, choices and their test cycles at the study's resources.
    pub run: SeedRun,
    /// The choices tested at each `top_resources`.
    pub top: Vec<StrategyRuns>,
    /// Each choice tested as one more arm of each of the configuration's bandits
    /// (strategy order, then bandit order).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bandits: Vec<BanditRun>,
    /// The dataset it was computed on (absent in units written before fingerprints).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<Fingerprint>,
}

/// One fixed policy (a baseline) on one test set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BaselineRuns {
    /// The policy, as text (a policy's name, docs/src/reference/policies.md#names-and-text,
    /// adaptive parameters, or a formula).
    pub baseline: Policy,
    /// At the study's resources.
    #[serde(deserialize_with = "super::stored::cycles")]
    pub main: Vec<CycleMetrics>,
    /// At each `top_resources`, in order.
    pub top: Vec<ResourceRun>,
    /// A bandit's arm choices at the study's resources (docs/src/reference/bandit.md; empty
    /// otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<ArmChoice>,
    /// The repeated runs and savings curve (studies with `runs` or `savings`;
    /// docs/src/reference/evaluation.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eval: Option<UnitEval>,
}

/// The result of a baseline unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BaselineUnit {
    /// Rotation.
    pub rotation: usize,
    /// Pages and cycles of the whole dataset.
    pub dataset: [usize; 2],
    /// Pages in the test set.
    pub test_pages: usize,
    /// One entry per study baseline, in order.
    pub baselines: Vec<BaselineRuns>,
    /// The dataset it was computed on (absent in units written before fingerprints).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<Fingerprint>,
}

/// Why a study cannot run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The experiment file or its dataset.
    #[error(transparent)]
    Study(#[from] StudyError),
    /// The output directory.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The protocol (splits, simulation settings).
    #[error(transparent)]
    Experiment(#[from] ExperimentError),
}

/// A study with its dataset and grammars loaded, ready to run units.
pub struct Runner {
    study: Study,
    dataset: Dataset,
    /// The dataset's record (with its fingerprint), computed once.
    record: DatasetRecord,
    grammars: Vec<Grammar>,
    /// Each configuration's model (`P`), if any.
    models: Vec<Option<Predictor>>,
}

impl Runner {
    /// Loads the dataset and grammars (paths relative to the study's `file`) and checks
    /// that every rotation can be simulated at every resources level of the study (a
    /// broken rule is an error naming the field's line in `file`).
    pub fn new(study: Study, file: &Path) -> Result<Runner, RunError> {
        let base = &super::study::base_dir(file);
        let grammars = study
            .configurations
            .iter()
            .map(|c| c.grammar(base))
            .collect::<Result<Vec<_>, _>>()
            .map_err(StudyError::from)?;
        let models = study
            .configurations
            .iter()
            .map(|c| c.model(base))
            .collect::<Result<Vec<_>, _>>()?;
        study.check_seeds_of(&grammars, file)?;
        let dataset = study.load_dataset(base)?;
        study.check_size_of(&dataset, file)?;
        let runner = Runner {
            study,
            record: DatasetRecord::of(&dataset),
            dataset,
            grammars,
            models,
        };
        for index in 0..runner.study.configurations.len() {
            runner.settings(index).check_model()?;
        }
        // Before any output: a model whose group rate the data's grouping does not keep
        // would fail only at its first unit.
        let grouping = runner.dataset.grouping();
        let refused = ExperimentError::Grouping;
        for model in runner.models.iter().flatten() {
            model.check_grouping(grouping).map_err(refused)?;
        }
        for policy in &runner.study.baselines {
            policy.check_grouping(grouping).map_err(refused)?;
            if policy.features().reads_latent() && !runner.dataset.has_latent() {
                return Err(RunError::from(ExperimentError::Sim {
                    set: Set::Test,
                    source: crate::sim::SimError::NoLatent,
                }));
            }
        }
        for &rotation in &runner.study.rotations {
            let split = Split::new(runner.dataset.pages(), runner.dataset.cycles(), rotation)
                .map_err(ExperimentError::from)?
                .with_horizon(runner.study.test_horizon, runner.dataset.cycles());
            for (set, pages, cycles) in [
                (Set::Training, &split.train, split.train_cycles.clone()),
                (
                    Set::Validation,
                    &split.validation,
                    split.validation_cycles.clone(),
                ),
                (Set::Test, &split.test, split.test_cycles.clone()),
            ] {
                let period =
                    Period::new(&runner.dataset, pages, cycles).map_err(ExperimentError::from)?;
                runner
                    .study
                    .sim
                    .check(&period)
                    .map_err(|source| ExperimentError::Sim { set, source })?;
                if set == Set::Test {
                    for (c, &resources) in runner
                        .top_configs()?
                        .iter()
                        .zip(&runner.study.top_resources)
                    {
                        if c.check(&period).is_err() {
                            return Err(ExperimentError::TopResources {
                                resources,
                                rotation,
                                pages: period.pages(),
                            }
                            .into());
                        }
                    }
                }
            }
        }
        Ok(runner)
    }

    /// The study.
    pub fn study(&self) -> &Study {
        &self.study
    }

    /// The dataset.
    pub fn dataset(&self) -> &Dataset {
        &self.dataset
    }

    fn top_configs(&self) -> Result<Vec<SimConfig>, ExperimentError> {
        self.study
            .top_resources
            .iter()
            .map(|&r| {
                self.study
                    .sim
                    .with_resources(r)
                    .map_err(|source| ExperimentError::Sim {
                        set: Set::Test,
                        source,
                    })
            })
            .collect()
    }

    fn test_period(&self, rotation: usize) -> Result<Period, ExperimentError> {
        let split = Split::new(self.dataset.pages(), self.dataset.cycles(), rotation)?
            .with_horizon(self.study.test_horizon, self.dataset.cycles());
        Ok(Period::new(&self.dataset, &split.test, split.test_cycles)?)
    }

    /// The evolution settings of configuration `index`.
    pub(crate) fn settings(&self, index: usize) -> EvolveSettings {
        let c = &self.study.configurations[index];
        EvolveSettings {
            grammar: self.grammars[index].clone(),
            metric: c.fitness,
            also: c.also.clone(),
            gp: super::evolve::seeded(
                c.gp.clone()
                    .check()
                    // Invariant: a `Study` holds only checked GP configurations.
                    .expect("checked when the study was read"),
                &self.grammars[index],
            ),
            sim: self.study.sim,
            seeds: c.seeds.clone(),
            horizon: self.study.test_horizon,
            train_resources: self.study.train_resources.clone(),
            model: self.models[index].clone(),
            train_sample: c.train_sample,
        }
    }

    /// Runs one unit of work.
    pub(crate) fn run(
        &self,
        unit: Unit,
        progress: &mut impl FnMut(&GenerationReport) -> ControlFlow<()>,
    ) -> Result<UnitResult, ExperimentError> {
        match unit {
            Unit::Baselines { rotation } => self.run_baselines(rotation).map(UnitResult::Baselines),
            Unit::Gp {
                configuration,
                rotation,
                seed,
            } => self
                .run_gp(configuration, rotation, seed, progress)
                .map(|u| UnitResult::Gp(Box::new(u))),
        }
    }

    /// Every baseline of the study on the test set of `rotation`.
    pub(crate) fn run_baselines(&self, rotation: usize) -> Result<BaselineUnit, ExperimentError> {
        let test = self.test_period(rotation)?;
        let mut configs = vec![self.study.sim];
        configs.extend(self.top_configs()?);
        let jobs: Vec<(&Policy, SimConfig)> = self
            .study
            .baselines
            .iter()
            .flat_map(|b| configs.iter().map(move |&c| (b, c)))
            .collect();
        let mut outcomes = jobs
            .par_iter()
            .map(|&(b, c)| {
                Simulator::new(c)
                    .run(&test, b)
                    .map_err(|source| ExperimentError::Sim {
                        set: Set::Test,
                        source,
                    })
            })
            .collect::<Result<Vec<_>, _>>()?
            .into_iter();
        let baselines = self
            .study
            .baselines
            .iter()
            .map(|baseline| {
                // Invariant: `jobs` holds 1 + top_resources runs per baseline, in this order.
                let main = outcomes.next().expect("one per job");
                let top = self
                    .study
                    .top_resources
                    .iter()
                    .map(|&resources| ResourceRun {
                        resources,
                        // Invariant: as above, one outcome per job.
                        cycles: outcomes.next().expect("one per job").cycles,
                    })
                    .collect();
                Ok(BaselineRuns {
                    baseline: baseline.clone(),
                    main: main.cycles,
                    top,
                    choices: main.choices,
                    eval: self.evaluate(&test, baseline)?,
                })
            })
            .collect::<Result<Vec<_>, ExperimentError>>()?;
        Ok(BaselineUnit {
            rotation,
            dataset: [self.dataset.pages(), self.dataset.cycles()],
            test_pages: test.pages(),
            baselines,
            fingerprint: Some(self.record.fingerprint),
        })
    }

    /// One seed of configuration `configuration` on `rotation`.
    pub(crate) fn run_gp(
        &self,
        configuration: usize,
        rotation: usize,
        seed: u64,
        progress: &mut impl FnMut(&GenerationReport) -> ControlFlow<()>,
    ) -> Result<GpUnit, ExperimentError> {
        let settings = self.settings(configuration);
        let sets = RotationFitness::new(&self.dataset, rotation, &settings)?;
        let run = evolve::run_seed(&sets, &settings, 0, seed, &mut |event| match event {
            Progress::Generation { report, .. } => progress(report),
            Progress::Selecting { .. } => ControlFlow::Continue(()),
        })?;
        let tops = self.top_configs()?;
        let top = run
            .choices
            .iter()
            .map(|choice| {
                let policy = settings.policy(&choice.formula);
                let runs = tops
                    .par_iter()
                    .map(|&c| {
                        Simulator::new(c)
                            .run(&sets.test, &policy)
                            .map(|o| ResourceRun {
                                resources: c.resources(),
                                cycles: o.cycles,
                            })
                            .map_err(|source| ExperimentError::Sim {
                                set: Set::Test,
                                source,
                            })
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(StrategyRuns {
                    strategy: choice.strategy,
                    runs,
                    eval: self.evaluate(&sets.test, &policy)?,
                })
            })
            .collect::<Result<Vec<_>, ExperimentError>>()?;
        let bandits = self.run_bandits(configuration, &settings, &sets.test, &run)?;
        Ok(GpUnit {
            configuration: self.study.configurations[configuration].name.clone(),
            rotation,
            seed,
            set_sizes: sets.set_sizes(),
            sample_pages: sets.sample.as_ref().map(|s| s.period().pages()),
            run,
            top,
            bandits,
            fingerprint: Some(self.record.fingerprint),
        })
    }

    /// The budgets, runs and savings figures of `policy` on `test`, when the study asks for
    /// them: each run seed's means at every budget, and the savings curve at the study's
    /// budget.
    fn evaluate(
        &self,
        test: &Period,
        policy: &Policy,
    ) -> Result<Option<UnitEval>, ExperimentError> {
        if !self.study.evaluates() {
            return Ok(None);
        }
        let seeds = self.study.run_seeds();
        let periods = std::slice::from_ref(test);
        let levels =
            self.study
                .levels()
                .into_iter()
                .map(|r| {
                    let at = self.study.sim.with_resources(r).map_err(|source| {
                        ExperimentError::Sim {
                            set: Set::Test,
                            source,
                        }
                    })?;
                    sweep::evaluate(periods, at, policy, &seeds)
                })
                .collect::<Result<Vec<_>, _>>()?;
        let curve = if self.study.savings.is_empty() {
            Vec::new()
        } else {
            sweep::savings_curve(periods, self.study.sim, policy, &seeds, &mut |_, _| {})?
        };
        Ok(Some(UnitEval { levels, curve }))
    }

    /// Each choice of `run` as one more arm of each bandit of `configuration`, on `test`,
    /// rewarded by the configuration's fitness unless the bandit names its metric.
    fn run_bandits(
        &self,
        configuration: usize,
        settings: &EvolveSettings,
        test: &Period,
        run: &SeedRun,
    ) -> Result<Vec<BanditRun>, ExperimentError> {
        let c = &self.study.configurations[configuration];
        let config = self.study.sim.with_metric(c.fitness);
        let mut jobs = Vec::new();
        for choice in run.choices.iter() {
            let evolved = settings.scorer(&choice.formula);
            for bandit in c.bandits.iter().filter_map(Policy::bandit) {
                let with = match bandit.with_arm(evolved.clone()) {
                    // The evolved formula already is an arm (a `formula(..)` or `file(..)`).
                    Err(BanditError::Duplicate(..)) => bandit.clone(),
                    other => other?,
                };
                jobs.push((choice.strategy, Policy::Bandit(with)));
            }
        }
        jobs.into_par_iter()
            .map(|(strategy, bandit)| {
                let outcome = Simulator::new(config)
                    .run(test, &bandit)
                    .map_err(|source| ExperimentError::Sim {
                        set: Set::Test,
                        source,
                    })?;
                Ok(BanditRun {
                    strategy,
                    bandit,
                    cycles: outcome.cycles,
                    choices: outcome.choices,
                })
            })
            .collect()
    }
}

/// The result of any unit.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum UnitResult {
    /// A baseline unit.
    Baselines(BaselineUnit),
    /// A GP unit.
    Gp(Box<GpUnit>),
}

impl UnitResult {
    /// Stores the result as its unit's file.
    pub fn store(&self, store: &Store, name: &str) -> Result<(), StoreError> {
        match self {
            UnitResult::Baselines(u) => store.write_unit(name, u),
            UnitResult::Gp(u) => store.write_unit(name, u),
        }
    }
}

/// Whether `unit`'s result file exists and parses.
pub(crate) fn is_done(store: &Store, study: &Study, unit: Unit) -> bool {
    let name = unit.file_name(study);
    match unit {
        Unit::Baselines { .. } => matches!(store.read_unit::<BaselineUnit>(&name), Ok(Some(_))),
        Unit::Gp { .. } => matches!(store.read_unit::<GpUnit>(&name), Ok(Some(_))),
    }
}

/// What [`run_study`] reports as it goes.
#[derive(Debug)]
pub enum Event<'a> {
    /// The plan: units in the study, in this shard, already done, to run, and their work.
    Plan {
        /// Units in the study.
        total: usize,
        /// Units in this shard.
        in_shard: usize,
        /// Units of this shard already stored (skipped).
        done: usize,
        /// Total work of the units to run (each unit's estimated share).
        work: f64,
    },
    /// A unit starts.
    Start {
        /// Its position among the units to run (0-based).
        position: usize,
        /// Units to run.
        count: usize,
        /// Its label.
        label: String,
    },
    /// A generation of the running GP unit finished.
    Generation {
        /// The unit's label.
        label: &'a str,
        /// The generation.
        report: &'a GenerationReport,
        /// Work finished before this unit.
        work_done: f64,
    },
    /// A unit finished and was stored.
    Finished {
        /// Its label.
        label: String,
        /// Wall-clock seconds.
        seconds: f64,
        /// Work finished so far.
        work_done: f64,
    },
}

/// Runs the units of `shard` that `store` lacks, storing each as soon as it finishes.
/// Returns the number of units run. `progress` sees each event and may stop the run
/// ([`ExperimentError::Stopped`]): the units finished by then are stored, the one running
/// is not, and a run with `--resume` goes on from there.
///
/// # Errors
/// A store or study that does not fit, a unit that cannot run, or a stop.
pub fn run_study(
    runner: &Runner,
    store: &Store,
    shard: Shard,
    mut progress: impl FnMut(Event<'_>) -> ControlFlow<()>,
) -> Result<usize, RunError> {
    let study = runner.study();
    store.check_dataset(runner.record)?;
    let all = units(study);
    let mine: Vec<Unit> = all
        .iter()
        .enumerate()
        .filter(|(i, _)| shard.holds(*i))
        .map(|(_, u)| *u)
        .collect();
    let todo: Vec<Unit> = mine
        .iter()
        .copied()
        .filter(|&u| !is_done(store, study, u))
        .collect();
    go_on(progress(Event::Plan {
        total: all.len(),
        in_shard: mine.len(),
        done: mine.len() - todo.len(),
        work: todo.iter().map(|u| u.work(study)).sum(),
    }))?;
    let mut work_done = 0.0;
    for (position, &unit) in todo.iter().enumerate() {
        let label = unit.label(study);
        go_on(progress(Event::Start {
            position,
            count: todo.len(),
            label: label.clone(),
        }))?;
        let start = Instant::now();
        let result = runner.run(unit, &mut |report| {
            progress(Event::Generation {
                label: &label,
                report,
                work_done,
            })
        })?;
        result.store(store, &unit.file_name(study))?;
        work_done += unit.work(study);
        go_on(progress(Event::Finished {
            label,
            seconds: start.elapsed().as_secs_f64(),
            work_done,
        }))?;
    }
    Ok(todo.len())
}

/// A progress callback's answer as a run's outcome so far.
fn go_on(flow: ControlFlow<()>) -> Result<(), ExperimentError> {
    match flow {
        ControlFlow::Continue(()) => Ok(()),
        ControlFlow::Break(()) => Err(ExperimentError::Stopped),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn study() -> Study {
        Study::from_ron(
            r#"(name: "t", dataset: Synthetic(preset: "brdc12", pages: 100, days: 15, seed: 1),
                rotations: [0, 2], seeds: 2, first_seed: 7, gp: (population: 4, generations: 1),
                configurations: [(name: "a", grammar: "basic", fitness: ndcg),
                                 (name: "b", grammar: "all", fitness: changerate, seeds: 1)])"#,
            "t.ron",
        )
        .unwrap()
    }

    #[test]
    fn unit_order_and_names() {
        let s = study();
        let names: Vec<String> = units(&s).iter().map(|u| u.file_name(&s)).collect();
        assert_eq!(
            names,
            [
                "baselines-r0.json",
                "baselines-r2.json",
                "a-r0-s7.json",
                "a-r0-s8.json",
                "a-r2-s7.json",
                "a-r2-s8.json",
                "b-r0-s7.json",
                "b-r2-s7.json"
            ]
        );
    }

    #[test]
    fn shards_partition_units() {
        assert_eq!("1/3".parse::<Shard>(), Ok(Shard::new(1, 3).unwrap()));
        assert!("3/3".parse::<Shard>().is_err());
        assert!("x".parse::<Shard>().is_err());
        let n = units(&study()).len();
        let shards: Vec<Shard> = (0..3).map(|i| Shard::new(i, 3).unwrap()).collect();
        for i in 0..n {
            assert_eq!(shards.iter().filter(|s| s.holds(i)).count(), 1);
        }
    }
}
