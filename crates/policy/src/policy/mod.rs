//! The policy layer: crawl policies, the one thing the simulators, the scheduler,
//! experiments and reports run. It knows nothing of the simulators.
//!
//! A [`Policy`] scores every page at cycle `d` from what the crawl knows at the end of
//! cycle `d - 1` (docs/src/reference/policies.md); the simulation visits the best-scored
//! `k`. A policy is a [`Scorer`], which scores pages itself, or a bandit over scorers
//! ([`Exp3`]), each cycle of which the arm a run draws scores: the type says which, and
//! no method of either fails by kind. Every policy
//!
//! - **declares the page features it reads** ([`Policy::features`]): the simulators and
//!   the scheduler compute only those terminals (a formula's or a model's as columns);
//! - **may keep per-page memory of its own** ([`PageState::memory`]), which every visit
//!   updates, warm-up visits included ([`Policy::visit`]); pages of equal statistics *and*
//!   equal memory are still scored once.
//!
//! Every scorer **scores a batch of page states** into the caller's buffer
//! ([`Scorer::score_into`]), or one page at a time ([`Scorer::score_one`]), with the same
//! result bit for bit.
//!
//! The kinds: an evolved [`Formula`](crate::formula::Formula) (compiled once, when the
//! policy is built), a GP4C [`Baseline`] (docs/src/reference/policies.md#baselines), and
//! the policies of the literature: the rate policies ([`RatePolicy`]: `uniform`, `change`,
//! `weight`, `lambda`, `lambda-harmonic`), the crawl value (`value`) and the adaptive
//! revisit intervals of open-source crawlers ([`Adaptive`]: `nutch`, `stormcrawler`,
//! `adaptive(..)`); a learned model ([`Predictor`]) and an EXP3 bandit over policies
//! ([`Exp3`]); and the `oracle`, which reads what no crawler knows, a synthetic page's
//! latent change probability ([`oracle_score`]).
//!
//! A rate policy's scores depend on every page through one number solved per cycle, so
//! scores are computed in a [`ScoreContext`] that [`Scorer::context`] makes from the
//! cycle's whole population (pages of equal state once, with their number); for every
//! other policy the context is just the cycle and the host totals.
//!
//! A policy is written as text ([`Policy::parse`], its `Display`) and serialized as its
//! description (`PolicySpec`); deserializing checks it and compiles it, so a `Policy`
//! can never hold an unchecked formula or interval.
//!
//! ```
//! use freshgp_formula::formula::Grammar;
//! use freshgp_policy::policy::{Histories, Surroundings, Policy, ScoreBuffers, ScoreContext};
//!
//! let all = Grammar::all();
//! let nad = Policy::parse("NAD", &all)?;
//! let evolved = Policy::parse("X / n * t", &all)?;
//! let nutch = Policy::parse("nutch", &all)?;
//! assert_eq!(evolved.to_string(), "X / n * t");
//! let kab3 = Policy::parse("kab3", &all)?;
//! assert!(kab3.scorer().is_none()); // a bandit: its arms score
//! let scorer = |p: &Policy| p.scorer().cloned().ok_or("a bandit");
//! let (nad, evolved, nutch_scores) = (scorer(&nad)?, scorer(&evolved)?, scorer(&nutch)?);
//!
//! // A page seen at cycles 1 and 2, changed at 2; scored at cycle 4.
//! let (mut histories, hosts) = (Histories::default(), Surroundings::default());
//! let mut page = nutch.fresh_page();
//! nutch.visit(&mut page, 1, false, &mut histories);
//! nutch.visit(&mut page, 2, true, &mut histories);
//! assert_eq!(page.memory, 30.0 * 1.4 * 0.8); // the interval grew, then shrank
//! let at_4 = ScoreContext::at(4, &hosts);
//! assert_eq!(nutch_scores.score_one(&page, &at_4), 2.0 / (30.0 * 1.4 * 0.8)); // t / interval
//! assert_eq!(evolved.score_one(&page, &at_4), 1.0); // X / n * t = 1 / 2 * 2
//! assert!(nad.score_one(&page, &at_4) > 0.0);
//!
//! // A rate policy solves its rates over the cycle's population first: here 3 copies
//! // of `page`, 1 crawl a cycle, so each is owed a third of a crawl per cycle.
//! let uniform = scorer(&Policy::parse("uniform", &all)?)?;
//! let mut buffers = ScoreBuffers::default();
//! let context = uniform.context(4, 1, &hosts, [(&page, 3)], &mut buffers);
//! assert_eq!(uniform.score_one(&page, &context), 2.0 / 3.0); // ρ · t
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Where each part lives (each file uses only those listed before it, and none uses
//! `crate::sim`):
//!
//! - `history.rs`: the interned multisets of change-detecting visit intervals and the MLE
//!   solver ([`Histories`]);
//! - `stats.rs`: a page's statistics and every terminal's value ([`PageStats`],
//!   [`Surroundings`], [`Track`]);
//! - `features.rs`: the set of terminals a policy reads ([`Features`]);
//! - `memory.rs`: what a rate policy's solve keeps between cycles ([`SolveMemory`]);
//! - `rates.rs`: the rate policies' mathematics ([`RatePolicy`], [`crawl_value`]);
//! - `oracle.rs`: the oracle's score from a page's latent change probability
//!   ([`oracle_score`]);
//! - `baseline.rs`, `adaptive.rs`: the published baselines and the adaptive intervals;
//! - `predictor.rs`: a learned model bound to a page's statistics ([`Predictor`]);
//! - `bandit.rs`: EXP3 over arms of any kind ([`Exp3`], [`Exp3State`]);
//! - `state.rs`: a page's state under a policy, with its per-page memory ([`PageState`]);
//! - `context.rs`: what a cycle's scores depend on besides each page ([`ScoreContext`])
//!   and the space scoring reuses ([`ScoreBuffers`]);
//! - `kind.rs`: [`Policy`] itself (a [`Scorer`] or a bandit over scorers) and every kind of
//!   scorer in one place: what it reads, its name and text, its per-page memory
//!   ([`Policy::fresh_page`], [`Policy::visit`]) and its score of one page
//!   ([`PolicyError`]);
//! - `score.rs`: scoring pages, one or a batch, in a cycle's context ([`Scorer::context`]);
//! - `files.rs`: policy and model files, relative to a study file while one is read;
//! - `text.rs`: policies (and bandits) as text ([`Policy::parse`], `Display`);
//! - `spec.rs`: policies in files (`PolicySpec`; JSON, RON, binary).

mod adaptive;
mod bandit;
mod baseline;
mod context;
mod features;
mod files;
mod history;
mod kind;
mod memory;
mod oracle;
mod predictor;
mod rates;
mod score;
mod seeds;
mod spec;
mod state;
mod stats;
mod text;

pub use adaptive::{Adaptive, AdaptiveError, RawAdaptive};
pub use bandit::{
    draw_arm, Arm, BanditError, Exp3, Exp3State, Forget, Learning, Rate, Reward, DEFAULT_GAMMA,
    PRESETS as BANDIT_PRESETS,
};
pub use baseline::Baseline;
pub use context::{ScoreBuffers, ScoreContext};
pub use features::Features;
pub use files::with_policy_files_in;
pub use history::{Histories, SetId};
pub use kind::{FormulaPolicy, Policy, PolicyError, Scorer};
pub use memory::SolveMemory;
pub use oracle::oracle_score;
pub use predictor::{GroupingError, ModelUseError, Predictor, MAX_INPUTS};
pub use rates::{crawl_value, RateInput, RatePolicy, Rates, SolvePage};
pub use score::eval_inputs;
pub use seeds::{literature_formulas, literature_seeds, LiteratureFormula};
pub use state::PageState;
pub use state::StateKey;
pub use stats::{PageStats, Surroundings, Track, MAX_WINDOW, NO_GROUP, NO_HOST};

#[cfg(test)]
mod tests;
