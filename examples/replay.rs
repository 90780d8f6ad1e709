//! Replays a change history through a [`Scheduler`] as a crawler would, day by day, and
//! prints each day's batch summary and the batch for the day after the history ends.
//!
//! ```text
//! cargo run --release --example replay -- datasets/real/ScoopInstaller+Main.57.tsv
//! cargo run --release --example replay -- HISTORY.tsv "1 - exp(-NAD * t)" 0.05
//! cargo run --release --example replay            # datasets/brdc12-sample.tsv, or a generated history
//! ```
//!
//! Arguments: the history (text, docs/src/reference/data.md#the-text-format, or binary
//! cache), the formula (default: the NAD baseline written as a formula) and the resources
//! (fraction of pages downloaded per day, default 0.05). The crawler downloads every page on
//! the first two days (warm-up), then each day asks the scheduler for its batch, downloads
//! those pages (the history says whether each had changed since its previous download) and
//! reports what it saw. At the end it saves the scheduler's state, loads it back as a
//! restarted crawler would, and checks the restarted scheduler proposes the same batch.

use freshgp::data::{self, Dataset, LoadOptions};
use freshgp::formula::{Closure, Formula};
use freshgp::policy::Policy;
use freshgp::schedule::Scheduler;
use freshgp::sim::{Period, SimConfig};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::error::Error;
use std::path::Path;

const WARMUP: u32 = 2;

/// 2,000 pages over 30 days: most rarely change, some often.
fn generated() -> Dataset {
    let mut rng = Pcg64::seed_from_u64(1);
    let mut d = Dataset::new(2000, 30);
    for p in 0..2000 {
        let rate = [0.01, 0.01, 0.05, 0.3, 0.8][rng.gen_range(0..5)];
        for c in 1..=30 {
            if rng.gen::<f64>() < rate {
                d.set_changed(p, c, true);
            }
        }
    }
    d
}

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/datasets/brdc12-sample.tsv");
    let (name, dataset) = match args.first() {
        Some(path) => (
            path.clone(),
            data::load(Path::new(path), &LoadOptions::default())?.dataset,
        ),
        None if Path::new(sample).exists() => (
            sample.to_string(),
            data::load(Path::new(sample), &LoadOptions::default())?.dataset,
        ),
        None => ("a generated history".to_string(), generated()),
    };
    let formula: Formula = args
        .get(1)
        .map(String::as_str)
        .unwrap_or("1 - exp(-NAD * t)")
        .parse()?;
    let resources: f64 = args.get(2).map(|r| r.parse()).transpose()?.unwrap_or(0.05);
    let config = SimConfig::new(resources, WARMUP as usize)?;

    // The crawler's pages, by their ids (and hosts, when the history has them).
    let ids: Vec<String> = (0..dataset.pages())
        .map(|p| {
            dataset
                .id(p)
                .map_or_else(|| format!("page{p}"), str::to_string)
        })
        .collect();
    let mut scheduler: Scheduler = Scheduler::new(Policy::formula(&formula, Closure::Paper));
    for (p, id) in ids.iter().enumerate() {
        match dataset.host(p) {
            Some(h) => scheduler.add_with_host(id.clone(), &dataset.host_names()[h as usize])?,
            None => scheduler.add(id.clone())?,
        };
    }
    let k = config.k(scheduler.len());
    println!(
        "{name}: {} pages, {} days; formula {formula}; {k} downloads a day after {WARMUP} warm-up days",
        dataset.pages(),
        dataset.cycles()
    );

    // What the web does: a page is stale once it changed since its last download.
    let period = Period::whole(&dataset)?;
    let mut stale = vec![false; dataset.pages()];
    let slot_of = |id: &String, s: &Scheduler| s.slot(id).expect("scheduled") as usize;
    let (mut found_total, mut days) = (0usize, 0usize);
    for day in 1..=period.len() as u32 {
        for &p in period.changes(day as usize) {
            stale[p as usize] = true;
        }
        let batch: Vec<String> = if day <= WARMUP {
            ids.clone()
        } else {
            scheduler.next_batch(day, k)?
        };
        let mut found = 0;
        for id in &batch {
            // Pages were added in dataset order into an empty scheduler: slot = index.
            let p = slot_of(id, &scheduler);
            found += stale[p] as usize;
            scheduler.observe(id.as_str(), day, stale[p])?;
            stale[p] = false;
        }
        let waiting = stale.iter().filter(|&&s| s).count();
        if day > WARMUP {
            found_total += found;
            days += 1;
        }
        println!(
            "day {day:>3}: downloaded {:>7}, {found:>6} had changed ({:>5.1}%), {waiting:>6} changed pages still waiting",
            batch.len(),
            100.0 * found as f64 / batch.len() as f64
        );
    }
    println!(
        "mean change rate of the scheduled days: {:.4}",
        found_total as f64 / (days * k).max(1) as f64
    );

    // A restart: save, load, and the batch for the next day is the same.
    let next = period.len() as u32 + 1;
    let path = std::env::temp_dir().join(format!("freshgp-replay-{}.state", std::process::id()));
    scheduler.save(&path)?;
    let mut restarted: Scheduler = Scheduler::load(&path)?;
    let size = std::fs::metadata(&path)?.len();
    std::fs::remove_file(&path)?;
    let batch = scheduler.next_batch_scored(next, k, None)?;
    let again = restarted.next_batch_scored(next, k, None)?;
    assert_eq!(
        batch, again,
        "a restarted scheduler proposes the same batch"
    );
    println!("state saved ({size} bytes) and reloaded: same batch");
    println!("batch for day {next} (page, score):");
    for pick in &batch {
        println!("{}\t{}", pick.page, pick.score);
    }
    Ok(())
}
