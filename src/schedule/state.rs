//! Saving and loading a [`Scheduler`]: a versioned, checksummed binary file.
//!
//! A crawler restarts without losing history: everything the ranking depends on (the
//! policy, the tie seed, the latest cycle, every slot's page id, statistics, policy memory
//! and host, the free slots) is saved, and a loaded scheduler ranks exactly as the saved one would have.
//!
//! The payload is the state encoded with [`bincode`] (serde; variable-length integers, so
//! the mostly small counters take a byte or two). It is compact and fast for the millions
//! of pages a crawler holds, where JSON would be several times larger and slower to read.
//! Layout:
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `\x89FGPSCH\n` |
//! | 4 | format version, little-endian (`2`; version `1`, without policy memory, is read too) |
//! | 8 | payload length, little-endian |
//! | n | payload (bincode) |
//! | 4 | CRC-32 of every byte before it; the file ends here |
//!
//! A truncated, corrupt or foreign file is an error naming the file and what is wrong,
//! never a panic or a huge allocation (the decoder is limited to the payload's length),
//! and the decoded state is checked for consistency before use. The page id type must be
//! the one the file was saved with. Saving writes a temporary file beside the target,
//! syncs it and renames it over the target, so a crash leaves the old or the new state,
//! never a mix.
//!
//! ```
//! use freshgp::schedule::Scheduler;
//! use freshgp::sim::{Baseline, Policy};
//!
//! let mut s: Scheduler = Scheduler::new(Policy::Baseline(Baseline::Nad));
//! s.add("a".to_string())?;
//! s.observe("a", 1, true)?;
//! let bytes = s.to_bytes()?;
//! let back: Scheduler = Scheduler::from_bytes(&bytes, "<memory>")?;
//! assert_eq!(back.stats("a"), s.stats("a"));
//! assert!(Scheduler::<String>::from_bytes(&bytes[..bytes.len() - 1], "<memory>").is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::{Scheduler, NONE};
use crate::sim::{PageState, PageStats, Policy};
use bincode::Options;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fmt::Debug;
use std::hash::Hash;
use std::path::Path;

/// The first 8 bytes of every state file.
pub(crate) const MAGIC: [u8; 8] = *b"\x89FGPSCH\n";
/// The format version this build writes (it also reads version 1, from before policies
/// kept per-page memory).
pub(crate) const VERSION: u32 = 2;

const HEADER: usize = 8 + 4 + 8;
const TRAILER: usize = 4;

/// Why a state cannot be saved or loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StateError {
    /// Reading or writing failed.
    #[error("{file}: {reason}")]
    Io {
        /// The file.
        file: String,
        /// The system's reason.
        reason: String,
    },
    /// The file is not a usable scheduler state.
    #[error("{file}: not a usable scheduler state: {reason}")]
    Corrupt {
        /// The file.
        file: String,
        /// What is wrong.
        reason: String,
    },
    /// The state cannot be encoded.
    #[error("cannot encode the scheduler state: {0}")]
    Encode(String),
}

/// One slot's statistics, as saved.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
struct SavedStats {
    n: u32,
    x: u32,
    last_visit: u32,
    last_change: u32,
    change_cycle_sum: u64,
    gad_anchor: f64,
}

impl From<PageStats> for SavedStats {
    fn from(s: PageStats) -> SavedStats {
        SavedStats {
            n: s.n,
            x: s.x,
            last_visit: s.last_visit,
            last_change: s.last_change,
            change_cycle_sum: s.change_cycle_sum,
            gad_anchor: s.gad_anchor,
        }
    }
}

impl SavedStats {
    fn to_stats(self) -> PageStats {
        PageStats {
            n: self.n,
            x: self.x,
            last_visit: self.last_visit,
            last_change: self.last_change,
            change_cycle_sum: self.change_cycle_sum,
            gad_anchor: self.gad_anchor,
            ..PageStats::default()
        }
    }

    /// What is inconsistent in these statistics, if anything.
    fn check(&self, latest: u32) -> Option<&'static str> {
        if self.x > self.n {
            return Some("more changes than visits");
        }
        if self.last_visit > latest {
            return Some("a visit after the latest cycle");
        }
        if (self.n == 0) != (self.last_visit == 0) {
            return Some("visit count and last visit disagree");
        }
        if (self.x == 0) != (self.last_change == 0) || self.last_change > self.last_visit {
            return Some("change count and last change disagree");
        }
        let sum_ok = if self.x == 0 {
            self.change_cycle_sum == 0
        } else {
            self.change_cycle_sum >= self.last_change as u64
                && self.change_cycle_sum <= self.x as u64 * self.last_change as u64
        };
        if !sum_ok {
            return Some("impossible sum of change cycles");
        }
        let gad_ok = if self.x == 0 {
            self.gad_anchor == 0.0
        } else {
            self.gad_anchor >= 1.0 && self.gad_anchor < 2.0
        };
        if !gad_ok {
            return Some("impossible GAD sum");
        }
        None
    }
}

/// The saved state (field order is the format; bump [`VERSION`] when it changes).
#[derive(Serialize)]
struct SavedRef<'a, K> {
    policy: &'a Policy,
    seed: u64,
    latest: u32,
    ids: &'a [Option<K>],
    stats: Vec<SavedStats>,
    hosts: &'a [u32],
    host_names: &'a [String],
    free: &'a [u32],
    memory: Vec<f64>,
}

/// [`SavedRef`], owned, for decoding. Bincode writes a struct as its fields in order, so
/// nesting [`SavedV1`] first reads exactly the flat layout of [`SavedRef`].
#[derive(Deserialize)]
struct Saved<K> {
    base: SavedV1<K>,
    /// Per slot; empty when read from a version 1 file (every page has the policy's
    /// fresh memory).
    memory: Vec<f64>,
}

/// A version 1 state: everything but the policy memory.
#[derive(Deserialize)]
struct SavedV1<K> {
    policy: Policy,
    seed: u64,
    latest: u32,
    ids: Vec<Option<K>>,
    stats: Vec<SavedStats>,
    hosts: Vec<u32>,
    host_names: Vec<String>,
    free: Vec<u32>,
}

impl<K> From<SavedV1<K>> for Saved<K> {
    fn from(base: SavedV1<K>) -> Saved<K> {
        Saved {
            base,
            memory: Vec::new(),
        }
    }
}

/// The little-endian integer in `bytes` (exactly 4 of them).
fn u32_le(bytes: &[u8]) -> u32 {
    let mut word = [0; 4];
    word.copy_from_slice(bytes);
    u32::from_le_bytes(word)
}

/// The little-endian integer in `bytes` (exactly 8 of them).
fn u64_le(bytes: &[u8]) -> u64 {
    let mut word = [0; 8];
    word.copy_from_slice(bytes);
    u64::from_le_bytes(word)
}

fn codec() -> impl Options {
    bincode::DefaultOptions::new().reject_trailing_bytes()
}

impl<K: Hash + Eq + Clone + Debug + Serialize + DeserializeOwned> Scheduler<K> {
    /// The state as bytes (the file format above).
    pub fn to_bytes(&self) -> Result<Vec<u8>, StateError> {
        let page = |g: u32| match g {
            NONE => PageState::default(),
            g => self.groups.pages[g as usize],
        };
        let saved = SavedRef {
            policy: &self.policy,
            seed: self.seed,
            latest: self.latest,
            ids: &self.ids,
            hosts: &self.host_of,
            host_names: &self.host_names,
            free: &self.free,
            stats: self
                .group_of
                .iter()
                .map(|&g| page(g).stats.into())
                .collect(),
            memory: self.group_of.iter().map(|&g| page(g).memory).collect(),
        };
        let size = codec()
            .serialized_size(&saved)
            .map_err(|e| StateError::Encode(e.to_string()))?;
        let mut out = Vec::with_capacity(HEADER + size as usize + TRAILER);
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&size.to_le_bytes());
        codec()
            .serialize_into(&mut out, &saved)
            .map_err(|e| StateError::Encode(e.to_string()))?;
        let crc = crc32fast::hash(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        Ok(out)
    }

    /// Reads a state from `bytes` (a whole file); `file` names it in errors.
    pub fn from_bytes(bytes: &[u8], file: &str) -> Result<Scheduler<K>, StateError> {
        let bad = |reason: String| StateError::Corrupt {
            file: file.to_string(),
            reason,
        };
        if bytes.len() < MAGIC.len() || bytes[..MAGIC.len()] != MAGIC {
            return Err(bad(
                "wrong magic bytes (not a freshgp scheduler state)".into()
            ));
        }
        if bytes.len() < HEADER + TRAILER {
            return Err(bad(format!(
                "truncated: {} bytes, a state has at least {}",
                bytes.len(),
                HEADER + TRAILER
            )));
        }
        let version = u32_le(&bytes[8..12]);
        if version != VERSION && version != 1 {
            return Err(bad(format!(
                "format version {version}, this build reads versions 1 and {VERSION}"
            )));
        }
        let size = u64_le(&bytes[12..20]);
        let actual = (bytes.len() - HEADER - TRAILER) as u64;
        if size != actual {
            return Err(bad(format!(
                "the header announces {size} bytes of state, the file holds {actual} \
                 (truncated or appended to)"
            )));
        }
        let (body, trailer) = bytes.split_at(bytes.len() - TRAILER);
        let stored = u32_le(trailer);
        let crc = crc32fast::hash(body);
        if crc != stored {
            return Err(bad(format!(
                "checksum mismatch (stored {stored:08x}, computed {crc:08x}): the file is corrupt"
            )));
        }
        let decoded = match version {
            1 => codec()
                .with_limit(size)
                .deserialize::<SavedV1<K>>(&body[HEADER..])
                .map(Saved::from),
            _ => codec().with_limit(size).deserialize(&body[HEADER..]),
        };
        let saved = decoded.map_err(|e| {
            bad(format!(
                "cannot decode ({e}); was it saved with another page id type?"
            ))
        })?;
        Scheduler::from_saved(saved).map_err(bad)
    }

    /// Builds the scheduler from a decoded state, checking every invariant.
    fn from_saved(
        Saved {
            base: saved,
            memory,
        }: Saved<K>,
    ) -> Result<Scheduler<K>, String> {
        let slots = saved.ids.len();
        let memory_ok = memory.is_empty() || memory.len() == slots;
        if saved.stats.len() != slots || saved.hosts.len() != slots || !memory_ok {
            return Err(format!(
                "{} page ids, {} statistics, {} policy memories and {} hosts",
                slots,
                saved.stats.len(),
                memory.len(),
                saved.hosts.len()
            ));
        }
        let fresh = saved.policy.fresh_page().memory;
        let memory = |slot: usize| memory.get(slot).copied().unwrap_or(fresh);
        if slots >= (u32::MAX - 1) as usize {
            return Err(format!("{slots} slots"));
        }
        let mut s = Scheduler::new(saved.policy.clone()).with_seed(saved.seed);
        s.latest = saved.latest;
        for name in &saved.host_names {
            if s.host_index.contains_key(name.as_str()) {
                return Err(format!("host {name:?} is listed twice"));
            }
            s.intern_host(name);
        }
        let mut is_free = vec![false; slots];
        for &f in &saved.free {
            match is_free.get_mut(f as usize) {
                Some(flag) if !*flag => *flag = true,
                _ => return Err(format!("bad free slot {f}")),
            }
        }
        s.ids.reserve(slots);
        s.group_of.reserve(slots);
        s.host_of.reserve(slots);
        s.index.reserve(slots - saved.free.len().min(slots));
        for (slot, ((id, stats), &host)) in saved
            .ids
            .into_iter()
            .zip(&saved.stats)
            .zip(&saved.hosts)
            .enumerate()
        {
            match id {
                None => {
                    if !is_free[slot] {
                        return Err(format!("slot {slot} has no page and is not free"));
                    }
                    s.ids.push(None);
                    s.group_of.push(NONE);
                    s.host_of.push(NONE);
                }
                Some(page) => {
                    if is_free[slot] {
                        return Err(format!("slot {slot} holds page {page:?} and is free"));
                    }
                    if let Some(reason) = stats.check(saved.latest) {
                        return Err(format!("page {page:?}: {reason}"));
                    }
                    if host != NONE && host as usize >= s.host_names.len() {
                        return Err(format!("page {page:?}: host {host} is not listed"));
                    }
                    if s.index.insert(page.clone(), slot as u32).is_some() {
                        return Err(format!("page {page:?} is listed twice"));
                    }
                    let state = PageState {
                        stats: stats.to_stats(),
                        memory: memory(slot),
                    };
                    if !s.policy.valid_memory(state.memory) {
                        return Err(format!(
                            "page {page:?}: policy memory {} is impossible for {}",
                            state.memory, s.policy
                        ));
                    }
                    s.group_of.push(s.groups.join(state));
                    s.ids.push(Some(page));
                    s.host_of.push(host);
                }
            }
        }
        s.free = saved.free;
        Ok(s)
    }

    /// Saves the state to `path` atomically (a temporary file beside it, then a rename).
    pub fn save(&self, path: &Path) -> Result<(), StateError> {
        let name = path.display().to_string();
        let io = |e: std::io::Error| StateError::Io {
            file: name.clone(),
            reason: e.to_string(),
        };
        let bytes = self.to_bytes()?;
        crate::atomic::write(path, &bytes).map_err(io)?;
        Ok(())
    }

    /// Loads a state saved by [`Scheduler::save`].
    pub fn load(path: &Path) -> Result<Scheduler<K>, StateError> {
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| StateError::Io {
            file: name.clone(),
            reason: e.to_string(),
        })?;
        Scheduler::from_bytes(&bytes, &name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{Adaptive, Baseline};

    fn sample() -> Scheduler {
        let mut s: Scheduler = Scheduler::new(Policy::Baseline(Baseline::Gad)).with_seed(9);
        for (i, page) in ["a", "b", "c", "d"].iter().enumerate() {
            if i % 2 == 0 {
                s.add_with_host(page.to_string(), "h").unwrap();
            } else {
                s.add(page.to_string()).unwrap();
            }
        }
        for d in 1..=5u32 {
            s.observe("a", d, d % 2 == 1).unwrap();
            s.observe("b", d, d == 3).unwrap();
        }
        s.observe("c", 2, true).unwrap();
        s.remove("d").unwrap();
        s
    }

    #[test]
    fn round_trip_keeps_everything() {
        let mut s = sample();
        let bytes = s.to_bytes().unwrap();
        let mut back: Scheduler = Scheduler::from_bytes(&bytes, "mem").unwrap();
        assert_eq!((back.seed(), back.latest_cycle(), back.len()), (9, 5, 3));
        assert_eq!(back.policy(), s.policy());
        for page in ["a", "b", "c"] {
            assert_eq!(back.stats(page), s.stats(page), "{page}");
            assert_eq!(back.host(page), s.host(page), "{page}");
            assert_eq!(back.slot(page), s.slot(page), "{page}");
        }
        assert_eq!(back.free, s.free);
        assert_eq!(
            back.next_batch_scored(6, 3, Some(1)).unwrap(),
            s.next_batch_scored(6, 3, Some(1)).unwrap()
        );
        assert_eq!(back.to_bytes().unwrap(), bytes, "saving is deterministic");
    }

    #[test]
    fn damaged_files_are_clear_errors() {
        let bytes = sample().to_bytes().unwrap();
        let reason = |b: &[u8]| match Scheduler::<String>::from_bytes(b, "st.bin") {
            Err(StateError::Corrupt { file, reason }) => {
                assert_eq!(file, "st.bin");
                reason
            }
            other => panic!("expected a corrupt-state error, got {other:?}"),
        };
        assert!(reason(b"BITS\t0101\n").contains("magic"));
        assert!(reason(&bytes[..10]).contains("truncated"));
        assert!(reason(&bytes[..bytes.len() - 3]).contains("truncated"));
        let mut flipped = bytes.clone();
        flipped[30] ^= 0x10;
        assert!(reason(&flipped).contains("checksum"));
        let mut version = bytes.clone();
        version[8] = 7;
        assert!(reason(&version).contains("version 7"));
        // A consistent checksum over an inconsistent state is still refused.
        let policy = Policy::Baseline(Baseline::Age);
        let saved = SavedRef::<String> {
            policy: &policy,
            seed: 0,
            latest: 2,
            ids: &[Some("a".into())],
            stats: vec![SavedStats {
                n: 1,
                x: 2,
                last_visit: 1,
                last_change: 1,
                change_cycle_sum: 1,
                gad_anchor: 1.0,
            }],
            hosts: &[NONE],
            host_names: &[],
            free: &[],
            memory: vec![0.0],
        };
        assert!(reason(&forge(VERSION, &saved)).contains("more changes than visits"));
        let nutch = Policy::Adaptive(Adaptive::NUTCH);
        let impossible = SavedRef {
            policy: &nutch,
            stats: vec![SavedStats::default()],
            memory: vec![0.5],
            ..saved
        };
        let why = reason(&forge(VERSION, &impossible));
        assert!(
            why.contains("policy memory 0.5 is impossible for nutch"),
            "{why}"
        );
    }

    /// A file of `version` holding `payload`, with a correct checksum.
    fn forge(version: u32, payload: &impl Serialize) -> Vec<u8> {
        let mut forged = MAGIC.to_vec();
        forged.extend_from_slice(&version.to_le_bytes());
        let payload = codec().serialize(payload).unwrap();
        forged.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        forged.extend_from_slice(&payload);
        let crc = crc32fast::hash(&forged);
        forged.extend_from_slice(&crc.to_le_bytes());
        forged
    }

    #[test]
    fn version_1_states_still_load() {
        let s = sample();
        let stats: Vec<SavedStats> = s
            .group_of
            .iter()
            .map(|&g| match g {
                NONE => SavedStats::default(),
                g => s.groups.pages[g as usize].stats.into(),
            })
            .collect();
        // Version 1 is version 2 without the trailing memory (bincode encodes a struct as
        // the tuple of its fields).
        let v1 = (
            s.policy(),
            s.seed(),
            s.latest_cycle(),
            &s.ids,
            stats,
            &s.host_of,
            &s.host_names,
            &s.free,
        );
        let back: Scheduler = Scheduler::from_bytes(&forge(1, &v1), "old.state").unwrap();
        assert_eq!(back.to_bytes().unwrap(), s.to_bytes().unwrap());
    }

    #[test]
    fn adaptive_memory_round_trips() {
        let mut s: Scheduler = Scheduler::new(Policy::Adaptive(Adaptive::STORMCRAWLER));
        s.add("a".to_string()).unwrap();
        s.add("b".to_string()).unwrap();
        s.observe("a", 1, false).unwrap();
        s.observe("b", 1, true).unwrap();
        s.observe("a", 2, false).unwrap();
        let back: Scheduler = Scheduler::from_bytes(&s.to_bytes().unwrap(), "x").unwrap();
        assert_eq!(back.state("a").unwrap().memory, 2.25);
        assert_eq!(back.state("b").unwrap().memory, 1.0);
        assert_eq!(back.state("a"), s.state("a"));
        assert_eq!(back.policy(), s.policy());
    }

    #[test]
    fn another_id_type_does_not_decode() {
        let bytes = sample().to_bytes().unwrap();
        assert!(matches!(
            Scheduler::<u64>::from_bytes(&bytes, "x"),
            Err(StateError::Corrupt { .. })
        ));
    }
}
