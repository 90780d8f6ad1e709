//! Shared states for the per-page simulator: pages that differ only in their weight and
//! host share one state, and what of their formula reads neither is computed once per
//! state.
//!
//! A formula that reads the page weight (`w`) scores every page of a weighted period
//! differently, so the per-page simulator ([`Flat`](super::flat)) ranks page by page. But
//! most of such a formula reads no weight or host: in `w * (1 - exp(-MLE * t)) + HR * X7 /
//! tc` only `w` and `HR` differ between pages that were visited and found changed in the
//! same cycles. Those pages share everything else (a brdc12 period of 100,000 pages has
//! about 2,000 such states after 19 cycles), so here
//!
//! - each page holds the index of its *state*, its statistics without weight and host
//!   (interned: equal states are one), and a visit moves it to the state a visit in that
//!   cycle, finding a change or not, leads to — computed once per state, cycle and
//!   outcome, then looked up for every other page making the same move;
//! - the formula is [`Split`]: its *state inputs*, the largest subtrees that read neither
//!   `w` nor `HR` (`1 - exp(-MLE * t)`, `X7`, `tc` above), are evaluated once per state;
//!   its *host inputs*, the largest that read `HR` alone (`HR`, `exp(HR)`), once per host
//!   (and per state, for pages without a host, whose `HR` is their own); its *fixed
//!   inputs*, the largest that apply operators to `w` alone (`log(w)`, `exp(w^2)`), once
//!   per page for the whole run; the rest, once per page and cycle over the page's weight
//!   and its values of the inputs, gathered chunk by chunk through its state and host.
//!
//! The scores are bit for bit the whole formula's (see [`Split`]), so the run is the
//! per-page simulator's, and the reference simulator's.
//!
//! **Invariant:** a state's statistics carry weight 1, no host and no group; a page's own
//! are its state's with its weight, host and group ([`PageStats::visit`] reads none of
//! them, so pages of one state move alike).

use super::Period;
use crate::eval::{Columns, Scratch, Split};
use crate::formula::Terminal;
use crate::policy::{eval_inputs, FormulaPolicy, PageState, StateKey};
use crate::policy::{Histories, Policy, ScoreBuffers, Scorer, Surroundings, NO_GROUP, NO_HOST};
use rustc_hash::FxHashMap as HashMap;

/// No state yet (a move not made this cycle).
const NONE: u32 = u32::MAX;

/// The shared states of a run, and each page's.
#[derive(Debug, Default, Clone)]
pub(super) struct Shared {
    /// The run's formula split around `w` and `HR` (None: pages keep their own states).
    split: Option<Split>,
    /// Each page's state.
    of_page: Vec<u32>,
    /// The states by index (a freed one keeps its last statistics until reused).
    states: Vec<PageState>,
    /// Pages in each state.
    members: Vec<u32>,
    /// The index of each state made this cycle (see [`Shared::settle`]).
    index: HashMap<StateKey, u32>,
    /// Freed state indices, to reuse.
    free: Vec<u32>,
    /// For each state, the state a visit this cycle moves its pages to (finding no
    /// change, finding one); [`NONE`] until the first such visit.
    next: Vec<[u32; 2]>,
    /// The states visited this cycle (their moves to forget, their emptiness to check).
    moved: Vec<u32>,
    /// Each state input's value for each state.
    values: Vec<Vec<f64>>,
    /// Each fixed input's value for each page (computed once a run).
    fixed: Vec<Vec<f64>>,
    /// `HR` of each host, then of each state's own statistics (a page without a host is
    /// its own host).
    hr: Vec<f64>,
    /// Each page's index into `hr`.
    hr_index: Vec<u32>,
    /// Each host input's value at each of `hr`.
    host_values: Vec<Vec<f64>>,
    scratch: Scratch,
}

impl Shared {
    /// Whether a run of formula `f` over `period` shares states here: over a weighted
    /// period, without a learned model (its `P` is per page) and without `GR` (per group).
    fn suits(period: &Period, f: &FormulaPolicy) -> bool {
        f.model().is_none()
            && period.weights().is_some()
            && !f.formula().terminals().contains(&Terminal::GR)
    }

    /// Starts a run of `policy` over `period`: every page in the fresh state. Returns
    /// whether the run shares states ([`Shared::active`]).
    pub(super) fn start(&mut self, period: &Period, policy: &Policy) -> bool {
        self.split = match policy {
            Policy::Scorer(Scorer::Formula(f)) if Shared::suits(period, f) => {
                Some(Split::new(f.formula(), f.closure(), Terminal::scope))
            }
            _ => None,
        };
        if self.split.is_none() {
            return false;
        }
        self.of_page.clear();
        self.of_page.resize(period.pages(), 0);
        self.states.clear();
        self.members.clear();
        self.index.clear();
        self.free.clear();
        self.next.clear();
        self.moved.clear();
        let fresh = policy.fresh_page_of(1.0, NO_HOST, NO_GROUP);
        let id = self.intern(fresh);
        self.members[id as usize] = period.pages() as u32;
        self.fix_inputs(period);
        true
    }

    /// Evaluates the split's fixed inputs over the period's weights.
    fn fix_inputs(&mut self, period: &Period) {
        // Invariant: called by `start` once the split is set.
        let split = self.split.as_ref().expect("invariant: a split is set");
        self.fixed.resize_with(split.fixed().len(), Vec::new);
        let pages = period.pages();
        // Invariant: only a weighted period shares states (`Shared::suits`).
        let weights = period.weights().expect("invariant: a weighted period");
        let columns = Columns::new(pages).with(Terminal::W, weights);
        for (program, values) in split.fixed().iter().zip(&mut self.fixed) {
            values.resize(pages, 0.0);
            program.eval_batch(&columns, values, &mut self.scratch);
        }
    }

    /// Whether this run shares states.
    pub(super) fn active(&self) -> bool {
        self.split.is_some()
    }

    /// The state of page `p`.
    pub(super) fn state(&self, p: u32) -> &PageState {
        &self.states[self.of_page[p as usize] as usize]
    }

    /// The index of `state`, interned if new (with no pages yet).
    fn intern(&mut self, state: PageState) -> u32 {
        use std::collections::hash_map::Entry;
        match self.index.entry(state.key()) {
            Entry::Occupied(e) => *e.get(),
            Entry::Vacant(e) => {
                let id = match self.free.pop() {
                    Some(id) => {
                        self.states[id as usize] = state;
                        id
                    }
                    None => {
                        self.states.push(state);
                        self.members.push(0);
                        self.next.push([NONE; 2]);
                        (self.states.len() - 1) as u32
                    }
                };
                e.insert(id);
                id
            }
        }
    }

    /// Visits page `p` at cycle `d` (`changed`: the visit finds a change): moves it to the
    /// state its state's visit leads to, computed by `policy` on the first such move of
    /// the cycle.
    #[inline]
    pub(super) fn visit(
        &mut self,
        policy: &Policy,
        p: u32,
        (d, changed): (u32, bool),
        histories: &mut Histories,
    ) {
        let from = self.of_page[p as usize];
        let mut to = self.next[from as usize][changed as usize];
        if to == NONE {
            let mut state = self.states[from as usize];
            policy.visit(&mut state, d, changed, histories);
            to = self.intern(state);
            if self.next[from as usize] == [NONE; 2] {
                self.moved.push(from);
            }
            self.next[from as usize][changed as usize] = to;
        }
        self.of_page[p as usize] = to;
        self.members[to as usize] += 1;
        self.members[from as usize] -= 1;
    }

    /// Ends a cycle's visits: forgets its moves, frees the states they emptied, and
    /// empties the index. A state made by a visit in cycle `d` has its last visit at
    /// `d`, so it can equal no state of an earlier cycle: the index need only hold the
    /// states made this cycle, and no freed state is ever looked up.
    pub(super) fn settle(&mut self) {
        for s in self.moved.drain(..) {
            self.next[s as usize] = [NONE; 2];
            if self.members[s as usize] == 0 {
                self.free.push(s);
            }
        }
        self.index.clear();
    }

    /// Scores every page at cycle `d` into `scores`: the split's state inputs once per
    /// state, its host inputs once per host, the rest per page.
    pub(super) fn score(
        &mut self,
        period: &Period,
        (d, hosts): (u32, &Surroundings),
        scores: &mut Vec<f64>,
        buffers: &mut ScoreBuffers,
    ) {
        // Invariant: `score` is called only while `active` (the per-page simulator asks).
        let split = self.split.as_ref().expect("invariant: scored while active");
        eval_inputs(split, &self.states, (d, hosts), &mut self.values, buffers);
        let pages = period.pages();
        self.host_values.resize_with(split.host().len(), Vec::new);
        if !split.host().is_empty() {
            // Each host's HR, then each state's own (that of a page without a host).
            self.hr.clear();
            hosts.host_rates_into(&mut self.hr);
            let h = self.hr.len();
            self.hr
                .extend(self.states.iter().map(|s| hosts.rate(&s.stats)));
            self.hr_index.clear();
            self.hr_index
                .extend((0..pages as u32).zip(&self.of_page).map(|(p, &s)| {
                    match period.host(p) as usize {
                        host if host < h => host as u32,
                        _ => (h as u32) + s,
                    }
                }));
            let hr = Columns::new(self.hr.len()).with(Terminal::HR, &self.hr);
            for (program, values) in split.host().iter().zip(&mut self.host_values) {
                values.resize(hr.len(), 0.0);
                program.eval_batch(&hr, values, &mut self.scratch);
            }
        }
        let state = (self.values.as_slice(), self.of_page.as_slice());
        let host = (self.host_values.as_slice(), self.hr_index.as_slice());
        let mut columns = split.columns(pages, state, host, &self.fixed);
        if let Some(weights) = period.weights() {
            columns = columns.with(Terminal::W, weights);
        }
        scores.resize(pages, 0.0);
        split
            .residual()
            .eval_batch(&columns, scores, &mut self.scratch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::text;
    use crate::formula::Grammar;

    /// Pages sharing states keep the bookkeeping whole: every page in a live state, live
    /// states distinct and holding their pages, the others free, the index empty between
    /// cycles; and a page's state is what its own visits give.
    #[test]
    fn states_are_shared_and_freed_exactly() {
        let rows = [
            "1010110", "0000000", "1111111", "1010110", "0110011", "1010110",
        ];
        let lines: String = (rows.iter().enumerate())
            .map(|(i, bits)| format!("{bits}\tp{i}\th{}\tweight={}\n", i % 2, i + 1))
            .collect();
        let period = Period::whole(&text::read(lines.as_bytes(), "<test>").unwrap()).unwrap();
        let policy = Policy::parse("w * X7 + HR * t", &Grammar::extended()).unwrap();
        let mut shared = Shared::default();
        assert!(shared.start(&period, &policy));
        let mut histories = Histories::default();
        let mut own: Vec<PageState> = vec![policy.fresh_page_of(1.0, NO_HOST, NO_GROUP); 6];
        for d in 1..=period.len() as u32 {
            let changed = |p: u32| period.changes(d as usize).contains(&p);
            // Pages 0, 2, 4 every cycle, the others every third.
            for p in (0..6).filter(|p| p % 2 == 0 || d % 3 == 0) {
                shared.visit(&policy, p, (d, changed(p)), &mut histories);
                policy.visit(&mut own[p as usize], d, changed(p), &mut histories);
            }
            shared.settle();
            assert!(shared.index.is_empty(), "cycle {d}");
            assert_eq!(shared.members.iter().sum::<u32>(), 6);
            let mut live: Vec<u32> = shared.of_page.clone();
            live.sort_unstable();
            live.dedup();
            for p in 0..6u32 {
                assert_eq!(shared.state(p), &own[p as usize], "page {p}, cycle {d}");
            }
            // Live states are distinct, each holding its pages; the others are free.
            for (i, &a) in live.iter().enumerate() {
                let held = shared.of_page.iter().filter(|&&s| s == a).count() as u32;
                assert_eq!(shared.members[a as usize], held);
                for &b in &live[i + 1..] {
                    assert_ne!(shared.states[a as usize], shared.states[b as usize]);
                }
            }
            assert_eq!(live.len() + shared.free.len(), shared.states.len());
            for &f in &shared.free {
                assert_eq!(shared.members[f as usize], 0);
            }
        }
        // Pages 0, 3 and 5 change alike, but 3 and 5 are visited less: 0 is alone.
        assert_eq!(shared.of_page[3], shared.of_page[5]);
        assert_ne!(shared.of_page[0], shared.of_page[3]);
        assert!(
            !shared.free.is_empty(),
            "states emptied along the way are freed"
        );
    }

    /// Only a formula without a model or `GR` shares states, over a weighted period.
    #[test]
    fn only_formulas_of_w_and_hr_share() {
        let lines = "01\tp0\th\tweight=2\n10\tp1\t\tweight=3\n";
        let weighted = Period::whole(&text::read(lines.as_bytes(), "<test>").unwrap()).unwrap();
        let plain = Period::whole(&text::read("01\tp0\n".as_bytes(), "<test>").unwrap()).unwrap();
        let parse = |t: &str| Policy::parse(t, &Grammar::frequency()).unwrap();
        let mut shared = Shared::default();
        assert!(shared.start(&weighted, &parse("w * t + HR")));
        assert!(!shared.start(&weighted, &parse("w * GR")));
        assert!(!shared.start(&weighted, &parse("value")));
        assert!(!shared.start(&plain, &parse("t")));
        assert!(!shared.active());
    }
}
