//! `freshgp baselines`: the seven published baselines over the five test rotations.

use crate::common::{DataArgs, SimArgs};
use anyhow::Result;
use freshgp::experiment::baselines;
use freshgp::sim::{Baseline, Metric};
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
    let cycles = results.first().map_or(0, |r| r.metrics.changerate.n);
    if args.json {
        let mut map = serde_json::Map::new();
        for r in &results {
            let mut entry = serde_json::Map::new();
            for metric in Metric::ALL {
                let v = r.metrics.of(metric);
                entry.insert(
                    metric.name().into(),
                    json!({"mean": v.mean, "ci95": v.ci95}),
                );
            }
            entry.insert("random".into(), json!(r.baseline.is_random()));
            map.insert(r.baseline.name().to_string(), entry.into());
        }
        let out = json!({
            "baselines": map,
            "cycles": cycles,
            "pages": dataset.pages(),
            "resources": config.resources(),
            "warmup": config.warmup(),
            "ties": config.ties(),
            "host_cap": config.host_cap(),
        });
        writeln!(stdout, "{}", serde_json::to_string_pretty(&out)?)?;
        return Ok(());
    }
    let cap = config.host_cap().map_or(String::new(), |m| {
        format!(", host cap {m} (pages of one host per cycle)")
    });
    writeln!(
        stdout,
        "{} pages × {} cycles; test sets of 5 rotations, {} scored cycles; resources {}, warm-up {}{cap}",
        dataset.pages(),
        dataset.cycles(),
        cycles,
        config.resources(),
        config.warmup()
    )?;
    // ChangeRate, NDCG and their weighted companions, as a report's comparisons.
    let shown = freshgp::report::COMPARED;
    write!(stdout, "{:<6}", "")?;
    for metric in shown {
        write!(stdout, " {:>18}", metric.title())?;
    }
    writeln!(stdout)?;
    for r in &results {
        write!(stdout, "{:<6}", r.baseline.name())?;
        for metric in shown {
            let v = r.metrics.of(metric);
            write!(stdout, " {:>9.4} ± {:<6.4}", v.mean, v.ci95)?;
        }
        writeln!(stdout)?;
    }
    Ok(())
}
