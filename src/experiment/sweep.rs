//! The evaluation protocol of docs/src/reference/evaluation.md: budget sweeps, repeated
//! runs and savings at equal quality, for any policy over a set of periods (the five test
//! rotations).
//!
//! - A *budget sweep* simulates the same policy at several resources levels.
//! - *Repeated runs* simulate it once per run seed ([`run_seeds`]: 1..R; a run seed fixes
//!   the tie order, a bandit's draws and a sampled decision's `u`). A run's value of a
//!   metric is its mean over every scored cycle of every period
//!   ([`RunMeans`]); across runs a policy is summarized by the median and the 2.5–97.5
//!   percentile interval, and compared with a reference by the two-sided Wilcoxon
//!   signed-rank test over the paired runs ([`crate::stats::wilcoxon`]).
//! - *Savings*: the smallest budget `b' <= b` at which a policy's mean metric reaches a
//!   reference's mean at `b`, searched on the grid `b·j/100`, `j = 1..=100` (within 1% of
//!   b; a grid, not a bisection, so no monotonicity is assumed), and the savings counted in
//!   crawls, `1 - crawls(b')/crawls(b)` (crawls summed over the periods;
//!   docs/src/reference/evaluation.md#savings-at-equal-quality): a budget visits
//!   `floor(P·b)` pages a cycle, so on small sets many grid budgets crawl alike, and
//!   `1 - b'/b` would claim savings of crawls that are still made; the two agree whenever
//!   `P·b` is large. [`savings_curve`] gives the means on the grid (one point per distinct
//!   number of crawls: its smallest budget), [`smallest_reaching`] reads the budget off
//!   it.
//!
//! ```
//! use freshgp::data::Dataset;
//! use freshgp::experiment::sweep::{evaluate, run_seeds};
//! use freshgp::metric::Metric;
//! use freshgp::sim::{Period, SimConfig};
//! use freshgp::policy::Policy;
//!
//! let data = Dataset::from_bit_strings(&["0101010101", "0011001100", "1111111111", "0000000000"])?;
//! let periods = [Period::whole(&data)?];
//! let config = SimConfig::new(0.5, 2)?;
//! let policy = Policy::parse("X / n", &freshgp::formula::Grammar::all())?;
//! let runs = evaluate(&periods, config, &policy, &run_seeds(Some(3), 0))?;
//! assert_eq!(runs.iter().map(|r| r.seed).collect::<Vec<_>>(), [1, 2, 3]);
//! assert!(runs[0].of(Metric::ChangeRate) > 0.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::{ExperimentError, Set};
use crate::metric::{CycleMetrics, Metric};
use crate::policy::Policy;
use crate::sim::{Outcome, Period, SimConfig, Simulator};
use crate::stats::{median_interval, wilcoxon, MedianInterval};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Steps of the savings grid: budgets `b·j/SAVINGS_STEPS` (1% of b,
/// docs/src/reference/evaluation.md#savings-at-equal-quality).
pub const SAVINGS_STEPS: usize = 100;

/// The most repeated runs one sweep takes (`--runs`, Python's `runs=`).
pub const MAX_RUNS: usize = 10_000;

/// The run seeds: `1..=R` for `Some(R)` repeated runs
/// (docs/src/reference/evaluation.md#repeated-runs), else the one seed of a single run (the
/// configuration's tie seed).
pub fn run_seeds(runs: Option<usize>, single: u64) -> Vec<u64> {
    match runs {
        Some(r) => (1..=r as u64).collect(),
        None => vec![single],
    }
}

/// Every metric's mean over the scored cycles of one run (all periods pooled), with the
/// number of cycles (for pooling runs of different sizes).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunMeans {
    /// The run seed.
    pub seed: u64,
    /// Scored cycles pooled.
    pub cycles: usize,
    /// Means in the order of [`Metric::ALL`] (an object keyed by metric name in JSON).
    #[serde(with = "metric_map")]
    pub means: [f64; 5],
}

/// [`RunMeans::means`] as `{"changerate": .., "ndcg": .., ..}`; read also as the array of
/// the first stored units.
mod metric_map {
    use crate::metric::Metric;
    use serde::de::Error;
    use serde::ser::SerializeMap;
    use serde::{Deserialize, Deserializer, Serializer};
    use std::collections::BTreeMap;

    pub fn serialize<S: Serializer>(means: &[f64; 5], s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(means.len()))?;
        for (m, value) in Metric::ALL.iter().zip(means) {
            map.serialize_entry(m.name(), value)?;
        }
        map.end()
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Stored {
        Named(BTreeMap<String, f64>),
        Ordered([f64; 5]),
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<[f64; 5], D::Error> {
        let named = match Stored::deserialize(d)? {
            Stored::Ordered(means) => return Ok(means),
            Stored::Named(named) => named,
        };
        if let Some(unknown) = named.keys().find(|k| k.parse::<Metric>().is_err()) {
            return Err(D::Error::custom(format!("unknown metric `{unknown}`")));
        }
        let mut means = [0.0; 5];
        for (slot, m) in means.iter_mut().zip(Metric::ALL) {
            *slot = *named
                .get(m.name())
                .ok_or_else(|| D::Error::custom(format!("missing metric `{}`", m.name())))?;
        }
        Ok(means)
    }
}

impl RunMeans {
    /// The means of `cycles` (all pooled) for run `seed`.
    pub fn of_cycles<'a>(
        seed: u64,
        cycles: impl IntoIterator<Item = &'a CycleMetrics>,
    ) -> RunMeans {
        let mut sums = [0.0; 5];
        let mut n = 0;
        for c in cycles {
            for (sum, m) in sums.iter_mut().zip(Metric::ALL) {
                *sum += m.of(c);
            }
            n += 1;
        }
        RunMeans {
            seed,
            cycles: n,
            means: sums.map(|s| if n == 0 { 0.0 } else { s / n as f64 }),
        }
    }

    /// Pools runs of one seed (several periods or GP seeds), weighting each by its cycles.
    pub fn pooled<'a>(seed: u64, parts: impl IntoIterator<Item = &'a RunMeans>) -> RunMeans {
        let mut sums = [0.0; 5];
        let mut n = 0;
        for part in parts {
            for (sum, mean) in sums.iter_mut().zip(part.means) {
                *sum += mean * part.cycles as f64;
            }
            n += part.cycles;
        }
        RunMeans {
            seed,
            cycles: n,
            means: sums.map(|s| if n == 0 { 0.0 } else { s / n as f64 }),
        }
    }

    /// The mean of `metric`.
    pub fn of(&self, metric: Metric) -> f64 {
        self.means[metric.index()]
    }
}

/// Checks that every period can be simulated under `config`.
pub fn check(periods: &[Period], config: SimConfig) -> Result<(), ExperimentError> {
    for p in periods {
        config.check(p).map_err(|source| ExperimentError::Sim {
            set: Set::Test,
            source,
        })?;
    }
    Ok(())
}

/// Checks that every period gives each of `policies` what it reads beyond the visits: the
/// group rates its learned models read, the latent probabilities the oracle reads
/// ([`check_policy`](crate::sim::check_policy)).
pub fn check_groupings(periods: &[Period], policies: &[Policy]) -> Result<(), ExperimentError> {
    for p in periods {
        for policy in policies {
            crate::sim::check_policy(p, policy).map_err(|source| ExperimentError::Sim {
                set: Set::Test,
                source,
            })?;
        }
    }
    Ok(())
}

/// Simulates `policy` over every period once per run seed; the outcomes, run by run
/// (each run's periods in order).
pub fn outcomes(
    periods: &[Period],
    config: SimConfig,
    policy: &Policy,
    seeds: &[u64],
) -> Result<Vec<Vec<Outcome>>, ExperimentError> {
    check(periods, config)?;
    check_groupings(periods, std::slice::from_ref(policy))?;
    let jobs: Vec<(u64, usize)> = seeds
        .iter()
        .flat_map(|&s| (0..periods.len()).map(move |p| (s, p)))
        .collect();
    // Each worker runs a contiguous share of the jobs through one simulator, whose memos
    // (the MLEs of the visit histories met) serve every run of its share.
    let share = jobs.len().div_ceil(rayon::current_num_threads()).max(1);
    let mut all = jobs
        .par_chunks(share)
        .map(|share| {
            let mut sim = Simulator::new(config);
            share
                .iter()
                .map(|&(seed, p)| {
                    sim.set_config(config.with_seed(seed));
                    // Invariant: every period was checked against `config` and the
                    // policy's grouping above (the seed does not enter the checks).
                    sim.run(&periods[p], policy)
                        .expect("invariant: periods checked above")
                })
                .collect::<Vec<_>>()
        })
        .collect::<Vec<_>>()
        .into_iter()
        .flatten();
    Ok(seeds
        .iter()
        .map(|_| all.by_ref().take(periods.len()).collect())
        .collect())
}

/// Each run's means of `policy` over `periods` (see [`outcomes`]).
pub fn evaluate(
    periods: &[Period],
    config: SimConfig,
    policy: &Policy,
    seeds: &[u64],
) -> Result<Vec<RunMeans>, ExperimentError> {
    Ok(outcomes(periods, config, policy, seeds)?
        .iter()
        .zip(seeds)
        .map(|(runs, &seed)| RunMeans::of_cycles(seed, runs.iter().flat_map(|o| &o.cycles)))
        .collect())
}

/// The median and 2.5–97.5 percentile interval of `metric` over `runs`.
pub fn summary(runs: &[RunMeans], metric: Metric) -> MedianInterval {
    median_interval(&runs.iter().map(|r| r.of(metric)).collect::<Vec<_>>())
}

/// The mean of `metric` over every run (pooled by cycles).
pub fn mean(runs: &[RunMeans], metric: Metric) -> f64 {
    RunMeans::pooled(0, runs).of(metric)
}

/// The two-sided Wilcoxon signed-rank p-value of `runs` against `reference` on `metric`,
/// paired by run seed (runs without a partner are left out); `None` with no pair.
pub fn wilcoxon_against(runs: &[RunMeans], reference: &[RunMeans], metric: Metric) -> Option<f64> {
    let (a, b): (Vec<f64>, Vec<f64>) = runs
        .iter()
        .filter_map(|r| {
            let partner = reference.iter().find(|o| o.seed == r.seed)?;
            Some((r.of(metric), partner.of(metric)))
        })
        .unzip();
    (!a.is_empty()).then(|| wilcoxon(&a, &b))
}

/// Every policy at every budget, run by run (a budget sweep with repeated runs).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Table {
    /// The budgets, in the order given.
    pub levels: Vec<f64>,
    /// The policies, in the order given.
    pub policies: Vec<Policy>,
    /// `runs[level][policy]`: each run's means.
    pub runs: Vec<Vec<Vec<RunMeans>>>,
}

/// Simulates each of `policies` at each of `levels` (budgets replacing `config`'s) over
/// `periods`, once per run seed; `progress(done, total)` after each (level, policy).
pub fn table(
    periods: &[Period],
    config: SimConfig,
    policies: &[Policy],
    levels: &[f64],
    seeds: &[u64],
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Table, ExperimentError> {
    let configs = levels
        .iter()
        .map(|&r| {
            let at = config
                .with_resources(r)
                .map_err(|source| ExperimentError::Sim {
                    set: Set::Test,
                    source,
                })?;
            check(periods, at)?;
            Ok(at)
        })
        .collect::<Result<Vec<_>, ExperimentError>>()?;
    let total = levels.len() * policies.len();
    let mut runs = Vec::with_capacity(levels.len());
    for (l, &at) in configs.iter().enumerate() {
        let mut row = Vec::with_capacity(policies.len());
        for (i, policy) in policies.iter().enumerate() {
            row.push(evaluate(periods, at, policy, seeds)?);
            progress(l * policies.len() + i + 1, total);
        }
        runs.push(row);
    }
    Ok(Table {
        levels: levels.to_vec(),
        policies: policies.to_vec(),
        runs,
    })
}

/// One point of a savings curve: a budget and the means there (over every run).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// The budget (fraction of pages visited per cycle).
    pub resources: f64,
    /// Pages visited per cycle at this budget, summed over the periods.
    pub crawls: u64,
    /// Pooled over runs and periods.
    pub means: RunMeans,
}

/// The means of `policy` at the budgets `b·j/SAVINGS_STEPS`, `j = 1..=SAVINGS_STEPS`,
/// `b` being `config`'s resources, over every period and run seed. Budgets that leave
/// some period no visit per cycle are left out, and so are budgets that crawl as many
/// pages as a smaller one (the same simulation). `progress(j, SAVINGS_STEPS)` after each
/// budget of the grid, run or left out.
pub fn savings_curve(
    periods: &[Period],
    config: SimConfig,
    policy: &Policy,
    seeds: &[u64],
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Vec<CurvePoint>, ExperimentError> {
    let b = config.resources();
    let mut curve = Vec::with_capacity(SAVINGS_STEPS);
    for j in 1..=SAVINGS_STEPS {
        let resources = b * j as f64 / SAVINGS_STEPS as f64;
        if let Some(point) = curve_point(periods, config, policy, seeds, resources, &curve)? {
            curve.push(point);
        }
        progress(j, SAVINGS_STEPS);
    }
    Ok(curve)
}

/// The point of `policy`'s savings curve at `resources`, if it is one: a budget that
/// leaves every period a visit per cycle and crawls more pages than the last point of
/// `curve`.
fn curve_point(
    periods: &[Period],
    config: SimConfig,
    policy: &Policy,
    seeds: &[u64],
    resources: f64,
    curve: &[CurvePoint],
) -> Result<Option<CurvePoint>, ExperimentError> {
    let Ok(at) = config.with_resources(resources) else {
        return Ok(None);
    };
    if check(periods, at).is_err() {
        return Ok(None);
    }
    let crawls: u64 = periods.iter().map(|p| at.k(p.pages()) as u64).sum();
    if curve.last().is_some_and(|p| p.crawls == crawls) {
        return Ok(None);
    }
    let runs = evaluate(periods, at, policy, seeds)?;
    Ok(Some(CurvePoint {
        resources,
        crawls,
        means: RunMeans::pooled(0, &runs),
    }))
}

/// Pools curves of the same grid (several rotations or GP seeds) point by point; points
/// missing from any curve are left out.
pub fn pool_curves(curves: &[&[CurvePoint]]) -> Vec<CurvePoint> {
    let Some(first) = curves.first() else {
        return Vec::new();
    };
    first
        .iter()
        .filter_map(|point| {
            let parts: Option<Vec<&RunMeans>> = curves
                .iter()
                .map(|c| {
                    c.iter()
                        .find(|p| p.resources == point.resources)
                        .map(|p| &p.means)
                })
                .collect();
            Some(CurvePoint {
                resources: point.resources,
                crawls: point.crawls,
                means: RunMeans::pooled(0, parts?),
            })
        })
        .collect()
}

/// The savings of a policy against a reference
/// (docs/src/reference/evaluation.md#savings-at-equal-quality).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Savings {
    /// The metric compared.
    pub metric: Metric,
    /// The budget b the reference runs at.
    pub budget: f64,
    /// The reference's mean metric at b: the target.
    pub target: f64,
    /// The smallest grid budget b' <= b at which the policy's mean reaches the target;
    /// `None` when it does not reach it even at b.
    pub reaches_at: Option<f64>,
    /// `1 - crawls(b')/crawls(b)`, in [0, 1); `None` when not reached.
    pub savings: Option<f64>,
}

/// Reads the savings off `curve` (a policy's [`savings_curve`] at budget `budget`) for the
/// reference mean `target` of `metric`.
pub fn smallest_reaching(
    curve: &[CurvePoint],
    metric: Metric,
    target: f64,
    budget: f64,
) -> Savings {
    let at_b = curve.last().map_or(0, |p| p.crawls);
    let reached = curve.iter().find(|p| p.means.of(metric) >= target);
    Savings {
        metric,
        budget,
        target,
        reaches_at: reached.map(|p| p.resources),
        savings: reached.map(|p| 1.0 - p.crawls as f64 / at_b as f64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formula::Grammar;

    fn periods() -> Vec<Period> {
        let mut params = crate::data::synth::SynthParams::preset("commerce").unwrap();
        params.pages = 600;
        params.days = 25;
        let d = crate::data::synth::generate(&params, 3).unwrap();
        vec![Period::whole(&d).unwrap()]
    }

    /// A sweep's runs share a simulator per worker (its MLE memo and buffers carried from
    /// run to run, across seeds, periods and budgets): each run is still what a new
    /// simulator gives, bit for bit, at any thread count.
    #[test]
    fn runs_through_one_simulator_equal_fresh_ones() {
        let mut periods = periods();
        let mut params = crate::data::synth::SynthParams::preset("brdc12").unwrap();
        params.pages = 500;
        params.days = 20;
        periods.push(Period::whole(&crate::data::synth::generate(&params, 5).unwrap()).unwrap());
        let grammar = Grammar::extended();
        let seeds = [1, 2, 3, 4, 5];
        for text in [
            "w * (1 - exp(-MLE * t)) + HR * X7 / tc",
            "MLE * t",
            "lambda",
        ] {
            let policy = Policy::parse(text, &grammar).unwrap();
            for r in [0.05, 0.2] {
                let config = SimConfig::new(r, 2).unwrap();
                let fresh: Vec<Vec<Outcome>> = seeds
                    .iter()
                    .map(|&s| {
                        let config = config.with_seed(s);
                        (periods.iter())
                            .map(|p| Simulator::new(config).run(p, &policy).unwrap())
                            .collect()
                    })
                    .collect();
                for threads in [1, 2, 8] {
                    let pool = rayon::ThreadPoolBuilder::new()
                        .num_threads(threads)
                        .build()
                        .unwrap();
                    let shared = pool
                        .install(|| outcomes(&periods, config, &policy, &seeds))
                        .unwrap();
                    assert_eq!(shared.len(), fresh.len());
                    for (a, b) in shared.iter().flatten().zip(fresh.iter().flatten()) {
                        assert_eq!(
                            format!("{a:?}"),
                            format!("{b:?}"),
                            "{text} at {r}, {threads} threads"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn run_means_pool_by_cycles() {
        let a = RunMeans {
            seed: 1,
            cycles: 1,
            means: [1.0; 5],
        };
        let b = RunMeans {
            seed: 1,
            cycles: 3,
            means: [3.0; 5],
        };
        assert_eq!(RunMeans::pooled(1, [&a, &b]).means, [2.5; 5]);
        assert_eq!(RunMeans::of_cycles(4, []).means, [0.0; 5]);
    }

    #[test]
    fn run_means_name_their_metrics_in_json() {
        let run = RunMeans {
            seed: 2,
            cycles: 7,
            means: [0.1, 0.2, 0.3, 0.4, 0.5],
        };
        let text = serde_json::to_string(&run).unwrap();
        assert_eq!(
            text,
            r#"{"seed":2,"cycles":7,"means":{"changerate":0.1,"ndcg":0.2,"freshness":0.3,"wfreshness":0.4,"wndcg":0.5}}"#
        );
        assert_eq!(serde_json::from_str::<RunMeans>(&text).unwrap(), run);
        let ordered = r#"{"seed":2,"cycles":7,"means":[0.1,0.2,0.3,0.4,0.5]}"#;
        assert_eq!(serde_json::from_str::<RunMeans>(ordered).unwrap(), run);
        let missing = text.replace(r#","wndcg":0.5"#, "");
        let err = serde_json::from_str::<RunMeans>(&missing).unwrap_err();
        assert!(err.to_string().contains("missing metric `wndcg`"), "{err}");
        let unknown = text.replace("ndcg\":0.2", "ncdg\":0.2");
        let err = serde_json::from_str::<RunMeans>(&unknown).unwrap_err();
        assert!(err.to_string().contains("unknown metric `ncdg`"), "{err}");
    }

    /// A policy against itself saves nothing and reaches its own mean at b; a sampled
    /// uniform crawl against top-k change-rate crawling needs more budget than it has.
    #[test]
    fn savings_on_a_real_curve() {
        let periods = periods();
        let config = SimConfig::new(0.1, 2).unwrap();
        let seeds = run_seeds(None, 0);
        let value = Policy::Scorer(crate::policy::Scorer::Value);
        let mut heard = Vec::new();
        let curve = savings_curve(&periods, config, &value, &seeds, &mut |j, of| {
            heard.push((j, of))
        })
        .unwrap();
        // Every budget of the grid, the ones left out too, in order.
        assert_eq!(
            heard,
            (1..=SAVINGS_STEPS)
                .map(|j| (j, SAVINGS_STEPS))
                .collect::<Vec<_>>()
        );
        // 600 pages: k = floor(600·0.1·j/100) takes the values 1..=60, one point each.
        assert_eq!(curve.len(), 60);
        assert_eq!(
            curve.iter().map(|p| p.crawls).collect::<Vec<_>>(),
            (1..=60).collect::<Vec<_>>()
        );
        assert_eq!(
            curve[0].resources,
            0.1 * 2.0 / 100.0,
            "0.001 leaves k = 0; 0.002 visits 1"
        );
        let at_b = mean(
            &evaluate(&periods, config, &value, &seeds).unwrap(),
            Metric::WFreshness,
        );
        assert_eq!(curve.last().unwrap().means.of(Metric::WFreshness), at_b);
        let own = smallest_reaching(&curve, Metric::WFreshness, at_b, 0.1);
        assert!(own.reaches_at.unwrap() <= 0.1);
        assert!(own.savings.unwrap() >= 0.0);
        // Unreachable: more than any budget gives.
        let never = smallest_reaching(&curve, Metric::WFreshness, 2.0, 0.1);
        assert_eq!((never.reaches_at, never.savings), (None, None));
        // The first grid point at or above a target in between.
        let mid =
            (curve[10].means.of(Metric::WFreshness) + curve[11].means.of(Metric::WFreshness)) / 2.0;
        let s = smallest_reaching(&curve, Metric::WFreshness, mid, 0.1);
        assert!(s.reaches_at.unwrap() <= curve[11].resources);
        // Counted in crawls: reaching it with 12 of 60 visits a cycle saves 80%.
        if s.reaches_at == Some(curve[11].resources) {
            assert!((s.savings.unwrap() - 0.8).abs() < 1e-12);
        }
    }

    #[test]
    fn repeated_runs_differ_by_seed_and_pair_for_wilcoxon() {
        let periods = periods();
        let config = SimConfig::new(0.05, 2)
            .unwrap()
            .with_decision(crate::sim::Decision::Sample)
            .unwrap();
        let seeds = run_seeds(Some(12), 0);
        let g = Grammar::extended();
        let lambda = evaluate(
            &periods,
            config,
            &Policy::parse("lambda", &g).unwrap(),
            &seeds,
        )
        .unwrap();
        let uniform = evaluate(
            &periods,
            config,
            &Policy::parse("uniform", &g).unwrap(),
            &seeds,
        )
        .unwrap();
        assert_eq!(lambda.len(), 12);
        assert!(
            lambda.windows(2).any(|w| w[0].means != w[1].means),
            "seeds draw differently"
        );
        let m = summary(&lambda, Metric::WFreshness);
        assert!(m.low <= m.median && m.median <= m.high);
        assert_eq!(
            wilcoxon_against(&lambda, &lambda, Metric::WFreshness),
            Some(1.0)
        );
        // Twelve paired runs all on one side give the exact p = 2/4096.
        let p = wilcoxon_against(&lambda, &uniform, Metric::WFreshness).unwrap();
        let all_above = lambda
            .iter()
            .zip(&uniform)
            .all(|(a, b)| a.of(Metric::WFreshness) > b.of(Metric::WFreshness));
        if all_above {
            assert_eq!(p, 2.0 / 4096.0);
        }
        assert!(
            p < 0.05,
            "lambda and uniform differ on weighted data: p = {p}"
        );
        // Deterministic: the same seeds give the same runs.
        assert_eq!(
            lambda,
            evaluate(
                &periods,
                config,
                &Policy::parse("lambda", &g).unwrap(),
                &seeds
            )
            .unwrap()
        );
    }
}
