//! Generating a history: host sizes from the master stream, then each host's pages (their
//! traits, their day-by-day changes under seasonality, bursts, host events, persistence and
//! promotions) from its own streams, in parallel, concatenated in host order.

use super::metadata::Metadata;
use super::params::{PromotionParams, SynthParams};
use super::regimes::{Calendar, RateChange};
use super::streams::rand_distr_lite::{lognormal, standard_normal};
use super::streams::{host_stream, BITS_STREAMS, PROMOTION_STREAMS};
use super::weights::{page_weights, reweigh_featured};
use crate::data::{DataError, Dataset};
use p3_maybe_rayon::prelude::*;
use rand::{Rng, SeedableRng};

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
    let calendar = Calendar::new(params.regimes.as_ref(), params.days);
    let hosts: Vec<(HostOutput, _)> = sizes
        .par_iter()
        .enumerate()
        .map(|(h, &size)| {
            let meta = metadata.host(h, size);
            let host = HostIn {
                h,
                factors: &meta.factors,
                words,
                calendar: &calendar,
            };
            (host_rows(params, seed, host), meta)
        })
        .collect();
    let mut bits = Vec::with_capacity(params.pages * words);
    let mut rates = Vec::with_capacity(params.pages);
    let mut latent = Vec::with_capacity(params.pages);
    let mut featured = Vec::new();
    let mut metas = Vec::with_capacity(hosts.len());
    for (host, meta) in hosts {
        bits.extend_from_slice(&host.rows);
        rates.extend_from_slice(&host.rates);
        latent.extend_from_slice(&host.latent);
        featured.extend_from_slice(&host.featured);
        metas.push(meta);
    }
    let unknown = vec![0; bits.len()];
    let mut d = Dataset::from_parts(params.pages, params.days, bits, unknown);
    d.set_latent(latent);
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
        let mut weights = page_weights(w, seed, &sizes, &rates);
        if let Some(r) = &params.regimes {
            reweigh_featured(&mut weights, &featured, r.weight_factor, w.digits);
        }
        d.set_weights(weights);
    }
    if !params.metadata.is_empty() {
        d.set_attributes(metadata.attributes(&mut metas, params.pages));
    }
    Ok(d)
}

/// The rows of one host, the change rate λ of each of its pages (0 for static pages,
/// before weekday, bursts, regimes and promotions), each page's latent change probability
/// (the mean over the days of the probability it was given to change that day) and which
/// are featured (empty without regimes).
struct HostOutput {
    rows: Vec<u64>,
    rates: Vec<f64>,
    latent: Vec<f64>,
    featured: Vec<bool>,
}

/// What one host's rows are drawn for: its index, one metadata rate multiplier per page,
/// the words of a row, the regimes' calendar.
struct HostIn<'a> {
    h: usize,
    factors: &'a [f64],
    words: usize,
    calendar: &'a Calendar,
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

/// The rows of host `host.h`, one page per entry of `host.factors` (each page's metadata
/// rate multiplier), from its own random streams.
fn host_rows(params: &SynthParams, seed: u64, host: HostIn) -> HostOutput {
    let HostIn {
        h,
        factors,
        words,
        calendar,
    } = host;
    let size = factors.len();
    let featured = params
        .regimes
        .as_ref()
        .map_or_else(Vec::new, |r| r.featured_pages(seed, h, size));
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
        latent: Vec::with_capacity(size),
        featured: Vec::new(),
    };
    for (p, &factor) in factors.iter().enumerate() {
        let page = page_traits(params, activity, factor, &mut rng);
        out.rates.push(page.lambda);
        if let Some(pr) = &mut promotions {
            pr.page_days(&mut promoted);
        }
        let regime = calendar.of_page(featured.get(p).copied());
        let row = &mut out.rows[p * words..(p + 1) * words];
        let days = Days {
            events: &events,
            promoted: &promoted,
            regime,
        };
        out.latent
            .push(page_days(params, &page, days, &mut rng, row));
    }
    out.featured = featured;
    out
}

/// A page's calendar: host events, the days it is promoted, its regime's rate change per
/// day (empty without regimes).
struct Days<'a> {
    events: &'a [bool],
    promoted: &'a [bool],
    regime: &'a [RateChange],
}

/// Draws page `page`'s days into `row`: its burst/dormancy chain, regimes, weekday,
/// promotions (`promoted[k]`: day k+1 is in a promotion the page takes part in),
/// persistence and host events, from the host's bits stream. Returns its latent change
/// probability: the mean over the days of the probability that the day's change was
/// drawn with (its own, and a host event's when the host had one that day). No draw
/// depends on it.
fn page_days(
    params: &SynthParams,
    page: &PageTraits,
    days: Days,
    rng: &mut rand_pcg::Pcg64,
    row: &mut [u64],
) -> f64 {
    let Days {
        events,
        promoted,
        regime,
    } = days;
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
    let mut total = 0.0;
    for (k, &event) in events.iter().enumerate() {
        let w = (params.start_weekday + k) % 7;
        let mut base = match state {
            1 if !page.is_static => page.lambda * b.factor + b.boost,
            2 => 0.0,
            _ => page.lambda,
        };
        if let (Some(change), false) = (regime.get(k), state == 2) {
            base = change.apply(base, page.is_static);
        }
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
        let own = if l > 0.0 { q } else { 0.0 };
        total += if event {
            1.0 - (1.0 - own) * (1.0 - page.coverage)
        } else {
            own
        };
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
    (total / events.len().max(1) as f64).clamp(0.0, 1.0)
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
