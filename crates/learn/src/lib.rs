//! # freshgp-learn
//!
//! Learned change models for [freshgp](https://crates.io/crates/freshgp): [`predict`] trains
//! the stale model, a logistic regression (linfa) and a network (candle) on the observed
//! history and page metadata, and judges them by AUC and by the crawls they save.

use freshgp_data::data;
#[cfg(test)]
use freshgp_formula::formula;
use freshgp_policy::{model, policy, stats};
use freshgp_sim::sim;

pub mod predict;
