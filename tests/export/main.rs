//! Exported code computes what freshgp computes, bit for bit.
//!
//! For each language, a seeded batch of random formulas (every operator and terminal, both
//! closures, constants and inputs that hit the protected cases: ±0, negatives, 1e-7, huge
//! values, ±inf, random bit patterns) plus the hand-written [`EXTENDED`] formulas over the
//! extended terminals (docs/src/reference/terminals.md) is exported into ONE program,
//! which is compiled once and fed every (formula, input) pair on stdin as hex bit
//! patterns; it prints the results' bit patterns, compared with [`Program::eval_one`].
//! The terminals of GP4C_All get adversarial values; the extended ones
//! (`w tc n7 X7 HR MLE`) get values in their real ranges ([`input`]).
//! Every width (values per input line, columns of the SQL table) comes from
//! [`Terminal::COUNT`] and [`Terminal::ALL`].
//!
//! Engines: Rust is always tested (rustc comes with cargo). The others, when missing, fail
//! the test where engines are required and are skipped with a loud note elsewhere
//! ([`common::absent`]): C needs `gcc` (Debian/Ubuntu: `apt-get install gcc`),
//! Java needs `javac` and `java` (`apt-get install default-jdk-headless`), Python and SQL
//! need `python3` (`apt-get install python3`); the SQL dialects' engines are in [`sql`].
//!
//! The exports of GP4C_All formulas (only the paper's eight terminals) are pinned byte for
//! byte: [`pinned::gp4c_all_exports_are_byte_identical`] holds one full export per target,
//! and [`pinned::gp4c_all_exports_digest_is_pinned`] a digest of many.

use common::{absent, loud};
use freshgp::eval::Program;
use freshgp::export::{arguments, export, Dialect, Language};
use freshgp::formula::{BinaryOp, Closure, Formula, Grammar, Node, Op, Terminal, UnaryOp};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::fmt::Write as _;
use std::io::Write as _;
use std::process::{Command, Stdio};

#[path = "../common/engines.rs"]
mod common;
mod pinned;
mod sql;

/// Random formulas per target (the last one is [`deep_formula`]).
const FORMULAS: usize = 200;
/// Inputs per formula.
const INPUTS: usize = 50;

/// Formulas over the extended terminals (docs/src/reference/terminals.md), cross-checked
/// in every target (under both closures) besides the random ones. Together they read each
/// of `w tc n7 X7 HR MLE` (checked by [`extended_formulas_read_every_extended_terminal`]).
const EXTENDED: &[&str] = &[
    "w * (1 - exp(-MLE * t))",
    "(X7 + 0.5) / (n7 + 1) * log(tc + 1)",
    "HR * tc - X7 / n7",
    "pow(MLE, 0.5) * w / tc + HR ^ n7",
    "w * exp(-tc / (1 + MLE)) - log(HR) + NAD * t",
    "(1 - exp(-MLE * t)) * w + HR * (X7 / n7) * CG - tc ^ -1",
    "MLE * w + HR / tc - X7 ^ n7 + GAD * t + X",
    "1 - pow(1 - P, t)",
    "P * w / (tc + MLE) + log(1 - P)",
    "X30 / (n30 + 1) * GR - n30 ^ X30",
    "GR * t + log(X30) * P - HR / n30",
    // `b` is also the name of the helpers' second operand, in their own scope.
    "w * (1 - exp(-MLE * t)) / (b + 0.01) + log(b) * tc",
    "pow(b, NAD) - b / (X + b) + exp(b * t)",
];

/// One test case: a formula, its closure and the terminal values to try.
struct Case {
    formula: Formula,
    closure: Closure,
    inputs: Vec<[f64; Terminal::COUNT]>,
}

const SPECIAL: [f64; 17] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    2.0,
    -2.0,
    0.5,
    3.0,
    1e-7,
    -1e-7,
    1e6,
    1e300,
    -1e300,
    5e-324,
    f64::INFINITY,
    f64::NEG_INFINITY,
    std::f64::consts::E,
];

fn random_value(rng: &mut Pcg64) -> f64 {
    match rng.gen_range(0..10) {
        0..=3 => SPECIAL[rng.gen_range(0..SPECIAL.len())],
        4 | 5 => rng.gen_range(-5.0..5.0),
        6 => rng.gen_range(0..20) as f64,
        7 => rng.gen_range(0.0..1.0),
        8 => rng.gen_range(-800.0..800.0),
        _ => loop {
            let x = f64::from_bits(rng.gen());
            if !x.is_nan() {
                break x;
            }
        },
    }
}

/// The terminals of GP4C_All (docs/src/reference/formulas.md#grammars), in column order.
fn gp4c_all() -> Vec<Terminal> {
    let all = Grammar::all();
    Terminal::ALL
        .into_iter()
        .filter(|&t| all.has_terminal(t))
        .collect()
}

/// One page's terminal values: adversarial ones ([`random_value`]) for the terminals of
/// GP4C_All, and for the extended terminals values in their real ranges
/// (docs/src/reference/terminals.md), edges included: `w >= 0`, `tc >= 1`,
/// `0 <= X7 <= n7 <= 7`, `0 <= HR <= 1`, `MLE > 0`, a probability `0 <= P <= 1`
/// (docs/src/reference/terminals.md#p) and a budget `0 < b <= 1`.
fn input(rng: &mut Pcg64) -> [f64; Terminal::COUNT] {
    let mut v: [f64; Terminal::COUNT] = std::array::from_fn(|_| random_value(rng));
    let n7 = rng.gen_range(0..=7u32);
    for t in Terminal::ALL {
        v[t.index()] = match t {
            Terminal::W => match rng.gen_range(0..4) {
                0 => 0.0,
                1 => 1.0,
                2 => rng.gen_range(0.0..10.0),
                _ => rng.gen_range(0.0..1e6),
            },
            // Cycles since the last detected change: the cycle number when none was.
            Terminal::TC => rng.gen_range(1..=60u32) as f64,
            Terminal::N7 => n7 as f64,
            Terminal::X7 => rng.gen_range(0..=n7) as f64,
            Terminal::HR => match rng.gen_range(0..4) {
                0 => 0.0,
                1 => 1.0,
                2 => rng.gen_range(0.0..=1.0),
                _ => {
                    let visits = rng.gen_range(1..=500u32);
                    rng.gen_range(0..=visits) as f64 / visits as f64
                }
            },
            Terminal::MLE => {
                if rng.gen_bool(0.5) {
                    // ln((n + 2) / (n - X + 1)): the value when every interval is 1.
                    let n = rng.gen_range(0..=57u32);
                    let x = rng.gen_range(0..=n);
                    (f64::from(n + 2) / f64::from(n - x + 1)).ln()
                } else {
                    rng.gen_range(-9.0f64..2.5).exp()
                }
            }
            Terminal::P => match rng.gen_range(0..4) {
                0 => 0.0,
                1 => 1.0,
                _ => rng.gen_range(0.0..=1.0),
            },
            Terminal::B => match rng.gen_range(0..4) {
                0 => 0.001,
                1 => 1.0,
                _ => rng.gen_range(0.0001..=1.0),
            },
            _ => continue,
        };
    }
    v
}

/// A random tree of depth at most `depth` over `terminals`, pushed in postfix order.
fn push_tree(rng: &mut Pcg64, depth: usize, terminals: &[Terminal], nodes: &mut Vec<Node>) {
    if depth == 0 || rng.gen_bool(0.25) {
        if rng.gen_bool(0.65) {
            nodes.push(Node::Var(terminals[rng.gen_range(0..terminals.len())]));
        } else {
            // Constants are finite (formulas reject ±inf constants); inputs need not be.
            let c = loop {
                let v = random_value(rng);
                if v.is_finite() {
                    break v;
                }
            };
            nodes.push(Node::Const(c));
        }
        return;
    }
    let op = Op::ALL[rng.gen_range(0..Op::ALL.len())];
    for _ in 0..op.arity() {
        push_tree(rng, depth - 1, terminals, nodes);
    }
    nodes.push(Node::from(op));
}

/// A random formula of depth below 7 over `terminals`.
fn random_formula(rng: &mut Pcg64, terminals: &[Terminal]) -> Formula {
    let mut nodes = Vec::new();
    let depth = rng.gen_range(0..7);
    push_tree(rng, depth, terminals, &mut nodes);
    Formula::from_postfix(nodes).unwrap()
}

/// A deep chain (depth 300) that mixes every operator and reads every terminal: generated
/// code must not recurse.
fn deep_formula() -> Formula {
    let mut nodes = vec![Node::Var(Terminal::T)];
    let ops = [
        Op::Binary(BinaryOp::Add),
        Op::Unary(UnaryOp::Log),
        Op::Binary(BinaryOp::Mul),
        Op::Unary(UnaryOp::Exp),
        Op::Binary(BinaryOp::Div),
        Op::Unary(UnaryOp::Neg),
        Op::Binary(BinaryOp::Sub),
        Op::Binary(BinaryOp::Pow),
    ];
    for (i, op) in ops.iter().cycle().take(300).enumerate() {
        if op.arity() == 2 {
            nodes.push(Node::Var(Terminal::ALL[i % Terminal::COUNT]));
        }
        nodes.push(Node::from(*op));
    }
    Formula::from_postfix(nodes).unwrap()
}

fn extended_formula(text: &str) -> Formula {
    Formula::parse(text, &Grammar::every()).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// [`FORMULAS`] random formulas over every terminal (alternating closures), then each of
/// [`EXTENDED`] under both closures; [`INPUTS`] inputs each.
fn cases(seed: u64) -> Vec<Case> {
    let mut rng = Pcg64::seed_from_u64(seed);
    let closures = [Closure::Paper, Closure::Reference];
    let mut formulas: Vec<(Formula, Closure)> = (0..FORMULAS)
        .map(|i| {
            let formula = if i == FORMULAS - 1 {
                deep_formula()
            } else {
                random_formula(&mut rng, &Terminal::ALL)
            };
            (formula, closures[i % 2])
        })
        .collect();
    for text in EXTENDED {
        for closure in closures {
            formulas.push((extended_formula(text), closure));
        }
    }
    formulas
        .into_iter()
        .map(|(formula, closure)| Case {
            formula,
            closure,
            inputs: (0..INPUTS).map(|_| input(&mut rng)).collect(),
        })
        .collect()
}

/// The number of (formula, input) pairs.
fn results(cases: &[Case]) -> usize {
    cases.iter().map(|c| c.inputs.len()).sum()
}

/// `k h_0 h_1 ... h_{COUNT-1}` per input (one value per terminal, in column order), values
/// as hex bit patterns.
fn stdin_text(cases: &[Case]) -> String {
    let mut s = String::new();
    for (k, case) in cases.iter().enumerate() {
        for input in &case.inputs {
            let _ = write!(s, "{k}");
            for v in input {
                let _ = write!(s, " {:016x}", v.to_bits());
            }
            s.push('\n');
        }
    }
    s
}

/// The column indices of the exported function's arguments, in the documented order
/// ([`arguments`]: the terminals the formula reads, in column order).
fn params(case: &Case) -> Vec<usize> {
    let args = arguments(&case.formula);
    assert_eq!(args, case.formula.terminals(), "{}", case.formula);
    args.iter().map(|t| t.index()).collect()
}

fn code(case: &Case, k: usize, language: Language) -> String {
    export(&case.formula, case.closure, language, &format!("f{k}")).unwrap()
}

/// Runs `cmd` with `input` on stdin and returns its stdout; panics with stderr on failure.
fn run(cmd: &mut Command, input: &str) -> String {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"));
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    let written = writer.join().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    written.unwrap();
    String::from_utf8(out.stdout).unwrap()
}

/// Compares the printed bit patterns with freshgp's evaluator; returns the mismatches.
fn compare(language: Language, cases: &[Case], output: &str) -> Vec<String> {
    let mut lines = output.lines();
    let mut bad = Vec::new();
    for (k, case) in cases.iter().enumerate() {
        let program = Program::compile(&case.formula, case.closure);
        for input in &case.inputs {
            let line = lines
                .next()
                .unwrap_or_else(|| panic!("{language}: output ends early"));
            let got = u64::from_str_radix(line.trim(), 16)
                .map(f64::from_bits)
                .unwrap_or_else(|_| panic!("{language}: bad output line {line:?}"));
            let want = program.eval_one(input);
            if got.to_bits() != want.to_bits() {
                bad.push(format!(
                    "{language} f{k} [{:?}] `{}` at {input:?}: got {got:?}, freshgp {want:?}",
                    case.closure, case.formula
                ));
            }
        }
    }
    assert!(lines.next().is_none(), "{language}: extra output");
    bad
}

fn assert_exact(language: Language, cases: &[Case], output: &str) {
    assert_few_differ(language, cases, &compare(language, cases, output), 0);
}

/// Asserts that at most `allowed` of the results of `cases` are among `bad`, the
/// mismatches (an engine whose libm rounds unlike glibc now and then), and names those
/// loudly.
fn assert_few_differ(language: Language, cases: &[Case], bad: &[String], allowed: usize) {
    assert!(
        bad.len() <= allowed,
        "{language}: {} of {} results differ (at most {allowed} allowed):\n{}",
        bad.len(),
        results(cases),
        bad.iter().take(10).cloned().collect::<Vec<_>>().join("\n")
    );
    if !bad.is_empty() {
        loud(&format!(
            "note: {} {language} results differ from freshgp (libm rounding):\n{}",
            bad.len(),
            bad.join("\n")
        ));
    }
}

/// Whether `tool arg` runs; if not, reports it [`absent`] (a failure where engines are
/// required, else a loud skip) with how to get the tool.
fn have(tool: &str, arg: &str, how: &str) -> bool {
    let ok = Command::new(tool)
        .arg(arg)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !ok {
        absent(&format!("`{tool}`"), "exported code's check", how);
    }
    ok
}

/// `v[i]` for each argument of case `case`, comma-separated (Rust, C and Java drivers).
fn call_args(case: &Case) -> String {
    params(case)
        .iter()
        .map(|i| format!("v[{i}]"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn extended_formulas_read_every_extended_terminal() {
    let all = gp4c_all();
    let extended: Vec<Terminal> = Terminal::ALL
        .into_iter()
        .filter(|t| !all.contains(t))
        .collect();
    assert!(!extended.is_empty());
    for t in extended {
        assert!(
            EXTENDED
                .iter()
                .any(|f| extended_formula(f).terminals().contains(&t)),
            "no formula of EXTENDED reads {t}"
        );
    }
}

#[test]
fn realistic_inputs_respect_the_spec_ranges() {
    let mut rng = Pcg64::seed_from_u64(9);
    let at = |v: &[f64; Terminal::COUNT], t: Terminal| v[t.index()];
    for _ in 0..10_000 {
        let v = input(&mut rng);
        assert!(at(&v, Terminal::W) >= 0.0 && at(&v, Terminal::W).is_finite());
        assert!(at(&v, Terminal::TC) >= 1.0);
        let (n7, x7) = (at(&v, Terminal::N7), at(&v, Terminal::X7));
        assert!(0.0 <= x7 && x7 <= n7 && n7 <= 7.0, "X7 {x7}, n7 {n7}");
        assert!((0.0..=1.0).contains(&at(&v, Terminal::HR)));
        assert!(at(&v, Terminal::MLE) > 0.0 && at(&v, Terminal::MLE).is_finite());
        assert!((0.0..=1.0).contains(&at(&v, Terminal::P)));
    }
}

#[test]
fn rust_export_matches_evaluator() {
    let cases = cases(1);
    let dir = tempfile::tempdir().unwrap();
    let mut src = String::from("use std::io::{BufRead, Write};\n\n");
    for (k, case) in cases.iter().enumerate() {
        src.push_str(&code(case, k, Language::Rust));
        src.push('\n');
    }
    let _ = write!(
        src,
        "fn main() {{\n    let stdin = std::io::stdin();\n    let stdout = std::io::stdout();\n    \
         let mut out = std::io::BufWriter::new(stdout.lock());\n    \
         for line in stdin.lock().lines() {{\n        let line = line.unwrap();\n        \
         let mut it = line.split_whitespace();\n        \
         let k: usize = it.next().unwrap().parse().unwrap();\n        \
         let v: Vec<f64> = it.map(|h| f64::from_bits(u64::from_str_radix(h, 16).unwrap())).collect();\n        \
         assert_eq!(v.len(), {});\n        \
         let r = match k {{\n",
        Terminal::COUNT
    );
    for (k, case) in cases.iter().enumerate() {
        let _ = writeln!(src, "            {k} => f{k}({}),", call_args(case));
    }
    src.push_str(
        "            _ => unreachable!(),\n        };\n        \
         writeln!(out, \"{:016x}\", r.to_bits()).unwrap();\n    }\n}\n",
    );
    let file = dir.path().join("exported.rs");
    std::fs::write(&file, &src).unwrap();
    let bin = dir.path().join("exported");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let status = Command::new(rustc)
        .args([
            "--edition",
            "2021",
            "-C",
            "opt-level=1",
            "-D",
            "warnings",
            "-o",
        ])
        .arg(&bin)
        .arg(&file)
        .status()
        .unwrap();
    assert!(status.success(), "generated Rust does not compile");
    let output = run(&mut Command::new(&bin), &stdin_text(&cases));
    assert_exact(Language::Rust, &cases, &output);
}

#[test]
fn c_export_matches_evaluator() {
    if !have("gcc", "--version", "apt-get install gcc") {
        return;
    }
    let cases = cases(2);
    let dir = tempfile::tempdir().unwrap();
    let mut src = String::from(
        "#include <stdio.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n",
    );
    for (k, case) in cases.iter().enumerate() {
        src.push_str(&code(case, k, Language::C));
        src.push('\n');
    }
    // A line: the case number, then one 16-digit hex value per terminal.
    let line_len = 32 + 17 * Terminal::COUNT;
    let _ = write!(
        src,
        "static double bits(const char *h) {{\n    uint64_t u = strtoull(h, NULL, 16);\n    \
         double x;\n    memcpy(&x, &u, sizeof x);\n    return x;\n}}\n\n\
         int main(void) {{\n    char line[{line_len}];\n    while (fgets(line, sizeof line, stdin)) {{\n        \
         char *p = line;\n        int k = (int)strtol(p, &p, 10);\n        double v[{n}];\n        \
         for (int i = 0; i < {n}; i++) {{\n            while (*p == ' ') p++;\n            \
         v[i] = bits(p);\n            p += 16;\n        }}\n        double r;\n        \
         switch (k) {{\n",
        n = Terminal::COUNT
    );
    for (k, case) in cases.iter().enumerate() {
        let _ = writeln!(
            src,
            "        case {k}: r = f{k}({}); break;",
            call_args(case)
        );
    }
    src.push_str(
        "        default: return 3;\n        }\n        uint64_t u;\n        \
         memcpy(&u, &r, sizeof u);\n        printf(\"%016llx\\n\", (unsigned long long)u);\n    \
         }\n    return 0;\n}\n",
    );
    let file = dir.path().join("exported.c");
    std::fs::write(&file, &src).unwrap();
    let bin = dir.path().join("exported");
    let status = Command::new("gcc")
        .args([
            "-std=c99",
            "-O2",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-ffp-contract=off",
            "-o",
        ])
        .arg(&bin)
        .arg(&file)
        .arg("-lm")
        .status()
        .unwrap();
    assert!(status.success(), "generated C does not compile");
    let output = run(&mut Command::new(&bin), &stdin_text(&cases));
    assert_exact(Language::C, &cases, &output);
}

#[test]
fn python_export_matches_evaluator() {
    if !have("python3", "--version", "apt-get install python3") {
        return;
    }
    let cases = cases(3);
    let dir = tempfile::tempdir().unwrap();
    let mut src = String::from("import struct\nimport sys\n\n");
    for (k, case) in cases.iter().enumerate() {
        src.push_str(&code(case, k, Language::Python));
        src.push_str("\n\n");
    }
    src.push_str("FUNCS = {\n");
    for (k, case) in cases.iter().enumerate() {
        let _ = writeln!(src, "    {k}: (f{k}, {:?}),", params(case));
    }
    let _ = write!(
        src,
        "}}\n\n\ndef bits(h):\n    return struct.unpack('<d', struct.pack('<Q', int(h, 16)))[0]\n\n\n\
         out = []\nfor line in sys.stdin:\n    p = line.split()\n    fn, idx = FUNCS[int(p[0])]\n    \
         v = [bits(h) for h in p[1:]]\n    assert len(v) == {}, len(v)\n    \
         r = fn(*[v[i] for i in idx])\n    \
         assert type(r) is float, (p[0], r)\n    \
         out.append('%016x' % struct.unpack('<Q', struct.pack('<d', r))[0])\n\
         print('\\n'.join(out))\n",
        Terminal::COUNT
    );
    let file = dir.path().join("exported.py");
    std::fs::write(&file, &src).unwrap();
    let output = run(Command::new("python3").arg(&file), &stdin_text(&cases));
    assert_exact(Language::Python, &cases, &output);
}

#[test]
fn java_export_matches_evaluator() {
    let how = "apt-get install default-jdk-headless";
    if !have("javac", "-version", how) || !have("java", "-version", how) {
        return;
    }
    let cases = cases(4);
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (k, case) in cases.iter().enumerate() {
        let file = dir.path().join(format!("F{k}.java"));
        std::fs::write(&file, code(case, k, Language::Java)).unwrap();
        files.push(file);
    }
    let mut main = format!(
        "import java.io.*;\n\npublic class Main {{\n    public static void main(String[] args) \
         throws IOException {{\n        BufferedReader in = new BufferedReader(new \
         InputStreamReader(System.in));\n        StringBuilder out = new StringBuilder();\n        \
         String line;\n        while ((line = in.readLine()) != null) {{\n            \
         String[] p = line.split(\" \");\n            int k = Integer.parseInt(p[0]);\n            \
         if (p.length != {n} + 1) throw new IllegalStateException(line);\n            \
         double[] v = new double[{n}];\n            for (int i = 0; i < {n}; i++) v[i] = \
         Double.longBitsToDouble(Long.parseUnsignedLong(p[i + 1], 16));\n            \
         double r;\n            switch (k) {{\n",
        n = Terminal::COUNT
    );
    for (k, case) in cases.iter().enumerate() {
        let _ = writeln!(
            main,
            "                case {k}: r = F{k}.f{k}({}); break;",
            call_args(case)
        );
    }
    main.push_str(
        "                default: throw new IllegalStateException();\n            }\n            \
         String h = Long.toHexString(Double.doubleToRawLongBits(r));\n            \
         out.append(\"0000000000000000\".substring(h.length())).append(h).append('\\n');\n        \
         }\n        System.out.print(out);\n    }\n}\n",
    );
    let main_file = dir.path().join("Main.java");
    std::fs::write(&main_file, main).unwrap();
    let status = Command::new("javac")
        .arg("-nowarn")
        .arg("-d")
        .arg(dir.path())
        .arg(&main_file)
        .args(&files)
        .status()
        .unwrap();
    assert!(status.success(), "generated Java does not compile");
    let output = run(
        Command::new("java")
            .arg("-Xshare:auto")
            .arg("-cp")
            .arg(dir.path())
            .arg("Main"),
        &stdin_text(&cases),
    );
    // The JVM's Math.log/exp/pow and glibc may round differently in the last bit for rare
    // arguments; everything else (closure rules, special values, constants) is exact.
    let bad = compare(Language::Java, &cases, &output);
    assert_few_differ(Language::Java, &cases, &bad, results(&cases) / 200);
}

#[test]
fn exports_are_self_contained_and_name_the_semantics() {
    let f: Formula = "log(t) / (X - 1e300) + exp(-n)".parse().unwrap();
    for language in Language::ALL {
        for closure in [Closure::Paper, Closure::Reference] {
            let code = export(&f, closure, language, "score").unwrap();
            assert!(
                code.contains(&format!("Closure: {}", closure.name())),
                "{code}"
            );
            assert!(code.contains("log(t) / (X - 1e300) + exp(-n)"), "{code}");
            if !matches!(language, Language::Sql(_)) {
                // The helpers the function calls are defined in the output.
                for helper in ["score_div", "score_log", "score_exp", "score_neg"] {
                    assert!(code.matches(helper).count() >= 2, "{language}: {helper}");
                }
            }
        }
    }
    let sqlite = Language::Sql(Dialect::Sqlite);
    let sql = export(&f, Closure::Paper, sqlite, "score").unwrap();
    assert!(
        sql.contains("COALESCE(ln(CAST(t AS DOUBLE PRECISION)), 0.0)"),
        "{sql}"
    );
    // 1e300 is not a double's exact decimal: an exact product, the decimal in a comment.
    assert!(
        sql.contains("CAST(X AS DOUBLE PRECISION) - (CAST(") && sql.contains("/* 1e300 */), 0.0)"),
        "{sql}"
    );
    assert!(!sql.contains("MATERIALIZED"), "{sql}");
    let sql = export(&f, Closure::Reference, sqlite, "score").unwrap();
    assert!(sql.contains("MATERIALIZED"), "{sql}");
    let c = export(&"t".parse().unwrap(), Closure::Paper, Language::C, "s").unwrap();
    assert!(c.contains("double s(double t) {\n    return t;\n}"), "{c}");
    let c = export(
        &"exp(1000)".parse().unwrap(),
        Closure::Paper,
        Language::C,
        "s",
    )
    .unwrap();
    assert!(
        c.contains("double s(void) {\n    return HUGE_VAL;\n}"),
        "{c}"
    );
}

#[test]
fn cli_exports_and_rejects_bad_names() {
    let bin = env!("CARGO_BIN_EXE_freshgp");
    let out = Command::new(bin)
        .args(["formula", "export", "X / n * t", "--to", "python"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("def score(t, n, X):"), "{text}");
    assert!(text.contains("Closure: Paper"), "{text}");
    let out = Command::new(bin)
        .args([
            "formula",
            "export",
            "log(t)",
            "--to",
            "java",
            "--grammar",
            "all-reference",
            "--name",
            "rank",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("public final class Rank"), "{text}");
    assert!(text.contains("Closure: Reference"), "{text}");
    let out = Command::new(bin)
        .args([
            "formula",
            "export",
            "MLE * w + tc",
            "--to",
            "python",
            "--grammar",
            "extended",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("def score(w, tc, MLE):"), "{text}");
    assert!(
        text.contains("column order t n X CG NAD SAD AAD GAD w tc n7 X7 HR MLE)"),
        "{text}"
    );
    let out = Command::new(bin)
        .args(["formula", "export", "t", "--to", "c", "--name", "9lives"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("function name `9lives`"), "{err}");
}
