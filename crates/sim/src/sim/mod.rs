//! The daily top-k crawl simulation (docs/src/reference/simulation.md) — the fitness of
//! every formula.
//!
//! A [`Period`] is a set of pages over a run of cycles; a
//! [`Policy`](crate::policy::Policy) is a formula, a baseline or any policy of the policy
//! layer; a [`SimConfig`] holds the checked settings (resources, warm-up, seed, how ties
//! are broken). [`Simulator::run`] returns the [`Outcome`]: ChangeRate, NDCG and
//! Freshness of every scored cycle.
//!
//! ```
//! use freshgp_data::data::Dataset;
//! use freshgp_formula::formula::{Closure, Formula};
//! use freshgp_policy::policy::{Baseline, Policy};
//! use freshgp_sim::sim::{Period, SimConfig, Simulator};
//! use freshgp_policy::metric::Metric;
//!
//! let data = Dataset::from_bit_strings(&["0101010101", "0000000001", "1111111111", "0000000000"])?;
//! let period = Period::whole(&data)?;
//! let config = SimConfig::new(0.5, 2)?; // visit 2 of the 4 pages a cycle, after 2 warm-up cycles
//! let mut sim = Simulator::new(config);
//! let nad = sim.run(&period, &Policy::from(Baseline::Nad))?;
//! assert_eq!(nad.cycles.len(), 8);
//! let formula: Formula = "X / n * t".parse()?;
//! let evolved = sim.run(&period, &Policy::formula(&formula, Closure::Paper))?;
//! assert!(evolved.mean(Metric::ChangeRate) > 0.5);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Two simulators implement the same semantics: the fast one groups pages of equal
//! statistics (see `fast.rs`), the reference one is docs/src/reference/simulation.md read
//! literally (see `naive.rs`) and serves as the tests' oracle and for
//! [`TieBreak::Reference`].
//!
//! **Invariant:** the simulation knows nothing of GP; given (period, policy, config) its
//! outcome is deterministic.
//!
//! The parts, each using only those before it: `metrics.rs` (how a cycle's metrics are
//! counted), `bandit.rs` (a bandit in a run), `period.rs`, `rank.rs` (score and tie
//! keys), `sample.rs` (sampled decisions), `config.rs`, `tally.rs`, `shared.rs` and
//! `flat.rs` (the per-page simulator), `fast/` (the grouped simulator), `stdsort.rs` and
//! `naive.rs` (the reference simulator), `simulator.rs` ([`Simulator`], [`Prepared`]);
//! `requests.rs`, the request-driven simulation, beside them.

mod bandit;
mod config;
mod fast;
mod flat;
mod metrics;
mod naive;
mod period;
mod rank;
pub mod requests;
mod sample;
mod shared;
mod simulator;
mod stdsort;
mod tally;

pub use bandit::{arm_shares, ArmChoice};
pub use config::{check_policy, SimConfig, SimError, TieBreak, DEFAULT_RESOURCES, DEFAULT_WARMUP};
pub use metrics::Outcome;
pub use period::{Period, PeriodError};
pub use rank::{score_key, tie_key, tie_salt};
pub use sample::{inclusion_probabilities, Decision};
pub use sample::{inclusion_scale, sample_u, settle, weight_of, Systematic};
pub use simulator::{Prepared, Simulator};

#[cfg(test)]
mod bandit_tests;
#[cfg(test)]
mod importance_tests;
#[cfg(test)]
mod literature_tests;
#[cfg(test)]
mod model_tests;
#[cfg(test)]
mod sample_tests;
#[cfg(test)]
mod tests;
