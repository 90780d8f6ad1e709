//! The set of terminals a policy reads ([`Features`]): the simulators and the scheduler
//! compute only those columns, and a page keeps only the statistics they need.

use super::Track;
use crate::formula::Terminal;

/// A set of terminals: the page features a policy reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Features(u32);

impl Features {
    /// No feature (a policy that ranks by the tie-break alone).
    pub const NONE: Features = Features(0);

    /// The set of `terminals`.
    pub fn of(terminals: &[Terminal]) -> Features {
        terminals.iter().fold(Features::NONE, |set, &t| set.with(t))
    }

    /// This set and `terminal`.
    pub fn with(self, terminal: Terminal) -> Features {
        Features(self.0 | 1 << terminal.index())
    }

    /// The terminals of both sets.
    pub fn union(self, other: Features) -> Features {
        Features(self.0 | other.0)
    }

    /// Whether `terminal` is in the set.
    pub fn contains(self, terminal: Terminal) -> bool {
        self.0 & (1 << terminal.index()) != 0
    }

    /// The terminals in the set, in column order.
    pub fn iter(self) -> impl Iterator<Item = Terminal> {
        Terminal::ALL.into_iter().filter(move |&t| self.contains(t))
    }

    /// The tracked statistics ([`Track`]) a page must keep for these terminals to be read.
    pub fn track(self) -> Track {
        self.iter()
            .fold(Track::NONE, |track, t| track.with(Track::of(t)))
    }
}
