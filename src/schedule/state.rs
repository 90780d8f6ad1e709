//! Saving and loading a [`Scheduler`]: a versioned, checksummed binary file.
//!
//! A crawler restarts without losing history: everything the ranking depends on (the
//! policy, the tie seed, the latest cycle, every slot's page id, statistics — tracked ones
//! included —, policy memory, host and weight, the interned visit intervals, the free
//! slots) is saved, and a loaded scheduler ranks exactly as the saved one would have.
//!
//! The payload is the state encoded with [`bincode`] (serde; variable-length integers, so
//! the mostly small counters take a byte or two). It is compact and fast for the millions
//! of pages a crawler holds, where JSON would be several times larger and slower to read.
//! Layout:
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `\x89FGPSCH\n` |
//! | 4 | format version, little-endian (`6`; versions `1` to `5` are read too) |
//! | 8 | payload length, little-endian |
//! | n | payload (bincode) |
//! | 4 | CRC-32 of every byte before it; the file ends here |
//!
//! The payload, version 6, is these fields in order (a list is its length, then its
//! items; "per slot" lists have one item per slot, free slots included, in slot order):
//!
//! | field | content | since |
//! |---|---|---|
//! | `policy` | the policy (`PolicySpec`) | 1 |
//! | `seed`, `latest` | tie-break seed, latest observed cycle | 1 |
//! | `ids` | per slot: the page id, or none for a free slot | 1 |
//! | `stats` | per slot: `n`, `X`, last visit, last change, Σ change cycles, GAD anchor | 1 |
//! | `hosts` | per slot: index in `host_names`, or `u32::MAX` for none | 1 |
//! | `host_names` | the hosts, each once | 1 |
//! | `free` | the free slots, the next to reuse last | 1 |
//! | `memory` | per slot: the policy's memory of the page | 2 |
//! | `extra` | per slot, the tracked statistics: statistics kept (bits 1 `w`, 2 `HR`, 4 `n7`/`X7`, 8 `MLE`, 16 the 30-cycle window of `n30`/`X30`/`P` with 4, 32 `GR`), the weight and host the statistics hold, the 7-cycle visit and change masks, the index of its change-detecting intervals in `sets`, the sum of its other intervals, its MLE rate | 3 |
//! | `weights` | per slot: the page's weight (kept whatever the policy reads) | 3 |
//! | `sets` | the distinct multisets of change-detecting visit intervals the pages use, each as its intervals in ascending order; the first is the empty one | 3 |
//! | `bandit` | for a bandit policy (docs/src/reference/bandit.md): the arms' log weights and the batch awaiting its reward (cycle, arm, every arm's probability, `k`, the batch's slots, changes found so far); none otherwise | 4 |
//! | `windows` | for a policy that keeps 30 cycles (`n30`, `X30`, a learned model's `P`, `model:FILE`): per slot, the 30-cycle visit and change masks (bit i: cycle last visit - i); empty otherwise. The policy itself holds the model file's text, so a state loads without the file | 5 |
//! | `attributes` | the pages' categorical attributes (docs/src/reference/data.md#attributes), per key: the key, its values, and per slot the code of the page's value (`u32::MAX`: none) | 6 |
//! | `grouping` | the attribute (index in `attributes`) pages are grouped by for `GR`, or none for the host | 6 |
//!
//! The host and group totals `HR` and `GR` read are not saved: they are the sums of the
//! pages' `X` and `n` per host and group, recomputed on loading (as is the group a page's
//! statistics hold). Loading a version 1 or 2 file gives every page weight
//! 1 and the tracked statistics of its known history; when the policy reads `n7`, `X7` or
//! `MLE`, which need the visit history such files do not keep, a file with a page
//! already visited is refused (start a new state file), one whose pages were never
//! visited loads.
//!
//! A truncated, corrupt or foreign file is an error naming the file and what is wrong,
//! never a panic or a huge allocation (the decoder is limited to the payload's length),
//! and the decoded state is checked for consistency before use (e.g. a weight that is not
//! finite and >= 0, masks that disagree with the last visit, intervals that do not add
//! up to it, statistics kept for another policy's terminals), naming the page. The page id type must be
//! the one the file was saved with. Saving writes a temporary file beside the target,
//! syncs it and renames it over the target, so a crash leaves the old or the new state,
//! never a mix.
//!
//! ```
//! use freshgp::schedule::Scheduler;
//! use freshgp::policy::{Baseline, Policy};
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

use super::attributes::NONE;
use super::attributes::{Attributes, Column};
use super::bandit::LiveBandit;
use super::saved::{intern_sets, window30, Expected, SavedExtra, SavedSets, SavedStats, SetWriter};
use super::Scheduler;
use crate::policy::{PageState, PageStats, Policy, SetId, Track};
use bincode::Options;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fmt::Debug;
use std::hash::Hash;
use std::path::Path;

/// The first 8 bytes of every state file.
pub(crate) const MAGIC: [u8; 8] = *b"\x89FGPSCH\n";
/// The format version this build writes (it also reads version 1, from before policies
/// kept per-page memory, version 2, from before the tracked statistics, and version 3,
/// from before bandits, version 4, from before learned models, and version 5, from
/// before attributes).
pub(crate) const VERSION: u32 = 6;

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
    extra: Vec<SavedExtra>,
    weights: &'a [f64],
    sets: SavedSets,
    bandit: Option<&'a LiveBandit>,
    windows: Vec<[u32; 2]>,
    attributes: &'a [Column],
    grouping: Option<u32>,
}

/// A version 1 state: everything but the policy memory and the tracked statistics.
/// Bincode writes a struct as its fields in order, so nesting it first in [`SavedV2`]
/// reads exactly the flat layout of [`SavedRef`]'s first fields.
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

/// A version 2 state: version 1 and each slot's policy memory.
#[derive(Deserialize)]
struct SavedV2<K> {
    base: SavedV1<K>,
    memory: Vec<f64>,
}

/// A version 3 state: version 2 and the tracked statistics.
#[derive(Deserialize)]
struct SavedV3<K> {
    v2: SavedV2<K>,
    section8: Section8,
}

/// A version 4 state: version 3 and a bandit's weights.
#[derive(Deserialize)]
struct SavedV4<K> {
    v3: SavedV3<K>,
    bandit: Option<LiveBandit>,
}

/// A version 5 state: version 4 and the 30-cycle windows of a learned model's policy.
#[derive(Deserialize)]
struct SavedV5<K> {
    v4: SavedV4<K>,
    windows: Vec<[u32; 2]>,
}

/// A version 6 state: version 5 and the pages' attributes and grouping.
#[derive(Deserialize)]
struct SavedV6<K> {
    v5: SavedV5<K>,
    attributes: Vec<Column>,
    grouping: Option<u32>,
}

/// What version 3 adds: per slot, the tracked statistics and the weight; the interval
/// multisets the statistics point into.
#[derive(Deserialize)]
struct Section8 {
    extra: Vec<SavedExtra>,
    weights: Vec<f64>,
    sets: SavedSets,
}

/// A decoded state of any version.
struct Saved<K> {
    version: u32,
    base: SavedV1<K>,
    /// Per slot; empty from a version 1 file (every page has the policy's fresh memory).
    memory: Vec<f64>,
    /// From a version 3 file.
    section8: Option<Section8>,
    /// From a version 4 file with a bandit policy.
    bandit: Option<LiveBandit>,
    /// From a version 5 file whose policy keeps 30 cycles (`P`): per slot, the masks.
    windows: Vec<[u32; 2]>,
    /// From a version 6 file: the attributes and the grouping.
    attributes: Vec<Column>,
    grouping: Option<u32>,
}

impl<K> Saved<K> {
    fn from_v5(
        version: u32,
        v5: SavedV5<K>,
        attributes: Vec<Column>,
        grouping: Option<u32>,
    ) -> Saved<K> {
        let SavedV5 { v4, windows } = v5;
        Saved {
            version,
            base: v4.v3.v2.base,
            memory: v4.v3.v2.memory,
            section8: Some(v4.v3.section8),
            bandit: v4.bandit,
            windows,
            attributes,
            grouping,
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

/// Decodes the payload of a file of `version` (1 to [`VERSION`]), reading at most `size`
/// bytes.
fn decode<K: DeserializeOwned>(
    version: u32,
    size: u64,
    payload: &[u8],
) -> Result<Saved<K>, bincode::Error> {
    let codec = codec().with_limit(size);
    Ok(match version {
        1 => Saved {
            version,
            base: codec.deserialize::<SavedV1<K>>(payload)?,
            memory: Vec::new(),
            section8: None,
            bandit: None,
            windows: Vec::new(),
            attributes: Vec::new(),
            grouping: None,
        },
        2 => {
            let SavedV2 { base, memory } = codec.deserialize(payload)?;
            Saved {
                version,
                base,
                memory,
                section8: None,
                bandit: None,
                windows: Vec::new(),
                attributes: Vec::new(),
                grouping: None,
            }
        }
        3 => {
            let SavedV3 { v2, section8 } = codec.deserialize(payload)?;
            Saved {
                version,
                base: v2.base,
                memory: v2.memory,
                section8: Some(section8),
                bandit: None,
                windows: Vec::new(),
                attributes: Vec::new(),
                grouping: None,
            }
        }
        4 => {
            let SavedV4 { v3, bandit } = codec.deserialize(payload)?;
            Saved {
                version,
                base: v3.v2.base,
                memory: v3.v2.memory,
                section8: Some(v3.section8),
                bandit,
                windows: Vec::new(),
                attributes: Vec::new(),
                grouping: None,
            }
        }
        5 => {
            let v5: SavedV5<K> = codec.deserialize(payload)?;
            Saved::from_v5(version, v5, Vec::new(), None)
        }
        _ => {
            let SavedV6 {
                v5,
                attributes,
                grouping,
            } = codec.deserialize(payload)?;
            Saved::from_v5(version, v5, attributes, grouping)
        }
    })
}

/// Whether the per-slot lists have one entry per slot (the memories may be absent).
fn check_lengths<K>(saved: &Saved<K>) -> Result<(), String> {
    let slots = saved.base.ids.len();
    let memory_ok = saved.memory.is_empty() || saved.memory.len() == slots;
    let section8_ok = saved
        .section8
        .as_ref()
        .is_none_or(|x| x.extra.len() == slots && x.weights.len() == slots);
    if saved.base.stats.len() != slots || saved.base.hosts.len() != slots || !memory_ok {
        return Err(format!(
            "{} page ids, {} statistics, {} policy memories and {} hosts",
            slots,
            saved.base.stats.len(),
            saved.memory.len(),
            saved.base.hosts.len()
        ));
    }
    if let (false, Some(x)) = (section8_ok, &saved.section8) {
        return Err(format!(
            "{} page ids, {} tracked statistics and {} weights",
            slots,
            x.extra.len(),
            x.weights.len()
        ));
    }
    if slots >= (u32::MAX - 1) as usize {
        return Err(format!("{slots} slots"));
    }
    Ok(())
}

/// Which of `slots` slots are free, from the free list (each listed once).
fn free_flags(free: &[u32], slots: usize) -> Result<Vec<bool>, String> {
    let mut is_free = vec![false; slots];
    for &f in free {
        match is_free.get_mut(f as usize) {
            Some(flag) if !*flag => *flag = true,
            _ => return Err(format!("bad free slot {f}")),
        }
    }
    Ok(is_free)
}

/// What a saved page brings besides the statistics every page keeps.
struct SavedPage<'a> {
    host: u32,
    memory: f64,
    /// From a version 3 file: the tracked statistics and the weight.
    section8: Option<(&'a SavedExtra, f64)>,
    /// From a version 5 file whose policy keeps 30 cycles.
    window30: Option<[u32; 2]>,
    /// The version of the file (for errors).
    version: u32,
}

impl<K: Hash + Eq + Clone + Debug + Serialize + DeserializeOwned> Scheduler<K> {
    /// The state as bytes (the file format above).
    pub fn to_bytes(&self) -> Result<Vec<u8>, StateError> {
        let slots = self.group_of.len();
        let (mut stats, mut memory, mut extra) = (
            Vec::with_capacity(slots),
            Vec::with_capacity(slots),
            Vec::with_capacity(slots),
        );
        let mut sets = SetWriter::new();
        let mut windows = Vec::new();
        for &g in &self.group_of {
            let page = match g {
                NONE => PageState::default(),
                g => self.groups.pages[g as usize],
            };
            stats.push(page.stats.into());
            memory.push(page.memory);
            extra.push(sets.extra(&page.stats, &self.histories));
            if self.track.has(Track::WINDOW30) {
                windows.push([page.stats.recent_visits, page.stats.recent_changes]);
            }
        }
        let saved = SavedRef {
            policy: &self.policy,
            seed: self.seed,
            latest: self.latest,
            ids: &self.ids,
            stats,
            hosts: &self.host_of,
            host_names: &self.host_names,
            free: &self.free,
            memory,
            extra,
            weights: &self.weight_of,
            sets: sets.finish(),
            bandit: self.bandit.as_ref(),
            windows,
            attributes: self.attributes.columns(),
            grouping: self.grouping.map(|c| c as u32),
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
        if !(1..=VERSION).contains(&version) {
            return Err(bad(format!(
                "format version {version}, this build reads versions 1 to {VERSION}"
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
        let saved = decode(version, size, &body[HEADER..]).map_err(|e| {
            bad(format!(
                "cannot decode ({e}); was it saved with another page id type?"
            ))
        })?;
        Scheduler::from_saved(saved).map_err(bad)
    }

    /// Builds the scheduler from a decoded state, checking every invariant.
    fn from_saved(saved: Saved<K>) -> Result<Scheduler<K>, String> {
        check_lengths(&saved)?;
        let Saved {
            version,
            base,
            memory,
            section8,
            bandit,
            windows,
            attributes,
            grouping,
        } = saved;
        let slots = base.ids.len();
        let keeps_30 = base.policy.features().track().has(Track::WINDOW30);
        if windows.len() != if keeps_30 { slots } else { 0 } {
            return Err(format!(
                "{} 30-cycle windows for {slots} page slots of policy {}",
                windows.len(),
                base.policy
            ));
        }
        let mut s = Scheduler::new(base.policy.clone()).with_seed(base.seed);
        match (base.policy.bandit(), bandit) {
            (None, None) => {}
            (Some(b), Some(live)) if live.fits(b, base.seed, slots) => s.bandit = Some(live),
            (Some(_), Some(_)) => {
                return Err("the bandit's weights or pending batch do not fit its arms".into())
            }
            (Some(_), None) => return Err("a bandit policy without its weights".into()),
            (None, Some(_)) => return Err("bandit weights for a policy that is none".into()),
        }
        s.latest = base.latest;
        for name in &base.host_names {
            if s.host_index.contains_key(name.as_str()) {
                return Err(format!("host {name:?} is listed twice"));
            }
            s.intern_host(name);
        }
        let is_free = free_flags(&base.free, slots)?;
        let set_ids = match &section8 {
            Some(x) => intern_sets(&x.sets, &mut s.histories)?,
            None => Vec::new(),
        };
        let fresh = s.policy.fresh_page().memory;
        s.ids.reserve(slots);
        s.group_of.reserve(slots);
        s.host_of.reserve(slots);
        s.weight_of.reserve(slots);
        s.index.reserve(slots - base.free.len().min(slots));
        for (slot, ((id, stats), &host)) in base
            .ids
            .into_iter()
            .zip(&base.stats)
            .zip(&base.hosts)
            .enumerate()
        {
            match id {
                None if is_free[slot] => {
                    s.ids.push(None);
                    s.group_of.push(NONE);
                    s.host_of.push(NONE);
                    s.weight_of.push(1.0);
                }
                None => return Err(format!("slot {slot} has no page and is not free")),
                Some(page) if is_free[slot] => {
                    return Err(format!("slot {slot} holds page {page:?} and is free"))
                }
                Some(page) => {
                    let extra = SavedPage {
                        host,
                        memory: memory.get(slot).copied().unwrap_or(fresh),
                        section8: section8.as_ref().map(|x| (&x.extra[slot], x.weights[slot])),
                        window30: windows.get(slot).copied(),
                        version,
                    };
                    s.load_page(slot as u32, page, stats, extra, &set_ids)?;
                }
            }
        }
        s.free = base.free;
        s.attributes = Attributes::from_saved(attributes, slots)?;
        if let Some(slot) = (0..slots).find(|&f| is_free[f] && s.attributes.of(f).next().is_some())
        {
            return Err(format!("free slot {slot} has attributes"));
        }
        s.grouping = match grouping {
            Some(c) if c as usize >= s.attributes.columns().len() => {
                return Err(format!("grouped by attribute {c}, which is not listed"))
            }
            grouping => grouping.map(|c| c as usize),
        };
        s.regroup();
        Ok(s)
    }

    /// Adds the saved `page` in `slot` (the next one), checking its statistics; `sets`
    /// are the file's interned interval multisets.
    fn load_page(
        &mut self,
        slot: u32,
        page: K,
        saved: &SavedStats,
        extra: SavedPage<'_>,
        sets: &[SetId],
    ) -> Result<(), String> {
        let named = |reason: &str| format!("page {page:?}: {reason}");
        if let Some(reason) = saved.check(self.latest) {
            return Err(named(reason));
        }
        let host = extra.host;
        if host != NONE && host as usize >= self.host_names.len() {
            return Err(named(&format!("host {host} is not listed")));
        }
        let weight = extra.section8.map_or(1.0, |(_, w)| w);
        if !(weight.is_finite() && weight >= 0.0) {
            return Err(named(&format!(
                "weight {weight} is not a finite number >= 0"
            )));
        }
        let weight = weight + 0.0;
        let stats = match extra.section8 {
            Some((section8, _)) => {
                let expected = Expected {
                    track: self.track,
                    weight,
                    host,
                };
                let base = saved.over(PageStats::default());
                let stats = section8
                    .stats(base, expected, sets, &mut self.histories)
                    .map_err(|reason| named(&reason))?;
                match extra.window30 {
                    Some(masks) => window30(&stats, masks).map_err(|reason| named(&reason))?,
                    None => stats,
                }
            }
            None => self
                .unsaved_section8(saved, weight, host, extra.version)
                .map_err(|reason| named(&reason))?,
        };
        let state = PageState {
            stats,
            memory: extra.memory,
        };
        if !self.policy.valid_memory(state.memory) {
            return Err(named(&format!(
                "policy memory {} is impossible for {}",
                state.memory, self.policy
            )));
        }
        if self.index.insert(page.clone(), slot).is_some() {
            return Err(named("listed twice"));
        }
        self.group_of.push(self.groups.join(state));
        self.ids.push(Some(page));
        self.host_of.push(host);
        self.weight_of.push(weight);
        self.host_rates
            .add_totals(host, stats.x as i64, stats.n as i64);
        Ok(())
    }

    /// The whole statistics of a page saved by a version 1 or 2 file (without tracked
    /// statistics): its weight and host are known, its visit history is not, so a page
    /// already visited is refused when the policy reads `n7`, `X7` or `MLE`.
    fn unsaved_section8(
        &self,
        saved: &SavedStats,
        weight: f64,
        host: u32,
        version: u32,
    ) -> Result<PageStats, String> {
        let history = self.track.has(Track::WINDOW) || self.track.has(Track::INTERVALS);
        if history && saved.n > 0 {
            let needs: Vec<&str> = [(Track::WINDOW, "n7/X7"), (Track::INTERVALS, "MLE")]
                .into_iter()
                .filter(|(t, _)| self.track.has(*t))
                .map(|(_, name)| name)
                .collect();
            return Err(format!(
                "a version {version} state keeps no visit history, and {} reads {}: \
                 start a new state file for this policy",
                self.policy,
                needs.join(" and ")
            ));
        }
        // The group is set once every page is loaded (`Scheduler::regroup`).
        Ok(saved.over(
            self.policy
                .fresh_page_of(weight, host, crate::policy::NO_GROUP)
                .stats,
        ))
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
#[path = "state_tests.rs"]
mod tests;
