//! Engine tests on a toy fitness (no crawling): find a formula close to a target.

use super::*;
use crate::eval::Program;
use crate::formula::Closure;

/// Fitness: how close the formula comes to `t * t + X` on a grid of points.
struct Target;

impl Fitness for Target {
    type Scratch = ();

    fn scratch(&self) {}

    fn evaluate(&self, formula: &Formula, _: &mut ()) -> Evaluation {
        let program = Program::compile(formula, Closure::Paper);
        let cases: Vec<f64> = (1..=10)
            .flat_map(|t| (0..3).map(move |x| (t as f64, x as f64)))
            .map(|(t, x)| {
                let mut v = [0.0; crate::formula::Terminal::COUNT];
                v[0] = t;
                v[2] = x;
                let err = (program.eval_one(&v) - (t * t + x)).abs();
                1.0 / (1.0 + err)
            })
            .collect();
        Evaluation {
            value: cases.iter().sum::<f64>() / cases.len() as f64,
            cases,
        }
    }
}

fn small_config() -> GpConfig {
    RawGpConfig {
        population: 60,
        generations: 8,
        keep_best: 10,
        ..RawGpConfig::paper()
    }
    .check()
    .unwrap()
}

#[test]
fn evolution_improves_and_keeps_distinct_best() {
    let grammar = Grammar::basic();
    let run = evolve(&small_config(), &grammar, &Target, 7, |_| {});
    assert_eq!(run.generations.len(), 9);
    let first = run.generations[0].best;
    let last = run.generations.last().unwrap().best;
    assert!(
        last >= first,
        "elitism never loses the best: {first} -> {last}"
    );
    assert!(run.hall_of_fame.len() == 10);
    let distinct: FxHashSet<&Formula> = run.hall_of_fame.iter().map(|i| &i.canonical).collect();
    assert_eq!(distinct.len(), 10);
    assert!(run
        .hall_of_fame
        .windows(2)
        .all(|w| w[0].rank_cmp(&w[1]) != Ordering::Greater));
    assert_eq!(
        run.best().evaluation.value,
        last.max(run.best().evaluation.value)
    );
    assert!(run.cache_hits > 0, "elites and copies hit the cache");
    assert_eq!(run.evaluations + run.cache_hits, 60 * 9);
}

#[test]
fn same_seed_same_run_whatever_the_threads() {
    let grammar = Grammar::all();
    let config = small_config();
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(|| evolve(&config, &grammar, &Target, 11, |_| {}));
    let two = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap()
        .install(|| evolve(&config, &grammar, &Target, 11, |_| {}));
    let formulas = |e: &Evolution| -> Vec<String> {
        e.hall_of_fame
            .iter()
            .map(|i| i.formula.to_string())
            .collect()
    };
    assert_eq!(formulas(&one), formulas(&two));
    let bests =
        |e: &Evolution| -> Vec<u64> { e.generations.iter().map(|g| g.best.to_bits()).collect() };
    assert_eq!(bests(&one), bests(&two));
    let other = evolve(&config, &grammar, &Target, 12, |_| {});
    assert_ne!(
        formulas(&one),
        formulas(&other),
        "another seed, another run"
    );
}

#[test]
fn length_penalty_prefers_short_formulas() {
    let grammar = Grammar::basic();
    let config = RawGpConfig {
        population: 60,
        generations: 5,
        keep_best: 5,
        length_penalty: 0.05,
        ..RawGpConfig::paper()
    }
    .check()
    .unwrap();
    let penalised = evolve(&config, &grammar, &Target, 3, |_| {});
    let best = penalised.best();
    assert_eq!(
        best.adjusted,
        best.evaluation.value - 0.05 * best.canonical.len() as f64
    );
}

#[test]
fn initial_formulas_start_the_population() {
    let grammar = Grammar::basic();
    let target: Formula = "t * t + X".parse().unwrap();
    let config = RawGpConfig {
        population: 30,
        generations: 0,
        keep_best: 5,
        seed_formulas: vec![target.clone()],
        ..RawGpConfig::paper()
    }
    .check()
    .unwrap();
    let run = evolve(&config, &grammar, &Target, 1, |_| {});
    assert_eq!(
        run.best().evaluation.value,
        1.0,
        "the exact target was seeded"
    );
    assert_eq!(run.best().formula, target);
    let too_many = RawGpConfig {
        population: 2,
        seed_formulas: vec![target.clone(); 3],
        ..RawGpConfig::paper()
    };
    assert!(too_many.check().is_err());
}

/// [`Target`] that counts the working spaces it was asked for.
struct Counting(std::sync::atomic::AtomicUsize);

impl Fitness for Counting {
    type Scratch = ();

    fn scratch(&self) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    fn evaluate(&self, formula: &Formula, scratch: &mut ()) -> Evaluation {
        Target.evaluate(formula, scratch)
    }
}

#[test]
fn working_spaces_are_kept_from_one_evaluation_to_the_next() {
    let formulas: Vec<Formula> = (0..64)
        .map(|i| format!("t * {i} + X").parse().unwrap())
        .collect();
    let fitness = Counting(Default::default());
    let pool = Scratches::default();
    let one_thread = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let (first, second) = one_thread.install(|| {
        (
            evaluate_pooled(&fitness, &formulas, &pool),
            evaluate_pooled(&fitness, &formulas, &pool),
        )
    });
    assert_eq!(first, second);
    // Rayon splits the slice into pieces; on one thread they run one after the other,
    // each borrowing the working space the one before gave back.
    assert_eq!(fitness.0.into_inner(), 1);
    assert_eq!(pool.kept().len(), 1);
    // Without the pool, each piece starts a working space of its own.
    let unpooled = Counting(Default::default());
    one_thread.install(|| {
        formulas
            .par_iter()
            .map_init(|| unpooled.scratch(), |s, f| unpooled.evaluate(f, s))
            .collect::<Vec<_>>()
    });
    assert!(unpooled.0.into_inner() > 1, "the case must split");
}

/// Fitness: how close the formula comes to `2.5 * t + 7` at t = 1..=10.
struct Line;

impl Fitness for Line {
    type Scratch = ();

    fn scratch(&self) {}

    fn evaluate(&self, formula: &Formula, _: &mut ()) -> Evaluation {
        let program = Program::compile(formula, Closure::Paper);
        let cases: Vec<f64> = (1..=10)
            .map(|t| {
                let mut v = [0.0; crate::formula::Terminal::COUNT];
                v[0] = t as f64;
                1.0 / (1.0 + (program.eval_one(&v) - (2.5 * t as f64 + 7.0)).abs())
            })
            .collect();
        Evaluation {
            value: cases.iter().sum::<f64>() / cases.len() as f64,
            cases,
        }
    }
}

/// A run seeded with the right shape and wrong constants, no generations, constant search
/// on the hall of fame.
fn tuned_run(search: ConstantSearch) -> Evolution {
    let config = RawGpConfig {
        population: 10,
        generations: 0,
        keep_best: 5,
        seed_formulas: vec!["1 * t + 1".parse().unwrap()],
        constants: search,
        ..RawGpConfig::paper()
    }
    .check()
    .unwrap();
    evolve(&config, &Grammar::basic(), &Line, 3, |_| {})
}

#[test]
fn constant_search_recovers_constants_set_wrong() {
    let search = ConstantSearch {
        individuals: 1,
        evaluations: 400,
        every: 0,
    };
    let untuned = tuned_run(ConstantSearch::default());
    let tuned = tuned_run(search);
    assert!(untuned.best().evaluation.value < 0.2);
    let best = tuned.best();
    assert!(best.evaluation.value > 0.99, "{}", best.formula);
    let constants: Vec<f64> = best
        .formula
        .nodes()
        .iter()
        .filter_map(|n| match n {
            crate::formula::Node::Const(c) => Some(*c),
            _ => None,
        })
        .collect();
    assert!((constants[0] - 2.5).abs() < 0.01 && (constants[1] - 7.0).abs() < 0.05);
    assert!(
        tuned.evaluations > untuned.evaluations && tuned.evaluations <= untuned.evaluations + 400,
        "the search's evaluations are counted and bounded: {} vs {}",
        tuned.evaluations,
        untuned.evaluations
    );
}

#[test]
fn constant_search_every_few_generations_is_deterministic_and_helps() {
    let config = |every| {
        RawGpConfig {
            population: 20,
            generations: 4,
            keep_best: 5,
            seed_formulas: vec!["1 * t + 1".parse().unwrap()],
            constants: ConstantSearch {
                individuals: 2,
                evaluations: 60,
                every,
            },
            ..RawGpConfig::paper()
        }
        .check()
        .unwrap()
    };
    let plain = RawGpConfig {
        constants: ConstantSearch::default(),
        ..config(2).raw().clone()
    }
    .check()
    .unwrap();
    let without = evolve(&plain, &Grammar::basic(), &Line, 5, |_| {});
    let with = evolve(&config(2), &Grammar::basic(), &Line, 5, |_| {});
    let again = evolve(&config(2), &Grammar::basic(), &Line, 5, |_| {});
    assert_eq!(with.best().formula, again.best().formula);
    assert_eq!(with.evaluations, again.evaluations);
    assert!(with.best().evaluation.value > without.best().evaluation.value);
    // Tuned in generations 2 and 4: the population's best improves there, not at the end.
    assert!(with.generations[2].best > without.generations[2].best);
}

/// A run on [`Target`] with `selection`.
fn selected_run(selection: Selection) -> Evolution {
    let config = RawGpConfig {
        population: 60,
        generations: 10,
        keep_best: 10,
        selection,
        ..RawGpConfig::paper()
    }
    .check()
    .unwrap();
    evolve(&config, &Grammar::basic(), &Target, 11, |_| {})
}

#[test]
fn nsga2_keeps_the_fittest_and_keeps_formulas_small() {
    let nsga = selected_run(Selection::Nsga2);
    let again = selected_run(Selection::Nsga2);
    assert_eq!(nsga.best().formula, again.best().formula);
    for pair in nsga.generations.windows(2) {
        assert!(pair[1].best >= pair[0].best, "the fittest survives");
    }
    let tournament = selected_run(Selection::Tournament);
    let mean_size = |run: &Evolution| {
        run.hall_of_fame
            .iter()
            .map(|i| i.canonical.len() as f64)
            .sum::<f64>()
            / run.hall_of_fame.len() as f64
    };
    assert!(
        mean_size(&nsga) < mean_size(&tournament),
        "{} vs {}",
        mean_size(&nsga),
        mean_size(&tournament)
    );
}

/// A fitness that reads only the order of `t - X` over a grid, and counts its calls.
struct Order(std::sync::atomic::AtomicUsize);

impl Fitness for Order {
    type Scratch = ();

    fn scratch(&self) {}

    fn evaluate(&self, formula: &Formula, _: &mut ()) -> Evaluation {
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let program = Program::compile(formula, Closure::Paper);
        let mut v = [0.0; crate::formula::Terminal::COUNT];
        let points: Vec<(f64, f64)> = (1..=6)
            .flat_map(|t| (0..3).map(move |x| (t as f64, x as f64)))
            .collect();
        let score = |&(t, x): &(f64, f64), v: &mut [f64; crate::formula::Terminal::COUNT]| {
            v[0] = t;
            v[2] = x;
            program.eval_one(v)
        };
        let scores: Vec<f64> = points.iter().map(|p| score(p, &mut v)).collect();
        // Cases: for each pair of points, 1 when the formula orders it as t - X does.
        let mut cases = Vec::new();
        for i in 0..points.len() {
            for j in 0..points.len() {
                let want = (points[i].0 - points[i].1).total_cmp(&(points[j].0 - points[j].1));
                cases.push(f64::from(scores[i].total_cmp(&scores[j]) == want));
            }
        }
        Evaluation {
            value: cases.iter().sum::<f64>() / cases.len() as f64,
            cases,
        }
    }

    fn ranks_only(&self) -> bool {
        true
    }
}

/// Under a fitness that ranks only, formulas of one rank form are one individual: seeds
/// that are increasing functions of each other are simulated once, and the kept forms are
/// rank forms.
#[test]
fn a_ranking_fitness_caches_and_keeps_rank_forms() {
    let seeds: Vec<Formula> = ["t - X", "exp(t - X)", "2 * (t - X) + 1", "1 - exp(X - t)"]
        .iter()
        .map(|s| s.parse().unwrap())
        .collect();
    let config = RawGpConfig {
        population: 4,
        generations: 0,
        keep_best: 4,
        seed_formulas: seeds,
        literature_seeds: false,
        constants: ConstantSearch::default(),
        ..RawGpConfig::paper()
    }
    .check()
    .unwrap();
    let fitness = Order(Default::default());
    let run = evolve(&config, &Grammar::basic(), &fitness, 1, |_| {});
    assert_eq!(fitness.0.into_inner(), 1, "four seeds, one rank form");
    assert_eq!(run.hall_of_fame.len(), 1);
    assert_eq!(run.best().canonical.to_string(), "t - X");
    assert_eq!(run.best().evaluation.value, 1.0);
    assert_eq!(run.seeds.len(), 4);
    assert!(run.seeds.iter().all(|s| s.canonical.to_string() == "t - X"));
}

/// The run's front holds, for each size, the fittest formula no smaller one beats,
/// smallest first; a size limit holds every individual of every generation.
#[test]
fn the_front_and_the_size_limit() {
    let config = RawGpConfig {
        population: 60,
        generations: 6,
        keep_best: 10,
        max_size: Some(9),
        ..RawGpConfig::paper()
    }
    .check()
    .unwrap();
    let mut largest = 0;
    let run = evolve(&config, &Grammar::basic(), &Target, 3, |r| {
        largest = largest.max(r.best_formula.len());
    });
    assert!(largest <= 9, "{largest}");
    assert!(run.hall_of_fame.iter().all(|i| i.formula.len() <= 9));
    let front = &run.front;
    assert!(!front.is_empty());
    for pair in front.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        assert!(
            a.canonical.len() < b.canonical.len(),
            "smallest first, one per size"
        );
        assert!(
            a.evaluation.value < b.evaluation.value,
            "a larger one must be fitter"
        );
    }
    // Nothing kept beats a front member on both size and fitness.
    for i in &run.hall_of_fame {
        for f in front {
            assert!(
                !(i.canonical.len() <= f.canonical.len()
                    && i.evaluation.value > f.evaluation.value),
                "{} beats front member {}",
                i.canonical,
                f.canonical
            );
        }
    }
}

#[test]
fn a_run_stops_where_its_observer_says() {
    let config = small_config();
    let grammar = Grammar::basic();
    let mut heard = Vec::new();
    let stopped = evolve_until(&config, &grammar, &Target, 7, |report| {
        heard.push(report.generation);
        match report.generation {
            1 => ControlFlow::Break("enough"),
            _ => ControlFlow::Continue(()),
        }
    });
    assert!(matches!(stopped, Err("enough")));
    assert_eq!(heard, [0, 1]);
    // Never stopped, it is `evolve`, bit for bit.
    let whole = evolve_until(&config, &grammar, &Target, 7, |_| {
        ControlFlow::<()>::Continue(())
    })
    .unwrap();
    let plain = evolve(&config, &grammar, &Target, 7, |_| {});
    assert_eq!(whole.hall_of_fame.len(), plain.hall_of_fame.len());
    for (a, b) in whole.hall_of_fame.iter().zip(&plain.hall_of_fame) {
        assert_eq!(a.formula, b.formula);
        assert_eq!(a.adjusted.to_bits(), b.adjusted.to_bits());
    }
}
