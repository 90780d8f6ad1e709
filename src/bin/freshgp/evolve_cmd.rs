//! `freshgp evolve`: evolve scoring formulas on one rotation and report the chosen ones.

use crate::common::{parse_horizon, parse_metric, DataArgs, SimArgs};
use crate::interrupt::Interrupt;
use anyhow::{Context, Result};
use freshgp::data::split::{check_rotation, Horizon};
use freshgp::experiment::evolve::{self, EvolveSettings, Progress, RotationRun};
use freshgp::experiment::request::{self, EvolveRequest};
use freshgp::gp::Strategy;
use freshgp::metric::Metric;
use freshgp::output::{self, Evolved};
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

/// Flags of `freshgp evolve`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    data: DataArgs,
    /// Grammar: basic, all, extended, budget (extended plus b, the cycle's budget; train
    /// over several with --train-resources), frequency (extended plus n30, X30, GR; GR's
    /// groups by --group), predictive (frequency plus P, which needs --model), every
    /// (predictive plus b), basic-reference, all-reference, or a RON file.
    #[arg(long, default_value = request::DEFAULT_GRAMMAR)]
    grammar: String,
    /// The learned model file (`freshgp model train`) whose prediction is the terminal P
    /// of the grammar predictive.
    #[arg(long, value_name = "FILE")]
    model: Option<PathBuf>,
    /// Fitness metric: changerate, ndcg, freshness, or the importance-weighted wfreshness
    /// or wndcg (pages weighted by the dataset's `weight=`, 1 without).
    #[arg(long, default_value = Metric::default().name(), value_parser = parse_metric)]
    fitness: Metric,
    /// Rotation (0..=4): which page fold is the test set.
    #[arg(long, default_value_t = 0)]
    rotation: usize,
    /// Which cycles the chosen formulas are tested over: temporal (the test period, the
    /// last third of the cycles) or whole (every cycle; the page folds stay).
    #[arg(long = "test-horizon", default_value_t = Horizon::Temporal, value_parser = parse_horizon)]
    test_horizon: Horizon,
    /// Number of seeds (independent runs), 1 to 10,000.
    #[arg(long, default_value_t = request::DEFAULT_SEEDS)]
    seeds: usize,
    /// First seed; the runs use first-seed, first-seed + 1, ...
    #[arg(long, default_value_t = request::DEFAULT_FIRST_SEED)]
    first_seed: u64,
    /// GP parameters from a RON file (fields of RawGpConfig); flags below override it.
    #[arg(long, value_name = "FILE")]
    gp_config: Option<PathBuf>,
    /// Population size.
    #[arg(long)]
    population: Option<usize>,
    /// Generations.
    #[arg(long)]
    generations: Option<usize>,
    /// Tournament size.
    #[arg(long)]
    tournament: Option<usize>,
    /// A formula to start the search from (repeatable), in the first slots of the initial
    /// population, before the literature's.
    #[arg(long, value_name = "FORMULA")]
    seed_formula: Vec<String>,
    /// Start from random formulas and the --seed-formula ones only, as the GP4C paper does,
    /// without the literature's policies the grammar can express (the baselines, `MLE * t`,
    /// `w * t`, the crawl value, ...).
    #[arg(long)]
    no_literature_seeds: bool,
    /// Train and validate over these budgets (fractions of the pages a cycle,
    /// comma-separated): a formula's fitness is then the mean over them of its fitness
    /// relative to the fittest seed formula's (see the book's Genetic programming chapter).
    /// The test stays at --resources.
    #[arg(long, value_delimiter = ',', value_name = "FRACTIONS")]
    train_resources: Vec<f64>,
    /// Search on this share of the training pages (in (0, 1); whole hosts at a time), then
    /// judge the kept formulas on every training page: a generation costs about that share
    /// of a full one (see the book's Genetic programming chapter).
    #[arg(long, value_name = "SHARE", value_parser = parse_number, allow_hyphen_values = true)]
    train_sample: Option<f64>,
    /// Metrics the fitness also averages over besides --fitness, comma-separated (each
    /// relative to the fittest seed formula's at each budget), or `none`. Default: wndcg
    /// brings wfreshness and wfreshness wndcg, so that the formula holds on both; the
    /// unweighted metrics bring none.
    #[arg(long, value_name = "METRICS")]
    also_metrics: Option<String>,
    /// Start from the GP4C paper's settings instead of freshgp's search (tournaments on
    /// fitness alone, no size limit, random formulas only, no constant search, no
    /// parsimony; `protocol: paper` in --gp-config), and no metric besides --fitness.
    #[arg(long)]
    paper: bool,
    #[command(flatten)]
    sim: SimArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// No progress on stderr.
    #[arg(long)]
    quiet: bool,
}

/// Runs `freshgp evolve`.
pub fn run(args: Args) -> Result<()> {
    let settings = settings(&args)?;
    let dataset = args.data.load(args.quiet)?;
    let start = Instant::now();
    let progress = crate::progress::Progress::new(args.quiet);
    let generations = ((settings.gp.generations + 1) * settings.seeds.len()) as u64;
    let bar = progress.bar("generations", generations);
    let interrupt = Interrupt::watch();
    let run = evolve::run_rotation(&dataset, args.rotation, &settings, |event| {
        if !progress.quiet() {
            let (position, status) = status(&event, &settings, start);
            bar.set_position(position);
            bar.set_message(status.message);
            progress.line(status.line);
        }
        interrupt.flow()
    })?;
    bar.finish_and_clear();
    let mut stdout = std::io::stdout().lock();
    if args.json {
        print_json(&mut stdout, &run, &settings, start)
    } else {
        print_text(&mut stdout, &run, &settings, start)
    }
}

/// `--train-sample`: a number (its range is the library's check).
fn parse_number(text: &str) -> Result<f64, String> {
    text.parse()
        .map_err(|_| format!("`{text}` is not a number"))
}

/// `--also-metrics`: the list, `none`, or `None` for the library's default (the fitness's
/// companions, none under --paper).
fn also_metrics(args: &Args) -> Result<Option<Vec<Metric>>> {
    match args.also_metrics.as_deref().map(str::trim) {
        None => Ok(None),
        Some("none") => Ok(Some(Vec::new())),
        Some(list) => list
            .split(',')
            .map(|m| parse_metric(m.trim()).map_err(|e| anyhow::anyhow!("--also-metrics: {e}")))
            .collect::<Result<_>>()
            .map(Some),
    }
}

/// The checked settings of the flags (the library's one check, naming the flag at fault).
fn settings(args: &Args) -> Result<EvolveSettings> {
    check_rotation(args.rotation).context("--rotation")?;
    let request = EvolveRequest {
        grammar: Some(args.grammar.clone()),
        model: args.model.clone(),
        fitness: Some(args.fitness),
        also_metrics: also_metrics(args)?,
        seeds: Some(args.seeds),
        first_seed: Some(args.first_seed),
        gp_config: args.gp_config.clone(),
        paper: args.paper,
        population: args.population,
        generations: args.generations,
        tournament: args.tournament,
        seed_formulas: args.seed_formula.clone(),
        literature_seeds: args.no_literature_seeds.then_some(false),
        train_resources: args.train_resources.clone(),
        train_sample: args.train_sample,
        test_horizon: Some(args.test_horizon),
    };
    let sim = args.sim.single_config("evolve")?;
    request
        .settings(sim)
        .map_err(|e| anyhow::anyhow!(e.named(e.setting.flag())))
}

/// What an event shows: a bar's message, and the plain line that stands for the bar
/// where stderr is not a terminal.
struct Status {
    message: String,
    line: String,
}

/// The generations done over every seed after `event`, and what it shows.
fn status(event: &Progress<'_>, settings: &EvolveSettings, start: Instant) -> (u64, Status) {
    let seeds = settings.seeds.len();
    let per_seed = settings.gp.generations + 1;
    match *event {
        Progress::Generation {
            seed_index,
            seed,
            report,
        } => {
            let done = seed_index * (report.generations + 1) + report.generation + 1;
            let elapsed = start.elapsed().as_secs_f64();
            let eta = elapsed / done as f64 * (per_seed * seeds - done) as f64;
            let total = report.evaluated + report.cache_hits;
            let message = format!(
                "seed {}/{} ({seed}) gen {:>3}/{} best {:.4} mean {:.4} cache {:>3.0}%",
                seed_index + 1,
                seeds,
                report.generation,
                report.generations,
                report.best,
                report.mean,
                100.0 * report.cache_hits as f64 / total.max(1) as f64,
            );
            let line = format!("{message} {elapsed:>7.1}s ETA {eta:>6.0}s");
            (done as u64, Status { message, line })
        }
        Progress::Selecting { seed_index } => {
            let line = format!(
                "seed {}/{}: validating the kept individuals, testing the choices",
                seed_index + 1,
                seeds
            );
            let done = ((seed_index + 1) * per_seed) as u64;
            (
                done,
                Status {
                    message: line.clone(),
                    line,
                },
            )
        }
    }
}

/// Simulations run and fitness values taken from the cache, over all seeds.
fn totals(run: &RotationRun) -> (usize, usize) {
    let evaluations = run.seeds.iter().map(|s| s.evaluations).sum();
    let cache_hits = run.seeds.iter().map(|s| s.cache_hits).sum();
    (evaluations, cache_hits)
}

/// The winners, totals and every seed's run as JSON.
fn print_json(
    stdout: &mut impl Write,
    run: &RotationRun,
    settings: &EvolveSettings,
    start: Instant,
) -> Result<()> {
    let out = Evolved::new(run, settings, start.elapsed().as_secs_f64());
    writeln!(stdout, "{}", output::pretty(&out)?)?;
    Ok(())
}

/// The sets, totals, every seed's choices and the winners as text.
fn print_text(
    stdout: &mut impl Write,
    run: &RotationRun,
    settings: &EvolveSettings,
    start: Instant,
) -> Result<()> {
    let (evaluations, cache_hits) = totals(run);
    // Over several budgets or metrics, a seeded fitness is relative to the fittest seed
    // (the test figures stay absolute, on the run's metric).
    let mut metrics = vec![settings.metric];
    metrics.extend(settings.also.iter().filter(|&&m| m != settings.metric));
    let names = metrics
        .iter()
        .map(|m| m.name())
        .collect::<Vec<_>>()
        .join(" and ");
    let budgets = match settings.train_resources.as_slice() {
        [] => vec![settings.sim.resources()],
        budgets => budgets.to_vec(),
    };
    let several = metrics.len() > 1 || budgets.len() > 1;
    let metric = if !several || settings.gp.seed_formulas.is_empty() {
        names
    } else {
        format!(
            "{names} relative to the fittest seed's, mean over budgets {} (test {} at {})",
            budgets
                .iter()
                .map(f64::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            settings.metric.name(),
            settings.sim.resources()
        )
    };
    let cap = settings.sim.host_cap().map_or(String::new(), |m| {
        format!("; host cap {m} (pages of one host per cycle)")
    });
    let sample = run
        .sample_pages
        .map_or(String::new(), |pages| format!(" ({pages} searched on)"));
    writeln!(
        stdout,
        "rotation {}: {}{sample} training, {} validation, {} test pages; fitness {metric}{cap}; {} simulations, {:.0}% from cache, {:.1}s",
        run.rotation,
        run.set_sizes[0],
        run.set_sizes[1],
        run.set_sizes[2],
        evaluations,
        100.0 * cache_hits as f64 / (evaluations + cache_hits).max(1) as f64,
        start.elapsed().as_secs_f64()
    )?;
    for seed in &run.seeds {
        writeln!(stdout, "seed {} ({:.1}s):", seed.seed, seed.seconds)?;
        if let Some(start) = &seed.best_seed {
            let best = &seed.choices[Strategy::Best];
            writeln!(
                stdout,
                "  {:<9} train {:.4}  validation {:.4}  {} (the search moved {:+.4} past it in training)",
                "from seed",
                start.train,
                start.validation,
                start.formula,
                best.train - start.train
            )?;
        }
        let front: Vec<String> = seed
            .front
            .iter()
            .map(|p| format!("{}:{:.4}", p.size, p.validation))
            .collect();
        writeln!(stdout, "  {:<9} {}", "front", front.join("  "))?;
        for c in &seed.choices {
            writeln!(
                stdout,
                "  {:<9} train {:.4}  validation {:.4}  test {:.4}  {}",
                c.strategy.name(),
                c.train,
                c.validation,
                c.test,
                c.formula
            )?;
        }
    }
    writeln!(stdout, "winners across seeds:")?;
    for strategy in Strategy::ALL {
        let c = run.winner(strategy);
        writeln!(
            stdout,
            "  {:<9} train {:.4}  validation {:.4}  test {:.4}  {}",
            strategy.name(),
            c.train,
            c.validation,
            c.test,
            settings.policy(&c.formula)
        )?;
    }
    Ok(())
}
