//! The formula language: what freshgp searches over and hands to users.
//!
//! A [`Formula`] is a tree stored flat, in postfix order: every node comes after its
//! children, so the subtree rooted at node `i` is the contiguous slice
//! `subtree_start(i)..=i`. Crossover and mutation are slice splices; every bottom-up walk
//! (evaluation, printing, simplification, compilation, export) is one [`Formula::fold`], a
//! forward pass with a stack of results.
//!
//! The leaves are [`Terminal`]s (the page statistics of docs/src/reference/terminals.md)
//! and numeric constants; the inner nodes are the [`BinaryOp`]s `+ - * / ^` and the
//! [`UnaryOp`]s `log exp` and unary minus, so an operator's arity is its type. Which
//! terminals, constants and operators a search may use, and which closure
//! (protected-operator rules) gives every operation a value, is a [`Grammar`].
//!
//! ```
//! use freshgp_formula::formula::{Formula, Grammar};
//!
//! let all = Grammar::all();
//! let f = Formula::parse("1 - exp(-NAD * t)", &all)?;
//! assert_eq!(f.to_string(), "1 - exp(-NAD * t)");
//! assert_eq!(f.len(), 7);
//! # Ok::<(), freshgp_formula::formula::ParseError>(())
//! ```
//!
//! **Invariant:** this module knows nothing of datasets, crawling, GP, threads or the CLI.

mod grammar;
mod lex;
pub(crate) mod ops;
mod parse;
mod print;
mod rank;
mod simplify;
mod terminal;

pub use grammar::{Grammar, GrammarError};
pub use ops::Closure;
pub use parse::{ParseError, MAX_NESTING};
pub use print::Latex;
pub use rank::Interval;
pub use terminal::{Keeps, Scope, Sql, Terminal, TerminalRow};

use crate::hash::mix64;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Range;

/// An operator of one operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UnaryOp {
    /// Unary minus, `-a`.
    Neg,
    /// Natural logarithm, protected by the closure.
    Log,
    /// `e` to the power of the argument.
    Exp,
}

impl UnaryOp {
    /// Every unary operator.
    pub const ALL: [UnaryOp; 3] = [UnaryOp::Neg, UnaryOp::Log, UnaryOp::Exp];

    /// The operator's name in grammar files: `neg log exp`.
    pub fn name(self) -> &'static str {
        match self {
            UnaryOp::Neg => "neg",
            UnaryOp::Log => "log",
            UnaryOp::Exp => "exp",
        }
    }
}

/// An operator of two operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BinaryOp {
    /// `a + b`
    Add,
    /// `a - b`
    Sub,
    /// `a * b`
    Mul,
    /// `a / b`, protected by the closure.
    Div,
    /// `a ^ b`, also written `pow(a, b)`.
    Pow,
}

impl BinaryOp {
    /// Every binary operator.
    pub const ALL: [BinaryOp; 5] = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Pow,
    ];

    /// The operator's name in grammar files: `+ - * / pow`.
    pub fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Pow => "pow",
        }
    }

    /// Whether `a op b == b op a` holds bit for bit for every pair of values.
    pub fn is_commutative(self) -> bool {
        matches!(self, BinaryOp::Add | BinaryOp::Mul)
    }
}

/// Any operator: what a grammar lists and random formulas are composed of. The arity is
/// the variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Op {
    /// A binary operator.
    Binary(BinaryOp),
    /// A unary operator.
    Unary(UnaryOp),
}

impl Op {
    /// Every operator: the binary ones, then the unary ones.
    pub const ALL: [Op; 8] = [
        Op::Binary(BinaryOp::Add),
        Op::Binary(BinaryOp::Sub),
        Op::Binary(BinaryOp::Mul),
        Op::Binary(BinaryOp::Div),
        Op::Binary(BinaryOp::Pow),
        Op::Unary(UnaryOp::Neg),
        Op::Unary(UnaryOp::Log),
        Op::Unary(UnaryOp::Exp),
    ];

    /// Number of operands: 1 or 2.
    pub fn arity(self) -> usize {
        match self {
            Op::Unary(_) => 1,
            Op::Binary(_) => 2,
        }
    }

    /// The operator's name in grammar files: `+ - * / pow neg log exp`.
    pub fn name(self) -> &'static str {
        match self {
            Op::Unary(op) => op.name(),
            Op::Binary(op) => op.name(),
        }
    }

    /// The operator with this grammar-file name, if any (`^` is accepted for `pow`).
    pub(crate) fn from_name(name: &str) -> Option<Op> {
        match name {
            "^" => Some(Op::Binary(BinaryOp::Pow)),
            _ => Op::ALL.into_iter().find(|op| op.name() == name),
        }
    }

    /// The operator's position in [`Op::ALL`]: its key in the total order of nodes and in
    /// the structural hash.
    fn code(self) -> u64 {
        match self {
            Op::Binary(op) => op as u64,
            Op::Unary(op) => BinaryOp::ALL.len() as u64 + op as u64,
        }
    }
}

impl From<UnaryOp> for Op {
    fn from(op: UnaryOp) -> Op {
        Op::Unary(op)
    }
}

impl From<BinaryOp> for Op {
    fn from(op: BinaryOp) -> Op {
        Op::Binary(op)
    }
}

/// One node of a formula. Constants compare and hash by their bit pattern, so `0` and
/// `-0` are different nodes (they can give different results, e.g. under `pow`).
#[derive(Clone, Copy, Debug)]
pub enum Node {
    /// A numeric constant (always finite, so that it can be written as formula text).
    Const(f64),
    /// A page statistic.
    Var(Terminal),
    /// A unary operator applied to the preceding subtree.
    Unary(UnaryOp),
    /// A binary operator applied to the two preceding subtrees.
    Binary(BinaryOp),
}

impl Node {
    /// Number of children: 0 for leaves, else the operator's arity.
    pub fn arity(&self) -> usize {
        self.op().map_or(0, Op::arity)
    }

    /// The operator of an inner node; `None` for a leaf.
    pub(crate) fn op(&self) -> Option<Op> {
        match *self {
            Node::Unary(op) => Some(Op::Unary(op)),
            Node::Binary(op) => Some(Op::Binary(op)),
            Node::Const(_) | Node::Var(_) => None,
        }
    }

    /// A key that orders nodes totally (constants by value, then by bits).
    fn order_key(&self) -> (u8, u64) {
        match *self {
            Node::Const(c) => (0, total_order_bits(c)),
            Node::Var(t) => (1, t as u64),
            Node::Unary(op) => (2, Op::Unary(op).code()),
            Node::Binary(op) => (2, Op::Binary(op).code()),
        }
    }
}

impl From<Op> for Node {
    fn from(op: Op) -> Node {
        match op {
            Op::Unary(op) => Node::Unary(op),
            Op::Binary(op) => Node::Binary(op),
        }
    }
}

/// A node as [`Formula::fold`] hands it over: an operator comes with its operands'
/// results in place of its operands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Visit<T> {
    /// A constant.
    Const(f64),
    /// A terminal.
    Var(Terminal),
    /// A unary operator and its operand's result.
    Unary(UnaryOp, T),
    /// A binary operator and its operands' results, first operand first.
    Binary(BinaryOp, T, T),
}

/// Maps an f64 to a u64 whose unsigned order is the float's total order.
fn total_order_bits(x: f64) -> u64 {
    let bits = x.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

impl PartialEq for Node {
    fn eq(&self, other: &Node) -> bool {
        self.order_key() == other.order_key()
    }
}

impl Eq for Node {}

impl Hash for Node {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.order_key().hash(state)
    }
}

impl PartialOrd for Node {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Node {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.order_key().cmp(&other.order_key())
    }
}

/// Why a sequence of nodes is not a formula.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShapeError {
    /// No nodes at all.
    #[error("a formula needs at least one node")]
    Empty,
    /// An operator lacks operands.
    #[error("node {index} (`{op}`) needs {arity} operand(s) but only {available} precede it")]
    MissingOperand {
        /// Position of the operator in the postfix sequence.
        index: usize,
        /// The operator's name.
        op: &'static str,
        /// Operands it needs.
        arity: usize,
        /// Complete subtrees before it.
        available: usize,
    },
    /// More than one tree remains at the end.
    #[error("the nodes form {roots} separate trees, not one")]
    SeveralRoots {
        /// Number of complete trees.
        roots: usize,
    },
    /// A constant is NaN.
    #[error("node {index} is a NaN constant")]
    NanConstant {
        /// Position of the constant.
        index: usize,
    },
    /// A constant is infinite: formula text cannot hold it, so the formula would not
    /// print as text that parses back.
    #[error("node {index} is an infinite constant; constants must be finite")]
    InfiniteConstant {
        /// Position of the constant.
        index: usize,
    },
}

/// A formula: a tree stored flat in postfix order (children before parents).
///
/// **Invariant:** the nodes always form exactly one well-shaped tree and every constant is
/// finite; every constructor checks it.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Formula {
    nodes: Vec<Node>,
}

impl Formula {
    /// Builds a formula from postfix nodes, checking that they form one tree.
    pub fn from_postfix(nodes: Vec<Node>) -> Result<Formula, ShapeError> {
        if nodes.is_empty() {
            return Err(ShapeError::Empty);
        }
        let mut depth = 0usize;
        for (index, node) in nodes.iter().enumerate() {
            if let Node::Const(c) = node {
                if c.is_nan() {
                    return Err(ShapeError::NanConstant { index });
                }
                if c.is_infinite() {
                    return Err(ShapeError::InfiniteConstant { index });
                }
            }
            if let Some(op) = node.op() {
                if depth < op.arity() {
                    return Err(ShapeError::MissingOperand {
                        index,
                        op: op.name(),
                        arity: op.arity(),
                        available: depth,
                    });
                }
            }
            depth = depth - node.arity() + 1;
        }
        if depth != 1 {
            return Err(ShapeError::SeveralRoots { roots: depth });
        }
        Ok(Formula { nodes })
    }

    /// A formula of one constant. NaN becomes 0, as the closure would make it, and ±inf
    /// becomes ±[`f64::MAX`], the largest magnitude formula text can hold (constants are
    /// always finite, so every formula prints as text that parses back).
    pub fn constant(value: f64) -> Formula {
        let value = if value.is_nan() {
            0.0
        } else {
            value.clamp(f64::MIN, f64::MAX)
        };
        Formula {
            nodes: vec![Node::Const(value)],
        }
    }

    /// A formula of one terminal.
    pub fn var(terminal: Terminal) -> Formula {
        Formula {
            nodes: vec![Node::Var(terminal)],
        }
    }

    /// The unary operator `op` applied to `a`.
    pub fn unary(op: UnaryOp, a: &Formula) -> Formula {
        let mut nodes = Vec::with_capacity(a.len() + 1);
        nodes.extend_from_slice(&a.nodes);
        nodes.push(Node::Unary(op));
        Formula { nodes }
    }

    /// The binary operator `op` applied to `a` and `b`.
    pub fn binary(op: BinaryOp, a: &Formula, b: &Formula) -> Formula {
        let mut nodes = Vec::with_capacity(a.len() + b.len() + 1);
        nodes.extend_from_slice(&a.nodes);
        nodes.extend_from_slice(&b.nodes);
        nodes.push(Node::Binary(op));
        Formula { nodes }
    }

    /// Folds the tree bottom-up in one forward pass over the postfix nodes, without
    /// recursion: `visit` gets every node, children first, with its operands' results in
    /// place of its operands, and the result for the root is returned. Every walk over a
    /// formula (evaluation, printing, simplification, compilation, export) is this fold.
    ///
    /// ```
    /// use freshgp_formula::formula::{Formula, Visit};
    ///
    /// let f: Formula = "(t + n) * log(X)".parse().unwrap();
    /// let leaves = f.fold(|node| match node {
    ///     Visit::Const(_) | Visit::Var(_) => 1,
    ///     Visit::Unary(_, a) => a,
    ///     Visit::Binary(_, a, b) => a + b,
    /// });
    /// assert_eq!(leaves, 3);
    /// ```
    pub fn fold<T>(&self, mut visit: impl FnMut(Visit<T>) -> T) -> T {
        self.fold_slots(|_, node| visit(node))
    }

    /// [`Formula::fold`] that also tells `visit` the slot its result takes on the value
    /// stack (the number of results pending below it), which is the register a
    /// stack-machine compilation writes it to.
    pub(crate) fn fold_slots<T>(&self, mut visit: impl FnMut(usize, Visit<T>) -> T) -> T {
        let mut stack: Vec<T> = Vec::with_capacity(self.stack_depth());
        for node in &self.nodes {
            let result = match *node {
                Node::Const(c) => visit(stack.len(), Visit::Const(c)),
                Node::Var(t) => visit(stack.len(), Visit::Var(t)),
                Node::Unary(op) => {
                    let a = pop_operand(&mut stack);
                    visit(stack.len(), Visit::Unary(op, a))
                }
                Node::Binary(op) => {
                    let b = pop_operand(&mut stack);
                    let a = pop_operand(&mut stack);
                    visit(stack.len(), Visit::Binary(op, a, b))
                }
            };
            stack.push(result);
        }
        pop_operand(&mut stack)
    }

    /// The nodes, in postfix order.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Always false: a formula has at least one node.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Index of the root node (the last one).
    pub fn root(&self) -> usize {
        self.nodes.len() - 1
    }

    /// First index of the subtree whose root is node `i`: the subtree is `start..=i`.
    ///
    /// # Panics
    /// If `i` is out of range.
    pub(crate) fn subtree_start(&self, i: usize) -> usize {
        subtree_start(&self.nodes, i)
    }

    /// The range of node indices of the subtree whose root is node `i`.
    pub fn subtree(&self, i: usize) -> Range<usize> {
        self.subtree_start(i)..i + 1
    }

    /// The subtree rooted at node `i`, as a formula of its own.
    pub fn subformula(&self, i: usize) -> Formula {
        Formula {
            nodes: self.nodes[self.subtree(i)].to_vec(),
        }
    }

    /// Root indices of the children of node `i`, first operand first.
    pub fn children(&self, i: usize) -> Vec<usize> {
        match self.nodes[i] {
            Node::Const(_) | Node::Var(_) => vec![],
            Node::Unary(_) => vec![i - 1],
            Node::Binary(_) => {
                let right = i - 1;
                let left = self.subtree_start(right) - 1;
                vec![left, right]
            }
        }
    }

    /// For every node, the size of the subtree it roots, written into `sizes`.
    pub fn subtree_sizes_into(&self, sizes: &mut Vec<usize>) {
        sizes.clear();
        self.fold(|node| {
            let size = match node {
                Visit::Const(_) | Visit::Var(_) => 1,
                Visit::Unary(_, a) => 1 + a,
                Visit::Binary(_, a, b) => 1 + a + b,
            };
            sizes.push(size);
            size
        });
    }

    /// For every node, its depth below the root (the root has depth 0).
    pub fn node_depths(&self) -> Vec<usize> {
        let mut depths = vec![0; self.nodes.len()];
        // Walk from the root down: a node's children sit just before it.
        let mut stack = vec![(self.root(), 0usize)];
        while let Some((i, d)) = stack.pop() {
            depths[i] = d;
            for c in self.children(i) {
                stack.push((c, d + 1));
            }
        }
        depths
    }

    /// Height of the tree: a single leaf has depth 0, `a + b` has depth 1.
    pub fn depth(&self) -> usize {
        self.fold(|node: Visit<usize>| match node {
            Visit::Const(_) | Visit::Var(_) => 0,
            Visit::Unary(_, a) => 1 + a,
            Visit::Binary(_, a, b) => 1 + a.max(b),
        })
    }

    /// The largest number of values a postfix evaluation holds at once.
    pub(crate) fn stack_depth(&self) -> usize {
        let mut depth = 0usize;
        let mut max = 0usize;
        for node in &self.nodes {
            depth = depth - node.arity() + 1;
            max = max.max(depth);
        }
        max
    }

    /// Replaces the subtree rooted at node `i` by `with`.
    ///
    /// # Panics
    /// If `with` is not one well-shaped tree of finite constants (take it from another
    /// formula's [`Formula::subtree`]).
    pub fn replace_subtree(&self, i: usize, with: &[Node]) -> Formula {
        let range = self.subtree(i);
        let mut nodes = Vec::with_capacity(self.len() - range.len() + with.len());
        nodes.extend_from_slice(&self.nodes[..range.start]);
        nodes.extend_from_slice(with);
        nodes.extend_from_slice(&self.nodes[range.end..]);
        // Invariant: `with` is one complete tree (the documented precondition), and a
        // complete subtree replaced by a complete tree leaves one tree.
        Formula::from_postfix(nodes).expect("invariant: a subtree replaced by a tree is a tree")
    }

    /// The terminals the formula reads, each once, in column order.
    pub fn terminals(&self) -> Vec<Terminal> {
        let mut used = [false; Terminal::COUNT];
        for node in &self.nodes {
            if let Node::Var(t) = node {
                used[t.index()] = true;
            }
        }
        Terminal::ALL
            .into_iter()
            .filter(|t| used[t.index()])
            .collect()
    }

    /// A 64-bit hash of the node sequence, stable across runs, platforms and Rust
    /// versions. Equal formulas have equal hashes; apply it to [`Formula::canonical`]
    /// to recognise formulas that differ only by commuted operands or foldable parts.
    pub fn structural_hash(&self) -> u64 {
        let mut h: u64 = 0x9E37_79B9_7F4A_7C15 ^ self.nodes.len() as u64;
        for node in &self.nodes {
            let (tag, payload) = node.order_key();
            h = mix64(h ^ (tag as u64).wrapping_mul(0xA24B_AED4_963E_E407));
            h = mix64(h ^ payload);
        }
        h
    }
}

/// First index of the subtree whose root is `nodes[i]`, in a postfix sequence that holds
/// that whole subtree.
///
/// # Panics
/// If `i` is out of range, or the subtree is incomplete.
pub(crate) fn subtree_start(nodes: &[Node], i: usize) -> usize {
    let mut pending = 1usize;
    let mut j = i + 1;
    while pending > 0 {
        j -= 1;
        pending = pending - 1 + nodes[j].arity();
    }
    j
}

/// The next operand of a postfix walk.
fn pop_operand<T>(stack: &mut Vec<T>) -> T {
    // Invariant: a `Formula` is one well-shaped tree (every constructor checks it), so
    // every operator finds its operands on the stack and exactly one result remains.
    stack
        .pop()
        .expect("invariant: a formula is one well-shaped tree")
}

impl fmt::Debug for Formula {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Formula({self})")
    }
}

impl Serialize for Formula {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Formula {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Formula, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl std::str::FromStr for Formula {
    type Err = ParseError;

    /// Parses with every terminal and operator allowed (the `predictive` grammar).
    fn from_str(s: &str) -> Result<Formula, ParseError> {
        Formula::parse(s, &Grammar::every())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(s: &str) -> Formula {
        s.parse().unwrap()
    }

    #[test]
    fn subtrees_are_contiguous_slices() {
        let x = f("(t + n) * log(X)");
        // postfix: t n + X log *
        assert_eq!(x.subtree(2), 0..3);
        assert_eq!(x.subtree(4), 3..5);
        assert_eq!(x.subtree(5), 0..6);
        assert_eq!(x.children(5), vec![2, 4]);
        assert_eq!(x.subformula(4), f("log(X)"));
    }

    #[test]
    fn sizes_depths_and_heights() {
        let x = f("(t + n) * log(X)");
        let mut sizes = vec![];
        x.subtree_sizes_into(&mut sizes);
        assert_eq!(sizes, vec![1, 1, 3, 1, 2, 6]);
        assert_eq!(x.depth(), 2);
        assert_eq!(x.node_depths(), vec![2, 2, 1, 2, 1, 0]);
        assert_eq!(f("t").depth(), 0);
        assert_eq!(x.stack_depth(), 2);
    }

    #[test]
    fn fold_hands_over_operand_results_without_recursion() {
        let x = f("(t + n) * log(X)");
        let postfix = x.fold(|node| match node {
            Visit::Const(c) => c.to_string(),
            Visit::Var(t) => t.name().to_string(),
            Visit::Unary(op, a) => format!("{a} {}", op.name()),
            Visit::Binary(op, a, b) => format!("{a} {b} {}", op.name()),
        });
        assert_eq!(postfix, "t n + X log *");
        // A chain far deeper than any recursion could take.
        let mut nodes = vec![Node::Var(Terminal::T)];
        nodes.extend(std::iter::repeat_n(Node::Unary(UnaryOp::Exp), 200_000));
        let deep = Formula::from_postfix(nodes).unwrap();
        assert_eq!(deep.depth(), 200_000);
        assert_eq!(deep.simplify(Closure::Paper).len(), 200_001);
    }

    #[test]
    fn replace_subtree_is_a_splice() {
        let x = f("(t + n) * log(X)");
        let y = x.replace_subtree(2, f("CG").nodes());
        assert_eq!(y, f("CG * log(X)"));
    }

    #[test]
    fn shape_errors() {
        assert_eq!(Formula::from_postfix(vec![]), Err(ShapeError::Empty));
        assert!(matches!(
            Formula::from_postfix(vec![Node::Var(Terminal::T), Node::Binary(BinaryOp::Add)]),
            Err(ShapeError::MissingOperand { index: 1, .. })
        ));
        assert_eq!(
            Formula::from_postfix(vec![Node::Var(Terminal::T), Node::Var(Terminal::N)]),
            Err(ShapeError::SeveralRoots { roots: 2 })
        );
        assert!(Formula::from_postfix(vec![Node::Const(f64::NAN)]).is_err());
        assert_eq!(
            Formula::from_postfix(vec![
                Node::Var(Terminal::T),
                Node::Const(f64::INFINITY),
                Node::Binary(BinaryOp::Mul)
            ]),
            Err(ShapeError::InfiniteConstant { index: 1 })
        );
    }

    #[test]
    fn constants_compare_by_bits() {
        assert_ne!(Formula::constant(0.0), Formula::constant(-0.0));
        assert_eq!(Formula::constant(f64::NAN), Formula::constant(0.0));
        // Infinite constants would print as `inf`, which is not formula text.
        assert_eq!(
            Formula::constant(f64::INFINITY),
            Formula::constant(f64::MAX)
        );
        assert_eq!(
            Formula::constant(f64::NEG_INFINITY)
                .to_string()
                .parse::<Formula>()
                .unwrap(),
            Formula::constant(f64::MIN)
        );
    }

    #[test]
    fn structural_hash_is_stable() {
        assert_eq!(f("t * X").structural_hash(), f("t*X").structural_hash());
        assert_ne!(f("t * X").structural_hash(), f("X * t").structural_hash());
        // Pinned so a change to the hash (which would invalidate caches on disk) is noticed.
        assert_eq!(f("t").structural_hash(), f("t").structural_hash());
    }
}
