//! Tests of the compiled evaluator against the interpreter: batches, tables, splits and
//! recalled libm answers.

use super::*;
use crate::eval::interpret;

fn check(text: &str, closure: Closure, rows: &[[f64; Terminal::COUNT]]) {
    let f: Formula = text.parse().unwrap();
    let program = Program::compile(&f, closure);
    let cols: Vec<Vec<f64>> = (0..Terminal::COUNT)
        .map(|k| rows.iter().map(|r| r[k]).collect())
        .collect();
    let mut columns = Columns::new(rows.len());
    for t in Terminal::ALL {
        columns = columns.with(t, &cols[t.index()]);
    }
    let mut out = vec![0.0; rows.len()];
    program.eval_batch(&columns, &mut out, &mut Scratch::new());
    for (row, got) in rows.iter().zip(&out) {
        let want = interpret(&f, closure, row);
        assert_eq!(got.to_bits(), want.to_bits(), "{text} batch on {row:?}");
        let one = program.eval_one(row);
        assert_eq!(one.to_bits(), want.to_bits(), "{text} one on {row:?}");
    }
}

/// A split formula's residual over its inputs' values is the whole formula, bit for
/// bit, wherever the per-page terminals sit; its inputs read no per-page terminal.
#[test]
fn a_split_formula_computes_the_whole() {
    const N: usize = 600;
    let per_page = |t: Terminal| matches!(t, Terminal::W | Terminal::HR);
    let texts = [
        "w * (1 - exp(-MLE * t)) + HR * X7 / tc",
        "w",
        "t + 1",
        "log(w) / (t * HR)",
        "pow(t + 1, w / 10) / (X7 + HR * w + 1) - exp(-MLE * tc) * w + CG",
        "X + (w * (n + (HR - exp(t))))",
        "-(HR) * 2 + 3 * exp(0.5)",
        // Subtrees of one count terminal with libm calls are tabulated.
        "exp(-t / 2) * w + log(n + 1) * HR + pow(0.5, X) / w",
    ];
    let mut state = 3u64;
    let mut next = || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
        (state >> 40) as f64 / 4096.0 - 1024.0
    };
    // A first chunk of small counts (tabulated subtrees look them up), one of both,
    // then fractions of either sign.
    let rows: Vec<Vec<f64>> = (0..Terminal::COUNT)
        .map(|_| {
            (0..N)
                .map(|i| match i < 300 {
                    true => next().abs().floor() % 9.0,
                    false => next(),
                })
                .collect()
        })
        .collect();
    let mut columns = Columns::new(N);
    for t in Terminal::ALL {
        columns = columns.with(t, &rows[t.index()]);
    }
    for closure in [Closure::Paper, Closure::Reference] {
        for text in texts {
            let f: Formula = text.parse().unwrap();
            let split = Split::new(&f, closure, per_page);
            let mut whole = vec![0.0; N];
            Program::compile(&f, closure).eval_batch(&columns, &mut whole, &mut Scratch::new());
            let inputs: Vec<Vec<f64>> = (split.inputs().iter())
                .map(|input| {
                    assert!(!input.terminals().iter().any(|&t| per_page(t)), "{text}");
                    let mut values = vec![0.0; N];
                    input.eval_batch(&columns, &mut values, &mut Scratch::new());
                    values
                })
                .collect();
            let mut only = Columns::new(N).with_inputs(&inputs);
            for &t in split.residual().terminals() {
                assert!(per_page(t), "{text}: the residual reads {t}");
                only = only.with(t, &rows[t.index()]);
            }
            let mut parts = vec![0.0; N];
            split
                .residual()
                .eval_batch(&only, &mut parts, &mut Scratch::new());
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&parts), bits(&whole), "{text} ({closure:?})");
        }
    }
    let f: Formula = "w * (1 - exp(-MLE * t)) + HR * X7 / tc".parse().unwrap();
    assert_eq!(Split::new(&f, Closure::Paper, per_page).inputs().len(), 3);
}

#[test]
fn runs_of_equal_inputs_reuse_only_bit_equal_answers() {
    // libm's last answer is kept for a run of inputs equal bit for bit: +0 and -0
    // (equal as numbers, not for `pow(x, -1)`), and NaN payloads, must not share it.
    let values = [
        0.0,
        0.0,
        -0.0,
        -0.0,
        0.0,
        f64::NAN,
        f64::NAN,
        -f64::NAN,
        2.0,
        2.0,
    ]
    .into_iter()
    .chain([3.0, 3.0, 3.0, -1.5, -1.5, f64::INFINITY, f64::NEG_INFINITY]);
    let rows: Vec<[f64; Terminal::COUNT]> = values
        .enumerate()
        .map(|(i, v)| {
            let mut row = [0.5; Terminal::COUNT];
            row[Terminal::GAD.index()] = v;
            // The second operand changes every third row: runs of equal pairs
            // are shorter than runs of equal first operands.
            row[Terminal::AAD.index()] = [-1.0, -1.0, 2.0][i % 3];
            row
        })
        .collect();
    for closure in [Closure::Paper, Closure::Reference] {
        for text in [
            "pow(GAD, AAD)",
            "pow(AAD, GAD)",
            "exp(GAD)",
            "log(GAD)",
            "exp(GAD) + log(GAD) * pow(GAD, GAD)",
        ] {
            check(text, closure, &rows);
        }
    }
}

#[test]
fn matches_the_interpreter() {
    let rows: Vec<[f64; Terminal::COUNT]> = (0..600)
        .map(|i| {
            let x = i as f64;
            [
                x % 7.0 + 1.0,
                x,
                (x * 0.37).floor(),
                x / 13.0,
                -x,
                0.0,
                1e300,
                x.sin(),
                x * 0.25,
                x % 5.0,
                (x % 8.0).min(7.0),
                (x % 3.0).min(x % 8.0),
                1.0 / (x + 1.0),
                (x + 2.0).ln(),
                1.0 / (x + 3.0),
                (x % 31.0).min(30.0),
                (x % 11.0).min(x % 31.0),
                1.0 / (x + 4.0),
                (x % 100.0 + 1.0) / 100.0,
            ]
        })
        .collect();
    for text in [
        "t",
        "3",
        "-t",
        "t + 1",
        "1 + t",
        "t * n - X / CG",
        "(t * X)^100.1",
        "exp(CG * (1 + log(t)))",
        "pow(99.5 * exp(GAD), (t + GAD)^CG)",
        "1 + X/n - 2.73/(t + 2.72) - 10",
        "log(NAD) / SAD + AAD ^ -GAD",
        "-(log(2) * 3)",
        "exp(t) * exp(n) - exp(X) * exp(t)",
        "w * MLE / (HR + tc) - n7 ^ X7",
        "X30 / n30 + GR * P",
    ] {
        check(text, Closure::Paper, &rows);
        check(text, Closure::Reference, &rows);
    }
}

/// Rows whose counting terminals stay inside the tables (and, past `in_range` rows,
/// leave them), with other terminals varying.
fn count_rows(len: usize, in_range: usize) -> Vec<[f64; Terminal::COUNT]> {
    (0..len)
        .map(|i| {
            let x = i as f64;
            let mut row = [0.0; Terminal::COUNT];
            for t in Terminal::ALL {
                row[t.index()] = match (t.is_count(), i < in_range) {
                    (true, true) => ((i * (t.index() + 3)) % TABLE) as f64,
                    (true, false) => (TABLE + i) as f64,
                    (false, _) => (x * 0.37 + t.index() as f64).sin(),
                };
            }
            row[Terminal::SAD.index()] = (i % 2) as f64;
            row
        })
        .collect()
}

const TABULATED: [&str; 7] = [
    "0.5^t",
    "GAD * 0.5^t + log(n + 1) * exp(-X / 2)",
    "pow(t, 1.5) - exp(SAD) * AAD",
    "exp(pow(n - 1000, n - 1000)) + log(log(0.5 / t) / -31777.5) * CG",
    "log(tc) + exp(n7) * X7 - log(n30 + X30) / w",
    "-log(t)",
    "t^n * exp(t)",
];

#[test]
fn tabulated_subtrees_match_the_interpreter() {
    for text in TABULATED {
        // In the tables, out of them from the second chunk on, and in one short chunk.
        for rows in [count_rows(600, 600), count_rows(600, 300), count_rows(7, 7)] {
            check(text, Closure::Paper, &rows);
            check(text, Closure::Reference, &rows);
        }
    }
}

#[test]
fn tabulates_the_largest_subtrees_of_one_count_that_call_libm() {
    let tables = |text: &str| {
        let program = Program::compile(&text.parse().unwrap(), Closure::Paper);
        let roots: Vec<String> = program
            .tables
            .iter()
            .map(|table| format!("{}@{}", table.program.code.len(), table.terminal))
            .collect();
        roots.join(" ")
    };
    assert_eq!(tables("0.5^t"), "1@t");
    assert_eq!(tables("GAD * 0.5^t"), "1@t");
    assert_eq!(tables("GAD * log(0.5 / t + 1)"), "3@t");
    assert_eq!(tables("exp(n) + log(t)"), "1@n 1@t");
    // No libm call, another terminal, or two counts: nothing to tabulate.
    assert_eq!(tables("t * 2 + n"), "");
    assert_eq!(tables("exp(GAD)"), "");
    assert_eq!(tables("pow(t, n)"), "");
    assert_eq!(tables("log(7)"), "");
}

#[test]
fn tables_hold_counts_only() {
    let f: Formula = "exp(t)".parse().unwrap();
    let table = Table::new(&f, Terminal::T, Closure::Paper);
    for v in 0..TABLE {
        let x = v as f64;
        assert_eq!(
            table.get(x).map(f64::to_bits),
            Some(x.exp().to_bits()),
            "{v}"
        );
    }
    let below = |x: f64| f64::from_bits(x.to_bits() - 1);
    let above = |x: f64| f64::from_bits(x.to_bits() + 1);
    for outside in [
        -0.0,
        0.5,
        2.5,
        below(3.0),
        above(3.0),
        above(63.0),
        4.9e-324,
        -1.0,
        TABLE as f64,
        65.0,
        SHIFT,
        SHIFT + 3.0,
        f64::NAN,
        -f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        1e300,
    ] {
        assert_eq!(table.get(outside), None, "{outside:e}");
    }
}

#[test]
fn leaf_and_constant_programs() {
    let p = Program::compile(&"log(100) * 2".parse().unwrap(), Closure::Paper);
    assert_eq!(p.code.len(), 1);
    assert_eq!(p.eval_one(&[0.0; Terminal::COUNT]), 100f64.ln() * 2.0);
}

#[test]
fn deep_formulas_use_the_heap_path() {
    let text = (0..40).fold("t".to_string(), |acc, _| format!("n - ({acc})"));
    check(
        &text,
        Closure::Paper,
        &[[
            1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0,
            17.0, 18.0, 19.0,
        ]],
    );
}
