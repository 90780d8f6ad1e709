//! Change-history datasets (SPEC §1): which pages changed in which cycles.
//!
//! A [`Dataset`] holds P pages × D cycles packed as bits (one `u64` word per 64 cycles
//! per page), a mask of unknown cycles (`?`, failed downloads), and optional page ids,
//! hosts and weights. Cycles are numbered from 1, as in the SPEC.
//!
//! ```
//! use freshgp::data::Dataset;
//!
//! let d = Dataset::from_bit_strings(&["0101", "1?00"]).unwrap();
//! assert_eq!((d.pages(), d.cycles()), (2, 4));
//! assert!(d.changed(0, 2) && !d.changed(0, 1));
//! assert!(d.is_unknown(1, 2));
//! ```
//!
//! **Invariant:** this module knows nothing of formulas, simulation or GP.

use std::fmt;

/// Why a dataset could not be built or read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DataError {
    /// A malformed line or field, with its place.
    #[error("{file}:{line}:{column}: {reason}")]
    Malformed {
        /// The file (or other origin).
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column (in characters).
        column: usize,
        /// What is wrong.
        reason: String,
    },
    /// The input holds no page.
    #[error("{file}: no pages (the file is empty or holds only comments)")]
    Empty {
        /// The file (or other origin).
        file: String,
    },
}

/// A change history: P pages × D cycles.
///
/// **Invariant:** `bits` and `unknown` hold `pages * words` words; bits past `cycles` are 0;
/// a cycle is never both changed and unknown.
#[derive(Clone, PartialEq)]
pub struct Dataset {
    pages: usize,
    cycles: usize,
    words: usize,
    bits: Vec<u64>,
    unknown: Vec<u64>,
    ids: Option<Vec<String>>,
    hosts: Option<Vec<u32>>,
    host_names: Vec<String>,
    weights: Option<Vec<f64>>,
}

impl fmt::Debug for Dataset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Dataset({} pages × {} cycles)", self.pages, self.cycles)
    }
}

impl Dataset {
    /// An empty history of `pages` × `cycles` (no change anywhere), to fill with
    /// [`Dataset::set_changed`].
    pub fn new(pages: usize, cycles: usize) -> Dataset {
        let words = cycles.div_ceil(64).max(1);
        Dataset {
            pages,
            cycles,
            words,
            bits: vec![0; pages * words],
            unknown: vec![0; pages * words],
            ids: None,
            hosts: None,
            host_names: Vec::new(),
            weights: None,
        }
    }

    /// Builds a dataset from BITS strings over `0 1 ?` (one per page), as in tests and
    /// examples. Errors name the string (as line) and column.
    pub fn from_bit_strings(rows: &[&str]) -> Result<Dataset, DataError> {
        let malformed = |line: usize, column: usize, reason: String| DataError::Malformed {
            file: "<bits>".into(),
            line,
            column,
            reason,
        };
        let Some(first) = rows.first() else {
            return Err(DataError::Empty {
                file: "<bits>".into(),
            });
        };
        let cycles = first.chars().count();
        let mut d = Dataset::new(rows.len(), cycles);
        for (p, row) in rows.iter().enumerate() {
            let mut count = 0;
            for (k, c) in row.chars().enumerate() {
                match c {
                    '0' => {}
                    '1' if k < cycles => d.set_changed(p, k + 1, true),
                    '?' if k < cycles => d.set_unknown(p, k + 1, true),
                    '1' | '?' => {}
                    other => {
                        return Err(malformed(
                            p + 1,
                            k + 1,
                            format!(
                                "`{}` is not a cycle (expected 0, 1 or ?)",
                                other.escape_debug()
                            ),
                        ))
                    }
                }
                count += 1;
            }
            if count != cycles {
                return Err(malformed(
                    p + 1,
                    count.min(cycles) + 1,
                    format!("{count} cycles, but the first page has {cycles}"),
                ));
            }
        }
        Ok(d)
    }

    /// Number of pages P.
    pub fn pages(&self) -> usize {
        self.pages
    }

    /// Number of cycles D.
    pub fn cycles(&self) -> usize {
        self.cycles
    }

    /// `u64` words per page row.
    pub fn words_per_page(&self) -> usize {
        self.words
    }

    /// Page `p`'s change bits: cycle `d` is bit `(d - 1) % 64` of word `(d - 1) / 64`.
    pub fn row(&self, p: usize) -> &[u64] {
        &self.bits[p * self.words..(p + 1) * self.words]
    }

    /// Page `p`'s unknown-cycle mask, laid out as [`Dataset::row`].
    pub fn unknown_row(&self, p: usize) -> &[u64] {
        &self.unknown[p * self.words..(p + 1) * self.words]
    }

    /// Whether page `p` changed at cycle `d` (1-based). Unknown cycles read as false.
    ///
    /// # Panics
    /// If `p` or `d` is out of range.
    pub fn changed(&self, p: usize, d: usize) -> bool {
        assert!(
            p < self.pages && (1..=self.cycles).contains(&d),
            "page {p}, cycle {d} out of range"
        );
        let k = d - 1;
        self.bits[p * self.words + k / 64] >> (k % 64) & 1 == 1
    }

    /// Whether page `p`'s cycle `d` is unknown (`?`).
    pub fn is_unknown(&self, p: usize, d: usize) -> bool {
        assert!(
            p < self.pages && (1..=self.cycles).contains(&d),
            "page {p}, cycle {d} out of range"
        );
        let k = d - 1;
        self.unknown[p * self.words + k / 64] >> (k % 64) & 1 == 1
    }

    /// Whether any cycle of any page is unknown.
    pub fn has_unknown(&self) -> bool {
        self.unknown.iter().any(|&w| w != 0)
    }

    /// Sets whether page `p` changed at cycle `d` (clearing its unknown mark).
    pub fn set_changed(&mut self, p: usize, d: usize, changed: bool) {
        assert!(
            p < self.pages && (1..=self.cycles).contains(&d),
            "page {p}, cycle {d} out of range"
        );
        let (w, bit) = (p * self.words + (d - 1) / 64, 1u64 << ((d - 1) % 64));
        self.unknown[w] &= !bit;
        if changed {
            self.bits[w] |= bit;
        } else {
            self.bits[w] &= !bit;
        }
    }

    /// Marks page `p`'s cycle `d` unknown (or known and unchanged).
    pub fn set_unknown(&mut self, p: usize, d: usize, unknown: bool) {
        assert!(
            p < self.pages && (1..=self.cycles).contains(&d),
            "page {p}, cycle {d} out of range"
        );
        let (w, bit) = (p * self.words + (d - 1) / 64, 1u64 << ((d - 1) % 64));
        self.bits[w] &= !bit;
        if unknown {
            self.unknown[w] |= bit;
        } else {
            self.unknown[w] &= !bit;
        }
    }

    /// Page `p`'s id, if the dataset has ids.
    pub fn id(&self, p: usize) -> Option<&str> {
        self.ids.as_ref().map(|ids| ids[p].as_str())
    }

    /// Sets the page ids (one per page).
    ///
    /// # Panics
    /// If the number of ids differs from the number of pages.
    pub fn set_ids(&mut self, ids: Vec<String>) {
        assert_eq!(ids.len(), self.pages, "one id per page");
        self.ids = Some(ids);
    }

    /// Page `p`'s host index into [`Dataset::host_names`], if the dataset has hosts.
    pub fn host(&self, p: usize) -> Option<u32> {
        self.hosts.as_ref().map(|h| h[p])
    }

    /// The distinct host names.
    pub fn host_names(&self) -> &[String] {
        &self.host_names
    }

    /// Sets hosts: `hosts[p]` indexes `names`.
    ///
    /// # Panics
    /// If the number of hosts differs from the number of pages or an index is out of range.
    pub fn set_hosts(&mut self, hosts: Vec<u32>, names: Vec<String>) {
        assert_eq!(hosts.len(), self.pages, "one host per page");
        assert!(
            hosts.iter().all(|&h| (h as usize) < names.len()),
            "host index out of range"
        );
        self.hosts = Some(hosts);
        self.host_names = names;
    }

    /// Page `p`'s importance (default 1).
    pub fn weight(&self, p: usize) -> f64 {
        self.weights.as_ref().map_or(1.0, |w| w[p])
    }

    /// Sets page weights.
    ///
    /// # Panics
    /// If the number of weights differs from the number of pages.
    pub fn set_weights(&mut self, weights: Vec<f64>) {
        assert_eq!(weights.len(), self.pages, "one weight per page");
        self.weights = Some(weights);
    }

    /// Whether pages carry weights other than the default.
    pub fn has_weights(&self) -> bool {
        self.weights.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_round_trip_across_words() {
        let mut row = vec!['0'; 130];
        for k in [0, 63, 64, 127, 129] {
            row[k] = '1';
        }
        let row: String = row.into_iter().collect();
        let d = Dataset::from_bit_strings(&[&row]).unwrap();
        assert_eq!(d.words_per_page(), 3);
        for k in 0..130 {
            assert_eq!(
                d.changed(0, k + 1),
                [0, 63, 64, 127, 129].contains(&k),
                "cycle {}",
                k + 1
            );
        }
    }

    #[test]
    fn bad_strings_are_located() {
        let e = Dataset::from_bit_strings(&["0101", "01x1"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "<bits>:2:3: `x` is not a cycle (expected 0, 1 or ?)"
        );
        let e = Dataset::from_bit_strings(&["0101", "01"]).unwrap_err();
        assert!(e.to_string().starts_with("<bits>:2:3: 2 cycles"), "{e}");
        assert!(Dataset::from_bit_strings(&[]).is_err());
    }

    #[test]
    fn unknown_and_changed_are_exclusive() {
        let mut d = Dataset::new(1, 3);
        d.set_unknown(0, 2, true);
        d.set_changed(0, 2, true);
        assert!(d.changed(0, 2) && !d.is_unknown(0, 2));
    }
}
