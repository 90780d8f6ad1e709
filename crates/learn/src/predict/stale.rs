//! Training the stale model (docs/src/reference/models.md#the-stale-model; the [`Hazard`]
//! itself and its file are `crate::model`'s): the probability that a page changed since
//! the crawler's last visit, learned from the visits of one crawl — what a crawler
//! itself observes — not from the full history.
//!
//! # Examples
//!
//! One crawl of the whole history by a named policy ([`Observations::crawl`]; `nad` at
//! resources 0.2 by default, as `model eval`'s partial observability) visits the pages.
//! Each visit of a page at a cycle d of a period is an example: its features are what the
//! crawler knew just before it ([`Seen`]: visits that found a change, the last visit, the
//! last detected change; the sim's convention of a visit at cycle 0), t = d − the last
//! visit, and its label is whether the visit found the page changed.
//!
//! # The prior
//!
//! [`learn_prior`] turns the training pages' visits up to the training period's end into a
//! [`Prior`]: the global rate r₀ (detected changes over covered cycles), each group's rate
//! under the prior's attribute shrunk toward r₀ with the empirical-Bayes strength of the
//! groups' spread around r₀ ([`strength`]), and the page-level strength of the pages'
//! spread. A page's `rate` is then its posterior mean, `prior` its group's rate: a page
//! never visited reads as its group, a group of one page as little more than the global
//! rate. A training example's group rate leaves its own page out ([`learn_prior_loo`]):
//! otherwise `prior` would count the visit it is to predict.
//! The spread of pages is measured around r₀, not around their groups' rates, so it is
//! if anything too large and a page's own visits count a little more than they would
//! under the exact hierarchy: a documented simplification.
//!
//! Detected changes undercount changes when visits are far apart (one per interval):
//! the rate is what the crawler saw, and the regression's weight on its logarithm
//! calibrates it.
//!
//! # Fitting
//!
//! The regression of [`Hazard`] minimizes the complementary log-log negative
//! log-likelihood summed over the training examples plus `α/2·‖w‖²` (the intercept not
//! penalized) by L-BFGS (argmin, as the logistic regression), for α in
//! [`ALPHAS`](super::logistic::ALPHAS) in turn, each fit starting from the previous; the
//! α with the lowest mean validation log-loss is kept, and, when the attribute is not
//! given ([`GroupChoice::Auto`]), the attribute (or the host, or none) likewise. The
//! loss is summed over fixed chunks in parallel and the chunks' sums added in order, so
//! a fit is the same at any thread count.
//!
//! # Recalibration
//!
//! A crawler's histories grow: the training period's visits know at most its cycles,
//! later visits know more, and a regression fitted on the first is over-confident on the
//! second, at both ends of its probabilities. So the link is refitted, `a + b·z` by the
//! same likelihood, on the validation fold's visits at the *validation* period, and
//! folded into the intercept and weights ([`StaleTrained::recalibration`]): Platt's
//! scaling on the model's own link. It keeps each page's rank (b > 0), so it changes the
//! probabilities, not which pages a crawl picks first.

use super::FeatureError;
use super::{Observations, PredictError};
use crate::data::split::Split;
use crate::data::Dataset;
use crate::model::{strength, Feature, FeatureSet, Hazard, Model, Prior, FLOOR};
use crate::policy::Policy;
use crate::sim::SimConfig;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::ops::RangeInclusive;

/// Which attribute centres the prior.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum GroupChoice {
    /// Each attribute, the host and none tried; the best on validation kept.
    #[default]
    Auto,
    /// No groups: every page's prior mean is the global rate.
    None,
    /// This attribute (`host` for the host column).
    Key(String),
}

impl std::str::FromStr for GroupChoice {
    type Err = PredictError;

    fn from_str(s: &str) -> Result<GroupChoice, PredictError> {
        match s {
            "auto" => Ok(GroupChoice::Auto),
            "none" => Ok(GroupChoice::None),
            "" => Err(FeatureError::EmptyPriorGroup.into()),
            key => Ok(GroupChoice::Key(key.to_string())),
        }
    }
}

/// What [`train_stale`] fits, and where.
#[derive(Debug, Clone, PartialEq)]
pub struct StaleOptions {
    /// The rotation (0..=4) whose training fold and period the model learns on.
    pub rotation: usize,
    /// The crawl whose visits are the examples.
    pub crawl: (Policy, SimConfig),
    /// The prior's attribute.
    pub group: GroupChoice,
    /// The features; `None`: [`FeatureSet::stale`].
    pub features: Option<FeatureSet>,
}

impl Default for StaleOptions {
    /// Rotation 0, the crawl of `nad` at resources 0.2 (warm-up 2, seed 1), the group
    /// chosen on validation, the default features.
    fn default() -> StaleOptions {
        StaleOptions {
            rotation: 0,
            crawl: super::observe::default_crawl(),
            group: GroupChoice::Auto,
            features: None,
        }
    }
}

/// A trained stale model and how it was chosen.
#[derive(Debug, Clone, PartialEq)]
pub struct StaleTrained {
    /// The model ([`Model::Hazard`]).
    pub model: Model,
    /// Its mean log-loss on the validation examples.
    pub validation: f64,
    /// Training examples (visits).
    pub examples: usize,
    /// Each prior group tried (`None`: no groups) and its validation log-loss.
    pub candidates: Vec<(Option<String>, f64)>,
    /// The link's refit `(a, b)` on the validation period (`None`: none applied).
    pub recalibration: Option<(f64, f64)>,
}

/// What the crawler knew of a page: visits that found a change, the cycle of its last
/// visit and of its last detected change (0: none; the sim's visit at cycle 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Seen {
    /// Visits that found the page changed.
    pub x: u32,
    /// Cycle of the last visit (0: none).
    pub last_visit: u32,
    /// Cycle of the last visit that found a change (0: none).
    pub last_change: u32,
}

impl Seen {
    /// Records a visit at cycle `d` (after the last one).
    pub fn visit(&mut self, d: u32, changed: bool) {
        self.last_visit = d;
        if changed {
            self.x += 1;
            self.last_change = d;
        }
    }

    /// The values of `set` at cycle `d` (> the last visit) for a page of prior mean
    /// `prior_mean` under `prior`, pushed onto `row`.
    pub fn push_features(
        &self,
        set: &FeatureSet,
        prior: &Prior,
        prior_mean: f64,
        d: u32,
        row: &mut Vec<f64>,
    ) {
        for f in set.features() {
            row.push(match f {
                Feature::SinceVisit => f64::from(d - self.last_visit),
                Feature::SinceChange => f64::from(d - self.last_change),
                Feature::Rate => prior.rate(self.x, self.last_visit, prior_mean),
                Feature::Prior => prior_mean,
                // Invariant: `check_features` admits only the four above.
                _ => unreachable!("invariant: checked stale-model features"),
            });
        }
    }
}

/// Refuses features the stale model does not compute.
pub fn check_features(set: &FeatureSet) -> Result<(), PredictError> {
    if set.is_empty() {
        return Err(FeatureError::NoStaleFeature.into());
    }
    match set.features().iter().find(|f| {
        !matches!(
            f,
            Feature::SinceVisit | Feature::Rate | Feature::SinceChange | Feature::Prior
        )
    }) {
        Some(f) => Err(FeatureError::NotStale(f.clone()).into()),
        None => Ok(()),
    }
}

/// Page `p`'s value under the prior's attribute `key` (`host`: its host's name).
pub fn group_value<'d>(data: &'d Dataset, key: &str, p: usize) -> Option<&'d str> {
    if key == "host" {
        let h = data.host(p)?;
        Some(data.host_names()[h as usize].as_str()).filter(|n| !n.is_empty())
    } else {
        data.attributes().get(key)?.value(p)
    }
}

/// Each page's prior mean under `prior`.
pub fn prior_means(data: &Dataset, prior: &Prior, pages: &[u32]) -> Vec<f64> {
    pages
        .iter()
        .map(|&p| {
            let value = prior
                .key
                .as_deref()
                .and_then(|k| group_value(data, k, p as usize));
            prior.mean(value)
        })
        .collect()
}

/// Checks that `key` names an attribute some page has, or `host` with hosts.
fn check_key(data: &Dataset, key: &str) -> Result<(), PredictError> {
    let known = if key == "host" {
        (0..data.pages()).any(|p| group_value(data, key, p).is_some())
    } else {
        data.attributes().get(key).is_some()
    };
    if known {
        return Ok(());
    }
    let mut known: Vec<String> = data
        .attributes()
        .names()
        .into_iter()
        .map(String::from)
        .collect();
    if data.host(0).is_some() {
        known.push("host".to_string());
    }
    Err(FeatureError::NoPriorAttribute {
        key: key.to_string(),
        known,
    }
    .into())
}

/// The prior learned from the visits `obs` of the pages `train` at cycles `1..=upto`,
/// centred on the groups of attribute `key` (none: the global rate).
pub fn learn_prior(
    data: &Dataset,
    obs: &Observations,
    train: &[u32],
    upto: usize,
    key: Option<&str>,
) -> Prior {
    learn_prior_loo(data, obs, train, upto, key).0
}

/// As [`learn_prior`], with each training page's prior mean *leaving the page out*: its
/// group's rate from the group's other training pages (shrunk the same way), so that a
/// training example's `prior` and `rate` never count the page's own visits, its label
/// among them. (Every other page's prior mean is [`prior_means`].)
pub fn learn_prior_loo(
    data: &Dataset,
    obs: &Observations,
    train: &[u32],
    upto: usize,
    key: Option<&str>,
) -> (Prior, Vec<f64>) {
    prior_of_counts(data, train, &page_counts(obs, train, upto), key)
}

/// Each page's visits that found a change and cycles its visits cover, in `obs` at
/// cycles `1..=upto`: what a prior is learned from, whatever its groups.
fn page_counts(obs: &Observations, pages: &[u32], upto: usize) -> Vec<(u64, u64)> {
    pages
        .iter()
        .map(|&p| {
            let mut seen = Seen::default();
            for d in 1..=upto.min(obs.cycles()) {
                if obs.observed(p as usize, d) {
                    seen.visit(d as u32, obs.detected(p as usize, d));
                }
            }
            (u64::from(seen.x), u64::from(seen.last_visit))
        })
        .collect()
}

/// As [`learn_prior_loo`], from the pages' counts ([`page_counts`]).
fn prior_of_counts(
    data: &Dataset,
    train: &[u32],
    counts: &[(u64, u64)],
    key: Option<&str>,
) -> (Prior, Vec<f64>) {
    let (x, t) = counts
        .iter()
        .fold((0u64, 0u64), |(x, t), c| (x + c.0, t + c.1));
    let rate = if t == 0 { 0.0 } else { x as f64 / t as f64 };
    let values: Vec<Option<&str>> = train
        .iter()
        .map(|&p| key.and_then(|k| group_value(data, k, p as usize)))
        .collect();
    let mut totals: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    for (v, c) in values.iter().zip(counts) {
        if let Some(v) = v {
            let e = totals.entry(v).or_default();
            e.0 += c.0;
            e.1 += c.1;
        }
    }
    let units: Vec<(u64, u64)> = totals.values().copied().collect();
    let group_strength = strength(&units, Some(rate));
    let shrunk = |x: u64, t: u64| (x as f64 + group_strength * rate) / (t as f64 + group_strength);
    let groups = totals
        .iter()
        .map(|(v, &(x, t))| (v.to_string(), shrunk(x, t)))
        .collect();
    let loo = values
        .iter()
        .zip(counts)
        .map(|(v, c)| match v.and_then(|v| totals.get(v)) {
            Some(&(x, t)) => shrunk(x - c.0, t - c.1),
            None => rate,
        })
        .collect();
    let prior = Prior {
        rate,
        strength: strength(counts, Some(rate)),
        key: key.map(str::to_string),
        group_strength,
        groups,
    };
    (prior, loo)
}

/// Examples of the stale model: a row per visit, with its label and t.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StaleExamples {
    width: usize,
    values: Vec<f64>,
    labels: Vec<bool>,
    /// Per example: the page, the cycle of the visit, t.
    visits: Vec<(u32, u32, u32)>,
}

impl StaleExamples {
    /// The visits in `obs` of the pages `pages` at the cycles `cycles`, with the values of
    /// `set` under `prior`, in (page, cycle) order.
    pub fn build(
        data: &Dataset,
        obs: &Observations,
        set: &FeatureSet,
        prior: &Prior,
        pages: &[u32],
        cycles: RangeInclusive<usize>,
    ) -> StaleExamples {
        let means = prior_means(data, prior, pages);
        StaleExamples::build_with_means(obs, set, prior, (pages, &means), cycles)
    }

    /// As [`StaleExamples::build`], page `pages.0[i]`'s prior mean `pages.1[i]`.
    pub fn build_with_means(
        obs: &Observations,
        set: &FeatureSet,
        prior: &Prior,
        (pages, means): (&[u32], &[f64]),
        cycles: RangeInclusive<usize>,
    ) -> StaleExamples {
        let mut out = StaleExamples {
            width: set.len(),
            ..StaleExamples::default()
        };
        for (&p, &mean) in pages.iter().zip(means) {
            let mut seen = Seen::default();
            for d in 1..=*cycles.end().min(&obs.cycles()) {
                if !obs.observed(p as usize, d) {
                    continue;
                }
                let (d32, changed) = (d as u32, obs.detected(p as usize, d));
                if cycles.contains(&d) {
                    seen.push_features(set, prior, mean, d32, &mut out.values);
                    out.labels.push(changed);
                    out.visits.push((p, d32, d32 - seen.last_visit));
                }
                seen.visit(d32, changed);
            }
        }
        out
    }

    /// Number of examples.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// The labels.
    pub fn labels(&self) -> &[bool] {
        &self.labels
    }

    /// Example `i`'s values.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.values[i * self.width..(i + 1) * self.width]
    }

    /// Per example: the page, the cycle of the visit and t.
    pub fn visits(&self) -> &[(u32, u32, u32)] {
        &self.visits
    }

    /// The model's scores of every example.
    pub fn scores(&self, model: &Model) -> Vec<f64> {
        let mut out = Vec::new();
        model.score_rows(&self.values, &mut out);
        out
    }
}

/// Examples per chunk of a loss pass.
const CHUNK: usize = 8192;

/// The penalized negative log-likelihood over standardized logarithms.
struct Loss<'a> {
    /// Standardized logarithms, row after row.
    u: &'a [f64],
    labels: &'a [bool],
    width: usize,
    alpha: f64,
}

/// Standardized logarithms of `x`'s rows (`mean`, `scale` of the logarithms).
fn standardize(x: &StaleExamples, mean: &[f64], scale: &[f64]) -> Vec<f64> {
    x.values
        .chunks_exact(x.width.max(1))
        .flat_map(|row| {
            row.iter()
                .zip(mean)
                .zip(scale)
                .map(|((v, m), s)| (v.max(FLOOR).ln() - m) / s)
        })
        .collect()
}

/// Beyond this linear predictor the loss of an unchanged page continues as its tangent
/// line: `e^z` would overflow the line search's first long steps (no probability the
/// model gives differs from 1 there).
const Z_MAX: f64 = 30.0;

/// The negative log-likelihood of one example of linear predictor `z` and its derivative
/// in z (for an unchanged page beyond [`Z_MAX`], the tangent line: convex, and finite).
fn nll(z: f64, label: bool) -> (f64, f64) {
    if !label && z > Z_MAX {
        let h = Z_MAX.exp();
        return (h * (1.0 + z - Z_MAX), h);
    }
    let h = z.exp(); // the cumulative hazard
    if label {
        // -ln(1 - e^-h), derivative -h e^-h / (1 - e^-h) = -h / expm1(h)
        if h < 1e-8 {
            // -ln(1 - e^-h) = -ln h + h/2 + O(h²): exact in z, finite below e^-745.
            return (-z + h / 2.0, -1.0 + h / 2.0);
        }
        let d = if h > 700.0 { 0.0 } else { -h / h.exp_m1() };
        (-(-(-h).exp_m1()).ln(), d)
    } else {
        (h, h)
    }
}

impl Loss<'_> {
    /// The loss at `w` (weights then intercept) and its gradient.
    fn pass(&self, w: &[f64]) -> (f64, Vec<f64>) {
        let width = self.width;
        let parts: Vec<(f64, Vec<f64>)> = self
            .labels
            .par_chunks(CHUNK)
            .zip(self.u.par_chunks(CHUNK * width.max(1)))
            .map(|(labels, u)| {
                let mut g = vec![0.0; width + 1];
                let mut loss = 0.0;
                for (row, &label) in u.chunks_exact(width.max(1)).zip(labels) {
                    let z = row.iter().zip(w).fold(w[width], |z, (x, w)| z + w * x);
                    let (l, d) = nll(z, label);
                    loss += l;
                    for (gj, x) in g.iter_mut().zip(row) {
                        *gj += d * x;
                    }
                    g[width] += d;
                }
                (loss, g)
            })
            .collect();
        let mut loss = 0.5 * self.alpha * w[..width].iter().map(|w| w * w).sum::<f64>();
        let mut g: Vec<f64> = w[..width].iter().map(|w| self.alpha * w).collect();
        g.push(0.0);
        for (l, part) in parts {
            loss += l;
            for (a, b) in g.iter_mut().zip(part) {
                *a += b;
            }
        }
        (loss, g)
    }
}

impl super::lbfgs::Objective for Loss<'_> {
    fn evaluate(&self, w: &[f64]) -> (f64, Vec<f64>) {
        self.pass(w)
    }
}

/// L-BFGS on [`Loss`] from `start` (weights then intercept), as the logistic regression's
/// (at most 100 iterations, a gradient tolerance of 1e-6 per example).
fn fit(loss: Loss<'_>, start: Vec<f64>) -> Result<Vec<f64>, PredictError> {
    let tolerance = 1e-6 * loss.labels.len() as f64;
    super::lbfgs::minimize(&loss, start, tolerance, 100)
        .map_err(|e| PredictError::Fit(format!("the stale model: {e}")))
}

/// Mean log-loss of `model` over `x`.
pub fn log_loss(model: &Model, x: &StaleExamples) -> f64 {
    let scores = x.scores(model);
    let sum: f64 = scores
        .iter()
        .zip(&x.labels)
        .map(|(&p, &y)| {
            let p = if y { p } else { 1.0 - p };
            -p.max(f64::MIN_POSITIVE).ln()
        })
        .sum();
    sum / x.len().max(1) as f64
}

/// The regression fitted on `train`, selected on `validation`, for each penalty.
fn fit_selected(
    set: &FeatureSet,
    prior: Prior,
    train: &StaleExamples,
    validation: &StaleExamples,
) -> Result<(Model, f64), PredictError> {
    let width = set.len();
    let logs = |j: usize| {
        train
            .values
            .iter()
            .skip(j)
            .step_by(width)
            .map(|v| v.max(FLOOR).ln())
    };
    let n = train.len() as f64;
    let mean: Vec<f64> = (0..width).map(|j| logs(j).sum::<f64>() / n).collect();
    let scale: Vec<f64> = (0..width)
        .map(|j| {
            let var = logs(j).map(|u| (u - mean[j]).powi(2)).sum::<f64>() / n;
            if var.sqrt() > 1e-12 {
                var.sqrt()
            } else {
                1.0
            }
        })
        .collect();
    let u = standardize(train, &mean, &scale);
    let positives = train.labels.iter().filter(|&&l| l).count() as f64;
    // Start at the intercept of the base rate: ln(-ln(1 - p̄)).
    let base = (positives / n).clamp(1e-6, 1.0 - 1e-6);
    let mut start = vec![0.0; width];
    start.push((-(-base).ln_1p()).ln());
    let mut best: Option<(Model, f64)> = None;
    for alpha in super::logistic::ALPHAS {
        let loss = Loss {
            u: &u,
            labels: &train.labels,
            width,
            alpha,
        };
        let w = fit(loss, start.clone())?;
        let model = Model::Hazard(Hazard {
            features: set.clone(),
            mean: mean.clone(),
            scale: scale.clone(),
            weights: w[..width].to_vec(),
            intercept: w[width],
            alpha,
            prior: prior.clone(),
        });
        let v = log_loss(&model, validation);
        if best.as_ref().is_none_or(|(_, b)| v < *b) {
            best = Some((model, v));
        }
        start = w;
    }
    // Invariant: ALPHAS is not empty.
    Ok(best.expect("invariant: at least one penalty"))
}

/// The stale model learned on rotation `options.rotation` of `data`.
///
/// # Errors
/// Data too small to split, a feature the stale model does not read, an attribute no page
/// has, no example or examples of one class, or a failed fit.
pub fn train_stale(data: &Dataset, options: &StaleOptions) -> Result<StaleTrained, PredictError> {
    let split = Split::new(data.pages(), data.cycles(), options.rotation)?;
    let (policy, config) = &options.crawl;
    let obs = Observations::crawl(data, policy, *config)?;
    train_stale_on(data, &obs, &split, options)
}

/// As [`train_stale`], with the crawl's visits `obs` and the split given.
///
/// # Errors
/// As [`train_stale`].
pub fn train_stale_on(
    data: &Dataset,
    obs: &Observations,
    split: &Split,
    options: &StaleOptions,
) -> Result<StaleTrained, PredictError> {
    let keys: Vec<Option<String>> = match &options.group {
        GroupChoice::None => vec![None],
        GroupChoice::Key(k) => {
            check_key(data, k)?;
            vec![Some(k.clone())]
        }
        GroupChoice::Auto => {
            let mut keys = vec![None];
            keys.extend(
                data.attributes()
                    .names()
                    .into_iter()
                    .map(|k| Some(k.into())),
            );
            if (0..data.pages()).any(|p| group_value(data, "host", p).is_some()) {
                keys.push(Some("host".into()));
            }
            keys
        }
    };
    if let Some(set) = &options.features {
        check_features(set)?;
    }
    let cycles = split.train_cycles.clone();
    // The training pages' counts, the same whatever groups each candidate prior has.
    let counts = page_counts(obs, &split.train, *cycles.end());
    let mut best: Option<StaleTrained> = None;
    let mut candidates = Vec::new();
    for key in keys {
        let set = match &options.features {
            Some(set) => set.clone(),
            None => FeatureSet::stale(key.is_some()),
        };
        let (prior, loo) = prior_of_counts(data, &split.train, &counts, key.as_deref());
        let train = StaleExamples::build_with_means(
            obs,
            &set,
            &prior,
            (&split.train, &loo),
            cycles.clone(),
        );
        let validation =
            StaleExamples::build(data, obs, &set, &prior, &split.validation, cycles.clone());
        if train.is_empty() || validation.is_empty() {
            return Err(PredictError::NoExamples);
        }
        let positives = train.labels.iter().filter(|&&l| l).count();
        if positives == 0 || positives == train.len() {
            return Err(PredictError::OneClass(train.len()));
        }
        let (model, v) = fit_selected(&set, prior, &train, &validation)?;
        candidates.push((key, v));
        if best.as_ref().is_none_or(|b| v < b.validation) {
            best = Some(StaleTrained {
                model,
                validation: v,
                examples: train.len(),
                candidates: Vec::new(),
                recalibration: None,
            });
        }
    }
    // Invariant: `keys` holds at least `None` or the given key.
    let mut best = best.expect("invariant: at least one prior tried");
    best.candidates = candidates;
    if let Model::Hazard(h) = &mut best.model {
        let later = StaleExamples::build(
            data,
            obs,
            &h.features,
            &h.prior,
            &split.validation,
            split.validation_cycles.clone(),
        );
        best.recalibration = recalibrate(h, &later)?;
    }
    Ok(best)
}

/// Refits the link's offset and slope, `a + b·z`, on `later` (the validation pages at the
/// validation period: visits after the training period, with longer histories, as a
/// crawler's grow), and applies it to `h`'s intercept and weights when the slope is
/// positive: the ranking of pages stays, the probabilities follow what later visits
/// found. Returns `(a, b)`, or `None` when there is nothing to refit on.
fn recalibrate(h: &mut Hazard, later: &StaleExamples) -> Result<Option<(f64, f64)>, PredictError> {
    let positives = later.labels.iter().filter(|&&l| l).count();
    if positives == 0 || positives == later.len() {
        return Ok(None);
    }
    let z: Vec<f64> = (0..later.len()).map(|i| h.link(later.row(i))).collect();
    let loss = Loss {
        u: &z,
        labels: &later.labels,
        width: 1,
        alpha: 0.0,
    };
    let w = fit(loss, vec![1.0, 0.0])?;
    let (b, a) = (w[0], w[1]);
    if !(b > 0.0 && a.is_finite() && b.is_finite()) {
        return Ok(None);
    }
    h.intercept = a + b * h.intercept;
    for w in &mut h.weights {
        *w *= b;
    }
    Ok(Some((a, b)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::text;

    /// A Poisson history with a known rate per category: the fitted model's probabilities
    /// match `1 − e^(−λ t)` and its shape is near 1; the prior knows the categories.
    #[test]
    fn a_poisson_history_is_learned_calibrated() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
        let cycles = 60;
        let rows: String = (0..3000)
            .map(|p| {
                let (cat, lambda) = if p % 3 == 0 {
                    ("fast", 0.5)
                } else {
                    ("slow", 0.05)
                };
                let q = 1.0 - f64::exp(-lambda);
                let bits: String = (0..cycles)
                    .map(|_| if rng.gen::<f64>() < q { '1' } else { '0' })
                    .collect();
                format!("{bits}\tp{p}\th{}\tcat={cat}\n", p % 50)
            })
            .collect();
        let d = text::read(rows.as_bytes(), "t").unwrap();
        let options = StaleOptions {
            group: GroupChoice::Key("cat".into()),
            ..StaleOptions::default()
        };
        let trained = train_stale(&d, &options).unwrap();
        let Model::Hazard(h) = &trained.model else {
            panic!("not a stale model")
        };
        assert!(
            (h.prior.mean(Some("fast")) - 0.4).abs() < 0.1,
            "{:?}",
            h.prior
        );
        assert!(
            (h.prior.mean(Some("slow")) - 0.05).abs() < 0.02,
            "{:?}",
            h.prior
        );
        let shape = h.shape().unwrap();
        assert!((shape - 1.0).abs() < 0.35, "shape {shape}");
        // A page never visited, 4 cycles in: its category's staleness.
        let mut row = Vec::new();
        for (cat, lambda) in [("fast", 0.5f64), ("slow", 0.05)] {
            row.clear();
            Seen::default().push_features(
                &h.features,
                &h.prior,
                h.prior.mean(Some(cat)),
                4,
                &mut row,
            );
            let p = h.score(&row);
            let want = 1.0 - (-lambda * 4.0).exp();
            assert!((p - want).abs() < 0.15, "{cat}: {p} against {want}");
        }
        assert_eq!(trained.candidates.len(), 1);
        // A bad attribute and a foreign feature are refused with their names.
        let bad = StaleOptions {
            group: GroupChoice::Key("colour".into()),
            ..StaleOptions::default()
        };
        let e = train_stale(&d, &bad).unwrap_err().to_string();
        assert!(e.contains("`colour`") && e.contains("cat, host"), "{e}");
        let bad = StaleOptions {
            features: Some(FeatureSet::new(vec![Feature::Frequency(7)])),
            ..StaleOptions::default()
        };
        let e = train_stale(&d, &bad).unwrap_err().to_string();
        assert!(
            e.contains("`freq7` is not a feature of the stale model"),
            "{e}"
        );
    }

    /// Examples follow the crawl's visits by hand: features before the visit, t since the
    /// previous one, the label the visit's detection.
    #[test]
    fn examples_are_the_crawls_visits() {
        let d = Dataset::from_bit_strings(&["011010"]).unwrap();
        let mut obs = Observations::empty(1, 6);
        for (c, changed) in [(1, false), (3, true), (6, true)] {
            obs.set(0, c, changed);
        }
        let prior = Prior {
            rate: 0.5,
            strength: 2.0,
            key: None,
            group_strength: 1.0,
            groups: BTreeMap::new(),
        };
        let set = FeatureSet::stale(false);
        let x = StaleExamples::build(&d, &obs, &set, &prior, &[0], 2..=6);
        assert_eq!(x.visits(), &[(0, 3, 2), (0, 6, 3)]);
        assert_eq!(x.labels(), &[true, true]);
        // At 3: t = 2, rate (0 + 2·0.5)/(1 + 2), since_change 3.
        assert_eq!(x.row(0), &[2.0, 1.0 / 3.0, 3.0]);
        // At 6: t = 3, rate (1 + 1)/(3 + 2), since_change 3.
        assert_eq!(x.row(1), &[3.0, 2.0 / 5.0, 3.0]);
        let p = learn_prior(&d, &obs, &[0], 6, None);
        assert_eq!(
            (p.rate, p.strength),
            (2.0 / 6.0, crate::model::MAX_STRENGTH)
        );
    }
}
