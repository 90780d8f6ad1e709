//! `Scheduler`: a saved scheduler state, opened under the same lock as `freshgp schedule`
//! (held until `close`), fed observations through the same log reader, asked for batches.

use crate::{error, fail, StateLockedError};
use freshgp::formula::Grammar;
use freshgp::schedule::{checked_text, log, LockError, Opening, Scheduler as State, StateLock};
use freshgp::sim::{Decision, SimConfig};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use std::path::PathBuf;

/// A live crawl's scheduler state (the book's Scheduler chapter), held under its lock from
/// opening to `close()`. One thread uses it at a time: a call while another thread's runs
/// raises RuntimeError. Changes not saved (`save()`, `close()`, the end of a `with` block)
/// are lost when the object is dropped; the lock is released then.
#[pyclass(module = "freshgp._native")]
pub struct Scheduler {
    path: PathBuf,
    /// `None` once closed.
    open: Option<(State, StateLock)>,
}

impl Scheduler {
    fn state(&mut self) -> PyResult<&mut State> {
        match &mut self.open {
            Some((state, _)) => Ok(state),
            None => Err(fail(format!(
                "the scheduler of {} is closed",
                self.path.display()
            ))),
        }
    }
}

/// The state's lock: taken at once, or with `wait` polled until it is free, Ctrl-C (any
/// exception a signal handler raises) ending the wait.
fn lock(py: Python<'_>, path: &std::path::Path, wait: bool) -> PyResult<StateLock> {
    loop {
        match StateLock::try_acquire(path) {
            Ok(held) => return Ok(held),
            Err(LockError::Busy { state, lock }) if !wait => {
                return Err(StateLockedError::new_err(format!(
                    "{state} is in use by another scheduler (lock {lock}); close it, or pass wait=True to wait for it"
                )))
            }
            Err(LockError::Busy { .. }) => {
                py.check_signals()?;
                py.detach(|| std::thread::sleep(std::time::Duration::from_millis(20)));
            }
            Err(other) => return Err(error(other)),
        }
    }
}

/// `attributes` as (key, one value per observation) pairs: a dict, or a sequence of pairs.
fn attribute_columns(
    attributes: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<(String, Vec<Option<String>>)>> {
    match attributes {
        None => Ok(Vec::new()),
        Some(a) => match a.cast::<PyDict>() {
            Ok(dict) => dict.items().extract(),
            Err(_) => a.extract().map_err(|_| {
                fail("attributes: expected a dict of key → one value (or None) per observation")
            }),
        },
    }
}

/// Refuses a string where a sequence of strings is expected (Python would read it as its
/// characters).
fn not_a_string(name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
    if value.is_instance_of::<PyString>() {
        return Err(fail(format!("{name}: expected a list, got one string")));
    }
    Ok(())
}

#[pymethods]
impl Scheduler {
    /// Opens the state at `path`, or creates it with `policy` (a policy name or formula,
    /// read under `grammar`), taking its lock (`<path>.lock`, the CLI's): a state held by
    /// another scheduler raises StateLockedError, or with `wait=True` waits for it. Given
    /// for an existing state, `policy` and `tie_seed` must be the state's; `group` regroups
    /// its pages for GR.
    #[new]
    #[pyo3(signature = (path, policy = None, grammar = "every", tie_seed = None, group = None, wait = false))]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        policy: Option<&str>,
        grammar: &str,
        tie_seed: Option<u64>,
        group: Option<&str>,
        wait: bool,
    ) -> PyResult<Self> {
        let grammar = Grammar::named_or_file(grammar).map_err(|e| fail(format!("grammar: {e}")))?;
        let given = policy
            .map(|text| crate::run::policy(text, &grammar))
            .transpose()?;
        let opening = Opening::new(given, tie_seed).map_err(|e| fail(format!("policy: {e}")))?;
        let held = lock(py, &path, wait)?;
        let mut state: State = opening.open(&path).map_err(error)?;
        if let Some(key) = group {
            state
                .group_by(Some(key))
                .map_err(|e| fail(format!("group {key}: {e}")))?;
            if let Some(why) = state.unused_grouping() {
                return Err(fail(format!("group {key}: {why}")));
            }
        }
        Ok(Scheduler {
            path,
            open: Some((state, held)),
        })
    }

    /// Records downloads: page `pages[i]` was downloaded at cycle `cycles[i]` and found
    /// changed (`changed[i]`) since its previous download; `hosts`, `weights` and
    /// `attributes` (a dict of key → one value per observation, None leaving it as it is;
    /// an empty value clears it) set the page's host, weight and attributes. Unknown pages
    /// are added. Applied as `freshgp schedule --observe` applies a log whose line N is
    /// observation N: in cycle order, the last of a page's observations at one cycle
    /// counts, one not after the page's latest is skipped; a bad observation is an error
    /// naming it (`observations:N`), and then nothing is applied. `max_jump` refuses cycles
    /// more than that many past the state's latest (None: any). Returns what was done.
    #[pyo3(signature = (pages, cycles, changed, hosts = None, weights = None, attributes = None, max_jump = Some(log::DEFAULT_MAX_JUMP)))]
    #[allow(clippy::too_many_arguments)]
    fn observe(
        &mut self,
        pages: &Bound<'_, PyAny>,
        cycles: Vec<u32>,
        changed: Vec<bool>,
        hosts: Option<&Bound<'_, PyAny>>,
        weights: Option<Vec<Option<f64>>>,
        attributes: Option<&Bound<'_, PyAny>>,
        max_jump: Option<u32>,
    ) -> PyResult<std::collections::HashMap<&'static str, usize>> {
        not_a_string("pages", pages)?;
        let pages: Vec<String> = pages.extract()?;
        let hosts: Option<Vec<Option<String>>> = match hosts {
            Some(h) => {
                not_a_string("hosts", h)?;
                Some(h.extract()?)
            }
            None => None,
        };
        let attributes = attribute_columns(attributes)?;
        let n = pages.len();
        let mut lengths = vec![("cycles", cycles.len()), ("changed", changed.len())];
        lengths.extend(hosts.as_ref().map(|h| ("hosts", h.len())));
        lengths.extend(weights.as_ref().map(|w| ("weights", w.len())));
        lengths.extend(attributes.iter().map(|(_, v)| ("attributes", v.len())));
        if let Some((name, len)) = lengths.into_iter().find(|&(_, len)| len != n) {
            return Err(fail(format!(
                "{name} holds {len} values but pages holds {n}: one per observation"
            )));
        }
        let records: Vec<log::Record> = (0..n)
            .map(|i| log::Record {
                page: pages[i].clone(),
                cycle: cycles[i],
                changed: changed[i],
                host: hosts.as_ref().and_then(|h| h[i].clone()),
                weight: weights.as_ref().and_then(|w| w[i]),
                attributes: attributes
                    .iter()
                    .filter_map(|(key, values)| {
                        values[i].as_ref().map(|v| (key.clone(), Some(v.clone())))
                    })
                    .collect(),
            })
            .collect();
        let state = self.state()?;
        let options = log::LogOptions { max_jump };
        let summary = log::apply_records(state, &records, "observations", options).map_err(|e| match e {
            log::LogError::Jump { line, cycle, latest, limit, .. } => fail(format!(
                "observations:{line}: cycle {cycle} is {} cycles after the cycle before it ({latest}), more than max_jump={limit}: a timestamp or a typo? Nothing was applied; pass max_jump=None (or a larger one) if it is meant",
                cycle - latest
            )),
            other => error(other),
        })?;
        Ok([
            ("observations", summary.observations),
            ("added", summary.added),
            ("duplicates", summary.duplicates),
            ("stale", summary.stale),
        ]
        .into_iter()
        .collect())
    }

    /// Adds pages never observed (as a crawler adds the URLs it has just discovered), with
    /// their `hosts` (None or empty: without host) and `weights` (default 1), in the order given,
    /// which is their order among equal scores. Pages already scheduled are skipped;
    /// returns the number added.
    #[pyo3(signature = (pages, hosts = None, weights = None))]
    fn add(
        &mut self,
        pages: Vec<String>,
        hosts: Option<Vec<Option<String>>>,
        weights: Option<Vec<f64>>,
    ) -> PyResult<usize> {
        let n = pages.len();
        for (name, len) in [
            ("hosts", hosts.as_ref().map(Vec::len)),
            ("weights", weights.as_ref().map(Vec::len)),
        ] {
            if let Some(len) = len.filter(|&len| len != n) {
                return Err(fail(format!(
                    "{name} holds {len} values but pages holds {n}: one per page"
                )));
            }
        }
        if let Some((i, w)) = weights
            .iter()
            .flatten()
            .enumerate()
            .find(|(_, w)| !w.is_finite() || **w < 0.0)
        {
            return Err(fail(format!(
                "weights[{i}]: {w} is not a weight (finite and >= 0)"
            )));
        }
        // The library's rule for ids and hosts, checked for every page before any is added.
        for (i, page) in pages.iter().enumerate() {
            checked_text("page id", page).map_err(|e| fail(format!("pages[{i}]: {e}")))?;
            if let Some(h) = hosts.as_ref().and_then(|h| h[i].as_deref()) {
                if !h.is_empty() {
                    checked_text("host", h).map_err(|e| fail(format!("hosts[{i}]: {e}")))?;
                }
            }
        }
        let state = self.state()?;
        let mut added = 0;
        for (i, page) in pages.into_iter().enumerate() {
            if state.contains(page.as_str()) {
                continue;
            }
            let host = hosts
                .as_ref()
                .and_then(|h| h[i].as_deref())
                .filter(|h| !h.is_empty());
            let weight = weights.as_ref().map_or(1.0, |w| w[i]);
            state.add_weighted(page, host, weight).map_err(error)?;
            added += 1;
        }
        Ok(added)
    }

    /// Stops scheduling `pages`; returns those that were not scheduled.
    fn remove(&mut self, pages: Vec<String>) -> PyResult<Vec<String>> {
        let state = self.state()?;
        let mut unknown = Vec::new();
        for page in pages {
            if state.contains(page.as_str()) {
                state.remove(page.as_str()).map_err(error)?;
            } else {
                unknown.push(page);
            }
        }
        Ok(unknown)
    }

    /// The batch for `cycle` (default: 1 + the latest observed cycle), ranked as
    /// `freshgp schedule` ranks: `k` pages, or `resources` of them; `host_cap` pages of a
    /// host at most; `decision` top-k or sample. A list of dicts (page, score, weight, and
    /// in a sampled batch the inclusion probability), best first.
    #[pyo3(signature = (k = None, resources = None, host_cap = None, cycle = None, decision = None))]
    fn batch<'py>(
        &mut self,
        py: Python<'py>,
        k: Option<usize>,
        resources: Option<f64>,
        host_cap: Option<usize>,
        cycle: Option<u32>,
        decision: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let decision: Decision = crate::run::decision_of(decision)?;
        if host_cap == Some(0) {
            return Err(fail(
                "host_cap must be at least 1 (a cap of 0 would crawl no page of any host)",
            ));
        }
        if decision == Decision::Sample && host_cap.is_some() {
            return Err(fail("decision sample cannot take a host_cap: the draw fixes each page's inclusion probability, which a cap would change"));
        }
        let state = self.state()?;
        let k = match (k, resources) {
            (Some(0), _) => {
                return Err(fail(
                    "k must be at least 1 (a batch of 0 pages would crawl nothing)",
                ))
            }
            (Some(k), None) => k,
            (None, Some(r)) => SimConfig::new(r, 0)
                .map_err(|e| fail(format!("resources {r}: {e}")))?
                .k(state.len()),
            _ => return Err(fail("give k or resources (one of them)")),
        };
        let cycle = match cycle {
            Some(d) => d,
            None => state
                .latest_cycle()
                .checked_add(1)
                .ok_or_else(|| fail("the latest cycle is the largest possible"))?,
        };
        let batch = match decision {
            Decision::TopK => state.next_batch_scored(cycle, k, host_cap),
            Decision::Sample => state.next_batch_sampled(cycle, k),
        }
        .map_err(error)?;
        let text = serde_json::to_string(&batch).map_err(|e| fail(e.to_string()))?;
        crate::loads(py, &text)
    }

    fn __enter__(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        if slf.borrow().open.is_none() {
            return Err(fail(format!(
                "the scheduler of {} is closed",
                slf.borrow().path.display()
            )));
        }
        Ok(slf)
    }

    /// Leaving a `with` block closes the scheduler, saving the state unless the block
    /// raised.
    fn __exit__(
        &mut self,
        py: Python<'_>,
        kind: Option<&Bound<'_, PyAny>>,
        _value: Option<&Bound<'_, PyAny>>,
        _traceback: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        self.close(py, kind.is_none())?;
        Ok(false)
    }

    /// Saves the state (atomically: a failure leaves the old file).
    fn save(&mut self, py: Python<'_>) -> PyResult<()> {
        let path = self.path.clone();
        let state = self.state()?;
        py.detach(|| state.save(&path)).map_err(error)
    }

    /// Saves the state unless `save=False`, then releases the lock. Closing twice does
    /// nothing.
    #[pyo3(signature = (save = true))]
    fn close(&mut self, py: Python<'_>, save: bool) -> PyResult<()> {
        if self.open.is_some() && save {
            self.save(py)?;
        }
        self.open = None;
        Ok(())
    }

    /// Pages scheduled.
    fn __len__(&mut self) -> PyResult<usize> {
        Ok(self.state()?.len())
    }

    /// Whether `page` is scheduled.
    fn __contains__(&mut self, page: &str) -> PyResult<bool> {
        Ok(self.state()?.contains(page))
    }

    /// The latest cycle observed (0 before any).
    #[getter]
    fn latest_cycle(&mut self) -> PyResult<u32> {
        Ok(self.state()?.latest_cycle())
    }

    /// The state's policy, as text that reads back.
    #[getter]
    fn policy(&mut self) -> PyResult<String> {
        Ok(self.state()?.policy().to_string())
    }

    /// The state file.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// Whether the scheduler is closed.
    #[getter]
    fn closed(&self) -> bool {
        self.open.is_none()
    }

    fn __repr__(&mut self) -> String {
        let shown = self.path.display().to_string();
        match &self.open {
            Some((s, _)) => format!(
                "<freshgp.Scheduler {shown}: {} pages, latest cycle {}, policy `{}`>",
                s.len(),
                s.latest_cycle(),
                s.policy()
            ),
            None => format!("<freshgp.Scheduler {shown} (closed)>"),
        }
    }
}
