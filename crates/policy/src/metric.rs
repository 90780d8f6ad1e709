//! The per-cycle metrics by name ([`Metric`]) and one scored cycle's values of them
//! ([`CycleMetrics`]): what a simulation measures, a GP fitness maximizes, a bandit is
//! rewarded by and a report tabulates (`docs/src/reference/metrics.md`). How a simulator
//! computes them is `freshgp-sim`'s `crates/sim/src/sim/metrics.rs`.

use serde::{Deserialize, Serialize};

/// The metrics of one scored cycle.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct CycleMetrics {
    /// Cycle number inside the period (1-based).
    pub cycle: usize,
    /// Fraction of the k visited pages that had changed.
    pub change_rate: f64,
    /// Weight of the visited pages that had changed over the weight of the k heaviest
    /// pages (docs/src/reference/metrics.md#weighted-change-rate; 0 when that is 0): the
    /// change rate with weights, which a crawler observes of its own visits. Without
    /// weights it is `change_rate`.
    #[serde(default)]
    pub wchange_rate: f64,
    /// DCG of the visits over the ideal DCG (0 when no page was stale).
    pub ndcg: f64,
    /// Fraction of all pages not stale after the cycle's visits.
    pub freshness: f64,
    /// Weighted DCG of the visits over the weighted ideal DCG
    /// (docs/src/reference/metrics.md#wndcg; 0 when that is 0).
    pub wndcg: f64,
    /// Weight of the pages not stale after the cycle's visits over the total weight
    /// (1 when the total is 0).
    pub wfreshness: f64,
    /// Fraction of the k visited pages not visited since the warm-up.
    pub newly_visited: f64,
    /// Pages stale before the cycle's visits (R).
    pub stale: usize,
    /// Pages visited (k; fewer when a host cap leaves too few eligible pages).
    pub visited: usize,
}

/// Which per-cycle metric a fitness or a report uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Metric {
    /// ChangeRate.
    #[serde(alias = "ChangeRate")]
    ChangeRate,
    /// NDCG (the default fitness).
    #[default]
    #[serde(alias = "NDCG")]
    Ndcg,
    /// Freshness.
    #[serde(alias = "Freshness")]
    Freshness,
    /// Importance-weighted Freshness (docs/src/reference/metrics.md#wfreshness).
    #[serde(alias = "WFreshness")]
    WFreshness,
    /// Importance-weighted NDCG (docs/src/reference/metrics.md#wndcg).
    #[serde(alias = "WNDCG")]
    WNdcg,
}

impl Metric {
    /// The metric's value in one cycle.
    pub fn of(self, m: &CycleMetrics) -> f64 {
        match self {
            Metric::ChangeRate => m.change_rate,
            Metric::Ndcg => m.ndcg,
            Metric::Freshness => m.freshness,
            Metric::WFreshness => m.wfreshness,
            Metric::WNdcg => m.wndcg,
        }
    }

    /// Whether it reads the page weights (WFreshness, WNDCG).
    pub fn is_weighted(self) -> bool {
        matches!(self, Metric::WFreshness | Metric::WNdcg)
    }

    /// The metrics a search for this one also averages over by default
    /// (docs/src/reference/gp.md#fitness-over-several-metrics): a crawl engineer weighing
    /// pages wants both the ranking (WNDCG) and the freshness (WFreshness) it buys, so
    /// each weighted metric brings the other; the paper's unweighted metrics bring none.
    pub fn companions(self) -> Vec<Metric> {
        match self {
            Metric::WNdcg => vec![Metric::WFreshness],
            Metric::WFreshness => vec![Metric::WNdcg],
            Metric::ChangeRate | Metric::Ndcg | Metric::Freshness => Vec::new(),
        }
    }

    /// Every metric, in the order of report tables.
    pub const ALL: [Metric; 5] = [
        Metric::ChangeRate,
        Metric::Ndcg,
        Metric::Freshness,
        Metric::WFreshness,
        Metric::WNdcg,
    ];

    /// The position of the metric in [`Metric::ALL`].
    pub fn index(self) -> usize {
        match self {
            Metric::ChangeRate => 0,
            Metric::Ndcg => 1,
            Metric::Freshness => 2,
            Metric::WFreshness => 3,
            Metric::WNdcg => 4,
        }
    }

    /// Lower-case name, as in JSON output and flags (`changerate`, `ndcg`, `freshness`,
    /// `wfreshness`, `wndcg`).
    pub fn name(self) -> &'static str {
        match self {
            Metric::ChangeRate => "changerate",
            Metric::Ndcg => "ndcg",
            Metric::Freshness => "freshness",
            Metric::WFreshness => "wfreshness",
            Metric::WNdcg => "wndcg",
        }
    }

    /// The name in report tables (`ChangeRate`, `NDCG`, `Freshness`, `WFreshness`,
    /// `WNDCG`).
    pub fn title(self) -> &'static str {
        match self {
            Metric::ChangeRate => "ChangeRate",
            Metric::Ndcg => "NDCG",
            Metric::Freshness => "Freshness",
            Metric::WFreshness => "WFreshness",
            Metric::WNdcg => "WNDCG",
        }
    }
}

impl std::str::FromStr for Metric {
    type Err = String;

    fn from_str(s: &str) -> Result<Metric, String> {
        match s.to_ascii_lowercase().as_str() {
            "changerate" | "change-rate" | "change_rate" => Ok(Metric::ChangeRate),
            "ndcg" => Ok(Metric::Ndcg),
            "freshness" => Ok(Metric::Freshness),
            "wfreshness" => Ok(Metric::WFreshness),
            "wndcg" => Ok(Metric::WNdcg),
            _ => Err(format!(
                "unknown metric `{s}` (expected changerate, ndcg, freshness, wfreshness or wndcg)"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metric_names_parse() {
        assert_eq!("NDCG".parse::<Metric>(), Ok(Metric::Ndcg));
        assert_eq!("changerate".parse::<Metric>(), Ok(Metric::ChangeRate));
        assert!("speed".parse::<Metric>().is_err());
    }
}
