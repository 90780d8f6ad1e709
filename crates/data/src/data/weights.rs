//! Page importance weights (docs/src/reference/data.md#page-weights) from a file of
//! `page<TAB>weight` lines, set on a loaded history by page id: how a crawler operator
//! attaches click counts, PageRank or revenue to a history built from crawl logs
//! (`freshgp dataset from-log --weights`, `convert --weights`).
//!
//! The file:
//! - one page per line, `page_id<TAB>weight`, exactly two fields; a trailing `\r` is part
//!   of the line ending;
//! - `page_id` is a page id of the history (its second column; for a history from a crawl
//!   log, the URL), compared byte for byte, not empty;
//! - `weight` is a finite number >= 0 as Rust reads an `f64` (`2`, `0.5`, `1e3`; `-0` reads
//!   as 0); a negative, infinite, NaN or unparsable weight is an error;
//! - lines starting with `#` and blank lines are ignored.
//!
//! Rules:
//! - **Listed pages** take the file's weight, replacing any weight they had (the text
//!   format's `weight=`, a crawl log's weight column). A dataset id held by several pages
//!   gives the weight to each of them.
//! - **Pages not listed** keep the weight they had (1 unless the history gave one).
//! - **Ids not in the history** are not an error (a popularity export usually covers more
//!   pages than one crawl): they are counted in the [`WeightReport`], which keeps the first
//!   few for the caller to show. Pages dropped by an unknown-cycle policy before the weights
//!   are applied count as not in the history.
//! - **An id listed twice** is an error naming both lines, whether or not the weights agree.
//! - A history without page ids cannot be matched: an error, before the file is read.
//! - Any malformed line is an error naming file, line, column and reason; nothing is
//!   skipped. The dataset is changed only when the whole file is good.
//!
//! ```
//! use freshgp_data::data::{text, weights};
//!
//! let mut d = text::read("01\ta\n10\tb\n11\tc\n".as_bytes(), "h.tsv").unwrap();
//! let file = "# clicks per day\na\t12.5\nc\t0\nzzz\t3\n";
//! let report = weights::apply(&mut d, file.as_bytes(), "w.tsv").unwrap();
//! assert_eq!((d.weight(0), d.weight(1), d.weight(2)), (12.5, 1.0, 0.0));
//! assert_eq!((report.pages_set, report.unknown_ids, report.pages_not_listed), (2, 1, 1));
//!
//! let e = weights::apply(&mut d, "a\t1\na\t2\n".as_bytes(), "w.tsv").unwrap_err();
//! assert_eq!(e.to_string(), "w.tsv:2:1: page `a` listed twice (first on line 1)");
//! let e = weights::apply(&mut d, "a\t-1\n".as_bytes(), "w.tsv").unwrap_err();
//! assert_eq!(e.to_string(), "w.tsv:1:3: weight `-1` is negative (weights are finite and >= 0)");
//! ```

use super::{DataError, Dataset};
use std::collections::HashMap;
use std::fmt;
use std::io::BufRead;
use std::path::Path;

/// How many ids not in the history a [`WeightReport`] keeps as examples.
pub const UNKNOWN_EXAMPLES: usize = 5;

/// What applying a weights file did.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct WeightReport {
    /// The file (as named by the caller).
    pub file: String,
    /// Weight lines read (comments and blank lines not counted).
    pub entries: usize,
    /// Pages whose weight the file set.
    pub pages_set: usize,
    /// Pages the file did not list (they keep their weight).
    pub pages_not_listed: usize,
    /// Lines whose id is not a page of the history.
    pub unknown_ids: usize,
    /// The first [`UNKNOWN_EXAMPLES`] of those ids, in file order.
    pub unknown_examples: Vec<String>,
}

impl fmt::Display for WeightReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use super::stats::count;
        write!(
            f,
            "{}: {}; set on {}, {} not listed keep theirs, {} not in the history",
            self.file,
            count(self.entries, "weight"),
            count(self.pages_set, "page"),
            count(self.pages_not_listed, "page"),
            count(self.unknown_ids, "id")
        )?;
        if !self.unknown_examples.is_empty() {
            let shown: Vec<String> = self
                .unknown_examples
                .iter()
                .map(|id| format!("`{}`", id.escape_debug()))
                .collect();
            let more = if self.unknown_ids > shown.len() {
                ", ..."
            } else {
                ""
            };
            write!(f, " ({}{more})", shown.join(", "))?;
        }
        Ok(())
    }
}

/// Why a text is not a page weight (a finite number >= 0). Each holds the text as given,
/// escaped for display.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WeightError {
    /// Nothing where the weight should be.
    #[error("empty weight (expected a number >= 0)")]
    Empty,
    /// A text that is no number.
    #[error("weight `{0}` is not a number")]
    NotANumber(String),
    /// `NaN`.
    #[error("weight `{0}` is not a number (weights are finite and >= 0)")]
    NaN(String),
    /// An infinity.
    #[error("weight `{0}` is not finite (weights are finite and >= 0)")]
    Infinite(String),
    /// A number below 0.
    #[error("weight `{0}` is negative (weights are finite and >= 0)")]
    Negative(String),
}

/// The error's sentence, for the readers that place it in a file.
impl From<WeightError> for String {
    fn from(e: WeightError) -> String {
        e.to_string()
    }
}

/// Parses a page weight: a finite `f64` >= 0 (`-0` becomes 0). The error says why not.
///
/// ```
/// use freshgp_data::data::weights::{parse_weight, WeightError};
///
/// assert_eq!(parse_weight("2.5"), Ok(2.5));
/// assert!(parse_weight("-0").unwrap().is_sign_positive());
/// assert_eq!(parse_weight("NaN"), Err(WeightError::NaN("NaN".into())));
/// assert!(parse_weight("inf").unwrap_err().to_string().contains("not finite"));
/// ```
pub fn parse_weight(s: &str) -> Result<f64, WeightError> {
    let shown = || s.escape_debug().to_string();
    match s.parse::<f64>() {
        Err(_) if s.is_empty() => Err(WeightError::Empty),
        Err(_) => Err(WeightError::NotANumber(shown())),
        Ok(w) if w.is_nan() => Err(WeightError::NaN(shown())),
        Ok(w) if w.is_infinite() => Err(WeightError::Infinite(shown())),
        Ok(w) if w < 0.0 => Err(WeightError::Negative(shown())),
        // `+ 0.0` turns -0 into +0 (terminal values are never -0.0).
        Ok(w) => Ok(w + 0.0),
    }
}

/// The pages of `d` by id: each id's first page, and for ids held by several pages the
/// next page with the same id (`u32::MAX` = none).
struct IdIndex<'a> {
    first: HashMap<&'a str, u32>,
    next: Vec<u32>,
}

impl<'a> IdIndex<'a> {
    fn of(d: &'a Dataset) -> IdIndex<'a> {
        let mut first = HashMap::with_capacity(d.pages());
        let mut last: HashMap<&str, u32> = HashMap::new();
        let mut next = vec![u32::MAX; d.pages()];
        for p in 0..d.pages() {
            let id = d.id(p).unwrap_or("");
            let p = p as u32;
            match first.entry(id) {
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(p);
                }
                std::collections::hash_map::Entry::Occupied(o) => {
                    let tail = last.get(id).copied().unwrap_or(*o.get());
                    next[tail as usize] = p;
                    last.insert(id, p);
                }
            }
        }
        IdIndex { first, next }
    }

    /// Calls `f` on every page with id `id`; false when there is none.
    fn each(&self, id: &str, mut f: impl FnMut(usize)) -> bool {
        let Some(&p) = self.first.get(id) else {
            return false;
        };
        let mut p = p;
        while p != u32::MAX {
            f(p as usize);
            p = self.next[p as usize];
        }
        true
    }
}

/// Sets the weights of `d`'s pages from a `page<TAB>weight` file read from `reader`
/// (see the module docs for the rules); `file` names it in errors and in the report.
/// On error `d` is unchanged.
pub fn apply<R: BufRead>(
    d: &mut Dataset,
    reader: R,
    file: &str,
) -> Result<WeightReport, DataError> {
    if !d.has_ids() {
        return Err(DataError::Invalid {
            what: file.to_string(),
            reason: "the history has no page ids, so weights cannot be matched to its pages".into(),
        });
    }
    let mut weights: Vec<f64> = (0..d.pages()).map(|p| d.weight(p)).collect();
    let mut listed = vec![false; d.pages()];
    let report = {
        let index = IdIndex::of(d);
        read_entries(reader, file, &index, &mut weights, &mut listed)?
    };
    if report.pages_set > 0 {
        d.set_weights(weights);
    }
    Ok(report)
}

/// [`apply`] on the file at `path`.
pub fn apply_file(d: &mut Dataset, path: &Path) -> Result<WeightReport, DataError> {
    let name = path.display().to_string();
    let f = std::fs::File::open(path).map_err(|e| DataError::io(&name, &e))?;
    apply(d, std::io::BufReader::with_capacity(1 << 20, f), &name)
}

/// Reads every line of the file into `weights` (pages `listed`), checking each.
fn read_entries<R: BufRead>(
    mut reader: R,
    file: &str,
    index: &IdIndex<'_>,
    weights: &mut [f64],
    listed: &mut [bool],
) -> Result<WeightReport, DataError> {
    let mut report = WeightReport {
        file: file.to_string(),
        ..WeightReport::default()
    };
    // Each id read so far and its line, to name both lines of a repeated id.
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut buf = Vec::new();
    let mut no = 0;
    loop {
        buf.clear();
        if reader
            .read_until(b'\n', &mut buf)
            .map_err(|e| DataError::io(file, &e))?
            == 0
        {
            break;
        }
        no += 1;
        let err = |column: usize, reason: String| DataError::Malformed {
            file: file.to_string(),
            line: no,
            column,
            reason,
        };
        let Some((id, w)) = parse_line(&buf, &err)? else {
            continue;
        };
        if let Some(first) = seen.insert(id.to_string(), no) {
            return Err(err(
                1,
                format!(
                    "page `{}` listed twice (first on line {first})",
                    id.escape_debug()
                ),
            ));
        }
        report.entries += 1;
        let found = index.each(id, |p| {
            weights[p] = w;
            listed[p] = true;
            report.pages_set += 1;
        });
        if !found {
            report.unknown_ids += 1;
            if report.unknown_examples.len() < UNKNOWN_EXAMPLES {
                report.unknown_examples.push(id.to_string());
            }
        }
    }
    report.pages_not_listed = listed.iter().filter(|&&l| !l).count();
    Ok(report)
}

/// One line: `None` for a comment or blank line, else its id and weight.
fn parse_line<'a>(
    buf: &'a [u8],
    err: &dyn Fn(usize, String) -> DataError,
) -> Result<Option<(&'a str, f64)>, DataError> {
    let line = buf.strip_suffix(b"\n").unwrap_or(buf);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = std::str::from_utf8(line).map_err(|e| {
        let valid = String::from_utf8_lossy(&line[..e.valid_up_to()]);
        err(valid.chars().count() + 1, "not UTF-8".into())
    })?;
    if line.trim().is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let Some((id, weight)) = line.split_once('\t') else {
        return Err(err(
            line.chars().count() + 1,
            "missing TAB: expected page_id<TAB>weight".into(),
        ));
    };
    let weight_column = id.chars().count() + 2;
    if id.is_empty() {
        return Err(err(1, "empty page id".into()));
    }
    if let Some(at) = weight.find('\t') {
        return Err(err(
            weight_column + weight[..at].chars().count() + 1,
            "a third field: expected page_id<TAB>weight".into(),
        ));
    }
    let w = parse_weight(weight).map_err(|reason| err(weight_column, reason.into()))?;
    Ok(Some((id, w)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::text;

    fn history() -> Dataset {
        text::read(
            "01\ta\th\n10\tb\th\tweight=4\n11\tc\th\n00\ta\th\n".as_bytes(),
            "h.tsv",
        )
        .unwrap()
    }

    fn weights_of(d: &Dataset) -> Vec<f64> {
        (0..d.pages()).map(|p| d.weight(p)).collect()
    }

    #[test]
    fn listed_pages_change_others_keep_theirs() {
        let mut d = history();
        let r = apply(&mut d, "# x\n\nc\t2.5\r\na\t7\nnope\t1\n".as_bytes(), "w").unwrap();
        // `a` is held by pages 0 and 3: both take 7; `b` keeps its weight= 4
        assert_eq!(weights_of(&d), [7.0, 4.0, 2.5, 7.0]);
        assert_eq!(
            r,
            WeightReport {
                file: "w".into(),
                entries: 3,
                pages_set: 3,
                pages_not_listed: 1,
                unknown_ids: 1,
                unknown_examples: vec!["nope".into()],
            }
        );
        assert!(
            r.to_string().contains("1 id not in the history (`nope`)"),
            "{r}"
        );
    }

    #[test]
    fn unweighted_history_becomes_weighted_only_when_a_page_matches() {
        let mut d = text::read("01\ta\n10\tb\n".as_bytes(), "h").unwrap();
        let r = apply(&mut d, "x\t3\n".as_bytes(), "w").unwrap();
        assert_eq!(r.unknown_ids, 1);
        assert!(!d.has_weights());
        apply(&mut d, "b\t0\n".as_bytes(), "w").unwrap();
        assert!(d.has_weights());
        assert_eq!(weights_of(&d), [1.0, 0.0]);
    }

    #[test]
    fn unknown_examples_are_capped() {
        let mut d = history();
        let file: String = (0..9).map(|i| format!("u{i}\t1\n")).collect();
        let r = apply(&mut d, file.as_bytes(), "w").unwrap();
        assert_eq!(r.unknown_ids, 9);
        assert_eq!(r.unknown_examples.len(), UNKNOWN_EXAMPLES);
        assert_eq!(r.unknown_examples[0], "u0");
        assert!(r.to_string().ends_with(", ...)"), "{r}");
    }

    fn err(file: &[u8]) -> String {
        let mut d = history();
        let before = d.clone();
        let e = apply(&mut d, file, "w.tsv").unwrap_err().to_string();
        assert_eq!(d, before, "the dataset changed on error");
        e
    }

    #[test]
    fn each_malformation_is_located() {
        let cases: [(&[u8], &str); 11] = [
            (
                b"a\t1\nb\n",
                "w.tsv:2:2: missing TAB: expected page_id<TAB>weight",
            ),
            (
                b"a 1\n",
                "w.tsv:1:4: missing TAB: expected page_id<TAB>weight",
            ),
            (
                b"a\t-1\n",
                "w.tsv:1:3: weight `-1` is negative (weights are finite and >= 0)",
            ),
            (
                b"ab\tNaN\n",
                "w.tsv:1:4: weight `NaN` is not a number (weights are finite and >= 0)",
            ),
            (
                b"a\tinf\n",
                "w.tsv:1:3: weight `inf` is not finite (weights are finite and >= 0)",
            ),
            (
                b"a\t1e999\n",
                "w.tsv:1:3: weight `1e999` is not finite (weights are finite and >= 0)",
            ),
            (b"a\tlots\n", "w.tsv:1:3: weight `lots` is not a number"),
            (b"a\t\n", "w.tsv:1:3: empty weight (expected a number >= 0)"),
            (b"\t1\n", "w.tsv:1:1: empty page id"),
            (
                b"a\t1\t2\n",
                "w.tsv:1:5: a third field: expected page_id<TAB>weight",
            ),
            (b"a\t1\n\xffb\t1\n", "w.tsv:2:1: not UTF-8"),
        ];
        for (file, want) in cases {
            assert_eq!(err(file), want, "{}", String::from_utf8_lossy(file));
        }
        // a repeated id names both lines, even with the same weight and an unknown id
        assert_eq!(
            err(b"a\t1\n# c\nzz\t2\nzz\t2\n"),
            "w.tsv:4:1: page `zz` listed twice (first on line 3)"
        );
    }

    #[test]
    fn a_history_without_ids_is_refused() {
        let mut d = Dataset::from_bit_strings(&["01"]).unwrap();
        let e = apply(&mut d, "a\t1\n".as_bytes(), "w.tsv").unwrap_err();
        assert!(e.to_string().contains("no page ids"), "{e}");
    }

    #[test]
    fn negative_zero_becomes_zero() {
        let mut d = history();
        apply(&mut d, "a\t-0\n".as_bytes(), "w").unwrap();
        assert!(d.weight(0) == 0.0 && d.weight(0).is_sign_positive());
    }

    #[test]
    fn each_reason_a_weight_is_refused_is_its_own_variant() {
        let cases = [
            (
                "",
                WeightError::Empty,
                "empty weight (expected a number >= 0)",
            ),
            (
                "heavy\t",
                WeightError::NotANumber("heavy\\t".into()),
                "weight `heavy\\t` is not a number",
            ),
            (
                "nan",
                WeightError::NaN("nan".into()),
                "weight `nan` is not a number (weights are finite and >= 0)",
            ),
            (
                "-inf",
                WeightError::Infinite("-inf".into()),
                "weight `-inf` is not finite (weights are finite and >= 0)",
            ),
            (
                "-1e-300",
                WeightError::Negative("-1e-300".into()),
                "weight `-1e-300` is negative (weights are finite and >= 0)",
            ),
        ];
        for (text, error, message) in cases {
            assert_eq!(parse_weight(text), Err(error.clone()), "{text:?}");
            assert_eq!(error.to_string(), message);
            assert_eq!(String::from(error), message);
        }
        assert_eq!(parse_weight("1e308"), Ok(1e308));
    }
}
