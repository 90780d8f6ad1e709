//! How well staleness is predicted at a crawl's own visits
//! (docs/src/reference/models.md#calibration): the table `freshgp model eval` prints after
//! the AUC table, for the stale model and the probabilities it competes with.
//!
//! Per rotation, the crawl of the partial observability (`nad` at resources 0.2 by
//! default) visits every page; the test period's visits of the training fold's pages
//! (*seen*) and of the test fold's (*unseen*) are the examples, each labelled by whether
//! the visit found the page changed ([`StaleExamples`]). The methods:
//!
//! - `hazard`: the stale model learned on the rotation ([`train_stale`](super::train_stale) with the same
//!   crawl);
//! - `poisson`: its prior alone, `1 − e^(−rate·t)` (the page's shrunk rate, no regression);
//! - `combined·stale`: the change model `combined` (learned under full observability),
//!   compounded over the cycles since the previous visit, `1 − (1 − p)^t`, its features
//!   from the crawl's visits.
//!
//! Every rotation's examples are pooled: a cell is the AUC and the [`Calibration`] of the
//! pooled scores.

use super::eval::{learn, Learned};
use super::features::{group_rates, value};
use super::stale::{train_stale_on, StaleExamples, StaleOptions};
use super::{Calibration, Observations, PredictError};
use crate::data::split::Split;
use crate::data::Dataset;
use crate::model::{Feature, Model};
use crate::policy::Policy;
use crate::sim::SimConfig;
use rayon::prelude::*;
use std::fmt;

/// Bins of the reliability tables.
pub const BINS: usize = 10;

/// One method's predictions on one page set.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct StaleCell {
    /// AUC of the pooled examples (`None` with one class only).
    pub auc: Option<f64>,
    /// Brier score and reliability table.
    pub calibration: Calibration,
}

/// One method's row.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct StaleRow {
    /// `hazard`, `poisson` or `combined·stale`.
    pub method: String,
    /// The training fold's pages.
    pub seen: StaleCell,
    /// The test fold's pages.
    pub unseen: StaleCell,
}

/// The staleness table.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct StaleTable {
    /// The crawl whose visits are the examples, as text.
    pub crawl: String,
    /// Pooled examples (visits): seen, unseen.
    pub examples: (usize, usize),
    /// The rows, in the order of the module documentation.
    pub rows: Vec<StaleRow>,
}

/// Scores and labels of one rotation, per method, for seen then unseen pages.
type Pooled = Vec<[(Vec<f64>, Vec<bool>); 2]>;

/// The methods' names.
const METHODS: [&str; 3] = ["hazard", "poisson", "combined·stale"];

/// The staleness table over the first `rotations` rotations of `data`, at the visits of
/// `crawl`.
///
/// # Errors
/// As [`train_stale_on`] and learning `combined`.
pub fn stale_table(
    data: &Dataset,
    rotations: usize,
    crawl: &(Policy, SimConfig),
) -> Result<StaleTable, PredictError> {
    let obs = Observations::crawl(data, &crawl.0, crawl.1)?;
    let full = Observations::full(data);
    let per: Vec<Pooled> = (0..rotations)
        .into_par_iter()
        .map(|r| rotation(data, &obs, &full, r, crawl))
        .collect::<Result<_, _>>()?;
    let mut rows = Vec::new();
    let mut examples = (0, 0);
    for (m, name) in METHODS.iter().enumerate() {
        let cell = |set: usize| {
            let scores: Vec<f64> = per.iter().flat_map(|r| r[m][set].0.clone()).collect();
            let labels: Vec<bool> = per.iter().flat_map(|r| r[m][set].1.clone()).collect();
            let auc = crate::stats::auc(&scores, &labels)?;
            Ok::<_, PredictError>((
                StaleCell {
                    auc,
                    calibration: Calibration::of(&scores, &labels, BINS),
                },
                labels.len(),
            ))
        };
        let (seen, n_seen) = cell(0)?;
        let (unseen, n_unseen) = cell(1)?;
        examples = (n_seen, n_unseen);
        rows.push(StaleRow {
            method: name.to_string(),
            seen,
            unseen,
        });
    }
    Ok(StaleTable {
        crawl: format!("{} at resources {}", crawl.0, crawl.1.resources()),
        examples,
        rows,
    })
}

/// One rotation's scores and labels per method.
fn rotation(
    data: &Dataset,
    obs: &Observations,
    full: &Observations,
    r: usize,
    crawl: &(Policy, SimConfig),
) -> Result<Pooled, PredictError> {
    let split = Split::new(data.pages(), data.cycles(), r)?;
    let options = StaleOptions {
        rotation: r,
        crawl: crawl.clone(),
        ..StaleOptions::default()
    };
    let hazard = train_stale_on(data, obs, &split, &options)?.model;
    let Model::Hazard(h) = &hazard else {
        // Invariant: `train_stale_on` returns a stale model.
        unreachable!("invariant: the stale model is a hazard")
    };
    let combined = learn(data, &Learned::Combined, r, 1)?;
    let features = combined.features();
    let groups = group_rates(data, full, &features, &split.train)?;
    let rate = h
        .features
        .features()
        .iter()
        .position(|f| *f == Feature::Rate);
    let mut out: Pooled = (0..METHODS.len()).map(|_| Default::default()).collect();
    for (set, pages) in [&split.train, &split.test].into_iter().enumerate() {
        let x = StaleExamples::build(
            data,
            obs,
            &h.features,
            &h.prior,
            pages,
            split.test_cycles.clone(),
        );
        let labels = x.labels().to_vec();
        let poisson: Vec<f64> = (0..x.len())
            .map(|i| {
                let t = f64::from(x.visits()[i].2);
                // Without `rate` among its features the global rate stands for it.
                let r = rate.map_or(h.prior.rate, |j| x.row(i)[j]);
                -(-r * t).exp_m1()
            })
            .collect();
        let mut row = Vec::with_capacity(features.len());
        let compounded: Vec<f64> = x
            .visits()
            .iter()
            .map(|&(p, d, t)| {
                row.clear();
                for (f, g) in features.features().iter().zip(&groups) {
                    row.push(value(
                        f,
                        g.as_ref(),
                        obs,
                        p as usize,
                        p as usize,
                        d as usize,
                    ));
                }
                let q = combined.score(&row);
                -((-q).ln_1p() * f64::from(t)).exp_m1()
            })
            .collect();
        out[0][set] = (x.scores(&hazard), labels.clone());
        out[1][set] = (poisson, labels.clone());
        out[2][set] = (compounded, labels);
    }
    Ok(out)
}

impl fmt::Display for StaleTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "\nstaleness at the crawl's visits (test period; {}; {} seen, {} unseen visits):",
            self.crawl, self.examples.0, self.examples.1
        )?;
        writeln!(
            f,
            "{:<16} {:>8} {:>8} {:>8} {:>7}   {:>8} {:>8} {:>8} {:>7}",
            "method", "seen AUC", "Brier", "base", "ECE", "unseen", "Brier", "base", "ECE"
        )?;
        for r in &self.rows {
            write!(f, "{:<16}", r.method)?;
            for c in [&r.seen, &r.unseen] {
                let auc = c.auc.map_or("-".to_string(), |a| format!("{a:.3}"));
                let k = &c.calibration;
                write!(
                    f,
                    " {auc:>8} {:>8.4} {:>8.4} {:>7.4}  ",
                    k.brier, k.base, k.ece
                )?;
            }
            writeln!(f)?;
        }
        for r in &self.rows {
            writeln!(
                f,
                "\nreliability of {} (unseen; predicted → observed, visits):",
                r.method
            )?;
            for b in r.unseen.calibration.bins.iter().filter(|b| b.count > 0) {
                writeln!(
                    f,
                    "  {:.1}–{:.1}  {:.3} → {:.3}  {:>8}",
                    b.lo, b.hi, b.predicted, b.observed, b.count
                )?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On commerce offers the stale model predicts better than the base rate and than
    /// its prior alone, and its probabilities are within a few points of what happens.
    #[test]
    fn the_stale_model_is_calibrated_on_offers() {
        let mut p = crate::data::synth::SynthParams::preset("commerce").unwrap();
        p.pages = 2000;
        p.days = 40;
        let d = crate::data::synth::generate(&p, 4).unwrap();
        let crawl = StaleOptions::default().crawl;
        let t = stale_table(&d, 1, &crawl).unwrap();
        let row = |m: &str| t.rows.iter().find(|r| r.method == m).unwrap().clone();
        let (h, p) = (row("hazard"), row("poisson"));
        for (cell, prior) in [(&h.seen, &p.seen), (&h.unseen, &p.unseen)] {
            assert!(cell.calibration.brier < cell.calibration.base, "{t}");
            assert!(cell.calibration.brier < prior.calibration.brier, "{t}");
            assert!(cell.calibration.ece < 0.1, "{t}");
        }
        assert!(t.examples.0 > 0 && t.examples.1 > 0);
        let text = t.to_string();
        assert!(text.contains("reliability of hazard"), "{text}");
    }
}
