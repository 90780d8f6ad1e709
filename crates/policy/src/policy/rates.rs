//! The literature's crawl-rate policies and the crawl value (docs/src/reference/policies.md):
//! the mathematics, apart from the simulation.
//!
//! A *rate policy* gives every page a crawl rate `ρ_p >= 0` (crawls per cycle) with
//! `Σ ρ_p = k`, from its importance `μ_p` (the weight `w`) and its change rate `Δ_p` (the
//! `MLE` terminal); the simulation ranks pages by `ρ_p · t`, the crawls owed since the last
//! visit. The rates of one cycle depend on every page through one number, solved once per
//! cycle from the whole population ([`RatePolicy::solve`], into a [`Rates`]); each page's
//! rate then follows from its own inputs ([`RatePolicy::rate`]).
//!
//! - `uniform`: `ρ = k / P`.
//! - `change`: `ρ = k·Δ / ΣΔ`; `weight`: `ρ = k·μ / Σμ`.
//! - `lambda` (LambdaCrawl; Azar et al. 2018, as in the adversarial-bandit paper): with
//!   `π = 1 - e^{-Δ}`, `ρ = clamp((√(μπ/λ) - π) / (1 - π), 0, 1)`. It maximizes the
//!   expected weighted freshness `Σ μ·ρ / (π + ρ(1 - π))` of Bernoulli crawls of Bernoulli
//!   changes, so at the solution each page's marginal gain `μπ / (π + ρ(1 - π))²` equals
//!   λ where `0 < ρ < 1` (the KKT conditions; tested).
//! - `lambda-harmonic` (Kolobov et al. 2019): `ρ = (-Δ + √(Δ² + 4μΔ/λ)) / 2`, unclamped;
//!   it maximizes `Σ μ·ln(ρ / (ρ + Δ))`, marginal gain `μΔ / (ρ(ρ + Δ)) = λ` everywhere.
//!
//! How λ is found. Write `s = 1/√λ`: a LambdaCrawl rate is then piecewise *linear* in `s`
//! (`(s·√(μπ) - π) / (1 - π)`, clamped), so `Σ ρ(s)` is piecewise linear and
//! non-decreasing, and Newton's method, bracketed, lands on the exact root once the set
//! of unclamped pages stops changing (a few passes; the first guess is the closed form
//! with no clamp binding, which is the answer when none does). With `u = 1/λ` a harmonic
//! rate is concave and increasing in `u`, so Newton's method from `u = k / Σμ` (a lower
//! bound) climbs monotonically to the root. The first stops when Newton's step is down
//! to rounding (λ exact over its unclamped pages to about 1e-15, tested to 1e-12), the
//! second when `|Σρ - k| <= 1e-13·k` (λ to about 2e-13).
//!
//! Degenerate cases (docs/src/reference/policies.md#rate-policies; where the papers are
//! silent, our choices are marked *choice*): with no pages every rate is 0; `lambda` gives
//! every page ρ = 1 when `k >= P`, and ρ = 1 to the pages with `μπ > 0` (0 to the rest)
//! when there are at most k of them; `weight`, `change` and `lambda-harmonic` fall back to
//! `uniform` when their sum (Σμ, ΣΔ, ΣμΔ) is 0 (*choice* for the last two, following
//! `weight`).
//!
//! ```
//! use freshgp_policy::policy::{RateInput, RatePolicy};
//!
//! // Two pages: one changing every cycle or so and important, one quiet.
//! let pages = [(RateInput::new(3.0, 1.2), 1), (RateInput::new(1.0, 0.05), 1)];
//! let mut work = Vec::new();
//! let rates = RatePolicy::Lambda.solve(pages, 1, &mut work);
//! let sum: f64 = pages.iter().map(|&(p, _)| RatePolicy::Lambda.rate(p, &rates)).sum();
//! assert!((sum - 1.0).abs() < 1e-12);
//! ```

use super::memory::{change_probability, SolveMemory};
use serde::{Deserialize, Serialize};

/// A rate policy of the literature (docs/src/reference/policies.md#rate-policies).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum RatePolicy {
    /// `ρ = k / P`: ranks as Age.
    Uniform,
    /// Proportional to the change rate.
    Change,
    /// Proportional to the importance.
    Weight,
    /// LambdaCrawl (binary freshness, clamped rates).
    Lambda,
    /// LambdaCrawl for harmonic staleness (unclamped rates).
    LambdaHarmonic,
}

/// What a rate policy reads of a page: its importance `μ` (weight) and change rate `Δ`
/// (the MLE, per cycle).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateInput {
    /// `μ >= 0`.
    pub importance: f64,
    /// `Δ >= 0`.
    pub change_rate: f64,
}

impl RateInput {
    /// A page of importance `importance` changing at `change_rate` per cycle.
    pub fn new(importance: f64, change_rate: f64) -> RateInput {
        RateInput {
            importance,
            change_rate,
        }
    }
}

/// One cycle's solution of a rate policy: how a page's rate follows from its inputs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Rates {
    /// Every page has this rate (`uniform`, `lambda` when `k >= P`, the fallbacks).
    Same(f64),
    /// Rate 1 for pages with `μ·π > 0`, 0 for the others (`lambda` when at most k pages
    /// have `μ·π > 0`).
    Positive,
    /// The policy's rule with its scale: `k / ΣΔ` (`change`), `k / Σμ` (`weight`), `s =
    /// 1/√λ` (`lambda`) or `u = 1/λ` (`lambda-harmonic`).
    Scaled(f64),
}

/// The pages of one input, prepared for a solve: what the sums read, and how many.
#[derive(Debug, Clone, Copy, Default)]
pub struct SolvePage {
    input: (u64, u64),
    /// `√(μπ)` (lambda) or `μΔ` (lambda-harmonic).
    a: f64,
    /// `π` (lambda) or `Δ` (lambda-harmonic).
    b: f64,
    /// `1 - π` (lambda).
    c: f64,
    count: f64,
}

/// When the harmonic solve stops: `|Σρ - k| <= SUM_PRECISION · k`.
const SUM_PRECISION: f64 = 1e-13;

/// Passes over the pages a λ solve may make (it needs far fewer).
const MAX_PASSES: usize = 200;

impl RatePolicy {
    /// All five, in the order of docs/src/reference/policies.md#rate-policies.
    pub const ALL: [RatePolicy; 5] = [
        RatePolicy::Uniform,
        RatePolicy::Change,
        RatePolicy::Weight,
        RatePolicy::Lambda,
        RatePolicy::LambdaHarmonic,
    ];

    /// The name in text, tables and files.
    pub fn name(self) -> &'static str {
        match self {
            RatePolicy::Uniform => "uniform",
            RatePolicy::Change => "change",
            RatePolicy::Weight => "weight",
            RatePolicy::Lambda => "lambda",
            RatePolicy::LambdaHarmonic => "lambda-harmonic",
        }
    }

    /// The policy with this name (case-insensitive; `_` for `-` too, as RON identifiers
    /// write `lambda_harmonic`).
    pub fn from_name(name: &str) -> Option<RatePolicy> {
        let name = name.replace('_', "-");
        RatePolicy::ALL
            .into_iter()
            .find(|r| r.name().eq_ignore_ascii_case(&name))
    }

    /// Whether its rates read the importance `μ`.
    pub fn reads_importance(self) -> bool {
        matches!(
            self,
            RatePolicy::Weight | RatePolicy::Lambda | RatePolicy::LambdaHarmonic
        )
    }

    /// Whether its rates read the change rate `Δ`.
    pub fn reads_change_rate(self) -> bool {
        matches!(
            self,
            RatePolicy::Change | RatePolicy::Lambda | RatePolicy::LambdaHarmonic
        )
    }

    /// Solves one cycle: the rates for which `Σ count·ρ = k` over `pages` (each page with
    /// its number of copies). `work` is caller-owned space.
    ///
    /// **Invariant:** the solution depends on the multiset of pages only, bit for bit —
    /// not on their order nor on how copies are grouped — so simulators that group pages
    /// differently, and the scheduler, rank alike. (The pages are merged by input and
    /// summed in the inputs' order, with exact integer counts.)
    pub fn solve(
        self,
        pages: impl IntoIterator<Item = (RateInput, u32)>,
        k: usize,
        work: &mut Vec<SolvePage>,
    ) -> Rates {
        self.solve_remembering(pages, k, work, &mut SolveMemory::default())
    }

    /// [`RatePolicy::solve`], remembering this cycle's pages in `memory` so that the next
    /// cycle's solve over nearly the same pages (a crawl changes the inputs of the pages
    /// it visits only) merges the few that changed into the sorted inputs instead of
    /// sorting them all again. The solution is [`RatePolicy::solve`]'s, bit for bit,
    /// whatever `memory` holds.
    pub fn solve_remembering(
        self,
        pages: impl IntoIterator<Item = (RateInput, u32)>,
        k: usize,
        work: &mut Vec<SolvePage>,
        memory: &mut SolveMemory,
    ) -> Rates {
        let k = k as f64;
        work.clear();
        let total = if self == RatePolicy::Uniform {
            // Reads no input: the memory stays as it is, for the next solve that does.
            pages.into_iter().map(|(_, count)| u64::from(count)).sum()
        } else {
            let total = memory.record(pages.into_iter().map(|(page, count)| {
                (
                    (page.importance.to_bits(), page.change_rate.to_bits()),
                    count,
                )
            }));
            work.extend(memory.merged.iter().map(|&(input, count)| SolvePage {
                input,
                count: count as f64,
                ..SolvePage::default()
            }));
            total
        };
        let total = total as f64;
        let uniform = if total > 0.0 { k / total } else { 0.0 };
        let input =
            |p: &SolvePage| RateInput::new(f64::from_bits(p.input.0), f64::from_bits(p.input.1));
        match self {
            RatePolicy::Uniform => Rates::Same(uniform),
            RatePolicy::Change | RatePolicy::Weight => {
                let sum: f64 = work
                    .iter()
                    .map(|p| {
                        let q = input(p);
                        p.count
                            * if self == RatePolicy::Change {
                                q.change_rate
                            } else {
                                q.importance
                            }
                    })
                    .sum();
                if sum > 0.0 {
                    Rates::Scaled(k / sum)
                } else {
                    Rates::Same(uniform)
                }
            }
            RatePolicy::Lambda => {
                if k >= total {
                    return Rates::Same(if total > 0.0 { 1.0 } else { 0.0 });
                }
                // Only pages with μπ > 0 can get a rate.
                let probabilities = &mut memory.probabilities;
                work.retain_mut(|p| {
                    let q = input(p);
                    let (pi, rest) = probabilities.get(q.change_rate);
                    (p.a, p.b, p.c) = ((q.importance * pi).sqrt(), pi, rest);
                    p.a > 0.0
                });
                let positive: f64 = work.iter().map(|p| p.count).sum();
                if positive <= k {
                    Rates::Positive
                } else {
                    Rates::Scaled(solve_lambda(work, k))
                }
            }
            RatePolicy::LambdaHarmonic => {
                work.retain_mut(|p| {
                    let q = input(p);
                    (p.a, p.b) = (q.importance * q.change_rate, q.change_rate);
                    p.a > 0.0
                });
                let importance: f64 = work.iter().map(|p| p.count * input(p).importance).sum();
                if importance > 0.0 {
                    Rates::Scaled(solve_harmonic(work, k, k / importance))
                } else {
                    Rates::Same(uniform)
                }
            }
        }
    }

    /// The rate of a page of inputs `page` under the cycle's solution `rates`.
    #[inline]
    pub fn rate(self, page: RateInput, rates: &Rates) -> f64 {
        self.rate_by(page, rates, change_probability)
    }

    /// [`RatePolicy::rate`] with `(π, 1 - π)` of a change rate from `probability`, which
    /// must give what [`change_probability`] gives (from a [`SolveMemory`]'s, say).
    #[inline]
    pub(super) fn rate_by(
        self,
        page: RateInput,
        rates: &Rates,
        probability: impl FnOnce(f64) -> (f64, f64),
    ) -> f64 {
        match *rates {
            Rates::Same(rate) => rate,
            Rates::Positive => {
                let (pi, _) = probability(page.change_rate);
                if page.importance * pi > 0.0 {
                    1.0
                } else {
                    0.0
                }
            }
            Rates::Scaled(scale) => match self {
                RatePolicy::Uniform => scale,
                RatePolicy::Change => scale * page.change_rate,
                RatePolicy::Weight => scale * page.importance,
                RatePolicy::Lambda => {
                    let (pi, rest) = probability(page.change_rate);
                    lambda_rate((page.importance * pi).sqrt(), pi, rest, scale)
                }
                RatePolicy::LambdaHarmonic => {
                    harmonic_rate(page.importance * page.change_rate, page.change_rate, scale)
                }
            },
        }
    }

    /// The crawls owed to a page `t` cycles after its last visit: its top-k score `ρ·t`.
    /// For `change` and `weight` it is computed as `scale·(Δ·t)` and `scale·(μ·t)`, so
    /// they rank exactly as the formulas `MLE * t` and `w * t` (a positive factor keeps
    /// every tie and every order of the products).
    #[inline]
    pub fn owed(self, page: RateInput, rates: &Rates, t: f64) -> f64 {
        self.owed_by(page, rates, t, change_probability)
    }

    /// [`RatePolicy::owed`] with the change probabilities of `probability` (as in
    /// [`RatePolicy::rate_by`]).
    #[inline]
    pub(super) fn owed_by(
        self,
        page: RateInput,
        rates: &Rates,
        t: f64,
        probability: impl FnOnce(f64) -> (f64, f64),
    ) -> f64 {
        match (self, *rates) {
            (RatePolicy::Change, Rates::Scaled(scale)) => scale * (page.change_rate * t),
            (RatePolicy::Weight, Rates::Scaled(scale)) => scale * (page.importance * t),
            _ => self.rate_by(page, rates, probability) * t,
        }
    }

    /// The Lagrange multiplier λ of a `lambda` or `lambda-harmonic` solution (for reports
    /// and tests); `None` for the other policies and the degenerate cases.
    pub fn lambda(self, rates: &Rates) -> Option<f64> {
        match (self, *rates) {
            (RatePolicy::Lambda, Rates::Scaled(s)) => Some(1.0 / (s * s)),
            (RatePolicy::LambdaHarmonic, Rates::Scaled(u)) => Some(1.0 / u),
            _ => None,
        }
    }
}

/// A LambdaCrawl rate: `clamp((s·a - π) / (1 - π), 0, 1)` with `a = √(μπ)`.
#[inline]
fn lambda_rate(a: f64, pi: f64, rest: f64, s: f64) -> f64 {
    let excess = s * a - pi;
    if excess <= 0.0 {
        0.0
    } else if excess >= rest {
        1.0
    } else {
        excess / rest
    }
}

/// A harmonic rate `(-Δ + √(Δ² + 4aU)) / 2` with `a = μΔ`, written as `2aU / (Δ + √(Δ² +
/// 4aU))` so that a small rate loses no digits to cancellation.
#[inline]
fn harmonic_rate(a: f64, delta: f64, u: f64) -> f64 {
    if a <= 0.0 {
        return 0.0;
    }
    2.0 * a * u / (delta + (delta * delta + 4.0 * a * u).sqrt())
}

/// `s = 1/√λ` with `Σ count·ρ(s) = k`, for more than `k` pages with `μπ > 0` (all in
/// `pages`).
fn solve_lambda(pages: &[SolvePage], k: f64) -> f64 {
    // Σ ρ and its slope at s: a page is unclamped when 0 < s·a - π < 1 - π.
    let at = |s: f64| {
        let (mut sum, mut slope) = (0.0, 0.0);
        for p in pages {
            let excess = s * p.a - p.b;
            if excess >= p.c {
                sum += p.count;
            } else if excess > 0.0 {
                sum += p.count * excess / p.c;
                slope += p.count * p.a / p.c;
            }
        }
        (sum, slope)
    };
    // The closed form with no clamp binding: s = (k + Σ c·π/(1-π)) / Σ c·a/(1-π).
    let offset: f64 = pages.iter().map(|p| p.count * p.b / p.c).sum();
    let slope_sum: f64 = pages.iter().map(|p| p.count * p.a / p.c).sum();
    let mut s = (k + offset) / slope_sum;
    let (mut lo, mut hi) = (0.0f64, f64::INFINITY);
    for _ in 0..MAX_PASSES {
        let (sum, slope) = at(s);
        if sum == k {
            return s;
        }
        let newton = s + (k - sum) / slope;
        // Once the unclamped set is right the sum is linear and Newton's step lands on
        // the root: stop when the step is down to rounding.
        if slope > 0.0 && (newton - s).abs() <= 1e-15 * s {
            return newton;
        }
        if sum < k {
            lo = s;
        } else {
            hi = s;
        }
        let next = if slope > 0.0 && newton > lo && newton < hi {
            newton
        } else if hi.is_infinite() {
            2.0 * s
        } else if lo == 0.0 {
            0.5 * hi
        } else {
            (lo * hi).sqrt()
        };
        if next == s || (hi.is_finite() && hi - lo <= 1e-16 * hi) {
            return s;
        }
        s = next;
    }
    s
}

/// `u = 1/λ` with `Σ count·ρ(u) = k` (harmonic rates), from `start = k / Σμ`, a lower bound
/// (each rate is at most `μ·u`).
fn solve_harmonic(pages: &[SolvePage], k: f64, start: f64) -> f64 {
    let mut u = start;
    for _ in 0..MAX_PASSES {
        let (mut sum, mut slope) = (0.0, 0.0);
        for p in pages {
            let root = (p.b * p.b + 4.0 * p.a * u).sqrt();
            sum += p.count * 2.0 * p.a * u / (p.b + root);
            slope += p.count * p.a / root;
        }
        if (sum - k).abs() <= SUM_PRECISION * k || slope <= 0.0 {
            return u;
        }
        // Concave and increasing: from below, the tangent's root is still below the root.
        let next = u + (k - sum) / slope;
        if next <= u {
            return u;
        }
        u = next;
    }
    u
}

/// The crawl value of a page (docs/src/reference/policies.md#the-crawl-value): the expected
/// weighted staleness a crawl now removes, `w·(1 - (1 + δt)·e^{-δt}) / δ = w·∫_0^t s·δe^{-δs}
/// ds` for change rate `δ` (per cycle) and `t` cycles since the last visit. 0 when `δ = 0`;
/// for small `δt` its series, so that it never loses digits to cancellation.
///
/// ```
/// use freshgp_policy::policy::crawl_value;
///
/// assert_eq!(crawl_value(2.0, 0.0, 5.0), 0.0);
/// let v = crawl_value(1.0, 0.5, 4.0); // (1 - 3·e^{-2}) / 0.5
/// assert!((v - (1.0 - 3.0 * (-2.0f64).exp()) / 0.5).abs() < 1e-15);
/// assert!(crawl_value(1.0, 1e-9, 2.0) > 0.0);
/// ```
#[inline]
pub fn crawl_value(weight: f64, delta: f64, t: f64) -> f64 {
    if delta <= 0.0 || weight == 0.0 {
        return 0.0;
    }
    let x = delta * t;
    // 1 - (1 + x)e^{-x} = x²/2 - x³/3 + x⁴/8 - x⁵/30 + x⁶/144 - ..., whose closed form
    // loses about ε/x² to cancellation: the series below 1e-2. Above, the operations of
    // the formula `w * (1 - (1 + MLE * t) * exp(-MLE * t)) / MLE`, so the two rank alike.
    let gain = if x < 1e-2 {
        x * x * (0.5 - x * (1.0 / 3.0 - x * (1.0 / 8.0 - x * (1.0 / 30.0 - x / 144.0))))
    } else {
        1.0 - (1.0 + x) * (-x).exp()
    };
    weight * gain / delta
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rates_of(policy: RatePolicy, pages: &[(RateInput, u32)], k: usize) -> (Rates, Vec<f64>) {
        let rates = policy.solve(pages.iter().copied(), k, &mut Vec::new());
        let each = pages.iter().map(|&(p, _)| policy.rate(p, &rates)).collect();
        (rates, each)
    }

    /// The pages' count and a budget of `share` of them (at least 1).
    fn budget(pages: &[(RateInput, u32)], share: f64) -> (u32, usize) {
        let p: u32 = pages.iter().map(|&(_, c)| c).sum();
        (p, ((p as f64 * share) as usize).max(1))
    }

    fn total(pages: &[(RateInput, u32)], each: &[f64]) -> f64 {
        pages
            .iter()
            .zip(each)
            .map(|(&(_, c), r)| c as f64 * r)
            .sum()
    }

    /// Pages with importance in [0, 50] (a few zeros), change rates in (0, 6], 1-4 copies.
    fn population() -> impl Strategy<Value = Vec<(RateInput, u32)>> {
        prop::collection::vec(
            (
                prop_oneof![1 => Just(0.0), 9 => 0.0..50.0f64],
                1e-4..6.0f64,
                1..5u32,
            )
                .prop_map(|(mu, delta, c)| (RateInput::new(mu, delta), c)),
            1..80,
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// A solve that remembers the last cycle's pages gives the fresh solve's rates, bit
        /// for bit, cycle after cycle, whatever changed in between: inputs (a visit),
        /// counts (to 0 too), pages gone or new, few or many.
        #[test]
        fn a_remembered_solve_is_the_fresh_one(
            first in population(),
            cycles in prop::collection::vec(
                prop::collection::vec((0usize..100, 0u8..4, 0.0..50.0f64, 1e-4..6.0f64, 0..5u32), 0..12),
                1..6,
            ),
            share in 0.001..1.0f64,
        ) {
            let mut memories: [SolveMemory; 5] = Default::default();
            let (mut work, mut fresh_work) = (Vec::new(), Vec::new());
            let mut pages = first;
            for edits in cycles {
                // Edits in place and at the end, as a crawl's cycle makes them (a removal
                // or insertion in the middle moves every later page: a full merge).
                for (at, op, mu, delta, count) in edits {
                    let i = at % (pages.len() + 1);
                    match op {
                        0 if i < pages.len() => pages[i].0 = RateInput::new(mu, delta),
                        1 if i < pages.len() => pages[i].1 = count,
                        2 if at % 7 == 0 && i < pages.len() => drop(pages.remove(i)),
                        2 => drop(pages.pop()),
                        _ => pages.push((RateInput::new(mu, delta), count)),
                    }
                }
                let (_, k) = budget(&pages, share);
                for (policy, memory) in RatePolicy::ALL.into_iter().zip(&mut memories) {
                    let fresh = policy.solve(pages.iter().copied(), k, &mut fresh_work);
                    let kept = policy.solve_remembering(pages.iter().copied(), k, &mut work, memory);
                    let bits = |r: Rates| match r {
                        Rates::Same(x) => (0, x.to_bits()),
                        Rates::Positive => (1, 0),
                        Rates::Scaled(x) => (2, x.to_bits()),
                    };
                    prop_assert_eq!(bits(fresh), bits(kept), "{}", policy.name());
                    if policy != RatePolicy::Uniform {
                        let mut all: Vec<((u64, u64), u64)> = pages
                            .iter()
                            .filter(|&&(_, c)| c > 0)
                            .map(|(p, c)| ((p.importance.to_bits(), p.change_rate.to_bits()), *c as u64))
                            .collect();
                        all.sort_unstable();
                        let mut merged: Vec<((u64, u64), u64)> = Vec::new();
                        for (input, c) in all {
                            match merged.last_mut() {
                                Some(last) if last.0 == input => last.1 += c,
                                _ => merged.push((input, c)),
                            }
                        }
                        prop_assert_eq!(&memory.merged, &merged, "{}", policy.name());
                    }
                }
            }
        }

        /// One memory shared by every policy, Uniform among them, and by an unrelated
        /// population now and then; inputs from a small palette (pages share them, as
        /// pages of weight 1 do); few edits in place, so that most solves merge: the
        /// solve is still the fresh one, and the memory's merged inputs are its pages',
        /// strictly sorted.
        #[test]
        fn a_shared_memory_over_shared_inputs_is_the_fresh_solve(
            first in prop::collection::vec((0usize..3, 0usize..3, 0..4u32), 1..200),
            cycles in prop::collection::vec(
                (prop::collection::vec((0usize..200, 0usize..3, 0usize..3, 0..4u32), 0..20), 0usize..5, any::<bool>()),
                1..8,
            ),
            share in 0.001..1.0f64,
        ) {
            let palette = |i: usize, j: usize| RateInput::new([0.0, 1.0, 2.5][i], [1e-3, 0.2, 1.5][j]);
            let mut pages: Vec<(RateInput, u32)> =
                first.iter().map(|&(i, j, c)| (palette(i, j), c)).collect();
            let other = vec![(palette(2, 2), 3), (palette(1, 0), 1)];
            let mut memory = SolveMemory::default();
            let mut work = Vec::new();
            for (edits, policy, aside) in cycles {
                for (at, i, j, c) in edits {
                    let at = at % pages.len();
                    pages[at] = (palette(i, j), c);
                }
                let policy = RatePolicy::ALL[policy];
                let population = if aside { &other } else { &pages };
                let (_, k) = budget(population, share);
                let fresh = policy.solve(population.iter().copied(), k, &mut Vec::new());
                let kept = policy.solve_remembering(population.iter().copied(), k, &mut work, &mut memory);
                prop_assert_eq!(format!("{fresh:?}"), format!("{kept:?}"), "{}", policy.name());
                prop_assert!(memory.merged.windows(2).all(|w| w[0].0 < w[1].0));
                let mut counts: std::collections::BTreeMap<(u64, u64), u64> = Default::default();
                for &(input, c) in memory.pages.iter().filter(|&&(_, c)| c > 0) {
                    *counts.entry(input).or_default() += u64::from(c);
                }
                prop_assert_eq!(&memory.merged, &counts.into_iter().collect::<Vec<_>>());
            }
        }

        /// Σρ = k to 1e-9 for every rate policy (when the policy can spend k: `lambda` caps
        /// every rate at 1 and gives none to pages without value).
        #[test]
        fn rates_sum_to_the_budget(pages in population(), share in 0.001..1.0f64) {
            let (p, k) = budget(&pages, share);
            for policy in RatePolicy::ALL {
                let (rates, each) = rates_of(policy, &pages, k);
                prop_assert!(each.iter().all(|&r| r >= 0.0 && r.is_finite()), "{policy:?}");
                let sum = total(&pages, &each);
                let valued: u32 = pages
                    .iter()
                    .filter(|(q, _)| q.importance > 0.0)
                    .map(|&(_, c)| c)
                    .sum();
                let expected = match policy {
                    RatePolicy::Lambda if k >= valued as usize && k < p as usize => valued as f64,
                    _ => k as f64,
                };
                prop_assert!(
                    (sum - expected).abs() <= 1e-9 * expected,
                    "{policy:?} {rates:?}: Σρ = {sum}, want {expected}"
                );
                if policy == RatePolicy::Lambda {
                    prop_assert!(each.iter().all(|&r| r <= 1.0));
                }
            }
        }

        /// LambdaCrawl's KKT conditions: the marginal gain μπ/(π + ρ(1-π))² equals λ where
        /// 0 < ρ < 1, is at most λ where ρ = 0 and at least λ where ρ = 1.
        #[test]
        fn lambda_satisfies_the_kkt_conditions(pages in population(), share in 0.001..0.9f64) {
            let (_, k) = budget(&pages, share);
            let (rates, each) = rates_of(RatePolicy::Lambda, &pages, k);
            let Some(lambda) = RatePolicy::Lambda.lambda(&rates) else {
                return Ok(()); // a degenerate case: checked in `rates_sum_to_the_budget`
            };
            for (&(q, _), &rho) in pages.iter().zip(&each) {
                let (pi, rest) = change_probability(q.change_rate);
                let gain = q.importance * pi / (pi + rho * rest).powi(2);
                if rho == 0.0 {
                    prop_assert!(gain <= lambda * (1.0 + 1e-9), "{gain} > {lambda}");
                } else if rho == 1.0 {
                    prop_assert!(gain >= lambda * (1.0 - 1e-9), "{gain} < {lambda}");
                } else {
                    prop_assert!((gain - lambda).abs() <= 1e-7 * lambda, "{gain} vs {lambda}");
                }
            }
        }

        /// λ is the closed form over the pages the solution leaves unclamped, to 1e-12
        /// relative: with `n1` pages at ρ = 1 and the set I of the others with 0 < ρ < 1,
        /// `1/√λ = (k - n1 + Σ_I c·π/(1-π)) / Σ_I c·√(μπ)/(1-π)`.
        #[test]
        fn lambda_is_exact_over_its_unclamped_pages(pages in population(), share in 0.001..0.9f64) {
            let (_, k) = budget(&pages, share);
            let (rates, each) = rates_of(RatePolicy::Lambda, &pages, k);
            let Some(lambda) = RatePolicy::Lambda.lambda(&rates) else {
                return Ok(());
            };
            let (mut ones, mut offset, mut slope) = (0.0, 0.0, 0.0);
            for (&(q, c), &rho) in pages.iter().zip(&each) {
                let (pi, rest) = change_probability(q.change_rate);
                if rho == 1.0 {
                    ones += c as f64;
                } else if rho > 0.0 {
                    offset += c as f64 * pi / rest;
                    slope += c as f64 * (q.importance * pi).sqrt() / rest;
                }
            }
            prop_assume!(slope > 0.0);
            let s = (k as f64 - ones + offset) / slope;
            let closed = 1.0 / (s * s);
            prop_assert!((lambda - closed).abs() <= 1e-12 * closed, "{lambda} vs {closed}");
        }

        /// Harmonic rates: the marginal gain μΔ/(ρ(ρ + Δ)) equals λ for every page with value.
        #[test]
        fn lambda_harmonic_equalizes_marginal_gains(pages in population(), share in 0.001..3.0f64) {
            let (_, k) = budget(&pages, share);
            let (rates, each) = rates_of(RatePolicy::LambdaHarmonic, &pages, k);
            let Some(lambda) = RatePolicy::LambdaHarmonic.lambda(&rates) else {
                return Ok(());
            };
            for (&(q, _), &rho) in pages.iter().zip(&each) {
                if q.importance == 0.0 {
                    prop_assert_eq!(rho, 0.0);
                    continue;
                }
                let gain = q.importance * q.change_rate / (rho * (rho + q.change_rate));
                prop_assert!((gain - lambda).abs() <= 1e-7 * lambda, "{gain} vs {lambda}");
            }
        }

        /// The crawl value grows with t and vanishes with δ; it is the integral of
        /// docs/src/reference/policies.md#the-crawl-value.
        #[test]
        fn crawl_value_grows_with_t(w in 0.1..10.0f64, delta in 1e-6..5.0f64, t in 1.0..60.0f64) {
            let v = crawl_value(w, delta, t);
            // Non-decreasing in t (strictly until the gain rounds to 1).
            prop_assert!(crawl_value(w, delta, t + 1.0) >= v);
            prop_assert!(delta * t > 30.0 || crawl_value(w, delta, t + 1.0) > v);
        }

        #[test]
        fn crawl_value_is_the_integral(w in 0.1..10.0f64, delta in 1e-6..5.0f64, x in 1e-4..10.0f64) {
            // Simpson's rule on w·∫_0^t s·δe^{-δs} ds, t = x/δ.
            let t = x / delta;
            let v = crawl_value(w, delta, t);
            let n = 4000;
            let h = t / n as f64;
            let f = |s: f64| s * delta * (-delta * s).exp();
            let simpson = (0..=n)
                .map(|i| {
                    let weight = if i == 0 || i == n { 1.0 } else if i % 2 == 1 { 4.0 } else { 2.0 };
                    weight * f(i as f64 * h)
                })
                .sum::<f64>()
                * h
                / 3.0;
            prop_assert!((v - w * simpson).abs() <= 1e-9 * (w * simpson).max(1e-300), "{v} vs {}", w * simpson);
        }
    }

    #[test]
    fn lambda_is_the_closed_form_when_no_clamp_binds() {
        // Rates well inside (0, 1): the closed form of the adversarial-bandit paper's Table 2.
        let pages: Vec<(RateInput, u32)> = [(2.0, 0.3), (1.0, 0.5), (1.5, 0.2), (0.8, 0.9)]
            .iter()
            .map(|&(mu, delta)| (RateInput::new(mu, delta), 1))
            .collect();
        let k = 2;
        let (rates, each) = rates_of(RatePolicy::Lambda, &pages, k);
        let pi = |q: RateInput| 1.0 - (-q.change_rate).exp();
        // Σ (√(μπ/λ) - π)/(1-π) = k  ⇒  1/√λ = (k + Σ π/(1-π)) / Σ √(μπ)/(1-π).
        let num: f64 = k as f64
            + pages
                .iter()
                .map(|(q, _)| pi(*q) / (1.0 - pi(*q)))
                .sum::<f64>();
        let den: f64 = pages
            .iter()
            .map(|(q, _)| (q.importance * pi(*q)).sqrt() / (1.0 - pi(*q)))
            .sum();
        let lambda = (den / num).powi(2);
        assert!((RatePolicy::Lambda.lambda(&rates).unwrap() - lambda).abs() < 1e-12 * lambda);
        for (&(q, _), rho) in pages.iter().zip(each) {
            let closed = ((q.importance * pi(q) / lambda).sqrt() - pi(q)) / (1.0 - pi(q));
            assert!(closed > 0.0 && closed < 1.0);
            assert!((rho - closed).abs() < 1e-12, "{rho} vs {closed}");
        }
    }

    #[test]
    fn lambda_is_exact_when_almost_every_page_is_clamped() {
        // 1000 heavy pages take a crawl every cycle; two light ones share the last crawl.
        let pages = [
            (RateInput::new(1000.0, 0.5), 1000),
            (RateInput::new(1.0, 0.5), 2),
        ];
        let (rates, each) = rates_of(RatePolicy::Lambda, &pages, 1001);
        assert_eq!(each[0], 1.0);
        assert!((each[1] - 0.5).abs() < 1e-12, "{}", each[1]);
        // 0.5 = (s·√π - π)/(1 - π)  ⇒  s = (π + 0.5(1 - π)) / √π.
        let pi = 1.0 - (-0.5f64).exp();
        let s = (pi + 0.5 * (1.0 - pi)) / pi.sqrt();
        let lambda = RatePolicy::Lambda.lambda(&rates).unwrap();
        assert!((lambda - 1.0 / (s * s)).abs() <= 1e-13 * lambda);
    }

    #[test]
    fn degenerate_budgets_follow_spec() {
        let pages = [
            (RateInput::new(1.0, 0.5), 2),
            (RateInput::new(0.0, 0.5), 3),
            (RateInput::new(2.0, 0.1), 1),
        ];
        let mut work = Vec::new();
        // k >= P: every rate 1.
        assert_eq!(
            RatePolicy::Lambda.solve(pages, 6, &mut work),
            Rates::Same(1.0)
        );
        // At most k pages with μπ > 0 (3 of them): those get 1, the rest 0.
        let rates = RatePolicy::Lambda.solve(pages, 4, &mut work);
        assert_eq!(rates, Rates::Positive);
        let each: Vec<f64> = pages
            .iter()
            .map(|&(p, _)| RatePolicy::Lambda.rate(p, &rates))
            .collect();
        assert_eq!(each, [1.0, 0.0, 1.0]);
        // Σμ = 0: weight falls back to uniform.
        let nothing = [(RateInput::new(0.0, 0.5), 4)];
        assert_eq!(
            RatePolicy::Weight.solve(nothing, 2, &mut work),
            Rates::Same(0.5)
        );
        assert_eq!(
            RatePolicy::LambdaHarmonic.solve(nothing, 2, &mut work),
            Rates::Same(0.5)
        );
        assert_eq!(
            RatePolicy::Uniform.solve(pages, 3, &mut work),
            Rates::Same(0.5)
        );
        assert_eq!(
            RatePolicy::Uniform.solve([], 3, &mut work),
            Rates::Same(0.0)
        );
    }

    #[test]
    fn proportional_rates_follow_their_input() {
        let pages = [(RateInput::new(1.0, 0.5), 1), (RateInput::new(3.0, 1.5), 1)];
        let (_, change) = rates_of(RatePolicy::Change, &pages, 2);
        assert_eq!(change, [0.5, 1.5]);
        let (_, weight) = rates_of(RatePolicy::Weight, &pages, 1);
        assert_eq!(weight, [0.25, 0.75]);
    }

    #[test]
    fn crawl_value_series_meets_the_closed_form() {
        // Both sides of the switch to the series agree to rounding.
        for delta in [1e-3, 2e-3, 5e-3] {
            let t = 1e-2 / delta;
            let below = crawl_value(1.0, delta, t * (1.0 - 1e-12));
            let above = crawl_value(1.0, delta, t * (1.0 + 1e-12));
            assert!((below - above).abs() <= 1e-9 * above, "{below} {above}");
        }
        assert!(crawl_value(1.0, 1e-12, 1.0) > 0.0);
        assert_eq!(crawl_value(0.0, 1.0, 1.0), 0.0);
        // δ → 0: V → 0, like δt²/2·(1 - 2δt/3).
        let (delta, t) = (1e-8, 3.0);
        let series = delta * t * t / 2.0 * (1.0 - 2.0 * delta * t / 3.0);
        assert!((crawl_value(1.0, delta, t) - series).abs() < 1e-14 * series);
    }
}
