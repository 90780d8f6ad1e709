//! The set of terminals a policy reads ([`Features`]): the simulators and the scheduler
//! compute only those columns, and a page keeps only the statistics they need.

use super::Track;
use crate::formula::Terminal;

/// A set of terminals: the page features a policy reads; and whether it reads the page's
/// latent change probability, which no terminal does (the `oracle`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Features(u32);

/// The bit of [`Features::with_latent`], above every terminal's.
const LATENT: u32 = 1 << 31;

impl Features {
    /// No feature (a policy that ranks by the tie-break alone).
    pub const NONE: Features = Features(0);

    /// This set, and the page's latent change probability (no terminal: the oracle's).
    pub const fn with_latent(self) -> Features {
        Features(self.0 | LATENT)
    }

    /// Whether the page's latent change probability is read.
    pub const fn reads_latent(self) -> bool {
        self.0 & LATENT != 0
    }

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
        let latent = if self.reads_latent() {
            Track::LATENT
        } else {
            Track::NONE
        };
        self.iter()
            .fold(latent, |track, t| track.with(Track::of(t)))
    }
}
