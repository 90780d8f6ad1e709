//! `freshgp simulate`: per-cycle metrics of one formula (or baseline) on one set.

use crate::common::{DataArgs, EvalArgs, MetricArgs, PolicyArgs, SimArgs};
use anyhow::{bail, Result};
use freshgp::data::split::Set;
use freshgp::data::stats::count;
use freshgp::metric::Metric;
use freshgp::output::{self, SimulateRun, SimulateSweep};
use freshgp::policy::{Exp3, Reward, Scorer};
use freshgp::sim::{arm_shares, Outcome, Period, Simulator};
use std::io::Write;

/// Flags of `freshgp simulate`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    data: DataArgs,
    #[command(flatten)]
    policy: PolicyArgs,
    /// Which set: the rotation's training, validation or test set (train, validation,
    /// test), or all pages over all cycles (all).
    #[arg(long, default_value_t = Set::Test, value_parser = parse_set)]
    period: Set,
    /// Rotation (0..=4): which page fold is the test set.
    #[arg(long, default_value_t = 0)]
    rotation: usize,
    #[command(flatten)]
    sim: SimArgs,
    #[command(flatten)]
    metric: MetricArgs,
    #[command(flatten)]
    eval: EvalArgs,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// `--period`: a set's name.
fn parse_set(s: &str) -> Result<Set, String> {
    s.parse()
}

/// Runs `freshgp simulate`.
pub fn run(args: Args) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    let Some(policy) = args.policy.policy()? else {
        bail!("give --policy, --formula or --baseline");
    };
    let config = args.sim.config()?.with_metric(args.metric.metric);
    let dataset = args.data.load(args.json)?;
    let period = Period::of_set(&dataset, args.period, args.rotation)?;
    if args.eval.reference.is_some() || args.eval.savings_against.is_some() {
        bail!(
            "--reference and --savings-against compare policies: use them with `freshgp baselines`"
        );
    }
    let levels = args.sim.levels()?;
    if levels.len() > 1 || args.eval.runs.is_some() {
        return sweep(&args, &policy, &period, config, &levels);
    }
    let outcome = Simulator::new(config).run(&period, &policy)?;
    if args.json {
        let out = SimulateRun::new(&policy, &period, config, outcome);
        writeln!(stdout, "{}", output::pretty(&out)?)?;
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
    print_table(&mut stdout, &outcome)?;
    if let Some(bandit) = policy.bandit() {
        print_choices(&mut stdout, bandit, &outcome, config.metric())?;
    }
    Ok(())
}

/// After the metrics table: per cycle the arm drawn and every arm's probability, then
/// each arm's share of the cycles.
fn print_choices(
    stdout: &mut impl Write,
    bandit: &Exp3<Scorer>,
    outcome: &Outcome,
    run_metric: Metric,
) -> Result<()> {
    let reward = bandit.reward().unwrap_or(Reward::Metric(run_metric));
    writeln!(
        stdout,
        "\nbandit: {} arms, {}, rewarded by {}",
        bandit.arms().len(),
        bandit.learning(),
        reward.title()
    )?;
    write!(stdout, "{:>5} {:>4} {:>8}", "cycle", "arm", "reward")?;
    for j in 0..bandit.arms().len() {
        write!(stdout, " {:>7}", format!("q{j}"))?;
    }
    writeln!(stdout)?;
    for c in &outcome.choices {
        write!(stdout, "{:>5} {:>4} {:>8.4}", c.cycle, c.arm, c.reward)?;
        for q in &c.q {
            write!(stdout, " {q:>7.4}")?;
        }
        writeln!(stdout)?;
    }
    let shares = arm_shares(&outcome.choices, bandit.arms().len());
    for (j, (arm, share)) in bandit.arms().iter().zip(shares).enumerate() {
        writeln!(
            stdout,
            "arm {j}: {arm} drawn in {:.1}% of cycles",
            100.0 * share
        )?;
    }
    Ok(())
}

/// The per-cycle table: the paper's metrics, then the weighted ones
/// (docs/src/reference/metrics.md#wndcg and #wfreshness) and the visits (fewer than k when
/// a host cap leaves too few eligible pages).
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

/// `simulate` over several budgets or runs (docs/src/reference/evaluation.md): per budget,
/// the median and 2.5–97.5 percentile interval over the runs of each metric's run mean.
fn sweep(
    args: &Args,
    policy: &freshgp::policy::Policy,
    period: &Period,
    config: freshgp::sim::SimConfig,
    levels: &[f64],
) -> Result<()> {
    use freshgp::experiment::sweep;
    let seeds = sweep::run_seeds(args.eval.runs(), config.seed());
    let periods = std::slice::from_ref(period);
    let progress = crate::progress::Progress::new(false);
    let mut bar = progress.steps("budgets", levels.len() as u64);
    let stage = |done: usize| {
        levels.get(done).map_or(String::new(), |level| {
            format!("budget {level}, {}", count(seeds.len(), "run"))
        })
    };
    bar.set_message(stage(0));
    let policies = std::slice::from_ref(policy);
    let table = sweep::table(periods, config, policies, levels, &seeds, &mut |done, _| {
        bar.set(done as u64);
        bar.set_message(stage(done));
    })?;
    bar.finish();
    let mut stdout = std::io::stdout().lock();
    if args.json {
        let out = SimulateSweep::new(policy, &table, period, config, &seeds);
        writeln!(stdout, "{}", output::pretty(&out)?)?;
        return Ok(());
    }
    writeln!(
        stdout,
        "{}: {} pages × {} cycles; {} (seeds {}); decision {}",
        policy.label(),
        period.pages(),
        period.len(),
        count(seeds.len(), "run"),
        seeds
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(","),
        config.decision()
    )?;
    let shown = crate::baselines_cmd::shown_metrics(config.metric());
    write!(stdout, "{:>10}", "resources")?;
    for &m in &shown {
        write!(stdout, " {:>26}", m.title())?;
    }
    writeln!(stdout)?;
    for (level, row) in table.levels.iter().zip(&table.runs) {
        write!(stdout, "{level:>10}")?;
        for &m in &shown {
            let s = sweep::summary(&row[0], m);
            let cell = if seeds.len() == 1 {
                format!("{:.4}", s.median)
            } else {
                format!("{:.4} [{:.4}, {:.4}]", s.median, s.low, s.high)
            };
            write!(stdout, " {cell:>26}")?;
        }
        writeln!(stdout)?;
    }
    Ok(())
}
