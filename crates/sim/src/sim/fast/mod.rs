//! The fast simulator: pages with equal statistics are scored once.
//!
//! A page's score depends only on its [`PageStats`] and the cycle, and pages change
//! statistics only when visited (k per cycle). Most pages share statistics with many
//! others (every page never visited since the warm-up with the same warm-up history, for
//! instance), so the simulator keeps pages in *groups* of equal statistics, and per cycle:
//!
//! 1. marks the pages that changed this cycle stale (only the cycle's change events);
//! 2. scores each live group once, with the compiled formula over columns of group
//!    statistics (G groups instead of P pages);
//! 3. sorts the groups by score (an uncapped top-k walk over many groups: only the
//!    groups down to the k-th's score, after a linear selection) and walks them best
//!    first, gathering pages until k are taken. Equal-score groups form one class whose pages are ordered by the seeded tie
//!    key; only the class that straddles rank k needs a selection among its pages
//!    (`select_nth_unstable`, linear; or, when the period's [`TieOrder`] is at hand and
//!    the class is large, a walk along the cycle's tie order that stops after the first
//!    pages of the class), and a class is ranked inside only when DCG needs the ranks of
//!    its stale pages (the fewer of its stale and fresh pages sorted, the others counted
//!    between them; a run that tallies weights sorts the stale ones, whose weights it
//!    adds in rank order);
//! 4. visits the chosen pages. A group chosen whole (most are: only the class that
//!    straddles rank k is taken in part) is visited as a group: its pages split by
//!    whether they changed, the larger part keeps the group under its new statistics,
//!    and only the other part moves, page by page. Pages of a group chosen in part move
//!    one by one to the group of their new statistics.
//!
//! The cost per cycle is O(changes + G log G + k log k + size of the straddling class)
//! (G + k log k for the uncapped top-k walk over more than 4k groups),
//! at most O(P) and usually far less; nothing is allocated per cycle once the buffers
//! have grown. Over a [`Prepared`](super::Prepared) period a run skips the warm-up: it
//! starts from a copy of the state the warm-up leaves ([`Warm`]), the same for every
//! policy without memory. The result is bit for bit the reference simulator's (tested).
//!
//! A run whose pages would hardly share a group (a top-k decision by a policy that reads
//! continuous weights) goes to the per-page simulator instead ([`Flat`]).
//!
//! The parts: `groups.rs` (the simulator's state: pages in groups of equal state, the
//! warm-up), `visit.rs` (step 4), `choose.rs` (step 3, a cycle's walk) and `run.rs` (a run,
//! cycle by cycle: steps 1 to 4 and the tally; step 2).

mod choose;
mod groups;
mod run;
mod visit;

pub(crate) use groups::{Fast, Warm};
