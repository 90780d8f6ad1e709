//! A realistic synthetic change-history generator, driven by a RON preset.
//!
//! The model (every number is a field of [`SynthParams`]; the built-in presets in
//! `datasets/presets/` document each one: `brdc12`, web pages calibrated to the GP4C paper's
//! baselines, and `commerce`, shops' product offers with promotions):
//!
//! 1. **Hosts** with heavy-tailed sizes: log-normal page counts (mean `hosts.mean_pages`,
//!    shape `hosts.sigma`, capped at `hosts.max_pages`), drawn until the page budget is
//!    spent; each host's pages are contiguous in the output. Each host has an *activity*
//!    factor (log-normal, mean 1, shape `hosts.activity_sigma`) multiplying its pages' rates.
//! 2. **Page rates** λ (expected changes per day), heterogeneous: a fraction
//!    `rates.static_fraction` never changes on its own; classes `rates.frequent` change
//!    often (each a fraction of pages with a daily change probability uniform in
//!    `min..=max`); the rest have log10 λ normal with mean
//!    `rates.log10_mean` and s.d. `rates.log10_sigma` (λ capped at `rates.max_rate`).
//! 3. **Weekday seasonality**: λ is multiplied by `weekday[w]`, w = weekday of the cycle
//!    (`(start_weekday + d - 1) mod 7`, 0 = Monday).
//! 4. **Bursts and dormant periods**: each page runs a 3-state Markov chain (normal, burst,
//!    dormant) day by day; a burst turns λ into `λ · bursts.factor + bursts.boost` (static
//!    pages stay static), a dormant page does not change. Entry probabilities per day and mean lengths are parameters; the chain starts
//!    in its stationary distribution.
//! 5. **Host-wide changes** (template or site-wide edits): on each day a host has such an
//!    event with probability `host_events.rate`; each of its changing pages then changes
//!    with probability `host_events.coverage`, each static page with
//!    `host_events.static_coverage`.
//!
//! 6. **Persistence of change** (edits come in daily runs): an ordinary page (neither
//!    static nor in a `frequent` class) that changed yesterday and is not dormant changes
//!    today with probability `rates.persistence + (1 - rates.persistence) · p` instead of
//!    `p`. Frequent classes stand for automated, memoryless updates and are not affected.
//!
//! 7. **Promotions** (optional section `promotions`, e.g. shop sales): outside a promotion,
//!    a host starts one on a day with probability `promotions.rate`; it lasts
//!    `promotions.mean_days` on average (geometric); each page takes part in a given
//!    promotion with probability `promotions.coverage`, and while it does its λ (after
//!    bursts and dormancy) becomes `λ · promotions.factor + promotions.boost`.
//!
//! A page changes on day d with probability `p = 1 - exp(-λ_eff)` (λ_eff = λ · weekday, with
//! λ as modified by a burst, 0 when dormant, then by a promotion; λ of ordinary pages
//! includes the host activity; raised by persistence as above), or by a host event.
//!
//! 8. **Weights** (optional section `weights`, SPEC §8 page importance as click
//!    popularity): page p of host h weighs `H_h · exp(σ·z_p - σ²/2)`, rounded to 4
//!    significant digits, with `H_h` log-normal (mean 1, shape `weights.host_sigma`) and
//!    `z_p = ρ·s_p + sqrt(1 - ρ²)·ε_p`: `s_p` is the normal score `Φ⁻¹((r + ½)/P)` of the
//!    rank r of p's λ among all pages (ties share their mean rank), ε_p standard normal,
//!    σ = `weights.sigma`, ρ = `weights.rate_correlation`. Heavy-tailed, mean about 1.
//!    Without the section the history has no weights (every page weighs 1).
//!
//! 9. **Metadata** (optional section `metadata`, SPEC §12 categorical attributes such as a
//!    product's category or a shop's country): each attribute's values have Zipf
//!    popularity and a rate multiplier (mean 1) that scales λ of the non-static pages
//!    holding them; see `src/data/synth/metadata.rs` for the model. Without the section the pages carry
//!    no attributes and the bits are as before.
//!
//! The optional sections default to none, so older preset files load unchanged.
//!
//! **Determinism:** host sizes come from one generator seeded by `seed`; each host then
//! draws its change bits from its own PCG stream (`seed`, host index), hosts are generated
//! in parallel by rayon and concatenated in order, so the output depends only on
//! (parameters, seed), not on the number of threads. Promotions and weights draw from
//! streams of their own, keyed by (`seed`, host index, a constant per purpose), never from
//! the bits' stream: adding, removing or tuning `weights` leaves every change bit as it
//! was, and a preset without `promotions` (brdc12) draws its bits exactly as before
//! promotions existed (a promotion does change later draws of its host's bits stream).
//!
//! ```
//! use freshgp::data::synth::{generate, SynthParams};
//!
//! let mut params = SynthParams::preset("brdc12").unwrap();
//! params.pages = 500;
//! params.days = 21;
//! let a = generate(&params, 7).unwrap();
//! assert_eq!((a.pages(), a.cycles()), (500, 21));
//! assert_eq!(a, generate(&params, 7).unwrap());
//! assert!(a.weight(0) != a.weight(1)); // brdc12 has a weights section
//! ```

mod metadata;

use super::{DataError, Dataset};
use metadata::{AttributeParams, Metadata};
use rand::{Rng, SeedableRng};
use rand_distr_lite::{lognormal, standard_normal};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// The built-in presets: (name, RON text).
pub(crate) const PRESETS: &[(&str, &str)] = &[
    ("brdc12", include_str!("../../datasets/presets/brdc12.ron")),
    (
        "commerce",
        include_str!("../../datasets/presets/commerce.ron"),
    ),
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
    /// Categorical attributes (SPEC §12) that shift change rates: none unless given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) metadata: Vec<AttributeParams>,
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
}

impl SynthParams {
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
    pub(crate) fn from_ron(text: &str, origin: &str) -> Result<SynthParams, DataError> {
        let p: SynthParams = ron::from_str(text).map_err(|e| DataError::Malformed {
            file: origin.to_string(),
            line: e.position.line,
            column: e.position.col,
            reason: e.code.to_string(),
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
        if self.days == 0 {
            return bad("days", "must be at least 1");
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
                && (-1.0..=1.0).contains(&w.rate_correlation))
            {
                return bad(
                    "weights",
                    "sigma and host_sigma must be in 0..=5, rate_correlation in -1..=1",
                );
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

/// Host sizes for `params.pages` pages, from the master generator.
pub(crate) fn host_sizes(params: &SynthParams, seed: u64) -> Vec<usize> {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let h = &params.hosts;
    let mu = h.mean_pages.ln() - h.sigma * h.sigma / 2.0;
    let mut sizes = Vec::new();
    let mut left = params.pages;
    while left > 0 {
        let x = lognormal(&mut rng, mu, h.sigma).round();
        let s = (x.clamp(1.0, h.max_pages as f64) as usize).min(left);
        sizes.push(s);
        left -= s;
    }
    sizes
}

/// Generates a history from `params` and `seed`, with ids `http://hN.example/K` and hosts
/// `hN.example`, and page weights when `params` has a `weights` section.
pub fn generate(params: &SynthParams, seed: u64) -> Result<Dataset, DataError> {
    params.validate("parameters")?;
    let sizes = host_sizes(params, seed);
    let words = params.days.div_ceil(64);
    let metadata = Metadata::new(&params.metadata, seed);
    let hosts: Vec<(HostOutput, _)> = sizes
        .par_iter()
        .enumerate()
        .map(|(h, &size)| {
            let meta = metadata.host(h, size);
            (host_rows(params, seed, h, &meta.factors, words), meta)
        })
        .collect();
    let mut bits = Vec::with_capacity(params.pages * words);
    let mut rates = Vec::with_capacity(params.pages);
    let mut metas = Vec::with_capacity(hosts.len());
    for (host, meta) in hosts {
        bits.extend_from_slice(&host.rows);
        rates.extend_from_slice(&host.rates);
        metas.push(meta);
    }
    let unknown = vec![0; bits.len()];
    let mut d = Dataset::from_parts(params.pages, params.days, bits, unknown);
    let mut text = String::with_capacity(params.pages * 24);
    let mut ends = Vec::with_capacity(params.pages);
    let mut hosts = Vec::with_capacity(params.pages);
    for (h, &size) in sizes.iter().enumerate() {
        for k in 0..size {
            use std::fmt::Write;
            let _ = write!(text, "http://h{h}.example/{k}");
            ends.push(text.len());
            hosts.push(h as u32);
        }
    }
    d.set_id_arena(text, ends);
    d.set_hosts(
        hosts,
        (0..sizes.len()).map(|h| format!("h{h}.example")).collect(),
    );
    if let Some(w) = &params.weights {
        d.set_weights(page_weights(w, seed, &sizes, &rates));
    }
    if !params.metadata.is_empty() {
        d.set_attributes(metadata.attributes(&mut metas, params.pages));
    }
    Ok(d)
}

/// The state seed of the change bits' PCG streams (one stream per host).
const BITS_STREAMS: u128 = 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834;
/// The state seed of the promotions' streams: calendars and taking part pages.
const PROMOTION_STREAMS: u128 = 0x7072_6f6d_6f74_696f_6e73_5f73_7472_6d31;
/// The state seed of the weights' streams.
const WEIGHT_STREAMS: u128 = 0x7765_6967_6874_735f_7374_7265_616d_7331;

/// Host `h`'s PCG stream for one purpose (`kind`, one of the `*_STREAMS` constants): the
/// same state for every host, the host index as stream selector. Draws for weights or
/// promotions never touch the stream the change bits use.
fn host_stream(seed: u64, kind: u128, h: usize) -> rand_pcg::Pcg64 {
    rand_pcg::Pcg64::new((u128::from(seed) << 64) ^ kind, h as u128)
}

/// The rows of one host and the change rate λ of each of its pages (0 for static pages,
/// before weekday, bursts and promotions).
struct HostOutput {
    rows: Vec<u64>,
    rates: Vec<f64>,
}

/// A page's fixed traits: static or not, its rate, its class.
struct PageTraits {
    is_static: bool,
    lambda: f64,
    /// Neither static nor in a `frequent` class (persistence applies).
    ordinary: bool,
    /// Probability of changing in a host event.
    coverage: f64,
}

/// Draws a page's traits from the host's bits stream (the order of draws is fixed: it is
/// what makes a seed's history); `factor` is its metadata rate multiplier (1 without).
fn page_traits(
    params: &SynthParams,
    activity: f64,
    factor: f64,
    rng: &mut rand_pcg::Pcg64,
) -> PageTraits {
    let r = &params.rates;
    let u: f64 = rng.gen();
    let mut class = None;
    let mut acc = r.static_fraction;
    for c in &r.frequent {
        if u >= acc && u < acc + c.fraction {
            class = Some(c);
        }
        acc += c.fraction;
    }
    let (is_static, lambda) = if u < r.static_fraction {
        (true, 0.0)
    } else if let Some(c) = class {
        let q = rng.gen_range(c.min..=c.max);
        (false, -(1.0 - q).ln() * factor)
    } else {
        let l = 10f64.powf(r.log10_mean + r.log10_sigma * standard_normal(rng));
        (false, (l * activity * factor).min(r.max_rate))
    };
    let ev = &params.host_events;
    PageTraits {
        is_static,
        lambda,
        // Persistence is a trait of the ordinary (hand-edited) pages only.
        ordinary: !is_static && class.is_none(),
        coverage: if is_static {
            ev.static_coverage
        } else {
            ev.coverage
        },
    }
}

/// The rows of host `h`, one page per entry of `factors` (each page's metadata rate
/// multiplier), from its own random streams.
fn host_rows(
    params: &SynthParams,
    seed: u64,
    h: usize,
    factors: &[f64],
    words: usize,
) -> HostOutput {
    let size = factors.len();
    let mut rng = host_stream(seed, BITS_STREAMS, h);
    let hp = &params.hosts;
    let activity = lognormal(
        &mut rng,
        -hp.activity_sigma * hp.activity_sigma / 2.0,
        hp.activity_sigma,
    );
    let ev = &params.host_events;
    let events: Vec<bool> = (0..params.days).map(|_| rng.gen_bool(ev.rate)).collect();
    let mut promotions = params
        .promotions
        .as_ref()
        .map(|pr| Promotions::of_host(pr, seed, h, params.days));
    let mut promoted = vec![false; params.days];
    let mut out = HostOutput {
        rows: vec![0u64; size * words],
        rates: Vec::with_capacity(size),
    };
    for (p, &factor) in factors.iter().enumerate() {
        let page = page_traits(params, activity, factor, &mut rng);
        out.rates.push(page.lambda);
        if let Some(pr) = &mut promotions {
            pr.page_days(&mut promoted);
        }
        let row = &mut out.rows[p * words..(p + 1) * words];
        page_days(params, &page, &events, &promoted, &mut rng, row);
    }
    out
}

/// Draws page `page`'s days into `row`: its burst/dormancy chain, weekday, promotions
/// (`promoted[k]`: day k+1 is in a promotion the page takes part in), persistence and host
/// events, from the host's bits stream.
fn page_days(
    params: &SynthParams,
    page: &PageTraits,
    events: &[bool],
    promoted: &[bool],
    rng: &mut rand_pcg::Pcg64,
    row: &mut [u64],
) {
    let (b, dm) = (&params.bursts, &params.dormancy);
    // Stationary distribution of the normal/burst/dormant chain.
    let (wb, wd) = (b.start * b.mean_days, dm.start * dm.mean_days);
    let (pi_b, pi_d) = (wb / (1.0 + wb + wd), wd / (1.0 + wb + wd));
    let (end_b, end_d) = (1.0 / b.mean_days, 1.0 / dm.mean_days);
    let persistence = params.rates.persistence;
    let x: f64 = rng.gen();
    let mut state = if x < pi_b {
        1u8
    } else if x < pi_b + pi_d {
        2
    } else {
        0
    };
    let mut before = false;
    for (k, &event) in events.iter().enumerate() {
        let w = (params.start_weekday + k) % 7;
        let mut base = match state {
            1 if !page.is_static => page.lambda * b.factor + b.boost,
            2 => 0.0,
            _ => page.lambda,
        };
        if promoted[k] {
            if let Some(pr) = &params.promotions {
                base = base * pr.factor + pr.boost;
            }
        }
        let l = base * params.weekday[w];
        let mut q = 1.0 - (-l).exp();
        if before && l > 0.0 {
            q = persistence + (1.0 - persistence) * q;
        }
        let mut changed = l > 0.0 && rng.gen::<f64>() < q;
        if event && rng.gen::<f64>() < page.coverage {
            changed = true;
        }
        if changed {
            row[k / 64] |= 1 << (k % 64);
        }
        before = changed && page.ordinary;
        // next day's state
        let y: f64 = rng.gen();
        state = match state {
            0 if y < b.start => 1,
            0 if y < b.start + dm.start => 2,
            1 if y < end_b => 0,
            2 if y < end_d => 0,
            s => s,
        };
    }
}

/// A host's promotions: its calendar and the stream that decides which pages take part.
pub(crate) struct Promotions {
    /// Per day (index d-1), the promotion in progress (numbered from 0), if any.
    pub(crate) calendar: Vec<Option<u32>>,
    count: u32,
    coverage: f64,
    rng: rand_pcg::Pcg64,
}

impl Promotions {
    /// Host `h`'s calendar over `days` days, drawn from its promotions stream: outside a
    /// promotion, one starts on a day with probability `rate`; its length is geometric with
    /// mean `mean_days` (cut at the last day); the next may start the day after it ends.
    pub(crate) fn of_host(pr: &PromotionParams, seed: u64, h: usize, days: usize) -> Promotions {
        let mut rng = host_stream(seed, PROMOTION_STREAMS, h);
        let mut calendar = vec![None; days];
        let (mut k, mut count) = (0, 0u32);
        let end = 1.0 / pr.mean_days;
        while k < days {
            if !rng.gen_bool(pr.rate) {
                k += 1;
                continue;
            }
            let mut len = 1;
            while k + len < days && rng.gen::<f64>() >= end {
                len += 1;
            }
            calendar[k..k + len].fill(Some(count));
            count += 1;
            k += len;
        }
        Promotions {
            calendar,
            count,
            coverage: pr.coverage,
            rng,
        }
    }

    /// The next page's promoted days: draws whether it takes part in each promotion.
    fn page_days(&mut self, promoted: &mut [bool]) {
        let part: Vec<bool> = (0..self.count)
            .map(|_| self.rng.gen_bool(self.coverage))
            .collect();
        for (day, slot) in self.calendar.iter().zip(promoted.iter_mut()) {
            *slot = day.is_some_and(|i| part[i as usize]);
        }
    }
}

/// Every page's weight: `H_h · exp(σ·z - σ²/2)` rounded to 4 significant digits, where
/// `H_h` is host h's factor (log-normal, mean 1, shape `host_sigma`) and
/// `z = ρ·s + sqrt(1 - ρ²)·ε`, with `s` the normal score of the page's change rate's rank
/// among all pages (ties share their mean rank), ε standard normal and ρ
/// `rate_correlation`. `H_h` and the ε of host h's pages come from its weights stream.
fn page_weights(w: &WeightParams, seed: u64, sizes: &[usize], rates: &[f64]) -> Vec<f64> {
    let rho = w.rate_correlation;
    // The scores are multiplied by ρ: skip the sort when they do not count.
    let scores = if rho == 0.0 {
        vec![0.0; rates.len()]
    } else {
        normal_scores(rates)
    };
    let mut starts = Vec::with_capacity(sizes.len());
    let mut acc = 0;
    for &s in sizes {
        starts.push(acc);
        acc += s;
    }
    let spread = (1.0 - rho * rho).max(0.0).sqrt();
    let per_host: Vec<Vec<f64>> = sizes
        .par_iter()
        .enumerate()
        .map(|(h, &size)| {
            let mut rng = host_stream(seed, WEIGHT_STREAMS, h);
            let host = lognormal(&mut rng, -w.host_sigma * w.host_sigma / 2.0, w.host_sigma);
            scores[starts[h]..starts[h] + size]
                .iter()
                .map(|&s| {
                    let z = rho * s + spread * standard_normal(&mut rng);
                    round_significant(host * (w.sigma * z - w.sigma * w.sigma / 2.0).exp())
                })
                .collect()
        })
        .collect();
    per_host.concat()
}

/// `x` (finite, >= 0) rounded to 4 significant digits, so that it prints short: `n / 10^k`
/// or `n · 10^k` with n < 10^4 and an exact power of ten is the double nearest the decimal.
fn round_significant(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let shift = 3 - x.log10().floor() as i32;
    if (0..=22).contains(&shift) {
        let f = 10f64.powi(shift);
        (x * f).round() / f
    } else if (-22..0).contains(&shift) {
        let f = 10f64.powi(-shift);
        (x / f).round() * f
    } else {
        format!("{x:.3e}").parse().unwrap_or(x)
    }
}

/// The normal score `Φ⁻¹((r + 0.5) / n)` of each value's rank r (0-based, ascending; tied
/// values share their mean rank).
fn normal_scores(values: &[f64]) -> Vec<f64> {
    let n = values.len();
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.par_sort_unstable_by(|&a, &b| {
        values[a as usize]
            .total_cmp(&values[b as usize])
            .then(a.cmp(&b))
    });
    let mut scores = vec![0.0; n];
    let mut i = 0;
    while i < n {
        let v = values[order[i] as usize];
        let mut j = i;
        while j + 1 < n && values[order[j + 1] as usize].total_cmp(&v).is_eq() {
            j += 1;
        }
        let score = inverse_normal_cdf(((i + j) as f64 / 2.0 + 0.5) / n as f64);
        for &p in &order[i..=j] {
            scores[p as usize] = score;
        }
        i = j + 1;
    }
    scores
}

/// Φ⁻¹(p) for 0 < p < 1 (Acklam's rational approximation, relative error < 1.2e-9):
/// plain arithmetic, so the same on every platform and crate version.
fn inverse_normal_cdf(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    const LOW: f64 = 0.02425;
    if p < LOW {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - LOW {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

/// Minimal normal and log-normal sampling (Box–Muller), to avoid another dependency and to
/// keep the stream of draws fixed across crate versions.
mod rand_distr_lite {
    use rand::Rng;

    pub(crate) fn standard_normal<R: Rng>(rng: &mut R) -> f64 {
        let u1: f64 = 1.0 - rng.gen::<f64>(); // (0, 1]
        let u2: f64 = rng.gen();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    pub(crate) fn lognormal<R: Rng>(rng: &mut R, mu: f64, sigma: f64) -> f64 {
        (mu + sigma * standard_normal(rng)).exp()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::stats::Stats;

    fn small(pages: usize, days: usize) -> SynthParams {
        let mut p = SynthParams::preset("brdc12").unwrap();
        p.pages = pages;
        p.days = days;
        p
    }

    #[test]
    fn deterministic_and_thread_independent() {
        let p = small(3000, 57);
        let a = generate(&p, 3).unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let b = pool.install(|| generate(&p, 3).unwrap());
        assert_eq!(a, b);
        assert_ne!(a, generate(&p, 4).unwrap());
    }

    #[test]
    fn realistic_shape() {
        let p = small(40_000, 57);
        let d = generate(&p, 1).unwrap();
        let s = Stats::of(&d);
        let per_host = s.pages_per_host.unwrap();
        assert!(
            (35.0..90.0).contains(&per_host),
            "pages per host {per_host}"
        );
        assert!(
            s.largest_host.unwrap() > 500,
            "heavy tail: largest {:?}",
            s.largest_host
        );
        assert!(
            s.never_changed_fraction > 0.4,
            "{}",
            s.never_changed_fraction
        );
        assert!(
            s.half_or_more_fraction > 0.02,
            "{}",
            s.half_or_more_fraction
        );
        // weekends (days 5, 6 with start_weekday 0) change less than weekdays
        let wk = s.weekday_change_fraction;
        assert!(wk[5] < wk[1] && wk[6] < wk[2], "{wk:?}");
        // clustering: a change makes another one much likelier
        assert!(
            s.p_change_after_change > 5.0 * s.p_change_after_no_change,
            "{s}"
        );
    }

    #[test]
    fn persistence_makes_daily_runs_of_ordinary_pages_only() {
        let mut p = small(2000, 40);
        p.rates.static_fraction = 0.0;
        p.rates.frequent = vec![FrequentClass {
            fraction: 0.5,
            min: 0.3,
            max: 0.3,
        }];
        p.rates.persistence = 1.0;
        // ordinary pages: λ = 0.1 per day, so nearly all change within 40 days
        p.rates.log10_mean = -1.0;
        p.rates.log10_sigma = 0.0;
        p.hosts.activity_sigma = 0.0;
        p.bursts.start = 0.0;
        p.dormancy.start = 0.0;
        p.host_events.rate = 0.0;
        let d = generate(&p, 5).unwrap();
        let rows: Vec<Vec<bool>> = (0..d.pages())
            .map(|i| (1..=d.cycles()).map(|c| d.changed(i, c)).collect())
            .collect();
        // an ordinary page that changed once changes every day after: its row is 0..01..1
        let runs = rows
            .iter()
            .filter(|r| r.iter().any(|&b| b) && r.windows(2).all(|w| !w[0] || w[1]))
            .count();
        // frequent pages (p = 0.3, memoryless) break runs: about half the pages are ordinary
        assert!(
            (800..1200).contains(&runs),
            "{runs} pages in one unbroken run"
        );
        let mut none = p.clone();
        none.rates.persistence = 0.0;
        let d0 = generate(&none, 5).unwrap();
        let after = |d: &Dataset| -> f64 {
            let (mut both, mut first) = (0, 0);
            for i in 0..d.pages() {
                for c in 2..=d.cycles() {
                    if d.changed(i, c - 1) {
                        first += 1;
                        both += usize::from(d.changed(i, c));
                    }
                }
            }
            both as f64 / first as f64
        };
        assert!(after(&d) > after(&d0) + 0.2, "{} {}", after(&d), after(&d0));
        let mut bad = small(10, 10);
        bad.rates.persistence = 1.5;
        assert!(bad.validate("x").is_err());
    }

    /// A fingerprint of a history's change bits.
    fn bits_fingerprint(d: &Dataset) -> u64 {
        let (bits, unknown) = d.raw_words();
        bits.iter()
            .chain(unknown)
            .fold(d.pages() as u64, |h, &w| crate::hash::mix64(h ^ w))
    }

    #[test]
    fn brdc12_bits_are_pinned_and_weights_leave_them_alone() {
        // The change bits of brdc12 for this seed, as before weights and promotions were
        // added (the calibration in tests/calibration.rs rests on them): weights and
        // promotions draw from their own streams.
        let p = small(777, 130);
        let d = generate(&p, 9).unwrap();
        assert_eq!(
            bits_fingerprint(&d),
            3_864_350_411_155_841_030,
            "brdc12's change bits moved"
        );
        assert!(d.has_weights());
        let mut none = p.clone();
        none.weights = None;
        let u = generate(&none, 9).unwrap();
        assert!(!u.has_weights());
        assert_eq!(u.raw_words(), d.raw_words());
        assert_eq!(u.id_arena(), d.id_arena());
        // an older preset file, without the new sections, loads: no weights, same bits
        let old: String = none
            .to_ron()
            .lines()
            .filter(|l| !l.contains("weights: None") && !l.contains("promotions: None"))
            .map(|l| format!("{l}\n"))
            .collect();
        assert!(
            !old.contains("weights") && !old.contains("promotions"),
            "{old}"
        );
        let back = SynthParams::from_ron(&old, "old.ron").unwrap();
        assert_eq!(back, none);
    }

    /// Pearson correlation.
    fn correlation(x: &[f64], y: &[f64]) -> f64 {
        let n = x.len() as f64;
        let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
        let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
        for (a, b) in x.iter().zip(y) {
            sxy += (a - mx) * (b - my);
            sxx += (a - mx) * (a - mx);
            syy += (b - my) * (b - my);
        }
        sxy / (sxx * syy).sqrt()
    }

    #[test]
    fn weights_are_heavy_tailed_host_driven_and_rate_correlated() {
        let mut p = small(20_000, 57);
        let d = generate(&p, 2).unwrap();
        let w: Vec<f64> = (0..d.pages()).map(|i| d.weight(i)).collect();
        assert!(w.iter().all(|x| x.is_finite() && *x >= 0.0));
        // rounded to 4 significant digits: short in text
        assert!(w.iter().all(|x| format!("{x:e}").len() <= 9), "{w:?}");
        let ws = crate::data::stats::WeightStats::of(&w).unwrap();
        assert!(ws.top1_share > 0.3, "{ws:?}");
        assert!((0.5..2.0).contains(&ws.mean), "{ws:?}");
        // log weight against the page's number of changes: positive with rate_correlation
        let changes: Vec<f64> = (0..d.pages()).map(|i| d.changes_of(i) as f64).collect();
        let logw = |d: &Dataset| -> Vec<f64> { (0..d.pages()).map(|i| d.weight(i).ln()).collect() };
        let with = correlation(&logw(&d), &changes);
        p.weights.as_mut().unwrap().rate_correlation = 0.0;
        let d0 = generate(&p, 2).unwrap();
        let without = correlation(&logw(&d0), &changes);
        assert!(with > 0.15 && without.abs() < 0.05, "{with} {without}");
        // the host factor: a share of the variance of log weight lies between hosts
        let between = |d: &Dataset| {
            let l = logw(d);
            let mut sum = vec![(0.0, 0usize); d.host_names().len()];
            for (i, x) in l.iter().enumerate() {
                let h = d.host(i).unwrap() as usize;
                sum[h].0 += x;
                sum[h].1 += 1;
            }
            let means: Vec<f64> = (0..l.len())
                .map(|i| {
                    let (s, n) = sum[d.host(i).unwrap() as usize];
                    s / n as f64
                })
                .collect();
            correlation(&l, &means).powi(2)
        };
        p.weights.as_mut().unwrap().host_sigma = 0.0;
        let flat = generate(&p, 2).unwrap();
        assert!(
            between(&d0) > 0.15 && between(&flat) < 0.05,
            "{} {}",
            between(&d0),
            between(&flat)
        );
        assert_eq!(flat.raw_words(), d.raw_words());
        let mut bad = small(10, 10);
        bad.weights.as_mut().unwrap().rate_correlation = 1.5;
        assert!(bad.validate("x").is_err());
    }

    #[test]
    fn commerce_metadata_predicts_change_and_leaves_other_draws_alone() {
        let mut p = SynthParams::preset("commerce").unwrap();
        p.pages = 20_000;
        let d = generate(&p, 3).unwrap();
        let a = d.attributes();
        assert_eq!(a.names(), ["category", "brand", "country"]);
        // a shop's offers share its country; brands are missing on about a quarter
        let country = a.get("country").unwrap();
        for i in 1..d.pages() {
            if d.host(i) == d.host(i - 1) {
                assert_eq!(country.code(i), country.code(i - 1));
            }
        }
        let brand = a.get("brand").unwrap();
        let missing = 1.0 - brand.pages_with() as f64 / d.pages() as f64;
        assert!((missing - 0.25).abs() < 0.02, "{missing}");
        // category values with high multipliers change more: the spread of the change
        // fraction by category is wide, and without rate_sigma it nearly vanishes
        let spread = |d: &Dataset| {
            let (lo, hi) = Stats::of(d).attributes[0].change_fraction_range;
            hi / lo.max(1e-9)
        };
        let mut flat = p.clone();
        for m in &mut flat.metadata {
            m.rate_sigma = 0.0;
        }
        let f = generate(&flat, 3).unwrap();
        assert!(
            spread(&d) > 3.0 && spread(&f) < spread(&d) / 1.5,
            "{} {}",
            spread(&d),
            spread(&f)
        );
        // with every multiplier 1 the bits are those of the preset without metadata
        let mut none = p.clone();
        none.metadata.clear();
        let n = generate(&none, 3).unwrap();
        assert_eq!(n.raw_words(), f.raw_words());
        assert!(n.attributes().is_empty() && f.attributes().get("brand") == Some(brand));
        let mut bad = p.clone();
        bad.metadata[1].name = "category".into();
        assert!(bad
            .validate("x")
            .unwrap_err()
            .to_string()
            .contains("given twice"));
        bad.metadata[1].name = "host".into();
        assert!(bad.validate("x").is_err());
    }

    #[test]
    fn commerce_preset_seasons_promotions_and_popularity() {
        let mut p = SynthParams::preset("commerce").unwrap();
        assert_eq!((p.pages, p.days), (100_000, 57));
        p.pages = 20_000;
        let d = generate(&p, 1).unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        assert_eq!(pool.install(|| generate(&p, 1).unwrap()), d);
        let s = Stats::of(&d);
        // weekly seasonality as configured: Mondays (day 0) busiest, Sundays quietest
        let wk = s.weekday_change_fraction;
        assert!(
            wk[0] > 1.6 * wk[6] && wk[0] > wk[2] && wk[5] < wk[3],
            "{wk:?}"
        );
        // heavy-tailed click popularity
        let ws = s.weights.clone().unwrap();
        assert!(ws.top1_share > 0.3 && ws.p50 < 0.5 * ws.mean, "{ws:?}");
        // promotions: a shop's offers change far more often on its promotion days; without
        // promotions, the same calendars show no such difference
        let pr = p.promotions.clone().unwrap();
        let (on, off) = promotion_contrast(&d, &pr, 1);
        assert!(on > 2.0 * off, "{on} {off}");
        let mut quiet = p.clone();
        quiet.promotions = None;
        let (on, off) = promotion_contrast(&generate(&quiet, 1).unwrap(), &pr, 1);
        assert!(on < 1.3 * off, "{on} {off}");
        let mut bad = p.clone();
        bad.promotions.as_mut().unwrap().mean_days = 0.5;
        assert!(bad.validate("x").is_err());
    }

    /// The change fraction of every shop's offers on its promotion days and on the others,
    /// with the calendars `pr` and `seed` give.
    fn promotion_contrast(d: &Dataset, pr: &PromotionParams, seed: u64) -> (f64, f64) {
        let (mut on, mut off) = ((0usize, 0usize), (0usize, 0usize));
        let mut first = 0;
        for h in 0..d.host_names().len() {
            let cal = Promotions::of_host(pr, seed, h, d.cycles()).calendar;
            let n = (first..d.pages())
                .take_while(|&i| d.host(i) == Some(h as u32))
                .count();
            for i in first..first + n {
                for (k, c) in cal.iter().enumerate() {
                    let slot = if c.is_some() { &mut on } else { &mut off };
                    slot.0 += usize::from(d.changed(i, k + 1));
                    slot.1 += 1;
                }
            }
            first += n;
        }
        assert_eq!(first, d.pages());
        assert!(on.1 > 0 && off.1 > 0);
        (on.0 as f64 / on.1 as f64, off.0 as f64 / off.1 as f64)
    }

    #[test]
    fn promotion_calendars() {
        let pr = PromotionParams {
            rate: 0.1,
            mean_days: 4.0,
            coverage: 1.0,
            factor: 1.0,
            boost: 0.0,
        };
        let mut lengths = Vec::new();
        for h in 0..400 {
            let cal = Promotions::of_host(&pr, 9, h, 60).calendar;
            assert_eq!(cal.len(), 60);
            // numbered in order, each one contiguous
            for run in cal.chunk_by(|a, b| a == b) {
                if let Some(i) = run[0] {
                    lengths.push(run.len());
                    assert!(cal.iter().filter(|c| **c == Some(i)).count() == run.len());
                }
            }
        }
        let mean = lengths.iter().sum::<usize>() as f64 / lengths.len() as f64;
        assert!((3.3..4.5).contains(&mean), "mean length {mean}");
    }

    #[test]
    fn inverse_normal_matches_statrs() {
        use statrs::distribution::{ContinuousCDF, Normal};
        let n = Normal::new(0.0, 1.0).unwrap();
        for p in [1e-9, 0.001, 0.02, 0.0243, 0.3, 0.5, 0.7, 0.98, 0.999_99] {
            let (a, b) = (inverse_normal_cdf(p), n.inverse_cdf(p));
            assert!((a - b).abs() < 1e-8 * b.abs().max(1.0), "{p}: {a} {b}");
        }
        // ties share their mean rank; scores ascend with the values
        let s = normal_scores(&[0.0, 5.0, 0.0, 1.0]);
        assert_eq!(s[0], s[2]);
        assert!(s[0] < s[3] && s[3] < s[1]);
        assert_eq!(s[0], inverse_normal_cdf(1.0 / 4.0));
    }

    #[test]
    fn significant_rounding() {
        assert_eq!(round_significant(0.012_345_67), 0.01235);
        assert_eq!(round_significant(123_456.7), 123_500.0);
        assert_eq!(round_significant(9.999_96), 10.0);
        assert_eq!(round_significant(0.0), 0.0);
        assert_eq!(round_significant(3.14159e-30), 3.142e-30);
        assert_eq!(round_significant(6.02214e40), 6.022e40);
    }

    #[test]
    fn preset_errors_are_located() {
        let e = SynthParams::from_ron("(pages: 1,\n days: x)", "p.ron").unwrap_err();
        assert!(e.to_string().starts_with("p.ron:2:"), "{e}");
        let mut p = small(10, 10);
        p.rates.static_fraction = 1.5;
        assert!(p.validate("x").is_err());
        assert!(SynthParams::preset("nope").is_err());
        let back = SynthParams::from_ron(&small(10, 10).to_ron(), "rt").unwrap();
        assert_eq!(back, small(10, 10));
    }
}
