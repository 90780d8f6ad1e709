//! Categorical metadata for synthetic pages (docs/src/reference/data.md#attributes): the
//! optional `metadata` section.
//!
//! Each attribute (e.g. a product category) has `values` values named `prefix0`,
//! `prefix1`, ...; value j is drawn with probability ∝ `1 / (j + 1)^zipf` (a few popular
//! categories, a long tail), or left out with probability `missing`. With `per: Host`
//! every page of a host shares the host's value (a shop's country), with `per: Page` each
//! page draws its own. Each value has a rate multiplier `exp(σ·z - σ²/2)` (z standard
//! normal, σ = `rate_sigma`; mean 1) that multiplies the change rate λ of every
//! non-static page holding it (a page without the value: 1); so a page's attributes tell
//! something of how often it changes, which a model can learn for pages it has never seen.
//!
//! **Determinism:** values are drawn from the host's metadata stream (its own PCG stream,
//! never the change bits' one), multipliers from one stream per attribute; both keyed by
//! the seed. A preset without the section draws exactly as before it existed.

use super::streams::host_stream;
use super::streams::rand_distr_lite::standard_normal;
use crate::data::attributes::{Attribute, Attributes};
use rand::Rng;
use serde::{Deserialize, Serialize};

/// The state seed of the metadata streams (values per host, multipliers per attribute).
const METADATA_STREAMS: u128 = 0x6d65_7461_6461_7461_5f73_7472_6561_6d73;

/// Whether an attribute's value belongs to each page or to its host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Scope {
    /// Each page draws its own value.
    Page,
    /// Every page of a host shares the host's value.
    Host,
}

/// One generated categorical attribute.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AttributeParams {
    /// The key (`category`, `country`, ...).
    pub(crate) name: String,
    /// Value names are this prefix and the value's index.
    pub(crate) prefix: String,
    /// Number of distinct values (>= 1).
    pub(crate) values: usize,
    /// Exponent of the values' Zipf popularity (0 = uniform).
    pub(crate) zipf: f64,
    /// Probability that a page (or host) lacks the attribute.
    pub(crate) missing: f64,
    /// Log-normal shape of the values' rate multipliers (0: the attribute says nothing).
    pub(crate) rate_sigma: f64,
    /// Whether pages or hosts draw the value.
    pub(crate) per: Scope,
}

impl AttributeParams {
    /// Why the parameters are unusable, if they are.
    pub(crate) fn check(&self) -> Result<(), String> {
        crate::data::attributes::check_key(&self.name)?;
        if self.name == "weight" {
            return Err("`weight` is the page importance, not a categorical attribute".into());
        }
        if self.values == 0 || self.values > 1 << 24 {
            return Err(format!("{}: values must be in 1..=2^24", self.name));
        }
        let ok = (0.0..=5.0).contains(&self.zipf)
            && (0.0..=1.0).contains(&self.missing)
            && (0.0..=5.0).contains(&self.rate_sigma)
            && !self.prefix.contains(['\t', '\n', '\r']);
        if !ok {
            return Err(format!(
                "{}: zipf and rate_sigma must be in 0..=5, missing a probability, prefix without TAB or line break",
                self.name
            ));
        }
        Ok(())
    }
}

/// The drawn metadata: each attribute's value multipliers and cumulative popularity.
pub(crate) struct Metadata<'a> {
    params: &'a [AttributeParams],
    multipliers: Vec<Vec<f64>>,
    cumulative: Vec<Vec<f64>>,
    seed: u64,
}

/// One host's draws: each page's codes (attribute-major) and rate multiplier.
pub(crate) struct HostMetadata {
    pub(crate) codes: Vec<Vec<u32>>,
    pub(crate) factors: Vec<f64>,
}

impl<'a> Metadata<'a> {
    /// The value multipliers and popularity of every attribute, for `seed`.
    pub(crate) fn new(params: &'a [AttributeParams], seed: u64) -> Metadata<'a> {
        let mut multipliers = Vec::with_capacity(params.len());
        let mut cumulative = Vec::with_capacity(params.len());
        for (i, a) in params.iter().enumerate() {
            let mut rng =
                rand_pcg::Pcg64::new((u128::from(seed) << 64) ^ METADATA_STREAMS ^ 1, i as u128);
            let s = a.rate_sigma;
            multipliers.push(
                (0..a.values)
                    .map(|_| (s * standard_normal(&mut rng) - s * s / 2.0).exp())
                    .collect(),
            );
            let mut acc = 0.0;
            cumulative.push(
                (0..a.values)
                    .map(|j| {
                        acc += ((j + 1) as f64).powf(-a.zipf);
                        acc
                    })
                    .collect(),
            );
        }
        Metadata {
            params,
            multipliers,
            cumulative,
            seed,
        }
    }

    /// Draws one value of attribute `i` (`None`: missing).
    fn draw(&self, i: usize, rng: &mut rand_pcg::Pcg64) -> u32 {
        let a = &self.params[i];
        if rng.gen_bool(a.missing) {
            return Attribute::NONE;
        }
        let cum = &self.cumulative[i];
        let u = rng.gen::<f64>() * cum[cum.len() - 1];
        cum.partition_point(|&c| c <= u).min(cum.len() - 1) as u32
    }

    /// The values and rate multipliers of host `h`'s `size` pages.
    pub(crate) fn host(&self, h: usize, size: usize) -> HostMetadata {
        let mut rng = host_stream(self.seed, METADATA_STREAMS, h);
        let host_values: Vec<u32> = (0..self.params.len())
            .map(|i| match self.params[i].per {
                Scope::Host => self.draw(i, &mut rng),
                Scope::Page => Attribute::NONE,
            })
            .collect();
        let mut codes = vec![Vec::with_capacity(size); self.params.len()];
        let mut factors = Vec::with_capacity(size);
        for _ in 0..size {
            let mut factor = 1.0;
            for (i, a) in self.params.iter().enumerate() {
                let code = match a.per {
                    Scope::Host => host_values[i],
                    Scope::Page => self.draw(i, &mut rng),
                };
                if code != Attribute::NONE {
                    factor *= self.multipliers[i][code as usize];
                }
                codes[i].push(code);
            }
            factors.push(factor);
        }
        HostMetadata { codes, factors }
    }

    /// The attributes of every page, from the hosts' draws in page order.
    pub(crate) fn attributes(&self, hosts: &mut [HostMetadata], pages: usize) -> Attributes {
        let columns = self
            .params
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let mut codes = Vec::with_capacity(pages);
                for host in hosts.iter_mut() {
                    codes.append(&mut host.codes[i]);
                }
                let values = (0..a.values).map(|j| format!("{}{j}", a.prefix)).collect();
                (a.name.clone(), values, codes)
            })
            .collect();
        // Invariant: names were checked and distinct, codes index the values, one per page.
        Attributes::from_parts(columns, pages).expect("invariant: generated attributes are valid")
    }
}
