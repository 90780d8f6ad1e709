//! `freshgp model`: learned change models (SPEC §12) — train one and save it, or print
//! the AUC table of every frequency baseline and the combined model.

use crate::common::{check_out, policy_list, DataArgs};
use anyhow::{bail, Context, Result};
use clap::Subcommand;
use freshgp::predict::{eval, EvalOptions, Feature, FeatureSet};
use freshgp::sim::SimConfig;
use std::io::Write as _;
use std::path::PathBuf;
use std::time::Instant;

/// Flags of `freshgp model`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(Subcommand)]
enum Action {
    /// Train a logistic regression over frequency features on one rotation's training
    /// fold and period, choose its penalty on the validation fold, and save it.
    Train(TrainArgs),
    /// Print (and write as JSON) the AUC table of the seed's Tables 2 and 3: each
    /// frequency feature alone and all combined, seen and unseen pages, full and partial
    /// observability, over the five rotations.
    Eval(EvalArgs),
}

#[derive(clap::Args)]
struct TrainArgs {
    #[command(flatten)]
    data: DataArgs,
    /// The model file to write (JSON).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Replace OUT if it exists.
    #[arg(long)]
    force: bool,
    /// The rotation (0..=4) whose training fold and period the model learns on.
    #[arg(long, default_value_t = 0)]
    rotation: usize,
    /// Label horizon K: an example is positive when the page changes within K cycles.
    #[arg(long, default_value_t = 1)]
    horizon: usize,
    /// Comma-separated features (freqW, since_change, group:KEY); default every
    /// frequency feature: freq1, freq7, freq30, since_change and group:KEY for each
    /// attribute and the host.
    #[arg(long, value_delimiter = ',')]
    features: Vec<String>,
}

#[derive(clap::Args)]
struct EvalArgs {
    #[command(flatten)]
    data: DataArgs,
    /// Label horizon K.
    #[arg(long, default_value_t = 1)]
    horizon: usize,
    /// Rotations to average (1..=5).
    #[arg(long, default_value_t = 5)]
    rotations: usize,
    /// The policy whose crawl gives partial observability (`none`: full only).
    #[arg(long, default_value = "nad")]
    partial_policy: String,
    /// Resources of that crawl, in (0, 1].
    #[arg(long, default_value_t = 0.2)]
    partial_resources: f64,
    /// Also write the table as JSON to this file.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Replace the JSON file if it exists.
    #[arg(long)]
    force: bool,
}

/// Runs `freshgp model`.
pub fn run(args: Args) -> Result<()> {
    match args.action {
        Action::Train(a) => train(a),
        Action::Eval(a) => evaluate(a),
    }
}

fn train(args: TrainArgs) -> Result<()> {
    check_out(&args.out, args.force)?;
    if args.rotation > 4 {
        bail!("--rotation {}: expected 0..=4", args.rotation);
    }
    let data = args.data.load(false)?;
    let set = if args.features.is_empty() {
        FeatureSet::frequency(&data)
    } else {
        let features = args
            .features
            .iter()
            .map(|f| f.trim().parse::<Feature>())
            .collect::<Result<Vec<_>, _>>()
            .context("--features")?;
        FeatureSet::new(features)
    };
    let start = Instant::now();
    eprintln!(
        "training on rotation {} ({} features, K = {})...",
        args.rotation,
        set.len(),
        args.horizon
    );
    let t = eval::train(&data, &set, args.rotation, args.horizon)?;
    std::fs::write(&args.out, t.model.to_json_with_horizon(args.horizon))
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "trained on {} examples in {:.1}s; validation AUC {:.4}; test AUC seen {:.4} ± {:.4}, unseen {:.4} ± {:.4}",
        t.examples,
        start.elapsed().as_secs_f64(),
        t.validation,
        t.test.seen.mean,
        t.test.seen.sd,
        t.test.unseen.mean,
        t.test.unseen.sd
    )?;
    writeln!(out, "wrote {}", args.out.display())?;
    Ok(())
}

fn evaluate(args: EvalArgs) -> Result<()> {
    if let Some(json) = &args.json {
        check_out(json, args.force)?;
    }
    if args.rotations == 0 || args.rotations > 5 {
        bail!("--rotations {}: expected 1..=5", args.rotations);
    }
    let partial = if args.partial_policy == "none" {
        None
    } else {
        let mut policies = policy_list("--partial-policy", &args.partial_policy)?;
        if policies.len() != 1 {
            bail!("--partial-policy: give one policy (or none)");
        }
        let config = SimConfig::new(args.partial_resources, 2)
            .context("--partial-resources")?
            .with_seed(1);
        policies.pop().map(|p| (p, config))
    };
    let data = args.data.load(false)?;
    let options = EvalOptions::default()
        .horizon(args.horizon)
        .rotations(args.rotations)
        .partial(partial);
    let start = Instant::now();
    eprintln!(
        "evaluating {} rotation(s) on {} pages × {} cycles...",
        args.rotations,
        data.pages(),
        data.cycles()
    );
    let table = eval::auc_table(&data, &options)?;
    eprintln!("done in {:.1}s", start.elapsed().as_secs_f64());
    let mut out = std::io::stdout().lock();
    write!(out, "{table}")?;
    if let Some(json) = &args.json {
        let text = serde_json::to_string_pretty(&table)? + "\n";
        std::fs::write(json, text).with_context(|| format!("cannot write {}", json.display()))?;
        writeln!(out, "wrote {}", json.display())?;
    }
    Ok(())
}
