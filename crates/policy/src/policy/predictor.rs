//! Predictor change models in the simulation (docs/src/reference/policies.md#learned-models):
//! the policy `model:FILE` and the terminal `P` of formulas (`P * t [model m.json]`).
//!
//! A [`Predictor`] is a model file (`freshgp model train`) bound to the statistics a
//! crawler keeps: its prediction for a page at cycle `d` is the model's score of the
//! page's features computed from the crawler's *own* visits, as partial observability
//! (docs/src/reference/models.md#observability) defines them:
//!
//! | feature | from the page's statistics |
//! |---|---|
//! | `freqW` (`W <= 30`) | detected changes / visits in cycles `d-W ..= d-1` (0 without one), from 30-cycle masks of visits and changes ([`Track::WINDOW30`]) |
//! | `since_change` | `tc` |
//! | `group:host` | `HR`: the host's detected changes over its visits in this run |
//! | `group:KEY` | `GR` when the data is grouped by KEY (`--group KEY`, a study's `group:`): the group's detected changes over its visits in this run |
//! | `since_visit` | `t` (the stale model's) |
//! | `rate` | the stale model's posterior mean `(X + m·r₀) / (last visit + m)`, for a prior of no groups |
//! | `prior` | r₀, for a prior of no groups |
//!
//! A model reads the group rate of one attribute besides the host's, and only when the
//! run is grouped by it: the simulation keeps the totals of one grouping
//! (`sim::Period::grouping`), and [`Policy::check_grouping`](super::Policy::check_grouping) refuses
//! a run grouped otherwise with the reason. Categorical codes (`cat:KEY`) are refused
//! here: a model file keeps no attribute values, so codes would not mean the same in
//! another file (the network still drives `freshgp requests`, which trains and scores on
//! the same data). The run's group rates differ from training's (the training fold's
//! pages under full observability): a choice of ours, documented, as `HR` and `GR` are the
//! simulation's rates.
//!
//! A stale model whose prior has groups is refused: the simulation does not know the
//! groups' names its prior is keyed by.
//!
//! **Invariant:** a [`Predictor`] reads at most [`MAX_INPUTS`] features, each one of the
//! kinds above and at most one attribute's group rate, so [`Predictor::predict`]
//! scores a page without allocating.

use super::{PageStats, Surroundings, Track, MAX_WINDOW};
use crate::formula::Terminal;
use crate::model::{Feature, Model};
use std::fmt;
use std::sync::Arc;

/// Why a learned model cannot serve as a policy's `P` (or as the policy `model:FILE`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelUseError {
    /// The file cannot be read.
    #[error("cannot read model file {file}: {reason}")]
    Read {
        /// The file.
        file: String,
        /// What kind of failure it was.
        kind: std::io::ErrorKind,
        /// The system's reason.
        reason: String,
    },
    /// The text is not a model file.
    #[error(transparent)]
    NotAModel(#[from] crate::model::ModelError),
    /// A frequency over a window longer than the simulation keeps.
    #[error(
        "model {path} reads freq{window}: the simulation keeps windows of at most {MAX_WINDOW} cycles"
    )]
    Window {
        /// The model file.
        path: String,
        /// The window.
        window: u32,
    },
    /// A stale model whose prior is centred on groups the simulation cannot name.
    #[error(
        "model {path} reads {feature}, centred on the rates of its groups by {key}: the simulation does not know the groups' names (`freshgp requests --learned hazard` trains and scores on the same data, groups included; or train it with --prior-group none)"
    )]
    GroupPrior {
        /// The model file.
        path: String,
        /// The feature (`rate` or `prior`).
        feature: String,
        /// The attribute the prior groups by.
        key: String,
    },
    /// An attribute's codes, which another file would number otherwise.
    #[error(
        "model {path} reads cat:{key}: a model file keeps no attribute values, so codes would not mean the same in another file (train the network without cat: features, e.g. --features freq1,freq7,freq30,since_change,group:{key}; `freshgp requests --learned` trains and scores on the same data, with codes)"
    )]
    Category {
        /// The model file.
        path: String,
        /// The attribute.
        key: String,
    },
    /// The group rates of two attributes.
    #[error(
        "model {path} reads the group rates of two attributes ({first} and {second}): the simulation keeps one grouping besides the hosts"
    )]
    TwoGroupings {
        /// The model file.
        path: String,
        /// The first attribute.
        first: String,
        /// The second.
        second: String,
    },
    /// More features than a predictor reads.
    #[error("model {path} reads {count} features, the simulation at most {MAX_INPUTS}")]
    TooManyInputs {
        /// The model file.
        path: String,
        /// Its features.
        count: usize,
    },
    /// `model:` without a path.
    #[error("`model:` needs the path of a model file (freshgp model train --out FILE)")]
    NoPath,
    /// A formula that reads `P` without a model.
    #[error(
        "`{formula}` reads P, a learned model's prediction: give its model in the policy text: `{formula} [model FILE]`"
    )]
    Missing {
        /// The formula.
        formula: String,
    },
    /// A model given to a formula that does not read `P`.
    #[error("`{formula}` does not read P: the model {path} would not be used")]
    Unused {
        /// The formula.
        formula: String,
        /// The model file.
        path: String,
    },
}

/// The most features a model may read in the simulation.
pub const MAX_INPUTS: usize = 32;

/// One feature as the simulation computes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Input {
    Frequency(u32),
    SinceChange,
    HostRate,
    GroupRate,
    /// `since_visit`: `t`.
    SinceVisit,
    /// `rate` under a prior centred on the global rate.
    Rate,
    /// `prior` under a prior centred on the global rate: that rate.
    Prior,
}

/// A learned model reads `group:KEY` but the run is grouped by another attribute (or by
/// host): the simulation keeps the group totals of the data's grouping only.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("model {model} reads group:{key}, but the data is grouped by {}: it runs on data whose pages have the attribute `{key}`, grouped by it (--group {key}; a study's `group: \"{key}\"`)", grouping.as_deref().unwrap_or("host"))]
pub struct GroupingError {
    /// The model file, as written.
    pub model: String,
    /// The attribute it reads the group rate of.
    pub key: String,
    /// The data's grouping (`None`: host).
    pub grouping: Option<String>,
}

/// A model file bound for the simulation: its path as written, its text (what the policy
/// *is*: saved with the policy, compared by it) and the model.
///
/// Cloning shares the model (a GP run builds a policy per formula).
#[derive(Clone)]
pub struct Predictor(Arc<Inner>);

struct Inner {
    path: String,
    text: String,
    model: Model,
    inputs: Vec<Input>,
    /// The attribute whose group rate `Input::GroupRate` reads.
    group: Option<String>,
}

impl fmt::Debug for Predictor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Predictor")
            .field("path", &self.0.path)
            .field("features", &self.0.model.features().features())
            .finish()
    }
}

impl PartialEq for Predictor {
    fn eq(&self, other: &Predictor) -> bool {
        self.0.path == other.0.path && self.0.text == other.0.text
    }
}

impl Predictor {
    /// The model file `path` whose contents are `text`.
    ///
    /// # Errors
    /// Not a model file (as `Model::from_json` says), or a model that reads a feature
    /// the simulation does not compute (see the module documentation).
    pub fn from_text(path: &str, text: &str) -> Result<Predictor, ModelUseError> {
        let model = Model::from_json(text, path)?;
        let features = model.features();
        let path_of = || path.to_string();
        let inputs = features
            .features()
            .iter()
            .map(|f| match f {
                Feature::Frequency(w) if (1..=MAX_WINDOW).contains(w) => Ok(Input::Frequency(*w)),
                Feature::Frequency(w) => Err(ModelUseError::Window {
                    path: path_of(),
                    window: *w,
                }),
                Feature::SinceChange => Ok(Input::SinceChange),
                Feature::Group(key) if key == "host" => Ok(Input::HostRate),
                Feature::Group(_) => Ok(Input::GroupRate),
                Feature::SinceVisit => Ok(Input::SinceVisit),
                Feature::Rate | Feature::Prior => match &model {
                    Model::Hazard(h) if h.prior.key.is_some() => Err(ModelUseError::GroupPrior {
                        path: path_of(),
                        feature: f.to_string(),
                        key: h.prior.key.clone().unwrap_or_default(),
                    }),
                    _ if *f == Feature::Rate => Ok(Input::Rate),
                    _ => Ok(Input::Prior),
                },
                Feature::Category(key) => Err(ModelUseError::Category {
                    path: path_of(),
                    key: key.clone(),
                }),
            })
            .collect::<Result<Vec<_>, ModelUseError>>()?;
        let mut keys = features.features().iter().filter_map(|f| match f {
            Feature::Group(key) if key != "host" => Some(key.clone()),
            _ => None,
        });
        let group = keys.next();
        if let Some(other) = keys.find(|k| Some(k) != group.as_ref()) {
            return Err(ModelUseError::TwoGroupings {
                path: path_of(),
                first: group.unwrap_or_default(),
                second: other,
            });
        }
        if inputs.len() > MAX_INPUTS {
            return Err(ModelUseError::TooManyInputs {
                path: path_of(),
                count: inputs.len(),
            });
        }
        Ok(Predictor(Arc::new(Inner {
            path: path.to_string(),
            text: text.to_string(),
            model,
            inputs,
            group,
        })))
    }

    /// Reads the model file at `path` (`shown` names it in messages and in the policy's
    /// text).
    ///
    /// # Errors
    /// An unreadable file, or as [`Predictor::from_text`].
    pub fn load(path: &std::path::Path, shown: &str) -> Result<Predictor, ModelUseError> {
        let text = std::fs::read_to_string(path).map_err(|e| ModelUseError::Read {
            file: path.display().to_string(),
            kind: e.kind(),
            reason: e.to_string(),
        })?;
        Predictor::from_text(shown, &text)
    }

    /// The path as written.
    pub fn path(&self) -> &str {
        &self.0.path
    }

    /// The model file's text.
    pub fn text(&self) -> &str {
        &self.0.text
    }

    /// The model.
    pub fn model(&self) -> &Model {
        &self.0.model
    }

    /// The attribute whose group rate the model reads (`group:KEY`, KEY not `host`): the
    /// run must be grouped by it.
    pub fn group(&self) -> Option<&str> {
        self.0.group.as_deref()
    }

    /// Whether a run grouped by `grouping` (an attribute; `None`: host) computes the
    /// group rate the model reads.
    ///
    /// # Errors
    /// The model reads `group:KEY` of another attribute.
    pub fn check_grouping(&self, grouping: Option<&str>) -> Result<(), GroupingError> {
        match self.group() {
            Some(key) if Some(key) != grouping => Err(GroupingError {
                model: self.path().to_string(),
                key: key.to_string(),
                grouping: grouping.map(str::to_string),
            }),
            _ => Ok(()),
        }
    }

    /// The terminals the prediction reads besides the 30-cycle window (`tc`, `HR`, `GR`).
    pub(crate) fn terminals(&self) -> impl Iterator<Item = Terminal> + '_ {
        self.0.inputs.iter().filter_map(|i| match i {
            Input::Frequency(_) => None,
            Input::SinceChange => Some(Terminal::TC),
            Input::HostRate => Some(Terminal::HR),
            Input::GroupRate => Some(Terminal::GR),
            Input::SinceVisit => Some(Terminal::T),
            Input::Rate | Input::Prior => None,
        })
    }

    /// The model's prediction for a page of statistics `stats` at cycle `d`, host and
    /// group rates `hosts` (the run grouped by [`Predictor::group`], if it names one).
    #[inline]
    pub fn predict(&self, stats: &PageStats, d: u32, hosts: &Surroundings) -> f64 {
        debug_assert!(stats.track().has(Track::WINDOW30));
        let mut row = [0.0; MAX_INPUTS];
        for (x, input) in row.iter_mut().zip(&self.0.inputs) {
            *x = match *input {
                Input::Frequency(w) => stats.frequency(d, w),
                Input::SinceChange => stats.terminal(Terminal::TC, d, hosts),
                Input::HostRate => hosts.rate(stats),
                Input::GroupRate => hosts.group_rate(stats),
                Input::SinceVisit => stats.age(d),
                Input::Rate | Input::Prior => match &self.0.model {
                    Model::Hazard(h) if *input == Input::Rate => {
                        h.prior.rate(stats.x, stats.last_visit, h.prior.rate)
                    }
                    Model::Hazard(h) => h.prior.rate,
                    // Invariant: `from_text` admits these inputs only for a stale model.
                    _ => unreachable!("invariant: rate and prior are a stale model's"),
                },
            };
        }
        // `+ 0.0`: no -0 (terminal values never are).
        self.0.model.score(&row[..self.0.inputs.len()]) + 0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Histories;

    fn logistic(features: &str) -> String {
        let n = features.split(',').count();
        let list: Vec<String> = features.split(',').map(|f| format!("{f:?}")).collect();
        format!(
            r#"{{"format": "freshgp-model", "version": 1, "horizon": 1, "model": {{"kind": "logistic",
            "features": [{}], "mean": {:?}, "scale": {:?}, "weights": {:?}, "intercept": -1.0, "alpha": 1.0}}}}"#,
            list.join(", "),
            vec![0.0; n],
            vec![1.0; n],
            (1..=n).map(|i| i as f64).collect::<Vec<_>>()
        )
    }

    #[test]
    fn the_prediction_reads_the_pages_own_visits() {
        let m =
            Predictor::from_text("m.json", &logistic("freq1,freq7,freq30,since_change")).unwrap();
        let mut s = PageStats::new(
            Track::WINDOW30,
            1.0,
            crate::policy::NO_HOST,
            crate::policy::NO_GROUP,
        );
        let h = &mut Histories::default();
        // Visits at 1 (changed), 3, 10 (changed); scored at 12.
        for (d, c) in [(1, true), (3, false), (10, true)] {
            s.visit(d, c, h);
        }
        let hosts = Surroundings::default();
        assert_eq!(s.frequency(12, 1), 0.0); // cycle 11: no visit
        assert_eq!(s.frequency(12, 2), 1.0); // cycles 10..=11: one visit, changed
        assert_eq!(s.frequency(12, 7), 1.0); // 5..=11
        assert_eq!(s.frequency(12, 30), 2.0 / 3.0); // 1..=11 (the window reaches back)
        assert_eq!(s.frequency(40, 30), 1.0); // 10..=39: the visit at 10 only
        assert_eq!(s.frequency(41, 30), 0.0);
        let z: f64 = -1.0 + 2.0 + 3.0 * (2.0 / 3.0) + 4.0 * 2.0; // tc = 12 - 10
        assert_eq!(m.predict(&s, 12, &hosts), 1.0 / (1.0 + (-z).exp()));
    }

    #[test]
    fn what_the_simulation_cannot_compute_is_refused_with_the_reason() {
        let m = Predictor::from_text("m.json", &logistic("freq7,group:category,group:host"));
        assert_eq!(m.unwrap().group(), Some("category"));
        let two = Predictor::from_text("m.json", &logistic("group:category,group:brand"));
        let e = two.unwrap_err();
        assert!(matches!(e, ModelUseError::TwoGroupings { .. }), "{e}");
        assert!(
            e.to_string()
                .contains("two attributes (category and brand)"),
            "{e}"
        );
        let e = Predictor::from_text("m.json", &logistic("freq7,cat:category")).unwrap_err();
        assert!(
            e.to_string().contains("cannot read a categorical code"),
            "{e}"
        );
        let e = Predictor::from_text("m.json", &logistic("freq31")).unwrap_err();
        assert_eq!(
            e,
            ModelUseError::Window {
                path: "m.json".into(),
                window: 31
            }
        );
        assert!(e.to_string().contains("at most 30 cycles"), "{e}");
        let e = Predictor::from_text("m.json", "{").unwrap_err();
        assert!(matches!(e, ModelUseError::NotAModel(_)), "{e}");
        assert!(e.to_string().contains("m.json:1:"), "{e}");
        let gone = Predictor::load(std::path::Path::new("/nonexistent/m.json"), "m.json");
        match gone.unwrap_err() {
            ModelUseError::Read { kind, file, .. } => {
                assert_eq!(kind, std::io::ErrorKind::NotFound);
                assert_eq!(file, "/nonexistent/m.json");
            }
            other => panic!("{other}"),
        }
        assert!(Predictor::from_text("m.json", &logistic("freq7,group:host")).is_ok());
    }
}
