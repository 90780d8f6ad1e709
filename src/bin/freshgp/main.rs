//! The `freshgp` command: a thin layer over the library.
//!
//! Stage one is clap's raw flags (`Cli`); each subcommand module turns its flags into the
//! library's validated settings and runs. Every error is printed with its chain of causes
//! and the process exits with status 2, except a write to a closed pipe (`freshgp ... |
//! head`), which ends the process quietly with status 0.

use clap::{Parser, Subcommand};

mod archive_cmd;
mod baselines_cmd;
mod common;
mod dataset_cmd;
mod dataset_out;
mod evolve_cmd;
mod experiment_cmd;
mod formula_cmd;
mod interrupt;
mod model_cmd;
mod progress;
mod report_cmd;
mod requests_cmd;
mod schedule_cmd;
mod simulate_cmd;

/// Discover crawl revisit scoring functions by genetic programming.
#[derive(Parser)]
#[command(name = "freshgp", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Make, convert and describe change-history datasets.
    Dataset(dataset_cmd::Args),
    /// Fixed policies side by side over the five test rotations: the published baselines,
    /// the literature's policies and bandits, or any formula.
    Baselines(baselines_cmd::Args),
    /// Per-cycle metrics of one formula or baseline on one set.
    Simulate(simulate_cmd::Args),
    /// Evolve scoring formulas on one rotation.
    Evolve(evolve_cmd::Args),
    /// Run a whole study from an experiment file (RON), resumable and shardable.
    Experiment(experiment_cmd::Args),
    /// Write a study's tables and plots from its output directory; merge shards.
    Report(report_cmd::Args),
    /// Print (simplified, canonical or as LaTeX), evaluate and export formulas.
    Formula(formula_cmd::Args),
    /// Learned change models: train one, or print the AUC table.
    Model(model_cmd::Args),
    /// Request-driven (click-triggered) crawling: the crawls each policy saves against
    /// uniform at equal freshness.
    Requests(requests_cmd::Args),
    /// Apply a crawler's download log to a saved state and print the next batch.
    Schedule(schedule_cmd::Args),
}

/// Whether `err` comes from writing to a closed pipe (`freshgp ... | head`).
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn main() {
    survive_file_size_limit();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Formula(args) => formula_cmd::run(args),
        Command::Baselines(args) => baselines_cmd::run(args),
        Command::Simulate(args) => simulate_cmd::run(args),
        Command::Evolve(args) => evolve_cmd::run(args),
        Command::Dataset(args) => dataset_cmd::run(args),
        Command::Schedule(args) => schedule_cmd::run(args),
        Command::Experiment(args) => experiment_cmd::run(args),
        Command::Report(args) => report_cmd::run(args),
        Command::Model(args) => model_cmd::run(args),
        Command::Requests(args) => requests_cmd::run(args),
    };
    if let Err(err) = result {
        // The reader of our output went away: stop quietly, as Unix tools do.
        if is_broken_pipe(&err) {
            std::process::exit(0);
        }
        let (what, status) = match interrupt::stopped(&err) {
            true => ("interrupted", interrupt::EXIT_STATUS),
            false => ("error", 2),
        };
        eprintln!("{what}: {err}");
        for cause in err.chain().skip(1) {
            eprintln!("  caused by: {cause}");
        }
        std::process::exit(status);
    }
}

/// A write past the file-size limit (`ulimit -f`) raises SIGXFSZ, whose default action
/// kills the process in the middle of the write: no error message, and the temporary file
/// of an atomic write left behind. With the signal handled (a flag nobody reads), the
/// write fails with "File too large" instead, and the writer removes its temporary file
/// and reports the file like any other I/O error; the old file stays as it was.
fn survive_file_size_limit() {
    #[cfg(unix)]
    {
        let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        // Without the handler the default action stays: nothing better to do then.
        let _ = signal_hook::flag::register(signal_hook::consts::SIGXFSZ, flag);
    }
}
