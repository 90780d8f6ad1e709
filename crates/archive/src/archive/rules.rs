//! The rules every reader shares: what a response is as a capture ([`StatusRule`],
//! [`classify`]), how hosts are named ([`HostRule`]), how to read ([`ArchiveOptions`]) and
//! what a read found ([`ArchiveReport`]).

use super::layout::CdxFields;
use crate::data::captures::CaptureKind;
use crate::data::log::OnError;
use crate::data::stats::count;
use crate::data::DataError;
use std::fmt;

/// What a redirect or an error response is, in the history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StatusRule {
    /// A failed download: it says nothing of the page's content (its cycle is `?` unless
    /// another capture in it succeeded).
    #[default]
    Unknown,
    /// A capture of the response's content by its digest: a page that starts redirecting
    /// or goes missing has changed, and stays unchanged while the response does not.
    Content,
}

impl StatusRule {
    /// The rules, by the names the command and Python take.
    pub const NAMES: [(&'static str, StatusRule); 2] = [
        ("unknown", StatusRule::Unknown),
        ("content", StatusRule::Content),
    ];
}

impl std::str::FromStr for StatusRule {
    type Err = String;

    fn from_str(text: &str) -> Result<StatusRule, String> {
        by_name(&StatusRule::NAMES, text)
    }
}

impl std::str::FromStr for HostRule {
    type Err = String;

    fn from_str(text: &str) -> Result<HostRule, String> {
        by_name(&HostRule::NAMES, text)
    }
}

/// The value `text` names in `names`, or an error listing the names.
pub(crate) fn by_name<T: Copy>(names: &[(&str, T)], text: &str) -> Result<T, String> {
    names
        .iter()
        .find(|(name, _)| *name == text)
        .map(|&(_, v)| v)
        .ok_or_else(|| {
            let known: Vec<&str> = names.iter().map(|(n, _)| *n).collect();
            format!("`{text}`: expected one of {}", known.join(", "))
        })
}

/// How a page's host is named: the pages of one host share a host cap and the `HR`
/// terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HostRule {
    /// The URL's host name by the WHATWG URL parser, lower-cased (`www.example.co.uk`).
    #[default]
    Name,
    /// The registrable domain, by the Public Suffix List (`example.co.uk`); a host with no
    /// registrable domain (an IP address, a bare suffix) keeps its name.
    Domain,
}

impl HostRule {
    /// The rules, by the names the command and Python take.
    pub const NAMES: [(&'static str, HostRule); 2] =
        [("name", HostRule::Name), ("domain", HostRule::Domain)];
}

/// How to read an archive's files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchiveOptions {
    /// Cycle length in seconds (default one day).
    pub cycle: u64,
    /// Malformed lines or records: skip (and count) or stop.
    pub on_error: OnError,
    /// What a redirect (3xx) is.
    pub redirects: StatusRule,
    /// What an error response (4xx, 5xx, a crawler's own failure codes) is.
    pub errors: StatusRule,
    /// How hosts are named.
    pub hosts: HostRule,
    /// Whether CDX input is read as sorted by key and time, streaming in memory bounded by
    /// the history (true, the default; out-of-order lines are errors), or in any order,
    /// holding every capture (false).
    pub sorted: bool,
    /// The fields of classic CDX lines without a header (`None`: by their count).
    pub fields: Option<CdxFields>,
}

impl Default for ArchiveOptions {
    fn default() -> Self {
        ArchiveOptions {
            cycle: 86_400,
            on_error: OnError::Skip,
            redirects: StatusRule::Unknown,
            errors: StatusRule::Unknown,
            hosts: HostRule::Name,
            sorted: true,
            fields: None,
        }
    }
}

/// What a reader reads one at a time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// Lines (CDX, crawl logs).
    #[default]
    Line,
    /// Records (WARC).
    Record,
}

/// What reading an archive found (as JSON: the same fields, `unit` as `"line"` or
/// `"record"`, `errors` as their messages).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct ArchiveReport {
    /// What [`ArchiveReport::read`] counts.
    pub unit: Unit,
    /// Files read.
    pub files: usize,
    /// Lines (CDX, logs) or records (WARC) read, all of them.
    pub read: usize,
    /// Captures taken into the history.
    pub captures: usize,
    /// Of those, unchanged by a 304 or a revisit.
    pub not_modified: usize,
    /// Of those, failed downloads (redirects and errors under [`StatusRule::Unknown`]
    /// included).
    pub failed: usize,
    /// Of the captures, redirects (3xx).
    pub redirects: usize,
    /// Of the captures, error responses.
    pub error_responses: usize,
    /// Lines or records that are not captures (headers, requests, metadata, DNS lookups).
    pub ignored: usize,
    /// Malformed lines or records skipped.
    pub skipped: usize,
    /// The first malformed lines' or records' errors (at most 20).
    #[serde(serialize_with = "messages")]
    pub errors: Vec<DataError>,
    /// Start of cycle 1, Unix seconds.
    pub first_cycle_start: i64,
}

/// Errors as their messages.
fn messages<S: serde::Serializer>(errors: &[DataError], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(errors.iter().map(ToString::to_string))
}

impl fmt::Display for ArchiveReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unit = match self.unit {
            Unit::Line => "line",
            Unit::Record => "record",
        };
        write!(
            f,
            "{} read from {}: {} ({} not modified, {} failed; {}, {}), {} ignored, {} skipped",
            count(self.read, unit),
            count(self.files, "file"),
            count(self.captures, "capture"),
            self.not_modified,
            self.failed,
            count(self.redirects, "redirect"),
            count(self.error_responses, "error response"),
            self.ignored,
            count(self.skipped, &format!("malformed {unit}"))
        )
    }
}

impl ArchiveReport {
    /// A malformed line or record: skipped and counted, or the read's error, as `on_error`
    /// says.
    pub(crate) fn malformed(&mut self, on_error: OnError, e: DataError) -> Result<(), DataError> {
        if on_error == OnError::Stop {
            return Err(e);
        }
        self.skipped += 1;
        if self.errors.len() < 20 {
            self.errors.push(e);
        }
        Ok(())
    }

    /// The error when nothing was captured: why, with the first malformed lines.
    pub(crate) fn nothing(&self, file: &str) -> DataError {
        if self.errors.is_empty() {
            return DataError::Empty {
                file: file.to_string(),
            };
        }
        let shown: Vec<String> = self.errors.iter().take(3).map(|e| e.to_string()).collect();
        DataError::Invalid {
            what: file.to_string(),
            reason: format!(
                "no capture: {} malformed, the first {}: {}",
                self.skipped,
                shown.len(),
                shown.join("; ")
            ),
        }
    }
}

/// A response's status as a capture: `status` (None: no HTTP status, as for a resource
/// record), whether it is a revisit, and its digest. A revisit with a digest is a capture
/// of the content that digest names (the payload it repeats: unchanged when that is the
/// page's previous content, as it nearly always is) under its status like any response;
/// a revisit without one, and a 304, are unchanged.
pub(crate) fn classify(
    status: Option<i32>,
    revisit: bool,
    digest: Option<u64>,
    options: &ArchiveOptions,
) -> CaptureKind {
    let content = |rule: StatusRule| match (rule, digest) {
        (StatusRule::Content, Some(d)) => CaptureKind::Content(d),
        _ => CaptureKind::Failed,
    };
    match status {
        _ if revisit && digest.is_none() => CaptureKind::NotModified,
        Some(304) => CaptureKind::NotModified,
        None | Some(200..=299) => content(StatusRule::Content),
        Some(300..=399) => content(options.redirects),
        Some(_) => content(options.errors),
    }
}

impl ArchiveReport {
    /// Counts a capture taken: its status and what it was taken as.
    pub(crate) fn count(&mut self, status: Option<i32>, kind: CaptureKind) {
        self.captures += 1;
        match kind {
            CaptureKind::NotModified => self.not_modified += 1,
            CaptureKind::Failed => self.failed += 1,
            CaptureKind::Content(_) => {}
        }
        if kind != CaptureKind::NotModified {
            match status {
                None | Some(200..=299) => {}
                Some(300..=399) => self.redirects += 1,
                Some(_) => self.error_responses += 1,
            }
        }
    }
}

/// A page's host from its URL (or, when there is none or it has no host, its SURT key
/// `com,example)/...`), named by `rule`.
pub(crate) fn host_of(url: Option<&str>, key: &str, rule: HostRule) -> Result<String, String> {
    let from_url = url.and_then(|u| {
        url::Url::parse(u)
            .ok()
            .and_then(|u| u.host_str().map(str::to_ascii_lowercase))
    });
    let name = match from_url {
        Some(h) => h,
        None => surt_host(key).ok_or_else(|| match url {
            Some(u) => format!("URL `{u}` has no host"),
            None => format!("key `{key}` names no host"),
        })?,
    };
    let address = name.starts_with('[') || name.parse::<std::net::IpAddr>().is_ok();
    Ok(match rule {
        HostRule::Domain if !address => psl::domain_str(&name).map_or(name.clone(), str::to_string),
        _ => name,
    })
}

/// The host a SURT key names: `com,example,www)/a` is `www.example.com` (a port and
/// user part dropped).
fn surt_host(key: &str) -> Option<String> {
    let key = key.split_once("://").map_or(key, |(_, rest)| rest);
    let key = key.strip_prefix('(').unwrap_or(key);
    let (host, _) = key.split_once(')')?;
    let host = host.split_once(':').map_or(host, |(h, _)| h);
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    if host.is_empty() || host.contains(['/', ' ']) {
        return None;
    }
    let parts: Vec<&str> = host.split(',').filter(|p| !p.is_empty()).collect();
    if parts.is_empty() {
        return None;
    }
    let reversed: Vec<&str> = parts.into_iter().rev().collect();
    Some(reversed.join(".").to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_from_urls_and_keys() {
        let name = HostRule::Name;
        assert_eq!(
            host_of(Some("http://WWW.Example.co.uk:8080/a"), "x", name),
            Ok("www.example.co.uk".into())
        );
        assert_eq!(
            host_of(None, "uk,co,example,www)/a", name),
            Ok("www.example.co.uk".into())
        );
        assert_eq!(
            host_of(None, "com,example:8080)/", name),
            Ok("example.com".into())
        );
        assert_eq!(
            host_of(Some("dns:example.com"), "com,example)/", name),
            Ok("example.com".into())
        );
        assert!(host_of(None, "no-host", name)
            .unwrap_err()
            .contains("`no-host`"));
        let domain = HostRule::Domain;
        assert_eq!(
            host_of(Some("http://a.b.example.co.uk/"), "x", domain),
            Ok("example.co.uk".into())
        );
        assert_eq!(
            host_of(Some("http://127.0.0.1/"), "x", domain),
            Ok("127.0.0.1".into())
        );
        assert_eq!(
            host_of(Some("http://[::1]:80/"), "x", domain),
            Ok("[::1]".into())
        );
    }

    #[test]
    fn statuses_as_captures() {
        let options = ArchiveOptions::default();
        let mut r = ArchiveReport::default();
        let classify =
            |status, revisit, digest, options: &ArchiveOptions, r: &mut ArchiveReport| {
                let kind = classify(status, revisit, digest, options);
                r.count(status, kind);
                kind
            };
        let d = Some(7);
        assert_eq!(
            classify(Some(200), false, d, &options, &mut r),
            CaptureKind::Content(7)
        );
        assert_eq!(
            classify(None, false, d, &options, &mut r),
            CaptureKind::Content(7)
        );
        assert_eq!(
            classify(Some(200), false, None, &options, &mut r),
            CaptureKind::Failed
        );
        assert_eq!(
            classify(Some(200), true, None, &options, &mut r),
            CaptureKind::NotModified
        );
        // a revisit of a content: that content; of a 404: an error response
        assert_eq!(
            classify(Some(200), true, d, &options, &mut r),
            CaptureKind::Content(7)
        );
        assert_eq!(
            classify(Some(404), true, d, &options, &mut r),
            CaptureKind::Failed
        );
        assert_eq!(
            classify(Some(304), false, None, &options, &mut r),
            CaptureKind::NotModified
        );
        assert_eq!(
            classify(Some(301), false, d, &options, &mut r),
            CaptureKind::Failed
        );
        assert_eq!(
            classify(Some(-6), false, d, &options, &mut r),
            CaptureKind::Failed
        );
        let content = ArchiveOptions {
            redirects: StatusRule::Content,
            errors: StatusRule::Content,
            ..options
        };
        assert_eq!(
            classify(Some(302), false, d, &content, &mut r),
            CaptureKind::Content(7)
        );
        assert_eq!(
            classify(Some(404), false, d, &content, &mut r),
            CaptureKind::Content(7)
        );
        assert_eq!(
            classify(Some(404), false, None, &content, &mut r),
            CaptureKind::Failed
        );
        assert_eq!(
            (
                r.captures,
                r.not_modified,
                r.failed,
                r.redirects,
                r.error_responses
            ),
            (12, 2, 5, 2, 4)
        );
    }
}
