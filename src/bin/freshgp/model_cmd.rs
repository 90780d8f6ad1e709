//! `freshgp model`: learned change models (docs/src/reference/models.md) — train one (a
//! logistic regression or the seed's network) and save it, or print the AUC table of every
//! frequency baseline, the combined model and, on request, the network.

use crate::common::{check_out, policy_list, DataArgs};
use crate::interrupt::Interrupt;
use anyhow::{bail, Context, Result};
use clap::Subcommand;
use freshgp::data::split::{check_rotation, check_rotations};
use freshgp::model::{Feature, FeatureSet};
use freshgp::output::{self, ModelEval};
use freshgp::predict::logistic::ALPHAS;
use freshgp::predict::observe::{DEFAULT_CRAWL_POLICY, DEFAULT_CRAWL_RESOURCES};
use freshgp::predict::request::{DEFAULT_KIND, DEFAULT_MEMORY_MIB, DEFAULT_ROTATION};
use freshgp::predict::{eval, EvalOptions, ModelKind, NetworkOptions};
use freshgp::predict::{Progress, RotationProgress, StaleOptions, TrainRequest};
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
    /// Train a logistic regression over frequency features (or the seed's network, with
    /// `--kind network`) on one rotation's training fold and period, select it on the
    /// validation fold, and save it.
    Train(TrainArgs),
    /// Print (and write as JSON) the AUC table of the seed's Tables 2 and 3: each
    /// frequency feature alone, all combined, the group features alone and (with
    /// `--network`) the seed's network; seen and unseen pages, full and partial
    /// observability, cold start; over the five rotations.
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
    #[arg(long, default_value_t = DEFAULT_ROTATION)]
    rotation: usize,
    /// Label horizon K: an example is positive when the page changes within K cycles
    /// (default 1; the change label's: the stale model has none).
    #[arg(long)]
    horizon: Option<usize>,
    /// The model: `logistic` (a logistic regression), `network` (the seed's network:
    /// embeddings, hidden layers 256, 128, 64, Adagrad, L1 and L2 of 0.001) or `hazard`
    /// (the stale model: the probability that the page changed since the last visit,
    /// learned from the visits of a crawl, --crawl-policy).
    #[arg(long, default_value = DEFAULT_KIND.name())]
    kind: String,
    /// Stale model: the attribute (or `host`) whose groups centre its prior, `none`, or
    /// `auto` (each tried, the best on validation kept).
    #[arg(long, default_value = "auto")]
    prior_group: String,
    /// Stale model: the policy whose crawl's visits are the examples.
    #[arg(long, default_value = DEFAULT_CRAWL_POLICY.name())]
    crawl_policy: String,
    /// Stale model: resources of that crawl, in (0, 1].
    #[arg(long, default_value_t = DEFAULT_CRAWL_RESOURCES)]
    crawl_resources: f64,
    /// Comma-separated features (freqW, since_change, group:KEY, and cat:KEY for a
    /// network); default the frequency features a policy can compute: freq1, freq7,
    /// freq30, since_change, group:KEY for the --group attribute (if given) and
    /// group:host; for a network every frequency feature and cat:KEY for each attribute
    /// and the host (the seed paper's; such a model serves `model eval`, not a policy).
    #[arg(long, value_delimiter = ',')]
    features: Vec<String>,
    /// Memory (MiB) the training and validation examples may take; beyond it they are
    /// streamed: computed chunk by chunk whenever a pass needs them (slower; the same
    /// logistic regression up to rounding).
    #[arg(long, value_name = "MIB", default_value_t = DEFAULT_MEMORY_MIB)]
    memory: usize,
    #[command(flatten)]
    network: NetworkArgs,
}

/// How to train a network (`--kind network`, `model eval --network`).
#[derive(clap::Args)]
struct NetworkArgs {
    /// Network: passes over the training examples (the best by validation AUC is kept).
    #[arg(long, default_value_t = NetworkOptions::default().epochs)]
    epochs: usize,
    /// Network: examples per mini-batch.
    #[arg(long, default_value_t = NetworkOptions::default().batch_size)]
    batch_size: usize,
    /// Network: Adagrad's learning rate.
    #[arg(long, default_value_t = NetworkOptions::default().learning_rate)]
    learning_rate: f64,
    /// Network: the seed of the initial weights and of the order of the examples.
    #[arg(long, default_value_t = NetworkOptions::default().seed)]
    seed: u64,
}

impl NetworkArgs {
    fn options(&self) -> NetworkOptions {
        NetworkOptions {
            epochs: self.epochs,
            batch_size: self.batch_size,
            learning_rate: self.learning_rate,
            seed: self.seed,
            ..NetworkOptions::default()
        }
    }
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
    #[arg(long, default_value = DEFAULT_CRAWL_POLICY.name())]
    partial_policy: String,
    /// Resources of that crawl, in (0, 1].
    #[arg(long, default_value_t = DEFAULT_CRAWL_RESOURCES)]
    partial_resources: f64,
    /// Add a `network` row: the seed's network over every frequency feature and the codes
    /// of every attribute (minutes, where the rest takes seconds).
    #[arg(long)]
    network: bool,
    #[command(flatten)]
    network_options: NetworkArgs,
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
    check_kind_flags(&args)?;
    if args.kind == "hazard" {
        check_rotation(args.rotation).context("--rotation")?;
        return train_stale(args);
    }
    let kind: ModelKind = args.kind.parse().context("--kind")?;
    let data = args.data.load(false)?;
    let request = TrainRequest {
        kind: Some(kind),
        features: args.features.clone(),
        rotation: Some(args.rotation),
        horizon: args.horizon,
        memory_mib: Some(args.memory),
        network: Some(args.network.options()),
    };
    let (set, options) = request.options(&data)?;
    let horizon = options.horizon;
    let start = Instant::now();
    let shown = crate::progress::Progress::new(false);
    shown.note(format_args!(
        "training a {kind} on rotation {} ({} features, K = {})...",
        args.rotation,
        set.len(),
        horizon
    ));
    let epochs = options.network.epochs;
    let bar = match kind {
        ModelKind::Logistic => shown.bar("penalties", ALPHAS.len() as u64),
        ModelKind::Network => shown.bar("epochs", epochs as u64),
    };
    bar.set_message(format!("fitting on rotation {}", args.rotation));
    let interrupt = Interrupt::watch();
    let mut progress = |step: Progress| {
        let secs = start.elapsed().as_secs_f64();
        match step {
            Progress::Streaming { examples, bytes, rows } => shown.note(format_args!(
                "{examples} training examples: with validation {} MiB, over --memory {}; streaming them in chunks of {rows}",
                bytes >> 20,
                args.memory
            )),
            Progress::Penalty { alpha, auc } => {
                bar.inc(1);
                shown.note(format_args!("penalty {alpha}: validation AUC {auc:.4} ({secs:.1}s)"))
            }
            Progress::Epoch { epoch, loss, auc } => {
                bar.set_position(epoch as u64);
                shown.note(format_args!(
                    "epoch {epoch}/{epochs}: training cross-entropy {loss:.4}, validation AUC {auc:.4} ({secs:.1}s)"
                ))
            }
        }
        interrupt.flow()
    };
    let t = eval::train(&data, &set, &options, &mut progress)?;
    bar.finish_and_clear();
    let json = t.model.to_json_with_horizon(horizon);
    freshgp::atomic::write(&args.out, json.as_bytes())
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    note_policy_use(&args.out, &json, &shown);
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

/// Tells whether the model file `json` (written to `out`) runs as a policy: a model the
/// policy `model:FILE` cannot run still serves `model eval` and `requests`; say so now,
/// not when the user first tries it.
fn note_policy_use(out: &std::path::Path, json: &str, shown: &crate::progress::Progress) {
    let shown_path = out.display().to_string();
    match freshgp::policy::Predictor::from_text(&shown_path, json) {
        Err(why) => shown.note(format_args!(
            "note: not usable as a policy (model:{shown_path}): {why}"
        )),
        Ok(policy) => {
            if let Some(key) = policy.group() {
                shown.note(format_args!(
                    "note: as a policy, model:{shown_path} runs on data grouped by {key} (--group {key})"
                ));
            }
        }
    }
}

/// `model train --kind hazard`: the stale model.
fn train_stale(args: TrainArgs) -> Result<()> {
    let crawl = crawl_of(
        ("--crawl-policy", "--crawl-resources"),
        &args.crawl_policy,
        args.crawl_resources,
    )?
    .context("--crawl-policy: the stale model learns from a crawl's visits (none given)")?;
    let features = if args.features.is_empty() {
        None
    } else {
        Some(feature_list(&args.features)?)
    };
    let options = StaleOptions {
        rotation: args.rotation,
        crawl,
        group: args.prior_group.parse().context("--prior-group")?,
        features,
    };
    let data = args.data.load(false)?;
    let start = Instant::now();
    let shown = crate::progress::Progress::new(false);
    shown.note(format_args!(
        "training the stale model on rotation {} (the visits of {} at resources {})...",
        args.rotation, options.crawl.0, args.crawl_resources
    ));
    let t = freshgp::predict::train_stale(&data, &options)?;
    let json = t.model.to_json();
    freshgp::atomic::write(&args.out, json.as_bytes())
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    note_policy_use(&args.out, &json, &shown);
    let mut out = std::io::stdout().lock();
    for (key, loss) in &t.candidates {
        writeln!(
            out,
            "prior groups {:<12} validation log-loss {loss:.4}",
            key.as_deref().unwrap_or("none")
        )?;
    }
    if let freshgp::model::Model::Hazard(h) = &t.model {
        writeln!(
            out,
            "kept {}: {} groups, global rate {:.4}, strengths {:.3} (pages) and {:.3} (groups); shape of t {}",
            h.prior.key.as_deref().unwrap_or("none"),
            h.prior.groups.len(),
            h.prior.rate,
            h.prior.strength,
            h.prior.group_strength,
            h.shape().map_or("-".to_string(), |s| format!("{s:.3}"))
        )?;
    }
    if let Some((a, b)) = t.recalibration {
        writeln!(
            out,
            "recalibrated on the validation period: link a + b·z with a = {a:.4}, b = {b:.4}"
        )?;
    }
    writeln!(
        out,
        "trained on {} visits in {:.1}s; validation log-loss {:.4} (before the recalibration)",
        t.examples,
        start.elapsed().as_secs_f64(),
        t.validation
    )?;
    writeln!(out, "wrote {}", args.out.display())?;
    Ok(())
}

/// The features of `--features`.
fn feature_list(names: &[String]) -> Result<FeatureSet> {
    let features = names
        .iter()
        .map(|f| f.trim().parse::<Feature>())
        .collect::<Result<Vec<_>, _>>()
        .context("--features")?;
    Ok(FeatureSet::new(features))
}

/// Refuses flags of one kind of model given to another: `--horizon` and the network's to
/// the stale model, `--prior-group` and `--crawl-*` to a change model.
fn check_kind_flags(args: &TrainArgs) -> Result<()> {
    let stale = args.kind == "hazard";
    let defaults = TrainArgs::defaults();
    if stale {
        if let Some(k) = args.horizon {
            bail!("--horizon {k}: the horizon is the change label's; a stale model (--kind hazard) predicts whether the page changed since the last visit, whatever the cycles since");
        }
        if args.network.options() != NetworkOptions::default() {
            bail!("--epochs, --batch-size, --learning-rate and --seed are the network's (--kind network), not the stale model's");
        }
        if args.memory != defaults.2 {
            bail!(
                "--memory: the stale model holds its examples in memory (it has no streamed form)"
            );
        }
    } else if args.prior_group != defaults.0
        || !args.crawl_policy.eq_ignore_ascii_case(defaults.1)
        || args.crawl_resources != DEFAULT_CRAWL_RESOURCES
    {
        bail!("--prior-group, --crawl-policy and --crawl-resources are the stale model's (--kind hazard), not a {}'s", args.kind);
    }
    Ok(())
}

impl TrainArgs {
    /// The defaults of `--prior-group`, `--crawl-policy` and `--memory`.
    fn defaults() -> (&'static str, &'static str, usize) {
        ("auto", DEFAULT_CRAWL_POLICY.name(), DEFAULT_MEMORY_MIB)
    }
}

/// The crawl `policy` (one policy, or `none`) at `resources`, warm-up 2, seed 1; the
/// flags' names (`flags`: the policy's, the resources') name them in errors.
fn crawl_of(
    flags: (&str, &str),
    policy: &str,
    resources: f64,
) -> Result<Option<(freshgp::policy::Policy, SimConfig)>> {
    let (flag, resources_flag) = flags;
    if policy == "none" {
        return Ok(None);
    }
    let mut policies = policy_list(flag, policy)?;
    if policies.len() != 1 {
        bail!("{flag}: give one policy (or none)");
    }
    let Some(policy) = policies.pop() else {
        return Ok(None);
    };
    let crawl = freshgp::predict::observe::crawl(policy, resources)
        .with_context(|| format!("{resources_flag} {resources}"))?;
    Ok(Some(crawl))
}

fn evaluate(args: EvalArgs) -> Result<()> {
    if let Some(json) = &args.json {
        check_out(json, args.force)?;
    }
    check_rotations(args.rotations).context("--rotations")?;
    let partial = crawl_of(
        ("--partial-policy", "--partial-resources"),
        &args.partial_policy,
        args.partial_resources,
    )?;
    let data = args.data.load(false)?;
    let options = EvalOptions::default()
        .horizon(args.horizon)
        .rotations(args.rotations)
        .partial(partial.clone())
        .network(args.network.then(|| args.network_options.options()));
    let start = Instant::now();
    let shown = crate::progress::Progress::new(false);
    shown.note(format_args!(
        "evaluating {} rotation(s) on {} pages × {} cycles...",
        args.rotations,
        data.pages(),
        data.cycles()
    ));
    // Each rotation and observability is a step; with a network, so is each epoch.
    let prefix = if args.network {
        "epochs and rotations"
    } else {
        "rotations"
    };
    let bar = shown.bar(prefix, options.progress_steps() as u64);
    bar.set_message("fitting the models");
    let table = eval::auc_table_with_progress(&data, &options, &|step| {
        bar.inc(1);
        match step {
            // A network's epochs move the bar; the lines tell what each rotation finished.
            RotationProgress::Training { .. } => bar.set_message(step.to_string()),
            _ => shown.note(format_args!(
                "{step} ({:.1}s)",
                start.elapsed().as_secs_f64()
            )),
        }
    })?;
    bar.finish_and_clear();
    shown.note(format_args!(
        "done in {:.1}s",
        start.elapsed().as_secs_f64()
    ));
    // The stale model and its rivals at the partial crawl's visits; if it cannot be
    // built (too few visits, one class), the AUC table still is.
    let report = ModelEval::new(table, &data, args.rotations, partial.as_ref());
    if let Some(e) = &report.stale_error {
        shown.note(format_args!("note: no staleness table: {e}"));
    }
    let mut out = std::io::stdout().lock();
    write!(out, "{}", report.table)?;
    if let Some(stale) = &report.stale {
        write!(out, "{stale}")?;
    }
    if let Some(json) = &args.json {
        let text = output::pretty(&report)? + "\n";
        freshgp::atomic::write(json, text.as_bytes())
            .with_context(|| format!("cannot write {}", json.display()))?;
        writeln!(out, "wrote {}", json.display())?;
    }
    Ok(())
}
