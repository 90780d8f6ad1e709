//! Captures gathered into pages: streamed a page at a time from input sorted by key, or
//! collected in any order.

use super::input::Input;
use super::rules::{host_of, ArchiveOptions, ArchiveReport, HostRule, Unit};
use crate::data::captures::{Capture, Collector, PageOrder, Rows};
use crate::data::{DataError, Dataset};

/// Why a capture was not taken (the reader places it in its file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refused {
    /// The key or URL names no host.
    Host(String),
    /// A key before the previous one in input read as sorted.
    Unsorted {
        /// The key.
        key: String,
        /// The key before it.
        previous: String,
    },
    /// A time before the previous capture's of the same key, in input read as sorted.
    Time {
        /// The key.
        key: String,
        /// The capture's time and the previous one's, Unix seconds.
        time: i64,
        previous: i64,
    },
    /// More pages than a history holds.
    TooMany,
    /// A page's captures span more cycles than a history holds, or more captures than a
    /// history takes.
    Span(String),
}

impl Refused {
    /// Whether the input cannot be read on past it: a key out of order in input read as
    /// sorted (every later line would be refused after it).
    pub(crate) fn is_fatal(&self) -> bool {
        matches!(self, Refused::Unsorted { .. })
    }
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let stamp = |t: i64| {
            time::OffsetDateTime::from_unix_timestamp(t).map_or(t.to_string(), |t| t.to_string())
        };
        match self {
            Refused::Host(why) => write!(f, "{why}"),
            Refused::Unsorted { key, previous } => write!(
                f,
                "key `{key}` comes after `{previous}`: the input is not sorted by key (read it with --unsorted, or sort it with LC_ALL=C sort)"
            ),
            Refused::Time {
                key,
                time,
                previous,
            } => write!(
                f,
                "a capture of `{key}` at {} comes after one at {}: the input is not sorted by time within a key (read it with --unsorted)",
                stamp(*time),
                stamp(*previous)
            ),
            Refused::TooMany => write!(f, "more than 2^32 - 1 pages"),
            Refused::Span(why) => write!(f, "{why}"),
        }
    }
}

/// Captures into pages.
pub(crate) enum Gather {
    /// Input sorted by key, then time: a page at a time.
    Sorted(Box<Stream>),
    /// Input in any order: the captures, the host rule, the pages' order and the input's
    /// name.
    Unsorted(Box<Collector>, HostRule, PageOrder, String),
}

/// The page being read from sorted input, and the pages before it.
pub(crate) struct Stream {
    rows: Rows,
    hosts: HostRule,
    key: String,
    host: String,
    weight: Option<f64>,
    captures: Vec<Capture>,
}

/// A read of `inputs` under way: where its captures gather, its report, and the name its
/// errors give the whole input (the first file's).
pub(crate) struct Reading {
    pub gather: Gather,
    pub report: ArchiveReport,
    pub name: String,
}

impl Reading {
    /// Starts reading `inputs` (counted in `unit`s), sorted or not, unsorted input keeping
    /// its pages in `order`.
    pub(crate) fn start(
        inputs: &[Input],
        options: &ArchiveOptions,
        unit: Unit,
        sorted: bool,
        order: PageOrder,
    ) -> Result<Reading, DataError> {
        let name = inputs
            .first()
            .map_or("<no input>".to_string(), |i| i.name.clone());
        let gather = Gather::new(options.cycle, sorted, options.hosts, order, &name)?;
        let report = ArchiveReport {
            unit,
            files: inputs.len(),
            ..ArchiveReport::default()
        };
        Ok(Reading {
            gather,
            report,
            name,
        })
    }

    /// The history and the report; an error that says why when nothing was captured.
    pub(crate) fn finish(self) -> Result<(Dataset, ArchiveReport), DataError> {
        let Reading {
            gather,
            mut report,
            name,
        } = self;
        if gather.is_empty() {
            return Err(report.nothing(&name));
        }
        let (d, start) = gather.finish()?;
        report.first_cycle_start = start;
        Ok((d, report))
    }
}

impl Gather {
    /// Gathers into cycles of `cycle` seconds, from input sorted or not.
    /// Unsorted input keeps its pages in `order`.
    pub(crate) fn new(
        cycle: u64,
        sorted: bool,
        hosts: HostRule,
        order: PageOrder,
        origin: &str,
    ) -> Result<Gather, DataError> {
        let rows = Rows::new(cycle, origin)?;
        Ok(if sorted {
            Gather::Sorted(Box::new(Stream {
                rows,
                hosts,
                key: String::new(),
                host: String::new(),
                weight: None,
                captures: Vec::new(),
            }))
        } else {
            Gather::Unsorted(
                Box::new(Collector::new(cycle)?),
                hosts,
                order,
                origin.to_string(),
            )
        })
    }

    /// Takes a capture of the page `key` (whose URL, if known, names its host), with the
    /// page's weight if this capture gives one.
    pub(crate) fn push(
        &mut self,
        key: &str,
        url: Option<&str>,
        capture: Capture,
        weight: Option<f64>,
    ) -> Result<(), Refused> {
        match self {
            Gather::Unsorted(collector, hosts, ..) => collector.push(
                key,
                capture,
                weight,
                || host_of(url, key, *hosts).map_err(Refused::Host),
                Refused::Span,
            ),
            Gather::Sorted(stream) => stream.push(key, url, capture, weight),
        }
    }

    /// Captures taken.
    pub(crate) fn is_empty(&self) -> bool {
        match self {
            Gather::Unsorted(collector, ..) => collector.captures() == 0,
            Gather::Sorted(stream) => stream.rows.pages() == 0 && stream.captures.is_empty(),
        }
    }

    /// The history and the start of its first cycle.
    pub(crate) fn finish(self) -> Result<(Dataset, i64), DataError> {
        let rows = match self {
            Gather::Unsorted(collector, _, order, origin) => collector.into_rows(&origin, order)?,
            Gather::Sorted(mut stream) => {
                stream.flush();
                stream.rows
            }
        };
        rows.finish()
    }
}

impl Stream {
    fn push(
        &mut self,
        key: &str,
        url: Option<&str>,
        capture: Capture,
        weight: Option<f64>,
    ) -> Result<(), Refused> {
        if self.captures.is_empty() || key != self.key {
            if !self.captures.is_empty() && key < self.key.as_str() {
                return Err(Refused::Unsorted {
                    key: key.to_string(),
                    previous: self.key.clone(),
                });
            }
            if self.rows.pages() >= u32::MAX as usize - 1 {
                return Err(Refused::TooMany);
            }
            let host = host_of(url, key, self.hosts).map_err(Refused::Host)?;
            // The page before is whole: into the rows (its span was checked as it grew).
            self.flush();
            self.key.clear();
            self.key.push_str(key);
            self.host = host;
            self.weight = None;
        } else if let Some(last) = self.captures.last() {
            if capture.time < last.time {
                return Err(Refused::Time {
                    key: key.to_string(),
                    time: capture.time,
                    previous: last.time,
                });
            }
            self.rows
                .check_span(key, self.captures[0].time, capture.time)
                .map_err(Refused::Span)?;
        }
        if weight.is_some() {
            self.weight = weight;
        }
        self.captures.push(capture);
        Ok(())
    }

    /// The page read so far into the rows.
    fn flush(&mut self) {
        if !self.captures.is_empty() {
            // Invariant: each capture's span from the page's first was checked as it came.
            let pushed = self
                .rows
                .push_page(&self.key, &self.host, self.weight, &self.captures);
            debug_assert!(
                pushed.is_ok(),
                "a page's span is checked capture by capture"
            );
            self.captures.clear();
        }
    }
}
