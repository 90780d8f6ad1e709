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
//! use freshgp::schedule::{log, Scheduler};
//! use freshgp::policy::{Baseline, Policy};
//!
//! let mut s: Scheduler = Scheduler::new(Policy::Baseline(Baseline::Age));
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
            crate::data::attributes::check_key(key).map_err(place)?;
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

/// A parsed line with its line number.
struct Line {
    number: usize,
    page: String,
    cycle: u32,
    changed: bool,
    host: Option<String>,
    weight: Option<f64>,
    attributes: Vec<(String, Option<String>)>,
}

impl Line {
    /// Sets the line's attributes on its page.
    fn set_attributes(&self, scheduler: &mut Scheduler<String>) -> Result<(), ScheduleError> {
        for (key, value) in &self.attributes {
            scheduler.set_attribute(&self.page, key, value.as_deref())?;
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
    let lines = read_lines(input, file)?;
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
fn check_record(r: &Record) -> Result<Line, String> {
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
    let host = r.host.clone().filter(|h| !h.is_empty());
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
        page: r.page.clone(),
        cycle: r.cycle,
        changed: r.changed,
        host,
        weight: r.weight.map(|w| w + 0.0),
        attributes: r
            .attributes
            .iter()
            .map(|(k, v)| (k.clone(), v.clone().filter(|v| !v.is_empty())))
            .collect(),
    })
}

/// Applies parsed lines (see [`apply_with`]).
fn apply_lines(
    scheduler: &mut Scheduler<String>,
    lines: Vec<Line>,
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
    // New pages in the order the file first names them.
    for line in &lines {
        if !scheduler.contains(&line.page) {
            let weight = line.weight.unwrap_or(1.0);
            scheduler
                .add_weighted(line.page.clone(), line.host.as_deref(), weight)
                .map_err(refused(line.number))?;
            line.set_attributes(scheduler)
                .map_err(refused(line.number))?;
            summary.added += 1;
        }
    }
    // Cycle order; of equal (cycle, page), the last line only.
    let mut order: Vec<usize> = (0..lines.len()).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (&lines[a], &lines[b]);
        (a.cycle, &a.page, a.number).cmp(&(b.cycle, &b.page, b.number))
    });
    // The first skipped line in file order (lines are applied in cycle order).
    let mut first_skipped: Option<(usize, String)> = None;
    let mut skip = |line: &Line, reason: String| {
        if first_skipped.as_ref().is_none_or(|(n, _)| line.number < *n) {
            first_skipped = Some((line.number, format!("{file}:{}: {reason}", line.number)));
        }
    };
    for (i, &at) in order.iter().enumerate() {
        let line = &lines[at];
        if let Some(&next) = order.get(i + 1) {
            let next = &lines[next];
            if (next.cycle, &next.page) == (line.cycle, &line.page) {
                summary.duplicates += 1;
                let reason = format!(
                    "page {} at cycle {} again on line {} (the last line is applied)",
                    line.page, line.cycle, next.number
                );
                skip(line, reason);
                continue;
            }
        }
        // Invariant: every page of the log was added above.
        let last = scheduler.stats(&line.page).map_or(0, |s| s.last_visit);
        if line.cycle <= last {
            summary.stale += 1;
            let reason = format!(
                "page {} at cycle {}, not after its latest observation (cycle {last}): skipped",
                line.page, line.cycle
            );
            skip(line, reason);
            continue;
        }
        scheduler
            .observe(&line.page, line.cycle, line.changed)
            .map_err(refused(line.number))?;
        if let Some(h) = &line.host {
            scheduler
                .set_host(&line.page, Some(h))
                .map_err(refused(line.number))?;
        }
        if let Some(w) = line.weight {
            scheduler
                .set_weight(&line.page, w)
                .map_err(refused(line.number))?;
        }
        line.set_attributes(scheduler)
            .map_err(refused(line.number))?;
        summary.observations += 1;
    }
    summary.first_skipped = first_skipped.map(|(_, text)| text);
    Ok(summary)
}

/// Refuses a log whose cycles jump more than `limit` past the cycle before them: the
/// state's latest (0 for a new state), then the log's own cycles in increasing order, so
/// a long history imported at once passes and a timestamp among day numbers does not.
fn check_jumps(lines: &[Line], latest: u32, limit: u32, file: &str) -> Result<(), LogError> {
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

/// Reads and parses every line of a log.
fn read_lines<R: BufRead>(input: R, file: &str) -> Result<Vec<Line>, LogError> {
    let mut lines = Vec::new();
    for (i, line) in input.lines().enumerate() {
        let number = i + 1;
        let line = line.map_err(|e| LogError::Io {
            file: file.to_string(),
            reason: format!("line {number}: {e}"),
        })?;
        // A byte-order mark (as some editors write) is not part of the first page id.
        let line = if number == 1 {
            line.strip_prefix('\u{feff}').unwrap_or(&line)
        } else {
            &line
        };
        match parse_line(line) {
            Ok(Some(obs)) => lines.push(Line {
                number,
                page: obs.page.to_string(),
                cycle: obs.cycle,
                changed: obs.changed,
                host: obs.host.map(str::to_string),
                weight: obs.weight,
                attributes: obs
                    .attributes
                    .iter()
                    .map(|&(k, v)| (k.to_string(), v.map(str::to_string)))
                    .collect(),
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
mod tests {
    use super::*;
    use crate::policy::{Baseline, Policy};

    #[test]
    fn records_are_lines_checked_alike() {
        let record = |page: &str, cycle: u32, host: Option<&str>| Record {
            page: page.into(),
            cycle,
            changed: true,
            host: host.map(str::to_string),
            weight: Some(2.0),
            attributes: vec![("kind".into(), Some("news".into()))],
        };
        let mut by_records: Scheduler = Scheduler::new(Policy::Baseline(Baseline::Nad));
        let records = [
            record("a", 2, Some("h")),
            record("b", 1, None),
            record("a", 2, None),
        ];
        let summary =
            apply_records(&mut by_records, &records, "obs", LogOptions::default()).unwrap();
        let mut by_log: Scheduler = Scheduler::new(Policy::Baseline(Baseline::Nad));
        let log = "a\t2\t1\th\t2\tkind=news\nb\t1\t1\t\t2\tkind=news\na\t2\t1\t\t2\tkind=news\n";
        assert_eq!(summary, apply(&mut by_log, log.as_bytes(), "obs").unwrap());
        assert_eq!(by_records.to_bytes().unwrap(), by_log.to_bytes().unwrap());
        let before = by_records.to_bytes().unwrap();
        for (bad, why) in [
            (
                record("x\ty", 3, None),
                "obs:2: page id `x\\ty` holds a TAB or line break",
            ),
            (record("", 3, None), "obs:2: empty page id"),
            (
                record("x", 0, None),
                "obs:2: cycle 0: cycles are numbered from 1",
            ),
            (
                record("x", 3, Some("h\n")),
                "obs:2: host `h\\n` holds a TAB or line break",
            ),
        ] {
            let records = [record("c", 3, None), bad];
            let e = apply_records(&mut by_records, &records, "obs", LogOptions::default());
            assert_eq!(e.unwrap_err().to_string(), why);
            assert_eq!(by_records.to_bytes().unwrap(), before, "{why}");
        }
    }

    #[test]
    fn a_byte_order_mark_is_not_part_of_the_first_page() {
        let mut s: Scheduler = Scheduler::new(Policy::Baseline(Baseline::Age));
        let text = "\u{feff}a\t1\t1\r\nb\t1\t0\r\n";
        apply(&mut s, text.as_bytes(), "bom.tsv").unwrap();
        assert!(
            s.contains("a") && s.contains("b"),
            "{:?}",
            s.pages().collect::<Vec<_>>()
        );
        assert_eq!(s.len(), 2);
    }

    #[test]
    fn a_carriage_return_inside_a_line_is_refused_before_anything_is_applied() {
        assert!(parse_line("p\r\t3\t1")
            .unwrap_err()
            .contains("carriage return"));
        let mut s: Scheduler = Scheduler::new(Policy::Baseline(Baseline::Age));
        let before = s.to_bytes().unwrap();
        let log = "p0\t2\t1\np8\t2\t1\t\t\tcolor=r\r1\n";
        let e = apply(&mut s, log.as_bytes(), "cr.tsv").unwrap_err();
        assert!(e.to_string().starts_with("cr.tsv:2:"), "{e}");
        assert_eq!(
            s.to_bytes().unwrap(),
            before,
            "the refused log changed the state"
        );
    }

    #[test]
    fn lines_parse_or_say_why_not() {
        assert_eq!(parse_line("# comment"), Ok(None));
        assert_eq!(parse_line("  "), Ok(None));
        assert_eq!(
            parse_line("p\t3\t1\th\r"),
            Ok(Some(Observation {
                page: "p",
                cycle: 3,
                changed: true,
                host: Some("h"),
                weight: None,
                attributes: vec![],
            }))
        );
        assert_eq!(
            parse_line("p\t3\t0\t\t0.25"),
            Ok(Some(Observation {
                page: "p",
                cycle: 3,
                changed: false,
                host: None,
                weight: Some(0.25),
                attributes: vec![],
            }))
        );
        let weighted = parse_line("p\t3\t0\th\t-0").unwrap().unwrap();
        assert_eq!((weighted.host, weighted.weight), (Some("h"), Some(0.0)));
        assert!(weighted.weight.unwrap().is_sign_positive(), "-0 reads as 0");
        for bad in ["-1", "NaN", "inf", "", "1e400", "two"] {
            let err = parse_line(&format!("p\t1\t1\th\t{bad}")).unwrap_err();
            assert_eq!(
                err,
                format!("fifth field `{bad}` must be a weight (a finite number >= 0)")
            );
        }
        assert!(parse_line("p\t3").unwrap_err().contains("2 TAB-separated"));
        assert!(parse_line("p\t0\t1").unwrap_err().contains("`0`"));
        assert!(parse_line("p\tx\t1").unwrap_err().contains("`x`"));
        assert!(parse_line("\t1\t1").unwrap_err().contains("empty page"));
        assert!(parse_line("p\t1\t1\t").unwrap_err().contains("empty host"));
        assert!(parse_line("p\t1\t1\th\t1\textra")
            .unwrap_err()
            .contains("field 6 `extra`: an attribute must be key=value"));
    }

    #[test]
    fn duplicate_and_out_of_order_lines_follow_the_rule() {
        let mut s: Scheduler = Scheduler::new(Policy::Baseline(Baseline::Age));
        // Out of order: applied in cycle order. The same page and cycle twice: the last.
        let text = "b\t5\t1\nb\t3\t0\na\t2\t0\n\na\t2\t1\n";
        let summary = apply(&mut s, text.as_bytes(), "log.tsv").unwrap();
        assert_eq!((summary.observations, summary.added), (3, 2));
        assert_eq!((summary.duplicates, summary.stale), (1, 0));
        let b = s.stats("b").unwrap();
        assert_eq!((b.n, b.x, b.last_visit), (2, 1, 5));
        assert_eq!(
            s.stats("a").map(|st| (st.n, st.x)),
            Some((1, 1)),
            "the last line"
        );
        assert_eq!(
            summary.first_skipped.as_deref(),
            Some("log.tsv:3: page a at cycle 2 again on line 5 (the last line is applied)")
        );
        // Pages are added in the order the file names them first.
        assert_eq!(s.pages().collect::<Vec<_>>(), ["b", "a"]);
        // Not after the state's latest observation of the page: skipped, counted.
        let summary = apply(&mut s, "a\t1\t1\na\t3\t0\n".as_bytes(), "log.tsv").unwrap();
        assert_eq!((summary.observations, summary.stale), (1, 1));
        assert!(summary.first_skipped.unwrap().starts_with(
            "log.tsv:1: page a at cycle 1, not after its latest observation (cycle 2)"
        ));
        // A later host column moves the page.
        apply(&mut s, "a\t4\t1\tnew.org\n".as_bytes(), "log.tsv").unwrap();
        assert_eq!(s.host("a"), Some("new.org"));
    }

    #[test]
    fn a_cycle_far_beyond_the_state_is_refused_unless_forced() {
        let mut s: Scheduler = Scheduler::new(Policy::Baseline(Baseline::Age));
        apply(&mut s, "a\t10\t1\n".as_bytes(), "log.tsv").unwrap();
        let far = "b\t11\t0\na\t1700000000\t1\n";
        let err = apply(&mut s, far.as_bytes(), "log.tsv").unwrap_err();
        assert!(
            matches!(
                err,
                LogError::Jump {
                    line: 2,
                    cycle: 1_700_000_000,
                    latest: 11,
                    limit: 366,
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(
            !s.contains("b") && s.latest_cycle() == 10,
            "nothing applied"
        );
        // The limit is 366 past the cycle before: 376 passes, 377 does not.
        assert!(apply(&mut s, "a\t376\t1\n".as_bytes(), "log.tsv").is_ok());
        let limited = LogOptions { max_jump: Some(5) };
        assert!(apply_with(&mut s, "a\t382\t1\n".as_bytes(), "l", limited).is_err());
        // A long history imported into a new state passes: each cycle follows the one before.
        let mut fresh: Scheduler = Scheduler::new(Policy::Baseline(Baseline::Age));
        let history: String = (1..=1000).map(|d| format!("a\t{d}\t{}\n", d % 2)).collect();
        assert_eq!(
            apply(&mut fresh, history.as_bytes(), "h")
                .unwrap()
                .observations,
            1000
        );
        // A timestamp as a new state's first cycle does not.
        let mut fresh: Scheduler = Scheduler::new(Policy::Baseline(Baseline::Age));
        let err = apply(&mut fresh, "a\t1700000000\t1\n".as_bytes(), "h").unwrap_err();
        assert!(matches!(err, LogError::Jump { latest: 0, .. }), "{err:?}");
        let forced = LogOptions { max_jump: None };
        apply_with(&mut s, far.as_bytes(), "log.tsv", forced).unwrap();
        assert_eq!(s.latest_cycle(), 1_700_000_000);
    }
}

#[cfg(test)]
mod weight_tests {
    use super::*;
    use crate::formula::Grammar;
    use crate::policy::{Baseline, Policy};

    #[test]
    fn a_weight_column_sets_the_weight_and_a_malformed_log_changes_nothing() {
        let policy = Policy::parse("w * t", &Grammar::extended()).unwrap();
        let mut s: Scheduler = Scheduler::new(policy);
        let text = "a\t1\t0\th.org\t3\nb\t1\t1\nc\t1\t0\t\t0\n";
        let summary = apply(&mut s, text.as_bytes(), "w.tsv").unwrap();
        assert_eq!((summary.observations, summary.added), (3, 3));
        assert_eq!((s.weight("a"), s.host("a")), (Some(3.0), Some("h.org")));
        assert_eq!(
            (s.weight("b"), s.weight("c"), s.host("c")),
            (Some(1.0), Some(0.0), None)
        );
        // The policy reads `w`: the statistics hold the weight.
        assert_eq!(s.stats("a").unwrap().weight, 3.0);
        assert_eq!(s.next_batch(2, 3).unwrap(), ["a", "b", "c"]);
        // A later weight (host left as it is) reorders; of two lines of one cycle, the
        // last one's host and weight apply.
        apply(&mut s, "c\t2\t0\t\t9\n".as_bytes(), "w.tsv").unwrap();
        assert_eq!((s.weight("c"), s.host("c")), (Some(9.0), None));
        let summary = apply(
            &mut s,
            "a\t3\t0\n\na\t3\t0\tother.org\t5\n".as_bytes(),
            "w.tsv",
        )
        .unwrap();
        assert_eq!(summary.duplicates, 1);
        assert_eq!((s.weight("a"), s.host("a")), (Some(5.0), Some("other.org")));
        let err = apply(&mut s, "a\t4\t0\th.org\tNaN\n".as_bytes(), "w.tsv").unwrap_err();
        assert_eq!(
            err.to_string(),
            "w.tsv:1: fifth field `NaN` must be a weight (a finite number >= 0)"
        );
        assert_eq!(
            s.stats("a").unwrap().n,
            2,
            "a malformed line is not applied"
        );
        // Without `w` in the policy, the weight is kept by the scheduler only.
        let mut plain: Scheduler = Scheduler::new(Policy::Baseline(Baseline::Age));
        apply(&mut plain, text.as_bytes(), "w.tsv").unwrap();
        assert_eq!(plain.weight("a"), Some(3.0));
        assert_eq!(plain.stats("a"), plain.stats("c"), "w and HR are not read");
    }

    #[test]
    fn attribute_fields_set_attributes_and_group_rates_follow_them() {
        let obs = parse_line("p\t3\t1\t\t\tcategory=shoes\tbrand=")
            .unwrap()
            .unwrap();
        assert_eq!((obs.host, obs.weight), (None, None));
        assert_eq!(
            obs.attributes,
            [("category", Some("shoes")), ("brand", None)]
        );
        for (line, why) in [
            (
                "p\t3\t1\th\t1\tshoes",
                "field 6 `shoes`: an attribute must be key=value",
            ),
            (
                "p\t3\t1\th\t1\thost=x",
                "field 6 `host=x`: bad attribute key `host`",
            ),
            (
                "p\t3\t1\th\t\t",
                "field 6 ``: an attribute must be key=value",
            ),
        ] {
            let err = parse_line(line).unwrap_err();
            assert!(err.contains(why), "{line:?}: {err}");
        }
        // GR by category: a and b pool their visits, c (no category) stands alone; moving
        // b to another category moves its totals.
        let mut s: Scheduler =
            Scheduler::new(Policy::parse("GR", &crate::formula::Grammar::frequency()).unwrap());
        s.group_by(Some("category")).unwrap();
        let log = "a\t1\t1\t\t\tcategory=x\nb\t1\t0\t\t\tcategory=x\nc\t1\t1\n\
                   a\t2\t1\nb\t2\t0\nc\t2\t0\n";
        apply(&mut s, log.as_bytes(), "crawl.log").unwrap();
        let rate = |s: &Scheduler, page: &str| s.host_rates().group_rate(s.stats(page).unwrap());
        assert_eq!(
            (rate(&s, "a"), rate(&s, "b"), rate(&s, "c")),
            (0.5, 0.5, 0.5)
        );
        assert_eq!(s.attribute("a", "category"), Some("x"));
        assert_eq!(s.attributes("c"), []);
        apply(&mut s, "b\t3\t0\t\t\tcategory=y\n".as_bytes(), "crawl.log").unwrap();
        assert_eq!((rate(&s, "a"), rate(&s, "b")), (1.0, 0.0));
        // Saved and loaded, the attributes, the grouping and the totals come back.
        let back: Scheduler = Scheduler::from_bytes(&s.to_bytes().unwrap(), "<mem>").unwrap();
        assert_eq!(back.grouping(), Some("category"));
        assert_eq!(back.attributes("b"), [("category", "y")]);
        assert_eq!(
            (rate(&back, "a"), rate(&back, "b"), rate(&back, "c")),
            (1.0, 0.0, 1.0 / 2.0)
        );
        // Regrouped by host (none here: every page its own), GR is each page's own rate.
        s.group_by(None).unwrap();
        assert_eq!((rate(&s, "a"), rate(&s, "b")), (1.0, 0.0));
        assert!(s
            .group_by(Some("9x"))
            .unwrap_err()
            .to_string()
            .contains("bad attribute key"));
        assert!(s
            .set_attribute("a", "category", Some("a\tb"))
            .unwrap_err()
            .to_string()
            .contains("page \"a\": attribute category"));
    }
}
