//! # freshgp-sim
//!
//! The crawl simulation of [freshgp](https://crates.io/crates/freshgp): [`sim::Simulator`]
//! runs a [`freshgp_policy::policy::Policy`] as a daily top-k crawl over a change history
//! and measures every cycle; beside it the per-page reference simulator every fast path is
//! held to bit for bit, sampled decisions, request streams and the savings of a policy
//! over another.

use freshgp_data::data;
use freshgp_formula::{eval, formula, hash};
#[cfg(test)]
use freshgp_policy::model;
use freshgp_policy::{metric, policy, stats};

pub mod sim;
