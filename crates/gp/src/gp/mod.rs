//! The genetic programming engine: evolves formulas for any [`Fitness`].
//!
//! One run ([`evolve`]) creates a ramped half-and-half population, then for each generation
//! keeps the best individual (elitism) and fills the other slots by tournament selection,
//! subtree crossover, reproduction, swap and replacement mutation ([`GpConfig`] holds the
//! probabilities; docs/src/reference/gp.md#defaults gives the defaults). Operators are
//! slice splices on the postfix arena (`operators.rs`).
//!
//! Fitness is cached on each individual's canonical form ([`Formula::canonical`]): an
//! individual equal to one already evaluated is not evaluated again. The uncached
//! individuals of a generation are evaluated in parallel (rayon).
//!
//! **Determinism:** every offspring slot draws from its own random stream, derived from
//! (seed, generation, slot), and evaluations are gathered in slot order, so a run's
//! result is bit-identical whatever the number of threads.
//!
//! After the run, the [`keep_best`](RawGpConfig::keep_best) best distinct individuals of
//! all generations are kept ([`Evolution::hall_of_fame`]); `choose` picks the final
//! function from them by Best, Sum_σ or Avg_σ (de Almeida et al. 2007).
//!
//! With [`Selection::Nsga2`] the search weighs size against fitness as NSGA-II does (Deb
//! et al. 2002, [`pareto`]): tournaments compare non-dominated fronts of (fitness, size),
//! then crowding distance, and the next population is the best `population` of parents and
//! offspring together, so small formulas survive beside fit ones.
//!
//! The first slots of the initial population hold the [seed
//! formulas](RawGpConfig::seed_formulas), so a run (with elitism) ends at least as fit as
//! the fittest of them. A [`ConstantSearch`] tunes the numeric constants of the best
//! individuals: of the hall of fame once the run ends (the fitter formulas join it), and of
//! the population every `every` generations (they replace its worst individuals).
//!
//! **Invariant:** the engine knows a fitness only through the [`Fitness`] trait: nothing
//! here knows of crawling, datasets or the CLI.

mod config;
mod constants;
mod create;
mod distill;
mod lexicase;
mod operators;
pub mod pareto;
mod select;

pub use config::{
    ConfigError, DepthPolicy, GpConfig, GpFileError, Protocol, RawGpConfig, Selection,
    MAX_POPULATION,
};
pub use constants::{tune, ConstantSearch, Tuned};
pub(crate) use create::Primitives;
pub use distill::Distiller;
pub(crate) use operators::{crossover, replacement_mutation, swap_mutation};
pub use select::Strategy;
pub use select::{admissible, best_seed, choose, choose_admissible, choose_parsimonious};
pub use select::{front, Candidate};

use crate::formula::{Formula, Grammar};
use crate::hash::mix64;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use std::cmp::Ordering;
use std::convert::Infallible;
use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a fitness function says of a formula.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    /// The fitness: higher is better.
    pub value: f64,
    /// The per-case values it is the mean of (per simulated cycle, for the crawl), used
    /// by the Sum_σ and Avg_σ selections.
    pub cases: Vec<f64>,
}

impl Evaluation {
    /// The fitness: higher is better.
    pub fn value(&self) -> f64 {
        self.value
    }
}

/// A fitness function. Implementations must be deterministic: the same formula gives
/// the same evaluation, on any thread.
pub trait Fitness: Sync {
    /// Per-thread working space (reused across evaluations).
    type Scratch: Send;

    /// Fresh working space.
    fn scratch(&self) -> Self::Scratch;

    /// Evaluates `formula`.
    fn evaluate(&self, formula: &Formula, scratch: &mut Self::Scratch) -> Evaluation;

    /// Whether the fitness reads only the order a formula puts its inputs in (a top-k
    /// crawl's), so that every formula may be replaced by its rank form
    /// ([`Formula::rank_form`]): the engine then evaluates, caches, keeps and reports rank
    /// forms. False unless an implementation says otherwise.
    fn ranks_only(&self) -> bool {
        false
    }
}

/// Evaluates `formulas` in parallel, results in the same order.
pub fn evaluate_all<F: Fitness>(fitness: &F, formulas: &[Formula]) -> Vec<Evaluation> {
    evaluate_pooled(fitness, formulas, &Scratches::default())
}

/// [`evaluate_all`] with working spaces taken from (and given back to) `pool`.
fn evaluate_pooled<F: Fitness>(
    fitness: &F,
    formulas: &[Formula],
    pool: &Scratches<F::Scratch>,
) -> Vec<Evaluation> {
    formulas
        .par_iter()
        .map_init(
            || pool.lend(|| fitness.scratch()),
            |lent, f| fitness.evaluate(f, lent.scratch()),
        )
        .collect()
}

/// Working spaces kept from one parallel evaluation to the next. Rayon starts a new
/// working space for every piece it splits a population into (about nine per
/// generation of the authors' workload, even on one thread), and a fresh simulator
/// allocates and grows its buffers again; a piece borrows one from here instead and
/// gives it back when done.
///
/// **Invariant:** a result never depends on which working space computed it ([`Fitness`]
/// implementations are deterministic), so lending them in any order is safe.
struct Scratches<S>(std::sync::Mutex<Vec<S>>);

impl<S> Default for Scratches<S> {
    fn default() -> Self {
        Scratches(std::sync::Mutex::new(Vec::new()))
    }
}

impl<S> Scratches<S> {
    /// A kept working space, or a new one from `fresh`.
    fn lend(&self, fresh: impl FnOnce() -> S) -> Lent<'_, S> {
        let kept = self.kept().pop();
        Lent {
            scratch: Some(kept.unwrap_or_else(fresh)),
            pool: self,
        }
    }

    /// The kept working spaces (a panic while they were locked loses nothing they hold).
    fn kept(&self) -> std::sync::MutexGuard<'_, Vec<S>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A working space on loan from [`Scratches`], given back when dropped.
struct Lent<'p, S> {
    /// `Some` until dropped.
    scratch: Option<S>,
    pool: &'p Scratches<S>,
}

impl<S> Lent<'_, S> {
    fn scratch(&mut self) -> &mut S {
        // Invariant: `scratch` is `Some` from `lend` until `drop`.
        self.scratch.as_mut().expect("lent until dropped")
    }
}

impl<S> Drop for Lent<'_, S> {
    fn drop(&mut self) {
        if let Some(scratch) = self.scratch.take() {
            self.pool.kept().push(scratch);
        }
    }
}

/// A member of a population.
#[derive(Debug, Clone)]
pub struct Individual {
    /// The formula as evolved.
    pub formula: Formula,
    /// Its canonical form (the cache key; equal for formulas that always agree), or its
    /// rank form when the fitness [ranks only](Fitness::ranks_only): what was evaluated.
    pub canonical: Formula,
    /// Its evaluation.
    pub evaluation: Arc<Evaluation>,
    /// Fitness minus the length penalty: what selection compares.
    pub(crate) adjusted: f64,
}

impl Individual {
    /// Better first: higher adjusted fitness, then fewer nodes, then canonical order.
    pub(crate) fn rank_cmp(&self, other: &Individual) -> Ordering {
        other
            .adjusted
            .total_cmp(&self.adjusted)
            .then(self.canonical.len().cmp(&other.canonical.len()))
            .then(self.canonical.cmp(&other.canonical))
    }
}

/// Progress of one generation.
#[derive(Debug, Clone)]
pub struct GenerationReport {
    /// 0 for the initial population.
    pub generation: usize,
    /// Generations in the run (after the initial one).
    pub generations: usize,
    /// Best fitness in the population.
    pub best: f64,
    /// Mean fitness of the population.
    pub mean: f64,
    /// The best individual's formula.
    pub best_formula: Formula,
    /// Fitness evaluations run in this generation.
    pub evaluated: usize,
    /// Individuals whose fitness came from the cache in this generation.
    pub cache_hits: usize,
    /// Time since the run started.
    pub elapsed: Duration,
}

/// The result of one run.
#[derive(Debug, Clone)]
pub struct Evolution {
    /// The best distinct individuals of all generations, best first.
    pub hall_of_fame: Vec<Individual>,
    /// The individuals of all generations no other beats on both size (nodes of the
    /// canonical form) and fitness, smallest first: the small formulas a choice may
    /// prefer, which the hall of fame, holding the fittest, seldom keeps.
    pub front: Vec<Individual>,
    /// The seed formulas as evaluated, in order: where the search started from.
    pub seeds: Vec<Individual>,
    /// One report per generation, the initial population first.
    pub generations: Vec<GenerationReport>,
    /// Fitness evaluations run.
    pub evaluations: usize,
    /// Individuals whose fitness came from the cache.
    pub cache_hits: usize,
}

impl Evolution {
    /// The best individual of the run.
    pub fn best(&self) -> &Individual {
        &self.hall_of_fame[0]
    }

    /// Fraction of individuals whose fitness came from the cache.
    pub fn cache_hit_rate(&self) -> f64 {
        let total = self.evaluations + self.cache_hits;
        if total == 0 {
            0.0
        } else {
            self.cache_hits as f64 / total as f64
        }
    }
}

/// The random stream of one offspring slot.
fn slot_rng(seed: u64, generation: usize, slot: usize) -> Pcg64 {
    let key = mix64(mix64(mix64(seed) ^ generation as u64) ^ slot as u64);
    Pcg64::seed_from_u64(key)
}

/// Caches evaluations on canonical forms (rank forms when the fitness
/// [ranks only](Fitness::ranks_only)) and evaluates the misses in parallel.
struct Evaluator<'f, F: Fitness> {
    fitness: &'f F,
    grammar_closure: crate::formula::Closure,
    /// Whether individuals stand for their rank forms.
    rank: bool,
    length_penalty: f64,
    cache: FxHashMap<Formula, Arc<Evaluation>>,
    scratches: Scratches<F::Scratch>,
    evaluations: usize,
    cache_hits: usize,
}

impl<F: Fitness> Evaluator<'_, F> {
    /// The form `formula` is evaluated and cached as: its rank form when the fitness ranks
    /// only, else its canonical form.
    fn key(&self, formula: &Formula) -> Formula {
        formula.search_key(self.grammar_closure, self.rank)
    }

    /// Evaluates a population; returns (evaluated, cache hits) for this call.
    fn population(&mut self, formulas: Vec<Formula>) -> (Vec<Individual>, usize, usize) {
        let canonical: Vec<Formula> = formulas.iter().map(|f| self.key(f)).collect();
        let mut seen = FxHashSet::default();
        let misses: Vec<Formula> = canonical
            .iter()
            .filter(|c| !self.cache.contains_key(*c) && seen.insert((*c).clone()))
            .cloned()
            .collect();
        let evaluated = misses.len();
        let results = evaluate_pooled(self.fitness, &misses, &self.scratches);
        for (f, e) in misses.into_iter().zip(results) {
            self.cache.insert(f, Arc::new(e));
        }
        let hits = formulas.len() - evaluated;
        self.evaluations += evaluated;
        self.cache_hits += hits;
        let individuals = formulas
            .into_iter()
            .zip(canonical)
            .map(|(formula, canonical)| {
                let evaluation = Arc::clone(&self.cache[&canonical]);
                self.individual(formula, canonical, evaluation)
            })
            .collect();
        (individuals, evaluated, hits)
    }

    /// An individual: its adjusted fitness is the fitness minus the length penalty.
    fn individual(
        &self,
        formula: Formula,
        canonical: Formula,
        evaluation: Arc<Evaluation>,
    ) -> Individual {
        let adjusted = evaluation.value - self.length_penalty * canonical.len() as f64;
        Individual {
            formula,
            canonical,
            evaluation,
            adjusted,
        }
    }

    /// Tunes the constants of `starts` ([`tune`], at most `budget` evaluations each, in
    /// parallel); the formulas that got fitter, as individuals, in the order of `starts`.
    /// When only rankings count, the constants tuned are those of the rank form: the
    /// scale and shift it strips change no ranking.
    fn tune(&mut self, starts: &[&Individual], budget: usize) -> Vec<Individual> {
        let fitness = self.fitness;
        let rank = self.rank;
        let tuned: Vec<Tuned> = starts
            .par_iter()
            .map_init(
                || self.scratches.lend(|| fitness.scratch()),
                |lent, i| {
                    let start = if rank { &i.canonical } else { &i.formula };
                    tune(fitness, start, &i.evaluation, lent.scratch(), budget)
                },
            )
            .collect();
        self.evaluations += tuned.iter().map(|t| t.spent).sum::<usize>();
        tuned
            .into_iter()
            .filter(|t| t.improved)
            .map(|t| {
                let canonical = self.key(&t.formula);
                let evaluation = Arc::clone(
                    self.cache
                        .entry(canonical.clone())
                        .or_insert_with(|| Arc::new(t.evaluation)),
                );
                self.individual(t.formula, canonical, evaluation)
            })
            .collect()
    }
}

/// The `n` best distinct individuals of `population`, best first.
fn best_distinct(population: &[Individual], n: usize) -> Vec<&Individual> {
    let mut ranked: Vec<&Individual> = population.iter().collect();
    ranked.sort_by(|a, b| a.rank_cmp(b));
    ranked.dedup_by(|a, b| a.canonical == b.canonical);
    ranked.truncate(n);
    ranked
}

/// Tunes the constants of the population's best individuals (every
/// [`ConstantSearch::every`] generations): the fitter formulas found replace the worst
/// individuals.
fn tune_population<F: Fitness>(
    evaluator: &mut Evaluator<'_, F>,
    population: &mut [Individual],
    search: ConstantSearch,
) {
    let tuned = evaluator.tune(
        &best_distinct(population, search.individuals),
        search.evaluations,
    );
    population.sort_by(|a, b| a.rank_cmp(b));
    let n = population.len();
    for (slot, individual) in (0..n).rev().zip(tuned) {
        population[slot] = individual;
    }
}

/// How parents are picked: what each selection reads of the population.
enum Picking {
    /// Tournaments on adjusted fitness.
    Tournament,
    /// Tournaments on each individual's NSGA-II standing.
    Nsga2(Vec<pareto::Rank>),
    /// ε-lexicase over the cases.
    Lexicase(lexicase::Lexicase),
}

/// The individuals offspring are bred from, with what their selection reads.
struct Parents<'p> {
    population: &'p [Individual],
    picking: Picking,
}

impl<'p> Parents<'p> {
    fn new(population: &'p [Individual], selection: Selection) -> Parents<'p> {
        let picking = match selection {
            Selection::Tournament => Picking::Tournament,
            Selection::Nsga2 => Picking::Nsga2(pareto::ranks(&points(population))),
            Selection::Lexicase => {
                let cases: Vec<&[f64]> =
                    population.iter().map(|i| &i.evaluation.cases[..]).collect();
                Picking::Lexicase(lexicase::Lexicase::new(&cases))
            }
        };
        Parents {
            population,
            picking,
        }
    }

    /// A parent: under ε-lexicase, one lexicase selection; otherwise the winner of a
    /// tournament of `size` drawn with replacement, the first drawn on a tie: the better
    /// adjusted fitness, then fewer nodes; or under NSGA-II the better front, then the
    /// larger crowding distance.
    fn tournament(&self, rng: &mut impl Rng, size: usize) -> &'p Individual {
        let population = self.population;
        let ranks = match &self.picking {
            Picking::Lexicase(lexicase) => {
                let i = lexicase.select(rng, |i| population[i].canonical.len());
                return &population[i];
            }
            Picking::Nsga2(ranks) => Some(ranks),
            Picking::Tournament => None,
        };
        let mut best = rng.gen_range(0..population.len());
        for _ in 1..size {
            let other = rng.gen_range(0..population.len());
            let better = match ranks {
                Some(ranks) => ranks[other].cmp_better(&ranks[best]) == Ordering::Less,
                None => {
                    let (o, b) = (&population[other], &population[best]);
                    o.adjusted
                        .total_cmp(&b.adjusted)
                        .then(b.canonical.len().cmp(&o.canonical.len()))
                        == Ordering::Greater
                }
            };
            if better {
                best = other;
            }
        }
        &population[best]
    }
}

/// Each individual's (fitness, size) point: its fitness and its canonical form's nodes.
fn points(population: &[Individual]) -> Vec<pareto::Point> {
    population
        .iter()
        .map(|i| pareto::Point {
            fitness: i.evaluation.value,
            size: i.canonical.len(),
        })
        .collect()
}

/// NSGA-II's environmental selection over the parents and their offspring together: the
/// `keep` survivors, in the order of `parents` then `children`.
fn survive(parents: Vec<Individual>, children: Vec<Individual>, keep: usize) -> Vec<Individual> {
    let mut all = parents;
    all.extend(children);
    let chosen = pareto::survivors(&points(&all), keep);
    let mut slots: Vec<Option<Individual>> = all.into_iter().map(Some).collect();
    chosen.into_iter().filter_map(|i| slots[i].take()).collect()
}

/// Evolves formulas over `grammar` for `fitness`; `observe` sees each generation.
pub fn evolve<F: Fitness>(
    config: &GpConfig,
    grammar: &Grammar,
    fitness: &F,
    seed: u64,
    mut observe: impl FnMut(&GenerationReport),
) -> Evolution {
    let Ok(evolution) = evolve_until(config, grammar, fitness, seed, |report| {
        observe(report);
        ControlFlow::<Infallible>::Continue(())
    });
    evolution
}

/// [`evolve`], which `observe` may stop after any generation by breaking with a value: the
/// run then ends there, without a result, and returns that value as its error (a run
/// stopped by Ctrl-C, for one).
///
/// # Errors
/// What `observe` broke with.
pub fn evolve_until<F: Fitness, B>(
    config: &GpConfig,
    grammar: &Grammar,
    fitness: &F,
    seed: u64,
    mut observe: impl FnMut(&GenerationReport) -> ControlFlow<B>,
) -> Result<Evolution, B> {
    let start = Instant::now();
    let primitives = Primitives::of(grammar);
    let mut evaluator = Evaluator {
        fitness,
        grammar_closure: grammar.closure(),
        rank: fitness.ranks_only(),
        length_penalty: config.length_penalty,
        cache: FxHashMap::default(),
        scratches: Scratches::default(),
        evaluations: 0,
        cache_hits: 0,
    };
    let initial: Vec<Formula> = (0..config.population)
        .map(|slot| {
            if let Some(f) = config.seed_formulas.get(slot) {
                return f.clone();
            }
            primitives.ramped(
                &mut slot_rng(seed, 0, slot),
                slot,
                (config.min_creation_depth, config.max_creation_depth),
                config.max_size.unwrap_or(usize::MAX),
            )
        })
        .collect();
    let (mut population, evaluated, hits) = evaluator.population(initial);
    let seeds = population[..config.seed_formulas.len().min(population.len())].to_vec();
    let mut hall: Vec<Individual> = Vec::new();
    let mut front: Vec<Individual> = Vec::new();
    let mut reports = Vec::new();
    for generation in 0..=config.generations {
        if generation > 0 {
            // Invariant: a checked GpConfig has a population of at least 1.
            let best = population
                .iter()
                .min_by(|a, b| a.rank_cmp(b))
                .expect("invariant: the population is not empty");
            let nsga = config.selection == Selection::Nsga2;
            let parents = Parents::new(&population, config.selection);
            let children: Vec<Formula> = (0..config.population)
                .map(|slot| {
                    // NSGA-II keeps the best through its survivors instead.
                    if slot == 0 && config.elitism && !nsga {
                        return best.formula.clone();
                    }
                    breed(config, &primitives, &parents, seed, generation, slot)
                })
                .collect();
            let (next, evaluated, hits) = evaluator.population(children);
            population = if nsga {
                survive(population, next, config.population)
            } else {
                next
            };
            let search = config.constants;
            if search.is_on() && search.every > 0 && generation % search.every == 0 {
                tune_population(&mut evaluator, &mut population, search);
            }
            let r = report(&population, generation, config, evaluated, hits, start);
            if let ControlFlow::Break(stop) = observe(&r) {
                return Err(stop);
            }
            reports.push(r);
        } else {
            let r = report(&population, 0, config, evaluated, hits, start);
            if let ControlFlow::Break(stop) = observe(&r) {
                return Err(stop);
            }
            reports.push(r);
        }
        update_hall(&mut hall, &population, config.keep_best);
        update_front(&mut front, &population);
    }
    if config.constants.is_on() {
        let starts = best_distinct(&hall, config.constants.individuals);
        let tuned = evaluator.tune(&starts, config.constants.evaluations);
        update_hall(&mut hall, &tuned, config.keep_best);
        update_front(&mut front, &tuned);
    }
    Ok(Evolution {
        hall_of_fame: hall,
        front,
        seeds,
        generations: reports,
        evaluations: evaluator.evaluations,
        cache_hits: evaluator.cache_hits,
    })
}

/// One offspring, from its slot's own random stream.
fn breed(
    config: &GpConfig,
    primitives: &Primitives,
    parents: &Parents<'_>,
    seed: u64,
    generation: usize,
    slot: usize,
) -> Formula {
    let rng = &mut slot_rng(seed, generation, slot);
    let limits = config.limits();
    let mut child = if rng.gen_bool(config.reproduction) {
        parents.tournament(rng, config.tournament).formula.clone()
    } else if rng.gen_bool(config.crossover) {
        let mother = parents.tournament(rng, config.tournament);
        let father = parents.tournament(rng, config.tournament);
        crossover(rng, &mother.formula, &father.formula, limits)
    } else {
        parents.tournament(rng, config.tournament).formula.clone()
    };
    if rng.gen_bool(config.swap_mutation) {
        child = swap_mutation(rng, &child, limits);
    }
    if rng.gen_bool(config.replacement_mutation) {
        child = replacement_mutation(rng, &child, primitives, config.mutation_depth, limits);
    }
    child
}

fn report(
    population: &[Individual],
    generation: usize,
    config: &GpConfig,
    evaluated: usize,
    cache_hits: usize,
    start: Instant,
) -> GenerationReport {
    // Invariant: a checked GpConfig has a population of at least 1.
    let best = population
        .iter()
        .min_by(|a, b| a.rank_cmp(b))
        .expect("invariant: the population is not empty");
    let mean = population.iter().map(|i| i.evaluation.value).sum::<f64>() / population.len() as f64;
    GenerationReport {
        generation,
        generations: config.generations,
        best: best.evaluation.value,
        mean,
        best_formula: best.formula.clone(),
        evaluated,
        cache_hits,
        elapsed: start.elapsed(),
    }
}

/// Merges `population` into `front`, the individuals no other beats on both fewer nodes of
/// the canonical form and higher fitness (one per size: the fittest, the earliest on a
/// tie), smallest first.
fn update_front(front: &mut Vec<Individual>, population: &[Individual]) {
    for individual in population {
        let size = individual.canonical.len();
        let fitness = individual.evaluation.value;
        let beaten = front.iter().any(|f| {
            let (s, v) = (f.canonical.len(), f.evaluation.value);
            s <= size && v >= fitness
        });
        if beaten {
            continue;
        }
        front.retain(|f| !(f.canonical.len() >= size && f.evaluation.value <= fitness));
        let at = front.partition_point(|f| f.canonical.len() < size);
        front.insert(at, individual.clone());
    }
}

/// Merges `population` into the hall of fame: the `keep` best distinct canonical forms.
fn update_hall(hall: &mut Vec<Individual>, population: &[Individual], keep: usize) {
    let mut present: FxHashSet<Formula> = hall.iter().map(|i| i.canonical.clone()).collect();
    for individual in population {
        if present.insert(individual.canonical.clone()) {
            hall.push(individual.clone());
        }
    }
    hall.sort_by(|a, b| a.rank_cmp(b));
    hall.truncate(keep);
}

#[cfg(test)]
mod tests;
