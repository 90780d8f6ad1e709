//! `freshgp dataset from-cdx | from-warc | from-crawl-log`: a history from the files
//! crawlers and web archives keep.

use crate::common::check_out;
use crate::dataset_out::{print_skipped, write, ErrorMode, To, WeightsArg};
use anyhow::Result;
use freshgp::archive::cdx::CdxFields;
use freshgp::archive::sql::{history_sql, Columns, Engine};
use freshgp::archive::{read_files, ArchiveOptions, Format, HostRule, StatusRule};
use freshgp::data::log::{parse_cycle, OnError};
use freshgp::data::stats::count;
use std::path::PathBuf;

/// The flags every archive reader takes.
#[derive(clap::Args)]
pub struct ArchiveArgs {
    /// The input files, gzip'd or not (`-`: standard input).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Output history (text, or binary cache with --to binary or a .fgpd name; `-`:
    /// standard output).
    #[arg(long)]
    out: PathBuf,
    /// Cycle length: a number and s, m, h, d or w (cycles are aligned to the Unix
    /// epoch, so 1d = UTC days).
    #[arg(long, default_value = "1d")]
    cycle: String,
    /// What a redirect (3xx) is: `unknown`, a failed download (default), or `content`, a
    /// capture of the redirect's content by its digest.
    #[arg(long, value_name = "RULE", value_parser = |s: &str| s.parse::<StatusRule>())]
    redirects: Option<StatusRule>,
    /// What an error response (4xx, 5xx, a crawler's failure codes) is: `unknown`
    /// (default) or `content`.
    #[arg(long, value_name = "RULE", value_parser = |s: &str| s.parse::<StatusRule>())]
    errors: Option<StatusRule>,
    /// How a page's host is named: `name`, the URL's host name (default), or `domain`,
    /// its registrable domain by the Public Suffix List.
    #[arg(long, value_name = "RULE", value_parser = |s: &str| s.parse::<HostRule>())]
    hosts: Option<HostRule>,
    /// Malformed lines or records: skip them (and count) or stop at the first.
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

/// The flags of `dataset from-cdx`: those of every reader, and the CDX form's own.
#[derive(clap::Args)]
pub struct FromCdxArgs {
    #[command(flatten)]
    common: ArchiveArgs,
    /// The fields of CDX lines without a ` CDX` header line: CDX letters (`N b a m s k`) or
    /// the Wayback CDX server's names (`urlkey timestamp original mimetype statuscode
    /// digest length`). Default: by their count (7: the Wayback CDX server's; 9, 11: CDX 9
    /// and CDX 11).
    #[arg(long, value_parser = |s: &str| s.parse::<CdxFields>())]
    fields: Option<CdxFields>,
    /// Read the files in any order, holding every capture in memory. By default each file
    /// is sorted by key then time (as indexers write them), files are merged as they are
    /// read, memory holds the history only, and a line out of order is malformed.
    #[arg(long)]
    unsorted: bool,
}

/// The flags of `dataset emit-sql`.
#[derive(clap::Args)]
pub struct EmitSqlArgs {
    /// The engine: duckdb or spark.
    #[arg(long, value_parser = |s: &str| s.parse::<Engine>())]
    engine: Engine,
    /// The table of captures, one row a capture.
    #[arg(long, default_value = "ccindex")]
    table: String,
    /// A column of the table, as ROLE=COLUMN (roles: key, time, url, status, digest, mime,
    /// host); repeat for each. Default: Common Crawl's columnar index (key=url_surtkey,
    /// time=fetch_time, url=url, status=fetch_status, digest=content_digest,
    /// mime=content_mime_type; hosts from the URL).
    #[arg(long = "column", value_name = "ROLE=COLUMN")]
    columns: Vec<String>,
    /// Cycle length: a number and s, m, h, d or w.
    #[arg(long, default_value = "1d")]
    cycle: String,
    /// What a redirect is: unknown (default) or content.
    #[arg(long, value_name = "RULE", value_parser = |s: &str| s.parse::<StatusRule>())]
    redirects: Option<StatusRule>,
    /// What an error response is: unknown (default) or content.
    #[arg(long, value_name = "RULE", value_parser = |s: &str| s.parse::<StatusRule>())]
    errors: Option<StatusRule>,
}

/// `dataset emit-sql`: the query on standard output.
pub fn emit_sql(args: EmitSqlArgs) -> Result<()> {
    let mut columns = Columns::default();
    for c in &args.columns {
        columns.set(c).map_err(anyhow::Error::msg)?;
    }
    let defaults = ArchiveOptions::default();
    let options = ArchiveOptions {
        cycle: parse_cycle(&args.cycle)?,
        redirects: args.redirects.unwrap_or(defaults.redirects),
        errors: args.errors.unwrap_or(defaults.errors),
        ..defaults
    };
    let sql =
        history_sql(args.engine, &args.table, &columns, &options).map_err(anyhow::Error::msg)?;
    print!("{sql}");
    Ok(())
}

/// `dataset from-cdx`.
pub fn from_cdx(args: FromCdxArgs) -> Result<()> {
    let FromCdxArgs {
        common,
        fields,
        unsorted,
    } = args;
    run(Format::Cdx, common, |o| {
        o.fields = fields;
        o.sorted = !unsorted;
    })
}

/// `dataset from-warc` and `dataset from-crawl-log`.
pub fn from_files(format: Format, args: ArchiveArgs) -> Result<()> {
    run(format, args, |_| {})
}

fn run(format: Format, args: ArchiveArgs, set: impl FnOnce(&mut ArchiveOptions)) -> Result<()> {
    let ArchiveArgs {
        files,
        out,
        cycle,
        redirects,
        errors,
        hosts,
        on_error,
        weights,
        to,
        force,
    } = args;
    check_out(&out, force)?;
    let defaults = ArchiveOptions::default();
    let mut options = ArchiveOptions {
        cycle: parse_cycle(&cycle)?,
        on_error: match on_error {
            ErrorMode::Skip => OnError::Skip,
            ErrorMode::Stop => OnError::Stop,
        },
        redirects: redirects.unwrap_or(defaults.redirects),
        errors: errors.unwrap_or(defaults.errors),
        hosts: hosts.unwrap_or(defaults.hosts),
        ..defaults
    };
    set(&mut options);
    let (mut d, report) = read_files(format, &files, &options)?;
    print_skipped(&report.errors, report.skipped);
    weights.apply(&mut d)?;
    write(&d, &out, to)?;
    let start = time::OffsetDateTime::from_unix_timestamp(report.first_cycle_start)
        .map(|t| t.to_string())
        .unwrap_or_else(|_| report.first_cycle_start.to_string());
    eprintln!(
        "{report} → {} × {} of {cycle} from {start}, {}; wrote {}",
        count(d.pages(), "page"),
        count(d.cycles(), "cycle"),
        count(d.unknown_count(), "unknown cycle"),
        out.display()
    );
    Ok(())
}
