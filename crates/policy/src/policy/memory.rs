//! What a rate policy's solve keeps from one cycle to the next ([`SolveMemory`]): the
//! pages' inputs, sorted and merged, so that the next cycle's solve merges in only the
//! pages whose inputs changed; and the change probabilities `π = 1 - e^{-Δ}` of the
//! change rates met lately ([`Probabilities`]), since the pages of a history share few
//! change rates (the MLE of a few visit histories) and each costs two calls into libm.
//! Neither changes a result: each holds what a fresh computation gives, bit for bit.

/// `π = 1 - e^{-Δ}`, the chance of at least one change in a cycle at change rate `Δ`,
/// and `1 - π = e^{-Δ}` (computed directly, not by subtraction).
#[inline]
pub(super) fn change_probability(delta: f64) -> (f64, f64) {
    (-(-delta).exp_m1(), (-delta).exp())
}

/// log2 of the slots of [`Probabilities`].
const SLOT_BITS: u32 = 10;

/// [`change_probability`] of the change rates met lately: a direct-mapped table of
/// 1,024 slots, each holding one rate's bits and its two probabilities (24 KiB).
///
/// **Invariant:** a slot holds the bits of a rate and [`change_probability`] of it (an
/// empty table holds no slot), so [`Probabilities::get`] is [`change_probability`]
/// bit for bit.
#[derive(Debug, Clone, Default)]
pub(crate) struct Probabilities {
    slots: Vec<(u64, f64, f64)>,
}

impl Probabilities {
    /// [`change_probability`] of `delta`, from its slot when the slot holds it.
    #[inline]
    pub(super) fn get(&mut self, delta: f64) -> (f64, f64) {
        let bits = delta.to_bits();
        if self.slots.is_empty() {
            let (pi, rest) = change_probability(delta);
            self.slots = vec![(bits, pi, rest); 1 << SLOT_BITS];
        }
        // Fibonacci hashing: the top bits of the product mix every bit of the rate.
        let slot = (bits.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SLOT_BITS)) as usize;
        let entry = &mut self.slots[slot];
        if entry.0 != bits {
            let (pi, rest) = change_probability(delta);
            *entry = (bits, pi, rest);
        }
        (entry.1, entry.2)
    }
}

/// What a solve keeps for the next cycle's
/// ([`RatePolicy::solve_remembering`](super::RatePolicy::solve_remembering)): each page's
/// input and count in the order given, and their multiset, merged: the distinct inputs
/// sorted, each with its total count.
///
/// **Invariant:** `merged` is the multiset of `pages` (entries of count 0 left out).
#[derive(Debug, Clone, Default)]
pub struct SolveMemory {
    pub(super) pages: Vec<((u64, u64), u32)>,
    pub(super) merged: Vec<((u64, u64), u64)>,
    /// Room for the next merge.
    spare_merged: Vec<((u64, u64), u64)>,
    /// The entries that left and joined in the last [`SolveMemory::record`] (room for
    /// the next).
    gone: Vec<((u64, u64), u32)>,
    come: Vec<((u64, u64), u32)>,
    /// The change probabilities of the change rates met lately.
    pub(super) probabilities: Probabilities,
}

impl SolveMemory {
    /// Makes `pages` (each page's input and count) the remembered pages and returns
    /// their total count. Each entry is compared with the one remembered at its place as
    /// it is read, in one pass (a page inserted or removed in the middle moves every later
    /// place): the c entries that differ, and those past the shorter list's end, leave the
    /// merged multiset or join it, at a cost of O(P + c log c) for P pages instead of a
    /// sort's O(P log P). When more than a quarter differ, or nothing was merged before,
    /// everything is sorted and merged again.
    pub(super) fn record(&mut self, pages: impl IntoIterator<Item = ((u64, u64), u32)>) -> u64 {
        let (mut gone, mut come) = (
            std::mem::take(&mut self.gone),
            std::mem::take(&mut self.come),
        );
        gone.clear();
        come.clear();
        // Past this many changes the lists stop: everything is sorted again.
        let cap = self.pages.len() / 4;
        let mut overflow = false;
        let (mut total, mut len) = (0u64, 0usize);
        let mut pages = pages.into_iter();
        // `zip` reads a remembered place before the next page, so no page is lost when
        // the remembered list ends first.
        for (kept, entry) in self.pages.iter_mut().zip(pages.by_ref()) {
            total += u64::from(entry.1);
            len += 1;
            if *kept != entry {
                if come.len() < cap {
                    gone.push(*kept);
                    come.push(entry);
                } else {
                    overflow = true;
                }
                *kept = entry;
            }
        }
        gone.extend_from_slice(&self.pages[len..]);
        self.pages.truncate(len);
        for entry in pages {
            total += u64::from(entry.1);
            self.pages.push(entry);
            come.push(entry);
        }
        let limit = self.pages.len() / 4;
        let mut merged = std::mem::take(&mut self.spare_merged);
        merged.clear();
        if overflow || come.len() > limit || gone.len() > limit || self.merged.is_empty() {
            // Every entry, in `come`'s space.
            come.clear();
            come.extend(self.pages.iter().copied().filter(|&(_, c)| c > 0));
            come.sort_unstable_by_key(|&(input, _)| input);
            merge_into(&mut merged, come.iter().map(|&(i, c)| (i, c as i64)));
        } else {
            gone.sort_unstable_by_key(|&(input, _)| input);
            come.sort_unstable_by_key(|&(input, _)| input);
            let changes = merge_sorted(
                gone.iter().map(|&(i, c)| (i, -(c as i64))),
                come.iter().map(|&(i, c)| (i, c as i64)),
            );
            let last = self.merged.iter().map(|&(i, c)| (i, c as i64));
            merge_into(&mut merged, merge_sorted(last, changes));
        }
        self.spare_merged = std::mem::replace(&mut self.merged, merged);
        (self.gone, self.come) = (gone, come);
        total
    }
}

/// The entries of two iterators sorted by input, in one sorted sequence.
fn merge_sorted(
    a: impl IntoIterator<Item = ((u64, u64), i64)>,
    b: impl IntoIterator<Item = ((u64, u64), i64)>,
) -> impl Iterator<Item = ((u64, u64), i64)> {
    let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
    std::iter::from_fn(move || match (a.peek(), b.peek()) {
        (Some(x), Some(y)) if y.0 < x.0 => b.next(),
        (Some(_), _) => a.next(),
        (None, _) => b.next(),
    })
}

/// Appends sorted `entries` to `merged`, summing the counts of equal inputs and leaving
/// out inputs whose counts sum to 0.
fn merge_into(
    merged: &mut Vec<((u64, u64), u64)>,
    entries: impl Iterator<Item = ((u64, u64), i64)>,
) {
    let mut flush = |entry: Option<((u64, u64), i64)>| {
        if let Some((at, sum)) = entry {
            // Invariant: a count leaves only after joining (the memory's).
            debug_assert!(sum >= 0, "a count below 0");
            if sum != 0 {
                merged.push((at, sum as u64));
            }
        }
    };
    let mut current: Option<((u64, u64), i64)> = None;
    for (input, count) in entries {
        match &mut current {
            Some((at, sum)) if *at == input => *sum += count,
            _ => flush(current.replace((input, count))),
        }
    }
    flush(current);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn slot_of(delta: f64) -> u64 {
        delta.to_bits().wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SLOT_BITS)
    }

    fn same(a: (f64, f64), b: (f64, f64)) -> bool {
        (a.0.to_bits(), a.1.to_bits()) == (b.0.to_bits(), b.1.to_bits())
    }

    /// Change rates as a history gives them (a few, met again and again) and any other
    /// bits, the special values among them.
    fn rate() -> impl Strategy<Value = f64> {
        prop_oneof![
            prop::sample::select(vec![0.0, -0.0, 0.1, std::f64::consts::LN_2, 1.5, 2.0, 40.0]),
            any::<u64>().prop_map(f64::from_bits),
            prop::sample::select(vec![
                f64::NAN,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::MIN_POSITIVE / 3.0,
                f64::MAX,
                1e-300,
                800.0,
            ]),
        ]
    }

    proptest! {
        #[test]
        fn remembered_probabilities_are_computed_ones(rates in prop::collection::vec(rate(), 1..300)) {
            let mut memo = Probabilities::default();
            for &delta in &rates {
                prop_assert!(same(memo.get(delta), change_probability(delta)), "{delta:e}");
            }
        }
    }

    #[test]
    fn rates_sharing_a_slot_take_turns() {
        let first = 0.25f64;
        let other = (1..)
            .map(|i| first + i as f64 * 1e-9)
            .find(|&d| slot_of(d) == slot_of(first))
            .expect("invariant: 1,024 slots, so a rate of the same slot comes soon");
        let mut memo = Probabilities::default();
        for delta in [first, other, first, other, other, first] {
            assert!(same(memo.get(delta), change_probability(delta)), "{delta}");
        }
    }
}
