//! `freshgp dataset`: make, convert and describe change histories.

use crate::archive_cmd;
use crate::common::check_out;
use crate::dataset_out::{print_skipped, write, ErrorMode, To, WeightsArg};
use anyhow::{Context, Result};
use clap::Subcommand;
use freshgp::archive::Format;
use freshgp::data::log::{from_log, parse_cycle, LogOptions, OnError};
use freshgp::data::stats::count;
use freshgp::data::stats::Stats;
use freshgp::data::synth::{generate, SynthParams};
use freshgp::data::{load, LoadOptions, UnknownPolicy};
use std::path::PathBuf;
use std::time::Instant;

/// Flags of `freshgp dataset`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(Subcommand)]
enum Action {
    /// Build a history from a crawl log
    /// (`url<TAB>fetch_time<TAB>content_hash[<TAB>status[<TAB>weight]]`).
    FromLog(FromLogArgs),
    /// Build a history from CDX or CDXJ indexes (pywb, the Wayback CDX server, Common
    /// Crawl's index): one page per URL key.
    FromCdx(archive_cmd::FromCdxArgs),
    /// Build a history from WARC files (.warc, .warc.gz): response, resource and revisit
    /// records.
    FromWarc(archive_cmd::ArchiveArgs),
    /// Build a history from Heritrix crawl.log files.
    FromCrawlLog(archive_cmd::ArchiveArgs),
    /// Build a history from Nutch CrawlDb dumps (readdb -dump), one a moment.
    FromNutch(archive_cmd::ArchiveArgs),
    /// Print the SQL that builds the history from-cdx would, in DuckDB or Spark, from a
    /// table of captures (Common Crawl's columnar index by default).
    EmitSql(archive_cmd::EmitSqlArgs),
    /// Generate a realistic synthetic history from a preset.
    Synth(SynthArgs),
    /// Print summary figures of a history (text or binary cache).
    Stats(StatsArgs),
    /// Convert between the text format and the binary cache (lossless by default).
    Convert(ConvertArgs),
}

// The flags of `freshgp dataset from-log` (the variant's doc is its help).
#[derive(clap::Args)]
struct FromLogArgs {
    /// The log file (`-`: standard input).
    log: PathBuf,
    /// Output history (text, or binary cache with --to binary or a .fgpd name; `-`:
    /// standard output).
    #[arg(long)]
    out: PathBuf,
    /// Cycle length: a number and s, m, h, d or w (cycles are aligned to the Unix
    /// epoch, so 1d = UTC days).
    #[arg(long, default_value = "1d")]
    cycle: String,
    /// Malformed lines: skip them (and count) or stop at the first.
    #[arg(long, value_enum, default_value_t = ErrorMode::Skip)]
    on_error: ErrorMode,
    #[command(flatten)]
    weights: WeightsArg,
    /// Output format (default: by the --out extension: .fgpd = binary, else text).
    #[arg(long, value_enum)]
    to: Option<To>,
    /// Overwrite --out if it exists.
    #[arg(long)]
    force: bool,
}

// The flags of `freshgp dataset synth` (the variant's doc is its help).
#[derive(clap::Args)]
struct SynthArgs {
    /// A built-in preset (brdc12, commerce, regimes, steady) or a RON preset file.
    #[arg(long, default_value = "brdc12")]
    preset: String,
    /// Pages (default: the preset's).
    #[arg(long)]
    pages: Option<usize>,
    /// Cycles/days (default: the preset's).
    #[arg(long)]
    days: Option<usize>,
    /// Random seed; the output depends only on the preset, sizes and seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Significant digits of the page weights (1..=17), or `full` to keep them at full
    /// precision as real importance scores are (default: the preset's, 4 for the built-in
    /// ones).
    #[arg(long, value_name = "N|full", allow_hyphen_values = true)]
    weight_digits: Option<WeightDigits>,
    /// Output history (text, or binary cache with --to binary or a .fgpd name; `-`:
    /// standard output).
    #[arg(long, required_unless_present = "print_preset")]
    out: Option<PathBuf>,
    /// Output format (default: by extension).
    #[arg(long, value_enum)]
    to: Option<To>,
    /// Overwrite --out if it exists.
    #[arg(long)]
    force: bool,
    /// Print the preset's parameters (RON) and exit.
    #[arg(long)]
    print_preset: bool,
}

// The flags of `freshgp dataset stats` (the variant's doc is its help).
#[derive(clap::Args)]
struct StatsArgs {
    /// The history (`-`: standard input).
    file: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Unknown-cycle policy applied before counting (default keep: show the `?`s).
    #[arg(long, default_value = "keep")]
    unknown: UnknownPolicy,
}

// The flags of `freshgp dataset convert` (the variant's doc is its help).
#[derive(clap::Args)]
struct ConvertArgs {
    /// Input history (text or binary cache, detected; `-`: standard input).
    input: PathBuf,
    /// Output file (`-`: standard output).
    #[arg(long)]
    out: PathBuf,
    /// Output format (default: by extension: .fgpd = binary, else text).
    #[arg(long, value_enum)]
    to: Option<To>,
    /// Unknown-cycle policy applied before writing (default keep). Pages it drops are
    /// not in the history --weights sees.
    #[arg(long, default_value = "keep")]
    unknown: UnknownPolicy,
    #[command(flatten)]
    weights: WeightsArg,
    /// Overwrite --out if it exists.
    #[arg(long)]
    force: bool,
}

/// Runs `freshgp dataset`.
pub fn run(args: Args) -> Result<()> {
    match args.action {
        Action::FromLog(a) => from_log_cmd(a),
        Action::FromCdx(a) => archive_cmd::from_cdx(a),
        Action::FromWarc(a) => archive_cmd::from_files(Format::Warc, a),
        Action::FromCrawlLog(a) => archive_cmd::from_files(Format::CrawlLog, a),
        Action::FromNutch(a) => archive_cmd::from_files(Format::Nutch, a),
        Action::EmitSql(a) => archive_cmd::emit_sql(a),
        Action::Synth(a) => synth(a),
        Action::Stats(a) => stats(a),
        Action::Convert(a) => convert(a),
    }
}

/// `dataset from-log`: a crawl log to a history.
fn from_log_cmd(args: FromLogArgs) -> Result<()> {
    let FromLogArgs {
        log,
        out,
        cycle,
        on_error,
        weights,
        to,
        force,
    } = args;
    check_out(&out, force)?;
    let options = LogOptions {
        cycle: parse_cycle(&cycle)?,
        on_error: match on_error {
            ErrorMode::Skip => OnError::Skip,
            ErrorMode::Stop => OnError::Stop,
        },
    };
    let (mut d, report, name) = if log.as_os_str() == "-" {
        let name = "<stdin>".to_string();
        let (d, report) = from_log(std::io::stdin().lock(), &name, &options)?;
        (d, report, name)
    } else {
        let name = log.display().to_string();
        let f = std::fs::File::open(&log).with_context(|| format!("cannot open {name}"))?;
        let reader = std::io::BufReader::with_capacity(1 << 20, f);
        let (d, report) = from_log(reader, &name, &options)?;
        (d, report, name)
    };
    print_skipped(&report.errors, report.skipped);
    if report.weighted_pages > 0 {
        eprintln!(
            "{name}: weights from the log on {} ({} of them with differing weights: the latest line's kept)",
            count(report.weighted_pages, "page"), report.conflicting_weights
        );
    }
    weights.apply(&mut d)?;
    write(&d, &out, to)?;
    let start = time::OffsetDateTime::from_unix_timestamp(report.first_cycle_start)
        .map(|t| t.to_string())
        .unwrap_or_else(|_| report.first_cycle_start.to_string());
    eprintln!(
        "{}: {}, {} ({} failed), {} skipped → {} × {} of {cycle} from {start}, {}; wrote {}",
        name,
        count(report.lines, "line"),
        count(report.fetches, "fetch"),
        report.failed_fetches,
        count(report.skipped, "malformed line"),
        count(d.pages(), "page"),
        count(d.cycles(), "cycle"),
        count(d.unknown_count(), "unknown cycle"),
        out.display()
    );
    Ok(())
}

/// `--weight-digits`: a number of significant digits, or `full` (`None`).
#[derive(Clone, Copy, Debug)]
struct WeightDigits(Option<u32>);

impl std::str::FromStr for WeightDigits {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s == "full" {
            return Ok(WeightDigits(None));
        }
        let digits = freshgp::data::synth::WEIGHT_DIGITS;
        match s.parse::<u32>() {
            Ok(d) if digits.contains(&d) => Ok(WeightDigits(Some(d))),
            _ => Err(format!(
                "`{s}` is not a number of significant digits in {digits:?} or `full`"
            )),
        }
    }
}

/// `dataset synth`: a synthetic history, or its preset printed.
fn synth(args: SynthArgs) -> Result<()> {
    let SynthArgs {
        preset,
        pages,
        days,
        seed,
        weight_digits,
        out,
        to,
        force,
        print_preset,
    } = args;
    let mut params = SynthParams::named_or_file(&preset)?;
    if let Some(p) = pages {
        params.pages = p;
    }
    if let Some(WeightDigits(digits)) = weight_digits {
        params
            .set_weight_digits(digits)
            .with_context(|| format!("--weight-digits with preset {preset}"))?;
    }
    if let Some(d) = days {
        params.days = d;
    }
    params.validate(&preset)?;
    if print_preset {
        return print_out(&format!("{}\n", params.to_ron()));
    }
    let out = out.context("--out is required")?;
    check_out(&out, force)?;
    let t = Instant::now();
    let d = generate(&params, seed)?;
    let gen = t.elapsed();
    write(&d, &out, to)?;
    eprintln!(
        "generated {} pages × {} cycles on {} hosts (preset {preset}, seed {seed}) in {:.2}s; wrote {} in {:.2}s",
        d.pages(),
        d.cycles(),
        d.host_names().len(),
        gen.as_secs_f64(),
        out.display(),
        (t.elapsed() - gen).as_secs_f64()
    );
    Ok(())
}

/// `dataset stats`: summary figures on stdout.
fn stats(args: StatsArgs) -> Result<()> {
    let StatsArgs {
        file,
        json,
        unknown,
    } = args;
    let loaded = load(&file, &LoadOptions { unknown })?;
    let stats = Stats::of(&loaded.dataset);
    let text = if json {
        let v = serde_json::json!({
            "file": file.display().to_string(),
            "load": loaded.report,
            "stats": stats,
        });
        format!("{}\n", serde_json::to_string_pretty(&v)?)
    } else {
        let mut t = format!("file               {}\n", file.display());
        if loaded.report.unknown.policy != "keep" {
            t += &format!("{}\n", loaded.report.unknown);
        }
        t + &stats.to_string()
    };
    print_out(&text)?;
    Ok(())
}

/// `dataset convert`: text to binary cache or back.
fn convert(args: ConvertArgs) -> Result<()> {
    let ConvertArgs {
        input,
        out,
        to,
        unknown,
        weights,
        force,
    } = args;
    check_out(&out, force)?;
    let mut loaded = load(&input, &LoadOptions { unknown })?;
    weights.apply(&mut loaded.dataset)?;
    write(&loaded.dataset, &out, to)?;
    eprintln!(
        "{} ({:?}, {} pages × {} cycles; {}) → {}",
        input.display(),
        loaded.report.format,
        loaded.dataset.pages(),
        loaded.dataset.cycles(),
        loaded.report.unknown,
        out.display()
    );
    Ok(())
}

/// Writes to stdout; a closed pipe (`| head`) ends quietly instead of panicking.
fn print_out(text: &str) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}
