//! What the `dataset` subcommands that write a history share: `--weights`, `--on-error`,
//! the report of skipped lines, the output format, and the writing itself.

use anyhow::Result;
use clap::ValueEnum;
use freshgp::data::{cache, text, weights, Dataset};
use std::path::{Path, PathBuf};

// `--weights FILE`, shared by the readers and `convert`.
#[derive(clap::Args)]
pub struct WeightsArg {
    /// Page weights to set after loading: a file of `page_id<TAB>weight` lines (`#`
    /// comments and blank lines ignored; weights finite and >= 0). Listed pages take the
    /// file's weight (replacing any weight they had), others keep theirs; ids not in the
    /// history are counted on stderr, not an error; an id listed twice is an error.
    #[arg(long, value_name = "FILE")]
    weights: Option<PathBuf>,
}

impl WeightsArg {
    /// Sets the weights of `d` from the file, if one was given; reports on stderr.
    pub fn apply(&self, d: &mut Dataset) -> Result<()> {
        if let Some(path) = &self.weights {
            let report = weights::apply_file(d, path)?;
            eprintln!("{report}");
        }
        Ok(())
    }
}

#[derive(Clone, Copy, ValueEnum)]
pub enum ErrorMode {
    /// Skip malformed lines and report how many.
    Skip,
    /// Stop at the first malformed line.
    Stop,
}

#[derive(Clone, Copy, PartialEq, ValueEnum)]
pub enum To {
    /// The text format (one line of change bits per page).
    Text,
    /// The binary cache.
    Binary,
}

/// Prints the malformed lines a reader skipped: the first ones' errors, then how many more.
pub fn print_skipped(errors: &[freshgp::data::DataError], skipped: usize) {
    for e in errors {
        eprintln!("skipped: {e}");
    }
    if skipped > errors.len() {
        eprintln!("skipped: ... and {} more", skipped - errors.len());
    }
}

/// Writes a history to `out` (`-`: standard output) in the format `to` names, else by
/// its extension.
pub fn write(d: &Dataset, out: &Path, to: Option<To>) -> Result<()> {
    let binary = match to {
        Some(t) => t == To::Binary,
        None => out.extension().is_some_and(|e| e == "fgpd"),
    };
    if out.as_os_str() == "-" {
        // Standard output: nothing to replace atomically.
        let stdout = std::io::BufWriter::new(std::io::stdout().lock());
        if binary {
            cache::write(d, stdout)?;
        } else {
            text::write(d, stdout)?;
        }
    } else if binary {
        cache::write_file(d, out)?;
    } else {
        text::write_file(d, out)?;
    }
    Ok(())
}
