//! An adversarial bandit over policies (docs/src/reference/bandit.md; EXP3, the
//! adversarial-bandit paper's Algorithm 1): each scored cycle one of K *arms* (any
//! policies) chooses the crawl, and the arm that chose is rewarded with the cycle's value
//! of a metric.
//!
//! [`Exp3`] is the checked description (arms, γ, reward metric), over arms of any kind
//! that say what a bandit needs of them ([`Arm`]; a policy's bandit is `Exp3<Scorer>`,
//! [`super::Policy::Bandit`], whose arms cannot be bandits). Its run-time state is
//! [`Exp3State`], the arms' weights, kept in log space so that no run overflows (a weight
//! grows by at most `e` per cycle: `γ·x / (K·q) <= 1` since `q >= γ/K`). A run — either
//! simulator (`sim::bandit`), the scheduler (`schedule::bandit`) — drives it the same way:
//! before a cycle is scored it computes `q` ([`Exp3::probabilities`]), draws the arm from a
//! stream seeded by (run seed, cycle) that is independent of the tie-break stream
//! ([`draw_arm`]), and hands out the arm that scores the cycle; after the cycle it updates
//! the arm's weight with the reward it measured ([`Exp3::update`]).
//!
//! How the weights learn is the bandit's [`Learning`] (docs/src/reference/bandit.md#learning):
//! γ fixed, set for a known horizon ([`Rate::Horizon`], Auer et al.'s Corollary 3.2) or
//! for the cycles so far ([`Rate::Anytime`]); the step `η` per unit of estimated reward
//! (Auer's `γ/K` unless given); and what it forgets ([`Forget`]: nothing, as EXP3; old
//! estimates discounted, as discounted EXP3; or a share of the total weight passed to every
//! arm, as EXP3.S), for data whose best arm changes over time. What rewards the drawn arm
//! is its [`Reward`]: a metric, or [`Reward::Found`], the weight its own visits found
//! changed, which a crawler observes.
//!
//! Every arm's own state observes every visit, whichever arm chose it: the bandit's page
//! statistics track the union of what its arms read ([`super::Policy::features`]), and the
//! per-page memory is that of its one arm that keeps memory, if any (a page holds one
//! memory number, so a bandit may hold at most one arm with memory: [`BanditError`]).
//!
//! ```
//! use freshgp_formula::formula::Grammar;
//! use freshgp_policy::policy::Policy;
//!
//! let kab3 = Policy::parse("kab3", &Grammar::all())?;
//! let same = Policy::parse("exp3(arms: [weight, change, uniform])", &Grammar::all())?;
//! assert_eq!(kab3, same);
//! let Policy::Bandit(bandit) = &kab3 else { unreachable!() };
//! assert_eq!(bandit.arms().len(), 3);
//! assert_eq!(bandit.gamma(), 0.1);
//! // Two arms, γ = 0.5: at the start q = (0.5, 0.5); arm 0 earns reward 1 with q 0.5,
//! // so its log weight grows by γ·x/(K·q) = 0.5.
//! let two = Policy::parse("exp3(arms: [uniform, change], gamma: 0.5)", &Grammar::all())?;
//! let Policy::Bandit(two) = &two else { unreachable!() };
//! let mut state = two.start();
//! let mut q = Vec::new();
//! two.probabilities(&state, &mut q);
//! assert_eq!(q, [0.5, 0.5]);
//! two.update(&mut state, 0, q[0], 1.0);
//! assert_eq!(state.log_weights(), [0.5, 0.0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::hash::mix64;
use crate::metric::Metric;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The default exploration rate γ (docs/src/reference/bandit.md#arms).
pub const DEFAULT_GAMMA: f64 = 0.1;

/// The bandit presets of the adversarial-bandit paper, by name
/// (docs/src/reference/bandit.md#presets). The paper's KAB5 has an impression-proportional
/// arm; freshgp has no impression rates, so the crawl value (`value`, which weighs
/// importance by the estimated change rate) takes that slot.
pub const PRESETS: [(&str, &[&str]); 3] = [
    ("kab2", &["weight", "change"]),
    ("kab3", &["weight", "change", "uniform"]),
    ("kab5", &["uniform", "change", "weight", "value", "lambda"]),
];

/// What rewards the arm drawn for a cycle (docs/src/reference/bandit.md#rewards).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reward {
    /// The cycle's value of a metric.
    Metric(Metric),
    /// The weight of the cycle's visits that found a change over the weight of the `k`
    /// heaviest pages (`CycleMetrics::wchange_rate`): what the drawn arm's own crawl found,
    /// as a crawler observes it. Without weights it is ChangeRate.
    Found,
}

impl Reward {
    /// The name written after `reward:` (a metric's name, or `found`).
    pub fn name(self) -> &'static str {
        match self {
            Reward::Metric(m) => m.name(),
            Reward::Found => "found",
        }
    }

    /// Its name in tables and plots.
    pub fn title(self) -> &'static str {
        match self {
            Reward::Metric(m) => m.title(),
            Reward::Found => "found (weighted change rate)",
        }
    }

    /// The metric it is, if it is one.
    pub fn metric(self) -> Option<Metric> {
        match self {
            Reward::Metric(m) => Some(m),
            Reward::Found => None,
        }
    }

    /// Its value in the cycle of `m`.
    pub fn of(self, m: &crate::metric::CycleMetrics) -> f64 {
        match self {
            Reward::Metric(metric) => metric.of(m),
            Reward::Found => m.wchange_rate,
        }
    }
}

/// How γ is set (docs/src/reference/bandit.md#learning).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Rate {
    /// γ as given, every cycle.
    #[default]
    Fixed,
    /// γ = min(1, √(K·ln K / ((e−1)·T))) for a run of `T` cycles (Auer et al. 2002,
    /// Corollary 3.2, with the bound g = T on the best arm's total reward).
    Horizon(u32),
    /// The horizon's γ with `T` the cycles played so far, counting the current one: large
    /// at first, shrinking as 1/√t.
    Anytime,
}

/// What the weights forget between cycles (docs/src/reference/bandit.md#learning).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Forget {
    /// Nothing (EXP3).
    #[default]
    None,
    /// Discounted EXP3: before each update every log weight is multiplied by
    /// `1 − 1/window`, so an estimate `window` cycles old counts `1/e` as much.
    Discount {
        /// The memory in cycles (at least 1).
        window: u32,
    },
    /// EXP3.S (Auer et al. 2002, Fig. 8): after the update every arm's weight gains
    /// `e·α/K` of the total weight before it, so no arm falls too far behind to come back.
    Share {
        /// The share α, in (0, 1].
        alpha: f64,
    },
}

/// How a bandit's weights learn: its exploration γ (or how it is set), its step η per unit
/// of estimated reward, and what it forgets.
///
/// **Invariant** (once checked by [`Exp3::new`]): γ in (0, 1]; η finite and > 0 when
/// given, and not given with a rate schedule (`γ` is then unused: text that gives it with
/// one is refused where it is read); a horizon and a window at least 1; α in (0, 1].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Learning {
    /// Exploration γ (for [`Rate::Fixed`]).
    pub gamma: f64,
    /// Step per unit of estimated reward; `None`: γ/K, as EXP3.
    pub eta: Option<f64>,
    /// How γ is set.
    pub rate: Rate,
    /// What the weights forget.
    pub forget: Forget,
}

impl Default for Learning {
    /// EXP3 with γ = [`DEFAULT_GAMMA`].
    fn default() -> Learning {
        Learning::exp3(DEFAULT_GAMMA)
    }
}

impl Learning {
    /// EXP3 with exploration `gamma`: fixed, η = γ/K, nothing forgotten.
    pub fn exp3(gamma: f64) -> Learning {
        Learning {
            gamma,
            eta: None,
            rate: Rate::Fixed,
            forget: Forget::None,
        }
    }

    /// Whether it is EXP3 (only γ may differ from the defaults).
    pub fn is_exp3(&self) -> bool {
        self.eta.is_none() && self.rate == Rate::Fixed && self.forget == Forget::None
    }

    /// Why it is refused, if it is.
    fn check(&self) -> Result<(), BanditError> {
        if !(self.gamma > 0.0 && self.gamma <= 1.0) {
            return Err(BanditError::Gamma(self.gamma));
        }
        if let Some(eta) = self.eta {
            if !(eta > 0.0 && eta.is_finite()) {
                return Err(BanditError::Eta(eta));
            }
        }
        if self.rate != Rate::Fixed && self.eta.is_some() {
            return Err(BanditError::Schedule);
        }
        if self.rate == Rate::Horizon(0) {
            return Err(BanditError::Horizon);
        }
        match self.forget {
            Forget::Discount { window: 0 } => Err(BanditError::Window),
            Forget::Share { alpha } if !(alpha > 0.0 && alpha <= 1.0) => {
                Err(BanditError::Alpha(alpha))
            }
            _ => Ok(()),
        }
    }

    /// γ in the `t`-th cycle played (from 1) with `k` arms.
    pub fn gamma_at(&self, k: usize, t: u32) -> f64 {
        let horizon = match self.rate {
            Rate::Fixed => return self.gamma,
            Rate::Horizon(h) => h,
            Rate::Anytime => t.max(1),
        };
        let k = k as f64;
        let e1 = std::f64::consts::E - 1.0;
        (k * k.ln() / (e1 * horizon as f64)).sqrt().min(1.0)
    }
}

/// Why a bandit was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BanditError {
    /// No arm.
    #[error("a bandit needs at least one arm")]
    NoArms,
    /// γ outside (0, 1].
    #[error("gamma must be in (0, 1], got {0}")]
    Gamma(f64),
    /// η not finite and positive.
    #[error("eta must be finite and > 0, got {0}")]
    Eta(f64),
    /// γ or η given with a rate schedule that sets them.
    #[error("gamma and eta are set by the rate schedule (horizon or anytime): give neither, or use `rate: fixed`")]
    Schedule,
    /// A horizon of 0 cycles.
    #[error("rate: horizon(T) needs T >= 1 cycles")]
    Horizon,
    /// A discount window of 0 cycles.
    #[error("forget: discount(window: W) needs W >= 1 cycles")]
    Window,
    /// α outside (0, 1].
    #[error("forget: share(alpha: ..) needs alpha in (0, 1], got {0}")]
    Alpha(f64),
    /// An arm that is itself a bandit.
    #[error("arm {0} is a bandit: arms must be plain policies (a preset name in `arms` stands for its arms)")]
    Nested(usize),
    /// More than one arm keeps per-page memory.
    #[error("arms {0} (`{2}`) and {1} (`{3}`) both keep per-page memory (adaptive intervals): a bandit may hold one such arm")]
    Memory(usize, usize, String, String),
    /// The same arm twice.
    #[error("arm {0} (`{2}`) repeats arm {1} (arms counted after presets are expanded)")]
    Duplicate(usize, usize, String),
    /// Text that is not a bandit's.
    #[error("exp3(..): {0}")]
    Syntax(String),
}

/// What a bandit needs to know of its arms.
pub trait Arm: PartialEq + fmt::Display {
    /// Whether the arm keeps per-page memory (a bandit may hold at most one such arm).
    fn remembers(&self) -> bool;
}

/// A checked EXP3 bandit over arms `A` (docs/src/reference/bandit.md; policies:
/// `Exp3<Scorer>`).
///
/// **Invariant:** at least one arm; no two arms are equal; at most one
/// arm keeps per-page memory; its [`Learning`] checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Exp3<A> {
    arms: Vec<A>,
    learning: Learning,
    reward: Option<Reward>,
}

impl<A: Arm> Exp3<A> {
    /// A bandit over `arms` learning by `learning`, rewarded by `reward` (`None`: the run's
    /// metric, `sim::SimConfig::metric`; in a scheduler, the change rate).
    pub fn new(
        arms: Vec<A>,
        learning: Learning,
        reward: Option<Reward>,
    ) -> Result<Exp3<A>, BanditError> {
        if arms.is_empty() {
            return Err(BanditError::NoArms);
        }
        learning.check()?;
        let mut remembering = None;
        for (i, arm) in arms.iter().enumerate() {
            if let Some(j) = arms[..i].iter().position(|other| other == arm) {
                return Err(BanditError::Duplicate(i, j, arm.to_string()));
            }
            if arm.remembers() {
                if let Some(j) = remembering {
                    return Err(BanditError::Memory(
                        j,
                        i,
                        arms[j].to_string(),
                        arm.to_string(),
                    ));
                }
                remembering = Some(i);
            }
        }
        Ok(Exp3 {
            arms,
            learning,
            reward,
        })
    }

    /// The same bandit with `arm` as one more, last arm.
    pub fn with_arm(&self, arm: A) -> Result<Exp3<A>, BanditError>
    where
        A: Clone,
    {
        let mut arms = self.arms.clone();
        arms.push(arm);
        Exp3::new(arms, self.learning, self.reward)
    }

    /// The arms, in order.
    pub fn arms(&self) -> &[A] {
        &self.arms
    }

    /// The arms, in order, taken out of the bandit.
    pub fn into_arms(self) -> Vec<A> {
        self.arms
    }

    /// The exploration rate γ as given (for [`Rate::Fixed`]).
    pub fn gamma(&self) -> f64 {
        self.learning.gamma
    }

    /// How its weights learn.
    pub fn learning(&self) -> &Learning {
        &self.learning
    }

    /// The reward it names (`None`: the run's metric).
    pub fn reward(&self) -> Option<Reward> {
        self.reward
    }

    /// The arm that keeps per-page memory, if any.
    pub(crate) fn remembering_arm(&self) -> Option<&A> {
        self.arms.iter().find(|arm| arm.remembers())
    }

    /// Every arm's weight 1 (log weight 0): the state at the start of a period.
    pub fn start(&self) -> Exp3State {
        Exp3State {
            log_weights: vec![0.0; self.arms.len()],
            plays: 0,
        }
    }

    /// γ of the next cycle played from `state`.
    fn gamma_next(&self, state: &Exp3State) -> f64 {
        let t = state.plays.saturating_add(1);
        self.learning.gamma_at(self.arms.len(), t)
    }

    /// `q_j = (1 - γ)·w_j / Σw + γ/K` into `q` (one per arm; Σq = 1 up to rounding), with
    /// γ of the next cycle played ([`Learning::gamma_at`]). The weights are normalized by
    /// the largest, in arm order, so no exponential overflows.
    pub fn probabilities(&self, state: &Exp3State, q: &mut Vec<f64>) {
        let k = self.arms.len() as f64;
        let gamma = self.gamma_next(state);
        let top = state
            .log_weights
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        q.clear();
        q.extend(state.log_weights.iter().map(|&lw| (lw - top).exp()));
        let sum: f64 = q.iter().sum();
        for qj in q.iter_mut() {
            *qj = (1.0 - gamma) * *qj / sum + gamma / k;
        }
    }

    /// One cycle's update, in log space: arm `arm`, drawn with probability `q_arm`, earned
    /// reward `x` (in [0, 1]; the run measures it, by [`Exp3::reward`] or its own metric).
    /// With the step `η` (γ/K of the cycle unless given) and `x̂ = x / q_arm`:
    ///
    /// - EXP3: `w_A ← w_A · exp(η·x̂)`;
    /// - [`Forget::Discount`]: every `ln w` first multiplied by `1 − 1/window`;
    /// - [`Forget::Share`]: `w_j ← w_j · exp(η·x̂_j) + (e·α/K)·Σw` for every arm (`x̂_j = 0`
    ///   for the arms not drawn), then the log weights shifted so the smallest is 0 (the
    ///   probabilities do not depend on a common factor).
    pub fn update(&self, state: &mut Exp3State, arm: usize, q_arm: f64, x: f64) {
        let k = self.arms.len() as f64;
        // EXP3's `γ·x / (K·q)` computed in that order, as it always was (bit for bit).
        let gain = match self.learning.eta {
            Some(eta) => eta * x / q_arm,
            None => self.gamma_next(state) * x / (k * q_arm),
        };
        state.plays = state.plays.saturating_add(1);
        let lw = &mut state.log_weights;
        match self.learning.forget {
            Forget::None => lw[arm] += gain,
            Forget::Discount { window } => {
                let keep = 1.0 - 1.0 / window as f64;
                for w in lw.iter_mut() {
                    *w *= keep;
                }
                lw[arm] += gain;
            }
            Forget::Share { alpha } => {
                let top = lw.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let total: f64 = lw.iter().map(|w| (w - top).exp()).sum();
                let shared = std::f64::consts::E * alpha / k * total;
                for (j, w) in lw.iter_mut().enumerate() {
                    let own = if j == arm { gain } else { 0.0 };
                    *w = ((*w - top + own).exp() + shared).ln() + top;
                }
                let low = lw.iter().copied().fold(f64::INFINITY, f64::min);
                for w in lw.iter_mut() {
                    *w -= low;
                }
            }
        }
    }
}

/// The arm drawn from `q` at `cycle` of a run with seed `seed`: the first arm whose
/// cumulative probability exceeds a uniform number from the draw stream (seeded by
/// (seed, cycle), independent of the tie-break stream).
pub fn draw_arm(q: &[f64], seed: u64, cycle: u32) -> usize {
    let u = unit(draw_salt(seed, cycle));
    let mut cumulative = 0.0;
    for (j, &qj) in q.iter().enumerate() {
        cumulative += qj;
        if u < cumulative {
            return j;
        }
    }
    // Rounding left Σq a hair below u: the last arm (every q_j >= γ/K > 0).
    q.len() - 1
}

/// The stream of arm draws: a salt per (seed, cycle), unrelated to the tie-break's.
fn draw_salt(seed: u64, cycle: u32) -> u64 {
    mix64(mix64(seed ^ 0x5EED_BA4D_17E3_0001) ^ (cycle as u64).wrapping_mul(0x9FB2_1C65_1E98_DF25))
}

/// A uniform number in [0, 1) from 64 random bits (their top 53).
fn unit(bits: u64) -> f64 {
    (bits >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A bandit's weights during a run (log space, one per arm) and the cycles played.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exp3State {
    log_weights: Vec<f64>,
    plays: u32,
}

impl Exp3State {
    /// The arms' log weights.
    pub fn log_weights(&self) -> &[f64] {
        &self.log_weights
    }

    /// The cycles played (updates made) so far.
    pub fn plays(&self) -> u32 {
        self.plays
    }

    /// A state of `log_weights` after `plays` cycles (as a saved state holds it).
    pub fn from_parts(log_weights: Vec<f64>, plays: u32) -> Exp3State {
        Exp3State { log_weights, plays }
    }

    /// Whether this state fits `bandit` (one finite log weight per arm; for checking
    /// saved states).
    pub fn fits<A>(&self, bandit: &Exp3<A>) -> bool {
        self.log_weights.len() == bandit.arms.len()
            && self.log_weights.iter().all(|w| w.is_finite() && *w >= 0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formula::Grammar;
    use crate::policy::{with_policy_files_in, Policy, PolicyError, Scorer};

    fn bandit(text: &str) -> Exp3<Scorer> {
        match Policy::parse(text, &Grammar::extended()).unwrap() {
            Policy::Bandit(b) => b,
            other => panic!("{other} is no bandit"),
        }
    }

    #[test]
    fn the_weight_update_by_hand_over_three_cycles() {
        // K = 3, γ = 0.3; rewards: arm 1 earns 0.6, then arm 0 earns 1, then arm 1 earns 0.
        let b = bandit("exp3(arms: [uniform, change, weight], gamma: 0.3)");
        let mut s = b.start();
        let mut q = Vec::new();
        b.probabilities(&s, &mut q);
        assert_eq!(q, [1.0 / 3.0; 3].map(|_| 0.7 / 3.0 + 0.1));
        b.update(&mut s, 1, q[1], 0.6);
        // Δ = γ·x/(K·q) = 0.3·0.6 / (3 · 1/3) = 0.18.
        assert!((s.log_weights()[1] - 0.18).abs() < 1e-15);
        b.probabilities(&s, &mut q);
        let e = 0.18f64.exp();
        let sum = 2.0 + e;
        let expected = [0.7 / sum + 0.1, 0.7 * e / sum + 0.1, 0.7 / sum + 0.1];
        for (a, b) in q.iter().zip(expected) {
            assert!((a - b).abs() < 1e-15, "{q:?}");
        }
        b.update(&mut s, 0, q[0], 1.0);
        assert!((s.log_weights()[0] - 0.3 / (3.0 * expected[0])).abs() < 1e-15);
        let before = s.clone();
        b.probabilities(&s, &mut q);
        b.update(&mut s, 1, q[1], 0.0);
        assert_eq!(
            s.log_weights(),
            before.log_weights(),
            "a reward of 0 changes no weight"
        );
        assert_eq!(s.plays(), before.plays() + 1);
        assert!((q.iter().sum::<f64>() - 1.0).abs() < 1e-15);
    }

    #[test]
    fn gamma_one_draws_arms_uniformly() {
        // γ = 1: q = 1/K whatever the weights. Chi-square over 20,000 seeded cycles with
        // K = 5 (4 degrees of freedom): the 0.999 quantile is 18.47.
        let b = bandit("exp3(arms: [uniform, change, weight, value, lambda], gamma: 1)");
        let mut s = b.start();
        s.log_weights[2] = 40.0;
        let mut q = Vec::new();
        b.probabilities(&s, &mut q);
        assert!(q.iter().all(|&x| (x - 0.2).abs() < 1e-15), "{q:?}");
        let n = 20_000u32;
        let mut counts = [0f64; 5];
        for cycle in 1..=n {
            counts[draw_arm(&q, 7, cycle)] += 1.0;
        }
        let expected = n as f64 / 5.0;
        let chi2: f64 = counts
            .iter()
            .map(|c| (c - expected).powi(2) / expected)
            .sum();
        assert!(chi2 < 18.47, "chi-square {chi2} for counts {counts:?}");
    }

    #[test]
    fn draws_follow_q_and_depend_on_seed_and_cycle_only() {
        let q = [0.1, 0.6, 0.3];
        let n = 30_000u32;
        let mut counts = [0f64; 3];
        for cycle in 1..=n {
            counts[draw_arm(&q, 11, cycle)] += 1.0;
        }
        // Chi-square, 2 degrees of freedom: the 0.999 quantile is 13.82.
        let chi2: f64 = counts
            .iter()
            .zip(q)
            .map(|(c, p)| (c - p * n as f64).powi(2) / (p * n as f64))
            .sum();
        assert!(chi2 < 13.82, "{chi2} {counts:?}");
        assert_eq!(draw_arm(&q, 11, 5), draw_arm(&q, 11, 5));
        let differ = (1..100).any(|c| draw_arm(&q, 11, c) != draw_arm(&q, 12, c));
        assert!(differ, "the seed moves the draws");
    }

    #[test]
    fn long_runs_neither_overflow_nor_lose_the_arms() {
        let b = bandit("exp3(arms: [uniform, change], gamma: 0.05)");
        let mut s = b.start();
        let mut q = Vec::new();
        for cycle in 1..=100_000u32 {
            b.probabilities(&s, &mut q);
            let arm = draw_arm(&q, 3, cycle);
            b.update(&mut s, arm, q[arm], if arm == 0 { 1.0 } else { 0.2 });
        }
        b.probabilities(&s, &mut q);
        assert!(q.iter().all(|x| x.is_finite() && *x >= 0.05 / 2.0), "{q:?}");
        assert!(q[0] > 0.97, "the better arm dominates: {q:?}");
        assert!(s.log_weights().iter().all(|w| w.is_finite()));
    }

    #[test]
    fn bad_bandits_are_refused_with_reasons() {
        let all = Grammar::extended();
        for (text, says) in [
            ("exp3(arms: [])", "at least one arm"),
            ("exp3(arms: [uniform], gamma: 0)", "gamma must be in (0, 1]"),
            (
                "exp3(arms: [uniform], gamma: 1.5)",
                "gamma must be in (0, 1]",
            ),
            ("exp3(arms: [uniform], gamma: nan)", "1:26: Expected float"),
            (
                "exp3(arms: [uniform], reward: clicks)",
                "reward: not a reward",
            ),
            (
                "exp3(arms: [uniform, uniform])",
                "arm 1 (`uniform`) repeats arm 0",
            ),
            ("exp3(arms: [kab2, kab3])", "arm 2 (`weight`) repeats arm 0"),
            ("exp3(arms: [nutch, stormcrawler])", "one such arm"),
            ("exp3(arms: [lamda])", "unknown policy `lamda`"),
            ("exp3(arms: [uniform], gama: 0.1)", "gama"),
            ("exp3(arms: [formula(\"t *\")])", "expected an operand"),
            (
                "exp3(arms: [uniform], forget: discount(window: 0))",
                "W >= 1",
            ),
            ("exp3(arms: [uniform], rate: horizon(0))", "T >= 1"),
            (
                "exp3(arms: [uniform], rate: sometimes)",
                "rate: expected fixed",
            ),
            (
                "exp3(arms: [uniform], forget: all)",
                "forget: expected none",
            ),
            (
                "exp3(arms: [uniform], forget: share(alpha: 0))",
                "alpha in (0, 1]",
            ),
            (
                "exp3(arms: [uniform], forget: share(alpha: 1.5))",
                "alpha in (0, 1]",
            ),
            (
                "exp3(arms: [uniform], eta: -1)",
                "eta must be finite and > 0",
            ),
            (
                "exp3(arms: [uniform], eta: 0)",
                "eta must be finite and > 0",
            ),
            (
                "exp3(arms: [uniform], gamma: 0.2, rate: anytime)",
                "set by the rate schedule",
            ),
            (
                "exp3(arms: [uniform], eta: 0.2, rate: horizon(9))",
                "set by the rate schedule",
            ),
        ] {
            let err = Policy::parse(text, &all).unwrap_err().to_string();
            assert!(err.contains(says), "{text}: {err}");
        }
    }

    #[test]
    fn arms_may_come_from_policy_files() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("best.txt");
        std::fs::write(&file, "# evolved for WNDCG\n\n  w * t / (MLE + 1)\n").unwrap();
        let text = format!("exp3(arms: [kab2, file({:?})])", file.display().to_string());
        let b = bandit(&text);
        assert_eq!(b.arms().len(), 3);
        assert_eq!(b.arms()[2].to_string(), "w * t / (MLE + 1)");
        // Relative paths: against the directory a study file is read in.
        let relative = "exp3(arms: [kab2, file(\"best.txt\")])";
        let inside = with_in(dir.path(), relative);
        assert_eq!(inside.unwrap(), Policy::Bandit(b));
        let missing = Policy::parse("exp3(arms: [file(\"no/such.txt\")])", &Grammar::all());
        assert!(missing
            .unwrap_err()
            .to_string()
            .contains("cannot read policy file no/such.txt"));
        std::fs::write(&file, "# nothing\n").unwrap();
        let empty = with_in(dir.path(), relative).unwrap_err().to_string();
        assert!(empty.contains("holds no policy"), "{empty}");
    }

    /// The log weights after `updates` (arm, reward) of `b` from the start, each arm drawn
    /// with the probability the bandit gives it then.
    fn after(b: &Exp3<Scorer>, updates: &[(usize, f64)]) -> (Exp3State, Vec<f64>) {
        let mut s = b.start();
        let mut q = Vec::new();
        for &(arm, x) in updates {
            b.probabilities(&s, &mut q);
            b.update(&mut s, arm, q[arm], x);
        }
        (s, q)
    }

    #[test]
    fn discounted_exp3_by_hand() {
        // K = 2, γ = 0.2, η = 1, window 2 (each log weight kept at 1/2 per cycle).
        let b = bandit(
            "exp3(arms: [uniform, change], gamma: 0.2, eta: 1, forget: discount(window: 2))",
        );
        // Cycle 1: q = (0.5, 0.5); arm 0 earns 0.5: x̂ = 1, log weights (1, 0).
        let (s, q) = after(&b, &[(0, 0.5)]);
        assert_eq!(q, [0.5, 0.5]);
        assert_eq!(s.log_weights(), [1.0, 0.0]);
        // Cycle 2: q1 = 0.8·1/(1 + e) + 0.1; arm 1 earns 1: (1·½, 0·½ + 1/q1).
        let (s, q) = after(&b, &[(0, 0.5), (1, 1.0)]);
        let q1 = 0.8 / (1.0 + 1f64.exp()) + 0.1;
        assert!((q[1] - q1).abs() < 1e-15);
        assert!((s.log_weights()[0] - 0.5).abs() < 1e-15);
        assert!((s.log_weights()[1] - 1.0 / q1).abs() < 1e-12);
        assert_eq!(s.plays(), 2);
    }

    #[test]
    fn exp3s_by_hand_in_plain_weights() {
        // EXP3.S (Auer et al. 2002, Fig. 8) over plain weights, K = 2, γ = 0.2, α = 0.5,
        // η = γ/K = 0.1: w_j ← w_j·exp(η·x̂_j) + (e·α/K)·Σw.
        let b = bandit("exp3(arms: [uniform, change], gamma: 0.2, forget: share(alpha: 0.5))");
        let updates = [(0, 1.0), (0, 0.3), (1, 0.9), (0, 0.0)];
        let (s, _) = after(&b, &updates);
        let mut w = [1.0f64, 1.0];
        for (arm, x) in updates {
            let total = w[0] + w[1];
            let q: Vec<f64> = w.iter().map(|wj| 0.8 * wj / total + 0.1).collect();
            let share = std::f64::consts::E * 0.5 / 2.0 * total;
            for j in 0..2 {
                let gain = if j == arm { 0.1 * x / q[j] } else { 0.0 };
                w[j] = w[j] * gain.exp() + share;
            }
        }
        // The state keeps ln w shifted so the smallest is 0: compare the ratio.
        let ratio = s.log_weights()[0] - s.log_weights()[1];
        assert!((ratio - (w[0] / w[1]).ln()).abs() < 1e-12, "{ratio} {w:?}");
        assert!(s.log_weights().contains(&0.0));
    }

    #[test]
    fn rate_schedules_set_gamma_as_auer() {
        let e1 = std::f64::consts::E - 1.0;
        let horizon = bandit("exp3(arms: [uniform, change], rate: horizon(55))");
        let g55 = (2.0 * 2f64.ln() / (e1 * 55.0)).sqrt();
        assert!((horizon.learning().gamma_at(2, 1) - g55).abs() < 1e-15);
        assert_eq!(
            horizon.learning().gamma_at(2, 1),
            horizon.learning().gamma_at(2, 40)
        );
        // One update from the start: step γ/K, q = 1/2.
        let (s, _) = after(&horizon, &[(1, 0.6)]);
        assert!((s.log_weights()[1] - g55 / 2.0 * 0.6 / 0.5).abs() < 1e-15);
        // Anytime: γ of the t-th cycle, min(1, √(K ln K / ((e-1) t))).
        let any = bandit("exp3(arms: [uniform, change, weight], rate: anytime)");
        let l = any.learning();
        assert_eq!(l.gamma_at(3, 1), 1.0, "3 ln 3 / (e - 1) > 1");
        let g9 = (3.0 * 3f64.ln() / (e1 * 9.0)).sqrt();
        assert!((l.gamma_at(3, 9) - g9).abs() < 1e-15);
        // After 8 plays the probabilities use γ of cycle 9.
        let (s, _) = after(&any, &[(0, 1.0); 8]);
        let mut q = Vec::new();
        any.probabilities(&s, &mut q);
        let w: Vec<f64> = s.log_weights().iter().map(|x| x.exp()).collect();
        let sum: f64 = w.iter().sum();
        assert!((q[0] - ((1.0 - g9) * w[0] / sum + g9 / 3.0)).abs() < 1e-12);
    }

    #[test]
    fn found_rewards_the_weight_found() {
        use crate::metric::CycleMetrics;
        let m = CycleMetrics {
            cycle: 1,
            change_rate: 0.5,
            wchange_rate: 0.25,
            ndcg: 0.1,
            freshness: 0.2,
            wndcg: 0.3,
            wfreshness: 0.4,
            newly_visited: 0.0,
            stale: 3,
            visited: 2,
        };
        assert_eq!(Reward::Found.of(&m), 0.25);
        assert_eq!(Reward::Metric(Metric::WFreshness).of(&m), 0.4);
    }

    fn with_in(dir: &std::path::Path, text: &str) -> Result<Policy, PolicyError> {
        with_policy_files_in(dir, || Policy::parse(text, &Grammar::all()))
    }

    #[test]
    fn presets_and_text_round_trip() {
        let all = Grammar::extended();
        assert_eq!(bandit("kab5").arms().len(), 5);
        assert_eq!(bandit("KAB2").to_string(), "kab2");
        let gp = bandit(r#"exp3(arms: [kab5, formula("w * t / (MLE + 1)")])"#);
        assert_eq!(gp.arms().len(), 6);
        for text in [
            "kab2",
            "kab3",
            "kab5",
            r#"exp3(arms: [kab5, formula("w * t / (MLE + 1)")], gamma: 0.1)"#,
            "exp3(arms: [lambda_harmonic, nutch, NAD, formula(\"(NAD)\")], gamma: 0.25, reward: wfreshness)",
            "exp3(arms: [lambda-harmonic, formula(\"w - t\")], gamma: 0.5)",
            "exp3(arms: [adaptive(init: 7, min: 1, max: 28, inc: 0.25, dec: 0.5)], gamma: 1)",
            r#"exp3(arms: [formula("X / n [Reference closure]")], gamma: 0.1)"#,
            "exp3(arms: [weight, value], gamma: 0.1, reward: found)",
            "exp3(arms: [weight, value], gamma: 0.2, eta: 1.5, forget: discount(window: 7))",
            "exp3(arms: [weight, change], rate: horizon(55), forget: share(alpha: 0.01), reward: wfreshness)",
            "exp3(arms: [weight, change], rate: anytime, reward: found)",
        ] {
            let policy = Policy::parse(text, &all).unwrap();
            let written = policy.to_string();
            assert_eq!(Policy::parse(&written, &all).unwrap(), policy, "{written}");
            let json = serde_json::to_string(&policy).unwrap();
            assert_eq!(serde_json::from_str::<Policy>(&json).unwrap(), policy);
            let ron_text = format!("[{}]", policy.ron());
            let read: Vec<Policy> = ron::from_str(&ron_text).unwrap();
            assert_eq!(read, std::slice::from_ref(&policy), "{ron_text}");
            let binary = bincode::serialize(&policy).unwrap();
            assert_eq!(bincode::deserialize::<Policy>(&binary).unwrap(), policy);
        }
    }
}
