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

/// The scopes of the per-page simulator's shared states (the terminals' own: `w` fixed,
/// `HR` per host).
fn scope(t: Terminal) -> Scope {
    t.scope()
}

/// Pages of a few states and hosts: each terminal's value per page is its state's (a
/// terminal of [`Scope::State`]), its host's (`HR`) or its own (`w`).
struct Pages {
    of_state: Vec<u32>,
    of_host: Vec<u32>,
    /// Per terminal, the value of each state, host or page (as its scope says).
    own: Vec<Vec<f64>>,
    /// Per terminal, the value of each page.
    rows: Vec<Vec<f64>>,
}

impl Pages {
    const PAGES: usize = 600;
    const STATES: u32 = 37;
    const HOSTS: u32 = 11;

    /// States 0..20 hold small counts (tabulated subtrees look them up) and the first
    /// 300 pages are theirs; the other states hold fractions of either sign.
    fn new() -> Pages {
        let mut state = 3u64;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
            state >> 33
        };
        let fraction = |x: u64| (x >> 8) as f64 / 4096.0 - 1024.0;
        let of_state: Vec<u32> = (0..Pages::PAGES)
            .map(|p| match p < 300 {
                true => next() as u32 % 20,
                false => next() as u32 % Pages::STATES,
            })
            .collect();
        let of_host: Vec<u32> = (0..Pages::PAGES)
            .map(|_| next() as u32 % Pages::HOSTS)
            .collect();
        let own: Vec<Vec<f64>> = (Terminal::ALL.iter())
            .map(|&t| {
                let len = match scope(t) {
                    Scope::State => Pages::STATES as usize,
                    Scope::Host => Pages::HOSTS as usize,
                    Scope::Fixed => Pages::PAGES,
                };
                (0..len)
                    .map(|i| match (scope(t), i < 20) {
                        (Scope::State, true) => (next() % 9) as f64,
                        _ => fraction(next()),
                    })
                    .collect()
            })
            .collect();
        let rows = (Terminal::ALL.iter())
            .map(|&t| {
                let values = &own[t.index()];
                (0..Pages::PAGES)
                    .map(|p| match scope(t) {
                        Scope::State => values[of_state[p] as usize],
                        Scope::Host => values[of_host[p] as usize],
                        Scope::Fixed => values[p],
                    })
                    .collect()
            })
            .collect();
        Pages {
            of_state,
            of_host,
            own,
            rows,
        }
    }

    /// Each of `programs` evaluated over the values it reads, `len` of them.
    fn eval(&self, programs: &[Program], len: usize, kind: Scope) -> Vec<Vec<f64>> {
        (programs.iter())
            .map(|input| {
                let mut columns = Columns::new(len);
                for &t in input.terminals() {
                    assert_eq!(scope(t), kind, "an input of {kind:?} reads {t}");
                    columns = columns.with(t, &self.own[t.index()]);
                }
                let mut values = vec![0.0; len];
                input.eval_batch(&columns, &mut values, &mut Scratch::new());
                values
            })
            .collect()
    }

    /// Whether the split of `f` over these pages gives the whole program's scores, bit
    /// for bit (each input evaluated once per state, host or page, then gathered).
    fn split_matches(&self, f: &Formula, closure: Closure) -> bool {
        let n = Pages::PAGES;
        let mut whole = Columns::new(n);
        for t in Terminal::ALL {
            whole = whole.with(t, &self.rows[t.index()]);
        }
        let mut want = vec![0.0; n];
        Program::compile(f, closure).eval_batch(&whole, &mut want, &mut Scratch::new());
        let split = Split::new(f, closure, scope);
        let states = self.eval(split.state(), Pages::STATES as usize, Scope::State);
        let hosts = self.eval(split.host(), Pages::HOSTS as usize, Scope::Host);
        let fixed = self.eval(split.fixed(), n, Scope::Fixed);
        let state = (states.as_slice(), self.of_state.as_slice());
        let host = (hosts.as_slice(), self.of_host.as_slice());
        let mut parts = split.columns(n, state, host, &fixed);
        for &t in split.residual().terminals() {
            assert_eq!(scope(t), Scope::Fixed, "{f}: the residual reads {t}");
            parts = parts.with(t, &self.rows[t.index()]);
        }
        let mut got = vec![0.0; n];
        split
            .residual()
            .eval_batch(&parts, &mut got, &mut Scratch::new());
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        bits(&got) == bits(&want)
    }
}

/// A split formula's residual over its inputs' values is the whole formula, bit for
/// bit, wherever the terminals of each scope sit; each input reads terminals of one
/// scope.
#[test]
fn a_split_formula_computes_the_whole() {
    let texts = [
        "w * (1 - exp(-MLE * t)) + HR * X7 / tc",
        "w",
        "HR",
        "t + 1",
        "log(w) / (t * HR)",
        "pow(t + 1, w / 10) / (X7 + HR * w + 1) - exp(-MLE * tc) * w + CG",
        "X + (w * (n + (HR - exp(t))))",
        "-(HR) * 2 + 3 * exp(0.5)",
        // Subtrees of one count terminal with libm calls are tabulated.
        "exp(-t / 2) * w + log(n + 1) * HR + pow(0.5, X) / w",
        // Fixed and host inputs: operators on `w` or `HR` alone, at the root or beside
        // other inputs.
        "log(w)",
        "exp(HR * 2)",
        "exp(w^2) * t + log(w / 2) - pow(10, -w) * log(HR + 2)",
        "pow(w, w + 1) / (exp(t) + w) + log(HR) * exp(-HR)",
    ];
    let pages = Pages::new();
    for closure in [Closure::Paper, Closure::Reference] {
        for text in texts {
            let f: Formula = text.parse().unwrap();
            assert!(pages.split_matches(&f, closure), "{text} ({closure:?})");
        }
    }
    let f: Formula = "w * (1 - exp(-MLE * t)) + HR * X7 / tc".parse().unwrap();
    let split = Split::new(&f, Closure::Paper, scope);
    let counts = |s: &Split| (s.state().len(), s.host().len(), s.fixed().len());
    assert_eq!(counts(&split), (3, 1, 0));
    let f: Formula = "w * (1 - exp(-MLE * t)) + exp(HR) * X7 / log(w) + exp(w * 2)"
        .parse()
        .unwrap();
    let split = Split::new(&f, Closure::Paper, scope);
    assert_eq!(counts(&split), (2, 1, 2));
    assert_eq!(split.residual().terminals(), [Terminal::W]);
}

/// The residual's columns must hold every group of inputs the split has: a host input
/// left out is refused, not read from the fixed inputs' columns.
#[test]
#[should_panic(expected = "inputs given (state, host, fixed) against the split's")]
fn a_split_refuses_columns_without_its_host_inputs() {
    let f: Formula = "log(HR) * w + exp(w)".parse().unwrap();
    let split = Split::new(&f, Closure::Paper, scope);
    let fixed = vec![vec![1.0; 4]];
    split.columns(4, (&[], &[]), (&[], &[]), &fixed);
}

/// The same for random formulas over terminals of every scope, with every operator.
#[test]
fn random_split_formulas_compute_the_whole() {
    use crate::formula::{Node, Op};
    let leaves = [
        Node::Var(Terminal::T),
        Node::Var(Terminal::N),
        Node::Var(Terminal::MLE),
        Node::Var(Terminal::X7),
        Node::Var(Terminal::W),
        Node::Var(Terminal::HR),
        Node::Const(0.5),
        Node::Const(2.0),
        Node::Const(-1.0),
    ];
    let mut state = 11u64;
    let mut next = |below: usize| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize % below
    };
    fn grow(
        depth: usize,
        next: &mut impl FnMut(usize) -> usize,
        leaves: &[Node],
        out: &mut Vec<Node>,
    ) {
        if depth == 1 || next(3) == 0 {
            out.push(leaves[next(leaves.len())]);
            return;
        }
        let op = Op::ALL[next(Op::ALL.len())];
        for _ in 0..op.arity() {
            grow(depth - 1, next, leaves, out);
        }
        out.push(Node::from(op));
    }
    let pages = Pages::new();
    for i in 0..400 {
        let mut nodes = Vec::new();
        grow(2 + i % 6, &mut next, &leaves, &mut nodes);
        let f = Formula::from_postfix(nodes).unwrap();
        for closure in [Closure::Paper, Closure::Reference] {
            assert!(pages.split_matches(&f, closure), "{f} ({closure:?})");
        }
    }
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
