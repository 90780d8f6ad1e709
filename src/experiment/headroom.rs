//! Headroom (docs/src/reference/evaluation.md#headroom): how much of the distance from the
//! best hand-written rival to the oracle (docs/src/reference/policies.md#the-oracle) a
//! policy covers,
//!
//! ```text
//! captured = (value − best rival) / (oracle − best rival)
//! ```
//!
//! none when the oracle does not beat the best rival (then there is no headroom to share).
//! The one rule `freshgp baselines` and a study's report both read.

/// The share of the headroom `value` captures: `(value − best) / (oracle − best)`, `None`
/// when `oracle <= best` or a value is not finite.
///
/// ```
/// use freshgp::experiment::headroom::captured;
///
/// assert_eq!(captured(0.7, 0.6, 0.9), Some((0.7 - 0.6) / (0.9 - 0.6)));
/// assert_eq!(captured(0.7, 0.6, 0.5), None); // the oracle below the rival: no headroom
/// ```
pub fn captured(value: f64, best: f64, oracle: f64) -> Option<f64> {
    let headroom = oracle - best;
    (headroom > 0.0 && value.is_finite() && headroom.is_finite()).then(|| (value - best) / headroom)
}

/// For each of `values` (one per policy, `oracle[i]` saying which is the oracle), the share
/// of the headroom it captures over the best of the *other* policies but the oracle, with
/// that policy's index; `None` for the oracle, and for every policy when there is no
/// oracle or no other policy.
pub fn shares(values: &[f64], oracle: &[bool]) -> Vec<Option<(f64, usize)>> {
    let Some(o) = oracle.iter().position(|&is| is) else {
        return vec![None; values.len()];
    };
    (0..values.len())
        .map(|i| {
            if oracle[i] {
                return None;
            }
            let best = (0..values.len())
                .filter(|&j| j != i && !oracle[j])
                .max_by(|&a, &b| values[a].total_cmp(&values[b]).then(b.cmp(&a)))?;
            captured(values[i], values[best], values[o]).map(|c| (c, best))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_policy_against_the_best_of_the_others() {
        let values = [0.9, 0.5, 0.6, 0.7];
        let oracle = [true, false, false, false];
        let s = shares(&values, &oracle);
        assert_eq!(s[0], None);
        // 0.7 is best: against 0.6, it has 0.1 of 0.3.
        let (c, best) = s[3].unwrap();
        assert!((c - 1.0 / 3.0).abs() < 1e-12 && best == 2);
        // 0.5 against 0.7: -0.2 of 0.2.
        let (c, best) = s[1].unwrap();
        assert!((c + 1.0).abs() < 1e-12 && best == 3);
        assert!(shares(&values, &[false; 4]).iter().all(Option::is_none));
    }
}
