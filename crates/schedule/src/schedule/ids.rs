//! The crawler's page ids by slot, and the lookup from id to slot — a state file's ids
//! are read in place, never decoded all at once.
//!
//! A scheduler loaded from a compact state file ([`super::state`], versions 7 and 8) keeps
//! the file's ids as the file holds them, each slot's id encoded (bincode) in one buffer
//! ([`Encoded`]), with a [`HashIndex`] built while the file is checked: every id's hash
//! (its top 32 bits) beside its slot, sorted. A batch decodes the ids of its `k` pages
//! only; a lookup by id (an observation, a removal) hashes the id, finds the slots of
//! equal hash in the index and decodes those alone. Pages added since the file was read
//! live beside it, decoded, with their own hash map; a page of the file that is removed
//! only clears its slot's flag. So a crawler that applies a million observations to a
//! state of ten million pages decodes about a million ids, and saving it copies the
//! file's id bytes instead of encoding every id again.
//!
//! **Invariant:** every live file slot's encoded id decodes, no two decode to equal ids,
//! and the index holds each live file slot once under its id's hash (checked and built
//! when the file is loaded, [`Encoded::check`]); so decoding them again cannot fail. An id
//! is in exactly one place: a live file slot, `added` or `reused`.

use bincode::Options;
use p3_maybe_rayon::prelude::*;
use rustc_hash::FxHashMap as HashMap;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::any::TypeId;
use std::borrow::Borrow;
use std::fmt::Debug;
use std::hash::{BuildHasher, Hash};

/// The hash of every id, file or not (so that the file's index and a lookup agree).
fn hash_one(value: impl Hash) -> u64 {
    rustc_hash::FxBuildHasher.hash_one(value)
}

/// The ids as a state file holds them: per slot the end of its id (8 bytes,
/// little-endian), then the ids' bytes; slot `s`'s id is the bytes from the end of slot
/// `s - 1` (0 for slot 0) to its own end, none for a free slot.
#[derive(Debug, Clone)]
pub(super) struct Encoded {
    /// Holds the ends at `ends_at` and the ids at `ids_at..ids_at + ids_len`: the state
    /// file read whole (nothing copied), or a copy of that part of it.
    buf: Vec<u8>,
    ends_at: usize,
    ids_at: usize,
    ids_len: usize,
    /// Which slots hold a page of the file (a removed page's flag is cleared).
    live: Vec<bool>,
}

/// The codec of one id: bincode with variable-length integers, no trailing bytes.
pub(super) fn id_codec() -> impl Options {
    bincode::DefaultOptions::new().reject_trailing_bytes()
}

impl Encoded {
    /// The ids in `buf`: the ends of `live.len()` slots at `ends_at`, then `ids_len`
    /// bytes of ids; or what is wrong with them (ends that go back or past the ids, a
    /// free slot with an id, bytes no slot uses).
    pub(super) fn new(
        buf: Vec<u8>,
        ends_at: usize,
        ids_len: usize,
        live: Vec<bool>,
    ) -> Result<Encoded, String> {
        let ids_at = ends_at + 8 * live.len();
        if ids_at + ids_len > buf.len() {
            return Err(format!("{ids_len} bytes of page ids do not fit"));
        }
        let e = Encoded {
            buf,
            ends_at,
            ids_at,
            ids_len,
            live,
        };
        let mut start = 0;
        for slot in 0..e.live.len() {
            let end = e.end(slot);
            if end < start || end > ids_len as u64 {
                return Err(format!(
                    "the page id of slot {slot} ends at byte {end}, outside its place"
                ));
            }
            if !e.live[slot] && end != start {
                return Err(format!("free slot {slot} has a page id"));
            }
            start = end;
        }
        if start != ids_len as u64 {
            return Err(format!(
                "{ids_len} bytes of page ids, of which the slots use {start}"
            ));
        }
        Ok(e)
    }

    /// Number of slots.
    pub(super) fn slots(&self) -> usize {
        self.live.len()
    }

    /// Where slot `slot`'s id ends in the ids' bytes.
    fn end(&self, slot: usize) -> u64 {
        let at = self.ends_at + 8 * slot;
        let mut word = [0; 8];
        word.copy_from_slice(&self.buf[at..at + 8]);
        u64::from_le_bytes(word)
    }

    /// Slot `slot`'s encoding.
    fn of(&self, slot: usize) -> &[u8] {
        let start = if slot == 0 { 0 } else { self.end(slot - 1) };
        &self.buf[self.ids_at + start as usize..self.ids_at + self.end(slot) as usize]
    }

    /// Slot `slot`'s id.
    pub(super) fn decode<K: DeserializeOwned>(&self, slot: usize) -> Result<K, String> {
        id_codec()
            .with_limit(self.of(slot).len() as u64)
            .deserialize(self.of(slot))
            .map_err(|e| format!("the page id of slot {slot} cannot be decoded ({e})"))
    }

    /// Appends the ends and the ids as the file holds them.
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.buf[self.ends_at..self.ids_at + self.ids_len]);
    }

    /// The index of these ids and whether every one is encoded as freshgp encodes it
    /// ([`Encoded::hash_of`]), or what is wrong with them: an id that does not decode,
    /// two equal ids (the error names the lowest slot at fault). Both on both cores.
    pub(super) fn check<K>(&self) -> Result<(HashIndex, bool), String>
    where
        K: DeserializeOwned + Serialize + Hash + Eq + Debug + 'static,
    {
        let odd = std::sync::atomic::AtomicBool::new(false);
        // Every slot's entry (free slots' are dropped after: an indexed collect is fast).
        let all: Result<Vec<u64>, String> = (0..self.slots())
            .into_par_iter()
            .map(|slot| match self.live[slot] {
                true => {
                    let (hash, canonical) = self.hash_of::<K>(slot)?;
                    if !canonical {
                        odd.store(true, std::sync::atomic::Ordering::Relaxed);
                    }
                    Ok(HashIndex::entry(hash, slot as u32))
                }
                false => Ok(u64::MAX),
            })
            .collect();
        let entries = match all {
            Ok(all) if self.live.iter().all(|&l| l) => all,
            Ok(all) => all.into_iter().filter(|&e| e != u64::MAX).collect(),
            // The lowest slot at fault, whichever thread found one.
            Err(_) => {
                // Invariant: some slot failed above, so `try_for_each` stops at one.
                let mut first = (0..self.slots()).filter(|&slot| self.live[slot]);
                return Err(first
                    .try_for_each(|slot| self.hash_of::<K>(slot).map(drop))
                    .expect_err("invariant: some slot failed above"));
            }
        };
        let index = HashIndex::new(entries);
        match self.first_repeat::<K>(&index) {
            Some(slot) => match self.decode::<K>(slot as usize) {
                Ok(id) => Err(format!("page {id:?} is listed twice")),
                Err(e) => Err(e),
            },
            None => Ok((index, !odd.into_inner())),
        }
    }

    /// The lowest slot whose id repeats the id of a lower slot, if any. Only slots of
    /// equal 32-bit hashes are candidates; those are told apart by their whole hash, then
    /// by id within each run of equal whole hashes (so a file of many repeated ids is
    /// refused in linear time).
    fn first_repeat<K>(&self, index: &HashIndex) -> Option<u32>
    where
        K: DeserializeOwned + Serialize + Hash + Eq + 'static,
    {
        let same = |a: u32, b: u32| {
            let (a, b): (Result<K, _>, Result<K, _>) =
                (self.decode(a as usize), self.decode(b as usize));
            matches!((a, b), (Ok(a), Ok(b)) if a == b)
        };
        #[cfg(feature = "parallel")]
        let runs = rayon::iter::ParallelBridge::par_bridge(index.collisions());
        #[cfg(not(feature = "parallel"))]
        let runs = index.collisions();
        runs.filter_map(|run| {
            let mut whole: Vec<(u64, u32)> = run
                .iter()
                // Invariant: every live slot's id was hashed above.
                .map(|&e| {
                    let hash = self.hash_of::<K>(e as u32 as usize).map(|(h, _)| h);
                    (hash.unwrap_or(0), e as u32)
                })
                .collect();
            whole.sort_unstable();
            whole
                .chunk_by(|a, b| a.0 == b.0)
                .flat_map(|run| {
                    run.iter()
                        .enumerate()
                        .filter(|&(i, &(_, slot))| run[..i].iter().any(|&(_, s)| same(s, slot)))
                        .map(|(_, &(_, slot))| slot)
                })
                .min()
        })
        .min()
    }

    /// The hash of slot `slot`'s id, or why it does not decode. `String` ids (the
    /// command's) are read in place as `&str`, which hashes as the `String` does, so
    /// checking ten million of them allocates nothing.
    ///
    /// Also whether the id is encoded as freshgp encodes it: bincode reads a length
    /// written in more bytes than needed too, and such an id must be encoded again when
    /// the ids are written (so that a state saves to the same bytes whatever file it was
    /// read from).
    fn hash_of<K>(&self, slot: usize) -> Result<(u64, bool), String>
    where
        K: DeserializeOwned + Serialize + Hash + 'static,
    {
        let bytes = self.of(slot);
        let canonical = |size: bincode::Result<u64>| size.ok() == Some(bytes.len() as u64);
        if TypeId::of::<K>() != TypeId::of::<String>() {
            let id = self.decode::<K>(slot)?;
            return Ok((hash_one(&id), canonical(id_codec().serialized_size(&id))));
        }
        // bincode writes a string shorter than 251 bytes as one byte of length, then the
        // bytes: read those directly, anything else through bincode.
        if let Some((&len, text)) = bytes.split_first() {
            if len < 251 && len as usize == text.len() {
                let text = std::str::from_utf8(text)
                    .map_err(|e| format!("the page id of slot {slot} cannot be decoded ({e})"))?;
                return Ok((hash_one(text), true));
            }
        }
        let text: &str = id_codec()
            .with_limit(bytes.len() as u64)
            .deserialize(bytes)
            .map_err(|e| format!("the page id of slot {slot} cannot be decoded ({e})"))?;
        Ok((hash_one(text), canonical(id_codec().serialized_size(text))))
    }
}

/// Slots by the hashes of their ids: per slot one `u64`, the top 32 bits of its id's
/// hash above the slot, sorted, with where each bucket of equal top bits starts (two to
/// four entries a bucket up to 16 M ids, more above). A lookup reads one bucket's start and the few entries after it,
/// and returns the slots whose hashes share the id's 32 bits: nearly always one.
#[derive(Debug, Clone)]
pub(super) struct HashIndex {
    entries: Vec<u64>,
    /// Bits of the hash that choose the bucket (0 to [`HashIndex::MAX_BITS`]).
    bits: u32,
    /// `entries[starts[b]..starts[b + 1]]` are bucket `b`'s.
    starts: Vec<u32>,
}

/// The bucket of `hash` among `2^bits`.
fn bucket(hash: u64, bits: u32) -> usize {
    match bits {
        0 => 0,
        bits => (hash >> (64 - bits)) as usize,
    }
}

impl HashIndex {
    /// The most bits a bucket is chosen by (4 M buckets, 16 MB of starts).
    const MAX_BITS: u32 = 22;

    /// The entry of `slot`, whose id hashes to `hash`.
    fn entry(hash: u64, slot: u32) -> u64 {
        (hash & !0xffff_ffff) | slot as u64
    }

    /// The index of `entries` (at most one per slot).
    pub(super) fn new(mut entries: Vec<u64>) -> HashIndex {
        sort_by_buckets(&mut entries);
        let n = entries.len();
        // floor(log2 n) - 1 bits: two to four entries a bucket (more above 2^23 ids).
        let bits = match n {
            0 => 0,
            n => (usize::BITS - 1 - n.leading_zeros())
                .saturating_sub(1)
                .min(Self::MAX_BITS),
        };
        let mut starts = Vec::with_capacity((1 << bits) + 1);
        let mut at = 0;
        for b in 0..1usize << bits {
            while at < n && bucket(entries[at], bits) < b {
                at += 1;
            }
            starts.push(at as u32);
        }
        starts.push(n as u32);
        HashIndex {
            entries,
            bits,
            starts,
        }
    }

    /// The slots whose ids' hashes share `hash`'s top 32 bits.
    fn slots(&self, hash: u64) -> impl Iterator<Item = u32> + '_ {
        let b = bucket(hash, self.bits);
        let bucket = &self.entries[self.starts[b] as usize..self.starts[b + 1] as usize];
        let top = hash >> 32;
        let from = bucket.partition_point(|&e| (e >> 32) < top);
        bucket[from..]
            .iter()
            .take_while(move |&&e| e >> 32 == top)
            .map(|&e| e as u32)
    }

    /// The runs of two or more entries with equal 32-bit hashes.
    fn collisions(&self) -> impl Iterator<Item = &[u64]> + Send + '_ {
        self.entries
            .chunk_by(|a, b| a >> 32 == b >> 32)
            .filter(|run| run.len() > 1)
    }
}

/// Sorts `values`: one pass spreads them over up to 2^16 buckets by their top bits
/// (about 16 a bucket), then each bucket is sorted on its own (a radix pass, then small
/// sorts that stay in cache, on both cores).
fn sort_by_buckets(values: &mut Vec<u64>) {
    let bits = (usize::BITS - (values.len() / 16).leading_zeros()).min(16);
    let buckets = 1usize << bits;
    // Two halves, counted and spread on both cores into their own part of each bucket.
    let halves: Vec<&[u64]> = values.chunks(values.len().div_ceil(2).max(1)).collect();
    let counts: Vec<Vec<usize>> = halves
        .par_iter()
        .map(|half| {
            let mut count = vec![0; buckets];
            for &v in *half {
                count[bucket(v, bits)] += 1;
            }
            count
        })
        .collect();
    let mut spread = vec![0u64; values.len()];
    let mut parts: Vec<Vec<&mut [u64]>> = (0..halves.len())
        .map(|_| Vec::with_capacity(buckets))
        .collect();
    let mut sizes = Vec::with_capacity(buckets);
    let mut rest = spread.as_mut_slice();
    for b in 0..buckets {
        sizes.push(counts.iter().map(|c| c[b]).sum::<usize>());
        for (part, count) in parts.iter_mut().zip(&counts) {
            let (this, after) = std::mem::take(&mut rest).split_at_mut(count[b]);
            part.push(this);
            rest = after;
        }
    }
    halves
        .par_iter()
        .zip(parts.par_iter_mut())
        .for_each(|(half, part)| {
            let mut next = vec![0; buckets];
            for &v in *half {
                let b = bucket(v, bits);
                part[b][next[b]] = v;
                next[b] += 1;
            }
        });
    drop(parts);
    let mut rest = spread.as_mut_slice();
    let mut each = Vec::with_capacity(buckets);
    for size in sizes {
        let (this, after) = std::mem::take(&mut rest).split_at_mut(size);
        each.push(this);
        rest = after;
    }
    each.into_par_iter().for_each(|b| b.sort_unstable());
    *values = spread;
}

/// Pages looked up together by [`PageIds::slots_of`].
const GROUP: usize = 16;

/// Decodes a live slot's id of checked [`Encoded`] ids.
type Decoder<K> = fn(&Encoded, usize) -> K;

/// [`Decoder`] for ids of type `K`.
fn decode_checked<K: DeserializeOwned>(encoded: &Encoded, slot: usize) -> K {
    // Invariant: every live slot's id decodes (checked on loading).
    encoded.decode(slot).expect("invariant: checked on loading")
}

/// A state file's ids, their index, and the function that decodes one (so that looking
/// pages up needs no serde bound).
#[derive(Debug, Clone)]
struct FileIds<K> {
    encoded: Encoded,
    index: HashIndex,
    decode: Decoder<K>,
    /// Pages of the file removed since.
    removed: usize,
    /// Whether every id is encoded as freshgp encodes it (else they are encoded again
    /// when written).
    canonical: bool,
}

/// A scheduler's page ids: those of its state file, read in place, and those given since.
#[derive(Debug, Clone)]
pub(super) struct PageIds<K> {
    /// The ids of the state file the scheduler was loaded from (slots `0..file slots`).
    file: Option<FileIds<K>>,
    /// Slot `file slots + i` holds `added[i]` (`None`: a free slot).
    added: Vec<Option<K>>,
    /// Pages added since in file slots that were free or freed.
    reused: HashMap<u32, K>,
    /// The slot of every page in `added` and `reused`.
    index: HashMap<K, u32>,
    /// Pages (live slots).
    live: usize,
}

impl<K> Default for PageIds<K> {
    fn default() -> PageIds<K> {
        PageIds {
            file: None,
            added: Vec::new(),
            reused: HashMap::default(),
            index: HashMap::default(),
            live: 0,
        }
    }
}

impl<K: Hash + Eq + Clone + Debug> PageIds<K> {
    /// The ids of a state file, checked and indexed ([`Encoded::check`]).
    pub(super) fn from_encoded(encoded: Encoded) -> Result<PageIds<K>, String>
    where
        K: DeserializeOwned + Serialize + 'static,
    {
        let (index, canonical) = encoded.check::<K>()?;
        Ok(PageIds {
            live: encoded.live.iter().filter(|&&l| l).count(),
            file: Some(FileIds {
                encoded,
                index,
                decode: decode_checked::<K>,
                removed: 0,
                canonical,
            }),
            ..PageIds::default()
        })
    }

    /// Number of pages.
    pub(super) fn len(&self) -> usize {
        self.live
    }

    /// Slots of the state file (0 without one).
    fn file_slots(&self) -> usize {
        self.file.as_ref().map_or(0, |f| f.encoded.slots())
    }

    /// Number of slots, free ones included.
    pub(super) fn slots(&self) -> usize {
        self.file_slots() + self.added.len()
    }

    /// The page in `slot` (a live slot).
    pub(super) fn get(&self, slot: u32) -> K {
        let s = slot as usize;
        match &self.file {
            Some(f) if s < f.encoded.slots() && f.encoded.live[s] => (f.decode)(&f.encoded, s),
            // Invariant: the callers pass live slots.
            Some(f) if s < f.encoded.slots() => self.reused[&slot].clone(),
            _ => self.added[s - self.file_slots()]
                .clone()
                .expect("invariant: live slot"),
        }
    }

    /// The pages in `slots` (live slots), in that order: [`PageIds::get`] of each, with
    /// the reads of a state file's ids overlapped in groups as in [`PageIds::slots_of`]
    /// (where each id is, then its first byte, then the ids decoded).
    pub(super) fn get_many(&self, slots: impl ExactSizeIterator<Item = u32>) -> Vec<K> {
        let mut pages = Vec::with_capacity(slots.len());
        let Some(f) = &self.file else {
            pages.extend(slots.map(|slot| self.get(slot)));
            return pages;
        };
        let slots: Vec<u32> = slots.collect();
        for group in slots.chunks(GROUP) {
            let mut first = [0u8; GROUP];
            for (byte, &slot) in first.iter_mut().zip(group) {
                let s = slot as usize;
                if s < f.encoded.slots() && f.encoded.live[s] {
                    *byte = f.encoded.of(s).first().copied().unwrap_or(0);
                }
            }
            // (Read for their place in memory, not their value.)
            std::hint::black_box(&first);
            pages.extend(group.iter().map(|&slot| self.get(slot)));
        }
        pages
    }

    /// The slot of `page`, if it is scheduled.
    pub(super) fn slot<Q>(&self, page: &Q) -> Option<u32>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        if let Some(&slot) = self.index.get(page) {
            return Some(slot);
        }
        let f = self.file.as_ref()?;
        f.index.slots(hash_one(page)).find(|&slot| {
            f.encoded.live[slot as usize] && (f.decode)(&f.encoded, slot as usize).borrow() == page
        })
    }

    /// The slots of `pages` (`None`: not scheduled), as [`PageIds::slot`] finds them,
    /// looked up on both cores.
    ///
    /// Looking an id up in a state file's index reads four places far apart in memory
    /// (its bucket's start, the bucket, where its id ends, the id), each a wait for main
    /// memory when the state is large. So the pages go in groups of [`GROUP`], and each
    /// step is taken for the whole group before the next: the group's reads of one step
    /// do not depend on each other, so the processor overlaps them.
    pub(super) fn slots_of<Q>(&self, pages: &[&Q]) -> Vec<Option<u32>>
    where
        K: Borrow<Q> + Sync + Send,
        Q: Hash + Eq + ?Sized + Sync,
    {
        let Some(f) = &self.file else {
            return pages.par_iter().map(|page| self.slot(*page)).collect();
        };
        pages
            .par_chunks(GROUP)
            .flat_map_iter(|group| {
                let mut found = [None; GROUP];
                let mut hashes = [0u64; GROUP];
                for (h, page) in hashes.iter_mut().zip(group) {
                    *h = hash_one(*page);
                }
                let mut runs = [(0u32, 0u32); GROUP];
                for (run, &h) in runs.iter_mut().zip(&hashes) {
                    let b = bucket(h, f.index.bits);
                    *run = (f.index.starts[b], f.index.starts[b + 1]);
                }
                let mut first = [u32::MAX; GROUP];
                for ((slot, &(from, to)), &h) in first.iter_mut().zip(&runs).zip(&hashes) {
                    let bucket = &f.index.entries[from as usize..to as usize];
                    if let Some(&e) = bucket.iter().find(|&&e| e >> 32 == h >> 32) {
                        *slot = e as u32;
                    }
                }
                // Where each candidate's id starts: its bytes are read in the next step.
                let mut live = [false; GROUP];
                let mut starts = [0u8; GROUP];
                for ((l, start), &slot) in live.iter_mut().zip(&mut starts).zip(&first) {
                    if slot != u32::MAX && f.encoded.live[slot as usize] {
                        *l = true;
                        *start = f.encoded.of(slot as usize).first().copied().unwrap_or(0);
                    }
                }
                // (Read for their place in memory, not their value.)
                std::hint::black_box(&starts);
                for (i, page) in group.iter().enumerate() {
                    let id = live[i].then(|| (f.decode)(&f.encoded, first[i] as usize));
                    found[i] = match id {
                        // The first candidate is the page: nearly every lookup.
                        Some(id) if id.borrow() == *page => Some(first[i]),
                        _ => self.slot(*page),
                    };
                }
                found.into_iter().take(group.len())
            })
            .collect()
    }

    /// Room for `slots` more slots.
    pub(super) fn reserve(&mut self, slots: usize) {
        self.added.reserve(slots);
        self.index.reserve(slots);
    }

    /// A new free slot after the others.
    pub(super) fn push_free(&mut self) {
        self.added.push(None);
    }

    /// Puts `page`, which has no slot, in the free slot `slot`.
    pub(super) fn put(&mut self, slot: u32, page: K) {
        let s = slot as usize;
        match s.checked_sub(self.file_slots()) {
            Some(i) => self.added[i] = Some(page.clone()),
            None => {
                self.reused.insert(slot, page.clone());
            }
        }
        self.index.insert(page, slot);
        self.live += 1;
    }

    /// Takes `page` out of its slot, which it returns (`None`: not scheduled).
    pub(super) fn take<Q>(&mut self, page: &Q) -> Option<u32>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let slot = self.slot(page)?;
        let s = slot as usize;
        if self.index.remove(page).is_none() {
            // Invariant: a page not in `index` is in a live file slot.
            let f = self.file.as_mut().expect("invariant: a file page");
            f.encoded.live[s] = false;
            f.removed += 1;
        } else if let Some(i) = s.checked_sub(self.file_slots()) {
            self.added[i] = None;
        } else {
            self.reused.remove(&slot);
        }
        self.live -= 1;
        Some(slot)
    }

    /// Every slot's id (`None`: free), decoded.
    #[cfg(test)]
    pub(super) fn all(&self) -> Vec<Option<K>> {
        let file = self.file_slots();
        (0..self.slots())
            .map(|s| {
                let held = match &self.file {
                    Some(f) if s < file => {
                        f.encoded.live[s] || self.reused.contains_key(&(s as u32))
                    }
                    _ => self.added[s - file].is_some(),
                };
                held.then(|| self.get(s as u32))
            })
            .collect()
    }

    /// Appends every slot's id as [`Encoded`] holds them: the ends, then the ids. The
    /// file's ids are copied, not encoded again.
    pub(super) fn write(&self, out: &mut Vec<u8>) -> Result<(), bincode::Error>
    where
        K: Serialize,
    {
        if let Some(f) = &self.file {
            if self.added.is_empty() && self.reused.is_empty() && f.removed == 0 {
                f.encoded.write(out);
                return Ok(());
            }
        }
        let file = self.file_slots();
        let mut bytes = Vec::new();
        let ends_at = out.len();
        out.resize(ends_at + 8 * self.slots(), 0);
        for (s, end) in out[ends_at..].chunks_exact_mut(8).enumerate() {
            let decoded;
            let own = match &self.file {
                Some(f) if s < file && f.encoded.live[s] && f.canonical => {
                    bytes.extend_from_slice(f.encoded.of(s));
                    None
                }
                Some(f) if s < file && f.encoded.live[s] => {
                    decoded = (f.decode)(&f.encoded, s);
                    Some(&decoded)
                }
                Some(_) if s < file => self.reused.get(&(s as u32)),
                _ => self.added[s - file].as_ref(),
            };
            if let Some(id) = own {
                id_codec().serialize_into(&mut bytes, id)?;
            }
            end.copy_from_slice(&(bytes.len() as u64).to_le_bytes());
        }
        out.extend_from_slice(&bytes);
        Ok(())
    }

    /// Whether the ids are still those of a state file, not one added or removed
    /// (`None`: not loaded from a compact file).
    #[cfg(test)]
    pub(super) fn file_unchanged(&self) -> Option<bool> {
        let f = self.file.as_ref()?;
        Some(self.added.is_empty() && self.reused.is_empty() && f.removed == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_is_found_under_its_hash_and_collisions_are_runs() {
        for n in [0usize, 1, 15, 16, 1_000, 100_000, 2_000_000] {
            let hashes: Vec<u64> = (0..n as u64).map(crate::hash::mix64).collect();
            let entries = hashes
                .iter()
                .enumerate()
                .map(|(slot, &h)| HashIndex::entry(h, slot as u32))
                .collect();
            let index = HashIndex::new(entries);
            assert!(index.bits <= HashIndex::MAX_BITS);
            assert!(index.entries.windows(2).all(|w| w[0] < w[1]), "{n}: sorted");
            for (slot, &h) in hashes.iter().enumerate().step_by(997) {
                assert!(index.slots(h).any(|s| s == slot as u32), "{n}: slot {slot}");
            }
            // Runs of equal 32-bit hashes are the pairs the check compares.
            let mut tops: Vec<u64> = hashes.iter().map(|h| h >> 32).collect();
            tops.sort_unstable();
            let expected = tops.chunk_by(|a, b| a == b).filter(|r| r.len() > 1).count();
            assert_eq!(index.collisions().count(), expected, "{n}");
        }
    }

    #[test]
    fn a_hash_not_indexed_finds_nothing_and_equal_tops_find_all() {
        let entries = vec![
            HashIndex::entry(0xdead_beef_0000_0001, 4),
            HashIndex::entry(0xdead_beef_ffff_ffff, 9),
            HashIndex::entry(0x0123_4567_0000_0000, 2),
        ];
        let index = HashIndex::new(entries);
        let mut both: Vec<u32> = index.slots(0xdead_beef_1234_5678).collect();
        both.sort_unstable();
        assert_eq!(both, [4, 9]);
        assert_eq!(index.slots(0x0123_4567_9999_9999).collect::<Vec<_>>(), [2]);
        assert_eq!(index.slots(0x0123_4568_0000_0000).count(), 0);
        assert_eq!(index.collisions().count(), 1);
    }
}
