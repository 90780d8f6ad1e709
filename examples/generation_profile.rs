//! Where the first generation of a GP run over the extended grammar spends its time: the
//! run of the `generation` bench's `gp-300-extended-wndcg-commerce-100k/initial` (a
//! ramped half-and-half population of 300 evaluated with WNDCG fitness on a 19-cycle
//! period of 100,000 `commerce` offers), each evaluation timed.
//!
//! ```text
//! cargo run --release --example generation_profile [PAGES] [default]
//! ```
//!
//! With `default`, the first generation of the default search instead, as the `generation`
//! bench's `gp-300-default-search-commerce-100k-full/initial` runs it: the offers' weights
//! at full precision, the literature's seeds, fitness over the budgets 1%, 5% and 20% and
//! WNDCG and WFreshness relative to the fittest seed, formulas of at most 25 nodes.
//!
//! Prints the wall-clock time, the number of evaluations and their summed time, the
//! share of the slowest 30 and of the formulas that read `w`, and the slowest ten. Then,
//! over the formulas that read `w` (which run page by page, on shared states), what the
//! operators on a path from `w` or `HR` to the root read: `w` alone (computed once per
//! page and run), `HR` alone (once per host), `w` with terminals that change only at a
//! visit (`n`, `X`, `CG`, `MLE`), or anything else (`HR` beside other terminals, or a
//! terminal that changes every cycle: `t`, `tc`, `n7`, `X7`, `NAD`, ...). Each operator
//! counts 1 and each libm call (`log`, `exp`, `pow`) 8: without the first two kinds'
//! hoisting, all of them run per page and cycle.

use freshgp::data::synth::{generate, SynthParams};
use freshgp::experiment::fitness::CrawlFitness;
use freshgp::formula::{BinaryOp, Formula, Grammar, Terminal, UnaryOp, Visit};
use freshgp::gp::{evolve, ConstantSearch, Evaluation, Fitness, RawGpConfig};
use freshgp::metric::Metric;
use freshgp::sim::{Period, SimConfig};
use std::error::Error;

#[path = "../benches/common/default_search.rs"]
mod default_search;
use std::sync::Mutex;
use std::time::Instant;

/// The crawl fitness, each evaluation timed.
struct Timed<'a> {
    fitness: &'a CrawlFitness,
    /// Seconds and formula of each evaluation.
    times: Mutex<Vec<(f64, Formula)>>,
}

impl Fitness for Timed<'_> {
    type Scratch = <CrawlFitness as Fitness>::Scratch;

    fn scratch(&self) -> Self::Scratch {
        self.fitness.scratch()
    }

    fn evaluate(&self, formula: &Formula, scratch: &mut Self::Scratch) -> Evaluation {
        let start = Instant::now();
        let evaluation = self.fitness.evaluate(formula, scratch);
        let seconds = start.elapsed().as_secs_f64();
        let mut times = self.times.lock().unwrap_or_else(|e| e.into_inner());
        times.push((seconds, formula.clone()));
        evaluation
    }
}

/// What a subtree reads, for the per-page operators' breakdown.
#[derive(Clone, Copy, Default)]
struct Reads {
    w: bool,
    hr: bool,
    /// A terminal of the state that changes only at a visit.
    visit: bool,
    /// A terminal that changes every cycle.
    cycle: bool,
}

/// The cost of the operators on paths from `w` or `HR` to the root, by what their
/// subtrees read: `w` alone, `HR` alone, `w` with visit-constant terminals, the rest.
fn per_page_costs(formula: &Formula) -> [f64; 4] {
    let mut costs = [0.0; 4];
    formula.fold(|node: Visit<Reads>| {
        let (reads, libm) = match node {
            Visit::Const(_) => return Reads::default(),
            Visit::Var(t) => {
                let visit = matches!(t, Terminal::N | Terminal::X | Terminal::CG | Terminal::MLE);
                let page = matches!(t, Terminal::W | Terminal::HR);
                return Reads {
                    w: t == Terminal::W,
                    hr: t == Terminal::HR,
                    visit,
                    cycle: !visit && !page,
                };
            }
            Visit::Unary(op, a) => (a, op != UnaryOp::Neg),
            Visit::Binary(op, a, b) => (
                Reads {
                    w: a.w || b.w,
                    hr: a.hr || b.hr,
                    visit: a.visit || b.visit,
                    cycle: a.cycle || b.cycle,
                },
                op == BinaryOp::Pow,
            ),
        };
        let cost = if libm { 8.0 } else { 1.0 };
        let kind = match (reads.w, reads.hr, reads.visit, reads.cycle) {
            (false, false, _, _) => None,
            (true, false, false, false) => Some(0),
            (false, true, false, false) => Some(1),
            (true, false, true, false) => Some(2),
            _ => Some(3),
        };
        if let Some(kind) = kind {
            costs[kind] += cost;
        }
        reads
    });
    costs
}

fn main() -> Result<(), Box<dyn Error>> {
    let pages: usize = std::env::args().nth(1).map_or(Ok(100_000), |a| a.parse())?;
    let default = match std::env::args().nth(2).as_deref() {
        None => false,
        Some("default") => true,
        Some(other) => {
            return Err(format!("`{other}`: the second argument is `default` or none").into())
        }
    };
    let mut params = SynthParams::preset("commerce")?;
    params.pages = pages;
    params.days = 19;
    if default {
        params.set_weight_digits(None)?;
    }
    let period = Period::whole(&generate(&params, 1)?)?;
    let grammar = Grammar::extended();
    let (fitness, config) = if default {
        let (fitness, seeds) = default_search::fitness(period, &grammar);
        let config = RawGpConfig {
            population: 300,
            generations: 0,
            seed_formulas: seeds,
            constants: ConstantSearch::default(),
            ..RawGpConfig::default()
        };
        (fitness, config)
    } else {
        let fitness =
            CrawlFitness::new(period, SimConfig::paper(), Metric::WNdcg, grammar.closure())?;
        let config = RawGpConfig {
            population: 300,
            generations: 0,
            ..RawGpConfig::paper()
        };
        (fitness, config)
    };
    let config = config.check()?;
    let timed = Timed {
        fitness: &fitness,
        times: Mutex::new(Vec::new()),
    };
    let start = Instant::now();
    evolve(&config, &grammar, &timed, 1, |_| {});
    println!("wall {:.2} s", start.elapsed().as_secs_f64());

    let mut times = timed.times.into_inner().unwrap_or_else(|e| e.into_inner());
    times.sort_by(|a, b| b.0.total_cmp(&a.0));
    let total: f64 = times.iter().map(|t| t.0).sum();
    let slowest: f64 = times.iter().take(30).map(|t| t.0).sum();
    let reads_w = |f: &Formula| f.terminals().contains(&Terminal::W);
    let with_w: f64 = times.iter().filter(|t| reads_w(&t.1)).map(|t| t.0).sum();
    println!(
        "{} evaluations, {total:.2} s; the slowest 30 {:.0}%, those reading w {:.0}%",
        times.len(),
        100.0 * slowest / total,
        100.0 * with_w / total
    );
    for (seconds, formula) in times.iter().take(10) {
        println!("{seconds:.3} s  {} nodes", formula.len());
    }
    let mut costs = [0.0; 4];
    for (_, formula) in times.iter().filter(|t| reads_w(&t.1)) {
        for (sum, cost) in costs.iter_mut().zip(per_page_costs(formula)) {
            *sum += cost;
        }
    }
    let all: f64 = costs.iter().sum();
    let names = [
        "w alone",
        "HR alone",
        "w with terminals that change only at a visit",
        "the rest (HR with other terminals, or any other terminal)",
    ];
    println!("per-page operators of the formulas reading w:");
    for (name, cost) in names.iter().zip(costs) {
        println!("  {:>4.1}%  {name}", 100.0 * cost / all);
    }
    Ok(())
}
