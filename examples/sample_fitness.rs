//! What a sample of the training pages does to the default search's fitness
//! (docs/src/reference/gp.md#searching-on-a-sample-of-the-pages): the formulas a real
//! search keeps, judged on every training page and on samples of them, and how far the
//! two judgements agree.
//!
//! ```text
//! cargo run --release --example sample_fitness [PAGES] [GENERATIONS]
//! ```
//!
//! The history is `PAGES` `commerce` offers (default 100,000) × 57 days with their weights
//! at full precision; the training set is rotation 0's (period 1). A default search of
//! `GENERATIONS` generations (default 10) on every training page keeps its 200 fittest
//! distinct formulas; with the seeds they are the formulas judged. For each share of the
//! pages (whole shops at a time, as `evolve --train-sample` takes them) it prints the
//! sample's pages, Spearman's rank correlation of the two fitnesses over the formulas and
//! over the fittest 50, the rank on every page of the sample's fittest formula and how
//! much full fitness it gives up against the fittest, and the time a formula takes on the
//! sample against every page.

use freshgp::data::sample::PageSample;
use freshgp::data::split::Split;
use freshgp::data::synth::{generate, SynthParams};
use freshgp::experiment::fitness::CrawlFitness;
use freshgp::formula::{Formula, Grammar};
use freshgp::gp::{evolve, ConstantSearch, Fitness, RawGpConfig};
use freshgp::sim::Period;
use rayon::prelude::*;
use statrs::statistics::{Data, OrderStatistics, RankTieBreaker};
use std::error::Error;
use std::time::Instant;

#[path = "../benches/common/default_search.rs"]
mod default_search;

/// Each formula's fitness under `fitness`, and the wall time per formula.
fn judge(fitness: &CrawlFitness, formulas: &[Formula]) -> (Vec<f64>, f64) {
    let start = Instant::now();
    let values = formulas
        .par_iter()
        .map_init(|| fitness.scratch(), |s, f| fitness.evaluate(f, s).value())
        .collect();
    let per = start.elapsed().as_secs_f64() / formulas.len() as f64;
    (values, per)
}

/// Spearman's rank correlation (average ranks for ties).
fn spearman(a: &[f64], b: &[f64]) -> f64 {
    let ranks = |v: &[f64]| Data::new(v.to_vec()).ranks(RankTieBreaker::Average);
    let (ra, rb) = (ranks(a), ranks(b));
    let n = ra.len() as f64;
    let (ma, mb) = (ra.iter().sum::<f64>() / n, rb.iter().sum::<f64>() / n);
    let cov: f64 = ra.iter().zip(&rb).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let va: f64 = ra.iter().map(|x| (x - ma).powi(2)).sum();
    let vb: f64 = rb.iter().map(|y| (y - mb).powi(2)).sum();
    cov / (va * vb).sqrt()
}

/// The index of the largest value (the first on ties).
fn argmax(v: &[f64]) -> usize {
    (0..v.len())
        .max_by(|&a, &b| v[a].total_cmp(&v[b]).then(b.cmp(&a)))
        .expect("formulas to judge")
}

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let pages: usize = args.next().map_or(Ok(100_000), |a| a.parse())?;
    let generations: usize = args.next().map_or(Ok(10), |a| a.parse())?;
    let mut params = SynthParams::preset("commerce")?;
    params.pages = pages;
    params.set_weight_digits(None)?;
    let data = generate(&params, 1)?;
    let split = Split::new(data.pages(), data.cycles(), 0)?;
    let train = Period::new(&data, &split.train, split.train_cycles.clone())?;
    let grammar = Grammar::extended();
    let (full, seeds) = default_search::fitness(train, &grammar);
    let config = RawGpConfig {
        generations,
        keep_best: 200,
        seed_formulas: seeds.clone(),
        constants: ConstantSearch::default(),
        ..RawGpConfig::default()
    }
    .check()?;
    let start = Instant::now();
    let run = evolve(&config, &grammar, &full, 1, |_| {});
    let mut formulas: Vec<Formula> = run
        .hall_of_fame
        .iter()
        .map(|i| i.canonical.clone())
        .collect();
    for s in &run.seeds {
        if !formulas.contains(&s.canonical) {
            formulas.push(s.canonical.clone());
        }
    }
    println!(
        "{} training pages; a search of {generations} generations on all of them in {:.1}s kept {} formulas (with the seeds)",
        split.train.len(),
        start.elapsed().as_secs_f64(),
        formulas.len()
    );
    let (on_all, per_all) = judge(&full, &formulas);
    let order = {
        let mut o: Vec<usize> = (0..formulas.len()).collect();
        o.sort_by(|&a, &b| on_all[b].total_cmp(&on_all[a]));
        o
    };
    let top: Vec<usize> = order[..50.min(order.len())].to_vec();
    let best = on_all[order[0]];
    println!("share  pages   spearman  top-50  rank of sample's best  full fitness lost  time per formula");
    for share in [0.05, 0.1, 0.2, 0.5] {
        let sampled = PageSample::new(share)?.pages(&data, &split.train);
        let period = Period::new(&data, &sampled, split.train_cycles.clone())?;
        let (fitness, _) = default_search::fitness(period, &grammar);
        let (on_sample, per) = judge(&fitness, &formulas);
        let pick = argmax(&on_sample);
        let rank = order
            .iter()
            .position(|&i| i == pick)
            .expect("a judged formula")
            + 1;
        let sub = |v: &[f64]| top.iter().map(|&i| v[i]).collect::<Vec<f64>>();
        println!(
            "{share:<5}  {:<6}  {:>8.3}  {:>6.3}  {rank:>21}  {:>17.5}  {:>6.1} ms ({:.2} of all)",
            sampled.len(),
            spearman(&on_all, &on_sample),
            spearman(&sub(&on_all), &sub(&on_sample)),
            best - on_all[pick],
            per * 1e3,
            per / per_all
        );
    }
    println!("every page: {:.1} ms per formula", per_all * 1e3);
    Ok(())
}
