//! Tests of the export (every target, every terminal's name), and the fixture the
//! per-target tests export.

use super::lower::{Lowered, Operand};
use super::target::{column_order, finite_literal};
use super::*;
use crate::formula::ops::{BinaryKind, Kind, UnaryKind};
use crate::formula::{Closure, Formula, Terminal};

/// What the per-target tests export: a formula over terminals of GP4C_All and extended
/// ones (`w tc n7 X7 HR MLE`), written out of column order.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::{export, Closure, Formula, Language};

    /// The formula: it reads `t X GAD w tc n7 X7 HR MLE`.
    pub(crate) const EXTENDED: &str = "MLE * w + HR / tc - X7 ^ n7 + GAD * t + X";

    /// The export of [`EXTENDED`] as function `score` in `language`, after checking that its
    /// header names the arguments and the full column order.
    pub(crate) fn export_extended(language: Language) -> String {
        let f: Formula = EXTENDED.parse().unwrap();
        let code = export(&f, Closure::Paper, language, "score").unwrap();
        let line = "Arguments: t, X, GAD, w, tc, n7, X7, HR, MLE (the terminals the formula \
                    reads, in freshgp's column order t n X CG NAD SAD AAD GAD w tc n7 X7 HR MLE).";
        assert!(code.contains(line), "{language}: no `{line}` in\n{code}");
        code
    }
}

/// Names the generated code of `language` uses in the scoring function's scope (besides
/// the reserved words, the locals `v<k>` and the `<name>_...` helpers), which an argument
/// must not be. The helpers' own parameters (`a`, `b`, `x`, `y`) are local to each
/// helper, so the terminal `b` is free to be an argument:
/// [`helper_parameters_stay_in_their_helpers`] checks it.

#[test]
fn the_documented_column_order_is_terminal_all() {
    let order: Vec<&str> = Terminal::ALL.iter().map(|t| t.name()).collect();
    assert!(
        include_str!("mod.rs").contains("the order of [`Terminal::ALL`]"),
        "the docs must name the column order"
    );
    // Every terminal, written in the reverse of the column order.
    let reversed: Vec<&str> = order.iter().rev().copied().collect();
    let f = f(&reversed.join(" * "));
    assert_eq!(arguments(&f), Terminal::ALL);
    assert_eq!(column_order(&arguments(&f)), order.join(" "));
    assert_eq!(
        column_order(&arguments(&self::f("X / n * t"))),
        "t n X CG NAD SAD AAD GAD"
    );
    assert_eq!(column_order(&[]), "t n X CG NAD SAD AAD GAD");
}

/// The names `a`, `b`, `x` and `y` appear only inside the helpers, as their parameters:
/// the scoring function never reads them but as its own arguments.
#[test]
fn helper_parameters_stay_in_their_helpers() {
    let g = f("b / t + log(b) ^ X - exp(b)");
    for language in Language::ALL.into_iter().filter(|l| !l.is_sql()) {
        let code = export(&g, Closure::Paper, language, "score").unwrap();
        // The scoring function: from its header to the end.
        let start = code
            .find("score(")
            .map(|i| code[..i].rfind('\n').map_or(0, |n| n + 1))
            .unwrap();
        let body = &code[start..];
        let words: Vec<&str> = body
            .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .filter(|w| !w.is_empty())
            .collect();
        for name in ["a", "x", "y"] {
            assert!(!words.contains(&name), "{language}: `{name}` in\n{body}");
        }
        assert!(
            words.contains(&"b"),
            "{language}: the argument b in\n{body}"
        );
    }
}

#[test]
fn terminal_names_cannot_collide_in_any_target() {
    let g = f("t");
    for (i, t) in Terminal::ALL.iter().enumerate() {
        let name = t.name();
        // An identifier everywhere; without `_`, which every generated name but `v<k>`
        // has (`<name>_div`, SQL's `<name>_v0` and `<name>_1`).
        assert!(
            name.starts_with(|c: char| c.is_ascii_alphabetic()),
            "{name}"
        );
        assert!(name.chars().all(|c| c.is_ascii_alphanumeric()), "{name}");
        // Not a local `v<k>` (nor `r<k>`, also kept from function names).
        let local = name.len() > 1
            && name.starts_with(['v', 'V', 'r', 'R'])
            && name[1..].chars().all(|c| c.is_ascii_digit());
        assert!(!local, "{name}");
        for u in &Terminal::ALL[i + 1..] {
            assert!(
                !name.eq_ignore_ascii_case(u.name()),
                "{name} and {u} differ by case"
            );
        }
        for language in Language::ALL {
            let sql = language.is_sql();
            let same = |w: &&str| {
                if sql {
                    w.eq_ignore_ascii_case(name)
                } else {
                    *w == name
                }
            };
            assert!(!language.reserved().iter().any(same), "{name}: {language}");
            assert!(!language.generated().iter().any(same), "{name}: {language}");
            // A function may not take a terminal's name.
            assert!(export(&g, Closure::Paper, language, name).is_err());
            if sql {
                for other_case in [name.to_ascii_lowercase(), name.to_ascii_uppercase()] {
                    assert!(export(&g, Closure::Paper, language, &other_case).is_err());
                }
            }
        }
    }
}

fn f(s: &str) -> Formula {
    s.parse().unwrap()
}

#[test]
fn lowering_folds_constants_and_numbers_locals() {
    let l = Lowered::new(&f("t * (2 + 3) + log(X)"), Closure::Paper);
    assert_eq!(l.params, vec![Terminal::T, Terminal::X]);
    assert_eq!(l.steps.len(), 3);
    assert_eq!(
        l.steps[0].args,
        vec![Operand::Var(Terminal::T), Operand::Const(5.0)]
    );
    assert_eq!(l.steps[0].kind, Kind::Binary(BinaryKind::Mul));
    assert_eq!(l.steps[1].kind, Kind::Unary(UnaryKind::LogPaper));
    assert_eq!(l.steps[2].args, vec![Operand::Local(0), Operand::Local(1)]);
    assert_eq!(l.steps[2].level, 2);
    assert_eq!(l.result, Operand::Local(2));
    assert_eq!(
        l.kinds,
        vec![
            Kind::Binary(BinaryKind::Add),
            Kind::Binary(BinaryKind::Mul),
            Kind::Unary(UnaryKind::LogPaper)
        ]
    );
}

#[test]
fn constant_formula_has_no_steps() {
    let l = Lowered::new(&f("log(0) + 1 / 0"), Closure::Paper);
    assert!(l.steps.is_empty());
    assert_eq!(l.result, Operand::Const(0.0));
    let l = Lowered::new(&f("1 / 0"), Closure::Reference);
    assert_eq!(l.result, Operand::Const(1e6));
}

#[test]
fn literals_round_trip() {
    for c in [
        0.1,
        1.0,
        -0.0,
        1e300,
        5e-324,
        f64::MAX,
        -2.5e-7,
        1e16,
        123456.0,
    ] {
        let text = finite_literal(c);
        assert_eq!(
            text.parse::<f64>().unwrap().to_bits(),
            c.to_bits(),
            "{text}"
        );
        assert!(
            text.contains(['.', 'e']),
            "{text} must not read as an integer"
        );
    }
}

#[test]
fn names_are_checked() {
    let g = f("t");
    for bad in ["", "1x", "a-b", "def", "t", "v12", "x y", "é"] {
        assert!(
            matches!(
                export(&g, Closure::Paper, Language::Python, bad),
                Err(ExportError::BadName { .. })
            ),
            "{bad:?} accepted"
        );
    }
    assert!(export(
        &g,
        Closure::Paper,
        Language::Sql(Dialect::Postgres),
        "SELECT"
    )
    .is_err());
    assert!(export(&g, Closure::Paper, Language::Sql(Dialect::Sqlite), "x").is_err());
    assert!(export(&g, Closure::Paper, Language::C, "x").is_ok());
    assert!(export(&g, Closure::Paper, Language::Rust, "my_score2").is_ok());
}

#[test]
fn language_names_round_trip() {
    for l in Language::ALL {
        assert_eq!(l.name().parse::<Language>().unwrap(), l);
    }
    assert_eq!("Python".parse::<Language>().unwrap(), Language::Python);
    assert!("cobol".parse::<Language>().is_err());
}

#[test]
fn a_function_may_not_take_a_name_its_code_would_hide() {
    let g = f("t / n");
    // Python's reference division calls `abs`; a function named so would shadow it.
    let err = export(&g, Closure::Reference, Language::Python, "abs").unwrap_err();
    assert!(err.to_string().contains("python reserves it"), "{err}");
    // SQL compares in lower case.
    let err = export(&g, Closure::Paper, Language::Sql(Dialect::Sqlite), "SELECT");
    assert!(err.is_err());
    for language in Language::ALL {
        for &word in language.reserved() {
            assert!(
                export(&g, Closure::Paper, language, word).is_err(),
                "{language}: {word}"
            );
        }
    }
}
