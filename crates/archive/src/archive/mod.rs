//! Histories from the files crawlers and web archives already keep
//! (docs/src/guide/archives.md).
//!
//! Each reader turns its input into **captures** (a page, a time, and what the download
//! found) and hands them to the rule every crawl-file reader shares
//! ([`crate::data::captures`]): cycles of [`ArchiveOptions::cycle`] aligned to the Unix
//! epoch, a change when a page's content differs from its previous successful capture, `?`
//! where a page has none.
//!
//! - [`cdx`]: CDX indexes (the classic space-separated lines, with a ` CDX` header naming
//!   the fields or in the Wayback CDX server's field order) and CDXJ (`key timestamp
//!   {json}`, pywb's and Common Crawl's); one page per URL key (SURT). Sorted input
//!   streams, each file merged with the others by key.
//! - [`warc`]: WARC files, record by record: response, resource and revisit records.
//! - [`crawl_log`]: Heritrix's `crawl.log`.
//! - [`nutch`]: Nutch's CrawlDb dumps (`readdb -dump`), one a moment.
//! - [`digest`]: content digests in base32 or hex, as archives write them.
//! - [`sql`]: the same history built by DuckDB or Spark from a table of captures (Common
//!   Crawl's columnar index).
//!
//! What a capture is, the same in every reader:
//! - a 2xx response (or a record without HTTP, e.g. a WARC resource) with a digest: its
//!   content;
//! - a 304, or a revisit record (a WARC revisit, a CDX line of type `warc/revisit`): the
//!   content of the page's previous capture (**unchanged**);
//! - a redirect (3xx) or an error (4xx, 5xx, a crawler's negative codes): as
//!   [`ArchiveOptions::redirects`] and [`ArchiveOptions::errors`] say ([`StatusRule`]: a
//!   failed download by default, so a cycle with only those is `?`);
//! - a success without a digest: a failed download (it says nothing of the content).
//!
//! **Invariant:** every reader's captures go through the one rule of
//! [`crate::data::captures`]; no reader decides a cycle's bit itself.

pub mod cdx;
pub mod crawl_log;
pub mod digest;
mod gather;
mod input;
mod layout;
pub mod nutch;
mod records;
mod rules;
pub mod sql;
pub mod warc;

pub use crate::data::log::OnError;
pub use input::Input;
pub use rules::{ArchiveOptions, ArchiveReport, HostRule, StatusRule, Unit};

use crate::data::DataError;

/// The kinds of files the readers take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// CDX or CDXJ indexes ([`cdx`]).
    Cdx,
    /// WARC files ([`warc`]).
    Warc,
    /// Heritrix crawl logs ([`crawl_log`]).
    CrawlLog,
    /// Nutch CrawlDb dumps ([`nutch`]).
    Nutch,
}

impl Format {
    /// The formats, by the names Python takes (the command's `from-<name>`).
    pub const NAMES: [(&'static str, Format); 4] = [
        ("cdx", Format::Cdx),
        ("warc", Format::Warc),
        ("crawl-log", Format::CrawlLog),
        ("nutch", Format::Nutch),
    ];
}

impl std::str::FromStr for Format {
    type Err = String;

    fn from_str(text: &str) -> Result<Format, String> {
        rules::by_name(&Format::NAMES, text)
    }
}

/// Reads files of one format (`-`: standard input) into a history, each gzip'd or not.
///
/// ```no_run
/// use freshgp_archive::archive::{read_files, ArchiveOptions, Format};
///
/// let (d, report) = read_files(Format::Cdx, &["index.cdx.gz".into()], &ArchiveOptions::default())?;
/// println!("{} pages; {report}", d.pages());
/// # Ok::<(), freshgp_data::data::DataError>(())
/// ```
pub fn read_files(
    format: Format,
    paths: &[std::path::PathBuf],
    options: &ArchiveOptions,
) -> Result<(crate::data::Dataset, ArchiveReport), DataError> {
    if paths.is_empty() {
        return Err(DataError::Invalid {
            what: "input".into(),
            reason: "no file given".into(),
        });
    }
    let inputs = paths
        .iter()
        .map(|p| Input::open(p))
        .collect::<Result<Vec<_>, _>>()?;
    match format {
        Format::Cdx => cdx::read(inputs, options),
        Format::Warc => warc::read(inputs, options),
        Format::CrawlLog => crawl_log::read(inputs, options),
        Format::Nutch => nutch::read(inputs, options),
    }
}
