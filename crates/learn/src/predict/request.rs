//! What a user asks of one model's training, as `freshgp model train`'s flags and Python's
//! `Model.train` arguments give it: [`TrainRequest`] holds every default once and
//! [`TrainRequest::options`] checks every setting once, so the two front ends train the
//! same model from the same words and refuse the same mistakes, each naming the setting in
//! its own spelling ([`TrainSetting::flag`], [`TrainSetting::name`]).
//!
//! ```
//! use freshgp_data::data::synth::{generate, SynthParams};
//! use freshgp_learn::predict::request::{TrainRequest, TrainSetting};
//!
//! let mut params = SynthParams::preset("steady").unwrap();
//! params.pages = 200;
//! let data = generate(&params, 1).unwrap();
//! let (features, options) = TrainRequest::default().options(&data).unwrap();
//! assert_eq!((options.rotation, options.horizon), (0, 1));
//! assert!(!features.is_empty());
//!
//! let bad = TrainRequest { horizon: Some(0), ..TrainRequest::default() };
//! let e = bad.options(&data).unwrap_err();
//! assert_eq!(e.setting, TrainSetting::Horizon);
//! assert_eq!(e.to_string(), "--horizon 0: the label horizon K must be at least 1");
//! assert_eq!(e.named(e.setting.name()), "horizon 0: the label horizon K must be at least 1");
//! ```

use super::eval::{ModelKind, TrainOptions, DEFAULT_MEMORY};
use super::NetworkOptions;
use crate::data::split::{check_rotation, FOLDS};
use crate::data::Dataset;
use crate::model::{Feature, FeatureSet};
use std::fmt;

/// The kind of model trained unless told otherwise.
pub const DEFAULT_KIND: ModelKind = ModelKind::Logistic;
/// The label horizon K unless told otherwise.
pub const DEFAULT_HORIZON: usize = 1;
/// The rotation trained on unless told otherwise.
pub const DEFAULT_ROTATION: usize = 0;
/// Mebibytes the examples may take in memory unless told otherwise ([`DEFAULT_MEMORY`]).
pub const DEFAULT_MEMORY_MIB: usize = DEFAULT_MEMORY >> 20;

/// One model's training as asked; `None` (or empty) takes the default.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TrainRequest {
    /// The kind of model ([`DEFAULT_KIND`]).
    pub kind: Option<ModelKind>,
    /// Feature names as `--features` takes them (empty: the features a policy can run
    /// with, [`FeatureSet::for_policy`], or the network's, [`FeatureSet::network`]).
    pub features: Vec<String>,
    /// The rotation whose training fold and period it learns on ([`DEFAULT_ROTATION`]).
    pub rotation: Option<usize>,
    /// The label horizon K ([`DEFAULT_HORIZON`]).
    pub horizon: Option<usize>,
    /// Mebibytes the examples may take in memory before they are streamed
    /// ([`DEFAULT_MEMORY_MIB`]).
    pub memory_mib: Option<usize>,
    /// How to train a network (`NetworkOptions::default()`; unused for a logistic
    /// regression).
    pub network: Option<NetworkOptions>,
}

/// A setting of [`TrainRequest`], for errors that name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrainSetting {
    /// `features`.
    Features,
    /// `rotation`.
    Rotation,
    /// `horizon`.
    Horizon,
    /// `memory`.
    Memory,
}

impl TrainSetting {
    /// The setting as Python's `Model.train` names it (`memory` is the command's alone so
    /// far: Python trains with the default).
    pub fn name(self) -> &'static str {
        match self {
            TrainSetting::Features => "features",
            TrainSetting::Rotation => "rotation",
            TrainSetting::Horizon => "horizon",
            TrainSetting::Memory => "memory",
        }
    }

    /// The setting as `freshgp model train` spells it.
    pub fn flag(self) -> &'static str {
        match self {
            TrainSetting::Features => "--features",
            TrainSetting::Rotation => "--rotation",
            TrainSetting::Horizon => "--horizon",
            TrainSetting::Memory => "--memory",
        }
    }
}

/// A setting of a [`TrainRequest`] that cannot be used, with its value and why; shown
/// with the command's flag ([`TrainSetting::flag`]), or any spelling by
/// [`TrainRequestError::named`].
#[derive(Debug, Clone, PartialEq)]
pub struct TrainRequestError {
    /// The setting at fault.
    pub setting: TrainSetting,
    /// Its value as given.
    pub value: String,
    /// Why it cannot be used.
    pub reason: String,
}

impl TrainRequestError {
    /// The error with the setting spelled `name`.
    pub fn named(&self, name: &str) -> String {
        format!("{name} {}: {}", self.value, self.reason)
    }
}

impl fmt::Display for TrainRequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.named(self.setting.flag()))
    }
}

impl std::error::Error for TrainRequestError {}

impl TrainRequest {
    /// The features to train on and the checked options, every default resolved.
    ///
    /// # Errors
    /// The first setting that cannot be used: a feature name freshgp does not know, a
    /// rotation outside 0..=4, a horizon or a memory of 0.
    pub fn options(&self, data: &Dataset) -> Result<(FeatureSet, TrainOptions), TrainRequestError> {
        let fail = |setting, value: String, reason: String| TrainRequestError {
            setting,
            value,
            reason,
        };
        let kind = self.kind.unwrap_or(DEFAULT_KIND);
        let rotation = self.rotation.unwrap_or(DEFAULT_ROTATION);
        if check_rotation(rotation).is_err() {
            let why = format!("out of range (expected 0..={})", FOLDS - 1);
            return Err(fail(TrainSetting::Rotation, rotation.to_string(), why));
        }
        let horizon = self.horizon.unwrap_or(DEFAULT_HORIZON);
        if horizon == 0 {
            let why = "the label horizon K must be at least 1".to_string();
            return Err(fail(TrainSetting::Horizon, "0".into(), why));
        }
        let memory = self.memory_mib.unwrap_or(DEFAULT_MEMORY_MIB);
        if memory == 0 {
            let why = "expected at least 1 (MiB)".to_string();
            return Err(fail(TrainSetting::Memory, "0".into(), why));
        }
        let features = match self.features.is_empty() {
            true if kind == ModelKind::Network => FeatureSet::network(data),
            true => FeatureSet::for_policy(data),
            false => FeatureSet::new(
                (self.features.iter())
                    .map(|name| {
                        let value = name.trim();
                        value
                            .parse::<Feature>()
                            .map_err(|e| fail(TrainSetting::Features, value.into(), e.to_string()))
                    })
                    .collect::<Result<_, _>>()?,
            ),
        };
        let options = TrainOptions {
            rotation,
            horizon,
            kind,
            network: self.network.unwrap_or_default(),
            memory: memory.saturating_mul(1 << 20),
        };
        Ok((features, options))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::synth::{generate, SynthParams};

    fn data() -> Dataset {
        let mut params = SynthParams::preset("steady").unwrap();
        params.pages = 300;
        generate(&params, 3).unwrap()
    }

    #[test]
    fn defaults_are_the_library_constants() {
        let d = data();
        let (features, options) = TrainRequest::default().options(&d).unwrap();
        assert_eq!(features, FeatureSet::for_policy(&d));
        assert_eq!(options.kind, DEFAULT_KIND);
        assert_eq!(options.rotation, DEFAULT_ROTATION);
        assert_eq!(options.horizon, DEFAULT_HORIZON);
        assert_eq!(options.memory, DEFAULT_MEMORY);
        assert_eq!(options.network, NetworkOptions::default());
        let network = TrainRequest {
            kind: Some(ModelKind::Network),
            ..TrainRequest::default()
        };
        assert_eq!(network.options(&d).unwrap().0, FeatureSet::network(&d));
    }

    #[test]
    fn given_settings_are_kept() {
        let request = TrainRequest {
            kind: Some(ModelKind::Network),
            features: vec![" freq7 ".into(), "since_change".into()],
            rotation: Some(4),
            horizon: Some(3),
            memory_mib: Some(2),
            network: Some(NetworkOptions {
                epochs: 7,
                ..NetworkOptions::default()
            }),
        };
        let (features, options) = request.options(&data()).unwrap();
        let names: Vec<String> = features.features().iter().map(|f| f.to_string()).collect();
        assert_eq!(names, ["freq7", "since_change"]);
        assert_eq!((options.rotation, options.horizon), (4, 3));
        assert_eq!((options.memory, options.network.epochs), (2 << 20, 7));
    }

    #[test]
    fn each_bad_setting_is_named_in_both_spellings() {
        let d = data();
        let cases = [
            (
                TrainRequest {
                    rotation: Some(5),
                    ..TrainRequest::default()
                },
                TrainSetting::Rotation,
                "--rotation 5: out of range (expected 0..=4)",
            ),
            (
                TrainRequest {
                    horizon: Some(0),
                    ..TrainRequest::default()
                },
                TrainSetting::Horizon,
                "--horizon 0: the label horizon K must be at least 1",
            ),
            (
                TrainRequest {
                    memory_mib: Some(0),
                    ..TrainRequest::default()
                },
                TrainSetting::Memory,
                "--memory 0: expected at least 1 (MiB)",
            ),
            (
                TrainRequest {
                    features: vec!["freq7".into(), "nope".into()],
                    ..TrainRequest::default()
                },
                TrainSetting::Features,
                "--features nope: ",
            ),
        ];
        for (request, setting, start) in cases {
            let e = request.options(&d).unwrap_err();
            assert_eq!(e.setting, setting);
            assert!(e.to_string().starts_with(start), "{e}");
            let python = e.named(setting.name());
            assert!(
                python.starts_with(setting.name()) && !python.contains("--"),
                "{python}"
            );
        }
    }
}
