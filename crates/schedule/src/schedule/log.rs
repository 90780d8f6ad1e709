//! Observation logs: what a crawler downloaded, one download per line.
//!
//! Format, fields separated by TAB:
//! `page<TAB>cycle<TAB>0|1[<TAB>host[<TAB>weight[<TAB>key=value ...]]]` — the crawler's
//! page id, the cycle of the download (from 1), `1` if the content had changed since the
//! previous download and `0` if not, optionally the page's host, its weight (a finite
//! number >= 0, docs/src/reference/data.md#page-weights) and its categorical attributes
//! (docs/src/reference/data.md#attributes: `category=shoes`, one per field; `key=` clears
//! the page's value). The host and weight may be left empty when a later field follows
//! (they are then not given). Blank lines and lines starting with `#` are ignored; a
//! trailing `\r` is dropped.
//!
//! [`apply`] feeds a log to a [`Scheduler`]: unknown pages are added (with their host and
//! weight, if given; else without host and of weight 1), a host column sets the page's
//! host ([`Scheduler::set_host`]), a weight column its weight
//! ([`Scheduler::set_weight`]), an attribute its value ([`Scheduler::set_attribute`]), and every observation goes through
//! [`Scheduler::observe`], in cycle order (see [`apply_with`] for the rule on duplicate and
//! out-of-order lines, which are skipped and counted, never an error). A malformed line or
//! a cycle that jumps too far ([`LogOptions::max_jump`]) is an error naming the file, the
//! line and, for a bad field, which one, and then nothing is applied.
//!
//! ```
//! use freshgp_schedule::schedule::{log, Scheduler};
//! use freshgp_policy::policy::{Baseline, Policy};
//!
//! let mut s: Scheduler = Scheduler::new(Policy::from(Baseline::Age));
//! let text = "# page\tcycle\tchanged\thost\tweight\n\
//!             a.html\t1\t1\texample.org\nb.html\t1\t0\nc.html\t1\t0\t\t2.5\n";
//! let summary = log::apply(&mut s, text.as_bytes(), "crawl.log")?;
//! assert_eq!((summary.observations, summary.added), (3, 3));
//! assert_eq!(s.host("a.html"), Some("example.org"));
//! assert_eq!((s.host("c.html"), s.weight("c.html")), (None, Some(2.5)));
//! let err = log::apply(&mut s, "c.html\t2\tyes\n".as_bytes(), "crawl.log").unwrap_err();
//! assert_eq!(err.to_string(), "crawl.log:1: third field `yes` must be 0 or 1");
//! let err = log::apply(&mut s, "c.html\t2\t0\t\t-1\n".as_bytes(), "crawl.log").unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "crawl.log:1: fifth field `-1` must be a weight (a finite number >= 0)"
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::{ScheduleError, Scheduler};
use std::io::BufRead;

/// One line of a log.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Observation<'a> {
    /// The crawler's page id.
    pub(crate) page: &'a str,
    /// The cycle of the download.
    pub(crate) cycle: u32,
    /// Whether the content had changed.
    pub(crate) changed: bool,
    /// The page's host, if given.
    pub(crate) host: Option<&'a str>,
    /// The page's weight, if given.
    pub(crate) weight: Option<f64>,
    /// The page's attributes given (`None`: cleared).
    pub(crate) attributes: Vec<(&'a str, Option<&'a str>)>,
}

/// Why a log could not be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LogError {
    /// Reading failed.
    #[error("{file}: {reason}")]
    Io {
        /// The file.
        file: String,
        /// The system's reason.
        reason: String,
    },
    /// A line is malformed.
    #[error("{file}:{line}: {reason}")]
    Line {
        /// The file.
        file: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// An observation's cycle jumps too far beyond the state's latest cycle.
    #[error("{file}:{line}: cycle {cycle} is {} cycles after the cycle before it ({latest}: the state's latest or the log's), more than the limit of {limit}: a timestamp or a typo? Nothing was applied; pass --force-jump (or raise --max-jump) if it is meant", cycle - latest)]
    Jump {
        /// The file.
        file: String,
        /// 1-based line number.
        line: usize,
        /// The cycle given.
        cycle: u32,
        /// The cycle before it (the state's latest, or an earlier cycle of the log).
        latest: u32,
        /// The limit.
        limit: u32,
    },
    /// The scheduler refused a line's observation.
    #[error("{file}:{line}: {refusal}")]
    Refused {
        /// The file.
        file: String,
        /// 1-based line number.
        line: usize,
        /// The scheduler's reason (in the message, not repeated as a cause).
        refusal: ScheduleError,
    },
}

/// Parses one line: `Ok(None)` for a blank or comment line.
pub(crate) fn parse_line(line: &str) -> Result<Option<Observation<'_>>, String> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    if line.trim().is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    if line.contains('\r') {
        // Only a line's last CR is dropped; one inside would end up in an id, a host or a
        // value, and be refused only once earlier lines had been applied.
        return Err("a carriage return inside the line".into());
    }
    let fields: Vec<&str> = line.split('\t').collect();
    if fields.len() < 3 {
        return Err(format!(
            "{} TAB-separated fields, expected page, cycle, 0|1 and optionally host, weight \
             and key=value attributes",
            fields.len()
        ));
    }
    let page = fields[0];
    if page.is_empty() {
        return Err("empty page id".into());
    }
    let cycle: u32 = match fields[1].parse() {
        Ok(c) if c >= 1 => c,
        _ => {
            return Err(format!(
                "second field `{}` must be a cycle number (1 or more)",
                fields[1]
            ))
        }
    };
    let changed = match fields[2] {
        "0" => false,
        "1" => true,
        other => return Err(format!("third field `{other}` must be 0 or 1")),
    };
    let host = match (fields.get(3), fields.len()) {
        (None, _) => None,
        (Some(&""), 5..) => None,
        (Some(&""), _) => return Err("empty host".into()),
        (Some(&h), _) => Some(h),
    };
    let weight = match (fields.get(4), fields.len()) {
        (None, _) => None,
        (Some(&""), 6..) => None,
        (Some(w), _) => Some(w),
    };
    let weight = match weight {
        None => None,
        Some(w) => match w.parse::<f64>() {
            Ok(w) if w.is_finite() && w >= 0.0 => Some(w + 0.0),
            _ => {
                return Err(format!(
                    "fifth field `{w}` must be a weight (a finite number >= 0)"
                ))
            }
        },
    };
    let attributes = fields
        .iter()
        .enumerate()
        .skip(5)
        .map(|(i, field)| {
            let place = |why: String| format!("field {} `{field}`: {why}", i + 1);
            let (key, value) = field
                .split_once('=')
                .ok_or_else(|| place("an attribute must be key=value".into()))?;
            crate::data::attributes::check_key(key).map_err(|e| place(e.into()))?;
            Ok((key, Some(value).filter(|v| !v.is_empty())))
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(Some(Observation {
        page,
        cycle,
        changed,
        host,
        weight,
        attributes,
    }))
}

/// The largest jump, in cycles, of an observation beyond the state's latest cycle that
/// [`apply`] accepts by default: a year of daily cycles. A Unix time or a typo passed as
/// a cycle would otherwise move the crawl's clock for good.
pub const DEFAULT_MAX_JUMP: u32 = 366;

/// How [`apply_with`] treats a log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogOptions {
    /// Refuse the log when a cycle is more than this many cycles after the cycle before it
    /// (the state's latest, 0 for a new state, then the log's cycles in order); `None`: no
    /// limit.
    pub max_jump: Option<u32>,
}

impl Default for LogOptions {
    fn default() -> LogOptions {
        LogOptions {
            max_jump: Some(DEFAULT_MAX_JUMP),
        }
    }
}

/// What [`apply`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Observations applied.
    pub observations: usize,
    /// Pages added because the log named them first.
    pub added: usize,
    /// Lines skipped because a later line of the file gives the same page and cycle (the
    /// last one is applied).
    pub duplicates: usize,
    /// Lines skipped because the page was already observed at that cycle or later (in the
    /// state, or by an earlier cycle's line of this log).
    pub stale: usize,
    /// The first skipped line in file order, as `file:line: reason`, to show the user.
    pub first_skipped: Option<String>,
}

/// A parsed line with its line number, borrowing its text (from the log read whole, or
/// from a [`Record`]).
#[derive(Debug)]
struct Line<'a> {
    number: usize,
    page: &'a str,
    cycle: u32,
    changed: bool,
    host: Option<&'a str>,
    weight: Option<f64>,
    attributes: Vec<(&'a str, Option<&'a str>)>,
}

impl Line<'_> {
    /// Sets the line's attributes on its page, in `slot`.
    fn set_attributes(
        &self,
        scheduler: &mut Scheduler<String>,
        slot: u32,
    ) -> Result<(), ScheduleError> {
        for &(key, value) in &self.attributes {
            scheduler.set_attribute_at(slot, &self.page, key, value)?;
        }
        Ok(())
    }
}

/// Applies the log read from `input` (`file` names it in errors) to `scheduler` under the
/// default [`LogOptions`]; see [`apply_with`].
pub fn apply<R: BufRead>(
    scheduler: &mut Scheduler<String>,
    input: R,
    file: &str,
) -> Result<Summary, LogError> {
    apply_with(scheduler, input, file, LogOptions::default())
}

/// Applies the log read from `input` to `scheduler`.
///
/// The rule for lines out of order (a crawler's logs are merged from many fetchers):
/// observations are applied in cycle order, whatever their order in the file; of several
/// lines with the same page and cycle, the last in the file is applied and the others are
/// counted as duplicates; a line whose cycle is not after the page's latest observation is
/// skipped and counted as stale. Pages new to the scheduler are added in the order the
/// file first names them (which fixes their tie-break order), with that line's host and
/// weight; an applied line's host and weight then replace the page's, so the latest cycle's
/// win.
///
/// The whole log is read and checked first: a malformed line, or a cycle more than
/// `options.max_jump` after the state's latest, is an error naming the file and line, and
/// then nothing is applied.
pub fn apply_with<R: BufRead>(
    scheduler: &mut Scheduler<String>,
    input: R,
    file: &str,
    options: LogOptions,
) -> Result<Summary, LogError> {
    let text = read_all(input, file)?;
    let lines = parse_lines(&text, file)?;
    apply_lines(scheduler, lines, file, options)
}

/// One observation given as data rather than as a line of a log (the Python module's
/// `Scheduler.observe` passes these): a line's fields, checked as a line's are.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The page id: not empty, without TAB, CR or LF.
    pub page: String,
    /// The cycle, 1 or more.
    pub cycle: u32,
    /// Whether the download found the content changed.
    pub changed: bool,
    /// The page's host (`None`, or empty: leave it as it is); without TAB, CR or LF.
    pub host: Option<String>,
    /// The page's weight, finite and >= 0 (`None`: leave it as it is).
    pub weight: Option<f64>,
    /// Attributes to set (`None` or an empty value: clear the attribute); keys are names,
    /// values hold no TAB, CR or LF.
    pub attributes: Vec<(String, Option<String>)>,
}

/// Applies `records` as [`apply_with`] applies the lines of a log, under the same rule;
/// record `i` stands for line `i + 1` of `origin` in errors. Every record is checked
/// first, as a line is read: a bad one is an error, and then nothing is applied.
pub fn apply_records(
    scheduler: &mut Scheduler<String>,
    records: &[Record],
    origin: &str,
    options: LogOptions,
) -> Result<Summary, LogError> {
    let lines = records
        .iter()
        .enumerate()
        .map(|(i, r)| {
            check_record(r).map_err(|reason| LogError::Line {
                file: origin.to_string(),
                line: i + 1,
                reason,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let lines = lines
        .into_iter()
        .enumerate()
        .map(|(i, r)| Line { number: i + 1, ..r })
        .collect();
    apply_lines(scheduler, lines, origin, options)
}

/// A record as the line it stands for, or why it is no line a log could hold.
fn check_record(r: &Record) -> Result<Line<'_>, String> {
    use crate::data::attributes::LINE_BREAKS;
    let text = |what: &str, value: &str| {
        if value.contains(LINE_BREAKS) {
            Err(format!(
                "{what} `{}` holds a TAB or line break",
                value.escape_debug()
            ))
        } else {
            Ok(())
        }
    };
    if r.page.is_empty() {
        return Err("empty page id".into());
    }
    text("page id", &r.page)?;
    if r.cycle == 0 {
        return Err("cycle 0: cycles are numbered from 1".into());
    }
    let host = r.host.as_deref().filter(|h| !h.is_empty());
    if let Some(h) = &host {
        text("host", h)?;
    }
    if let Some(w) = r.weight.filter(|w| !w.is_finite() || *w < 0.0) {
        return Err(format!("weight {w} must be a finite number >= 0"));
    }
    for (key, value) in &r.attributes {
        crate::data::attributes::check_key(key)?;
        if let Some(v) = value {
            text(&format!("attribute {key}"), v)?;
        }
    }
    Ok(Line {
        number: 0,
        page: &r.page,
        cycle: r.cycle,
        changed: r.changed,
        host,
        weight: r.weight.map(|w| w + 0.0),
        attributes: r
            .attributes
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_deref().filter(|v| !v.is_empty())))
            .collect(),
    })
}

/// Applies parsed lines (see [`apply_with`]).
fn apply_lines(
    scheduler: &mut Scheduler<String>,
    lines: Vec<Line<'_>>,
    file: &str,
    options: LogOptions,
) -> Result<Summary, LogError> {
    if let Some(limit) = options.max_jump {
        check_jumps(&lines, scheduler.latest_cycle(), limit, file)?;
    }
    let mut summary = Summary::default();
    let refused = |number: usize| {
        move |refusal| LogError::Refused {
            file: file.to_string(),
            line: number,
            refusal,
        }
    };
    // Each line's slot: looked up on both cores, then the pages new to the scheduler
    // added in the order the file first names them.
    let pages: Vec<&str> = lines.iter().map(|line| line.page).collect();
    let mut slots = scheduler.ids.slots_of(&pages);
    for (line, slot) in lines.iter().zip(&mut slots) {
        if slot.is_some() {
            continue;
        }
        *slot = scheduler.slot(line.page);
        if slot.is_none() {
            let weight = line.weight.unwrap_or(1.0);
            let added = scheduler
                .add_weighted(line.page.to_string(), line.host, weight)
                .map_err(refused(line.number))?;
            *slot = Some(added);
            line.set_attributes(scheduler, added)
                .map_err(refused(line.number))?;
            summary.added += 1;
        }
    }
    // Invariant: every line's page has a slot now.
    let slots: Vec<u32> = slots.into_iter().flatten().collect();
    let order = cycle_order(&lines);
    // The first skipped line in file order (lines are applied in cycle order).
    let mut first_skipped: Option<(usize, String)> = None;
    let mut skip = |line: &Line, reason: String| {
        if first_skipped.as_ref().is_none_or(|(n, _)| line.number < *n) {
            first_skipped = Some((line.number, format!("{file}:{}: {reason}", line.number)));
        }
    };
    for (i, &at) in order.iter().enumerate() {
        let (line, slot) = (&lines[at], slots[at]);
        if let Some(&next) = order.get(i + 1) {
            if (lines[next].cycle, slots[next]) == (line.cycle, slot) {
                summary.duplicates += 1;
                let reason = format!(
                    "page {} at cycle {} again on line {} (the last line is applied)",
                    line.page, line.cycle, lines[next].number
                );
                skip(line, reason);
                continue;
            }
        }
        let last = scheduler.stats_at(slot).last_visit;
        if line.cycle <= last {
            summary.stale += 1;
            let reason = format!(
                "page {} at cycle {}, not after its latest observation (cycle {last}): skipped",
                line.page, line.cycle
            );
            skip(line, reason);
            continue;
        }
        let page: &dyn std::fmt::Debug = &line.page;
        scheduler
            .observe_at(slot, page, line.cycle, line.changed)
            .map_err(refused(line.number))?;
        if let Some(h) = line.host {
            scheduler.set_host_at(slot, Some(h));
        }
        if let Some(w) = line.weight {
            scheduler
                .set_weight_at(slot, page, w)
                .map_err(refused(line.number))?;
        }
        line.set_attributes(scheduler, slot)
            .map_err(refused(line.number))?;
        summary.observations += 1;
    }
    summary.first_skipped = first_skipped.map(|(_, text)| text);
    Ok(summary)
}

/// Refuses a log whose cycles jump more than `limit` past the cycle before them: the
/// state's latest (0 for a new state), then the log's own cycles in increasing order, so
/// a long history imported at once passes and a timestamp among day numbers does not.
fn check_jumps(lines: &[Line<'_>], latest: u32, limit: u32, file: &str) -> Result<(), LogError> {
    let mut cycles: Vec<(u32, usize)> = lines
        .iter()
        .filter(|l| l.cycle > latest)
        .map(|l| (l.cycle, l.number))
        .collect();
    cycles.sort_unstable();
    let mut before = latest;
    for (cycle, number) in cycles {
        if cycle - before > limit {
            return Err(LogError::Jump {
                file: file.to_string(),
                line: number,
                cycle,
                latest: before,
                limit,
            });
        }
        before = cycle;
    }
    Ok(())
}

/// The lines' indices in the order they are applied: by cycle, then page, then line
/// number. Each line's key holds its cycle and 16 bytes of its page after the prefix all
/// pages share (zero-padded: ordered as the pages are), so that most comparisons read
/// no page; equal keys compare the pages.
fn cycle_order(lines: &[Line<'_>]) -> Vec<usize> {
    let shared = lines.first().map_or(0, |first| {
        lines.iter().fold(first.page.len(), |len, line| {
            let same = first.page.as_bytes()[..len]
                .iter()
                .zip(line.page.as_bytes())
                .take_while(|(a, b)| a == b)
                .count();
            len.min(same)
        })
    });
    let mut keys: Vec<(u32, u128, usize)> = lines
        .iter()
        .enumerate()
        .map(|(i, line)| {
            let mut prefix = [0u8; 16];
            let rest = &line.page.as_bytes()[shared..];
            let n = rest.len().min(16);
            prefix[..n].copy_from_slice(&rest[..n]);
            (line.cycle, u128::from_be_bytes(prefix), i)
        })
        .collect();
    let by_key = |a: &(u32, u128, usize), b: &(u32, u128, usize)| {
        (a.0, a.1).cmp(&(b.0, b.1)).then_with(|| {
            let (a, b) = (&lines[a.2], &lines[b.2]);
            (a.page, a.number).cmp(&(b.page, b.number))
        })
    };
    // A total order: the parallel sort and the serial one give the same order.
    #[cfg(feature = "parallel")]
    rayon::slice::ParallelSliceMut::par_sort_unstable_by(&mut keys[..], by_key);
    #[cfg(not(feature = "parallel"))]
    keys.sort_unstable_by(by_key);
    keys.into_iter().map(|(.., i)| i).collect()
}

/// Reads the whole log (`file` names it in errors). A read that fails reports the first
/// bad line read before it, if any, as reading line by line would have; else the failure,
/// naming the line it stopped in.
fn read_all<R: BufRead>(mut input: R, file: &str) -> Result<Vec<u8>, LogError> {
    let mut text = Vec::new();
    if let Err(e) = input.read_to_end(&mut text) {
        let complete = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        parse_lines(&text[..complete], file)?;
        return Err(LogError::Io {
            file: file.to_string(),
            reason: format!(
                "line {}: {e}",
                text.iter().filter(|&&b| b == b'\n').count() + 1
            ),
        });
    }
    Ok(text)
}

/// Parses every line of a log's text: lines end with LF or CR LF, the last one may end
/// without (and then keeps a CR it ends with, for [`parse_line`] to judge).
fn parse_lines<'a>(text: &'a [u8], file: &str) -> Result<Vec<Line<'a>>, LogError> {
    let ends_with_lf = text.ends_with(b"\n");
    let body = text.strip_suffix(b"\n").unwrap_or(text);
    let mut lines = Vec::new();
    if text.is_empty() {
        return Ok(lines);
    }
    let mut split = body.split(|&b| b == b'\n').enumerate().peekable();
    while let Some((i, line)) = split.next() {
        let number = i + 1;
        let line = match ends_with_lf || split.peek().is_some() {
            true => line.strip_suffix(b"\r").unwrap_or(line),
            false => line,
        };
        let line = std::str::from_utf8(line).map_err(|_| LogError::Io {
            file: file.to_string(),
            reason: format!("line {number}: stream did not contain valid UTF-8"),
        })?;
        // A byte-order mark (as some editors write) is not part of the first page id.
        let line = if number == 1 {
            line.strip_prefix('\u{feff}').unwrap_or(line)
        } else {
            line
        };
        match parse_line(line) {
            Ok(Some(obs)) => lines.push(Line {
                number,
                page: obs.page,
                cycle: obs.cycle,
                changed: obs.changed,
                host: obs.host,
                weight: obs.weight,
                attributes: obs.attributes,
            }),
            Ok(None) => {}
            Err(reason) => {
                return Err(LogError::Line {
                    file: file.to_string(),
                    line: number,
                    reason,
                })
            }
        }
    }
    Ok(lines)
}

#[cfg(test)]
#[path = "log_tests.rs"]
mod tests;
