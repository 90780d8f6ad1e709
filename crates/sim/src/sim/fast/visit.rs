//! Step 4 of a cycle: the chosen pages visited. A group chosen whole is visited as a
//! group (the larger of its changed and unchanged parts keeps it under its new state, the
//! other part moves page by page); pages of a group chosen in part move one by one to the
//! group of their new state. The warm-up visits every group so.

use super::super::Period;
use super::groups::{Fast, NONE};
use crate::policy::{Policy, Track};

impl Fast {
    /// Visits the groups in `self.whole` (every page of each) and then the pages in
    /// `self.visited` at cycle `d`.
    pub(super) fn visit_all(&mut self, period: &Period, policy: &Policy, d: u32) {
        // Host and group totals are kept only for a policy that reads HR or GR.
        let tracks_hosts = self.track.has_any(Track::HOST.with(Track::GROUP));
        self.index.clear();
        let whole = std::mem::take(&mut self.whole);
        for &g in &whole {
            self.visit_group(g, period, policy, d, tracks_hosts);
        }
        self.whole = whole;
        let visited = std::mem::take(&mut self.visited);
        for &p in &visited {
            let old = self.group_of[p as usize] as usize;
            let changed = self.stale[p as usize];
            if tracks_hosts {
                self.host_rates
                    .record(period.host(p), period.group(p), changed);
            }
            if changed {
                self.stale[p as usize] = false;
                self.groups[old].stale -= 1;
            }
            let group = &mut self.groups[old];
            if group.moves_cycle != d {
                group.moves_cycle = d;
                group.moves_to = [NONE; 2];
            }
            let new = match group.moves_to[changed as usize] {
                NONE => {
                    let mut page = group.page;
                    policy.visit(&mut page, d, changed, &mut self.histories);
                    // Look the target up before `old` may be freed and reused.
                    let g = self.group_for(page);
                    self.groups[old].moves_to[changed as usize] = g;
                    g
                }
                g => g,
            };
            self.leave(p);
            self.join(p, new);
        }
        self.visited = visited;
    }

    /// Visits every page of group `g` at cycle `d`. Its pages split by whether they
    /// changed; the larger part keeps the group, whose state is updated in place, and
    /// only the other part moves page by page. A visit sets the last visit to `d`, so a
    /// new state is never the state of a group not yet visited this cycle.
    fn visit_group(
        &mut self,
        g: u32,
        period: &Period,
        policy: &Policy,
        d: u32,
        tracks_hosts: bool,
    ) {
        let group = &mut self.groups[g as usize];
        let (size, stale) = (group.members.len(), group.stale as usize);
        let page = group.page;
        group.stale = 0;
        // The part that stays: the changed pages when they are more than half.
        let stays_changed = stale * 2 > size;
        let mut movers = std::mem::take(&mut self.movers);
        movers.clear();
        if stale > 0 || tracks_hosts {
            // Each page written, the count moved on for a mover only: no branch on
            // whether it changed, which is as good as random.
            movers.resize(size, 0);
            let mut moving = 0;
            for &p in &self.groups[g as usize].members {
                let changed = std::mem::replace(&mut self.stale[p as usize], false);
                if tracks_hosts {
                    self.host_rates
                        .record(period.host(p), period.group(p), changed);
                }
                movers[moving] = p;
                moving += (changed != stays_changed) as usize;
            }
            movers.truncate(moving);
        }
        if !movers.is_empty() {
            let mut next = page;
            policy.visit(&mut next, d, !stays_changed, &mut self.histories);
            let target = self.group_for(next);
            for &p in &movers {
                self.leave(p);
                self.join(p, target);
            }
        }
        self.movers = movers;
        // The group takes its new state; its old index entry no longer holds, and the
        // new state is not indexed (a merge here is rare: one visit in a thousand in
        // a GP run, against a hash and two index operations for every group).
        let group = &mut self.groups[g as usize];
        policy.visit(&mut group.page, d, stays_changed, &mut self.histories);
        group.moves_cycle = 0;
    }

    /// Visits every page at cycle `d` (a warm-up cycle), group by group.
    pub(super) fn visit_everyone(&mut self, period: &Period, policy: &Policy, d: u32) {
        let tracks_hosts = self.track.has_any(Track::HOST.with(Track::GROUP));
        self.index.clear();
        let mut olds = std::mem::take(&mut self.scratch_groups);
        olds.clear();
        olds.extend_from_slice(&self.live);
        // A group freed here was visited already; one taken from the free list is a new
        // state's, which no group of `olds` can reach before its own turn.
        for &g in &olds {
            self.visit_group(g, period, policy, d, tracks_hosts);
        }
        self.scratch_groups = olds;
    }
}
