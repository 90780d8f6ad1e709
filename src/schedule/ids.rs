//! The crawler's page ids by slot, and the index from id to slot — decoded only when
//! something looks a page up.
//!
//! A scheduler loaded from a compact state file ([`super::state`], versions 7 and 8) keeps its
//! ids as the file holds them, each slot's id encoded (bincode) in one buffer
//! ([`Encoded`]): a batch needs the ids of its `k` pages only, so a crawler that asks for
//! the next batch of ten million pages decodes a few hundred thousand ids, allocates
//! nothing per page and builds no hash map. The first lookup by id (an observation, a
//! removal, [`super::Scheduler::stats`]) decodes them all and builds the index; the first
//! change to the page set also drops the encoded copy.
//!
//! **Invariant:** every live slot's encoded id decodes, and no two decode to equal ids
//! (checked when the file is loaded, [`Encoded::check`]); so decoding them again cannot
//! fail.

use bincode::Options;
use rayon::prelude::*;
use rustc_hash::FxHashMap as HashMap;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::any::TypeId;
use std::fmt::Debug;
use std::hash::{BuildHasher, Hash};
use std::sync::OnceLock;

/// Ids decoded: slot → id (`None`: a free slot) and id → slot.
#[derive(Debug, Clone)]
pub(super) struct Decoded<K> {
    pub(super) ids: Vec<Option<K>>,
    pub(super) index: HashMap<K, u32>,
}

impl<K> Default for Decoded<K> {
    fn default() -> Decoded<K> {
        Decoded {
            ids: Vec::new(),
            index: HashMap::default(),
        }
    }
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
    /// Which slots hold a page.
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

    /// What is wrong with these ids, if anything: an id that does not decode, two equal
    /// ids (the error names the lowest slot at fault). Checked on both cores.
    pub(super) fn check<K>(&self) -> Result<(), String>
    where
        K: DeserializeOwned + Hash + Eq + Debug + 'static,
    {
        let live = || {
            (0..self.slots())
                .into_par_iter()
                .filter(|&slot| self.live[slot])
        };
        // Every slot's hash (free slots' are dropped after: an indexed collect is fast).
        let all: Result<Vec<u64>, String> = (0..self.slots())
            .into_par_iter()
            .map(|slot| match self.live[slot] {
                true => self.hash_of::<K>(slot),
                false => Ok(0),
            })
            .collect();
        let hashes = match all {
            Ok(all) if self.live.iter().all(|&l| l) => all,
            Ok(all) => all
                .into_iter()
                .zip(&self.live)
                .filter(|(_, &l)| l)
                .map(|(h, _)| h)
                .collect(),
            // The lowest slot at fault, whichever thread found one.
            Err(_) => {
                let mut first = (0..self.slots()).filter(|&slot| self.live[slot]);
                return first.try_for_each(|slot| self.hash_of::<K>(slot).map(drop));
            }
        };
        // Two equal ids have equal hashes; the (rare) equal hashes are told apart by id.
        let Some(collisions) = repeated(hashes) else {
            return Ok(());
        };
        let mut twice: Vec<(u64, u32)> = live()
            .filter_map(|slot| {
                let h = self.hash_of::<K>(slot).ok()?;
                collisions
                    .binary_search(&h)
                    .is_ok()
                    .then_some((h, slot as u32))
            })
            .collect();
        twice.sort_unstable();
        let same = |a: u32, b: u32| {
            let (a, b): (Result<K, _>, Result<K, _>) =
                (self.decode(a as usize), self.decode(b as usize));
            matches!((a, b), (Ok(a), Ok(b)) if a == b)
        };
        // The lowest slot that repeats an id of a lower slot, compared only within each
        // run of equal hashes (so a file of many repeated ids is refused in linear time).
        let first = twice
            .chunk_by(|a, b| a.0 == b.0)
            .flat_map(|run| {
                run.iter()
                    .enumerate()
                    .filter(|&(i, &(_, slot))| run[..i].iter().any(|&(_, s)| same(s, slot)))
                    .map(|(_, &(_, slot))| slot)
            })
            .min();
        match first.map(|slot| self.decode::<K>(slot as usize)) {
            Some(Ok(id)) => Err(format!("page {id:?} is listed twice")),
            Some(Err(e)) => Err(e),
            None => Ok(()),
        }
    }

    /// The hash of slot `slot`'s id, or why it does not decode. `String` ids (the
    /// command's) are read in place as `&str`, which hashes as the `String` does, so
    /// checking ten million of them allocates nothing.
    fn hash_of<K>(&self, slot: usize) -> Result<u64, String>
    where
        K: DeserializeOwned + Hash + 'static,
    {
        let hasher = rustc_hash::FxBuildHasher;
        if TypeId::of::<K>() != TypeId::of::<String>() {
            return Ok(hasher.hash_one(self.decode::<K>(slot)?));
        }
        let bytes = self.of(slot);
        // bincode writes a string shorter than 251 bytes as one byte of length, then the
        // bytes: read those directly, anything else through bincode.
        if let Some((&len, text)) = bytes.split_first() {
            if len < 251 && len as usize == text.len() {
                let text = std::str::from_utf8(text)
                    .map_err(|e| format!("the page id of slot {slot} cannot be decoded ({e})"))?;
                return Ok(hasher.hash_one(text));
            }
        }
        let text: &str = id_codec()
            .with_limit(bytes.len() as u64)
            .deserialize(bytes)
            .map_err(|e| format!("the page id of slot {slot} cannot be decoded ({e})"))?;
        Ok(hasher.hash_one(text))
    }

    /// These ids decoded by `decode`, with the index.
    fn decoded<K: Hash + Eq + Clone>(&self, decode: Decoder<K>) -> Decoded<K> {
        let mut d = Decoded {
            ids: Vec::with_capacity(self.slots()),
            index: HashMap::default(),
        };
        d.index.reserve(self.live.iter().filter(|&&l| l).count());
        for slot in 0..self.slots() {
            let id = self.live[slot].then(|| {
                // Invariant: every live slot's id decodes (checked on loading).
                let id = decode(self, slot);
                d.index.insert(id.clone(), slot as u32);
                id
            });
            d.ids.push(id);
        }
        d
    }
}

/// The values that occur more than once in `hashes`, sorted (`None`: none does).
///
/// One pass spreads the hashes over 2^16 buckets by their top bits, then each bucket is
/// sorted on its own (a radix pass, then small sorts that stay in cache, on both cores).
pub(super) fn repeated(mut hashes: Vec<u64>) -> Option<Vec<u64>> {
    const BITS: u32 = 16;
    const BUCKETS: usize = 1 << BITS;
    if hashes.len() < BUCKETS {
        // Fewer hashes than buckets: one sort costs less than visiting every bucket (a
        // small state loads in microseconds, not a millisecond).
        hashes.sort_unstable();
        let mut found: Vec<u64> = hashes
            .windows(2)
            .filter(|w| w[0] == w[1])
            .map(|w| w[0])
            .collect();
        found.dedup();
        return (!found.is_empty()).then_some(found);
    }
    let bucket = |h: u64| (h >> (64 - BITS)) as usize;
    // Two halves, counted and spread on both cores into their own part of each bucket.
    let halves: Vec<&[u64]> = hashes.chunks(hashes.len().div_ceil(2).max(1)).collect();
    let counts: Vec<Vec<usize>> = halves
        .par_iter()
        .map(|half| {
            let mut count = vec![0; BUCKETS];
            for &h in *half {
                count[bucket(h)] += 1;
            }
            count
        })
        .collect();
    let mut spread = vec![0u64; hashes.len()];
    let mut parts: Vec<Vec<&mut [u64]>> = (0..halves.len())
        .map(|_| Vec::with_capacity(BUCKETS))
        .collect();
    let mut sizes = Vec::with_capacity(BUCKETS);
    let mut rest = spread.as_mut_slice();
    for b in 0..BUCKETS {
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
            let mut next = vec![0; BUCKETS];
            for &h in *half {
                let b = bucket(h);
                part[b][next[b]] = h;
                next[b] += 1;
            }
        });
    drop(parts);
    drop(hashes);
    let mut buckets = Vec::with_capacity(BUCKETS);
    let mut rest = spread.as_mut_slice();
    for size in sizes {
        let (this, after) = std::mem::take(&mut rest).split_at_mut(size);
        buckets.push(this);
        rest = after;
    }
    let mut found: Vec<u64> = buckets
        .into_par_iter()
        .flat_map_iter(|b| {
            b.sort_unstable();
            b.windows(2)
                .filter(|w| w[0] == w[1])
                .map(|w| w[0])
                .collect::<Vec<_>>()
        })
        .collect();
    found.sort_unstable();
    found.dedup();
    (!found.is_empty()).then_some(found)
}

/// Decodes a live slot's id of checked [`Encoded`] ids.
type Decoder<K> = fn(&Encoded, usize) -> K;

/// [`Decoder`] for ids of type `K`.
fn decode_checked<K: DeserializeOwned>(encoded: &Encoded, slot: usize) -> K {
    // Invariant: every live slot's id decodes (checked on loading).
    encoded.decode(slot).expect("invariant: checked on loading")
}

/// A scheduler's page ids: decoded, or encoded until first needed.
#[derive(Debug, Clone)]
pub(super) struct PageIds<K> {
    pub(super) decoded: OnceLock<Decoded<K>>,
    /// From a compact state file, until the page set changes, with the function that
    /// decodes one id (so that looking pages up needs no serde bound).
    pub(super) encoded: Option<(Encoded, Decoder<K>)>,
    /// Pages (live slots).
    live: usize,
}

impl<K> Default for PageIds<K> {
    fn default() -> PageIds<K> {
        PageIds {
            decoded: OnceLock::from(Decoded::default()),
            encoded: None,
            live: 0,
        }
    }
}

impl<K: Hash + Eq + Clone + Debug> PageIds<K> {
    /// The ids of a state file, checked ([`Encoded::check`]).
    pub(super) fn from_encoded(encoded: Encoded) -> PageIds<K>
    where
        K: DeserializeOwned,
    {
        PageIds {
            live: encoded.live.iter().filter(|&&l| l).count(),
            decoded: OnceLock::new(),
            encoded: Some((encoded, decode_checked::<K>)),
        }
    }

    /// Number of pages.
    pub(super) fn len(&self) -> usize {
        self.live
    }

    /// Number of slots, free ones included.
    pub(super) fn slots(&self) -> usize {
        match (&self.encoded, self.decoded.get()) {
            (_, Some(d)) => d.ids.len(),
            (Some((e, _)), None) => e.slots(),
            // Invariant: one of the two is always there (`decoded` is set whenever
            // `encoded` is dropped).
            (None, None) => unreachable!("invariant: ids decoded or encoded"),
        }
    }

    /// The decoded ids, decoding them on first use.
    pub(super) fn decoded(&self) -> &Decoded<K> {
        self.decoded.get_or_init(|| match &self.encoded {
            Some((e, decode)) => e.decoded(*decode),
            None => Decoded::default(),
        })
    }

    /// The decoded ids, to change (the encoded copy is dropped).
    pub(super) fn decoded_mut(&mut self) -> &mut Decoded<K> {
        self.decoded();
        self.encoded = None;
        // Invariant: `decoded()` just set it.
        self.decoded.get_mut().expect("invariant: decoded above")
    }

    /// The page in `slot` (a live slot).
    pub(super) fn get(&self, slot: u32) -> K {
        match (self.decoded.get(), &self.encoded) {
            // Invariant: the callers pass live slots.
            (Some(d), _) => d.ids[slot as usize].clone().expect("invariant: live slot"),
            (None, Some((e, decode))) => decode(e, slot as usize),
            (None, None) => unreachable!("invariant: ids decoded or encoded"),
        }
    }

    /// The slot of `page`, if it is scheduled.
    pub(super) fn slot<Q>(&self, page: &Q) -> Option<u32>
    where
        K: std::borrow::Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.decoded().index.get(page).copied()
    }

    /// Records that a page was added or removed.
    pub(super) fn counted(&mut self, added: bool) {
        if added {
            self.live += 1;
        } else {
            self.live -= 1;
        }
    }

    /// Appends every slot's id as [`Encoded`] holds them: the ends, then the ids.
    pub(super) fn write(&self, out: &mut Vec<u8>) -> Result<(), bincode::Error>
    where
        K: Serialize,
    {
        if let Some((e, _)) = &self.encoded {
            e.write(out);
            return Ok(());
        }
        let d = self.decoded();
        let mut bytes = Vec::new();
        let ends_at = out.len();
        out.resize(ends_at + 8 * d.ids.len(), 0);
        for (id, end) in d.ids.iter().zip(out[ends_at..].chunks_exact_mut(8)) {
            if let Some(id) = id {
                id_codec().serialize_into(&mut bytes, id)?;
            }
            end.copy_from_slice(&(bytes.len() as u64).to_le_bytes());
        }
        out.extend_from_slice(&bytes);
        Ok(())
    }
}
