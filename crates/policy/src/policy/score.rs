//! How a policy scores pages: one page ([`Scorer::score_one`]) or a batch into the
//! caller's buffer ([`Scorer::score_into`]), bit for bit alike, in a cycle's
//! [`ScoreContext`] (the cycle, the host totals, a rate policy's solved rates), in
//! caller-owned [`ScoreBuffers`]. A batch scores a formula or a model over columns of only
//! the terminals it reads; the other policies read their few terminals straight from each
//! page (LambdaCrawl its change probabilities from the solve's memory, which pages share).

use super::memory::change_probability;
use super::Surroundings;
use super::{crawl_value, oracle_score, Features, PageState, RateInput, RatePolicy, Scorer};
use super::{Rates, SolveMemory, SolvePage};
use crate::eval::{Columns, Scratch, Split};
use crate::formula::Terminal;

/// Evaluates the state inputs of `split` ([`Split::state`]: the subtrees of a formula
/// that read only terminals of a page's state) for each of `states` at cycle `d`, into
/// `out` (one vector per input, one value per state; bit for bit what the whole formula
/// computes there).
pub fn eval_inputs(
    split: &Split,
    states: &[PageState],
    (d, hosts): (u32, &Surroundings),
    out: &mut Vec<Vec<f64>>,
    buffers: &mut ScoreBuffers,
) {
    let read = (split.state().iter())
        .flat_map(|p| p.terminals().iter().copied())
        .fold(Features::of(&[]), |f, t| f.with(t));
    for t in read.iter() {
        let column = &mut buffers.columns[t.index()];
        column.clear();
        extend_column(column, t, states, d, hosts);
    }
    out.resize_with(split.state().len(), Vec::new);
    for (program, values) in split.state().iter().zip(out.iter_mut()) {
        let columns = (program.terminals().iter()).fold(Columns::new(states.len()), |c, &t| {
            c.with(t, &buffers.columns[t.index()])
        });
        values.resize(states.len(), 0.0);
        program.eval_batch(&columns, values, &mut buffers.scratch);
    }
}

/// Page states per chunk of [`Scorer::score_into`]'s columns (about 48 KiB of states).
const COLUMN_CHUNK: usize = 512;

/// Appends terminal `t` of each of `pages` at cycle `d` to `column`: one loop per
/// terminal, in which [`PageStats::terminal`](super::PageStats::terminal) (always
/// inlined) reads its constant terminal without a match.
fn extend_column(
    column: &mut Vec<f64>,
    t: Terminal,
    pages: &[PageState],
    d: u32,
    hosts: &Surroundings,
) {
    macro_rules! per_terminal {
        ($($name:ident)*) => {
            match t {
                $(Terminal::$name => column.extend(
                    pages.iter().map(|p| p.stats.terminal(Terminal::$name, d, hosts)),
                ),)*
            }
        };
    }
    freshgp_formula::with_each_terminal!(per_terminal);
}

/// What a rate policy reads of a page, from its terminal values: `μ = w` and `Δ = MLE`
/// when it reads them (1 and 0 otherwise, never read).
#[inline]
fn rate_input(policy: RatePolicy, value: impl Fn(Terminal) -> f64) -> RateInput {
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
    cycle: u32,
    hosts: &'a Surroundings,
    rates: Option<Rates>,
    /// Whether a sampled decision reads the scores (rate policies score ρ:
    /// docs/src/reference/simulation.md#sampled-decisions).
    sampling: bool,
}

impl<'a> ScoreContext<'a> {
    /// The context at `cycle` for a policy whose scores do not depend on the population
    /// ([`Scorer::needs_population`] is false; a rate policy needs [`Scorer::context`]).
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

/// Reusable space for [`Scorer::context`] and [`Scorer::score_into`]: the terminal
/// columns, the evaluator's scratch and a rate policy's λ solve.
#[derive(Debug, Default, Clone)]
pub struct ScoreBuffers {
    columns: [Vec<f64>; Terminal::COUNT],
    scratch: Scratch,
    solve: Vec<SolvePage>,
    /// The last solve's pages, for the next cycle's: one memory for each kind of input a
    /// rate policy reads ([`memory_kind`]), so that a bandit whose arms read
    /// different inputs keeps each memory up to date between the cycles its arms draw.
    memories: [SolveMemory; 3],
}

/// Which of [`ScoreBuffers`]' memories the solves of `policy` keep: that of importance
/// and change rate (`lambda`, `lambda-harmonic`), of importance alone (`weight`), or of
/// change rate alone (`change`; `uniform` reads nothing and leaves its memory alone).
fn memory_kind(policy: RatePolicy) -> usize {
    match (policy.reads_importance(), policy.reads_change_rate()) {
        (true, true) => 0,
        (true, false) => 1,
        (false, _) => 2,
    }
}

impl Scorer {
    /// The context in which pages are scored at cycle `cycle`, with `k` crawls to spend
    /// and the host totals `hosts` (for `HR`). A rate policy solves its rates here over
    /// `population`, the cycle's pages as (state, number of pages in that state), in the
    /// caller-owned `buffers`; other policies do not read it.
    pub fn context<'a, 'p>(
        &self,
        cycle: u32,
        k: usize,
        hosts: &'a Surroundings,
        population: impl IntoIterator<Item = (&'p PageState, u32)>,
        buffers: &mut ScoreBuffers,
    ) -> ScoreContext<'a> {
        let rates = match self {
            Scorer::Rate(r) => Some(r.solve_remembering(
                population.into_iter().map(|(page, count)| {
                    (
                        rate_input(*r, |t| page.stats.terminal(t, cycle, hosts)),
                        count,
                    )
                }),
                k,
                &mut buffers.solve,
                &mut buffers.memories[memory_kind(*r)],
            )),
            _ => None,
        };
        ScoreContext {
            cycle,
            hosts,
            rates,
            sampling: false,
        }
    }

    /// The score of one page in `context`.
    pub fn score_one(&self, page: &PageState, context: &ScoreContext<'_>) -> f64 {
        let (d, hosts) = (context.cycle, context.hosts);
        match self {
            Scorer::Formula(f) => {
                let mut values = page.stats.terminals(d, hosts);
                if let Some(m) = &f.model {
                    values[Terminal::P.index()] = m.predict(&page.stats, d, hosts);
                }
                f.program.eval_one(&values)
            }
            Scorer::Model(m) => m.predict(&page.stats, d, hosts),
            _ => self.score_page(
                page,
                context,
                |t| page.stats.terminal(t, d, hosts),
                change_probability,
            ),
        }
    }

    /// The score of a page from the values of the terminals it reads (a rate policy's
    /// change probabilities from `probability`, which gives what [`change_probability`]
    /// gives). A formula's arm evaluates it from those values alone; [`Scorer::score_one`]
    /// and [`Scorer::score_into`] evaluate formulas themselves (with their model's `P`),
    /// over every terminal or over columns.
    #[inline]
    fn score_page(
        &self,
        page: &PageState,
        context: &ScoreContext<'_>,
        value: impl Fn(Terminal) -> f64,
        probability: impl FnOnce(f64) -> (f64, f64),
    ) -> f64 {
        match self {
            Scorer::Formula(f) => {
                let mut values = [0.0; Terminal::COUNT];
                for t in f.program.terminals() {
                    values[t.index()] = value(*t);
                }
                f.program.eval_one(&values)
            }
            Scorer::Model(_) => value(Terminal::P),
            Scorer::Baseline(b) => b.score(value),
            Scorer::Adaptive(_) => value(Terminal::T) / page.memory,
            Scorer::Rate(r) => {
                // Invariant: `Scorer::context` solves the rates of every rate policy, and
                // `ScoreContext::at` documents that it serves only the others.
                let rates = context
                    .rates
                    .as_ref()
                    .expect("invariant: a rate policy is scored in the context of its cycle");
                if context.sampling {
                    r.rate_by(rate_input(*r, &value), rates, probability)
                } else {
                    r.owed_by(
                        rate_input(*r, &value),
                        rates,
                        value(Terminal::T),
                        probability,
                    )
                }
            }
            Scorer::Value => {
                crawl_value(value(Terminal::W), value(Terminal::MLE), value(Terminal::T))
            }
            Scorer::Oracle => {
                oracle_score(value(Terminal::W), page.stats.latent(), value(Terminal::T))
            }
        }
    }

    /// Scores `pages` in `context` into `out` (one score per page, bit for bit
    /// [`Scorer::score_one`]) in the caller-owned `buffers`: a formula or a model over
    /// columns of only the terminals it reads, the others page by page.
    pub fn score_into(
        &self,
        pages: &[PageState],
        context: &ScoreContext<'_>,
        out: &mut [f64],
        buffers: &mut ScoreBuffers,
    ) {
        let out = &mut out[..pages.len()];
        let (d, hosts) = (context.cycle, context.hosts);
        if !matches!(self, Scorer::Formula(_) | Scorer::Model(_)) {
            // A few terminals, each read once: straight from the page, without columns.
            if let Scorer::Rate(RatePolicy::Lambda) = self {
                // LambdaCrawl's rates read the change probabilities, which pages share.
                let memory = &mut buffers.memories[memory_kind(RatePolicy::Lambda)];
                let probabilities = &mut memory.probabilities;
                for (o, page) in out.iter_mut().zip(pages) {
                    *o = self.score_page(
                        page,
                        context,
                        |t| page.stats.terminal(t, d, hosts),
                        |delta| probabilities.get(delta),
                    );
                }
            } else {
                for (o, page) in out.iter_mut().zip(pages) {
                    *o = self.score_page(
                        page,
                        context,
                        |t| page.stats.terminal(t, d, hosts),
                        change_probability,
                    );
                }
            }
            return;
        }
        let features = self.features();
        for t in features.iter() {
            buffers.columns[t.index()].clear();
        }
        // A chunk of page states at a time, so that the columns read it from the cache.
        for chunk in pages.chunks(COLUMN_CHUNK) {
            for t in features.iter() {
                let column = &mut buffers.columns[t.index()];
                match (t, self.learned()) {
                    (Terminal::P, Some(m)) => {
                        column.extend(chunk.iter().map(|p| m.predict(&p.stats, d, hosts)))
                    }
                    _ => extend_column(column, t, chunk, d, hosts),
                }
            }
        }
        let column = |t: Terminal| &buffers.columns[t.index()][..];
        match self {
            Scorer::Formula(f) => {
                let columns = features
                    .iter()
                    .fold(Columns::new(pages.len()), |c, t| c.with(t, column(t)));
                f.program.eval_batch(&columns, out, &mut buffers.scratch);
            }
            // A model, whose `P` column holds its predictions.
            _ => {
                for (i, (o, page)) in out.iter_mut().zip(pages).enumerate() {
                    *o = self.score_page(page, context, |t| column(t)[i], change_probability);
                }
            }
        }
    }
}
