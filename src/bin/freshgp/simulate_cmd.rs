//! `freshgp simulate`: per-cycle metrics of one formula (or baseline) on one set.

use crate::common::{DataArgs, SimArgs};
use crate::formula_cmd::parse;
use anyhow::{bail, Result};
use clap::ValueEnum;
use freshgp::data::split::Split;
use freshgp::formula::Grammar;
use freshgp::sim::{Baseline, Metric, Period, Policy, Simulator};
use serde_json::json;
use std::io::Write as _;

/// Flags of `freshgp simulate`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    data: DataArgs,
    /// The scoring formula, e.g. "1 - exp(-NAD * t)".
    #[arg(
        long,
        required_unless_present = "baseline",
        conflicts_with = "baseline"
    )]
    formula: Option<String>,
    /// A built-in baseline instead of a formula: Rand, Age, NAD, SAD, AAD, GAD or CG.
    #[arg(long)]
    baseline: Option<String>,
    /// Grammar whose terminals the formula may use (basic, all, basic-reference,
    /// all-reference, or a RON file); its closure evaluates the formula.
    #[arg(long, default_value = "all")]
    grammar: String,
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
    let grammar = Grammar::named_or_file(&args.grammar)?;
    let scorer = match (&args.formula, &args.baseline) {
        (Some(text), _) => Policy::formula(&parse(text, &grammar)?, grammar.closure()),
        (None, Some(name)) => match Baseline::from_name(name) {
            Some(b) => Policy::Baseline(b),
            None => {
                bail!("unknown baseline `{name}` (expected Rand, Age, NAD, SAD, AAD, GAD or CG)")
            }
        },
        (None, None) => bail!("give --formula or --baseline"),
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
    let outcome = Simulator::new(config).run(&period, &scorer)?;
    let means = json!({
        "changerate": outcome.mean(Metric::ChangeRate),
        "ndcg": outcome.mean(Metric::Ndcg),
        "freshness": outcome.mean(Metric::Freshness),
    });
    if args.json {
        let out = json!({
            "scorer": scorer.label(),
            "pages": period.pages(),
            "period_cycles": period.len(),
            "cycles": outcome.cycles,
            "mean": means,
        });
        writeln!(stdout, "{}", serde_json::to_string_pretty(&out)?)?;
        return Ok(());
    }
    writeln!(
        stdout,
        "{}: {} pages × {} cycles, k = {}",
        scorer.label(),
        period.pages(),
        period.len(),
        config.k(period.pages())
    )?;
    writeln!(
        stdout,
        "{:>5} {:>6} {:>10} {:>8} {:>9}",
        "cycle", "stale", "ChangeRate", "NDCG", "Freshness"
    )?;
    for c in &outcome.cycles {
        writeln!(
            stdout,
            "{:>5} {:>6} {:>10.4} {:>8.4} {:>9.4}",
            c.cycle, c.stale, c.change_rate, c.ndcg, c.freshness
        )?;
    }
    writeln!(
        stdout,
        "{:>5} {:>6} {:>10.4} {:>8.4} {:>9.4}",
        "mean",
        "",
        outcome.mean(Metric::ChangeRate),
        outcome.mean(Metric::Ndcg),
        outcome.mean(Metric::Freshness)
    )?;
    Ok(())
}
