//! How a scorer scores pages: one page ([`Scorer::score_one`]) or a batch into the
//! caller's buffer ([`Scorer::score_into`]), bit for bit alike, in a cycle's
//! [`ScoreContext`] ([`Scorer::context`]: a rate policy solves its rates there), in
//! caller-owned [`ScoreBuffers`]; each kind's score of one page is
//! [`Scorer::score_page`] (`kind.rs`). A batch scores a formula or a model over columns of only
//! the terminals it reads; the other policies read their few terminals straight from each
//! page (LambdaCrawl its change probabilities from the solve's memory, which pages share).

use super::context::{memory_kind, rate_input};
use super::memory::change_probability;
use super::{Features, PageState, RatePolicy, ScoreBuffers, ScoreContext, Scorer, Surroundings};
use crate::eval::{Columns, Split};
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
