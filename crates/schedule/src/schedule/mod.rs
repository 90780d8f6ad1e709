//! Scheduling a live crawl with a scoring formula: the simulation's ranking, for real.
//!
//! A [`Scheduler`] holds what a crawler knows about each of its pages — the statistics the
//! terminals read ([`PageStats`]) and the policy's memory of it ([`PageState`]) — keyed by
//! the crawler's own page ids, and ranks them with a [`Policy`] (an evolved formula, a
//! baseline, adaptive intervals) exactly as the simulation does:
//!
//! * [`Scheduler::add`] / [`Scheduler::add_with_host`] / [`Scheduler::add_weighted`] /
//!   [`Scheduler::remove`] keep the page set; [`Scheduler::set_host`] and
//!   [`Scheduler::set_weight`] change a page's host and weight;
//! * [`Scheduler::observe`] records a download at a cycle that did or did not find the
//!   page changed ([`Policy::visit`]);
//! * [`Scheduler::next_batch`] returns the `k` best-scoring pages for a cycle, best first;
//!   [`Scheduler::next_batch_capped`] also keeps at most `m` pages of one host per batch;
//!   [`Scheduler::next_batch_sampled`] draws the `k` pages instead;
//! * [`Scheduler::save`] / [`Scheduler::load`] keep the state across restarts ([`state`]);
//! * [`log`] reads observation logs (`page<TAB>cycle<TAB>0|1[<TAB>host[<TAB>weight]]`);
//! * [`sql`] writes the batch as one SQL query over a table of those observations, for
//!   crawlers whose history lives in a warehouse (`freshgp schedule --emit-sql`).
//!
//! ```
//! use freshgp_formula::formula::{Closure, Formula};
//! use freshgp_schedule::schedule::Scheduler;
//! use freshgp_policy::policy::Policy;
//!
//! let formula: Formula = "X / n * t".parse()?;
//! let mut s: Scheduler = Scheduler::new(Policy::formula(&formula, Closure::Paper));
//! for page in ["a", "b", "c"] {
//!     s.add(page.to_string())?;
//! }
//! // Cycle 1: every page downloaded; only b had changed.
//! s.observe("a", 1, false)?;
//! s.observe("b", 1, true)?;
//! s.observe("c", 1, false)?;
//! assert_eq!(s.next_batch(2, 1)?, ["b"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Semantics
//!
//! * **Cycles** are the crawler's, numbered from 1 and growing. A page's observations must
//!   come at increasing cycles; a batch for cycle `d` ranks the state as it is, with
//!   `t = d - last_visit`, and `d` must be after every observation so far (the batch of a
//!   cycle is decided before its downloads). A page added but never observed has
//!   `last_visit = 0`, so its age is the cycle number itself (as in the simulation,
//!   where every page starts at 0).
//! * **Ranking** is the simulation's (docs/src/reference/simulation.md#the-tie-rule):
//!   descending score, NaN last, equal scores in the seeded pseudo-random order of (seed,
//!   cycle) applied to the page's *slot* — the dense index it got when added (0, 1, 2, ...
//!   in insertion order). Added in a dataset's order and fed the simulation's visits, a
//!   scheduler returns exactly the pages the simulation visits each cycle, in the same
//!   order (tested on a real file).
//! * **Removal** leaves a hole: the other pages keep their slots (so their tie order is
//!   unchanged), and the next page added takes the most recently freed slot.
//! * **Tracked statistics** are kept as the simulation keeps them, for the terminals the
//!   policy reads ([`Policy::fresh_page_of`], [`Track`]): every page has a **weight**
//!   (default 1; finite and >= 0, else [`ScheduleError::Weight`]), held in its statistics
//!   when the policy reads `w` (a new weight moves the page to the group of its new state),
//!   and kept by the scheduler (and its state file) whatever the policy. **`HR`** reads the
//!   Σ X / Σ n of the page's host over the host's *current* pages ([`Surroundings`], kept for
//!   every policy): adding, observing, removing a page or moving it to another host
//!   ([`Scheduler::set_host`]) updates the totals of the hosts concerned; a page without a
//!   host is its own host. When the policy reads `HR`, a page's statistics hold its host
//!   (the scheduler's host index), so pages are grouped per host. `n7`, `X7` and `MLE` need
//!   only [`Scheduler::observe`] (through [`Policy::visit`] with the scheduler's
//!   [`Histories`]).
//! * **Host cap** ([`Scheduler::next_batch_capped`]): walking the ranking best first, a page
//!   whose host already has `m` pages in the batch is skipped and the next-ranked pages
//!   (of other hosts) fill its place; pages without a host are never capped. If the cap
//!   leaves too few eligible pages, the batch is shorter than `k`.
//! * **Sampled batches** ([`Scheduler::next_batch_sampled`]) are the simulation's sampled
//!   decision ([`crate::sim::Decision::Sample`],
//!   docs/src/reference/simulation.md#sampled-decisions): exactly `k` pages drawn by
//!   systematic sampling in slot order with inclusion probabilities from the scores (a rate
//!   policy's rate ρ), the uniform drawn from (seed, cycle). The scheduler's seed is the
//!   run seed: fed the simulation's visits, it draws the simulation's pages. Each page's
//!   inclusion probability comes with it ([`Pick::probability`]), for estimates that weigh
//!   a visited page by 1/π. A host cap is refused with sampling, as in the simulation.
//!
//! ## Speed
//!
//! Statistics are interned: pages with equal [`PageStats`] share a group, so a batch
//! scores each distinct statistics once (the compiled formula over columns). It then
//! finds the score threshold of rank `k` from the sizes of the `k` best groups (selected
//! in linear time, then sorted), gathers with one pass over
//! the pages those strictly above it and those tied at it, selects among the tied ones by
//! tie key (`select_nth_unstable`, linear) and sorts only the `k` chosen:
//! O(P + G + k log k) for P pages and G distinct statistics. With a host cap, if
//! the first `k` ranks do not fill the batch the prefix considered doubles until it does.
//!
//! **Invariant:** this layer uses `formula`, `eval`, `policy` and `sim` (the terminals,
//! scores and ranking keys are the simulation's own); nothing below it uses it.
//!
//! The parts: `scheduler.rs` ([`Scheduler`], [`Pick`]), `pages.rs` (the page set and
//! observations), `batch.rs` (batches), `attributes.rs`, `groups.rs`, `bandit.rs`,
//! `saved.rs`, [`state`], `compact.rs` and `legacy.rs` (state files), `ids.rs` (page ids,
//! decoded when first looked up), [`log`], [`sql`], `lock.rs`, `error.rs`.
//!
//! [`PageStats`]: crate::policy::PageStats
//! [`PageState`]: crate::policy::PageState
//! [`Policy`]: crate::policy::Policy
//! [`Policy::visit`]: crate::policy::Policy::visit
//! [`Policy::fresh_page_of`]: crate::policy::Policy::fresh_page_of
//! [`Track`]: crate::policy::Track
//! [`Surroundings`]: crate::policy::Surroundings
//! [`Histories`]: crate::policy::Histories

mod attributes;
mod bandit;
mod batch;
mod compact;
mod error;
mod groups;
mod ids;
mod legacy;
mod lock;
pub mod log;
mod open;
mod pages;
mod saved;
mod scheduler;
pub mod sql;
pub mod state;

pub use error::ScheduleError;
pub use lock::{LockError, StateLock};
pub use open::{OpenError, Opening};
pub use scheduler::{checked_text, PageId, Pick, Scheduler};
pub use state::StateError;

#[cfg(test)]
mod tests;
