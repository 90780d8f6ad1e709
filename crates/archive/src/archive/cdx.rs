//! CDX and CDXJ indexes: one line per capture, one page per URL key (SURT).
//!
//! Three forms, told apart per file by its first line that is not blank, a `#` comment or a
//! `!meta` line:
//! - **classic CDX with a header**, ` CDX N b a m s k r M S V g` (pywb, Heritrix, the
//!   Internet Archive): the letters name the fields. The reader uses `N` (the URL key),
//!   `b` (the 14-digit timestamp), `a` (the original URL, for the host), `m` (the MIME
//!   type: `warc/revisit` is a revisit), `s` (the status) and `k` (the digest; `c` when
//!   there is no `k`).
//! - **classic CDX without a header**: the fields given ([`CdxFields`], the command's
//!   `--fields`, [`ArchiveOptions::fields`]), else by their count: 7 is the Wayback CDX server's
//!   `urlkey timestamp original mimetype statuscode digest length`, 9 is `N b a m s k r V g`
//!   and 11 is `N b a m s k r M S V g`.
//! - **CDXJ**, `key timestamp {json}` (pywb, Common Crawl's index): the JSON's `url`,
//!   `mime`, `status` (text or number) and `digest`.
//!
//! Timestamps are UTC `YYYYMMDDhhmmss`, with up to three more digits (milliseconds,
//! dropped). A `-` is a missing field. DNS lookups (`text/dns`) and WARC request, metadata
//! and warcinfo lines are not captures (counted as ignored). A revisit line is a capture of
//! the content its digest names (unchanged, but for a revisit of an older content), and
//! unchanged when it has none.
//!
//! **Sorted input** (the default, [`ArchiveOptions::sorted`]): each file sorted by key
//! then timestamp, as `LC_ALL=C sort` and every indexer sort them; many files are merged
//! by key as they are read, so memory holds the history and one page's captures, not the
//! captures. A key before the previous one, or a capture before the previous one of its
//! key, is a malformed line. **Unsorted input** holds every capture.
//!
//! ```
//! use freshgp_archive::archive::{cdx, ArchiveOptions, Input};
//!
//! let text = " CDX N b a m s k\n\
//!     com,example)/ 20240101100000 http://example.com/ text/html 200 7YC3ZXG4JEUACJ4BUXY2FJ34XNJZRYIG\n\
//!     com,example)/ 20240103100000 http://example.com/ text/html 200 VV4C5TNMO4H4N242MLSE7EEHH64X7MTL\n";
//! let input = Input::from_reader("index.cdx", std::io::Cursor::new(text)).unwrap();
//! let (d, report) = cdx::read(vec![input], &ArchiveOptions::default()).unwrap();
//! assert_eq!((d.bits_string(0), d.id(0)), ("0?1".to_string(), Some("com,example)/")));
//! assert_eq!((d.host_names(), report.captures), (&["example.com".to_string()][..], 2));
//! ```

use super::digest;
use super::gather::{Gather, Reading};
use super::input::{column_of, Input, Lines};
pub use super::layout::CdxFields;
use super::layout::MAX_FIELDS;
use super::rules::{classify, ArchiveOptions, ArchiveReport, Unit};
use crate::data::captures::{Capture, PageOrder};
use crate::data::{DataError, Dataset};
use std::borrow::Cow;

/// A file's form, known from its first line.
enum Form {
    Classic(CdxFields),
    Json,
}

/// One CDX line as read: its key and URL in buffers reused from line to line.
#[derive(Default)]
struct Head {
    key: String,
    url: Option<String>,
    time: i64,
    status: Option<i32>,
    revisit: bool,
    digest: Option<u64>,
}

/// One file being read.
struct Source {
    lines: Lines,
    form: Option<Form>,
    /// The line read and not yet taken, if any.
    head: Option<Head>,
    spare: Head,
}

/// The JSON of a CDXJ line: the fields the reader uses.
#[derive(serde::Deserialize)]
struct Json<'a> {
    #[serde(borrow, default)]
    url: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    mime: Option<Cow<'a, str>>,
    #[serde(default, deserialize_with = "status_value")]
    status: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    digest: Option<Cow<'a, str>>,
}

/// A CDXJ status, written as text (`"200"`) or as a number.
fn status_value<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Cow<'de, str>>, D::Error> {
    struct Visitor;
    impl<'de> serde::de::Visitor<'de> for Visitor {
        type Value = Option<Cow<'de, str>>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a status as text or a number")
        }
        fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
            Ok(Some(Cow::Borrowed(v)))
        }
        fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
            Ok(Some(Cow::Owned(v.to_string())))
        }
        fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
            Ok(Some(Cow::Owned(v.to_string())))
        }
        fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
            Ok(Some(Cow::Owned(v.to_string())))
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
    }
    d.deserialize_any(Visitor)
}

/// What a line is, if not a capture.
enum Read {
    Capture,
    Ignored,
}

impl Source {
    /// Reads lines until the next capture (into `head`), counting the lines and ignored or
    /// skipped ones in `report`; `head` is `None` at the end of the file.
    fn advance(
        &mut self,
        fields: Option<&CdxFields>,
        options: &ArchiveOptions,
        report: &mut ArchiveReport,
    ) -> Result<(), DataError> {
        self.head = None;
        loop {
            let line = match self.lines.next() {
                None => return Ok(()),
                Some(Ok(line)) => line,
                // Nothing after a read error can be read: the file ends here.
                Some(Err(e)) => return report.malformed(options.on_error, e),
            };
            report.read += 1;
            let mut head = std::mem::take(&mut self.spare);
            let parsed = line
                .text()
                .and_then(|text| parse_line(text, &mut self.form, fields, &mut head));
            match parsed {
                Ok(Some(Read::Capture)) => {
                    self.head = Some(head);
                    return Ok(());
                }
                Ok(Some(Read::Ignored)) => report.ignored += 1,
                Ok(None) => {}
                Err((column, reason)) => {
                    report.malformed(options.on_error, line.error(column, reason))?
                }
            }
            self.spare = head;
        }
    }
}

/// Parses one line into `head`: `None` for a blank, comment or header line (which sets
/// the file's form), else a capture or a line to ignore; an error is `(column, reason)`.
fn parse_line(
    text: &str,
    form: &mut Option<Form>,
    fields: Option<&CdxFields>,
    head: &mut Head,
) -> Result<Option<Read>, (usize, String)> {
    if text.trim().is_empty() || text.starts_with('#') || text.starts_with("!meta") {
        return Ok(None);
    }
    if form.is_none() {
        let trimmed = text.trim_start();
        if let Some(letters) = trimmed.strip_prefix("CDX ") {
            *form = Some(Form::Classic(letters.parse().map_err(|e| (1, e))?));
            return Ok(None);
        }
        let mut parts = text.splitn(3, ' ');
        let third = parts.nth(2).unwrap_or("");
        *form = Some(if third.starts_with('{') {
            Form::Json
        } else if let Some(f) = fields {
            Form::Classic(f.clone())
        } else {
            let count = text.split(' ').filter(|f| !f.is_empty()).count();
            Form::Classic(CdxFields::by_count(count).ok_or_else(|| {
                (1, format!("{count} fields and no ` CDX` header line naming them: name them with --fields (e.g. `N b a m s k`)"))
            })?)
        });
    }
    match form {
        Some(Form::Json) => parse_json(text, head),
        Some(Form::Classic(f)) => parse_classic(text, f, head),
        None => unreachable!("the form is set above"),
    }
}

/// The 1-based column of `part`, a slice of `line`.
fn column(line: &str, part: &str) -> usize {
    column_of(line, part.as_ptr() as usize - line.as_ptr() as usize)
}

fn parse_classic(
    text: &str,
    f: &CdxFields,
    head: &mut Head,
) -> Result<Option<Read>, (usize, String)> {
    let mut parts: [&str; MAX_FIELDS] = [""; MAX_FIELDS];
    let mut count = 0;
    for part in text.split(' ').filter(|p| !p.is_empty()) {
        if count < parts.len() {
            parts[count] = part;
        }
        count += 1;
    }
    if count < f.needed {
        return Err((
            1,
            format!(
                "{count} fields: the CDX lines here have at least {}",
                f.needed
            ),
        ));
    }
    let get = |i: Option<usize>| i.map(|i| parts[i]).filter(|v| *v != "-");
    let mime = get(f.mime);
    if mime.is_some_and(not_a_capture) {
        return Ok(Some(Read::Ignored));
    }
    let key = parts[f.key];
    let time = parts[f.time];
    fill(
        text,
        head,
        key,
        time,
        get(f.url),
        mime,
        get(f.status),
        get(f.digest),
    )?;
    Ok(Some(Read::Capture))
}

fn parse_json(text: &str, head: &mut Head) -> Result<Option<Read>, (usize, String)> {
    let mut parts = text.splitn(3, ' ');
    let (key, time) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let json_text = parts.next().unwrap_or("");
    let json: Json = serde_json::from_str(json_text).map_err(|e| {
        (
            column_of(
                text,
                text.len() - json_text.len() + e.column().saturating_sub(1),
            ),
            format!("bad CDXJ JSON: {e}"),
        )
    })?;
    let mime = json.mime.as_deref().filter(|m| *m != "-");
    if mime.is_some_and(not_a_capture) {
        return Ok(Some(Read::Ignored));
    }
    let status = json.status.as_deref().filter(|s| *s != "-");
    let url = json.url.as_deref();
    fill(
        text,
        head,
        key,
        time,
        url,
        mime,
        status,
        json.digest.as_deref(),
    )?;
    Ok(Some(Read::Capture))
}

/// MIME types of lines that are no capture of a page.
fn not_a_capture(mime: &str) -> bool {
    matches!(
        mime,
        "text/dns" | "warc/request" | "warc/metadata" | "warc/warcinfo" | "warc-info"
    )
}

/// Fills `head` from a line's fields (each a slice of `line`, for the error's column).
#[allow(clippy::too_many_arguments)]
fn fill(
    line: &str,
    head: &mut Head,
    key: &str,
    time: &str,
    url: Option<&str>,
    mime: Option<&str>,
    status: Option<&str>,
    digest_text: Option<&str>,
) -> Result<(), (usize, String)> {
    if key.is_empty() || key == "-" {
        return Err((1, "no URL key".into()));
    }
    if let Some(at) = key.find(|c: char| c.is_control()) {
        let offset = key.as_ptr() as usize - line.as_ptr() as usize + at;
        return Err((
            column_of(line, offset),
            format!("key `{}` holds a control character", key.escape_debug()),
        ));
    }
    // A field's column; a value JSON gave as a number is found by its text.
    let at = |part: &str| {
        if line.as_bytes().as_ptr_range().contains(&part.as_ptr()) {
            column(line, part)
        } else {
            line.find(part).map_or(1, |b| column_of(line, b))
        }
    };
    head.time = parse_timestamp(time).map_err(|e| (at(time), e))?;
    head.status = match status {
        None => None,
        Some(s) => Some(
            s.parse::<i32>()
                .ok()
                .filter(|v| (-9999..=999).contains(v))
                .ok_or_else(|| (at(s), format!("status `{s}` is not an HTTP status")))?,
        ),
    };
    head.revisit = mime == Some("warc/revisit");
    head.digest = match digest_text {
        None => None,
        Some(d) => digest::parse_digest(d).map_err(|e| (at(d), e.to_string()))?,
    };
    head.key.clear();
    head.key.push_str(key);
    match (url, &mut head.url) {
        (Some(u), Some(buf)) => {
            buf.clear();
            buf.push_str(u);
        }
        (Some(u), slot) => *slot = Some(u.to_string()),
        (None, slot) => *slot = None,
    }
    Ok(())
}

/// A CDX timestamp (`YYYYMMDDhhmmss`, up to three more digits dropped) as Unix seconds.
pub fn parse_timestamp(text: &str) -> Result<i64, String> {
    let b = text.as_bytes();
    if !(14..=17).contains(&b.len()) || !b.iter().all(u8::is_ascii_digit) {
        return Err(format!(
            "timestamp `{text}`: expected 14 digits, YYYYMMDDhhmmss"
        ));
    }
    let n = |r: std::ops::Range<usize>| b[r].iter().fold(0u32, |v, d| v * 10 + u32::from(d - b'0'));
    let bad = |what: &str| format!("timestamp `{text}`: {what}");
    let month = time::Month::try_from(n(4..6) as u8).map_err(|_| bad("no such month"))?;
    let date = time::Date::from_calendar_date(n(0..4) as i32, month, n(6..8) as u8)
        .map_err(|_| bad("no such day"))?;
    let t = time::Time::from_hms(n(8..10) as u8, n(10..12) as u8, n(12..14) as u8)
        .map_err(|_| bad("no such time of day"))?;
    Ok(time::PrimitiveDateTime::new(date, t)
        .assume_utc()
        .unix_timestamp())
}

/// Where a file's next capture goes in sorted order: by key, then time.
fn order(source: &Source) -> Option<(&str, i64)> {
    source.head.as_ref().map(|h| (h.key.as_str(), h.time))
}

/// Whether file `a`'s next capture comes before file `b`'s (the first given on a tie).
fn before(sources: &[Source], a: usize, b: usize) -> bool {
    (order(&sources[a]), a) < (order(&sources[b]), b)
}

/// Restores the heap's order below `at`, whose file's next capture may have moved on.
fn sift_down(heap: &mut [usize], mut at: usize, sources: &[Source]) {
    loop {
        let (left, right) = (2 * at + 1, 2 * at + 2);
        let mut least = at;
        if left < heap.len() && before(sources, heap[left], heap[least]) {
            least = left;
        }
        if right < heap.len() && before(sources, heap[right], heap[least]) {
            least = right;
        }
        if least == at {
            return;
        }
        heap.swap(at, least);
        at = least;
    }
}

/// Reads CDX or CDXJ files (each told apart by its first line) into a history; classic
/// lines without a header take [`ArchiveOptions::fields`] when given. Sorted input is merged by key across
/// the files (see the module docs).
pub fn read(
    inputs: Vec<Input>,
    options: &ArchiveOptions,
) -> Result<(Dataset, ArchiveReport), DataError> {
    let fields = options.fields.as_ref();
    let Reading {
        mut gather,
        mut report,
        name,
    } = Reading::start(&inputs, options, Unit::Line, options.sorted, PageOrder::Id)?;
    let mut sources: Vec<Source> = inputs
        .into_iter()
        .map(|input| Source {
            lines: Lines::new(input),
            form: None,
            head: None,
            spare: Head::default(),
        })
        .collect();
    let take = |source: &mut Source,
                gather: &mut Gather,
                report: &mut ArchiveReport|
     -> Result<(), DataError> {
        let Some(head) = source.head.take() else {
            return Ok(());
        };
        let kind = classify(head.status, head.revisit, head.digest, options);
        let pushed = gather.push(
            &head.key,
            head.url.as_deref(),
            Capture {
                time: head.time,
                kind,
            },
            None,
        );
        if let Err(refused) = pushed {
            let e = DataError::Malformed {
                file: source.lines.input.name.clone(),
                line: source.lines.line,
                column: 1,
                reason: refused.to_string(),
            };
            if refused.is_fatal() {
                return Err(e);
            }
            report.malformed(options.on_error, e)?;
        } else {
            report.count(head.status, kind);
        }
        source.spare = head;
        source.advance(fields, options, report)
    };
    if options.sorted {
        for s in &mut sources {
            s.advance(fields, options, &mut report)?;
        }
        // The least head of all files, until every file is read: a binary heap of the
        // files that have a head, least (then first given) at its root.
        let mut heap: Vec<usize> = (0..sources.len())
            .filter(|&i| sources[i].head.is_some())
            .collect();
        for at in (0..heap.len() / 2).rev() {
            sift_down(&mut heap, at, &sources);
        }
        while let Some(&next) = heap.first() {
            take(&mut sources[next], &mut gather, &mut report)?;
            if sources[next].head.is_none() {
                heap.swap_remove(0);
            }
            sift_down(&mut heap, 0, &sources);
        }
    } else {
        for s in &mut sources {
            s.advance(fields, options, &mut report)?;
            while s.head.is_some() {
                take(s, &mut gather, &mut report)?;
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
