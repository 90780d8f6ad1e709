//! The generator's parameters as a preset file writes them ([`SynthParams`], RON; unknown
//! fields refused), the built-in presets, and their checks.

use super::metadata::AttributeParams;
use super::regimes::RegimeParams;
use crate::data::DataError;
use serde::{Deserialize, Serialize};

/// The built-in presets: (name, RON text).
pub const PRESETS: &[(&str, &str)] = &[
    ("brdc12", include_str!("../../../presets/brdc12.ron")),
    ("commerce", include_str!("../../../presets/commerce.ron")),
    ("regimes", include_str!("../../../presets/regimes.ron")),
    ("steady", include_str!("../../../presets/steady.ron")),
];

/// All parameters of the generator (see the module docs for the model).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SynthParams {
    /// Pages to generate.
    pub pages: usize,
    /// Cycles (days) to generate.
    pub days: usize,
    /// Weekday of cycle 1 (0 = Monday .. 6 = Sunday).
    pub(crate) start_weekday: usize,
    /// Host sizes and activity.
    pub(crate) hosts: HostParams,
    /// Page change rates.
    pub(crate) rates: RateParams,
    /// Rate multiplier per weekday, Monday first (7 values).
    pub(crate) weekday: Vec<f64>,
    /// Bursts of frequent change.
    pub(crate) bursts: PhaseParams,
    /// Dormant periods without change.
    pub(crate) dormancy: PhaseParams,
    /// Host-wide change events.
    pub(crate) host_events: HostEventParams,
    /// Host-wide promotions (shop sales): none unless given.
    #[serde(default)]
    pub(crate) promotions: Option<PromotionParams>,
    /// Page importance weights (click popularity): none (unweighted) unless given.
    #[serde(default)]
    pub(crate) weights: Option<WeightParams>,
    /// Categorical attributes (docs/src/reference/data.md#attributes) that shift change
    /// rates: none unless given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) metadata: Vec<AttributeParams>,
    /// Phases in which featured pages or the others change more
    /// (docs/src/reference/data.md#regimes): none unless given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) regimes: Option<RegimeParams>,
}

/// Host sizes and activity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct HostParams {
    /// Mean pages per host (before capping and rounding).
    pub(crate) mean_pages: f64,
    /// Log-normal shape of host sizes (larger = heavier tail).
    pub(crate) sigma: f64,
    /// Largest host.
    pub(crate) max_pages: usize,
    /// Log-normal shape of the host activity factor (mean 1; 0 = all hosts alike).
    pub(crate) activity_sigma: f64,
}

/// Page change rates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RateParams {
    /// Fraction of pages that never change on their own.
    pub(crate) static_fraction: f64,
    /// Classes of frequently changing pages, each a fraction of all pages with a daily
    /// change probability uniform in `min..=max`.
    pub(crate) frequent: Vec<FrequentClass>,
    /// Mean of log10 λ (changes per day) of the other pages.
    pub(crate) log10_mean: f64,
    /// Standard deviation of log10 λ.
    pub(crate) log10_sigma: f64,
    /// Cap on λ of the other pages.
    pub(crate) max_rate: f64,
    /// Day-to-day persistence of change: an ordinary (neither static nor frequent),
    /// non-dormant page that changed yesterday changes today with probability `persistence + (1 - persistence) · p`
    /// instead of `p` (edits come in daily runs). 0 (the default) = no persistence.
    #[serde(default)]
    pub(crate) persistence: f64,
}

/// A class of frequently changing pages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FrequentClass {
    /// Fraction of all pages in the class.
    pub(crate) fraction: f64,
    /// Lowest daily change probability.
    pub(crate) min: f64,
    /// Highest daily change probability (< 1).
    pub(crate) max: f64,
}

/// A phase of a page's Markov chain (burst or dormancy).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PhaseParams {
    /// Probability per day that a page in the normal state enters the phase.
    pub(crate) start: f64,
    /// Mean length of the phase in days (>= 1).
    pub(crate) mean_days: f64,
    /// Rate multiplier during the phase (bursts; ignored for dormancy, which is 0).
    #[serde(default = "one")]
    pub(crate) factor: f64,
    /// Rate added during the phase (bursts of non-static pages: λ·factor + boost;
    /// ignored for dormancy).
    #[serde(default)]
    pub(crate) boost: f64,
}

fn one() -> f64 {
    1.0
}

/// Host-wide change events.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct HostEventParams {
    /// Probability per host and day of an event.
    pub(crate) rate: f64,
    /// Probability that a non-static page changes in an event.
    pub(crate) coverage: f64,
    /// Probability that a static page changes in an event.
    pub(crate) static_coverage: f64,
}

/// Host-wide promotions: periods of a few days during which a host's pages (a shop's
/// offers) change far more often.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PromotionParams {
    /// Probability per host and day, outside a promotion, that one starts.
    pub(crate) rate: f64,
    /// Mean length in days (geometric, >= 1).
    pub(crate) mean_days: f64,
    /// Probability that a page takes part in a given promotion.
    pub(crate) coverage: f64,
    /// Rate multiplier of a taking part page during the promotion.
    pub(crate) factor: f64,
    /// Rate added to a taking part page during the promotion.
    pub(crate) boost: f64,
}

/// Page importance weights: heavy-tailed click popularity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct WeightParams {
    /// Log-normal shape of a page's own popularity (larger = heavier tail).
    pub(crate) sigma: f64,
    /// Log-normal shape of the per-host popularity factor (mean 1; 0 = hosts alike).
    pub(crate) host_sigma: f64,
    /// Correlation of a page's log popularity with the normal score of its change rate's
    /// rank among all pages (-1..=1; 0 = independent).
    pub(crate) rate_correlation: f64,
    /// Significant digits each weight is rounded to (1..=17), so that the text prints
    /// short; `None` keeps every weight at full precision, as real click counts and
    /// PageRank scores are (nearly every page then weighs its own).
    #[serde(default = "four_digits")]
    pub(crate) digits: Option<u32>,
}

/// The significant digits page weights may be rounded to (`weights.digits`): 17 keep
/// every double as it is.
pub const WEIGHT_DIGITS: std::ops::RangeInclusive<u32> = 1..=17;

/// The weights' precision when a preset does not give it: 4 significant digits.
fn four_digits() -> Option<u32> {
    Some(4)
}

/// The most cycles a synthetic history may span.
const MAX_DAYS: usize = 1_000_000;
/// The most page-cycles a synthetic history may hold.
const MAX_CELLS: u64 = 1 << 40;

impl SynthParams {
    /// Rounds the page weights to `digits` significant digits (`None`: full precision).
    /// An error when the preset has no `weights` section.
    pub fn set_weight_digits(&mut self, digits: Option<u32>) -> Result<(), DataError> {
        match &mut self.weights {
            Some(w) => {
                w.digits = digits;
                Ok(())
            }
            None => Err(DataError::Invalid {
                what: "weight digits".to_string(),
                reason: "the preset has no `weights` section: its pages are unweighted".to_string(),
            }),
        }
    }

    /// A built-in preset by name (one of `datasets/presets/*.ron`, compiled in).
    pub fn preset(name: &str) -> Result<SynthParams, DataError> {
        let (_, text) =
            PRESETS
                .iter()
                .find(|(n, _)| *n == name)
                .ok_or_else(|| DataError::Invalid {
                    what: format!("preset `{name}`"),
                    reason: format!(
                        "no such built-in preset (known: {})",
                        PRESETS
                            .iter()
                            .map(|(n, _)| *n)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                })?;
        SynthParams::from_ron(text, name)
    }

    /// A built-in preset name, or else a path to a RON preset file.
    pub fn named_or_file(name: &str) -> Result<SynthParams, DataError> {
        if PRESETS.iter().any(|(n, _)| *n == name) {
            return SynthParams::preset(name);
        }
        let text = std::fs::read_to_string(name).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => DataError::Invalid {
                what: format!("preset `{name}`"),
                reason: format!(
                    "neither a built-in preset ({}) nor a preset file",
                    PRESETS
                        .iter()
                        .map(|(n, _)| *n)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            },
            _ => DataError::io(name, &e),
        })?;
        SynthParams::from_ron(&text, name)
    }

    /// Parses RON text; `origin` names it in errors (with line and column).
    pub fn from_ron(text: &str, origin: &str) -> Result<SynthParams, DataError> {
        let p: SynthParams = ron::from_str(text).map_err(|e| {
            let (line, column) = crate::place::ron_place(text, e.position);
            DataError::Malformed {
                file: origin.to_string(),
                line,
                column,
                reason: e.code.to_string(),
            }
        })?;
        p.validate(origin)?;
        Ok(p)
    }

    /// The parameters as RON text.
    pub fn to_ron(&self) -> String {
        ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::default()).unwrap_or_default()
    }

    /// Checks every parameter's range.
    pub fn validate(&self, origin: &str) -> Result<(), DataError> {
        let bad = |field: &str, reason: &str| {
            Err(DataError::Invalid {
                what: format!("{origin}: {field}"),
                reason: reason.to_string(),
            })
        };
        let prob = |x: f64| (0.0..=1.0).contains(&x);
        if self.pages == 0 || self.pages > u32::MAX as usize {
            return bad("pages", "must be between 1 and 2^32 - 1");
        }
        if self.days == 0 || self.days > MAX_DAYS {
            return bad("days", "must be between 1 and 1,000,000");
        }
        if (self.pages as u64).saturating_mul(self.days as u64) > MAX_CELLS {
            return bad(
                "pages × days",
                "must be at most 2^40 (a history of 2^40 page-cycles takes 256 GiB)",
            );
        }
        if self.start_weekday > 6 {
            return bad("start_weekday", "must be 0 (Monday) ..= 6 (Sunday)");
        }
        let h = &self.hosts;
        if !(h.mean_pages >= 1.0 && h.mean_pages.is_finite()) {
            return bad("hosts.mean_pages", "must be a number >= 1");
        }
        if !(0.0..=5.0).contains(&h.sigma) || !(0.0..=5.0).contains(&h.activity_sigma) {
            return bad("hosts.sigma / hosts.activity_sigma", "must be in 0..=5");
        }
        if h.max_pages == 0 {
            return bad("hosts.max_pages", "must be at least 1");
        }
        let r = &self.rates;
        let total: f64 = r.static_fraction + r.frequent.iter().map(|c| c.fraction).sum::<f64>();
        if !prob(r.static_fraction) || r.frequent.iter().any(|c| !prob(c.fraction)) || total > 1.0 {
            return bad(
                "rates.static_fraction / frequent fractions",
                "must be probabilities summing to at most 1",
            );
        }
        if r.frequent
            .iter()
            .any(|c| !(prob(c.min) && c.min <= c.max && c.max < 1.0))
        {
            return bad("rates.frequent", "each class needs 0 <= min <= max < 1");
        }
        if !prob(r.persistence) {
            return bad("rates.persistence", "must be a probability");
        }
        if !(r.log10_mean.is_finite()
            && r.log10_sigma >= 0.0
            && r.log10_sigma.is_finite()
            && r.max_rate > 0.0
            && r.max_rate.is_finite())
        {
            return bad(
                "rates.log10_mean / log10_sigma / max_rate",
                "must be finite, sigma >= 0, max_rate > 0",
            );
        }
        if self.weekday.len() != 7 || self.weekday.iter().any(|w| !(w.is_finite() && *w >= 0.0)) {
            return bad(
                "weekday",
                "needs 7 multipliers (Monday first), finite and >= 0",
            );
        }
        for (name, ph) in [("bursts", &self.bursts), ("dormancy", &self.dormancy)] {
            let ok = prob(ph.start)
                && ph.mean_days >= 1.0
                && ph.mean_days.is_finite()
                && ph.factor >= 0.0
                && ph.factor.is_finite()
                && ph.boost >= 0.0
                && ph.boost.is_finite();
            if !ok {
                return bad(
                    name,
                    "start must be a probability, mean_days >= 1, factor and boost >= 0",
                );
            }
        }
        if self.bursts.start + self.dormancy.start > 1.0 {
            return bad("bursts.start + dormancy.start", "must be at most 1");
        }
        let e = &self.host_events;
        if !prob(e.rate) || !prob(e.coverage) || !prob(e.static_coverage) {
            return bad(
                "host_events",
                "rate, coverage and static_coverage must be probabilities",
            );
        }
        self.validate_optional(origin)
    }

    /// Checks the optional sections (promotions, weights).
    fn validate_optional(&self, origin: &str) -> Result<(), DataError> {
        let bad = |field: &str, reason: &str| {
            Err(DataError::Invalid {
                what: format!("{origin}: {field}"),
                reason: reason.to_string(),
            })
        };
        let prob = |x: f64| (0.0..=1.0).contains(&x);
        let nonneg = |x: f64| x >= 0.0 && x.is_finite();
        if let Some(pr) = &self.promotions {
            if !(prob(pr.rate)
                && prob(pr.coverage)
                && pr.mean_days >= 1.0
                && pr.mean_days.is_finite()
                && nonneg(pr.factor)
                && nonneg(pr.boost))
            {
                return bad(
                    "promotions",
                    "rate and coverage must be probabilities, mean_days >= 1, factor and boost finite and >= 0",
                );
            }
        }
        if let Some(w) = &self.weights {
            if !((0.0..=5.0).contains(&w.sigma)
                && (0.0..=5.0).contains(&w.host_sigma)
                && (-1.0..=1.0).contains(&w.rate_correlation)
                && w.digits.is_none_or(|d| WEIGHT_DIGITS.contains(&d)))
            {
                return bad(
                    "weights",
                    "sigma and host_sigma must be in 0..=5, rate_correlation in -1..=1, digits None or in 1..=17",
                );
            }
        }
        if let Some(r) = &self.regimes {
            if let Err(reason) = r.check() {
                return bad("regimes", &reason);
            }
        }
        for (i, a) in self.metadata.iter().enumerate() {
            if let Err(reason) = a.check() {
                return bad(&format!("metadata[{i}]"), &reason);
            }
            if self.metadata[..i].iter().any(|b| b.name == a.name) {
                return bad(
                    &format!("metadata[{i}]"),
                    &format!("`{}` given twice", a.name),
                );
            }
        }
        Ok(())
    }
}
