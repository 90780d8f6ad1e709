//! `freshgp report`: regenerate a study's tables and plots from its output directory,
//! optionally merging in the units of other shards first.

use anyhow::{bail, Result};
use freshgp::experiment::store::{Store, STUDY_FILE};
use std::io::Write as _;
use std::path::PathBuf;

/// Flags of `freshgp report`.
#[derive(clap::Args)]
pub struct Args {
    /// The study's output directory.
    dir: PathBuf,
    /// Copy into DIR the unit files of another output directory of the same study (a
    /// shard) before reporting; repeatable. DIR is created if needed.
    #[arg(long, value_name = "OTHER")]
    merge: Vec<PathBuf>,
}

/// Runs `freshgp report`.
pub fn run(args: Args) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    if !args.dir.join(STUDY_FILE).exists() {
        let Some(first) = args.merge.first() else {
            bail!(
                "{} holds no {STUDY_FILE}: not a study's output directory",
                args.dir.display()
            );
        };
        Store::create_like(&args.dir, first)?;
    }
    let (store, _) = Store::open(&args.dir)?;
    for other in &args.merge {
        let n = store.merge_from(other)?;
        eprintln!("{}: {n} unit files merged", other.display());
    }
    for path in freshgp::report::write(&args.dir)? {
        writeln!(stdout, "{}", path.display())?;
    }
    Ok(())
}
