//! # freshgp-gp
//!
//! The genetic programming engine of [freshgp](https://crates.io/crates/freshgp):
//! [`gp::evolve`] breeds formulas of [`freshgp_formula`] against any fitness, which it
//! knows only through the [`gp::Fitness`] trait. It knows nothing of crawling.

#[cfg(test)]
use freshgp_formula::eval;
use freshgp_formula::{formula, hash, place};

pub mod gp;
