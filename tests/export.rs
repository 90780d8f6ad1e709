//! Exported code computes what freshgp computes, bit for bit.
//!
//! For each language, a seeded batch of random formulas (every operator and terminal, both
//! closures, constants and inputs that hit the protected cases: ±0, negatives, 1e-7, huge
//! values, ±inf, random bit patterns) is exported into ONE program, which is compiled once
//! and fed every (formula, input) pair on stdin as hex bit patterns; it prints the results'
//! bit patterns, compared with [`Program::eval_one`]. A language whose tool is missing
//! (python3, gcc, javac/java, Python's sqlite3 with math functions) is skipped with a note;
//! Rust is always tested (rustc comes with cargo).

use freshgp::eval::Program;
use freshgp::export::{export, Language};
use freshgp::formula::{BinaryOp, Closure, Formula, Node, Op, Terminal, UnaryOp};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::fmt::Write as _;
use std::io::Write as _;
use std::process::{Command, Stdio};

const FORMULAS: usize = 200;
const INPUTS: usize = 50;

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

fn push_tree(rng: &mut Pcg64, depth: usize, nodes: &mut Vec<Node>) {
    if depth == 0 || rng.gen_bool(0.25) {
        if rng.gen_bool(0.65) {
            nodes.push(Node::Var(Terminal::ALL[rng.gen_range(0..Terminal::COUNT)]));
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
        push_tree(rng, depth - 1, nodes);
    }
    nodes.push(Node::from(op));
}

/// A deep chain (depth 300) that mixes every operator: generated code must not recurse.
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

fn cases(seed: u64) -> Vec<Case> {
    let mut rng = Pcg64::seed_from_u64(seed);
    (0..FORMULAS)
        .map(|i| {
            let formula = if i == FORMULAS - 1 {
                deep_formula()
            } else {
                let mut nodes = Vec::new();
                let depth = rng.gen_range(0..7);
                push_tree(&mut rng, depth, &mut nodes);
                Formula::from_postfix(nodes).unwrap()
            };
            let closure = if i % 2 == 0 {
                Closure::Paper
            } else {
                Closure::Reference
            };
            let inputs = (0..INPUTS)
                .map(|_| std::array::from_fn(|_| random_value(&mut rng)))
                .collect();
            Case {
                formula,
                closure,
                inputs,
            }
        })
        .collect()
}

/// `k h0 h1 ... h7` per input, values as hex bit patterns.
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

fn params(case: &Case) -> Vec<usize> {
    case.formula.terminals().iter().map(|t| t.index()).collect()
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
    writer.join().unwrap().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
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
    let bad = compare(language, cases, output);
    assert!(
        bad.is_empty(),
        "{} of {} results differ:\n{}",
        bad.len(),
        FORMULAS * INPUTS,
        bad.iter().take(10).cloned().collect::<Vec<_>>().join("\n")
    );
}

fn have(tool: &str, arg: &str) -> bool {
    let ok = Command::new(tool)
        .arg(arg)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !ok {
        eprintln!("note: `{tool}` not found; skipping this language's check");
    }
    ok
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
    src.push_str(
        "fn main() {\n    let stdin = std::io::stdin();\n    let stdout = std::io::stdout();\n    \
         let mut out = std::io::BufWriter::new(stdout.lock());\n    \
         for line in stdin.lock().lines() {\n        let line = line.unwrap();\n        \
         let mut it = line.split_whitespace();\n        \
         let k: usize = it.next().unwrap().parse().unwrap();\n        \
         let v: Vec<f64> = it.map(|h| f64::from_bits(u64::from_str_radix(h, 16).unwrap())).collect();\n        \
         let r = match k {\n",
    );
    for (k, case) in cases.iter().enumerate() {
        let args: Vec<String> = params(case).iter().map(|i| format!("v[{i}]")).collect();
        let _ = writeln!(src, "            {k} => f{k}({}),", args.join(", "));
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
    if !have("gcc", "--version") {
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
    src.push_str(
        "static double bits(const char *h) {\n    uint64_t u = strtoull(h, NULL, 16);\n    \
         double x;\n    memcpy(&x, &u, sizeof x);\n    return x;\n}\n\n\
         int main(void) {\n    char line[512];\n    while (fgets(line, sizeof line, stdin)) {\n        \
         char *p = line;\n        int k = (int)strtol(p, &p, 10);\n        double v[8];\n        \
         for (int i = 0; i < 8; i++) {\n            while (*p == ' ') p++;\n            \
         v[i] = bits(p);\n            p += 16;\n        }\n        double r;\n        \
         switch (k) {\n",
    );
    for (k, case) in cases.iter().enumerate() {
        let args: Vec<String> = params(case).iter().map(|i| format!("v[{i}]")).collect();
        let _ = writeln!(
            src,
            "        case {k}: r = f{k}({}); break;",
            args.join(", ")
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
    if !have("python3", "--version") {
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
    src.push_str(
        "}\n\n\ndef bits(h):\n    return struct.unpack('<d', struct.pack('<Q', int(h, 16)))[0]\n\n\n\
         out = []\nfor line in sys.stdin:\n    p = line.split()\n    fn, idx = FUNCS[int(p[0])]\n    \
         v = [bits(h) for h in p[1:]]\n    r = fn(*[v[i] for i in idx])\n    \
         assert type(r) is float, (p[0], r)\n    \
         out.append('%016x' % struct.unpack('<Q', struct.pack('<d', r))[0])\n\
         print('\\n'.join(out))\n",
    );
    let file = dir.path().join("exported.py");
    std::fs::write(&file, &src).unwrap();
    let output = run(Command::new("python3").arg(&file), &stdin_text(&cases));
    assert_exact(Language::Python, &cases, &output);
}

#[test]
fn java_export_matches_evaluator() {
    if !have("javac", "-version") || !have("java", "-version") {
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
    let mut main = String::from(
        "import java.io.*;\n\npublic class Main {\n    public static void main(String[] args) \
         throws IOException {\n        BufferedReader in = new BufferedReader(new \
         InputStreamReader(System.in));\n        StringBuilder out = new StringBuilder();\n        \
         String line;\n        while ((line = in.readLine()) != null) {\n            \
         String[] p = line.split(\" \");\n            int k = Integer.parseInt(p[0]);\n            \
         double[] v = new double[8];\n            for (int i = 0; i < 8; i++) v[i] = \
         Double.longBitsToDouble(Long.parseUnsignedLong(p[i + 1], 16));\n            \
         double r;\n            switch (k) {\n",
    );
    for (k, case) in cases.iter().enumerate() {
        let args: Vec<String> = params(case).iter().map(|i| format!("v[{i}]")).collect();
        let _ = writeln!(
            main,
            "                case {k}: r = F{k}.f{k}({}); break;",
            args.join(", ")
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
    // StrictMath (fdlibm) and glibc may round log/exp/pow differently in the last bit for
    // rare arguments; everything else (closure rules, special values, constants) is exact.
    let bad = compare(Language::Java, &cases, &output);
    let allowed = FORMULAS * INPUTS / 200;
    assert!(
        bad.len() <= allowed,
        "{} of {} results differ (at most {allowed} last-bit libm differences allowed):\n{}",
        bad.len(),
        FORMULAS * INPUTS,
        bad.iter().take(10).cloned().collect::<Vec<_>>().join("\n")
    );
    if !bad.is_empty() {
        eprintln!(
            "note: {} Java results differ from freshgp (libm rounding):\n{}",
            bad.len(),
            bad.join("\n")
        );
    }
}

/// Runs every query in Python's sqlite3 (SQLite's own math functions).
const SQL_DRIVER: &str = r#"
import sqlite3, struct, sys
con = sqlite3.connect(':memory:')
try:
    con.execute('SELECT ln(2.0), exp(1.0), pow(2.0, 0.5)').fetchall()
except sqlite3.OperationalError:
    print('NO-MATH-FUNCTIONS')
    sys.exit(0)
queries = open(sys.argv[1]).read().split('\n-- @@@\n')
con.execute('CREATE TABLE pages (id, t, n, X, CG, NAD, SAD, AAD, GAD)')
rows = {}
for i, line in enumerate(sys.stdin):
    p = line.split()
    v = [struct.unpack('<d', struct.pack('<Q', int(h, 16)))[0] for h in p[1:]]
    rows.setdefault(int(p[0]), []).append([i] + v)
out = []
for k, q in enumerate(queries):
    con.execute('DELETE FROM pages')
    con.executemany('INSERT INTO pages VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)', rows[k])
    cur = con.execute(q)
    names = [d[0] for d in cur.description]
    i_id, i_score = names.index('id'), names.index('f%d' % k)
    for r in sorted(cur.fetchall(), key=lambda r: r[i_id]):
        s = r[i_score]
        if type(s) is not float:
            out.append('NOT-A-FLOAT %r' % (s,))
        else:
            out.append('%016x' % struct.unpack('<Q', struct.pack('<d', s))[0])
print('\n'.join(out))
"#;

#[test]
fn sql_export_matches_evaluator() {
    if !have("python3", "--version") {
        return;
    }
    let cases = cases(5);
    let dir = tempfile::tempdir().unwrap();
    let queries: Vec<String> = cases
        .iter()
        .enumerate()
        .map(|(k, case)| code(case, k, Language::Sql))
        .collect();
    let file = dir.path().join("queries.sql");
    std::fs::write(&file, queries.join("\n-- @@@\n")).unwrap();
    let driver = dir.path().join("driver.py");
    std::fs::write(&driver, SQL_DRIVER).unwrap();
    let output = run(
        Command::new("python3").arg(&driver).arg(&file),
        &stdin_text(&cases),
    );
    if output.trim() == "NO-MATH-FUNCTIONS" {
        eprintln!("note: Python's sqlite3 lacks math functions; SQL checked as text only");
        return;
    }
    assert_exact(Language::Sql, &cases, &output);
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
            if language != Language::Sql {
                // The helpers the function calls are defined in the output.
                for helper in ["score_div", "score_log", "score_exp", "score_neg"] {
                    assert!(code.matches(helper).count() >= 2, "{language}: {helper}");
                }
            }
        }
    }
    let sql = export(&f, Closure::Paper, Language::Sql, "score").unwrap();
    assert!(
        sql.contains("COALESCE(ln(CAST(t AS DOUBLE PRECISION)), 0.0)"),
        "{sql}"
    );
    assert!(
        sql.contains("CAST(X AS DOUBLE PRECISION) - 1e300, 0.0)"),
        "{sql}"
    );
    assert!(!sql.contains("MATERIALIZED"), "{sql}");
    let sql = export(&f, Closure::Reference, Language::Sql, "score").unwrap();
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
        .args(["formula", "export", "t", "--to", "c", "--name", "9lives"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("function name `9lives`"), "{err}");
}
