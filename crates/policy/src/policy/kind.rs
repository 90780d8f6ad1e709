//! [`Policy`] itself (a [`Scorer`] or a bandit over scorers) and every kind of scorer in one
//! place (a formula, a baseline, adaptive intervals, a rate policy, the crawl value, a
//! learned model, the oracle): how one is built, what it reads, its name and text, its
//! per-page memory ([`Policy::fresh_page`], [`Policy::visit`]) and its score of one page.
//! Scoring pages in a cycle's context is `score.rs`; reading policy text, `text.rs`; its
//! files, `spec.rs`.

use super::context::rate_input;
use super::BANDIT_PRESETS;
use super::{crawl_value, oracle_score, Histories, PageState, PageStats, ScoreContext};
use super::{Adaptive, AdaptiveError, Arm, BanditError, Baseline, Exp3, Features, GroupingError};
use super::{ModelUseError, Predictor, RatePolicy, NO_GROUP, NO_HOST};
use crate::eval::Program;
use crate::formula::{Closure, Formula, ParseError, Terminal};
use std::fmt;

/// The oracle's name (docs/src/reference/policies.md#the-oracle). It is no member of
/// [`Policy::named`], whose policies every history can run: the oracle needs a history's
/// latent change probabilities.
pub(crate) const ORACLE: &str = "oracle";

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
    /// Its score from its terminals' values. Off the hot paths ([`Scorer::score_one`] and
    /// [`Scorer::score_into`] evaluate formulas themselves), and kept out of line so that
    /// the other kinds' scores stay small where they are inlined.
    #[cold]
    #[inline(never)]
    fn score_from(&self, value: &impl Fn(Terminal) -> f64) -> f64 {
        let mut values = [0.0; Terminal::COUNT];
        for t in self.program.terminals() {
            values[t.index()] = value(*t);
        }
        self.program.eval_one(&values)
    }

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

impl Policy {
    /// The state of a page never visited, of weight 1 and without a host.
    pub fn fresh_page(&self) -> PageState {
        self.fresh_page_of(1.0, NO_HOST, NO_GROUP)
    }

    /// The state of a page never visited, of weight `weight`, host `host` ([`NO_HOST`]
    /// for none) and group `group` ([`NO_GROUP`] for none), keeping the statistics this
    /// policy reads ([`Features::track`](super::Features::track)).
    pub fn fresh_page_of(&self, weight: f64, host: u32, group: u32) -> PageState {
        PageState {
            stats: PageStats::new(self.features().track(), weight, host, group),
            memory: self.remembering().map_or(0.0, Scorer::fresh_memory),
        }
    }

    /// The scorer whose per-page memory pages keep: itself, or a bandit's one arm that
    /// keeps memory; `None` when none does.
    fn remembering(&self) -> Option<&Scorer> {
        self.scorers().find(|s| s.remembers())
    }

    /// Whether `memory` is a page memory this policy can reach (for checking saved states).
    pub fn valid_memory(&self, memory: f64) -> bool {
        self.remembering()
            .map_or(memory == 0.0, |s| s.valid_memory(memory))
    }

    /// Records a visit at cycle `d` that did (or did not) find the page changed: the
    /// statistics ([`PageStats::visit`], which interns visit intervals in `histories`
    /// when the page keeps them) and the policy's memory (a bandit's: its arm's that keeps
    /// memory, whichever arm chose the visit).
    #[inline]
    pub fn visit(&self, page: &mut PageState, d: u32, changed: bool, histories: &mut Histories) {
        page.stats.visit(d, changed, histories);
        match self {
            Policy::Scorer(s) => s.remember(page, changed),
            Policy::Bandit(b) => {
                if let Some(s) = b.remembering_arm() {
                    s.remember(page, changed);
                }
            }
        }
    }
}

/// What each kind of scorer is, in one place (ARCHITECTURE.md, "A new crawl policy"): its
/// name and text, its per-page memory and its score.
impl Scorer {
    /// The named policies that are no bandit: the baselines, the rate policies, the crawl
    /// value and the adaptive presets (the oracle is named but no member: see
    /// [`ORACLE`]).
    pub(crate) fn named() -> Vec<Scorer> {
        let mut all: Vec<Scorer> = Baseline::ALL.map(Scorer::Baseline).to_vec();
        all.extend(RatePolicy::ALL.map(Scorer::Rate));
        all.push(Scorer::Value);
        all.extend(Adaptive::PRESETS.map(|(_, a)| Scorer::Adaptive(a)));
        all
    }

    /// The scorer called `name` (as [`Policy::by_name`], bandit presets aside), if any.
    pub fn by_name(name: &str) -> Option<Scorer> {
        let name = name.trim().replace('_', "-");
        if name.eq_ignore_ascii_case(ORACLE) {
            return Some(Scorer::Oracle);
        }
        Scorer::named()
            .into_iter()
            .find(|p| p.to_string().eq_ignore_ascii_case(&name))
    }

    /// Whether `text` names a policy of [`Policy::named`] or the oracle (then a formula
    /// written so is put in parentheses, to read back as the formula).
    fn names_a_policy(text: &str) -> bool {
        let name = text.trim().replace('_', "-");
        BANDIT_PRESETS
            .iter()
            .any(|(preset, _)| preset.eq_ignore_ascii_case(&name))
            || Scorer::by_name(&name).is_some()
    }

    /// The scorer as a RON value (as [`Policy::ron`]).
    pub fn ron(&self) -> String {
        match self {
            Scorer::Formula(_) => {
                let text = self.to_string();
                let text = text
                    .strip_prefix('(')
                    .and_then(|t| t.strip_suffix(')'))
                    .filter(|t| Scorer::names_a_policy(t))
                    .map_or(text.clone(), str::to_string);
                format!("formula({text:?})")
            }
            Scorer::Adaptive(_) => self.to_string(),
            Scorer::Model(m) => format!("model({:?})", m.path()),
            Scorer::Baseline(_) | Scorer::Rate(_) | Scorer::Value | Scorer::Oracle => {
                self.to_string().replace('-', "_")
            }
        }
    }

    /// The memory of a page never visited.
    pub(super) fn fresh_memory(&self) -> f64 {
        match self {
            Scorer::Adaptive(a) => a.initial(),
            Scorer::Formula(_)
            | Scorer::Baseline(_)
            | Scorer::Rate(_)
            | Scorer::Value
            | Scorer::Oracle
            | Scorer::Model(_) => 0.0,
        }
    }

    /// Whether `memory` is a page memory this scorer can reach.
    pub(super) fn valid_memory(&self, memory: f64) -> bool {
        match self {
            Scorer::Adaptive(a) => a.reaches(memory),
            Scorer::Formula(_)
            | Scorer::Baseline(_)
            | Scorer::Rate(_)
            | Scorer::Value
            | Scorer::Oracle
            | Scorer::Model(_) => memory == 0.0,
        }
    }

    /// Updates the page's memory after a visit that did (or did not) find it changed.
    #[inline]
    pub(super) fn remember(&self, page: &mut PageState, changed: bool) {
        match self {
            Scorer::Adaptive(a) => page.memory = a.next_interval(page.memory, changed),
            Scorer::Formula(_)
            | Scorer::Baseline(_)
            | Scorer::Rate(_)
            | Scorer::Value
            | Scorer::Oracle
            | Scorer::Model(_) => {}
        }
    }

    /// The score of a page from the values of the terminals it reads (a rate policy's
    /// change probabilities from `probability`, which gives what [`change_probability`]
    /// gives). A formula's arm evaluates it from those values alone; [`Scorer::score_one`]
    /// and [`Scorer::score_into`] evaluate formulas themselves (with their model's `P`),
    /// over every terminal or over columns.
    #[inline]
    pub(super) fn score_page(
        &self,
        page: &PageState,
        context: &ScoreContext<'_>,
        value: impl Fn(Terminal) -> f64,
        probability: impl FnOnce(f64) -> (f64, f64),
    ) -> f64 {
        match self {
            Scorer::Formula(f) => f.score_from(&value),
            Scorer::Model(_) => value(Terminal::P),
            Scorer::Baseline(b) => b.score(value),
            Scorer::Adaptive(_) => value(Terminal::T) / page.memory,
            Scorer::Rate(r) => {
                // Invariant: `Scorer::context` solves the rates of every rate policy, and
                // `ScoreContext::at` documents that it serves only the others.
                let rates = context
                    .rates
                    .as_ref()
                    .expect("invariant: a rate policy is scored in the context of its cycle");
                if context.sampling {
                    r.rate_by(rate_input(*r, &value), rates, probability)
                } else {
                    r.owed_by(
                        rate_input(*r, &value),
                        rates,
                        value(Terminal::T),
                        probability,
                    )
                }
            }
            Scorer::Value => {
                crawl_value(value(Terminal::W), value(Terminal::MLE), value(Terminal::T))
            }
            Scorer::Oracle => {
                oracle_score(value(Terminal::W), page.stats.latent(), value(Terminal::T))
            }
        }
    }
}

impl fmt::Display for Scorer {
    /// The formula text, followed by ` [Reference closure]` when not the paper's; a
    /// baseline's name; an adaptive preset's name or its parameters.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scorer::Formula(p) => {
                let text = p.formula.to_string();
                // A formula that is one terminal named like a policy (`NAD`, `CG`) is
                // written `(NAD)`, so that it reads back as the formula, not the baseline.
                if Scorer::names_a_policy(&text) {
                    write!(f, "({text})")?;
                } else {
                    f.write_str(&text)?;
                }
                if let Some(m) = &p.model {
                    write!(f, " [model {}]", m.path())?;
                }
                if p.closure != Closure::Paper {
                    write!(f, " [{:?} closure]", p.closure)?;
                }
                Ok(())
            }
            Scorer::Model(m) => write!(f, "model:{}", m.path()),
            Scorer::Baseline(b) => write!(f, "{b}"),
            Scorer::Adaptive(a) => write!(f, "{a}"),
            Scorer::Rate(r) => f.write_str(r.name()),
            Scorer::Value => f.write_str("value"),
            Scorer::Oracle => f.write_str(ORACLE),
        }
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
