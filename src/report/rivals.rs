//! "Against each rival": every GP method against every other method, budget by budget, on
//! the importance-weighted metrics — a win, a tie or a loss by the two-sided Wilcoxon
//! signed-rank test over the runs paired by run seed at 5% (a win when the test rejects
//! equality and the mean of the paired differences favours the GP method). Studies with
//! at least two runs only (docs/src/reference/evaluation.md#repeated-runs).

use super::doc::{percent, Block, Inline};
use super::{Analysis, Kind, Method};
use crate::experiment::sweep::RunMeans;
use crate::metric::Metric;
use crate::stats::wilcoxon;

/// The significance level of a win or a loss.
const ALPHA: f64 = 0.05;

/// The metrics compared: what a crawl engineer weighs pages by.
const METRICS: [Metric; 2] = [Metric::WNdcg, Metric::WFreshness];

/// The outcome of one comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Significantly better.
    Win,
    /// Not significantly different.
    Tie,
    /// Significantly worse.
    Loss,
}

/// `runs` against `rival` (paired by run seed) on `metric`, with the p-value; `None`
/// without at least two paired runs.
pub(crate) fn compare(
    runs: &[RunMeans],
    rival: &[RunMeans],
    metric: Metric,
) -> Option<(Outcome, f64)> {
    let (a, b): (Vec<f64>, Vec<f64>) = runs
        .iter()
        .filter_map(|r| {
            let partner = rival.iter().find(|o| o.seed == r.seed)?;
            Some((r.of(metric), partner.of(metric)))
        })
        .unzip();
    if a.len() < 2 {
        return None;
    }
    let p = wilcoxon(&a, &b);
    let difference: f64 = a.iter().zip(&b).map(|(x, y)| x - y).sum();
    let outcome = match (p < ALPHA, difference > 0.0) {
        (false, _) => Outcome::Tie,
        (true, true) => Outcome::Win,
        (true, false) => Outcome::Loss,
    };
    Some((outcome, p))
}

/// The section: per GP method and metric, a table of rivals by budgets, and a count.
pub(super) fn section(out: &mut Vec<Block>, a: &Analysis) {
    let levels = a.study.levels();
    let order = a.study.budget_order();
    let gp: Vec<&Method> = a
        .methods
        .iter()
        .filter(|m| m.kind == Kind::Gp && m.arms.is_empty())
        .collect();
    let runs = |m: &Method, l: usize| m.evaluated.levels.get(l).cloned().unwrap_or_default();
    if gp.is_empty() || order.iter().all(|&l| runs(gp[0], l).len() < 2) {
        return;
    }
    out.push(Block::heading(2, Inline::text("Against each rival")));
    out.push(Block::paragraph(Inline::text(format!(
        "Each GP method against every other method at every budget: win, tie or loss by the two-sided Wilcoxon signed-rank test over the runs paired by run seed at {ALPHA} (p-values in brackets)."
    ))));
    for m in gp {
        for metric in METRICS {
            out.push(Block::heading(
                3,
                Inline::text(format!("{}: {}", m.name, metric.title())),
            ));
            let mut head = vec![Inline::text("Rival")];
            head.extend(order.iter().map(|&l| Inline::text(percent(levels[l]))));
            let mut rows = Vec::new();
            let mut counts = [0usize; 3];
            for rival in a.methods.iter().filter(|r| r.name != m.name) {
                let mut row = vec![Inline::text(rival.name.clone())];
                for &l in &order {
                    let cell = match compare(&runs(m, l), &runs(rival, l), metric) {
                        Some((outcome, p)) => {
                            counts[outcome as usize] += 1;
                            format!("{} ({p:.3})", name(outcome))
                        }
                        None => "–".to_string(),
                    };
                    row.push(Inline::text(cell));
                }
                rows.push(row);
            }
            out.push(Block::Table { head, rows });
            let [wins, ties, losses] = counts;
            out.push(Block::paragraph(Inline::text(format!(
                "Wins {wins}, ties {ties}, losses {losses}."
            ))));
        }
    }
}

fn name(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Win => "win",
        Outcome::Tie => "tie",
        Outcome::Loss => "loss",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metric::CycleMetrics;

    fn runs(values: &[f64]) -> Vec<RunMeans> {
        values
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                let cycle = CycleMetrics {
                    cycle: 1,
                    change_rate: 0.0,
                    wchange_rate: 0.0,
                    ndcg: 0.0,
                    freshness: 0.0,
                    wndcg: v,
                    wfreshness: 0.0,
                    newly_visited: 0.0,
                    stale: 0,
                    visited: 0,
                };
                RunMeans::of_cycles(i as u64 + 1, [&cycle])
            })
            .collect()
    }

    #[test]
    fn wins_ties_and_losses_follow_the_test_and_the_sign() {
        let low = runs(&[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]);
        let high = runs(&[0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]);
        let mixed = runs(&[0.2, 0.1, 0.4, 0.3, 0.6, 0.5, 0.8, 0.7]);
        let (win, p) = compare(&high, &low, Metric::WNdcg).unwrap();
        assert_eq!(win, Outcome::Win);
        assert!(p < 0.01, "{p}");
        assert_eq!(
            compare(&low, &high, Metric::WNdcg).unwrap().0,
            Outcome::Loss
        );
        assert_eq!(
            compare(&mixed, &low, Metric::WNdcg).unwrap().0,
            Outcome::Tie
        );
        assert!(compare(&low[..1], &high[..1], Metric::WNdcg).is_none());
    }
}
