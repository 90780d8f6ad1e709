//! # freshgp-data
//!
//! Change histories for [freshgp](https://crates.io/crates/freshgp): which pages changed in
//! which cycle, with page ids, hosts, weights and attributes.
//!
//! - [`data`]: the `Dataset`, its text format and checksummed binary cache, crawl logs,
//!   unknown cycles, page folds and periods, and synthetic histories from presets.
//! - [`atomic`]: the one way a user's file is written (a temporary file renamed over it).

use freshgp_formula::{hash, place};

pub mod atomic;
pub mod data;
