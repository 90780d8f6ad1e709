//! Savings against uniform ([`savings`]): each method's γ tuned to the freshness uniform
//! reaches with 20, 40, 60 and 80% of the requests crawled, and the resources it saves.
//!
//! *Uniform* here is [`Crawler::Uniform`], uniform crawling: each request crawled with
//! probability R_u whatever its page. `freshgp requests` calls it the blind crawler and
//! R_u its R_b, apart from the rate policy `uniform` a user may list among the methods.

use super::config::RequestError;
use super::run::{ratio, RequestSim, Target, Tuned, MAX_RUNS};
use super::scorer::{Crawler, RequestScorer};
use crate::stats::{mean_ci, MeanCi};
use p3_maybe_rayon::prelude::*;
use serde::Serialize;

/// Uniform's resource levels at which savings are read (docs/src/reference/requests.md#savings).
pub const LEVELS: [f64; 4] = [0.2, 0.4, 0.6, 0.8];

/// One method's savings at one level of uniform.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Saving {
    /// The method.
    pub method: String,
    /// The γ at which it reaches F*.
    pub gamma: f64,
    /// Its R there (pooled).
    pub resources: f64,
    /// Its F there (pooled).
    pub freshness: f64,
    /// Whether it reaches F* at all (γ = Q crawls every request it can).
    pub reached: bool,
    /// `1 - R / R_u`.
    pub savings: f64,
    /// The per-cycle savings' mean and 95% Student-t half-width.
    pub per_cycle: MeanCiOut,
}

/// [`MeanCi`] for JSON.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MeanCiOut {
    /// Mean.
    pub mean: f64,
    /// 95% half-width.
    pub ci95: f64,
    /// Cycles.
    pub n: usize,
}

impl From<MeanCi> for MeanCiOut {
    fn from(m: MeanCi) -> MeanCiOut {
        MeanCiOut {
            mean: m.mean,
            ci95: m.ci95,
            n: m.n,
        }
    }
}

/// The savings of every method at one resource level of uniform.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Level {
    /// Uniform's resources R_u.
    pub uniform_resources: f64,
    /// What uniform spent at R_u, the savings' denominator: R_u itself, or under
    /// once-per-cycle its measured R (fewer crawls).
    pub uniform_spent: f64,
    /// The freshness F* uniform reaches there.
    pub freshness: f64,
    /// Each method at F*.
    pub methods: Vec<Saving>,
}

/// What [`savings`] tells its progress callback, from any thread: one event per
/// simulation, so that a caller can count them against [`savings_runs`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Progress<'a> {
    /// Uniform's run at `level` ended: its freshness is the target of the methods there.
    Goal {
        /// Uniform's resources R_u.
        level: f64,
    },
    /// One simulation of the bisection of `method` at uniform's `level` ended.
    Bisection {
        /// The method's label.
        method: &'a str,
        /// Uniform's resources R_u.
        level: f64,
    },
    /// `method` is tuned at uniform's `level`, after `runs` simulations (at most
    /// [`MAX_RUNS`]; the ones it did not need are left to count as done).
    Tuned {
        /// The method's label.
        method: &'a str,
        /// Uniform's resources R_u.
        level: f64,
        /// The γ found.
        gamma: f64,
        /// Simulations the bisection ran.
        runs: usize,
    },
}

/// The most simulations [`savings`] runs for `methods` methods at `levels` levels: one of
/// uniform per level, and at most [`MAX_RUNS`] per method and level.
pub fn savings_runs(methods: usize, levels: usize) -> usize {
    levels + methods * levels * MAX_RUNS
}

/// For each of `levels`, uniform's freshness F* at R_u and every policy's γ, R and savings
/// at F* (docs/src/reference/requests.md#savings). Savings use the nominal R_u (under
/// [`RequestConfig::once_per_cycle`](super::RequestConfig::once_per_cycle), the resources
/// uniform actually spent at R_u: fewer, since it skips pages already crawled in the
/// cycle); the interval is that of the per-cycle ratio `1 - R_cycle / R_u` at the pooled
/// γ. `progress` hears each simulation's end.
///
/// # Errors
/// As [`RequestSim::tune`].
pub fn savings(
    sim: &RequestSim,
    methods: &[&dyn RequestScorer],
    levels: &[f64],
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<Vec<Level>, RequestError> {
    if let Some(&bad) = levels.iter().find(|&&r| !(r > 0.0 && r <= 1.0)) {
        return Err(RequestError::Target(bad));
    }
    let goals: Vec<(f64, f64)> = levels
        .par_iter()
        .map(|&level| {
            let t = sim.run(Crawler::Uniform, level)?;
            progress(Progress::Goal { level });
            let spent = if sim.config().once() {
                t.resources()
            } else {
                level
            };
            if spent <= 0.0 {
                return Err(RequestError::NothingSpent(level));
            }
            Ok((t.freshness(), spent))
        })
        .collect::<Result<_, RequestError>>()?;
    let pairs: Vec<(usize, &dyn RequestScorer)> = (0..levels.len())
        .flat_map(|i| methods.iter().map(move |&m| (i, m)))
        .collect();
    let tuned: Vec<Saving> = pairs
        .par_iter()
        .map(|&(i, method)| {
            let crawler = Crawler::Scored(method);
            let (label, level) = (crawler.label(), levels[i]);
            let mut runs = 0;
            let t = sim.tune_with_progress(crawler, Target::Freshness(goals[i].0), &mut || {
                runs += 1;
                progress(Progress::Bisection {
                    method: &label,
                    level,
                });
            })?;
            progress(Progress::Tuned {
                method: &label,
                level,
                gamma: t.gamma,
                runs,
            });
            Ok(saving(label, &t, goals[i].1))
        })
        .collect::<Result<_, RequestError>>()?;
    let mut tuned = tuned.into_iter();
    Ok(levels
        .iter()
        .zip(goals)
        .map(|(&r_u, (goal, spent))| Level {
            uniform_resources: r_u,
            uniform_spent: spent,
            freshness: goal,
            methods: tuned.by_ref().take(methods.len()).collect(),
        })
        .collect())
}

/// A tuned run's savings against uniform at `r_u`.
fn saving(method: String, tuned: &Tuned, r_u: f64) -> Saving {
    let per_cycle: Vec<f64> = tuned
        .tally
        .cycles
        .iter()
        .filter(|c| c.requests > 0)
        .map(|c| 1.0 - ratio(c.crawls, c.requests) / r_u)
        .collect();
    Saving {
        method,
        gamma: tuned.gamma,
        resources: tuned.tally.resources(),
        freshness: tuned.tally.freshness(),
        reached: tuned.reached,
        savings: 1.0 - tuned.tally.resources() / r_u,
        per_cycle: mean_ci(&per_cycle).into(),
    }
}
