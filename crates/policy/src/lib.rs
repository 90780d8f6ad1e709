//! # freshgp-policy
//!
//! The crawl policies of [freshgp](https://crates.io/crates/freshgp): what decides which
//! known pages a crawler downloads again each cycle. Bottom first (each module uses only
//! those before it):
//!
//! - [`stats`], the small statistics reports use, and [`metric`], the per-cycle metrics
//!   (ChangeRate, NDCG, Freshness and their weighted forms) that simulations measure and
//!   bandits read.
//! - [`model`]: learned change models as files and scores, below the policies that score
//!   pages with them.
//! - [`policy`]: [`policy::Policy`] (formulas, baselines, the literature's rate policies,
//!   adaptive intervals, learned models, bandits), its page statistics and terminals: what
//!   every simulation, scheduler and experiment runs. It knows nothing of the simulators.

use freshgp_data::data;
use freshgp_formula::{eval, formula, hash, place};

pub mod metric;
pub mod model;
pub mod policy;
pub mod stats;
