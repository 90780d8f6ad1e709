//! The adaptive revisit intervals of open-source crawlers ([`Adaptive`],
//! `docs/src/reference/policies.md`) and its presets `nutch` and `stormcrawler`.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The adaptive revisit interval of open-source crawlers
/// (docs/src/reference/policies.md#adaptive-intervals): each page keeps an interval `I`
/// (cycles), initially `init`; after every visit `I ← max(min, I·(1 - dec))` when it found
/// a change and `I ← min(max, I·(1 + inc))` when not; the score is `t / I`.
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

    /// The interval of a page never visited.
    pub(crate) fn initial(&self) -> f64 {
        self.init
    }

    /// Whether `interval` is one the rule can reach (within `min..=max`).
    pub(crate) fn reaches(&self, interval: f64) -> bool {
        interval >= self.min && interval <= self.max
    }

    fn preset_name(&self) -> Option<&'static str> {
        Adaptive::PRESETS
            .iter()
            .find(|(_, preset)| preset == self)
            .map(|(name, _)| *name)
    }

    /// Reads `nutch`, `stormcrawler` or `adaptive(init: .., min: .., max: .., inc: ..,
    /// dec: ..)` (RON); `None` when `text` is none of these forms.
    pub(crate) fn parse(text: &str) -> Option<Result<Adaptive, AdaptiveError>> {
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
