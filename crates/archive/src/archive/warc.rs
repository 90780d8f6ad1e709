//! WARC files (`.warc`, `.warc.gz`; WARC 1.0 and 1.1), record by record, streaming
//! (`records.rs`).
//!
//! - A **response** record is a capture of its `WARC-Target-URI` at its `WARC-Date`, with
//!   the status of its HTTP response and the digest of its payload: `WARC-Payload-Digest`,
//!   or, when the record has none, the SHA-1 computed here of the bytes after the HTTP
//!   header block (as WARC writers compute it, so the two agree). A response whose
//!   `Content-Type` is not `application/http` (another protocol) has no status and its
//!   whole block as payload; an `application/http` block without a status line and header
//!   block is malformed.
//! - A **resource** record (no HTTP: a file, a `wget` download) is a capture of its block,
//!   by `WARC-Payload-Digest`, `WARC-Block-Digest` or the SHA-1 of the block.
//! - A **revisit** record is a capture of the content its `WARC-Payload-Digest` names, with
//!   its HTTP status: unchanged when that is the page's previous content, as it nearly
//!   always is (a revisit repeats an earlier capture's payload), a change when it repeats an
//!   older one. A revisit without a digest, or of the `server-not-modified` profile, is
//!   unchanged.
//! - Request, metadata, warcinfo, conversion and continuation records, and DNS lookups
//!   (`dns:` URIs), are not captures (counted as ignored).
//!
//! The page is the target URI as written; records come in any order (memory holds every
//! capture, 24 bytes each). Errors name the file and the byte offset of the record in the
//! decompressed stream.
//!
//! ```
//! use freshgp_archive::archive::{warc, ArchiveOptions, Input};
//!
//! let record = |date: &str, body: &str| format!(
//!     "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{date}>\r\n\
//!      WARC-Date: {date}\r\nWARC-Target-URI: http://example.com/\r\n\
//!      Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n{}\r\n\r\n",
//!     body.len(), body);
//! let file = record("2024-01-01T10:00:00Z", "HTTP/1.1 200 OK\r\n\r\none")
//!     + &record("2024-01-02T10:00:00Z", "HTTP/1.1 200 OK\r\n\r\ntwo");
//! let input = Input::from_reader("a.warc", std::io::Cursor::new(file)).unwrap();
//! let (d, report) = warc::read(vec![input], &ArchiveOptions::default()).unwrap();
//! assert_eq!((d.bits_string(0), report.captures), ("01".to_string(), 2));
//! ```

use super::digest;
use super::gather::{Gather, Reading};
use super::input::Input;
use super::records::{Header, Records};
use super::rules::{classify, ArchiveOptions, ArchiveReport, Unit};
use crate::data::captures::{Capture, PageOrder};
use crate::data::{DataError, Dataset};
use sha1::{Digest, Sha1};
use std::io::Read;

/// The most bytes of an HTTP header block read for its status.
const MAX_HTTP_HEAD: usize = 1 << 16;

/// What one record holds for the history.
struct Found {
    url: String,
    time: i64,
    status: Option<i32>,
    revisit: bool,
    digest: Option<u64>,
}

/// Reads WARC files into a history (records in any order).
pub fn read(
    inputs: Vec<Input>,
    options: &ArchiveOptions,
) -> Result<(Dataset, ArchiveReport), DataError> {
    let Reading {
        mut gather,
        mut report,
        name,
    } = Reading::start(&inputs, options, Unit::Record, false, PageOrder::Appearance)?;
    for input in inputs {
        read_file(input, options, &mut gather, &mut report)?;
    }
    Reading {
        gather,
        report,
        name,
    }
    .finish()
}

/// Reads one file's records into `gather`. A record that cannot be read past (its length
/// lies, the file is cut short) ends the file: under `--on-error skip` it is counted and
/// the records before it are kept.
fn read_file(
    input: Input,
    options: &ArchiveOptions,
    gather: &mut Gather,
    report: &mut ArchiveReport,
) -> Result<(), DataError> {
    let file = input.name.clone();
    let mut records = Records::new(input.reader);
    let at = |offset: u64, reason: String| DataError::Record {
        file: file.clone(),
        offset,
        reason,
    };
    loop {
        let header = match records.next_header() {
            Ok(Some(header)) => header,
            Ok(None) => return Ok(()),
            Err(e) => return report.malformed(options.on_error, at(e.offset, e.reason)),
        };
        report.read += 1;
        let found = match found(&header, &mut records) {
            Ok(Some(found)) => found,
            Ok(None) => {
                report.ignored += 1;
                continue;
            }
            Err(reason) => {
                // A block cut short by a wrong length reads as a malformed message: say
                // what is wrong first.
                if let Err(e) = records.finish_record() {
                    return report.malformed(options.on_error, at(e.offset, e.reason));
                }
                report.malformed(options.on_error, at(header.offset, reason))?;
                continue;
            }
        };
        // The block must end where its length says before its capture counts.
        if let Err(e) = records.finish_record() {
            return report.malformed(options.on_error, at(e.offset, e.reason));
        }
        let kind = classify(found.status, found.revisit, found.digest, options);
        let capture = Capture {
            time: found.time,
            kind,
        };
        match gather.push(&found.url, Some(&found.url), capture, None) {
            Ok(()) => report.count(found.status, kind),
            Err(refused) => {
                report.malformed(options.on_error, at(header.offset, refused.to_string()))?
            }
        }
    }
}

/// What a record holds for the history (`None`: not a capture), reading as much of its
/// block from `block` as it needs; an error is why the record is malformed.
fn found(header: &Header, block: &mut impl Read) -> Result<Option<Found>, String> {
    let (revisit, http) = match header.field("warc-type") {
        Some("response") => (false, true),
        Some("revisit") => (true, true),
        Some("resource") => (false, false),
        Some(_) => return Ok(None),
        None => return Err("the record has no WARC-Type".into()),
    };
    let url = header
        .field("warc-target-uri")
        .ok_or("a capture without WARC-Target-URI")?
        .trim_start_matches('<')
        .trim_end_matches('>')
        .to_string();
    if url.starts_with("dns:") {
        return Ok(None);
    }
    if let Some(at) = url.find(|c: char| c.is_control() || c.is_whitespace()) {
        return Err(format!(
            "WARC-Target-URI `{}` holds a space or control character at {}",
            url.escape_debug(),
            at + 1
        ));
    }
    let date = header
        .field("warc-date")
        .ok_or("a capture without WARC-Date")?;
    let time = time::OffsetDateTime::parse(date, &time::format_description::well_known::Rfc3339)
        .map_err(|e| format!("WARC-Date `{date}` is not a date and time ({e})"))?
        .unix_timestamp();
    let given = header.field("warc-payload-digest").or_else(|| {
        if http {
            None
        } else {
            header.field("warc-block-digest")
        }
    });
    let given = match given {
        Some(d) => Some(digest::parse_digest(d).map_err(|e| format!("WARC-Payload-Digest: {e}"))?),
        None => None,
    };
    // A revisit whose server said "not modified" repeats no payload: its digest (when it
    // has one) names nothing to compare.
    let not_modified = revisit
        && header
            .field("warc-profile")
            .is_some_and(|p| p.contains("server-not-modified"));
    let given = if not_modified { Some(None) } else { given };
    let unreadable = |e: std::io::Error| format!("cannot read the record's block: {e}");
    let http = http
        && header
            .field("content-type")
            .is_none_or(|t| t.trim_start().starts_with("application/http"));
    let (status, payload) = if http {
        let (status, payload) = http_head(block).map_err(unreadable)?;
        if status.is_none() && !revisit {
            return Err("its HTTP message has no status line and header block".into());
        }
        (status, payload)
    } else {
        (None, Vec::new())
    };
    let digest = match given {
        Some(d) => d,
        None if revisit => None,
        None => {
            let mut sha = Sha1::new();
            sha.update(&payload);
            let mut buf = [0u8; 1 << 16];
            loop {
                let n = block.read(&mut buf).map_err(unreadable)?;
                if n == 0 {
                    break;
                }
                sha.update(&buf[..n]);
            }
            Some(digest::sha1_bits(&sha.finalize().into()))
        }
    };
    Ok(Some(Found {
        url,
        time,
        status,
        revisit,
        digest,
    }))
}

/// Reads an HTTP message's header block from `body` (ended by an empty line, its line
/// ends `\r\n` or a bare `\n`): its status (`None` when the block has no status line or no
/// end) and the payload bytes read past it.
fn http_head<R: Read>(body: &mut R) -> std::io::Result<(Option<i32>, Vec<u8>)> {
    let mut head = Vec::with_capacity(1024);
    let mut buf = [0u8; 4096];
    let end = loop {
        let crlf = memchr::memmem::find(&head, b"\r\n\r\n").map(|at| at + 4);
        let lf = memchr::memmem::find(&head, b"\n\n").map(|at| at + 2);
        if let Some(end) = crlf.into_iter().chain(lf).min() {
            break Some(end);
        }
        if head.len() > MAX_HTTP_HEAD {
            break None;
        }
        let n = body.read(&mut buf)?;
        if n == 0 {
            break None;
        }
        head.extend_from_slice(&buf[..n]);
    };
    let Some(end) = end else {
        return Ok((None, head));
    };
    let status_line = head[..end].split(|&b| b == b'\n').next().unwrap_or(&[]);
    let status = std::str::from_utf8(status_line)
        .ok()
        .filter(|l| l.starts_with("HTTP/"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse::<i32>().ok());
    Ok((status, head.split_off(end)))
}
