//! Distillation (docs/src/reference/gp.md#distillation): from a chosen formula, the
//! shortest formula found nearby that the choice would still accept (within the noise of
//! the best candidate's score).
//!
//! Greedy backward elimination: each pass tries every *hoist* of the current formula (a
//! subtree put in the place of one of its ancestors, the cut-out part dropped: `a * b + c`
//! gives `a + c`, `b + c`, `a * b`, `a`, ...), each reduced to its [key
//! form](Distiller::key), and moves to the smallest the [judge](Distiller::judge) accepts,
//! the higher score on a tie; it stops when it accepts no hoist. Every formula it moves to is smaller, so it ends after at most as many
//! passes as the formula has nodes; each pass scores at most one formula per node.
//!
//! **Determinism:** candidates are tried in node order and scored by a deterministic
//! function, so the result does not depend on the thread count.

use crate::formula::Formula;
use rayon::prelude::*;

/// What distillation needs of a search: how a formula is reduced, scored, and sized.
pub struct Distiller<'a> {
    /// The form a candidate is scored and compared as (its rank form when only rankings
    /// count; its canonical form otherwise).
    pub key: &'a (dyn Fn(&Formula) -> Formula + Sync),
    /// A formula's score (higher is better) when the choice accepts it, `None` when it
    /// does not (its score is not within the noise of the best candidate's).
    pub judge: &'a (dyn Fn(&Formula) -> Option<f64> + Sync),
}

/// The result of distilling a formula.
#[derive(Debug, Clone, PartialEq)]
pub struct Distilled {
    /// The shortest formula found that the judge accepts (the start's key form when none
    /// is shorter).
    pub formula: Formula,
    /// Its score.
    pub(crate) score: f64,
    /// Formulas scored.
    pub scored: usize,
}

impl Distiller<'_> {
    /// Distils `start`, whose score is `score`.
    pub fn run(&self, start: &Formula, score: f64) -> Distilled {
        let mut current = (self.key)(start);
        let mut current_score = score;
        let mut scored = 0;
        loop {
            let mut candidates: Vec<Formula> = hoists(&current)
                .iter()
                .map(|f| (self.key)(f))
                .filter(|f| f.len() < current.len())
                .collect();
            candidates.sort_by(|a, b| a.len().cmp(&b.len()).then(a.cmp(b)));
            candidates.dedup();
            if candidates.is_empty() {
                break;
            }
            let scores: Vec<Option<f64>> = candidates.par_iter().map(|f| (self.judge)(f)).collect();
            scored += candidates.len();
            // The smallest accepted, the higher score on a tie, the first in order after
            // that.
            let best = (0..candidates.len())
                .filter_map(|i| Some((i, scores[i]?)))
                .min_by(|&(a, sa), &(b, sb)| {
                    candidates[a]
                        .len()
                        .cmp(&candidates[b].len())
                        .then(sb.total_cmp(&sa))
                        .then(a.cmp(&b))
                });
            let Some((i, score)) = best else { break };
            current_score = score;
            current = candidates.swap_remove(i);
        }
        Distilled {
            formula: current,
            score: current_score,
            scored,
        }
    }
}

/// Every formula made from `f` by putting one of its subtrees in the place of a proper
/// ancestor (in node order: ancestor, then descendant).
fn hoists(f: &Formula) -> Vec<Formula> {
    let mut out = Vec::new();
    for ancestor in 0..f.len() {
        let span = f.subtree(ancestor);
        for inner in span.start..ancestor {
            out.push(f.replace_subtree(ancestor, &f.nodes()[f.subtree(inner)]));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formula::{Closure, Terminal};

    #[test]
    fn hoists_put_a_subtree_in_an_ancestors_place() {
        let f: Formula = "t * X + n".parse().unwrap();
        let all: Vec<String> = hoists(&f).iter().map(|h| h.to_string()).collect();
        for want in ["t + n", "X + n", "t", "X", "t * X", "n"] {
            assert!(all.contains(&want.to_string()), "{want} in {all:?}");
        }
    }

    /// A score that counts how many of `t` and `X` a formula reads, minus a little per
    /// node: distillation drops everything else.
    #[test]
    fn drops_what_does_not_score() {
        let key = |f: &Formula| f.canonical(Closure::Paper);
        let score = |f: &Formula| {
            let reads = f.terminals();
            let useful = [Terminal::T, Terminal::X]
                .iter()
                .filter(|t| reads.contains(t))
                .count();
            useful as f64 - 0.001 * f.len() as f64
        };
        let start: Formula = "log(n + CG) * (t + X) + exp(NAD)".parse().unwrap();
        let s0 = score(&start);
        let loose = |f: &Formula| Some(score(f)).filter(|&s| s >= s0 - 0.1);
        let distiller = Distiller {
            key: &key,
            judge: &loose,
        };
        let out = distiller.run(&start, s0);
        assert_eq!(out.formula.to_string(), "t + X");
        assert!(out.score > s0 && out.scored > 0);
        // A judge above what any formula scores accepts nothing: the start stays.
        let strict = |f: &Formula| Some(score(f)).filter(|&s| s >= 2.0);
        let distiller = Distiller {
            key: &key,
            judge: &strict,
        };
        assert_eq!(distiller.run(&start, s0).formula, key(&start));
    }
}
