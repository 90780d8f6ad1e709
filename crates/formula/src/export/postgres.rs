//! The closure's operations in PostgreSQL, which raises an error where IEEE arithmetic
//! gives a special value.
//!
//! PostgreSQL's `float8` operators and functions raise "value out of range: overflow" when
//! a result of finite operands is ±inf, "underflow" when a result of nonzero operands is 0,
//! "division by zero", and errors for `ln` of 0 or a negative number and for a power that
//! would be NaN or of 0 to a negative exponent. The closure gives those cases a value, so
//! every operation here first decides whether the engine's operation could raise, and
//! computes the value another way when it could. Operands are never NaN (every operation
//! maps NaN to 0, and terminals and constants are not NaN), which matters because
//! PostgreSQL orders NaN above every number.
//!
//! * `a ± b` cannot overflow when both are below 2^1022; otherwise either one is below 1
//!   (the sum rounds to the other) or both halves are exact, and `(a/2 ± b/2)` overflows
//!   2^1023 exactly when `a ± b` overflows 2^1024.
//! * `a * b` and `a / b` of finite, nonzero operands: `l = ln|a| ± ln|b|` tells a safe
//!   result (`-744 <= l <= 709`) from a certain infinity (`l > 711`) or zero
//!   (`l < -746`). In the bands between, the operation is computed exactly on operands
//!   scaled by 2^±600 (scaling by a power of two is exact while the values stay normal,
//!   and rounding is the same at any exponent in the normal range): near overflow the
//!   scaled result reaches 2^424 exactly when the real one reaches 2^1024; near underflow,
//!   a scaled result above 2^-475 means the real result is nonzero (then computed as is),
//!   and one at or below it means zero — exact except when the scaled result rounds to
//!   exactly 2^-475, which is taken as 0.
//! * `exp(a)` is finite and nonzero exactly for `a` in
//!   [[`EXP_MIN`], [`EXP_MAX`]] (tested against Rust's `exp`, which is glibc's, as
//!   PostgreSQL's is on Linux).
//! * `power(a, b)`: the special operands (0, ±1, ±inf, a negative base with a non-integer
//!   exponent, exponents beyond 1e±300, `b = 1`) by the C library's rules; otherwise
//!   `L = b · ln|a|` decides: a power whose value lies within a relative 1e-10 of the
//!   overflow or of 2^-1075 is taken as ±inf or ±0 (the one inexact case).

use crate::formula::ops::Kind;
use crate::formula::ops::{BinaryKind as B, UnaryKind as U};

/// The largest `x` whose `exp(x)` is finite.
pub(crate) const EXP_MAX: f64 = 709.782712893384;
/// The smallest `x` whose `exp(x)` is not 0.
pub(crate) const EXP_MIN: f64 = -745.1332191019411;

/// `L = b · ln|a|` above which a power is taken as ±inf: `ln(2^1024)` less 1e-10.
const POW_OVERFLOW: &str = "709.782712893284";
/// `L` below which a power is taken as ±0: `ln(2^-1075)` plus 1e-10.
const POW_UNDERFLOW: &str = "-745.133219101841";

/// `kind` applied to `a` (and `b`), each an SQL expression that is never NaN; `lit` writes
/// a constant as a PostgreSQL `float8`.
pub(crate) fn call(kind: Kind, a: &str, b: &str, lit: &dyn Fn(f64) -> String) -> String {
    let ops = Ops { lit };
    match kind {
        Kind::Binary(B::Add) => ops.sum(a, b, '+'),
        Kind::Binary(B::Sub) => ops.sum(a, b, '-'),
        Kind::Binary(B::Mul) => ops.mul(a, b),
        Kind::Unary(U::Neg) => format!("(-({a}))"),
        Kind::Binary(B::DivPaper) => ops.div(a, b),
        Kind::Binary(B::DivReference) => format!(
            "CASE WHEN abs({b}) < 1e-6 THEN (CASE WHEN {} < 0.0 THEN {} ELSE {} END) ELSE {} END",
            ops.mul(a, b),
            lit(-1e6),
            lit(1e6),
            ops.div(a, b)
        ),
        Kind::Unary(U::LogPaper) => {
            format!("CASE WHEN {a} > 0.0 THEN ln({a}) ELSE {} END", lit(0.0))
        }
        Kind::Unary(U::LogReference) => format!(
            "CASE WHEN abs({a}) > 1.0 THEN ln(abs({a})) ELSE {} END",
            lit(0.0)
        ),
        Kind::Unary(U::Exp) => format!(
            "CASE WHEN {a} > {EXP_MAX:?} THEN {} WHEN {a} < {EXP_MIN:?} THEN {} ELSE exp({a}) END",
            lit(f64::INFINITY),
            lit(0.0)
        ),
        Kind::Binary(B::Pow) => ops.pow(a, b),
    }
}

/// The text builders, sharing the literal writer.
struct Ops<'a> {
    lit: &'a dyn Fn(f64) -> String,
}

impl Ops<'_> {
    fn inf(&self) -> String {
        (self.lit)(f64::INFINITY)
    }

    /// `2^k`, exact (glibc's `pow` is exact when the result is representable), folded
    /// once per query by the planner.
    fn two_to(&self, k: i32) -> String {
        format!("power({}, {k})", (self.lit)(2.0))
    }

    /// NaN → 0 (PostgreSQL's NaN equals itself).
    fn unnan(&self, x: &str) -> String {
        format!(
            "COALESCE(NULLIF({x}, CAST('NaN' AS DOUBLE PRECISION)), {})",
            (self.lit)(0.0)
        )
    }

    /// `a + b` or `a - b` (`op`).
    fn sum(&self, a: &str, b: &str, op: char) -> String {
        let big = self.two_to(1022);
        let half = format!("({a} * 0.5 {op} {b} * 0.5)");
        format!(
            "CASE WHEN abs({a}) < {big} AND abs({b}) < {big} THEN {a} {op} {b} \
             WHEN abs({a}) = {inf} OR abs({b}) = {inf} THEN {nan_free} \
             WHEN abs({a}) < 1.0 OR abs({b}) < 1.0 THEN {a} {op} {b} \
             WHEN abs({half}) >= {top} THEN sign({half}) * {inf} \
             ELSE {half} * 2.0 END",
            inf = self.inf(),
            nan_free = self.unnan(&format!("{a} {op} {b}")),
            top = self.two_to(1023),
        )
    }

    /// `a * b`.
    fn mul(&self, a: &str, b: &str) -> String {
        let up = self.two_to(600);
        let down = self.two_to(-600);
        format!(
            "CASE WHEN {a} = 0.0 OR {b} = 0.0 OR abs({a}) = {inf} OR abs({b}) = {inf} THEN {special} \
             ELSE {scaled} END",
            inf = self.inf(),
            special = self.unnan(&format!("{a} * {b}")),
            scaled = self.scaled(
                a,
                b,
                '*',
                &format!("({a} * {down}) * {b}"),
                &format!(
                    "(CASE WHEN abs({a}) <= abs({b}) THEN ({a} * {up}) * {b} \
                     ELSE {a} * ({b} * {up}) END)"
                ),
            )
        )
    }

    /// `a / b` under the paper's closure (`x / 0 = 0`).
    fn div(&self, a: &str, b: &str) -> String {
        let up = self.two_to(600);
        format!(
            "CASE WHEN {b} = 0.0 THEN {zero} \
             WHEN {a} = 0.0 OR abs({a}) = {inf} OR abs({b}) = {inf} THEN {special} \
             ELSE {scaled} END",
            zero = (self.lit)(0.0),
            inf = self.inf(),
            special = self.unnan(&format!("{a} / {b}")),
            scaled = self.scaled(
                a,
                b,
                '/',
                &format!("{a} / ({b} * {up})"),
                &format!("({a} * {up}) / {b}"),
            )
        )
    }

    /// `a op b` for finite, nonzero `a` and `b` (`op` is `*` or `/`): `high` is the result
    /// scaled by 2^-600 (used near overflow), `low` scaled by 2^600 (near underflow).
    fn scaled(&self, a: &str, b: &str, op: char, high: &str, low: &str) -> String {
        let pm = if op == '*' { '+' } else { '-' };
        let l = format!("(ln(abs({a})) {pm} ln(abs({b})))");
        let sign = format!("sign({a}) * sign({b})");
        format!(
            "(CASE WHEN {l} BETWEEN -744.0 AND 709.0 THEN {a} {op} {b} \
             WHEN {l} > 711.0 THEN {sign} * {inf} \
             WHEN {l} < -746.0 THEN {sign} * 0.0 \
             WHEN {l} > 0.0 THEN (CASE WHEN abs({high}) >= {overflow} THEN {sign} * {inf} \
             ELSE {high} * {up} END) \
             WHEN abs({low}) > {underflow} THEN {a} {op} {b} \
             ELSE {sign} * 0.0 END)",
            inf = self.inf(),
            overflow = self.two_to(424),
            up = self.two_to(600),
            underflow = self.two_to(-475),
        )
    }

    /// `power(a, b)` with C's rules for the special operands.
    fn pow(&self, a: &str, b: &str) -> String {
        let inf = self.inf();
        let one = (self.lit)(1.0);
        let zero = (self.lit)(0.0);
        // `b` an odd integer (`b / 2` only computed for an integer `b`, never 0 here).
        let odd = format!(
            "(CASE WHEN {b} = floor({b}) THEN floor({b} / 2.0) * 2.0 <> {b} ELSE false END)"
        );
        // The sign of a power of a negative base with an integer exponent (a double, so
        // that `sign * 0.0` is -0.0 where it should be: numeric has no -0).
        let sign = format!(
            "(CASE WHEN {a} < 0.0 AND {odd} THEN {} ELSE {one} END)",
            (self.lit)(-1.0)
        );
        let l = format!("({b} * ln(abs({a})))");
        format!(
            "CASE WHEN {b} = 0.0 OR {a} = 1.0 THEN {one} WHEN {b} = 1.0 THEN {a} \
             WHEN {a} = 0.0 THEN (CASE WHEN atan2({a}, -1.0) < 0.0 AND {odd} THEN -1.0 ELSE 1.0 END) \
             * (CASE WHEN {b} < 0.0 THEN {inf} ELSE {zero} END) \
             WHEN {a} < 0.0 AND {b} <> floor({b}) THEN \
             (CASE WHEN {a} = -{inf} AND {b} > 0.0 THEN {inf} ELSE {zero} END) \
             WHEN abs({a}) = {inf} OR abs({b}) = {inf} OR abs({b}) < 1e-300 OR abs({a}) = 1.0 \
             THEN power({a}, {b}) \
             WHEN abs({b}) > 1e300 THEN \
             (CASE WHEN (abs({a}) > 1.0) = ({b} > 0.0) THEN {inf} ELSE {zero} END) \
             WHEN {l} > {POW_OVERFLOW} THEN {sign} * {inf} \
             WHEN {l} < {POW_UNDERFLOW} THEN {sign} * 0.0 \
             ELSE power({a}, {b}) END"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_bounds_are_the_last_finite_and_nonzero_arguments() {
        assert!(EXP_MAX.exp().is_finite());
        assert!(f64::from_bits(EXP_MAX.to_bits() + 1).exp().is_infinite());
        assert!(EXP_MIN.exp() > 0.0);
        // One step more negative (a larger magnitude: the next bit pattern).
        assert_eq!(f64::from_bits(EXP_MIN.to_bits() + 1).exp(), 0.0);
    }

    #[test]
    fn power_bands_are_just_inside_the_thresholds() {
        let over: f64 = POW_OVERFLOW.parse().unwrap();
        let under: f64 = POW_UNDERFLOW.parse().unwrap();
        let ln_top = 1024.0 * std::f64::consts::LN_2;
        let ln_bottom = -1075.0 * std::f64::consts::LN_2;
        assert!((ln_top - over - 1e-10).abs() < 2e-12, "{over}");
        assert!((under - ln_bottom - 1e-10).abs() < 2e-12, "{under}");
    }
}
