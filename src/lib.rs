//! # freshgp
//!
//! freshgp discovers the score functions web crawlers use to decide which known pages to
//! re-download each cycle. It evolves formulas by genetic programming over page statistics
//! and judges each one by simulating a daily top-k crawl over a real change history
//! (Santos et al., *A genetic programming framework to schedule webpage updates*, 2015).
//!
//! The crate is layered, one way, bottom first (each layer uses only the layers before it):
//!
//! 1. [`stats`], the small statistics reports use, and [`metric`], the per-cycle metrics
//!    (ChangeRate, NDCG, Freshness and their weighted forms) that simulations measure,
//!    fitness and bandits read and reports tabulate; [`place`], where in a user's text an
//!    error is.
//! 2. [`formula`]: the formula language: a postfix arena, parser, printer, simplifier.
//! 3. [`eval`]: compiles a formula into a program that scores many pages at once; beside
//!    it [`export`] turns a formula into a self-contained Python, C, Java, Rust or SQL
//!    function.
//! 4. [`data`]: change-history datasets: loading, unknown cycles, folds, synthesis.
//! 5. [`model`]: learned change models as files and scores, below the policies that score
//!    pages with them.
//! 6. [`policy`]: the policy layer ([`policy::Policy`]: formulas, baselines, the
//!    literature's rate policies, adaptive intervals, learned models, bandits), its page
//!    statistics and terminals: what every simulation, scheduler and experiment runs.
//! 7. [`sim`]: the daily top-k crawl simulation and its metrics.
//! 8. [`gp`]: the genetic programming engine, generic over a fitness trait; beside it
//!    [`schedule`] ranks a live crawler's pages for each cycle exactly as the simulation
//!    would, and [`predict`] learns change models from the observed history and page
//!    metadata and judges them by AUC (docs/src/reference/models.md).
//! 9. [`experiment`]: the temporal cross-validation protocol around simulation and GP, and
//!    whole studies from one experiment file.
//! 10. [`report`]: tables and plots of a study, from its output directory.
//!
//! See `ARCHITECTURE.md` for the code map and the invariants each layer keeps.

pub mod atomic;
pub mod data;
pub mod eval;
pub mod experiment;
pub mod export;
pub mod formula;
pub mod gp;
mod hash;
pub mod metric;
pub mod model;
pub mod output;
pub mod place;
pub mod policy;
pub mod predict;
pub mod report;
pub mod schedule;
pub mod sim;
pub mod stats;
