//! `freshgp requests`: the request-driven (click-triggered) simulation
//! (docs/src/reference/requests.md) — the crawls each policy saves against the blind crawler at equal
//! freshness.

use crate::common::{check_out, policy_list, DataArgs};
use crate::progress::Progress;
use anyhow::{bail, Context, Result};
use freshgp::predict::{Learned, ModelScorer, Progress as TrainStep, Reading, RotationProgress};
use freshgp::report::plots::{line_chart, Series};
use freshgp::sim::requests::{
    self, Level, Pages, RequestConfig, RequestScorer, RequestSim, QUANTILES,
};
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
    /// logistic regression over every frequency feature), `groups` (over the group
    /// features alone: metadata, for cold start), `network` (the seed's network over
    /// every frequency feature and attribute code; minutes to train) or one feature (freqW,
    /// since_change, group:KEY), each learned per rotation on its training fold, scored by
    /// the predicted change probability p; `stale:combined` scores 1 - (1 - p)^t instead,
    /// t the cycles since the page's last crawl; `hazard` (the stale model: the
    /// probability that the page changed since its last crawl, learned from a crawl's
    /// own visits, with group rates shrunk toward the global rate). Default: none.
    #[arg(long, value_delimiter = ',')]
    learned: Vec<String>,
    /// Label horizon K of the learned models.
    #[arg(long, default_value_t = 1)]
    horizon: usize,
    /// Which pages receive requests (comma-separated): unseen (the test fold),
    /// seen (the training fold), cold (the test fold with no warm-up: no page has any
    /// history; cold start).
    #[arg(long, value_delimiter = ',', default_value = "unseen")]
    pages: Vec<Pages>,
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
    /// Crawl a page at most once per cycle, whatever the method: a request for a page
    /// already crawled this cycle does not crawl it again (the seed's protocol, without
    /// this flag, lets every request draw; `p:hazard` never recrawls within a cycle).
    #[arg(long)]
    once_per_cycle: bool,
    /// Seed of the requests (arrivals, serving order, draws) and of the tie order.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Also write the tables as JSON to this file.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Also draw the savings against the blind crawler's R_b, one line per method and page
    /// set (the shape of the seed's Figure 11), as SVG to this file.
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    /// Replace the JSON or plot file if it exists.
    #[arg(long)]
    force: bool,
}

/// What the JSON file holds.
#[derive(serde::Serialize)]
struct Output<'a> {
    rotations: usize,
    quantiles: u32,
    once_per_cycle: bool,
    sets: &'a [Set],
}

/// One page set's results.
#[derive(serde::Serialize)]
struct Set {
    pages: Pages,
    requests: usize,
    levels: Vec<Level>,
}

/// The learned methods of `--learned`, each with its reading: `stale:M` compounds M's
/// change probability over t, `p:M` crawls by M's staleness directly.
fn learned_list(
    names: &[String],
) -> Result<Vec<(Learned, Reading)>, freshgp::predict::PredictError> {
    names
        .iter()
        .map(|m| {
            let m = m.trim();
            match (m.strip_prefix("stale:"), m.strip_prefix("p:")) {
                (Some(m), _) => Ok((m.parse::<Learned>()?, Reading::Stale)),
                (_, Some(m)) => Ok((m.parse::<Learned>()?, Reading::Direct)),
                _ => Ok((m.parse::<Learned>()?, Reading::Change)),
            }
        })
        .collect()
}

/// The simulation's settings from the flags; `p:` needs `--once-per-cycle`.
fn request_config(args: &Args, learned: &[(Learned, Reading)]) -> Result<RequestConfig> {
    if let Some((m, _)) = learned.iter().find(|(_, r)| *r == Reading::Direct) {
        if !args.once_per_cycle {
            bail!("--learned p:{m}: crawling by the probability never crawls a page twice in a cycle, while the other methods and the blind crawler do under the seed's protocol; compare them under --once-per-cycle");
        }
    }
    let sim = SimConfig::new(args.resources, freshgp::sim::DEFAULT_WARMUP)
        .context("--resources")?
        .with_seed(args.seed);
    Ok(RequestConfig::new(args.quantiles, sim)
        .context("--quantiles")?
        .once_per_cycle(args.once_per_cycle))
}

/// Runs `freshgp requests`.
pub fn run(args: Args) -> Result<()> {
    for out in args.json.iter().chain(&args.plot) {
        check_out(out, args.force)?;
    }
    if args.rotations == 0 || args.rotations > 5 {
        bail!("--rotations {}: expected 1..=5", args.rotations);
    }
    let policies = if args.policies.trim().is_empty() {
        Vec::new()
    } else {
        policy_list("--policies", &args.policies)?
    };
    let learned = learned_list(&args.learned).context("--learned")?;
    let config = request_config(&args, &learned)?;
    let data = args.data.load(false)?;
    let rotations: Vec<usize> = (0..args.rotations).collect();
    let start = Instant::now();
    let shown = Progress::new(false);
    let models = learn(&data, &learned, (&rotations, args.horizon), &shown)?;
    let mut sets = Vec::new();
    for &pages in &args.pages {
        let sim = RequestSim::from_split(&data, &rotations, pages, config)?;
        let models = models
            .iter()
            .map(|m| m.for_pages(pages))
            .collect::<Result<Vec<_>, _>>()?;
        let methods: Vec<&dyn RequestScorer> = policies
            .iter()
            .map(|p| p as &dyn RequestScorer)
            .chain(models.iter().map(|m| m as &dyn RequestScorer))
            .collect();
        shown.note(format_args!(
            "{} pages: {} requests over {} rotation(s); tuning γ for {} methods at {} levels...",
            pages.name(),
            sim.requests(),
            args.rotations,
            methods.len(),
            args.levels.len()
        ));
        let levels = tune(&sim, &methods, &args.levels, &shown)?;
        sets.push(Set {
            pages,
            requests: sim.requests(),
            levels,
        });
    }
    shown.note(format_args!(
        "done in {:.1}s",
        start.elapsed().as_secs_f64()
    ));
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "Savings against the blind crawler, which crawls each request with probability R_b \
         whatever its page (uniform crawling; not the rate policy `uniform`), at the freshness \
         F* it reaches."
    )?;
    if args.once_per_cycle {
        writeln!(
            out,
            "Once per cycle: no method crawls a page twice in a cycle, the blind crawler \
             included; savings are read against what it spent (R_b spent)."
        )?;
    }
    for set in &sets {
        writeln!(
            out,
            "{} pages ({} requests):",
            set.pages.name(),
            set.requests
        )?;
        print_table(&mut out, &set.levels)?;
    }
    if let Some(json) = &args.json {
        let output = Output {
            rotations: args.rotations,
            quantiles: args.quantiles,
            once_per_cycle: args.once_per_cycle,
            sets: &sets,
        };
        let text = serde_json::to_string_pretty(&output)? + "\n";
        freshgp::atomic::write(json, text.as_bytes())
            .with_context(|| format!("cannot write {}", json.display()))?;
        writeln!(out, "wrote {}", json.display())?;
    }
    if let Some(plot) = &args.plot {
        freshgp::atomic::write(plot, savings_plot(&sets, policies.len()).as_bytes())
            .with_context(|| format!("cannot write {}", plot.display()))?;
        writeln!(out, "wrote {}", plot.display())?;
    }
    Ok(())
}

/// The learned models, each learned on every rotation; the bar counts their penalties or
/// epochs and rotations.
fn learn<'a>(
    data: &'a freshgp::data::Dataset,
    learned: &[(Learned, Reading)],
    (rotations, horizon): (&[usize], usize),
    shown: &Progress,
) -> Result<Vec<ModelScorer<'a>>> {
    if learned.is_empty() {
        return Ok(Vec::new());
    }
    shown.note(format_args!(
        "learning {} model(s) per rotation...",
        learned.len()
    ));
    let steps: usize = learned
        .iter()
        .map(|(m, _)| rotations.len() * (m.progress_steps() + 1))
        .sum();
    let bar = shown.bar("learning", steps as u64);
    let models = learned
        .iter()
        .map(|(m, reading)| {
            bar.set_message(format!("{m} on {} rotation(s)", rotations.len()));
            ModelScorer::learn_with_progress(data, m, rotations, Pages::Unseen, horizon, &|e| {
                if matches!(
                    e,
                    RotationProgress::Learned { .. }
                        | RotationProgress::Training {
                            step: TrainStep::Penalty { .. } | TrainStep::Epoch { .. },
                            ..
                        }
                ) {
                    bar.inc(1)
                }
            })?
            .reading(*reading)
        })
        .collect::<Result<Vec<_>, _>>()
        .context("--learned")?;
    bar.finish_and_clear();
    Ok(models)
}

/// [`requests::savings`] with its bar: every simulation of the blind crawler and of the bisections,
/// a tuning's unspent runs counted done when it ends; each tuned γ is a line.
fn tune(
    sim: &RequestSim,
    methods: &[&dyn RequestScorer],
    levels: &[f64],
    shown: &Progress,
) -> Result<Vec<Level>> {
    let runs = requests::savings_runs(methods.len(), levels.len());
    let bar = shown.bar("simulations", runs as u64);
    bar.set_message("the blind crawler and the bisections of γ");
    let levels = requests::savings(sim, methods, levels, &|event| match event {
        requests::Progress::Goal { .. } | requests::Progress::Bisection { .. } => bar.inc(1),
        requests::Progress::Tuned {
            method,
            level,
            gamma,
            runs,
        } => {
            bar.inc((requests::MAX_RUNS - runs) as u64);
            let line = format!("{method} at the blind crawler's R = {level}: γ = {gamma:.4}");
            bar.set_message(line.clone());
            shown.note(format_args!("  {line}"));
        }
    })?;
    bar.finish_and_clear();
    Ok(levels)
}

/// Savings (%) against the blind crawler's R_b (%), one line per method and page set; the
/// policies (the first `policies` methods) thin, the learned models thick.
fn savings_plot(sets: &[Set], policies: usize) -> String {
    let mut series = Vec::new();
    for set in sets {
        let methods = set.levels.first().map_or(0, |l| l.methods.len());
        for i in 0..methods {
            series.push(Series {
                label: format!("{} ({})", set.levels[0].methods[i].method, set.pages.name()),
                points: set
                    .levels
                    .iter()
                    .map(|l| (100.0 * l.uniform_resources, 100.0 * l.methods[i].savings))
                    .collect(),
                thin: i < policies,
            });
        }
    }
    line_chart(
        "Request-driven crawling: crawls saved against the blind crawler at equal freshness",
        "the blind crawler's R_b (% of requests crawled)",
        "crawls saved (%)",
        &series,
    )
}

/// One line per (level, method): the blind crawler's R_b and F*, the method's γ, R,
/// savings and the per-cycle 95% interval; the method column as wide as the longest name.
fn print_table(out: &mut impl std::io::Write, levels: &[Level]) -> std::io::Result<()> {
    let names = levels.iter().flat_map(|l| &l.methods);
    let w = names.map(|m| m.method.chars().count()).fold(24, usize::max);
    writeln!(
        out,
        "{:>5} {:>7}  {:<w$} {:>9} {:>7} {:>8}  per-cycle 95% CI",
        "R_b", "F*", "method", "γ", "R", "savings"
    )?;
    for level in levels {
        if level.uniform_spent != level.uniform_resources {
            writeln!(
                out,
                "{:>5.2} spent {:.4}",
                level.uniform_resources, level.uniform_spent
            )?;
        }
        for m in &level.methods {
            let ci = m.per_cycle;
            writeln!(
                out,
                "{:>5.2} {:>7.4}  {:<w$} {:>9.4} {:>7.4} {:>7.1}%  [{:.1}%, {:.1}%]{}",
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
