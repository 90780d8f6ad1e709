//! From a study's output directory to its [`Analysis`]: the unit files read and checked,
//! the methods built (GP strategies with each rotation's winner, baselines, bandits),
//! budgets and savings attached, and the methods compared.

use super::analysis::{Analysis, ArmComparison, AtResources, Chosen, Comparison};
use super::analysis::{GenerationCurve, Kind, Method, ReportError, COMPARED};
use super::budgets::{self, Budget, LevelMetric, MethodSavings};
use crate::data::Fingerprint;
use crate::experiment::baselines::MetricSummary;
use crate::experiment::evolve::{self, Choice};
use crate::experiment::store::Store;
use crate::experiment::study::{Configuration, Study};
use crate::experiment::sweep;
use crate::experiment::units::{self, gp_file_name, BanditRun, BaselineUnit, GpUnit, Unit};
use crate::gp::Strategy;
use crate::metric::{CycleMetrics, Metric};
use crate::policy::{Reward, Scorer};
use crate::sim::ArmChoice;
use crate::stats::{mean, mean_ci, paired_t_test, MeanCi};

fn metrics_ci(cycles: &[Vec<CycleMetrics>], f: impl Fn(&CycleMetrics) -> f64) -> MeanCi {
    let values: Vec<f64> = cycles.iter().flatten().map(f).collect();
    mean_ci(&values)
}

fn method(
    name: String,
    kind: Kind,
    cycles: Vec<Vec<CycleMetrics>>,
    top_cycles: Vec<Vec<Vec<CycleMetrics>>>,
    study: &Study,
) -> Method {
    let top = study
        .top_resources
        .iter()
        .zip(&top_cycles)
        .map(|(&resources, c)| AtResources {
            resources,
            metrics: MetricSummary::new(c),
        })
        .collect();
    Method {
        name,
        kind,
        configuration: None,
        strategy: None,
        fitness: None,
        metrics: MetricSummary::new(&cycles),
        newly_visited: metrics_ci(&cycles, |m| m.newly_visited),
        chosen: Vec::new(),
        top,
        cycles,
        top_cycles,
        arms: Vec::new(),
        reward: None,
        rewarded_by: None,
        arm_shares: Vec::new(),
        choices: Vec::new(),
        budgets: Vec::new(),
        savings: Vec::new(),
        evaluated: budgets::Evaluated::default(),
    }
}

impl Method {
    /// The method as a bandit over `arms`, rewarded by `reward`, that drew `choices`
    /// (per rotation).
    fn with_arms(
        mut self,
        arms: Vec<String>,
        (reward, metric): (Option<Reward>, Metric),
        choices: Vec<Vec<ArmChoice>>,
    ) -> Method {
        self.reward = Some(reward.and_then(Reward::metric).unwrap_or(metric));
        self.rewarded_by = reward
            .filter(|r| r.metric().is_none())
            .map(|r| r.name().to_string());
        self.arm_shares = crate::sim::arm_shares(choices.iter().flatten(), arms.len());
        self.arms = arms;
        self.choices = choices;
        self
    }
}

/// The unit files of a study, read and checked against it.
struct StoredUnits {
    /// One per rotation, in study order.
    baselines: Vec<BaselineUnit>,
    /// In unit order (configuration × rotation × seed).
    gp: Vec<GpUnit>,
}

/// Reads every unit of the study stored in `store` and computes the report's figures.
pub(crate) fn analyse(study: &Study, store: &Store) -> Result<Analysis, ReportError> {
    let units = read_units(study, store)?;
    let cycles_per_rotation = units
        .baselines
        .first()
        .and_then(|u| u.baselines.first().map(|b| b.main.len()))
        .or_else(|| {
            units
                .gp
                .first()
                .map(|u| u.run.choices[Strategy::Best].test_cycles.len())
        })
        .unwrap_or(0);
    let mut methods = Vec::new();
    let mut generations = Vec::new();
    let mut offset = 0;
    for c in &study.configurations {
        let n = study.rotations.len() * c.seeds.len();
        let runs = &units.gp[offset..offset + n];
        offset += n;
        methods.extend(gp_methods(study, c, runs, store)?);
        generations.push(generation_curve(c, runs));
    }
    let gp_methods = methods.len();
    methods.extend(baseline_methods(study, &units.baselines));
    let comparisons = comparisons(
        &methods[..gp_methods],
        &methods[gp_methods..],
        cycles_per_rotation,
    );
    let between_configurations =
        between_configurations(&methods[..gp_methods], cycles_per_rotation);
    let bandits_vs_arms = bandits_vs_arms(&methods, cycles_per_rotation);
    attach_budgets(study, &mut methods);
    Ok(Analysis {
        bandits_vs_arms,
        between_configurations,
        study: study.clone(),
        dataset: units.baselines.first().map_or([0, 0], |u| u.dataset),
        test_pages: units.baselines.iter().map(|u| u.test_pages).collect(),
        cycles_per_rotation,
        methods,
        comparisons,
        generations,
        gp_units: units.gp,
    })
}

/// Reads every unit file of `study`: an error if one is missing or does not fit.
fn read_units(study: &Study, store: &Store) -> Result<StoredUnits, ReportError> {
    let all = units::units(study);
    let mut missing = all
        .iter()
        .map(|u| u.file_name(study))
        .filter(|n| !store.unit_path(n).exists());
    if let Some(first) = missing.next() {
        return Err(ReportError::Incomplete {
            dir: store.dir().display().to_string(),
            missing: 1 + missing.count(),
            total: all.len(),
            first,
        });
    }
    let mut stored = StoredUnits {
        baselines: Vec::new(),
        gp: Vec::new(),
    };
    let dataset = store.dataset()?;
    for unit in &all {
        let name = unit.file_name(study);
        let inconsistent = |reason: &str| ReportError::Inconsistent {
            file: store.unit_path(&name).display().to_string(),
            reason: reason.to_string(),
        };
        // A unit computed on other data than the directory's (copied in by hand).
        let other_data = |fingerprint: Option<Fingerprint>| {
            match (fingerprint, dataset) {
            (Some(unit), Some(dir)) if !dir.holds(unit) => Err(inconsistent(&format!(
                "was computed on the dataset of fingerprint {unit}, the directory's results on {dir}"
            ))),
            _ => Ok(()),
        }
        };
        match *unit {
            Unit::Baselines { rotation } => {
                let u: BaselineUnit = store
                    .read_unit(&name)?
                    .ok_or_else(|| inconsistent("no such file"))?;
                if !baselines_fit(&u, study, rotation) {
                    return Err(inconsistent(
                        "does not match the study's baselines, rotation or top_resources",
                    ));
                }
                other_data(u.fingerprint)?;
                stored.baselines.push(u);
            }
            Unit::Gp {
                configuration,
                rotation,
                seed,
            } => {
                let u: GpUnit = store
                    .read_unit(&name)?
                    .ok_or_else(|| inconsistent("no such file"))?;
                let ok = u.rotation == rotation
                    && u.seed == seed
                    && u.configuration == study.configurations[configuration].name
                    && u.top
                        .iter()
                        .all(|t| t.runs.len() == study.top_resources.len());
                if !ok {
                    return Err(inconsistent("does not match its configuration, rotation, seed or the study's top_resources"));
                }
                other_data(u.fingerprint)?;
                stored.gp.push(u);
            }
        }
    }
    Ok(stored)
}

/// Whether a baseline unit holds the study's baselines of `rotation` at every level.
fn baselines_fit(u: &BaselineUnit, study: &Study, rotation: usize) -> bool {
    u.rotation == rotation
        && u.baselines.len() == study.baselines.len()
        && u.baselines
            .iter()
            .zip(&study.baselines)
            .all(|(r, b)| r.baseline == *b && r.top.len() == study.top_resources.len())
}

/// The methods of configuration `c` (one per reported strategy), from its GP units `runs`
/// (rotation × seed).
fn gp_methods(
    study: &Study,
    c: &Configuration,
    runs: &[GpUnit],
    store: &Store,
) -> Result<Vec<Method>, ReportError> {
    // Per rotation: the seed runs and the winners.
    let mut per_rotation = Vec::new();
    for seeds in runs.chunks(c.seeds.len()) {
        let seed_runs: Vec<_> = seeds.iter().map(|u| u.run.clone()).collect();
        let winners = evolve::winners(&seed_runs).ok_or_else(|| ReportError::Inconsistent {
            file: store.dir().display().to_string(),
            reason: format!("configuration `{}` has no seed", c.name),
        })?;
        per_rotation.push((seeds, winners));
    }
    let mut methods = Vec::new();
    for &strategy in &study.reports.strategies {
        let mut cycles = Vec::new();
        let mut top_cycles = vec![Vec::new(); study.top_resources.len()];
        let mut chosen = Vec::new();
        let mut evals = Vec::new();
        for (seeds, winners) in &per_rotation {
            let unit = &seeds[winners[strategy]];
            let choice: &Choice = &unit.run.choices[strategy];
            cycles.push(choice.test_cycles.clone());
            let top = unit.top.iter().find(|t| t.strategy == strategy);
            evals.push(top.and_then(|t| t.eval.as_ref()));
            if let Some(t) = top {
                for (k, run) in t.runs.iter().enumerate() {
                    top_cycles[k].push(run.cycles.clone());
                }
            }
            chosen.push(Chosen {
                rotation: unit.rotation,
                seed: unit.seed,
                formula: choice.formula.to_string(),
                train: choice.train,
                validation: choice.validation,
                test: choice.test,
                score: choice.score,
                best_seed: unit.run.best_seed.clone(),
                front: unit.run.front.clone(),
            });
        }
        let mut m = method(
            format!("{}/{}", c.name, strategy.name()),
            Kind::Gp,
            cycles,
            top_cycles,
            study,
        );
        m.evaluated = budgets::Evaluated::new(study, &evals, &m.cycles, &m.top_cycles);
        m.configuration = Some(c.name.clone());
        m.strategy = Some(strategy);
        m.fitness = Some(c.fitness);
        m.chosen = chosen;
        methods.push(m);
    }
    let bandits = bandit_methods(study, c, &per_rotation, &methods, store)?;
    methods.extend(bandits);
    Ok(methods)
}

/// The methods of configuration `c`'s bandits with its chosen formulas as one more arm
/// (one per bandit and reported strategy), from the winners of each rotation
/// (`per_rotation`) and the configuration's strategy methods `strategies`.
fn bandit_methods(
    study: &Study,
    c: &Configuration,
    per_rotation: &[(&[GpUnit], evolve::PerStrategy<usize>)],
    strategies: &[Method],
    store: &Store,
) -> Result<Vec<Method>, ReportError> {
    let mut out = Vec::new();
    for (j, bandit) in c.bandits.iter().enumerate() {
        for &strategy in &study.reports.strategies {
            let runs = per_rotation
                .iter()
                .map(|(seeds, winners)| {
                    let unit = &seeds[winners[strategy]];
                    unit.bandits
                        .iter()
                        .filter(|r| r.strategy == strategy)
                        .nth(j)
                        .ok_or_else(|| ReportError::Inconsistent {
                            file: store.dir().display().to_string(),
                            reason: format!(
                                "unit {} has no run of bandit `{bandit}`",
                                gp_file_name(&c.name, unit.rotation, unit.seed)
                            ),
                        })
                })
                .collect::<Result<Vec<_>, _>>()?;
            let name = format!("{}/{}+{}", c.name, strategy.name(), bandit.label());
            let cycles = runs.iter().map(|r| r.cycles.clone()).collect();
            let no_top = vec![Vec::new(); study.top_resources.len()];
            let mut m = method(name, Kind::Gp, cycles, no_top, study);
            // Bandits are tested at the study's resources only, in one run.
            m.top.clear();
            m.top_cycles.clear();
            m.evaluated = budgets::Evaluated::new(study, &[], &m.cycles, &[]);
            m.configuration = Some(c.name.clone());
            m.strategy = Some(strategy);
            m.fitness = Some(c.fitness);
            // The evolved arm: the strategy's choices.
            m.chosen = strategies
                .iter()
                .find(|other: &&Method| other.strategy == Some(strategy) && other.arms.is_empty())
                .map_or_else(Vec::new, |other| other.chosen.clone());
            let mut arms: Vec<String> = bandit
                .bandit()
                .map(|b| b.arms().iter().map(Scorer::label).collect())
                .unwrap_or_default();
            // The evolved arm, named as its method so that the bandit is compared with it
            // alone (absent when it already was one of the bandit's arms).
            let ran = |r: &&BanditRun| r.bandit.bandit().map_or(0, |b| b.arms().len());
            if runs.iter().all(|r| ran(r) > arms.len()) {
                arms.push(format!("{}/{}", c.name, strategy.name()));
            }
            let choices = runs.iter().map(|r| r.choices.clone()).collect();
            let reward = bandit.bandit().and_then(|b| b.reward());
            out.push(m.with_arms(arms, (reward, c.fitness), choices));
        }
    }
    Ok(out)
}

/// Per generation, the mean over `runs` of the best and of the mean fitness.
fn generation_curve(c: &Configuration, runs: &[GpUnit]) -> GenerationCurve {
    let len = runs
        .iter()
        .map(|u| u.run.generations.len())
        .min()
        .unwrap_or(0);
    let column = |f: &dyn Fn(&evolve::GenerationSummary) -> f64| -> Vec<f64> {
        (0..len)
            .map(|g| {
                mean(
                    &runs
                        .iter()
                        .map(|u| f(&u.run.generations[g]))
                        .collect::<Vec<_>>(),
                )
            })
            .collect()
    };
    GenerationCurve {
        configuration: c.name.clone(),
        fitness: c.fitness,
        best: column(&|g| g.best),
        mean: column(&|g| g.mean),
    }
}

/// One method per study baseline, from the baseline units (one per rotation).
fn baseline_methods(study: &Study, units: &[BaselineUnit]) -> Vec<Method> {
    study
        .baselines
        .iter()
        .enumerate()
        .map(|(b, baseline)| {
            let cycles = units.iter().map(|u| u.baselines[b].main.clone()).collect();
            let top_cycles = (0..study.top_resources.len())
                .map(|k| {
                    units
                        .iter()
                        .map(|u| u.baselines[b].top[k].cycles.clone())
                        .collect()
                })
                .collect();
            let mut m = method(baseline.label(), Kind::Baseline, cycles, top_cycles, study);
            let evals: Vec<_> = units.iter().map(|u| u.baselines[b].eval.as_ref()).collect();
            m.evaluated = budgets::Evaluated::new(study, &evals, &m.cycles, &m.top_cycles);
            match baseline.bandit() {
                Some(bandit) => {
                    let arms = bandit.arms().iter().map(Scorer::label).collect();
                    let choices = units
                        .iter()
                        .map(|u| u.baselines[b].choices.clone())
                        .collect();
                    m.with_arms(arms, (bandit.reward(), study.sim.metric()), choices)
                }
                None => m,
            }
        })
        .collect()
}

/// Every GP method against every baseline, on each of [`COMPARED`].
fn comparisons(gp: &[Method], baselines: &[Method], positions: usize) -> Vec<Comparison> {
    let mut out = Vec::new();
    for m in gp {
        for b in baselines {
            for metric in COMPARED {
                out.push(compare(m, b, metric, positions));
            }
        }
    }
    out
}

/// Every GP method against each method of another configuration with the same strategy,
/// on each of [`COMPARED`].
fn between_configurations(gp: &[Method], positions: usize) -> Vec<Comparison> {
    let mut out = Vec::new();
    for m in gp {
        for other in gp {
            // Plain strategy methods only (not bandits with an evolved arm).
            let plain = m.arms.is_empty() && other.arms.is_empty();
            if plain && other.configuration != m.configuration && other.strategy == m.strategy {
                for metric in COMPARED {
                    out.push(compare(m, other, metric, positions));
                }
            }
        }
    }
    out
}

/// Every bandit method against each of its arms that is a method of the study.
fn bandits_vs_arms(methods: &[Method], positions: usize) -> Vec<ArmComparison> {
    let mut out = Vec::new();
    for m in methods.iter().filter(|m| !m.arms.is_empty()) {
        for arm in m.arms.iter() {
            let Some(alone) = methods.iter().find(|other| other.name == *arm) else {
                continue;
            };
            for metric in COMPARED {
                let rotation_means = |x: &Method| -> Vec<f64> {
                    x.cycles
                        .iter()
                        .map(|r| mean(&r.iter().map(|c| metric.of(c)).collect::<Vec<_>>()))
                        .collect()
                };
                let (a, b) = (rotation_means(m), rotation_means(alone));
                out.push(ArmComparison {
                    bandit: m.name.clone(),
                    arm: arm.clone(),
                    metric,
                    bandit_mean: m.of(metric).mean,
                    arm_mean: alone.of(metric).mean,
                    p_rotations: if a.len() == b.len() {
                        paired_t_test(&a, &b)
                    } else {
                        1.0
                    },
                    per_cycle: compare(m, alone, metric, positions),
                });
            }
        }
    }
    out
}

/// Cycle by cycle, the paired t-test over rotations of `m` against `b`.
fn compare(m: &Method, b: &Method, metric: Metric, positions: usize) -> Comparison {
    let (mut wins, mut losses, mut ties) = (0, 0, 0);
    let mut p_values = Vec::new();
    for j in 0..positions {
        let column = |x: &Method| -> Vec<f64> {
            x.cycles
                .iter()
                .filter_map(|r| r.get(j).map(|c| metric.of(c)))
                .collect()
        };
        let (a, z) = (column(m), column(b));
        let p = if a.len() == z.len() {
            paired_t_test(&a, &z)
        } else {
            1.0
        };
        p_values.push(p);
        if p < 0.05 {
            if mean(&a) > mean(&z) {
                wins += 1;
            } else {
                losses += 1;
            }
        } else {
            ties += 1;
        }
    }
    Comparison {
        method: m.name.clone(),
        baseline: b.name.clone(),
        metric,
        wins,
        losses,
        ties,
        p_values,
    }
}

/// Fills every method's `budgets` and `savings` (docs/src/reference/evaluation.md).
fn attach_budgets(study: &Study, methods: &mut [Method]) {
    let levels = study.levels();
    let reference = study
        .reference
        .as_ref()
        .and_then(|r| methods.iter().find(|m| m.name == r.label()))
        .map(|m| (m.name.clone(), m.evaluated.levels.clone()));
    let mut all_savings = Vec::new();
    for m in methods.iter() {
        let mut savings = Vec::new();
        for r in &study.savings {
            let Some(against) = methods.iter().find(|o| o.name == r.label()) else {
                continue;
            };
            if against.name == m.name || m.evaluated.curve.is_empty() {
                continue;
            }
            let metric = study.sim.metric();
            let target = against
                .evaluated
                .levels
                .first()
                .map_or(f64::NAN, |runs| sweep::mean(runs, metric));
            savings.push(MethodSavings {
                reference: against.name.clone(),
                savings: sweep::smallest_reaching(
                    &m.evaluated.curve,
                    metric,
                    target,
                    study.sim.resources(),
                ),
            });
        }
        all_savings.push(savings);
    }
    for (m, savings) in methods.iter_mut().zip(all_savings) {
        m.budgets = levels
            .iter()
            .enumerate()
            .filter_map(|(l, &resources)| Some((resources, m.evaluated.levels.get(l)?, l)))
            .filter(|(_, runs, _)| !runs.is_empty())
            .map(|(resources, runs, l)| {
                // No test of the reference against itself, nor of a single run.
                let against = reference
                    .as_ref()
                    .filter(|(name, _)| *name != m.name && runs.len() > 1)
                    .and_then(|(_, levels)| levels.get(l));
                Budget {
                    resources,
                    metrics: Metric::ALL
                        .into_iter()
                        .map(|metric| {
                            let s = sweep::summary(runs, metric);
                            let wilcoxon_p =
                                against.and_then(|r| sweep::wilcoxon_against(runs, r, metric));
                            LevelMetric {
                                metric,
                                median: s.median,
                                low: s.low,
                                high: s.high,
                                mean: sweep::mean(runs, metric),
                                wilcoxon_p,
                            }
                        })
                        .collect(),
                }
            })
            .collect();
        m.budgets
            .sort_by(|a, b| a.resources.total_cmp(&b.resources));
        m.savings = savings;
    }
}
