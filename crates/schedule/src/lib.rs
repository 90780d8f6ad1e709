//! # freshgp-schedule
//!
//! The crate a crawler embeds: [`schedule::Scheduler`] ranks a live crawler's known pages
//! for each cycle exactly as [freshgp](https://crates.io/crates/freshgp)'s simulation
//! would, from a state saved between runs, under a per-host cap. It needs no learning
//! library, plotting, command-line parser or thread pool; the `parallel` feature spreads
//! the large passes over rayon's pool with the same results.

use freshgp_data::{atomic, data};
#[cfg(test)]
use freshgp_formula::hash;
use freshgp_formula::{export, formula};
#[cfg(test)]
use freshgp_policy::model;
use freshgp_policy::{metric, policy};
use freshgp_sim::sim;

pub mod schedule;
