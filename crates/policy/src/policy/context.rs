//! What one cycle's scores depend on besides each page ([`ScoreContext`]: the cycle, the
//! host totals, a rate policy's solved rates), the caller-owned space scoring reuses
//! ([`ScoreBuffers`]), and what a rate policy reads of a page ([`rate_input`]).

use super::{RateInput, RatePolicy, Rates, SolveMemory, SolvePage, Surroundings};
use crate::eval::Scratch;
use crate::formula::Terminal;

/// What a rate policy reads of a page, from its terminal values: `μ = w` and `Δ = MLE`
/// when it reads them (1 and 0 otherwise, never read).
#[inline]
pub(super) fn rate_input(policy: RatePolicy, value: impl Fn(Terminal) -> f64) -> RateInput {
    RateInput::new(
        if policy.reads_importance() {
            value(Terminal::W)
        } else {
            1.0
        },
        if policy.reads_change_rate() {
            value(Terminal::MLE)
        } else {
            0.0
        },
    )
}

/// What one cycle's scores depend on besides each page: the cycle, the host totals `HR`
/// reads and, for a rate policy, the rates solved over the whole population.
#[derive(Debug, Clone, Copy)]
pub struct ScoreContext<'a> {
    pub(super) cycle: u32,
    pub(super) hosts: &'a Surroundings,
    pub(super) rates: Option<Rates>,
    /// Whether a sampled decision reads the scores (rate policies score ρ:
    /// docs/src/reference/simulation.md#sampled-decisions).
    pub(super) sampling: bool,
}

impl<'a> ScoreContext<'a> {
    /// The context at `cycle` for a policy whose scores do not depend on the population
    /// ([`Scorer::needs_population`] is false; a rate policy needs [`Scorer::context`]).
    ///
    /// [`Scorer::needs_population`]: super::Scorer::needs_population
    /// [`Scorer::context`]: super::Scorer::context
    pub fn at(cycle: u32, hosts: &'a Surroundings) -> ScoreContext<'a> {
        ScoreContext {
            cycle,
            hosts,
            rates: None,
            sampling: false,
        }
    }

    /// The same context for a sampled crawl decision
    /// (docs/src/reference/simulation.md#sampled-decisions): a rate policy then scores its
    /// rate ρ, the sampling weight, instead of `ρ · t`; other policies score as for top-k.
    pub fn sampled(mut self) -> ScoreContext<'a> {
        self.sampling = true;
        self
    }

    /// The cycle scored.
    pub fn cycle(&self) -> u32 {
        self.cycle
    }

    /// A rate policy's solution for the cycle.
    pub fn rates(&self) -> Option<Rates> {
        self.rates
    }
}

/// Reusable space for [`Scorer::context`](super::Scorer::context) and
/// [`Scorer::score_into`](super::Scorer::score_into): the terminal
/// columns, the evaluator's scratch and a rate policy's λ solve.
#[derive(Debug, Default, Clone)]
pub struct ScoreBuffers {
    pub(super) columns: [Vec<f64>; Terminal::COUNT],
    pub(super) scratch: Scratch,
    pub(super) solve: Vec<SolvePage>,
    /// The last solve's pages, for the next cycle's: one memory for each kind of input a
    /// rate policy reads ([`memory_kind`]), so that a bandit whose arms read
    /// different inputs keeps each memory up to date between the cycles its arms draw.
    pub(super) memories: [SolveMemory; 3],
}

/// Which of [`ScoreBuffers`]' memories the solves of `policy` keep: that of importance
/// and change rate (`lambda`, `lambda-harmonic`), of importance alone (`weight`), or of
/// change rate alone (`change`; `uniform` reads nothing and leaves its memory alone).
pub(super) fn memory_kind(policy: RatePolicy) -> usize {
    match (policy.reads_importance(), policy.reads_change_rate()) {
        (true, true) => 0,
        (true, false) => 1,
        (false, _) => 2,
    }
}
