//! Simplification and canonical form.
//!
//! [`Formula::simplify`] folds constant subtrees and applies only identities that give the
//! same value, bit for bit, for every input under the closure
//! (docs/src/reference/formulas.md#closure). So `x / x` stays (it is 0, not 1, when `x` is
//! 0), `x * 0` stays (it is `-0` for negative `x`), `log(exp(x))` stays (it is `inf` when
//! `exp` overflows); but `x * 1`, `x ^ 0`, `x - x` (0 even for ±inf, whose NaN the closure
//! makes 0) and `--x` go. A constant subtree is folded only when its value is finite, so
//! every printed formula parses back.
//!
//! [`Formula::canonical`] also orders the operands of `+` and `*` (exact in IEEE
//! arithmetic), so formulas that differ only by simplification or by commuted operands
//! get equal canonical forms and equal [`Formula::structural_hash`]es; the GP engine
//! caches fitness on it.
//!
//! The identities rely on one invariant of terminal values: a terminal is never `-0.0`.
//!
//! ```
//! use freshgp_formula::formula::{Closure, Formula};
//!
//! // `log(100) * 0` folds to 0, and `t + 0` is `t` (a terminal is never -0); `X / X`
//! // stays (it is 0 when X is 0).
//! let f: Formula = "(t * 1) + log(100) * 0 + (X / X)".parse().unwrap();
//! assert_eq!(f.simplify(Closure::Paper).to_string(), "t + X / X");
//! let g: Formula = "X / X + t".parse().unwrap();
//! assert_eq!(f.canonical(Closure::Paper), g.canonical(Closure::Paper));
//! ```

use super::{subtree_start, BinaryOp, Closure, Formula, Node, UnaryOp, Visit};

/// Whether the subtree `nodes` (a complete subtree, root last) can never evaluate to -0.
fn never_negative_zero(nodes: &[Node]) -> bool {
    let root = nodes.len() - 1;
    match nodes[root] {
        Node::Var(_) => true,
        Node::Const(c) => !(c == 0.0 && c.is_sign_negative()),
        Node::Unary(UnaryOp::Exp | UnaryOp::Log) => true,
        Node::Binary(BinaryOp::Add) => {
            let split = subtree_start(nodes, root - 1);
            never_negative_zero(&nodes[..split]) || never_negative_zero(&nodes[split..root])
        }
        Node::Binary(BinaryOp::Sub) => {
            let split = subtree_start(nodes, root - 1);
            never_negative_zero(&nodes[..split])
        }
        Node::Unary(_) | Node::Binary(_) => false,
    }
}

fn single_const(nodes: &[Node]) -> Option<f64> {
    match nodes {
        [Node::Const(c)] => Some(*c),
        _ => None,
    }
}

fn is_const(nodes: &[Node], value: f64) -> bool {
    single_const(nodes).is_some_and(|c| c.to_bits() == value.to_bits())
}

struct Rewriter {
    closure: Closure,
    order_operands: bool,
    out: Vec<Node>,
}

impl Rewriter {
    /// Reduces the unary node `op` whose operand occupies `out[a..]`.
    fn unary(&mut self, a: usize, op: UnaryOp) {
        if let Some(c) = single_const(&self.out[a..]) {
            let v = self.closure.unary(op, c);
            if v.is_finite() {
                self.out.truncate(a);
                self.out.push(Node::Const(v));
                return;
            }
        }
        if op == UnaryOp::Neg && matches!(self.out.last(), Some(Node::Unary(UnaryOp::Neg))) {
            // --x = x
            self.out.pop();
            return;
        }
        self.out.push(Node::Unary(op));
    }

    /// Reduces the binary node `op` whose operands occupy `out[a..b]` and `out[b..]`.
    fn binary(&mut self, a: usize, mut b: usize, op: BinaryOp) {
        // In canonical form the operands of `+` and `*` are ordered *before* any rule
        // looks at them, so every rule sees the same pair whichever way round they were
        // written (`-a + -b` and `-b + -a` once became `-a - b` and `-b - a`).
        if self.order_operands && op.is_commutative() && self.out[b..] < self.out[a..b] {
            let left_len = b - a;
            self.out[a..].rotate_left(left_len);
            b = self.out.len() - left_len;
        }
        let out = &self.out;
        if let (Some(x), Some(y)) = (single_const(&out[a..b]), single_const(&out[b..])) {
            let v = self.closure.binary(op, x, y);
            if v.is_finite() {
                self.out.truncate(a);
                self.out.push(Node::Const(v));
                return;
            }
        }
        self.binary_identities(a, b, op);
    }

    /// Applies the first exact identity that matches the binary node `op` over
    /// `out[a..b]` and `out[b..]`, or keeps the node.
    fn binary_identities(&mut self, a: usize, b: usize, op: BinaryOp) {
        let out = &self.out;
        let left = &out[a..b];
        let right = &out[b..];
        let left_neg = matches!(left.last(), Some(Node::Unary(UnaryOp::Neg)));
        let right_neg = matches!(right.last(), Some(Node::Unary(UnaryOp::Neg)));
        match op {
            // x * 1 = x, x / 1 = x, x ^ 1 = x, x - 0 = x, x + -0 = x
            BinaryOp::Mul | BinaryOp::Div | BinaryOp::Pow if is_const(right, 1.0) => {
                self.keep_left(b)
            }
            BinaryOp::Sub | BinaryOp::Add
                if is_const(right, if op == BinaryOp::Sub { 0.0 } else { -0.0 }) =>
            {
                self.keep_left(b)
            }
            // 1 * x = x, -0 + x = x
            BinaryOp::Mul if is_const(left, 1.0) => self.keep_right(a, b),
            BinaryOp::Add if is_const(left, -0.0) => self.keep_right(a, b),
            // x + 0 = x when x is never -0
            BinaryOp::Add if is_const(right, 0.0) && never_negative_zero(left) => self.keep_left(b),
            BinaryOp::Add if is_const(left, 0.0) && never_negative_zero(right) => {
                self.keep_right(a, b)
            }
            // x ^ 0 = 1 and 1 ^ x = 1, for every x
            BinaryOp::Pow
                if is_const(right, 0.0) || is_const(right, -0.0) || is_const(left, 1.0) =>
            {
                self.out.truncate(a);
                self.out.push(Node::Const(1.0));
            }
            // x - x = 0 (NaN from inf - inf is 0 too)
            BinaryOp::Sub if left == right => {
                self.out.truncate(a);
                self.out.push(Node::Const(0.0));
            }
            // x * -1 = -x
            BinaryOp::Mul if is_const(right, -1.0) => {
                self.out.truncate(b);
                self.unary(a, UnaryOp::Neg);
            }
            BinaryOp::Mul if is_const(left, -1.0) => {
                self.out.remove(a);
                self.unary(a, UnaryOp::Neg);
            }
            // a - -b = a + b, a + -b = a - b
            BinaryOp::Sub | BinaryOp::Add if right_neg => {
                self.out.pop();
                let flipped = if op == BinaryOp::Sub {
                    BinaryOp::Add
                } else {
                    BinaryOp::Sub
                };
                self.binary(a, b, flipped);
            }
            // -a + b = b - a
            BinaryOp::Add if left_neg => {
                self.out.remove(b - 1);
                self.out[a..].rotate_left(b - 1 - a);
                let new_b = self.out.len() - (b - 1 - a);
                self.binary(a, new_b, BinaryOp::Sub);
            }
            // -a * -b = a * b
            BinaryOp::Mul | BinaryOp::Div if left_neg && right_neg => {
                self.out.pop();
                self.out.remove(b - 1);
                self.binary(a, b - 1, op);
            }
            _ => self.out.push(Node::Binary(op)),
        }
    }

    fn keep_left(&mut self, b: usize) {
        self.out.truncate(b);
    }

    fn keep_right(&mut self, a: usize, b: usize) {
        self.out.drain(a..b);
    }

    /// Rewrites `formula` bottom-up into `out`; each subtree's result is its start index
    /// in `out` (it occupies `out[start..]` until its parent is reduced).
    fn run(mut self, formula: &Formula) -> Formula {
        formula.fold(|node| {
            let start = self.out.len();
            match node {
                Visit::Const(c) => self.out.push(Node::Const(c)),
                Visit::Var(t) => self.out.push(Node::Var(t)),
                Visit::Unary(op, a) => {
                    self.unary(a, op);
                    return a;
                }
                Visit::Binary(op, a, b) => {
                    self.binary(a, b, op);
                    return a;
                }
            }
            start
        });
        // Invariant: every rewrite replaces a complete subtree by a complete subtree of
        // finite constants, so `out` is one tree.
        Formula::from_postfix(self.out).expect("invariant: rewrites keep the shape")
    }
}

impl Formula {
    /// Folds constants and removes operations that cannot change the value.
    pub fn simplify(&self, closure: Closure) -> Formula {
        Rewriter {
            closure,
            order_operands: false,
            out: Vec::with_capacity(self.len()),
        }
        .run(self)
    }

    /// The simplified formula with the operands of `+` and `*` in a fixed order: equal for
    /// formulas that always compute the same values by these rules.
    pub fn canonical(&self, closure: Closure) -> Formula {
        Rewriter {
            closure,
            order_operands: true,
            out: Vec::with_capacity(self.len()),
        }
        .run(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> String {
        text.parse::<Formula>()
            .unwrap()
            .simplify(Closure::Paper)
            .to_string()
    }

    fn c(text: &str) -> Formula {
        text.parse::<Formula>().unwrap().canonical(Closure::Paper)
    }

    #[test]
    fn folds_constants() {
        assert_eq!(s("(log(100) + 0.01) * t * X"), "4.615170185988092 * t * X");
        assert_eq!(s("1 + 2 * 3 - t"), "7 - t");
        assert_eq!(s("t / 0"), "t / 0");
        assert_eq!(s("1 / 0"), "0");
        assert_eq!(s("log(-3)"), "0");
        assert_eq!(s("exp(1000)"), "exp(1000)");
        assert_eq!(s("-(2)"), "-2");
    }

    #[test]
    fn applies_exact_identities() {
        assert_eq!(s("t * 1"), "t");
        assert_eq!(s("1 * t"), "t");
        assert_eq!(s("t / 1"), "t");
        assert_eq!(s("t ^ 1"), "t");
        assert_eq!(s("t ^ 0"), "1");
        assert_eq!(s("1 ^ t"), "1");
        assert_eq!(s("t - 0"), "t");
        assert_eq!(s("t + 0"), "t");
        assert_eq!(s("0 + exp(t)"), "exp(t)");
        assert_eq!(s("log(t) - log(t)"), "0");
        assert_eq!(s("--t"), "t");
        assert_eq!(s("t * -1"), "-t");
        assert_eq!(s("t - -n"), "t + n");
        assert_eq!(s("t + -n"), "t - n");
        assert_eq!(s("-t + n"), "n - t");
        assert_eq!(s("-t * -n"), "t * n");
    }

    #[test]
    fn keeps_what_the_closure_makes_different() {
        assert_eq!(s("X / X"), "X / X");
        assert_eq!(s("t * 0"), "t * 0");
        assert_eq!(s("log(exp(t))"), "log(exp(t))");
        assert_eq!(s("t * n / n"), "t * n / n");
        // t * n may be -0 (say t = -1e-200, n = 1e-200), and -0 + 0 is +0.
        assert_eq!(s("(t * n) + 0"), "t * n + 0");
    }

    #[test]
    fn canonical_form_recognises_equal_formulas() {
        assert_eq!(c("t * X"), c("X * t"));
        assert_eq!(c("(t + n) * log(X)"), c("log(X) * (n + t)"));
        assert_eq!(c("1 * (t + 0)"), c("t"));
        assert_ne!(c("t - X"), c("X - t"));
        // Both operands negated: the rule `a + -b = a - b` must see them in one order.
        assert_eq!(c("-t + -n"), c("-n + -t"));
        assert_eq!(c("-t * -n + -X"), c("-X + -n * -t"));
        assert_eq!(
            c("t * X").structural_hash(),
            c("X * t * 1").structural_hash()
        );
        let once = c("exp(CG * (1 + log(t))) + X * n");
        assert_eq!(once.canonical(Closure::Paper), once);
    }
}
