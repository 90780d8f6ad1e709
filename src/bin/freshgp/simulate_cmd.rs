//! `freshgp simulate`: per-cycle metrics of one formula (or baseline) on one set.

use crate::common::{DataArgs, PolicyArgs, SimArgs};
use anyhow::{bail, Result};
use clap::ValueEnum;
use freshgp::data::split::Split;
use freshgp::sim::{Metric, Outcome, Period, Simulator};
use serde_json::json;
use std::io::Write;

/// Flags of `freshgp simulate`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    data: DataArgs,
    #[command(flatten)]
    policy: PolicyArgs,
    /// Which set: the rotation's training, validation or test set, or all pages over all
    /// cycles.
    #[arg(long, value_enum, default_value_t = Set::Test)]
    period: Set,
    /// Rotation (0..=4): which page fold is the test set.
    #[arg(long, default_value_t = 0)]
    rotation: usize,
    #[command(flatten)]
    sim: SimArgs,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, ValueEnum, PartialEq)]
enum Set {
    Train,
    Validation,
    Test,
    All,
}

/// Runs `freshgp simulate`.
pub fn run(args: Args) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    let Some(policy) = args.policy.policy()? else {
        bail!("give --policy, --formula or --baseline");
    };
    let config = args.sim.config()?;
    let dataset = args.data.load(args.json)?;
    let period = if args.period == Set::All {
        Period::whole(&dataset)?
    } else {
        let split = Split::new(dataset.pages(), dataset.cycles(), args.rotation)?;
        let (pages, cycles) = match args.period {
            Set::Train => (&split.train, split.train_cycles.clone()),
            Set::Validation => (&split.validation, split.validation_cycles.clone()),
            _ => (&split.test, split.test_cycles.clone()),
        };
        Period::new(&dataset, pages, cycles)?
    };
    let outcome = Simulator::new(config).run(&period, &policy)?;
    if args.json {
        let means: serde_json::Map<String, serde_json::Value> = Metric::ALL
            .iter()
            .map(|&m| (m.name().to_string(), json!(outcome.mean(m))))
            .collect();
        let out = json!({
            "scorer": policy.label(),
            "pages": period.pages(),
            "period_cycles": period.len(),
            "host_cap": config.host_cap(),
            "cycles": outcome.cycles,
            "mean": means,
        });
        writeln!(stdout, "{}", serde_json::to_string_pretty(&out)?)?;
        return Ok(());
    }
    let cap = config.host_cap().map_or(String::new(), |m| {
        format!(", host cap {m} (pages of one host per cycle)")
    });
    writeln!(
        stdout,
        "{}: {} pages × {} cycles, k = {}{cap}",
        policy.label(),
        period.pages(),
        period.len(),
        config.k(period.pages())
    )?;
    print_table(&mut stdout, &outcome)
}

/// The per-cycle table: the paper's metrics, then the weighted ones (SPEC §8) and the
/// visits (fewer than k when a host cap leaves too few eligible pages).
fn print_table(stdout: &mut impl Write, outcome: &Outcome) -> Result<()> {
    writeln!(
        stdout,
        "{:>5} {:>6} {:>10} {:>8} {:>9} {:>10} {:>8} {:>7}",
        "cycle", "stale", "ChangeRate", "NDCG", "Freshness", "WFreshness", "WNDCG", "visited"
    )?;
    for c in &outcome.cycles {
        writeln!(
            stdout,
            "{:>5} {:>6} {:>10.4} {:>8.4} {:>9.4} {:>10.4} {:>8.4} {:>7}",
            c.cycle, c.stale, c.change_rate, c.ndcg, c.freshness, c.wfreshness, c.wndcg, c.visited
        )?;
    }
    writeln!(
        stdout,
        "{:>5} {:>6} {:>10.4} {:>8.4} {:>9.4} {:>10.4} {:>8.4}",
        "mean",
        "",
        outcome.mean(Metric::ChangeRate),
        outcome.mean(Metric::Ndcg),
        outcome.mean(Metric::Freshness),
        outcome.mean(Metric::WFreshness),
        outcome.mean(Metric::WNdcg)
    )?;
    Ok(())
}
