//! Headroom (docs/src/reference/evaluation.md#headroom): how much of the distance from the
//! best hand-written rival to the oracle (docs/src/reference/policies.md#the-oracle) a
//! policy covers,
//!
//! ```text
//! captured = (value − best rival) / (oracle − best rival)
//! ```
//!
//! none when the oracle does not beat the best rival (then there is no headroom to share).
//! The one rule `freshgp baselines`, Python's `baselines` and a study's report read.

use crate::metric::Metric;
use crate::policy::{Policy, Scorer};
use serde::Serialize;
use std::collections::BTreeMap;

/// The share of the headroom `value` captures: `(value − best) / (oracle − best)`, `None`
/// when `oracle <= best` or a value is not finite.
///
/// ```
/// use freshgp::experiment::headroom::captured;
///
/// assert_eq!(captured(0.7, 0.6, 0.9), Some((0.7 - 0.6) / (0.9 - 0.6)));
/// assert_eq!(captured(0.7, 0.6, 0.5), None); // the oracle below the rival: no headroom
/// ```
pub fn captured(value: f64, best: f64, oracle: f64) -> Option<f64> {
    let headroom = oracle - best;
    (headroom > 0.0 && value.is_finite() && headroom.is_finite()).then(|| (value - best) / headroom)
}

/// For each of `values` (one per policy, `oracle[i]` saying which is the oracle), the share
/// of the headroom it captures over the best of the *other* policies but the oracle, with
/// that policy's index; `None` for the oracle, and for every policy when there is no
/// oracle or no other policy.
pub fn shares(values: &[f64], oracle: &[bool]) -> Vec<Option<(f64, usize)>> {
    let Some(o) = oracle.iter().position(|&is| is) else {
        return vec![None; values.len()];
    };
    (0..values.len())
        .map(|i| {
            if oracle[i] {
                return None;
            }
            let best = (0..values.len())
                .filter(|&j| j != i && !oracle[j])
                .max_by(|&a, &b| values[a].total_cmp(&values[b]).then(b.cmp(&a)))?;
            captured(values[i], values[best], values[o]).map(|c| (c, best))
        })
        .collect()
}

/// The metrics the oracle is a ceiling on: it ranks by the *weighted* chance of a change,
/// so a share of its headroom is measured on WNDCG and WFreshness (on a history without
/// weights they equal NDCG and Freshness).
pub const METRICS: [Metric; 2] = [Metric::WNdcg, Metric::WFreshness];

/// The metric a run on `metric` measures headroom on: WFreshness for the freshness
/// metrics, WNDCG otherwise.
///
/// ```
/// use freshgp::experiment::headroom::measured_on;
/// use freshgp::metric::Metric;
///
/// assert_eq!(measured_on(Metric::Ndcg), Metric::WNdcg);
/// assert_eq!(measured_on(Metric::Freshness), Metric::WFreshness);
/// ```
pub fn measured_on(metric: Metric) -> Metric {
    match metric {
        Metric::Freshness | Metric::WFreshness => Metric::WFreshness,
        Metric::ChangeRate | Metric::Ndcg | Metric::WNdcg => Metric::WNdcg,
    }
}

/// A policy's share of the headroom on one metric, over the best other policy.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Share {
    /// [`captured`] over that policy.
    pub share: f64,
    /// That policy's label.
    pub over: String,
}

/// Each of `policies`' share of the headroom on each of [`METRICS`] (`value(i, m)`:
/// policy i's figure on m), keyed by the metric's name: `None` for the oracle, and for every policy
/// when none of them is the oracle; a metric's share is `None` where there is no headroom.
/// What `freshgp baselines --json` and Python's `baselines` report as `captured`.
pub fn policy_shares(
    policies: &[&Policy],
    value: impl Fn(usize, Metric) -> f64,
) -> Vec<Option<BTreeMap<&'static str, Option<Share>>>> {
    let oracle: Vec<bool> = policies
        .iter()
        .map(|p| matches!(p, Policy::Scorer(Scorer::Oracle)))
        .collect();
    if !oracle.contains(&true) {
        return vec![None; policies.len()];
    }
    let per_metric: Vec<Vec<Option<(f64, usize)>>> = METRICS
        .iter()
        .map(|&m| {
            let values: Vec<f64> = (0..policies.len()).map(|i| value(i, m)).collect();
            shares(&values, &oracle)
        })
        .collect();
    (0..policies.len())
        .map(|i| {
            let entry = METRICS.iter().zip(&per_metric).map(|(m, shares)| {
                let share = shares[i].map(|(share, best)| Share {
                    share,
                    over: policies[best].label(),
                });
                (m.name(), share)
            });
            (!oracle[i]).then(|| entry.collect())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_policy_against_the_best_of_the_others() {
        let values = [0.9, 0.5, 0.6, 0.7];
        let oracle = [true, false, false, false];
        let s = shares(&values, &oracle);
        assert_eq!(s[0], None);
        // 0.7 is best: against 0.6, it has 0.1 of 0.3.
        let (c, best) = s[3].unwrap();
        assert!((c - 1.0 / 3.0).abs() < 1e-12 && best == 2);
        // 0.5 against 0.7: -0.2 of 0.2.
        let (c, best) = s[1].unwrap();
        assert!((c + 1.0).abs() < 1e-12 && best == 3);
        assert!(shares(&values, &[false; 4]).iter().all(Option::is_none));
    }

    #[test]
    fn every_metric_has_its_own_share_and_rival() {
        let named = |n: &str| Policy::by_name(n).unwrap();
        let (oracle, nad, value) = (named("oracle"), named("NAD"), named("value"));
        let listed = [&nad, &oracle, &value];
        // NAD leads on WNDCG, value on every other metric; the oracle leads both.
        // Shares are of the weighted metrics only.
        let figure = |i: usize, m: Metric| match (i, m) {
            (1, _) => 0.9,
            (0, Metric::WNdcg) | (2, _) => 0.7,
            _ => 0.5,
        };
        let s = policy_shares(&listed, figure);
        assert!(s[1].is_none(), "the oracle has no share");
        let of_nad = s[0].as_ref().unwrap();
        let wndcg = of_nad["wndcg"].as_ref().unwrap();
        assert_eq!((wndcg.share, wndcg.over.as_str()), (0.0, "value"));
        let fresh = of_nad["wfreshness"].as_ref().unwrap();
        assert!((fresh.share + 1.0).abs() < 1e-12 && fresh.over == "value");
        assert_eq!(of_nad.len(), METRICS.len());
        assert!(policy_shares(&[&nad, &value], figure)
            .iter()
            .all(Option::is_none));
    }
}
