//! `Model`: a learned change model (the book's Learned change models chapter): trained on
//! a history as `freshgp model train` trains it, read and written as its model files,
//! scoring rows of features; and the AUC table of `freshgp model eval`.

use crate::dataset::Dataset;
use crate::{detached, error, fail};
use freshgp::data::split::check_rotations;
use freshgp::model::Model as Learned;
use freshgp::output::{self, ModelEval};
use freshgp::predict::observe::{DEFAULT_CRAWL_POLICY, DEFAULT_CRAWL_RESOURCES};
use freshgp::predict::{eval, EvalOptions, ModelKind, Progress, TrainRequest};
use numpy::{PyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;
use serde_json::json;
use std::path::PathBuf;

/// A learned change model; as a policy, save it and name it `model:FILE`.
#[pyclass(module = "freshgp._native", frozen)]
pub struct Model {
    inner: Learned,
    horizon: usize,
    /// What training measured, as JSON (`None` for a model read from a file).
    trained: Option<String>,
}

#[pymethods]
impl Model {
    /// Trains a `kind` model (logistic or network; default logistic) on `rotation` of
    /// `dataset` (default 0) to predict a change within `horizon` cycles (default 1), from
    /// `features` (names as `--features` takes them; default, or an empty list: the
    /// features a policy can run with, or the network's). The defaults are the command's.
    /// `progress` gets each penalty or epoch as a dict. The stale model (`--kind hazard`)
    /// is trained by the command; `Model.load` reads it.
    #[staticmethod]
    #[pyo3(signature = (dataset, kind = None, features = None, rotation = None, horizon = None, progress = None))]
    fn train(
        py: Python<'_>,
        dataset: &Dataset,
        kind: Option<&str>,
        features: Option<Vec<String>>,
        rotation: Option<usize>,
        horizon: Option<usize>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Model> {
        let kind = kind
            .map(|k| k.parse::<ModelKind>())
            .transpose()
            .map_err(|e| fail(format!("kind: {e}")))?;
        let data = &dataset.inner;
        let request = TrainRequest {
            kind,
            features: features.unwrap_or_default(),
            rotation,
            horizon,
            ..TrainRequest::default()
        };
        let (set, options) = request
            .options(data)
            .map_err(|e| fail(e.named(e.setting.name())))?;
        let horizon = options.horizon;
        detached(py, progress.as_ref(), |poll| {
            let mut step = |p: Progress| {
                poll.event(|| match p {
                    Progress::Streaming { examples, bytes, rows } => json!({"event": "streaming", "examples": examples, "bytes": bytes, "rows": rows}),
                    Progress::Penalty { alpha, auc } => json!({"event": "penalty", "alpha": alpha, "auc": auc}),
                    Progress::Epoch { epoch, loss, auc } => json!({"event": "epoch", "epoch": epoch, "loss": loss, "auc": auc}),
                }.to_string())
            };
            let t = eval::train(data, &set, &options, &mut step).map_err(error)?;
            let trained = json!({
                "examples": t.examples,
                "validation_auc": t.validation,
                "test_auc": t.test,
            });
            Ok(Model {
                inner: t.model,
                horizon,
                trained: Some(trained.to_string()),
            })
        })
    }

    /// Reads a model file.
    #[staticmethod]
    fn load(path: PathBuf) -> PyResult<Model> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(&path)
            .map_err(|e| fail(format!("cannot read {shown}: {e}")))?;
        let (inner, horizon) = Learned::from_json_with_horizon(&text, &shown).map_err(error)?;
        Ok(Model {
            inner,
            horizon,
            trained: None,
        })
    }

    /// Writes the model file (atomically; an existing file only with `overwrite=True`).
    #[pyo3(signature = (path, overwrite = false))]
    fn save(&self, path: PathBuf, overwrite: bool) -> PyResult<()> {
        crate::check_out(&path, overwrite)?;
        freshgp::atomic::write(&path, self.to_json().as_bytes())
            .map_err(|e| fail(format!("cannot write {}: {e}", path.display())))
    }

    /// The model file's text.
    fn to_json(&self) -> String {
        self.inner.to_json_with_horizon(self.horizon)
    }

    /// The model's kind: logistic, network or hazard.
    #[getter]
    fn kind(&self) -> &'static str {
        self.inner.kind()
    }

    /// The features it reads, in column order.
    #[getter]
    fn features(&self) -> Vec<String> {
        self.inner
            .features()
            .features()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    /// The label horizon it was trained for.
    #[getter]
    fn horizon(&self) -> usize {
        self.horizon
    }

    /// What training measured (examples, validation and test AUC), or None for a model
    /// read from a file.
    #[getter]
    fn trained<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.trained
            .as_deref()
            .map(|t| crate::loads(py, t))
            .transpose()
    }

    /// The model's score of each row of `values` (rows × features: a 2-D array of numbers,
    /// each finite).
    fn score<'py>(
        &self,
        py: Python<'py>,
        values: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        // numpy's side converts to C order and float64, or says why not (freshgp/_arrays.py).
        let rows = py
            .import("freshgp._arrays")?
            .call_method1("float_rows", ("values", values))?;
        let values: PyReadonlyArray2<'py, f64> = rows.extract()?;
        let width = self.inner.features().len();
        if values.shape()[1] != width {
            return Err(fail(format!(
                "values: {} columns, but the model reads {width} features ({})",
                values.shape()[1],
                self.features().join(", ")
            )));
        }
        let flat = values
            .as_slice()
            .map_err(|_| fail("values: not a contiguous array"))?;
        if let Some(i) = flat.iter().position(|v| !v.is_finite()) {
            return Err(fail(format!(
                "values[{}, {}]: {} is not a finite number",
                i / width.max(1),
                i % width.max(1),
                flat[i]
            )));
        }
        let mut out = Vec::with_capacity(values.shape()[0]);
        py.detach(|| self.inner.score_rows(flat, &mut out));
        Ok(PyArray1::from_vec(py, out))
    }

    /// `freshgp model eval --json`: the AUC table of the change models and their rivals on
    /// `dataset` (label `horizon`, the first `rotations` rotations) and the staleness table
    /// at the visits of `partial_policy` (None: none) at `partial_resources`, as a dict.
    #[staticmethod]
    #[pyo3(signature = (dataset, horizon = 1, rotations = 5, partial_policy = Some(DEFAULT_CRAWL_POLICY.name()), partial_resources = DEFAULT_CRAWL_RESOURCES))]
    fn eval<'py>(
        py: Python<'py>,
        dataset: &Dataset,
        horizon: usize,
        rotations: usize,
        partial_policy: Option<&str>,
        partial_resources: f64,
    ) -> PyResult<Bound<'py, PyAny>> {
        check_rotations(rotations).map_err(error)?;
        let partial = partial_policy
            .map(|text| {
                let policy = crate::run::policy(text, &freshgp::formula::Grammar::every())?;
                freshgp::predict::observe::crawl(policy, partial_resources)
                    .map_err(|e| fail(format!("partial_resources {partial_resources}: {e}")))
            })
            .transpose()?;
        let options = EvalOptions::default()
            .horizon(horizon)
            .rotations(rotations)
            .partial(partial.clone());
        let text = detached(py, None, |_| {
            let table = eval::auc_table(&dataset.inner, &options).map_err(error)?;
            let report = ModelEval::new(table, &dataset.inner, rotations, partial.as_ref());
            output::compact(&report).map_err(|e| fail(e.to_string()))
        })?;
        crate::loads(py, &text)
    }

    fn __repr__(&self) -> String {
        format!(
            "<freshgp.Model {} over {} (horizon {})>",
            self.inner.kind(),
            self.features().join(", "),
            self.horizon
        )
    }
}
