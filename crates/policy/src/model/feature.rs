//! The features a model reads (Table 1 of the predictive-crawling paper,
//! `docs/src/reference/models.md`): [`Feature`], by name (`freqW`, `since_change`,
//! `group:KEY`, `cat:KEY`), and [`FeatureSet`], the ordered list a model file carries and
//! scores its inputs in. How each is computed from observations is `predict::features`;
//! from a crawl's own statistics, `policy::predictor`.

use super::ModelError;
use crate::data::Dataset;
use std::fmt;

/// One feature of an example.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Feature {
    /// The page's detected-change frequency over the last `w` cycles (1, 7 and 30 in the
    /// paper; any `w >= 1` is allowed).
    Frequency(u32),
    /// Cycles since the last detected change (the cycle number when none).
    SinceChange,
    /// The change frequency of the page's group under a categorical attribute (`host` for
    /// the host column).
    Group(String),
    /// The page's value of a categorical attribute (`host` for the host column) as its
    /// code, `0 ..` the attribute's cardinality, the cardinality itself when the page lacks
    /// it: an input of the network's embeddings only ([`Network`](super::Network)).
    Category(String),
    /// `since_visit`: cycles since the crawler's last visit (`t`; the cycle number when
    /// none): an input of the stale model only ([`Hazard`](super::Hazard)).
    SinceVisit,
    /// `rate`: the page's change rate, its detected changes over the cycles up to its last
    /// visit shrunk toward its prior mean ([`Prior::rate`](super::Prior::rate)): an input
    /// of the stale model only.
    Rate,
    /// `prior`: the page's prior mean rate, its group's shrunk rate
    /// ([`Prior::mean`](super::Prior::mean)): an input of the stale model only.
    Prior,
}

impl Feature {
    /// Whether the feature is a categorical code ([`Feature::Category`]) rather than a
    /// quantity.
    pub fn is_categorical(&self) -> bool {
        matches!(self, Feature::Category(_))
    }

    /// Whether only the stale model reads the feature (it needs the crawler's visits or
    /// the model's prior): [`Feature::SinceVisit`], [`Feature::Rate`], [`Feature::Prior`].
    pub fn is_stale_only(&self) -> bool {
        matches!(self, Feature::SinceVisit | Feature::Rate | Feature::Prior)
    }
}

impl fmt::Display for Feature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Feature::Frequency(w) => write!(f, "freq{w}"),
            Feature::SinceChange => write!(f, "since_change"),
            Feature::Group(key) => write!(f, "group:{key}"),
            Feature::Category(key) => write!(f, "cat:{key}"),
            Feature::SinceVisit => f.write_str("since_visit"),
            Feature::Rate => f.write_str("rate"),
            Feature::Prior => f.write_str("prior"),
        }
    }
}

impl std::str::FromStr for Feature {
    type Err = ModelError;

    fn from_str(s: &str) -> Result<Feature, ModelError> {
        let bad = || {
            ModelError::Feature(format!(
            "unknown feature `{s}` (known: freqW for a window of W >= 1 cycles, since_change, group:KEY, cat:KEY; the stale model's since_visit, rate, prior)"
        ))
        };
        match s {
            "since_change" => return Ok(Feature::SinceChange),
            "since_visit" => return Ok(Feature::SinceVisit),
            "rate" => return Ok(Feature::Rate),
            "prior" => return Ok(Feature::Prior),
            _ => {}
        }
        let key_ok = |key: &str| key == "host" || crate::data::attributes::check_key(key).is_ok();
        if let Some(key) = s.strip_prefix("group:").filter(|k| key_ok(k)) {
            return Ok(Feature::Group(key.to_string()));
        }
        if let Some(key) = s.strip_prefix("cat:").filter(|k| key_ok(k)) {
            return Ok(Feature::Category(key.to_string()));
        }
        match s.strip_prefix("freq").map(str::parse::<u32>) {
            Some(Ok(w)) if w >= 1 => Ok(Feature::Frequency(w)),
            _ => Err(bad()),
        }
    }
}

impl serde::Serialize for Feature {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Feature {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Feature, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

/// An ordered list of features: what a model reads, and the columns of the examples
/// `predict` builds for it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct FeatureSet(Vec<Feature>);

impl FeatureSet {
    /// The features `features`, in that order.
    pub fn new(features: Vec<Feature>) -> FeatureSet {
        FeatureSet(features)
    }

    /// A page's own features: windows 1, 7 and 30, and cycles since the last change.
    fn own() -> FeatureSet {
        FeatureSet(vec![
            Feature::Frequency(1),
            Feature::Frequency(7),
            Feature::Frequency(30),
            Feature::SinceChange,
        ])
    }

    /// Every frequency feature of the paper for `data`: windows 1, 7 and 30, cycles since
    /// the last change, and the group frequency of each attribute and of the host (when
    /// the dataset has hosts).
    pub fn frequency(data: &Dataset) -> FeatureSet {
        let mut f = FeatureSet::own().0;
        f.extend(
            data.attributes()
                .names()
                .into_iter()
                .map(|k| Feature::Group(k.into())),
        );
        if data.host(0).is_some() {
            f.push(Feature::Group("host".into()));
        }
        FeatureSet(f)
    }

    /// The frequency features a policy can compute over `data` as it is grouped: windows
    /// 1, 7 and 30, cycles since the last change, the group frequency of the attribute
    /// the data is grouped by (if any) and of the host (when the dataset has hosts). A
    /// simulation keeps one grouping besides the hosts, so a model of these runs as a
    /// policy wherever the data is grouped alike.
    pub fn for_policy(data: &Dataset) -> FeatureSet {
        let mut f = FeatureSet::own().0;
        if let Some(key) = data.grouping() {
            f.push(Feature::Group(key.into()));
        }
        if data.host(0).is_some() {
            f.push(Feature::Group("host".into()));
        }
        FeatureSet(f)
    }

    /// The network's features for `data`: [`FeatureSet::frequency`], then the code
    /// (`cat:KEY`) of each attribute and of the host (when the dataset has hosts).
    pub fn network(data: &Dataset) -> FeatureSet {
        let mut f = FeatureSet::frequency(data).0;
        f.extend(
            data.attributes()
                .names()
                .into_iter()
                .map(|k| Feature::Category(k.into())),
        );
        if data.host(0).is_some() {
            f.push(Feature::Category("host".into()));
        }
        FeatureSet(f)
    }

    /// The group features (metadata alone: what a model knows of a page with no history),
    /// with their columns.
    pub fn groups(&self) -> (FeatureSet, Vec<usize>) {
        let (columns, features): (Vec<usize>, Vec<Feature>) = self
            .0
            .iter()
            .enumerate()
            .filter(|(_, f)| matches!(f, Feature::Group(_)))
            .map(|(j, f)| (j, f.clone()))
            .unzip();
        (FeatureSet(features), columns)
    }

    /// The stale model's default features: cycles since the last visit, the page's rate,
    /// cycles since the last detected change, and (when `grouped`: its prior is centred on
    /// groups) the prior mean.
    pub fn stale(grouped: bool) -> FeatureSet {
        let mut f = vec![Feature::SinceVisit, Feature::Rate, Feature::SinceChange];
        if grouped {
            f.push(Feature::Prior);
        }
        FeatureSet(f)
    }

    /// The features.
    pub fn features(&self) -> &[Feature] {
        &self.0
    }

    /// Number of features.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}
