//! How pages are ranked: the key of a score ([`score_key`]: higher first, NaN last), the
//! seeded tie order of equal scores ([`tie_salt`], [`tie_key`], a period's [`TieOrder`]),
//! a group or page in ranking order ([`Ranked`]) and the sort of a ranking's prefix
//! ([`sort_chunk`]) — one definition for every simulator and the scheduler.

use super::Period;
use crate::hash::mix64;

/// The ranking key of a score: higher ranks first; `-0` ties with `0`; NaN ranks last.
#[inline]
pub fn score_key(score: f64) -> u64 {
    if score.is_nan() {
        return 0;
    }
    let bits = (score + 0.0).to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

/// The per-cycle salt of the tie order.
#[inline]
pub fn tie_salt(seed: u64, cycle: u32) -> u64 {
    mix64(mix64(seed) ^ (cycle as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93))
}

/// The tie key of page `p` (lower ranks first among equal scores). Distinct pages have
/// distinct keys (`salt ^ p` differs and `mix64` is a bijection), so the order is total,
/// and the simulators may rank a class by the keys alone (`Fast::take_whole_class`).
#[inline]
pub fn tie_key(salt: u64, p: u32) -> u64 {
    mix64(salt ^ p as u64)
}

/// The tie order of every scored cycle of a period: its pages sorted by ascending tie
/// key (what the seeded tie-break defines anyway).
#[derive(Debug, Clone)]
pub(crate) struct TieOrder {
    orders: Vec<Vec<u32>>,
}

impl TieOrder {
    /// The order of cycles `first..=period.len()` for tie-break `seed` (earlier cycles
    /// get none).
    pub(super) fn new(period: &Period, seed: u64, first: usize) -> TieOrder {
        use p3_maybe_rayon::prelude::*;
        let pages = period.pages() as u32;
        let orders = (0..=period.len() as u32)
            .into_par_iter()
            .map(|d| {
                if (d as usize) < first {
                    return Vec::new();
                }
                let salt = tie_salt(seed, d);
                let mut order: Vec<u32> = (0..pages).collect();
                order.sort_by_cached_key(|&p| tie_key(salt, p));
                order
            })
            .collect();
        TieOrder { orders }
    }

    /// Pages of cycle `d` in tie order.
    pub(crate) fn cycle(&self, d: usize) -> &[u32] {
        &self.orders[d]
    }
}

/// A live group in ranking order: sorted ascending, higher scores come first and equal
/// scores by group index (the per-page simulator sorts so, but for the class a chunk ends
/// with: [`sort_chunk`]; the grouped walk sorts by score alone, [`sort_by_score`]). A
/// class's own order is read by no one: each reader orders it by its pages' tie keys. One
/// `u128` sorts faster than a `(key, group)` pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Ranked(u128);

impl Ranked {
    pub(super) fn new(score_key: u64, group: u32) -> Ranked {
        Ranked(((!score_key as u128) << 32) | group as u128)
    }

    /// The group's score key (equal for equal scores).
    pub(super) fn key(self) -> u64 {
        !((self.0 >> 32) as u64)
    }

    /// The group (the page, in the per-page simulator).
    pub(super) fn group(self) -> u32 {
        self.0 as u32
    }
}

/// Ranks the first entries of `ranked`: at least `want` of them (all if fewer), and the
/// last one's whole class (the entries of its score), in score order. Returns how many
/// are ranked; the rest are left in some order. The entries above the last class are
/// sorted with `sort`; the last class (of equal keys) is left in some order after them,
/// since every reader orders a class by its own rule (the pages' tie keys). O(len + m log
/// m) for m sorted. (The grouped walk's prefix of the ranking too, sorted by score alone:
/// `Fast::rank_prefix`.)
pub(super) fn sort_chunk(ranked: &mut [Ranked], want: usize, sort: fn(&mut [Ranked])) -> usize {
    if want >= ranked.len() {
        sort(ranked);
        return ranked.len();
    }
    let boundary = ranked.select_nth_unstable(want - 1).1.key();
    // Entries after the want-th with its score belong to its class: bring them next.
    let mut end = want;
    for i in want..ranked.len() {
        if ranked[i].key() == boundary {
            ranked.swap(i, end);
            end += 1;
        }
    }
    // The higher scores first, then the class: only those above it are sorted.
    let mut above = 0;
    for i in 0..end {
        if ranked[i].key() != boundary {
            ranked.swap(i, above);
            above += 1;
        }
    }
    sort(&mut ranked[..above]);
    end
}
