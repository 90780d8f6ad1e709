//! Reading an experiment file into a [`Study`]: the file as written (`RawStudy`, RON,
//! unknown fields refused; every field but `name`, `dataset` and `configurations` with
//! the paper's default), its per-configuration overrides, and the checks that name the
//! broken field and its line ([`Study::load`], [`Study::from_ron`]).

use super::study::{base_dir, first_repeat, gp_violation, violation, Violation};
use super::study::{Configuration, DatasetSpec, Reports, Study, StudyError};
use crate::data::sample::PageSample;
use crate::data::split::Horizon;
use crate::data::{Dataset, UnknownPolicy};
use crate::formula::Grammar;
use crate::gp::RawGpConfig;
use crate::metric::Metric;
use crate::place::RonFileError;
use crate::policy::{Baseline, Policy};
use crate::sim::{Decision, SimConfig, TieBreak};
use serde::Deserialize;
use std::path::Path;

/// One GP configuration as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfiguration {
    name: String,
    grammar: String,
    fitness: Metric,
    #[serde(default)]
    also: Option<Vec<Metric>>,
    #[serde(default)]
    gp: Option<RawGpConfig>,
    #[serde(default)]
    bandits: Vec<Policy>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    train_sample: Option<PageSample>,
    #[serde(default)]
    population: Option<usize>,
    #[serde(default)]
    generations: Option<usize>,
    #[serde(default)]
    seeds: Option<usize>,
}

/// The metrics a configuration's fitness also averages over when it names none: the
/// fitness's companions, none under the paper's protocol.
pub(crate) fn default_also(fitness: Metric, gp: &RawGpConfig) -> Vec<Metric> {
    match gp.protocol {
        crate::gp::Protocol::Search => fitness.companions(),
        crate::gp::Protocol::Paper => Vec::new(),
    }
}

fn default_unknown() -> String {
    UnknownPolicy::default().to_string()
}

fn all_rotations() -> Vec<usize> {
    (0..crate::data::split::FOLDS).collect()
}

fn paper_resources() -> f64 {
    crate::sim::DEFAULT_RESOURCES
}

fn paper_warmup() -> usize {
    crate::sim::DEFAULT_WARMUP
}

fn default_top() -> Vec<f64> {
    vec![0.01, 0.02, 0.03, 0.04, 0.05]
}

fn five() -> usize {
    5
}

fn first() -> u64 {
    1
}

/// The paper's seven baselines (docs/src/reference/policies.md#baselines); a study lists the
/// literature's policies to compare them.
fn all_baselines() -> Vec<Policy> {
    Baseline::ALL.map(Policy::from).to_vec()
}

/// `resources` as written: one budget (the paper's), or a budget sweep
/// (docs/src/reference/evaluation.md#budget-sweeps).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum RawResources {
    One(f64),
    Sweep(Vec<f64>),
}

/// An experiment file as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStudy {
    name: String,
    #[serde(default)]
    description: String,
    dataset: DatasetSpec,
    #[serde(default = "default_unknown")]
    unknown: String,
    #[serde(default)]
    group: Option<String>,
    #[serde(default = "all_rotations")]
    rotations: Vec<usize>,
    #[serde(default)]
    resources: Option<RawResources>,
    #[serde(default)]
    train_resources: Option<RawResources>,
    #[serde(default)]
    decision: Decision,
    #[serde(default)]
    runs: Option<usize>,
    #[serde(default)]
    reference: Option<Policy>,
    #[serde(default)]
    savings: Vec<Policy>,
    #[serde(default = "paper_warmup")]
    warmup: usize,
    #[serde(default)]
    tie_seed: u64,
    #[serde(default)]
    ties: TieBreak,
    #[serde(default)]
    host_cap: Option<u32>,
    #[serde(default)]
    metric: Metric,
    #[serde(default)]
    test_horizon: Horizon,
    #[serde(default)]
    top_resources: Option<Vec<f64>>,
    #[serde(default = "five")]
    seeds: usize,
    #[serde(default = "first")]
    first_seed: u64,
    #[serde(default)]
    gp: RawGpConfig,
    configurations: Vec<RawConfiguration>,
    #[serde(default = "all_baselines")]
    baselines: Vec<Policy>,
    #[serde(default)]
    reports: Reports,
}

/// `v` as an error of the study file `file` (read again to find the field's line; `fallback`
/// is the key whose line is given when the field's own is not found).
fn located(
    v: Violation,
    file: &Path,
    configurations: &[Configuration],
    fallback: &str,
) -> StudyError {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let line = match line_of_field(&text, &v.field, configurations) {
        0 => line_of(&text, fallback, 1),
        line => line,
    };
    StudyError::Invalid {
        file: file.display().to_string(),
        line,
        field: v.field,
        reason: v.reason,
    }
}

/// Line (1-based) of the first `key:` at or after line `from`, outside `//` comments.
fn line_of(text: &str, key: &str, from: usize) -> usize {
    for (i, line) in text.lines().enumerate().skip(from.saturating_sub(1)) {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find(key) {
            let before_ok = rest[..at]
                .chars()
                .last()
                .is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
            let after = rest[at + key.len()..].trim_start();
            if before_ok && after.starts_with(':') {
                return i + 1;
            }
            rest = &rest[at + key.len()..];
        }
    }
    0
}

/// Line of the quoted string `value` (1-based), or 0.
fn line_of_string(text: &str, value: &str) -> usize {
    let quoted = format!("\"{value}\"");
    text.lines()
        .position(|l| l.split("//").next().unwrap_or("").contains(&quoted))
        .map_or(0, |i| i + 1)
}

/// Line of `field` (as [`Violation`] names it) in the experiment file `text`: the key's
/// first occurrence, or for `configurations[i].key` its first occurrence after the
/// configuration's name.
fn line_of_field(text: &str, field: &str, configurations: &[Configuration]) -> usize {
    if let Some(rest) = field.strip_prefix("configurations[") {
        if let Some((index, key)) = rest.split_once("].") {
            let start = index
                .parse::<usize>()
                .ok()
                .and_then(|i| configurations.get(i))
                .map_or(1, |c| line_of_string(text, &c.name));
            return if key == "name" {
                start
            } else {
                line_of(text, key, start)
            };
        }
    }
    let key = field.rsplit('.').next().unwrap_or(field);
    line_of(text, key, 1)
}

impl RawStudy {
    /// The study as written, with its defaults and the per-configuration overrides
    /// applied; checks the fields that exist only in the file (`unknown`, `resources`,
    /// `warmup`, `host_cap`, `seeds`, `gp`). [`Study::check`] checks the rest.
    fn into_study(self) -> Result<Study, Violation> {
        let unknown: UnknownPolicy = self.unknown.parse().map_err(|_| {
            violation(
                "unknown",
                format!(
                    "`{}`: expected paper, paper:N, infer, zero, one, drop or keep",
                    self.unknown
                ),
            )
        })?;
        let (resources, top_resources) = self.budgets()?;
        let train_resources = match &self.train_resources {
            Some(RawResources::Sweep(list)) => list.clone(),
            _ => Vec::new(),
        };
        let sim = SimConfig::new(resources, self.warmup)
            .map_err(|e| violation("resources", e.to_string()))?
            .with_seed(self.tie_seed)
            .with_ties(self.ties)
            .with_host_cap(self.host_cap)
            .map_err(|e| violation("host_cap", e.to_string()))?
            .with_metric(self.metric)
            .with_decision(self.decision)
            .map_err(|e| violation("decision", e.to_string()))?;
        if self.seeds == 0 {
            return Err(violation("seeds", "at least 1"));
        }
        self.gp
            .clone()
            .check()
            .map_err(|e| gp_violation("gp.", &e))?;
        let configurations = self
            .configurations
            .iter()
            .enumerate()
            .map(|(i, c)| self.configuration(i, c))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Study {
            name: self.name,
            description: self.description,
            dataset: self.dataset,
            unknown,
            group: self.group,
            rotations: self.rotations,
            sim,
            test_horizon: self.test_horizon,
            top_resources,
            train_resources,
            runs: self.runs,
            reference: self.reference,
            savings: self.savings,
            configurations,
            baselines: self.baselines,
            reports: self.reports,
        })
    }

    /// The training budget and the other budgets tested: `resources: 0.05` (with
    /// `top_resources`, default 1%..5%, Fig. 5), or `resources: [..]`, a sweep
    /// (docs/src/reference/evaluation.md#budget-sweeps), trained at `train_resources`
    /// (default the paper's 5%; of a list, its first is the study's budget) and tested at
    /// every budget of the list. A list `train_resources: [..]` trains over its budgets
    /// with either form.
    fn budgets(&self) -> Result<(f64, Vec<f64>), Violation> {
        if let Some(RawResources::Sweep(list)) = &self.train_resources {
            if list.is_empty() {
                return Err(violation(
                    "train_resources",
                    "list at least one budget (or write one number)",
                ));
            }
        }
        match &self.resources {
            None | Some(RawResources::One(_)) => {
                if let Some(RawResources::One(_)) = self.train_resources {
                    return Err(violation(
                        "train_resources",
                        "one training budget goes with a sweep, `resources: [..]`; with one budget, `resources` is the training budget (a list, `train_resources: [..]`, trains over several)",
                    ));
                }
                let one = match self.resources {
                    Some(RawResources::One(r)) => r,
                    _ => paper_resources(),
                };
                Ok((one, self.top_resources.clone().unwrap_or_else(default_top)))
            }
            Some(RawResources::Sweep(list)) => {
                if self.top_resources.is_some() {
                    return Err(violation(
                        "top_resources",
                        "a sweep `resources: [..]` lists every budget tested; leave top_resources out",
                    ));
                }
                if list.is_empty() {
                    return Err(violation("resources", "list at least one budget"));
                }
                let train = match &self.train_resources {
                    None => paper_resources(),
                    Some(RawResources::One(r)) => *r,
                    // Invariant: an empty list was refused above.
                    Some(RawResources::Sweep(list)) => list[0],
                };
                let mut levels = list.clone();
                levels.retain(|&r| r != train);
                Ok((train, levels))
            }
        }
    }

    /// Configuration `index` with the study's GP parameters and seeds as defaults.
    fn configuration(
        &self,
        index: usize,
        c: &RawConfiguration,
    ) -> Result<Configuration, Violation> {
        let mut gp = c.gp.clone().unwrap_or_else(|| self.gp.clone());
        if let Some(p) = c.population {
            gp.population = p;
        }
        if let Some(g) = c.generations {
            gp.generations = g;
        }
        if let Some(other) = c.bandits.iter().find(|b| b.bandit().is_none()) {
            return Err(violation(
                format!("configurations[{index}].bandits"),
                format!(
                    "`{other}` is no bandit: name bandits (kab2, kab3, kab5, exp3(..)) to \
                     test the evolved formula in as one more arm"
                ),
            ));
        }
        if let Some(i) = first_repeat(&c.bandits) {
            return Err(violation(
                format!("configurations[{index}].bandits"),
                format!("`{}` is listed twice", c.bandits[i]),
            ));
        }
        let seeds = c.seeds.unwrap_or(self.seeds);
        if seeds == 0 {
            return Err(violation(
                format!("configurations[{index}].seeds"),
                "at least 1",
            ));
        }
        Ok(Configuration {
            name: c.name.clone(),
            grammar: c.grammar.clone(),
            fitness: c.fitness,
            also: c
                .also
                .clone()
                .unwrap_or_else(|| default_also(c.fitness, &gp)),
            gp,
            seeds: (0..seeds as u64)
                .map(|k| self.first_seed.wrapping_add(k))
                .collect(),
            bandits: c.bandits.clone(),
            model: c.model.clone(),
            train_sample: c.train_sample,
        })
    }
}

impl Study {
    /// Reads and checks an experiment file.
    pub fn load(path: &Path) -> Result<Study, StudyError> {
        let text = std::fs::read_to_string(path).map_err(|e| RonFileError::Io {
            file: path.display().to_string(),
            reason: e.to_string(),
        })?;
        let base = base_dir(path);
        // A bandit's `file("..")` arms are relative to the study file, as datasets are.
        let study = crate::policy::with_policy_files_in(&base, || {
            Study::from_ron(&text, &path.display().to_string())
        })?;
        for (i, c) in study.configurations.iter().enumerate() {
            c.grammar(&base).map_err(|e| StudyError::Invalid {
                file: path.display().to_string(),
                line: line_of(&text, "grammar", line_of_string(&text, &c.name)),
                field: format!("configurations[{i}].grammar"),
                reason: e.to_string(),
            })?;
        }
        Ok(study)
    }

    /// Checks the rules that depend on the dataset's size ([`Study::check_size`]) against
    /// `dataset`, loaded once for the run; `file`, the study's file, is read again only to
    /// name the line of a broken rule (a field left at its default: the `dataset` line,
    /// since the dataset's size is what rules it out).
    pub(crate) fn check_size_of(&self, dataset: &Dataset, file: &Path) -> Result<(), StudyError> {
        self.check_size(dataset.pages(), dataset.cycles())
            .map_err(|v| located(v, file, &self.configurations, "dataset"))
    }

    /// Checks that every configuration's seed formulas read only terminals of its grammar
    /// (`grammars[i]` is configuration i's); an error names the field's line in `file`.
    pub(crate) fn check_seeds_of(
        &self,
        grammars: &[Grammar],
        file: &Path,
    ) -> Result<(), StudyError> {
        for (i, (c, grammar)) in self.configurations.iter().zip(grammars).enumerate() {
            super::evolve::check_seeds(&c.gp.seed_formulas, grammar).map_err(|e| {
                let v = violation(
                    format!("configurations[{i}].gp.seed_formulas"),
                    e.to_string(),
                );
                located(v, file, &self.configurations, "seed_formulas")
            })?;
        }
        Ok(())
    }

    /// Parses and checks RON text; `origin` names it in errors. Grammar files are not
    /// opened here ([`Study::load`] does).
    pub fn from_ron(text: &str, origin: &str) -> Result<Study, StudyError> {
        let options = ron::Options::default()
            .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
        let raw: RawStudy = options.from_str(text).map_err(|e| {
            let (line, column) = crate::place::ron_place(text, e.position);
            RonFileError::Syntax {
                file: origin.to_string(),
                line,
                column,
                reason: e.code.to_string(),
            }
        })?;
        let invalid = |v: Violation, configurations: &[Configuration]| StudyError::Invalid {
            file: origin.to_string(),
            line: line_of_field(text, &v.field, configurations),
            field: v.field,
            reason: v.reason,
        };
        let study = raw.into_study().map_err(|v| invalid(v, &[]))?;
        study
            .check()
            .map_err(|v| invalid(v, &study.configurations))?;
        Ok(study)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TINY: &str = r#"// a test study
(
    name: "tiny",
    dataset: Synthetic(preset: "brdc12", pages: 300, days: 21, seed: 3),
    seeds: 2,
    gp: (population: 10, generations: 2),
    configurations: [
        (name: "a", grammar: "basic", fitness: changerate),
        (name: "b", grammar: "all", fitness: ndcg, population: 12),
    ],
)"#;

    #[test]
    fn reads_defaults_and_overrides() {
        let s = Study::from_ron(TINY, "t.ron").unwrap();
        assert_eq!(s.sim.resources(), 0.05);
        assert_eq!(s.sim.warmup(), 2);
        assert_eq!(s.baselines.len(), 7);
        assert_eq!(s.top_resources, [0.01, 0.02, 0.03, 0.04, 0.05]);
        assert_eq!(s.configurations[0].gp.population, 10);
        assert_eq!(s.configurations[1].gp.population, 12);
        assert_eq!(s.configurations[1].gp.tournament, 2);
        assert_eq!(s.configurations[1].fitness, Metric::Ndcg);
        // The study's budget is also the last of the default top_resources: a table by
        // budget has it once.
        assert_eq!(s.levels(), [0.05, 0.01, 0.02, 0.03, 0.04, 0.05]);
        assert_eq!(s.budget_order(), [1, 2, 3, 4, 0]);
    }

    #[test]
    fn unknown_fields_name_field_and_line() {
        let bad = TINY.replace("population: 12", "popluation: 12");
        let e = Study::from_ron(&bad, "t.ron").unwrap_err().to_string();
        assert!(e.starts_with("t.ron:9:"), "{e}");
        assert!(e.contains("popluation"), "{e}");
        let bad = TINY.replace("generations: 2)", "generations: 2, tournment: 3)");
        let e = Study::from_ron(&bad, "t.ron").unwrap_err().to_string();
        assert!(e.starts_with("t.ron:6:") && e.contains("tournment"), "{e}");
    }

    #[test]
    fn bad_values_name_field_and_line() {
        let bad = TINY.replace("population: 12", "population: 1");
        let e = Study::from_ron(&bad, "t.ron").unwrap_err().to_string();
        assert_eq!(
            e,
            "t.ron:9: configurations[1].population: population = 1: at least 2 individuals"
        );
        let bad = TINY.replace("seeds: 2", "seeds: 0");
        let e = Study::from_ron(&bad, "t.ron").unwrap_err().to_string();
        assert_eq!(e, "t.ron:5: seeds: at least 1");
        let bad = TINY.replace("\"b\"", "\"a\"");
        let e = Study::from_ron(&bad, "t.ron").unwrap_err().to_string();
        assert!(
            e.contains("configurations[1].name") && e.contains("twice"),
            "{e}"
        );
    }

    #[test]
    fn a_stored_study_is_checked_when_read() {
        let s = Study::from_ron(TINY, "t.ron").unwrap();
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(serde_json::from_str::<Study>(&json).unwrap(), s);
        assert!(json.contains("\"unknown\":\"paper\""), "{json}");
        let bad = json.replacen("\"seeds\":[1,2]", "\"seeds\":[]", 1);
        let e = serde_json::from_str::<Study>(&bad).unwrap_err().to_string();
        assert!(e.starts_with("configurations[0].seeds: at least 1"), "{e}");
        let bad = json.replacen("\"seeds\":[1,2]", "\"seeds\":[1,1]", 1);
        let e = serde_json::from_str::<Study>(&bad).unwrap_err().to_string();
        assert!(
            e.contains("configurations[0].seeds: seed 1 is listed twice"),
            "{e}"
        );
        let bad = json.replace("\"rotations\":[0,1,2,3,4]", "\"rotations\":[]");
        let e = serde_json::from_str::<Study>(&bad).unwrap_err().to_string();
        assert!(e.starts_with("rotations: list at least one"), "{e}");
    }

    #[test]
    fn host_cap_and_weighted_fitness() {
        let s = Study::from_ron(TINY, "t.ron").unwrap();
        assert_eq!(s.sim.host_cap(), None);
        // Without a cap, study.json is as before (no `host_cap` key), and reads back.
        let json = serde_json::to_string(&s).unwrap();
        assert!(!json.contains("host_cap"), "{json}");
        let capped = TINY
            .replace("seeds: 2,", "seeds: 2,\n    host_cap: 2,")
            .replace("fitness: changerate", "fitness: wndcg");
        let c = Study::from_ron(&capped, "t.ron").unwrap();
        assert_eq!(c.sim.host_cap(), Some(2));
        assert_eq!(c.configurations[0].fitness, Metric::WNdcg);
        let json = serde_json::to_string(&c).unwrap();
        assert!(json.contains("\"host_cap\":2"), "{json}");
        assert_eq!(serde_json::from_str::<Study>(&json).unwrap(), c);
        let explicit = capped.replace("host_cap: 2", "host_cap: Some(2)");
        assert_eq!(Study::from_ron(&explicit, "t.ron").unwrap(), c);
        let e = Study::from_ron(&capped.replace("host_cap: 2", "host_cap: 0"), "t.ron")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "t.ron:6: host_cap: the host cap must be at least 1 page per host and cycle, got 0"
        );
        let e = Study::from_ron(&capped.replace("wndcg", "wndgc"), "t.ron")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("t.ron:9:") && e.contains("wndgc"), "{e}");
    }

    #[test]
    fn line_lookup_skips_comments_and_prefixes() {
        let text = "// seeds: 1\n( first_seeds: 3,\n  seeds: 2 )";
        assert_eq!(line_of(text, "seeds", 1), 3);
    }

    #[test]
    fn synthetic_dataset_is_deterministic() {
        let s = Study::from_ron(TINY, "t.ron").unwrap();
        let a = s.load_dataset(Path::new(".")).unwrap();
        assert_eq!((a.pages(), a.cycles()), (300, 21));
        assert_eq!(a, s.load_dataset(Path::new(".")).unwrap());
    }
}
