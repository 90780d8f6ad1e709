//! Unknown cycles (`?`, failed downloads): policies that drop pages or impute cycles.
//!
//! The default is the paper's (docs/src/reference/data.md#unknown-cycles): a page with more
//! than 2 unknown cycles is dropped; each remaining `?` at cycle d becomes `1` if the page's
//! current no-change run is at least the most frequent length of its completed no-change
//! runs before d, else `0`.
//!
//! Details the paper leaves open, fixed here:
//! - cycles are imputed left to right, and an imputed value counts as history for later `?`s;
//! - the *current no-change run* at d is `d - 1 - last`, where `last` is the page's last
//!   cycle before d holding a `1` (0 if none: monitoring starts with a fresh copy);
//! - a *completed run* is a maximal stretch of `0`s ended by a `1` (length 0 for two `1`s in
//!   a row), the first one counted from cycle 1;
//! - when several lengths are equally frequent, the shortest is the mode;
//! - with no completed run before d, `?` becomes `0`.
//!
//! ```
//! use freshgp_data::data::{Dataset, UnknownPolicy};
//!
//! // page 1: completed runs before cycle 9 have lengths 2, 2, 1 → mode 2;
//! // the current run at 9 is 9-1-8 = 0 < 2 → 0. Page 2 has 4 `?`: dropped.
//! let d = Dataset::from_bit_strings(&["00100101?", "0????0000", "010?00000"]).unwrap();
//! let (d, report) = UnknownPolicy::default().apply(d);
//! assert_eq!(report.pages_dropped, 1);
//! assert_eq!(d.pages(), 2);
//! assert!(!d.changed(0, 9));
//! ```

use super::Dataset;
use std::fmt;
use std::str::FromStr;

/// What to do with unknown cycles.
///
/// Its text form (command line, experiment files, `study.json`) is the one of [`Display`]
/// and [`FromStr`]; serde reads and writes that string.
///
/// [`Display`]: fmt::Display
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnknownPolicy {
    /// The paper's: drop pages with more than `max_unknown` unknown cycles (2 in the
    /// paper), impute the rest from the page's run lengths. Written `paper` or `paper:N`.
    Paper {
        /// Pages with more unknown cycles than this are dropped.
        max_unknown: usize,
    },
    /// The paper's imputation, but no page is dropped. Written `infer`.
    Infer,
    /// Every `?` becomes `0` (what the authors' code does). Written `zero`.
    Zero,
    /// Every `?` becomes `1`. Written `one`.
    One,
    /// Drop every page with any `?`. Written `drop`.
    Drop,
    /// Leave `?` in place (they read as "no change"); for statistics and conversion.
    /// Written `keep`.
    Keep,
}

impl Default for UnknownPolicy {
    fn default() -> Self {
        UnknownPolicy::Paper { max_unknown: 2 }
    }
}

impl fmt::Display for UnknownPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnknownPolicy::Paper { max_unknown: 2 } => f.write_str("paper"),
            UnknownPolicy::Paper { max_unknown } => write!(f, "paper:{max_unknown}"),
            UnknownPolicy::Infer => f.write_str("infer"),
            UnknownPolicy::Zero => f.write_str("zero"),
            UnknownPolicy::One => f.write_str("one"),
            UnknownPolicy::Drop => f.write_str("drop"),
            UnknownPolicy::Keep => f.write_str("keep"),
        }
    }
}

impl FromStr for UnknownPolicy {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s {
            "paper" => UnknownPolicy::default(),
            "infer" => UnknownPolicy::Infer,
            "zero" => UnknownPolicy::Zero,
            "one" => UnknownPolicy::One,
            "drop" => UnknownPolicy::Drop,
            "keep" => UnknownPolicy::Keep,
            _ => match s.strip_prefix("paper:").map(str::parse) {
                Some(Ok(max_unknown)) => UnknownPolicy::Paper { max_unknown },
                _ => {
                    return Err(format!(
                        "unknown-cycle policy `{s}`: expected paper, paper:N, infer, zero, one, drop or keep"
                    ))
                }
            },
        })
    }
}

impl serde::Serialize for UnknownPolicy {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for UnknownPolicy {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// What a policy did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct UnknownReport {
    /// The policy applied (as written on the command line).
    pub policy: String,
    /// Unknown cycles in the input.
    pub unknown_cycles: usize,
    /// Pages dropped.
    pub pages_dropped: usize,
    /// Input indices (0-based, file order) of the dropped pages.
    pub dropped: Vec<u32>,
    /// Unknown cycles of kept pages that became `1`.
    pub imputed_changed: usize,
    /// Unknown cycles of kept pages that became `0`.
    pub imputed_unchanged: usize,
    /// Unknown cycles left as `?` (only with `keep`).
    pub kept_unknown: usize,
}

impl UnknownReport {
    /// Unknown cycles imputed (to `0` or `1`).
    pub fn cycles_imputed(&self) -> usize {
        self.imputed_changed + self.imputed_unchanged
    }
}

impl fmt::Display for UnknownReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown cycles: {} ({} policy): {} pages dropped, {} cycles imputed ({} as 1, {} as 0)",
            self.unknown_cycles,
            self.policy,
            self.pages_dropped,
            self.cycles_imputed(),
            self.imputed_changed,
            self.imputed_unchanged
        )?;
        if self.kept_unknown > 0 {
            write!(f, ", {} kept as ?", self.kept_unknown)?;
        }
        Ok(())
    }
}

impl UnknownPolicy {
    /// As [`UnknownPolicy::apply`], refusing a history the policy leaves without a page
    /// (`what` names the history in the error).
    ///
    /// # Errors
    /// [`DataError::Invalid`](crate::data::DataError::Invalid) when every page was dropped.
    pub fn apply_keeping_pages(
        self,
        d: Dataset,
        what: &str,
    ) -> Result<(Dataset, UnknownReport), crate::data::DataError> {
        let read = d.pages();
        let (dataset, report) = self.apply(d);
        if dataset.pages() == 0 {
            return Err(crate::data::DataError::Invalid {
                what: what.to_string(),
                reason: format!(
                    "every page was dropped by the unknown-cycle policy `{self}` ({read} pages read)"
                ),
            });
        }
        Ok((dataset, report))
    }

    /// Applies the policy to `d`, returning the resolved dataset and what was done.
    pub fn apply(self, mut d: Dataset) -> (Dataset, UnknownReport) {
        let mut report = UnknownReport {
            policy: self.to_string(),
            unknown_cycles: d.unknown_count(),
            ..UnknownReport::default()
        };
        if report.unknown_cycles == 0 {
            return (d, report);
        }
        let max_unknown = match self {
            UnknownPolicy::Keep => {
                report.kept_unknown = report.unknown_cycles;
                return (d, report);
            }
            UnknownPolicy::Paper { max_unknown } => Some(max_unknown),
            UnknownPolicy::Drop => Some(0),
            _ => None,
        };
        let mut keep = Vec::with_capacity(d.pages());
        for p in 0..d.pages() {
            let n: usize = d
                .unknown_row(p)
                .iter()
                .map(|w| w.count_ones() as usize)
                .sum();
            if max_unknown.is_some_and(|m| n > m) {
                report.dropped.push(p as u32);
                continue;
            }
            keep.push(p as u32);
            if n == 0 {
                continue;
            }
            let cycles = d.cycles();
            let (bits, unknown) = d.rows_mut(p);
            let ones = match self {
                UnknownPolicy::Zero => 0,
                UnknownPolicy::One => {
                    for (b, u) in bits.iter_mut().zip(unknown.iter_mut()) {
                        *b |= *u;
                        *u = 0;
                    }
                    n
                }
                _ => impute_row(bits, unknown, cycles),
            };
            unknown.iter_mut().for_each(|u| *u = 0);
            report.imputed_changed += ones;
            report.imputed_unchanged += n - ones;
        }
        report.pages_dropped = report.dropped.len();
        if report.pages_dropped > 0 {
            d = d.subset(&keep);
        }
        (d, report)
    }
}

/// The paper's imputation of one row; returns how many `?` became `1`. Leaves `unknown`
/// untouched (the caller clears it).
fn impute_row(bits: &mut [u64], unknown: &[u64], cycles: usize) -> usize {
    let get = |row: &[u64], k: usize| row[k / 64] >> (k % 64) & 1 == 1;
    let mut run_counts = vec![0u32; cycles + 1];
    let (mut mode, mut mode_count) = (0usize, 0u32);
    let mut last = 0usize; // last cycle (1-based) with a change, 0 = none
    let mut ones = 0;
    for d in 1..=cycles {
        let k = d - 1;
        let changed = if get(unknown, k) {
            let current = d - 1 - last;
            let c = mode_count > 0 && current >= mode;
            if c {
                bits[k / 64] |= 1 << (k % 64);
                ones += 1;
            }
            c
        } else {
            get(bits, k)
        };
        if changed {
            let len = d - 1 - last;
            run_counts[len] += 1;
            let c = run_counts[len];
            if c > mode_count || (c == mode_count && len < mode) {
                mode = len;
                mode_count = c;
            }
            last = d;
        }
    }
    ones
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(policy: &str, rows: &[&str]) -> (Vec<String>, UnknownReport) {
        let d = Dataset::from_bit_strings(rows).unwrap();
        let (d, r) = policy.parse::<UnknownPolicy>().unwrap().apply(d);
        let out = (0..d.pages()).map(|p| d.bits_string(p)).collect();
        (out, r)
    }

    #[test]
    fn paper_policy_by_hand() {
        // page 1: runs 1, 1, 1 → mode 1; ? at 8: current run = 8-1-6 = 1 >= 1 → 1
        let (out, r) = resolve(
            "paper",
            &["0101010?0", "0101??000", "?11110000", "0?0000000"],
        );
        assert_eq!(out[0], "010101010");
        // page 2: ? at 5: last=4, current=0, mode 1 → 0; ? at 6: current=1 >= 1 → 1
        assert_eq!(out[1], "010101000");
        // page 3: ? at 1: no completed run → 0
        assert_eq!(out[2], "011110000");
        // page 4: ? at 2: no completed run → 0
        assert_eq!(out[3], "000000000");
        assert_eq!(r.pages_dropped, 0);
        assert_eq!((r.imputed_changed, r.imputed_unchanged), (2, 3));
    }

    #[test]
    fn mode_ties_take_the_shortest_and_zero_runs_count() {
        // runs before cycle 10: 2 (cycles 1-2) and 3 (4-6) → tie → 2;
        // current at 10 = 10-1-7 = 2 >= 2 → 1 (with mode 3 it would be 0)
        let (out, _) = resolve("infer", &["001000100?"]);
        assert_eq!(out[0], "0010001001");
        // a zero-length run (two 1s in a row) is the mode here: current 0 >= 0 → 1
        let (out, _) = resolve("infer", &["11111?"]);
        assert_eq!(out[0], "111111");
    }

    #[test]
    fn dropping_and_other_policies() {
        let rows = ["0???", "01?0", "0000"];
        let (out, r) = resolve("paper", &rows);
        assert_eq!(
            (out.len(), r.pages_dropped, r.dropped.clone()),
            (2, 1, vec![0])
        );
        let (out, r) = resolve("paper:3", &rows);
        assert_eq!((out.len(), r.pages_dropped), (3, 0));
        let (out, _) = resolve("zero", &rows);
        assert_eq!(out, ["0000", "0100", "0000"]);
        let (out, r) = resolve("one", &rows);
        assert_eq!(out, ["0111", "0110", "0000"]);
        assert_eq!(r.imputed_changed, 4);
        let (out, r) = resolve("drop", &rows);
        assert_eq!((out, r.pages_dropped), (vec!["0000".to_string()], 2));
        let (out, r) = resolve("keep", &rows);
        assert_eq!((out[0].as_str(), r.kept_unknown), ("0???", 4));
        assert!("bogus".parse::<UnknownPolicy>().is_err());
        assert_eq!(
            "paper:5".parse::<UnknownPolicy>().unwrap().to_string(),
            "paper:5"
        );
    }
}
