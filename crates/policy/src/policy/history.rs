//! Visit histories for the `MLE` terminal (docs/src/reference/terminals.md#mle): Cho &
//! Garcia-Molina's maximum-likelihood change rate under irregular access.
//!
//! A page visited at cycles `v_1 < ... < v_n` (with `v_0 = 0`) has intervals
//! `τ_i = v_i - v_{i-1}`; `z_i = 1` when visit `i` detected a change. Two pseudo-intervals of
//! length 1 are added, one with `z = 1` and one with `z = 0`. The estimate is the unique root
//! `r > 0` of
//!
//! ```text
//! Σ_{z_i = 1} τ_i / (e^{r τ_i} - 1) = Σ_{z_i = 0} τ_i
//! ```
//!
//! The left side depends on the *multiset* of the change-detecting intervals, the right on
//! their complement's sum only. [`Histories`] interns those multisets: each is a node of a
//! trie whose paths list the intervals in ascending order, so pages with the same multiset
//! share one `u32` id ([`SetId`]), which fits in a `Copy` page state, groups pages of equal
//! history, and is computed once however many pages reach it. [`Histories::mle`] solves the
//! equation (cached per multiset and unchanged-time sum).
//!
//! The root is found by bracketed Newton iteration on `r` to a relative precision of 1e-12.
//! With every `τ_i = 1` the root is `ln((n + 2) / (n - X + 1))`.
//!
//! ```
//! use freshgp_policy::policy::Histories;
//!
//! let mut h = Histories::default();
//! // Visits every cycle for 4 cycles, changes found at two of them.
//! let once = h.with_interval(Histories::EMPTY, 1);
//! let set = h.with_interval(once, 1);
//! let mle = h.mle(set, 2); // two unchanged intervals of length 1
//! assert!((mle - (6.0f64 / 3.0).ln()).abs() < 1e-12);
//! ```

use rustc_hash::FxHashMap as HashMap;

/// The id of an interned multiset of change-detecting intervals.
pub type SetId = u32;

/// One trie node: the multiset of its parent plus `tau` (not less than any interval of the
/// parent's multiset).
#[derive(Debug, Clone, Copy)]
struct Node {
    parent: SetId,
    tau: u32,
}

/// Entries (multisets, additions, MLE answers) a [`Histories`] keeps from one run to
/// the next ([`Histories::trim`]; checked before each run, so a simulator may hold this
/// and one run's growth: some tens of MiB, twice in a grouped simulator and its per-page
/// one).
const HISTORIES_KEPT: usize = 1 << 20;

/// Interned multisets of change-detecting visit intervals, and the MLE of each.
///
/// **Invariant:** node 0 is the empty multiset; along every path from it, intervals do not
/// decrease, so each multiset has exactly one node.
#[derive(Debug, Clone)]
pub struct Histories {
    nodes: Vec<Node>,
    children: HashMap<(SetId, u32), SetId>,
    /// `with_interval` results already computed.
    added: HashMap<(SetId, u32), SetId>,
    mle: HashMap<(SetId, u64), f64>,
    scratch: Vec<u32>,
}

impl Default for Histories {
    fn default() -> Histories {
        Histories {
            nodes: vec![Node { parent: 0, tau: 0 }],
            children: HashMap::default(),
            added: HashMap::default(),
            mle: HashMap::default(),
            scratch: Vec::new(),
        }
    }
}

impl Histories {
    /// The empty multiset (a page with no change-detecting visit).
    pub const EMPTY: SetId = 0;

    /// Number of distinct multisets interned so far (the empty one included).
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Always false: the empty multiset is always there.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Forgets everything (as a new `Histories`) once it holds more than
    /// `HISTORIES_KEPT` (2²⁰) multisets and answers; otherwise keeps it all. A simulator
    /// calls this before each run instead of starting afresh: the runs of a GP
    /// generation over one period meet the same multisets, and each MLE costs a root
    /// solve. Both are memos, so what is kept or forgotten changes no result.
    pub fn trim(&mut self) {
        let held = self.nodes.len() + self.added.len() + self.mle.len();
        if held > HISTORIES_KEPT {
            *self = Histories::default();
        }
    }

    /// The multiset `set` plus one interval of length `tau` (at least 1).
    pub fn with_interval(&mut self, set: SetId, tau: u32) -> SetId {
        if let Some(&done) = self.added.get(&(set, tau)) {
            return done;
        }
        let mut taus = std::mem::take(&mut self.scratch);
        self.intervals_into(set, &mut taus);
        // `taus` is descending (leaf to root); insert keeping it so, then walk from the root.
        let at = taus.partition_point(|&x| x > tau);
        taus.insert(at, tau);
        let mut node = Histories::EMPTY;
        for &x in taus.iter().rev() {
            node = self.child(node, x);
        }
        taus.clear();
        self.scratch = taus;
        self.added.insert((set, tau), node);
        node
    }

    /// The child of `node` by `tau` (`tau` at least every interval on the path to `node`).
    fn child(&mut self, node: SetId, tau: u32) -> SetId {
        if let Some(&c) = self.children.get(&(node, tau)) {
            return c;
        }
        let c = self.nodes.len() as SetId;
        self.nodes.push(Node { parent: node, tau });
        self.children.insert((node, tau), c);
        c
    }

    /// The intervals of `set`, largest first, into `out` (cleared first).
    fn intervals_into(&self, mut set: SetId, out: &mut Vec<u32>) {
        out.clear();
        while set != Histories::EMPTY {
            let node = self.nodes[set as usize];
            out.push(node.tau);
            set = node.parent;
        }
    }

    /// The intervals of `set`, smallest first.
    pub fn intervals(&self, set: SetId) -> Vec<u32> {
        let mut out = Vec::new();
        self.intervals_into(set, &mut out);
        out.reverse();
        out
    }

    /// The MLE change rate of a page whose change-detecting intervals are `set` and whose
    /// other intervals sum to `unchanged` (the pseudo-intervals are added here).
    pub fn mle(&mut self, set: SetId, unchanged: u64) -> f64 {
        if let Some(&r) = self.mle.get(&(set, unchanged)) {
            return r;
        }
        let mut taus = std::mem::take(&mut self.scratch);
        self.intervals_into(set, &mut taus);
        // (interval, count) pairs, the pseudo-interval of length 1 with z = 1 included.
        let mut terms: Vec<(f64, f64)> = Vec::with_capacity(taus.len() + 1);
        terms.push((1.0, 1.0));
        for &tau in taus.iter().rev() {
            match terms.last_mut() {
                Some(last) if last.0 == tau as f64 => last.1 += 1.0,
                _ => terms.push((tau as f64, 1.0)),
            }
        }
        taus.clear();
        self.scratch = taus;
        let r = solve_mle(&terms, unchanged as f64 + 1.0);
        self.mle.insert((set, unchanged), r);
        r
    }
}

/// The root `r > 0` of `Σ c·τ / (e^{rτ} - 1) = s` over `terms` = (τ, c), all τ >= 1, c > 0,
/// and `s > 0`. The left side falls strictly from +∞ (r → 0) to 0 (r → ∞), so the root is
/// unique; it is bracketed, then refined by Newton steps kept inside the bracket.
pub(crate) fn solve_mle(terms: &[(f64, f64)], s: f64) -> f64 {
    // f(r) = Σ c·τ/(e^{rτ}-1) - s, f' = -Σ c·τ²·e^{rτ}/(e^{rτ}-1)².
    let f = |r: f64| -> (f64, f64) {
        let (mut value, mut slope) = (-s, 0.0);
        for &(tau, c) in terms {
            let m = (r * tau).exp_m1();
            if m.is_finite() {
                value += c * tau / m;
                slope -= c * tau * tau * (m + 1.0) / (m * m);
            }
        }
        (value, slope)
    };
    // Bracket: f(lo) > 0 > f(hi), both from 0.5 (whose value one evaluation gives both).
    let (mut lo, mut hi) = (0.5, 0.5);
    let half = f(0.5).0;
    let mut at = half;
    while at <= 0.0 && lo > 1e-300 {
        lo *= 0.5;
        at = f(lo).0;
    }
    at = half;
    while at > 0.0 && hi < 1e300 {
        hi *= 2.0;
        at = f(hi).0;
    }
    let mut r = 0.5 * (lo + hi);
    for _ in 0..200 {
        let (value, slope) = f(r);
        if value == 0.0 {
            return r;
        }
        if value > 0.0 {
            lo = r;
        } else {
            hi = r;
        }
        let newton = r - value / slope;
        let next = if newton > lo && newton < hi && newton.is_finite() {
            newton
        } else {
            0.5 * (lo + hi)
        };
        if (next - r).abs() <= 1e-13 * r || hi - lo <= 1e-13 * lo {
            return next;
        }
        r = next;
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The MLE of a page with these (interval, changed) visits.
    fn mle_of(visits: &[(u32, bool)]) -> f64 {
        let mut h = Histories::default();
        let mut set = Histories::EMPTY;
        let mut unchanged = 0;
        for &(tau, changed) in visits {
            if changed {
                set = h.with_interval(set, tau);
            } else {
                unchanged += tau as u64;
            }
        }
        h.mle(set, unchanged)
    }

    #[test]
    fn unit_intervals_have_the_closed_form() {
        for n in 0..30u32 {
            for x in 0..=n {
                let visits: Vec<(u32, bool)> = (0..n).map(|i| (1, i < x)).collect();
                let exact = (((n + 2) as f64) / ((n - x + 1) as f64)).ln();
                let r = mle_of(&visits);
                assert!(
                    (r - exact).abs() <= 1e-12 * exact,
                    "n {n} X {x}: {r} vs {exact}"
                );
            }
        }
    }

    #[test]
    fn irregular_intervals_solve_the_likelihood_equation() {
        // Intervals 2 (changed), 3 (unchanged), 1 (changed), 4 (changed); pseudo 1 (changed),
        // 1 (unchanged). Equation: 2/(e^{2r}-1) + 1/(e^r-1) + 4/(e^{4r}-1) + 1/(e^r-1) = 3 + 1.
        let r = mle_of(&[(2, true), (3, false), (1, true), (4, true)]);
        let lhs = 2.0 / (2.0 * r).exp_m1() + 2.0 / r.exp_m1() + 4.0 / (4.0 * r).exp_m1();
        assert!((lhs - 4.0).abs() < 1e-9, "{r}: {lhs}");
        // Solved independently by 200 bisection halvings in Python: 0.569945177446161.
        assert!((r - 0.569945177446161).abs() < 1e-9 * r, "{r}");
        // More unchanged time lowers the rate; more changes raise it.
        assert!(mle_of(&[(2, true), (9, false), (1, true), (4, true)]) < r);
        assert!(mle_of(&[(2, true), (3, true), (1, true), (4, true)]) > r);
    }

    #[test]
    fn multisets_are_interned_whatever_the_order() {
        let mut h = Histories::default();
        let set = |h: &mut Histories, taus: &[u32]| {
            taus.iter()
                .fold(Histories::EMPTY, |set, &tau| h.with_interval(set, tau))
        };
        let a = set(&mut h, &[3, 1, 2]);
        let b = set(&mut h, &[1, 2, 3]);
        assert_eq!(a, b);
        assert_eq!(h.intervals(a), [1, 2, 3]);
        let c = h.with_interval(b, 2);
        assert_eq!(h.intervals(c), [1, 2, 2, 3]);
        assert_ne!(c, a);
    }

    #[test]
    fn a_page_never_visited_has_rate_ln_2() {
        assert!((mle_of(&[]) - 2f64.ln()).abs() < 1e-15);
    }
}
