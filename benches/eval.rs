//! Node evaluations per second: the compiled, chunked evaluator (`Program::eval_batch`)
//! against the interpreter (`interpret`, one `Formula::fold` per page).
//!
//! Two families of formulas, each at 5, 15 and 40 nodes: arithmetic only (`+ - * /` and
//! unary minus), and formulas with `log`, `exp` and `pow`. Every formula is evaluated over
//! 10^5 pages of realistic terminal values; criterion's throughput is `nodes * pages`
//! elements, so the elements/s it prints are node evaluations per second.
//!
//! Run: `cargo bench --bench eval -- --warm-up-time 1 --measurement-time 3`.

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use freshgp::eval::{interpret, Columns, Program, Scratch};
use freshgp::formula::{Closure, Formula, Terminal};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

const PAGES: usize = 100_000;

/// (nodes, formula) for the arithmetic-only family.
const ARITHMETIC: [(usize, &str); 3] = [
    (5, "X / n * t"),
    (15, "X / n * t + CG * NAD - SAD / (t + 0.5)"),
    (
        40,
        "(X + 1) / (n + 2) * t - CG * NAD / (t + SAD) + (AAD - GAD) * (X / n) \
         - -(t * 0.1) * (CG + NAD) / (SAD * AAD + 1)",
    ),
];

/// (nodes, formula) for the family with `log`, `exp` and `pow`.
const TRANSCENDENTAL: [(usize, &str); 3] = [
    (5, "exp(-NAD * t)"),
    (15, "pow(99.5 * exp(GAD), (t + GAD)^CG) + log(X) * n"),
    (
        40,
        "1 - exp(-NAD * t) + log(t + 1) * X / n - pow(CG + 0.5, log(n)) \
         + exp(GAD * (1 + log(t))) * (t * X)^AAD - exp(SAD)",
    ),
];

/// Terminal values as a crawler sees them: t in 1..20 cycles, n in 2..20 visits, X <= n
/// changes, rates in [0, 1], SAD 0 or 1.
fn pages(seed: u64) -> Vec<[f64; Terminal::COUNT]> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    (0..PAGES)
        .map(|_| {
            let n = rng.gen_range(2..=20) as f64;
            let mut row = [0.0; Terminal::COUNT];
            row[Terminal::T.index()] = rng.gen_range(1..=20) as f64;
            row[Terminal::N.index()] = n;
            row[Terminal::X.index()] = rng.gen_range(0..=n as u32) as f64;
            row[Terminal::CG.index()] = rng.gen::<f64>();
            row[Terminal::NAD.index()] = rng.gen::<f64>();
            row[Terminal::SAD.index()] = rng.gen_range(0..=1) as f64;
            row[Terminal::AAD.index()] = rng.gen::<f64>();
            row[Terminal::GAD.index()] = rng.gen::<f64>();
            row
        })
        .collect()
}

fn family(c: &mut Criterion, name: &str, formulas: &[(usize, &str)]) {
    let rows = pages(42);
    let cols: Vec<Vec<f64>> = (0..Terminal::COUNT)
        .map(|k| rows.iter().map(|r| r[k]).collect())
        .collect();
    let mut columns = Columns::new(PAGES);
    for t in Terminal::ALL {
        columns = columns.with(t, &cols[t.index()]);
    }
    let mut group = c.benchmark_group(format!("eval/{name}"));
    group.sample_size(10);
    for &(nodes, text) in formulas {
        let f: Formula = text.parse().expect("bench formulas parse");
        assert_eq!(f.len(), nodes, "`{text}` has {} nodes", f.len());
        let program = Program::compile(&f, Closure::Paper);
        group.throughput(Throughput::Elements((nodes * PAGES) as u64));

        let mut out = vec![0.0; PAGES];
        let mut scratch = Scratch::new();
        // The two evaluators agree; checked here so a bench never times a wrong result.
        program.eval_batch(&columns, &mut out, &mut scratch);
        for (row, got) in rows.iter().zip(&out).step_by(997) {
            assert_eq!(got.to_bits(), interpret(&f, Closure::Paper, row).to_bits());
        }

        group.bench_with_input(BenchmarkId::new("compiled", nodes), &program, |b, p| {
            b.iter(|| {
                p.eval_batch(black_box(&columns), &mut out, &mut scratch);
                black_box(out[PAGES - 1])
            })
        });
        group.bench_with_input(BenchmarkId::new("interpreted", nodes), &f, |b, f| {
            b.iter(|| {
                let mut sum = 0.0;
                for row in &rows {
                    sum += interpret(f, Closure::Paper, black_box(row));
                }
                black_box(sum)
            })
        });
    }
    group.finish();
}

fn bench_eval(c: &mut Criterion) {
    family(c, "arithmetic", &ARITHMETIC);
    family(c, "log-exp-pow", &TRANSCENDENTAL);
}

criterion_group!(benches, bench_eval);
criterion_main!(benches);
