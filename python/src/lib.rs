//! `freshgp._native`: the library's face to Python, which the `freshgp` package wraps
//! (`python/freshgp/`). It converts and calls, nothing more: every rule, default and check
//! lives in the `freshgp` crate, so the Python module gives the command line's answers and
//! its errors.
//!
//! Rich results cross as JSON text (the CLI's own serializations), which the package
//! turns into dicts and numpy arrays; numbers cross as numpy arrays without a copy.
//!
//! - `dataset.rs`: `Dataset` (files, arrays, synthesis, crawlers' files, statistics);
//! - `formula.rs`: `Formula` (parse, vectorised evaluation, simplify, LaTeX, export);
//! - `run.rs`: `simulate`, `baselines`, `evolve`, `experiment`: the long runs, without the
//!   GIL, with progress callbacks and Ctrl-C;
//! - `scheduler.rs`: `Scheduler`, the CLI's state files and lock;
//! - `model.rs`: `Model` (train, load, save, evaluate).

use pyo3::prelude::*;
use std::ops::ControlFlow;

mod dataset;
mod formula;
mod model;
mod run;
mod scheduler;

pyo3::create_exception!(
    freshgp,
    FreshgpError,
    pyo3::exceptions::PyValueError,
    "A freshgp error: bad input or an operation that cannot be done, with the place and the reason."
);
pyo3::create_exception!(
    freshgp,
    StateLockedError,
    FreshgpError,
    "Another process holds the scheduler state's lock (`<state>.lock`)."
);

/// The error with its causes, `outer: inner: ...`, as a `FreshgpError`.
pub(crate) fn error(e: impl std::error::Error) -> PyErr {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    FreshgpError::new_err(text)
}

/// Refuses to replace an existing file unless `overwrite` (the CLI's `--force`).
pub(crate) fn check_out(path: &std::path::Path, overwrite: bool) -> PyResult<()> {
    if path.exists() && !overwrite {
        return Err(fail(format!(
            "{} exists; pass overwrite=True to replace it",
            path.display()
        )));
    }
    Ok(())
}

/// `json.loads(text)`: a result the library serialized, as Python dicts and lists.
pub(crate) fn loads<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (text,))
}

/// A `FreshgpError` with `text`.
pub(crate) fn fail(text: impl Into<String>) -> PyErr {
    FreshgpError::new_err(text.into())
}

/// What a run detached from Python tells it between steps.
pub(crate) struct Poll<'a> {
    callback: Option<&'a Py<PyAny>>,
    raised: &'a mut Option<PyErr>,
}

impl Poll<'_> {
    /// Checks for Ctrl-C and hands the callback the event `make` builds (JSON text, given
    /// to the callback as a dict). An exception, `KeyboardInterrupt` included, stops the
    /// run: the answer is `Break`, which the library's progress callbacks pass on, so the
    /// run ends at this step with every file it writes whole (they are written
    /// atomically), and [`detached`] raises the exception in Python.
    pub(crate) fn event(&mut self, make: impl FnOnce() -> String) -> ControlFlow<()> {
        if self.raised.is_some() {
            return ControlFlow::Break(());
        }
        let result = Python::attach(|py| -> PyResult<()> {
            py.check_signals()?;
            if let Some(callback) = self.callback {
                callback.call1(py, (loads(py, &make())?,))?;
            }
            Ok(())
        });
        match result {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                *self.raised = Some(e);
                ControlFlow::Break(())
            }
        }
    }
}

/// Runs `work` without the GIL, handing it a [`Poll`] for its progress events; what Python
/// raised in one of them is the result.
pub(crate) fn detached<T: Send>(
    py: Python<'_>,
    callback: Option<&Py<PyAny>>,
    work: impl FnOnce(&mut Poll<'_>) -> PyResult<T> + Send,
) -> PyResult<T> {
    if let Some(c) = callback.filter(|c| !c.bind(py).is_callable()) {
        let kind = c.bind(py).get_type().name()?.to_string();
        return Err(fail(format!("progress: expected a callable, got {kind}")));
    }
    let mut raised = None;
    let outcome = py.detach(|| {
        let mut poll = Poll {
            callback,
            raised: &mut raised,
        };
        work(&mut poll)
    });
    match raised {
        Some(e) => Err(e),
        None => outcome,
    }
}

/// The module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("FreshgpError", py.get_type::<FreshgpError>())?;
    m.add("StateLockedError", py.get_type::<StateLockedError>())?;
    m.add_class::<dataset::Dataset>()?;
    m.add_function(wrap_pyfunction!(dataset::synth, m)?)?;
    m.add_function(wrap_pyfunction!(dataset::read_archive, m)?)?;
    m.add_class::<formula::Formula>()?;
    m.add_function(wrap_pyfunction!(formula::terminals, m)?)?;
    m.add_function(wrap_pyfunction!(run::simulate, m)?)?;
    m.add_function(wrap_pyfunction!(run::baselines, m)?)?;
    m.add_function(wrap_pyfunction!(run::evolve, m)?)?;
    m.add_function(wrap_pyfunction!(run::experiment, m)?)?;
    m.add_function(wrap_pyfunction!(run::named_policies, m)?)?;
    m.add_class::<scheduler::Scheduler>()?;
    m.add_class::<model::Model>()?;
    Ok(())
}
