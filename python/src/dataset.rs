//! `Dataset`: a change history from a file, from numpy arrays, from a synthetic preset or
//! from a crawler's files (`read_archive`); its statistics, columns and files.

use crate::{error, fail};
use freshgp::archive::{read_files, ArchiveOptions, Format, OnError};
use freshgp::data::{self, stats::Stats, LoadOptions, PageArrays, UnknownPolicy};
use numpy::{
    PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use std::path::PathBuf;

/// A change history: pages × cycles of change bits, with optional ids, hosts, weights
/// and attributes (the book's Change histories chapter).
#[pyclass(module = "freshgp._native", frozen)]
pub struct Dataset {
    pub(crate) inner: data::Dataset,
    /// What the unknown-cycle policy did, as the CLI reports it.
    report: String,
}

impl Dataset {
    /// Wraps `d`, resolving its unknown cycles by `unknown` and grouping it by `group`.
    pub(crate) fn resolved(d: data::Dataset, unknown: &str, group: Option<&str>) -> PyResult<Self> {
        let policy: UnknownPolicy = unknown.parse().map_err(|e| fail(format!("unknown: {e}")))?;
        let (mut inner, report) = policy.apply_keeping_pages(d, "changes").map_err(error)?;
        group_by(&mut inner, group)?;
        Ok(Dataset {
            inner,
            report: report.to_string(),
        })
    }
}

fn group_by(d: &mut data::Dataset, group: Option<&str>) -> PyResult<()> {
    d.group_by(group)
        .map_err(|e| fail(format!("group {}: {e}", group.unwrap_or(""))))
}

#[pymethods]
impl Dataset {
    /// Loads a history file (freshgp's text format or its binary cache), resolving
    /// unknown cycles (`?`) by `unknown` (paper, paper:N, infer, zero, one, drop, keep)
    /// and grouping pages by the attribute `group` for the terminal GR.
    #[new]
    #[pyo3(signature = (path, unknown = "paper", group = None))]
    fn load(path: PathBuf, unknown: &str, group: Option<&str>) -> PyResult<Self> {
        let policy: UnknownPolicy = unknown.parse().map_err(|e| fail(format!("unknown: {e}")))?;
        let loaded = data::load(&path, &LoadOptions { unknown: policy }).map_err(error)?;
        let mut inner = loaded.dataset;
        group_by(&mut inner, group)?;
        Ok(Dataset {
            inner,
            report: loaded.report.unknown.to_string(),
        })
    }

    /// Builds a history from arrays (the package's `Dataset.from_arrays` converts and
    /// checks dtypes first): `changed` uint8 pages × cycles of 0/1, `unknown` a bool mask
    /// of the same shape, per-page `ids`, `hosts` ('' for none), `weights` and
    /// `attributes` (a list of (key, values) with None for a missing value).
    #[staticmethod]
    #[pyo3(signature = (changed, unknown_mask = None, ids = None, hosts = None, weights = None, attributes = Vec::new(), unknown = "paper", group = None))]
    #[allow(clippy::too_many_arguments)]
    fn _from_arrays(
        changed: PyReadonlyArray2<'_, u8>,
        unknown_mask: Option<PyReadonlyArray2<'_, bool>>,
        ids: Option<Vec<String>>,
        hosts: Option<Vec<String>>,
        weights: Option<PyReadonlyArray1<'_, f64>>,
        attributes: Vec<(String, Vec<Option<String>>)>,
        unknown: &str,
        group: Option<&str>,
    ) -> PyResult<Self> {
        if !changed.is_c_contiguous() {
            return Err(fail("changes: not a C-contiguous array"));
        }
        let shape = changed.shape();
        let (pages, cycles) = (shape[0], shape[1]);
        let bits = changed
            .as_slice()
            .map_err(|_| fail("changes: not a contiguous array"))?;
        if let Some(mask) = &unknown_mask {
            if mask.shape() != shape {
                return Err(fail(format!(
                    "unknown mask: shape {:?}, not the changes' {:?}",
                    mask.shape(),
                    shape
                )));
            }
        }
        let mask = match &unknown_mask {
            Some(m) => Some(
                m.as_slice()
                    .map_err(|_| fail("unknown mask: not contiguous"))?,
            ),
            None => None,
        };
        let weights = match &weights {
            Some(w) => Some(w.as_slice().map_err(|_| fail("weights: not contiguous"))?),
            None => None,
        };
        let d = PageArrays {
            unknown: mask,
            ids: ids.as_deref(),
            hosts: hosts.as_deref(),
            weights,
            attributes: &attributes,
            ..PageArrays::new(pages, cycles, bits)
        }
        .build()
        .map_err(error)?;
        Dataset::resolved(d, unknown, group)
    }

    /// Pages.
    #[getter]
    fn pages(&self) -> usize {
        self.inner.pages()
    }

    /// Cycles.
    #[getter]
    fn cycles(&self) -> usize {
        self.inner.cycles()
    }

    /// The attribute GR groups by (None: the host).
    #[getter]
    fn grouping(&self) -> Option<String> {
        self.inner.grouping().map(str::to_string)
    }

    /// What the unknown-cycle policy did when the history was read.
    #[getter]
    fn unknown_report(&self) -> String {
        self.report.clone()
    }

    /// The history's fingerprint (16 hexadecimal digits), as studies record it.
    #[getter]
    fn fingerprint(&self) -> String {
        self.inner.fingerprint().to_string()
    }

    /// The summary figures of `freshgp dataset stats --json`, as a dict.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let text =
            serde_json::to_string(&Stats::of(&self.inner)).map_err(|e| fail(e.to_string()))?;
        crate::loads(py, &text)
    }

    /// A history from numpy arrays: `changes` pages × cycles of 0/1 (bool or integers; a
    /// masked array's masked cells are unknown cycles, `?`), per-page `weights`, `hosts`
    /// (None for a page without one), `ids`, and `attributes` (key → one value or None per
    /// page). Unknown cycles are then resolved by `unknown`, as when a file is loaded.
    #[staticmethod]
    #[pyo3(signature = (changes, weights = None, hosts = None, ids = None, attributes = None, unknown = "paper", group = None))]
    #[allow(clippy::too_many_arguments)]
    fn from_arrays(
        py: Python<'_>,
        changes: &Bound<'_, PyAny>,
        weights: Option<&Bound<'_, PyAny>>,
        hosts: Option<&Bound<'_, PyAny>>,
        ids: Option<&Bound<'_, PyAny>>,
        attributes: Option<&Bound<'_, PyAny>>,
        unknown: &str,
        group: Option<&str>,
    ) -> PyResult<Self> {
        // The package's numpy side checks dtypes and shapes and converts (freshgp/_arrays.py).
        let columns = py.import("freshgp._arrays")?.call_method1(
            "dataset_columns",
            (changes, weights, hosts, ids, attributes),
        )?;
        let (changed, mask, ids, hosts, weights, attributes) = columns.extract()?;
        Dataset::_from_arrays(
            changed, mask, ids, hosts, weights, attributes, unknown, group,
        )
    }

    /// The change bits, pages × cycles, as uint8 (0, 1; 2 where a cycle is unknown).
    fn changes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<u8>>> {
        let d = &self.inner;
        let cells: Vec<u8> = (0..d.pages())
            .flat_map(|p| {
                (1..=d.cycles()).map(move |c| match (d.is_unknown(p, c), d.changed(p, c)) {
                    (true, _) => 2,
                    (false, true) => 1,
                    (false, false) => 0,
                })
            })
            .collect();
        let rows = PyArray1::from_vec(py, cells);
        rows.reshape([d.pages(), d.cycles()])
    }

    /// The page weights (1 for every page of a history without weights).
    fn weights<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        let d = &self.inner;
        PyArray1::from_vec(py, (0..d.pages()).map(|p| d.weight(p)).collect())
    }

    /// The page ids (None when the history has none).
    fn ids(&self) -> Option<Vec<String>> {
        let d = &self.inner;
        d.has_ids().then(|| {
            (0..d.pages())
                .map(|p| d.id(p).unwrap_or("").to_string())
                .collect()
        })
    }

    /// The page hosts (None when the history has none).
    fn hosts(&self) -> Option<Vec<String>> {
        let d = &self.inner;
        let names = d.host_names();
        if d.pages() == 0 {
            return None;
        }
        d.host(0)?;
        Some(
            (0..d.pages())
                .map(|p| {
                    d.host(p)
                        .map_or("", |h| names[h as usize].as_str())
                        .to_string()
                })
                .collect(),
        )
    }

    /// Each attribute's values, page by page (None where a page lacks it).
    fn attributes(&self) -> Vec<(String, Vec<Option<String>>)> {
        self.inner
            .attributes()
            .iter()
            .map(|a| {
                let values = (0..self.inner.pages())
                    .map(|p| a.value(p).map(str::to_string))
                    .collect();
                (a.name().to_string(), values)
            })
            .collect()
    }

    /// Writes the history: `format` "text" (freshgp's text format) or "cache" (the binary
    /// cache). An existing file is replaced only with `overwrite=True`; the write is
    /// atomic (a failure leaves the old file).
    #[pyo3(signature = (path, format = "text", overwrite = false))]
    fn save(&self, path: PathBuf, format: &str, overwrite: bool) -> PyResult<()> {
        crate::check_out(&path, overwrite)?;
        match format {
            "text" => data::text::write_file(&self.inner, &path),
            "cache" => data::cache::write_file(&self.inner, &path),
            other => return Err(fail(format!("format `{other}`: expected text or cache"))),
        }
        .map_err(error)
    }

    fn __len__(&self) -> usize {
        self.inner.pages()
    }

    fn __repr__(&self) -> String {
        format!(
            "<freshgp.Dataset: {} pages × {} cycles, fingerprint {}>",
            self.inner.pages(),
            self.inner.cycles(),
            self.inner.fingerprint()
        )
    }
}

/// A synthetic history from a preset (brdc12, commerce, regimes, or a RON file), with
/// `pages` pages (default: the preset's) and the generator's `seed`.
#[pyfunction]
#[pyo3(signature = (preset = "brdc12", pages = None, seed = 1, cycles = None))]
pub fn synth(
    py: Python<'_>,
    preset: &str,
    pages: Option<usize>,
    seed: u64,
    cycles: Option<usize>,
) -> PyResult<Dataset> {
    let mut params = data::synth::SynthParams::named_or_file(preset).map_err(error)?;
    if let Some(p) = pages {
        params.pages = p;
    }
    if let Some(d) = cycles {
        params.days = d;
    }
    params.validate(preset).map_err(error)?;
    let d = py
        .detach(|| data::synth::generate(&params, seed))
        .map_err(error)?;
    Ok(Dataset {
        inner: d,
        report: String::new(),
    })
}

/// Reads a crawler's files into a history: `format` is `cdx` (CDX and CDXJ), `warc`,
/// `crawl-log` (Heritrix) or `nutch` (CrawlDb dumps), `paths` the files (gzip'd or not). Every setting is the
/// command's (`freshgp dataset from-<format>`), `None` taking its default. Returns the
/// history, its unknown cycles resolved by `unknown` and grouped by `group` as
/// [`Dataset::load`] does, and the read's report as JSON.
#[pyfunction]
#[pyo3(signature = (format, paths, cycle = "1d", redirects = None, errors = None, hosts = None, sorted = true, fields = None, on_error = "skip", unknown = "paper", group = None))]
#[allow(clippy::too_many_arguments)]
pub fn read_archive(
    py: Python<'_>,
    format: &str,
    paths: Vec<PathBuf>,
    cycle: &str,
    redirects: Option<&str>,
    errors: Option<&str>,
    hosts: Option<&str>,
    sorted: bool,
    fields: Option<&str>,
    on_error: &str,
    unknown: &str,
    group: Option<&str>,
) -> PyResult<(Dataset, String)> {
    let named = |what: &str, e: String| fail(format!("{what}: {e}"));
    let format: Format = format.parse().map_err(|e| named("format", e))?;
    let defaults = ArchiveOptions::default();
    let options = ArchiveOptions {
        cycle: data::log::parse_cycle(cycle).map_err(error)?,
        on_error: match on_error {
            "skip" => OnError::Skip,
            "stop" => OnError::Stop,
            other => {
                return Err(named(
                    "on_error",
                    format!("`{other}`: expected skip or stop"),
                ))
            }
        },
        redirects: match redirects {
            Some(r) => r.parse().map_err(|e| named("redirects", e))?,
            None => defaults.redirects,
        },
        errors: match errors {
            Some(r) => r.parse().map_err(|e| named("errors", e))?,
            None => defaults.errors,
        },
        hosts: match hosts {
            Some(r) => r.parse().map_err(|e| named("hosts", e))?,
            None => defaults.hosts,
        },
        sorted,
        fields: match fields {
            Some(f) => Some(f.parse().map_err(|e| named("fields", e))?),
            None => None,
        },
    };
    let (d, report) = py
        .detach(|| read_files(format, &paths, &options))
        .map_err(error)?;
    let report = serde_json::to_string(&report).map_err(error)?;
    Ok((Dataset::resolved(d, unknown, group)?, report))
}
