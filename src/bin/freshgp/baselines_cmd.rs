//! `freshgp baselines`: the seven published baselines over the five test rotations.

use crate::common::{DataArgs, SimArgs};
use anyhow::Result;
use freshgp::experiment::baselines;
use freshgp::sim::Baseline;
use serde_json::json;
use std::io::Write as _;

/// Flags of `freshgp baselines`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    data: DataArgs,
    #[command(flatten)]
    sim: SimArgs,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// Runs `freshgp baselines`.
pub fn run(args: Args) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    let dataset = args.data.load(false)?;
    let config = args.sim.config()?;
    let results = baselines::run(&dataset, config, &Baseline::ALL)?;
    let cycles = results.first().map_or(0, |r| r.changerate.n);
    if args.json {
        let mut map = serde_json::Map::new();
        for r in &results {
            map.insert(
                r.baseline.name().to_string(),
                json!({
                    "changerate": {"mean": r.changerate.mean, "ci95": r.changerate.ci95},
                    "ndcg": {"mean": r.ndcg.mean, "ci95": r.ndcg.ci95},
                    "freshness": {"mean": r.freshness.mean, "ci95": r.freshness.ci95},
                    "random": r.baseline.is_random(),
                }),
            );
        }
        let out = json!({
            "baselines": map,
            "cycles": cycles,
            "pages": dataset.pages(),
            "resources": config.resources(),
            "warmup": config.warmup(),
            "ties": config.ties(),
        });
        writeln!(stdout, "{}", serde_json::to_string_pretty(&out)?)?;
        return Ok(());
    }
    writeln!(
        stdout,
        "{} pages × {} cycles; test sets of 5 rotations, {} scored cycles; resources {}, warm-up {}",
        dataset.pages(),
        dataset.cycles(),
        cycles,
        config.resources(),
        config.warmup()
    )?;
    writeln!(stdout, "{:<6} {:>18} {:>18}", "", "ChangeRate", "NDCG")?;
    for r in &results {
        writeln!(
            stdout,
            "{:<6} {:>9.4} ± {:<6.4} {:>9.4} ± {:<6.4}",
            r.baseline.name(),
            r.changerate.mean,
            r.changerate.ci95,
            r.ndcg.mean,
            r.ndcg.ci95
        )?;
    }
    Ok(())
}
