//! Progress of long runs on stderr. The library tells its progress through callbacks;
//! the commands turn each event into a call here, which shows it one of three ways:
//!
//! - stderr a terminal that can move its cursor (`TERM` set, not `dumb`): live bars
//!   (indicatif) in one [`MultiProgress`], each with a position and length that count
//!   something (generations, units' work, budgets, simulations, epochs), a message naming
//!   the stage, the elapsed time and the time left; *notes* (one-off lines: a plan, a
//!   penalty's AUC) print above the bars, and the periodic *lines* the bars replace are
//!   not printed;
//! - stderr not such a terminal (a log, a test): the plain lines, notes and periodic lines
//!   alike, with their own elapsed times and estimates;
//! - `--quiet`: nothing.
//!
//! A bar clears itself when it is finished or dropped (an error on the way included), so a
//! command clears its bars before it writes its results to stdout.

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressFinish, ProgressStyle};
use std::fmt::Display;
use std::time::{Duration, Instant};

/// How a bar is drawn: `prefix [=====>    ] pos/len, elapsed, ETA`, and the message
/// (the stage) on a line of its own, cut to the terminal's width.
const TEMPLATE: &str =
    "{prefix} [{bar:30}] {pos}/{len}  {elapsed} elapsed, ETA {eta}\n  {wide_msg}";

/// How often a bar redraws by itself (its elapsed time and ETA move between events).
const TICK: Duration = Duration::from_millis(250);

/// How progress is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Quiet,
    Lines,
    Bars,
}

/// Where a run's progress goes: bars on a terminal, plain lines elsewhere, or nowhere.
pub struct Progress {
    mode: Mode,
    bars: MultiProgress,
}

impl Progress {
    /// Bars when stderr is a terminal, plain lines otherwise, nothing when `quiet`.
    pub fn new(quiet: bool) -> Progress {
        // indicatif draws on a terminal that can move its cursor: not with TERM unset or
        // `dumb`, where the lines stand in for the bars.
        let stderr = ProgressDrawTarget::stderr();
        let mode = if quiet {
            Mode::Quiet
        } else if !stderr.is_hidden() {
            Mode::Bars
        } else {
            Mode::Lines
        };
        let target = match mode {
            Mode::Bars => stderr,
            Mode::Quiet | Mode::Lines => ProgressDrawTarget::hidden(),
        };
        Progress {
            mode,
            bars: MultiProgress::with_draw_target(target),
        }
    }

    /// Whether nothing is shown.
    pub fn quiet(&self) -> bool {
        self.mode == Mode::Quiet
    }

    /// A periodic line that a bar replaces: printed only when stderr is not a terminal.
    pub fn line(&self, text: impl Display) {
        if self.mode == Mode::Lines {
            eprintln!("{text}");
        }
    }

    /// A one-off line, printed either way (above the bars on a terminal).
    pub fn note(&self, text: impl Display) {
        match self.mode {
            Mode::Quiet => {}
            Mode::Lines => eprintln!("{text}"),
            Mode::Bars => self.bars.suspend(|| eprintln!("{text}")),
        }
    }

    /// A bar of `len` steps named `prefix`, below the others; drawn only on a terminal
    /// (hidden otherwise, where it costs nothing).
    pub fn bar(&self, prefix: &str, len: u64) -> ProgressBar {
        if self.mode != Mode::Bars {
            return ProgressBar::hidden();
        }
        let style = ProgressStyle::with_template(TEMPLATE)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
        let bar = ProgressBar::new(len)
            .with_style(style)
            .with_prefix(prefix.to_string())
            .with_finish(ProgressFinish::AndClear);
        let bar = self.bars.add(bar);
        bar.enable_steady_tick(TICK);
        bar
    }

    /// Counted steps of `label`: a bar on a terminal, lines elsewhere (see [`Steps`]).
    pub fn steps(&self, label: &'static str, total: u64) -> Steps {
        self.fine_steps(label, total, 1)
    }

    /// As [`Progress::steps`], the bar counting `per_step` parts of each step
    /// ([`Steps::set_part`]).
    pub fn fine_steps(&self, label: &'static str, total: u64, per_step: u64) -> Steps {
        Steps {
            bar: self.bar(label, total * per_step),
            per_step,
            lines: (self.mode == Mode::Lines).then(|| Lines {
                label,
                total,
                start: Instant::now(),
                shown: None,
            }),
            done: 0,
        }
    }
}

/// A count of finished steps out of a known total: a bar on a terminal; elsewhere one line
/// per step at most once a second (and the last), `[done/total] label (elapsed s, about
/// N s left)`.
pub struct Steps {
    bar: ProgressBar,
    /// Parts of a step the bar counts.
    per_step: u64,
    lines: Option<Lines>,
    done: u64,
}

/// The line printer of [`Steps`].
struct Lines {
    label: &'static str,
    total: u64,
    start: Instant,
    shown: Option<Instant>,
}

impl Steps {
    /// One more step done.
    pub fn inc(&mut self) {
        self.set(self.done + 1);
    }

    /// `done` steps done.
    pub fn set(&mut self, done: u64) {
        self.done = done;
        self.bar.set_position(done * self.per_step);
        if let Some(lines) = &mut self.lines {
            lines.show(done);
        }
    }

    /// `part` parts of the step after the done ones done (the bar alone).
    pub fn set_part(&self, part: u64) {
        self.bar
            .set_position(self.done * self.per_step + part.min(self.per_step));
    }

    /// The bar's message: the stage.
    pub fn set_message(&self, message: impl Into<String>) {
        self.bar.set_message(message.into());
    }

    /// The last line, if it was not shown; the bar cleared.
    pub fn finish(&mut self) {
        if let Some(lines) = &self.lines {
            if self.done < lines.total {
                self.set(lines.total);
            }
        }
        self.bar.finish_and_clear();
    }
}

impl Lines {
    fn show(&mut self, done: u64) {
        let now = Instant::now();
        if self.shown.is_some_and(|t| now - t < Duration::from_secs(1)) && done < self.total {
            return;
        }
        self.shown = Some(now);
        let elapsed = self.start.elapsed().as_secs_f64();
        let left = if done == 0 {
            String::new()
        } else {
            let eta = elapsed / done as f64 * (self.total - done.min(self.total)) as f64;
            format!(", about {eta:.0} s left")
        };
        eprintln!(
            "[{done}/{}] {} ({elapsed:.0} s{left})",
            self.total, self.label
        );
    }
}
