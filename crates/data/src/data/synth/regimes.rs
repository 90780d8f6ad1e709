//! Regimes (the optional `regimes` section): histories in which the best crawl policy
//! changes over time, for bandits that must follow it (docs/src/reference/data.md#regimes).
//!
//! A share `featured` of the pages is *featured* (a shop's front-page offers, a site's
//! headline pages), drawn per page from a stream of its own. Phases of fixed lengths
//! follow each other in the order given, the list starting over when it ends; in each
//! phase the rate of a non-static page becomes `λ·factor + boost`, with the phase's
//! `(factor, boost)` for featured pages or for the others (after bursts and dormancy,
//! before promotions and the weekday factor; a static page stays static). With a
//! `weights` section, a featured page's weight is multiplied by `weight_factor` (and
//! rounded to 4 significant digits again: `weights.rs`, [`super::weights`]): featured pages are the important ones. So a
//! phase in which featured pages change often favours crawling by importance, and one in
//! which they are frozen while the others change favours crawling by change rate.
//!
//! ```
//! use freshgp_data::data::synth::{generate, SynthParams};
//!
//! let mut params = SynthParams::preset("regimes").unwrap();
//! params.pages = 400;
//! params.days = 28;
//! let d = generate(&params, 3).unwrap();
//! assert_eq!((d.pages(), d.cycles()), (400, 28));
//! ```

use super::streams::{host_stream, REGIME_STREAMS};
use rand::Rng;
use serde::{Deserialize, Serialize};

/// The `regimes` section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RegimeParams {
    /// Probability that a page is featured.
    pub(crate) featured: f64,
    /// Multiplier of a featured page's weight (with a `weights` section; > 0).
    pub(crate) weight_factor: f64,
    /// The phases, in order, repeated until the last day.
    pub(crate) phases: Vec<Phase>,
}

/// One phase of a regime cycle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Phase {
    /// Length in days (at least 1).
    pub(crate) days: usize,
    /// The rate change of featured pages.
    pub(crate) featured: RateChange,
    /// The rate change of the other pages.
    pub(crate) others: RateChange,
}

/// `λ ↦ λ·factor + boost` (the boost for non-static pages only).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RateChange {
    /// Rate multiplier.
    pub(crate) factor: f64,
    /// Rate added.
    #[serde(default)]
    pub(crate) boost: f64,
}

impl RateChange {
    /// The rate `lambda` of a page (static or not) under this change.
    pub(crate) fn apply(self, lambda: f64, is_static: bool) -> f64 {
        if is_static {
            lambda * self.factor
        } else {
            lambda * self.factor + self.boost
        }
    }
}

impl RegimeParams {
    /// Why the section is invalid, if it is.
    pub(crate) fn check(&self) -> Result<(), String> {
        if !(0.0..=1.0).contains(&self.featured) {
            return Err("featured must be a probability".into());
        }
        if !(self.weight_factor > 0.0 && self.weight_factor.is_finite()) {
            return Err("weight_factor must be finite and > 0".into());
        }
        if self.phases.is_empty() {
            return Err("needs at least one phase".into());
        }
        for (i, p) in self.phases.iter().enumerate() {
            if p.days == 0 {
                return Err(format!("phases[{i}].days must be at least 1"));
            }
            for (who, c) in [("featured", p.featured), ("others", p.others)] {
                let ok = |x: f64| x >= 0.0 && x.is_finite();
                if !(ok(c.factor) && ok(c.boost)) {
                    return Err(format!(
                        "phases[{i}].{who}: factor and boost must be finite and >= 0"
                    ));
                }
            }
        }
        Ok(())
    }

    /// Which of host `h`'s `size` pages are featured, from its regime stream.
    pub(crate) fn featured_pages(&self, seed: u64, h: usize, size: usize) -> Vec<bool> {
        let mut rng = host_stream(seed, REGIME_STREAMS, h);
        (0..size).map(|_| rng.gen_bool(self.featured)).collect()
    }
}

/// The rate change of each day (index d-1) under the regimes, for featured pages and for
/// the others: the phases repeated in order until the last day. Empty without regimes.
#[derive(Debug, Default)]
pub(crate) struct Calendar {
    featured: Vec<RateChange>,
    others: Vec<RateChange>,
}

impl Calendar {
    /// The calendar of `days` days under `regimes` (empty without, or without a day in
    /// its phases, which a checked section always has).
    pub(crate) fn new(regimes: Option<&RegimeParams>, days: usize) -> Calendar {
        let Some(regimes) = regimes.filter(|r| r.phases.iter().any(|p| p.days > 0)) else {
            return Calendar::default();
        };
        let day_by_day = regimes
            .phases
            .iter()
            .flat_map(|p| std::iter::repeat_n((p.featured, p.others), p.days));
        let (featured, others) = day_by_day.cycle().take(days).unzip();
        Calendar { featured, others }
    }

    /// The days of a page that is featured or not (`None`: no regimes; no days).
    pub(crate) fn of_page(&self, featured: Option<bool>) -> &[RateChange] {
        match featured {
            Some(true) => &self.featured,
            Some(false) => &self.others,
            None => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> RegimeParams {
        let change = |factor, boost| RateChange { factor, boost };
        RegimeParams {
            featured: 0.2,
            weight_factor: 10.0,
            phases: vec![
                Phase {
                    days: 2,
                    featured: change(1.0, 0.5),
                    others: change(0.5, 0.0),
                },
                Phase {
                    days: 3,
                    featured: change(0.0, 0.0),
                    others: change(1.0, 0.1),
                },
            ],
        }
    }

    #[test]
    fn phases_repeat_in_order_to_the_last_day() {
        let calendar = Calendar::new(Some(&params()), 12);
        let (featured, others) = (calendar.of_page(Some(true)), calendar.of_page(Some(false)));
        let boosts: Vec<f64> = featured.iter().map(|c| c.boost).collect();
        assert_eq!(
            boosts,
            [0.5, 0.5, 0.0, 0.0, 0.0, 0.5, 0.5, 0.0, 0.0, 0.0, 0.5, 0.5]
        );
        assert_eq!(others[2].boost, 0.1);
        assert_eq!(others[0].factor, 0.5);
        assert!(Calendar::new(None, 12).of_page(None).is_empty());
    }

    #[test]
    fn a_rate_change_leaves_static_pages_static() {
        let c = RateChange {
            factor: 2.0,
            boost: 0.3,
        };
        assert_eq!(c.apply(0.0, true), 0.0);
        assert_eq!(c.apply(0.1, false), 0.5);
    }

    #[test]
    fn bad_sections_say_which_field() {
        let mut p = params();
        p.phases[1].days = 0;
        assert!(p.check().unwrap_err().contains("phases[1].days"));
        let mut p = params();
        p.phases[0].others.boost = f64::NAN;
        assert!(p.check().unwrap_err().contains("phases[0].others"));
        let mut p = params();
        p.featured = 1.5;
        assert!(p.check().unwrap_err().contains("featured"));
        let mut p = params();
        p.phases.clear();
        assert!(p.check().unwrap_err().contains("at least one phase"));
        let mut p = params();
        p.weight_factor = 0.0;
        assert!(p.check().unwrap_err().contains("weight_factor"));
        assert!(params().check().is_ok());
    }

    #[test]
    fn featured_pages_are_seeded_and_a_share() {
        let p = params();
        let f = p.featured_pages(1, 0, 1000);
        assert_eq!(f, p.featured_pages(1, 0, 1000), "seeded");
        let share = f.iter().filter(|&&x| x).count() as f64 / 1000.0;
        assert!((share - 0.2).abs() < 0.05, "{share}");
    }
}
