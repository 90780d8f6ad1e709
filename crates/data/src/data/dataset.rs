//! [`Dataset`]: a change history of P pages × D cycles packed as bits, with its unknown
//! cycles and optional page ids, hosts, weights, latent change probabilities and
//! categorical attributes; and its [`Fingerprint`].

use super::{Attribute, Attributes, DataError};
use std::fmt;
use std::ops::RangeInclusive;

/// Page ids stored in one string arena (one allocation instead of one per page).
#[derive(Clone, PartialEq, Default)]
struct Ids {
    text: String,
    /// `ends[p]` = end of page p's id in `text`; page p starts at `ends[p - 1]` (or 0).
    ends: Vec<usize>,
}

impl Ids {
    fn get(&self, p: usize) -> &str {
        let start = if p == 0 { 0 } else { self.ends[p - 1] };
        &self.text[start..self.ends[p]]
    }

    fn push(&mut self, id: &str) {
        self.text.push_str(id);
        self.ends.push(self.text.len());
    }
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
    ids: Option<Ids>,
    hosts: Option<Vec<u32>>,
    host_names: Vec<String>,
    weights: Option<Vec<f64>>,
    /// Each page's latent change probability per cycle (synthetic histories:
    /// docs/src/reference/data.md#latent-change-probabilities).
    latent: Option<Vec<f64>>,
    attributes: Attributes,
    /// The attribute pages are grouped by for `GR` (an index into `attributes`; `None`:
    /// the host).
    grouping: Option<usize>,
}

/// A dataset's [`Dataset::fingerprint`], written as 16 hexadecimal digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fingerprint(u64);

/// One step of a fingerprint: `x` mixed into `h`.
fn fold(h: u64, x: u64) -> u64 {
    crate::hash::mix64(h ^ x)
}

/// A text mixed into `h`: its length, its bytes, an end mark.
fn text_hash(h: u64, s: &str) -> u64 {
    let h = s
        .bytes()
        .fold(fold(h, s.len() as u64), |h, b| fold(h, b as u64));
    fold(h, 0xFF)
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

impl std::str::FromStr for Fingerprint {
    type Err = std::num::ParseIntError;

    fn from_str(text: &str) -> Result<Fingerprint, Self::Err> {
        u64::from_str_radix(text, 16).map(Fingerprint)
    }
}

impl serde::Serialize for Fingerprint {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Fingerprint {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Fingerprint, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
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
            latent: None,
            attributes: Attributes::default(),
            grouping: None,
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

    /// A fingerprint of the history's whole content (changes, unknown cycles, ids, hosts,
    /// weights, attributes, latent probabilities, grouping): results computed on other data
    /// have another one, so a study's output directory can refuse to mix them. Hosts and
    /// attribute values count by name, page by page, never by the order a reader met them
    /// in: the same content read by any path has the same fingerprint.
    ///
    /// ```
    /// use freshgp_data::data::Dataset;
    ///
    /// let a = Dataset::from_bit_strings(&["0101", "0011"])?;
    /// let b = Dataset::from_bit_strings(&["0101", "0111"])?;
    /// assert_eq!(a.fingerprint(), a.clone().fingerprint());
    /// assert_ne!(a.fingerprint(), b.fingerprint());
    /// assert_eq!(a.fingerprint().to_string().len(), 16); // hexadecimal
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fingerprint(&self) -> Fingerprint {
        self.finish_fingerprint(self.fingerprint_prefix(), false)
    }

    /// The fingerprint as freshgp computed it before hosts and attribute values were
    /// hashed by name, page by page: it read their interning order (which pages dropped by
    /// the unknown-cycle policy, or a reader's order, could change for the same content).
    /// Kept to recognise the results a study directory recorded under it.
    pub fn first_fingerprint(&self) -> Fingerprint {
        self.finish_fingerprint(self.fingerprint_prefix(), true)
    }

    /// [`Dataset::fingerprint`] and [`Dataset::first_fingerprint`], the changes and ids
    /// they share hashed once.
    pub fn fingerprints(&self) -> (Fingerprint, Fingerprint) {
        let prefix = self.fingerprint_prefix();
        (
            self.finish_fingerprint(prefix, false),
            self.finish_fingerprint(prefix, true),
        )
    }

    /// The fingerprints' common part: the size, the changes, the unknown cycles, the ids.
    fn fingerprint_prefix(&self) -> u64 {
        let mut h = fold(
            fold(0x66_72_65_73_68, self.pages as u64),
            self.cycles as u64,
        );
        h = self.bits.iter().fold(h, |h, &w| fold(h, w));
        h = self.unknown.iter().fold(fold(h, 1), |h, &w| fold(h, w));
        if let Some(ids) = &self.ids {
            h = fold(text_hash(h, &ids.text), ids.ends.len() as u64);
            h = ids.ends.iter().fold(h, |h, &e| fold(h, e as u64));
        }
        h
    }

    /// The fingerprint from its common part `h`: the rest under the current definition, or
    /// the `first`.
    fn finish_fingerprint(&self, mut h: u64, first: bool) -> Fingerprint {
        if let Some(hosts) = &self.hosts {
            if first {
                h = hosts.iter().fold(fold(h, 2), |h, &x| fold(h, x as u64));
                h = self.host_names.iter().fold(h, |h, name| text_hash(h, name));
            } else {
                // Each page's host by name: the interning order does not count.
                let names: Vec<u64> = self.host_names.iter().map(|n| text_hash(0, n)).collect();
                h = hosts
                    .iter()
                    .fold(fold(h, 6), |h, &x| fold(h, names[x as usize]));
            }
        }
        if let Some(weights) = &self.weights {
            h = weights.iter().fold(fold(h, 3), |h, w| fold(h, w.to_bits()));
        }
        if let Some(latent) = &self.latent {
            h = latent.iter().fold(fold(h, 5), |h, q| fold(h, q.to_bits()));
        }
        if !self.attributes.is_empty() {
            h = match first {
                true => self.attributes.hash_into(h, fold, text_hash),
                false => self.attributes.hash_by_page(h, fold, text_hash),
            };
        }
        if let Some(key) = self.grouping() {
            h = text_hash(fold(h, 4), key);
        }
        Fingerprint(h)
    }

    /// Number of pages P.
    pub fn pages(&self) -> usize {
        self.pages
    }

    /// Number of cycles D.
    pub fn cycles(&self) -> usize {
        self.cycles
    }

    /// Page `p`'s change bits: cycle `d` is bit `(d - 1) % 64` of word `(d - 1) / 64`.
    pub fn row(&self, p: usize) -> &[u64] {
        &self.bits[p * self.words..(p + 1) * self.words]
    }

    /// Page `p`'s unknown-cycle mask, laid out as [`Dataset::row`].
    pub(crate) fn unknown_row(&self, p: usize) -> &[u64] {
        &self.unknown[p * self.words..(p + 1) * self.words]
    }

    /// Appends page `p`'s cycles as BITS characters (`0 1 ?`,
    /// docs/src/reference/data.md#the-text-format) to `out`.
    pub(crate) fn push_bits(&self, p: usize, out: &mut Vec<u8>) {
        let (bits, unknown) = (self.row(p), self.unknown_row(p));
        for k in 0..self.cycles {
            let (w, b) = (k / 64, 1u64 << (k % 64));
            out.push(if unknown[w] & b != 0 {
                b'?'
            } else if bits[w] & b != 0 {
                b'1'
            } else {
                b'0'
            });
        }
    }

    /// Page `p`'s cycles as a BITS string.
    ///
    /// ```
    /// let d = freshgp_data::data::Dataset::from_bit_strings(&["01?0"]).unwrap();
    /// assert_eq!(d.bits_string(0), "01?0");
    /// ```
    pub fn bits_string(&self, p: usize) -> String {
        let mut out = Vec::with_capacity(self.cycles);
        self.push_bits(p, &mut out);
        // Invariant: `push_bits` writes only the ASCII bytes `0`, `1` and `?`.
        String::from_utf8(out).expect("invariant: BITS are ASCII")
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
    pub(crate) fn set_unknown(&mut self, p: usize, d: usize, unknown: bool) {
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
        self.ids.as_ref().map(|ids| ids.get(p))
    }

    /// Whether the dataset has page ids.
    pub fn has_ids(&self) -> bool {
        self.ids.is_some()
    }

    /// Whether the dataset has hosts.
    pub(crate) fn has_hosts(&self) -> bool {
        self.hosts.is_some()
    }

    /// Sets the page ids (one per page).
    ///
    /// # Panics
    /// If the number of ids differs from the number of pages.
    pub(crate) fn set_ids(&mut self, ids: Vec<String>) {
        assert_eq!(ids.len(), self.pages, "one id per page");
        let mut arena = Ids {
            text: String::with_capacity(ids.iter().map(String::len).sum()),
            ends: Vec::with_capacity(ids.len()),
        };
        for id in &ids {
            arena.push(id);
        }
        self.ids = Some(arena);
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
    #[doc(hidden)] // public for the tests of the crates above; readers set them checked
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

    /// Sets page weights (each finite and >= 0, as every loader checks; `-0` is stored
    /// as `0`, since terminal values are never `-0.0`).
    ///
    /// # Panics
    /// If the number of weights differs from the number of pages, or a weight is not
    /// finite and >= 0.
    #[doc(hidden)] // public for the tests of the crates above; readers set them checked
    pub fn set_weights(&mut self, mut weights: Vec<f64>) {
        assert_eq!(weights.len(), self.pages, "one weight per page");
        assert!(
            weights.iter().all(|w| w.is_finite() && *w >= 0.0),
            "weights are finite and >= 0"
        );
        for w in &mut weights {
            *w += 0.0;
        }
        self.weights = Some(weights);
    }

    /// Page `p`'s latent change probability per cycle, if the history records them
    /// (docs/src/reference/data.md#latent-change-probabilities): what a synthetic
    /// generator knows and a crawler never does.
    pub fn latent(&self, p: usize) -> Option<f64> {
        self.latent.as_ref().map(|q| q[p])
    }

    /// Whether the history records every page's latent change probability.
    pub fn has_latent(&self) -> bool {
        self.latent.is_some()
    }

    /// Latent change probabilities per page (crate-internal).
    pub(crate) fn latent_values(&self) -> Option<&[f64]> {
        self.latent.as_deref()
    }

    /// Sets the pages' latent change probabilities (each in [0, 1], as every loader
    /// checks; `-0` is stored as `0`).
    ///
    /// # Panics
    /// If the number of values differs from the number of pages.
    pub(crate) fn set_latent(&mut self, mut latent: Vec<f64>) {
        assert_eq!(latent.len(), self.pages, "one latent probability per page");
        debug_assert!(latent.iter().all(|q| is_probability(*q)));
        for q in &mut latent {
            *q += 0.0;
        }
        self.latent = Some(latent);
    }

    /// The pages' categorical attributes (docs/src/reference/data.md#attributes; empty when
    /// none has any).
    pub fn attributes(&self) -> &Attributes {
        &self.attributes
    }

    /// Sets the pages' attributes.
    ///
    /// # Panics
    /// If an attribute holds a number of codes other than the number of pages.
    pub(crate) fn set_attributes(&mut self, attributes: Attributes) {
        assert!(
            attributes.iter().all(|a| a.codes().len() == self.pages),
            "one code per page"
        );
        self.attributes = attributes;
        self.grouping = None;
    }

    /// Groups the pages by the attribute `key` for the terminal `GR`, the group's change
    /// rate (docs/src/reference/terminals.md#neighbours-hr-and-gr; `None` or `"host"`: by
    /// host, the default, where `GR` is `HR`).
    ///
    /// # Errors
    /// [`DataError::Invalid`] when no page has the attribute, naming those there are.
    pub fn group_by(&mut self, key: Option<&str>) -> Result<(), DataError> {
        self.grouping = match key {
            None | Some("host") => None,
            Some(key) => match self
                .attributes
                .iter()
                .position(|a| a.name() == key && a.pages_with() > 0)
            {
                Some(i) => Some(i),
                None => {
                    let names = self.attributes.names();
                    return Err(DataError::Invalid {
                        what: format!("group by `{key}`"),
                        reason: if names.is_empty() {
                            "no page has that attribute (the data has no attributes; group by host)"
                                .into()
                        } else {
                            format!(
                                "no page has that attribute (the data has: host, {})",
                                names.join(", ")
                            )
                        },
                    });
                }
            },
        };
        Ok(())
    }

    /// The attribute pages are grouped by for `GR`, `None` for the host.
    pub fn grouping(&self) -> Option<&str> {
        self.grouping_attribute().map(|a| a.name())
    }

    fn grouping_attribute(&self) -> Option<&Attribute> {
        self.grouping.and_then(|i| self.attributes.iter().nth(i))
    }

    /// Page `p`'s group for `GR`: its code of the grouping attribute, or its host when
    /// the data is grouped by host (`None`: the page has none).
    pub fn group(&self, p: usize) -> Option<u32> {
        match self.grouping_attribute() {
            Some(a) => a.code(p),
            None => self.named_host(p),
        }
    }

    /// Page `p`'s host, unless it has none or an empty name (fields may be empty; an empty
    /// host is no host: docs/src/reference/data.md#hosts).
    pub fn named_host(&self, p: usize) -> Option<u32> {
        self.host(p)
            .filter(|&h| !self.host_names[h as usize].is_empty())
    }

    /// Whether pages carry weights other than the default.
    pub fn has_weights(&self) -> bool {
        self.weights.is_some()
    }

    /// Number of unknown cycles over all pages.
    pub fn unknown_count(&self) -> usize {
        self.unknown.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Number of changes (`1` cycles) of page `p`.
    pub(crate) fn changes_of(&self, p: usize) -> usize {
        self.row(p).iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Number of unknown cycles of page `p`.
    pub(crate) fn unknown_of(&self, p: usize) -> usize {
        self.unknown_row(p)
            .iter()
            .map(|w| w.count_ones() as usize)
            .sum()
    }

    /// The pages `pages` (indices, in the order given) as a new dataset, with their ids,
    /// hosts and weights. Host names are kept whole, so host indices stay valid.
    ///
    /// # Panics
    /// If an index is out of range.
    pub(crate) fn subset(&self, pages: &[u32]) -> Dataset {
        let mut d = Dataset::new(pages.len(), self.cycles);
        let w = self.words;
        for (i, &p) in pages.iter().enumerate() {
            let p = p as usize;
            d.bits[i * w..(i + 1) * w].copy_from_slice(self.row(p));
            d.unknown[i * w..(i + 1) * w].copy_from_slice(self.unknown_row(p));
        }
        if let Some(ids) = &self.ids {
            let mut arena = Ids::default();
            for &p in pages {
                arena.push(ids.get(p as usize));
            }
            d.ids = Some(arena);
        }
        if let Some(hosts) = &self.hosts {
            d.hosts = Some(pages.iter().map(|&p| hosts[p as usize]).collect());
            d.host_names = self.host_names.clone();
        }
        if let Some(weights) = &self.weights {
            d.weights = Some(pages.iter().map(|&p| weights[p as usize]).collect());
        }
        if let Some(latent) = &self.latent {
            d.latent = Some(pages.iter().map(|&p| latent[p as usize]).collect());
        }
        d.attributes = self.attributes.subset(pages);
        d.grouping = self.grouping;
        d
    }

    /// The cycles `range` (1-based, inclusive) of every page as a new dataset whose cycles
    /// are renumbered from 1 (each period is simulated on its own:
    /// docs/src/reference/folds.md#periods).
    ///
    /// # Panics
    /// If the range is empty or reaches past [`Dataset::cycles`].
    pub fn cycle_range(&self, range: RangeInclusive<usize>) -> Dataset {
        let (first, last) = (*range.start(), *range.end());
        assert!(
            first >= 1 && first <= last && last <= self.cycles,
            "cycle range {first}..={last} out of 1..={}",
            self.cycles
        );
        let mut d = Dataset::new(self.pages, last - first + 1);
        d.ids = self.ids.clone();
        d.hosts = self.hosts.clone();
        d.host_names = self.host_names.clone();
        d.weights = self.weights.clone();
        d.latent = self.latent.clone();
        d.attributes = self.attributes.clone();
        d.grouping = self.grouping;
        for p in 0..self.pages {
            for (dst, src) in [(&mut d.bits, &self.bits), (&mut d.unknown, &self.unknown)] {
                let row = &src[p * self.words..(p + 1) * self.words];
                let out = &mut dst[p * d.words..(p + 1) * d.words];
                for (j, slot) in out.iter_mut().enumerate() {
                    *slot =
                        extract_bits(row, first - 1 + 64 * j, (last + 1 - first - 64 * j).min(64));
                }
            }
        }
        d
    }

    /// Builds a dataset from packed rows (crate-internal: loaders check the invariant).
    pub(crate) fn from_parts(
        pages: usize,
        cycles: usize,
        bits: Vec<u64>,
        unknown: Vec<u64>,
    ) -> Dataset {
        let words = cycles.div_ceil(64).max(1);
        debug_assert_eq!(bits.len(), pages * words);
        debug_assert_eq!(unknown.len(), pages * words);
        Dataset {
            pages,
            cycles,
            words,
            bits,
            unknown,
            ids: None,
            hosts: None,
            host_names: Vec::new(),
            weights: None,
            latent: None,
            attributes: Attributes::default(),
            grouping: None,
        }
    }

    /// Sets ids from an arena (crate-internal, used by loaders).
    pub(crate) fn set_id_arena(&mut self, text: String, ends: Vec<usize>) {
        debug_assert_eq!(ends.len(), self.pages);
        self.ids = Some(Ids { text, ends });
    }

    /// The id arena: all ids concatenated and their end offsets (crate-internal).
    pub(crate) fn id_arena(&self) -> Option<(&str, &[usize])> {
        self.ids
            .as_ref()
            .map(|i| (i.text.as_str(), i.ends.as_slice()))
    }

    /// Mutable access to page `p`'s bits and unknown mask (crate-internal).
    pub(crate) fn rows_mut(&mut self, p: usize) -> (&mut [u64], &mut [u64]) {
        let r = p * self.words..(p + 1) * self.words;
        (&mut self.bits[r.clone()], &mut self.unknown[r])
    }

    /// All change words and unknown words (crate-internal, for the cache writer).
    pub(crate) fn raw_words(&self) -> (&[u64], &[u64]) {
        (&self.bits, &self.unknown)
    }

    /// Host indices per page (crate-internal).
    pub(crate) fn host_indices(&self) -> Option<&[u32]> {
        self.hosts.as_deref()
    }

    /// Weights per page (crate-internal).
    pub(crate) fn weight_values(&self) -> Option<&[f64]> {
        self.weights.as_deref()
    }
}

/// Whether `q` is a probability: finite, in [0, 1] (`-0` included, stored as `0`).
pub(crate) fn is_probability(q: f64) -> bool {
    (0.0..=1.0).contains(&q)
}

/// `len` (<= 64) bits of `row` starting at bit `start`.
fn extract_bits(row: &[u64], start: usize, len: usize) -> u64 {
    let (w, s) = (start / 64, start % 64);
    let mut v = row[w] >> s;
    if s != 0 && w + 1 < row.len() {
        v |= row[w + 1] << (64 - s);
    }
    if len < 64 {
        v &= (1u64 << len) - 1;
    }
    v
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
        assert_eq!(d.row(0).len(), 3);
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
    fn subset_and_cycle_range() {
        let mut d = Dataset::from_bit_strings(&["0101?", "11000", "00111"]).unwrap();
        d.set_ids(vec!["a".into(), "bb".into(), "".into()]);
        d.set_hosts(vec![0, 1, 0], vec!["x".into(), "y".into()]);
        let s = d.subset(&[2, 0]);
        assert_eq!(s.pages(), 2);
        assert_eq!((s.id(0), s.id(1)), (Some(""), Some("a")));
        assert_eq!((s.host(0), s.host(1)), (Some(0), Some(0)));
        assert!(s.changed(0, 3) && s.is_unknown(1, 5));
        let c = d.cycle_range(2..=4);
        assert_eq!(c.cycles(), 3);
        assert!(c.changed(0, 1) && !c.changed(0, 2) && c.changed(0, 3));
        assert!(c.changed(1, 1) && !c.changed(1, 2));
        assert_eq!(c.id(1), Some("bb"));
        // across word boundaries
        let row: String = (0..150)
            .map(|k| if k % 7 == 0 { '1' } else { '0' })
            .collect();
        let d = Dataset::from_bit_strings(&[&row]).unwrap();
        let c = d.cycle_range(60..=140);
        for k in 60..=140 {
            assert_eq!(c.changed(0, k - 59), (k - 1) % 7 == 0, "cycle {k}");
        }
    }

    #[test]
    fn unknown_and_changed_are_exclusive() {
        let mut d = Dataset::new(1, 3);
        d.set_unknown(0, 2, true);
        d.set_changed(0, 2, true);
        assert!(d.changed(0, 2) && !d.is_unknown(0, 2));
    }
}
