//! The request-driven simulation (docs/src/reference/requests.md; the predictive-crawling
//! paper's section 6): crawls triggered by requests (clicks) instead of a daily top k, and
//! the resources a policy saves against crawling at random.
//!
//! A [`Requests`] stream is drawn once: at each scored cycle every page receives
//! Poisson(r·w) requests (r such that the expected total is the number of pages), served in
//! a seeded random order, each with its own uniform draw u. A run ([`RequestSim::run`])
//! replays the stream: at cycle d every page is scored from the state at the end of d-1 (as
//! in docs/src/reference/simulation.md, rate policies with `k = resources × P`), the scores
//! become quantiles q in 1..=Q, and each request is first counted *fresh* (its page not
//! stale) or not, then crawls its page when `u < min(1, (q/Q)·γ)`. `uniform` crawls when
//! `u < R`. A crawl is a visit: it updates the policy's statistics and makes the page fresh
//! for its later requests. Freshness F = fresh requests / requests, resources R = crawls /
//! requests.
//!
//! γ is found by bisection for a target F or R ([`RequestSim::tune`]), and [`savings`]
//! compares each policy with uniform at the freshness uniform reaches with 20, 40, 60 and
//! 80% of the requests crawled.
//!
//! ```
//! use freshgp_data::data::Dataset;
//! use freshgp_sim::sim::requests::{Crawler, RequestConfig, RequestSim, Requests};
//! use freshgp_sim::sim::Period;
//! use freshgp_policy::policy::Policy;
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
//! Choices the paper leaves open
//! (docs/src/reference/requests.md#tuning-the-crawl-probability): bisection stops after
//! [`MAX_STEPS`] halvings when the tolerance cannot be met (F and R are step functions of
//! γ) and keeps the γ whose F (or R) is closest to the target; a policy that cannot reach
//! the target even at γ = Q reports the freshness it does reach (`reached = false`). Cycles
//! with no request are left out of the per-cycle intervals. A bandit cannot drive the
//! simulation (its rewards are top-k metrics).
//!
//! **Invariant:** every method and every γ replays the same [`Requests`]: arrivals, order
//! and draws; so differences between runs come from the decisions alone.
//!
//! The parts: `config.rs` (settings, errors), `stream.rs` ([`Requests`]), `scorer.rs`
//! ([`RequestScorer`], [`Crawler`]), `run.rs` ([`RequestSim`]) and `savings.rs` ([`savings`]).

mod config;
mod run;
mod savings;
mod scorer;
mod stream;

pub use config::{RequestConfig, RequestError, QUANTILES};
pub use run::{quantiles, CycleCounts, Pages, RequestSim, RequestTally, Target, Tuned};
pub use run::{GAMMA_MIN, MAX_RUNS, MAX_STEPS, TOLERANCE};
pub use savings::{savings, savings_runs, Level, MeanCiOut, Progress, Saving, LEVELS};
pub use scorer::{Crawler, RequestScorer, ScoredRun};
pub use stream::Requests;

#[cfg(test)]
mod tests;
