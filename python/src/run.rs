//! The runs: `simulate`, `baselines`, `evolve` and `experiment`, each the library call the
//! command of the same name makes, without the GIL, with results as the command's JSON.

use crate::dataset::Dataset;
use crate::{detached, error, fail};
use freshgp::data::split::{check_rotation, Horizon, Set};
use freshgp::experiment::evolve::{self as gp_run, Progress};
use freshgp::experiment::request::EvolveRequest;
use freshgp::experiment::{baselines as literature, store::Store, study::Study, sweep, units};
use freshgp::formula::{Formula, Grammar};
use freshgp::metric::Metric;
use freshgp::output::{self, Baselines, Evolved, SimulateRun, SimulateSweep};
use freshgp::policy::{Policy, PolicyError};
use freshgp::sim::{Decision, Period, SimConfig, Simulator, DEFAULT_RESOURCES, DEFAULT_WARMUP};
use pyo3::prelude::*;
use serde_json::json;
use std::path::PathBuf;

/// The policy `text` names, read as `--policy` reads it: a formula's syntax error quotes
/// the text with a caret.
pub(crate) fn policy(text: &str, grammar: &Grammar) -> PyResult<Policy> {
    match Policy::parse(text, grammar) {
        Ok(p) => Ok(p),
        Err(PolicyError::Formula(_)) => match Formula::parse(text, grammar) {
            Err(e) => Err(fail(e.quoted(text))),
            Ok(f) => Policy::formula_with(&f, grammar.closure(), None).map_err(error),
        },
        Err(e) => Err(error(e)),
    }
}

/// The checked simulation settings.
///
/// `None` takes the library's default (the command line's): resources
/// [`DEFAULT_RESOURCES`], warm-up [`DEFAULT_WARMUP`], the run's metric
/// `Metric::default()`.
pub(crate) fn config(
    resources: Option<f64>,
    host_cap: Option<u32>,
    decision: Option<&str>,
    warmup: Option<usize>,
    tie_seed: u64,
    metric: Option<&str>,
) -> PyResult<SimConfig> {
    let decision = decision_of(decision)?;
    let metric = metric_of("metric", metric)?;
    let resources = resources.unwrap_or(DEFAULT_RESOURCES);
    let warmup = warmup.unwrap_or(DEFAULT_WARMUP);
    let config = SimConfig::new(resources, warmup)
        .map_err(|e| fail(format!("resources {resources}: {e}")))?
        .with_seed(tie_seed)
        .with_host_cap(host_cap)
        .map_err(|e| fail(format!("host_cap: {e}")))?
        .with_decision(decision)
        .map_err(|e| fail(format!("decision {decision}: {e}")))?;
    Ok(config.with_metric(metric))
}

/// The decision `name` (`None`: the library's default, top-k).
pub(crate) fn decision_of(name: Option<&str>) -> PyResult<Decision> {
    name.map_or(Ok(Decision::default()), |n| {
        n.parse()
            .map_err(|e: String| fail(format!("decision: {e}")))
    })
}

/// The metric `name` (`None`: the library's default), `what` naming the argument.
fn metric_of(what: &str, name: Option<&str>) -> PyResult<Metric> {
    name.map_or(Ok(Metric::default()), |n| {
        n.parse().map_err(|e: String| fail(format!("{what}: {e}")))
    })
}

/// `value` as the command's JSON (one line), for the Python side to parse.
fn to_json(value: &impl serde::Serialize) -> PyResult<String> {
    output::compact(value).map_err(|e| fail(e.to_string()))
}

/// The period `set` names: train, validation or test of `rotation`, or all.
fn period_of(d: &freshgp::data::Dataset, set: &str, rotation: usize) -> PyResult<Period> {
    let set: Set = set
        .parse()
        .map_err(|e: String| fail(format!("period {e}")))?;
    Period::of_set(d, set, rotation).map_err(error)
}

/// `freshgp simulate --json`: one run's per-cycle metrics, or with `runs` each run's means.
#[pyfunction]
#[pyo3(signature = (dataset, policy, resources = None, host_cap = None, decision = None, runs = None, warmup = None, tie_seed = 0, period = "all", rotation = 0, metric = None, grammar = "every"))]
#[allow(clippy::too_many_arguments)]
pub fn simulate(
    py: Python<'_>,
    dataset: &Dataset,
    policy: &str,
    resources: Option<f64>,
    host_cap: Option<u32>,
    decision: Option<&str>,
    runs: Option<usize>,
    warmup: Option<usize>,
    tie_seed: u64,
    period: &str,
    rotation: usize,
    metric: Option<&str>,
    grammar: &str,
) -> PyResult<String> {
    let rule = self::policy(policy, &crate::formula::grammar(grammar)?)?;
    let config = config(resources, host_cap, decision, warmup, tie_seed, metric)?;
    let period = period_of(&dataset.inner, period, rotation)?;
    if let Some(r) = runs.filter(|r| !(1..=sweep::MAX_RUNS).contains(r)) {
        let most = sweep::MAX_RUNS;
        return Err(fail(format!("runs {r}: expected 1 to {most}")));
    }
    detached(py, None, |_| match runs {
        None => {
            let outcome = Simulator::new(config).run(&period, &rule).map_err(error)?;
            to_json(&SimulateRun::new(&rule, &period, config, outcome))
        }
        Some(_) => {
            let seeds = sweep::run_seeds(runs, config.seed());
            let periods = std::slice::from_ref(&period);
            let table = sweep::table(
                periods,
                config,
                std::slice::from_ref(&rule),
                &[config.resources()],
                &seeds,
                &mut |_, _| {},
            )
            .map_err(error)?;
            to_json(&SimulateSweep::new(&rule, &table, &period, config, &seeds))
        }
    })
}

/// `freshgp baselines --json`: each policy over the test sets of the five rotations.
#[pyfunction]
#[pyo3(signature = (dataset, policies = None, resources = None, host_cap = None, decision = None, warmup = None, tie_seed = 0, test_horizon = None, metric = None))]
#[allow(clippy::too_many_arguments)]
pub fn baselines(
    py: Python<'_>,
    dataset: &Dataset,
    policies: Option<Vec<String>>,
    resources: Option<f64>,
    host_cap: Option<u32>,
    decision: Option<&str>,
    warmup: Option<usize>,
    tie_seed: u64,
    test_horizon: Option<&str>,
    metric: Option<&str>,
) -> PyResult<String> {
    let config = config(resources, host_cap, decision, warmup, tie_seed, metric)?;
    let every = Grammar::every();
    let rules = match policies {
        None => Policy::named(),
        Some(texts) => {
            let mut rules: Vec<Policy> = Vec::new();
            for text in &texts {
                let rule = policy(text, &every)?;
                if rules.contains(&rule) {
                    return Err(fail(format!("policies: `{text}` is listed twice")));
                }
                rules.push(rule);
            }
            rules
        }
    };
    let horizon = test_horizon.map(horizon).transpose()?.unwrap_or_default();
    detached(py, None, |_| {
        let results =
            literature::run_over(&dataset.inner, config, &rules, horizon).map_err(error)?;
        let pages = dataset.inner.pages();
        to_json(&Baselines::new(&results, pages, config, horizon, None))
    })
}

fn horizon(text: &str) -> PyResult<Horizon> {
    text.parse()
        .map_err(|e: String| fail(format!("test_horizon {e}")))
}

/// `freshgp evolve --json`: GP on one rotation; `progress` gets each generation. Every
/// setting left `None` takes the library's default, as the command's flag does, and the
/// library checks them all at once ([`EvolveRequest::settings`]).
#[pyfunction]
#[pyo3(signature = (dataset, grammar = None, fitness = None, rotation = 0, seeds = None, first_seed = None, population = None, generations = None, tournament = None, seed_formulas = Vec::new(), literature_seeds = true, train_resources = Vec::new(), train_sample = None, resources = None, host_cap = None, model = None, test_horizon = None, also_metrics = None, gp_config = None, paper = false, progress = None))]
#[allow(clippy::too_many_arguments)]
pub fn evolve(
    py: Python<'_>,
    dataset: &Dataset,
    grammar: Option<String>,
    fitness: Option<&str>,
    rotation: usize,
    seeds: Option<usize>,
    first_seed: Option<u64>,
    population: Option<usize>,
    generations: Option<usize>,
    tournament: Option<usize>,
    seed_formulas: Vec<String>,
    literature_seeds: bool,
    train_resources: Vec<f64>,
    train_sample: Option<f64>,
    resources: Option<f64>,
    host_cap: Option<u32>,
    model: Option<PathBuf>,
    test_horizon: Option<&str>,
    also_metrics: Option<Vec<String>>,
    gp_config: Option<PathBuf>,
    paper: bool,
    progress: Option<Py<PyAny>>,
) -> PyResult<String> {
    check_rotation(rotation).map_err(error)?;
    let also_metrics = also_metrics
        .map(|names| {
            names
                .iter()
                .map(|n| metric_of("also_metrics", Some(n)))
                .collect::<PyResult<Vec<Metric>>>()
        })
        .transpose()?;
    let request = EvolveRequest {
        grammar,
        model,
        fitness: fitness.map(|f| metric_of("fitness", Some(f))).transpose()?,
        also_metrics,
        seeds,
        first_seed,
        gp_config,
        paper,
        population,
        generations,
        tournament,
        seed_formulas,
        literature_seeds: (!literature_seeds).then_some(false),
        train_resources,
        train_sample,
        test_horizon: test_horizon.map(horizon).transpose()?,
    };
    let sim = config(resources, host_cap, None, None, 0, None)?;
    let settings = request.settings(sim).map_err(|e| fail(e.to_string()))?;
    detached(py, progress.as_ref(), |poll| {
        let start = std::time::Instant::now();
        let run = gp_run::run_rotation(&dataset.inner, rotation, &settings, |event| {
            poll.event(|| event_json(&event))
        })
        .map_err(error)?;
        to_json(&Evolved::new(
            &run,
            &settings,
            start.elapsed().as_secs_f64(),
        ))
    })
}

fn event_json(event: &Progress<'_>) -> String {
    match *event {
        Progress::Generation {
            seed_index,
            seed,
            report,
        } => json!({
            "event": "generation", "seed_index": seed_index, "seed": seed,
            "generation": report.generation, "generations": report.generations,
            "best": report.best, "mean": report.mean,
            "evaluated": report.evaluated, "cache_hits": report.cache_hits,
        }),
        Progress::Selecting { seed_index } => {
            json!({"event": "selecting", "seed_index": seed_index})
        }
    }
    .to_string()
}

/// `freshgp experiment FILE`: runs a study into `out` (default `results/<name>`),
/// resuming its stored units with `resume`; returns the report's files.
#[pyfunction]
#[pyo3(signature = (path, out = None, resume = false, progress = None))]
pub fn experiment(
    py: Python<'_>,
    path: PathBuf,
    out: Option<PathBuf>,
    resume: bool,
    progress: Option<Py<PyAny>>,
) -> PyResult<Vec<PathBuf>> {
    let study = Study::load(&path).map_err(error)?;
    let out = out.unwrap_or_else(|| PathBuf::from("results").join(&study.name));
    Store::check(&out, &study, resume).map_err(error)?;
    detached(py, progress.as_ref(), |poll| {
        let runner = units::Runner::new(study, &path).map_err(error)?;
        let store = Store::create(&out, runner.study(), resume).map_err(error)?;
        units::run_study(&runner, &store, units::Shard::ALL, |event| {
            poll.event(|| study_event_json(&event))
        })
        .map_err(error)?;
        freshgp::report::write(&out).map_err(error)
    })
}

fn study_event_json(event: &units::Event<'_>) -> String {
    match event {
        units::Event::Plan {
            total,
            in_shard,
            done,
            work,
        } => json!({"event": "plan", "total": total, "in_shard": in_shard, "done": done, "work": work}),
        units::Event::Start {
            position,
            count,
            label,
        } => json!({"event": "start", "position": position, "count": count, "label": label}),
        units::Event::Generation {
            label,
            report,
            work_done,
        } => json!({
            "event": "generation", "label": label, "generation": report.generation,
            "generations": report.generations, "best": report.best, "mean": report.mean,
            "work_done": work_done,
        }),
        units::Event::Finished {
            label,
            seconds,
            work_done,
        } => json!({"event": "finished", "label": label, "seconds": seconds, "work_done": work_done}),
    }
    .to_string()
}

/// The names of the policies `baselines` runs by default.
#[pyfunction]
pub fn named_policies() -> Vec<String> {
    Policy::named().iter().map(Policy::to_string).collect()
}
