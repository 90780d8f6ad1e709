//! WARC files (`.warc`, `.warc.gz`; WARC 1.0 and 1.1), record by record, with the `warc`
//! crate's streaming reader.
//!
//! - A **response** record is a capture of its `WARC-Target-URI` at its `WARC-Date`, with
//!   the status of its HTTP response and the digest of its payload: `WARC-Payload-Digest`,
//!   or, when the record has none, the SHA-1 computed here of the bytes after the HTTP
//!   header block (as WARC writers compute it, so the two agree).
//! - A **resource** record (no HTTP: a file, a `wget` download) is a capture of its block,
//!   by `WARC-Payload-Digest`, `WARC-Block-Digest` or the SHA-1 of the block.
//! - A **revisit** record is unchanged (a 304, or content identical to an earlier capture).
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
use super::gather::Gather;
use super::input::Input;
use super::rules::{classify, ArchiveOptions, ArchiveReport};
use crate::data::captures::Capture;
use crate::data::{DataError, Dataset};
use sha1::{Digest, Sha1};
use std::cell::Cell;
use std::io::{BufRead, Read};
use std::rc::Rc;
use warc::{RecordType, WarcHeader, WarcReader};

/// The most bytes of an HTTP header block read for its status.
const MAX_HTTP_HEAD: usize = 1 << 16;

/// A reader that counts the bytes consumed from it into a cell the caller also holds.
struct Counting<R> {
    inner: R,
    offset: Rc<Cell<u64>>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(out)?;
        self.offset.set(self.offset.get() + n as u64);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counting<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, n: usize) {
        self.offset.set(self.offset.get() + n as u64);
        self.inner.consume(n);
    }
}

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
    let name = inputs
        .first()
        .map_or("<no input>".to_string(), |i| i.name.clone());
    let mut report = ArchiveReport {
        unit: super::rules::Unit::Record,
        files: inputs.len(),
        ..ArchiveReport::default()
    };
    let mut gather = Gather::new(options.cycle, false, options.hosts)?;
    for input in inputs {
        read_file(input, options, &mut gather, &mut report)?;
    }
    if gather.is_empty() {
        return Err(report.nothing(&name));
    }
    let (d, start) = gather.finish(options.cycle, &name)?;
    report.first_cycle_start = start;
    Ok((d, report))
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
    let offset = Rc::new(Cell::new(0u64));
    let file = input.name.clone();
    let gzip = input.gzip;
    let mut warc = WarcReader::new(Counting {
        inner: input.reader,
        offset: Rc::clone(&offset),
    });
    let mut records = warc.stream_records();
    let at = |offset: u64, reason: String| DataError::Record {
        file: file.clone(),
        offset,
        reason,
    };
    // The previous record's start and length, and where its trailer ends.
    let mut previous: Option<(u64, u64)> = None;
    loop {
        let before = offset.get();
        let start = if previous.is_some() {
            before + 4
        } else {
            before
        };
        let next = records.next_item();
        let mut record = match next {
            None => {
                let after = offset.get();
                if after > start {
                    let e = at(
                        start,
                        "the file ends inside a record's header (a truncated file?)".into(),
                    );
                    report.malformed(options.on_error, e)?;
                }
                return Ok(());
            }
            Some(Err(e)) => {
                let e = match (&e, previous) {
                    (warc::Error::UnexpectedEOB | warc::Error::ParseHeaders(_), Some((p, len))) => at(
                        p,
                        format!("the record does not end where its Content-Length ({len} bytes) says: its length is wrong, or the file is cut short"),
                    ),
                    (warc::Error::ReadData(io), _) if gzip => at(start, gzip_reason(io)),
                    _ => at(start, format!("not a WARC record: {}", warc_reason(&e))),
                };
                report.malformed(options.on_error, e)?;
                return Ok(());
            }
            Some(Ok(record)) => record,
        };
        report.read += 1;
        let length = record.content_length();
        previous = Some((start, length));
        let found = found(&mut record);
        // Whatever was not read of the body, read now: a short body is this record's error.
        let drained = std::io::copy(&mut record, &mut std::io::sink());
        let found = match (found, drained) {
            (Err(e), _) | (_, Err(e)) => {
                let reason = if gzip && e.kind() != std::io::ErrorKind::Other {
                    gzip_reason(&e)
                } else {
                    format!("cannot read the record's body: {e}")
                };
                report.malformed(options.on_error, at(start, reason))?;
                return Ok(());
            }
            (Ok(None), _) => {
                report.ignored += 1;
                continue;
            }
            (Ok(Some(found)), Ok(_)) => found,
        };
        let kind = classify(found.status, found.revisit, found.digest, options);
        let capture = Capture {
            time: found.time,
            kind,
        };
        match gather.push(&found.url, Some(&found.url), capture, None) {
            Ok(()) => report.count(found.status, kind),
            Err(refused) => report.malformed(options.on_error, at(start, refused.to_string()))?,
        }
    }
}

fn gzip_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::UnexpectedEof => {
            "the gzip stream ends inside a member (a truncated file?)".into()
        }
        _ => format!("corrupt gzip data ({e})"),
    }
}

fn warc_reason(e: &warc::Error) -> String {
    match e {
        warc::Error::ParseHeaders(_) => "its header block does not parse".into(),
        warc::Error::MissingHeader(h) => format!("it has no {h} header"),
        warc::Error::MalformedHeader(h, why) => format!("its {h} header is malformed ({why})"),
        other => other.to_string(),
    }
}

/// What a record holds for the history (`None`: not a capture), reading as much of its
/// body as it needs; an I/O error or a malformed capture is an `Err` of `Other` kind with
/// the reason.
fn found<R: Read>(
    record: &mut warc::Record<warc::StreamingBody<'_, R>>,
) -> std::io::Result<Option<Found>> {
    let (revisit, http) = match record.warc_type() {
        RecordType::Response => (false, true),
        RecordType::Revisit => (true, true),
        RecordType::Resource => (false, false),
        _ => return Ok(None),
    };
    let refuse = |reason: String| std::io::Error::other(reason);
    let url = record
        .header(WarcHeader::TargetURI)
        .ok_or_else(|| refuse("a capture without WARC-Target-URI".into()))?
        .trim()
        .trim_start_matches('<')
        .trim_end_matches('>')
        .to_string();
    if url.starts_with("dns:") {
        return Ok(None);
    }
    if let Some(at) = url.find(|c: char| c.is_control() || c.is_whitespace()) {
        return Err(refuse(format!(
            "URI `{}` holds a space or control character at {}",
            url.escape_debug(),
            at + 1
        )));
    }
    let time = record.date().timestamp();
    let given = record
        .header(WarcHeader::PayloadDigest)
        .or_else(|| {
            if http {
                None
            } else {
                record.header(WarcHeader::BlockDigest)
            }
        })
        .map(|d| d.trim().to_string());
    let given = match given {
        Some(d) => Some(
            digest::parse_digest(&d).map_err(|e| refuse(format!("WARC-Payload-Digest: {e}")))?,
        ),
        None => None,
    };
    let (status, payload) = if http {
        http_head(record)?
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
                let n = record.read(&mut buf)?;
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

/// Reads an HTTP message's header block from `body`: its status (`None` when the block is
/// no HTTP response) and the payload bytes read past it.
fn http_head<R: Read>(body: &mut R) -> std::io::Result<(Option<i32>, Vec<u8>)> {
    let mut head = Vec::with_capacity(1024);
    let mut buf = [0u8; 4096];
    let end = loop {
        if let Some(at) = memchr::memmem::find(&head, b"\r\n\r\n") {
            break Some(at + 4);
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
