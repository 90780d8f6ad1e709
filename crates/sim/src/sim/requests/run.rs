//! A request-driven run ([`RequestSim::run`]): the requests replayed, pages scored into
//! quantiles, each request counted fresh or not and crawling its page with probability
//! `min(1, (q/Q)·γ)`; γ tuned by bisection for a target freshness or resource level
//! ([`RequestSim::tune`]).

use super::super::{score_key, Period, SimConfig, SimError};
use super::config::{RequestConfig, RequestError};
use super::scorer::{Crawler, ScoredRun};
use super::stream::Requests;
use crate::data::split::Split;
use crate::data::Dataset;
use serde::Serialize;

/// The lower end of the γ bracket.
pub const GAMMA_MIN: f64 = 1e-4;

/// The bisection tolerance on F or R.
pub const TOLERANCE: f64 = 1e-5;

/// The most halvings of the γ bracket.
pub const MAX_STEPS: usize = 60;
/// The most simulations one tuning runs: the two ends of the bracket and [`MAX_STEPS`]
/// halvings.
pub const MAX_RUNS: usize = MAX_STEPS + 2;

/// One scored cycle's counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct CycleCounts {
    /// Requests served.
    pub requests: u64,
    /// Requests whose page was fresh when served.
    pub fresh: u64,
    /// Crawls.
    pub crawls: u64,
}

/// The counts of a run, per scored cycle (every period's, in order).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RequestTally {
    /// Per scored cycle.
    pub cycles: Vec<CycleCounts>,
}

impl RequestTally {
    fn total(&self) -> CycleCounts {
        self.cycles
            .iter()
            .fold(CycleCounts::default(), |a, c| CycleCounts {
                requests: a.requests + c.requests,
                fresh: a.fresh + c.fresh,
                crawls: a.crawls + c.crawls,
            })
    }

    /// Requests served.
    pub fn requests(&self) -> u64 {
        self.total().requests
    }

    /// Crawls.
    pub fn crawls(&self) -> u64 {
        self.total().crawls
    }

    /// F: fresh requests / requests (pooled; 0 without requests).
    pub fn freshness(&self) -> f64 {
        let t = self.total();
        ratio(t.fresh, t.requests)
    }

    /// R: crawls / requests (pooled; 0 without requests).
    pub fn resources(&self) -> f64 {
        let t = self.total();
        ratio(t.crawls, t.requests)
    }
}

pub(super) fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// What to tune γ for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Target {
    /// A freshness F*.
    Freshness(f64),
    /// A resource level R*.
    Resources(f64),
}

/// A tuned run: its γ, its counts and whether the target was reached.
#[derive(Debug, Clone, PartialEq)]
pub struct Tuned {
    /// γ.
    pub gamma: f64,
    /// The run at γ.
    pub tally: RequestTally,
    /// Whether the target lies within what γ in `[GAMMA_MIN, Q]` reaches.
    pub reached: bool,
}

/// Which pages of a rotation the requests reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Pages {
    /// The test fold's pages (the default; unseen by a model:
    /// docs/src/reference/requests.md#requests).
    Unseen,
    /// The training fold's pages (seen by a model in training).
    Seen,
    /// Cold start: the test fold's pages with no warm-up, so no page has any history.
    Cold,
}

impl Pages {
    /// The pages of `split` this set names.
    pub fn of(self, split: &Split) -> &[u32] {
        match self {
            Pages::Unseen | Pages::Cold => &split.test,
            Pages::Seen => &split.train,
        }
    }

    /// The name of the set (`unseen`, `seen`, `cold`).
    pub fn name(self) -> &'static str {
        match self {
            Pages::Unseen => "unseen",
            Pages::Seen => "seen",
            Pages::Cold => "cold",
        }
    }
}

impl std::str::FromStr for Pages {
    type Err = String;

    fn from_str(s: &str) -> Result<Pages, String> {
        match s {
            "unseen" => Ok(Pages::Unseen),
            "seen" => Ok(Pages::Seen),
            "cold" => Ok(Pages::Cold),
            _ => Err(format!(
                "unknown page set `{s}` (expected unseen, seen or cold)"
            )),
        }
    }
}

/// Runs of the request-driven simulation over one or more periods (the rotations), each
/// with its fixed request stream.
#[derive(Debug, Clone)]
pub struct RequestSim {
    pub(super) runs: Vec<(Period, Requests)>,
    pub(super) config: RequestConfig,
}

impl RequestSim {
    /// The periods with their requests.
    ///
    /// # Errors
    /// No period, a warm-up that leaves no scored cycle, or no request at all.
    pub fn new(
        runs: Vec<(Period, Requests)>,
        config: RequestConfig,
    ) -> Result<RequestSim, RequestError> {
        if runs.is_empty() {
            return Err(RequestError::NoPeriods);
        }
        for (period, _) in &runs {
            let warmup = config.sim.warmup();
            if warmup >= period.len() {
                return Err(SimError::Warmup {
                    warmup,
                    len: period.len(),
                }
                .into());
            }
        }
        if runs.iter().all(|(_, r)| r.is_empty()) {
            return Err(RequestError::NoRequests);
        }
        Ok(RequestSim { runs, config })
    }

    /// The test period of each rotation in `rotations` (docs/src/reference/folds.md#rotations)
    /// over `pages`, with Poisson requests (docs/src/reference/requests.md#requests);
    /// [`Pages::Cold`] runs without warm-up, whatever `config` says.
    ///
    /// # Errors
    /// Data too small to split, a bad rotation, and as [`RequestSim::new`].
    pub fn from_split(
        data: &Dataset,
        rotations: &[usize],
        pages: Pages,
        config: RequestConfig,
    ) -> Result<RequestSim, RequestError> {
        let config = match pages {
            Pages::Cold => RequestConfig {
                sim: SimConfig::new(config.sim.resources(), 0)?.with_seed(config.sim.seed()),
                ..config
            },
            _ => config,
        };
        let runs = rotations
            .iter()
            .map(|&r| {
                let split = Split::new(data.pages(), data.cycles(), r)?;
                let period = Period::new(data, pages.of(&split), split.test_cycles.clone())?;
                let requests = Requests::poisson(&period, &config);
                Ok((period, requests))
            })
            .collect::<Result<_, RequestError>>()?;
        RequestSim::new(runs, config)
    }

    /// Requests served over every period.
    pub fn requests(&self) -> usize {
        self.runs.iter().map(|(_, r)| r.len()).sum()
    }

    /// The settings.
    pub fn config(&self) -> &RequestConfig {
        &self.config
    }

    /// One run of `crawler` at `level` (γ, or R for uniform) over every period.
    ///
    /// # Errors
    /// A bandit, or a policy whose rates need more than one visit per cycle's worth of
    /// resources the periods lack.
    pub fn run(&self, crawler: Crawler<'_>, level: f64) -> Result<RequestTally, RequestError> {
        let mut tally = RequestTally::default();
        for (index, (period, requests)) in self.runs.iter().enumerate() {
            let mut scored = match crawler {
                Crawler::Scored(s) => Some(s.start(index, period, &self.config)?),
                Crawler::Uniform => None,
            };
            run_period(
                period,
                requests,
                &self.config,
                (&mut scored, level),
                &mut tally,
            );
        }
        Ok(tally)
    }

    /// The γ (or, for uniform, the probability) at which `crawler` reaches `target`, by
    /// bisection on ln γ over `[GAMMA_MIN, Q]` (uniform: on R over `[0, 1]`).
    ///
    /// # Errors
    /// As [`RequestSim::run`], and a target outside (0, 1].
    pub fn tune(&self, crawler: Crawler<'_>, target: Target) -> Result<Tuned, RequestError> {
        self.tune_with_progress(crawler, target, &mut || {})
    }

    /// As [`RequestSim::tune`], calling `ran` after each simulation it runs (at most
    /// [`MAX_RUNS`]).
    ///
    /// # Errors
    /// As [`RequestSim::tune`].
    pub fn tune_with_progress(
        &self,
        crawler: Crawler<'_>,
        target: Target,
        ran: &mut dyn FnMut(),
    ) -> Result<Tuned, RequestError> {
        let (Target::Freshness(goal) | Target::Resources(goal)) = target;
        if !(goal > 0.0 && goal <= 1.0) {
            return Err(RequestError::Target(goal));
        }
        let measure = |t: &RequestTally| match target {
            Target::Freshness(_) => t.freshness(),
            Target::Resources(_) => t.resources(),
        };
        let (to_level, lo, hi): (fn(f64) -> f64, f64, f64) = match crawler {
            Crawler::Uniform => (|x| x, 0.0, 1.0),
            Crawler::Scored(_) => (
                f64::exp,
                GAMMA_MIN.ln(),
                f64::from(self.config.quantiles).ln(),
            ),
        };
        let mut at = |x: f64| -> Result<(f64, RequestTally), RequestError> {
            let t = self.run(crawler, to_level(x))?;
            ran();
            Ok((measure(&t), t))
        };
        let (low, low_tally) = at(lo)?;
        if goal <= low {
            // Even the fewest crawls reach it.
            return Ok(Tuned {
                gamma: to_level(lo),
                tally: low_tally,
                reached: true,
            });
        }
        let (high, high_tally) = at(hi)?;
        if goal >= high {
            let reached = goal - high <= TOLERANCE;
            return Ok(Tuned {
                gamma: to_level(hi),
                tally: high_tally,
                reached,
            });
        }
        let mut best = (high - goal, hi, high_tally);
        let (mut lo, mut hi) = (lo, hi);
        for _ in 0..MAX_STEPS {
            let mid = 0.5 * (lo + hi);
            let (value, tally) = at(mid)?;
            let miss = (value - goal).abs();
            if miss < best.0 {
                best = (miss, mid, tally);
            }
            if miss <= TOLERANCE {
                break;
            }
            if value < goal {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Ok(Tuned {
            gamma: to_level(best.1),
            tally: best.2,
            reached: true,
        })
    }
}

/// Replays `requests` over `period`, crawling by `scored`'s quantiles at γ = `level` (or
/// uniformly with probability `level` without a scorer), appending each scored cycle's
/// counts to `tally`.
fn run_period(
    period: &Period,
    requests: &Requests,
    config: &RequestConfig,
    (scored, level): (&mut Option<Box<dyn ScoredRun + '_>>, f64),
    tally: &mut RequestTally,
) {
    let pages = period.pages();
    let mut stale = vec![false; pages];
    let mut scores = vec![0.0; pages];
    let mut quantile = vec![0u32; pages];
    // The cycle each page was last crawled at by a request (0: none).
    let mut crawled = vec![0u32; pages];
    let mut order: Vec<u32> = Vec::with_capacity(pages);
    let q_max = f64::from(config.quantiles);
    let visit = |scored: &mut Option<Box<dyn ScoredRun + '_>>, stale: &mut [bool], p: u32, d| {
        if let Some(s) = scored {
            s.visit(p, d, stale[p as usize]);
        }
        stale[p as usize] = false;
    };
    for d in 1..=period.len() {
        for &p in period.changes(d) {
            stale[p as usize] = true;
        }
        let cycle = d as u32;
        if d <= requests.warmup {
            for p in 0..pages as u32 {
                visit(scored, &mut stale, p, cycle);
            }
            continue;
        }
        let direct = scored.as_ref().is_some_and(|s| s.direct());
        if let Some(s) = scored {
            s.score(cycle, &mut scores);
            if !direct {
                quantiles(&scores, config.quantiles, &mut order, &mut quantile);
            }
        }
        let mut counts = CycleCounts::default();
        for (p, u) in requests.at(d) {
            counts.requests += 1;
            counts.fresh += u64::from(!stale[p as usize]);
            let once = (config.once || direct) && crawled[p as usize] == cycle;
            let probability = match scored {
                _ if once => 0.0,
                Some(_) if direct => (scores[p as usize] * level).min(1.0),
                Some(_) => (f64::from(quantile[p as usize]) / q_max * level).min(1.0),
                None => level,
            };
            if u < probability {
                counts.crawls += 1;
                crawled[p as usize] = cycle;
                visit(scored, &mut stale, p, cycle);
            }
        }
        tally.cycles.push(counts);
    }
}

/// Each page's score quantile q in `1..=Q` into `out`
/// (docs/src/reference/requests.md#serving-a-request): with r the page's rank among all
/// pages from the lowest score (1), tied scores sharing their mean rank, `q = ceil(Q·r/P)`,
/// computed exactly in integers. `order` is scratch.
pub fn quantiles(scores: &[f64], q: u32, order: &mut Vec<u32>, out: &mut [u32]) {
    let pages = scores.len();
    order.clear();
    order.extend(0..pages as u32);
    order.sort_unstable_by_key(|&p| score_key(scores[p as usize]));
    let (q, two_p) = (u64::from(q), 2 * pages as u64);
    let mut i = 0;
    while i < pages {
        let key = score_key(scores[order[i] as usize]);
        let mut j = i;
        while j + 1 < pages && score_key(scores[order[j + 1] as usize]) == key {
            j += 1;
        }
        // Ranks i+1 ..= j+1 share the mean (i + j + 2) / 2: q = ceil(Q·(i+j+2) / 2P).
        let sum = (i + j + 2) as u64;
        let quantile = (q * sum).div_ceil(two_p) as u32;
        for &p in &order[i..=j] {
            out[p as usize] = quantile;
        }
        i = j + 1;
    }
}
