//! Rank equivalence (docs/src/reference/formulas.md#rank-equivalence): a crawl ranks pages
//! by their scores, so a formula and any strictly increasing function of it choose the
//! same pages. [`Formula::rank_form`] strips such functions from the root: `exp(f)`,
//! `f + c`, `c · f` with `c > 0`, `f ^ c` with `c > 0` over `f >= 0`, `log(f)` over `f > 0`
//! all rank as `f`; a decreasing one (`c − f`, `−f`, `c / f` over `f > 0`, ...) ranks as
//! `−f`. What a subtree can be is read off the terminals' ranges ([`Terminal::range`](super::Terminal::range)) by
//! interval arithmetic under the closure ([`Interval`]).
//!
//! In floating point an increasing function is only non-decreasing: `exp` of two large
//! scores may round to the same double. So the rank form *refines* the ranking: two pages
//! the formula orders are ordered alike by the rank form, and two pages the rank form ties
//! are tied by the formula; only pages the formula ties by rounding may be ordered by the
//! rank form (property-tested over random formulas and pages; it assumes that libm's
//! `exp`, `ln` and `pow` are monotone, as glibc's are).
//!
//! ```
//! use freshgp_formula::formula::{Closure, Formula};
//!
//! let f: Formula = "exp(2 * (w * (1 - exp(-MLE * t))) + 3)".parse().unwrap();
//! assert_eq!(f.rank_simplify(Closure::Paper).to_string(), "w * (1 - exp(-MLE * t))");
//! // A decreasing transform leaves a minus sign: 1 / t ranks as -t (t >= 1).
//! let g: Formula = "10 / t".parse().unwrap();
//! assert_eq!(g.rank_form(Closure::Paper).to_string(), "-t");
//! ```

use super::{BinaryOp, Closure, Formula, Node, UnaryOp};

/// The values a subtree may take: every value lies in `lo..=hi` (NaN never: the closure
/// makes it 0). Bounds are those of the computed values: `+ − × ÷` are correctly rounded,
/// hence monotone in each operand, so their corners bound them exactly; the bounds of
/// libm's `exp` and `ln` are widened by one ulp.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    /// The smallest value (may be −∞).
    pub lo: f64,
    /// The largest value (may be +∞).
    pub hi: f64,
}

impl Interval {
    /// Every value.
    pub const ALL: Interval = Interval {
        lo: f64::NEG_INFINITY,
        hi: f64::INFINITY,
    };

    /// `lo..=hi`, widened by one ulp each way (libm's functions may be off by one); any
    /// NaN bound gives [`Interval::ALL`].
    fn widened(lo: f64, hi: f64) -> Interval {
        if lo.is_nan() || hi.is_nan() {
            return Interval::ALL;
        }
        Interval {
            lo: lo.next_down(),
            hi: hi.next_up(),
        }
    }

    /// Exactly `lo..=hi` (for bounds known exactly).
    pub const fn exact(lo: f64, hi: f64) -> Interval {
        Interval { lo, hi }
    }

    /// The smallest interval holding both, and 0 (a NaN made 0 by the closure).
    fn with_zero(self) -> Interval {
        Interval::exact(self.lo.min(0.0), self.hi.max(0.0))
    }

    /// Whether every value is > 0.
    pub fn positive(self) -> bool {
        self.lo > 0.0
    }

    /// Whether every value is >= 0.
    pub fn non_negative(self) -> bool {
        self.lo >= 0.0
    }

    /// The hull of `a op b` over the corners (a NaN corner, such as `0 · ∞` or `∞ − ∞`,
    /// is 0 under the closure).
    fn corners(a: Interval, b: Interval, op: impl Fn(f64, f64) -> f64) -> Interval {
        let values = [
            op(a.lo, b.lo),
            op(a.lo, b.hi),
            op(a.hi, b.lo),
            op(a.hi, b.hi),
        ];
        let nan = values.iter().any(|v| v.is_nan());
        let finite = values.iter().filter(|v| !v.is_nan());
        let lo = finite.clone().fold(f64::INFINITY, |m, &v| m.min(v));
        let hi = finite.fold(f64::NEG_INFINITY, |m, &v| m.max(v));
        let hull = Interval::exact(lo, hi);
        if nan {
            hull.with_zero()
        } else {
            hull
        }
    }

    /// The values of `op(a)` under `closure`.
    fn unary(op: UnaryOp, closure: Closure, a: Interval) -> Interval {
        match (op, closure) {
            (UnaryOp::Neg, _) => Interval::exact(-a.hi, -a.lo),
            (UnaryOp::Exp, _) => {
                // exp is monotone and exact at 0 (exp(0) = 1): it keeps the sign of x
                // relative to 0 as its value's relative to 1.
                let w = Interval::widened(a.lo.exp(), a.hi.exp()).clamp_low(0.0);
                let lo = if a.lo >= 0.0 { w.lo.max(1.0) } else { w.lo };
                let hi = if a.hi <= 0.0 { w.hi.min(1.0) } else { w.hi };
                Interval::exact(lo, hi)
            }
            (UnaryOp::Log, Closure::Paper) => {
                if a.hi <= 0.0 {
                    Interval::exact(0.0, 0.0)
                } else if a.lo > 0.0 {
                    // ln is exact at 1 (ln 1 = 0).
                    let w = Interval::widened(a.lo.ln(), a.hi.ln());
                    let lo = if a.lo >= 1.0 { w.lo.max(0.0) } else { w.lo };
                    let hi = if a.hi <= 1.0 { w.hi.min(0.0) } else { w.hi };
                    Interval::exact(lo, hi)
                } else {
                    // Values in (0, hi] give (-inf, ln hi]; those <= 0 give 0.
                    Interval::widened(f64::NEG_INFINITY, a.hi.ln()).with_zero()
                }
            }
            (UnaryOp::Log, Closure::Reference) => {
                let big = a.lo.abs().max(a.hi.abs());
                if big <= 1.0 {
                    Interval::exact(0.0, 0.0)
                } else {
                    Interval::widened(0.0, big.ln()).clamp_low(0.0)
                }
            }
        }
    }

    /// The values of `a op b` under `closure`.
    fn binary(op: BinaryOp, closure: Closure, a: Interval, b: Interval) -> Interval {
        match op {
            BinaryOp::Add => Interval::corners(a, b, |x, y| x + y),
            BinaryOp::Sub => Interval::corners(a, b, |x, y| x - y),
            BinaryOp::Mul => Interval::corners(a, b, |x, y| x * y),
            BinaryOp::Div => match closure {
                // x / 0 = 0: only a divisor of one sign bounds the quotient.
                Closure::Paper if b.lo > 0.0 || b.hi < 0.0 => Interval::corners(a, b, |x, y| x / y),
                Closure::Reference if b.lo >= 1e-6 || b.hi <= -1e-6 => {
                    Interval::corners(a, b, |x, y| x / y)
                }
                _ => Interval::ALL,
            },
            BinaryOp::Pow if a.positive() || (a.non_negative() && b.non_negative()) => {
                // A base > 0 gives a value >= 0 (or 1 for an exponent of 0); so does a base
                // that may be -0 with an exponent >= 0 (±0). A -0 base with a negative
                // exponent may give -inf.
                Interval::exact(0.0, f64::INFINITY)
            }
            BinaryOp::Pow => Interval::ALL,
        }
    }

    /// The interval with its lower bound raised to at least `floor` (what a function's
    /// range guarantees, such as `exp >= 0`).
    fn clamp_low(self, floor: f64) -> Interval {
        Interval::exact(self.lo.max(floor), self.hi.max(floor))
    }
}

/// What the root of a formula is, for stripping: a monotone function of one operand (the
/// other, if any, constant), increasing or decreasing.
enum Monotone {
    /// The root is an increasing function of the subtree at this index.
    Increasing(usize),
    /// The root is a decreasing function of the subtree at this index.
    Decreasing(usize),
}

impl Formula {
    /// The interval of every subtree's values, by node index.
    pub fn intervals(&self, closure: Closure) -> Vec<Interval> {
        let mut out: Vec<Interval> = Vec::with_capacity(self.len());
        let mut stack: Vec<Interval> = Vec::with_capacity(self.stack_depth());
        for node in self.nodes() {
            let v = match *node {
                Node::Const(c) => Interval::exact(c, c),
                Node::Var(t) => t.range(),
                Node::Unary(op) => {
                    let a = stack.pop().unwrap_or(Interval::ALL);
                    Interval::unary(op, closure, a)
                }
                Node::Binary(op) => {
                    let b = stack.pop().unwrap_or(Interval::ALL);
                    let a = stack.pop().unwrap_or(Interval::ALL);
                    Interval::binary(op, closure, a, b)
                }
            };
            stack.push(v);
            out.push(v);
        }
        out
    }

    /// The shortest formula this module's rules find that ranks pages as this one does
    /// (see the module docs): the canonical form with every strictly monotone function
    /// stripped from the root, a decreasing one leaving a minus sign. Formulas of equal
    /// rank form rank alike: the GP engine caches fitness on it.
    pub fn rank_form(&self, closure: Closure) -> Formula {
        self.stripped(closure, true)
    }

    /// The same as [`Formula::rank_form`] over the simplified formula, its operands in
    /// the order written: what reports print.
    ///
    /// ```
    /// use freshgp_formula::formula::{Closure, Formula};
    ///
    /// // w may be 0, so log(w * ...) would keep its log; log(1 + w * ...) ranks as w * ...
    /// let f: Formula = "2 * log(1 + w * (1 - exp(-MLE * t)))".parse().unwrap();
    /// assert_eq!(f.rank_simplify(Closure::Paper).to_string(), "w * (1 - exp(-MLE * t))");
    /// ```
    pub fn rank_simplify(&self, closure: Closure) -> Formula {
        self.stripped(closure, false)
    }

    /// The form a search keys `self` on (evaluates, caches, compares): its rank form when
    /// only rankings count (`ranks_only`), else its canonical form.
    pub fn search_key(&self, closure: Closure, ranks_only: bool) -> Formula {
        if ranks_only {
            self.rank_form(closure)
        } else {
            self.canonical(closure)
        }
    }

    /// The form a search reports `self` as: [`Formula::rank_simplify`] when only rankings
    /// count, else [`Formula::simplify`].
    pub fn reported(&self, closure: Closure, ranks_only: bool) -> Formula {
        if ranks_only {
            self.rank_simplify(closure)
        } else {
            self.simplify(closure)
        }
    }

    /// The simplified (`canonical`: canonical) formula with the monotone functions of its
    /// root stripped.
    fn stripped(&self, closure: Closure, canonical: bool) -> Formula {
        let tidy = |f: &Formula| {
            if canonical {
                f.canonical(closure)
            } else {
                f.simplify(closure)
            }
        };
        let mut f = tidy(self);
        let mut negated = false;
        loop {
            if let Some(step) = f.monotone_root(closure) {
                let (child, flips) = match step {
                    Monotone::Increasing(c) => (c, false),
                    Monotone::Decreasing(c) => (c, true),
                };
                negated ^= flips;
                f = tidy(&f.subformula(child));
                continue;
            }
            // A sign left over goes into the root where that is exact, which may leave
            // another monotone root to strip.
            match f.absorb_negation(closure).filter(|_| negated) {
                Some(g) => {
                    negated = false;
                    f = tidy(&g);
                }
                None => break,
            }
        }
        if negated {
            f = tidy(&Formula::unary(UnaryOp::Neg, &f));
        }
        f
    }

    /// `−f` with the sign taken into the root, where that is exact: `−(a − b)` is
    /// `b − a`, `−((−a) · b)` is `a · b` (and `/` under the paper closure), `−(−a)` is `a`;
    /// `None` where it is not.
    fn absorb_negation(&self, closure: Closure) -> Option<Formula> {
        let nodes = self.nodes();
        let root = self.root();
        let is_neg = |i: usize| matches!(nodes[i], Node::Unary(UnaryOp::Neg));
        match nodes[root] {
            Node::Unary(UnaryOp::Neg) => return Some(self.subformula(root - 1)),
            Node::Binary(op) => {
                let children = self.children(root);
                let (a, b) = (self.subformula(children[0]), self.subformula(children[1]));
                let sign_passes = match op {
                    BinaryOp::Mul => true,
                    BinaryOp::Div => closure == Closure::Paper,
                    _ => false,
                };
                if op == BinaryOp::Sub {
                    return Some(Formula::binary(BinaryOp::Sub, &b, &a));
                }
                if sign_passes && is_neg(children[0]) {
                    return Some(Formula::binary(op, &a.subformula(a.root() - 1), &b));
                }
                if sign_passes && is_neg(children[1]) {
                    return Some(Formula::binary(op, &a, &b.subformula(b.root() - 1)));
                }
            }
            _ => {}
        }
        None
    }

    /// The root as a strictly monotone function of one subtree, when it is one.
    fn monotone_root(&self, closure: Closure) -> Option<Monotone> {
        let root = self.root();
        let nodes = self.nodes();
        let constant = |i: usize| match nodes[i] {
            Node::Const(c) => Some(c),
            _ => None,
        };
        let ranges = || self.intervals(closure);
        use Monotone::{Decreasing, Increasing};
        match nodes[root] {
            Node::Unary(UnaryOp::Exp) => Some(Increasing(root - 1)),
            Node::Unary(UnaryOp::Neg) => Some(Decreasing(root - 1)),
            Node::Unary(UnaryOp::Log) => {
                let a = ranges()[root - 1];
                // Paper: ln on (0, inf). Reference: 0 on [0, 1], then ln.
                let monotone = match closure {
                    Closure::Paper => a.positive(),
                    Closure::Reference => a.non_negative(),
                };
                monotone.then_some(Increasing(root - 1))
            }
            Node::Binary(op) => {
                let children = self.children(root);
                let (left, right) = (children[0], children[1]);
                match (constant(left), constant(right)) {
                    (None, Some(c)) => right_constant(op, closure, c, left, ranges()[left]),
                    (Some(c), None) => left_constant(op, closure, c, right, ranges()[right]),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

/// `u op c`: monotone in `u` (at index `u`, of values in `range`)?
fn right_constant(
    op: BinaryOp,
    closure: Closure,
    c: f64,
    u: usize,
    range: Interval,
) -> Option<Monotone> {
    use Monotone::{Decreasing, Increasing};
    match op {
        BinaryOp::Add | BinaryOp::Sub => Some(Increasing(u)),
        BinaryOp::Mul if c > 0.0 => Some(Increasing(u)),
        BinaryOp::Mul if c < 0.0 => Some(Decreasing(u)),
        BinaryOp::Div => {
            // Under Reference a divisor below 1e-6 gives ±1e6 whatever u is.
            let usable = match closure {
                Closure::Paper => c != 0.0,
                Closure::Reference => c.abs() >= 1e-6,
            };
            match () {
                _ if usable && c > 0.0 => Some(Increasing(u)),
                _ if usable && c < 0.0 => Some(Decreasing(u)),
                _ => None,
            }
        }
        // u^c over u >= 0: increasing for c > 0; over u > 0, decreasing for c < 0 (a zero
        // could be -0, and (-0)^c = -inf where 0^c = +inf).
        BinaryOp::Pow if range.non_negative() && c > 0.0 => Some(Increasing(u)),
        BinaryOp::Pow if range.positive() && c < 0.0 => Some(Decreasing(u)),
        _ => None,
    }
}

/// `c op u`: monotone in `u` (at index `u`, of values in `range`)?
fn left_constant(
    op: BinaryOp,
    closure: Closure,
    c: f64,
    u: usize,
    range: Interval,
) -> Option<Monotone> {
    use Monotone::{Decreasing, Increasing};
    match op {
        BinaryOp::Add => Some(Increasing(u)),
        BinaryOp::Sub => Some(Decreasing(u)),
        BinaryOp::Mul if c > 0.0 => Some(Increasing(u)),
        BinaryOp::Mul if c < 0.0 => Some(Decreasing(u)),
        // c / u over u of one sign (and away from the Reference closure's band).
        BinaryOp::Div => {
            let away = match closure {
                Closure::Paper => range.positive(),
                Closure::Reference => range.lo >= 1e-6,
            };
            match () {
                _ if away && c > 0.0 => Some(Decreasing(u)),
                _ if away && c < 0.0 => Some(Increasing(u)),
                _ => None,
            }
        }
        // c^u: increasing for c > 1, decreasing for 0 < c < 1.
        BinaryOp::Pow if c > 1.0 && c.is_finite() => Some(Increasing(u)),
        BinaryOp::Pow if c > 0.0 && c < 1.0 => Some(Decreasing(u)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(text: &str) -> String {
        text.parse::<Formula>()
            .unwrap()
            .rank_form(Closure::Paper)
            .to_string()
    }

    #[test]
    fn strips_increasing_functions_of_the_root() {
        assert_eq!(r("exp(t)"), "t");
        assert_eq!(r("3 * (t + X) + 7"), "t + X");
        assert_eq!(r("(t * X) / 4"), "t * X");
        assert_eq!(r("log(MLE * t)"), "t * MLE");
        assert_eq!(r("(w * t) ^ 0.5"), "t * w");
        assert_eq!(r("2 ^ (t - n)"), "t - n");
        assert_eq!(r("exp(log(exp(w * t)))"), "t * w");
    }

    #[test]
    fn a_decreasing_function_leaves_a_minus_sign() {
        assert_eq!(r("1 - exp(-t)"), "t");
        assert_eq!(r("1 - exp(-NAD * t)"), "t * NAD");
        assert_eq!(r("5 - (t - X)"), "X - t");
        assert_eq!(r("5 - t"), "-t");
        assert_eq!(r("-(t * X)"), "-(t * X)");
        assert_eq!(r("10 / tc"), "-tc");
        assert_eq!(r("0.5 ^ t"), "-t");
        assert_eq!(r("(MLE * t) ^ -2"), "-(t * MLE)");
    }

    #[test]
    fn keeps_what_the_ranges_do_not_allow() {
        // X may be 0, where log(X) is 0 > log(0.5): not monotone.
        assert_eq!(r("log(X)"), "log(X)");
        // t - X may be negative: (t - X)^2 is not monotone.
        assert_eq!(r("(t - X) ^ 2"), "(t - X)^2");
        // n may be 0, where 1 / n is 0.
        assert_eq!(r("1 / n"), "1 / n");
        // Neither operand constant.
        assert_eq!(r("t * X"), "t * X");
    }

    #[test]
    fn intervals_follow_the_closure() {
        let f: Formula = "1 - exp(-MLE * t)".parse().unwrap();
        let all = f.intervals(Closure::Paper);
        let root = all[f.root()];
        assert!(
            root.lo <= 0.0 && root.hi >= 1.0 && root.hi < 1.01,
            "{root:?}"
        );
        let g: Formula = "log(X) / n".parse().unwrap();
        assert_eq!(g.intervals(Closure::Paper)[g.root()], Interval::ALL);
    }
}
