//! Property tests for the formula language and its evaluators.
//!
//! Random formulas mix every terminal, constants (negative, `0`, `-0`, tiny, huge, `e`)
//! and every operator, up to depth 8. The properties: printing and parsing are inverse;
//! simplification and canonical form keep every value bit for bit; the compiled program
//! agrees with the interpreter bit for bit; nothing evaluates to NaN; the parser never
//! panics and always points inside the text.

use freshgp::eval::{interpret, Columns, Program, Scratch, CHUNK};
use freshgp::formula::{BinaryOp, Closure, Formula, Grammar, Node, Terminal, UnaryOp};
use proptest::prelude::*;
use proptest::sample::select;
use std::f64::consts::E;

const CLOSURES: [Closure; 2] = [Closure::Paper, Closure::Reference];

/// Constants a formula may hold: special values and arbitrary finite ones.
fn constant() -> impl Strategy<Value = f64> {
    prop_oneof![
        3 => select(vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            2.0,
            -2.0,
            0.5,
            100.1,
            E,
            -E,
            1e-7,
            1e-300,
            -1e-300,
            5e-324,
            -5e-324,
            f64::MIN_POSITIVE,
            1e21,
            1e300,
            -1e300,
            f64::MAX,
            f64::MIN,
        ]),
        2 => -1e3..1e3f64,
        1 => any::<f64>().prop_filter("finite", |c| c.is_finite()),
    ]
}

fn leaf() -> impl Strategy<Value = Formula> {
    prop_oneof![
        3 => select(Terminal::ALL.to_vec()).prop_map(Formula::var),
        2 => constant().prop_map(Formula::constant),
    ]
}

/// Random formulas of depth up to 8 over every terminal and operator.
fn formula() -> impl Strategy<Value = Formula> {
    leaf().prop_recursive(8, 256, 2, |inner| {
        prop_oneof![
            1 => (select(UnaryOp::ALL.to_vec()), inner.clone())
                .prop_map(|(op, a)| Formula::unary(op, &a)),
            3 => (select(BinaryOp::ALL.to_vec()), inner.clone(), inner)
                .prop_map(|(op, a, b)| Formula::binary(op, &a, &b)),
        ]
    })
}

/// Terminal values, including -0.0 when `negative_zero` (the simplifier assumes none).
fn value(negative_zero: bool) -> impl Strategy<Value = f64> {
    prop_oneof![
        3 => select(vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            2.0,
            -2.5,
            0.5,
            E,
            1e-7,
            1e-300,
            5e-324,
            -5e-324,
            1e300,
            -1e300,
            f64::MAX,
            f64::MIN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ]),
        2 => -30.0..30.0f64,
        1 => any::<f64>().prop_filter("not NaN", |x| !x.is_nan()),
    ]
    .prop_map(move |x| if x == 0.0 && !negative_zero { 0.0 } else { x })
}

fn rows(negative_zero: bool, max: usize) -> impl Strategy<Value = Vec<[f64; Terminal::COUNT]>> {
    prop::collection::vec(prop::array::uniform19(value(negative_zero)), 1..max)
}

/// The nodes spelled out, so a failure is readable even if the printer is at fault.
fn postfix(f: &Formula) -> String {
    f.nodes()
        .iter()
        .map(|n| match n {
            Node::Const(c) => format!("{c:?}"),
            Node::Var(t) => t.name().to_string(),
            Node::Unary(op) => op.name().to_string(),
            Node::Binary(op) => op.name().to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `f` with the operands of the `+` and `*` nodes whose bit in `mask` is set swapped.
fn commute(f: &Formula, mask: u64) -> Formula {
    let mut stack: Vec<Formula> = Vec::new();
    for (i, node) in f.nodes().iter().enumerate() {
        let next = match *node {
            Node::Unary(op) => {
                let a = stack.pop().unwrap();
                Formula::unary(op, &a)
            }
            Node::Binary(op) => {
                let b = stack.pop().unwrap();
                let a = stack.pop().unwrap();
                if op.is_commutative() && mask >> (i % 64) & 1 == 1 {
                    Formula::binary(op, &b, &a)
                } else {
                    Formula::binary(op, &a, &b)
                }
            }
            Node::Const(c) => Formula::constant(c),
            Node::Var(t) => Formula::var(t),
        };
        stack.push(next);
    }
    stack.pop().unwrap()
}

fn same_bits(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits()
}

/// Cases per formula property: 1000, or `FORMULA_PROPS_CASES` for a longer hunt.
fn formula_cases() -> u32 {
    std::env::var("FORMULA_PROPS_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(formula_cases()))]

    #[test]
    fn print_then_parse_is_identity(f in formula()) {
        let text = f.to_string();
        let back = Formula::parse(&text, &Grammar::every())
            .map_err(|e| TestCaseError::fail(format!("`{text}` ({}) does not parse: {e}", postfix(&f))))?;
        prop_assert_eq!(back.nodes().len(), f.nodes().len(), "`{}` from {}", text, postfix(&f));
        prop_assert!(back == f, "`{}`: {} became {}", text, postfix(&f), postfix(&back));
        // Printing is deterministic and a fixed point of parse-then-print.
        prop_assert_eq!(&f.clone().to_string(), &text);
        prop_assert_eq!(&back.to_string(), &text);
    }

    #[test]
    fn serde_and_subtrees_are_consistent(f in formula()) {
        let json = serde_json::to_string(&f).unwrap();
        let back: Formula = serde_json::from_str(&json).unwrap();
        prop_assert!(back == f, "{json}");
        let mut sizes = Vec::new();
        f.subtree_sizes_into(&mut sizes);
        let depths = f.node_depths();
        prop_assert_eq!(depths[f.root()], 0);
        prop_assert_eq!(depths.iter().max().copied(), Some(f.depth()));
        for i in 0..f.len() {
            let sub = f.subformula(i);
            prop_assert_eq!(sub.len(), sizes[i]);
            prop_assert_eq!(f.subtree(i).len(), sizes[i]);
            prop_assert!(f.replace_subtree(i, sub.nodes()) == f);
            for c in f.children(i) {
                prop_assert_eq!(depths[c], depths[i] + 1);
            }
        }
    }

    #[test]
    fn simplify_and_canonical_keep_every_value(f in formula(), rows in rows(false, 24)) {
        for closure in CLOSURES {
            let s = f.simplify(closure);
            let c = f.canonical(closure);
            for row in &rows {
                let want = interpret(&f, closure, row);
                let got_s = interpret(&s, closure, row);
                let got_c = interpret(&c, closure, row);
                prop_assert!(same_bits(want, got_s),
                    "{closure:?} simplify `{f}` -> `{s}` on {row:?}: {want:?} vs {got_s:?}");
                prop_assert!(same_bits(want, got_c),
                    "{closure:?} canonical `{f}` -> `{c}` on {row:?}: {want:?} vs {got_c:?}");
            }
        }
    }

    #[test]
    fn canonical_is_idempotent_and_ignores_commuted_operands(f in formula(), mask in any::<u64>()) {
        for closure in CLOSURES {
            let c = f.canonical(closure);
            let again = c.canonical(closure);
            prop_assert!(again == c, "{closure:?} `{f}`: canonical `{c}`, then `{again}`");
            let g = commute(&f, mask);
            let cg = g.canonical(closure);
            prop_assert!(cg == c, "{closure:?} `{f}` -> `{c}` but commuted `{g}` -> `{cg}`");
            prop_assert_eq!(cg.structural_hash(), c.structural_hash());
        }
    }

    #[test]
    fn compiled_program_matches_the_interpreter(
        f in formula(),
        rows in rows(true, 40),
        len in (CHUNK + 1..3 * CHUNK).prop_filter("not a multiple of CHUNK", |l| l % CHUNK != 0),
    ) {
        let rows: Vec<[f64; Terminal::COUNT]> = rows.iter().cycle().take(len).copied().collect();
        let cols: Vec<Vec<f64>> = (0..Terminal::COUNT).map(|k| rows.iter().map(|r| r[k]).collect()).collect();
        let mut columns = Columns::new(len);
        for t in Terminal::ALL {
            columns = columns.with(t, &cols[t.index()]);
        }
        let mut scratch = Scratch::new();
        for closure in CLOSURES {
            let program = Program::compile(&f, closure);
            let mut out = vec![f64::NAN; len + 3];
            program.eval_batch(&columns, &mut out, &mut scratch);
            for (k, row) in rows.iter().enumerate() {
                let want = interpret(&f, closure, row);
                prop_assert!(!want.is_nan(), "{closure:?} `{f}` is NaN on {row:?}");
                prop_assert!(same_bits(out[k], want),
                    "{closure:?} batch `{f}` page {k} {row:?}: {:?} vs {want:?}", out[k]);
                let one = program.eval_one(row);
                prop_assert!(same_bits(one, want),
                    "{closure:?} one `{f}` on {row:?}: {one:?} vs {want:?}");
            }
            // Nothing past the batch is written.
            prop_assert!(out[len..].iter().all(|x| x.is_nan()));
        }
    }

    #[test]
    fn no_formula_evaluates_to_nan(f in formula(), rows in rows(true, 24)) {
        for closure in CLOSURES {
            let s = f.simplify(closure);
            for row in &rows {
                let v = interpret(&f, closure, row);
                prop_assert!(!v.is_nan(), "{closure:?} `{f}` on {row:?}");
                let v = interpret(&s, closure, row);
                prop_assert!(!v.is_nan(), "{closure:?} simplified `{s}` on {row:?}");
            }
        }
    }

    #[test]
    fn simplified_formulas_print_and_parse_back(f in formula()) {
        for closure in CLOSURES {
            for g in [f.simplify(closure), f.canonical(closure)] {
                let text = g.to_string();
                let back = Formula::parse(&text, &Grammar::every())
                    .map_err(|e| TestCaseError::fail(format!("`{text}` does not parse: {e}")))?;
                prop_assert!(back == g, "`{}`: {} became {}", text, postfix(&g), postfix(&back));
            }
        }
    }
}

/// Pieces of formula text, valid and not, for the string fuzzer.
const TOKENS: &[&str] = &[
    "t",
    "n",
    "X",
    "CG",
    "NAD",
    "SAD",
    "AAD",
    "GAD",
    "e",
    "E",
    "x",
    "log",
    "exp",
    "pow",
    "sin",
    "(",
    ")",
    ",",
    "+",
    "-",
    "*",
    "/",
    "^",
    " ",
    "\t",
    "\n",
    "0",
    "1",
    "2.5",
    ".5",
    "1.",
    "1e3",
    "1e-7",
    "1e999",
    "2E+10",
    "1_000",
    "_",
    "f64",
    ".",
    "e5",
    "1e",
    "9",
    "×",
    "é",
    "\u{a0}",
    "\u{1F600}",
    "$",
    "--",
    "((",
    "))",
];

fn token_text() -> impl Strategy<Value = String> {
    prop::collection::vec(select(TOKENS.to_vec()), 0..24).prop_map(|ts| ts.concat())
}

/// Checks one parse: an error points inside the text on a char boundary; a success prints
/// to text that parses back to the same formula.
fn check_parse(text: &str, grammar: &Grammar) -> Result<(), TestCaseError> {
    match Formula::parse(text, grammar) {
        Ok(f) => {
            let printed = f.to_string();
            let back = Formula::parse(&printed, grammar).map_err(|e| {
                TestCaseError::fail(format!("`{text}` printed `{printed}`, which fails: {e}"))
            })?;
            prop_assert!(back == f, "`{}` -> `{}` -> `{}`", text, printed, back);
        }
        Err(e) => {
            prop_assert!(e.offset <= text.len(), "`{}`: offset {}", text, e.offset);
            prop_assert!(
                text.is_char_boundary(e.offset),
                "`{}`: offset {} inside a char",
                text,
                e.offset
            );
            prop_assert!(!e.found.is_empty() && !e.expected.is_empty());
        }
    }
    Ok(())
}

/// Many cases: this is the runnable stand-in for the cargo-fuzz target (`fuzz/`).
fn string_cases() -> u32 {
    if let Some(n) = std::env::var("FORMULA_PROPS_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        n
    } else if cfg!(debug_assertions) {
        4_000
    } else {
        20_000
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(string_cases()))]

    #[test]
    fn parser_never_panics_on_token_soup(text in token_text()) {
        check_parse(&text, &Grammar::every())?;
        check_parse(&text, &Grammar::basic())?;
    }

    #[test]
    fn parser_never_panics_on_arbitrary_unicode(text in any::<String>()) {
        check_parse(&text, &Grammar::every())?;
    }
}

#[test]
fn deepest_accepted_nesting_does_not_overflow_a_small_stack() {
    // The parser recurses once per nesting level; the deepest formula of every kind of
    // nesting must parse on a thread with less than the default 2 MiB stack, in debug
    // builds too (it overflowed with MAX_NESTING = 256: `log(` x 256 needs 2.4 MiB).
    let depth = freshgp::formula::MAX_NESTING;
    let texts = [
        (format!("{}t{}", "(".repeat(depth), ")".repeat(depth)), 0),
        (
            format!("{}t{}", "log(".repeat(depth), ")".repeat(depth)),
            depth,
        ),
        (
            format!("{}t{}", "pow(t, ".repeat(depth), ")".repeat(depth)),
            depth,
        ),
        (format!("{}t", "-".repeat(depth)), depth),
        (vec!["t"; depth + 1].join("^"), depth),
        (
            format!("{}t{}", "(-".repeat(depth / 2), ")".repeat(depth / 2)),
            depth / 2,
        ),
    ];
    std::thread::Builder::new()
        .stack_size(3 << 19)
        .spawn(move || {
            for (text, height) in &texts {
                let f = Formula::parse(text, &Grammar::every())
                    .unwrap_or_else(|e| panic!("{}...: {e}", &text[..20]));
                assert_eq!(f.depth(), *height, "{}...", &text[..20]);
            }
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn nesting_past_the_limit_is_an_error() {
    let depth = freshgp::formula::MAX_NESTING + 1;
    for text in [
        format!("{}t{}", "(".repeat(depth), ")".repeat(depth)),
        format!("{}t{}", "log(".repeat(depth), ")".repeat(depth)),
        format!("{}t", "-".repeat(depth)),
    ] {
        let e = Formula::parse(&text, &Grammar::every()).unwrap_err();
        assert!(e.expected.contains("levels of nesting"), "{e}");
    }
}

/// Found by the fuzzer: a chain of unary minus before a number printed as `-(-(-(...`,
/// nesting twice as deep as the text it was read from, past the parser's limit.
#[test]
fn what_parses_at_the_nesting_limit_prints_back() {
    let depth = freshgp::formula::MAX_NESTING;
    let texts = [
        format!("{}1001.77", "-".repeat(depth)),
        format!("{}t", "-".repeat(depth)),
        format!("{}t{}", "pow(t, 1 + ".repeat(depth), ")".repeat(depth)),
        format!(
            "{}t{}",
            "pow(-t, -".repeat(depth / 2),
            ")".repeat(depth / 2)
        ),
        format!("{}t{}", "-(".repeat(depth / 2), " + 1)".repeat(depth / 2)),
    ];
    for text in &texts {
        let f = Formula::parse(text, &Grammar::every())
            .unwrap_or_else(|e| panic!("{}...: {e}", &text[..20]));
        let printed = f.to_string();
        let back = Formula::parse(&printed, &Grammar::every())
            .unwrap_or_else(|e| panic!("{}... printed {}...: {e}", &text[..20], &printed[..20]));
        assert_eq!(back, f);
    }
}

/// A terminal's value within its documented range ([`Terminal::range`]): its bounds, small
/// integers and reals inside.
fn ranged_value(t: Terminal) -> impl Strategy<Value = f64> {
    let r = t.range();
    let hi = r.hi.min(1e12);
    prop_oneof![
        2 => select(vec![r.lo, hi, (r.lo + hi) / 2.0]),
        3 => (0u32..40).prop_map(move |k| f64::from(k).clamp(r.lo, hi)),
        3 => r.lo..=hi,
    ]
}

/// Pages whose every terminal lies in its range.
fn ranged_rows(max: usize) -> impl Strategy<Value = Vec<[f64; Terminal::COUNT]>> {
    let row: Vec<_> = Terminal::ALL.iter().map(|&t| ranged_value(t)).collect();
    prop::collection::vec(
        row.prop_map(|r| <[f64; Terminal::COUNT]>::try_from(r).unwrap()),
        2..max,
    )
}

/// A random formula under a random stack of monotone functions (so that the rank form has
/// something to strip), or a random formula alone.
fn monotone_wrapped() -> impl Strategy<Value = Formula> {
    let wrap = (0u8..10, constant());
    (formula(), prop::collection::vec(wrap, 0..4)).prop_map(|(f, wraps)| {
        wraps.into_iter().fold(f, |f, (kind, c)| {
            let c = Formula::constant(c);
            match kind {
                0 => Formula::unary(UnaryOp::Exp, &f),
                1 => Formula::unary(UnaryOp::Log, &f),
                2 => Formula::unary(UnaryOp::Neg, &f),
                3 => Formula::binary(BinaryOp::Add, &f, &c),
                4 => Formula::binary(BinaryOp::Sub, &c, &f),
                5 => Formula::binary(BinaryOp::Mul, &c, &f),
                6 => Formula::binary(BinaryOp::Div, &f, &c),
                7 => Formula::binary(BinaryOp::Div, &c, &f),
                8 => Formula::binary(BinaryOp::Pow, &f, &c),
                _ => Formula::binary(BinaryOp::Pow, &c, &f),
            }
        })
    })
}

/// The ranking order of two scores: `-0` ties with `0` (as the simulators rank).
fn rank_order(a: f64, b: f64) -> std::cmp::Ordering {
    (a + 0.0).total_cmp(&(b + 0.0))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(formula_cases()))]

    /// The rank form refines the formula's ranking: pages the formula orders, it orders
    /// alike; pages it ties, the formula ties (docs/src/reference/formulas.md#rank-equivalence).
    #[test]
    fn the_rank_form_ranks_as_the_formula(f in monotone_wrapped(), rows in ranged_rows(24)) {
        for closure in CLOSURES {
            let g = f.rank_form(closure);
            prop_assert!(g.len() <= f.canonical(closure).len() + 1, "`{f}` -> `{g}`");
            let fv: Vec<f64> = rows.iter().map(|r| interpret(&f, closure, r)).collect();
            let gv: Vec<f64> = rows.iter().map(|r| interpret(&g, closure, r)).collect();
            for i in 0..rows.len() {
                for j in 0..rows.len() {
                    let (of, og) = (rank_order(fv[i], fv[j]), rank_order(gv[i], gv[j]));
                    prop_assert!(of == std::cmp::Ordering::Equal || of == og,
                        "{closure:?} `{f}` -> `{g}`: {:?} vs {:?} on {:?} and {:?} ({} {} / {} {})",
                        of, og, rows[i], rows[j], fv[i], fv[j], gv[i], gv[j]);
                }
            }
            // A fixed point.
            prop_assert!(g.rank_form(closure) == g, "`{g}` -> `{}`", g.rank_form(closure));
        }
    }
}
