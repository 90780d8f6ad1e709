//! `freshgp requests`: the request-driven (click-triggered) simulation of SPEC §12 — the
//! crawls each policy saves against uniform at equal freshness.

use crate::common::{check_out, policy_list, DataArgs};
use anyhow::{bail, Context, Result};
use freshgp::predict::{Learned, ModelScorer, Reading};
use freshgp::sim::requests::{self, Level, Pages, RequestConfig, RequestSim, QUANTILES};
use freshgp::sim::SimConfig;
use std::io::Write as _;
use std::path::PathBuf;
use std::time::Instant;

/// Flags of `freshgp requests`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    data: DataArgs,
    /// The policies that decide the crawls (comma-separated, as `--policy` reads one:
    /// baselines, the literature's policies, formulas).
    #[arg(
        long,
        default_value = "NAD,Age,lambda,value",
        allow_hyphen_values = true
    )]
    policies: String,
    /// Learned models that decide the crawls too (comma-separated): `combined` (the
    /// logistic regression over every frequency feature) or one feature (freqW,
    /// since_change, group:KEY), each learned per rotation on its training fold (SPEC
    /// §12), scored by the predicted change probability p; `stale:combined` scores
    /// 1 - (1 - p)^t instead, t the cycles since the page's last crawl. Default: none.
    #[arg(long, value_delimiter = ',')]
    learned: Vec<String>,
    /// Label horizon K of the learned models.
    #[arg(long, default_value_t = 1)]
    horizon: usize,
    /// Which pages receive requests: unseen (the test fold, SPEC §12) or seen (the
    /// training fold).
    #[arg(long, default_value = "unseen")]
    pages: Pages,
    /// Cold start: no warm-up, every page starts with no history.
    #[arg(long)]
    cold_start: bool,
    /// Rotations pooled (1..=5).
    #[arg(long, default_value_t = 5)]
    rotations: usize,
    /// Score quantiles Q: a request is crawled with probability min(1, (q/Q)·γ).
    #[arg(long, default_value_t = QUANTILES)]
    quantiles: u32,
    /// Uniform's resource levels at which savings are read, in (0, 1].
    #[arg(long, value_delimiter = ',', default_value = "0.2,0.4,0.6,0.8")]
    levels: Vec<f64>,
    /// The budget k = resources × P that rate policies solve their rates for.
    #[arg(long, default_value_t = freshgp::sim::DEFAULT_RESOURCES)]
    resources: f64,
    /// Seed of the requests (arrivals, serving order, draws) and of the tie order.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Also write the table as JSON to this file.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Replace the JSON file if it exists.
    #[arg(long)]
    force: bool,
}

/// What the JSON file holds.
#[derive(serde::Serialize)]
struct Output<'a> {
    pages: Pages,
    cold_start: bool,
    rotations: usize,
    requests: usize,
    quantiles: u32,
    levels: &'a [Level],
}

/// Runs `freshgp requests`.
pub fn run(args: Args) -> Result<()> {
    if let Some(json) = &args.json {
        check_out(json, args.force)?;
    }
    if args.rotations == 0 || args.rotations > 5 {
        bail!("--rotations {}: expected 1..=5", args.rotations);
    }
    let policies = if args.policies.trim().is_empty() {
        Vec::new()
    } else {
        policy_list("--policies", &args.policies)?
    };
    let learned = args
        .learned
        .iter()
        .map(|m| match m.trim().strip_prefix("stale:") {
            Some(m) => Ok((m.parse::<Learned>()?, Reading::Stale)),
            None => Ok((m.trim().parse::<Learned>()?, Reading::Change)),
        })
        .collect::<Result<Vec<_>, freshgp::predict::PredictError>>()
        .context("--learned")?;
    let warmup = if args.cold_start {
        0
    } else {
        freshgp::sim::DEFAULT_WARMUP
    };
    let sim = SimConfig::new(args.resources, warmup)
        .context("--resources")?
        .with_seed(args.seed);
    let config = RequestConfig::new(args.quantiles, sim).context("--quantiles")?;
    let data = args.data.load(false)?;
    let rotations: Vec<usize> = (0..args.rotations).collect();
    let sim = RequestSim::from_split(&data, &rotations, args.pages, config)?;
    let start = Instant::now();
    if !learned.is_empty() {
        eprintln!("learning {} model(s) per rotation...", learned.len());
    }
    let models = learned
        .iter()
        .map(|(m, reading)| {
            ModelScorer::learn(&data, m, &rotations, args.pages, args.horizon)?.reading(*reading)
        })
        .collect::<Result<Vec<_>, _>>()
        .context("--learned")?;
    eprintln!(
        "{} requests over {} rotation(s); tuning γ for {} policies at {} levels...",
        sim.requests(),
        args.rotations,
        policies.len() + models.len(),
        args.levels.len()
    );
    let methods: Vec<&dyn requests::Scorer> = policies
        .iter()
        .map(|p| p as &dyn requests::Scorer)
        .chain(models.iter().map(|m| m as &dyn requests::Scorer))
        .collect();
    let levels = requests::savings(&sim, &methods, &args.levels, &|line| eprintln!("  {line}"))?;
    eprintln!("done in {:.1}s", start.elapsed().as_secs_f64());
    let mut out = std::io::stdout().lock();
    print_table(&mut out, &levels)?;
    if let Some(json) = &args.json {
        let output = Output {
            pages: args.pages,
            cold_start: args.cold_start,
            rotations: args.rotations,
            requests: sim.requests(),
            quantiles: args.quantiles,
            levels: &levels,
        };
        let text = serde_json::to_string_pretty(&output)? + "\n";
        std::fs::write(json, text).with_context(|| format!("cannot write {}", json.display()))?;
        writeln!(out, "wrote {}", json.display())?;
    }
    Ok(())
}

/// One line per (level, method): uniform's R and F*, the method's γ, R, savings and the
/// per-cycle 95% interval.
fn print_table(out: &mut impl std::io::Write, levels: &[Level]) -> std::io::Result<()> {
    writeln!(
        out,
        "{:>5} {:>7}  {:<24} {:>9} {:>7} {:>8}  per-cycle 95% CI",
        "R_u", "F*", "method", "γ", "R", "savings"
    )?;
    for level in levels {
        for m in &level.methods {
            let ci = m.per_cycle;
            writeln!(
                out,
                "{:>5.2} {:>7.4}  {:<24} {:>9.4} {:>7.4} {:>7.1}%  [{:.1}%, {:.1}%]{}",
                level.uniform_resources,
                level.freshness,
                m.method,
                m.gamma,
                m.resources,
                100.0 * m.savings,
                100.0 * (ci.mean - ci.ci95),
                100.0 * (ci.mean + ci.ci95),
                if m.reached { "" } else { "  (F* not reached)" }
            )?;
        }
    }
    Ok(())
}
