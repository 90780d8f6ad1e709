//! Rust output: `f64` and the standard library only.

use super::target::{Imperative, Target};
use crate::formula::ops::Kind;
use crate::formula::ops::{BinaryKind as B, UnaryKind as U};
use crate::formula::Terminal;

/// The Rust target.
pub(crate) struct Rust;

impl Target for Rust {
    /// Words that cannot be a function name in Rust (a short, practical list).
    const RESERVED: &'static [&'static str] = &[
        "_", "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn",
        "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
        "return", "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe",
        "use", "where", "while", "async", "await", "dyn", "abstract", "become", "box", "do",
        "final", "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "try",
        "gen",
    ];
    #[cfg(test)]
    const GENERATED: &'static [&'static str] = &["f64", "std"];
    const COMMENT: &'static str = "//";
    const INFINITY: &'static str = "f64::INFINITY";
    const NEG_INFINITY: &'static str = "f64::NEG_INFINITY";
}

impl Imperative for Rust {
    const SEPARATOR: &'static str = "\n";

    fn preamble(&self, _name: &str) -> String {
        "\n".to_string()
    }

    fn unnan_helper(&self, name: &str) -> String {
        format!("fn {name}_unnan(x: f64) -> f64 {{\n    if x.is_nan() {{ 0.0 }} else {{ x }}\n}}\n")
    }

    fn helper(&self, kind: Kind, n: &str) -> String {
        let params = super::target::helper_params(kind, |n| format!("{n}: f64"));
        format!(
            "fn {n}_{}({params}) -> f64 {{\n    {}\n}}\n",
            kind.suffix(),
            helper_body(kind, n)
        )
    }

    fn function_header(&self, name: &str, params: &[Terminal]) -> String {
        let params: Vec<String> = params
            .iter()
            .map(|t| format!("{}: f64", t.name()))
            .collect();
        format!(
            "#[allow(non_snake_case, clippy::all)]\npub fn {name}({}) -> f64 {{\n",
            params.join(", ")
        )
    }

    fn local_definition(&self, k: usize, value: &str) -> String {
        format!("    let v{k} = {value};\n")
    }

    fn function_footer(&self, value: &str) -> String {
        format!("    {value}\n}}\n")
    }
}

/// The body expression of the helper for `kind`.
fn helper_body(kind: Kind, n: &str) -> String {
    match kind {
        Kind::Binary(B::Add) => format!("{n}_unnan(a + b)"),
        Kind::Binary(B::Sub) => format!("{n}_unnan(a - b)"),
        Kind::Binary(B::Mul) => format!("{n}_unnan(a * b)"),
        Kind::Unary(U::Neg) => "-a".to_string(),
        Kind::Binary(B::DivPaper) => format!("if b == 0.0 {{ 0.0 }} else {{ {n}_unnan(a / b) }}"),
        Kind::Binary(B::DivReference) => format!(
            "if b.abs() < 1e-6 {{\n        if a * b < 0.0 {{ -1e6 }} else {{ 1e6 }}\n    }} else {{\n        {n}_unnan(a / b)\n    }}"
        ),
        Kind::Unary(U::LogPaper) => "if a > 0.0 { a.ln() } else { 0.0 }".to_string(),
        Kind::Unary(U::LogReference) => "if a.abs() > 1.0 { a.abs().ln() } else { 0.0 }".to_string(),
        Kind::Unary(U::Exp) => format!("{n}_unnan(a.exp())"),
        // black_box keeps LLVM from rewriting pow with a constant operand (pow(x, 2.0) as
        // x * x, pow(8.0, x) as exp2(3.0 * x)), which rounds differently from libm's pow.
        Kind::Binary(B::Pow) => format!(
            "{n}_unnan(std::hint::black_box(a).powf(std::hint::black_box(b)))"
        ),
    }
}

#[cfg(test)]
mod tests {
    use crate::export::fixtures::export_extended;
    use crate::export::Language;

    #[test]
    fn extended_formula_arguments_in_column_order() {
        let code = export_extended(Language::Rust);
        assert!(
            code.contains(
                "\npub fn score(t: f64, X: f64, GAD: f64, w: f64, tc: f64, n7: f64, X7: f64, \
                 HR: f64, MLE: f64) -> f64 {\n"
            ),
            "{code}"
        );
    }
}
