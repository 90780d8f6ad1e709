//! The frequency features (the seed's Table 1,
//! docs/src/reference/models.md#frequency-features) and the examples built from them.
//!
//! For page p and cycle d, from what was observed up to cycle d-1 ([`Observations`]):
//!
//! | feature | name | value |
//! |---|---|---|
//! | [`Feature::Frequency`] | `freq1`, `freq7`, `freq30` | detected changes / observed cycles in `d-w ..= d-1` (0 when none observed) |
//! | [`Feature::SinceChange`] | `since_change` | `d -` the last detected change before d, or `d` when none |
//! | [`Feature::Group`] | `group:KEY` | Σ X / Σ n over the training pages sharing p's value of attribute KEY (`host` included), observations up to d-1; 0 when Σ n = 0 or p lacks the attribute |
//! | [`Feature::Category`] | `cat:KEY` | p's code under attribute KEY (`host` included), the attribute's cardinality when p lacks it: an index into the network's embedding of KEY, not a quantity |
//!
//! The label of (p, d) is 1 when the page changes at some cycle `d ..= d+K-1` of the true
//! history. Features see the history from cycle 1, whatever period the example belongs to.
//!
//! ```
//! use freshgp_data::data::Dataset;
//! use freshgp_learn::predict::{Examples, Observations};
//! use freshgp_policy::model::{Feature, FeatureSet};
//!
//! let d = Dataset::from_bit_strings(&["0101010", "0000001"]).unwrap();
//! let set = FeatureSet::new(vec![Feature::Frequency(7), Feature::SinceChange]);
//! let o = Observations::full(&d);
//! let x = Examples::build(&d, &o, &set, &[0, 1], &[0, 1], 5..=6, 1).unwrap();
//! assert_eq!(x.len(), 4); // (cycle, page) order: (5, 0), (5, 1), (6, 0), (6, 1)
//! assert_eq!(x.row(0), [0.5, 1.0]); // 2 changes in 4 cycles; the last at cycle 4
//! assert_eq!(x.labels(), [false, false, true, false]);
//! ```

use super::FeatureError;
use super::{Observations, PredictError};
use crate::data::Dataset;
use crate::model::{Feature, FeatureSet};
use std::borrow::Cow;
use std::ops::RangeInclusive;

/// The part of a [`FeatureSet`] that reads a dataset's attribute codes (the feature set
/// is `freshgp_policy::model`'s, which does not read attributes).
pub trait FeatureCodes {
    /// The number of values of each categorical feature's attribute in `data`, in
    /// feature order (a code equal to it stands for a page without the attribute).
    ///
    /// # Errors
    /// An attribute no page has.
    fn cardinalities(&self, data: &Dataset) -> Result<Vec<usize>, PredictError>;
}

impl FeatureCodes for FeatureSet {
    fn cardinalities(&self, data: &Dataset) -> Result<Vec<usize>, PredictError> {
        self.features()
            .iter()
            .filter_map(|f| match f {
                Feature::Category(key) => Some(group_codes(data, key).map(|(_, n)| n)),
                _ => None,
            })
            .collect()
    }
}

/// Examples in (cycle, page) order: a row of feature values and a label each.
#[derive(Debug, Clone, PartialEq)]
pub struct Examples {
    width: usize,
    values: Vec<f64>,
    labels: Vec<bool>,
}

/// Each page's group code under one attribute (`u32::MAX`: none).
fn group_codes(data: &Dataset, key: &str) -> Result<(Vec<u32>, usize), PredictError> {
    if key == "host" {
        let codes: Vec<u32> = (0..data.pages())
            .map(|p| match data.host(p) {
                Some(h) if !data.host_names()[h as usize].is_empty() => h,
                _ => u32::MAX,
            })
            .collect();
        return Ok((codes, data.host_names().len()));
    }
    let a = data
        .attributes()
        .get(key)
        .ok_or_else(|| FeatureError::NoAttribute {
            key: key.to_string(),
            known: data
                .attributes()
                .names()
                .into_iter()
                .map(String::from)
                .collect(),
        })?;
    Ok((a.codes().to_vec(), a.values().len()))
}

/// Per group and cycle, the training pages' observed and detected counts, cumulative:
/// `n[g][d]` = observations of group g's training pages at cycles `1..=d`.
#[derive(Clone)]
pub(crate) struct GroupRates {
    codes: Vec<u32>,
    n: Vec<Vec<u64>>,
    x: Vec<Vec<u64>>,
}

impl GroupRates {
    pub(crate) fn new(
        data: &Dataset,
        obs: &Observations,
        key: &str,
        train: &[u32],
    ) -> Result<GroupRates, PredictError> {
        let (codes, groups) = group_codes(data, key)?;
        let cycles = obs.cycles();
        let mut n = vec![vec![0u64; cycles + 1]; groups];
        let mut x = vec![vec![0u64; cycles + 1]; groups];
        for &p in train {
            let g = codes[p as usize];
            if g == u32::MAX {
                continue;
            }
            for d in 1..=cycles {
                if obs.observed(p as usize, d) {
                    n[g as usize][d] += 1;
                    x[g as usize][d] += obs.detected(p as usize, d) as u64;
                }
            }
        }
        for g in 0..groups {
            for d in 1..=cycles {
                n[g][d] += n[g][d - 1];
                x[g][d] += x[g][d - 1];
            }
        }
        Ok(GroupRates { codes, n, x })
    }

    /// The pages' codes under `key` alone (no counts): what [`Feature::Category`] reads.
    fn codes(data: &Dataset, key: &str) -> Result<GroupRates, PredictError> {
        let (codes, groups) = group_codes(data, key)?;
        Ok(GroupRates {
            codes,
            n: vec![Vec::new(); groups],
            x: Vec::new(),
        })
    }

    /// Page p's `cat:KEY` value: its code, or the cardinality when it lacks the attribute.
    fn code(&self, p: usize) -> f64 {
        match self.codes[p] {
            u32::MAX => self.n.len() as f64,
            g => f64::from(g),
        }
    }

    /// Page p's group frequency from the observations up to cycle `d - 1`.
    fn at(&self, p: usize, d: usize) -> f64 {
        match self.codes[p] {
            u32::MAX => 0.0,
            g => {
                let (n, x) = (self.n[g as usize][d - 1], self.x[g as usize][d - 1]);
                if n == 0 {
                    0.0
                } else {
                    x as f64 / n as f64
                }
            }
        }
    }
}

/// The group rates of every group feature of `set` (counting the pages `train`), the codes
/// of every categorical feature, `None` for the others.
///
/// # Errors
/// A feature only the stale model reads (`predict::stale` computes those), or an
/// attribute the data lacks.
pub(crate) fn group_rates(
    data: &Dataset,
    obs: &Observations,
    set: &FeatureSet,
    train: &[u32],
) -> Result<Vec<Option<GroupRates>>, PredictError> {
    if let Some(f) = set.features().iter().find(|f| f.is_stale_only()) {
        return Err(FeatureError::StaleOnly(f.clone()).into());
    }
    set.features()
        .iter()
        .map(|f| match f {
            Feature::Group(key) => GroupRates::new(data, obs, key, train).map(Some),
            Feature::Category(key) => GroupRates::codes(data, key).map(Some),
            _ => Ok(None),
        })
        .collect()
}

/// Feature `f` of page `p` (row `row` of `obs`) at cycle `d`, from the observations up to
/// `d - 1`; `group` holds the group rates of a group feature.
pub(crate) fn value(
    f: &Feature,
    group: Option<&GroupRates>,
    obs: &Observations,
    row: usize,
    p: usize,
    d: usize,
) -> f64 {
    match (f, group) {
        (Feature::Frequency(w), _) => {
            let (n, x) = obs.counts(row, d.saturating_sub(*w as usize), d - 1);
            if n == 0 {
                0.0
            } else {
                f64::from(x) / f64::from(n)
            }
        }
        (Feature::SinceChange, _) => (d - obs.last_detected(row, d - 1).unwrap_or(0)) as f64,
        (Feature::Group(_), Some(g)) => g.at(p, d),
        (Feature::Category(_), Some(g)) => g.code(p),
        (Feature::Group(_) | Feature::Category(_), None) => 0.0,
        // Invariant: `group_rates` refuses these for the change models that read `value`;
        // the stale model computes them in `predict::stale`.
        (Feature::SinceVisit | Feature::Rate | Feature::Prior, _) => {
            unreachable!("invariant: a stale-model feature among a change model's")
        }
    }
}

/// Examples in (cycle, page) order handed out in chunks: all at once when they are held
/// in memory ([`Examples`], one chunk), or computed chunk by chunk when they would not fit
/// ([`ExampleStream`]). Training and scoring walk the chunks in order, so a source of one
/// chunk and a stream of many give the same sums in the same order.
pub trait ExampleSource {
    /// Number of examples.
    fn len(&self) -> usize;

    /// Whether there is none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of chunks (at least 1).
    fn chunks(&self) -> usize;

    /// Chunk `i < chunks()`: the next examples in (cycle, page) order.
    fn chunk(&self, i: usize) -> Cow<'_, Examples>;

    /// Number of positive labels (a pass over the chunks).
    fn positives(&self) -> usize {
        (0..self.chunks())
            .map(|i| self.chunk(i).labels().iter().filter(|&&l| l).count())
            .sum()
    }
}

/// The scores `score` gives the rows of every chunk of `source` (values row after row,
/// into its buffer), and their labels, into `scores` and `labels` (replacing what they held).
pub fn score_chunks(
    source: &dyn ExampleSource,
    mut score: impl FnMut(&[f64], &mut Vec<f64>),
    scores: &mut Vec<f64>,
    labels: &mut Vec<bool>,
) {
    scores.clear();
    labels.clear();
    let mut block = Vec::new();
    for i in 0..source.chunks() {
        let chunk = source.chunk(i);
        score(chunk.values(), &mut block);
        scores.extend_from_slice(&block);
        labels.extend_from_slice(chunk.labels());
    }
}

impl ExampleSource for Examples {
    fn len(&self) -> usize {
        self.labels.len()
    }

    fn chunks(&self) -> usize {
        1
    }

    fn chunk(&self, _: usize) -> Cow<'_, Examples> {
        Cow::Borrowed(self)
    }
}

/// The examples of [`Examples::build`], computed chunk by chunk when asked (training
/// without materializing every example, docs/src/reference/models.md#examples-and-labels):
/// each chunk holds at most `chunk_rows` examples, and costs the features of its rows each
/// time it is asked.
///
/// ```
/// use freshgp_data::data::Dataset;
/// use freshgp_learn::predict::{ExampleSource, ExampleStream, Examples, Observations};
/// use freshgp_policy::model::{Feature, FeatureSet};
///
/// let d = Dataset::from_bit_strings(&["0101010", "0000001", "1111111"]).unwrap();
/// let set = FeatureSet::new(vec![Feature::Frequency(7), Feature::SinceChange]);
/// let o = Observations::full(&d);
/// let s = ExampleStream::new(&d, &o, &set, &[0, 1, 2], &[0], 5..=7, 1).unwrap().chunk_rows(4);
/// assert_eq!((s.len(), s.chunks()), (9, 3));
/// let all = Examples::build(&d, &o, &set, &[0, 1, 2], &[0], 5..=7, 1).unwrap();
/// assert_eq!(s.chunk(1).row(0), all.row(4));
/// assert_eq!(s.collect(), all);
/// ```
pub struct ExampleStream<'a> {
    data: &'a Dataset,
    obs: &'a Observations,
    set: FeatureSet,
    pages: Vec<u32>,
    groups: Vec<Option<GroupRates>>,
    first: usize,
    cycles: usize,
    k: usize,
    chunk_rows: usize,
}

impl<'a> ExampleStream<'a> {
    /// The examples of pages `pages` at cycles `cycles` whose label window `d ..= d+K-1`
    /// fits inside `cycles`, in (cycle, page) order; group frequencies count the pages
    /// `train` only. One chunk until [`ExampleStream::chunk_rows`] says otherwise.
    ///
    /// # Errors
    /// K = 0, a cycle outside the history, or a group feature of an attribute no page has.
    pub fn new(
        data: &'a Dataset,
        obs: &'a Observations,
        set: &FeatureSet,
        pages: &[u32],
        train: &[u32],
        cycles: RangeInclusive<usize>,
        k: usize,
    ) -> Result<ExampleStream<'a>, PredictError> {
        if k == 0 {
            return Err(PredictError::Horizon);
        }
        let (first, last) = (*cycles.start(), *cycles.end());
        if first == 0 || last > data.cycles() {
            return Err(PredictError::Cycles {
                first,
                last,
                cycles: data.cycles(),
            });
        }
        let groups = group_rates(data, obs, set, train)?;
        // The labelled cycles: d with d + K - 1 <= last.
        let cycles = (last + 2).saturating_sub(first + k);
        Ok(ExampleStream {
            data,
            obs,
            set: set.clone(),
            pages: pages.to_vec(),
            groups,
            first,
            cycles,
            k,
            chunk_rows: usize::MAX,
        })
    }

    /// The same examples in chunks of at most `rows` (at least 1).
    pub fn chunk_rows(mut self, rows: usize) -> ExampleStream<'a> {
        self.chunk_rows = rows.max(1);
        self
    }

    /// Every example, in memory.
    pub fn collect(&self) -> Examples {
        self.rows(0, self.len())
    }

    /// Examples `from..to` (row `r` is cycle `first + r / pages`, page `pages[r % pages]`).
    fn rows(&self, from: usize, to: usize) -> Examples {
        let width = self.set.len();
        let mut out = Examples {
            width,
            values: Vec::with_capacity(width * (to - from)),
            labels: Vec::with_capacity(to - from),
        };
        for r in from..to {
            let (d, p) = self.at(r);
            for (f, g) in self.set.features().iter().zip(&self.groups) {
                out.values.push(value(f, g.as_ref(), self.obs, p, p, d));
            }
            out.labels.push(self.label(r));
        }
        out
    }

    /// Example `r`'s (cycle, page).
    fn at(&self, r: usize) -> (usize, usize) {
        let n = self.pages.len();
        (self.first + r / n, self.pages[r % n] as usize)
    }

    /// Example `r`'s label: its page changes within K cycles from its cycle.
    fn label(&self, r: usize) -> bool {
        let (d, p) = self.at(r);
        (d..d + self.k).any(|j| self.data.changed(p, j))
    }
}

impl ExampleSource for ExampleStream<'_> {
    fn len(&self) -> usize {
        self.pages.len() * self.cycles
    }

    fn chunks(&self) -> usize {
        self.len().div_ceil(self.chunk_rows).max(1)
    }

    fn chunk(&self, i: usize) -> Cow<'_, Examples> {
        let from = i.saturating_mul(self.chunk_rows).min(self.len());
        let to = from.saturating_add(self.chunk_rows).min(self.len());
        Cow::Owned(self.rows(from, to))
    }

    fn positives(&self) -> usize {
        (0..self.len()).filter(|&r| self.label(r)).count()
    }
}

impl Examples {
    /// Every example of [`ExampleStream::new`], in memory.
    ///
    /// # Errors
    /// As [`ExampleStream::new`].
    pub fn build(
        data: &Dataset,
        obs: &Observations,
        set: &FeatureSet,
        pages: &[u32],
        train: &[u32],
        cycles: RangeInclusive<usize>,
        k: usize,
    ) -> Result<Examples, PredictError> {
        Ok(ExampleStream::new(data, obs, set, pages, train, cycles, k)?.collect())
    }

    /// Number of examples.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// Number of features per example.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Example `i`'s feature values.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.values[i * self.width..(i + 1) * self.width]
    }

    /// Every example's values, row after row.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// The labels.
    pub fn labels(&self) -> &[bool] {
        &self.labels
    }

    /// The examples with only the columns `columns`, in that order.
    pub fn select(&self, columns: &[usize]) -> Examples {
        let mut values = Vec::with_capacity(self.len() * columns.len());
        for i in 0..self.len() {
            let row = self.row(i);
            values.extend(columns.iter().map(|&j| row[j]));
        }
        Examples {
            width: columns.len(),
            values,
            labels: self.labels.clone(),
        }
    }

    /// Column `j` of every example.
    pub fn column(&self, j: usize) -> Vec<f64> {
        self.values
            .iter()
            .skip(j)
            .step_by(self.width)
            .copied()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::text;

    #[test]
    fn a_stream_in_any_chunks_is_the_examples_in_memory() {
        let d = text::read(
            "0110101101\tp0\th0\tcategory=a\n0000000001\tp1\th0\tcategory=b\n1111100000\tp2\th1\tcategory=a\n"
                .as_bytes(),
            "t",
        )
        .unwrap();
        let o = Observations::full(&d);
        let set: FeatureSet = FeatureSet::new(
            [
                "freq1",
                "freq7",
                "since_change",
                "group:category",
                "cat:host",
            ]
            .iter()
            .map(|f| f.parse().unwrap())
            .collect(),
        );
        let all = Examples::build(&d, &o, &set, &[2, 0, 1], &[0, 2], 3..=10, 2).unwrap();
        assert_eq!(all.len(), 3 * 7); // cycles 3..=9 have their label window inside
        for rows in [1, 2, 5, 20, 21, 22, usize::MAX] {
            let s = ExampleStream::new(&d, &o, &set, &[2, 0, 1], &[0, 2], 3..=10, 2)
                .unwrap()
                .chunk_rows(rows);
            assert_eq!(s.len(), all.len());
            assert_eq!(s.chunks(), all.len().div_ceil(rows), "rows {rows}");
            let mut joined = Examples {
                width: set.len(),
                values: vec![],
                labels: vec![],
            };
            for i in 0..s.chunks() {
                let c = s.chunk(i);
                assert!(c.len() <= rows);
                joined.values.extend_from_slice(c.values());
                joined.labels.extend_from_slice(c.labels());
            }
            assert_eq!(joined, all, "rows {rows}");
            assert_eq!(s.positives(), all.labels().iter().filter(|&&l| l).count());
        }
        // p2 changes at 1..=5: d = 3, 4, 5; p0 at 2 3 5 7 8 10: every d; p1 at 10: d = 9.
        assert_eq!(ExampleSource::positives(&all), 3 + 7 + 1);
    }

    #[test]
    fn names_round_trip_and_bad_ones_are_refused() {
        for name in [
            "freq1",
            "freq7",
            "freq30",
            "since_change",
            "group:category",
            "group:host",
            "cat:category",
            "cat:host",
        ] {
            assert_eq!(name.parse::<Feature>().unwrap().to_string(), name);
        }
        for bad in [
            "freq0",
            "freq",
            "freqx",
            "group:",
            "group:a b",
            "tc",
            "cat:",
            "cat:a b",
            "category",
        ] {
            assert!(bad.parse::<Feature>().is_err(), "{bad}");
        }
    }

    #[test]
    fn hand_worked_features_and_labels() {
        // Page 0 (cat a) changes at 2 and 5; page 1 (cat a) at 3; page 2 (cat b) never.
        let d = text::read(
            "010010\tp0\th0\tcat=a\n001000\tp1\th0\tcat=a\n000000\tp2\th1\tcat=b\n".as_bytes(),
            "t",
        )
        .unwrap();
        let o = Observations::full(&d);
        let set = FeatureSet::new(vec![
            Feature::Frequency(1),
            Feature::Frequency(3),
            Feature::SinceChange,
            Feature::Group("cat".into()),
            Feature::Group("host".into()),
        ]);
        // Group rates count page 0 only (the training pages).
        let x = Examples::build(&d, &o, &set, &[0, 1, 2], &[0], 4..=6, 2).unwrap();
        assert_eq!(x.len(), 6); // cycles 4 and 5 (window d..d+1 inside 4..=6)
                                // (4, p0): freq1 over cycle 3 = 0; freq3 over 1..3 = 1/3; since change 4-2 = 2;
                                // cat a over p0's cycles 1..3 = 1/3; host h0 likewise.
        assert_eq!(x.row(0), [0.0, 1.0 / 3.0, 2.0, 1.0 / 3.0, 1.0 / 3.0]);
        // (4, p1): changed at 3.
        assert_eq!(x.row(1), [1.0, 1.0 / 3.0, 1.0, 1.0 / 3.0, 1.0 / 3.0]);
        // (4, p2): never changed: since_change = d; its group has no training page.
        assert_eq!(x.row(2), [0.0, 0.0, 4.0, 0.0, 0.0]);
        // (5, p0): freq3 over 2..4 = 1/3; cat a over cycles 1..4 = 1/4.
        assert_eq!(x.row(3), [0.0, 1.0 / 3.0, 3.0, 0.25, 0.25]);
        // labels: change in d..=d+1
        assert_eq!(x.labels(), [true, false, false, true, false, false]);
        assert!(matches!(
            Examples::build(&d, &o, &set, &[0], &[0], 1..=6, 0),
            Err(PredictError::Horizon)
        ));
        let missing = FeatureSet::new(vec![Feature::Group("brand".into())]);
        let e = Examples::build(&d, &o, &missing, &[0], &[0], 1..=6, 1).unwrap_err();
        assert_eq!(
            e.to_string(),
            "no page has the attribute `brand` (the data has: cat)"
        );
    }

    #[test]
    fn categorical_codes_map_a_missing_value_to_the_cardinality() {
        // cat: a, b, (none), a; hosts h0, h1, h0, h2.
        let d = text::read(
            "0101\tp0\th0\tcat=a\n0011\tp1\th1\tcat=b\n0000\tp2\th0\n1111\tp3\th2\tcat=a\n"
                .as_bytes(),
            "t",
        )
        .unwrap();
        let o = Observations::full(&d);
        let set = FeatureSet::network(&d);
        let names: Vec<String> = set.features().iter().map(Feature::to_string).collect();
        let want = [
            "freq1",
            "freq7",
            "freq30",
            "since_change",
            "group:cat",
            "group:host",
        ];
        assert_eq!(names[..6], want);
        assert_eq!(names[6..], ["cat:cat", "cat:host"]);
        assert_eq!(set.cardinalities(&d).unwrap(), [2, 3]);
        assert!(set.features()[6].is_categorical() && !set.features()[4].is_categorical());
        let x = Examples::build(&d, &o, &set, &[0, 1, 2, 3], &[0], 2..=2, 1).unwrap();
        let codes: Vec<[f64; 2]> = (0..4).map(|i| [x.row(i)[6], x.row(i)[7]]).collect();
        assert_eq!(codes, [[0.0, 0.0], [1.0, 1.0], [2.0, 0.0], [0.0, 2.0]]);
        let only = FeatureSet::new(vec![Feature::Category("brand".into())]);
        assert!(only.cardinalities(&d).is_err());
        assert!(Examples::build(&d, &o, &only, &[0], &[0], 2..=2, 1).is_err());
    }
}
