//! Pages of equal statistics, counted together.
//!
//! A page's score depends only on its [`PageState`] (statistics and the policy's memory)
//! and the cycle, and a crawler's pages
//! mostly share statistics (every page seen twice without change and not since, for
//! instance). [`Groups`] interns the distinct statistics: each page points at its group,
//! each group knows how many pages point at it, so a batch scores each distinct
//! statistics once (see `Scheduler::next_batch`). Unlike the fast simulator's groups,
//! these hold no member lists: a batch finds its pages with one pass over the pages.
//!
//! **Invariant:** a group with `count > 0` is in `index` under its statistics' key; a
//! group with `count == 0` is on the free list and nowhere else.

use crate::policy::{PageState, StateKey};
use rustc_hash::FxHashMap as HashMap;

/// The interned statistics of a scheduler's pages.
#[derive(Debug, Clone, Default)]
pub(super) struct Groups {
    /// The page state of each group (stale for free groups).
    pub(crate) pages: Vec<PageState>,
    /// Pages in each group (0: the group is free).
    pub(crate) count: Vec<u32>,
    index: HashMap<StateKey, u32>,
    free: Vec<u32>,
}

impl Groups {
    /// Adds one page in state `page`; returns its group.
    pub(crate) fn join(&mut self, page: PageState) -> u32 {
        let key = page.key();
        if let Some(&g) = self.index.get(&key) {
            self.count[g as usize] += 1;
            return g;
        }
        let g = match self.free.pop() {
            Some(g) => {
                self.pages[g as usize] = page;
                self.count[g as usize] = 1;
                g
            }
            None => {
                self.pages.push(page);
                self.count.push(1);
                (self.pages.len() - 1) as u32
            }
        };
        self.index.insert(key, g);
        g
    }

    /// Removes one page from group `g`, freeing the group when it empties.
    pub(crate) fn leave(&mut self, g: u32) {
        let count = &mut self.count[g as usize];
        debug_assert!(*count > 0, "leaving an empty group");
        *count -= 1;
        if *count == 0 {
            self.index.remove(&self.pages[g as usize].key());
            self.free.push(g);
        }
    }

    /// Number of groups with at least one page.
    pub(crate) fn live(&self) -> usize {
        self.index.len()
    }

    /// Number of group slots, live or free (group ids are below it).
    pub(crate) fn slots(&self) -> usize {
        self.pages.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_statistics_share_a_group_and_empty_groups_are_reused() {
        let mut g = Groups::default();
        let fresh = PageState::default();
        let mut seen = PageState::default();
        seen.stats.visit(1, true, &mut Default::default());
        let a = g.join(fresh);
        let b = g.join(fresh);
        let c = g.join(seen);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(
            (g.count[a as usize], g.count[c as usize], g.live()),
            (2, 1, 2)
        );
        g.leave(c);
        assert_eq!(g.live(), 1);
        let mut other = PageState::default();
        other.stats.visit(2, false, &mut Default::default());
        let d = g.join(other);
        assert_eq!(d, c, "the freed group is reused");
        assert_eq!(g.pages[d as usize], other);
        assert_eq!(g.slots(), 2);
        g.leave(a);
        g.leave(a);
        assert_eq!(g.live(), 1);
        assert_eq!(g.join(seen), a, "a fresh key reuses the freed group");
    }

    #[test]
    fn equal_statistics_with_other_memory_are_another_group() {
        let mut g = Groups::default();
        let short = PageState {
            memory: 1.0,
            ..PageState::default()
        };
        let long = PageState {
            memory: 2.0,
            ..short
        };
        assert_ne!(g.join(short), g.join(long));
        assert_eq!(g.live(), 2);
    }
}
