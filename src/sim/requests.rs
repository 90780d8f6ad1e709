//! The request-driven simulation of SPEC §12 (the seed's section 6): crawls triggered by
//! requests (clicks) instead of a daily top k, and the resources a policy saves against
//! crawling at random.
//!
//! A [`Requests`] stream is drawn once: at each scored cycle every page receives
//! Poisson(r·w) requests (r such that the expected total is the number of pages), served in
//! a seeded random order, each with its own uniform draw u. A run ([`RequestSim::run`])
//! replays the stream: at cycle d every page is scored from the state at the end of d-1
//! (SPEC §3, rate policies with `k = resources × P`), the scores become quantiles q in
//! 1..=Q, and each request is first counted *fresh* (its page not stale) or not, then
//! crawls its page when `u < min(1, (q/Q)·γ)`. `uniform` crawls when `u < R`. A crawl is a
//! visit (SPEC §3): it updates the policy's statistics and makes the page fresh for its
//! later requests. Freshness F = fresh requests / requests, resources R = crawls /
//! requests.
//!
//! γ is found by bisection for a target F or R ([`RequestSim::tune`]), and [`savings`]
//! compares each policy with uniform at the freshness uniform reaches with 20, 40, 60 and
//! 80% of the requests crawled.
//!
//! ```
//! use freshgp::data::Dataset;
//! use freshgp::sim::requests::{Crawler, RequestConfig, RequestSim, Requests};
//! use freshgp::sim::{Period, Policy};
//!
//! let d = Dataset::from_bit_strings(&["0101010101", "0000000001", "0011001100"]).unwrap();
//! let period = Period::whole(&d).unwrap();
//! let config = RequestConfig::default();
//! let requests = Requests::poisson(&period, &config);
//! let sim = RequestSim::new(vec![(period, requests)], config).unwrap();
//! let all = sim.run(Crawler::Uniform, 1.0).unwrap();
//! assert_eq!(all.resources(), 1.0); // every request crawled
//! let nad = Policy::by_name("nad").unwrap();
//! let some = sim.run(Crawler::Scored(&nad), 0.5).unwrap();
//! assert!(some.crawls() <= all.crawls());
//! ```
//!
//! Choices where SPEC §12 is silent: bisection stops after [`MAX_STEPS`] halvings when the
//! tolerance cannot be met (F and R are step functions of γ) and keeps the γ whose F (or R)
//! is closest to the target; a policy that cannot reach the target even at γ = Q reports
//! the freshness it does reach (`reached = false`). Cycles with no request are left out
//! of the per-cycle intervals. A bandit cannot drive the simulation (its rewards are
//! top-k metrics).
//!
//! **Invariant:** every method and every γ replays the same [`Requests`]: arrivals, order
//! and draws; so differences between runs come from the decisions alone.

use super::{
    score_key, Histories, HostRates, PageState, Period, Policy, ScoreBuffers, SimConfig, SimError,
};
use crate::data::split::Split;
use crate::data::Dataset;
use crate::hash::mix64;
use crate::stats::{mean_ci, MeanCi};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_distr_poisson::poisson;
use rand_pcg::Pcg64;
use rayon::prelude::*;
use serde::Serialize;

/// The default number of score quantiles Q.
pub const QUANTILES: u32 = 100;
/// The lower end of the γ bracket.
pub const GAMMA_MIN: f64 = 1e-4;
/// The bisection tolerance on F or R.
pub const TOLERANCE: f64 = 1e-5;
/// The most halvings of the γ bracket.
pub const MAX_STEPS: usize = 60;
/// The most simulations one tuning runs: the two ends of the bracket and [`MAX_STEPS`]
/// halvings.
pub const MAX_RUNS: usize = MAX_STEPS + 2;
/// Uniform's resource levels at which savings are read (SPEC §12).
pub const LEVELS: [f64; 4] = [0.2, 0.4, 0.6, 0.8];

/// Why the request-driven simulation cannot run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RequestError {
    /// Q = 0.
    #[error("the number of quantiles Q must be at least 1")]
    Quantiles,
    /// A bandit as the crawler.
    #[error("a bandit cannot drive the request-driven simulation (it learns from top-k rewards); give one of its arms")]
    Bandit,
    /// No request at all (every weight 0, or an empty log).
    #[error("no request reaches any page: every weight is 0 or the request log is empty")]
    NoRequests,
    /// A scorer that cannot score a period.
    #[error("{0}")]
    Scorer(String),
    /// No run to simulate.
    #[error("nothing to simulate: no period")]
    NoPeriods,
    /// A target outside (0, 1].
    #[error("a target freshness or resource level must be in (0, 1], got {0}")]
    Target(f64),
    /// The settings of the simulation.
    #[error(transparent)]
    Sim(#[from] SimError),
    /// Data that cannot be split (SPEC §2).
    #[error(transparent)]
    Split(#[from] crate::data::split::SplitError),
    /// Pages that cannot be simulated.
    #[error(transparent)]
    Period(#[from] super::PeriodError),
}

/// Poisson sampling through `statrs` (a maintained statistics crate already used here).
mod rand_distr_poisson {
    use rand::Rng;
    use statrs::distribution::Poisson;

    /// One Poisson(`mean`) draw (0 for a mean of 0).
    pub fn poisson(mean: f64, rng: &mut impl Rng) -> u32 {
        match Poisson::new(mean) {
            Ok(p) => rng.sample::<f64, _>(p) as u32,
            Err(_) => 0,
        }
    }
}

/// Checked settings: the quantiles Q, and the top-k settings rate policies solve their
/// rates with (resources, warm-up, seed).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RequestConfig {
    quantiles: u32,
    sim: SimConfig,
}

impl Default for RequestConfig {
    /// Q = 100, resources 0.05, warm-up 2, seed 1.
    fn default() -> RequestConfig {
        RequestConfig {
            quantiles: QUANTILES,
            sim: SimConfig::paper().with_seed(1),
        }
    }
}

impl RequestConfig {
    /// Q quantiles, with rate policies solving for `sim`'s `k` and `sim`'s warm-up and seed.
    ///
    /// # Errors
    /// Q = 0.
    pub fn new(quantiles: u32, sim: SimConfig) -> Result<RequestConfig, RequestError> {
        if quantiles == 0 {
            return Err(RequestError::Quantiles);
        }
        Ok(RequestConfig { quantiles, sim })
    }

    /// Q.
    pub fn quantiles(&self) -> u32 {
        self.quantiles
    }

    /// The warm-up cycles, the seed and the resources of rate policies.
    pub fn sim(&self) -> &SimConfig {
        &self.sim
    }
}

/// The requests of every scored cycle of one period, in serving order, each with its
/// uniform draw.
#[derive(Debug, Clone, PartialEq)]
pub struct Requests {
    /// Requests of scored cycle `warmup + 1 + i` are `pages[offsets[i]..offsets[i + 1]]`.
    offsets: Vec<usize>,
    pages: Vec<u32>,
    draws: Vec<f64>,
    warmup: usize,
}

impl Requests {
    /// Poisson(r·w_p) requests for page p at each scored cycle of `period` (`w_p` = 1
    /// without weights), `r = P / Σ w`, from the seed of `config`.
    pub fn poisson(period: &Period, config: &RequestConfig) -> Requests {
        let pages = period.pages();
        let total = period.total_weight();
        let r = if total > 0.0 {
            pages as f64 / total
        } else {
            0.0
        };
        let seed = config.sim.seed();
        let warmup = config.sim.warmup().min(period.len());
        let cycles = (warmup + 1..=period.len()).map(|d| {
            let mut rng = stream(seed, d as u32, 0);
            let mut list = Vec::with_capacity(pages);
            for p in 0..pages as u32 {
                let n = poisson(r * period.weight(p), &mut rng);
                list.extend(std::iter::repeat_n(p, n as usize));
            }
            list
        });
        Requests::from_cycles(cycles, warmup, seed)
    }

    /// The requests `cycles` (one list of pages per scored cycle, after `warmup` cycles, in
    /// arrival order), shuffled into a seeded serving order, each given its draw.
    pub fn from_cycles(
        cycles: impl IntoIterator<Item = Vec<u32>>,
        warmup: usize,
        seed: u64,
    ) -> Requests {
        let mut out = Requests {
            offsets: vec![0],
            pages: Vec::new(),
            draws: Vec::new(),
            warmup,
        };
        for (i, mut list) in cycles.into_iter().enumerate() {
            let mut rng = stream(seed, (warmup + 1 + i) as u32, 1);
            list.shuffle(&mut rng);
            out.draws.extend(list.iter().map(|_| rng.gen::<f64>()));
            out.pages.extend_from_slice(&list);
            out.offsets.push(out.pages.len());
        }
        out
    }

    /// Requests given with their serving order and draws: one list of (page, draw) per
    /// scored cycle after `warmup` cycles (for hand-worked cases).
    pub fn served(cycles: Vec<Vec<(u32, f64)>>, warmup: usize) -> Requests {
        let mut out = Requests {
            offsets: vec![0],
            pages: Vec::new(),
            draws: Vec::new(),
            warmup,
        };
        for list in cycles {
            out.pages.extend(list.iter().map(|r| r.0));
            out.draws.extend(list.iter().map(|r| r.1));
            out.offsets.push(out.pages.len());
        }
        out
    }

    /// Number of requests.
    pub fn len(&self) -> usize {
        self.pages.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.pages.is_empty()
    }

    /// The requests of scored cycle `d` (of the period) as (page, draw), in serving order.
    pub fn at(&self, d: usize) -> impl Iterator<Item = (u32, f64)> + '_ {
        let i = d
            .checked_sub(self.warmup + 1)
            .filter(|&i| i + 1 < self.offsets.len());
        let range = i.map_or(0..0, |i| self.offsets[i]..self.offsets[i + 1]);
        self.pages[range.clone()]
            .iter()
            .copied()
            .zip(self.draws[range].iter().copied())
    }
}

/// The PCG stream of (seed, cycle, purpose).
fn stream(seed: u64, cycle: u32, purpose: u64) -> Pcg64 {
    const SALT: u64 = 0x2C1B_3C6D_5E8F_A0B1;
    let state = mix64(mix64(seed ^ SALT) ^ u64::from(cycle).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    Pcg64::seed_from_u64(mix64(state ^ purpose))
}

/// What scores the pages of a request-driven run: a [`Policy`], or a learned model
/// (`freshgp::predict::ModelScorer`). It starts one [`ScoredRun`] per period.
pub trait Scorer: Sync {
    /// The method's name in tables.
    fn label(&self) -> String;

    /// A run over the `index`-th period of a [`RequestSim`], with every page never
    /// visited.
    ///
    /// # Errors
    /// A scorer that cannot run on the period (a bandit; a rate policy without a visit
    /// per cycle to spend).
    fn start<'s>(
        &'s self,
        index: usize,
        period: &'s Period,
        config: &RequestConfig,
    ) -> Result<Box<dyn ScoredRun + 's>, RequestError>;
}

/// One run's knowledge of its pages.
pub trait ScoredRun {
    /// Records a visit to page `p` at cycle `d` (of the period) that found it changed or
    /// not.
    fn visit(&mut self, p: u32, d: u32, changed: bool);

    /// Every page's score at cycle `d`, from what was visited up to `d - 1`, into `out`.
    fn score(&mut self, d: u32, out: &mut [f64]);
}

/// What decides the crawls of a run.
#[derive(Clone, Copy)]
pub enum Crawler<'a> {
    /// Crawl each request with probability R (the run's level).
    Uniform,
    /// Crawl each request with probability `min(1, (q/Q)·γ)` (the run's level is γ), q the
    /// quantile of its page's score.
    Scored(&'a dyn Scorer),
}

impl Crawler<'_> {
    /// The method's name in tables.
    pub fn label(&self) -> String {
        match self {
            Crawler::Uniform => "uniform".into(),
            Crawler::Scored(s) => s.label(),
        }
    }
}

impl Scorer for Policy {
    fn label(&self) -> String {
        Policy::label(self)
    }

    fn start<'s>(
        &'s self,
        _: usize,
        period: &'s Period,
        config: &RequestConfig,
    ) -> Result<Box<dyn ScoredRun + 's>, RequestError> {
        if self.bandit().is_some() {
            return Err(RequestError::Bandit);
        }
        self.check_grouping(period.grouping())
            .map_err(SimError::from)?;
        let pages = period.pages();
        let k = config.sim.k(pages);
        if k == 0 && matches!(self, Policy::Rate(_)) {
            return Err(SimError::NoVisits {
                pages,
                resources: config.sim.resources(),
            }
            .into());
        }
        Ok(Box::new(PolicyRun {
            policy: self,
            period,
            k,
            state: (0..pages as u32)
                .map(|p| self.fresh_page_of(period.weight(p), period.host(p), period.group(p)))
                .collect(),
            histories: Histories::default(),
            hosts: period.rates(self.features().track()),
            buffers: ScoreBuffers::default(),
        }))
    }
}

/// A policy's run: its page states, as in the top-k simulation.
struct PolicyRun<'p> {
    policy: &'p Policy,
    period: &'p Period,
    k: usize,
    state: Vec<PageState>,
    histories: Histories,
    hosts: HostRates,
    buffers: ScoreBuffers,
}

impl ScoredRun for PolicyRun<'_> {
    fn visit(&mut self, p: u32, d: u32, changed: bool) {
        let state = &mut self.state[p as usize];
        self.policy.visit(state, d, changed, &mut self.histories);
        self.hosts
            .record(self.period.host(p), self.period.group(p), changed);
    }

    fn score(&mut self, d: u32, out: &mut [f64]) {
        let population = self.state.iter().map(|s| (s, 1));
        let context = self
            .policy
            .context(d, self.k, &self.hosts, population, &mut self.buffers);
        self.policy
            .score_into(&self.state, &context, out, &mut self.buffers);
    }
}

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

fn ratio(a: u64, b: u64) -> f64 {
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
    /// The test fold's pages (SPEC §12: the default; unseen by a model).
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
    runs: Vec<(Period, Requests)>,
    config: RequestConfig,
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

    /// The test period of each rotation in `rotations` (SPEC §2) over `pages`, with Poisson
    /// requests (SPEC §12); [`Pages::Cold`] runs without warm-up, whatever `config` says.
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
        if let Some(s) = scored {
            s.score(cycle, &mut scores);
            quantiles(&scores, config.quantiles, &mut order, &mut quantile);
        }
        let mut counts = CycleCounts::default();
        for (p, u) in requests.at(d) {
            counts.requests += 1;
            counts.fresh += u64::from(!stale[p as usize]);
            let probability = match scored {
                Some(_) => (f64::from(quantile[p as usize]) / q_max * level).min(1.0),
                None => level,
            };
            if u < probability {
                counts.crawls += 1;
                visit(scored, &mut stale, p, cycle);
            }
        }
        tally.cycles.push(counts);
    }
}

/// Each page's score quantile q in `1..=Q` into `out` (SPEC §12): with r the page's rank
/// among all pages from the lowest score (1), tied scores sharing their mean rank,
/// `q = ceil(Q·r/P)`, computed exactly in integers. `order` is scratch.
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
/// at F* (SPEC §12). Savings use the nominal R_u; the interval is that of the per-cycle
/// ratio `1 - R_cycle / R_u` at the pooled γ. `progress` hears each simulation's end.
///
/// # Errors
/// As [`RequestSim::tune`].
pub fn savings(
    sim: &RequestSim,
    methods: &[&dyn Scorer],
    levels: &[f64],
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<Vec<Level>, RequestError> {
    if let Some(&bad) = levels.iter().find(|&&r| !(r > 0.0 && r <= 1.0)) {
        return Err(RequestError::Target(bad));
    }
    let goals: Vec<f64> = levels
        .par_iter()
        .map(|&level| {
            let freshness = sim.run(Crawler::Uniform, level)?.freshness();
            progress(Progress::Goal { level });
            Ok(freshness)
        })
        .collect::<Result<_, RequestError>>()?;
    let pairs: Vec<(usize, &dyn Scorer)> = (0..levels.len())
        .flat_map(|i| methods.iter().map(move |&m| (i, m)))
        .collect();
    let tuned: Vec<Saving> = pairs
        .par_iter()
        .map(|&(i, method)| {
            let crawler = Crawler::Scored(method);
            let (label, level) = (crawler.label(), levels[i]);
            let mut runs = 0;
            let t = sim.tune_with_progress(crawler, Target::Freshness(goals[i]), &mut || {
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
            Ok(saving(label, &t, level))
        })
        .collect::<Result<_, RequestError>>()?;
    let mut tuned = tuned.into_iter();
    Ok(levels
        .iter()
        .zip(goals)
        .map(|(&r_u, goal)| Level {
            uniform_resources: r_u,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Dataset;

    fn config(warmup: usize) -> RequestConfig {
        // Invariant: valid settings.
        let sim = SimConfig::new(0.34, warmup).expect("invariant: valid");
        RequestConfig::new(QUANTILES, sim).expect("invariant: Q > 0")
    }

    #[test]
    fn quantiles_share_the_mean_rank_of_ties() {
        let (mut order, mut out) = (Vec::new(), vec![0; 4]);
        quantiles(&[3.0, 1.0, 1.0, 2.0], 100, &mut order, &mut out);
        assert_eq!(out, [100, 38, 38, 75]); // ranks 4, 1.5, 1.5, 3 of 4
        quantiles(&[3.0, 1.0, 1.0, 2.0], 3, &mut order, &mut out);
        assert_eq!(out, [3, 2, 2, 3]);
        quantiles(&[5.0; 4], 100, &mut order, &mut out);
        assert_eq!(out, [63; 4]); // mean rank 2.5 of 4: ceil(62.5)
    }

    /// Pages 0 (changes every cycle), 1 (at 3) and 2 (never); warm-up cycle 1; the
    /// formula X; requests with their draws as in the comments.
    fn hand_worked() -> RequestSim {
        let d = Dataset::from_bit_strings(&["111", "001", "000"]).unwrap();
        let period = Period::whole(&d).unwrap();
        let requests = Requests::served(
            vec![
                vec![(0, 0.9), (0, 0.1), (1, 0.6), (2, 0.4)],
                vec![(1, 0.2), (1, 0.3), (0, 0.99), (2, 0.7)],
            ],
            1,
        );
        RequestSim::new(vec![(period, requests)], config(1)).unwrap()
    }

    #[test]
    fn hand_worked_three_cycles() {
        let sim = hand_worked();
        let x = Policy::parse("X", &crate::formula::Grammar::all()).unwrap();
        // Cycle 2: X is 1, 0, 0 → quantiles 100, 50, 50 → probabilities 1, ½, ½ at γ = 1.
        // (0, .9) stale, crawled; (0, .1) fresh, crawled; (1, .6) fresh; (2, .4) fresh,
        // crawled. Cycle 3 (pages 0 and 1 change): X is 2, 0, 0, the same quantiles.
        // (1, .2) stale, crawled; (1, .3) fresh, crawled; (0, .99) stale, crawled; (2, .7)
        // fresh.
        let t = sim.run(Crawler::Scored(&x), 1.0).unwrap();
        let c = |requests, fresh, crawls| CycleCounts {
            requests,
            fresh,
            crawls,
        };
        assert_eq!(t.cycles, [c(4, 3, 3), c(4, 2, 3)]);
        assert_eq!((t.freshness(), t.resources()), (5.0 / 8.0, 6.0 / 8.0));
        // At γ = 0.5 the probabilities are ½, ¼, ¼. Cycle 2: (0, .9) stale; (0, .1) stale,
        // crawled; (1, .6), (2, .4) fresh. Cycle 3: (1, .2) stale, crawled; (1, .3) fresh;
        // (0, .99) stale; (2, .7) fresh.
        let t = sim.run(Crawler::Scored(&x), 0.5).unwrap();
        assert_eq!(t.cycles, [c(4, 2, 1), c(4, 2, 1)]);
        // Uniform at R = ½ on the same stream. Cycle 2: (0, .9) stale; (0, .1) stale,
        // crawled; (1, .6) fresh; (2, .4) fresh, crawled. Cycle 3: (1, .2) stale, crawled;
        // (1, .3) fresh, crawled; (0, .99) stale; (2, .7) fresh.
        let u = sim.run(Crawler::Uniform, 0.5).unwrap();
        assert_eq!(u.cycles, [c(4, 2, 2), c(4, 2, 2)]);
    }

    #[test]
    fn bad_settings_are_refused() {
        let sim = hand_worked();
        let kab = Policy::by_name("kab5").unwrap();
        assert_eq!(
            sim.run(Crawler::Scored(&kab), 1.0),
            Err(RequestError::Bandit)
        );
        assert_eq!(
            RequestConfig::new(0, SimConfig::paper()),
            Err(RequestError::Quantiles)
        );
        assert_eq!(
            sim.tune(Crawler::Uniform, Target::Freshness(1.5)),
            Err(RequestError::Target(1.5))
        );
        let d = Dataset::from_bit_strings(&["111"]).unwrap();
        let p = Period::whole(&d).unwrap();
        let none = Requests::served(vec![vec![], vec![]], 1);
        assert_eq!(
            RequestSim::new(vec![(p.clone(), none)], config(1)).err(),
            Some(RequestError::NoRequests)
        );
        let r = Requests::served(vec![], 3);
        assert!(matches!(
            RequestSim::new(vec![(p, r)], config(3)).err(),
            Some(RequestError::Sim(SimError::Warmup { .. }))
        ));
    }

    /// 400 pages: half never change, half change every fourth cycle (staggered).
    fn predictable() -> RequestSim {
        let rows: Vec<String> = (0..400)
            .map(|p| {
                (1..=20)
                    .map(|d| {
                        if p % 2 == 0 && (d + p / 2) % 4 == 0 {
                            '1'
                        } else {
                            '0'
                        }
                    })
                    .collect()
            })
            .collect();
        let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
        let d = Dataset::from_bit_strings(&rows).unwrap();
        let period = Period::whole(&d).unwrap();
        let config = RequestConfig::default();
        let requests = Requests::poisson(&period, &config);
        RequestSim::new(vec![(period, requests)], config).unwrap()
    }

    #[test]
    fn poisson_requests_average_one_per_page_and_cycle() {
        let sim = predictable();
        let n = sim.runs[0].1.len() as f64 / (400.0 * 18.0);
        assert!((n - 1.0).abs() < 0.03, "{n}");
        // The same seed gives the same stream.
        let again = Requests::poisson(&sim.runs[0].0, &RequestConfig::default());
        assert_eq!(again, sim.runs[0].1);
    }

    #[test]
    fn bisection_reaches_the_target_and_a_good_policy_saves() {
        let sim = predictable();
        let u = sim.tune(Crawler::Uniform, Target::Resources(0.4)).unwrap();
        assert!(
            (u.tally.resources() - 0.4).abs() < 0.01,
            "{}",
            u.tally.resources()
        );
        let nad = Policy::by_name("nad").unwrap();
        let levels = savings(&sim, &[&nad], &[0.4], &|_| {}).unwrap();
        let goal = levels[0].freshness;
        let s = &levels[0].methods[0];
        assert!(s.reached);
        let resolution = 1.0 / sim.runs[0].1.len() as f64;
        assert!(
            (s.freshness - goal).abs() <= resolution.max(TOLERANCE) * 4.0,
            "{s:?}"
        );
        // Crawling pages that change rather than at random saves crawls.
        assert!(s.savings > 0.2, "{s:?}");
        let m = s.per_cycle;
        assert!(
            m.mean - m.ci95 < s.savings && s.savings < m.mean + m.ci95,
            "{s:?}"
        );
    }

    #[test]
    fn savings_reports_every_simulation() {
        let sim = predictable();
        let (nad, age) = (
            Policy::by_name("nad").unwrap(),
            Policy::by_name("age").unwrap(),
        );
        let events = std::sync::Mutex::new(Vec::new());
        let levels = [0.2, 0.6];
        let out = savings(&sim, &[&nad, &age], &levels, &|e| {
            let e = match e {
                Progress::Goal { level } => ("uniform".to_string(), level, None),
                Progress::Bisection { method, level } => (method.to_string(), level, None),
                Progress::Tuned {
                    method,
                    level,
                    gamma,
                    runs,
                } => (method.to_string(), level, Some((gamma, runs))),
            };
            events.lock().unwrap().push(e)
        })
        .unwrap();
        let events = events.into_inner().unwrap();
        let goals = events.iter().filter(|e| e.0 == "uniform").count();
        assert_eq!(goals, levels.len());
        let mut simulations = goals;
        for (i, &level) in levels.iter().enumerate() {
            for (j, label) in ["NAD", "Age"].iter().enumerate() {
                let mine = |e: &&(String, f64, Option<(f64, usize)>)| e.0 == *label && e.1 == level;
                let ran = events.iter().filter(mine).filter(|e| e.2.is_none()).count();
                let tuned: Vec<_> = events.iter().filter(mine).filter_map(|e| e.2).collect();
                // One `Tuned` per method and level, after the runs it counts.
                assert_eq!(tuned.len(), 1, "{label} at {level}: {events:?}");
                let (gamma, runs) = tuned[0];
                assert_eq!(gamma, out[i].methods[j].gamma);
                assert!(
                    runs == ran && (1..=MAX_RUNS).contains(&runs),
                    "{runs} {ran}"
                );
                simulations += ran;
            }
        }
        assert!(simulations <= savings_runs(2, levels.len()));
        assert_eq!(events.len(), simulations + 2 * levels.len());
    }
}
