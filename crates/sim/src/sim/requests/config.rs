//! The request-driven simulation's settings ([`RequestConfig`]: the quantiles Q and the
//! top-k settings rate policies solve with) and why it cannot run ([`RequestError`]).

use super::super::{PeriodError, SimConfig, SimError};

/// The default number of score quantiles Q.
pub const QUANTILES: u32 = 100;

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
    /// Uniform crawled nothing at a level: no savings can be read against it.
    #[error("the blind crawler crawled nothing at R_b = {0} (every request's page was already crawled in its cycle, or none came): choose a larger level")]
    NothingSpent(f64),
    /// A target outside (0, 1].
    #[error("a target freshness or resource level must be in (0, 1], got {0}")]
    Target(f64),
    /// The settings of the simulation.
    #[error(transparent)]
    Sim(#[from] SimError),
    /// Data that cannot be split into folds (docs/src/reference/folds.md).
    #[error(transparent)]
    Split(#[from] crate::data::split::SplitError),
    /// Pages that cannot be simulated.
    #[error(transparent)]
    Period(#[from] PeriodError),
}

/// Checked settings: the quantiles Q, and the top-k settings rate policies solve their
/// rates with (resources, warm-up, seed).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RequestConfig {
    pub(super) quantiles: u32,
    pub(super) sim: SimConfig,
    pub(super) once: bool,
}

impl Default for RequestConfig {
    /// Q = 100, resources 0.05, warm-up 2, seed 1.
    fn default() -> RequestConfig {
        RequestConfig {
            quantiles: QUANTILES,
            sim: SimConfig::paper().with_seed(1),
            once: false,
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
        Ok(RequestConfig {
            quantiles,
            sim,
            once: false,
        })
    }

    /// The same, crawling a page at most once per cycle when `once`: a request for a page
    /// already crawled this cycle does not crawl it again (the seed's protocol, the
    /// default, lets every request draw).
    pub fn once_per_cycle(mut self, once: bool) -> RequestConfig {
        self.once = once;
        self
    }

    /// Whether a page is crawled at most once per cycle.
    pub fn once(&self) -> bool {
        self.once
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
