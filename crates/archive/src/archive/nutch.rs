//! Nutch's CrawlDb dumps (`bin/nutch readdb crawl/crawldb -dump DIR`, the default
//! format): one record a URL, its first line `URL<TAB>Version: N`, then one field a line:
//!
//! ```text
//! http://example.com/<TAB>Version: 7
//! Status: 2 (db_fetched)
//! Fetch time: Sat Jan 06 10:00:00 UTC 2024
//! Modified time: Sat Jan 06 10:00:00 UTC 2024
//! Retries since fetch: 0
//! Retry interval: 259200 seconds (3 days)
//! Score: 0.25
//! Signature: 0d3ad0dad7ddcea1a0d4e3fbab3a0d2b
//! Metadata:
//!  <TAB>_pst_=success(1), lastModified=0
//! ```
//!
//! A dump is the CrawlDb at one moment, one record a URL; a history is read from the dumps
//! of many moments (one after each crawl cycle, say), given together in the order they
//! were taken. A record whose status says the page was fetched is a capture at the time of
//! that fetch: the CrawlDb keeps the *next* fetch's time, which Nutch's default fetch
//! schedule sets to the fetch's time plus the retry interval, so the capture's time is
//! `Fetch time − Retry interval` (the adaptive schedule's sync delta sets the next fetch
//! earlier, so its captures are dated up to that delta early). The same fetch in several
//! dumps is one capture seen again, which changes nothing but the weight: the last dump
//! given sets it. By status: `db_fetched` and `db_duplicate` are content
//! (the `Signature`, an MD5 in hex), `db_notmodified` is unchanged, `db_gone` an error
//! response and `db_redir_temp`/`db_redir_perm` redirects (both by their rules);
//! `db_unfetched` and `db_orphan` are no capture. The `Score` is the page's weight (the
//! latest capture's). Times are Java's `Date` text, which dumps write in the JVM's time
//! zone: `UTC` or `GMT` (run `readdb` with `TZ=UTC`), or `GMT+hh:mm`.
//!
//! ```
//! use freshgp_archive::archive::{nutch, ArchiveOptions, Input};
//!
//! let record = |fetch: &str, signature: &str| format!(
//!     "http://a.org/\tVersion: 7\nStatus: 2 (db_fetched)\nFetch time: {fetch}\n\
//!      Retry interval: 86400 seconds (1 days)\nScore: 2.5\nSignature: {signature}\nMetadata: \n\n");
//! let day1 = record("Tue Jan 02 10:00:00 UTC 2024", "0d3ad0dad7ddcea1a0d4e3fbab3a0d2b");
//! let day2 = record("Wed Jan 03 10:00:00 UTC 2024", "9b74c9897bac770ffc029102a200c5de");
//! let input = |text: String| Input::from_reader("dump", std::io::Cursor::new(text)).unwrap();
//! let (d, _) = nutch::read(vec![input(day1), input(day2)], &ArchiveOptions::default()).unwrap();
//! assert_eq!((d.bits_string(0), d.weight(0)), ("01".to_string(), 2.5));
//! ```

use super::digest;
use super::gather::{Gather, Reading};
use super::input::{Input, Lines};
use super::rules::{classify, ArchiveOptions, ArchiveReport, Unit};
use crate::data::captures::{Capture, PageOrder};
use crate::data::weights::parse_weight;
use crate::data::{DataError, Dataset};

/// The longest retry interval read, in seconds (a hundred years: Nutch's are days to
/// months).
const MAX_INTERVAL: f64 = 100.0 * 365.25 * 86_400.0;

/// One record as read: its URL, its first line, and the fields the reader uses with the
/// lines they are on.
#[derive(Default)]
struct Record {
    url: String,
    line: usize,
    status: Option<(usize, String)>,
    fetch_time: Option<(usize, String)>,
    interval: Option<(usize, String)>,
    score: Option<(usize, String)>,
    signature: Option<(usize, String)>,
}

/// Reads CrawlDb dumps into a history (records in any order, from any number of dumps).
pub fn read(
    inputs: Vec<Input>,
    options: &ArchiveOptions,
) -> Result<(Dataset, ArchiveReport), DataError> {
    let Reading {
        mut gather,
        mut report,
        name,
    } = Reading::start(&inputs, options, Unit::Line, false, PageOrder::Appearance)?;
    for input in inputs {
        let mut lines = Lines::new(input);
        let mut record: Option<Record> = None;
        loop {
            let line = match lines.next() {
                None => break,
                Some(Ok(line)) => line,
                Some(Err(e)) => {
                    report.malformed(options.on_error, e)?;
                    break;
                }
            };
            report.read += 1;
            let text = match line.text() {
                Ok(text) => text,
                Err((column, reason)) => {
                    report.malformed(options.on_error, line.error(column, reason))?;
                    continue;
                }
            };
            if let Some((url, _)) = text.split_once("\tVersion:") {
                if let Some(done) = record.take() {
                    take(done, line.file, options, &mut gather, &mut report)?;
                }
                record = Some(Record {
                    url: url.to_string(),
                    line: line.number,
                    ..Record::default()
                });
                continue;
            }
            let Some(r) = record.as_mut() else {
                if !text.trim().is_empty() {
                    let e = line.error(
                        1,
                        "a field before any record's `URL<TAB>Version:` line".into(),
                    );
                    report.malformed(options.on_error, e)?;
                }
                continue;
            };
            let Some((field, value)) = text
                .split_once(": ")
                .filter(|_| !text.starts_with([' ', '\t']))
            else {
                continue;
            };
            let slot = match field {
                "Status" => &mut r.status,
                "Fetch time" => &mut r.fetch_time,
                "Retry interval" => &mut r.interval,
                "Score" => &mut r.score,
                "Signature" => &mut r.signature,
                _ => continue,
            };
            *slot = Some((line.number, value.trim().to_string()));
        }
        if let Some(done) = record.take() {
            take(done, &lines.input.name, options, &mut gather, &mut report)?;
        }
    }
    Reading {
        gather,
        report,
        name,
    }
    .finish()
}

/// A record into `gather`, or into the report as ignored or malformed.
fn take(
    record: Record,
    file: &str,
    options: &ArchiveOptions,
    gather: &mut Gather,
    report: &mut ArchiveReport,
) -> Result<(), DataError> {
    let error = |line: usize, reason: String| DataError::Malformed {
        file: file.to_string(),
        line,
        column: 1,
        reason,
    };
    let found = match parse(&record) {
        Ok(found) => found,
        Err((line, reason)) => return report.malformed(options.on_error, error(line, reason)),
    };
    let Some((status, time, digest, weight)) = found else {
        report.ignored += 1;
        return Ok(());
    };
    let kind = classify(Some(status), false, digest, options);
    let capture = Capture { time, kind };
    match gather.push(&record.url, Some(&record.url), capture, weight) {
        Ok(()) => {
            report.count(Some(status), kind);
            Ok(())
        }
        Err(refused) => report.malformed(options.on_error, error(record.line, refused.to_string())),
    }
}

/// A record's capture: its HTTP-like status, time, digest and weight (`None`: the record
/// is no capture); an error is the line and the reason.
#[allow(clippy::type_complexity)]
fn parse(record: &Record) -> Result<Option<(i32, i64, Option<u64>, Option<f64>)>, (usize, String)> {
    if let Some(at) = record
        .url
        .find(|c: char| c.is_control() || c.is_whitespace())
    {
        return Err((
            record.line,
            format!(
                "URL `{}` holds a space or control character at {}",
                record.url.escape_debug(),
                at + 1
            ),
        ));
    }
    let (line, status) = record
        .status
        .as_ref()
        .ok_or((record.line, "a record without a Status".to_string()))?;
    let name = status
        .split_once('(')
        .map_or("", |(_, n)| n.trim_end_matches(')'));
    let status = match name {
        "db_fetched" | "db_duplicate" => 200,
        "db_notmodified" => 304,
        "db_redir_temp" => 302,
        "db_redir_perm" => 301,
        "db_gone" => 404,
        "db_unfetched" | "db_orphan" => return Ok(None),
        _ => {
            return Err((
                *line,
                format!("status `{status}`: not a CrawlDb status (db_fetched, db_gone, ...)"),
            ))
        }
    };
    let field = |f: &Option<(usize, String)>, what: &str| {
        f.clone()
            .ok_or((record.line, format!("a fetched record without {what}")))
    };
    let (line, fetch) = field(&record.fetch_time, "a Fetch time")?;
    let next = java_date(&fetch).map_err(|e| (line, format!("Fetch time `{fetch}`: {e}")))?;
    let (line, interval) = field(&record.interval, "a Retry interval")?;
    let seconds: i64 = interval
        .split_whitespace()
        .next()
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|s| (0.0..=MAX_INTERVAL).contains(s))
        .map(|s| s as i64)
        .ok_or((
            line,
            format!("Retry interval `{interval}`: expected `N seconds`, at most a century"),
        ))?;
    let digest = match &record.signature {
        Some((_, s)) if s == "null" => None,
        Some((line, s)) => {
            digest::parse_digest(s).map_err(|e| (*line, format!("Signature: {e}")))?
        }
        None => None,
    };
    let weight = match &record.score {
        Some((line, s)) => Some(parse_weight(s).map_err(|e| (*line, format!("Score: {e}")))?),
        None => None,
    };
    Ok(Some((status, next.saturating_sub(seconds), digest, weight)))
}

/// Java's `Date.toString()` text, `EEE MMM dd HH:mm:ss zzz yyyy`, as Unix seconds; the zone
/// `UTC`, `GMT`, or `GMT±hh:mm`.
fn java_date(text: &str) -> Result<i64, String> {
    let parts: Vec<&str> = text.split_whitespace().collect();
    let [_, month, day, clock, zone, year] = parts[..] else {
        return Err("expected Java's date text, e.g. `Sat Jan 06 10:00:00 UTC 2024`".into());
    };
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS
        .iter()
        .position(|m| *m == month)
        .ok_or(format!("no month `{month}`"))?;
    let number = |s: &str| {
        s.parse::<u32>()
            .map_err(|_| format!("`{s}` is not a number"))
    };
    let clock: Vec<&str> = clock.split(':').collect();
    let [h, m, s] = clock[..] else {
        return Err("expected a time of day hh:mm:ss".into());
    };
    let date = time::Date::from_calendar_date(
        year.parse::<i32>()
            .map_err(|_| format!("`{year}` is not a year"))?,
        time::Month::try_from(month as u8 + 1).map_err(|e| e.to_string())?,
        u8::try_from(number(day)?).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    let t = time::Time::from_hms(
        u8::try_from(number(h)?).map_err(|e| e.to_string())?,
        u8::try_from(number(m)?).map_err(|e| e.to_string())?,
        u8::try_from(number(s)?).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    let offset = match zone {
        "UTC" | "GMT" | "Z" => 0,
        _ => {
            let rest = zone.strip_prefix("GMT").ok_or(format!(
                "time zone `{zone}`: only UTC, GMT or GMT±hh:mm are read (run readdb with TZ=UTC)"
            ))?;
            let sign = match rest.chars().next() {
                Some('+') => 1,
                Some('-') => -1,
                _ => return Err(format!("time zone `{zone}`: expected GMT±hh:mm")),
            };
            let (zh, zm) = rest[1..]
                .split_once(':')
                .ok_or(format!("time zone `{zone}`: expected GMT±hh:mm"))?;
            sign * (i64::from(number(zh)?) * 3600 + i64::from(number(zm)?) * 60)
        }
    };
    Ok(time::PrimitiveDateTime::new(date, t)
        .assume_utc()
        .unix_timestamp()
        - offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interval_past_a_century_or_a_time_past_the_epochs_is_malformed_not_a_panic() {
        let record = |fetch: &str, interval: &str| Record {
            url: "http://a.org/".into(),
            line: 1,
            status: Some((2, "2 (db_fetched)".into())),
            fetch_time: Some((3, fetch.into())),
            interval: Some((4, interval.into())),
            ..Record::default()
        };
        let e = parse(&record(
            "Mon Jan 01 00:00:00 UTC 0001",
            "9223372036854775807 seconds",
        ));
        assert_eq!(e.unwrap_err().0, 4);
        let ok = parse(&record(
            "Mon Jan 01 00:00:00 UTC 2024",
            "86400 seconds (1 days)",
        ));
        assert_eq!(ok.unwrap().map(|c| c.1), Some(1_704_067_200 - 86_400));
        assert!(parse(&record("Mon Jan 01 00:00:00 UTC 2024", "-5 seconds")).is_err());
        assert!(parse(&record("Mon Jan 01 00:00:00 UTC 2024", "NaN seconds")).is_err());
    }

    #[test]
    fn java_dates() {
        assert_eq!(java_date("Mon Jan 01 00:00:00 UTC 2024"), Ok(1_704_067_200));
        assert_eq!(
            java_date("Mon Jan 01 01:30:00 GMT+01:30 2024"),
            Ok(1_704_067_200)
        );
        assert_eq!(
            java_date("Sun Dec 31 23:00:00 GMT-01:00 2023"),
            Ok(1_704_067_200)
        );
        assert!(java_date("Mon Jan 01 00:00:00 CET 2024")
            .unwrap_err()
            .contains("TZ=UTC"));
        assert!(java_date("Mon Jam 01 00:00:00 UTC 2024")
            .unwrap_err()
            .contains("no month"));
        assert!(java_date("Mon Feb 30 00:00:00 UTC 2024").is_err());
        assert!(java_date("yesterday").is_err());
    }
}
