//! A realistic synthetic change-history generator, driven by a RON preset.
//!
//! The model (every number is a field of [`SynthParams`]; the built-in `brdc12` preset in
//! `datasets/presets/brdc12.ron` documents each one):
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
//! A page changes on day d with probability `p = 1 - exp(-λ_eff)` (λ_eff = λ · weekday, with
//! λ as modified by a burst, 0 when dormant; λ of ordinary pages includes the host
//! activity; raised by persistence as above), or by a host event.
//!
//! **Determinism:** host sizes come from one generator seeded by `seed`; each host then
//! draws from its own PCG stream (`seed`, host index), hosts are generated in parallel by
//! rayon and concatenated in order, so the output depends only on (parameters, seed), not
//! on the number of threads.
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
//! ```

use super::{DataError, Dataset};
use rand::{Rng, SeedableRng};
use rand_distr_lite::{lognormal, standard_normal};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// The built-in presets: (name, RON text).
pub(crate) const PRESETS: &[(&str, &str)] =
    &[("brdc12", include_str!("../../datasets/presets/brdc12.ron"))];

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
        let text = std::fs::read_to_string(name).map_err(|e| DataError::io(name, &e))?;
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
/// `hN.example`.
pub fn generate(params: &SynthParams, seed: u64) -> Result<Dataset, DataError> {
    params.validate("parameters")?;
    let sizes = host_sizes(params, seed);
    let mut starts = Vec::with_capacity(sizes.len());
    let mut acc = 0;
    for &s in &sizes {
        starts.push(acc);
        acc += s;
    }
    let words = params.days.div_ceil(64);
    let rows: Vec<Vec<u64>> = sizes
        .par_iter()
        .enumerate()
        .map(|(h, &size)| host_rows(params, seed, h, size, words))
        .collect();
    let mut bits = Vec::with_capacity(params.pages * words);
    for r in rows {
        bits.extend_from_slice(&r);
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
    Ok(d)
}

/// The rows of host `h` (`size` pages), from its own random stream.
fn host_rows(params: &SynthParams, seed: u64, h: usize, size: usize, words: usize) -> Vec<u64> {
    // A distinct PCG stream per host: same state seed, stream selector = host index.
    let state = (u128::from(seed) << 64) ^ 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834;
    let mut rng = rand_pcg::Pcg64::new(state, h as u128);
    let days = params.days;
    let hp = &params.hosts;
    let activity = lognormal(
        &mut rng,
        -hp.activity_sigma * hp.activity_sigma / 2.0,
        hp.activity_sigma,
    );
    let ev = &params.host_events;
    let events: Vec<bool> = (0..days).map(|_| rng.gen_bool(ev.rate)).collect();
    let r = &params.rates;
    let (b, dm) = (&params.bursts, &params.dormancy);
    // Stationary distribution of the normal/burst/dormant chain.
    let (wb, wd) = (b.start * b.mean_days, dm.start * dm.mean_days);
    let (pi_b, pi_d) = (wb / (1.0 + wb + wd), wd / (1.0 + wb + wd));
    let (end_b, end_d) = (1.0 / b.mean_days, 1.0 / dm.mean_days);
    let mut out = vec![0u64; size * words];
    for p in 0..size {
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
            (false, -(1.0 - q).ln())
        } else {
            let l = 10f64.powf(r.log10_mean + r.log10_sigma * standard_normal(&mut rng));
            (false, (l * activity).min(r.max_rate))
        };
        // Persistence is a trait of the ordinary (hand-edited) pages only.
        let ordinary = !is_static && class.is_none();
        let coverage = if is_static {
            ev.static_coverage
        } else {
            ev.coverage
        };
        let x: f64 = rng.gen();
        let mut state = if x < pi_b {
            1u8
        } else if x < pi_b + pi_d {
            2
        } else {
            0
        };
        let row = &mut out[p * words..(p + 1) * words];
        let mut before = false;
        for (k, &event) in events.iter().enumerate() {
            let w = (params.start_weekday + k) % 7;
            let base = match state {
                1 if !is_static => lambda * b.factor + b.boost,
                2 => 0.0,
                _ => lambda,
            };
            let l = base * params.weekday[w];
            let mut q = 1.0 - (-l).exp();
            if before && l > 0.0 {
                q = r.persistence + (1.0 - r.persistence) * q;
            }
            let mut changed = l > 0.0 && rng.gen::<f64>() < q;
            if event && rng.gen::<f64>() < coverage {
                changed = true;
            }
            if changed {
                row[k / 64] |= 1 << (k % 64);
            }
            before = changed && ordinary;
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
    out
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
