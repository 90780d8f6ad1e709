//! The default search's fitness as `freshgp evolve` and the oracle studies run it
//! (docs/src/results/oracle.md): the extended grammar's literature formulas as seeds, the
//! training budgets 1%, 5% and 20%, WNDCG and WFreshness, each relative to the fittest
//! seed. Shared by the `generation` and `robust` benches and
//! `examples/generation_profile.rs` (each includes this file with `#[path]`).

use freshgp::experiment::fitness::CrawlFitness;
use freshgp::formula::{Formula, Grammar};
use freshgp::metric::Metric;
use freshgp::policy::literature_seeds;
use freshgp::sim::{Period, SimConfig};

/// The default search's fitness over `period` for `grammar`, and its seeds.
pub fn fitness(period: Period, grammar: &Grammar) -> (CrawlFitness, Vec<Formula>) {
    let seeds: Vec<Formula> = literature_seeds(grammar)
        .into_iter()
        .map(|s| s.formula)
        .collect();
    let fitness = CrawlFitness::over_budgets(
        period,
        SimConfig::new(0.05, 2).expect("valid settings"),
        &[0.01, 0.05, 0.2],
        Metric::WNdcg,
        grammar.closure(),
    )
    .expect("a period with room for the budgets")
    .with_metrics(&[Metric::WFreshness])
    .relative_to(&seeds);
    (fitness, seeds)
}
