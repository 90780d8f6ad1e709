//! Java output: one `public final class` with static methods, `Math` for `log`, `exp` and
//! `pow` (on HotSpot x86-64 these matched glibc far more often than `StrictMath`'s fdlibm:
//! 1 to 4 differences in 10,000 results against about 150).
//!
//! Java's `pow` differs from C's in two special cases that plain values can reach:
//! `pow(±1, ±inf)` is NaN in Java but 1 in C, and `pow(1, NaN)` likewise; the helper
//! returns C's value there.

use super::target::{Imperative, Target};
use crate::formula::ops::Kind;
use crate::formula::ops::{BinaryKind as B, UnaryKind as U};
use crate::formula::Terminal;

/// The Java target: one class named [`class_name`]`(name)`.
pub(crate) struct Java;

impl Target for Java {
    /// Words that cannot be a class or method name in Java: keywords and java.lang classes.
    const RESERVED: &'static [&'static str] = &[
        "_",
        "abstract",
        "assert",
        "boolean",
        "break",
        "byte",
        "case",
        "catch",
        "char",
        "class",
        "const",
        "continue",
        "default",
        "do",
        "double",
        "else",
        "enum",
        "extends",
        "final",
        "finally",
        "float",
        "for",
        "goto",
        "if",
        "implements",
        "import",
        "instanceof",
        "int",
        "interface",
        "long",
        "native",
        "new",
        "package",
        "private",
        "protected",
        "public",
        "return",
        "short",
        "static",
        "strictfp",
        "super",
        "switch",
        "synchronized",
        "this",
        "throw",
        "throws",
        "transient",
        "try",
        "void",
        "volatile",
        "while",
        "true",
        "false",
        "null",
        "var",
        // java.lang classes the generated code uses or a class must not shadow.
        "Math",
        "Double",
        "Float",
        "Integer",
        "Long",
        "Object",
        "String",
        "System",
        "Number",
        "Boolean",
    ];
    #[cfg(test)]
    const GENERATED: &'static [&'static str] = &["Math", "Double"];
    const COMMENT: &'static str = "//";

    fn declares(name: &str) -> Vec<String> {
        vec![name.to_string(), class_name(name)]
    }
    const INFINITY: &'static str = "Double.POSITIVE_INFINITY";
    const NEG_INFINITY: &'static str = "Double.NEGATIVE_INFINITY";
}

impl Imperative for Java {
    const SEPARATOR: &'static str = "\n";

    fn preamble(&self, name: &str) -> String {
        let class = class_name(name);
        format!(
            "// Java 8+. Save as {class}.java. Math.log/exp/pow may differ from the C library\n\
             // freshgp uses in the last bit for rare arguments.\n\
             public final class {class} {{\n    private {class}() {{}}\n\n"
        )
    }

    fn unnan_helper(&self, name: &str) -> String {
        format!(
            "    private static double {name}_unnan(double x) {{\n        return Double.isNaN(x) ? 0.0 : x;\n    }}\n"
        )
    }

    fn helper(&self, kind: Kind, n: &str) -> String {
        let params = super::target::helper_params(kind, |n| format!("double {n}"));
        format!(
            "    private static double {n}_{}({params}) {{\n        {}\n    }}\n",
            kind.suffix(),
            helper_body(kind, n)
        )
    }

    fn function_header(&self, name: &str, params: &[Terminal]) -> String {
        let params: Vec<String> = params
            .iter()
            .map(|t| format!("double {}", t.name()))
            .collect();
        format!(
            "    public static double {name}({}) {{\n",
            params.join(", ")
        )
    }

    fn local_definition(&self, k: usize, value: &str) -> String {
        format!("        final double v{k} = {value};\n")
    }

    fn function_footer(&self, value: &str) -> String {
        format!("        return {value};\n    }}\n}}\n")
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
            "if (Math.abs(b) < 1e-6) return a * b < 0.0 ? -1e6 : 1e6;\n        return {n}_unnan(a / b);"
        ),
        Kind::Unary(U::LogPaper) => "return a > 0.0 ? Math.log(a) : 0.0;".to_string(),
        Kind::Unary(U::LogReference) => {
            "return Math.abs(a) > 1.0 ? Math.log(Math.abs(a)) : 0.0;".to_string()
        }
        Kind::Unary(U::Exp) => format!("return {n}_unnan(Math.exp(a));"),
        Kind::Binary(B::Pow) => format!(
            "// C's pow(1, y) and pow(-1, +-inf) are 1; Java's are NaN.\n        \
             if (a == 1.0 || (a == -1.0 && Double.isInfinite(b))) return 1.0;\n        \
             return {n}_unnan(Math.pow(a, b));"
        ),
    }
}

/// The class name for function `name`: its first letter upper-cased.
pub(crate) fn class_name(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use crate::export::fixtures::export_extended;
    use crate::export::{export, Language};
    use crate::formula::{Closure, Formula};

    #[test]
    fn extended_formula_arguments_in_column_order() {
        let code = export_extended(Language::Java);
        assert!(
            code.contains(
                "\n    public static double score(double t, double X, double GAD, double w, \
                 double tc, double n7, double X7, double HR, double MLE) {\n"
            ),
            "{code}"
        );
    }

    #[test]
    fn the_class_a_name_declares_is_checked_too() {
        // The class for `math` would be `Math`, hiding java.lang.Math.
        let g: Formula = "t / n".parse().unwrap();
        let err = export(&g, Closure::Paper, Language::Java, "math").unwrap_err();
        assert!(err.to_string().contains("`Math`"), "{err}");
        assert!(export(&g, Closure::Paper, Language::Java, "mathScore").is_ok());
    }
}
