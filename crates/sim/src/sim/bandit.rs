//! A bandit in a simulation run (`docs/src/reference/bandit.md`): the [`Chooser`] both
//! simulators drive a run through — it hands out the policy that scores each cycle (the
//! policy itself, or the arm a bandit draws, [`draw_arm`]) and rewards the arm with the
//! cycle's value of the bandit's metric ([`Exp3::update`](crate::policy::Exp3::update)) —
//! and the [`ArmChoice`] each scored cycle records in the [`Outcome`](super::Outcome).

use crate::metric::{CycleMetrics, Metric};
use crate::policy::{draw_arm, Exp3, Exp3State, Policy, Reward, Scorer};
use serde::{Deserialize, Serialize};

/// One scored cycle of a bandit: the arm drawn, every arm's probability, and the reward.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArmChoice {
    /// Cycle number inside the period (1-based).
    pub cycle: usize,
    /// The arm that chose the cycle's visits (index into the bandit's arms).
    pub arm: usize,
    /// Every arm's probability in that cycle.
    pub q: Vec<f64>,
    /// The reward the arm earned (the cycle's value of the bandit's reward).
    pub reward: f64,
}

/// The share of `choices` in which each of `arms` arms was drawn (zeros without choices).
pub fn arm_shares<'a>(choices: impl IntoIterator<Item = &'a ArmChoice>, arms: usize) -> Vec<f64> {
    let mut shares = vec![0.0; arms];
    let mut drawn = 0usize;
    for c in choices {
        drawn += 1;
        if let Some(share) = shares.get_mut(c.arm) {
            *share += 1.0;
        }
    }
    if drawn > 0 {
        for share in &mut shares {
            *share /= drawn as f64;
        }
    }
    shares
}

/// Drives one run of a policy: hands out the scorer of each cycle (the policy itself, or
/// the arm a bandit draws) and, for a bandit, takes each cycle's reward.
#[derive(Debug, Clone)]
pub(crate) enum Chooser<'p> {
    /// A policy that scores every cycle itself.
    Scorer(&'p Scorer),
    /// A bandit, and its run-time state.
    Bandit(&'p Exp3<Scorer>, Running),
}

/// A bandit's run-time state inside a [`Chooser`].
#[derive(Debug, Clone)]
pub(crate) struct Running {
    state: Exp3State,
    q: Vec<f64>,
    seed: u64,
    reward: Reward,
    /// The arm drawn for the cycle scored last (until it is rewarded).
    drawn: Option<usize>,
}

impl<'p> Chooser<'p> {
    /// A run of `policy` with seed `seed`; a bandit that names no reward metric is
    /// rewarded by `metric` (the run's).
    pub(crate) fn new(policy: &'p Policy, seed: u64, metric: Metric) -> Chooser<'p> {
        match policy {
            Policy::Scorer(s) => Chooser::Scorer(s),
            Policy::Bandit(b) => Chooser::Bandit(
                b,
                Running {
                    state: b.start(),
                    q: Vec::new(),
                    seed,
                    reward: b.reward().unwrap_or(Reward::Metric(metric)),
                    drawn: None,
                },
            ),
        }
    }

    /// The scorer of `cycle`.
    pub(crate) fn scorer(&mut self, cycle: u32) -> &'p Scorer {
        match self {
            Chooser::Scorer(s) => s,
            Chooser::Bandit(b, run) => {
                b.probabilities(&run.state, &mut run.q);
                let arm = draw_arm(&run.q, run.seed, cycle);
                run.drawn = Some(arm);
                &b.arms()[arm]
            }
        }
    }

    /// Rewards the arm drawn for the cycle of `metrics`: the arm choice to report, or
    /// `None` for a policy that is no bandit.
    pub(crate) fn reward(&mut self, metrics: &CycleMetrics) -> Option<ArmChoice> {
        let Chooser::Bandit(b, run) = self else {
            return None;
        };
        let arm = run.drawn.take()?;
        let x = run.reward.of(metrics);
        let q = run.q.clone();
        b.update(&mut run.state, arm, q[arm], x);
        Some(ArmChoice {
            cycle: metrics.cycle,
            arm,
            q,
            reward: x,
        })
    }
}
