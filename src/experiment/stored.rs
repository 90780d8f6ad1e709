//! Per-cycle metrics as unit files store them, read back in every format freshgp wrote.
//!
//! Unit files written before the weighted metrics (docs/src/reference/metrics.md#wndcg and
//! #wfreshness) have cycles without `wndcg` and `wfreshness`. The simulation then ignored
//! page weights, and without weights WNDCG and WFreshness are NDCG and Freshness bit for
//! bit, so those cycles are read with the unweighted values in their place: an old study
//! reports as it did, and its weighted columns equal the unweighted ones.
//!
//! Used as `#[serde(deserialize_with = "super::stored::cycles")]` on the stored
//! `Vec<CycleMetrics>` fields; writing is `CycleMetrics`'s own serialization.

use crate::metric::CycleMetrics;
use serde::{Deserialize, Deserializer};

/// One stored cycle: [`CycleMetrics`] with the fields added later optional.
#[derive(Deserialize)]
struct StoredCycle {
    cycle: usize,
    change_rate: f64,
    ndcg: f64,
    freshness: f64,
    #[serde(default)]
    wchange_rate: Option<f64>,
    #[serde(default)]
    wndcg: Option<f64>,
    #[serde(default)]
    wfreshness: Option<f64>,
    newly_visited: f64,
    stale: usize,
    visited: usize,
}

impl From<StoredCycle> for CycleMetrics {
    fn from(c: StoredCycle) -> CycleMetrics {
        CycleMetrics {
            cycle: c.cycle,
            change_rate: c.change_rate,
            wchange_rate: c.wchange_rate.unwrap_or(c.change_rate),
            ndcg: c.ndcg,
            freshness: c.freshness,
            wndcg: c.wndcg.unwrap_or(c.ndcg),
            wfreshness: c.wfreshness.unwrap_or(c.freshness),
            newly_visited: c.newly_visited,
            stale: c.stale,
            visited: c.visited,
        }
    }
}

/// Reads a list of stored cycles, old or new (see the module docs).
pub(crate) fn cycles<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<CycleMetrics>, D::Error> {
    let stored = Vec::<StoredCycle>::deserialize(d)?;
    Ok(stored.into_iter().map(CycleMetrics::from).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct Holder {
        #[serde(deserialize_with = "cycles")]
        cycles: Vec<CycleMetrics>,
    }

    #[test]
    fn old_cycles_read_the_unweighted_values_new_ones_round_trip() {
        let old = r#"{"cycles": [{"cycle": 3, "change_rate": 0.5, "ndcg": 0.625,
            "freshness": 0.875, "newly_visited": 0.25, "stale": 7, "visited": 4}]}"#;
        let c = serde_json::from_str::<Holder>(old).unwrap().cycles[0];
        assert_eq!((c.wndcg, c.wfreshness), (0.625, 0.875));
        assert_eq!((c.cycle, c.stale, c.visited), (3, 7, 4));
        let new = CycleMetrics {
            wndcg: 0.125,
            wfreshness: 0.75,
            ..c
        };
        let text = format!("{{\"cycles\": [{}]}}", serde_json::to_string(&new).unwrap());
        assert_eq!(serde_json::from_str::<Holder>(&text).unwrap().cycles, [new]);
    }
}
