//! `freshgp schedule`: one step of a live crawl — apply a log of downloads to a saved
//! scheduler state, print the next batch, save the state.

use crate::common::PolicyArgs;
use anyhow::{bail, Context, Result};
use freshgp::data::stats::count;
use freshgp::export::Dialect;
use freshgp::schedule::{log, sql, Opening, Scheduler, StateLock};
use freshgp::sim::{Decision, SimConfig};
use serde_json::json;
use std::io::{BufReader, Write};
use std::path::PathBuf;

/// Flags of `freshgp schedule`.
#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("size").required(true).args(["k", "resources"])))]
pub struct Args {
    #[command(flatten)]
    policy: PolicyArgs,
    /// Scheduler state file: read if it exists (it holds the policy: --policy may then be
    /// omitted, and if given must be the state's), created otherwise; saved on success.
    #[arg(long, value_name = "FILE", required_unless_present = "emit_sql")]
    state: Option<PathBuf>,
    /// Print one SQL query that computes the batch from an observations table instead
    /// (`visits(page, host, cycle, changed[, weight])`, see --table and --column): the
    /// terminals as of the cycle, the score of --policy (a formula or a formula baseline),
    /// the host cap, ties by a documented key. Nothing is read or saved.
    #[arg(long, conflicts_with_all = ["state", "observe", "remove", "json", "wait", "decision", "group"])]
    emit_sql: bool,
    /// With --emit-sql: the engine: sqlite (default), duckdb, postgres or spark.
    #[arg(long, value_parser = crate::common::parse_dialect)]
    dialect: Option<Dialect>,
    /// With --emit-sql: the observations table (`name` or `schema.name`; default visits).
    #[arg(long)]
    table: Option<String>,
    /// With --emit-sql: a column's name in the table, ROLE=NAME with ROLE one of page, host,
    /// cycle, changed, weight (repeatable; naming the weight column makes `w` read it,
    /// else w = 1).
    #[arg(long = "column", value_name = "ROLE=NAME")]
    columns: Vec<String>,
    /// Log of downloads to record first: lines
    /// `page<TAB>cycle<TAB>0|1[<TAB>host[<TAB>weight[<TAB>key=value ...]]]` (1 = the content
    /// had changed). A host column sets the page's host; a weight column (a finite
    /// number >= 0; the host may then be left empty) sets its weight, which the terminal `w`
    /// reads (default 1); `key=value` fields set its categorical attributes (`key=` clears one;
    /// host and weight may then be empty), which `GR` reads under --group. Unknown pages
    /// are added. `-` reads stdin. Lines are applied in cycle order; of lines with the same
    /// page and cycle the last counts; a line not after its page's latest observation is
    /// skipped (both counted on stderr).
    #[arg(long, value_name = "LOG")]
    observe: Option<PathBuf>,
    /// Refuse a log whose cycles run more than N cycles past the state's latest (a Unix
    /// time or a typo as a cycle would move the crawl's clock for good).
    #[arg(long, value_name = "N", default_value_t = log::DEFAULT_MAX_JUMP)]
    max_jump: u32,
    /// Accept any jump of cycles (lifts --max-jump).
    #[arg(long)]
    force_jump: bool,
    /// Pages to stop scheduling, one id a line (blank lines and `#` comments ignored),
    /// removed after --observe is recorded. Ids not scheduled are counted on stderr.
    #[arg(long, value_name = "FILE")]
    remove: Option<PathBuf>,
    /// Pages in the batch, at least 1.
    #[arg(long)]
    k: Option<usize>,
    /// Pages in the batch as a fraction of the scheduled pages, in (0, 1]
    /// (k = floor(pages · resources), as in the simulation).
    #[arg(long, allow_negative_numbers = true)]
    resources: Option<f64>,
    /// At most this many pages of one host per batch, at least 1 (pages without host are
    /// not capped).
    #[arg(long, value_name = "M")]
    host_cap: Option<usize>,
    /// How the batch is decided: `top-k` (the best-scored pages) or `sample`
    /// (exactly k pages drawn with inclusion probabilities from the scores, the uniform
    /// seeded by (--tie-seed, cycle); not with --host-cap). --json then gives each page's
    /// probability.
    #[arg(long, value_name = "top-k|sample", default_value_t = Decision::TopK)]
    decision: Decision,
    /// The cycle to schedule (default: 1 + the latest observed cycle).
    #[arg(long, value_name = "D")]
    cycle: Option<u32>,
    /// The attribute whose groups the terminal GR rates (attributes come as key=value
    /// fields of --observe lines), e.g. category; default: the host (GR = HR).
    /// Kept in the state; given for an existing state, it regroups the pages.
    #[arg(long, value_name = "KEY")]
    group: Option<String>,
    /// Tie-break seed, fixed when the state is created (default 0).
    #[arg(long = "tie-seed")]
    tie_seed: Option<u64>,
    /// Print JSON (cycle, k, the batch with each page's score and weight) instead of one
    /// page id per line.
    #[arg(long)]
    json: bool,
    /// When another run holds the state (its lock, `<state>.lock`), wait for it instead
    /// of failing.
    #[arg(long)]
    wait: bool,
}

/// Runs `freshgp schedule`.
pub fn run(args: Args) -> Result<()> {
    if args.k == Some(0) {
        // As --resources 0 and --host-cap 0, before anything is read or written.
        bail!("--k must be at least 1 (a batch of 0 pages would crawl nothing)");
    }
    if args.emit_sql {
        return emit_sql(&args);
    }
    if args.dialect.is_some() || args.table.is_some() || !args.columns.is_empty() {
        bail!("--dialect, --table and --column describe the query of --emit-sql: add --emit-sql");
    }
    // Invariant: clap requires --state unless --emit-sql is given.
    let state_path = args
        .state
        .clone()
        .expect("invariant: --state is required here");
    if args.host_cap == Some(0) {
        // Before anything is read or written: the library refuses it too, later.
        bail!("--host-cap must be at least 1 (a cap of 0 would crawl no page of any host)");
    }
    if args.decision == Decision::Sample && args.host_cap.is_some() {
        bail!(
            "--decision sample cannot take --host-cap: the draw fixes each page's inclusion \
             probability, which a cap would change"
        );
    }
    // The policy is checked before the state (and its lock) is touched.
    let opening = Opening::new(args.policy.policy()?, args.tie_seed).context("--policy")?;
    let state = state_path.display().to_string();
    // Held from reading the state to saving it: two runs never save over each other.
    let _lock = if args.wait {
        StateLock::acquire(&state_path)?
    } else {
        StateLock::try_acquire(&state_path)?
    };
    let mut scheduler = open_state(&args, &state_path, opening)?;
    if let Some(path) = &args.observe {
        observe(&mut scheduler, path, &args)?;
    }
    if let Some(path) = &args.remove {
        remove_pages(&mut scheduler, path)?;
    }
    check_grouping(&scheduler, &args)?;
    let cycle = match args.cycle {
        Some(d) => d,
        None => scheduler
            .latest_cycle()
            .checked_add(1)
            .context("the latest cycle is the largest possible")?,
    };
    let k = match (args.k, args.resources) {
        (Some(k), _) => k,
        (None, Some(r)) => SimConfig::new(r, 0)?.k(scheduler.len()),
        (None, None) => bail!("give --k or --resources"),
    };
    let batch = match args.decision {
        Decision::TopK => scheduler.next_batch_scored(cycle, k, args.host_cap)?,
        Decision::Sample => scheduler.next_batch_sampled(cycle, k)?,
    };
    scheduler
        .save(&state_path)
        .context("cannot save the state")?;
    eprintln!(
        "{state}: {}, latest observed cycle {}; batch for cycle {cycle}: {}",
        count(scheduler.len(), "page"),
        scheduler.latest_cycle(),
        count(batch.len(), "page")
    );
    report_bandit(&scheduler);
    let drawn = scheduler.drawn().zip(scheduler.policy().bandit());
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if args.json {
        let value = json!({
            "rule": scheduler.policy().to_string(),
            "cycle": cycle,
            "k": k,
            "host_cap": args.host_cap,
            "decision": args.decision.name(),
            "pages": scheduler.len(),
            "batch": batch,
        });
        let mut value = value;
        if let Some(((_, arm, q), bandit)) = drawn {
            let arms: Vec<String> = bandit.arms().iter().map(|a| a.label()).collect();
            value["bandit"] = json!({"arm": arm, "arms": arms, "q": q});
        }
        writeln!(out, "{}", serde_json::to_string_pretty(&value)?)?;
    } else {
        for pick in &batch {
            writeln!(out, "{}", pick.page)?;
        }
    }
    out.flush()?;
    // The process ends here: freeing millions of page ids one by one would only delay it.
    std::mem::forget(scheduler);
    Ok(())
}

/// A bandit policy's news on stderr: the reward of the batch it settled, the arm drawn.
fn report_bandit(scheduler: &Scheduler) {
    let Some(bandit) = scheduler.policy().bandit() else {
        return;
    };
    if let Some((d, arm, rate, found, observed, k)) = scheduler.settled() {
        let unreported = if observed < k {
            format!(
                "; {} of its pages were not reported downloaded and count as unchanged",
                k - observed
            )
        } else {
            String::new()
        };
        eprintln!(
            "bandit: the batch of cycle {d} (arm {arm}, {}) earned change rate {rate:.4}: {found} of {k} pages changed{unreported}",
            bandit.arms()[arm]
        );
    }
    if let Some((_, arm, q)) = scheduler.drawn() {
        eprintln!(
            "bandit: arm {arm} ({}) drawn with probability {:.4}",
            bandit.arms()[arm],
            q[arm]
        );
    }
}

/// Prints the batch query of `--emit-sql`.
fn emit_sql(args: &Args) -> Result<()> {
    let Some(policy) = args.policy.policy()? else {
        bail!("--emit-sql needs the policy: give --policy, --formula or --baseline");
    };
    let table = args.table.as_deref().unwrap_or("visits");
    let mut observations = sql::Observations::in_table(table).context("--table")?;
    for column in &args.columns {
        let (role, name) = column
            .split_once('=')
            .with_context(|| format!("--column `{column}`: expected ROLE=NAME, e.g. page=url"))?;
        let role: sql::Role = role
            .parse()
            .with_context(|| format!("--column `{column}`"))?;
        observations = observations
            .with_column(role, name.trim())
            .with_context(|| format!("--column `{column}`"))?;
    }
    let size = match (args.k, args.resources) {
        (Some(k), _) => sql::BatchSize::K(k),
        (None, Some(r)) => sql::BatchSize::Resources(r),
        (None, None) => bail!("give --k or --resources"),
    };
    let host_cap = match args.host_cap {
        Some(0) => {
            bail!("--host-cap must be at least 1 (a cap of 0 would crawl no page of any host)")
        }
        cap => cap.and_then(std::num::NonZeroUsize::new),
    };
    let query = sql::BatchQuery::new(args.dialect.unwrap_or_default(), size)
        .observations(observations)
        .host_cap(host_cap)
        .cycle(args.cycle)
        .tie_seed(args.tie_seed.unwrap_or(0));
    let text = sql::batch_query(&policy, &query).context("--emit-sql")?;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// The saved state at `path`, held to `opening`, grouped as `--group` says.
fn open_state(args: &Args, path: &std::path::Path, opening: Opening) -> Result<Scheduler> {
    let mut s: Scheduler = opening.open(path)?;
    if let Some(key) = &args.group {
        s.group_by(Some(key)).context("--group")?;
    }
    Ok(s)
}

/// Refuses `--group KEY` when the state has pages and none has `KEY` (after this run's
/// log): `GR` would silently read each page's own rate. Nothing is saved then.
fn check_grouping(scheduler: &Scheduler, args: &Args) -> Result<()> {
    let Some(key) = args.group.as_deref() else {
        return Ok(());
    };
    match scheduler.unused_grouping() {
        Some(why) => {
            bail!("--group {key}: {why}; nothing was saved, this run's log included")
        }
        None => Ok(()),
    }
}

/// Records the log at `path` (`-`: stdin) and reports what was recorded and skipped.
fn observe(scheduler: &mut Scheduler, path: &std::path::Path, args: &Args) -> Result<()> {
    let options = log::LogOptions {
        max_jump: (!args.force_jump).then_some(args.max_jump),
    };
    let summary = if path.as_os_str() == "-" {
        log::apply_with(scheduler, std::io::stdin().lock(), "<stdin>", options)?
    } else {
        let name = path.display().to_string();
        let file =
            std::fs::File::open(path).with_context(|| format!("cannot open the log {name}"))?;
        log::apply_with(scheduler, BufReader::new(file), &name, options)?
    };
    eprintln!(
        "{}: {} recorded, {}",
        path.display(),
        count(summary.observations, "observation"),
        count(summary.added, "new page")
    );
    if let Some(first) = &summary.first_skipped {
        eprintln!(
            "{}: skipped {} (the last of each page and cycle applies) and {} not after their \
             page's latest observation; first: {first}",
            path.display(),
            count(summary.duplicates, "duplicate line"),
            count(summary.stale, "line")
        );
    }
    Ok(())
}

/// Removes the pages listed in `path` (one id a line) from `scheduler`; reports on stderr
/// how many were removed and which ids were not scheduled.
fn remove_pages(scheduler: &mut Scheduler, path: &std::path::Path) -> Result<()> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {name}"))?;
    let (mut removed, mut unknown, mut first_unknown) = (0usize, 0usize, None);
    for (i, line) in text.lines().enumerate() {
        let id = line
            .strip_prefix('\u{feff}')
            .unwrap_or(line)
            .trim_end_matches('\r');
        if id.trim().is_empty() || id.starts_with('#') {
            continue;
        }
        if scheduler.contains(id) {
            scheduler.remove(id)?;
            removed += 1;
        } else {
            unknown += 1;
            first_unknown.get_or_insert_with(|| format!("{name}:{}: {id}", i + 1));
        }
    }
    eprintln!("{name}: {} removed", count(removed, "page"));
    if let Some(first) = first_unknown {
        let ids = count(unknown, "id");
        eprintln!("{name}: {ids} not scheduled (first: {first})");
    }
    Ok(())
}
