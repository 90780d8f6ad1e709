//! Policies in files: [`Spec`], what a policy is rather than how it runs (its variant
//! order is the scheduler state format; [`PolicySpec`] for a policy, [`ArmSpec`] for a
//! bandit's arm, which cannot be a bandit), and
//! `Serialize`/`Deserialize` for [`Policy`] — its text in JSON, the command line's forms in
//! RON (`NAD`, `adaptive(..)`, `formula("..")`, `file("..")`, `model("..")`, `exp3(..)`),
//! its specification in binary — checked and compiled on the way in.

use super::files::read_policy_file;
use super::text::RawExp3;
use super::RawAdaptive;
use super::Scorer;
use super::{Adaptive, BanditError, Baseline, Exp3, Policy, PolicyError, Predictor, RatePolicy};
use super::{Learning, Reward};
use crate::formula::{Closure, Formula, Grammar};
use crate::metric::Metric;
use serde::{Deserialize, Serialize};
use std::fmt;

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
        Policy::parse(text, &Grammar::every()).map_err(E::custom)
    }

    fn visit_enum<A: serde::de::EnumAccess<'de>>(self, data: A) -> Result<Policy, A::Error> {
        use serde::de::{Error, VariantAccess};
        let (Name(name), variant) = data.variant()?;
        match name.as_str() {
            "adaptive" => {
                const FIELDS: &[&str] = &["init", "min", "max", "inc", "dec"];
                let raw = variant.struct_variant(FIELDS, AdaptiveFields)?;
                Ok(Scorer::Adaptive(Adaptive::try_from(raw).map_err(A::Error::custom)?).into())
            }
            "formula" => {
                let text: String = variant.newtype_variant()?;
                let (text, closure) = Policy::split_closure(&text);
                let (text, model) = Policy::split_model(text);
                let formula = Formula::parse(text, &Grammar::every()).map_err(A::Error::custom)?;
                let model = model
                    .map(Policy::load_model)
                    .transpose()
                    .map_err(A::Error::custom)?;
                Policy::formula_with(&formula, closure.unwrap_or(Closure::Paper), model.as_ref())
                    .map_err(A::Error::custom)
            }
            "model" => {
                let path: String = variant.newtype_variant()?;
                Ok(Scorer::Model(Policy::load_model(&path).map_err(A::Error::custom)?).into())
            }
            "file" => {
                let path: String = variant.newtype_variant()?;
                let text = read_policy_file(&path).map_err(A::Error::custom)?;
                Policy::parse(&text, &Grammar::every())
                    .map_err(|e| A::Error::custom(format!("{path}: {e}")))
            }
            "exp3" => {
                const FIELDS: &[&str] = &["arms", "gamma", "eta", "rate", "forget", "reward"];
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

/// The fields of `exp3(..)`, read into a raw bandit.
struct Exp3Fields;

impl<'de> serde::de::Visitor<'de> for Exp3Fields {
    type Value = RawExp3;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the fields arms, gamma, eta, rate, forget and reward")
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

impl PartialEq for Scorer {
    fn eq(&self, other: &Scorer) -> bool {
        ArmSpec::from(self.clone()) == ArmSpec::from(other.clone())
    }
}

/// A policy as written in files: what it is, not how it runs. The variants' order is part
/// of the scheduler's state format: append new kinds at the end. A policy's is
/// [`PolicySpec`]; a bandit's arm's, [`ArmSpec`], the same enum (so the same encoding)
/// whose bandit variants hold [`NoBandit`], which no value has.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum Spec<Bandit, Exp3> {
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
    /// An EXP3 bandit rewarded by a metric or the run's.
    Bandit(Bandit),
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
    /// A bandit that learns otherwise than EXP3, or is rewarded by [`Reward::Found`]
    /// (docs/src/reference/bandit.md#learning). Every other bandit is written as
    /// [`Spec::Bandit`], as before this variant existed, so its files are unchanged.
    Exp3(Exp3),
    /// The oracle.
    Oracle,
}

/// A policy's specification (the scheduler's state holds it).
pub(crate) type PolicySpec = Spec<BanditSpec, Exp3Spec>;

/// A bandit's arm's specification: no bandit.
pub(crate) type ArmSpec = Spec<NoBandit, NoBandit>;

/// An EXP3 bandit rewarded by a metric (or the run's), as it was always written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct BanditSpec {
    /// Its arms (never bandits: the type cannot nest, so no file can make decoding
    /// recurse).
    arms: Vec<ArmSpec>,
    /// Its exploration rate.
    gamma: f64,
    /// Its reward metric (`None`: the run's).
    reward: Option<Metric>,
}

/// A bandit that learns otherwise (see [`Spec::Exp3`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Exp3Spec {
    /// Its arms.
    arms: Vec<ArmSpec>,
    /// How its weights learn.
    learning: Learning,
    /// Its reward (`None`: the run's metric).
    reward: Option<Reward>,
}

/// The bandit variants of an arm's [`Spec`]: no value, and reading one is an error (an
/// arm is no bandit).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) enum NoBandit {}

impl<'de> Deserialize<'de> for NoBandit {
    fn deserialize<D: serde::Deserializer<'de>>(_: D) -> Result<NoBandit, D::Error> {
        Err(serde::de::Error::custom(PolicyError::Bandit(
            BanditError::Syntax("a saved arm is a bandit".into()),
        )))
    }
}

impl<B, E> Spec<B, E> {
    /// The specification of `scorer`.
    fn of(scorer: Scorer) -> Spec<B, E> {
        match scorer {
            Scorer::Formula(f) => match f.model {
                None => Spec::Formula {
                    formula: f.formula,
                    closure: f.closure,
                },
                Some(m) => Spec::ModelFormula {
                    formula: f.formula,
                    closure: f.closure,
                    path: m.path().to_string(),
                    text: m.text().to_string(),
                },
            },
            Scorer::Model(m) => Spec::Model {
                path: m.path().to_string(),
                text: m.text().to_string(),
            },
            Scorer::Baseline(b) => Spec::Baseline(b),
            Scorer::Adaptive(a) => Spec::Adaptive(a.into()),
            Scorer::Rate(r) => Spec::Rate(r),
            Scorer::Value => Spec::Value,
            Scorer::Oracle => Spec::Oracle,
        }
    }

    /// The scorer it specifies, checked and compiled, or its bandit variant's content.
    fn scorer(self) -> Result<Result<Scorer, Either<B, E>>, PolicyError> {
        Ok(Ok(match self {
            Spec::Formula { formula, closure } => Scorer::formula_with(&formula, closure, None)?,
            Spec::Baseline(b) => Scorer::Baseline(b),
            Spec::Adaptive(raw) => Scorer::Adaptive(Adaptive::try_from(raw)?),
            Spec::Rate(r) => Scorer::Rate(r),
            Spec::Value => Scorer::Value,
            Spec::Oracle => Scorer::Oracle,
            Spec::Model { path, text } => Scorer::Model(Predictor::from_text(&path, &text)?),
            Spec::ModelFormula {
                formula,
                closure,
                path,
                text,
            } => {
                let model = Predictor::from_text(&path, &text)?;
                Scorer::formula_with(&formula, closure, Some(&model))?
            }
            Spec::Bandit(b) => return Ok(Err(Either::Bandit(b))),
            Spec::Exp3(e) => return Ok(Err(Either::Exp3(e))),
        }))
    }
}

/// The content of a [`Spec`]'s bandit variant.
enum Either<B, E> {
    /// [`Spec::Bandit`]'s.
    Bandit(B),
    /// [`Spec::Exp3`]'s.
    Exp3(E),
}

impl From<Scorer> for ArmSpec {
    fn from(scorer: Scorer) -> ArmSpec {
        Spec::of(scorer)
    }
}

impl TryFrom<ArmSpec> for Scorer {
    type Error = PolicyError;

    fn try_from(spec: ArmSpec) -> Result<Scorer, PolicyError> {
        match spec.scorer()? {
            Ok(scorer) => Ok(scorer),
            Err(Either::Bandit(no) | Either::Exp3(no)) => match no {},
        }
    }
}

impl TryFrom<PolicySpec> for Policy {
    type Error = PolicyError;

    fn try_from(spec: PolicySpec) -> Result<Policy, PolicyError> {
        let arms = |arms: Vec<ArmSpec>| -> Result<Vec<Scorer>, PolicyError> {
            arms.into_iter().map(Scorer::try_from).collect()
        };
        Ok(match spec.scorer()? {
            Ok(scorer) => Policy::Scorer(scorer),
            Err(Either::Bandit(BanditSpec {
                arms: a,
                gamma,
                reward,
            })) => Policy::Bandit(Exp3::new(
                arms(a)?,
                Learning::exp3(gamma),
                reward.map(Reward::Metric),
            )?),
            Err(Either::Exp3(Exp3Spec {
                arms: a,
                learning,
                reward,
            })) => Policy::Bandit(Exp3::new(arms(a)?, learning, reward)?),
        })
    }
}

impl From<Policy> for PolicySpec {
    fn from(policy: Policy) -> PolicySpec {
        match policy {
            Policy::Scorer(scorer) => Spec::of(scorer),
            Policy::Bandit(b) => {
                let learning = *b.learning();
                let reward = b.reward();
                let arms = b.into_arms().into_iter().map(ArmSpec::from).collect();
                // EXP3 rewarded by a metric (or the run's) as it always was written.
                let metric_or_run = match reward {
                    None => Some(None),
                    Some(reward) => reward.metric().map(Some),
                };
                match metric_or_run {
                    Some(reward) if learning.is_exp3() => Spec::Bandit(BanditSpec {
                        arms,
                        gamma: learning.gamma,
                        reward,
                    }),
                    _ => Spec::Exp3(Exp3Spec {
                        arms,
                        learning,
                        reward,
                    }),
                }
            }
        }
    }
}
