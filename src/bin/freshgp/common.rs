//! Flags and helpers shared by several subcommands: loading data, simulation settings.

use anyhow::{Context, Result};
use freshgp::data::{self, Dataset, LoadOptions, UnknownPolicy};
use freshgp::sim::{SimConfig, TieBreak};
use std::path::{Path, PathBuf};

/// Where the history comes from and how its unknown cycles are treated.
#[derive(clap::Args, Debug, Clone)]
pub struct DataArgs {
    /// Change history: SPEC text format (BITS [TAB id ...]) or freshgp's binary cache.
    #[arg(long, value_name = "FILE")]
    pub data: PathBuf,
    /// Unknown cycles (`?`): paper (drop pages with > 2, impute the rest), paper:N, infer,
    /// zero, one, drop or keep.
    #[arg(long, default_value = "paper", value_name = "POLICY")]
    pub unknown: UnknownPolicy,
}

impl DataArgs {
    /// Loads the dataset, reporting dropped pages and imputed cycles on stderr.
    pub fn load(&self, quiet: bool) -> Result<Dataset> {
        load(&self.data, self.unknown, quiet)
    }
}

/// Loads a dataset with `unknown`, reporting on stderr what the policy changed.
pub fn load(path: &Path, unknown: UnknownPolicy, quiet: bool) -> Result<Dataset> {
    let loaded = data::load(path, &LoadOptions { unknown })
        .with_context(|| format!("cannot load {}", path.display()))?;
    let r = &loaded.report;
    if !quiet && (r.unknown.pages_dropped > 0 || r.unknown.cycles_imputed() > 0) {
        eprintln!(
            "{}: {} pages read, {} dropped and {} unknown cycles imputed by policy `{unknown}`",
            path.display(),
            r.pages_read,
            r.unknown.pages_dropped,
            r.unknown.cycles_imputed()
        );
    }
    Ok(loaded.dataset)
}

/// Simulation settings.
#[derive(clap::Args, Debug, Clone)]
pub struct SimArgs {
    /// Fraction of the simulated pages visited per cycle, in (0, 1].
    #[arg(long, default_value_t = freshgp::sim::DEFAULT_RESOURCES)]
    pub resources: f64,
    /// Warm-up cycles that visit every page.
    #[arg(long, default_value_t = freshgp::sim::DEFAULT_WARMUP)]
    pub warmup: usize,
    /// Seed of the tie-break order.
    #[arg(long = "tie-seed", default_value_t = 0)]
    pub tie_seed: u64,
    /// How equal scores are ordered: seeded (SPEC) or reference (the authors' std::sort
    /// order, for parity checks; slower).
    #[arg(long, default_value = "seeded", value_parser = parse_ties)]
    pub ties: TieBreak,
}

fn parse_ties(s: &str) -> Result<TieBreak, String> {
    match s {
        "seeded" => Ok(TieBreak::Seeded),
        "reference" => Ok(TieBreak::Reference),
        _ => Err(format!("`{s}`: expected seeded or reference")),
    }
}

impl SimArgs {
    /// The checked settings.
    pub fn config(&self) -> Result<SimConfig> {
        Ok(SimConfig::new(self.resources, self.warmup)?
            .with_seed(self.tie_seed)
            .with_ties(self.ties))
    }
}
