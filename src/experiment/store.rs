//! The output directory of a study: `study.json` (the checked [`Study`]) and one JSON file
//! per finished unit of work in `units/`.
//!
//! Every file is written atomically (`crate::atomic`): to a temporary file in the same
//! directory, flushed to disk, then renamed over the target. A crash or a kill leaves
//! either the complete old state or the complete new file, never a half-written result
//! (at worst a stray `.*.tmp` file, which is ignored and replaced on the next run).
//!
//! A directory belongs to one study: [`Store::create`] refuses a non-empty directory
//! unless it holds the same study and the caller resumes; "the same" means every field of
//! `study.json` but `description` and `reports` is equal (those two only change what the
//! report shows, so a resumed run may update them).
//!
//! It also belongs to one dataset: `dataset.json` records the [`Fingerprint`] of the data
//! the first run used ([`Store::check_dataset`]); a resumed run on other data, or a merge
//! of a shard run on other data, is refused, and every unit file carries the fingerprint
//! too (the report checks them).

use super::study::Study;
use crate::data::{Dataset, Fingerprint};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The study record inside an output directory.
pub const STUDY_FILE: &str = "study.json";
/// The format of [`STUDY_FILE`] this version writes, as its `format` key: 2, every setting
/// that changes a result written with its value (a feature left out when off, as it was
/// before the feature existed). A file without the key is of format 1, written before the
/// format was recorded: it is read alike, and resumed only when it leaves out no setting
/// the reader would otherwise fill with today's default ([`StoreError::LeftOut`]).
pub const STUDY_FORMAT: u64 = 2;
/// The record of the dataset a study's results were computed on.
pub const DATASET_FILE: &str = "dataset.json";
/// The folder of unit results inside an output directory.
pub(crate) const UNITS_DIR: &str = "units";
/// The directory of a report's plots.
pub(crate) const PLOTS_DIR: &str = "plots";

/// Why an output directory cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A file or directory operation failed.
    #[error("{path}: {reason}")]
    Io {
        /// The path.
        path: String,
        /// The system's reason.
        reason: String,
    },
    /// The directory holds files but no study.
    #[error("{dir} is not empty and holds no {STUDY_FILE}: choose another --out directory")]
    Foreign {
        /// The directory.
        dir: String,
    },
    /// The directory holds results of this study and the caller did not resume.
    #[error("{dir} already holds results of this study: pass --resume to continue it, or choose another --out directory")]
    Exists {
        /// The directory.
        dir: String,
    },
    /// The directory holds another study.
    #[error("{dir} holds a different study: `{field}` differs from {} (stored {stored}, {} {given})", against.source(), against.label())]
    Different {
        /// The directory.
        dir: String,
        /// What it is compared with.
        against: Against,
        /// The path of the first differing value of `study.json`.
        field: String,
        /// The stored value (JSON).
        stored: String,
        /// The file's value (JSON).
        given: String,
    },
    /// The directory holds results computed on another dataset.
    #[error("{dir} holds results computed on another dataset (stored: {stored}; {source_name}: {given}): results of two datasets are never mixed (the same study on other data is another study: give it another output directory)")]
    OtherData {
        /// The directory.
        dir: String,
        /// The dataset its results came from.
        stored: Box<DatasetRecord>,
        /// Where the other dataset comes from (the experiment file, or a shard directory).
        source_name: String,
        /// The other dataset.
        given: Box<DatasetRecord>,
    },
    /// The stored study leaves out a setting that this version writes: one added after the
    /// file was written, which reading it filled with today's default. Its units were
    /// computed without the setting, so no run may add units computed with it.
    #[error("{dir} holds a study written before the setting `{field}` existed: reading it fills the setting with today's default, which may not be what its units were computed with, so it cannot be resumed (run the study into another --out directory; `freshgp report` still reads the stored results)")]
    LeftOut {
        /// The directory.
        dir: String,
        /// The path of the first setting left out (`configurations[0].gp.selection`).
        field: String,
    },
    /// Two directories to merge, one written before a setting existed and one after.
    #[error("{older} holds a study written before the setting `{field}` existed, {newer} one written after: their units may have been computed with different values of it, so they are not merged")]
    Mixed {
        /// The directory whose study leaves the setting out.
        older: String,
        /// The setting.
        field: String,
        /// The directory whose study records it.
        newer: String,
    },
    /// A stored study written by a newer freshgp.
    #[error("{path}: format {format}, written by a newer freshgp (this one reads formats up to {STUDY_FORMAT})")]
    NewerFormat {
        /// The file.
        path: String,
        /// Its format.
        format: u64,
    },
    /// A stored file does not parse.
    #[error("{path}: {reason}")]
    Corrupt {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
}

/// Which dataset results were computed on: its size and [`Fingerprint`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct DatasetRecord {
    /// The content's fingerprint ([`Dataset::fingerprint`]; under the first definition,
    /// [`Dataset::first_fingerprint`], in a record of `fingerprint_version` 1).
    pub fingerprint: Fingerprint,
    /// Pages.
    pub pages: usize,
    /// Cycles.
    pub cycles: usize,
    /// Which definition `fingerprint` follows: 2, or 1 in a record written before hosts and
    /// attribute values counted by name (a record without the field).
    #[serde(default = "first_version")]
    pub fingerprint_version: u32,
    /// The fingerprint under the first definition, so that the units of a directory
    /// written under it still match (absent in records of version 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_fingerprint: Option<Fingerprint>,
}

/// The version of a record written before the field existed.
fn first_version() -> u32 {
    1
}

impl DatasetRecord {
    /// The record of `dataset`.
    pub fn of(dataset: &Dataset) -> DatasetRecord {
        let (fingerprint, first) = dataset.fingerprints();
        DatasetRecord {
            fingerprint,
            pages: dataset.pages(),
            cycles: dataset.cycles(),
            fingerprint_version: 2,
            first_fingerprint: Some(first),
        }
    }

    /// The fingerprint under the first definition, if known.
    fn first(&self) -> Option<Fingerprint> {
        match self.fingerprint_version {
            1 => Some(self.fingerprint),
            _ => self.first_fingerprint,
        }
    }

    /// Whether both records are of the same data: the same size and fingerprint under a
    /// definition both know.
    pub fn same_data(&self, other: &DatasetRecord) -> bool {
        let current = self.fingerprint_version >= 2 && other.fingerprint_version >= 2;
        (self.pages, self.cycles) == (other.pages, other.cycles)
            && match current && self.fingerprint_version == other.fingerprint_version {
                true => self.fingerprint == other.fingerprint,
                false => self.first().is_some() && self.first() == other.first(),
            }
    }

    /// Whether a unit that recorded `fingerprint` was computed on this data (under either
    /// definition this record knows).
    pub fn holds(&self, fingerprint: Fingerprint) -> bool {
        fingerprint == self.fingerprint || Some(fingerprint) == self.first()
    }
}

impl std::fmt::Display for DatasetRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} pages × {} cycles, fingerprint {}",
            self.pages, self.cycles, self.fingerprint
        )
    }
}

/// Whether `dir` is absent, empty, or holds only what [`Store::create`] writes before
/// `study.json` is in place (an empty `units/`, temporary files `.*.tmp`): what a
/// directory looks like while another shard of the same study is creating it.
fn being_created(dir: &Path) -> std::io::Result<bool> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(true),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let temporary = name.starts_with('.') && name.ends_with(".tmp");
        let empty_units = name == UNITS_DIR && std::fs::read_dir(entry.path())?.next().is_none();
        if !(temporary || empty_units) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// What a directory's study is compared with when it is refused as a different study.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Against {
    /// The experiment file being run or resumed.
    ExperimentFile,
    /// The study of this output directory (merging a shard into it).
    Directory(String),
}

impl Against {
    /// What the message compares with.
    fn source(&self) -> String {
        match self {
            Against::ExperimentFile => "the experiment file's".into(),
            Against::Directory(dir) => format!("the study of {dir}"),
        }
    }

    /// How the message names the compared value.
    fn label(&self) -> String {
        match self {
            Against::ExperimentFile => "file".into(),
            Against::Directory(dir) => format!("in {dir}"),
        }
    }
}

fn io(path: &Path, e: std::io::Error) -> StoreError {
    StoreError::Io {
        path: path.display().to_string(),
        reason: e.to_string(),
    }
}

/// Where two studies first differ (besides `description` and `reports`): the path of the
/// first differing value, e.g. `configurations[0].gp.generations`, and both values as
/// compact JSON (shortened past 120 characters), so the message stays readable.
pub(crate) fn difference(stored: &Study, given: &Study) -> Option<(String, String, String)> {
    // Invariant: a study is plain data (string keys, finite numbers): it serializes.
    let a = serde_json::to_value(stored).expect("a study serializes");
    // Invariant: as above.
    let b = serde_json::to_value(given).expect("a study serializes");
    let (a, b) = (a.as_object()?, b.as_object()?);
    let null = serde_json::Value::Null;
    // Every key of either: a field left out when at its default (`test_horizon`, `group`)
    // is in one study only when the other changed it.
    let keys = a.keys().chain(b.keys().filter(|k| !a.contains_key(*k)));
    keys.filter(|key| *key != "description" && *key != "reports")
        .find_map(|key| {
            let (va, vb) = (a.get(key).unwrap_or(&null), b.get(key).unwrap_or(&null));
            first_difference(key.clone(), va, vb)
        })
        .map(|(path, x, y)| (path, short(x), short(y)))
}

/// The first key, depth first, that `writes` (a study as this version writes it) has and
/// `written` (as its file holds it) lacks, below `path`.
fn left_out(
    path: String,
    written: &serde_json::Value,
    writes: &serde_json::Value,
) -> Option<String> {
    use serde_json::Value;
    let join = |key: &str| match path.is_empty() {
        true => key.to_string(),
        false => format!("{path}.{key}"),
    };
    match (written, writes) {
        (Value::Object(w), Value::Object(x)) => {
            x.iter().find_map(|(key, value)| match w.get(key) {
                None => Some(join(key)),
                Some(held) => left_out(join(key), held, value),
            })
        }
        (Value::Array(w), Value::Array(x)) => (w.iter().zip(x).enumerate())
            .find_map(|(i, (held, value))| left_out(format!("{path}[{i}]"), held, value)),
        _ => None,
    }
}

/// The first place, depth first, where `a` and `b` differ, below `path`.
fn first_difference<'v>(
    path: String,
    a: &'v serde_json::Value,
    b: &'v serde_json::Value,
) -> Option<(String, &'v serde_json::Value, &'v serde_json::Value)> {
    use serde_json::Value;
    const NULL: &Value = &Value::Null;
    match (a, b) {
        _ if a == b => None,
        (Value::Object(x), Value::Object(y)) => {
            let keys = x.keys().chain(y.keys().filter(|k| !x.contains_key(*k)));
            keys.into_iter()
                .find_map(|k| {
                    let (va, vb) = (x.get(k).unwrap_or(NULL), y.get(k).unwrap_or(NULL));
                    first_difference(format!("{path}.{k}"), va, vb)
                })
                // They differ only by a `null` against a missing key: the whole value.
                .or(Some((path, a, b)))
        }
        (Value::Array(x), Value::Array(y)) => (0..x.len().max(y.len()))
            .find_map(|i| {
                let (va, vb) = (x.get(i).unwrap_or(NULL), y.get(i).unwrap_or(NULL));
                first_difference(format!("{path}[{i}]"), va, vb)
            })
            .or(Some((path, a, b))),
        _ => Some((path, a, b)),
    }
}

/// Compact JSON, shortened past 120 characters.
fn short(value: &serde_json::Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(120) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// An output directory.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
}

impl Store {
    /// Prepares `dir` for `study`: creates it (and `units/`) if needed and writes
    /// `study.json`. A non-empty directory is accepted only with `resume` and when it holds
    /// the same study (see the module docs).
    pub fn create(dir: &Path, study: &Study, resume: bool) -> Result<Store, StoreError> {
        let store = Store::check(dir, study, resume)?;
        let units = dir.join(UNITS_DIR);
        std::fs::create_dir_all(&units).map_err(|e| io(&units, e))?;
        store.remove_orphans()?;
        /// `study.json`: its format, then the study.
        #[derive(Serialize)]
        struct StudyFile<'a> {
            format: u64,
            #[serde(flatten)]
            study: &'a Study,
        }
        let file = StudyFile {
            format: STUDY_FORMAT,
            study,
        };
        store.write_json(&dir.join(STUDY_FILE), &file)?;
        Ok(store)
    }

    /// Removes the temporary files a killed run left in the directory, its units and its
    /// plots ([`crate::atomic::remove_orphans`]); a running writer's are kept. Returns how
    /// many were removed.
    ///
    /// # Errors
    /// A directory that cannot be listed or an orphan that cannot be removed.
    pub fn remove_orphans(&self) -> Result<usize, StoreError> {
        let mut removed = 0;
        for dir in [
            self.dir.clone(),
            self.dir.join(UNITS_DIR),
            self.dir.join(PLOTS_DIR),
        ] {
            removed += crate::atomic::remove_orphans(&dir).map_err(|e| io(&dir, e))?;
        }
        Ok(removed)
    }

    /// The checks of [`Store::create`], without writing anything. A directory another
    /// run is creating at this moment (shards of one study started together on a shared
    /// file system) counts as empty (see `being_created`).
    pub fn check(dir: &Path, study: &Study, resume: bool) -> Result<Store, StoreError> {
        let store = Store {
            dir: dir.to_path_buf(),
        };
        let shown = dir.display().to_string();
        let empty = being_created(dir).map_err(|e| io(dir, e))?;
        if !empty {
            let (stored, left_out) = match store.read_study() {
                Ok(s) => s,
                Err(StoreError::Io { .. }) if !dir.join(STUDY_FILE).exists() => {
                    return Err(StoreError::Foreign { dir: shown })
                }
                Err(e) => return Err(e),
            };
            if let Some((field, stored, given)) = difference(&stored, study) {
                return Err(StoreError::Different {
                    dir: shown,
                    against: Against::ExperimentFile,
                    field,
                    stored,
                    given,
                });
            }
            if !resume {
                return Err(StoreError::Exists { dir: shown });
            }
            if let Some(field) = left_out {
                return Err(StoreError::LeftOut { dir: shown, field });
            }
        }
        Ok(store)
    }

    /// Prepares the new directory `dir` for the study of the output directory `other` (a
    /// shard to merge), with a copy of its `study.json` as it is written, so that `dir`
    /// leaves out what `other` leaves out (see [`STUDY_FORMAT`]).
    ///
    /// # Errors
    /// As [`Store::create`], and an `other` without a readable study.
    pub fn create_like(dir: &Path, other: &Path) -> Result<Store, StoreError> {
        let (_, study) = Store::open(other)?;
        let store = Store::check(dir, &study, false)?;
        let units = dir.join(UNITS_DIR);
        std::fs::create_dir_all(&units).map_err(|e| io(&units, e))?;
        let from = other.join(STUDY_FILE);
        let bytes = std::fs::read(&from).map_err(|e| io(&from, e))?;
        let to = dir.join(STUDY_FILE);
        crate::atomic::write(&to, &bytes).map_err(|e| io(&to, e))?;
        Ok(store)
    }

    /// Opens an existing output directory and reads its study.
    pub fn open(dir: &Path) -> Result<(Store, Study), StoreError> {
        let store = Store {
            dir: dir.to_path_buf(),
        };
        let study = store.study()?;
        Ok((store, study))
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The stored study.
    pub fn study(&self) -> Result<Study, StoreError> {
        self.read_study().map(|(study, _)| study)
    }

    /// The stored study, and the first setting it leaves out that this version writes, if
    /// any (see [`STUDY_FORMAT`]).
    fn read_study(&self) -> Result<(Study, Option<String>), StoreError> {
        let path = self.dir.join(STUDY_FILE);
        let shown = || path.display().to_string();
        let corrupt = |e: serde_json::Error| StoreError::Corrupt {
            path: shown(),
            reason: e.to_string(),
        };
        let mut written: serde_json::Value =
            self.read_json(&path)?.ok_or_else(|| StoreError::Io {
                path: shown(),
                reason: "no such file".into(),
            })?;
        let format = match written.as_object_mut().and_then(|o| o.remove("format")) {
            None => 1,
            Some(v) => v.as_u64().ok_or_else(|| StoreError::Corrupt {
                path: shown(),
                reason: format!("format: expected a number, found {v}"),
            })?,
        };
        if format > STUDY_FORMAT {
            return Err(StoreError::NewerFormat {
                path: shown(),
                format,
            });
        }
        let study = Study::deserialize(&written).map_err(corrupt)?;
        // Invariant: a study is plain data (string keys, finite numbers): it serializes.
        let mut writes = serde_json::to_value(&study).expect("a study serializes");
        // As in `difference`: these two change only what the report shows.
        if let Some(o) = writes.as_object_mut() {
            o.remove("description");
            o.remove("reports");
        }
        Ok((study, left_out(String::new(), &written, &writes)))
    }

    /// The dataset recorded in `dataset.json`, if any.
    pub fn dataset(&self) -> Result<Option<DatasetRecord>, StoreError> {
        self.read_json(&self.dir.join(DATASET_FILE))
    }

    /// Records `dataset` as the one this directory's results come from, or, when one is
    /// recorded already, checks that it is the same (an [`StoreError::OtherData`] naming
    /// both otherwise).
    pub fn check_dataset(&self, dataset: DatasetRecord) -> Result<(), StoreError> {
        self.record_dataset(dataset, "the experiment's dataset")
    }

    /// [`Store::check_dataset`] with `given` from `source_name`. A record written under
    /// the first fingerprint is replaced by a later one of the same data, which holds both,
    /// so that the units stored before and those to come match it.
    fn record_dataset(&self, given: DatasetRecord, source_name: &str) -> Result<(), StoreError> {
        match self.dataset()? {
            Some(stored) if !stored.same_data(&given) => Err(StoreError::OtherData {
                dir: self.dir.display().to_string(),
                stored: Box::new(stored),
                source_name: source_name.to_string(),
                given: Box::new(given),
            }),
            Some(stored) if stored.fingerprint_version >= given.fingerprint_version => Ok(()),
            _ => self.write_json(&self.dir.join(DATASET_FILE), &given),
        }
    }

    /// The path of the unit file `name` (e.g. `GP4C_All-NDCG-r0-s1.json`).
    pub fn unit_path(&self, name: &str) -> PathBuf {
        self.dir.join(UNITS_DIR).join(name)
    }

    /// Writes a unit result atomically.
    pub(crate) fn write_unit<T: Serialize>(&self, name: &str, value: &T) -> Result<(), StoreError> {
        self.write_json(&self.unit_path(name), value)
    }

    /// Reads a unit result: `None` if absent, an error if it does not parse.
    pub(crate) fn read_unit<T: DeserializeOwned>(
        &self,
        name: &str,
    ) -> Result<Option<T>, StoreError> {
        self.read_json(&self.unit_path(name))
    }

    /// Writes any file of the directory atomically (JSON, pretty, newline-terminated).
    pub(crate) fn write_json<T: Serialize>(
        &self,
        path: &Path,
        value: &T,
    ) -> Result<(), StoreError> {
        // Invariant: every stored type is plain data (string keys): it serializes.
        let mut text = serde_json::to_string_pretty(value).expect("results serialize");
        text.push('\n');
        crate::atomic::write(path, text.as_bytes()).map_err(|e| io(path, e))
    }

    fn read_json<T: DeserializeOwned>(&self, path: &Path) -> Result<Option<T>, StoreError> {
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(path, e)),
        };
        serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| StoreError::Corrupt {
                path: path.display().to_string(),
                reason: e.to_string(),
            })
    }

    /// Copies into this directory the unit files of `other` (a shard of the same study)
    /// that it lacks; returns how many were copied.
    pub fn merge_from(&self, other: &Path) -> Result<usize, StoreError> {
        let theirs = Store {
            dir: other.to_path_buf(),
        };
        let (their_study, their_left_out) = theirs.read_study()?;
        let (ours, our_left_out) = self.read_study()?;
        // A study written before a setting existed and one written after may agree on its
        // value only because reading the first filled in today's default.
        match (our_left_out, their_left_out) {
            (Some(field), None) => {
                return Err(StoreError::Mixed {
                    older: self.dir.display().to_string(),
                    field,
                    newer: other.display().to_string(),
                })
            }
            (None, Some(field)) => {
                return Err(StoreError::Mixed {
                    older: other.display().to_string(),
                    field,
                    newer: self.dir.display().to_string(),
                })
            }
            _ => {}
        }
        if let Some((field, stored, given)) = difference(&ours, &their_study) {
            let ours = self.dir.display().to_string();
            return Err(StoreError::Different {
                dir: other.display().to_string(),
                against: Against::Directory(ours),
                field,
                stored: given,
                given: stored,
            });
        }
        if let Some(given) = theirs.dataset()? {
            self.record_dataset(given, &other.display().to_string())?;
        }
        let from = theirs.dir.join(UNITS_DIR);
        let entries = match std::fs::read_dir(&from) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(io(&from, e)),
        };
        let mut names: Vec<String> = entries
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".json") && !n.starts_with('.'))
            .collect();
        names.sort();
        let units = self.dir.join(UNITS_DIR);
        std::fs::create_dir_all(&units).map_err(|e| io(&units, e))?;
        let mut copied = 0;
        for name in names {
            let target = self.unit_path(&name);
            if target.exists() {
                continue;
            }
            let source = from.join(&name);
            let bytes = std::fs::read(&source).map_err(|e| io(&source, e))?;
            serde_json::from_slice::<serde_json::Value>(&bytes).map_err(|e| {
                StoreError::Corrupt {
                    path: source.display().to_string(),
                    reason: e.to_string(),
                }
            })?;
            crate::atomic::write(&target, &bytes).map_err(|e| io(&target, e))?;
            copied += 1;
        }
        Ok(copied)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_being_created_by_another_shard_counts_as_empty() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("out");
        assert!(being_created(&dir).unwrap(), "absent");
        std::fs::create_dir_all(dir.join(UNITS_DIR)).unwrap();
        std::fs::write(dir.join(".study.json.12.00ff.tmp"), "{").unwrap();
        assert!(
            being_created(&dir).unwrap(),
            "empty units/ and a temporary file"
        );
        std::fs::write(dir.join(UNITS_DIR).join("baselines-r0.json"), "{}").unwrap();
        assert!(!being_created(&dir).unwrap(), "a stored unit");
        let other = tmp.path().join("other");
        std::fs::create_dir_all(&other).unwrap();
        std::fs::write(other.join("notes.txt"), "mine").unwrap();
        assert!(!being_created(&other).unwrap(), "a user's file");
    }
}
