//! "Headroom" (docs/src/reference/evaluation.md#headroom): how much of the distance from
//! the best hand-written rival to the oracle each GP method covers, budget by budget, on
//! the importance-weighted metrics. Shown when the study's baselines include `oracle`
//! (docs/src/reference/policies.md#the-oracle), which needs a history that records its
//! pages' latent change probabilities.
//!
//! At each budget and metric, on the medians over the runs:
//!
//! ```text
//! best rival          = the best baseline other than the oracle (hand-written: the
//!                       literature's policies and the study's formulas)
//! headroom            = oracle − best rival
//! headroom captured   = (method − best rival) / headroom      (none when headroom <= 0)
//! largest loss        = max over the rivals of (rival − method), and which rival
//! ```

use super::doc::{percent, Block, Inline};
use super::{Analysis, Kind, Method};
use crate::experiment::headroom::METRICS;
use crate::metric::Metric;
use serde::Serialize;

/// The oracle's method name.
const ORACLE: &str = "oracle";

/// One GP method at one budget on one metric.
#[derive(Debug, Clone, Serialize)]
pub struct Captured {
    /// The method.
    pub method: String,
    /// Its median over the runs.
    pub value: f64,
    /// `(value − best rival) / (oracle − best rival)`; `None` when the oracle does not
    /// beat the best rival.
    pub captured: Option<f64>,
    /// The largest `rival − value` over the rivals (negative: it beats them all).
    pub largest_loss: f64,
    /// The rival of the largest loss.
    pub worst_rival: String,
}

/// One budget and metric.
#[derive(Debug, Clone, Serialize)]
pub struct Headroom {
    /// The budget.
    pub resources: f64,
    /// The metric.
    pub metric: Metric,
    /// The oracle's median.
    pub oracle: f64,
    /// The best rival.
    pub best_rival: String,
    /// Its median.
    pub best: f64,
    /// Every GP method.
    pub methods: Vec<Captured>,
}

/// The median of `metric` at budget `resources` of `m`, if it was tested there.
fn median(m: &Method, resources: f64, metric: Metric) -> Option<f64> {
    m.budgets
        .iter()
        .find(|b| b.resources == resources)
        .and_then(|b| b.of(metric))
        .map(|l| l.median)
}

/// The headroom of every budget on WNDCG and WFreshness; empty unless the study has the
/// oracle and at least one other baseline.
pub fn headroom(a: &Analysis) -> Vec<Headroom> {
    let is_rival = |m: &&Method| m.kind == Kind::Baseline && m.arms.is_empty();
    let Some(oracle) = a.methods.iter().find(|m| is_rival(m) && m.name == ORACLE) else {
        return Vec::new();
    };
    let rivals: Vec<&Method> = (a.methods.iter().filter(is_rival))
        .filter(|m| m.name != ORACLE)
        .collect();
    let gp: Vec<&Method> = (a.methods.iter())
        .filter(|m| m.kind == Kind::Gp && m.arms.is_empty())
        .collect();
    let mut levels = a.study.levels();
    levels.sort_by(f64::total_cmp);
    levels.dedup();
    let mut out = Vec::new();
    for metric in METRICS {
        for &r in &levels {
            let Some(o) = median(oracle, r, metric) else {
                continue;
            };
            let values: Vec<(&str, f64)> = (rivals.iter())
                .filter_map(|m| Some((m.name.as_str(), median(m, r, metric)?)))
                .collect();
            let Some(&(best_rival, best)) = values.iter().max_by(|a, b| a.1.total_cmp(&b.1)) else {
                continue;
            };
            let methods = (gp.iter())
                .filter_map(|m| {
                    let value = median(m, r, metric)?;
                    let (worst_rival, loss) = (values.iter())
                        .map(|&(name, v)| (name, v - value))
                        .max_by(|a, b| a.1.total_cmp(&b.1))?;
                    Some(Captured {
                        method: m.name.clone(),
                        value,
                        captured: crate::experiment::headroom::captured(value, best, o),
                        largest_loss: loss,
                        worst_rival: worst_rival.to_string(),
                    })
                })
                .collect();
            out.push(Headroom {
                resources: r,
                metric,
                oracle: o,
                best_rival: best_rival.to_string(),
                best,
                methods,
            });
        }
    }
    out
}

/// The section: per metric, a table of the oracle, the best rival and each GP method by
/// budget.
pub(super) fn section(out: &mut Vec<Block>, a: &Analysis) {
    let all = headroom(a);
    if all.is_empty() {
        return;
    }
    out.push(Block::heading(2, Inline::text("Headroom")));
    out.push(Block::paragraph(Inline::text(
        "How much of the distance from the best hand-written rival (the best baseline but the oracle) to the oracle, which ranks by each page's latent change probability, each GP method covers: headroom captured = (method − best rival) / (oracle − best rival), on the medians over the runs; then the method's largest loss to any rival (negative: it beats them all) and that rival.",
    )));
    for metric in METRICS {
        let rows: Vec<&Headroom> = all.iter().filter(|h| h.metric == metric).collect();
        if rows.is_empty() {
            continue;
        }
        out.push(Block::heading(3, Inline::text(metric.title())));
        let mut head = vec![Inline::text("")];
        head.extend(rows.iter().map(|h| Inline::text(percent(h.resources))));
        let mut table = vec![
            row("oracle", rows.iter().map(|h| format!("{:.4}", h.oracle))),
            row(
                "best rival",
                rows.iter()
                    .map(|h| format!("{:.4} ({})", h.best, h.best_rival)),
            ),
            row(
                "headroom",
                rows.iter().map(|h| format!("{:.4}", h.oracle - h.best)),
            ),
        ];
        let names: Vec<&str> = rows[0].methods.iter().map(|c| c.method.as_str()).collect();
        for name in names {
            let cells = rows.iter().map(|h| {
                h.methods
                    .iter()
                    .find(|c| c.method == name)
                    .map_or("–".to_string(), cell)
            });
            table.push(row(name, cells));
        }
        out.push(Block::Table { head, rows: table });
    }
}

/// A table row: its label and cells.
fn row(label: &str, cells: impl Iterator<Item = String>) -> Vec<Inline> {
    std::iter::once(Inline::text(label))
        .chain(cells.map(Inline::text))
        .collect()
}

/// A method's cell: its value, the share captured, its largest loss and to whom.
fn cell(c: &Captured) -> String {
    let captured = c.captured.map_or("–".to_string(), share_percent);
    format!(
        "{:.4}; captured {captured}; largest loss {:+.4} ({})",
        c.value, c.largest_loss, c.worst_rival
    )
}

/// A share as a whole percentage, never "-0%".
fn share_percent(share: f64) -> String {
    let p = (100.0 * share).round();
    format!("{:.0}%", if p == 0.0 { 0.0 } else { p })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_share_that_rounds_to_zero_has_no_sign() {
        assert_eq!(super::share_percent(-0.001), "0%");
        assert_eq!(super::share_percent(-0.59), "-59%");
        assert_eq!(super::share_percent(1.54), "154%");
    }
}
