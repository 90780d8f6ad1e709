//! C99 output: `<math.h>` only; the helpers are `static`, the function has external linkage.

use super::target::{Imperative, Target};
use crate::formula::ops::Kind;
use crate::formula::ops::{BinaryKind as B, UnaryKind as U};
use crate::formula::Terminal;

/// The C target.
pub(crate) struct C;

impl Target for C {
    /// Words that cannot be a function name in C: keywords and the C library's names.
    const RESERVED: &'static [&'static str] = &[
        "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
        "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
        "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
        "union", "unsigned", "void", "volatile", "while", "main", "log", "exp", "pow", "isnan",
        // <math.h> and <stdlib.h> names: a function of the same name would not compile.
        "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "exp2",
        "expm1", "log2", "log10", "log1p", "sqrt", "cbrt", "fabs", "floor", "ceil", "round",
        "trunc", "fmod", "fmin", "fmax", "hypot", "isinf", "isfinite", "signbit", "copysign",
        "nan", "abs", "exit", "free", "malloc",
        // <math.h>'s macros the code uses: a function of the same name would not compile.
        "HUGE_VAL", "INFINITY", "NAN",
    ];
    #[cfg(test)]
    const GENERATED: &'static [&'static str] = &[
        "HUGE_VAL", "INFINITY", "NAN", "isnan", "fabs", "log", "exp", "pow",
    ];
    const COMMENT: &'static str = "//";
    const INFINITY: &'static str = "HUGE_VAL";
    const NEG_INFINITY: &'static str = "(-HUGE_VAL)";
}

impl Imperative for C {
    const SEPARATOR: &'static str = "\n";

    fn preamble(&self, _name: &str) -> String {
        "// C99; link with -lm. Do not compile with -ffast-math; use -ffp-contract=off on\n\
         // targets with FMA so that a*b+c is not fused (freshgp rounds every operation).\n\
         #include <math.h>\n\n"
            .to_string()
    }

    fn unnan_helper(&self, name: &str) -> String {
        format!("static double {name}_unnan(double x) {{\n    return isnan(x) ? 0.0 : x;\n}}\n")
    }

    fn helper(&self, kind: Kind, n: &str) -> String {
        let params = super::target::helper_params(kind, |n| format!("double {n}"));
        format!(
            "static double {n}_{}({params}) {{\n    {}\n}}\n",
            kind.suffix(),
            helper_body(kind, n)
        )
    }

    fn function_header(&self, name: &str, params: &[Terminal]) -> String {
        let params: Vec<String> = params
            .iter()
            .map(|t| format!("double {}", t.name()))
            .collect();
        let params = if params.is_empty() {
            "void".to_string()
        } else {
            params.join(", ")
        };
        format!("double {name}({params}) {{\n")
    }

    fn local_definition(&self, k: usize, value: &str) -> String {
        format!("    const double v{k} = {value};\n")
    }

    fn function_footer(&self, value: &str) -> String {
        format!("    return {value};\n}}\n")
    }
}

/// The statements of the helper for `kind`.
fn helper_body(kind: Kind, n: &str) -> String {
    match kind {
        Kind::Binary(B::Add) => format!("return {n}_unnan(a + b);"),
        Kind::Binary(B::Sub) => format!("return {n}_unnan(a - b);"),
        Kind::Binary(B::Mul) => format!("return {n}_unnan(a * b);"),
        Kind::Unary(U::Neg) => "return -a;".to_string(),
        Kind::Binary(B::DivPaper) => format!("return b == 0.0 ? 0.0 : {n}_unnan(a / b);"),
        Kind::Binary(B::DivReference) => format!(
            "if (fabs(b) < 1e-6) return a * b < 0.0 ? -1e6 : 1e6;\n    return {n}_unnan(a / b);"
        ),
        Kind::Unary(U::LogPaper) => "return a > 0.0 ? log(a) : 0.0;".to_string(),
        Kind::Unary(U::LogReference) => "return fabs(a) > 1.0 ? log(fabs(a)) : 0.0;".to_string(),
        Kind::Unary(U::Exp) => format!("return {n}_unnan(exp(a));"),
        // volatile keeps the compiler from rewriting pow with a constant operand (gcc and
        // clang turn pow(x, 2.0) into x * x), which rounds differently from libm's pow.
        Kind::Binary(B::Pow) => {
            format!("volatile double x = a, y = b;\n    return {n}_unnan(pow(x, y));")
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::export::fixtures::export_extended;
    use crate::export::Language;

    #[test]
    fn extended_formula_arguments_in_column_order() {
        let code = export_extended(Language::C);
        assert!(
            code.contains(
                "\ndouble score(double t, double X, double GAD, double w, double tc, \
                 double n7, double X7, double HR, double MLE) {\n"
            ),
            "{code}"
        );
    }
}
