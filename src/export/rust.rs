//! Rust output: `f64` and the standard library only.

use super::{comment, finite_literal, Kind, Lowered, Operand};
use std::fmt::Write;

fn operand(o: &Operand) -> String {
    match *o {
        Operand::Var(t) => t.name().to_string(),
        Operand::Const(c) if c == f64::INFINITY => "f64::INFINITY".to_string(),
        Operand::Const(c) if c == f64::NEG_INFINITY => "f64::NEG_INFINITY".to_string(),
        Operand::Const(c) => finite_literal(c),
        Operand::Local(k) => format!("v{k}"),
    }
}

fn helper(kind: Kind, n: &str) -> String {
    let body = match kind {
        Kind::Add => format!("{n}_unnan(a + b)"),
        Kind::Sub => format!("{n}_unnan(a - b)"),
        Kind::Mul => format!("{n}_unnan(a * b)"),
        Kind::Neg => "-a".to_string(),
        Kind::DivPaper => format!("if b == 0.0 {{ 0.0 }} else {{ {n}_unnan(a / b) }}"),
        Kind::DivReference => format!(
            "if b.abs() < 1e-6 {{\n        if a * b < 0.0 {{ -1e6 }} else {{ 1e6 }}\n    }} else {{\n        {n}_unnan(a / b)\n    }}"
        ),
        Kind::LogPaper => "if a > 0.0 { a.ln() } else { 0.0 }".to_string(),
        Kind::LogReference => "if a.abs() > 1.0 { a.abs().ln() } else { 0.0 }".to_string(),
        Kind::Exp => format!("{n}_unnan(a.exp())"),
        // black_box keeps LLVM from rewriting pow with a constant operand (pow(x, 2.0) as
        // x * x, pow(8.0, x) as exp2(3.0 * x)), which rounds differently from libm's pow.
        Kind::Pow => format!(
            "{n}_unnan(std::hint::black_box(a).powf(std::hint::black_box(b)))"
        ),
    };
    let params = if kind.arity() == 1 {
        "a: f64"
    } else {
        "a: f64, b: f64"
    };
    format!(
        "fn {n}_{}({params}) -> f64 {{\n    {body}\n}}\n",
        kind.suffix()
    )
}

/// The Rust source of `lowered` as function `name`.
pub(crate) fn emit(lowered: &Lowered, name: &str, header: &[String]) -> String {
    let mut out = comment(header, "//");
    out.push('\n');
    if lowered.needs_unnan() {
        let _ = write!(
            out,
            "fn {name}_unnan(x: f64) -> f64 {{\n    if x.is_nan() {{ 0.0 }} else {{ x }}\n}}\n\n"
        );
    }
    for &kind in &lowered.kinds {
        out.push_str(&helper(kind, name));
        out.push('\n');
    }
    let params: Vec<String> = lowered
        .params
        .iter()
        .map(|t| format!("{}: f64", t.name()))
        .collect();
    let _ = writeln!(
        out,
        "#[allow(non_snake_case, clippy::all)]\npub fn {name}({}) -> f64 {{",
        params.join(", ")
    );
    for (k, step) in lowered.steps.iter().enumerate() {
        let args: Vec<String> = step.args.iter().map(operand).collect();
        let _ = writeln!(
            out,
            "    let v{k} = {name}_{}({});",
            step.kind.suffix(),
            args.join(", ")
        );
    }
    let _ = writeln!(out, "    {}\n}}", operand(&lowered.result));
    out
}
