//! Java output: one `public final class` with static methods, `Math` for `log`, `exp` and
//! `pow` (on HotSpot x86-64 these matched glibc far more often than `StrictMath`'s fdlibm:
//! 1 to 4 differences in 10,000 results against about 150).
//!
//! Java's `pow` differs from C's in two special cases that plain values can reach:
//! `pow(±1, ±inf)` is NaN in Java but 1 in C, and `pow(1, NaN)` likewise; the helper
//! returns C's value there.

use super::{comment, finite_literal, Kind, Lowered, Operand};
use std::fmt::Write;

fn operand(o: &Operand) -> String {
    match *o {
        Operand::Var(t) => t.name().to_string(),
        Operand::Const(c) if c == f64::INFINITY => "Double.POSITIVE_INFINITY".to_string(),
        Operand::Const(c) if c == f64::NEG_INFINITY => "Double.NEGATIVE_INFINITY".to_string(),
        Operand::Const(c) => finite_literal(c),
        Operand::Local(k) => format!("v{k}"),
    }
}

fn helper(kind: Kind, n: &str) -> String {
    let body = match kind {
        Kind::Add => format!("return {n}_unnan(a + b);"),
        Kind::Sub => format!("return {n}_unnan(a - b);"),
        Kind::Mul => format!("return {n}_unnan(a * b);"),
        Kind::Neg => "return -a;".to_string(),
        Kind::DivPaper => format!("return b == 0.0 ? 0.0 : {n}_unnan(a / b);"),
        Kind::DivReference => format!(
            "if (Math.abs(b) < 1e-6) return a * b < 0.0 ? -1e6 : 1e6;\n        return {n}_unnan(a / b);"
        ),
        Kind::LogPaper => "return a > 0.0 ? Math.log(a) : 0.0;".to_string(),
        Kind::LogReference => {
            "return Math.abs(a) > 1.0 ? Math.log(Math.abs(a)) : 0.0;".to_string()
        }
        Kind::Exp => format!("return {n}_unnan(Math.exp(a));"),
        Kind::Pow => format!(
            "// C's pow(1, y) and pow(-1, +-inf) are 1; Java's are NaN.\n        \
             if (a == 1.0 || (a == -1.0 && Double.isInfinite(b))) return 1.0;\n        \
             return {n}_unnan(Math.pow(a, b));"
        ),
    };
    let params = if kind.arity() == 1 {
        "double a"
    } else {
        "double a, double b"
    };
    format!(
        "    private static double {n}_{}({params}) {{\n        {body}\n    }}\n",
        kind.suffix()
    )
}

/// The class name for function `name`: its first letter upper-cased.
pub(crate) fn class_name(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

/// The Java source of `lowered` as method `name` of class [`class_name`]`(name)`.
pub(crate) fn emit(lowered: &Lowered, name: &str, header: &[String]) -> String {
    let mut out = comment(header, "//");
    let class = class_name(name);
    let _ = write!(
        out,
        "// Java 8+. Save as {class}.java. Math.log/exp/pow may differ from the C library\n\
         // freshgp uses in the last bit for rare arguments.\n\
         public final class {class} {{\n    private {class}() {{}}\n\n"
    );
    if lowered.needs_unnan() {
        let _ = write!(
            out,
            "    private static double {name}_unnan(double x) {{\n        return Double.isNaN(x) ? 0.0 : x;\n    }}\n\n"
        );
    }
    for &kind in &lowered.kinds {
        out.push_str(&helper(kind, name));
        out.push('\n');
    }
    let params: Vec<String> = lowered
        .params
        .iter()
        .map(|t| format!("double {}", t.name()))
        .collect();
    let _ = writeln!(
        out,
        "    public static double {name}({}) {{",
        params.join(", ")
    );
    for (k, step) in lowered.steps.iter().enumerate() {
        let args: Vec<String> = step.args.iter().map(operand).collect();
        let _ = writeln!(
            out,
            "        final double v{k} = {name}_{}({});",
            step.kind.suffix(),
            args.join(", ")
        );
    }
    let _ = writeln!(
        out,
        "        return {};\n    }}\n}}",
        operand(&lowered.result)
    );
    out
}
