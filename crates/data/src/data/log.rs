//! From crawl logs to a change history: how a crawler operator gets a dataset.
//!
//! Input: one fetch per line, `url<TAB>fetch_time<TAB>content_hash[<TAB>status[<TAB>weight]]`.
//! - `fetch_time`: RFC 3339 (`2012-03-01T08:15:00Z`, any offset) or Unix seconds (an
//!   integer, optionally with a fractional part, which is dropped).
//! - `content_hash`: any text identifying the content (compared for equality only; stored
//!   as a 64-bit hash of the text). Empty = the fetch failed.
//! - `status` (optional): an HTTP status code. 2xx = success; 304 = success, content
//!   unchanged (the hash may then be empty); anything else = failed. Empty = no status
//!   (so a line may give a weight without a status: `url<TAB>time<TAB>hash<TAB><TAB>2.5`).
//! - `weight` (optional): the page's importance (docs/src/reference/data.md#page-weights),
//!   a finite number >= 0 (see [`super::weights::parse_weight`]); empty = the line gives
//!   none. A bad weight makes the line malformed, like any other bad field.
//! - Blank lines and lines starting with `#` are ignored; lines may come in any order.
//!
//! Output: one page per distinct URL (in order of first appearance), its id the URL and its
//! host the URL's host (lower-cased by the `url` crate's WHATWG parsing). Cycles are
//! consecutive windows of [`LogOptions::cycle`] seconds aligned to the Unix epoch (so `1d`
//! = UTC days), from the first to the last window holding any fetch. Cycle d of a page is
//! - `1` when some successful fetch in it has a hash different from the previous
//!   successful fetch of the page (in time order; ties in time keep line order);
//! - `0` when it has a successful fetch and none differs (the first successful fetch of a
//!   page sets its reference copy, so its cycle is `0` unless a later fetch in the same
//!   cycle differs);
//! - `?` when the page has no successful fetch in it.
//!
//! Weights: a page's weight is the one on its **latest line that carries a weight**, in
//! time order with line order breaking ties (the same order as the fetches), whether that
//! fetch succeeded or not (the weight describes the page, not the download). Lines without
//! a weight neither set nor clear it; a page no line gives a weight weighs 1. When no line
//! of the log carries a weight, the history has no weight column at all (its text has no
//! `weight=`). [`LogReport`] counts the pages whose lines disagree. To set weights from
//! another source, see [`super::weights`].
//!
//! ```
//! use freshgp_data::data::log::{from_log, LogOptions};
//!
//! let log = "http://a.org/x\t2024-01-01T10:00:00Z\th1\n\
//!            http://a.org/x\t1704196800\th2\n\
//!            http://a.org/x\t2024-01-04T00:00:00+00:00\th2\t200\n";
//! let (d, report) = from_log(log.as_bytes(), "crawl.log", &LogOptions::default()).unwrap();
//! assert_eq!((d.pages(), d.cycles()), (1, 4));
//! assert!(d.changed(0, 2) && d.is_unknown(0, 3) && !d.changed(0, 4));
//! assert_eq!(d.host_names(), ["a.org"]);
//! assert_eq!(report.fetches, 3);
//! ```

use super::captures::{Capture, CaptureKind, Collector, PageOrder};
use super::{DataError, Dataset};
use std::hash::{Hash, Hasher};
use std::io::BufRead;

/// What to do with a malformed log line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnError {
    /// Skip it and count it (the first few are kept in the report).
    #[default]
    Skip,
    /// Stop with its error.
    Stop,
}

/// How to read a log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogOptions {
    /// Cycle length in seconds (default one day).
    pub cycle: u64,
    /// Malformed lines: skip or stop.
    pub on_error: OnError,
}

impl Default for LogOptions {
    fn default() -> Self {
        LogOptions {
            cycle: 86_400,
            on_error: OnError::Skip,
        }
    }
}

/// What reading a log found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LogReport {
    /// Pages with a weight from the log's weight column.
    pub weighted_pages: usize,
    /// Of those, pages whose lines carry different weights (the latest one is kept).
    pub conflicting_weights: usize,
    /// Lines read (all of them).
    pub lines: usize,
    /// Fetch lines accepted.
    pub fetches: usize,
    /// Of those, failed fetches.
    pub failed_fetches: usize,
    /// Malformed lines skipped.
    pub skipped: usize,
    /// The first malformed lines' errors (at most 20).
    pub errors: Vec<DataError>,
    /// Start of cycle 1, Unix seconds.
    pub first_cycle_start: i64,
}

/// Why a text is not a cycle length. Each holds the text as given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CycleLengthError {
    /// No number before the unit.
    #[error("cycle length `{0}`: expected a number and a unit, e.g. 1d or 6h")]
    NoNumber(String),
    /// A unit other than `s`, `m`, `h`, `d` or `w`.
    #[error("cycle length `{0}`: unit must be s, m, h, d or w")]
    Unit(String),
    /// Zero, or more seconds than a `u64` holds.
    #[error("cycle length `{0}` must be between 1s and 2^64 s")]
    OutOfRange(String),
    /// More seconds than a timestamp difference (`i64`) holds.
    #[error("cycle length `{0}` is too long")]
    TooLong(String),
}

/// Parses a cycle length: a positive integer and a unit `s`, `m`, `h`, `d` or `w`
/// (`1d`, `6h`, `90m`); returns seconds.
///
/// ```
/// use freshgp_data::data::log::{parse_cycle, CycleLengthError};
///
/// assert_eq!(parse_cycle("6h"), Ok(21_600));
/// assert_eq!(parse_cycle("0d"), Err(CycleLengthError::OutOfRange("0d".into())));
/// assert_eq!(parse_cycle("3y"), Err(CycleLengthError::Unit("3y".into())));
/// ```
pub fn parse_cycle(s: &str) -> Result<u64, CycleLengthError> {
    let unit_at = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (n, unit) = s.split_at(unit_at);
    let n: u64 = n
        .parse()
        .map_err(|_| CycleLengthError::NoNumber(s.into()))?;
    let mult = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3_600,
        "d" => 86_400,
        "w" => 604_800,
        _ => return Err(CycleLengthError::Unit(s.into())),
    };
    match n.checked_mul(mult) {
        Some(0) | None => Err(CycleLengthError::OutOfRange(s.into())),
        Some(v) if v > i64::MAX as u64 => Err(CycleLengthError::TooLong(s.into())),
        Some(v) => Ok(v),
    }
}

/// Parses a fetch time (RFC 3339 or Unix seconds) into Unix seconds (rounded down).
pub(crate) fn parse_time(s: &str) -> Result<i64, String> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    if !digits.is_empty()
        && digits.starts_with(|c: char| c.is_ascii_digit())
        && !digits.contains(['-', ':', 'T', 't'])
    {
        let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
        if !int.is_empty()
            && int.bytes().all(|b| b.is_ascii_digit())
            && frac.bytes().all(|b| b.is_ascii_digit())
        {
            let v: i64 = int
                .parse()
                .map_err(|_| format!("`{s}`: Unix time out of range"))?;
            return Ok(if s.starts_with('-') {
                -v - i64::from(frac.bytes().any(|b| b != b'0'))
            } else {
                v
            });
        }
        return Err(format!("`{s}` is neither Unix seconds nor RFC 3339"));
    }
    time::OffsetDateTime::parse(s, &time::format_description::well_known::Rfc3339)
        .map(|t| t.unix_timestamp())
        .map_err(|e| format!("`{s}` is neither Unix seconds nor RFC 3339 ({e})"))
}

/// Reads a crawl log into a history (unknown cycles kept as `?`); `file` names it in errors.
pub fn from_log<R: BufRead>(
    reader: R,
    file: &str,
    options: &LogOptions,
) -> Result<(Dataset, LogReport), DataError> {
    let mut report = LogReport::default();
    let mut log = Collector::new(options.cycle)?;
    read(&mut log, reader, file, options, &mut report)?;
    if log.captures() == 0 {
        // Every line malformed: say why, with the first few, not only that nothing is left.
        if !report.errors.is_empty() {
            let shown: Vec<String> = report
                .errors
                .iter()
                .take(3)
                .map(|e| e.to_string())
                .collect();
            return Err(DataError::Invalid {
                what: file.to_string(),
                reason: format!(
                    "no valid line: {} malformed lines, the first {}: {}",
                    report.skipped,
                    shown.len(),
                    shown.join("; ")
                ),
            });
        }
        return Err(DataError::Empty {
            file: file.to_string(),
        });
    }
    let weights = log.weight_report();
    report.weighted_pages = weights.weighted_pages;
    report.conflicting_weights = weights.conflicting_weights;
    let (d, start) = log.into_rows(file, PageOrder::Appearance)?.finish()?;
    report.first_cycle_start = start;
    Ok((d, report))
}

/// Reads every line into `log`; malformed lines are skipped into `report` or stop the
/// read, as `options.on_error` says.
fn read<R: BufRead>(
    log: &mut Collector,
    mut reader: R,
    file: &str,
    options: &LogOptions,
    report: &mut LogReport,
) -> Result<(), DataError> {
    let mut buf = Vec::new();
    loop {
        buf.clear();
        if reader
            .read_until(b'\n', &mut buf)
            .map_err(|e| DataError::io(file, &e))?
            == 0
        {
            return Ok(());
        }
        report.lines += 1;
        let no = report.lines;
        let err = |column: usize, reason: String| DataError::Malformed {
            file: file.to_string(),
            line: no,
            column,
            reason,
        };
        let Parsed {
            url,
            host,
            capture,
            weight,
        } = match read_line(&buf, &err) {
            None => continue,
            Some(Ok(v)) => v,
            Some(Err(e)) => {
                if options.on_error == OnError::Stop {
                    return Err(e);
                }
                report.skipped += 1;
                if report.errors.len() < 20 {
                    report.errors.push(e);
                }
                continue;
            }
        };
        match log.push(url, capture, weight, || Ok(host), |why| err(1, why)) {
            Ok(()) => {
                report.fetches += 1;
                report.failed_fetches += usize::from(capture.kind == CaptureKind::Failed);
            }
            Err(e) if options.on_error == OnError::Stop => return Err(e),
            Err(e) => {
                report.skipped += 1;
                if report.errors.len() < 20 {
                    report.errors.push(e);
                }
            }
        }
    }
}

/// One line of a log: `None` for a blank or comment line, else the parsed fields or why
/// they do not parse.
fn read_line<'a>(
    buf: &'a [u8],
    err: &dyn Fn(usize, String) -> DataError,
) -> Option<Result<Parsed<'a>, DataError>> {
    let line = buf.strip_suffix(b"\n").unwrap_or(buf);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    match std::str::from_utf8(line) {
        Err(e) => Some(Err(err(
            String::from_utf8_lossy(&line[..e.valid_up_to()])
                .chars()
                .count()
                + 1,
            "not UTF-8".into(),
        ))),
        Ok(l) if l.trim().is_empty() || l.starts_with('#') => None,
        Ok(l) => Some(parse_line(l, err)),
    }
}

/// The fields of one fetch line.
struct Parsed<'a> {
    url: &'a str,
    host: String,
    capture: Capture,
    weight: Option<f64>,
}

fn parse_line<'a>(
    line: &'a str,
    err: &dyn Fn(usize, String) -> DataError,
) -> Result<Parsed<'a>, DataError> {
    let fields: Vec<&str> = line.split('\t').collect();
    let col = |i: usize| {
        fields[..i]
            .iter()
            .map(|f| f.chars().count() + 1)
            .sum::<usize>()
            + 1
    };
    if !(3..=5).contains(&fields.len()) {
        return Err(err(
            1,
            format!(
                "{} fields: expected url<TAB>fetch_time<TAB>content_hash[<TAB>status[<TAB>weight]]",
                fields.len()
            ),
        ));
    }
    let url = fields[0];
    if let Some(at) = url.find(|c: char| c.is_control() || c.is_whitespace()) {
        // The URL parser would strip it or read past it, but the page id is the field as
        // written: ` http://a/` and `http://a/` would be two pages of one URL.
        return Err(err(
            url[..at].chars().count() + 1,
            format!(
                "URL `{}` holds a space or control character",
                url.escape_debug()
            ),
        ));
    }
    let parsed = url::Url::parse(url).map_err(|e| err(1, format!("bad URL `{url}`: {e}")))?;
    let host = parsed
        .host_str()
        .ok_or_else(|| err(1, format!("URL `{url}` has no host")))?
        .to_string();
    let time = parse_time(fields[1]).map_err(|e| err(col(1), format!("bad fetch time {e}")))?;
    let status = match fields.get(3).copied() {
        None | Some("") => None,
        Some(s) => match s.parse::<u16>() {
            Ok(v) if (100..=999).contains(&v) => Some(v),
            _ => {
                return Err(err(
                    col(3),
                    format!("bad status `{s}`: expected an HTTP status code"),
                ))
            }
        },
    };
    let hash_text = fields[2];
    let kind = match status {
        Some(304) => CaptureKind::NotModified,
        Some(s) if !(200..300).contains(&s) => CaptureKind::Failed,
        _ if hash_text.is_empty() => CaptureKind::Failed,
        _ => {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            hash_text.hash(&mut h);
            CaptureKind::Content(h.finish())
        }
    };
    let weight = match fields.get(4).copied() {
        None | Some("") => None,
        Some(w) => Some(super::weights::parse_weight(w).map_err(|e| err(col(4), e.into()))?),
    };
    Ok(Parsed {
        url,
        host,
        capture: Capture { time, kind },
        weight,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(log: &str, opts: &LogOptions) -> Result<(Vec<String>, Dataset, LogReport), DataError> {
        let (d, r) = from_log(log.as_bytes(), "t.log", opts)?;
        let rows = (0..d.pages()).map(|p| d.bits_string(p)).collect();
        Ok((rows, d, r))
    }

    #[test]
    fn days_changes_failures_and_order() {
        let log = "\
# comment
http://b.org/1\t2024-03-02T12:00:00Z\tB\n\
http://a.org/1\t2024-03-01T00:00:00Z\tA\n\
http://a.org/1\t2024-03-03T23:59:59Z\tA2\n\
http://a.org/1\t2024-03-02T05:00:00Z\t\n\
http://b.org/1\t2024-03-04T00:00:00Z\tB\t500\n\
http://b.org/1\t2024-03-03T01:00:00Z\t\t304\n\
http://A.ORG/2\t1709251200\th\n\
http://A.ORG/2\t1709251300\tg\n\
http://b.org/1\t2024-03-04T00:30:00+01:00\tC\n";
        let (rows, d, r) = run(log, &LogOptions::default()).unwrap();
        assert_eq!(d.cycles(), 4);
        // b.org/1: day 2 first (0); day 3: 304 then C (03-04T00:30+01:00 is 03-03 UTC) → 1;
        // day 4: only a 500 → ?
        assert_eq!(rows[0], "?01?");
        // a.org/1: day1 A (0), day2 failed (?), day3 A2 (1), day4 none (?)
        assert_eq!(rows[1], "0?1?");
        // A.ORG/2: two fetches on day 1, differing → 1
        assert_eq!(rows[2], "1???");
        assert_eq!(d.host_names(), ["b.org", "a.org"]);
        assert_eq!(d.id(2), Some("http://A.ORG/2"));
        assert_eq!((r.fetches, r.failed_fetches, r.skipped), (9, 2, 0));
        assert_eq!(r.first_cycle_start, 1_709_251_200);
    }

    #[test]
    fn a_url_with_control_characters_is_refused_at_its_first() {
        // The URL parser strips them, but the page id is the field as written.
        let stop = LogOptions {
            on_error: OnError::Stop,
            ..LogOptions::default()
        };
        let e = run("\0\rhttp://a.org/x\t0\th\n", &stop).unwrap_err();
        assert!(e.to_string().starts_with("t.log:1:1: URL"), "{e}");
        let e = run("http://a.org/\u{7f}x\t0\th\n", &stop).unwrap_err();
        assert!(e.to_string().starts_with("t.log:1:14: URL"), "{e}");
        let e = run(" http://a.org/x\t0\th\n", &stop).unwrap_err();
        assert!(e.to_string().starts_with("t.log:1:1: URL"), "{e}");
    }

    #[test]
    fn six_hour_cycles() {
        let log = "http://x.io/\t0\ta\nhttp://x.io/\t21600\tb\nhttp://x.io/\t43200\tb\n";
        let opts = LogOptions {
            cycle: parse_cycle("6h").unwrap(),
            ..LogOptions::default()
        };
        let (rows, _, _) = run(log, &opts).unwrap();
        assert_eq!(rows, ["010"]);
    }

    #[test]
    fn malformed_lines_skip_or_stop() {
        let log =
            "http://x.io/\t0\ta\nnot a url\t0\ta\nhttp://x.io/\tyesterday\ta\nhttp://x.io/\t5\n\
                   http://x.io/\t5\ta\tOK\nhttp://x.io/\t86400\tb\n";
        let (rows, _, r) = run(log, &LogOptions::default()).unwrap();
        assert_eq!(rows, ["01"]);
        assert_eq!(r.skipped, 4);
        let msgs: Vec<String> = r.errors.iter().map(ToString::to_string).collect();
        assert!(
            msgs[0].starts_with("t.log:2:4: URL `not a url` holds a space"),
            "{}",
            msgs[0]
        );
        assert!(
            msgs[1].starts_with("t.log:3:14: bad fetch time `yesterday`"),
            "{}",
            msgs[1]
        );
        assert!(msgs[2].starts_with("t.log:4:1: 2 fields"), "{}", msgs[2]);
        assert_eq!(
            msgs[3],
            "t.log:5:18: bad status `OK`: expected an HTTP status code"
        );
        let stop = LogOptions {
            on_error: OnError::Stop,
            ..LogOptions::default()
        };
        let e = run(log, &stop).unwrap_err();
        assert!(e.to_string().starts_with("t.log:2:4:"), "{e}");
        assert!(matches!(
            run("# nothing\n", &stop),
            Err(DataError::Empty { .. })
        ));
        let e = run(
            "http://x.io/\t0\ta\nhttp://x.io/\t9999999999999\ta\n",
            &stop,
        )
        .unwrap_err();
        assert!(e.to_string().contains("too large"), "{e}");
    }

    #[test]
    fn weight_column_latest_weighted_line_wins() {
        let log = "\
http://a.org/1\t200\th\t\t5\n\
http://a.org/1\t100\th\t200\t9\n\
http://a.org/1\t300\th\n\
http://b.org/1\t50\th\t500\t2.5\n\
http://b.org/1\t50\th\t\t3\n\
http://c.org/1\t10\th\n\
http://d.org/1\t10\th\t304\t\n\
http://e.org/1\t10\th\t\t7\n\
http://e.org/1\t20\th\t\t7\n";
        let (_, d, r) = run(log, &LogOptions::default()).unwrap();
        // a: the line at t=200 is the latest with a weight (t=300 has none; t=100 is older
        // though later in the file); b: a tie in time, the later line wins, even after a
        // failed fetch; c, d: no weight → 1; e: the same weight twice is no conflict
        let w: Vec<f64> = (0..d.pages()).map(|p| d.weight(p)).collect();
        assert_eq!(w, [5.0, 3.0, 1.0, 1.0, 7.0]);
        assert_eq!((r.weighted_pages, r.conflicting_weights), (3, 2));
        // no weight anywhere: no weight column
        let (_, d, r) = run("http://a.org/\t0\th\t200\n", &LogOptions::default()).unwrap();
        assert!(!d.has_weights());
        assert_eq!(r.weighted_pages, 0);
    }

    #[test]
    fn bad_weights_are_located() {
        let stop = LogOptions {
            on_error: OnError::Stop,
            ..LogOptions::default()
        };
        for (weight, reason) in [
            (
                "-1",
                "weight `-1` is negative (weights are finite and >= 0)",
            ),
            (
                "NaN",
                "weight `NaN` is not a number (weights are finite and >= 0)",
            ),
            (
                "inf",
                "weight `inf` is not finite (weights are finite and >= 0)",
            ),
            ("heavy", "weight `heavy` is not a number"),
        ] {
            let log = format!("http://x.io/\t0\ta\n# c\nhttp://x.io/\t5\tab\t\t{weight}\n");
            let e = run(&log, &stop).unwrap_err();
            assert_eq!(e.to_string(), format!("t.log:3:20: {reason}"));
            // skipped by default: the line's fetch is dropped with its weight
            let (_, d, r) = run(&log, &LogOptions::default()).unwrap();
            assert_eq!((r.skipped, r.fetches), (1, 1));
            assert!(!d.has_weights());
        }
        let e = run("http://x.io/\t0\ta\t200\t1\t2\n", &stop).unwrap_err();
        assert!(e.to_string().starts_with("t.log:1:1: 6 fields"), "{e}");
    }

    #[test]
    fn time_forms() {
        assert_eq!(parse_time("1700000000"), Ok(1_700_000_000));
        assert_eq!(parse_time("1700000000.75"), Ok(1_700_000_000));
        assert_eq!(parse_time("-1.5"), Ok(-2));
        assert_eq!(parse_time("1970-01-02T00:00:00Z"), Ok(86_400));
        assert_eq!(parse_time("1970-01-02T01:00:00+01:00"), Ok(86_400));
        assert!(parse_time("2024-13-01T00:00:00Z").is_err());
        assert!(parse_time("").is_err());
        assert!(parse_time("12abc").is_err());
        assert_eq!(parse_cycle("1w"), Ok(604_800));
        assert!(parse_cycle("d").is_err() && parse_cycle("3y").is_err());
        assert_eq!(
            parse_cycle("d"),
            Err(CycleLengthError::NoNumber("d".into()))
        );
        let huge = format!("{}s", u64::MAX);
        assert_eq!(
            parse_cycle(&huge),
            Err(CycleLengthError::TooLong(huge.clone()))
        );
        assert_eq!(
            parse_cycle("99999999999999999999w")
                .unwrap_err()
                .to_string(),
            "cycle length `99999999999999999999w`: expected a number and a unit, e.g. 1d or 6h"
        );
    }
}
