//! C99 output: `<math.h>` only; the helpers are `static`, the function has external linkage.

use super::{comment, finite_literal, Kind, Lowered, Operand};
use std::fmt::Write;

fn operand(o: &Operand) -> String {
    match *o {
        Operand::Var(t) => t.name().to_string(),
        Operand::Const(c) if c == f64::INFINITY => "HUGE_VAL".to_string(),
        Operand::Const(c) if c == f64::NEG_INFINITY => "(-HUGE_VAL)".to_string(),
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
            "if (fabs(b) < 1e-6) return a * b < 0.0 ? -1e6 : 1e6;\n    return {n}_unnan(a / b);"
        ),
        Kind::LogPaper => "return a > 0.0 ? log(a) : 0.0;".to_string(),
        Kind::LogReference => "return fabs(a) > 1.0 ? log(fabs(a)) : 0.0;".to_string(),
        Kind::Exp => format!("return {n}_unnan(exp(a));"),
        // volatile keeps the compiler from rewriting pow with a constant operand (gcc and
        // clang turn pow(x, 2.0) into x * x), which rounds differently from libm's pow.
        Kind::Pow => format!("volatile double x = a, y = b;\n    return {n}_unnan(pow(x, y));"),
    };
    let params = if kind.arity() == 1 {
        "double a"
    } else {
        "double a, double b"
    };
    format!(
        "static double {n}_{}({params}) {{\n    {body}\n}}\n",
        kind.suffix()
    )
}

/// The C source of `lowered` as function `name`.
pub(crate) fn emit(lowered: &Lowered, name: &str, header: &[String]) -> String {
    let mut out = comment(header, "//");
    out.push_str(
        "// C99; link with -lm. Do not compile with -ffast-math; use -ffp-contract=off on\n\
         // targets with FMA so that a*b+c is not fused (freshgp rounds every operation).\n",
    );
    out.push_str("#include <math.h>\n\n");
    if lowered.needs_unnan() {
        let _ = write!(
            out,
            "static double {name}_unnan(double x) {{\n    return isnan(x) ? 0.0 : x;\n}}\n\n"
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
    let params = if params.is_empty() {
        "void".to_string()
    } else {
        params.join(", ")
    };
    let _ = writeln!(out, "double {name}({params}) {{");
    for (k, step) in lowered.steps.iter().enumerate() {
        let args: Vec<String> = step.args.iter().map(operand).collect();
        let _ = writeln!(
            out,
            "    const double v{k} = {name}_{}({});",
            step.kind.suffix(),
            args.join(", ")
        );
    }
    let _ = writeln!(out, "    return {};\n}}", operand(&lowered.result));
    out
}
