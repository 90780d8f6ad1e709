//! Categorical page metadata: every `key=value` attribute other than `weight`
//! (docs/src/reference/data.md#attributes).
//!
//! An [`Attributes`] holds one [`Attribute`] per key, in the order the keys first appear in
//! the input. Each attribute interns its values (a dictionary of distinct strings, in order
//! of first appearance) and stores one code per page; a page may lack any attribute.
//!
//! ```
//! use freshgp_data::data::text;
//!
//! let d = text::read("01\tp1\th\tcategory=shoes\tcountry=BR\n10\tp2\th\tcategory=hats\n"
//!     .as_bytes(), "<mem>").unwrap();
//! let category = d.attributes().get("category").unwrap();
//! assert_eq!((category.value(0), category.value(1)), (Some("shoes"), Some("hats")));
//! assert_eq!(d.attributes().get("country").unwrap().value(1), None);
//! assert_eq!(category.cardinality(), 2);
//! ```
//!
//! Keys are names (letters, digits, `_`, `-`, `.`; not starting with a digit); `weight` is
//! the page's importance (docs/src/reference/data.md#page-weights) and `host` is reserved
//! for the host column, which group features treat as one more attribute.
//!
//! **Invariant:** every attribute holds exactly one code per page, each either
//! [`Attribute::NONE`] or an index into its values; values are non-empty, distinct, and
//! hold no TAB or line break.

use std::collections::HashMap;

/// The categorical attributes of a dataset's pages.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Attributes {
    columns: Vec<Attribute>,
}

/// One categorical attribute: its name, its distinct values and each page's value.
#[derive(Clone, Debug, PartialEq)]
pub struct Attribute {
    name: String,
    values: Vec<String>,
    codes: Vec<u32>,
}

/// What no id, host name or attribute value may hold: the text format could not write it
/// (the text writer, the cache's reader and the attributes refuse the same).
pub const LINE_BREAKS: [char; 3] = ['\t', '\n', '\r'];

/// Why a text cannot be an attribute's key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// Not letters, digits, `_`, `-` and `.`, or starting with a digit or a `-`/`.`; holds
    /// the key as given, escaped for display.
    #[error("bad attribute key `{0}` (letters, digits, _ - . ; not starting with a digit)")]
    Malformed(String),
    /// `host` or `weight`, which name columns of their own; holds what the key is for.
    #[error("bad attribute key `{key}`: reserved for {meaning}")]
    Reserved {
        /// The key.
        key: &'static str,
        /// What it names.
        meaning: &'static str,
    },
}

/// The error's sentence, for the readers that place it in a file.
impl From<KeyError> for String {
    fn from(e: KeyError) -> String {
        e.to_string()
    }
}

/// Why `key` cannot be an attribute's key, if it cannot.
///
/// ```
/// use freshgp_data::data::attributes::{check_key, KeyError};
///
/// assert_eq!(check_key("category"), Ok(()));
/// assert_eq!(check_key("1st"), Err(KeyError::Malformed("1st".into())));
/// assert!(matches!(check_key("host"), Err(KeyError::Reserved { key: "host", .. })));
/// ```
pub fn check_key(key: &str) -> Result<(), KeyError> {
    let mut chars = key.chars();
    let good_start = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    let good_rest = chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if !good_start || !good_rest {
        return Err(KeyError::Malformed(key.escape_debug().to_string()));
    }
    match key {
        "host" => Err(KeyError::Reserved {
            key: "host",
            meaning: "the host column",
        }),
        "weight" => Err(KeyError::Reserved {
            key: "weight",
            meaning: "the page's weight",
        }),
        _ => Ok(()),
    }
}

impl Attribute {
    /// The code of a page that lacks the attribute.
    pub const NONE: u32 = u32::MAX;

    /// The attribute's key.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Page `p`'s value, if it has one.
    pub fn value(&self, p: usize) -> Option<&str> {
        self.code(p).map(|c| self.values[c as usize].as_str())
    }

    /// Page `p`'s value as an index into [`Attribute::values`].
    pub fn code(&self, p: usize) -> Option<u32> {
        Some(self.codes[p]).filter(|&c| c != Attribute::NONE)
    }

    /// Every page's code ([`Attribute::NONE`] where the page lacks the attribute).
    pub fn codes(&self) -> &[u32] {
        &self.codes
    }

    /// The distinct values, indexed by code (a subset of pages may use only some).
    pub fn values(&self) -> &[String] {
        &self.values
    }

    /// The number of distinct values the pages use.
    pub fn cardinality(&self) -> usize {
        let mut used = vec![false; self.values.len()];
        for &c in &self.codes {
            if c != Attribute::NONE {
                used[c as usize] = true;
            }
        }
        used.into_iter().filter(|&u| u).count()
    }

    /// The number of pages that have the attribute.
    pub fn pages_with(&self) -> usize {
        self.codes.iter().filter(|&&c| c != Attribute::NONE).count()
    }
}

impl Attributes {
    /// Whether no page has any attribute.
    pub fn is_empty(&self) -> bool {
        self.columns.is_empty()
    }

    /// Every attribute, in the order its key first appeared.
    pub fn iter(&self) -> std::slice::Iter<'_, Attribute> {
        self.columns.iter()
    }

    /// The attribute named `key`.
    pub fn get(&self, key: &str) -> Option<&Attribute> {
        self.columns.iter().find(|a| a.name == key)
    }

    /// The keys, in order.
    pub fn names(&self) -> Vec<&str> {
        self.columns.iter().map(|a| a.name.as_str()).collect()
    }

    /// The same attributes for the pages `pages` (indices, in that order); dictionaries
    /// are kept whole so that codes mean the same in the subset.
    pub(crate) fn subset(&self, pages: &[u32]) -> Attributes {
        Attributes {
            columns: self
                .columns
                .iter()
                .map(|a| Attribute {
                    name: a.name.clone(),
                    values: a.values.clone(),
                    codes: pages.iter().map(|&p| a.codes[p as usize]).collect(),
                })
                .collect(),
        }
    }

    /// Builds attributes from raw parts, checking the invariant (used by the binary cache).
    pub(crate) fn from_parts(
        columns: Vec<(String, Vec<String>, Vec<u32>)>,
        pages: usize,
    ) -> Result<Attributes, String> {
        let mut out = Attributes::default();
        for (name, values, codes) in columns {
            check_key(&name)?;
            if out.get(&name).is_some() {
                return Err(format!("attribute `{name}` given twice"));
            }
            if codes.len() != pages {
                return Err(format!(
                    "attribute `{name}`: {} codes for {pages} pages",
                    codes.len()
                ));
            }
            let mut seen = HashMap::with_capacity(values.len());
            for v in &values {
                if v.is_empty() || seen.insert(v.as_str(), ()).is_some() {
                    return Err(format!("attribute `{name}`: empty or repeated value"));
                }
                if v.contains(LINE_BREAKS) {
                    return Err(format!(
                        "attribute `{name}`: value `{}` holds a TAB or line break",
                        v.escape_debug()
                    ));
                }
            }
            if codes
                .iter()
                .any(|&c| c != Attribute::NONE && c as usize >= values.len())
            {
                return Err(format!("attribute `{name}`: a code out of range"));
            }
            out.columns.push(Attribute {
                name,
                values,
                codes,
            });
        }
        Ok(out)
    }

    /// Folds the attributes into a hash (for [`super::Dataset::fingerprint`]).
    /// The attributes folded into `h` by content: the columns in the order of their keys,
    /// each page's value by its text (the order values were met in does not count), a key
    /// no page holds left out (a file could not say it).
    pub(crate) fn hash_by_page(
        &self,
        h: u64,
        fold: impl Fn(u64, u64) -> u64,
        text: impl Fn(u64, &str) -> u64,
    ) -> u64 {
        let mut columns: Vec<&Attribute> = self
            .columns
            .iter()
            .filter(|a| a.codes.iter().any(|&c| c != Attribute::NONE))
            .collect();
        if columns.is_empty() {
            return h;
        }
        columns.sort_by(|a, b| a.name.cmp(&b.name));
        columns.into_iter().fold(fold(h, 7), |h, a| {
            let values: Vec<u64> = a.values.iter().map(|v| text(1, v)).collect();
            a.codes.iter().fold(text(h, &a.name), |h, &c| match c {
                Attribute::NONE => fold(h, 0),
                c => fold(h, values[c as usize]),
            })
        })
    }

    /// The attributes folded into `h` as the first fingerprint did: by interning order.
    pub(crate) fn hash_into(
        &self,
        h: u64,
        fold: impl Fn(u64, u64) -> u64,
        text: impl Fn(u64, &str) -> u64,
    ) -> u64 {
        self.columns.iter().fold(fold(h, 4), |h, a| {
            let h = text(h, &a.name);
            let h = a
                .values
                .iter()
                .fold(fold(h, a.values.len() as u64), |h, v| text(h, v));
            a.codes.iter().fold(h, |h, &c| fold(h, c as u64))
        })
    }
}

/// Collects attributes page by page while a dataset is read or generated.
#[derive(Default)]
pub(crate) struct AttributesBuilder {
    pages: usize,
    columns: Vec<Attribute>,
    index: HashMap<String, (usize, HashMap<String, u32>)>,
}

impl AttributesBuilder {
    /// Sets `key=value` for the current page (the one [`AttributesBuilder::end_page`] will
    /// close). Errors on a bad key, an empty value or a key given twice for the page.
    pub(crate) fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        check_key(key)?;
        if value.is_empty() {
            return Err(format!(
                "bad attribute: `{}` has an empty value",
                key.escape_debug()
            ));
        }
        let pages = self.pages;
        if !self.index.contains_key(key) {
            self.columns.push(Attribute {
                name: key.to_string(),
                values: Vec::new(),
                codes: Vec::new(),
            });
            self.index
                .insert(key.to_string(), (self.columns.len() - 1, HashMap::new()));
        }
        // Invariant: the key was inserted just above if it was missing.
        let (column, dictionary) = self.index.get_mut(key).expect("invariant: key present");
        let attribute = &mut self.columns[*column];
        if attribute.codes.len() > pages {
            return Err(format!(
                "bad attribute: `{}` given twice",
                key.escape_debug()
            ));
        }
        attribute.codes.resize(pages, Attribute::NONE);
        let code = match dictionary.get(value) {
            Some(&c) => c,
            None => {
                let c = u32::try_from(attribute.values.len())
                    .ok()
                    .filter(|&c| c != Attribute::NONE)
                    .ok_or_else(|| format!("attribute `{key}` has more than 2^32 - 1 values"))?;
                dictionary.insert(value.to_string(), c);
                attribute.values.push(value.to_string());
                c
            }
        };
        attribute.codes.push(code);
        Ok(())
    }

    /// Closes the current page (attributes it did not set are absent).
    pub(crate) fn end_page(&mut self) {
        self.pages += 1;
    }

    /// The attributes of every page closed so far.
    pub(crate) fn finish(mut self) -> Attributes {
        for a in &mut self.columns {
            a.codes.resize(self.pages, Attribute::NONE);
        }
        Attributes {
            columns: self.columns,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builder_pads_missing_values_and_refuses_repeats() {
        let mut b = AttributesBuilder::default();
        b.end_page();
        b.set("brand", "acme").unwrap();
        b.set("country", "BR").unwrap();
        assert!(b.set("brand", "other").unwrap_err().contains("given twice"));
        b.end_page();
        b.set("country", "BR").unwrap();
        b.end_page();
        b.end_page();
        let a = b.finish();
        assert_eq!(a.names(), ["brand", "country"]);
        let brand = a.get("brand").unwrap();
        assert_eq!(
            brand.codes(),
            [Attribute::NONE, 0, Attribute::NONE, Attribute::NONE]
        );
        let country = a.get("country").unwrap();
        assert_eq!(
            (country.value(1), country.value(2), country.value(3)),
            (Some("BR"), Some("BR"), None)
        );
        assert_eq!((country.cardinality(), country.pages_with()), (1, 2));
    }

    #[test]
    fn keys_are_names() {
        assert_eq!(
            check_key("weight").unwrap_err().to_string(),
            "bad attribute key `weight`: reserved for the page's weight"
        );
        assert_eq!(
            String::from(check_key("a\tb").unwrap_err()),
            "bad attribute key `a\\tb` (letters, digits, _ - . ; not starting with a digit)"
        );
        for bad in ["", "1st", "a b", "host", "weight", "k=v", "é"] {
            assert!(check_key(bad).is_err(), "{bad}");
        }
        for good in ["category", "_x", "a.b-c_9"] {
            check_key(good).unwrap();
        }
        let mut b = AttributesBuilder::default();
        assert!(b.set("category", "").unwrap_err().contains("empty value"));
    }

    #[test]
    fn subset_keeps_codes() {
        let mut b = AttributesBuilder::default();
        for v in ["x", "y", "z"] {
            b.set("k", v).unwrap();
            b.end_page();
        }
        let a = b.finish().subset(&[2, 0]);
        let k = a.get("k").unwrap();
        assert_eq!(
            (k.value(0), k.value(1), k.code(0)),
            (Some("z"), Some("x"), Some(2))
        );
        assert_eq!(k.cardinality(), 2);
    }

    #[test]
    fn from_parts_checks_the_invariant() {
        let ok = |codes: Vec<u32>| {
            Attributes::from_parts(vec![("k".into(), vec!["a".into(), "b".into()], codes)], 2)
        };
        ok(vec![0, Attribute::NONE]).unwrap();
        assert!(ok(vec![0, 2]).is_err());
        assert!(ok(vec![0]).is_err());
        assert!(Attributes::from_parts(
            vec![("k".into(), vec!["a".into(), "a".into()], vec![0])],
            1
        )
        .is_err());
    }
}
