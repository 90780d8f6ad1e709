//! Variation operators on the postfix arena. Every subtree is a contiguous slice, so
//! each operator is a splice of slices. Each keeps its offspring within the run's
//! [`Limits`] (depth, and nodes when the run sets `max_size`).

use super::config::{DepthPolicy, Limits};
use super::create::Primitives;
use crate::formula::{Formula, Node};
use rand::Rng;

/// A node to cut at: an inner node with probability 0.9 when there is one (Koza's usual
/// bias, which keeps crossover from mostly swapping leaves), else any leaf.
fn pick_cut(rng: &mut impl Rng, f: &Formula) -> usize {
    let inner = f.nodes().iter().filter(|n| n.arity() > 0).count();
    let want_inner = inner > 0 && rng.gen_bool(0.9);
    let pool = if want_inner { inner } else { f.len() - inner };
    let mut k = rng.gen_range(0..pool);
    for (i, n) in f.nodes().iter().enumerate() {
        if (n.arity() > 0) == want_inner {
            if k == 0 {
                return i;
            }
            k -= 1;
        }
    }
    unreachable!("the pool is not empty")
}

/// Tries `make` until its result is within `limits`, as their policy says; falls back to
/// a copy of `parent`.
fn within_limits(
    parent: &Formula,
    limits: Limits,
    mut make: impl FnMut() -> Option<Formula>,
) -> Formula {
    let tries = match limits.policy {
        DepthPolicy::Retry => limits.retries.max(1),
        DepthPolicy::Parent => 1,
    };
    for _ in 0..tries {
        if let Some(child) = make() {
            if limits.admit(&child) {
                return child;
            }
        }
    }
    parent.clone()
}

/// Subtree crossover: a random subtree of `mother` replaced by a random subtree of
/// `father`.
pub(crate) fn crossover(
    rng: &mut impl Rng,
    mother: &Formula,
    father: &Formula,
    limits: Limits,
) -> Formula {
    within_limits(mother, limits, || {
        let i = pick_cut(rng, mother);
        let j = pick_cut(rng, father);
        Some(mother.replace_subtree(i, &father.nodes()[father.subtree(j)]))
    })
}

/// Swap mutation: two disjoint subtrees of `f` exchange places (none if `f` has no two
/// disjoint subtrees).
pub(crate) fn swap_mutation(rng: &mut impl Rng, f: &Formula, limits: Limits) -> Formula {
    within_limits(f, limits, || {
        let i = rng.gen_range(0..f.len());
        let ri = f.subtree(i);
        let candidates: Vec<usize> = (0..f.len())
            .filter(|&j| {
                let rj = f.subtree(j);
                rj.end <= ri.start || ri.end <= rj.start
            })
            .collect();
        if candidates.is_empty() {
            return None;
        }
        let j = candidates[rng.gen_range(0..candidates.len())];
        let rj = f.subtree(j);
        let (first, second) = if ri.start < rj.start {
            (ri, rj)
        } else {
            (rj, ri)
        };
        let n = f.nodes();
        let mut nodes: Vec<Node> = Vec::with_capacity(n.len());
        nodes.extend_from_slice(&n[..first.start]);
        nodes.extend_from_slice(&n[second.clone()]);
        nodes.extend_from_slice(&n[first.end..second.start]);
        nodes.extend_from_slice(&n[first]);
        nodes.extend_from_slice(&n[second.end..]);
        // Invariant: swapping two disjoint whole subtrees keeps one well-shaped tree.
        Some(Formula::from_postfix(nodes).expect("invariant: swapping subtrees keeps the shape"))
    })
}

/// Replacement mutation: a random subtree of `f` replaced by a new grown tree of depth at
/// most `new_depth`.
pub(crate) fn replacement_mutation(
    rng: &mut impl Rng,
    f: &Formula,
    primitives: &Primitives,
    new_depth: usize,
    limits: Limits,
) -> Formula {
    within_limits(f, limits, || {
        let i = rng.gen_range(0..f.len());
        let mut fresh = Vec::new();
        primitives.tree(rng, new_depth, false, false, &mut fresh);
        Some(f.replace_subtree(i, &fresh))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formula::Grammar;
    use crate::gp::create::levels;
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    fn f(s: &str) -> Formula {
        s.parse().unwrap()
    }

    /// Depth `depth`, no size limit, 10 retries.
    fn deep(depth: usize) -> Limits {
        Limits {
            depth,
            size: usize::MAX,
            policy: DepthPolicy::Retry,
            retries: 10,
        }
    }

    #[test]
    fn crossover_splices_a_subtree_of_the_father() {
        let mut rng = Pcg64::seed_from_u64(3);
        let mother = f("(t + n) * X");
        let father = f("log(CG) - 7");
        for _ in 0..200 {
            let child = crossover(&mut rng, &mother, &father, deep(17));
            let text = child.to_string();
            assert!(
                text.contains("CG") || text.contains('7') || text.contains('-'),
                "{text} holds part of the father"
            );
        }
    }

    #[test]
    fn depth_limit_is_kept() {
        let mut rng = Pcg64::seed_from_u64(4);
        let tall = f("log(log(log(log(log(t)))))");
        for _ in 0..100 {
            let child = crossover(&mut rng, &tall, &tall, deep(6));
            assert!(levels(&child) <= 6);
        }
    }

    #[test]
    fn size_limit_is_kept() {
        let mut rng = Pcg64::seed_from_u64(7);
        let (mother, father) = (
            f("(t + n) * (X - CG) / (NAD + t)"),
            f("log(t) * exp(n + X)"),
        );
        let limits = Limits {
            size: 9,
            ..deep(17)
        };
        let mut grew = false;
        for _ in 0..200 {
            let child = crossover(&mut rng, &father, &mother, limits);
            assert!(child.len() <= 9 || child == father, "{child}");
            grew |= child != father;
        }
        assert!(grew, "some offspring fit");
    }

    #[test]
    fn swap_exchanges_disjoint_subtrees() {
        let mut rng = Pcg64::seed_from_u64(5);
        let x = f("t - X");
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..100 {
            seen.insert(swap_mutation(&mut rng, &x, deep(17)).to_string());
        }
        assert!(seen.contains("X - t"), "{seen:?}");
        // A chain has no two disjoint subtrees: unchanged.
        let chain = f("log(exp(t))");
        assert_eq!(swap_mutation(&mut rng, &chain, deep(17)), chain);
    }

    #[test]
    fn replacement_keeps_grammar_and_depth() {
        let grammar = Grammar::basic();
        let prims = Primitives::of(&grammar);
        let mut rng = Pcg64::seed_from_u64(6);
        let x = f("(t + n) * X");
        for _ in 0..100 {
            let m = replacement_mutation(&mut rng, &x, &prims, 4, deep(5));
            assert!(levels(&m) <= 5);
            assert!(m.terminals().iter().all(|t| grammar.has_terminal(*t)));
        }
    }
}
