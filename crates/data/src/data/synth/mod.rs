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
//! 8. **Weights** (optional section `weights`, page importance as click popularity:
//!    docs/src/reference/data.md#page-weights): page p of host h weighs
//!    `H_h · exp(σ·z_p - σ²/2)`, rounded to `weights.digits` significant digits (4 unless
//!    given; `None`: full precision), with `H_h` log-normal
//!    (mean 1, shape `weights.host_sigma`) and `z_p = ρ·s_p + sqrt(1 - ρ²)·ε_p`: `s_p` is
//!    the normal score `Φ⁻¹((r + ½)/P)` of the rank r of p's λ among all pages (ties share
//!    their mean rank), ε_p standard normal, σ = `weights.sigma`, ρ =
//!    `weights.rate_correlation`. Heavy-tailed, mean about 1. Without the section the
//!    history has no weights (every page weighs 1).
//!
//! 9. **Metadata** (optional section `metadata`, categorical attributes such as a
//!    product's category or a shop's country: docs/src/reference/data.md#attributes): each
//!    attribute's values have Zipf popularity and a rate multiplier (mean 1) that scales λ
//!    of the non-static pages holding them; see `crates/data/src/data/synth/metadata.rs` for the
//!    model. Without the section the pages carry no attributes and the bits are as before.
//!
//! 10. **Regimes** (optional section `regimes`: docs/src/reference/data.md#regimes): a
//!     share of *featured* pages, heavier by a factor, and phases of fixed lengths,
//!     repeated in order, each changing the rates of featured pages and of the others
//!     (`λ·factor + boost`, after bursts and dormancy, before promotions), so that the
//!     best crawl policy changes over time; see `crates/data/src/data/synth/regimes.rs`.
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
//! use freshgp_data::data::synth::{generate, SynthParams};
//!
//! let mut params = SynthParams::preset("brdc12").unwrap();
//! params.pages = 500;
//! params.days = 21;
//! let a = generate(&params, 7).unwrap();
//! assert_eq!((a.pages(), a.cycles()), (500, 21));
//! assert_eq!(a, generate(&params, 7).unwrap());
//! assert!(a.weight(0) != a.weight(1)); // brdc12 has a weights section
//! ```
//!
//! The parts: `params.rs` (the preset format), `streams.rs` (the random streams),
//! `metadata.rs` (attributes), `regimes.rs` (regimes), `weights.rs` (page weights), `generate.rs` ([`generate`]).

mod generate;
mod metadata;
mod params;
mod regimes;
mod streams;
mod weights;

pub use generate::generate;
pub use params::PRESETS;
pub use params::{SynthParams, WEIGHT_DIGITS};

#[cfg(test)]
mod tests;
