//! The AUC table of the seed's Tables 2 and 3 (docs/src/reference/models.md): every
//! frequency baseline, the combined logistic regression and, when asked
//! ([`EvalOptions::network`]), the network, on seen and unseen pages, under full and partial
//! observability, averaged over the rotations (docs/src/reference/folds.md#rotations).
//!
//! Per rotation: models learn on the training fold's pages at the training period's
//! cycles, select on the validation fold's pages at the same cycles, and are tested at
//! the test period's cycles on the training fold's pages (*seen*) and the test fold's
//! (*unseen*). A cell is the mean and standard deviation of the AUC over 20 consecutive
//! subsets of the test examples ([`crate::stats::subset_auc`]), each averaged over the
//! rotations.
//!
//! Partial observability (docs/src/reference/models.md#observability) defaults to the `nad`
//! policy at resources 0.2 (a crawler that revisits a fifth of its pages a day;
//! `--partial-policy`, `--partial-resources`), with the simulation's warm-up of 2 cycles and
//! run seed 1.

use super::FeatureError;
use super::PredictError;
use super::{network, ExampleSource, ExampleStream, Examples, FeatureCodes, ModelTraining};
use super::{NetworkOptions, Observations};
use crate::data::split::Split;
use crate::data::Dataset;
use crate::model::{Feature, FeatureSet, Model};
use crate::policy::Policy;
use crate::sim::SimConfig;
use crate::stats::subset_auc;
use rayon::prelude::*;
use std::fmt;
use std::ops::ControlFlow;

/// How to evaluate.
#[derive(Debug, Clone)]
pub struct EvalOptions {
    horizon: usize,
    rotations: usize,
    subsets: usize,
    partial: Option<(Policy, SimConfig)>,
    network: Option<NetworkOptions>,
}

impl Default for EvalOptions {
    /// K = 1, five rotations, 20 subsets, partial observability under `nad` at resources
    /// 0.2, no network.
    fn default() -> EvalOptions {
        EvalOptions {
            horizon: 1,
            rotations: 5,
            subsets: 20,
            partial: Some(super::observe::default_crawl()),
            network: None,
        }
    }
}

impl EvalOptions {
    /// The label horizon K (>= 1; checked when the table is built).
    pub fn horizon(mut self, k: usize) -> EvalOptions {
        self.horizon = k;
        self
    }

    /// Evaluate the first `n` rotations (1..=5).
    pub fn rotations(mut self, n: usize) -> EvalOptions {
        self.rotations = n.clamp(1, 5);
        self
    }

    /// Partial observability under `policy` with `config` (resources, warm-up, seed), or
    /// none (full observability only).
    pub fn partial(mut self, partial: Option<(Policy, SimConfig)>) -> EvalOptions {
        self.partial = partial;
        self
    }

    /// A `network` row (last) trained with `options` over [`FeatureSet::network`], or
    /// none (the default: a network takes minutes where the rest takes seconds).
    pub fn network(mut self, options: Option<NetworkOptions>) -> EvalOptions {
        self.network = options;
        self
    }

    /// The events [`auc_table_with_progress`] tells with these options, the
    /// [`RotationProgress::Training`] ones being a network's epochs: per rotation and
    /// observability (full, then partial when asked), each epoch of the network (when
    /// asked) and the end.
    pub fn progress_steps(&self) -> usize {
        let observabilities = 1 + usize::from(self.partial.is_some());
        let epochs = self.network.as_ref().map_or(0, |n| n.epochs);
        self.rotations * observabilities * (epochs + 1)
    }
}

/// What a run over several rotations at once (the AUC table, a scorer's models) tells
/// its progress callback, from any thread.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RotationProgress {
    /// A step of training a model on `rotation`.
    Training {
        /// The rotation.
        rotation: usize,
        /// The step.
        step: Progress,
    },
    /// The rotation's cells under full observability and cold start are done.
    Full {
        /// The rotation.
        rotation: usize,
    },
    /// The rotation's cells under partial observability are done.
    Partial {
        /// The rotation.
        rotation: usize,
    },
    /// The rotation's model is learned ([`crate::predict::ModelScorer::learn_with_progress`]).
    Learned {
        /// The rotation.
        rotation: usize,
    },
}

impl fmt::Display for RotationProgress {
    /// A sentence: `rotation 2, partial observability: done`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            RotationProgress::Training { rotation, step } => {
                write!(f, "rotation {rotation}, ")?;
                match step {
                    Progress::Streaming { examples, rows, .. } => write!(
                        f,
                        "{examples} training examples streamed in chunks of {rows}"
                    ),
                    Progress::Penalty { alpha, auc } => {
                        write!(f, "penalty {alpha}: validation AUC {auc:.4}")
                    }
                    Progress::Epoch { epoch, loss, auc } => write!(
                        f,
                        "epoch {epoch}: training cross-entropy {loss:.4}, validation AUC {auc:.4}"
                    ),
                }
            }
            RotationProgress::Full { rotation } => write!(
                f,
                "rotation {rotation}, full observability and cold start: done"
            ),
            RotationProgress::Partial { rotation } => {
                write!(f, "rotation {rotation}, partial observability: done")
            }
            RotationProgress::Learned { rotation } => write!(f, "rotation {rotation}: learned"),
        }
    }
}

/// The kind of model [`train`] fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelKind {
    /// A logistic regression ([`Model::train_logistic`]), `logistic`.
    Logistic,
    /// The network ([`crate::predict::network`]), `network`.
    Network,
}

impl ModelKind {
    /// The kind's name, as `--kind` takes it.
    pub const fn name(self) -> &'static str {
        match self {
            ModelKind::Logistic => "logistic",
            ModelKind::Network => "network",
        }
    }
}

impl fmt::Display for ModelKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for ModelKind {
    type Err = PredictError;

    fn from_str(s: &str) -> Result<ModelKind, PredictError> {
        match s {
            "logistic" => Ok(ModelKind::Logistic),
            "network" => Ok(ModelKind::Network),
            _ => Err(FeatureError::UnknownKind(s.to_string()).into()),
        }
    }
}

/// Mean and standard deviation of the subset AUCs, averaged over the rotations.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct AucCell {
    /// Mean AUC (NaN when no subset had both classes).
    pub mean: f64,
    /// Standard deviation over the subsets (ddof 1).
    pub sd: f64,
}

/// Seen and unseen pages.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct SeenUnseen {
    /// The training fold's pages.
    pub seen: AucCell,
    /// The test fold's pages.
    pub unseen: AucCell,
}

/// One method's row.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct AucRow {
    /// The method: a feature's name, or `combined`.
    pub method: String,
    /// Under full observability.
    pub full: SeenUnseen,
    /// Under partial observability (`None` when not asked).
    pub partial: Option<SeenUnseen>,
    /// Cold start: the unseen pages with no history of their own (models learned under
    /// full observability; only group features know anything of such a page).
    pub cold: AucCell,
}

/// The whole table.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct AucTable {
    /// The label horizon K.
    pub horizon: usize,
    /// Rotations averaged.
    pub rotations: usize,
    /// The partial crawl's policy, if any.
    pub partial_policy: Option<String>,
    /// One row per method.
    pub rows: Vec<AucRow>,
}

impl AucTable {
    /// The row of `method`.
    pub fn row(&self, method: &str) -> Option<&AucRow> {
        self.rows.iter().find(|r| r.method == method)
    }
}

/// The methods of the table: each frequency feature alone, then all of them combined,
/// then the group features alone in a logistic regression (`groups`: metadata alone, the
/// model for cold start), then the network when asked.
fn methods(set: &FeatureSet, network: bool) -> Vec<String> {
    let mut m: Vec<String> = set.features().iter().map(Feature::to_string).collect();
    m.push("combined".into());
    if !set.groups().0.is_empty() {
        m.push("groups".into());
    }
    if network {
        m.push("network".into());
    }
    m
}

/// The AUC table of `data` (docs/src/reference/models.md#training-selection-and-test).
///
/// # Errors
/// K = 0, data too small to split, a training set of one class, or a partial crawl that
/// cannot run.
pub fn auc_table(data: &Dataset, options: &EvalOptions) -> Result<AucTable, PredictError> {
    auc_table_with_progress(data, options, &|_| {})
}

/// As [`auc_table`], telling `progress` as each rotation's observability is done and
/// after each epoch of a network ([`EvalOptions::progress_steps`] events in all), from any
/// thread.
///
/// # Errors
/// As [`auc_table`].
pub fn auc_table_with_progress(
    data: &Dataset,
    options: &EvalOptions,
    progress: &(dyn Fn(RotationProgress) + Sync),
) -> Result<AucTable, PredictError> {
    if options.horizon == 0 {
        return Err(PredictError::Horizon);
    }
    let set = FeatureSet::frequency(data);
    let full = Observations::full(data);
    let partial = match &options.partial {
        Some((policy, config)) => Some(Observations::crawl(data, policy, *config)?),
        None => None,
    };
    let per_rotation: Vec<Vec<(Cells, Option<Cells>)>> = (0..options.rotations)
        .into_par_iter()
        .map(|r| {
            let split = Split::new(data.pages(), data.cycles(), r)?;
            let cold = full.forgetting(&split.test);
            let training = &mut |step| progress(RotationProgress::Training { rotation: r, step });
            let f = rotation(
                data,
                (&full, Some(&cold)),
                (&set, &split),
                options,
                training,
            )?;
            progress(RotationProgress::Full { rotation: r });
            let p = match &partial {
                Some(o) => Some(rotation(
                    data,
                    (o, None),
                    (&set, &split),
                    options,
                    training,
                )?),
                None => None,
            };
            if p.is_some() {
                progress(RotationProgress::Partial { rotation: r });
            }
            Ok(f.into_iter()
                .enumerate()
                .map(|(i, cell)| (cell, p.as_ref().map(|p| p[i])))
                .collect())
        })
        .collect::<Result<_, PredictError>>()?;
    let rows = methods(&set, options.network.is_some())
        .into_iter()
        .enumerate()
        .map(|(i, method)| AucRow {
            method,
            full: average(per_rotation.iter().map(|r| r[i].0.observed)),
            partial: options.partial.as_ref().map(|_| {
                average(
                    per_rotation
                        .iter()
                        .filter_map(|r| r[i].1.map(|c| c.observed)),
                )
            }),
            cold: mean_cell(per_rotation.iter().filter_map(|r| r[i].0.cold)),
        })
        .collect();
    Ok(AucTable {
        horizon: options.horizon,
        rotations: options.rotations,
        partial_policy: options
            .partial
            .as_ref()
            .map(|(p, c)| format!("{} at resources {}", p, c.resources())),
        rows,
    })
}

/// One method's cells for one rotation under one observability.
#[derive(Debug, Clone, Copy)]
struct Cells {
    observed: SeenUnseen,
    cold: Option<AucCell>,
}

/// Every method's cells for one rotation under the observations `obs`, and under cold
/// start when given the observations without the test pages' history; `progress` hears
/// the network's epochs.
fn rotation(
    data: &Dataset,
    (obs, cold): (&Observations, Option<&Observations>),
    (set, split): (&FeatureSet, &Split),
    options: &EvalOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<Vec<Cells>, PredictError> {
    let k = options.horizon;
    // With a network, every example also carries the categorical codes, after the
    // frequency features (FeatureSet::network begins with `set`).
    let wide = match options.network {
        Some(_) => FeatureSet::network(data),
        None => set.clone(),
    };
    let build = |o: &Observations, pages: &[u32], cycles| {
        Examples::build(data, o, &wide, pages, &split.train, cycles, k)
    };
    let train = build(obs, &split.train, split.train_cycles.clone())?;
    let validation = build(obs, &split.validation, split.train_cycles.clone())?;
    let seen = build(obs, &split.train, split.test_cycles.clone())?;
    let unseen = build(obs, &split.test, split.test_cycles.clone())?;
    let cold = match cold {
        Some(o) => Some(build(o, &split.test, split.test_cycles.clone())?),
        None => None,
    };
    let mut models: Vec<Model> = set
        .features()
        .iter()
        .enumerate()
        .map(|(j, f)| Model::single_oriented(f.clone(), j, &train))
        .collect::<Result<_, _>>()?;
    if wide.len() == set.len() {
        models.push(Model::train_logistic(set, &train, &validation)?);
    } else {
        // Without the network's code columns (copied only when there are some).
        let frequency: Vec<usize> = (0..set.len()).collect();
        let (t, v) = (train.select(&frequency), validation.select(&frequency));
        models.push(Model::train_logistic(set, &t, &v)?);
    }
    let (groups, columns) = set.groups();
    if !groups.is_empty() {
        let (t, v) = (train.select(&columns), validation.select(&columns));
        models.push(Model::train_logistic(&groups, &t, &v)?);
    }
    if let Some(net) = &options.network {
        let cards = wide.cardinalities(data)?;
        let n = network::train(
            &wide,
            &cards,
            &train,
            &validation,
            net,
            &mut |epoch, loss, auc| {
                progress(Progress::Epoch { epoch, loss, auc });
                ControlFlow::Continue(())
            },
        )?;
        models.push(Model::Network(n));
    }
    let mut scores = Vec::new();
    let mut cell = |m: &Model, x: &Examples| -> Result<AucCell, PredictError> {
        score_columns(m, &wide, x, &mut scores)?;
        let s = subset_auc(&scores, x.labels(), options.subsets)?;
        Ok(AucCell {
            mean: s.mean,
            sd: s.sd,
        })
    };
    models
        .iter()
        .map(|m| {
            Ok(Cells {
                observed: SeenUnseen {
                    seen: cell(m, &seen)?,
                    unseen: cell(m, &unseen)?,
                },
                cold: cold.as_ref().map(|x| cell(m, x)).transpose()?,
            })
        })
        .collect()
}

/// A model trained on one rotation (full observability), with its AUCs.
#[derive(Debug, Clone, PartialEq)]
pub struct Trained {
    /// The model.
    pub model: Model,
    /// AUC on the validation examples (the one the model was selected by).
    pub validation: f64,
    /// Subset AUCs on the test period, seen and unseen pages.
    pub test: SeenUnseen,
    /// Training examples used.
    pub examples: usize,
}

/// What [`train`] fits, and where.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainOptions {
    /// The rotation (0..=4) whose training fold and period the model learns on.
    pub rotation: usize,
    /// The label horizon K (>= 1).
    pub horizon: usize,
    /// The kind of model.
    pub kind: ModelKind,
    /// How to train a network (unused for a logistic regression).
    pub network: NetworkOptions,
    /// Bytes the training and validation examples may take in memory; beyond it they
    /// are streamed ([`ExampleStream`]): computed chunk by chunk, each chunk at most a
    /// quarter of this, whenever a pass needs them.
    pub memory: usize,
}

/// The default of [`TrainOptions::memory`]: 1 GiB.
pub const DEFAULT_MEMORY: usize = 1 << 30;

/// What [`train`] tells its progress callback.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Progress {
    /// The examples (training and validation) do not fit in [`TrainOptions::memory`]:
    /// they are streamed in chunks of at most `rows` examples.
    Streaming {
        /// Training examples.
        examples: usize,
        /// Bytes the training and validation examples would take in memory.
        bytes: usize,
        /// Examples per chunk.
        rows: usize,
    },
    /// A logistic regression's fit with penalty `alpha` ended.
    Penalty {
        /// The penalty.
        alpha: f64,
        /// AUC on the validation examples.
        auc: f64,
    },
    /// A network's epoch ended.
    Epoch {
        /// The epoch (from 1).
        epoch: usize,
        /// Mean training cross-entropy.
        loss: f64,
        /// AUC on the validation examples.
        auc: f64,
    },
}

impl Default for TrainOptions {
    /// A logistic regression on rotation 0, K = 1.
    fn default() -> TrainOptions {
        TrainOptions {
            rotation: 0,
            horizon: 1,
            kind: ModelKind::Logistic,
            network: NetworkOptions::default(),
            memory: DEFAULT_MEMORY,
        }
    }
}

/// Trains a model of `options.kind` over `set` on rotation `options.rotation` of `data`
/// under full observability, label horizon `options.horizon`
/// (docs/src/reference/models.md#training-selection-and-test), and scores it on the
/// rotation's test period. Examples beyond `options.memory` are streamed; `progress` hears
/// that, and each penalty's or epoch's end, and may stop the training at any of them.
///
/// # Errors
/// As [`auc_table`], a feature the data cannot give, a categorical feature for a
/// logistic regression, bad network options, and [`PredictError::Stopped`].
pub fn train(
    data: &Dataset,
    set: &FeatureSet,
    options: &TrainOptions,
    progress: &mut dyn FnMut(Progress) -> ControlFlow<()>,
) -> Result<Trained, PredictError> {
    let horizon = options.horizon;
    let split = Split::new(data.pages(), data.cycles(), options.rotation)?;
    let obs = Observations::full(data);
    let stream = |pages: &[u32], cycles| {
        ExampleStream::new(data, &obs, set, pages, &split.train, cycles, horizon)
    };
    let train = stream(&split.train, split.train_cycles.clone())?;
    let validation = stream(&split.validation, split.train_cycles.clone())?;
    let row_bytes = set.len() * std::mem::size_of::<f64>() + 1;
    let bytes = (train.len() + validation.len()).saturating_mul(row_bytes);
    let rows = (options.memory / 4 / row_bytes).max(1);
    let (train, validation): (Box<dyn ExampleSource>, Box<dyn ExampleSource>) =
        if bytes <= options.memory {
            (Box::new(train.collect()), Box::new(validation.collect()))
        } else {
            let streaming = Progress::Streaming {
                examples: train.len(),
                bytes,
                rows,
            };
            if progress(streaming).is_break() {
                return Err(PredictError::Stopped);
            }
            (
                Box::new(train.chunk_rows(rows)),
                Box::new(validation.chunk_rows(rows)),
            )
        };
    let model = match options.kind {
        ModelKind::Logistic => {
            Model::train_logistic_with_progress(set, &*train, &*validation, &mut |alpha, auc| {
                progress(Progress::Penalty { alpha, auc })
            })?
        }
        ModelKind::Network => Model::Network(network::train(
            set,
            &set.cardinalities(data)?,
            &*train,
            &*validation,
            &options.network,
            &mut |epoch, loss, auc| progress(Progress::Epoch { epoch, loss, auc }),
        )?),
    };
    let validation_auc = model.auc_of(&*validation)?.unwrap_or(f64::NAN);
    let (mut scores, mut labels) = (Vec::new(), Vec::new());
    let mut cell = |pages: &[u32]| -> Result<AucCell, PredictError> {
        let x = stream(pages, split.test_cycles.clone())?.chunk_rows(rows);
        model.score_source(&x, &mut scores, &mut labels);
        let s = subset_auc(&scores, &labels, 20)?;
        Ok(AucCell {
            mean: s.mean,
            sd: s.sd,
        })
    };
    let test = SeenUnseen {
        seen: cell(&split.train)?,
        unseen: cell(&split.test)?,
    };
    Ok(Trained {
        model,
        validation: validation_auc,
        test,
        examples: train.len(),
    })
}

/// A method of the AUC table that can be learned on a rotation: one frequency feature
/// (the seed's baselines, oriented on the training examples), all of them combined in
/// the logistic regression, or the network.
#[derive(Debug, Clone, PartialEq)]
pub enum Learned {
    /// Every frequency feature of the data in a logistic regression (`combined`).
    Combined,
    /// The group features alone in a logistic regression (`groups`: metadata alone).
    Groups,
    /// The network over [`FeatureSet::network`] with the default [`NetworkOptions`]
    /// (`network`).
    Network,
    /// One feature alone (its name).
    Single(Feature),
    /// The stale model ([`crate::predict::stale`]) with its defaults: learned from the
    /// visits of `nad`'s crawl at resources 0.2, its prior's attribute chosen on
    /// validation (`hazard`). Its score is already a staleness: it ignores the label
    /// horizon.
    Hazard,
}

impl std::str::FromStr for Learned {
    type Err = PredictError;

    fn from_str(s: &str) -> Result<Learned, PredictError> {
        match s {
            "combined" => Ok(Learned::Combined),
            "groups" => Ok(Learned::Groups),
            "network" => Ok(Learned::Network),
            "hazard" => Ok(Learned::Hazard),
            _ => s
                .parse()
                .map(Learned::Single)
                .map_err(|_| FeatureError::UnknownMethod(s.to_string()).into()),
        }
    }
}

impl Learned {
    /// The [`Progress::Penalty`] and [`Progress::Epoch`] events learning it on one
    /// rotation tells ([`learn_with_progress`]): one per penalty of a logistic regression,
    /// one per epoch of the network, none for one feature.
    pub fn progress_steps(&self) -> usize {
        match self {
            Learned::Combined | Learned::Groups => super::logistic::ALPHAS.len(),
            Learned::Network => NetworkOptions::default().epochs,
            Learned::Single(_) | Learned::Hazard => 0,
        }
    }
}

impl fmt::Display for Learned {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Learned::Combined => f.write_str("combined"),
            Learned::Groups => f.write_str("groups"),
            Learned::Network => f.write_str("network"),
            Learned::Hazard => f.write_str("hazard"),
            Learned::Single(feature) => write!(f, "{feature}"),
        }
    }
}

/// `method` learned on rotation `rotation` of `data` under full observability with label
/// horizon `horizon` (the training fold's pages at the training period's cycles, selection
/// on the validation fold's: docs/src/reference/models.md#training-selection-and-test).
///
/// # Errors
/// As [`train`].
pub fn learn(
    data: &Dataset,
    method: &Learned,
    rotation: usize,
    horizon: usize,
) -> Result<Model, PredictError> {
    learn_with_progress(data, method, rotation, horizon, &mut |_| {})
}

/// As [`learn`], telling `progress` what [`train`] tells: each penalty's or epoch's end
/// ([`Learned::progress_steps`] of them), and streaming.
///
/// # Errors
/// As [`train`].
pub fn learn_with_progress(
    data: &Dataset,
    method: &Learned,
    rotation: usize,
    horizon: usize,
    progress: &mut dyn FnMut(Progress),
) -> Result<Model, PredictError> {
    let progress = &mut |p| {
        progress(p);
        ControlFlow::Continue(())
    };
    let options = TrainOptions {
        rotation,
        horizon,
        ..TrainOptions::default()
    };
    match method {
        Learned::Hazard => {
            let options = super::StaleOptions {
                rotation,
                ..super::StaleOptions::default()
            };
            Ok(super::train_stale(data, &options)?.model)
        }
        Learned::Combined => {
            Ok(train(data, &FeatureSet::frequency(data), &options, progress)?.model)
        }
        Learned::Network => {
            let options = TrainOptions {
                kind: ModelKind::Network,
                ..options
            };
            Ok(train(data, &FeatureSet::network(data), &options, progress)?.model)
        }
        Learned::Groups => {
            let (groups, _) = FeatureSet::frequency(data).groups();
            if groups.is_empty() {
                return Err(FeatureError::NoGroups.into());
            }
            Ok(train(data, &groups, &options, progress)?.model)
        }
        Learned::Single(feature) => {
            if horizon == 0 {
                return Err(PredictError::Horizon);
            }
            let split = Split::new(data.pages(), data.cycles(), rotation)?;
            let obs = Observations::full(data);
            let set = FeatureSet::new(vec![feature.clone()]);
            let cycles = split.train_cycles.clone();
            let train = Examples::build(
                data,
                &obs,
                &set,
                &split.train,
                &split.train,
                cycles,
                horizon,
            )?;
            if train.is_empty() {
                return Err(PredictError::NoExamples);
            }
            Model::single_oriented(feature.clone(), 0, &train)
        }
    }
}

/// Scores examples built over `set` with a model that reads some of its columns (all
/// rows at once, so a network scores in blocks).
///
/// # Errors
/// A feature of the model that `set` lacks.
fn score_columns(
    m: &Model,
    set: &FeatureSet,
    x: &Examples,
    out: &mut Vec<f64>,
) -> Result<(), PredictError> {
    let columns = m
        .features()
        .features()
        .iter()
        .map(|f| {
            set.features()
                .iter()
                .position(|g| g == f)
                .ok_or_else(|| PredictError::from(FeatureError::Missing(f.clone())))
        })
        .collect::<Result<Vec<usize>, _>>()?;
    if columns.iter().copied().eq(0..set.len()) {
        m.score_into(x, out);
    } else {
        m.score_into(&x.select(&columns), out);
    }
    Ok(())
}

/// The mean over rotations of each cell (rotations whose cell is NaN are left out).
fn average(cells: impl Iterator<Item = SeenUnseen>) -> SeenUnseen {
    let cells: Vec<SeenUnseen> = cells.collect();
    SeenUnseen {
        seen: mean_cell(cells.iter().map(|c| c.seen)),
        unseen: mean_cell(cells.iter().map(|c| c.unseen)),
    }
}

/// The mean of the cells' means and of their standard deviations (NaN cells left out).
fn mean_cell(cells: impl Iterator<Item = AucCell>) -> AucCell {
    let usable: Vec<AucCell> = cells.filter(|c| c.mean.is_finite()).collect();
    let n = usable.len() as f64;
    AucCell {
        mean: usable.iter().map(|c| c.mean).sum::<f64>() / n,
        sd: usable.iter().map(|c| c.sd).sum::<f64>() / n,
    }
}

impl fmt::Display for AucTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "AUC (mean ± sd over 20 test subsets, averaged over {} rotation{}), label horizon K = {}",
            self.rotations,
            if self.rotations == 1 { "" } else { "s" },
            self.horizon
        )?;
        if let Some(p) = &self.partial_policy {
            writeln!(f, "partial observability: the visits of {p}")?;
        }
        let cell = |c: AucCell| format!("{:.3} ± {:.3}", c.mean, c.sd);
        writeln!(
            f,
            "{:<20} {:>15} {:>15} {:>15} {:>15} {:>15}",
            "method", "seen full", "unseen full", "seen partial", "unseen partial", "cold start"
        )?;
        for r in &self.rows {
            let (sp, up) = r
                .partial
                .map_or(("-".into(), "-".into()), |p| (cell(p.seen), cell(p.unseen)));
            writeln!(
                f,
                "{:<20} {:>15} {:>15} {:>15} {:>15} {:>15}",
                r.method,
                cell(r.full.seen),
                cell(r.full.unseen),
                sp,
                up,
                cell(r.cold)
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each rotation tells the network's epochs and the end of each observability, as
    /// many events as `progress_steps` says; listening changes no cell.
    #[test]
    fn the_table_tells_its_steps() {
        let mut p = crate::data::synth::SynthParams::preset("commerce").unwrap();
        p.pages = 300;
        p.days = 24;
        let d = crate::data::synth::generate(&p, 1).unwrap();
        let network = NetworkOptions {
            epochs: 2,
            ..NetworkOptions::default()
        };
        let options = EvalOptions::default().rotations(2).network(Some(network));
        let heard = std::sync::Mutex::new(Vec::new());
        let table = auc_table_with_progress(&d, &options, &|e| heard.lock().unwrap().push(e));
        assert_eq!(table.unwrap(), auc_table(&d, &options).unwrap());
        let heard = heard.into_inner().unwrap();
        assert_eq!(heard.len(), options.progress_steps());
        assert_eq!(options.progress_steps(), 2 * 2 * 3);
        for r in 0..2 {
            let mine: Vec<String> = heard
                .iter()
                .filter(|e| match e {
                    RotationProgress::Training { rotation, .. }
                    | RotationProgress::Full { rotation }
                    | RotationProgress::Partial { rotation }
                    | RotationProgress::Learned { rotation } => *rotation == r,
                })
                .map(|e| e.to_string().split(':').next().unwrap_or("").to_string())
                .collect();
            let (epoch1, epoch2) = (
                format!("rotation {r}, epoch 1"),
                format!("rotation {r}, epoch 2"),
            );
            assert_eq!(
                mine,
                [
                    epoch1.clone(),
                    epoch2.clone(),
                    format!("rotation {r}, full observability and cold start"),
                    epoch1,
                    epoch2,
                    format!("rotation {r}, partial observability"),
                ]
            );
        }
    }
}
