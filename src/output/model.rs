//! `model eval`: the AUC table of the change models and their rivals, and the staleness
//! table at a partial crawl's visits.

use crate::data::Dataset;
use crate::policy::Policy;
use crate::predict::eval::AucTable;
use crate::predict::stale_eval::{stale_table, StaleTable};
use crate::sim::SimConfig;
use serde::Serialize;

/// What `model eval` finds.
#[derive(Debug, Clone, Serialize)]
pub struct ModelEval {
    /// The AUC table.
    #[serde(flatten)]
    pub table: AucTable,
    /// The stale model and its rivals at the partial crawl's visits (absent without a
    /// partial crawl, or when it cannot be built).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stale: Option<StaleTable>,
    /// Why the staleness table could not be built (too few visits, one class), if so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stale_error: Option<String>,
}

impl ModelEval {
    /// `table` with the staleness table of `data`'s first `rotations` rotations at the
    /// visits of `partial` (a policy and its settings), if given.
    pub fn new(
        table: AucTable,
        data: &Dataset,
        rotations: usize,
        partial: Option<&(Policy, SimConfig)>,
    ) -> Self {
        let stale = partial.map(|crawl| stale_table(data, rotations, crawl));
        let (stale, stale_error) = match stale {
            None => (None, None),
            Some(Ok(t)) => (Some(t), None),
            Some(Err(e)) => (None, Some(e.to_string())),
        };
        ModelEval {
            table,
            stale,
            stale_error,
        }
    }
}
