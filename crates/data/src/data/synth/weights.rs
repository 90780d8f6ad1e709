//! Page weights (the optional `weights` section: page importance as click popularity,
//! `docs/src/reference/data.md#page-weights`): heavy-tailed per host, correlated with the
//! page's change rate through its normal score, rounded to `digits` significant digits
//! (4 unless the preset says otherwise; or not at all).

use super::params::WeightParams;
use super::streams::rand_distr_lite::{lognormal, standard_normal};
use super::streams::{host_stream, WEIGHT_STREAMS};
use p3_maybe_rayon::prelude::*;

/// Every page's weight: `H_h · exp(σ·z - σ²/2)` rounded to `w.digits` significant digits, where
/// `H_h` is host h's factor (log-normal, mean 1, shape `host_sigma`) and
/// `z = ρ·s + sqrt(1 - ρ²)·ε`, with `s` the normal score of the page's change rate's rank
/// among all pages (ties share their mean rank), ε standard normal and ρ
/// `rate_correlation`. `H_h` and the ε of host h's pages come from its weights stream.
pub(super) fn page_weights(
    w: &WeightParams,
    seed: u64,
    sizes: &[usize],
    rates: &[f64],
) -> Vec<f64> {
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
                    round_significant(
                        host * (w.sigma * z - w.sigma * w.sigma / 2.0).exp(),
                        w.digits,
                    )
                })
                .collect()
        })
        .collect();
    per_host.concat()
}

/// Multiplies the weights of the `featured` pages by `factor` (a `regimes` section's
/// `weight_factor`), rounded to `digits` significant digits again.
pub(super) fn reweigh_featured(
    weights: &mut [f64],
    featured: &[bool],
    factor: f64,
    digits: Option<u32>,
) {
    for (w, _) in weights.iter_mut().zip(featured).filter(|(_, &f)| f) {
        *w = round_significant(*w * factor, digits);
    }
}

/// Above this many digits, `x · 10^k` may exceed 2^53 (or come within an ulp of a
/// rounding boundary), so [`round_significant`] rounds through the decimal text instead.
const ARITHMETIC_DIGITS: u32 = 9;

/// `x` (finite, >= 0) rounded to `digits` significant digits (`None`: `x` itself), so
/// that it prints short. Up to [`ARITHMETIC_DIGITS`] digits, `n / 10^k` or `n · 10^k`
/// with n < 10^digits and an exact power of ten is the double nearest the decimal; more
/// digits, or a power of ten beyond 10^22, round through the exact decimal expansion
/// (Rust's `{:e}` formatting, parsed back), so that 17 digits give `x` itself.
pub(super) fn round_significant(x: f64, digits: Option<u32>) -> f64 {
    let Some(digits) = digits else {
        return x;
    };
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    if digits > ARITHMETIC_DIGITS {
        return format!("{x:.*e}", digits as usize - 1).parse().unwrap_or(x);
    }
    let shift = digits as i32 - 1 - x.log10().floor() as i32;
    if (0..=22).contains(&shift) {
        let f = 10f64.powi(shift);
        (x * f).round() / f
    } else if (-22..0).contains(&shift) {
        let f = 10f64.powi(-shift);
        (x / f).round() * f
    } else {
        format!("{x:.*e}", digits as usize - 1).parse().unwrap_or(x)
    }
}

/// The normal score `Φ⁻¹((r + 0.5) / n)` of each value's rank r (0-based, ascending; tied
/// values share their mean rank).
pub(super) fn normal_scores(values: &[f64]) -> Vec<f64> {
    let n = values.len();
    let mut order: Vec<u32> = (0..n as u32).collect();
    let by_value = |a: &u32, b: &u32| {
        values[*a as usize]
            .total_cmp(&values[*b as usize])
            .then(a.cmp(b))
    };
    // A total order: the parallel sort and the serial one give the same order.
    #[cfg(feature = "parallel")]
    rayon::slice::ParallelSliceMut::par_sort_unstable_by(&mut order[..], by_value);
    #[cfg(not(feature = "parallel"))]
    order.sort_unstable_by(by_value);
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
pub(super) fn inverse_normal_cdf(p: f64) -> f64 {
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
