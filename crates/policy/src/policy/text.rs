//! Policies as text: [`Policy::parse`] (a name of [`Policy::named`], `adaptive(..)`,
//! `exp3(..)`, `model:FILE`, else a formula of the grammar) and `Display`, its exact
//! inverse; [`Policy::ron`], as study files write a policy; a bandit's `exp3(..)` and its
//! presets (`kab2`, `kab3`, `kab5`).

use super::kind::ORACLE;
use super::{Adaptive, BanditError, Exp3, Policy, PolicyError, Scorer};
use super::{Forget, Learning, Rate, Reward, BANDIT_PRESETS, DEFAULT_GAMMA};
use crate::formula::{Closure, Formula, Grammar, Terminal};
use crate::metric::Metric;
use serde::Deserialize;
use std::fmt;

impl Policy {
    /// Every named policy (docs/src/reference/policies.md#names-and-text): the seven
    /// baselines, the policies of the literature, then the bandit presets (`kab2`, `kab3`,
    /// `kab5`).
    pub fn named() -> Vec<Policy> {
        let mut all: Vec<Policy> = Scorer::named().into_iter().map(Policy::Scorer).collect();
        all.extend(
            BANDIT_PRESETS
                .iter()
                .filter_map(|(name, _)| Exp3::preset(name))
                .map(Policy::Bandit),
        );
        all
    }

    /// The policy of [`Policy::named`] called `name` (case-insensitive, `_` for `-` as RON
    /// identifiers write `lambda_harmonic`), if any.
    pub fn by_name(name: &str) -> Option<Policy> {
        if let Some(bandit) = Exp3::preset(&name.trim().replace('_', "-")) {
            return Some(Policy::Bandit(bandit));
        }
        Scorer::by_name(name).map(Policy::Scorer)
    }

    /// The names of [`Policy::named`], comma-separated (for messages).
    fn names() -> String {
        let mut names: Vec<String> = Policy::named().iter().map(Policy::label).collect();
        names.push(ORACLE.to_string());
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
            return Ok(Scorer::Model(Policy::load_model(path)?).into());
        }
        if let Some(named) = Policy::by_name(name) {
            return Ok(named);
        }
        if let Some(adaptive) = Adaptive::parse(text) {
            return Ok(Scorer::Adaptive(adaptive?).into());
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
                known: Policy::names(),
            }),
            Err(e) => Err(e.into()),
        }
    }

    /// `text` without a trailing ` [model PATH]`, and that path.
    pub(crate) fn split_model(text: &str) -> (&str, Option<&str>) {
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
    pub(crate) fn split_closure(text: &str) -> (&str, Option<Closure>) {
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
            Policy::Scorer(s) => s.ron(),
            Policy::Bandit(b) => b.to_string(),
        }
    }
}

impl Scorer {
    /// Its name in tables and JSON keys (as [`Policy::label`]).
    pub fn label(&self) -> String {
        self.to_string()
    }
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

impl fmt::Display for Policy {
    /// A scorer's text, or a bandit's (a preset's name or `exp3(..)`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Policy::Scorer(s) => write!(f, "{s}"),
            Policy::Bandit(b) => write!(f, "{b}"),
        }
    }
}

/// `text` with the policy names that hold a `-` (`lambda-harmonic`) written as RON
/// identifiers (`lambda_harmonic`), outside quoted strings (formulas stay as written).
fn identifiers(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, part) in text.split('"').enumerate() {
        if i > 0 {
            out.push('"');
        }
        if i % 2 == 1 {
            out.push_str(part);
            continue;
        }
        let mut part = part.to_string();
        for name in Scorer::named().iter().map(Scorer::label) {
            if name.contains('-') {
                part = part.replace(&name, &name.replace('-', "_"));
            }
        }
        out.push_str(&part);
    }
    out
}

/// A bandit's fields as written in `exp3(..)` (RON), before checking.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename = "exp3")]
pub(crate) struct RawExp3 {
    /// The arms: policies; a preset's name stands for its arms.
    pub(crate) arms: Vec<Policy>,
    #[serde(default, deserialize_with = "number")]
    pub(crate) gamma: Option<f64>,
    #[serde(default, deserialize_with = "number")]
    pub(crate) eta: Option<f64>,
    #[serde(default, deserialize_with = "rate")]
    pub(crate) rate: Rate,
    #[serde(default, deserialize_with = "forget")]
    pub(crate) forget: Forget,
    #[serde(default, deserialize_with = "reward")]
    pub(crate) reward: Option<Reward>,
}

/// `gamma: 0.5` (not RON's `Some(0.5)`).
fn number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    f64::deserialize(d).map(Some)
}

/// `reward: ndcg` or `reward: found` (not RON's `Some(..)`); anything else is an error
/// listing the rewards (the reader adds where).
fn reward<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Reward>, D::Error> {
    use serde::de::Error;
    /// The words `reward:` takes (a metric's, with its aliases, or `found`).
    #[derive(Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Word {
        Found,
        #[serde(alias = "ChangeRate")]
        ChangeRate,
        #[serde(alias = "NDCG")]
        Ndcg,
        #[serde(alias = "Freshness")]
        Freshness,
        #[serde(alias = "WFreshness")]
        WFreshness,
        #[serde(alias = "WNDCG")]
        WNdcg,
    }
    let word = Word::deserialize(d).map_err(|_| D::Error::custom(REWARDS))?;
    Ok(Some(match word {
        Word::Found => Reward::Found,
        Word::ChangeRate => Reward::Metric(Metric::ChangeRate),
        Word::Ndcg => Reward::Metric(Metric::Ndcg),
        Word::Freshness => Reward::Metric(Metric::Freshness),
        Word::WFreshness => Reward::Metric(Metric::WFreshness),
        Word::WNdcg => Reward::Metric(Metric::WNdcg),
    }))
}

const REWARDS: &str =
    "reward: not a reward (expected found, changerate, ndcg, freshness, wfreshness or wndcg)";

/// `rate: fixed`, `horizon(T)` or `anytime`, with the reason when it is none of them.
fn rate<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Rate, D::Error> {
    use serde::de::Error;
    Rate::deserialize(d).map_err(|e| {
        D::Error::custom(format!(
            "rate: expected fixed, horizon(T) with T >= 1 cycles, or anytime ({e})"
        ))
    })
}

/// `forget: none`, `discount(window: W)` or `share(alpha: A)`, with the reason when it is
/// none of them.
fn forget<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Forget, D::Error> {
    use serde::de::Error;
    Forget::deserialize(d).map_err(|e| {
        D::Error::custom(format!(
            "forget: expected none, discount(window: W) or share(alpha: A) ({e})"
        ))
    })
}

impl TryFrom<RawExp3> for Exp3<Scorer> {
    type Error = BanditError;

    fn try_from(raw: RawExp3) -> Result<Exp3<Scorer>, BanditError> {
        // A preset among the arms stands for its arms; any other bandit is refused as
        // nested.
        let mut arms = Vec::new();
        for arm in raw.arms {
            match arm {
                Policy::Scorer(s) => arms.push(s),
                Policy::Bandit(b) if b.preset_name().is_some() => arms.extend(b.into_arms()),
                Policy::Bandit(_) => return Err(BanditError::Nested(arms.len())),
            }
        }
        if raw.rate != Rate::Fixed && raw.gamma.is_some() {
            return Err(BanditError::Schedule);
        }
        let learning = Learning {
            gamma: raw.gamma.unwrap_or(DEFAULT_GAMMA),
            eta: raw.eta,
            rate: raw.rate,
            forget: raw.forget,
        };
        Exp3::new(arms, learning, raw.reward)
    }
}

impl Exp3<Scorer> {
    /// The preset called `name` (`kab2`, `kab3`, `kab5`; case-insensitive), with the
    /// default γ and the run's metric as reward.
    pub fn preset(name: &str) -> Option<Exp3<Scorer>> {
        let (_, arms) = BANDIT_PRESETS
            .iter()
            .find(|(preset, _)| preset.eq_ignore_ascii_case(name.trim()))?;
        let arms = arms
            .iter()
            .map(|a| Scorer::by_name(a))
            .collect::<Option<_>>()?;
        Exp3::new(arms, Learning::default(), None).ok()
    }

    /// Reads `(arms: [..], gamma: .., eta: .., rate: .., forget: .., reward: ..)`, the text after `exp3`. Names may be
    /// written as on the command line (`lambda-harmonic`) or as RON identifiers
    /// (`lambda_harmonic`).
    pub(crate) fn parse_fields(fields: &str) -> Result<Exp3<Scorer>, BanditError> {
        let fields = identifiers(fields);
        let raw: RawExp3 =
            ron::from_str(&fields).map_err(|e| BanditError::Syntax(e.to_string()))?;
        Exp3::try_from(raw)
    }

    /// The name of the preset it is, if it is one exactly.
    fn preset_name(&self) -> Option<&'static str> {
        BANDIT_PRESETS
            .iter()
            .map(|(name, _)| *name)
            .find(|name| Exp3::preset(name).as_ref() == Some(self))
    }
}

impl fmt::Display for Learning {
    /// The fields of `exp3(..)` that say how it learns, as they are read: `gamma: ..` (for
    /// a fixed rate), then `eta`, `rate` and `forget` when they are not the defaults.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.rate {
            Rate::Fixed => write!(f, "gamma: {}", self.gamma)?,
            Rate::Horizon(t) => write!(f, "rate: horizon({t})")?,
            Rate::Anytime => f.write_str("rate: anytime")?,
        }
        if let Some(eta) = self.eta {
            write!(f, ", eta: {eta}")?;
        }
        match self.forget {
            Forget::None => Ok(()),
            Forget::Discount { window } => write!(f, ", forget: discount(window: {window})"),
            Forget::Share { alpha } => write!(f, ", forget: share(alpha: {alpha})"),
        }
    }
}

impl fmt::Display for Exp3<Scorer> {
    /// A preset's name, or `exp3(arms: [..], ..)` with each arm as RON
    /// writes a policy (names as identifiers, formulas as `formula("..")`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(name) = self.preset_name() {
            return f.write_str(name);
        }
        f.write_str("exp3(arms: [")?;
        for (i, arm) in self.arms().iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}", arm.ron())?;
        }
        write!(f, "], {}", self.learning())?;
        if let Some(reward) = self.reward() {
            write!(f, ", reward: {}", reward.name())?;
        }
        f.write_str(")")
    }
}
