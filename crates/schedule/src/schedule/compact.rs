//! The compact state file (format version 8, and 7 read): the distinct statistics once, every page as
//! fixed-width columns, the page ids as one buffer read only when needed.
//!
//! A crawler's pages mostly share statistics ([`super::groups`]), so the file lists each
//! distinct page state once (its **table**) and gives every slot the index of its entry,
//! its host, its weight and where its id ends: 24 bytes per page besides its id, read
//! with one copy per column and no allocation per page. Each table entry is checked
//! once, each slot against its entry with a few comparisons; the ids are checked (they
//! decode, no two are equal) on both cores and stay encoded ([`super::ids`]) until a
//! page is looked up by id. Ranking the pages of a loaded state therefore costs what the
//! batch costs, not what decoding millions of ids would.
//!
//! The payload (between [`super::state`]'s header and checksum):
//!
//! | bytes | content |
//! |---|---|
//! | 8 | length `h` of the head, little-endian |
//! | h | the head ([`Head`], bincode): policy, seed, latest cycle, number of slots, hosts, free slots, bandit, attributes, grouping, interval multisets, the table |
//! | 4 × slots | per slot: index of its table entry (`u32::MAX`: a free slot) |
//! | 4 × slots | per slot: host index (`u32::MAX`: none) |
//! | 8 × slots | per slot: weight (`f64`; 1 for a free slot) |
//! | 8 × slots | per slot: the end of its id in the id bytes (ids are contiguous, in slot order; a free slot's is empty) |
//! | rest | the id bytes: each id encoded with bincode |
//!
//! Columns are little-endian. The table lists the states in the order of the first slot
//! that holds each, every entry used by some slot: a state saves to the same bytes
//! whatever its history in memory, so a state loaded and saved unchanged is the file it
//! came from (and `freshgp schedule` then leaves that file alone).
//!
//! This module also holds the steps loading shares with the older versions
//! (`legacy.rs`): [`begin`] and [`end`].

use super::attributes::{Attributes, Column, NONE};
use super::bandit::{LiveBandit, LiveBanditV7};
use super::ids::{Encoded, PageIds};
use super::saved::{intern_sets, window30, Expected, SavedExtra, SavedSets, SavedStats, SetWriter};
use super::scheduler::PageId;
use super::Scheduler;
use crate::policy::{PageState, PageStats, Policy, Track, NO_HOST};
use bincode::Options;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt::Debug;
use std::ops::Range;

/// One distinct page state, as the table holds it.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub(super) struct SavedGroup {
    stats: SavedStats,
    memory: f64,
    extra: SavedExtra,
    /// The 30-cycle visit and change masks of a policy that keeps 30 cycles, else 0.
    window: [u32; 2],
}

/// The head of the payload (field order is the format).
#[derive(Serialize, Deserialize)]
struct Head<P, B, T, C> {
    policy: P,
    seed: u64,
    latest: u32,
    slots: u64,
    host_names: T,
    free: Vec<u32>,
    bandit: Option<B>,
    attributes: C,
    grouping: Option<u32>,
    sets: SavedSets,
    table: Vec<SavedGroup>,
}

impl<P, B, T, C> Head<P, B, T, C> {
    /// The same head with its bandit's state converted by `f`.
    fn map_bandit<B2>(self, f: impl FnOnce(B) -> B2) -> Head<P, B2, T, C> {
        Head {
            policy: self.policy,
            seed: self.seed,
            latest: self.latest,
            slots: self.slots,
            host_names: self.host_names,
            free: self.free,
            bandit: self.bandit.map(f),
            attributes: self.attributes,
            grouping: self.grouping,
            sets: self.sets,
            table: self.table,
        }
    }
}

/// The head as written (borrowing the scheduler) and as read.
type HeadRef<'a> = Head<&'a Policy, &'a LiveBandit, &'a [String], &'a [Column]>;
type HeadOwned<B> = Head<Policy, B, Vec<String>, Vec<Column>>;

fn codec() -> impl Options {
    bincode::DefaultOptions::new().reject_trailing_bytes()
}

/// Bytes per slot in the columns.
const SLOT_BYTES: u64 = 4 + 4 + 8 + 8;

impl<K: PageId + Serialize + DeserializeOwned + 'static> Scheduler<K> {
    /// Appends the payload of a version 8 file to `out`.
    pub(super) fn compact_payload(&self, out: &mut Vec<u8>) -> Result<(), String> {
        let slots = self.group_of.len();
        let mut entry_of = vec![NONE; self.groups.slots()];
        let mut table = Vec::new();
        let mut sets = SetWriter::new();
        let keeps_30 = self.track.has(Track::WINDOW30);
        let mut entries = Vec::with_capacity(slots);
        for &g in &self.group_of {
            let entry = match g {
                NONE => NONE,
                g if entry_of[g as usize] != NONE => entry_of[g as usize],
                g => {
                    let page = self.groups.pages[g as usize];
                    entry_of[g as usize] = table.len() as u32;
                    table.push(SavedGroup {
                        stats: page.stats.into(),
                        memory: page.memory,
                        extra: sets.extra(&page.stats, &self.histories),
                        window: match keeps_30 {
                            true => [page.stats.recent_visits, page.stats.recent_changes],
                            false => [0, 0],
                        },
                    });
                    entry_of[g as usize]
                }
            };
            entries.push(entry);
        }
        let head: HeadRef<'_> = Head {
            policy: &self.policy,
            seed: self.seed,
            latest: self.latest,
            slots: slots as u64,
            host_names: &self.host_names,
            free: self.free.clone(),
            bandit: self.bandit.as_ref(),
            attributes: self.attributes.columns(),
            grouping: self.grouping.map(|c| c as u32),
            sets: sets.finish(),
            table,
        };
        let head = codec().serialize(&head).map_err(|e| e.to_string())?;
        out.reserve(8 + head.len() + slots * SLOT_BYTES as usize);
        out.extend_from_slice(&(head.len() as u64).to_le_bytes());
        out.extend_from_slice(&head);
        put_u32s(out, &entries);
        put_u32s(out, &self.host_of);
        put_u64s(out, self.weight_of.iter().map(|w| w.to_bits()));
        self.ids.write(out).map_err(|e| e.to_string())
    }

    /// The scheduler of the compact payload `bytes[payload]` of a file of `version` (7 or
    /// 8: version 7 holds a bandit without its count of plays), every invariant checked.
    /// From a file read whole (`Cow::Owned`), the ids stay in it, not copied.
    pub(super) fn from_compact(
        version: u32,
        bytes: Cow<'_, [u8]>,
        payload: Range<usize>,
    ) -> Result<Scheduler<K>, String> {
        let (head, head_len) = if version == 7 {
            let (head, len) = split_head::<LiveBanditV7>(&bytes[payload.clone()])?;
            (head.map_bandit(LiveBandit::from), len)
        } else {
            split_head::<LiveBandit>(&bytes[payload.clone()])?
        };
        let slots = head.slots as usize;
        let mut s = begin(
            head.policy,
            (head.seed, head.latest),
            &head.host_names,
            head.bandit,
            slots,
        )?;
        // The columns first: their size bounds what the slot count may allocate.
        let columns = Columns::read(bytes, payload.start + 8 + head_len..payload.end, slots)?;
        let is_free = free_flags(&head.free, slots)?;
        let states = s.table_states(&head.table, &head.sets)?;
        let mut columns = columns;
        s.load_slots(&mut columns, &states, &is_free)?;
        s.ids = PageIds::from_encoded(columns.ids)?;
        end(&mut s, head.free, head.attributes, head.grouping)?;
        Ok(s)
    }

    /// The table's states, each checked.
    fn table_states(
        &mut self,
        table: &[SavedGroup],
        sets: &SavedSets,
    ) -> Result<Vec<PageState>, String> {
        let set_ids = intern_sets(sets, &mut self.histories)?;
        let keeps_30 = self.track.has(Track::WINDOW30);
        table
            .iter()
            .enumerate()
            .map(|(i, entry)| {
                let named = |reason: &str| format!("page state {i}: {reason}");
                if let Some(reason) = entry.stats.check(self.latest) {
                    return Err(named(reason));
                }
                // The weight and host the statistics hold are checked against each page's.
                let expected = Expected {
                    track: self.track,
                    weight: match self.track.has(Track::WEIGHT) {
                        true => entry.extra.weight + 0.0,
                        false => 0.0,
                    },
                    host: match self.track.has(Track::HOST) {
                        true => entry.extra.host,
                        false => NO_HOST,
                    },
                };
                let base = entry.stats.over(PageStats::default());
                let mut stats = entry
                    .extra
                    .stats(base, expected, &set_ids, &mut self.histories)
                    .map_err(|reason| named(&reason))?;
                match keeps_30 {
                    true => stats = window30(&stats, entry.window).map_err(|r| named(&r))?,
                    false if entry.window != [0, 0] => {
                        return Err(named("30-cycle masks kept by a policy that keeps 7"))
                    }
                    false => {}
                }
                checked_memory(&self.policy, stats, entry.memory).map_err(|r| named(&r))
            })
            .collect()
    }

    /// Fills the slots from the columns: each page's host, weight and state, checked
    /// against its table entry; the pages' groups and their hosts' totals.
    fn load_slots(
        &mut self,
        c: &mut Columns,
        states: &[PageState],
        is_free: &[bool],
    ) -> Result<(), String> {
        let slots = is_free.len();
        // Each entry joins its group once here (a count taken back below), so that a
        // slot only looks its group up by entry.
        let group_of_entry: Vec<u32> = states
            .iter()
            .map(|&state| self.groups.join(state))
            .collect();
        let mut used = vec![false; states.len()];
        self.group_of.reserve(slots);
        for (slot, &free) in is_free.iter().enumerate() {
            let (entry, host, weight) = (c.entries[slot], c.hosts[slot], c.weights[slot]);
            if entry == NONE {
                if !free {
                    return Err(format!("slot {slot} has no page and is not free"));
                }
                if host != NONE || weight.to_bits() != 1f64.to_bits() {
                    return Err(format!("free slot {slot} has a host or a weight"));
                }
                self.group_of.push(NONE);
                continue;
            }
            let named = |reason: String| format!("page {}: {reason}", c.id_of::<K>(slot));
            if free {
                return Err(named("its slot is listed free".into()));
            }
            let state = *states
                .get(entry as usize)
                .ok_or_else(|| named(format!("page state {entry} is not listed")))?;
            used[entry as usize] = true;
            if host != NONE && host as usize >= self.host_names.len() {
                return Err(named(format!("host {host} is not listed")));
            }
            if !(weight.is_finite() && weight >= 0.0) {
                return Err(named(format!(
                    "weight {weight} is not a finite number >= 0"
                )));
            }
            let held = Expected {
                track: self.track,
                weight: weight + 0.0,
                host,
            };
            super::saved::check_kept(&state.stats, held).map_err(named)?;
            let g = group_of_entry[entry as usize];
            self.groups.count[g as usize] += 1;
            self.group_of.push(g);
            self.host_rates
                .add_totals(host, state.stats.x as i64, state.stats.n as i64);
        }
        if let Some(unused) = used.iter().position(|&u| !u) {
            return Err(format!("page state {unused} holds no page"));
        }
        for &g in &group_of_entry {
            self.groups.count[g as usize] -= 1;
        }
        self.host_of = std::mem::take(&mut c.hosts);
        self.weight_of = std::mem::take(&mut c.weights);
        for w in &mut self.weight_of {
            *w += 0.0;
        }
        Ok(())
    }
}

/// Appends `values` little-endian (one resize, then fixed-width stores).
fn put_u32s(out: &mut Vec<u8>, values: &[u32]) {
    let start = out.len();
    out.resize(start + 4 * values.len(), 0);
    for (slot, v) in out[start..].chunks_exact_mut(4).zip(values) {
        slot.copy_from_slice(&v.to_le_bytes());
    }
}

/// Appends `values` little-endian.
fn put_u64s(out: &mut Vec<u8>, values: impl ExactSizeIterator<Item = u64>) {
    let start = out.len();
    out.resize(start + 8 * values.len(), 0);
    for (slot, v) in out[start..].chunks_exact_mut(8).zip(values) {
        slot.copy_from_slice(&v.to_le_bytes());
    }
}

/// The head of a compact payload (bandit state `B`: version 7's or 8's) and its length.
fn split_head<B: DeserializeOwned>(payload: &[u8]) -> Result<(HeadOwned<B>, usize), String> {
    let short = || "truncated: the head's length is missing".to_string();
    let length = u64::from_le_bytes(
        payload
            .get(..8)
            .ok_or_else(short)?
            .try_into()
            .map_err(|_| short())?,
    );
    let rest = &payload[8..];
    if length > rest.len() as u64 {
        return Err(format!(
            "the head announces {length} bytes, the payload holds {}",
            rest.len()
        ));
    }
    let head: HeadOwned<B> = codec()
        .with_limit(length)
        .deserialize(&rest[..length as usize])
        .map_err(|e| format!("cannot decode the head ({e})"))?;
    Ok((head, length as usize))
}

/// The per-slot columns of a compact payload (versions 7 and 8).
struct Columns {
    entries: Vec<u32>,
    hosts: Vec<u32>,
    weights: Vec<f64>,
    ids: Encoded,
}

impl Columns {
    /// The columns of `slots` slots in `bytes[at]` (the payload after the head).
    fn read(bytes: Cow<'_, [u8]>, at: Range<usize>, slots: usize) -> Result<Columns, String> {
        let available = at.len() as u64;
        let fixed = (slots as u64)
            .checked_mul(SLOT_BYTES)
            .filter(|&f| f <= available);
        let Some(fixed) = fixed else {
            return Err(format!(
                "{slots} slots need {} bytes of columns, the payload holds {available}",
                slots as u128 * SLOT_BYTES as u128,
            ));
        };
        let ids_len = (available - fixed) as usize;
        let (entries, rest) = bytes[at.clone()].split_at(4 * slots);
        let (hosts, rest) = rest.split_at(4 * slots);
        let weights = &rest[..8 * slots];
        let u32s = |b: &[u8]| -> Vec<u32> {
            b.chunks_exact(4)
                .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
                .collect()
        };
        let entries = u32s(entries);
        let hosts = u32s(hosts);
        let weights = weights
            .chunks_exact(8)
            .map(|w| f64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]))
            .collect();
        let live = entries.iter().map(|&e| e != NONE).collect();
        let ends_at = at.start + 16 * slots;
        let ids = match bytes {
            Cow::Owned(file) => Encoded::new(file, ends_at, ids_len, live),
            Cow::Borrowed(b) => Encoded::new(b[ends_at..at.end].to_vec(), 0, ids_len, live),
        }?;
        Ok(Columns {
            entries,
            hosts,
            weights,
            ids,
        })
    }

    /// Slot `slot`'s page id for an error: the id, or the slot when it does not decode.
    fn id_of<K: DeserializeOwned + Debug>(&self, slot: usize) -> String {
        match self.ids.decode::<K>(slot) {
            Ok(id) => format!("{id:?}"),
            Err(_) => format!("of slot {slot}"),
        }
    }
}

/// The page state of `stats` and the policy memory `memory`, if `policy` can remember
/// that.
pub(super) fn checked_memory(
    policy: &Policy,
    stats: PageStats,
    memory: f64,
) -> Result<PageState, String> {
    if !policy.valid_memory(memory) {
        return Err(format!("policy memory {memory} is impossible for {policy}"));
    }
    Ok(PageState { stats, memory })
}

/// Which of `slots` slots are free, from the free list (each listed once).
pub(super) fn free_flags(free: &[u32], slots: usize) -> Result<Vec<bool>, String> {
    let mut is_free = vec![false; slots];
    for &f in free {
        match is_free.get_mut(f as usize) {
            Some(flag) if !*flag => *flag = true,
            _ => return Err(format!("bad free slot {f}")),
        }
    }
    Ok(is_free)
}

/// A new scheduler with a file's policy, seed, latest cycle, hosts and bandit (every
/// version's loading starts here).
pub(super) fn begin<K: PageId>(
    policy: Policy,
    (seed, latest): (u64, u32),
    host_names: &[String],
    bandit: Option<LiveBandit>,
    slots: usize,
) -> Result<Scheduler<K>, String> {
    if slots >= (u32::MAX - 1) as usize {
        return Err(format!("{slots} slots"));
    }
    let mut s = Scheduler::new(policy.clone()).with_seed(seed);
    match (policy.bandit(), bandit) {
        (None, None) => {}
        (Some(b), Some(live)) if live.fits(b, seed, slots) => s.bandit = Some(live),
        (Some(_), Some(_)) => {
            return Err("the bandit's weights or pending batch do not fit its arms".into())
        }
        (Some(_), None) => return Err("a bandit policy without its weights".into()),
        (None, Some(_)) => return Err("bandit weights for a policy that is none".into()),
    }
    s.latest = latest;
    for name in host_names {
        if s.host_index.contains_key(name.as_str()) {
            return Err(format!("host {name:?} is listed twice"));
        }
        s.intern_host(name);
    }
    Ok(s)
}

/// Finishes loading once the pages are in: the free list, the attributes, the grouping
/// and the rate groups' totals (every version's loading ends here).
pub(super) fn end<K: PageId + DeserializeOwned>(
    s: &mut Scheduler<K>,
    free: Vec<u32>,
    attributes: Vec<Column>,
    grouping: Option<u32>,
) -> Result<(), String> {
    let slots = s.group_of.len();
    s.free = free;
    s.attributes = Attributes::from_saved(attributes, slots)?;
    let free_with_attributes = s
        .free
        .iter()
        .copied()
        .filter(|&f| s.attributes.of(f as usize).next().is_some())
        .min();
    if let Some(slot) = free_with_attributes {
        return Err(format!("free slot {slot} has attributes"));
    }
    s.grouping = match grouping {
        Some(c) if c as usize >= s.attributes.columns().len() => {
            return Err(format!("grouped by attribute {c}, which is not listed"))
        }
        grouping => grouping.map(|c| c as usize),
    };
    s.regroup();
    Ok(())
}

#[cfg(test)]
#[path = "compact_tests.rs"]
mod tests;
