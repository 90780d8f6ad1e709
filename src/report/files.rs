//! The report's files: [`write`] analyses an output directory and writes `summary.md`,
//! `results.json`, the CSV files and the plots the study asks for, each atomically.

use super::analyse::analyse;
use super::analysis::{Analysis, Kind, Method, ReportError};
use super::{html, plots, summary};
use crate::experiment::store::Store;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// `cycles.csv`: one row per method, rotation, resources level and scored test cycle.
pub(crate) fn cycles_csv(a: &Analysis) -> String {
    let mut out = String::from(
        "method,kind,configuration,strategy,fitness,rotation,resources,position,cycle,change_rate,ndcg,freshness,newly_visited,stale,visited,wfreshness,wndcg\n",
    );
    for m in &a.methods {
        let kind = match m.kind {
            Kind::Gp => "gp",
            Kind::Baseline => "baseline",
        };
        let levels = std::iter::once((a.study.sim.resources(), &m.cycles))
            .chain(a.study.top_resources.iter().copied().zip(&m.top_cycles));
        for (resources, per_rotation) in levels {
            for (rotation, cycles) in a.study.rotations.iter().zip(per_rotation) {
                for (j, c) in cycles.iter().enumerate() {
                    let _ = writeln!(
                        out,
                        "{},{kind},{},{},{},{rotation},{resources},{},{},{},{},{},{},{},{},{},{}",
                        csv_field(&m.name),
                        m.configuration.as_deref().unwrap_or(""),
                        m.strategy.map_or("", |s| s.name()),
                        m.fitness.map_or("", |f| f.name()),
                        j + 1,
                        c.cycle,
                        c.change_rate,
                        c.ndcg,
                        c.freshness,
                        c.newly_visited,
                        c.stale,
                        c.visited,
                        c.wfreshness,
                        c.wndcg
                    );
                }
            }
        }
    }
    out
}

/// `arms.csv` (docs/src/reference/bandit.md): one row per bandit method, rotation and
/// scored test cycle: the arm drawn (index into the method's `arms` in `results.json`), its
/// reward, and every arm's probability (`q0`, `q1`, ...; as many columns as the widest
/// bandit has arms).
pub(crate) fn arms_csv(a: &Analysis) -> String {
    let bandits: Vec<&Method> = a.methods.iter().filter(|m| !m.arms.is_empty()).collect();
    let width = bandits.iter().map(|m| m.arms.len()).max().unwrap_or(0);
    let mut out = String::from("method,rotation,position,cycle,arm,arm_name,reward");
    for j in 0..width {
        let _ = write!(out, ",q{j}");
    }
    out.push('\n');
    for m in bandits {
        for (rotation, choices) in a.study.rotations.iter().zip(&m.choices) {
            for (i, c) in choices.iter().enumerate() {
                let name = m.arms.get(c.arm).map_or("", String::as_str);
                let _ = write!(
                    out,
                    "{},{rotation},{},{},{},{},{}",
                    csv_field(&m.name),
                    i + 1,
                    c.cycle,
                    c.arm,
                    csv_field(name),
                    c.reward
                );
                for j in 0..width {
                    match c.q.get(j) {
                        Some(q) => write!(out, ",{q}"),
                        None => write!(out, ","),
                    }
                    .unwrap_or_default();
                }
                out.push('\n');
            }
        }
    }
    out
}

/// `generations.csv`: one row per GP unit and generation.
pub(crate) fn generations_csv(a: &Analysis) -> String {
    let mut out = String::from(
        "configuration,fitness,rotation,seed,generation,best,mean,evaluated,cache_hits,best_formula\n",
    );
    for u in &a.gp_units {
        let fitness = a
            .study
            .configurations
            .iter()
            .find(|c| c.name == u.configuration)
            .map_or("", |c| c.fitness.name());
        for g in &u.run.generations {
            let _ = writeln!(
                out,
                "{},{fitness},{},{},{},{},{},{},{},{}",
                u.configuration,
                u.rotation,
                u.seed,
                g.generation,
                g.best,
                g.mean,
                g.evaluated,
                g.cache_hits,
                csv_field(&g.best_formula.to_string())
            );
        }
    }
    out
}

/// What `results.json` holds: the analysis, and its headroom when the study has the
/// oracle (docs/src/reference/evaluation.md#headroom).
#[derive(serde::Serialize)]
struct Results<'a> {
    #[serde(flatten)]
    analysis: &'a Analysis,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    headroom: Vec<super::headroom::Headroom>,
}

/// Reads the study and units of `dir` and writes every report the study asks for.
/// Returns the paths written.
pub fn write(dir: &Path) -> Result<Vec<PathBuf>, ReportError> {
    let (store, study) = Store::open(dir)?;
    store.remove_orphans()?;
    let analysis = analyse(&study, &store)?;
    let mut written = Vec::new();
    let mut put = |name: &str, text: &str| -> Result<(), ReportError> {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| ReportError::Io {
                path: parent.display().to_string(),
                reason: e.to_string(),
            })?;
        }
        crate::atomic::write(&path, text.as_bytes()).map_err(|e| ReportError::Io {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        written.push(path);
        Ok(())
    };
    let plots = if study.reports.plots {
        plots::all(&analysis)
    } else {
        Vec::new()
    };
    let summary = summary::Summary::new(
        &analysis,
        &plots.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
    );
    put("summary.md", &summary.markdown())?;
    let results = Results {
        analysis: &analysis,
        headroom: super::headroom::headroom(&analysis),
    };
    // Invariant: an analysis is plain data (string keys, finite or null numbers).
    let mut json = serde_json::to_string_pretty(&results).expect("results serialize");
    json.push('\n');
    put("results.json", &json)?;
    if study.reports.csv {
        put("cycles.csv", &cycles_csv(&analysis))?;
        put("generations.csv", &generations_csv(&analysis))?;
        if analysis.methods.iter().any(|m| !m.arms.is_empty()) {
            put("arms.csv", &arms_csv(&analysis))?;
        }
    }
    for (name, svg) in &plots {
        put(name, svg)?;
    }
    let dataset = store.dataset()?;
    put(
        "report.html",
        &html::page(&summary, &study, analysis.dataset, dataset.as_ref(), &plots),
    )?;
    Ok(written)
}
