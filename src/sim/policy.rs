//! Crawl policies: the one thing the simulators, the scheduler, experiments and reports run.
//!
//! A [`Policy`] scores every page at cycle `d` from what the crawl knows at the end of cycle
//! `d - 1` (SPEC §3, §9); the simulation visits the best-scored `k`. Every policy
//!
//! - **declares the page features it reads** ([`Policy::features`]): the simulators and
//!   the scheduler compute only those terminal columns;
//! - **may keep per-page memory of its own** ([`PageState::memory`]), which every visit
//!   updates, warm-up visits included ([`Policy::visit`]); pages of equal statistics *and*
//!   equal memory are still scored once;
//! - **scores a batch of page states** into the caller's buffer ([`Policy::score_into`]),
//!   or one page at a time ([`Policy::score_one`]), with the same result bit for bit.
//!
//! The kinds: an evolved [`Formula`] (compiled once, when the policy is built), a SPEC §4
//! [`Baseline`], and the policies of the literature (SPEC §9): the rate policies
//! ([`RatePolicy`]: `uniform`, `change`, `weight`, `lambda`, `lambda-harmonic`), the crawl
//! value (`value`) and the adaptive revisit intervals of open-source crawlers
//! ([`Adaptive`]: `nutch`, `stormcrawler`, `adaptive(..)`).
//!
//! A rate policy's scores depend on every page through one number solved per cycle, so
//! scores are computed in a [`ScoreContext`] that [`Policy::context`] makes from the
//! cycle's whole population (pages of equal state once, with their number); for every
//! other policy the context is just the cycle and the host totals.
//!
//! A policy is written as text ([`Policy::parse`], [`fmt::Display`]) and serialized as its
//! description ([`PolicySpec`]); deserializing checks it and compiles it, so a `Policy`
//! can never hold an unchecked formula or interval.
//!
//! ```
//! use freshgp::formula::Grammar;
//! use freshgp::sim::{Histories, HostRates, Policy, ScoreBuffers, ScoreContext};
//!
//! let all = Grammar::all();
//! let nad = Policy::parse("NAD", &all)?;
//! let evolved = Policy::parse("X / n * t", &all)?;
//! let nutch = Policy::parse("nutch", &all)?;
//! assert_eq!(evolved.to_string(), "X / n * t");
//!
//! // A page seen at cycles 1 and 2, changed at 2; scored at cycle 4.
//! let (mut histories, hosts) = (Histories::default(), HostRates::default());
//! let mut page = nutch.fresh_page();
//! nutch.visit(&mut page, 1, false, &mut histories);
//! nutch.visit(&mut page, 2, true, &mut histories);
//! assert_eq!(page.memory, 30.0 * 1.4 * 0.8); // the interval grew, then shrank
//! let at_4 = ScoreContext::at(4, &hosts);
//! assert_eq!(nutch.score_one(&page, &at_4), 2.0 / (30.0 * 1.4 * 0.8)); // t / interval
//! assert_eq!(evolved.score_one(&page, &at_4), 1.0); // X / n * t = 1 / 2 * 2
//! assert!(nad.score_one(&page, &at_4) > 0.0);
//!
//! // A rate policy solves its rates over the cycle's population first: here 3 copies
//! // of `page`, 1 crawl a cycle, so each is owed a third of a crawl per cycle.
//! let uniform = Policy::parse("uniform", &all)?;
//! let mut buffers = ScoreBuffers::default();
//! let context = uniform.context(4, 1, &hosts, [(&page, 3)], &mut buffers);
//! assert_eq!(uniform.score_one(&page, &context), 2.0 / 3.0); // ρ · t
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::bandit::{BanditError, Exp3};
use super::history::Histories;
use super::predictor::Predictor;
use super::rates::{crawl_value, RateInput, RatePolicy, Rates, SolvePage};
use super::stats::{HostRates, PageStats, StatsKey, Track, NO_GROUP, NO_HOST};
use super::GroupingError;
use crate::eval::{Columns, Program, Scratch, Split};
use crate::formula::{Closure, Formula, Grammar, ParseError, Terminal};
use crate::metric::Metric;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// A published baseline scoring function (SPEC §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Baseline {
    /// Uniformly random order (seeded).
    Rand,
    /// `t`: the longest-unvisited first.
    Age,
    /// `1 - exp(-NAD·t)`.
    #[serde(rename = "NAD")]
    Nad,
    /// `1 - exp(-SAD·t)`.
    #[serde(rename = "SAD")]
    Sad,
    /// `1 - exp(-AAD·t)`.
    #[serde(rename = "AAD")]
    Aad,
    /// `1 - exp(-GAD·t)`.
    #[serde(rename = "GAD")]
    Gad,
    /// Cho & Garcia-Molina's change rate (no `t`).
    #[serde(rename = "CG")]
    Cg,
}

const BASELINES_RON: &str = include_str!("../../grammars/baselines.ron");

impl Baseline {
    /// All seven, in the order of the paper's tables.
    pub const ALL: [Baseline; 7] = [
        Baseline::Rand,
        Baseline::Age,
        Baseline::Nad,
        Baseline::Sad,
        Baseline::Aad,
        Baseline::Gad,
        Baseline::Cg,
    ];

    /// The name used in tables and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Baseline::Rand => "Rand",
            Baseline::Age => "Age",
            Baseline::Nad => "NAD",
            Baseline::Sad => "SAD",
            Baseline::Aad => "AAD",
            Baseline::Gad => "GAD",
            Baseline::Cg => "CG",
        }
    }

    /// The baseline with this name (case-insensitive).
    pub fn from_name(name: &str) -> Option<Baseline> {
        Baseline::ALL
            .into_iter()
            .find(|b| b.name().eq_ignore_ascii_case(name))
    }

    /// Whether its ranking depends on the random tie-break only.
    pub fn is_random(self) -> bool {
        self == Baseline::Rand
    }

    /// The baseline as a formula, from `grammars/baselines.ron`.
    pub fn formula(self) -> Formula {
        // Invariant: grammars/baselines.ron is compiled in, and the unit test
        // `baseline_formulas_compute_the_builtin_scores` reads and parses every entry.
        let table: BTreeMap<String, String> =
            ron::from_str(BASELINES_RON).expect("invariant: grammars/baselines.ron is valid RON");
        Formula::parse(&table[self.name()], &Grammar::all())
            .expect("invariant: grammars/baselines.ron formulas parse")
    }

    /// The change-rate terminal it turns into a probability `1 - exp(-rate · t)`, if any.
    fn rate(self) -> Option<Terminal> {
        match self {
            Baseline::Nad => Some(Terminal::NAD),
            Baseline::Sad => Some(Terminal::SAD),
            Baseline::Aad => Some(Terminal::AAD),
            Baseline::Gad => Some(Terminal::GAD),
            Baseline::Rand | Baseline::Age | Baseline::Cg => None,
        }
    }

    /// The terminals its score reads.
    fn features(self) -> Features {
        match (self, self.rate()) {
            (_, Some(rate)) => Features::of(&[Terminal::T, rate]),
            (Baseline::Age, None) => Features::of(&[Terminal::T]),
            (Baseline::Cg, None) => Features::of(&[Terminal::CG]),
            _ => Features::NONE,
        }
    }

    /// The score from the values of its terminals (`values[t.index()]`; only those of
    /// [`Baseline::features`] are read).
    #[inline]
    fn score(self, value: impl Fn(Terminal) -> f64) -> f64 {
        match self {
            Baseline::Rand => 0.0,
            Baseline::Age => value(Terminal::T),
            Baseline::Cg => value(Terminal::CG),
            rated => match rated.rate() {
                Some(rate) => 1.0 - (-value(rate) * value(Terminal::T)).exp(),
                None => 0.0,
            },
        }
    }
}

impl fmt::Display for Baseline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of terminals: the page features a policy reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Features(u32);

impl Features {
    /// No feature (a policy that ranks by the tie-break alone).
    pub const NONE: Features = Features(0);

    /// The set of `terminals`.
    pub fn of(terminals: &[Terminal]) -> Features {
        terminals.iter().fold(Features::NONE, |set, &t| set.with(t))
    }

    /// This set and `terminal`.
    pub fn with(self, terminal: Terminal) -> Features {
        Features(self.0 | 1 << terminal.index())
    }

    /// The terminals of both sets.
    pub fn union(self, other: Features) -> Features {
        Features(self.0 | other.0)
    }

    /// Whether `terminal` is in the set.
    pub fn contains(self, terminal: Terminal) -> bool {
        self.0 & (1 << terminal.index()) != 0
    }

    /// The terminals in the set, in column order.
    pub fn iter(self) -> impl Iterator<Item = Terminal> {
        Terminal::ALL.into_iter().filter(move |&t| self.contains(t))
    }

    /// The SPEC §8 statistics a page must keep for these terminals to be read.
    pub fn track(self) -> Track {
        self.iter()
            .fold(Track::NONE, |track, t| track.with(Track::of(t)))
    }
}

/// What the simulation knows about one page: the SPEC §3 statistics and the policy's own
/// memory of it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PageState {
    /// Visits, detected changes and when (SPEC §3, §4).
    pub stats: PageStats,
    /// The policy's per-page memory (the revisit interval of an [`Adaptive`] policy;
    /// 0 for policies that keep none).
    pub memory: f64,
}

impl PageState {
    /// The state as a hashable key: pages with equal keys get equal scores.
    pub fn key(&self) -> StateKey {
        StateKey {
            stats: self.stats.key(),
            memory: self.memory.to_bits(),
        }
    }
}

/// [`PageState`] as a hashable key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateKey {
    stats: StatsKey,
    memory: u64,
}

/// Hashes the statistics only. Equal keys have equal statistics, so this agrees with `Eq`;
/// the hot path (formula policies, whose memory is always 0) does not hash a field that
/// never varies, and pages of equal statistics but other memory are told apart by `Eq`.
impl std::hash::Hash for StateKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.stats.hash(state);
    }
}

/// The adaptive revisit interval of open-source crawlers (SPEC §9): each page keeps an
/// interval `I` (cycles), initially `init`; after every visit `I ← max(min, I·(1 - dec))`
/// when it found a change and `I ← min(max, I·(1 + inc))` when not; the score is `t / I`.
///
/// **Invariant:** `0 < min <= init <= max` (all finite), `inc >= 0`, `0 <= dec < 1`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(into = "RawAdaptive")]
pub struct Adaptive {
    init: f64,
    min: f64,
    max: f64,
    inc: f64,
    dec: f64,
}

/// [`Adaptive`]'s fields as written, before checking.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawAdaptive {
    /// Initial interval.
    pub init: f64,
    /// Smallest interval.
    pub min: f64,
    /// Largest interval.
    pub max: f64,
    /// Relative growth after a visit that found no change.
    pub inc: f64,
    /// Relative shrinkage after a visit that found a change.
    pub dec: f64,
}

/// Why adaptive-interval parameters were refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("adaptive policy: {0}")]
pub struct AdaptiveError(String);

impl TryFrom<RawAdaptive> for Adaptive {
    type Error = AdaptiveError;

    fn try_from(raw: RawAdaptive) -> Result<Adaptive, AdaptiveError> {
        let RawAdaptive {
            init,
            min,
            max,
            inc,
            dec,
        } = raw;
        let finite = [init, min, max, inc, dec].iter().all(|v| v.is_finite());
        if !finite {
            return Err(AdaptiveError(format!("parameters must be finite: {raw:?}")));
        }
        if !(min > 0.0 && min <= init && init <= max) {
            return Err(AdaptiveError(format!(
                "need 0 < min <= init <= max, got min {min}, init {init}, max {max}"
            )));
        }
        if inc < 0.0 || !(0.0..1.0).contains(&dec) {
            return Err(AdaptiveError(format!(
                "need inc >= 0 and 0 <= dec < 1, got inc {inc}, dec {dec}"
            )));
        }
        Ok(Adaptive {
            init,
            min,
            max,
            inc,
            dec,
        })
    }
}

impl From<Adaptive> for RawAdaptive {
    fn from(a: Adaptive) -> RawAdaptive {
        RawAdaptive {
            init: a.init,
            min: a.min,
            max: a.max,
            inc: a.inc,
            dec: a.dec,
        }
    }
}

impl<'de> Deserialize<'de> for Adaptive {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Adaptive, D::Error> {
        Adaptive::try_from(RawAdaptive::deserialize(deserializer)?)
            .map_err(serde::de::Error::custom)
    }
}

impl Adaptive {
    /// Apache Nutch's `AdaptiveFetchSchedule` defaults, in days: 30, 1, 365, +0.4, -0.2.
    pub const NUTCH: Adaptive = Adaptive {
        init: 30.0,
        min: 1.0,
        max: 365.0,
        inc: 0.4,
        dec: 0.2,
    };

    /// StormCrawler's `AdaptiveScheduler` defaults: 1, 1, 14, +0.5, -0.5.
    pub const STORMCRAWLER: Adaptive = Adaptive {
        init: 1.0,
        min: 1.0,
        max: 14.0,
        inc: 0.5,
        dec: 0.5,
    };

    /// The named presets and their names.
    pub(crate) const PRESETS: [(&'static str, Adaptive); 2] = [
        ("nutch", Adaptive::NUTCH),
        ("stormcrawler", Adaptive::STORMCRAWLER),
    ];

    /// Checked parameters.
    pub fn new(raw: RawAdaptive) -> Result<Adaptive, AdaptiveError> {
        Adaptive::try_from(raw)
    }

    /// The interval after a visit that did (or did not) find a change.
    #[inline]
    pub fn next_interval(&self, interval: f64, changed: bool) -> f64 {
        if changed {
            (interval * (1.0 - self.dec)).max(self.min)
        } else {
            (interval * (1.0 + self.inc)).min(self.max)
        }
    }

    fn preset_name(&self) -> Option<&'static str> {
        Adaptive::PRESETS
            .iter()
            .find(|(_, preset)| preset == self)
            .map(|(name, _)| *name)
    }

    /// Reads `nutch`, `stormcrawler` or `adaptive(init: .., min: .., max: .., inc: ..,
    /// dec: ..)` (RON); `None` when `text` is none of these forms.
    fn parse(text: &str) -> Option<Result<Adaptive, AdaptiveError>> {
        let text = text.trim();
        if let Some((_, preset)) = Adaptive::PRESETS
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(text))
        {
            return Some(Ok(*preset));
        }
        let fields = text.strip_prefix("adaptive")?.trim_start();
        if !fields.starts_with('(') {
            return None;
        }
        Some(
            ron::from_str::<RawAdaptive>(fields)
                .map_err(|e| AdaptiveError(e.to_string()))
                .and_then(Adaptive::try_from),
        )
    }
}

impl fmt::Display for Adaptive {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.preset_name() {
            Some(name) => f.write_str(name),
            None => write!(
                f,
                "adaptive(init: {}, min: {}, max: {}, inc: {}, dec: {})",
                self.init, self.min, self.max, self.inc, self.dec
            ),
        }
    }
}

/// A crawl policy, checked and ready to run: it scores every page at cycle `d` from what
/// the crawl knows at the end of cycle `d - 1` (SPEC §3, §9), and the simulation visits the
/// best-scored `k`. Every policy
///
/// - declares the page features it reads ([`Policy::features`]): the simulators and the
///   scheduler compute only those terminal columns;
/// - may keep per-page memory of its own ([`PageState::memory`]), which every visit
///   updates, warm-up visits included ([`Policy::visit`]); pages of equal statistics and
///   equal memory are still scored once;
/// - scores a batch of page states into the caller's buffer ([`Policy::score_into`]), or
///   one page ([`Policy::score_one`]), with the same result bit for bit.
///
/// Written as text with [`Policy::parse`] and [`fmt::Display`], exact inverses.
/// Serialized as that text in human-readable formats (JSON: `study.json`, unit results;
/// RON study files write it as the command line does, see its `Deserialize`) and as its
/// specification (`PolicySpec`) in binary ones (the scheduler's state); deserializing
/// checks and compiles it, so a `Policy` never holds an unchecked formula or interval.
#[derive(Debug, Clone)]
pub enum Policy {
    /// An evolved formula, compiled.
    Formula(FormulaPolicy),
    /// A built-in baseline (SPEC §4).
    Baseline(Baseline),
    /// Adaptive revisit intervals (SPEC §9).
    Adaptive(Adaptive),
    /// A rate policy of the literature (SPEC §9): scores `ρ · t`.
    Rate(RatePolicy),
    /// The crawl value `w·(1 - (1 + δt)e^{-δt}) / δ` with `δ = MLE` (SPEC §9).
    Value,
    /// A learned change model (SPEC §12, `model:FILE`): scores the predicted change
    /// probability, from the page's own visits (see [`Predictor`]).
    Model(Predictor),
    /// An EXP3 bandit over policies (SPEC §10): each scored cycle one arm, drawn by the
    /// run, scores the pages (see [`Exp3`]). A bandit is never scored
    /// itself: [`Policy::context`], [`Policy::score_one`] and [`Policy::score_into`] take
    /// one of its arms.
    Bandit(Exp3),
}

/// A formula under a closure, with its compiled program.
#[derive(Debug, Clone)]
pub struct FormulaPolicy {
    formula: Formula,
    closure: Closure,
    program: Program,
    /// The model that gives `P` (Some exactly when the formula reads `P`).
    model: Option<Predictor>,
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

impl Serialize for Policy {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() {
            serializer.collect_str(self)
        } else {
            PolicySpec::from(self.clone()).serialize(serializer)
        }
    }
}

/// Reads a policy in a human-readable format, as an enum so that RON can write it as the
/// command line does: a name (`NAD`, `lambda`, `nutch`; in JSON any policy text as a
/// string, which serde hands over as the variant's name), `adaptive(init: 30, min: 1, max:
/// 365, inc: 0.4, dec: 0.2)` (a struct variant) or `formula("X / n * t")`.
impl<'de> Deserialize<'de> for Policy {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Policy, D::Error> {
        use serde::de::Error;
        if deserializer.is_human_readable() {
            deserializer.deserialize_enum("Policy", &[], WrittenPolicy)
        } else {
            Policy::try_from(PolicySpec::deserialize(deserializer)?).map_err(D::Error::custom)
        }
    }
}

/// The visitor of a written policy (see `Deserialize for Policy`).
struct WrittenPolicy;

impl<'de> serde::de::Visitor<'de> for WrittenPolicy {
    type Value = Policy;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "a policy: a name (NAD, lambda, lambda_harmonic, value, nutch, ...), \
             adaptive(init: .., min: .., max: .., inc: .., dec: ..) or formula(\"...\")",
        )
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Policy, E> {
        Policy::parse(text, &Grammar::predictive()).map_err(E::custom)
    }

    fn visit_enum<A: serde::de::EnumAccess<'de>>(self, data: A) -> Result<Policy, A::Error> {
        use serde::de::{Error, VariantAccess};
        let (Name(name), variant) = data.variant()?;
        match name.as_str() {
            "adaptive" => {
                const FIELDS: &[&str] = &["init", "min", "max", "inc", "dec"];
                let raw = variant.struct_variant(FIELDS, AdaptiveFields)?;
                Ok(Policy::Adaptive(
                    Adaptive::try_from(raw).map_err(A::Error::custom)?,
                ))
            }
            "formula" => {
                let text: String = variant.newtype_variant()?;
                let (text, closure) = Policy::split_closure(&text);
                let (text, model) = Policy::split_model(text);
                let formula =
                    Formula::parse(text, &Grammar::predictive()).map_err(A::Error::custom)?;
                let model = model
                    .map(Policy::load_model)
                    .transpose()
                    .map_err(A::Error::custom)?;
                Policy::formula_with(&formula, closure.unwrap_or(Closure::Paper), model.as_ref())
                    .map_err(A::Error::custom)
            }
            "model" => {
                let path: String = variant.newtype_variant()?;
                Ok(Policy::Model(
                    Policy::load_model(&path).map_err(A::Error::custom)?,
                ))
            }
            "file" => {
                let path: String = variant.newtype_variant()?;
                let text = read_policy_file(&path).map_err(A::Error::custom)?;
                Policy::parse(&text, &Grammar::predictive())
                    .map_err(|e| A::Error::custom(format!("{path}: {e}")))
            }
            "exp3" => {
                const FIELDS: &[&str] = &["arms", "gamma", "reward"];
                let raw = variant.struct_variant(FIELDS, Exp3Fields)?;
                Ok(Policy::Bandit(
                    Exp3::try_from(raw).map_err(A::Error::custom)?,
                ))
            }
            _ => {
                variant.unit_variant()?;
                self.visit_str(&name)
            }
        }
    }
}

std::thread_local! {
    /// The directory `file("..")` paths are relative to while a study file is read.
    static POLICY_FILES_DIR: std::cell::RefCell<Option<std::path::PathBuf>> =
        const { std::cell::RefCell::new(None) };
}

/// Runs `read` with `file("..")` policies resolved against `dir` (a study file's
/// directory, as its other relative paths are); elsewhere they are relative to the
/// working directory.
pub(crate) fn with_policy_files_in<T>(dir: &std::path::Path, read: impl FnOnce() -> T) -> T {
    let before = POLICY_FILES_DIR.with(|d| d.replace(Some(dir.to_path_buf())));
    let result = read();
    POLICY_FILES_DIR.with(|d| *d.borrow_mut() = before);
    result
}

/// `path` resolved against the study file being read, if any.
fn relative_to_study(path: &str) -> std::path::PathBuf {
    POLICY_FILES_DIR.with(|d| match &*d.borrow() {
        Some(dir) => dir.join(path),
        None => std::path::PathBuf::from(path),
    })
}

/// The policy text of a policy file: its first line that is not blank or a comment (`#`,
/// `//`), e.g. a formula an evolution printed.
fn read_policy_file(path: &str) -> Result<String, String> {
    let full = relative_to_study(path);
    let text = std::fs::read_to_string(&full)
        .map_err(|e| format!("cannot read policy file {}: {e}", full.display()))?;
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with("//"))
        .map(str::to_string)
        .ok_or_else(|| format!("policy file {} holds no policy", full.display()))
}

/// The fields of `exp3(..)`, read into a raw bandit.
struct Exp3Fields;

impl<'de> serde::de::Visitor<'de> for Exp3Fields {
    type Value = super::bandit::RawExp3;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the fields arms, gamma and reward")
    }

    fn visit_map<M: serde::de::MapAccess<'de>>(self, map: M) -> Result<Self::Value, M::Error> {
        Self::Value::deserialize(serde::de::value::MapAccessDeserializer::new(map))
    }
}

/// A variant's name: an identifier in RON, a string in JSON.
struct Name(String);

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Name, D::Error> {
        struct Text;
        impl serde::de::Visitor<'_> for Text {
            type Value = Name;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a policy's name or text")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Name, E> {
                Ok(Name(text.to_string()))
            }
        }
        deserializer.deserialize_identifier(Text)
    }
}

/// The fields of `adaptive(..)`, read into [`RawAdaptive`].
struct AdaptiveFields;

impl<'de> serde::de::Visitor<'de> for AdaptiveFields {
    type Value = RawAdaptive;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the fields init, min, max, inc and dec")
    }

    fn visit_map<M: serde::de::MapAccess<'de>>(self, map: M) -> Result<RawAdaptive, M::Error> {
        RawAdaptive::deserialize(serde::de::value::MapAccessDeserializer::new(map))
    }
}

impl PartialEq for Policy {
    fn eq(&self, other: &Policy) -> bool {
        PolicySpec::from(self.clone()) == PolicySpec::from(other.clone())
    }
}

/// A [`Policy`] as written in files: what it is, not how it runs. The variants' order is
/// part of the scheduler's state format: append new kinds at the end.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum PolicySpec {
    /// A formula, evaluated under `closure`.
    Formula {
        /// The formula.
        formula: Formula,
        /// Its protected-operator rules.
        closure: Closure,
    },
    /// A built-in baseline.
    Baseline(Baseline),
    /// Adaptive revisit intervals.
    Adaptive(RawAdaptive),
    /// A rate policy.
    Rate(RatePolicy),
    /// The crawl value.
    Value,
    /// An EXP3 bandit.
    Bandit {
        /// Its arms (never bandits: the type cannot nest, so no file can make decoding
        /// recurse).
        arms: Vec<ArmSpec>,
        /// Its exploration rate.
        gamma: f64,
        /// Its reward metric (`None`: the run's).
        reward: Option<Metric>,
    },
    /// A learned model: its path as written and its file's text.
    Model {
        /// The path as written.
        path: String,
        /// The model file's text.
        text: String,
    },
    /// A formula over `P`, with its model.
    ModelFormula {
        /// The formula.
        formula: Formula,
        /// Its protected-operator rules.
        closure: Closure,
        /// The model's path as written.
        path: String,
        /// The model file's text.
        text: String,
    },
}

/// A bandit's arm as written in files: [`PolicySpec`] without bandits, with the same
/// variants in the same order (so the same encoding).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum ArmSpec {
    /// A formula, evaluated under `closure`.
    Formula {
        /// The formula.
        formula: Formula,
        /// Its protected-operator rules.
        closure: Closure,
    },
    /// A built-in baseline.
    Baseline(Baseline),
    /// Adaptive revisit intervals.
    Adaptive(RawAdaptive),
    /// A rate policy.
    Rate(RatePolicy),
    /// The crawl value.
    Value,
    /// The place of [`PolicySpec::Bandit`]: never written (an arm is no bandit); read,
    /// it is refused.
    NoBandit,
    /// A learned model.
    Model {
        /// The path as written.
        path: String,
        /// The model file's text.
        text: String,
    },
    /// A formula over `P`, with its model.
    ModelFormula {
        /// The formula.
        formula: Formula,
        /// Its protected-operator rules.
        closure: Closure,
        /// The model's path as written.
        path: String,
        /// The model file's text.
        text: String,
    },
}

impl TryFrom<ArmSpec> for PolicySpec {
    type Error = PolicyError;

    fn try_from(arm: ArmSpec) -> Result<PolicySpec, PolicyError> {
        Ok(match arm {
            ArmSpec::Formula { formula, closure } => PolicySpec::Formula { formula, closure },
            ArmSpec::Baseline(b) => PolicySpec::Baseline(b),
            ArmSpec::Adaptive(a) => PolicySpec::Adaptive(a),
            ArmSpec::Rate(r) => PolicySpec::Rate(r),
            ArmSpec::Value => PolicySpec::Value,
            ArmSpec::NoBandit => {
                return Err(PolicyError::Bandit(BanditError::Syntax(
                    "a saved arm is a bandit".into(),
                )))
            }
            ArmSpec::Model { path, text } => PolicySpec::Model { path, text },
            ArmSpec::ModelFormula {
                formula,
                closure,
                path,
                text,
            } => PolicySpec::ModelFormula {
                formula,
                closure,
                path,
                text,
            },
        })
    }
}

impl ArmSpec {
    /// An arm's specification (`None` for a bandit, which no arm is).
    fn of(policy: &Policy) -> Option<ArmSpec> {
        Some(match PolicySpec::from(policy.clone()) {
            PolicySpec::Formula { formula, closure } => ArmSpec::Formula { formula, closure },
            PolicySpec::Baseline(b) => ArmSpec::Baseline(b),
            PolicySpec::Adaptive(a) => ArmSpec::Adaptive(a),
            PolicySpec::Rate(r) => ArmSpec::Rate(r),
            PolicySpec::Value => ArmSpec::Value,
            PolicySpec::Model { path, text } => ArmSpec::Model { path, text },
            PolicySpec::ModelFormula {
                formula,
                closure,
                path,
                text,
            } => ArmSpec::ModelFormula {
                formula,
                closure,
                path,
                text,
            },
            PolicySpec::Bandit { .. } => return None,
        })
    }
}

impl TryFrom<PolicySpec> for Policy {
    type Error = PolicyError;

    fn try_from(spec: PolicySpec) -> Result<Policy, PolicyError> {
        Ok(match spec {
            PolicySpec::Formula { formula, closure } => {
                Policy::formula_with(&formula, closure, None)?
            }
            PolicySpec::Baseline(b) => Policy::Baseline(b),
            PolicySpec::Adaptive(raw) => Policy::Adaptive(Adaptive::try_from(raw)?),
            PolicySpec::Rate(r) => Policy::Rate(r),
            PolicySpec::Value => Policy::Value,
            PolicySpec::Bandit {
                arms,
                gamma,
                reward,
            } => {
                let arms = arms
                    .into_iter()
                    .map(|arm| Policy::try_from(PolicySpec::try_from(arm)?))
                    .collect::<Result<Vec<Policy>, PolicyError>>()?;
                Policy::Bandit(Exp3::new(arms, gamma, reward)?)
            }
            PolicySpec::Model { path, text } => {
                Policy::Model(Predictor::from_text(&path, &text).map_err(PolicyError::Model)?)
            }
            PolicySpec::ModelFormula {
                formula,
                closure,
                path,
                text,
            } => {
                let model = Predictor::from_text(&path, &text).map_err(PolicyError::Model)?;
                Policy::formula_with(&formula, closure, Some(&model))?
            }
        })
    }
}

impl From<Policy> for PolicySpec {
    fn from(policy: Policy) -> PolicySpec {
        match policy {
            Policy::Formula(f) => match f.model {
                None => PolicySpec::Formula {
                    formula: f.formula,
                    closure: f.closure,
                },
                Some(m) => PolicySpec::ModelFormula {
                    formula: f.formula,
                    closure: f.closure,
                    path: m.path().to_string(),
                    text: m.text().to_string(),
                },
            },
            Policy::Model(m) => PolicySpec::Model {
                path: m.path().to_string(),
                text: m.text().to_string(),
            },
            Policy::Baseline(b) => PolicySpec::Baseline(b),
            Policy::Adaptive(a) => PolicySpec::Adaptive(a.into()),
            Policy::Rate(r) => PolicySpec::Rate(r),
            Policy::Value => PolicySpec::Value,
            Policy::Bandit(b) => PolicySpec::Bandit {
                // Invariant: `Exp3::new` refuses bandits as arms.
                arms: b
                    .arms()
                    .iter()
                    .map(|arm| ArmSpec::of(arm).expect("invariant: no arm is a bandit"))
                    .collect(),
                gamma: b.gamma(),
                reward: b.reward(),
            },
        }
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
    /// A bandit that cannot be (SPEC §10).
    #[error(transparent)]
    Bandit(#[from] BanditError),
    /// A learned model that cannot be used (unreadable, not a model file, a feature the
    /// simulation does not compute, `P` without a model).
    #[error("{0}")]
    Model(String),
    /// A word that is neither a policy's name nor a formula.
    #[error("unknown policy `{name}`: known policies are {}, `adaptive(init: .., min: .., max: .., inc: .., dec: ..)`, `exp3(arms: [..], gamma: .., reward: ..)`, or a formula", Policy::names())]
    UnknownName {
        /// What was written.
        name: String,
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
            (true, None) => Err(PolicyError::Model(format!(
                "`{formula}` reads P, a learned model's prediction: give the model (`{formula} [model FILE]`, --model FILE)"
            ))),
            (false, Some(m)) => Err(PolicyError::Model(format!(
                "`{formula}` does not read P: the model {} would not be used",
                m.path()
            ))),
            (_, model) => Ok(Policy::formula_compiled(formula, closure, model.cloned())),
        }
    }

    fn formula_compiled(formula: &Formula, closure: Closure, model: Option<Predictor>) -> Policy {
        Policy::Formula(FormulaPolicy {
            program: Program::compile(formula, closure),
            formula: formula.clone(),
            closure,
            model,
        })
    }

    /// The learned model at `path` (relative to a study file's directory while one is
    /// read, and then named by its absolute path), as `model:PATH` and `[model PATH]`
    /// name it.
    ///
    /// # Errors
    /// [`PolicyError::Model`]: an unreadable file, not a model file, or a model the
    /// simulation cannot compute (see [`Predictor`]).
    pub fn load_model(path: &str) -> Result<Predictor, PolicyError> {
        let path = path.trim();
        if path.is_empty() {
            return Err(PolicyError::Model(
                "`model:` needs the path of a model file (freshgp model train --out FILE)".into(),
            ));
        }
        let full = relative_to_study(path);
        // A path relative to a study file is named by its absolute form: the study's
        // stored copy (results/<name>/study.json) is read from another directory.
        let in_study = POLICY_FILES_DIR.with(|d| d.borrow().is_some());
        let shown = match std::fs::canonicalize(&full) {
            Ok(absolute) if in_study && std::path::Path::new(path).is_relative() => {
                absolute.to_string_lossy().into_owned()
            }
            _ => path.to_string(),
        };
        Predictor::load(&full, &shown).map_err(PolicyError::Model)
    }

    /// Every named policy: the seven baselines of SPEC §4, the policies of §9, then the
    /// bandit presets of §10 (`kab2`, `kab3`, `kab5`).
    pub fn named() -> Vec<Policy> {
        let mut all = Policy::named_single();
        all.extend(
            super::bandit::PRESETS
                .iter()
                .filter_map(|(name, _)| Exp3::preset(name))
                .map(Policy::Bandit),
        );
        all
    }

    /// The named policies that are no bandit (what a preset's arms are named from).
    pub(crate) fn named_single() -> Vec<Policy> {
        let mut all: Vec<Policy> = Baseline::ALL.map(Policy::Baseline).to_vec();
        all.extend(RatePolicy::ALL.map(Policy::Rate));
        all.push(Policy::Value);
        all.extend(Adaptive::PRESETS.map(|(_, a)| Policy::Adaptive(a)));
        all
    }

    /// The policy of [`Policy::named`] called `name` (case-insensitive, `_` for `-` as RON
    /// identifiers write `lambda_harmonic`), if any.
    pub fn by_name(name: &str) -> Option<Policy> {
        let name = name.trim().replace('_', "-");
        if let Some(bandit) = Exp3::preset(&name) {
            return Some(Policy::Bandit(bandit));
        }
        Policy::named_single()
            .into_iter()
            .find(|p| p.label().eq_ignore_ascii_case(&name))
    }

    /// The names of [`Policy::named`], comma-separated (for messages).
    fn names() -> String {
        let names: Vec<String> = Policy::named().iter().map(Policy::label).collect();
        names.join(", ")
    }

    /// Reads a policy: a name of [`Policy::named`] (`NAD`, `age`, `lambda`, `nutch`, ...),
    /// an adaptive-interval policy with its parameters (`adaptive(init: 30, min: 1, max:
    /// 365, inc: 0.4, dec: 0.2)`), or else a formula of `grammar`, evaluated under the
    /// grammar's closure. A single word that is none of these is an
    /// [`PolicyError::UnknownName`] listing the known names.
    ///
    /// A formula may end in ` [Reference closure]` or ` [Paper closure]` (as
    /// [`fmt::Display`] writes it), which then overrides the grammar's closure.
    pub fn parse(text: &str, grammar: &Grammar) -> Result<Policy, PolicyError> {
        let (text, closure) = Policy::split_closure(text);
        let (text, model) = Policy::split_model(text);
        let name = text.trim();
        if let Some(path) = name.strip_prefix("model:") {
            return Ok(Policy::Model(Policy::load_model(path)?));
        }
        if let Some(named) = Policy::by_name(name) {
            return Ok(named);
        }
        if let Some(adaptive) = Adaptive::parse(text) {
            return Ok(Policy::Adaptive(adaptive?));
        }
        if let Some(fields) = name.strip_prefix("exp3").map(str::trim_start) {
            if fields.starts_with('(') {
                return Ok(Policy::Bandit(Exp3::parse_fields(fields)?));
            }
        }
        match Formula::parse(text, grammar) {
            Ok(formula) => {
                let model = model.map(Policy::load_model).transpose()?;
                Policy::formula_with(
                    &formula,
                    closure.unwrap_or(grammar.closure()),
                    model.as_ref(),
                )
            }
            Err(_) if looks_like_a_name(name) => Err(PolicyError::UnknownName {
                name: name.to_string(),
            }),
            Err(e) => Err(e.into()),
        }
    }

    /// `text` without a trailing ` [model PATH]`, and that path.
    fn split_model(text: &str) -> (&str, Option<&str>) {
        let trimmed = text.trim_end();
        match trimmed
            .strip_suffix(']')
            .and_then(|t| t.rsplit_once("[model "))
        {
            Some((formula, path)) => (formula, Some(path)),
            None => (text, None),
        }
    }

    /// `text` without a trailing ` [<closure> closure]`, and that closure.
    fn split_closure(text: &str) -> (&str, Option<Closure>) {
        let trimmed = text.trim_end();
        for closure in [Closure::Paper, Closure::Reference] {
            let suffix = format!("[{closure:?} closure]");
            if let Some(formula) = trimmed.strip_suffix(&suffix) {
                return (formula, Some(closure));
            }
        }
        (text, None)
    }

    /// Its name in tables and JSON keys: its text ([`fmt::Display`]), so that two
    /// different policies never share a name (a formula under another closure says so).
    pub fn label(&self) -> String {
        self.to_string()
    }

    /// The policy as a RON value, as study files and a bandit's arms write it: a name as
    /// an identifier (`lambda_harmonic`), `adaptive(..)`, `exp3(..)` or `formula("..")`.
    pub fn ron(&self) -> String {
        match self {
            Policy::Formula(_) => {
                let text = self.to_string();
                let text = text
                    .strip_prefix('(')
                    .and_then(|t| t.strip_suffix(')'))
                    .filter(|t| Policy::by_name(t).is_some())
                    .map_or(text.clone(), str::to_string);
                format!("formula({text:?})")
            }
            Policy::Adaptive(_) | Policy::Bandit(_) => self.to_string(),
            Policy::Model(m) => format!("model({:?})", m.path()),
            Policy::Baseline(_) | Policy::Rate(_) | Policy::Value => {
                self.to_string().replace('-', "_")
            }
        }
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
    pub fn bandit(&self) -> Option<&Exp3> {
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

    /// The state of a page never visited, of weight 1 and without a host.
    pub fn fresh_page(&self) -> PageState {
        self.fresh_page_of(1.0, NO_HOST, NO_GROUP)
    }

    /// The state of a page never visited, of weight `weight`, host `host` ([`NO_HOST`]
    /// for none) and group `group` ([`NO_GROUP`] for none), keeping the statistics this
    /// policy reads ([`Features::track`]).
    pub fn fresh_page_of(&self, weight: f64, host: u32, group: u32) -> PageState {
        PageState {
            stats: PageStats::new(self.features().track(), weight, host, group),
            memory: self.fresh_memory(),
        }
    }

    /// The memory of a page never visited.
    fn fresh_memory(&self) -> f64 {
        match self {
            Policy::Adaptive(a) => a.init,
            Policy::Bandit(b) => b.remembering_arm().map_or(0.0, Policy::fresh_memory),
            Policy::Formula(_)
            | Policy::Baseline(_)
            | Policy::Rate(_)
            | Policy::Value
            | Policy::Model(_) => 0.0,
        }
    }

    /// Whether `memory` is a page memory this policy can reach (for checking saved states).
    pub fn valid_memory(&self, memory: f64) -> bool {
        match self {
            Policy::Adaptive(a) => memory >= a.min && memory <= a.max,
            Policy::Bandit(b) => b
                .remembering_arm()
                .map_or(memory == 0.0, |arm| arm.valid_memory(memory)),
            Policy::Formula(_)
            | Policy::Baseline(_)
            | Policy::Rate(_)
            | Policy::Value
            | Policy::Model(_) => memory == 0.0,
        }
    }

    /// Records a visit at cycle `d` that did (or did not) find the page changed: the
    /// statistics ([`PageStats::visit`], which interns visit intervals in `histories`
    /// when the page keeps them) and the policy's memory.
    #[inline]
    pub fn visit(&self, page: &mut PageState, d: u32, changed: bool, histories: &mut Histories) {
        page.stats.visit(d, changed, histories);
        match self {
            Policy::Adaptive(a) => page.memory = a.next_interval(page.memory, changed),
            Policy::Bandit(b) => {
                if let Some(Policy::Adaptive(a)) = b.remembering_arm() {
                    page.memory = a.next_interval(page.memory, changed);
                }
            }
            _ => {}
        }
    }

    /// The context in which pages are scored at cycle `cycle`, with `k` crawls to spend
    /// and the host totals `hosts` (for `HR`). A rate policy solves its rates here over
    /// `population`, the cycle's pages as (state, number of pages in that state), in the
    /// caller-owned `buffers`; other policies do not read it.
    pub fn context<'a, 'p>(
        &self,
        cycle: u32,
        k: usize,
        hosts: &'a HostRates,
        population: impl IntoIterator<Item = (&'p PageState, u32)>,
        buffers: &mut ScoreBuffers,
    ) -> ScoreContext<'a> {
        let rates = match self {
            Policy::Rate(r) => Some(r.solve(
                population.into_iter().map(|(page, count)| {
                    (
                        rate_input(*r, |t| page.stats.terminal(t, cycle, hosts)),
                        count,
                    )
                }),
                k,
                &mut buffers.solve,
            )),
            _ => None,
        };
        ScoreContext {
            cycle,
            hosts,
            rates,
            sampling: false,
        }
    }

    /// The score of one page in `context`.
    ///
    /// # Panics
    /// For a bandit, which is never scored itself: a run scores with the arm it draws
    /// (as both simulators and the scheduler do).
    pub fn score_one(&self, page: &PageState, context: &ScoreContext<'_>) -> f64 {
        let (d, hosts) = (context.cycle, context.hosts);
        match self {
            Policy::Formula(f) => {
                let mut values = page.stats.terminals(d, hosts);
                if let Some(m) = &f.model {
                    values[Terminal::P.index()] = m.predict(&page.stats, d, hosts);
                }
                f.program.eval_one(&values)
            }
            Policy::Model(m) => m.predict(&page.stats, d, hosts),
            _ => self.score_page(page, context, |t| page.stats.terminal(t, d, hosts)),
        }
    }

    /// The score of a page that is not a formula's, from the values of the terminals it
    /// reads.
    #[inline]
    fn score_page(
        &self,
        page: &PageState,
        context: &ScoreContext<'_>,
        value: impl Fn(Terminal) -> f64,
    ) -> f64 {
        match self {
            Policy::Formula(_) => unreachable!("formulas are scored by their program"),
            Policy::Bandit(_) => unreachable!("a bandit is scored by the arm its run draws"),
            Policy::Model(_) => value(Terminal::P),
            Policy::Baseline(b) => b.score(value),
            Policy::Adaptive(_) => value(Terminal::T) / page.memory,
            Policy::Rate(r) => {
                // Invariant: `Policy::context` solves the rates of every rate policy, and
                // `ScoreContext::at` documents that it serves only the others.
                let rates = context
                    .rates
                    .as_ref()
                    .expect("invariant: a rate policy is scored in the context of its cycle");
                if context.sampling {
                    r.rate(rate_input(*r, &value), rates)
                } else {
                    r.owed(rate_input(*r, &value), rates, value(Terminal::T))
                }
            }
            Policy::Value => {
                crawl_value(value(Terminal::W), value(Terminal::MLE), value(Terminal::T))
            }
        }
    }

    /// Scores `pages` in `context` into `out` (one score per page, bit for bit
    /// [`Policy::score_one`]), computing only the terminal columns it reads, in the
    /// caller-owned `buffers`.
    ///
    /// # Panics
    /// For a bandit (see [`Policy::score_one`]).
    pub fn score_into(
        &self,
        pages: &[PageState],
        context: &ScoreContext<'_>,
        out: &mut [f64],
        buffers: &mut ScoreBuffers,
    ) {
        let out = &mut out[..pages.len()];
        let features = self.features();
        let (d, hosts) = (context.cycle, context.hosts);
        for t in features.iter() {
            buffers.columns[t.index()].clear();
        }
        // A chunk of page states at a time, so that the columns read it from the cache.
        for chunk in pages.chunks(COLUMN_CHUNK) {
            for t in features.iter() {
                let column = &mut buffers.columns[t.index()];
                match (t, self.learned()) {
                    (Terminal::P, Some(m)) => {
                        column.extend(chunk.iter().map(|p| m.predict(&p.stats, d, hosts)))
                    }
                    _ => extend_column(column, t, chunk, d, hosts),
                }
            }
        }
        let column = |t: Terminal| &buffers.columns[t.index()][..];
        match self {
            Policy::Formula(f) => {
                let columns = features
                    .iter()
                    .fold(Columns::new(pages.len()), |c, t| c.with(t, column(t)));
                f.program.eval_batch(&columns, out, &mut buffers.scratch);
            }
            _ => {
                for (i, (o, page)) in out.iter_mut().zip(pages).enumerate() {
                    *o = self.score_page(page, context, |t| column(t)[i]);
                }
            }
        }
    }
}

/// Evaluates the inputs of `split` ([`Split`]: the subtrees of a formula that read no
/// per-page terminal) for each of `states` at cycle `d`, into `out` (one vector per
/// input, one value per state; bit for bit what the whole formula computes there).
pub(crate) fn eval_inputs(
    split: &Split,
    states: &[PageState],
    (d, hosts): (u32, &HostRates),
    out: &mut Vec<Vec<f64>>,
    buffers: &mut ScoreBuffers,
) {
    let read = (split.inputs().iter())
        .flat_map(|p| p.terminals().iter().copied())
        .fold(Features::of(&[]), |f, t| f.with(t));
    for t in read.iter() {
        let column = &mut buffers.columns[t.index()];
        column.clear();
        extend_column(column, t, states, d, hosts);
    }
    out.resize_with(split.inputs().len(), Vec::new);
    for (program, values) in split.inputs().iter().zip(out.iter_mut()) {
        let columns = (program.terminals().iter()).fold(Columns::new(states.len()), |c, &t| {
            c.with(t, &buffers.columns[t.index()])
        });
        values.resize(states.len(), 0.0);
        program.eval_batch(&columns, values, &mut buffers.scratch);
    }
}

/// Page states per chunk of [`Policy::score_into`]'s columns (about 48 KiB of states).
const COLUMN_CHUNK: usize = 512;

/// Appends terminal `t` of each of `pages` at cycle `d` to `column`: one loop per
/// terminal, in which [`PageStats::terminal`](super::PageStats::terminal) (always
/// inlined) reads its constant terminal without a match.
fn extend_column(
    column: &mut Vec<f64>,
    t: Terminal,
    pages: &[PageState],
    d: u32,
    hosts: &HostRates,
) {
    macro_rules! per_terminal {
        ($($name:ident)*) => {
            match t {
                $(Terminal::$name => column.extend(
                    pages.iter().map(|p| p.stats.terminal(Terminal::$name, d, hosts)),
                ),)*
            }
        };
    }
    per_terminal!(T N X CG NAD SAD AAD GAD W TC N7 X7 HR MLE N30 X30 GR P);
}

/// What a rate policy reads of a page, from its terminal values: `μ = w` and `Δ = MLE`
/// when it reads them (1 and 0 otherwise, never read).
#[inline]
fn rate_input(policy: RatePolicy, value: impl Fn(Terminal) -> f64) -> RateInput {
    RateInput::new(
        if policy.reads_importance() {
            value(Terminal::W)
        } else {
            1.0
        },
        if policy.reads_change_rate() {
            value(Terminal::MLE)
        } else {
            0.0
        },
    )
}

/// Whether policy text that is no formula was meant as a name: one word of letters,
/// digits, `-` and `_` that is not a terminal (a terminal the grammar lacks, a function
/// call or any other formula keeps its formula error, which points at the byte).
fn looks_like_a_name(text: &str) -> bool {
    let word = text.trim();
    word.starts_with(|c: char| c.is_ascii_alphabetic())
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && Terminal::from_name(word).is_none()
}

/// What one cycle's scores depend on besides each page: the cycle, the host totals `HR`
/// reads and, for a rate policy, the rates solved over the whole population.
#[derive(Debug, Clone, Copy)]
pub struct ScoreContext<'a> {
    cycle: u32,
    hosts: &'a HostRates,
    rates: Option<Rates>,
    /// Whether a sampled decision reads the scores (rate policies score ρ, SPEC §11).
    sampling: bool,
}

impl<'a> ScoreContext<'a> {
    /// The context at `cycle` for a policy whose scores do not depend on the population
    /// ([`Policy::needs_population`] is false; a rate policy needs [`Policy::context`]).
    pub fn at(cycle: u32, hosts: &'a HostRates) -> ScoreContext<'a> {
        ScoreContext {
            cycle,
            hosts,
            rates: None,
            sampling: false,
        }
    }

    /// The same context for a sampled crawl decision (SPEC §11): a rate policy then
    /// scores its rate ρ, the sampling weight, instead of `ρ · t`; other policies score
    /// as for top-k.
    pub fn for_decision(mut self, decision: super::Decision) -> ScoreContext<'a> {
        self.sampling = decision == super::Decision::Sample;
        self
    }

    /// The cycle scored.
    pub fn cycle(&self) -> u32 {
        self.cycle
    }

    /// A rate policy's solution for the cycle.
    pub fn rates(&self) -> Option<Rates> {
        self.rates
    }
}

impl From<Baseline> for Policy {
    fn from(b: Baseline) -> Policy {
        Policy::Baseline(b)
    }
}

impl fmt::Display for Policy {
    /// The formula text, followed by ` [Reference closure]` when not the paper's; a
    /// baseline's name; an adaptive preset's name or its parameters.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Policy::Formula(p) => {
                let text = p.formula.to_string();
                // A formula that is one terminal named like a policy (`NAD`, `CG`) is
                // written `(NAD)`, so that it reads back as the formula, not the baseline.
                if Policy::by_name(&text).is_some() {
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
            Policy::Model(m) => write!(f, "model:{}", m.path()),
            Policy::Baseline(b) => write!(f, "{b}"),
            Policy::Adaptive(a) => write!(f, "{a}"),
            Policy::Rate(r) => f.write_str(r.name()),
            Policy::Value => f.write_str("value"),
            Policy::Bandit(b) => write!(f, "{b}"),
        }
    }
}

/// Reusable space for [`Policy::context`] and [`Policy::score_into`]: the terminal
/// columns, the evaluator's scratch and a rate policy's λ solve.
#[derive(Debug, Default, Clone)]
pub struct ScoreBuffers {
    columns: [Vec<f64>; Terminal::COUNT],
    scratch: Scratch,
    solve: Vec<SolvePage>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Page states of a page visited every cycle, keeping every statistic, of weight 2.5
    /// and host 1 (its memory is nutch's).
    fn pages() -> Vec<PageState> {
        let mut pages = Vec::new();
        let nutch = Policy::Adaptive(Adaptive::NUTCH);
        let everything =
            Policy::parse("w + tc + n7 + X7 + HR + MLE", &Grammar::extended()).unwrap();
        let mut histories = Histories::default();
        let mut s = everything.fresh_page_of(2.5, 1, 0);
        s.memory = nutch.fresh_page().memory;
        for d in 1..=12u32 {
            let mut memory = PageState {
                memory: s.memory,
                ..nutch.fresh_page()
            };
            nutch.visit(&mut memory, d, d % 3 == 0 || d == 4, &mut histories);
            everything.visit(&mut s, d, d % 3 == 0 || d == 4, &mut histories);
            s.memory = memory.memory;
            pages.push(s);
        }
        pages
    }

    /// Host totals for `pages()`: host 1 has 10 changes in 40 visits.
    fn hosts() -> HostRates {
        let mut hosts = HostRates::new(2, 1);
        for i in 0..40 {
            hosts.record(1, 0, i % 4 == 0);
        }
        hosts
    }

    fn policies() -> Vec<Policy> {
        let mut all = Policy::named();
        for text in [
            "X / n * t",
            "log(t) - CG * SAD",
            "3",
            "exp(GAD) / (AAD + NAD)",
            "w * MLE * t / (HR + 0.1) + n7 - X7 * tc",
        ] {
            all.push(Policy::parse(text, &Grammar::extended()).unwrap());
        }
        all
    }

    #[test]
    fn baseline_formulas_compute_the_builtin_scores() {
        for b in Baseline::ALL {
            let f = Policy::formula(&b.formula(), Closure::Paper);
            for s in &pages() {
                for d in s.stats.last_visit + 1..s.stats.last_visit + 5 {
                    let hosts = hosts();
                    let at = ScoreContext::at(d, &hosts);
                    let built_in = Policy::Baseline(b).score_one(s, &at);
                    assert_eq!(
                        f.score_one(s, &at).to_bits(),
                        built_in.to_bits(),
                        "{b} at {d}"
                    );
                }
            }
        }
    }

    #[test]
    fn batch_scores_equal_single_scores() {
        let pages = pages();
        let mut buffers = ScoreBuffers::default();
        let mut out = vec![f64::NAN; pages.len() + 3];
        // A bandit scores with its arms (each among these).
        for policy in policies().into_iter().filter(|p| p.bandit().is_none()) {
            let hosts = hosts();
            let population = pages.iter().map(|p| (p, 2));
            let context = policy.context(14, 3, &hosts, population, &mut buffers);
            policy.score_into(&pages, &context, &mut out, &mut buffers);
            for (page, score) in pages.iter().zip(&out) {
                assert_eq!(
                    score.to_bits(),
                    policy.score_one(page, &context).to_bits(),
                    "{policy}"
                );
            }
        }
    }

    #[test]
    fn features_are_what_the_score_reads() {
        let all = Grammar::all();
        let reads = |text: &str| Policy::parse(text, &all).unwrap().features();
        assert_eq!(reads("Rand"), Features::NONE);
        assert_eq!(reads("NAD"), Features::of(&[Terminal::T, Terminal::NAD]));
        assert_eq!(reads("CG"), Features::of(&[Terminal::CG]));
        assert_eq!(reads("nutch"), Features::of(&[Terminal::T]));
        assert_eq!(reads("X / n"), Features::of(&[Terminal::X, Terminal::N]));
        // Every feature a baseline declares is one its formula reads, and conversely.
        for b in Baseline::ALL {
            let formula = Features::of(&b.formula().terminals());
            assert_eq!(b.features(), formula, "{b}");
        }
    }

    #[test]
    fn adaptive_intervals_follow_the_rule_and_stay_in_bounds() {
        let a = Adaptive::NUTCH;
        assert_eq!(a.next_interval(30.0, false), 42.0);
        assert_eq!(a.next_interval(30.0, true), 24.0);
        assert_eq!(a.next_interval(300.0, false), 365.0);
        assert_eq!(a.next_interval(1.1, true), 1.0);
        let s = Adaptive::STORMCRAWLER;
        assert_eq!(s.next_interval(1.0, true), 1.0);
        assert_eq!(s.next_interval(10.0, false), 14.0);
        let mut interval = s.init;
        for i in 0..100 {
            interval = s.next_interval(interval, i % 7 == 0);
            assert!((s.min..=s.max).contains(&interval), "{interval}");
        }
    }

    #[test]
    fn text_round_trips_and_bad_parameters_are_refused() {
        let all = Grammar::extended();
        for policy in policies() {
            let text = policy.to_string();
            assert_eq!(Policy::parse(&text, &all).unwrap(), policy, "{text}");
        }
        let custom = "adaptive(init: 7, min: 1, max: 28, inc: 0.25, dec: 0.5)";
        let p = Policy::parse(custom, &all).unwrap();
        assert_eq!(p.to_string(), custom);
        assert_eq!(
            Policy::parse("NUTCH", &all).unwrap(),
            Policy::Adaptive(Adaptive::NUTCH)
        );
        for bad in [
            "adaptive(init: 0.5, min: 1, max: 28, inc: 0.25, dec: 0.5)",
            "adaptive(init: 7, min: 1, max: 28, inc: 0.25, dec: 1)",
            "adaptive(init: 7, min: 1, max: 28, inc: -1, dec: 0.5)",
            "adaptive(init: 7, min: 1, max: 28, inc: 0.25)",
            "adaptive(init: 7, min: 1, max: 28, inc: 0.25, dec: 0.5, extra: 1)",
        ] {
            assert!(
                matches!(Policy::parse(bad, &all), Err(PolicyError::Adaptive(_))),
                "{bad}"
            );
        }
        assert!(matches!(
            Policy::parse("t *", &all),
            Err(PolicyError::Formula(_))
        ));
    }

    #[test]
    fn a_formula_named_like_a_policy_stays_a_formula() {
        let all = Grammar::extended();
        for name in ["NAD", "CG", "SAD"] {
            let formula = Policy::formula(&name.parse().unwrap(), Closure::Paper);
            let text = formula.to_string();
            assert_eq!(text, format!("({name})"));
            assert_eq!(Policy::parse(&text, &all).unwrap(), formula);
            assert_ne!(
                Policy::parse(name, &all).unwrap(),
                formula,
                "{name} is the baseline"
            );
            let json = serde_json::to_string(&formula).unwrap();
            assert_eq!(serde_json::from_str::<Policy>(&json).unwrap(), formula);
        }
        // Labels tell a closure apart.
        let paper = Policy::formula(&"X / n".parse().unwrap(), Closure::Paper);
        let reference = Policy::formula(&"X / n".parse().unwrap(), Closure::Reference);
        assert_ne!(paper.label(), reference.label());
    }

    #[test]
    fn formula_errors_are_not_taken_for_unknown_names() {
        let all = Grammar::all();
        for text in ["exp(t) * / 2", "log(q)", "MLE"] {
            assert!(
                matches!(Policy::parse(text, &all), Err(PolicyError::Formula(_))),
                "{text}"
            );
        }
        assert!(matches!(
            Policy::parse("lamda", &all),
            Err(PolicyError::UnknownName { .. })
        ));
    }

    #[test]
    fn ron_writes_policies_as_the_command_line_does() {
        let written = r#"[NAD, lambda, lambda_harmonic, value, nutch,
            adaptive(init: 7, min: 1, max: 28, inc: 0.25, dec: 0.5), formula("X / n * t")]"#;
        let read: Vec<Policy> = ron::from_str(written).unwrap();
        let texts = [
            "NAD",
            "lambda",
            "lambda-harmonic",
            "value",
            "nutch",
            "adaptive(init: 7, min: 1, max: 28, inc: 0.25, dec: 0.5)",
            "X / n * t",
        ];
        let expected: Vec<Policy> = texts
            .iter()
            .map(|t| Policy::parse(t, &Grammar::extended()).unwrap())
            .collect();
        assert_eq!(read, expected);
        for (bad, says) in [
            ("[lamda]", "unknown policy `lamda`"),
            (
                "[adaptive(init: 0, min: 1, max: 2, inc: 0.1, dec: 0.1)]",
                "min <= init",
            ),
            ("[adaptive(init: 1, min: 1, max: 2, inc: 0.1)]", "dec"),
            (r#"[formula("X / ")]"#, "expected an operand"),
        ] {
            let err = ron::from_str::<Vec<Policy>>(bad).unwrap_err().to_string();
            assert!(err.contains(says), "{bad}: {err}");
        }
    }

    #[test]
    fn serialized_policies_are_checked_on_the_way_in() {
        for policy in policies() {
            let json = serde_json::to_string(&policy).unwrap();
            let back: Policy = serde_json::from_str(&json).unwrap();
            assert_eq!(back, policy, "{json}");
        }
        // Text in JSON, the checked specification in binary (the scheduler's state).
        let reference = Policy::formula(&"X / n".parse().unwrap(), Closure::Reference);
        for policy in policies().into_iter().chain([reference]) {
            let json = serde_json::to_string(&policy).unwrap();
            assert_eq!(json, format!("\"{policy}\""));
            assert_eq!(serde_json::from_str::<Policy>(&json).unwrap(), policy);
            let binary = bincode::serialize(&policy).unwrap();
            assert_eq!(bincode::deserialize::<Policy>(&binary).unwrap(), policy);
        }
        let bad = r#""adaptive(init: 0, min: 1, max: 2, inc: 0.1, dec: 0.1)""#;
        let err = serde_json::from_str::<Policy>(bad).unwrap_err().to_string();
        assert!(err.contains("min <= init"), "{err}");
        let spec = PolicySpec::Adaptive(RawAdaptive {
            init: 0.0,
            min: 1.0,
            max: 2.0,
            inc: 0.1,
            dec: 0.1,
        });
        let err = bincode::deserialize::<Policy>(&bincode::serialize(&spec).unwrap());
        assert!(err.unwrap_err().to_string().contains("min <= init"));
        let err = serde_json::from_str::<Policy>(r#""lamda""#)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("unknown policy `lamda`") && err.contains("lambda-harmonic"),
            "{err}"
        );
    }
}
