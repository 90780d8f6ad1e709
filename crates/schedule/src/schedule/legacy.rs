//! Reading the state files of versions 1 to 6, which held every field per slot.
//!
//! Their payload is the state encoded with [`bincode`] (serde; variable-length integers).
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
//! Each page is checked and indexed as it is read; the scheduler loaded is the one a
//! version 8 file of the same state gives, and saving it writes version 8.

use super::attributes::{Column, NONE};
use super::bandit::{LiveBandit, LiveBanditV7};
use super::compact::{begin, checked_memory, end, free_flags};
use super::saved::{intern_sets, window30, Expected, SavedExtra, SavedSets, SavedStats};
use super::scheduler::PageId;
use super::Scheduler;
use crate::policy::{PageStats, Policy, SetId, Track};
use bincode::Options;
use serde::de::DeserializeOwned;
use serde::Deserialize;
#[cfg(test)]
use serde::Serialize;

/// A version 6 state as written (field order is the format), to forge files of older
/// versions in tests.
#[cfg(test)]
#[derive(Serialize)]
pub(super) struct SavedRef<'a, K> {
    pub(super) policy: &'a Policy,
    pub(super) seed: u64,
    pub(super) latest: u32,
    pub(super) ids: &'a [Option<K>],
    pub(super) stats: Vec<SavedStats>,
    pub(super) hosts: &'a [u32],
    pub(super) host_names: &'a [String],
    pub(super) free: &'a [u32],
    pub(super) memory: Vec<f64>,
    pub(super) extra: Vec<SavedExtra>,
    pub(super) weights: &'a [f64],
    pub(super) sets: SavedSets,
    pub(super) bandit: Option<LiveBanditV7>,
    pub(super) windows: Vec<[u32; 2]>,
    pub(super) attributes: &'a [Column],
    pub(super) grouping: Option<u32>,
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
    bandit: Option<LiveBanditV7>,
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
            bandit: v4.bandit.map(LiveBandit::from),
            windows,
            attributes,
            grouping,
        }
    }
}

pub(super) fn codec() -> impl Options {
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
                bandit: bandit.map(LiveBandit::from),
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

impl<K: PageId + DeserializeOwned> Scheduler<K> {
    /// The scheduler of a version 1 to 6 payload, every invariant checked.
    pub(super) fn from_legacy(version: u32, payload: &[u8]) -> Result<Scheduler<K>, String> {
        let saved = decode(version, payload.len() as u64, payload)
            .map_err(|e| format!("cannot decode ({e}); was it saved with another page id type?"))?;
        Scheduler::from_saved(saved)
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
        let mut s = begin(
            base.policy,
            (base.seed, base.latest),
            &base.host_names,
            bandit,
            slots,
        )?;
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
        for (slot, ((id, stats), &host)) in base
            .ids
            .into_iter()
            .zip(&base.stats)
            .zip(&base.hosts)
            .enumerate()
        {
            match id {
                None if is_free[slot] => {
                    s.ids.push_free();
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
        end(&mut s, base.free, attributes, grouping)?;
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
        let state = checked_memory(&self.policy, stats, extra.memory)
            .map_err(|reason: String| named(&reason))?;
        if self.ids.slot(&page).is_some() {
            return Err(named("listed twice"));
        }
        self.group_of.push(self.groups.join(state));
        self.ids.push_free();
        self.ids.put(slot, page);
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
}

/// A version 6 file of `s`, as the last build that wrote version 6 wrote it.
#[cfg(test)]
pub(super) fn forge_v6<K>(s: &Scheduler<K>) -> Vec<u8>
where
    K: PageId + Serialize,
{
    use super::saved::SetWriter;
    let slots = s.group_of.len();
    let (mut stats, mut memory, mut extra) = (Vec::new(), Vec::new(), Vec::new());
    let mut sets = SetWriter::new();
    let mut windows = Vec::new();
    for &g in &s.group_of {
        let page = match g {
            NONE => crate::policy::PageState::default(),
            g => s.groups.pages[g as usize],
        };
        stats.push(page.stats.into());
        memory.push(page.memory);
        extra.push(sets.extra(&page.stats, &s.histories));
        if s.track.has(Track::WINDOW30) {
            windows.push([page.stats.recent_visits, page.stats.recent_changes]);
        }
    }
    let saved = SavedRef {
        policy: &s.policy,
        seed: s.seed,
        latest: s.latest,
        ids: &s.ids.all(),
        stats,
        hosts: &s.host_of,
        host_names: &s.host_names,
        free: &s.free,
        memory,
        extra,
        weights: &s.weight_of,
        sets: sets.finish(),
        bandit: s.bandit.as_ref().map(LiveBanditV7::from),
        windows,
        attributes: s.attributes.columns(),
        grouping: s.grouping.map(|c| c as u32),
    };
    assert_eq!(saved.ids.len(), slots);
    let payload = codec().serialize(&saved).unwrap();
    let mut out = super::state::MAGIC.to_vec();
    out.extend_from_slice(&6u32.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&payload);
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}
