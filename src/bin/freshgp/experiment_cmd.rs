//! `freshgp experiment`: run a whole study from an experiment file, unit by unit, into an
//! output directory, then write its report.

use crate::interrupt::Interrupt;
use crate::progress::Progress;
use anyhow::{Context, Result};
use freshgp::experiment::store::Store;
use freshgp::experiment::study::Study;
use freshgp::experiment::units::{self, Event, Runner, Shard};
use freshgp::gp::GenerationReport;
use indicatif::ProgressBar;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Flags of `freshgp experiment`.
#[derive(clap::Args)]
pub struct Args {
    /// The experiment file (RON; see experiments/*.ron).
    file: PathBuf,
    /// Output directory (default: results/<study name>).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Continue a stopped run in DIR: skip the units already stored.
    #[arg(long)]
    resume: bool,
    /// Run only the units whose index modulo n is i (e.g. 0/4); merge the shards with
    /// `freshgp report DIR --merge OTHER`. `auto`: the shard of this Slurm array task
    /// (SLURM_ARRAY_TASK_ID of SLURM_ARRAY_TASK_COUNT; see the book's Studies and reports
    /// chapter).
    #[arg(long, value_name = "i/n|auto", default_value = "0/1")]
    shard: ShardArg,
    /// No progress on stderr.
    #[arg(long)]
    quiet: bool,
}

/// `--shard`: a shard, or `auto` for a Slurm array task's.
#[derive(Debug, Clone, Copy)]
enum ShardArg {
    Given(Shard),
    Slurm,
}

impl std::str::FromStr for ShardArg {
    type Err = String;

    fn from_str(s: &str) -> Result<ShardArg, String> {
        match s.trim() {
            "auto" => Ok(ShardArg::Slurm),
            other => other.parse().map(ShardArg::Given),
        }
    }
}

impl ShardArg {
    /// The shard to run (`auto` reads the Slurm array variables).
    fn resolve(self) -> Result<Shard> {
        match self {
            ShardArg::Given(shard) => Ok(shard),
            ShardArg::Slurm => {
                Shard::from_slurm(|name| std::env::var(name).ok()).context("--shard auto")
            }
        }
    }
}

/// Runs `freshgp experiment`.
pub fn run(args: Args) -> Result<()> {
    let shard = args.shard.resolve()?;
    let study = Study::load(&args.file)?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("results").join(&study.name));
    Store::check(&out, &study, args.resume)?;
    let quiet = args.quiet;
    if !quiet {
        eprintln!(
            "{}: loading the dataset ({})",
            study.name,
            study.dataset_label()
        );
    }
    let runner = Runner::new(study, &args.file)?;
    let store = Store::create(&out, runner.study(), args.resume)?;
    if !quiet {
        let d = runner.dataset();
        eprintln!("{} pages × {} cycles", d.pages(), d.cycles());
    }
    let shown = Progress::new(quiet);
    let mut progress = StudyProgress::new(shard, &out, &shown);
    let interrupt = Interrupt::watch();
    let ran = units::run_study(&runner, &store, shard, |event| {
        if !quiet {
            progress.show(event)
        }
        interrupt.flow()
    })
    .map_err(|e| match interrupt.flow().is_break() {
        true => anyhow::Error::new(e).context(format!(
            "the units finished are stored in {}: run again with --resume to go on",
            out.display()
        )),
        false => e.into(),
    })?;
    let start = progress.start;
    progress.clear();
    let study = runner.study();
    let missing = units::units(study)
        .iter()
        .filter(|u| !store.unit_path(&u.file_name(study)).exists())
        .count();
    if missing > 0 {
        eprintln!(
            "ran {ran} units in {:.1}s; {missing} units of the study are in other shards: \
             shards run into this directory (--resume) write the report when the last of them \
             ends; shards run into other directories are merged with `freshgp report {} \
             --merge OTHER_DIR`",
            start.elapsed().as_secs_f64(),
            out.display()
        );
        return Ok(());
    }
    let written = freshgp::report::write(&out).context("cannot write the report")?;
    if !quiet {
        eprintln!(
            "ran {ran} units in {:.1}s; report: {}",
            start.elapsed().as_secs_f64(),
            out.join("summary.md").display()
        );
    }
    let mut stdout = std::io::stdout().lock();
    for path in written {
        writeln!(stdout, "{}", path.display())?;
    }
    Ok(())
}

/// The progress of a study on stderr, with elapsed time and ETA: on a terminal, a bar of
/// the study's work (individuals to evaluate; the message names the unit) over a bar of
/// the running unit's generations; elsewhere the plain lines.
struct StudyProgress<'a> {
    shard: Shard,
    out: &'a Path,
    shown: &'a Progress,
    start: Instant,
    /// When the last generation line was shown.
    last: Instant,
    work_total: f64,
    /// Units to run.
    count: usize,
    /// The study's work.
    study: ProgressBar,
    /// The running unit's generations, once it has one.
    unit: Option<ProgressBar>,
}

impl<'a> StudyProgress<'a> {
    fn new(shard: Shard, out: &'a Path, shown: &'a Progress) -> Self {
        StudyProgress {
            shard,
            out,
            shown,
            start: Instant::now(),
            last: Instant::now() - Duration::from_secs(60),
            work_total: 0.0,
            count: 0,
            study: ProgressBar::hidden(),
            unit: None,
        }
    }

    /// Elapsed time and the ETA after `done` of the total work.
    fn eta(&self, done: f64) -> String {
        let elapsed = self.start.elapsed().as_secs_f64();
        if done <= 0.0 {
            return format!("{elapsed:.0}s elapsed");
        }
        let left = elapsed / done * (self.work_total - done).max(0.0);
        format!("{elapsed:.0}s elapsed, ETA {left:.0}s")
    }

    /// Clears the bars.
    fn clear(&mut self) {
        if let Some(unit) = self.unit.take() {
            unit.finish_and_clear();
        }
        self.study.finish_and_clear();
    }

    fn show(&mut self, event: Event<'_>) {
        match event {
            Event::Plan {
                total,
                in_shard,
                done,
                work,
            } => {
                self.work_total = work;
                self.count = in_shard - done;
                self.shown.note(format_args!(
                    "{total} units in the study, {in_shard} in shard {}/{}, {done} already done, {} to run; results in {}",
                    self.shard.index(),
                    self.shard.count(),
                    in_shard - done,
                    self.out.display()
                ));
                self.study = self.shown.bar("study", work.round() as u64);
            }
            Event::Start {
                position, label, ..
            } => {
                let unit = format!("[{}/{}] {label}", position + 1, self.count);
                self.study.set_message(unit.clone());
                self.shown.line(unit);
            }
            Event::Generation {
                label,
                report,
                work_done,
            } => self.generation(label, report, work_done),
            Event::Finished {
                label,
                seconds,
                work_done,
            } => {
                if let Some(unit) = self.unit.take() {
                    unit.finish_and_clear();
                }
                self.study.set_position(work_done.round() as u64);
                self.shown.note(format_args!(
                    "    {label}: done in {seconds:.1}s | {}",
                    self.eta(work_done)
                ));
            }
        }
    }

    /// A generation of the running unit: the bars move; a line at most every 2 s (and
    /// the last generation's).
    fn generation(&mut self, label: &str, report: &GenerationReport, work_done: f64) {
        let population = (report.evaluated + report.cache_hits) as f64;
        let done = work_done + population * (report.generation + 1) as f64;
        self.study.set_position(done.round() as u64);
        let unit = self.unit.get_or_insert_with(|| {
            self.shown
                .bar("generations", (report.generations + 1) as u64)
        });
        unit.set_position((report.generation + 1) as u64);
        unit.set_message(format!("best {:.4} mean {:.4}", report.best, report.mean));
        if self.last.elapsed() < Duration::from_secs(2) && report.generation < report.generations {
            return;
        }
        self.last = Instant::now();
        self.shown.line(format_args!(
            "    {label}: gen {:>3}/{} best {:.4} mean {:.4} | {}",
            report.generation,
            report.generations,
            report.best,
            report.mean,
            self.eta(done)
        ));
    }
}
