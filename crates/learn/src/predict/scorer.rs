//! Learned models driving the request-driven simulation (the seed's section 6;
//! docs/src/reference/requests.md#serving-a-request): a [`ModelScorer`] is a [`RequestScorer`]
//! whose score is the model's prediction from what the run itself has observed.
//!
//! A run knows only what its own visits saw (the warm-up and the crawls its requests
//! triggered, from the first cycle of the period; nothing before it): the page-level
//! features (windows, cycles since the last detected change) read those observations at
//! the dataset's cycle numbers, so a page never seen reads as one never changed, as in
//! training. Group features read the training fold's pages under full observability,
//! cumulative to the previous cycle, as in training. Under cold start (no warm-up) the
//! group features are all a model knows of a page until a request crawls it.
//!
//! One model is learned per rotation (on that rotation's training fold and period), so no
//! rotation's test pages were ever a training page of the model scoring them.
//!
//! ```
//! use freshgp_data::data::synth::{generate, SynthParams};
//! use freshgp_learn::predict::{Learned, ModelScorer};
//! use freshgp_sim::sim::requests::{Crawler, Pages, RequestConfig, RequestSim};
//!
//! let mut p = SynthParams::preset("commerce").unwrap();
//! p.pages = 500;
//! p.days = 24;
//! let d = generate(&p, 1).unwrap();
//! let config = RequestConfig::default();
//! let sim = RequestSim::from_split(&d, &[0], Pages::Unseen, config).unwrap();
//! let model = ModelScorer::learn(&d, &Learned::Combined, &[0], Pages::Unseen, 1).unwrap();
//! let tally = sim.run(Crawler::Scored(&model), 1.0).unwrap();
//! assert!(tally.crawls() > 0);
//! ```

use super::eval::{learn_with_progress, Learned, RotationProgress};
use super::features::{group_rates, value, GroupRates};
use super::stale::{prior_means, Seen};
use super::FeatureError;
use super::{Observations, PredictError};
use crate::data::split::Split;
use crate::data::Dataset;
use crate::model::{FeatureSet, Model};
use crate::sim::requests::{Pages, RequestConfig, RequestError, RequestScorer, ScoredRun};
use crate::sim::Period;
use rayon::prelude::*;

/// What a learned model's score in a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Reading {
    /// The predicted probability p that the page changes at this cycle.
    #[default]
    Change,
    /// The probability that the page is stale now, `1 - (1 - p)^t` with t the cycles
    /// since the run's last visit: p compounded over the cycles not seen (a choice of
    /// ours beyond the seed paper; the model, trained under full observability, never saw
    /// t).
    Stale,
    /// The stale model's probability used as it is: a request crawls with probability
    /// `min(1, p·γ)` instead of by quantile ([`ScoredRun::direct`]); for models of the
    /// label `stale` only (`p:hazard`).
    Direct,
}

impl std::str::FromStr for Reading {
    type Err = PredictError;

    fn from_str(s: &str) -> Result<Reading, PredictError> {
        match s {
            "change" => Ok(Reading::Change),
            "stale" => Ok(Reading::Stale),
            "direct" => Ok(Reading::Direct),
            _ => Err(FeatureError::UnknownReading(s.to_string()).into()),
        }
    }
}

/// A model per rotation, with what its runs need: the pages of each period and the
/// training pages' group rates.
pub struct ModelScorer<'a> {
    label: String,
    data: &'a Dataset,
    runs: Vec<Setup>,
    reading: Reading,
}

/// One rotation's model and the data of its period.
#[derive(Clone)]
struct Setup {
    rotation: usize,
    model: Model,
    features: FeatureSet,
    /// The period's pages (dataset indices, in the period's order).
    pages: Vec<u32>,
    /// The dataset cycle of the period's first cycle.
    first: usize,
    /// The group rates of each group feature.
    groups: Vec<Option<GroupRates>>,
}

impl<'a> ModelScorer<'a> {
    /// `method` learned on each of `rotations` (in parallel), scoring the test period of
    /// that rotation over `pages`, with label horizon `horizon`.
    ///
    /// # Errors
    /// As [`crate::predict::eval::learn`].
    pub fn learn(
        data: &'a Dataset,
        method: &Learned,
        rotations: &[usize],
        pages: Pages,
        horizon: usize,
    ) -> Result<ModelScorer<'a>, PredictError> {
        ModelScorer::learn_with_progress(data, method, rotations, pages, horizon, &|_| {})
    }

    /// As [`ModelScorer::learn`], telling `progress` each rotation's training steps
    /// ([`Learned::progress_steps`] penalties or epochs, and streaming) and its end
    /// ([`RotationProgress::Learned`]), from any thread.
    ///
    /// # Errors
    /// As [`crate::predict::eval::learn`].
    pub fn learn_with_progress(
        data: &'a Dataset,
        method: &Learned,
        rotations: &[usize],
        pages: Pages,
        horizon: usize,
        progress: &(dyn Fn(RotationProgress) + Sync),
    ) -> Result<ModelScorer<'a>, PredictError> {
        let full = Observations::full(data);
        let runs = rotations
            .par_iter()
            .map(|&r| {
                let model = learn_with_progress(data, method, r, horizon, &mut |step| {
                    progress(RotationProgress::Training { rotation: r, step })
                })?;
                progress(RotationProgress::Learned { rotation: r });
                let split = Split::new(data.pages(), data.cycles(), r)?;
                let features = model.features();
                let groups = match model {
                    // The stale model reads its prior, not the group rates.
                    Model::Hazard(_) => Vec::new(),
                    _ => group_rates(data, &full, &features, &split.train)?,
                };
                Ok(Setup {
                    rotation: r,
                    model,
                    features,
                    pages: pages.of(&split).to_vec(),
                    first: *split.test_cycles.start(),
                    groups,
                })
            })
            .collect::<Result<_, PredictError>>()?;
        Ok(ModelScorer {
            label: method.to_string(),
            data,
            runs,
            reading: Reading::Change,
        })
    }

    /// The same models read as `reading`.
    ///
    /// # Errors
    /// [`Reading::Stale`] for a model that does not predict a probability (one feature),
    /// or one whose probability is already a staleness (the stale model: its label is
    /// [`Label::Stale`](crate::model::Label::Stale)).
    pub fn reading(mut self, reading: Reading) -> Result<ModelScorer<'a>, PredictError> {
        if reading == Reading::Stale {
            if let Some(m) = self.runs.first().map(|s| &s.model) {
                if m.label() == crate::model::Label::Stale {
                    return Err(FeatureError::StaleTwice(self.label).into());
                }
            }
            if let Some(Model::Single { feature, .. }) = self.runs.first().map(|s| &s.model) {
                return Err(FeatureError::FeatureAsStale(feature.clone()).into());
            }
            self.label = format!("{}·stale", self.label);
        }
        if reading == Reading::Direct {
            if let Some(m) = self.runs.first().map(|s| &s.model) {
                if m.label() != crate::model::Label::Stale {
                    return Err(FeatureError::NotStaleLabel {
                        model: self.label,
                        label: m.label().name().to_string(),
                    }
                    .into());
                }
            }
            self.label = format!("{}·p", self.label);
        }
        self.reading = reading;
        Ok(self)
    }

    /// The same models scoring the pages `pages` of their rotations.
    ///
    /// # Errors
    /// Data too small to split.
    pub fn for_pages(&self, pages: Pages) -> Result<ModelScorer<'a>, PredictError> {
        let mut out = ModelScorer {
            label: self.label.clone(),
            data: self.data,
            runs: self.runs.clone(),
            reading: self.reading,
        };
        for s in &mut out.runs {
            let split = Split::new(self.data.pages(), self.data.cycles(), s.rotation)?;
            s.pages = pages.of(&split).to_vec();
        }
        Ok(out)
    }

    /// The model of each rotation.
    pub fn models(&self) -> impl Iterator<Item = &Model> {
        self.runs.iter().map(|s| &s.model)
    }
}

impl RequestScorer for ModelScorer<'_> {
    fn label(&self) -> String {
        self.label.clone()
    }

    fn start<'s>(
        &'s self,
        index: usize,
        period: &'s Period,
        _: &RequestConfig,
    ) -> Result<Box<dyn ScoredRun + 's>, RequestError> {
        let setup = self
            .runs
            .get(index)
            .filter(|s| s.pages.len() == period.pages());
        let Some(setup) = setup else {
            return Err(RequestError::Scorer(format!(
                "model `{}` was learned for {} period(s), not for period {index} of {} pages",
                self.label,
                self.runs.len(),
                period.pages()
            )));
        };
        let means = match &setup.model {
            Model::Hazard(h) => prior_means(self.data, &h.prior, &setup.pages),
            _ => Vec::new(),
        };
        Ok(Box::new(ModelRun {
            setup,
            seen: vec![Seen::default(); means.len()],
            means,
            reading: self.reading,
            obs: Observations::empty(period.pages(), self.data.cycles()),
            last_visit: vec![0; period.pages()],
            rows: Vec::with_capacity(period.pages() * setup.features.len()),
            predictions: Vec::with_capacity(period.pages()),
        }))
    }
}

/// One run: what its visits observed, at the dataset's cycles.
struct ModelRun<'s> {
    setup: &'s Setup,
    /// The stale model's: what the run saw of each page (period cycles), and each page's
    /// prior mean (both empty for a change model).
    seen: Vec<Seen>,
    means: Vec<f64>,
    reading: Reading,
    obs: Observations,
    /// The period cycle of each page's last visit (0: none).
    last_visit: Vec<u32>,
    /// Every page's features, row after row, and the model's predictions: scored at once,
    /// so a network scores in blocks.
    rows: Vec<f64>,
    predictions: Vec<f64>,
}

impl ScoredRun for ModelRun<'_> {
    fn direct(&self) -> bool {
        self.reading == Reading::Direct
    }

    fn visit(&mut self, p: u32, d: u32, changed: bool) {
        let cycle = self.setup.first + d as usize - 1;
        self.obs.set(p as usize, cycle, changed);
        self.last_visit[p as usize] = d;
        if let Some(seen) = self.seen.get_mut(p as usize) {
            seen.visit(d, changed);
        }
    }

    fn score(&mut self, d: u32, out: &mut [f64]) {
        let s = self.setup;
        let cycle = s.first + d as usize - 1;
        self.rows.clear();
        if let Model::Hazard(h) = &s.model {
            for (seen, &mean) in self.seen.iter().zip(&self.means) {
                seen.push_features(&s.features, &h.prior, mean, d, &mut self.rows);
            }
            s.model.score_rows(&self.rows, &mut self.predictions);
            out.copy_from_slice(&self.predictions);
            return;
        }
        for (local, &page) in s.pages.iter().enumerate() {
            for (f, g) in s.features.features().iter().zip(&s.groups) {
                let x = value(f, g.as_ref(), &self.obs, local, page as usize, cycle);
                self.rows.push(x);
            }
        }
        s.model.score_rows(&self.rows, &mut self.predictions);
        for (local, (o, &p)) in out.iter_mut().zip(&self.predictions).enumerate() {
            *o = match self.reading {
                Reading::Change => p,
                Reading::Direct => p,
                Reading::Stale => match d - self.last_visit[local] {
                    0 => 0.0,
                    t => -((-p).ln_1p() * f64::from(t)).exp_m1(),
                },
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Learned;
    use super::*;
    use crate::data::text;
    use crate::sim::requests::{Crawler, RequestSim, Requests};
    use crate::sim::SimConfig;

    /// A learned `since_change` (oriented to rank recent changes first) crawls exactly as
    /// the formula `0 - tc`: the run's observations and the policy's statistics agree.
    #[test]
    fn since_change_drives_the_crawl_as_minus_tc() {
        let mut p = crate::data::synth::SynthParams::preset("commerce").unwrap();
        p.pages = 600;
        p.days = 30;
        let d = crate::data::synth::generate(&p, 3).unwrap();
        let config = RequestConfig::default();
        for pages in [Pages::Unseen, Pages::Seen] {
            let sim = RequestSim::from_split(&d, &[1], pages, config).unwrap();
            let learned = crate::model::Feature::SinceChange;
            let m = ModelScorer::learn(&d, &Learned::Single(learned), &[1], pages, 1).unwrap();
            assert!(matches!(m.models().next(), Some(Model::Single { sign, .. }) if *sign < 0.0));
            let tc = crate::policy::Policy::parse("0 - tc", &crate::formula::Grammar::extended())
                .unwrap();
            for gamma in [0.3, 1.0, 4.0] {
                assert_eq!(
                    sim.run(Crawler::Scored(&m), gamma).unwrap(),
                    sim.run(Crawler::Scored(&tc), gamma).unwrap()
                );
            }
        }
    }

    /// Learning tells each rotation's penalties, then its end; the models are the ones
    /// learned without a listener.
    #[test]
    fn learning_tells_each_rotation_its_steps() {
        let mut p = crate::data::synth::SynthParams::preset("commerce").unwrap();
        p.pages = 400;
        p.days = 24;
        let d = crate::data::synth::generate(&p, 2).unwrap();
        let heard = std::sync::Mutex::new(Vec::new());
        let (method, rotations) = (Learned::Combined, [0, 3]);
        let m = ModelScorer::learn_with_progress(&d, &method, &rotations, Pages::Unseen, 1, &|e| {
            heard.lock().unwrap().push(e)
        })
        .unwrap();
        let quiet = ModelScorer::learn(&d, &method, &rotations, Pages::Unseen, 1).unwrap();
        assert!(m.models().eq(quiet.models()));
        let heard = heard.into_inner().unwrap();
        for r in rotations {
            let mine: Vec<_> = heard
                .iter()
                .filter(|e| match e {
                    RotationProgress::Training { rotation, .. }
                    | RotationProgress::Learned { rotation } => *rotation == r,
                    _ => false,
                })
                .collect();
            assert_eq!(mine.len(), method.progress_steps() + 1, "{heard:?}");
            assert!(mine[..mine.len() - 1].iter().all(|e| matches!(
                e,
                RotationProgress::Training {
                    step: super::super::Progress::Penalty { .. },
                    ..
                }
            )));
            assert_eq!(
                *mine[mine.len() - 1],
                RotationProgress::Learned { rotation: r }
            );
        }
    }

    /// Two pages observed by hand: the run's features come from its own visits, at the
    /// dataset's cycles, and the group rate from the training pages.
    #[test]
    fn a_run_scores_from_its_own_visits() {
        // 10 pages, 10 cycles: category a changes every cycle, b never.
        let rows: String = (0..10)
            .map(|p| {
                let (bits, cat) = if p % 2 == 0 {
                    ("1111111111", "a")
                } else {
                    ("0000000000", "b")
                };
                format!("{bits}\tp{p}\th{p}\tcat={cat}\n")
            })
            .collect();
        let d = text::read(rows.as_bytes(), "t").unwrap();
        let split = Split::new(10, 10, 0).unwrap();
        let model = Model::single(crate::model::Feature::Frequency(2), 1.0);
        let features = model.features();
        let groups = group_rates(&d, &Observations::full(&d), &features, &split.train).unwrap();
        let scorer = ModelScorer {
            label: "freq2".into(),
            data: &d,
            runs: vec![Setup {
                rotation: 0,
                model,
                features,
                pages: vec![0, 1],
                first: 5,
                groups,
            }],
            reading: Reading::Change,
        };
        assert!(matches!(
            ModelScorer {
                label: "freq2".into(),
                data: &d,
                runs: vec![Setup {
                    rotation: 0,
                    model: Model::single(crate::model::Feature::SinceChange, -1.0),
                    features: FeatureSet::new(vec![crate::model::Feature::SinceChange]),
                    pages: vec![0, 1],
                    first: 5,
                    groups: vec![None],
                }],
                reading: Reading::Change,
            }
            .reading(Reading::Stale),
            Err(PredictError::Feature(_))
        ));
        let period = Period::new(&d, &[0, 1], 5..=10).unwrap();
        let config = RequestConfig::new(100, SimConfig::new(0.5, 1).unwrap()).unwrap();
        let mut run = scorer.start(0, &period, &config).unwrap();
        let mut out = [0.0; 2];
        run.score(2, &mut out);
        assert_eq!(out, [0.0, 0.0]); // nothing observed yet
        run.visit(0, 1, true); // dataset cycle 5
        run.visit(1, 1, false);
        run.score(2, &mut out); // dataset cycle 6: window 4..=5 holds one visit each
        assert_eq!(out, [1.0, 0.0]);
        run.score(4, &mut out); // cycle 8: window 6..=7 holds none
        assert_eq!(out, [0.0, 0.0]);
        drop(run);
        // Read as stale: p = 1 for page 0 at cycle 2 after a visit at 1 (t = 1).
        let stale = ModelScorer {
            label: "x".into(),
            data: &d,
            runs: vec![],
            reading: Reading::Change,
        };
        assert!(stale.reading(Reading::Stale).is_ok()); // no model to check
        let mut run = ModelRun {
            setup: &scorer.runs[0],
            seen: Vec::new(),
            means: Vec::new(),
            reading: Reading::Stale,
            obs: Observations::empty(2, 10),
            last_visit: vec![0; 2],
            rows: Vec::new(),
            predictions: Vec::new(),
        };
        run.visit(0, 1, true);
        run.score(2, &mut out);
        assert_eq!(out, [1.0, 0.0]);
        drop(run);
        // A sim with one request per page and cycle runs end to end.
        let requests = Requests::served(vec![vec![(0, 0.1), (1, 0.1)]; 5], 1);
        let sim = RequestSim::new(vec![(period, requests)], config).unwrap();
        let t = sim.run(Crawler::Scored(&scorer), 1.0).unwrap();
        assert_eq!(t.requests(), 10);
        // Every page was crawled at its first request (warm-up at dataset cycle 5, then
        // page 0 scores 1 and page 1 scores 0: quantiles 100 and 50, draws 0.1).
        assert_eq!(t.crawls(), 10);
    }
}
