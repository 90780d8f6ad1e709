//! Flags and helpers shared by several subcommands: loading data, simulation settings,
//! the policy to run.

use anyhow::{bail, Context, Result};
use freshgp::data::split::Horizon;
use freshgp::data::{self, Dataset, LoadOptions, UnknownPolicy};
use freshgp::formula::{Formula, Grammar};
use freshgp::metric::Metric;
use freshgp::policy::{Baseline, Policy, PolicyError};
use freshgp::sim::{Decision, SimConfig, TieBreak, DEFAULT_RESOURCES};
use std::path::{Path, PathBuf};

/// Where the history comes from and how its unknown cycles are treated.
#[derive(clap::Args, Debug, Clone)]
pub struct DataArgs {
    /// Change history: freshgp's text format (BITS [TAB id ...]; see the book's Change
    /// histories chapter) or its binary cache.
    #[arg(long, value_name = "FILE")]
    pub data: PathBuf,
    /// Unknown cycles (`?`): paper (drop pages with > 2, impute the rest), paper:N, infer,
    /// zero, one, drop or keep.
    #[arg(long, default_value = "paper", value_name = "POLICY")]
    pub unknown: UnknownPolicy,
    /// The attribute whose groups the terminal GR rates (a group's detected changes over
    /// its visits), e.g. category; default: the host (GR = HR).
    #[arg(long, value_name = "KEY")]
    pub group: Option<String>,
}

impl DataArgs {
    /// Loads the dataset, reporting dropped pages and imputed cycles on stderr, and groups
    /// its pages as `--group` says.
    pub fn load(&self, quiet: bool) -> Result<Dataset> {
        let mut dataset = load(&self.data, self.unknown, quiet)?;
        dataset
            .group_by(self.group.as_deref())
            .with_context(|| format!("--group {}", self.group.as_deref().unwrap_or("")))?;
        Ok(dataset)
    }
}

/// Loads a dataset with `unknown`, reporting on stderr what the policy changed.
pub fn load(path: &Path, unknown: UnknownPolicy, quiet: bool) -> Result<Dataset> {
    let loaded = data::load(path, &LoadOptions { unknown })
        .with_context(|| format!("cannot load {}", path.display()))?;
    let r = &loaded.report;
    if !quiet && (r.unknown.pages_dropped > 0 || r.unknown.cycles_imputed() > 0) {
        eprintln!(
            "{}: {} pages read, {} dropped and {} unknown cycles imputed by policy `{unknown}`",
            path.display(),
            r.pages_read,
            r.unknown.pages_dropped,
            r.unknown.cycles_imputed()
        );
    }
    Ok(loaded.dataset)
}

/// Simulation settings.
#[derive(clap::Args, Debug, Clone)]
pub struct SimArgs {
    /// Fraction of the simulated pages visited per cycle, in (0, 1]; on simulate and
    /// baselines a comma-separated list sweeps budgets, e.g.
    /// 0.001,0.01,0.05,0.1,0.3,0.5,0.9.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "0.05",
        allow_negative_numbers = true,
        value_name = "R[,R..]"
    )]
    pub resources: Vec<f64>,
    /// How a cycle's visits are decided: top-k (the k best scores) or sample (exactly k
    /// pages drawn with probabilities from the scores; no host cap). See the book's
    /// Simulation chapter.
    #[arg(long, default_value = "top-k", value_parser = parse_decision)]
    pub decision: Decision,
    /// Warm-up cycles that visit every page.
    #[arg(long, default_value_t = freshgp::sim::DEFAULT_WARMUP)]
    pub warmup: usize,
    /// Seed of the tie-break order.
    #[arg(long = "tie-seed", default_value_t = 0)]
    pub tie_seed: u64,
    /// How equal scores are ordered: seeded (a pseudo-random order fixed by the seed and the
    /// cycle) or reference (the authors' std::sort order, for parity checks; slower).
    #[arg(long, default_value = "seeded", value_parser = parse_ties)]
    pub ties: TieBreak,
    /// Politeness: visit at most M pages of one host per cycle; the next-ranked
    /// pages of other hosts fill the budget. Pages without a host are never capped. At
    /// least 1; default: no cap.
    #[arg(long = "host-cap", value_name = "M")]
    pub host_cap: Option<u32>,
}

/// The run's metric, for runs that may hold a bandit.
#[derive(clap::Args, Debug, Clone)]
pub struct MetricArgs {
    /// The run's metric: what a bandit policy (exp3, kab2, kab3, kab5) that names no
    /// `reward:` is rewarded by each cycle: changerate, ndcg, freshness, wfreshness or
    /// wndcg.
    #[arg(long, default_value = Metric::default().name(), value_parser = parse_metric)]
    pub metric: Metric,
}

/// A test horizon's name (`--test-horizon`): temporal or whole.
pub fn parse_horizon(s: &str) -> Result<Horizon, String> {
    s.parse()
}

/// An SQL dialect's name, as `--dialect` writes it.
pub fn parse_dialect(s: &str) -> Result<freshgp::export::Dialect, String> {
    s.parse()
}

/// A metric's name, as flags write it.
pub fn parse_metric(s: &str) -> Result<Metric, String> {
    s.parse()
}

fn parse_decision(s: &str) -> Result<Decision, String> {
    s.parse()
}

fn parse_ties(s: &str) -> Result<TieBreak, String> {
    match s {
        "seeded" => Ok(TieBreak::Seeded),
        "reference" => Ok(TieBreak::Reference),
        _ => Err(format!("`{s}`: expected seeded or reference")),
    }
}

impl SimArgs {
    /// The checked settings at the first `--resources` level.
    pub fn config(&self) -> Result<SimConfig> {
        let first = self.resources.first().copied().unwrap_or(DEFAULT_RESOURCES);
        SimConfig::new(first, self.warmup)
            .with_context(|| format!("--resources {first}"))?
            .with_seed(self.tie_seed)
            .with_ties(self.ties)
            .with_host_cap(self.host_cap)
            .with_context(|| {
                format!(
                    "--host-cap {}: give at least 1, or leave the flag out for no cap",
                    self.host_cap.unwrap_or(0)
                )
            })?
            .with_decision(self.decision)
            .with_context(|| format!("--decision {}", self.decision))
    }

    /// The settings of a command that runs at one budget: a list is refused.
    pub fn single_config(&self, command: &str) -> Result<SimConfig> {
        if self.resources.len() > 1 {
            bail!(
                "--resources: {command} runs at one budget; sweep budgets with simulate, \
                 baselines or a study's `resources: [..]`"
            );
        }
        self.config()
    }

    /// The `--resources` levels, checked: each in (0, 1], none twice.
    pub fn levels(&self) -> Result<Vec<f64>> {
        for (i, &r) in self.resources.iter().enumerate() {
            SimConfig::new(r, self.warmup).with_context(|| format!("--resources {r}"))?;
            if self.resources[..i].contains(&r) {
                bail!("--resources: {r} is listed twice");
            }
        }
        Ok(self.resources.clone())
    }
}

/// Repeated runs, the reference policy and savings, for simulate and baselines
/// (docs/src/reference/evaluation.md).
#[derive(clap::Args, Debug, Clone)]
pub struct EvalArgs {
    /// Repeat each simulation with run seeds 1..R (the tie order, a bandit's draws and
    /// a sampled decision's draws) and report medians with 2.5–97.5 percentile intervals.
    /// Default: one run with --tie-seed.
    #[arg(long, value_name = "R", value_parser = clap::value_parser!(u32).range(1..=freshgp::experiment::sweep::MAX_RUNS as i64))]
    pub runs: Option<u32>,
    /// The reference policy of the Wilcoxon signed-rank test over the paired runs
    /// (baselines; default lambda when it is listed).
    #[arg(long, value_name = "POLICY", allow_hyphen_values = true)]
    pub reference: Option<String>,
    /// Savings at equal quality against these policies, comma-separated: the smallest
    /// budget (on a grid of 1% of the first --resources level) at which each policy's mean
    /// --metric reaches theirs at that level.
    #[arg(long = "savings-against", value_name = "LIST")]
    pub savings_against: Option<String>,
}

impl EvalArgs {
    /// The number of runs as the library takes it.
    pub fn runs(&self) -> Option<usize> {
        self.runs.map(|r| r as usize)
    }
}

/// Which policy ranks the pages: `--policy`, or the older `--formula` / `--baseline`.
#[derive(clap::Args, Debug, Clone)]
pub struct PolicyArgs {
    /// The crawl policy: a baseline (Rand, Age, NAD, SAD, AAD, GAD, CG), a policy of the
    /// literature (uniform, change, weight, lambda, lambda-harmonic, value), adaptive
    /// revisit intervals (nutch, stormcrawler, or "adaptive(init: 30, min: 1, max: 365,
    /// inc: 0.4, dec: 0.2)"), an EXP3 bandit over policies (kab2, kab3, kab5, or
    /// "exp3(arms: [uniform, lambda, formula(\"w * t\")], gamma: 0.1, reward: wndcg)"),
    /// the oracle (oracle: a synthetic history's latent change probabilities), a learned
    /// change model (model:FILE, from `freshgp model train`), or a formula of
    /// --grammar, e.g. "1 - exp(-NAD * t)", "P * t [model m.json]" (P: the model's
    /// predicted change probability).
    #[arg(long, conflicts_with_all = ["formula", "baseline"], allow_hyphen_values = true)]
    pub policy: Option<String>,
    /// A scoring formula (the same as --policy with a formula).
    #[arg(long, conflicts_with = "baseline", allow_hyphen_values = true)]
    pub formula: Option<String>,
    /// A built-in baseline: Rand, Age, NAD, SAD, AAD, GAD or CG.
    #[arg(long)]
    pub baseline: Option<String>,
    /// Grammar whose terminals a formula may use (basic, all, extended, budget, frequency,
    /// predictive, every, basic-reference, all-reference, or a RON file); its closure
    /// evaluates the formula. The default, every, allows every terminal (see the book's
    /// Terminals and estimators chapter) under the paper's closure.
    #[arg(long, default_value = "every")]
    pub grammar: String,
}

impl PolicyArgs {
    /// The policy given, if any.
    pub fn policy(&self) -> Result<Option<Policy>> {
        let formula = |text: &str, grammar: &Grammar| -> Result<Policy> {
            match Policy::parse(text, grammar) {
                Ok(policy) if policy.formula_policy().is_some() => Ok(policy),
                // Read the formula again for the error that points at the byte.
                Err(PolicyError::Formula(_)) | Ok(_) => {
                    let f = parse_formula(text, grammar)?;
                    Ok(Policy::formula_with(&f, grammar.closure(), None)?)
                }
                Err(e) => Err(e.into()),
            }
        };
        Ok(match (&self.policy, &self.formula, &self.baseline) {
            (Some(text), _, _) => {
                let grammar = Grammar::named_or_file(&self.grammar)?;
                match Policy::parse(text, &grammar) {
                    // Read the formula again for the error that points at the byte.
                    Err(PolicyError::Formula(_)) => Some(formula(text, &grammar)?),
                    other => Some(other?),
                }
            }
            (None, Some(text), _) => Some(formula(text, &Grammar::named_or_file(&self.grammar)?)?),
            (None, None, Some(name)) => match Baseline::from_name(name) {
                Some(b) => Some(Policy::from(b)),
                None => bail!(
                    "unknown baseline `{name}` (expected Rand, Age, NAD, SAD, AAD, GAD or CG)"
                ),
            },
            (None, None, None) => None,
        })
    }
}

/// The policies of a comma-separated list (commas inside parentheses, as in
/// `adaptive(init: 7, ...)`, do not separate), each read as `--policy` reads one; errors
/// name `flag`, the flag that gave the list.
pub fn policy_list(flag: &str, list: &str) -> Result<Vec<Policy>> {
    let grammar = Grammar::every();
    let (mut items, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (i, c) in list.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&list[start..]);
    let mut policies: Vec<Policy> = Vec::new();
    for item in items {
        let item = item.trim();
        if item.is_empty() {
            bail!("{flag} `{list}`: an empty entry (two commas, or a trailing comma)");
        }
        let policy = Policy::parse(item, &grammar).with_context(|| format!("{flag}: `{item}`"))?;
        if policies.contains(&policy) {
            bail!("{flag}: `{item}` is listed twice");
        }
        policies.push(policy);
    }
    Ok(policies)
}

/// Refuses to replace an existing file unless `--force` was given.
pub fn check_out(out: &Path, force: bool) -> Result<()> {
    if out.exists() && !force {
        bail!("{} exists; pass --force to overwrite it", out.display());
    }
    Ok(())
}

/// Parses, turning the error into one that quotes the text and points at the offset.
pub fn parse_formula(text: &str, grammar: &Grammar) -> Result<Formula> {
    Formula::parse(text, grammar).map_err(|e| anyhow::anyhow!(e.quoted(text)))
}
