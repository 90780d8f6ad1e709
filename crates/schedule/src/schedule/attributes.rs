//! The pages' categorical attributes in a live crawl
//! (docs/src/reference/data.md#attributes): the `key=value` metadata a
//! [`Scheduler`](super::Scheduler) keeps per page, interned per key.
//!
//! Each key is a column: its distinct values (in order of first use) and one code per
//! slot, [`NONE`] where the page lacks the attribute. A page's attributes are set with
//! [`Scheduler::set_attribute`](super::Scheduler::set_attribute); the scheduler groups
//! pages by one of them for the terminal `GR` ([`Scheduler::group_by`](super::Scheduler::group_by)).
//!
//! **Invariant:** every column holds one code per slot, each [`NONE`] or an index into its
//! values; values are non-empty and distinct, keys are valid attribute keys
//! (`data::attributes`' rule) and distinct.

use rustc_hash::FxHashMap as HashMap;
use serde::{Deserialize, Serialize};

/// Marks a free slot (in `group_of`), a page without host (in `host_of`) or without a
/// value of an attribute (in its codes).
pub(super) const NONE: u32 = u32::MAX;

/// The attributes of every slot.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Attributes {
    columns: Vec<Column>,
}

/// One key: its values and each slot's code.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Column {
    pub(crate) name: String,
    pub(crate) values: Vec<String>,
    pub(crate) codes: Vec<u32>,
    #[serde(skip)]
    index: HashMap<String, u32>,
}

impl Column {
    fn intern(&mut self, value: &str) -> u32 {
        if let Some(&code) = self.index.get(value) {
            return code;
        }
        let code = self.values.len() as u32;
        self.values.push(value.to_string());
        self.index.insert(value.to_string(), code);
        code
    }
}

impl Attributes {
    /// The column of `key`, if any page ever had it.
    pub(crate) fn column(&self, key: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == key)
    }

    /// The column of `key`, added (every slot without it) if new.
    ///
    /// # Errors
    /// A key that is not a valid attribute key, with the reason.
    pub(crate) fn column_or_add(&mut self, key: &str, slots: usize) -> Result<usize, String> {
        if let Some(c) = self.column(key) {
            return Ok(c);
        }
        crate::data::attributes::check_key(key)?;
        self.columns.push(Column {
            name: key.to_string(),
            codes: vec![NONE; slots],
            ..Column::default()
        });
        Ok(self.columns.len() - 1)
    }

    /// Sets slot `slot`'s value of column `c` (`None`: clears it); gives the old and new
    /// codes.
    ///
    /// # Errors
    /// An empty value or one holding a TAB or a line break.
    pub(crate) fn set(
        &mut self,
        c: usize,
        slot: usize,
        value: Option<&str>,
    ) -> Result<(u32, u32), String> {
        let column = &mut self.columns[c];
        let code = match value {
            None => NONE,
            Some(v) if v.is_empty() || v.contains(['\t', '\n', '\r']) => {
                return Err(format!(
                    "attribute {}: value {:?} must be non-empty, without TAB or line break",
                    column.name, v
                ))
            }
            Some(v) => column.intern(v),
        };
        Ok((std::mem::replace(&mut column.codes[slot], code), code))
    }

    /// Slot `slot`'s code of column `c` ([`NONE`] without it).
    #[inline]
    pub(crate) fn code(&self, c: usize, slot: usize) -> u32 {
        self.columns[c].codes[slot]
    }

    /// Slot `slot`'s value of `key`.
    pub(crate) fn value(&self, key: &str, slot: usize) -> Option<&str> {
        let column = &self.columns[self.column(key)?];
        let code = column.codes[slot];
        (code != NONE).then(|| column.values[code as usize].as_str())
    }

    /// Slot `slot`'s attributes, `(key, value)` in key order.
    pub(crate) fn of(&self, slot: usize) -> impl Iterator<Item = (&str, &str)> {
        self.columns.iter().filter_map(move |c| {
            let code = c.codes[slot];
            (code != NONE).then(|| (c.name.as_str(), c.values[code as usize].as_str()))
        })
    }

    /// One more slot, without attributes.
    pub(crate) fn push_slot(&mut self) {
        for c in &mut self.columns {
            c.codes.push(NONE);
        }
    }

    /// Clears every attribute of `slot` (a freed slot).
    pub(crate) fn clear_slot(&mut self, slot: usize) {
        for c in &mut self.columns {
            c.codes[slot] = NONE;
        }
    }

    /// The keys some slot has a value of (a freed slot has none).
    pub(crate) fn keys_in_use(&self) -> Vec<&str> {
        (self.columns.iter())
            .filter(|c| c.codes.iter().any(|&code| code != NONE))
            .map(|c| c.name.as_str())
            .collect()
    }

    /// The columns, for saving.
    pub(crate) fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// Columns read back from a saved state, checked against `slots`.
    ///
    /// # Errors
    /// A bad or repeated key, repeated or empty values, a wrong number of codes or a code
    /// out of range: the reason.
    pub(crate) fn from_saved(columns: Vec<Column>, slots: usize) -> Result<Attributes, String> {
        let mut out = Attributes::default();
        for mut column in columns {
            crate::data::attributes::check_key(&column.name)?;
            if out.column(&column.name).is_some() {
                return Err(format!("attribute {} is listed twice", column.name));
            }
            if column.codes.len() != slots {
                return Err(format!(
                    "attribute {}: {} codes for {slots} slots",
                    column.name,
                    column.codes.len()
                ));
            }
            for (code, value) in column.values.iter().enumerate() {
                if value.is_empty() || column.index.insert(value.clone(), code as u32).is_some() {
                    return Err(format!(
                        "attribute {}: value {value:?} is empty or listed twice",
                        column.name
                    ));
                }
                if value.contains(['\t', '\n', '\r']) {
                    return Err(format!(
                        "attribute {}: value {value:?} holds a TAB or line break",
                        column.name
                    ));
                }
            }
            let values = column.values.len();
            if let Some(bad) = column
                .codes
                .iter()
                .find(|&&c| c != NONE && c as usize >= values)
            {
                return Err(format!(
                    "attribute {}: code {bad} is not one of its {values} values",
                    column.name
                ));
            }
            out.columns.push(column);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_interned_per_key_and_cleared_with_the_slot() {
        let mut a = Attributes::default();
        let c = a.column_or_add("category", 2).unwrap();
        assert_eq!(a.set(c, 0, Some("shoes")).unwrap(), (NONE, 0));
        assert_eq!(a.set(c, 1, Some("shoes")).unwrap(), (NONE, 0));
        assert_eq!(a.set(c, 1, Some("hats")).unwrap(), (0, 1));
        assert_eq!(a.value("category", 1), Some("hats"));
        a.push_slot();
        assert_eq!(a.value("category", 2), None);
        a.clear_slot(0);
        assert_eq!(a.of(0).count(), 0);
        assert_eq!(a.of(1).collect::<Vec<_>>(), [("category", "hats")]);
        assert!(a.column_or_add("host", 3).unwrap_err().contains("reserved"));
        assert!(a
            .column_or_add("9lives", 3)
            .unwrap_err()
            .contains("bad attribute key"));
        assert!(a.set(c, 0, Some("")).unwrap_err().contains("non-empty"));
        assert!(a.set(c, 0, Some("a\tb")).unwrap_err().contains("TAB"));
    }

    #[test]
    fn saved_columns_are_checked() {
        let column = |name: &str, values: &[&str], codes: Vec<u32>| Column {
            name: name.into(),
            values: values.iter().map(|v| v.to_string()).collect(),
            codes,
            ..Column::default()
        };
        let good = Attributes::from_saved(vec![column("c", &["x", "y"], vec![1, NONE])], 2);
        assert_eq!(good.unwrap().value("c", 0), Some("y"));
        for (columns, why) in [
            (vec![column("c", &["x"], vec![0])], "1 codes for 2 slots"),
            (vec![column("c", &["x"], vec![0, 3])], "code 3 is not one"),
            (vec![column("c", &["x", "x"], vec![0, 0])], "listed twice"),
            (
                vec![
                    column("c", &[], vec![NONE; 2]),
                    column("c", &[], vec![NONE; 2]),
                ],
                "attribute c is listed twice",
            ),
            (vec![column("host", &[], vec![NONE; 2])], "reserved"),
        ] {
            let err = Attributes::from_saved(columns, 2).unwrap_err();
            assert!(err.contains(why), "{err}");
        }
    }
}
