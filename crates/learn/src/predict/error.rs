//! Why a feature set, a model or the data cannot be used for learning ([`FeatureError`],
//! one variant per reason, carried by [`PredictError::Feature`](super::PredictError)), and
//! why network options cannot ([`NetworkOptionsError`]).

use crate::model::Feature;

/// The names `known`, comma-separated, or `none`.
fn listed(known: &[String]) -> String {
    match known.is_empty() {
        true => "none".to_string(),
        false => known.join(", "),
    }
}

/// Why a feature set, a model or the data cannot be used for learning.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FeatureError {
    /// A group or categorical feature of an attribute no page has.
    #[error("no page has the attribute `{key}` (the data has: {})", listed(.known))]
    NoAttribute {
        /// The attribute asked for.
        key: String,
        /// The attributes the data has.
        known: Vec<String>,
    },
    /// The stale model's prior grouped by an attribute no page has.
    #[error("no page has the attribute `{key}` for the prior's groups (the data has: {})", listed(.known))]
    NoPriorAttribute {
        /// The attribute asked for.
        key: String,
        /// The attributes the data has (and `host` when pages have hosts).
        known: Vec<String>,
    },
    /// `groups` on data with neither a categorical attribute nor hosts.
    #[error("`groups` needs a categorical attribute or hosts; the data has neither")]
    NoGroups,
    /// A prior group written as nothing.
    #[error("an empty prior group (expected auto, none, host or an attribute)")]
    EmptyPriorGroup,
    /// A feature only the stale model computes, asked of a change model.
    #[error("`{0}` is a feature of the stale model (--kind hazard), not of a change model")]
    StaleOnly(Feature),
    /// A stale model without features.
    #[error("the stale model needs a feature")]
    NoStaleFeature,
    /// A feature the stale model does not compute.
    #[error("`{0}` is not a feature of the stale model (it reads since_visit, rate, since_change, prior)")]
    NotStale(Feature),
    /// A categorical feature given to a logistic regression.
    #[error("{0}: a categorical code is an input of the network only (the logistic regression takes freqW, since_change and group:KEY)")]
    Categorical(Feature),
    /// Examples whose width is not the feature set's.
    #[error("the {examples} examples have {columns} columns, the features {features}")]
    Width {
        /// Which examples (`training`, `validation`).
        examples: String,
        /// Their columns.
        columns: usize,
        /// The features.
        features: usize,
    },
    /// A categorical column holding a value that is no code of the feature.
    #[error("{feature}: {value} is not a code of its {cardinality} values (0 ..= {cardinality})")]
    Code {
        /// The feature.
        feature: Feature,
        /// The value found.
        value: f64,
        /// Its number of values.
        cardinality: usize,
    },
    /// Cardinalities that are not one per categorical feature.
    #[error("{given} cardinalities for the categorical features of {}", .features.join(", "))]
    Cardinalities {
        /// How many were given.
        given: usize,
        /// The feature set's names.
        features: Vec<String>,
    },
    /// A model that reads a feature the examples lack.
    #[error("the model reads `{0}`, which the examples lack")]
    Missing(Feature),
    /// A model kind that is neither `logistic` nor `network`.
    #[error("unknown model kind `{0}` (known: logistic, network)")]
    UnknownKind(String),
    /// A learned method's name that is none of the known ones.
    #[error("unknown learned method `{0}` (expected combined, groups, network, hazard, or a feature: freqW, since_change, group:KEY)")]
    UnknownMethod(String),
    /// A model reading that is none of the known ones.
    #[error("unknown model reading `{0}` (expected change, stale or direct)")]
    UnknownReading(String),
    /// A model of the label `stale` read as stale again.
    #[error("`{0}` is a model of the label `stale`: its probability is already that the page changed since the last visit, so `stale:` would compound it again (use `{0}` alone)")]
    StaleTwice(String),
    /// One feature read as stale.
    #[error("`{0}` is one feature, not a predicted probability: only learned models (combined) can be read as stale")]
    FeatureAsStale(Feature),
    /// A model of another label read directly as a staleness.
    #[error("`{model}` is a model of the label `{label}`: only a model of the label `stale` (hazard) gives a probability of staleness to crawl by directly (`p:`)")]
    NotStaleLabel {
        /// The model's name.
        model: String,
        /// Its label.
        label: String,
    },
    /// What the model file's reader says of a feature name.
    #[error("{0}")]
    Name(String),
}

/// Network options out of range ([`NetworkOptions`](super::NetworkOptions)).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NetworkOptionsError {
    /// No epoch, or an empty batch.
    #[error("epochs and the batch size must be at least 1")]
    Steps,
    /// A learning rate that is not finite and positive.
    #[error("the learning rate must be positive, not {0}")]
    LearningRate(f64),
    /// An L1 or L2 penalty that is not finite and non-negative.
    #[error("the L1 and L2 penalties must be finite and >= 0")]
    Penalty,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_messages_name_what_is_wrong() {
        let none = FeatureError::NoAttribute {
            key: "kind".into(),
            known: Vec::new(),
        };
        assert_eq!(
            none.to_string(),
            "no page has the attribute `kind` (the data has: none)"
        );
        let some = FeatureError::NoPriorAttribute {
            key: "kind".into(),
            known: vec!["category".into(), "host".into()],
        };
        assert_eq!(
            some.to_string(),
            "no page has the attribute `kind` for the prior's groups (the data has: category, host)"
        );
        let twice = FeatureError::StaleTwice("hazard".into()).to_string();
        assert!(twice.ends_with("(use `hazard` alone)"), "{twice}");
        let code = FeatureError::Code {
            feature: Feature::Category("cat".into()),
            value: 7.0,
            cardinality: 3,
        };
        assert_eq!(
            code.to_string(),
            "cat:cat: 7 is not a code of its 3 values (0 ..= 3)"
        );
    }
}
