//! What `freshgp … --json` prints and what the Python module returns: one `Serialize` type
//! per answer, built here from the library's results, so that the command and Python give
//! one schema and neither restates it.
//!
//! - [`SimulateRun`] and [`SimulateSweep`]: `freshgp simulate --json` (one run; several
//!   budgets or runs), Python's `simulate`.
//! - [`Baselines`] and [`BaselineSweep`]: `freshgp baselines --json` (one run at one budget;
//!   several budgets, runs or savings), Python's `baselines`.
//! - [`Evolved`]: `freshgp evolve --json`, Python's `evolve`.
//! - [`ModelEval`]: the file `freshgp model eval --json FILE` writes, Python's
//!   `Model.eval`.
//!
//! Each type's fields are the union of what the two front ends wrote before they shared
//! one: nothing either gave is lost.
//!
//! **Invariant:** [`pretty`] and [`compact`] write every object's keys in sorted order
//! (through [`serde_json::Value`]), so the bytes depend on the values alone, not on the
//! order of a type's fields.

mod baselines;
mod evolve;
mod model;
mod simulate;

pub use baselines::{
    BaselineEntry, BaselineLevel, BaselineSweep, Baselines, Captured, SavingsRow, SweepCell,
    SweepEntry,
};
pub use evolve::{Evolved, Winner};
pub use model::ModelEval;
pub use simulate::{BanditDraws, SimulateRun, SimulateSweep, Spread, SweepLevel};

use serde::Serialize;

/// `value` as indented JSON with sorted keys: what the command prints.
///
/// # Errors
/// Serialization errors (a map with keys that are not strings).
pub fn pretty(value: &impl Serialize) -> Result<String, serde_json::Error> {
    serde_json::to_string_pretty(&serde_json::to_value(value)?)
}

/// `value` as one line of JSON with sorted keys: what the Python module parses.
///
/// # Errors
/// Serialization errors (a map with keys that are not strings).
pub fn compact(value: &impl Serialize) -> Result<String, serde_json::Error> {
    serde_json::to_string(&serde_json::to_value(value)?)
}

#[cfg(test)]
mod tests;
