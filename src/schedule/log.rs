//! Observation logs: what a crawler downloaded, one download per line.
//!
//! Format, fields separated by TAB: `page<TAB>cycle<TAB>0|1[<TAB>host[<TAB>weight]]` — the
//! crawler's page id, the cycle of the download (from 1), `1` if the content had changed
//! since the previous download and `0` if not, optionally the page's host, and optionally
//! its weight (SPEC §8: a finite number >= 0). The host may be left empty when a weight
//! follows (the page's host is then not given). Blank lines and lines starting with `#`
//! are ignored; a trailing `\r` is dropped.
//!
//! [`apply`] feeds a log to a [`Scheduler`]: unknown pages are added (with their host and
//! weight, if given; else without host and of weight 1), a host column sets the page's
//! host ([`Scheduler::set_host`]), a weight column its weight
//! ([`Scheduler::set_weight`]), and every observation goes through
//! [`Scheduler::observe`]. A malformed line or a refused observation is an error naming
//! the file, the line and, for a bad field, which one; a refused line changes nothing
//! (its host and weight are set only once its observation is accepted).
//!
//! ```
//! use freshgp::schedule::{log, Scheduler};
//! use freshgp::sim::{Baseline, Policy};
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
    if !(3..=5).contains(&fields.len()) {
        return Err(format!(
            "{} TAB-separated fields, expected page, cycle, 0|1 and optionally host and weight",
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
        (None, _) | (Some(&""), 5) => None,
        (Some(&""), _) => return Err("empty host".into()),
        (Some(&h), _) => Some(h),
    };
    let weight = match fields.get(4) {
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
    Ok(Some(Observation {
        page,
        cycle,
        changed,
        host,
        weight,
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
            let weight = obs.weight.unwrap_or(1.0);
            scheduler
                .add_weighted(obs.page.to_string(), obs.host, weight)
                .map_err(refused)?;
            summary.added += 1;
            scheduler
                .observe(obs.page, obs.cycle, obs.changed)
                .map_err(refused)?;
        } else {
            // The observation first: if it is refused, the line changes nothing.
            scheduler
                .observe(obs.page, obs.cycle, obs.changed)
                .map_err(refused)?;
            if let Some(h) = obs.host {
                scheduler.set_host(obs.page, Some(h)).map_err(refused)?;
            }
            if let Some(w) = obs.weight {
                scheduler.set_weight(obs.page, w).map_err(refused)?;
            }
        }
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
                host: Some("h"),
                weight: None,
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
            .contains("6 TAB"));
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

#[cfg(test)]
mod weight_tests {
    use super::*;
    use crate::formula::Grammar;
    use crate::sim::{Baseline, Policy};

    #[test]
    fn a_weight_column_sets_the_weight_and_a_refused_line_changes_nothing() {
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
        // A later weight (host left as it is) reorders; a refused line changes nothing.
        apply(&mut s, "c\t2\t0\t\t9\n".as_bytes(), "w.tsv").unwrap();
        assert_eq!((s.weight("c"), s.host("c")), (Some(9.0), None));
        let err = apply(
            &mut s,
            "a\t3\t0\n\na\t3\t0\tother.org\t5\n".as_bytes(),
            "w.tsv",
        )
        .unwrap_err();
        assert!(err.to_string().starts_with("w.tsv:3: page \"a\""), "{err}");
        assert_eq!((s.weight("a"), s.host("a")), (Some(3.0), Some("h.org")));
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
}
