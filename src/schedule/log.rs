//! Observation logs: what a crawler downloaded, one download per line.
//!
//! Format, fields separated by TAB: `page<TAB>cycle<TAB>0|1[<TAB>host]` — the crawler's page
//! id, the cycle of the download (from 1), `1` if the content had changed since the
//! previous download and `0` if not, and optionally the page's host. Blank lines and lines
//! starting with `#` are ignored; a trailing `\r` is dropped.
//!
//! [`apply`] feeds a log to a [`Scheduler`]: unknown pages are added (with their host, if
//! given), a host column sets the page's host, and every observation goes through
//! [`Scheduler::observe`]. A malformed line or a refused observation is an error naming
//! the file and the line.
//!
//! ```
//! use freshgp::schedule::{log, Scheduler};
//! use freshgp::sim::{Baseline, Policy};
//!
//! let mut s: Scheduler = Scheduler::new(Policy::Baseline(Baseline::Age));
//! let text = "# page\tcycle\tchanged\thost\na.html\t1\t1\texample.org\nb.html\t1\t0\n";
//! let summary = log::apply(&mut s, text.as_bytes(), "crawl.log")?;
//! assert_eq!((summary.observations, summary.added), (2, 2));
//! assert_eq!(s.host("a.html"), Some("example.org"));
//! let err = log::apply(&mut s, "c.html\t2\tyes\n".as_bytes(), "crawl.log").unwrap_err();
//! assert_eq!(err.to_string(), "crawl.log:1: third field `yes` must be 0 or 1");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::{ScheduleError, Scheduler};
use std::io::BufRead;

/// One line of a log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Observation<'a> {
    /// The crawler's page id.
    pub(crate) page: &'a str,
    /// The cycle of the download.
    pub(crate) cycle: u32,
    /// Whether the content had changed.
    pub(crate) changed: bool,
    /// The page's host, if given.
    pub(crate) host: Option<&'a str>,
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
    let fields: Vec<&str> = line.split('\t').collect();
    if !(3..=4).contains(&fields.len()) {
        return Err(format!(
            "{} TAB-separated fields, expected page, cycle, 0|1 and optionally host",
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
    let host = match fields.get(3) {
        None => None,
        Some(&"") => return Err("empty host".into()),
        Some(&h) => Some(h),
    };
    Ok(Some(Observation {
        page,
        cycle,
        changed,
        host,
    }))
}

/// What [`apply`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Observations applied.
    pub observations: usize,
    /// Pages added because the log named them first.
    pub added: usize,
}

/// Applies the log read from `input` (`file` names it in errors) to `scheduler`. Lines
/// before a bad one stay applied.
pub fn apply<R: BufRead>(
    scheduler: &mut Scheduler<String>,
    input: R,
    file: &str,
) -> Result<Summary, LogError> {
    let mut summary = Summary::default();
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
        let obs = match parse_line(line) {
            Ok(Some(obs)) => obs,
            Ok(None) => continue,
            Err(reason) => {
                return Err(LogError::Line {
                    file: file.to_string(),
                    line: number,
                    reason,
                })
            }
        };
        let refused = |refusal| LogError::Refused {
            file: file.to_string(),
            line: number,
            refusal,
        };
        if !scheduler.contains(obs.page) {
            match obs.host {
                Some(h) => scheduler.add_with_host(obs.page.to_string(), h),
                None => scheduler.add(obs.page.to_string()),
            }
            .map_err(refused)?;
            summary.added += 1;
        } else if let Some(h) = obs.host {
            if scheduler.host(obs.page) != Some(h) {
                scheduler.set_host(obs.page, Some(h)).map_err(refused)?;
            }
        }
        scheduler
            .observe(obs.page, obs.cycle, obs.changed)
            .map_err(refused)?;
        summary.observations += 1;
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{Baseline, Policy};

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
    fn lines_parse_or_say_why_not() {
        assert_eq!(parse_line("# comment"), Ok(None));
        assert_eq!(parse_line("  "), Ok(None));
        assert_eq!(
            parse_line("p\t3\t1\th\r"),
            Ok(Some(Observation {
                page: "p",
                cycle: 3,
                changed: true,
                host: Some("h")
            }))
        );
        assert!(parse_line("p\t3").unwrap_err().contains("2 TAB-separated"));
        assert!(parse_line("p\t0\t1").unwrap_err().contains("`0`"));
        assert!(parse_line("p\tx\t1").unwrap_err().contains("`x`"));
        assert!(parse_line("\t1\t1").unwrap_err().contains("empty page"));
        assert!(parse_line("p\t1\t1\t").unwrap_err().contains("empty host"));
        assert!(parse_line("p\t1\t1\th\textra")
            .unwrap_err()
            .contains("5 TAB"));
    }

    #[test]
    fn refused_observations_name_the_line() {
        let mut s: Scheduler = Scheduler::new(Policy::Baseline(Baseline::Age));
        let text = "a\t2\t0\n\na\t2\t1\n";
        let err = apply(&mut s, text.as_bytes(), "log.tsv").unwrap_err();
        assert!(
            matches!(
                &err,
                LogError::Refused {
                    line: 3,
                    refusal: ScheduleError::CycleNotAfter {
                        cycle: 2,
                        last: 2,
                        ..
                    },
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(
            err.to_string().starts_with("log.tsv:3: page \"a\""),
            "{err}"
        );
        // The first line stayed applied; a later host column moves the page.
        assert_eq!(s.stats("a").map(|st| st.n), Some(1));
        apply(&mut s, "a\t3\t1\tnew.org\n".as_bytes(), "log.tsv").unwrap();
        assert_eq!(s.host("a"), Some("new.org"));
    }
}
