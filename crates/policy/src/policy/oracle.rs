//! The oracle (docs/src/reference/policies.md#the-oracle): the ranking a crawler would use
//! if it knew each page's latent change probability q per cycle, as only a synthetic
//! history does. It scores
//!
//! ```text
//! oracle = w · (1 − (1 − q)^t)
//! ```
//!
//! the weighted chance that a page whose changes come with probability q each cycle has
//! changed in the t cycles since its last visit. No estimation: it is what perfect rate
//! knowledge gives, the far end of the headroom every estimator competes for. No terminal
//! reads q, so no formula (and no search) can.

/// The oracle's score of a page of weight `w`, latent change probability `q` (in [0, 1])
/// and age `t`: `w · (1 − (1 − q)^t)`, computed as `−w · expm1(t · ln_1p(−q))`, exact
/// for small q. Never NaN, never `−0.0`.
///
/// ```
/// use freshgp_policy::policy::oracle_score;
///
/// assert_eq!(oracle_score(2.0, 0.5, 1.0), 1.0);
/// assert!((oracle_score(1.0, 0.5, 3.0) - 0.875).abs() < 1e-15);
/// assert_eq!(oracle_score(3.0, 1.0, 2.0), 3.0); // a page that changes every cycle
/// assert_eq!(oracle_score(3.0, 0.0, 9.0), 0.0); // one that never does
/// ```
#[inline]
pub fn oracle_score(w: f64, q: f64, t: f64) -> f64 {
    if t <= 0.0 || q <= 0.0 {
        return 0.0;
    }
    // ln_1p(-1) = -inf and t > 0, so q = 1 gives expm1(-inf) = -1: the page is stale.
    let stale = -(t * (-q).ln_1p()).exp_m1();
    // `+ 0.0` turns a -0 product into +0.
    w * stale + 0.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The score is the closed form, rises with t and q, and is never NaN or -0.
        #[test]
        fn rises_with_age_and_probability(
            w in 0.0f64..1e6, q in 0.0f64..=1.0, t in 1u32..1000,
        ) {
            let s = oracle_score(w, q, f64::from(t));
            let negative_zero = s == 0.0 && s.is_sign_negative();
            prop_assert!(!s.is_nan());
            prop_assert!(!negative_zero);
            let direct = w * (1.0 - (1.0 - q).powi(t as i32));
            prop_assert!((s - direct).abs() <= 1e-12 * w.max(1.0));
            prop_assert!(oracle_score(w, q, f64::from(t + 1)) >= s);
            prop_assert!(oracle_score(w, (q + 0.01).min(1.0), f64::from(t)) >= s);
        }
    }
}
