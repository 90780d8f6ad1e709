//! A history built from arrays — a pages × cycles grid of change bits, a mask of unknown
//! cycles and optional per-page columns — as a program holding its data in memory passes
//! it (the Python module's `Dataset.from_arrays` among them). Every value is checked as
//! the text reader checks it, and an error names the array and the index.
//!
//! ```
//! use freshgp_data::data::PageArrays;
//!
//! let changed = [0, 1, 1, 0, 0, 1];
//! let unknown = [false, false, false, true, false, false];
//! let weights = [1.0, 2.5];
//! let d = PageArrays {
//!     unknown: Some(&unknown),
//!     weights: Some(&weights),
//!     ..PageArrays::new(2, 3, &changed)
//! }
//! .build()
//! .unwrap();
//! assert_eq!((d.bits_string(0), d.bits_string(1)), ("011".to_string(), "?01".to_string()));
//! assert_eq!(d.weight(1), 2.5);
//!
//! let bad = PageArrays::new(2, 3, &[0, 1, 2, 0, 0, 1]).build().unwrap_err();
//! assert_eq!(bad.to_string(), "changes[0, 2]: 2 is not a change bit (0 or 1)");
//! ```

use super::attributes::{check_key, AttributesBuilder, LINE_BREAKS};
use super::{DataError, Dataset};

/// A history as arrays, to [`build`](PageArrays::build) into a [`Dataset`].
#[derive(Clone, Copy, Debug)]
pub struct PageArrays<'a> {
    /// Pages (rows).
    pub pages: usize,
    /// Cycles (columns).
    pub cycles: usize,
    /// Row-major, `pages × cycles`: 1 where the page changed in the cycle, else 0.
    pub changed: &'a [u8],
    /// Row-major, `pages × cycles`: true where the cycle is unknown (`?`, a failed
    /// download); an unknown cycle's change bit is ignored.
    pub unknown: Option<&'a [bool]>,
    /// One id per page (the empty string for a page without one; none at all when every
    /// id is empty, as the text reader reads it).
    pub ids: Option<&'a [String]>,
    /// One host per page; the empty string for a page without one (the history has no
    /// hosts when every one is empty, as the text reader reads it).
    pub hosts: Option<&'a [String]>,
    /// One weight per page, each finite and ≥ 0.
    pub weights: Option<&'a [f64]>,
    /// Categorical attributes: a key and one value per page (`None`: the page lacks it).
    pub attributes: &'a [(String, Vec<Option<String>>)],
}

impl<'a> PageArrays<'a> {
    /// The change bits alone; add the other columns with struct update syntax.
    pub fn new(pages: usize, cycles: usize, changed: &'a [u8]) -> PageArrays<'a> {
        PageArrays {
            pages,
            cycles,
            changed,
            unknown: None,
            ids: None,
            hosts: None,
            weights: None,
            attributes: &[],
        }
    }

    /// The dataset, every value checked.
    ///
    /// # Errors
    /// [`DataError::Invalid`] without pages or cycles, or naming the
    /// array and index of the first bad value: a length that is not one per page (or per
    /// page and cycle), a change bit other than 0 or 1, a weight that is not finite and
    /// ≥ 0, an id, host or attribute value holding a TAB or line break, a bad attribute
    /// key or an empty value.
    pub fn build(&self) -> Result<Dataset, DataError> {
        if self.pages == 0 || self.cycles == 0 {
            return Err(invalid(
                "changes".into(),
                format!(
                    "{} pages × {} cycles: a history has at least one page and one cycle",
                    self.pages, self.cycles
                ),
            ));
        }
        let cells = self.pages.checked_mul(self.cycles);
        length("changes", self.changed.len(), cells, "page and cycle")?;
        if let Some(unknown) = self.unknown {
            length("unknown", unknown.len(), cells, "page and cycle")?;
        }
        let mut d = Dataset::new(self.pages, self.cycles);
        for (i, &bit) in self.changed.iter().enumerate() {
            let (p, c) = (i / self.cycles, i % self.cycles);
            if self.unknown.is_some_and(|u| u[i]) {
                d.set_unknown(p, c + 1, true);
                continue;
            }
            match bit {
                0 => {}
                1 => d.set_changed(p, c + 1, true),
                _ => {
                    return Err(invalid(
                        format!("changes[{p}, {c}]"),
                        format!("{bit} is not a change bit (0 or 1)"),
                    ))
                }
            }
        }
        if let Some(ids) = self.ids {
            length("ids", ids.len(), Some(self.pages), "page")?;
            text_values("ids", ids.iter().map(|s| Some(s.as_str())))?;
            if ids.iter().any(|id| !id.is_empty()) {
                d.set_ids(ids.to_vec());
            }
        }
        if let Some(hosts) = self.hosts {
            self.set_hosts(&mut d, hosts)?;
        }
        if let Some(weights) = self.weights {
            length("weights", weights.len(), Some(self.pages), "page")?;
            if let Some(p) = weights.iter().position(|w| !w.is_finite() || *w < 0.0) {
                return Err(invalid(
                    format!("weights[{p}]"),
                    format!("{} is not a weight (finite and >= 0)", weights[p]),
                ));
            }
            d.set_weights(weights.to_vec());
        }
        if !self.attributes.is_empty() {
            d.set_attributes(self.attributes()?);
        }
        Ok(d)
    }

    /// Interns the host names in order of first appearance.
    fn set_hosts(&self, d: &mut Dataset, hosts: &[String]) -> Result<(), DataError> {
        length("hosts", hosts.len(), Some(self.pages), "page")?;
        text_values("hosts", hosts.iter().map(|s| Some(s.as_str())))?;
        if hosts.iter().all(String::is_empty) {
            return Ok(());
        }
        let mut index = std::collections::HashMap::new();
        let mut names: Vec<String> = Vec::new();
        let codes = hosts
            .iter()
            .map(|h| {
                *index.entry(h.as_str()).or_insert_with(|| {
                    names.push(h.clone());
                    names.len() as u32 - 1
                })
            })
            .collect();
        d.set_hosts(codes, names);
        Ok(())
    }

    /// The attributes, page by page, as the text reader collects them.
    fn attributes(&self) -> Result<super::Attributes, DataError> {
        for (key, values) in self.attributes {
            let what = format!("attributes[{key:?}]");
            check_key(key).map_err(|reason| invalid(what.clone(), reason.into()))?;
            length(&what, values.len(), Some(self.pages), "page")?;
            text_values(&what, values.iter().map(Option::as_deref))?;
        }
        let mut builder = AttributesBuilder::default();
        for p in 0..self.pages {
            for (key, values) in self.attributes {
                if let Some(value) = &values[p] {
                    builder
                        .set(key, value)
                        .map_err(|reason| invalid(format!("attributes[{key:?}][{p}]"), reason))?;
                }
            }
            builder.end_page();
        }
        Ok(builder.finish())
    }
}

fn invalid(what: String, reason: String) -> DataError {
    DataError::Invalid { what, reason }
}

/// Refuses an array whose length is not `want` (`None`: larger than memory can hold).
fn length(what: &str, got: usize, want: Option<usize>, per: &str) -> Result<(), DataError> {
    if want == Some(got) {
        return Ok(());
    }
    let want = want.map_or("more than fits in memory".to_string(), |n| n.to_string());
    Err(invalid(
        what.to_string(),
        format!("holds {got} values, not {want} (one per {per})"),
    ))
}

/// Refuses a value the text format could not write back.
fn text_values<'s>(
    what: &str,
    values: impl Iterator<Item = Option<&'s str>>,
) -> Result<(), DataError> {
    for (p, value) in values.enumerate() {
        if let Some(v) = value.filter(|v| v.contains(LINE_BREAKS)) {
            return Err(invalid(
                format!("{what}[{p}]"),
                format!("`{}` holds a TAB or line break", v.escape_debug()),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_history_of_arrays_equals_its_text() {
        let text = "01?\tp1\th1\tweight=2\tcategory=shoes\n110\tp2\th2\tweight=0.5\n";
        let read = super::super::text::read(text.as_bytes(), "<mem>").unwrap();
        let ids = ["p1".to_string(), "p2".to_string()];
        let hosts = ["h1".to_string(), "h2".to_string()];
        let attributes = [(
            "category".to_string(),
            vec![Some("shoes".to_string()), None],
        )];
        let built = PageArrays {
            unknown: Some(&[false, false, true, false, false, false]),
            ids: Some(&ids),
            hosts: Some(&hosts),
            weights: Some(&[2.0, 0.5]),
            attributes: &attributes,
            ..PageArrays::new(2, 3, &[0, 1, 1, 1, 1, 0])
        }
        .build()
        .unwrap();
        assert_eq!(built, read);
        assert_eq!(built.fingerprint(), read.fingerprint());
    }

    #[test]
    fn bad_values_name_the_array_and_the_index() {
        let bits = [0u8; 4];
        let base = PageArrays::new(2, 2, &bits);
        let error = |a: PageArrays| a.build().unwrap_err().to_string();
        assert_eq!(
            error(PageArrays::new(2, 3, &bits)),
            "changes: holds 4 values, not 6 (one per page and cycle)"
        );
        assert_eq!(
            error(PageArrays::new(0, 3, &[])),
            "changes: 0 pages × 3 cycles: a history has at least one page and one cycle"
        );
        assert_eq!(
            error(PageArrays {
                weights: Some(&[1.0, f64::NAN]),
                ..base
            }),
            "weights[1]: NaN is not a weight (finite and >= 0)"
        );
        let ids = ["a".to_string(), "b\tc".to_string()];
        assert_eq!(
            error(PageArrays {
                ids: Some(&ids),
                ..base
            }),
            "ids[1]: `b\\tc` holds a TAB or line break"
        );
        let attributes = [("host".to_string(), vec![None, None])];
        assert_eq!(
            error(PageArrays {
                attributes: &attributes,
                ..base
            }),
            "attributes[\"host\"]: bad attribute key `host`: reserved for the host column"
        );
        let attributes = [("kind".to_string(), vec![None, Some(String::new())])];
        assert_eq!(
            error(PageArrays {
                attributes: &attributes,
                ..base
            }),
            "attributes[\"kind\"][1]: bad attribute: `kind` has an empty value"
        );
        let none = [String::new(), String::new()];
        let without = PageArrays {
            ids: Some(&none),
            hosts: Some(&none),
            ..base
        }
        .build()
        .unwrap();
        assert_eq!(
            without,
            base.build().unwrap(),
            "empty ids and hosts are none"
        );
        let hosts = ["h".to_string()];
        assert_eq!(
            error(PageArrays {
                hosts: Some(&hosts),
                ..base
            }),
            "hosts: holds 1 values, not 2 (one per page)"
        );
    }
}
