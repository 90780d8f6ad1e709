//! Policies in files: [`PolicySpec`], what a policy is rather than how it runs (its
//! variant order is the scheduler state format), [`ArmSpec`] for a bandit's arms, and
//! `Serialize`/`Deserialize` for [`Policy`] — its text in JSON, the command line's forms in
//! RON (`NAD`, `adaptive(..)`, `formula("..")`, `file("..")`, `model("..")`, `exp3(..)`),
//! its specification in binary — checked and compiled on the way in.

use super::files::read_policy_file;
use super::text::RawExp3;
use super::RawAdaptive;
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
                Ok(Policy::Adaptive(
                    Adaptive::try_from(raw).map_err(A::Error::custom)?,
                ))
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
                Ok(Policy::Model(
                    Policy::load_model(&path).map_err(A::Error::custom)?,
                ))
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
    /// A bandit that learns otherwise than EXP3, or is rewarded by [`Reward::Found`]
    /// (docs/src/reference/bandit.md#learning). Every other bandit is written as
    /// [`PolicySpec::Bandit`], as before this variant existed, so its files are unchanged.
    Exp3 {
        /// Its arms.
        arms: Vec<ArmSpec>,
        /// How its weights learn.
        learning: Learning,
        /// Its reward (`None`: the run's metric).
        reward: Option<Reward>,
    },
    /// The oracle.
    Oracle,
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
    /// The place of [`PolicySpec::Exp3`]: never written (an arm is no bandit); read, it
    /// is refused.
    NoExp3,
    /// The oracle.
    Oracle,
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
            ArmSpec::NoBandit | ArmSpec::NoExp3 => {
                return Err(PolicyError::Bandit(BanditError::Syntax(
                    "a saved arm is a bandit".into(),
                )))
            }
            ArmSpec::Oracle => PolicySpec::Oracle,
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
            PolicySpec::Oracle => ArmSpec::Oracle,
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
            PolicySpec::Bandit { .. } | PolicySpec::Exp3 { .. } => return None,
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
            PolicySpec::Oracle => Policy::Oracle,
            PolicySpec::Bandit {
                arms,
                gamma,
                reward,
            } => Policy::Bandit(Exp3::new(
                arm_policies(arms)?,
                Learning::exp3(gamma),
                reward.map(Reward::Metric),
            )?),
            PolicySpec::Exp3 {
                arms,
                learning,
                reward,
            } => Policy::Bandit(Exp3::new(arm_policies(arms)?, learning, reward)?),
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

/// The policies of a saved bandit's arms.
fn arm_policies(arms: Vec<ArmSpec>) -> Result<Vec<Policy>, PolicyError> {
    arms.into_iter()
        .map(|arm| Policy::try_from(PolicySpec::try_from(arm)?))
        .collect()
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
            Policy::Oracle => PolicySpec::Oracle,
            Policy::Bandit(b) => {
                // Invariant: `Exp3::new` refuses bandits as arms.
                let arms = b
                    .arms()
                    .iter()
                    .map(|arm| ArmSpec::of(arm).expect("invariant: no arm is a bandit"))
                    .collect();
                let learning = *b.learning();
                // EXP3 rewarded by a metric (or the run's) as it always was written.
                let metric_or_run = match b.reward() {
                    None => Some(None),
                    Some(reward) => reward.metric().map(Some),
                };
                match metric_or_run {
                    Some(reward) if learning.is_exp3() => PolicySpec::Bandit {
                        arms,
                        gamma: learning.gamma,
                        reward,
                    },
                    _ => PolicySpec::Exp3 {
                        arms,
                        learning,
                        reward: b.reward(),
                    },
                }
            }
        }
    }
}
