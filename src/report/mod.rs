//! Reports of a study, regenerated from its output directory alone (`study.json` and the
//! unit files; the dataset is not needed: every number a report shows is stored in a unit).
//!
//! `analyse` gathers the units into [`Analysis`]: one *method* per configuration ×
//! selection strategy (e.g. `GP4C_All-NDCG/sum_sigma`) plus one per baseline. Per rotation
//! and configuration, a strategy's reported function is the winner across seeds (the
//! highest strategy score on training and validation, earlier seed on ties; the test set
//! never decides). [`write()`] then writes into the directory:
//!
//! * `summary.md`: mean ± 95% CI of every metric
//!   ([`Metric::ALL`](crate::metric::Metric::ALL)) of every method over all test cycles
//!   (paper Table 2); per-cycle victories, ties and losses against each
//!   baseline by the paired t-test over the rotations, on each of [`COMPARED`] (Table 3);
//!   the chosen formula per rotation and configuration (Table 4); the top-of-schedule
//!   table on each of [`RANKED`] (Fig. 5 in numbers);
//! * `results.json`: the same figures, machine-readable;
//! * `cycles.csv` and `generations.csv`: every per-cycle value and every generation's
//!   fitness (if the study's `reports.csv`);
//! * `plots/*.svg` (if `reports.plots`): see [`plots`];
//! * `report.html`: all of the above in one self-contained page (the settings, every
//!   table of `summary.md`, every plot inline), readable offline; see `html.rs`.
//!
//! The weighted metrics (WFreshness, WNDCG; docs/src/reference/metrics.md#wndcg) are always
//! shown: without page weights they equal Freshness and NDCG, and `summary.md` says which
//! is the case.
//!
//! **Determinism:** every output is a function of the stored units only (timings are left
//! out), so a resumed or merged run yields byte-identical reports.
//!
//! The parts: `analysis.rs` (what a report holds), `budgets.rs` (budgets and savings),
//! `analyse.rs` (the directory read into an [`Analysis`]), `summary.rs` and `plots.rs`
//! (the Markdown and the SVG plots), `doc.rs` (the summary as a document, written as
//! Markdown and as HTML), `html.rs` (`report.html`), `files.rs` ([`write()`] and the CSV
//! files).

mod analyse;
mod analysis;
pub mod budgets;
mod doc;
mod files;
pub mod headroom;
mod html;
pub mod plots;
mod rivals;
mod summary;

pub use analysis::{Analysis, ArmComparison, AtResources, Chosen, Comparison};
pub use analysis::{GenerationCurve, Kind, Method, ReportError, COMPARED, RANKED};
pub use files::write;
