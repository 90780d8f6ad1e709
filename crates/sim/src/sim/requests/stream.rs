//! The requests of a period ([`Requests`]): Poisson(r·w) per page and scored cycle (or a
//! request log's), served in a seeded order, each with its own uniform draw — drawn once,
//! replayed by every run.

use super::super::Period;
use super::config::RequestConfig;
use crate::hash::mix64;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_distr_poisson::poisson;
use rand_pcg::Pcg64;

/// Poisson sampling through `statrs` (a maintained statistics crate already used here).
mod rand_distr_poisson {
    use rand::Rng;
    use statrs::distribution::Poisson;

    /// One Poisson(`mean`) draw (0 for a mean of 0).
    pub fn poisson(mean: f64, rng: &mut impl Rng) -> u32 {
        match Poisson::new(mean) {
            Ok(p) => rng.sample::<f64, _>(p) as u32,
            Err(_) => 0,
        }
    }
}

/// The requests of every scored cycle of one period, in serving order, each with its
/// uniform draw.
#[derive(Debug, Clone, PartialEq)]
pub struct Requests {
    /// Requests of scored cycle `warmup + 1 + i` are `pages[offsets[i]..offsets[i + 1]]`.
    pub(super) offsets: Vec<usize>,
    pub(super) pages: Vec<u32>,
    pub(super) draws: Vec<f64>,
    pub(super) warmup: usize,
}

impl Requests {
    /// Poisson(r·w_p) requests for page p at each scored cycle of `period` (`w_p` = 1
    /// without weights), `r = P / Σ w`, from the seed of `config`.
    pub fn poisson(period: &Period, config: &RequestConfig) -> Requests {
        let pages = period.pages();
        let total = period.total_weight();
        let r = if total > 0.0 {
            pages as f64 / total
        } else {
            0.0
        };
        let seed = config.sim.seed();
        let warmup = config.sim.warmup().min(period.len());
        let cycles = (warmup + 1..=period.len()).map(|d| {
            let mut rng = stream(seed, d as u32, 0);
            let mut list = Vec::with_capacity(pages);
            for p in 0..pages as u32 {
                let n = poisson(r * period.weight(p), &mut rng);
                list.extend(std::iter::repeat_n(p, n as usize));
            }
            list
        });
        Requests::from_cycles(cycles, warmup, seed)
    }

    /// The requests `cycles` (one list of pages per scored cycle, after `warmup` cycles, in
    /// arrival order), shuffled into a seeded serving order, each given its draw.
    pub fn from_cycles(
        cycles: impl IntoIterator<Item = Vec<u32>>,
        warmup: usize,
        seed: u64,
    ) -> Requests {
        let mut out = Requests {
            offsets: vec![0],
            pages: Vec::new(),
            draws: Vec::new(),
            warmup,
        };
        for (i, mut list) in cycles.into_iter().enumerate() {
            let mut rng = stream(seed, (warmup + 1 + i) as u32, 1);
            list.shuffle(&mut rng);
            out.draws.extend(list.iter().map(|_| rng.gen::<f64>()));
            out.pages.extend_from_slice(&list);
            out.offsets.push(out.pages.len());
        }
        out
    }

    /// Requests given with their serving order and draws: one list of (page, draw) per
    /// scored cycle after `warmup` cycles (for hand-worked cases).
    pub fn served(cycles: Vec<Vec<(u32, f64)>>, warmup: usize) -> Requests {
        let mut out = Requests {
            offsets: vec![0],
            pages: Vec::new(),
            draws: Vec::new(),
            warmup,
        };
        for list in cycles {
            out.pages.extend(list.iter().map(|r| r.0));
            out.draws.extend(list.iter().map(|r| r.1));
            out.offsets.push(out.pages.len());
        }
        out
    }

    /// Number of requests.
    pub fn len(&self) -> usize {
        self.pages.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.pages.is_empty()
    }

    /// The requests of scored cycle `d` (of the period) as (page, draw), in serving order.
    pub fn at(&self, d: usize) -> impl Iterator<Item = (u32, f64)> + '_ {
        let i = d
            .checked_sub(self.warmup + 1)
            .filter(|&i| i + 1 < self.offsets.len());
        let range = i.map_or(0..0, |i| self.offsets[i]..self.offsets[i + 1]);
        self.pages[range.clone()]
            .iter()
            .copied()
            .zip(self.draws[range].iter().copied())
    }
}

/// The PCG stream of (seed, cycle, purpose).
pub(super) fn stream(seed: u64, cycle: u32, purpose: u64) -> Pcg64 {
    const SALT: u64 = 0x2C1B_3C6D_5E8F_A0B1;
    let state = mix64(mix64(seed ^ SALT) ^ u64::from(cycle).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    Pcg64::seed_from_u64(mix64(state ^ purpose))
}
