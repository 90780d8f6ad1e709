//! Random formulas: the primitive set of a grammar, grown or full trees, and ramped
//! half-and-half creation. Trees are written directly in postfix.

use crate::formula::{Formula, Grammar, Node, Op};
use rand::Rng;

/// The building blocks random formulas are drawn from.
#[derive(Debug, Clone)]
pub(crate) struct Primitives {
    functions: Vec<Op>,
    leaves: Vec<Node>,
}

impl Primitives {
    /// The grammar's functions; its terminals and constants as leaves (drawn uniformly).
    pub(crate) fn of(grammar: &Grammar) -> Primitives {
        let leaves = grammar
            .terminals()
            .iter()
            .map(|&t| Node::Var(t))
            .chain(grammar.constants().iter().map(|&c| Node::Const(c)))
            .collect();
        Primitives {
            functions: grammar.functions().to_vec(),
            leaves,
        }
    }

    fn leaf(&self, rng: &mut impl Rng) -> Node {
        self.leaves[rng.gen_range(0..self.leaves.len())]
    }

    fn function(&self, rng: &mut impl Rng) -> Op {
        self.functions[rng.gen_range(0..self.functions.len())]
    }

    /// Appends a random tree of depth at most `depth` (>= 1) to `out`. A *full* tree has
    /// functions on every level above the last; a *grown* one picks function or leaf with
    /// equal odds below the root. With `function_root`, a tree deeper than 1 starts with
    /// a function.
    pub(crate) fn tree(
        &self,
        rng: &mut impl Rng,
        depth: usize,
        full: bool,
        function_root: bool,
        out: &mut Vec<Node>,
    ) {
        let function = depth > 1 && (full || function_root || rng.gen_bool(0.5));
        if !function {
            out.push(self.leaf(rng));
            return;
        }
        let op = self.function(rng);
        for _ in 0..op.arity() {
            self.tree(rng, depth - 1, full, false, out);
        }
        out.push(Node::from(op));
    }

    /// The `index`-th individual of a ramped half-and-half population: depths cycle
    /// through `min_depth..=max_depth` (`depths`), odd individuals are full, even ones
    /// grown. A tree of more than `max_size` nodes is drawn again one level shallower,
    /// down to a single leaf.
    pub(crate) fn ramped(
        &self,
        rng: &mut impl Rng,
        index: usize,
        depths: (usize, usize),
        max_size: usize,
    ) -> Formula {
        let (min_depth, max_depth) = depths;
        let mut depth = min_depth + index % (max_depth - min_depth + 1);
        let mut nodes = Vec::new();
        loop {
            nodes.clear();
            self.tree(rng, depth, index % 2 == 1, true, &mut nodes);
            if nodes.len() <= max_size || depth <= 1 {
                break;
            }
            depth -= 1;
        }
        // Invariant: `tree` writes each operator after exactly `arity` subtrees, and the
        // grammar's constants are finite.
        Formula::from_postfix(nodes).expect("invariant: random trees are well-shaped")
    }
}

/// Depth as the GP settings count it: nodes on the longest root-to-leaf path.
pub(crate) fn levels(f: &Formula) -> usize {
    f.depth() + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    #[test]
    fn ramped_trees_respect_depths_and_grammar() {
        let grammar = Grammar::basic();
        let prims = Primitives::of(&grammar);
        let mut rng = Pcg64::seed_from_u64(1);
        let mut depths = std::collections::BTreeSet::new();
        for i in 0..300 {
            let f = prims.ramped(&mut rng, i, (2, 10), usize::MAX);
            let d = levels(&f);
            assert!((2..=10).contains(&d), "depth {d}");
            if i % 2 == 1 {
                assert_eq!(d, 2 + i % 9, "full trees reach their depth");
            }
            assert!(f.terminals().iter().all(|t| grammar.has_terminal(*t)));
            depths.insert(d);
        }
        assert_eq!(depths.len(), 9);
        for i in 0..300 {
            assert!(prims.ramped(&mut rng, i, (2, 10), 15).len() <= 15);
        }
    }
}
