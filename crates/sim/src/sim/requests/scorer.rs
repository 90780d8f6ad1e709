//! What scores pages in a request-driven run: a [`RequestScorer`] (every [`Policy`], and
//! learned models per rotation) starts one [`ScoredRun`] per period; a [`Crawler`] is a
//! scorer or uniform.

use super::super::{Period, SimError};
use super::config::{RequestConfig, RequestError};
use crate::policy::{Histories, PageState, Policy, ScoreBuffers, Scorer, Surroundings};

/// What scores the pages of a request-driven run: a [`Policy`], or a learned model
/// (`freshgp_learn::predict::ModelScorer`). It starts one [`ScoredRun`] per period.
pub trait RequestScorer: Sync {
    /// The method's name in tables.
    fn label(&self) -> String;

    /// A run over the `index`-th period of a [`RequestSim`](super::RequestSim), with every
    /// page never visited.
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

    /// Whether the scores are probabilities that the page is stale, used as they are:
    /// a request crawls with probability `min(1, p·γ)`, and a page crawled this cycle is
    /// not crawled again in it (it is fresh: its probability is 0;
    /// docs/src/reference/requests.md#serving-a-request).
    /// Otherwise (the default) scores are ranked into quantiles.
    fn direct(&self) -> bool {
        false
    }
}

/// What decides the crawls of a run.
#[derive(Clone, Copy)]
pub enum Crawler<'a> {
    /// Crawl each request with probability R (the run's level).
    Uniform,
    /// Crawl each request with probability `min(1, (q/Q)·γ)` (the run's level is γ), q the
    /// quantile of its page's score.
    Scored(&'a dyn RequestScorer),
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

impl RequestScorer for Policy {
    fn label(&self) -> String {
        Policy::label(self)
    }

    fn start<'s>(
        &'s self,
        _: usize,
        period: &'s Period,
        config: &RequestConfig,
    ) -> Result<Box<dyn ScoredRun + 's>, RequestError> {
        let Some(scorer) = self.scorer() else {
            return Err(RequestError::Bandit);
        };
        crate::sim::check_policy(period, self)?;
        let pages = period.pages();
        let k = config.sim.k(pages);
        if k == 0 && scorer.needs_population() {
            return Err(SimError::NoVisits {
                pages,
                resources: config.sim.resources(),
            }
            .into());
        }
        Ok(Box::new(PolicyRun {
            policy: self,
            scorer,
            period,
            k,
            state: (0..pages as u32)
                .map(|p| period.fresh_page(self, p))
                .collect(),
            histories: Histories::default(),
            hosts: period.surroundings(self.features().track(), k),
            buffers: ScoreBuffers::default(),
        }))
    }
}

/// A policy's run: its page states, as in the top-k simulation.
struct PolicyRun<'p> {
    policy: &'p Policy,
    /// The policy, which is no bandit, as a scorer.
    scorer: &'p Scorer,
    period: &'p Period,
    k: usize,
    state: Vec<PageState>,
    histories: Histories,
    hosts: Surroundings,
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
            .scorer
            .context(d, self.k, &self.hosts, population, &mut self.buffers);
        self.scorer
            .score_into(&self.state, &context, out, &mut self.buffers);
    }
}
