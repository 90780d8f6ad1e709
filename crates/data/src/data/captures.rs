//! From captures to a history: the one rule every reader of crawl files shares (the
//! `from-log` lines, CDX and CDXJ indexes, WARC files, crawler logs).
//!
//! A **capture** is one download of a page at a time: its content (a 64-bit digest of it),
//! "not modified" (an HTTP 304 or a WARC revisit: the content of the page's previous
//! capture), or failed. Cycles are consecutive windows of the cycle length aligned to the
//! Unix epoch (so one day = UTC days), from the first to the last window holding any
//! capture of any page. Cycle d of a page is
//! - `1` when some capture in it has content different from the page's previous
//!   successful capture (in time order; ties in time keep the order given);
//! - `0` when it has a successful capture and none differs (the first successful capture
//!   of a page sets its reference copy; a 304 before any content is a `0`);
//! - `?` when the page has no successful capture in it.
//!
//! Two ways to gather the captures, one rule:
//! - [`Rows`] takes a page at a time with all its captures (input sorted by page, as CDX
//!   files are), and keeps only the page's cycles: memory grows with pages × the cycles
//!   each spans, not with captures;
//! - [`Collector`] takes captures in any order (pages in order of first appearance) and
//!   hands them to [`Rows`] at the end; memory grows with the captures.
//!
//! ```
//! use freshgp_data::data::captures::{Capture, CaptureKind, Rows};
//!
//! let day: i64 = 86_400;
//! let mut rows = Rows::new(day as u64, "example").unwrap();
//! let content = |t: i64, h: u64| Capture { time: t, kind: CaptureKind::Content(h) };
//! rows.push_page("a", "a.org", None, &[content(0, 1), content(2 * day, 2)]).unwrap();
//! rows.push_page("b", "b.org", Some(3.0), &[Capture { time: day, kind: CaptureKind::NotModified }]).unwrap();
//! let (d, start) = rows.finish().unwrap();
//! assert_eq!((d.bits_string(0), d.bits_string(1)), ("0?1".to_string(), "?0?".to_string()));
//! assert_eq!((start, d.weight(1)), (0, 3.0));
//! ```

use super::{DataError, Dataset};
use rustc_hash::FxHashMap;

/// What one download of a page found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaptureKind {
    /// Content, by a 64-bit digest of it (equal digests: equal content).
    Content(u64),
    /// Not modified (HTTP 304, a revisit): the content of the page's previous capture.
    NotModified,
    /// The download failed: it says nothing of the content.
    Failed,
}

/// One download of a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capture {
    /// When, Unix seconds.
    pub time: i64,
    /// What it found.
    pub kind: CaptureKind,
}

/// The most cycles one history may span: more means a timestamp is wrong.
const MAX_CYCLES: u64 = 10_000_000;

/// The most bytes of change and unknown words a history may take (64 GiB).
const MAX_BYTES: u64 = 1 << 36;

/// A history built a page at a time, each page's cycles kept from its first to its last
/// capture until [`Rows::finish`] places them in the span of every page.
pub struct Rows {
    /// The input's name, for errors.
    origin: String,
    /// Cycle length in seconds.
    len: i64,
    /// Per page: its first cycle (Unix time / length), its cycles and where its words start.
    spans: Vec<(i64, u32, usize)>,
    /// Per page, its seen words then its changed words.
    words: Vec<u64>,
    /// Page ids, concatenated, and their ends.
    id_text: String,
    id_ends: Vec<usize>,
    /// Host per page, and the host names.
    hosts: Vec<u32>,
    host_index: FxHashMap<String, u32>,
    host_names: Vec<String>,
    /// Weight per page (1 where none was given), and whether any was given.
    weights: Vec<f64>,
    weighted: bool,
}

impl Rows {
    /// An empty history of cycles of `cycle` seconds (at least 1, at most `i64::MAX`), read
    /// from the input `origin` names (in errors).
    pub fn new(cycle: u64, origin: &str) -> Result<Rows, DataError> {
        if cycle == 0 || cycle > i64::MAX as u64 {
            return Err(DataError::Invalid {
                what: "cycle length".into(),
                reason: "must be at least 1 second".into(),
            });
        }
        Ok(Rows {
            origin: origin.to_string(),
            len: cycle as i64,
            spans: Vec::new(),
            words: Vec::new(),
            id_text: String::new(),
            id_ends: Vec::new(),
            hosts: Vec::new(),
            host_index: FxHashMap::default(),
            host_names: Vec::new(),
            weights: Vec::new(),
            weighted: false,
        })
    }

    /// Pages so far.
    pub fn pages(&self) -> usize {
        self.spans.len()
    }

    /// Adds a page with its captures (at least one), in time order with ties in the order
    /// they happened; `weight` is its importance, if the input gives one (finite, >= 0).
    /// An error when its captures span more cycles than a history may hold.
    ///
    /// # Panics
    /// If `captures` is empty or out of time order, or the weight is not finite and >= 0.
    pub fn push_page(
        &mut self,
        id: &str,
        host: &str,
        weight: Option<f64>,
        captures: &[Capture],
    ) -> Result<(), DataError> {
        assert!(!captures.is_empty(), "a page has a capture");
        assert!(
            captures.windows(2).all(|w| w[0].time <= w[1].time),
            "captures in time order"
        );
        if let Err(reason) =
            self.check_span(id, captures[0].time, captures[captures.len() - 1].time)
        {
            return Err(DataError::Invalid {
                what: self.origin.clone(),
                reason,
            });
        }
        assert!(
            self.spans.len() < u32::MAX as usize,
            "at most 2^32 - 1 pages"
        );
        let first = captures[0].time.div_euclid(self.len);
        let last = captures[captures.len() - 1].time.div_euclid(self.len);
        let cycles = span(first, last);
        let n = cycles.div_ceil(64) as usize;
        let at = self.words.len();
        self.words.resize(at + 2 * n, 0);
        let (seen, changed) = self.words[at..].split_at_mut(n);
        let mut previous: Option<u64> = None;
        for c in captures {
            let i = (c.time.div_euclid(self.len) - first) as usize;
            let digest = match c.kind {
                CaptureKind::Failed => continue,
                CaptureKind::Content(h) => h,
                CaptureKind::NotModified => match previous {
                    Some(h) => h,
                    None => {
                        seen[i / 64] |= 1 << (i % 64);
                        continue;
                    }
                },
            };
            seen[i / 64] |= 1 << (i % 64);
            if previous.is_some_and(|h| h != digest) {
                changed[i / 64] |= 1 << (i % 64);
            }
            previous = Some(digest);
        }
        self.spans.push((first, cycles as u32, at));
        self.id_text.push_str(id);
        self.id_ends.push(self.id_text.len());
        let h = match self.host_index.get(host) {
            Some(&h) => h,
            None => {
                let h = self.host_names.len() as u32;
                self.host_index.insert(host.to_string(), h);
                self.host_names.push(host.to_string());
                h
            }
        };
        self.hosts.push(h);
        if let Some(w) = weight {
            assert!(w.is_finite() && w >= 0.0, "weights are finite and >= 0");
            self.weighted = true;
        }
        self.weights.push(weight.unwrap_or(1.0));
        Ok(())
    }

    /// Whether the page `id`'s captures from `first` to `last` (Unix seconds) fit in a
    /// history, else why not.
    pub fn check_span(&self, id: &str, first: i64, last: i64) -> Result<(), String> {
        check_span(self.len, id, first, last)
    }

    /// The history, and the start of its first cycle (Unix seconds).
    pub fn finish(self) -> Result<(Dataset, i64), DataError> {
        if self.spans.is_empty() {
            return Err(DataError::Empty { file: self.origin });
        }
        let first = self.spans.iter().map(|s| s.0).min().unwrap_or(0);
        let last = self
            .spans
            .iter()
            .map(|&(start, cycles, _)| start + i64::from(cycles) - 1)
            .max()
            .unwrap_or(0);
        let cycles = span(first, last);
        let pages = self.spans.len() as u64;
        if cycles > MAX_CYCLES
            || pages.saturating_mul(cycles.div_ceil(64)).saturating_mul(16) > MAX_BYTES
        {
            return Err(DataError::Invalid {
                what: self.origin,
                reason: format!(
                    "the captures span {cycles} cycles of {}s for {pages} pages: too large (is a timestamp wrong?)",
                    self.len
                ),
            });
        }
        let mut d = Dataset::new(self.spans.len(), cycles as usize);
        let all = cycles as usize;
        for (p, &(start, own, at)) in self.spans.iter().enumerate() {
            let n = (own as usize).div_ceil(64);
            let (seen, changed) = self.words[at..at + 2 * n].split_at(n);
            let offset = (start - first) as usize;
            let (bits, unknown) = d.rows_mut(p);
            for c in 0..all {
                unknown[c / 64] |= 1 << (c % 64);
            }
            for i in 0..own as usize {
                if seen[i / 64] >> (i % 64) & 1 == 1 {
                    let c = offset + i;
                    unknown[c / 64] &= !(1 << (c % 64));
                    bits[c / 64] |= (changed[i / 64] >> (i % 64) & 1) << (c % 64);
                }
            }
        }
        d.set_id_arena(self.id_text, self.id_ends);
        d.set_hosts(self.hosts, self.host_names);
        if self.weighted {
            d.set_weights(self.weights);
        }
        Ok((d, first * self.len))
    }
}

/// The cycles from cycle `first` to cycle `last`, both counted (saturating: more than any
/// history holds when the two are the ends of the `i64` range).
fn span(first: i64, last: i64) -> u64 {
    last.abs_diff(first).saturating_add(1)
}

/// Whether captures from `first` to `last` (Unix seconds) of the page `id` fit in a
/// history of cycles of `len` seconds, else why not.
fn check_span(len: i64, id: &str, first: i64, last: i64) -> Result<(), String> {
    let cycles = span(first.div_euclid(len), last.div_euclid(len));
    if cycles > MAX_CYCLES {
        return Err(format!(
            "the captures of `{id}` span {cycles} cycles of {len}s: too large (is a timestamp wrong?)"
        ));
    }
    Ok(())
}

/// A page's weight from its captures: the one given at its latest weighted capture.
#[derive(Clone, Copy)]
struct LatestWeight {
    time: i64,
    seq: u32,
    weight: f64,
    conflict: bool,
}

/// The order of a history's pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageOrder {
    /// As they first appear in the input.
    Appearance,
    /// By id (byte order), as sorted input gives them.
    Id,
}

/// A page as gathered: its earliest capture's time, order and host, and the span of its
/// captures' times.
struct Gathered {
    earliest: (i64, u32),
    host: String,
    last: i64,
}

/// Captures in any order, gathered by page, for [`Rows`].
///
/// A page's host is the one its **earliest capture** names (in time order, the order given
/// breaking ties), so that the order of the input does not matter. A page's weight is the
/// one given with its **latest capture that gives one**, in time order with the order
/// given breaking ties, whether that capture succeeded or not (the weight describes the
/// page, not the download); a page no capture gives one weighs 1, and when none does the
/// history has no weight column.
pub struct Collector {
    /// Cycle length in seconds.
    len: i64,
    pages: FxHashMap<String, u32>,
    ids: Vec<String>,
    gathered: Vec<Gathered>,
    /// `(page, sequence, capture)`.
    captures: Vec<(u32, u32, Capture)>,
    weights: Vec<Option<LatestWeight>>,
}

/// What a [`Collector`] saw of the weights given.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WeightReport {
    /// Pages some capture gave a weight.
    pub weighted_pages: usize,
    /// Of those, pages given different weights (the latest one is kept).
    pub conflicting_weights: usize,
}

impl Collector {
    /// No captures yet, for cycles of `cycle` seconds (at least 1, at most `i64::MAX`).
    pub fn new(cycle: u64) -> Result<Collector, DataError> {
        Rows::new(cycle, "")?;
        Ok(Collector {
            len: cycle as i64,
            pages: FxHashMap::default(),
            ids: Vec::new(),
            gathered: Vec::new(),
            captures: Vec::new(),
            weights: Vec::new(),
        })
    }

    /// Adds a capture of the page `id`, with the page's weight if this capture gives one
    /// (finite, >= 0). `host` names the page's host; it is called when this capture is the
    /// page's earliest so far. `refuse` makes the error when the capture would make its
    /// page span more cycles than a history holds, or the history cannot hold another
    /// page; nothing is added then.
    pub fn push<E>(
        &mut self,
        id: &str,
        capture: Capture,
        weight: Option<f64>,
        host: impl FnOnce() -> Result<String, E>,
        refuse: impl Fn(String) -> E,
    ) -> Result<(), E> {
        let seq = u32::try_from(self.captures.len())
            .ok()
            .filter(|&s| s < u32::MAX)
            .ok_or_else(|| refuse("more than 2^32 - 1 captures".into()))?;
        let page = match self.pages.get(id) {
            Some(&p) => {
                let g = &mut self.gathered[p as usize];
                let first = g.earliest.0.min(capture.time);
                let last = g.last.max(capture.time);
                check_span(self.len, id, first, last).map_err(&refuse)?;
                if capture.time < g.earliest.0 {
                    g.host = host()?;
                    g.earliest = (capture.time, seq);
                }
                g.last = last;
                p
            }
            None => {
                let p = u32::try_from(self.ids.len())
                    .ok()
                    .filter(|&p| p < u32::MAX)
                    .ok_or_else(|| refuse("more than 2^32 - 1 pages".into()))?;
                let host = host()?;
                self.pages.insert(id.to_string(), p);
                self.ids.push(id.to_string());
                self.gathered.push(Gathered {
                    earliest: (capture.time, seq),
                    host,
                    last: capture.time,
                });
                self.weights.push(None);
                p
            }
        };
        if let Some(weight) = weight {
            let slot = &mut self.weights[page as usize];
            match slot {
                None => {
                    *slot = Some(LatestWeight {
                        time: capture.time,
                        seq,
                        weight,
                        conflict: false,
                    })
                }
                Some(w) => {
                    w.conflict |= w.weight.to_bits() != weight.to_bits();
                    if (capture.time, seq) > (w.time, w.seq) {
                        (w.time, w.seq, w.weight) = (capture.time, seq, weight);
                    }
                }
            }
        }
        self.captures.push((page, seq, capture));
        Ok(())
    }

    /// Captures so far.
    pub fn captures(&self) -> usize {
        self.captures.len()
    }

    /// What the weights given say.
    pub fn weight_report(&self) -> WeightReport {
        let given = self.weights.iter().flatten();
        WeightReport {
            weighted_pages: given.clone().count(),
            conflicting_weights: given.filter(|w| w.conflict).count(),
        }
    }

    /// The pages with their captures, in `order`, as [`Rows`], read from the input
    /// `origin` names.
    pub fn into_rows(mut self, origin: &str, order: PageOrder) -> Result<Rows, DataError> {
        let mut rows = Rows::new(self.len as u64, origin)?;
        if order == PageOrder::Id {
            let mut by_id: Vec<u32> = (0..self.ids.len() as u32).collect();
            by_id.sort_unstable_by(|&a, &b| self.ids[a as usize].cmp(&self.ids[b as usize]));
            let mut rank = vec![0u32; by_id.len()];
            for (r, &p) in by_id.iter().enumerate() {
                rank[p as usize] = r as u32;
            }
            for c in &mut self.captures {
                c.0 = rank[c.0 as usize];
            }
            self.ids = by_id
                .iter()
                .map(|&p| std::mem::take(&mut self.ids[p as usize]))
                .collect();
            let mut gathered: Vec<Option<Gathered>> = self.gathered.into_iter().map(Some).collect();
            self.gathered = by_id
                .iter()
                .map(|&p| {
                    gathered[p as usize]
                        .take()
                        .expect("invariant: each page once")
                })
                .collect();
            self.weights = by_id.iter().map(|&p| self.weights[p as usize]).collect();
        }
        self.captures
            .sort_unstable_by_key(|&(page, seq, c)| (page, c.time, seq));
        let mut page_captures = Vec::new();
        for group in self.captures.chunk_by(|a, b| a.0 == b.0) {
            let p = group[0].0 as usize;
            page_captures.clear();
            page_captures.extend(group.iter().map(|g| g.2));
            let weight = self.weights[p].map(|w| w.weight);
            rows.push_page(&self.ids[p], &self.gathered[p].host, weight, &page_captures)?;
        }
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 86_400;

    fn content(time: i64, h: u64) -> Capture {
        Capture {
            time,
            kind: CaptureKind::Content(h),
        }
    }

    #[test]
    fn pages_are_placed_in_the_span_of_every_page() {
        let mut rows = Rows::new(DAY as u64, "t").unwrap();
        let failed = |time| Capture {
            time,
            kind: CaptureKind::Failed,
        };
        let same = |time| Capture {
            time,
            kind: CaptureKind::NotModified,
        };
        // a: days 3..5; a 304 on day 4 keeps day 3's content; day 5 differs
        rows.push_page(
            "a",
            "h",
            None,
            &[content(3 * DAY, 7), same(4 * DAY), content(5 * DAY + 9, 8)],
        )
        .unwrap();
        // b: day 1 only failed, day 2 a 304 before any content, then two contents in a day
        rows.push_page(
            "b",
            "h",
            Some(2.0),
            &[
                failed(DAY),
                same(2 * DAY),
                content(6 * DAY, 1),
                content(6 * DAY + 1, 2),
            ],
        )
        .unwrap();
        let (d, start) = rows.finish().unwrap();
        assert_eq!(start, DAY);
        assert_eq!(d.bits_string(0), "??001?");
        assert_eq!(d.bits_string(1), "?0???1");
        assert_eq!(d.host_names(), ["h"]);
        assert_eq!((d.weight(0), d.weight(1)), (1.0, 2.0));
        assert_eq!(d.id(1), Some("b"));
    }

    #[test]
    fn spans_past_a_history_are_errors_and_an_empty_one_is_empty() {
        let mut rows = Rows::new(1, "t").unwrap();
        let e = rows.push_page("a", "h", None, &[content(0, 1), content(20_000_000, 1)]);
        assert_eq!(
            e.unwrap_err().to_string(),
            "t: the captures of `a` span 20000001 cycles of 1s: too large (is a timestamp wrong?)"
        );
        rows.push_page("a", "h", None, &[content(0, 1)]).unwrap();
        rows.push_page("b", "h", None, &[content(9_999_999, 1)])
            .unwrap();
        rows.push_page("c", "h", None, &[content(10_000_000, 1)])
            .unwrap();
        let e = rows.finish().unwrap_err().to_string();
        assert!(e.starts_with("t: the captures span 10000001 cycles"), "{e}");
        assert!(matches!(
            Rows::new(1, "t").unwrap().finish(),
            Err(DataError::Empty { .. })
        ));
        assert!(Rows::new(0, "t").is_err());
    }

    #[test]
    fn the_collector_orders_each_page_by_time_and_keeps_the_latest_weight() {
        let mut c = Collector::new(DAY as u64).unwrap();
        let refuse = |why: String| why;
        let host = |h: &str| {
            let h = h.to_string();
            move || Ok::<_, String>(h)
        };
        c.push("b", content(2 * DAY, 1), Some(5.0), host("late.b"), refuse)
            .unwrap();
        c.push("a", content(DAY, 1), None, host("a"), refuse)
            .unwrap();
        // b's earliest capture names its host, whatever the order given
        c.push("b", content(0, 2), Some(6.0), host("b"), refuse)
            .unwrap();
        let never = || -> Result<String, String> { panic!("not the earliest capture") };
        c.push("b", content(2 * DAY, 3), None, never, refuse)
            .unwrap();
        assert_eq!(c.captures(), 4);
        assert_eq!(
            c.weight_report(),
            WeightReport {
                weighted_pages: 1,
                conflicting_weights: 1
            }
        );
        // a capture that would stretch a page past a history is refused, and not added
        let far = content(20_000_000 * DAY, 1);
        let e = c.push("b", far, None, never, refuse).unwrap_err();
        assert!(e.contains("the captures of `b` span"), "{e}");
        let rows = |order| {
            let mut c2 = Collector::new(DAY as u64).unwrap();
            for (id, t, h) in [
                ("b", 2 * DAY, 1),
                ("a", DAY, 1),
                ("b", 0, 2),
                ("b", 2 * DAY, 3),
            ] {
                c2.push(id, content(t, h), None, host(id), refuse).unwrap();
            }
            c2.into_rows("t", order).unwrap().finish().unwrap().0
        };
        let (d, _) = c
            .into_rows("t", PageOrder::Appearance)
            .unwrap()
            .finish()
            .unwrap();
        // b: 2 on day 0, then 1 and 3 on day 2 (in the order given): changed
        assert_eq!((d.id(0), d.bits_string(0).as_str()), (Some("b"), "0?1"));
        assert_eq!(d.host_names()[d.host(0).unwrap() as usize], "b");
        assert_eq!(d.bits_string(1), "?0?");
        assert_eq!((d.weight(0), d.weight(1)), (5.0, 1.0));
        let by_id = rows(PageOrder::Id);
        assert_eq!(
            (by_id.id(0), by_id.bits_string(0).as_str()),
            (Some("a"), "?0?")
        );
        assert_eq!(
            (by_id.id(1), by_id.bits_string(1).as_str()),
            (Some("b"), "0?1")
        );
    }

    #[test]
    fn spans_at_the_ends_of_time_are_too_large_not_a_panic() {
        let mut rows = Rows::new(1, "t").unwrap();
        let e = rows.push_page(
            "a",
            "h",
            None,
            &[content(i64::MIN, 1), content(i64::MAX, 2)],
        );
        assert!(e.unwrap_err().to_string().contains("too large"));
        let mut c = Collector::new(1).unwrap();
        c.push(
            "a",
            content(i64::MIN, 1),
            None,
            || Ok::<_, String>("h".into()),
            |w| w,
        )
        .unwrap();
        let e = c
            .push("a", content(i64::MAX, 1), None, || Ok("h".into()), |w| w)
            .unwrap_err();
        assert!(e.contains("too large"), "{e}");
    }
}
