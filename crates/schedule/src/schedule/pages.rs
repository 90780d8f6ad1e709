//! The page set of a [`Scheduler`]: adding and removing pages, their hosts, weights and
//! attributes, the grouping `GR` reads, and observations (downloads that did or did not
//! find a change, through [`Policy::visit`](crate::policy::Policy::visit)); the host and
//! group totals follow every change.

use super::attributes::NONE;
use super::scheduler::{checked_text, PageId, Scheduler};
use super::ScheduleError;
use crate::policy::{PageState, Track};
use std::borrow::Borrow;
use std::fmt::Debug;
use std::hash::Hash;

impl<K: PageId> Scheduler<K> {
    /// Sets (or, with `None`, clears) the page's value of the attribute `key`
    /// (docs/src/reference/data.md#attributes); when the pages are grouped by `key`, its
    /// visits and changes move to its new group's totals (`GR`).
    pub fn set_attribute<Q>(
        &mut self,
        page: &Q,
        key: &str,
        value: Option<&str>,
    ) -> Result<(), ScheduleError>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + Debug + ?Sized,
    {
        let slot = self.slot_of(page)?;
        self.set_attribute_at(slot, &page, key, value)
    }

    /// [`Scheduler::set_attribute`] of the page in `slot`, named `page` in errors.
    pub(super) fn set_attribute_at(
        &mut self,
        slot: u32,
        page: &dyn Debug,
        key: &str,
        value: Option<&str>,
    ) -> Result<(), ScheduleError> {
        let slot = slot as usize;
        let bad = |why: String| ScheduleError::Attribute(format!("page {page:?}: {why}"));
        let c = self
            .attributes
            .column_or_add(key, self.ids.slots())
            .map_err(bad)?;
        let (old, new) = self.attributes.set(c, slot, value).map_err(bad)?;
        if self.grouping == Some(c) && old != new {
            self.move_rate_group(slot, old, new);
        }
        Ok(())
    }

    /// Groups the pages by the attribute `key` for `GR` (`None` or `"host"`: by host, the
    /// default, where `GR` is `HR`); every group's totals are recomputed from its pages.
    pub fn group_by(&mut self, key: Option<&str>) -> Result<(), ScheduleError> {
        self.grouping = match key {
            None | Some("host") => None,
            Some(key) => Some(
                self.attributes
                    .column_or_add(key, self.ids.slots())
                    .map_err(ScheduleError::Attribute)?,
            ),
        };
        self.regroup();
        Ok(())
    }

    /// Adds a page without host, of weight 1, never observed.
    pub fn add(&mut self, page: K) -> Result<u32, ScheduleError> {
        self.insert(page, NONE, 1.0)
    }

    /// Adds a page of `host`, of weight 1, never observed.
    pub fn add_with_host(&mut self, page: K, host: &str) -> Result<u32, ScheduleError> {
        let h = self.intern_host(checked_text("host", host)?);
        self.insert(page, h, 1.0)
    }

    /// Adds a page of `host` (`None`: without host) and `weight` (finite, >= 0), never
    /// observed.
    pub fn add_weighted(
        &mut self,
        page: K,
        host: Option<&str>,
        weight: f64,
    ) -> Result<u32, ScheduleError> {
        let weight = checked_weight(&page, weight)?;
        let host = host.map(|name| checked_text("host", name)).transpose()?;
        let h = host.map_or(NONE, |name| self.intern_host(name));
        self.insert(page, h, weight)
    }

    /// Sets (or, with `None`, clears) the page's host: its visits and changes leave the
    /// totals of its old host for those of the new one.
    pub fn set_host<Q>(&mut self, page: &Q, host: Option<&str>) -> Result<(), ScheduleError>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + Debug + ?Sized,
    {
        let host = host.map(|name| checked_text("host", name)).transpose()?;
        let slot = self.slot_of(page)?;
        self.set_host_at(slot, host);
        Ok(())
    }

    /// [`Scheduler::set_host`] of the page in `slot`.
    pub(super) fn set_host_at(&mut self, slot: u32, host: Option<&str>) {
        let slot = slot as usize;
        let h = host.map_or(NONE, |name| self.intern_host(name));
        let old = self.host_of[slot];
        if h == old {
            return;
        }
        let stats = self.groups.pages[self.group_of[slot] as usize].stats;
        let (x, n) = (stats.x as i64, stats.n as i64);
        self.host_rates.add_totals(old, -x, -n);
        self.host_rates.add_totals(h, x, n);
        self.host_of[slot] = h;
        if self.track.has(Track::HOST) {
            self.restate(slot, |state| state.stats.host = h);
        }
        if self.grouping.is_none() {
            self.move_rate_group(slot, old, h);
        }
    }

    /// Sets the page's weight (finite, >= 0).
    pub fn set_weight<Q>(&mut self, page: &Q, weight: f64) -> Result<(), ScheduleError>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + Debug + ?Sized,
    {
        let slot = self.slot_of(page)?;
        self.set_weight_at(slot, &page, weight)
    }

    /// [`Scheduler::set_weight`] of the page in `slot`, named `page` in errors.
    pub(super) fn set_weight_at(
        &mut self,
        slot: u32,
        page: &dyn Debug,
        weight: f64,
    ) -> Result<(), ScheduleError> {
        let slot = slot as usize;
        let weight = checked_weight(page, weight)?;
        if weight.to_bits() == self.weight_of[slot].to_bits() {
            return Ok(());
        }
        self.weight_of[slot] = weight;
        if self.track.has(Track::WEIGHT) {
            self.restate(slot, |state| state.stats.weight = weight);
        }
        Ok(())
    }

    /// Removes a page and its history (its visits leave its host's totals); the other
    /// pages keep their slots.
    pub fn remove<Q>(&mut self, page: &Q) -> Result<(), ScheduleError>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + Debug + ?Sized,
    {
        let slot = self
            .ids
            .take(page)
            .ok_or_else(|| ScheduleError::UnknownPage(format!("{page:?}")))?;
        let s = slot as usize;
        let g = self.group_of[s];
        let stats = self.groups.pages[g as usize].stats;
        self.host_rates
            .add_totals(self.host_of[s], -(stats.x as i64), -(stats.n as i64));
        self.host_rates
            .add_group_totals(self.rate_group(s), -(stats.x as i64), -(stats.n as i64));
        self.attributes.clear_slot(s);
        self.groups.leave(g);
        if let Some(live) = &mut self.bandit {
            live.removed(slot);
        }
        self.group_of[s] = NONE;
        self.host_of[s] = NONE;
        self.weight_of[s] = 1.0;
        self.free.push(slot);
        Ok(())
    }

    /// Records a download of `page` at `cycle` that did (`changed`) or did not find its
    /// content changed since the previous download.
    pub fn observe<Q>(&mut self, page: &Q, cycle: u32, changed: bool) -> Result<(), ScheduleError>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + Debug + ?Sized,
    {
        let slot = self.slot_of(page)?;
        self.observe_at(slot, &page, cycle, changed)
    }

    /// [`Scheduler::observe`] of the page in `slot`, named `page` in errors.
    pub(super) fn observe_at(
        &mut self,
        slot: u32,
        page: &dyn Debug,
        cycle: u32,
        changed: bool,
    ) -> Result<(), ScheduleError> {
        let slot = slot as usize;
        let g = self.group_of[slot];
        let mut state = self.groups.pages[g as usize];
        if cycle <= state.stats.last_visit {
            return Err(ScheduleError::CycleNotAfter {
                page: format!("{page:?}"),
                cycle,
                last: state.stats.last_visit,
            });
        }
        self.policy
            .visit(&mut state, cycle, changed, &mut self.histories);
        self.host_rates
            .add_totals(self.host_of[slot], changed as i64, 1);
        self.host_rates
            .add_group_totals(self.rate_group(slot), changed as i64, 1);
        self.groups.leave(g);
        self.group_of[slot] = self.groups.join(state);
        self.latest = self.latest.max(cycle);
        if let Some(live) = &mut self.bandit {
            live.observed(slot as u32, cycle, changed);
        }
        Ok(())
    }

    pub(super) fn slot_of<Q>(&self, page: &Q) -> Result<u32, ScheduleError>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + Debug + ?Sized,
    {
        self.ids
            .slot(page)
            .ok_or_else(|| ScheduleError::UnknownPage(format!("{page:?}")))
    }

    pub(super) fn intern_host(&mut self, host: &str) -> u32 {
        if let Some(&h) = self.host_index.get(host) {
            return h;
        }
        let h = self.host_names.len() as u32;
        self.host_names.push(host.to_string());
        self.host_index.insert(host.to_string(), h);
        h
    }

    /// The group of the page in `slot` for `GR` (NONE: none).
    #[inline]
    pub(super) fn rate_group(&self, slot: usize) -> u32 {
        match self.grouping {
            Some(c) => self.attributes.code(c, slot),
            None => self.host_of[slot],
        }
    }

    /// Moves the totals of the page in `slot` from rate group `old` to `new` (`GR`), and
    /// its statistics' group when they keep it.
    pub(super) fn move_rate_group(&mut self, slot: usize, old: u32, new: u32) {
        let stats = self.groups.pages[self.group_of[slot] as usize].stats;
        let (x, n) = (stats.x as i64, stats.n as i64);
        self.host_rates.add_group_totals(old, -x, -n);
        self.host_rates.add_group_totals(new, x, n);
        if self.track.has(Track::GROUP) {
            self.restate(slot, |state| state.stats.group = new);
        }
    }

    /// Recomputes every rate group's totals and the pages' groups (after the grouping
    /// changed, or on loading).
    pub(super) fn regroup(&mut self) {
        self.host_rates.clear_groups();
        for slot in 0..self.group_of.len() {
            if self.group_of[slot] == NONE {
                continue;
            }
            let group = self.rate_group(slot);
            let stats = self.groups.pages[self.group_of[slot] as usize].stats;
            self.host_rates
                .add_group_totals(group, stats.x as i64, stats.n as i64);
            if self.track.has(Track::GROUP) && stats.group != group {
                self.restate(slot, |state| state.stats.group = group);
            }
        }
    }

    /// Moves the page in `slot` to the group of its state changed by `change`.
    pub(super) fn restate(&mut self, slot: usize, change: impl FnOnce(&mut PageState)) {
        let g = self.group_of[slot];
        let mut state = self.groups.pages[g as usize];
        change(&mut state);
        self.groups.leave(g);
        self.group_of[slot] = self.groups.join(state);
    }

    /// Adds `page` of host `host` (NONE: none) and a checked `weight`, never observed, in
    /// a free slot (the last freed) or a new one.
    pub(super) fn insert(&mut self, page: K, host: u32, weight: f64) -> Result<u32, ScheduleError> {
        if let Some(text) = page.as_text() {
            checked_text("page id", text)?;
        }
        if self.ids.slot(&page).is_some() {
            return Err(ScheduleError::DuplicatePage(format!("{page:?}")));
        }
        let slot = match self.free.pop() {
            Some(slot) => slot,
            None => {
                if self.ids.slots() >= (u32::MAX - 1) as usize {
                    return Err(ScheduleError::Full);
                }
                self.ids.push_free();
                self.group_of.push(NONE);
                self.host_of.push(NONE);
                self.weight_of.push(1.0);
                self.attributes.push_slot();
                (self.group_of.len() - 1) as u32
            }
        };
        let s = slot as usize;
        self.ids.put(slot, page);
        self.host_of[s] = host;
        let group = self.rate_group(s);
        self.group_of[s] = self
            .groups
            .join(self.policy.fresh_page_of(weight, host, group));
        self.weight_of[s] = weight;
        // A page never visited adds nothing, but the tables grow to hold its host and group.
        self.host_rates.add_totals(host, 0, 0);
        self.host_rates.add_group_totals(group, 0, 0);
        Ok(slot)
    }
}

/// `weight` if it is a page weight (finite, >= 0; `-0` reads as `0`, as terminals are
/// never `-0`), else the error naming `page`.
fn checked_weight<Q: Debug + ?Sized>(page: &Q, weight: f64) -> Result<f64, ScheduleError> {
    if weight.is_finite() && weight >= 0.0 {
        Ok(weight + 0.0)
    } else {
        Err(ScheduleError::Weight {
            page: format!("{page:?}"),
            weight: weight.to_string(),
        })
    }
}
