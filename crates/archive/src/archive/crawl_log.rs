//! Heritrix's `crawl.log`: one line per URI the crawler tried, fields separated by spaces:
//!
//! ```text
//! 2024-01-01T10:00:01.123Z   200       4546 http://example.com/ L http://example.com/s text/html #012 20240101100000456+415 sha1:7YC3ZXG4JEUACJ4BUXY2FJ34XNJZRYIG - content-size:4774
//! ```
//!
//! The reader uses the 2nd field (the fetch status: an HTTP status, or Heritrix's own
//! codes, negative for failures), the 4th (the URI: the page), the 9th (the fetch's start,
//! `YYYYMMDDhhmmssSSS+duration`; the 1st, the time the line was logged, when it is `-`)
//! and the 10th (the content digest). A digest the crawler found equal to an earlier one
//! (`duplicate:` or `warcRevisit:` annotations) is still compared as written, which is
//! exact. DNS lookups (`dns:` URIs) are not captures. Lines may come in any order (memory
//! holds every capture); errors name the file, line and column.
//!
//! ```
//! use freshgp_archive::archive::{crawl_log, ArchiveOptions, Input};
//!
//! let log = "\
//! 2024-01-01T10:00:01.123Z 200 10 http://a.org/ - - text/html #1 20240101100000456+4 sha1:7YC3ZXG4JEUACJ4BUXY2FJ34XNJZRYIG - -\n\
//! 2024-01-02T10:00:01.123Z 1 52 dns:a.org P http://a.org/ text/dns #1 20240102100000456+4 sha1:VV4C5TNMO4H4N242MLSE7EEHH64X7MTL - -\n\
//! 2024-01-02T10:00:01.123Z 200 10 http://a.org/ - - text/html #1 20240102100000456+4 sha1:VV4C5TNMO4H4N242MLSE7EEHH64X7MTL - -\n";
//! let input = Input::from_reader("crawl.log", std::io::Cursor::new(log)).unwrap();
//! let (d, report) = crawl_log::read(vec![input], &ArchiveOptions::default()).unwrap();
//! assert_eq!((d.bits_string(0), report.captures, report.ignored), ("01".to_string(), 2, 1));
//! ```

use super::cdx::parse_timestamp;
use super::digest;
use super::gather::Reading;
use super::input::{column_of, Input, Lines};
use super::rules::{classify, ArchiveOptions, ArchiveReport, Unit};
use crate::data::captures::{Capture, PageOrder};
use crate::data::{DataError, Dataset};

/// Reads Heritrix crawl logs into a history (lines in any order).
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
        while let Some(line) = lines.next() {
            let line = match line {
                Ok(line) => line,
                // Nothing after a read error can be read: the file ends here.
                Err(e) => {
                    report.malformed(options.on_error, e)?;
                    break;
                }
            };
            report.read += 1;
            let parsed = line.text().and_then(|text| parse_line(text, options));
            let (url, status, capture) = match parsed {
                Ok(Some(found)) => found,
                Ok(None) => {
                    report.ignored += 1;
                    continue;
                }
                Err((column, reason)) => {
                    report.malformed(options.on_error, line.error(column, reason))?;
                    continue;
                }
            };
            match gather.push(&url, Some(&url), capture, None) {
                Ok(()) => report.count(status, capture.kind),
                Err(refused) => {
                    report.malformed(options.on_error, line.error(1, refused.to_string()))?
                }
            }
        }
    }
    Reading {
        gather,
        report,
        name,
    }
    .finish()
}

/// One line: `None` for a blank or `#` line or a DNS lookup, else the page, its status and
/// its capture; an error is `(column, reason)`.
#[allow(clippy::type_complexity)]
fn parse_line(
    text: &str,
    options: &ArchiveOptions,
) -> Result<Option<(String, Option<i32>, Capture)>, (usize, String)> {
    if text.trim().is_empty() || text.starts_with('#') {
        return Ok(None);
    }
    let fields: Vec<&str> = text.split_whitespace().collect();
    let column = |part: &str| column_of(text, part.as_ptr() as usize - text.as_ptr() as usize);
    if fields.len() < 10 {
        return Err((1, format!("{} fields: a crawl.log line has at least 10 (time, status, size, URI, path, referrer, type, thread, fetch time, digest)", fields.len())));
    }
    let url = fields[3];
    if url.starts_with("dns:") || url.starts_with("whois:") {
        return Ok(None);
    }
    let status: i32 = fields[1].parse().map_err(|_| {
        (
            column(fields[1]),
            format!("fetch status `{}` is not a number", fields[1]),
        )
    })?;
    let time = match fields[8] {
        "-" => {
            let logged = fields[0];
            time::OffsetDateTime::parse(logged, &time::format_description::well_known::Rfc3339)
                .map(|t| t.unix_timestamp())
                .map_err(|e| {
                    (
                        column(logged),
                        format!("log time `{logged}` is not RFC 3339 ({e})"),
                    )
                })?
        }
        fetch => {
            let begin = fetch.split_once('+').map_or(fetch, |(begin, _)| begin);
            parse_timestamp(begin).map_err(|e| (column(fetch), format!("fetch time: {e}")))?
        }
    };
    let digest = digest::parse_digest(fields[9]).map_err(|e| (column(fields[9]), e.to_string()))?;
    let status = Some(status);
    let kind = classify(status, false, digest, options);
    Ok(Some((url.to_string(), status, Capture { time, kind })))
}
