//! `freshgp baselines`: fixed policies side by side over the five test rotations — by
//! default the seven published baselines (SPEC §4), every policy of the literature (§9)
//! and the bandit presets (§10).

use crate::common::{policy_list, DataArgs, HorizonArg, MetricArgs, SimArgs};
use anyhow::Result;
use freshgp::experiment::baselines;
use freshgp::sim::{Metric, Policy};
use serde_json::json;
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
    /// The policies, comma-separated: names (Rand, Age, NAD, SAD, AAD, GAD, CG, uniform,
    /// change, weight, lambda, lambda-harmonic, value, nutch, stormcrawler, kab2, kab3,
    /// kab5), "adaptive(init: .., min: .., max: .., inc: .., dec: ..)", "exp3(arms: [..],
    /// gamma: .., reward: ..)" or formulas. Default: all the names.
    #[arg(long, value_name = "LIST")]
    policies: Option<String>,
    /// Which cycles the test pages are simulated over: temporal (the test period, SPEC §2)
    /// or whole (every cycle: the warm-up, then all scored; for bandits, which learn while
    /// they crawl).
    #[arg(long = "test-horizon", value_enum, default_value_t = HorizonArg::Temporal)]
    test_horizon: HorizonArg,
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
        Some(list) => policy_list(list)?,
        None => Policy::named(),
    };
    let results = baselines::run_over(&dataset, config, &policies, args.test_horizon.into())?;
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
            entry.insert("random".into(), json!(r.policy.is_random()));
            if let Some(bandit) = r.policy.bandit() {
                let arms: Vec<String> = bandit.arms().iter().map(|a| a.label()).collect();
                entry.insert(
                    "arms".into(),
                    json!({
                        "arms": arms,
                        "gamma": bandit.gamma(),
                        "reward": bandit.reward().unwrap_or(config.metric()).name(),
                        "shares": r.arm_shares(),
                        "choices": r.choices,
                    }),
                );
            }
            map.insert(r.policy.label(), entry.into());
        }
        let out = json!({
            "baselines": map,
            "cycles": cycles,
            "pages": dataset.pages(),
            "resources": config.resources(),
            "warmup": config.warmup(),
            "ties": config.ties(),
            "host_cap": config.host_cap(),
            "metric": config.metric().name(),
            "test_horizon": freshgp::data::split::Horizon::from(args.test_horizon),
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
    let width = results
        .iter()
        .map(|r| r.policy.label().len())
        .max()
        .unwrap_or(0)
        .max(6);
    write!(stdout, "{:<width$}", "")?;
    for metric in shown {
        write!(stdout, " {:>18}", metric.title())?;
    }
    writeln!(stdout)?;
    for r in &results {
        write!(stdout, "{:<width$}", r.policy.label())?;
        for metric in shown {
            let v = r.metrics.of(metric);
            write!(stdout, " {:>9.4} ± {:<6.4}", v.mean, v.ci95)?;
        }
        writeln!(stdout)?;
    }
    print_arm_shares(&mut stdout, &results, config.metric())?;
    Ok(())
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
            bandit.reward().unwrap_or(run_metric).title()
        )?;
    }
    Ok(())
}
