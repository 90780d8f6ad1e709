//! The best fixed policy per window of cycles (docs/src/reference/evaluation.md#the-best-arm-per-window):
//! before deploying a bandit over some policies, whether the best of them changes over the
//! history at all, and what a switcher that knew each window's best would gain over the
//! best policy kept throughout — an upper bound on what any bandit over them can gain at
//! that window's width, since it knows the future.
//!
//! The scored cycles of every rotation are cut into consecutive windows of `width` cycles
//! (the last may be shorter); a policy's value in a window is the mean of the metric over
//! those cycles of every rotation.
//!
//! ```
//! use freshgp::experiment::windows::best_per_window;
//! use freshgp::metric::{CycleMetrics, Metric};
//!
//! let cycle = |c, v| CycleMetrics { cycle: c, change_rate: v, ..CycleMetrics::default() };
//! // Two policies over four cycles of one rotation: A wins the first two, B the last two.
//! let a = vec![vec![cycle(1, 0.9), cycle(2, 0.9), cycle(3, 0.1), cycle(4, 0.1)]];
//! let b = vec![vec![cycle(1, 0.2), cycle(2, 0.2), cycle(3, 0.6), cycle(4, 0.6)]];
//! let w = best_per_window(&[("A".into(), &a), ("B".into(), &b)], Metric::ChangeRate, 2).unwrap();
//! assert_eq!(w.rows.iter().map(|r| r.best).collect::<Vec<_>>(), [0, 1]);
//! assert!((w.switcher - 0.75).abs() < 1e-12 && (w.fixed - 0.5).abs() < 1e-12);
//! ```

use crate::metric::{CycleMetrics, Metric};
use std::fmt;

/// Why the windows cannot be computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WindowError {
    /// A width of 0.
    #[error("a window must be at least 1 cycle wide")]
    Width,
    /// Fewer than two policies: nothing to choose between.
    #[error("the best policy per window needs at least two policies, got {0}")]
    Policies(usize),
    /// Policies scored over different cycles.
    #[error("policy {0} was scored over other cycles than the first policy")]
    Cycles(String),
}

/// One window.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct WindowRow {
    /// The first and last cycle of the window (the period's cycle numbers).
    pub cycles: (usize, usize),
    /// Each policy's mean metric over the window.
    pub means: Vec<f64>,
    /// The index of the best policy (the first on a tie).
    pub best: usize,
}

/// The best policy per window, and what switching between them would gain.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Windows {
    /// The metric.
    pub metric: String,
    /// Cycles per window.
    pub width: usize,
    /// The policies, in the order of the means.
    pub policies: Vec<String>,
    /// The windows.
    pub rows: Vec<WindowRow>,
    /// The best fixed policy's index over all the cycles (the first on a tie).
    pub best_fixed: usize,
    /// Its mean over all the cycles.
    pub fixed: f64,
    /// The mean of the switcher that plays each window's best policy.
    pub switcher: f64,
    /// Windows each policy is best in.
    pub wins: Vec<usize>,
}

/// The best of `policies` (each a name and its per-cycle metrics, rotation by rotation)
/// per window of `width` scored cycles, by `metric`.
///
/// # Errors
/// A width of 0, fewer than two policies, or policies scored over different cycles.
pub fn best_per_window(
    policies: &[(String, &Vec<Vec<CycleMetrics>>)],
    metric: Metric,
    width: usize,
) -> Result<Windows, WindowError> {
    if width == 0 {
        return Err(WindowError::Width);
    }
    if policies.len() < 2 {
        return Err(WindowError::Policies(policies.len()));
    }
    let shape = |runs: &Vec<Vec<CycleMetrics>>| -> Vec<Vec<usize>> {
        runs.iter()
            .map(|r| r.iter().map(|c| c.cycle).collect())
            .collect()
    };
    let first = shape(policies[0].1);
    if let Some((name, _)) = policies.iter().find(|(_, runs)| shape(runs) != first) {
        return Err(WindowError::Cycles(name.clone()));
    }
    let length = first.iter().map(Vec::len).min().unwrap_or(0);
    let labels: Vec<usize> = first.first().cloned().unwrap_or_default();
    let mean_over = |runs: &Vec<Vec<CycleMetrics>>, span: std::ops::Range<usize>| {
        let values: Vec<f64> = runs
            .iter()
            .flat_map(|r| r[span.clone()].iter().map(|c| metric.of(c)))
            .collect();
        values.iter().sum::<f64>() / values.len().max(1) as f64
    };
    let argmax =
        |means: &[f64]| (0..means.len()).fold(0, |b, i| if means[i] > means[b] { i } else { b });
    let mut rows = Vec::new();
    let mut switched = 0.0;
    for start in (0..length).step_by(width) {
        let span = start..(start + width).min(length);
        let means: Vec<f64> = policies
            .iter()
            .map(|(_, r)| mean_over(r, span.clone()))
            .collect();
        let best = argmax(&means);
        switched += means[best] * span.len() as f64;
        rows.push(WindowRow {
            cycles: (labels[span.start], labels[span.end - 1]),
            means,
            best,
        });
    }
    let overall: Vec<f64> = policies
        .iter()
        .map(|(_, r)| mean_over(r, 0..length))
        .collect();
    let best_fixed = argmax(&overall);
    let mut wins = vec![0; policies.len()];
    for r in &rows {
        wins[r.best] += 1;
    }
    Ok(Windows {
        metric: metric.name().to_string(),
        width,
        policies: policies.iter().map(|(n, _)| n.clone()).collect(),
        rows,
        best_fixed,
        fixed: overall[best_fixed],
        switcher: switched / length.max(1) as f64,
        wins,
    })
}

impl fmt::Display for Windows {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "\nbest policy per window of {} cycles ({}, every rotation's test cycles pooled):",
            self.width, self.metric
        )?;
        let w = self.policies.iter().map(|p| p.len()).fold(8, usize::max);
        write!(f, "{:<9}", "cycles")?;
        for p in &self.policies {
            write!(f, " {p:>w$}")?;
        }
        writeln!(f, "  best")?;
        for r in &self.rows {
            write!(f, "{:<9}", format!("{}–{}", r.cycles.0, r.cycles.1))?;
            for m in &r.means {
                write!(f, " {m:>w$.4}")?;
            }
            writeln!(f, "  {}", self.policies[r.best])?;
        }
        let wins: Vec<String> = self
            .policies
            .iter()
            .zip(&self.wins)
            .map(|(p, n)| format!("{p} {n}"))
            .collect();
        writeln!(
            f,
            "windows won: {}; best fixed policy {} {:.4}; a switcher knowing each window's best {:.4} ({:+.4}: at most what a bandit over these can gain at this width)",
            wins.join(", "),
            self.policies[self.best_fixed],
            self.fixed,
            self.switcher,
            self.switcher - self.fixed
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(values: &[&[f64]]) -> Vec<Vec<CycleMetrics>> {
        values
            .iter()
            .map(|r| {
                r.iter()
                    .enumerate()
                    .map(|(i, &v)| CycleMetrics {
                        cycle: i + 3,
                        freshness: v,
                        ..CycleMetrics::default()
                    })
                    .collect()
            })
            .collect()
    }

    /// Two rotations pooled, a last window shorter than the rest, and the errors.
    #[test]
    fn windows_pool_rotations_and_name_their_cycles() {
        let a = runs(&[&[1.0, 1.0, 0.0], &[0.0, 1.0, 0.0]]);
        let b = runs(&[&[0.0, 0.0, 1.0], &[0.0, 0.0, 1.0]]);
        let w =
            best_per_window(&[("a".into(), &a), ("b".into(), &b)], Metric::Freshness, 2).unwrap();
        assert_eq!(w.rows.len(), 2);
        assert_eq!(w.rows[0].cycles, (3, 4));
        assert_eq!(w.rows[1].cycles, (5, 5));
        assert_eq!(w.rows[0].means, [0.75, 0.0]);
        assert_eq!((w.rows[0].best, w.rows[1].best), (0, 1));
        // a: 3/6, b: 2/6; the switcher 3 + 2 of 6 cycles' values pooled: (0.75·2 + 1·1)/3.
        assert_eq!(w.best_fixed, 0);
        assert!((w.fixed - 0.5).abs() < 1e-12);
        assert!(
            (w.switcher - (0.75 * 2.0 + 1.0) / 3.0).abs() < 1e-12,
            "{w:?}"
        );
        assert_eq!(w.wins, [1, 1]);
        assert!(w.to_string().contains("windows won: a 1, b 1"), "{w}");
        let one = [("a".to_string(), &a)];
        assert_eq!(
            best_per_window(&one, Metric::Freshness, 2),
            Err(WindowError::Policies(1))
        );
        let two = [("a".to_string(), &a), ("b".to_string(), &b)];
        assert_eq!(
            best_per_window(&two, Metric::Freshness, 0),
            Err(WindowError::Width)
        );
        let short = runs(&[&[1.0, 1.0], &[0.0, 1.0]]);
        let odd = [("a".to_string(), &a), ("s".to_string(), &short)];
        assert_eq!(
            best_per_window(&odd, Metric::Freshness, 2),
            Err(WindowError::Cycles("s".into()))
        );
    }
}
