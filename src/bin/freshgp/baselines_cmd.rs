//! `freshgp baselines`: fixed policies side by side over the five test rotations — by
//! default the seven published baselines (docs/src/reference/policies.md#baselines), every
//! policy of the literature (docs/src/reference/policies.md) and the bandit presets
//! (docs/src/reference/bandit.md#presets).

use crate::common::{parse_horizon, policy_list, DataArgs, EvalArgs, MetricArgs, SimArgs};
use crate::progress::Progress;
use anyhow::{Context, Result};
use freshgp::data::split::Horizon;
use freshgp::experiment::baselines;
use freshgp::metric::Metric;
use freshgp::output::{self, BaselineSweep, Baselines};
use freshgp::policy::{Policy, Reward, Scorer};
use std::io::Write as _;

/// Flags of `freshgp baselines`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    data: DataArgs,
    #[command(flatten)]
    sim: SimArgs,
    #[command(flatten)]
    metric: MetricArgs,
    #[command(flatten)]
    eval: EvalArgs,
    /// The policies, comma-separated: names (Rand, Age, NAD, SAD, AAD, GAD, CG, uniform,
    /// change, weight, lambda, lambda-harmonic, value, nutch, stormcrawler, kab2, kab3,
    /// kab5, and oracle on a synthetic history), "adaptive(init: .., min: .., max: .., inc:
    /// .., dec: ..)", "exp3(arms: [..], gamma: .., eta: .., rate: .., forget: .., reward:
    /// ..)" or formulas. Default: all the names but oracle.
    #[arg(long, value_name = "LIST")]
    policies: Option<String>,
    /// Which cycles the test pages are simulated over: temporal (the test period, the last
    /// third of the cycles) or whole (every cycle: the warm-up, then all scored; for
    /// bandits, which learn while they crawl).
    #[arg(long = "test-horizon", default_value_t = Horizon::Temporal, value_parser = parse_horizon)]
    test_horizon: Horizon,
    /// Also the best policy per window of this many scored cycles (by --metric), and what
    /// a switcher knowing each window's best would gain over the best fixed policy: the
    /// most a bandit over the listed policies could gain at that width.
    #[arg(long, value_name = "CYCLES")]
    windows: Option<usize>,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// Runs `freshgp baselines`.
pub fn run(args: Args) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    let dataset = args.data.load(false)?;
    let config = args.sim.config()?.with_metric(args.metric.metric);
    let policies = match &args.policies {
        Some(list) => policy_list("--policies", list)?,
        None => Policy::named(),
    };
    let levels = args.sim.levels()?;
    if levels.len() > 1 || args.eval.runs.is_some() || args.eval.savings_against.is_some() {
        if args.windows.is_some() {
            anyhow::bail!("--windows reads one run at one budget: not with several --resources, --runs or --savings-against");
        }
        return sweep(&args, &dataset, config, &policies, &levels);
    }
    let results = baselines::run_over(&dataset, config, &policies, args.test_horizon)?;
    let windows = windows_of(args.windows, &results, config.metric())?;
    let cycles = results.first().map_or(0, |r| r.metrics.changerate.n);
    if args.json {
        let horizon = args.test_horizon;
        let out = Baselines::new(&results, dataset.pages(), config, horizon, windows);
        writeln!(stdout, "{}", output::pretty(&out)?)?;
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
    let width = results
        .iter()
        .map(|r| r.policy.label().len())
        .max()
        .unwrap_or(0)
        .max(6);
    let policies: Vec<&Policy> = results.iter().map(|r| &r.policy).collect();
    let on = freshgp::experiment::headroom::measured_on(config.metric());
    let captured = captured_cells(&policies, on, |i, m| results[i].metrics.of(m).mean);
    write!(stdout, "{:<width$}", "")?;
    for metric in shown {
        write!(stdout, " {:>18}", metric.title())?;
    }
    if captured.is_some() {
        write!(stdout, " {:>14}", "captured")?;
    }
    writeln!(stdout)?;
    for (i, r) in results.iter().enumerate() {
        write!(stdout, "{:<width$}", r.policy.label())?;
        for metric in shown {
            let v = r.metrics.of(metric);
            write!(stdout, " {:>9.4} ± {:<6.4}", v.mean, v.ci95)?;
        }
        if let Some(cells) = &captured {
            write!(stdout, " {:>14}", cells[i])?;
        }
        writeln!(stdout)?;
    }
    if captured.is_some() {
        writeln!(stdout, "{}", CAPTURED_NOTE.replace("{metric}", on.title()))?;
    }
    print_arm_shares(&mut stdout, &results, config.metric())?;
    if let Some(w) = &windows {
        write!(stdout, "{w}")?;
    }
    Ok(())
}

/// The best of `results` per window of `width` cycles by `metric` (`--windows`), if asked.
fn windows_of(
    width: Option<usize>,
    results: &[baselines::BaselineResult],
    metric: Metric,
) -> Result<Option<freshgp::experiment::windows::Windows>> {
    let Some(width) = width else {
        return Ok(None);
    };
    let named: Vec<(String, &Vec<Vec<_>>)> = results
        .iter()
        .map(|r| (r.policy.label(), &r.cycles))
        .collect();
    let w = freshgp::experiment::windows::best_per_window(&named, metric, width)
        .context("--windows")?;
    Ok(Some(w))
}

/// For each bandit: the share of the cycles each arm was drawn, and its reward metric.
fn print_arm_shares(
    stdout: &mut impl std::io::Write,
    results: &[baselines::BaselineResult],
    run_metric: Metric,
) -> Result<()> {
    for r in results {
        let Some(bandit) = r.policy.bandit() else {
            continue;
        };
        let shares: Vec<String> = bandit
            .arms()
            .iter()
            .zip(r.arm_shares())
            .map(|(arm, share)| format!("{arm} {:.0}%", 100.0 * share))
            .collect();
        writeln!(
            stdout,
            "{}: arms drawn in {} of the cycles (rewarded by {})",
            r.policy.label(),
            shares.join(", "),
            bandit
                .reward()
                .unwrap_or(Reward::Metric(run_metric))
                .title()
        )?;
    }
    Ok(())
}

/// `baselines` over several budgets, runs or with savings (docs/src/reference/evaluation.md):
/// per budget, each policy's median (and 2.5–97.5 percentile interval over runs) of every
/// compared metric and the Wilcoxon p-value against the reference; then the savings.
fn sweep(
    args: &Args,
    dataset: &freshgp::data::Dataset,
    config: freshgp::sim::SimConfig,
    policies: &[Policy],
    levels: &[f64],
) -> Result<()> {
    use freshgp::experiment::sweep;
    let periods = baselines::test_periods_over(dataset, args.test_horizon)?;
    let seeds = sweep::run_seeds(args.eval.runs(), config.seed());
    let reference = reference_index(policies, args.eval.reference.as_deref())?;
    // A p-value needs paired runs.
    let reference = reference.filter(|_| seeds.len() > 1);
    let progress = Progress::new(false);
    let mut bar = progress.steps("simulations", (levels.len() * policies.len()) as u64);
    let stage = |done: usize| {
        let runs = freshgp::data::stats::count(seeds.len(), "run");
        levels
            .get(done / policies.len())
            .map_or(String::new(), |level| {
                format!("budget {level}, {runs} a policy")
            })
    };
    bar.set_message(stage(0));
    let table = sweep::table(
        &periods,
        config,
        policies,
        levels,
        &seeds,
        &mut |done, _| {
            bar.set(done as u64);
            bar.set_message(stage(done));
        },
    )?;
    bar.finish();
    let metric = config.metric();
    let against = match &args.eval.savings_against {
        Some(list) => policy_list("--savings-against", list)?,
        None => Vec::new(),
    };
    let savings = savings(
        (&periods, config),
        &table,
        (&against, &seeds, metric),
        &progress,
    )?;
    let mut stdout = std::io::stdout().lock();
    if args.json {
        let out = BaselineSweep::new(&table, dataset.pages(), config, &seeds, reference, &savings);
        writeln!(stdout, "{}", output::pretty(&out)?)?;
        return Ok(());
    }
    print_table(
        &mut stdout,
        dataset,
        (&periods, &seeds),
        &table,
        (reference, config),
    )?;
    if !savings.is_empty() {
        writeln!(
            stdout,
            "\nsavings at equal {} (smallest budget on a 1% grid reaching the reference at {}):",
            metric.title(),
            config.resources()
        )?;
        for (policy, against, s) in &savings {
            let what = match (s.reaches_at, s.savings) {
                (Some(b), Some(saved)) => format!(
                    "reaches {:.4} at {b:.5}: {:.0}% fewer crawls",
                    s.target,
                    100.0 * saved
                ),
                _ => format!("does not reach {:.4} at {}", s.target, s.budget),
            };
            writeln!(
                stdout,
                "  {} against {}: {what}",
                policy.label(),
                against.label()
            )?;
        }
    }
    Ok(())
}

/// The sweep's tables, one per budget: medians (intervals over the runs) and p-values.
fn print_table(
    stdout: &mut impl std::io::Write,
    dataset: &freshgp::data::Dataset,
    (periods, seeds): (&[freshgp::sim::Period], &[u64]),
    table: &freshgp::experiment::sweep::Table,
    (reference, config): (Option<usize>, freshgp::sim::SimConfig),
) -> Result<()> {
    use freshgp::experiment::sweep;
    let (policies, metric) = (&table.policies, config.metric());
    writeln!(
        stdout,
        "{} pages × {} cycles; test sets of {} rotations; {} run{} (seeds {}); decision {}",
        dataset.pages(),
        dataset.cycles(),
        periods.len(),
        seeds.len(),
        if seeds.len() == 1 { "" } else { "s" },
        seeds
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(","),
        config.decision(),
    )?;
    let width = policies
        .iter()
        .map(|p| p.label().len())
        .max()
        .unwrap_or(0)
        .max(6);
    let shown = shown_metrics(metric);
    for (l, &level) in table.levels.iter().enumerate() {
        writeln!(stdout, "\nresources {level}")?;
        write!(stdout, "{:<width$}", "")?;
        for &m in &shown {
            write!(stdout, " {:>26}", m.title())?;
        }
        if reference.is_some() {
            write!(stdout, " {:>10}", format!("p({})", metric.title()))?;
        }
        let listed: Vec<&Policy> = policies.iter().collect();
        let on = freshgp::experiment::headroom::measured_on(metric);
        let captured = captured_cells(&listed, on, |i, m| {
            sweep::summary(&table.runs[l][i], m).median
        });
        if captured.is_some() {
            write!(stdout, " {:>14}", "captured")?;
        }
        writeln!(stdout)?;
        for (i, policy) in policies.iter().enumerate() {
            let runs = &table.runs[l][i];
            write!(stdout, "{:<width$}", policy.label())?;
            for &m in &shown {
                let s = sweep::summary(runs, m);
                if seeds.len() == 1 {
                    write!(stdout, " {:>26.4}", s.median)?;
                } else {
                    let cell = format!("{:.4} [{:.4}, {:.4}]", s.median, s.low, s.high);
                    write!(stdout, " {cell:>26}")?;
                }
            }
            if let Some(r) = reference {
                let p = sweep::wilcoxon_against(runs, &table.runs[l][r], metric);
                match p {
                    Some(p) if r != i => write!(stdout, " {p:>10.4}")?,
                    _ => write!(stdout, " {:>10}", "-")?,
                }
            }
            if let Some(cells) = &captured {
                write!(stdout, " {:>14}", cells[i])?;
            }
            writeln!(stdout)?;
        }
        if captured.is_some() {
            writeln!(stdout, "{}", CAPTURED_NOTE.replace("{metric}", on.title()))?;
        }
    }
    Ok(())
}

/// What the `captured` column means.
const CAPTURED_NOTE: &str = "captured: the share of the {metric} headroom a policy covers, (policy − best other policy) / (oracle − best other policy), the oracle left out of the others";

/// Which of `policies` is the oracle.
fn oracles(policies: &[&Policy]) -> Vec<bool> {
    policies
        .iter()
        .map(|p| matches!(p.scorer(), Some(Scorer::Oracle)))
        .collect()
}

/// The `captured` column on `metric` (`value(i, metric)`: policy i's figure), when the
/// oracle is listed: each policy's share of the headroom over the best other policy.
fn captured_cells(
    policies: &[&Policy],
    metric: Metric,
    value: impl Fn(usize, Metric) -> f64,
) -> Option<Vec<String>> {
    let oracle = oracles(policies);
    if !oracle.contains(&true) {
        return None;
    }
    let values: Vec<f64> = (0..policies.len()).map(|i| value(i, metric)).collect();
    let shares = freshgp::experiment::headroom::shares(&values, &oracle);
    if shares.iter().all(Option::is_none) {
        // The oracle alone, or with one rival: nothing to share.
        return None;
    }
    Some(
        shares
            .iter()
            .map(|s| s.map_or("-".to_string(), |(c, _)| format!("{:.1}%", 100.0 * c)))
            .collect(),
    )
}

/// The run's metric, then the report's compared metrics.
pub fn shown_metrics(metric: Metric) -> Vec<Metric> {
    let mut shown = vec![metric];
    shown.extend(
        freshgp::report::COMPARED
            .into_iter()
            .filter(|&m| m != metric),
    );
    shown
}

/// The position of the reference policy: `--reference`, else `lambda` when listed.
fn reference_index(policies: &[Policy], reference: Option<&str>) -> Result<Option<usize>> {
    let name = reference.unwrap_or("lambda");
    let wanted = policy_list("--reference", name)?;
    let found = policies.iter().position(|p| Some(p) == wanted.first());
    match (found, reference) {
        (None, Some(r)) => anyhow::bail!("--reference {r}: not among the --policies"),
        (found, _) => Ok(found),
    }
}

/// Savings of every policy against each of `against` at `config`'s budget, on `metric`;
/// the bar counts the budgets of every policy's savings curve, the lines its curves.
fn savings(
    (periods, config): (&[freshgp::sim::Period], freshgp::sim::SimConfig),
    table: &freshgp::experiment::sweep::Table,
    (against, seeds, metric): (&[Policy], &[u64], Metric),
    progress: &Progress,
) -> Result<Vec<(Policy, Policy, freshgp::experiment::sweep::Savings)>> {
    let policies = &table.policies;
    use freshgp::experiment::sweep;
    if against.is_empty() {
        return Ok(Vec::new());
    }
    let grid = sweep::SAVINGS_STEPS as u64;
    let mut bar = progress.fine_steps("savings curves", policies.len() as u64, grid);
    let mut out = Vec::new();
    // A reference among the policies was run at the first level already.
    let targets = against
        .iter()
        .map(|r| match policies.iter().position(|p| p == r) {
            Some(i) => Ok(sweep::mean(&table.runs[0][i], metric)),
            None => Ok(sweep::mean(
                &sweep::evaluate(periods, config, r, seeds)?,
                metric,
            )),
        })
        .collect::<Result<Vec<f64>>>()?;
    for policy in policies {
        bar.set_message(policy.label());
        let curve = sweep::savings_curve(periods, config, policy, seeds, &mut |j, _| {
            bar.set_part(j as u64)
        })?;
        for (r, &target) in against.iter().zip(&targets) {
            if r == policy {
                continue;
            }
            let s = sweep::smallest_reaching(&curve, metric, target, config.resources());
            out.push((policy.clone(), r.clone(), s));
        }
        bar.inc();
    }
    bar.finish();
    Ok(out)
}
