//! # freshgp
//!
//! freshgp discovers the score functions web crawlers use to decide which known pages to
//! re-download each cycle. It evolves formulas by genetic programming over page statistics
//! and judges each one by simulating a daily top-k crawl over a real change history
//! (Santos et al., *A genetic programming framework to schedule webpage updates*, 2015).
//!
//! The library is a workspace of crates, one per layer, each depending only on those
//! before it; this crate re-exports every module, so `freshgp::sim::Simulator` is
//! `freshgp_sim::sim::Simulator`:
//!
//! 1. `freshgp-formula`: [`formula`], the formula language (a postfix arena, parser,
//!    printer, simplifier); [`eval`], a formula compiled into a program that scores many
//!    pages at once; [`export`], a formula as a self-contained Python, C, Java, Rust or SQL
//!    function; [`place`], where in a user's text an error is.
//! 2. `freshgp-data`: [`data`], change-history datasets (loading, unknown cycles, folds,
//!    synthesis); [`atomic`], the one way a user's file is written.
//! 3. `freshgp-archive`: [`archive`], histories from the files crawlers and web archives
//!    keep (CDX and CDXJ indexes, WARC files, Heritrix crawl logs).
//! 4. `freshgp-policy`: [`stats`], the small statistics reports use; [`metric`], the
//!    per-cycle metrics (ChangeRate, NDCG, Freshness and their weighted forms); [`model`],
//!    learned change models as files and scores; [`policy`], the policy layer
//!    ([`policy::Policy`]: formulas, baselines, the literature's rate policies, adaptive
//!    intervals, learned models, bandits), its page statistics and terminals.
//! 5. `freshgp-sim`: [`sim`], the daily top-k crawl simulation and its metrics.
//! 6. `freshgp-schedule`: [`schedule`], which ranks a live crawler's pages for each cycle
//!    exactly as the simulation would (the crate a crawler embeds).
//! 7. `freshgp-gp`: [`gp`], the genetic programming engine, generic over a fitness trait.
//! 8. `freshgp-learn`: [`predict`], which learns change models from the observed history
//!    and page metadata and judges them by AUC (docs/src/reference/models.md).
//! 9. This crate: [`experiment`], the temporal cross-validation protocol around
//!    simulation and GP, and whole studies from one experiment file; [`report`], tables and
//!    plots of a study; [`output`], what the command prints and Python returns.
//!
//! See `ARCHITECTURE.md` for the code map and the invariants each layer keeps.

pub use freshgp_archive::archive;
pub use freshgp_data::{atomic, data};
pub use freshgp_formula::{eval, export, formula, place};
pub use freshgp_gp::gp;
pub use freshgp_learn::predict;
pub use freshgp_policy::{metric, model, policy, stats};
pub use freshgp_schedule::schedule;
pub use freshgp_sim::sim;

pub mod experiment;
pub mod output;
pub mod report;
