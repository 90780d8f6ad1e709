//! [`Policy`] itself: its kinds (a formula, a baseline, adaptive intervals, a rate policy,
//! the crawl value, a learned model, a bandit), how one is built, and what each reads and
//! keeps. How a policy scores is `score.rs`; its page memory, `state.rs`; its text,
//! `text.rs`; its files, `spec.rs`.

use super::{Adaptive, AdaptiveError, Arm, BanditError, Baseline, Exp3, Features, GroupingError};
use super::{ModelUseError, Predictor, RatePolicy};
use crate::eval::Program;
use crate::formula::{Closure, Formula, ParseError, Terminal};

/// A crawl policy, checked and ready to run: it scores every page at cycle `d` from what
/// the crawl knows at the end of cycle `d - 1` (docs/src/reference/policies.md), and the
/// simulation visits the best-scored `k`. Every policy
///
/// - declares the page features it reads ([`Policy::features`]): the simulators and the
///   scheduler compute only those terminals (a formula's or a model's as columns);
/// - may keep per-page memory of its own
///   ([`PageState::memory`](super::PageState::memory)), which every visit updates,
///   warm-up visits included ([`Policy::visit`]); pages of equal statistics and equal
///   memory are still scored once;
/// - scores a batch of page states into the caller's buffer ([`Policy::score_into`]), or
///   one page ([`Policy::score_one`]), with the same result bit for bit.
///
/// Written as text with [`Policy::parse`] and its `Display`, exact inverses.
/// Serialized as that text in human-readable formats (JSON: `study.json`, unit results;
/// RON study files write it as the command line does, see its `Deserialize`) and as its
/// specification (`PolicySpec`) in binary ones (the scheduler's state); deserializing
/// checks and compiles it, so a `Policy` never holds an unchecked formula or interval.
#[derive(Debug, Clone)]
pub enum Policy {
    /// An evolved formula, compiled.
    Formula(FormulaPolicy),
    /// A built-in baseline (docs/src/reference/policies.md#baselines).
    Baseline(Baseline),
    /// Adaptive revisit intervals (docs/src/reference/policies.md#adaptive-intervals).
    Adaptive(Adaptive),
    /// A rate policy of the literature (docs/src/reference/policies.md#rate-policies):
    /// scores `ρ · t`.
    Rate(RatePolicy),
    /// The crawl value `w·(1 - (1 + δt)e^{-δt}) / δ` with `δ = MLE`
    /// (docs/src/reference/policies.md#the-crawl-value).
    Value,
    /// A learned change model (`model:FILE`, docs/src/reference/policies.md#learned-models):
    /// scores the predicted change probability, from the page's own visits (see
    /// [`Predictor`]).
    Model(Predictor),
    /// The oracle (docs/src/reference/policies.md#the-oracle): `w · (1 − (1 − q)^t)` with
    /// each page's latent change probability q, which only a synthetic history records
    /// and no terminal reads.
    Oracle,
    /// An EXP3 bandit over policies (docs/src/reference/bandit.md): each scored cycle one
    /// arm, drawn by the run, scores the pages (see [`Exp3`]). A bandit is never scored
    /// itself: [`Policy::context`], [`Policy::score_one`] and [`Policy::score_into`] take
    /// one of its arms.
    Bandit(Exp3<Policy>),
}

/// A formula under a closure, with its compiled program.
#[derive(Debug, Clone)]
pub struct FormulaPolicy {
    pub(crate) formula: Formula,
    pub(crate) closure: Closure,
    pub(crate) program: Program,
    /// The model that gives `P` (Some exactly when the formula reads `P`).
    pub(crate) model: Option<Predictor>,
}

impl FormulaPolicy {
    /// The formula.
    pub fn formula(&self) -> &Formula {
        &self.formula
    }

    /// Its protected-operator rules.
    pub fn closure(&self) -> Closure {
        self.closure
    }

    /// The model that gives its `P`, if it reads it.
    pub fn model(&self) -> Option<&Predictor> {
        self.model.as_ref()
    }
}

/// Why policy text could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PolicyError {
    /// Not a policy name, and not a formula of the grammar.
    #[error(transparent)]
    Formula(#[from] ParseError),
    /// Adaptive-interval parameters out of range.
    #[error(transparent)]
    Adaptive(#[from] AdaptiveError),
    /// A bandit that cannot be (docs/src/reference/bandit.md#arms).
    #[error(transparent)]
    Bandit(#[from] BanditError),
    /// A learned model that cannot be used (unreadable, not a model file, a feature the
    /// simulation does not compute, `P` without a model).
    #[error(transparent)]
    Model(#[from] ModelUseError),
    /// A word that is neither a policy's name nor a formula.
    #[error("unknown policy `{name}`: known policies are {known}, `adaptive(init: .., min: .., max: .., inc: .., dec: ..)`, `exp3(arms: [..], gamma: .., eta: .., rate: .., forget: .., reward: ..)`, or a formula")]
    UnknownName {
        /// What was written.
        name: String,
        /// The names of [`Policy::named`], comma-separated.
        known: String,
    },
}

impl Policy {
    /// A formula evaluated under `closure`, compiled now.
    ///
    /// # Panics
    /// If the formula reads `P`, which needs its model: use [`Policy::formula_with`].
    pub fn formula(formula: &Formula, closure: Closure) -> Policy {
        assert!(
            !formula.terminals().contains(&Terminal::P),
            "a formula that reads P needs its model (Policy::formula_with)"
        );
        Policy::formula_compiled(formula, closure, None)
    }

    /// A formula evaluated under `closure`, its `P` given by `model`, compiled now.
    ///
    /// # Errors
    /// [`PolicyError::Model`] for a formula that reads `P` without a model, or a model
    /// given to one that does not read it.
    pub fn formula_with(
        formula: &Formula,
        closure: Closure,
        model: Option<&Predictor>,
    ) -> Result<Policy, PolicyError> {
        match (formula.terminals().contains(&Terminal::P), model) {
            (true, None) => Err(PolicyError::Model(ModelUseError::Missing {
                formula: formula.to_string(),
            })),
            (false, Some(m)) => Err(PolicyError::Model(ModelUseError::Unused {
                formula: formula.to_string(),
                path: m.path().to_string(),
            })),
            (_, model) => Ok(Policy::formula_compiled(formula, closure, model.cloned())),
        }
    }

    pub(crate) fn formula_compiled(
        formula: &Formula,
        closure: Closure,
        model: Option<Predictor>,
    ) -> Policy {
        Policy::Formula(FormulaPolicy {
            program: Program::compile(formula, closure),
            formula: formula.clone(),
            closure,
            model,
        })
    }

    /// The learned model it reads (a model policy's, or the one that gives a formula's
    /// `P`), if any.
    pub fn learned(&self) -> Option<&Predictor> {
        match self {
            Policy::Model(m) => Some(m),
            Policy::Formula(f) => f.model.as_ref(),
            _ => None,
        }
    }

    /// Whether a run grouped by `grouping` (an attribute; `None`: host) computes every
    /// group rate the policy's learned models read (its own, or its arms').
    ///
    /// # Errors
    /// A model that reads `group:KEY` of another attribute (see [`Predictor`]).
    pub fn check_grouping(&self, grouping: Option<&str>) -> Result<(), GroupingError> {
        if let Policy::Bandit(b) = self {
            return b.arms().iter().try_for_each(|a| a.check_grouping(grouping));
        }
        self.learned()
            .map_or(Ok(()), |m| m.check_grouping(grouping))
    }

    /// The bandit, if it is one.
    pub fn bandit(&self) -> Option<&Exp3<Policy>> {
        match self {
            Policy::Bandit(b) => Some(b),
            _ => None,
        }
    }

    /// The page features (terminals) its scores read.
    pub fn features(&self) -> Features {
        match self {
            Policy::Formula(f) => {
                let own = Features::of(f.program.terminals());
                f.model
                    .iter()
                    .flat_map(Predictor::terminals)
                    .fold(own, Features::with)
            }
            Policy::Model(m) => m
                .terminals()
                .fold(Features::of(&[Terminal::P]), Features::with),
            Policy::Baseline(b) => b.features(),
            Policy::Adaptive(_) => Features::of(&[Terminal::T]),
            Policy::Rate(r) => {
                let mut features = Features::of(&[Terminal::T]);
                if r.reads_importance() {
                    features = features.with(Terminal::W);
                }
                if r.reads_change_rate() {
                    features = features.with(Terminal::MLE);
                }
                features
            }
            Policy::Value => Features::of(&[Terminal::T, Terminal::W, Terminal::MLE]),
            Policy::Oracle => Features::of(&[Terminal::T, Terminal::W]).with_latent(),
            Policy::Bandit(b) => b
                .arms()
                .iter()
                .fold(Features::NONE, |all, arm| all.union(arm.features())),
        }
    }

    /// Whether its scores depend on the whole population (a rate policy): then they must
    /// be computed in a context from [`Policy::context`].
    pub fn needs_population(&self) -> bool {
        match self {
            Policy::Bandit(b) => b.arms().iter().any(Policy::needs_population),
            policy => matches!(policy, Policy::Rate(_)),
        }
    }

    /// Whether it keeps per-page memory (then the warm-up's state depends on it).
    pub fn remembers(&self) -> bool {
        match self {
            Policy::Bandit(b) => b.remembering_arm().is_some(),
            policy => matches!(policy, Policy::Adaptive(_)),
        }
    }

    /// Whether its ranking depends on the random tie-break only.
    pub fn is_random(&self) -> bool {
        matches!(self, Policy::Baseline(b) if b.is_random())
    }
}

impl From<Baseline> for Policy {
    fn from(b: Baseline) -> Policy {
        Policy::Baseline(b)
    }
}

impl Arm for Policy {
    fn is_bandit(&self) -> bool {
        matches!(self, Policy::Bandit(_))
    }

    fn remembers(&self) -> bool {
        Policy::remembers(self)
    }
}
