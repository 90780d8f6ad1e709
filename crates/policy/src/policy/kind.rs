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
/// simulation visits the best-scored `k`. It is a [`Scorer`], which scores pages itself,
/// or a bandit over scorers, each cycle of which one arm (drawn by the run) scores. Every
/// policy
///
/// - declares the page features it reads ([`Policy::features`]): the simulators and the
///   scheduler compute only those terminals (a formula's or a model's as columns);
/// - may keep per-page memory of its own
///   ([`PageState::memory`](super::PageState::memory)), which every visit updates,
///   warm-up visits included ([`Policy::visit`]); pages of equal statistics and equal
///   memory are still scored once.
///
/// Written as text with [`Policy::parse`] and its `Display`, exact inverses.
/// Serialized as that text in human-readable formats (JSON: `study.json`, unit results;
/// RON study files write it as the command line does, see its `Deserialize`) and as its
/// specification (`PolicySpec`) in binary ones (the scheduler's state); deserializing
/// checks and compiles it, so a `Policy` never holds an unchecked formula or interval.
#[derive(Debug, Clone)]
pub enum Policy {
    /// A policy that scores pages itself.
    Scorer(Scorer),
    /// An EXP3 bandit over scorers (docs/src/reference/bandit.md): each scored cycle one
    /// arm, drawn by the run, scores the pages (see [`Exp3`]). Its arms are no bandits:
    /// the type cannot nest.
    Bandit(Exp3<Scorer>),
}

/// A policy that scores pages itself (every kind but a bandit): it scores a batch of page
/// states into the caller's buffer ([`Scorer::score_into`]), or one page
/// ([`Scorer::score_one`]), with the same result bit for bit, in the cycle's context
/// ([`Scorer::context`]).
#[derive(Debug, Clone)]
pub enum Scorer {
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
        Scorer::formula_compiled(formula, closure, None).into()
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
        Scorer::formula_with(formula, closure, model).map(Policy::Scorer)
    }

    /// The scorer, if it is one (not a bandit).
    pub fn scorer(&self) -> Option<&Scorer> {
        match self {
            Policy::Scorer(s) => Some(s),
            Policy::Bandit(_) => None,
        }
    }

    /// The bandit, if it is one.
    pub fn bandit(&self) -> Option<&Exp3<Scorer>> {
        match self {
            Policy::Bandit(b) => Some(b),
            Policy::Scorer(_) => None,
        }
    }

    /// The formula policy, if it is one.
    pub fn formula_policy(&self) -> Option<&FormulaPolicy> {
        match self {
            Policy::Scorer(Scorer::Formula(f)) => Some(f),
            _ => None,
        }
    }

    /// The learned model a scorer reads (a model policy's, or the one that gives a
    /// formula's `P`), if any; a bandit's arms are asked one by one.
    pub fn learned(&self) -> Option<&Predictor> {
        self.scorer().and_then(Scorer::learned)
    }

    /// Whether a run grouped by `grouping` (an attribute; `None`: host) computes every
    /// group rate the policy's learned models read (its own, or its arms').
    ///
    /// # Errors
    /// A model that reads `group:KEY` of another attribute (see [`Predictor`]).
    pub fn check_grouping(&self, grouping: Option<&str>) -> Result<(), GroupingError> {
        self.scorers()
            .filter_map(Scorer::learned)
            .try_for_each(|m| m.check_grouping(grouping))
    }

    /// The scorers it runs: itself, or a bandit's arms.
    pub fn scorers(&self) -> std::slice::Iter<'_, Scorer> {
        match self {
            Policy::Scorer(s) => std::slice::from_ref(s).iter(),
            Policy::Bandit(b) => b.arms().iter(),
        }
    }

    /// The page features (terminals) its scores read (a bandit's: what any arm reads).
    pub fn features(&self) -> Features {
        self.scorers()
            .fold(Features::NONE, |all, s| all.union(s.features()))
    }

    /// Whether its scores depend on the whole population (a rate policy, or a bandit with
    /// one as an arm): then they must be computed in a context from [`Scorer::context`].
    pub fn needs_population(&self) -> bool {
        self.scorers().any(Scorer::needs_population)
    }

    /// Whether it keeps per-page memory (then the warm-up's state depends on it).
    pub fn remembers(&self) -> bool {
        self.scorers().any(Scorer::remembers)
    }

    /// Whether its ranking depends on the random tie-break only.
    pub fn is_random(&self) -> bool {
        self.scorer().is_some_and(Scorer::is_random)
    }
}

impl Scorer {
    /// A formula evaluated under `closure`, its `P` given by `model`, compiled now (as
    /// [`Policy::formula_with`]).
    ///
    /// # Errors
    /// As [`Policy::formula_with`].
    pub fn formula_with(
        formula: &Formula,
        closure: Closure,
        model: Option<&Predictor>,
    ) -> Result<Scorer, PolicyError> {
        match (formula.terminals().contains(&Terminal::P), model) {
            (true, None) => Err(PolicyError::Model(ModelUseError::Missing {
                formula: formula.to_string(),
            })),
            (false, Some(m)) => Err(PolicyError::Model(ModelUseError::Unused {
                formula: formula.to_string(),
                path: m.path().to_string(),
            })),
            (_, model) => Ok(Scorer::formula_compiled(formula, closure, model.cloned())),
        }
    }

    pub(crate) fn formula_compiled(
        formula: &Formula,
        closure: Closure,
        model: Option<Predictor>,
    ) -> Scorer {
        Scorer::Formula(FormulaPolicy {
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
            Scorer::Model(m) => Some(m),
            Scorer::Formula(f) => f.model.as_ref(),
            Scorer::Baseline(_)
            | Scorer::Adaptive(_)
            | Scorer::Rate(_)
            | Scorer::Value
            | Scorer::Oracle => None,
        }
    }

    /// The page features (terminals) its scores read.
    pub fn features(&self) -> Features {
        match self {
            Scorer::Formula(f) => {
                let own = Features::of(f.program.terminals());
                f.model
                    .iter()
                    .flat_map(Predictor::terminals)
                    .fold(own, Features::with)
            }
            Scorer::Model(m) => m
                .terminals()
                .fold(Features::of(&[Terminal::P]), Features::with),
            Scorer::Baseline(b) => b.features(),
            Scorer::Adaptive(_) => Features::of(&[Terminal::T]),
            Scorer::Rate(r) => {
                let mut features = Features::of(&[Terminal::T]);
                if r.reads_importance() {
                    features = features.with(Terminal::W);
                }
                if r.reads_change_rate() {
                    features = features.with(Terminal::MLE);
                }
                features
            }
            Scorer::Value => Features::of(&[Terminal::T, Terminal::W, Terminal::MLE]),
            Scorer::Oracle => Features::of(&[Terminal::T, Terminal::W]).with_latent(),
        }
    }

    /// Whether its scores depend on the whole population (a rate policy): then they must
    /// be computed in a context from [`Scorer::context`].
    pub fn needs_population(&self) -> bool {
        matches!(self, Scorer::Rate(_))
    }

    /// Whether it keeps per-page memory (then the warm-up's state depends on it).
    pub fn remembers(&self) -> bool {
        matches!(self, Scorer::Adaptive(_))
    }

    /// Whether its ranking depends on the random tie-break only.
    pub fn is_random(&self) -> bool {
        matches!(self, Scorer::Baseline(b) if b.is_random())
    }
}

impl From<Scorer> for Policy {
    fn from(s: Scorer) -> Policy {
        Policy::Scorer(s)
    }
}

impl From<Baseline> for Scorer {
    fn from(b: Baseline) -> Scorer {
        Scorer::Baseline(b)
    }
}

impl From<Baseline> for Policy {
    fn from(b: Baseline) -> Policy {
        Policy::Scorer(Scorer::Baseline(b))
    }
}

impl From<RatePolicy> for Policy {
    fn from(r: RatePolicy) -> Policy {
        Policy::Scorer(Scorer::Rate(r))
    }
}

impl From<Adaptive> for Policy {
    fn from(a: Adaptive) -> Policy {
        Policy::Scorer(Scorer::Adaptive(a))
    }
}

impl Arm for Scorer {
    fn remembers(&self) -> bool {
        Scorer::remembers(self)
    }
}
